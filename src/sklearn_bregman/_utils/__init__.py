"""Foundations that every layer may use: scikit-learn's private names
through one door (``_sklearn_compat``).
ARCHITECTURE.md's import layers say what this folder may import.
"""
