"""Breiman's synthetic two-class problems twonorm and ringnorm.

L. Breiman, "Bias, variance, and arcing classifiers", Technical Report 460,
Statistics Department, University of California, Berkeley, 1996 (the data
sets of Bach & Jordan 2005, Figure 2).  Both are 20-dimensional, the two
classes equally likely:

- twonorm: class 1 from N(+a 1, I), class 2 from N(-a 1, I), a = 2 / sqrt(20);
- ringnorm: class 1 from N(0, 4 I), class 2 from N(a 1, I), a = 1 / sqrt(20).

Each label is drawn first (a fair coin), then the point from its class's
normal.  Labels are 0 (class 1) and 1 (class 2).  Used by
``compare_kernlab.py`` and ``bench_csi_figure2.py``; tested against the
definitions' moments in ``tests/test_benchmark_data.py``.
"""

import numpy as np

__all__ = ["DIMENSION", "RINGNORM_SHIFT", "TWONORM_SHIFT", "ringnorm", "twonorm"]

DIMENSION = 20
TWONORM_SHIFT = 2.0 / np.sqrt(DIMENSION)
RINGNORM_SHIFT = 1.0 / np.sqrt(DIMENSION)


def twonorm(n, random_state=None):
    """n points of twonorm: ``(X, y)``, X of shape (n, 20), y in {0, 1}."""
    rng = np.random.default_rng(random_state)
    y = rng.integers(0, 2, n)
    sign = np.where(y == 0, 1.0, -1.0)[:, None]
    X = rng.standard_normal((n, DIMENSION)) + sign * TWONORM_SHIFT
    return X, y


def ringnorm(n, random_state=None):
    """n points of ringnorm: ``(X, y)``, X of shape (n, 20), y in {0, 1}."""
    rng = np.random.default_rng(random_state)
    y = rng.integers(0, 2, n)
    Z = rng.standard_normal((n, DIMENSION))
    X = np.where(y[:, None] == 0, 2.0 * Z, Z + RINGNORM_SHIFT)  # N(0, 4I) has sd 2
    return X, y
