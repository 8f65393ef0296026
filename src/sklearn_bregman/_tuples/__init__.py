"""Tuples of points as samples: the pair and triplet classifiers
(``_pairs``, ``_triplets``) and what they share (``_base``).
ARCHITECTURE.md's import layers say what this folder may import.
"""
