"""Bounds of pair constraints, set from the initial metric or factor.

:func:`set_pair_bounds` fills the unset (NaN) bounds of a pair set by one of
the rules of the estimators' ``bounds`` parameter: ``'percentile'`` (ITML:
percentiles of the squared distances of random pairs), ``'relative'``
(JMLR 2009, Section 7.1: each pair's own initial squared distance times
``1 -/+ epsilon``) or two numbers.  Public through
:mod:`sklearn_bregman.constraints`.
"""

import numpy as np
from sklearn.utils import check_random_state

from .._engine import pair_sqdist
from ._containers import pair_constraints_of_valid
from ._validation import check_bound_values

__all__ = ["percentile_bounds", "percentile_pairs", "percentiles", "set_pair_bounds"]


#: Number of random pairs used to estimate the 'percentile' bounds.
_PERCENTILE_PAIRS = 10_000


def set_pair_bounds(constraints, G, M=None, *, bounds="percentile", epsilon=0.25,
                    random_state=None, source="constraints"):
    """Fill the unset (NaN) bounds of ``constraints``.

    Parameters
    ----------
    constraints : PairConstraints
        Validated constraints; bounds already set are kept.
    G : ndarray of shape (n, r)
        Rows of the training points under the prior (data, or initial factor).
    M : ndarray of shape (r, r), default=None
        Prior metric on ``G``'s rows (``None``: identity).
    bounds : {'percentile', 'relative'} or (upper, lower)
        - ``'percentile'``: similar pairs get the 5th, dissimilar pairs the 95th
          percentile of the squared distances of random pairs of points
          (ITML, Davis et al. 2007).
        - ``'relative'``: each pair's own initial squared distance ``d0``
          times ``1 - epsilon`` (similar) or ``1 + epsilon`` (dissimilar)
          (Kulis et al. 2009, Section 7.1).
        - two numbers ``(upper, lower)``: similar pairs ``d <= upper``,
          dissimilar pairs ``d >= lower``; any array-like of two elements
          (shape (2,), (1, 2) or (2, 1)).

        Checked even when every constraint carries its own bound.
    epsilon : float, default=0.25
        Relative margin of ``'relative'``; in [0, 1).
    random_state : int, RandomState instance or None
        Draws the random pairs of ``'percentile'``.
    source : str, default='constraints'
        What the constraints are to the user (the parameter they passed, or
        e.g. "the pairs drawn from y"), for error messages.

    Returns
    -------
    PairConstraints
        A new container with every bound set (``constraints`` is read-only).
    """
    # the parameter is checked even when every constraint carries its own bound
    kind = bounds if isinstance(bounds, str) else "numbers"
    if isinstance(bounds, str):
        if bounds not in ("percentile", "relative"):
            raise ValueError(
                "bounds must be 'percentile', 'relative' or two numbers (upper, lower); "
                f"got {bounds!r}."
            )
        if bounds == "relative" and not (0.0 <= epsilon < 1.0):
            raise ValueError(f"epsilon must lie in [0, 1); got {epsilon!r}.")
    else:
        upper, lower = _two_bounds(bounds)
    bound = np.array(constraints.bound, dtype=np.float64, copy=True)
    unset = np.isnan(bound)
    if unset.any():
        sim = unset & (constraints.sign > 0)
        dis = unset & (constraints.sign < 0)
        if kind == "percentile":
            upper, lower = percentile_bounds(G, M, random_state=random_state)
            bound[sim] = upper
            bound[dis] = lower
        elif kind == "relative":
            d0 = pair_sqdist(G, constraints.i[unset], constraints.j[unset], M)
            factor = np.where(constraints.sign[unset] > 0, 1.0 - epsilon, 1.0 + epsilon)
            bound[unset] = factor * d0
        else:
            bound[sim] = upper
            bound[dis] = lower
    check_bound_values(bound, allow_nan=False, owner=source)
    # (the pairs' other fields were validated when they were built)
    return pair_constraints_of_valid(constraints.i, constraints.j, constraints.sign, bound)


def _two_bounds(bounds):
    """``(upper, lower)`` of ``bounds`` given as two numbers: any array-like of
    two elements (a tuple, a list, an array of shape (2,), (1, 2) or (2, 1),
    as metric-learn takes them), finite, ``upper > 0``, ``lower >= 0``."""
    try:
        values = np.asarray(bounds, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        values = None
    if values is None or values.size != 2:
        raise ValueError(
            "bounds must be 'percentile', 'relative' or two numbers "
            f"(upper, lower); got {bounds!r}."
        )
    upper, lower = float(values[0]), float(values[1])
    if not (np.isfinite(upper) and np.isfinite(lower)) or upper <= 0 or lower < 0:
        raise ValueError(
            "bounds=(upper, lower) needs a finite upper > 0 (similar pairs) and "
            f"a finite lower >= 0 (dissimilar pairs); got {bounds!r}."
        )
    return upper, lower


def percentile_bounds(G, M=None, *, low=5.0, high=95.0, random_state=None):
    """ITML's bounds: percentiles of squared distances of random pairs.

    Zero distances (duplicate points, and pairs within 1e-12 of the largest
    sampled distance) are left out, so the upper bound on similar pairs
    stays positive and resolvable.

    Parameters
    ----------
    G : ndarray of shape (n, r)
        Coordinates of the n points (at least 2), e.g. an initial factor.
    M : ndarray of shape (r, r), default=None
        Symmetric matrix of the squared distances
        ``(g_i - g_j)' M (g_i - g_j)``; ``None`` means the identity.
    low : float, default=5.0
        Percentile of the upper bound on similar pairs.
    high : float, default=95.0
        Percentile of the lower bound on dissimilar pairs.
    random_state : int, RandomState instance or None, default=None
        Seeds the random pairs (10,000 pairs of distinct points).

    Returns
    -------
    upper, lower : float
        The ``low`` and ``high`` percentiles.
    """
    i, j = percentile_pairs(G.shape[0], check_random_state(random_state))
    return percentiles(pair_sqdist(G, i, j, M), low, high)


def percentile_pairs(n, rng):
    """The random pairs of distinct points whose distances give the
    'percentile' bounds."""
    if n < 2:
        raise ValueError("percentile bounds need at least 2 samples.")
    i = rng.randint(0, n, _PERCENTILE_PAIRS)
    j = (i + 1 + rng.randint(0, n - 1, _PERCENTILE_PAIRS)) % n
    return i, j


def percentiles(d, low, high):
    """The ``low`` and ``high`` percentiles of the squared distances ``d`` of
    :func:`percentile_pairs`, zero ones left out."""
    # pairs that coincide, to rounding (1e-12 of the largest, as the
    # engine's zero-length test), are left out, so that the bound is one
    # that double precision can resolve
    d = d[d > 1e-12 * d.max(initial=0.0)]
    if d.size == 0:
        raise ValueError(
            "bounds='percentile': every sampled pair of points has zero distance; "
            "the data has (almost) no spread. Give explicit bounds."
        )
    upper, lower = np.percentile(d, [low, high])
    return float(upper), float(lower)
