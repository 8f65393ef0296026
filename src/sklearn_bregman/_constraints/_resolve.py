"""The constraints of a ``fit`` call: resolved from what the user passed.

A pair learner's ``fit`` takes class labels ``y`` or explicit
``constraints``; :func:`pairs_of_fit` picks the source and draws the pairs
from the labels, :func:`resolve_pairs` then gathers the rows they touch and
sets the bounds left unset by the estimator's ``bounds`` rule, measured on
the initial factor or data, and :func:`check_pair_bounds` refuses bounds no
positive definite metric can meet.  The rows come through the one interface of
:mod:`sklearn_bregman._data._data`, so the same code serves data in memory and in
dask chunks.  Estimator support (ARCHITECTURE.md, layer 4): it reads the
estimator's parameters (``n_constraints``, ``bounds``, ``epsilon``,
``unlabeled``).
"""

from typing import NamedTuple

import numpy as np

from .._engine import ZERO_LENGTH_RTOL, pair_sqdist, zero_length_pairs
from ._bounds import percentile_pairs, percentiles, set_pair_bounds
from ._containers import PairConstraints, check_pairs, pair_constraints_of_valid
from ._labels import draw_label_pairs

__all__ = ["ResolvedPairs", "check_pair_bounds", "check_similar_bounds", "pairs_of_fit",
           "resolve_pair_constraints", "resolve_pairs"]


class ResolvedPairs(NamedTuple):
    """The pair constraints of a call, resolved: a new value (nothing is
    attached to the containers the user passed)."""

    #: the pairs over the training rows, every bound set
    pairs: PairConstraints
    #: the same pairs with indices into ``G_t``
    local: PairConstraints
    #: the rows the pairs (and the random pairs of ``bounds='percentile'``) touch
    G_t: np.ndarray
    #: their indices among the training rows
    touched: np.ndarray
    #: what the pairs are to the user, for messages ("constraints", or "the
    #: 40 pairs drawn from y (bounds=..., epsilon=...)")
    source: str
    #: the bound rule applied (``'percentile'``: the two percentiles measured,
    #: as ``(upper, lower)``)
    bounds: object


def pairs_of_fit(estimator, y, constraints, n_samples, rng, label_index):
    """The pairs of a learner's ``fit`` and their source (for messages).

    ``constraints`` wins when given (``y`` is then free for later steps of a
    pipeline); otherwise pairs are drawn from the labels ``y`` by
    :func:`~sklearn_bregman._constraints._labels.draw_label_pairs` on ``label_index(y)`` (a
    :class:`~sklearn_bregman._constraints._labels.LabelIndex`,
    or its dask counterpart).  ``estimator`` gives its name and its
    ``n_constraints``, ``bounds`` and ``epsilon``.
    """
    if constraints is not None:
        if (isinstance(constraints, (list, tuple)) and len(constraints) == 1
                and isinstance(constraints[0], PairConstraints)):
            # a list holding one container, as the kernel learners take it
            constraints = constraints[0]
        return check_pairs(constraints, n_samples), "constraints"
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is "
            "None. Pass class labels y, or pair constraints with constraints=..."
        )
    i, j, sign = draw_label_pairs(label_index(y), estimator.n_constraints, rng)
    pairs = pair_constraints_of_valid(i, j, sign, np.full(i.size, np.nan))
    # errors about them name what the user passed: labels, not constraints
    return pairs, (f"the {len(pairs)} pairs drawn from y (bounds={estimator.bounds!r}, "
                   f"epsilon={estimator.epsilon})")


def resolve_pairs(estimator, y, constraints, rows, rng, M0=None, *, bounds=None):
    """The pair constraints of a ``fit`` call, and the rows they touch.

    ``constraints`` wins when given (``y`` is then free for later steps of a
    pipeline); otherwise pairs are drawn from the labels ``y`` (in memory or
    a dask array) through ``rows.label_index``, without collecting them.
    Then the rows that the pairs (and the random pairs of
    ``bounds='percentile'``) touch are gathered once, ``rows.take(touched)``,
    and the bounds left unset are filled by the estimator's ``bounds`` rule,
    measured on them under the prior ``M0``.  The draws from ``rng`` are the
    same whatever ``rows`` holds, so data in memory and in chunks give the
    same pairs and bounds; and the engine, run on the touched rows with the
    pairs re-indexed into them, takes the same steps as on all the rows.

    Parameters
    ----------
    estimator : estimator
        Gives ``n_constraints``, ``bounds``, ``epsilon``, ``unlabeled``.
    y : array-like, dask array or None
    constraints : PairConstraints, array-like or None
    rows : rows object of :mod:`sklearn_bregman._data._data`
        The training rows of the data or of the initial factor.
    rng : RandomState
    M0 : ndarray of shape (r, r), default=None
        Prior metric on the rows (``None``: the identity).
    bounds : str or tuple, default=None
        The bound rule, in place of the estimator's ``bounds`` (``None``):
        ``partial_fit`` passes the one its first call fixed.

    Returns
    -------
    ResolvedPairs
        The pairs with every bound set, over the training rows and over the
        touched rows ``G_t``, the touched rows and their indices, the
        pairs' source (for messages) and the bound rule applied.
    """
    n = rows.n

    def label_index(y):
        return rows.label_index(y, estimator.unlabeled)

    pairs, source = pairs_of_fit(estimator, y, constraints, n, rng, label_index)
    bounds = estimator.bounds if bounds is None else bounds
    percentile = (np.isnan(pairs.bound).any() and isinstance(bounds, str)
                  and bounds == "percentile")
    extra = percentile_pairs(n, rng) if percentile else ()
    touched = np.unique(np.concatenate([pairs.i, pairs.j, *extra]))
    G_t = rows.take(touched)

    def local_index(a):
        return np.searchsorted(touched, a)

    local = pair_constraints_of_valid(local_index(pairs.i), local_index(pairs.j),
                                      pairs.sign, pairs.bound)
    if percentile:
        bounds = percentiles(pair_sqdist(G_t, local_index(extra[0]),
                                         local_index(extra[1]), M0), 5.0, 95.0)
    local = set_pair_bounds(local, G_t, M0, bounds=bounds, epsilon=estimator.epsilon,
                            random_state=rng, source=source)
    pairs = pair_constraints_of_valid(pairs.i, pairs.j, pairs.sign, local.bound)
    return ResolvedPairs(pairs, local, G_t, touched, source, bounds)


def resolve_pair_constraints(estimator, y, constraints, rows, M0, n_samples, rng):
    """:func:`resolve_pairs` on ``rows`` in memory (a rows object of all the
    training rows), for the learners that keep all of them (DefiniteBoost,
    and pairs among other kinds)."""
    if rows.n != n_samples:  # pragma: no cover - an internal error
        raise ValueError(f"rows has {rows.n} rows, not n_samples={n_samples}.")
    return resolve_pairs(estimator, y, constraints, rows, rng, M0)


def check_pair_bounds(pairs, G, M0=None, scale=None, source="constraints"):
    """Refuse similar-pair bounds that no positive definite metric can meet.

    The check of :func:`check_similar_bounds` on the pairs of non-zero
    length in ``G`` (the others are skipped by the engine), with their
    squared distances under the prior ``M0`` (``None``: the identity) as
    the initial ones.  Called by the sweep learners before the engine runs.
    ``scale``: the largest squared norm of a training row, when ``G`` holds
    only the rows the pairs touch (``None``: that of ``G``'s rows).
    ``source``: what the pairs are to the user, for the messages.

    Returns
    -------
    skipped : ndarray of shape (n_constraints,), bool
        The zero-length pairs, for the engine's ``skip`` (no second pass).
    """
    v2 = pair_sqdist(G, pairs.i, pairs.j)
    skipped = zero_length_pairs(G, pairs.i, pairs.j, sqdist=v2, scale=scale)
    d0 = v2 if M0 is None else pair_sqdist(G, pairs.i, pairs.j, M0)
    check_similar_bounds(pairs, np.flatnonzero(~skipped), d0, source=source)
    return skipped


def check_similar_bounds(constraints, active, d0=None, *, source="constraints"):
    """A similar pair of non-zero length with bound 0 cannot be met by an SPD M.

    With ``d0``, the pairs' initial squared distances, a bound below
    ``ZERO_LENGTH_RTOL * d0`` is refused too: it asks to shrink the pair by a
    factor beyond what double precision resolves (the learned distances of
    such a pair are rounding noise of the others).
    """
    sel = active[(constraints.sign[active] > 0) & (constraints.bound[active] <= 0)]
    if sel.size:
        k = sel[0]
        raise ValueError(
            f"{source}: row {k} asks the squared "
            "distance of two distinct points "
            f"({constraints.i[k]}, {constraints.j[k]}) to be <= 0, which no positive "
            "definite metric satisfies; similar pairs need a positive bound."
        )
    if d0 is None:
        return
    sim = active[constraints.sign[active] > 0]
    sel = sim[constraints.bound[sim] <= ZERO_LENGTH_RTOL * d0[sim]]
    if sel.size:
        k = sel[0]
        raise ValueError(
            f"{source}: row {k} asks the squared "
            f"distance of points ({constraints.i[k]}, {constraints.j[k]}) to shrink from "
            f"{d0[k]:.4g} to <= {constraints.bound[k]:.4g}, by a factor beyond what double "
            f"precision resolves (more than 1/{ZERO_LENGTH_RTOL:g}); use a larger bound."
        )
