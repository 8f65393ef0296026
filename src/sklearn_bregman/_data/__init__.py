"""Where data enters: rows in memory or in dask chunks.

One rows interface and its two implementations (``_data``, ``_dask``), the
out-of-core k-means (``_dask_kmeans``), and identifiers and tuples as users
pass them (``_inputs``).
ARCHITECTURE.md's import layers say what this folder may import.
"""
