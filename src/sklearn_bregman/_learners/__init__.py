"""The estimators and what they share.

The learned map and the metric surface (``_base``, ``_metric``), the memory
of ``partial_fit`` (``_stream``), one module per estimator, and the scorers.
ARCHITECTURE.md's import layers say what this folder may import.
"""
