"""Tuples of points as samples: the pair, triplet and quadruplet classifiers
(``_pairs``, ``_triplets``, ``_quadruplets``) and what they share (``_base``).
ARCHITECTURE.md's import layers say what this folder may import.
"""
