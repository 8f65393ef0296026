"""Bregman projections on general linear rows (JMLR 2009, Section 6.2.2).

Every constraint kind beyond a plain pair (relative distances, kernel
entries, general ``tr(K A)``, and pairs when mixed with those) reaches the
engine as a *row*: a symmetric r x r matrix in the factor's coordinates,
factored as ``C = sum_k s_k v_k v_k'`` (signs +-1), a right-hand side and a
kind (inequality ``<=`` or equality).  :func:`linear_projections` runs the
compiled sweep of the divergence (``_linear.pyx`` for LogDet,
``_vn_linear.pyx`` for von Neumann) in the engine's one loop,
:func:`~._driver.sweep_until_settled`, with the residuals of
:func:`linear_residuals`.  The rows are built from the constraint
containers by ``sklearn_bregman._constraints._rows``.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .._utils._warnings import warn
from ._driver import (
    LOG_STATE,
    REPORT_RTOL,
    ProjectionResult,
    Residuals,
    SweepStats,
    sweep_until_settled,
    sym_exp,
)
from ._linear import logdet_linear_sweep
from ._vn_linear import vonneumann_linear_sweep

#: Row kinds (the ``kind`` array of :class:`LinearRows`).
INEQUALITY, EQUALITY = 1, 0

#: Rows per block when the values of many rows are computed at once.
_CHUNK = 4096


@dataclass
class LinearRows:
    """Constraint rows in the engine's coordinates, each scaled to unit size.

    Row ``c`` is ``tr(X C_c) <= bound_c`` (kind 1) or ``= bound_c`` (kind 0)
    with ``C_c = sum_k S[c, k] V[c, k] V[c, k]'``.  The builder divides each
    row by its size at the start, ``scale_c = sum_k |S[c, k]| v' X0 v``, so
    that one ``tol`` and one ``slack`` fit every row; a row of the user's
    sense ``>=`` was negated (``flip = -1``).

    Attributes
    ----------
    V : ndarray of shape (c, q, r)
    S : ndarray of shape (c, q), int8
        +1, -1, or 0 for an unused slot.
    kind : ndarray of shape (c,), int8
    bound : ndarray of shape (c,)
        Right-hand sides, in the scaled units.
    scale : ndarray of shape (c,)
        What each row was divided by (1 for a skipped row).
    flip : ndarray of shape (c,)
        -1 where the row was negated.
    skipped : ndarray of shape (c,), bool
        Rows that are zero in the factor's coordinates: no kernel of its
        range can move them.
    fixed : ndarray of shape (c,), bool, default=None (none)
        Rows that are not zero but whose verdict no kernel changes: a
        relative row that compares a pair joining a point to itself, or a
        pair with itself (``ratio d(i, i) <= d(k, l)`` holds under every
        kernel, ``ratio d(i, j) <= d(k, k)`` under none).  Never visited, as
        the skipped ones, but measured at their true value.
    """

    V: np.ndarray
    S: np.ndarray
    kind: np.ndarray
    bound: np.ndarray
    scale: np.ndarray
    flip: np.ndarray
    skipped: np.ndarray
    fixed: np.ndarray = None

    def __post_init__(self):
        if self.fixed is None:
            self.fixed = np.zeros(self.bound.shape[0], dtype=bool)

    def __len__(self):
        return self.bound.shape[0]

    @property
    def unvisited(self):
        """The rows no sweep visits: the skipped and the fixed ones."""
        return self.skipped | self.fixed


def row_values(rows, X, *, sizes=False):
    """``tr(X C_c)`` of every row, for a symmetric r x r ``X`` (O(c q r^2)).

    With ``sizes=True`` also each row's magnitude under ``X``,
    ``sum_k |S[c, k]| v' X v`` (the sum of its terms' absolute values:
    ``ratio d(i, j) + d(k, l)`` for a relative row, ``(K_ii + K_jj) / 2``
    for an entry ``K_ij``, ``tr(K |A|)`` for ``tr(K A)``), as ``(values,
    sizes)``.
    """
    out = np.empty(len(rows))
    size = np.empty(len(rows)) if sizes else None
    for start in range(0, len(rows), _CHUNK):
        sl = slice(start, start + _CHUNK)
        V = rows.V[sl]
        quad = np.einsum("cqr,cqr->cq", V @ X, V)
        out[sl] = (quad * rows.S[sl]).sum(axis=1)
        if sizes:
            size[sl] = (quad * np.abs(rows.S[sl])).sum(axis=1)
    return (out, size) if sizes else out


def linear_residuals(rows, state, nu, xi, *, log_state, tol):
    """KKT residuals of linear rows at ``state`` (``log X`` when ``log_state``).

    Primal: an inequality row misses its target by ``max(0, tr(X C) - xi)``,
    an equality row by ``|tr(X C) - xi|``, measured relative to the larger
    of the target's magnitude ``|xi|`` and the row's magnitude under ``X``
    (:func:`row_values` with ``sizes``): relative to the target as for
    pairs, unless the target is small against the terms the row compares
    (a relative row with no margin has target 0).  Not relative to the
    row's size at the start: a row whose initial size dwarfs its bound
    (``tr K <= 1`` on data of trace 2,000) would then pass any violation.
    Complementary slackness: a positive dual on an inequality row whose gap
    is open counts with ``min(|gap|, dual)`` (the gap relative as above).
    Stationarity holds for every iterate by the form of the updates
    (``grad phi(X) - grad phi(X0) = -sum_c nu_c C_c``).

    A skipped row (zero in the factor's coordinates) has the value 0 under
    every kernel of that range; it is measured at 0 against its bound (its
    target, never visited) and flagged ``fixed``: a violated one makes the
    run unconverged (:func:`~._driver.sweep_until_settled`).  A fixed row
    (``rows.fixed``) is measured at its value, also against its bound, and
    flagged the same way.
    """
    X = sym_exp(state) if log_state else state
    f, size = row_values(rows, X, sizes=True)
    f[rows.skipped] = 0.0
    size[rows.skipped] = 0.0
    gap = f - xi
    ineq = rows.kind == INEQUALITY
    excess = np.where(ineq, np.maximum(gap, 0.0), np.abs(gap))
    ref = np.maximum(np.abs(xi), size)
    pos = ref > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        violation = np.where(pos, excess / np.where(pos, ref, 1.0),
                             np.where(excess > 0, np.inf, 0.0))
        rel_gap = np.where(pos, np.abs(gap) / np.where(pos, ref, 1.0), 0.0)
    comp = np.where(ineq & (nu > 0), np.minimum(rel_gap, nu), 0.0)
    unvisited = rows.unvisited
    comp[unvisited] = 0.0
    # values and targets back in the user's units and sense
    unit = rows.scale * rows.flip
    return Residuals(violation, comp, tol, detail=(f * unit + 0.0, xi * unit + 0.0),
                     fixed=unvisited)


#: The compiled sweep of each divergence on general rows.
LINEAR_SWEEPS = {"logdet": logdet_linear_sweep, "vonneumann": vonneumann_linear_sweep}


def warn_skipped_rows(skipped, owner, fixed=None):
    """The one warning about the rows no sweep visits (as
    :func:`~._driver.warn_zero_length` for pairs), if there are any: those
    zero in the initial kernel's range (``skipped``) and those comparing a
    pair that joins a point to itself, or a pair with itself (``fixed``)."""
    n_skipped = int(np.count_nonzero(skipped))
    n_fixed = 0 if fixed is None else int(np.count_nonzero(fixed))
    if n_skipped:
        warn(f"{owner}: {n_skipped} of {skipped.shape[0]} constraints are zero in "
             "the initial kernel's range (e.g. they join identical points): no learned "
             "kernel moves them; they are skipped, and held to their bounds at the value "
             "0 they keep (a ConvergenceWarning follows if one misses its bound)"
             + (f"; {n_fixed} more compare a pair that joins a point to itself (or a "
                "pair with itself): no kernel changes whether they hold; they are "
                "skipped too." if n_fixed else "."))
    elif n_fixed:
        warn(f"{owner}: {n_fixed} of {skipped.shape[0]} constraints compare a pair that "
             "joins a point to itself (or a pair with itself): no kernel changes whether "
             "they hold; they are skipped, and held to their bounds as they stand (a "
             "ConvergenceWarning follows if one misses its bound: a pair of zero length "
             "is never the farther).")


def linear_projections(rows, state0, *, divergence="logdet", slack=np.inf, order="cyclic",
                       tol=1e-3, max_iter=1000, random_state=None, verbose=0,
                       owner="Bregman projections", dual_correction=True, advice=None,
                       start=None, warn_skipped=True):
    """Minimise a Bregman matrix divergence to ``X0`` under linear rows.

    Solves (JMLR 2009, eq. 4 with Section 6.2.2's constraints; slack as a
    quadratic penalty, ``gamma / 2 |xi - b|^2``, on the unit-scaled rows)::

        min_X  D(X, X0) + gamma / 2 |xi - b|^2
        s.t.   tr(X C_c) <= xi_c   (inequality rows),   = xi_c   (equality rows)

    by cyclic Bregman projections with dual corrections (Section 3.4), for
    ``D`` the LogDet divergence (state X) or the von Neumann divergence
    (state log X, on orthonormal-basis coordinates).

    Parameters
    ----------
    rows : LinearRows
    state0 : ndarray of shape (r, r)
        X0 (LogDet) or log X0 (von Neumann).
    divergence : {'logdet', 'vonneumann'}
    slack : float
        gamma > 0; ``inf``: hard rows.
    order : {'cyclic', 'random'}
    tol, max_iter, random_state, verbose, owner, dual_correction
        As :func:`~._driver.pair_projections`.
    advice : str, default=None
        End of the warning when rows stay violated.
    start : tuple (nu, xi) of ndarrays of shape (c,), default=None
        Warm start from a run that ended at ``state0`` (``partial_fit``; as
        :func:`~._driver.pair_projections`' ``start``), in the rows' scaled
        units; ``None``: ``nu = 0``, ``xi = bound``.
    warn_skipped : bool, default=True
        Warn about the skipped rows (``False``: the caller did, once).

    Returns
    -------
    ProjectionResult
        ``dual`` and ``targets`` in the rows' scaled units.
    """
    log_state = LOG_STATE[divergence]
    sweep = LINEAR_SWEEPS[divergence]
    X = np.array(state0, dtype=np.float64, order="C", copy=True)
    X = 0.5 * (X + X.T)
    rng = check_random_state(random_state)
    if start is None:
        nu = np.zeros(len(rows))
        xi = rows.bound.copy()
    else:
        nu, xi = (np.array(a, dtype=np.float64, copy=True) for a in start)
    active = np.flatnonzero(~rows.unvisited).astype(np.intp)
    if warn_skipped:
        warn_skipped_rows(rows.skipped, owner, rows.fixed)

    def run():
        visit = rng.permutation(active) if order == "random" else active
        stats = sweep(rows.V, rows.S, rows.kind, rows.bound, xi, nu, X, visit,
                      float(slack), REPORT_RTOL, bool(dual_correction))
        return SweepStats(n_moved=stats[2], n_evals=stats[3], n_satisfied=stats[0])

    def residuals(state):
        return linear_residuals(rows, state, nu, xi, log_state=log_state, tol=tol)

    out = sweep_until_settled(
        run, X, nu, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, log_state=log_state, n_active=active.size, advice=advice,
    )
    return ProjectionResult(state=X, log_state=log_state, dual=nu, targets=xi,
                            n_iter=out.n_iter, converged=out.converged,
                            skipped=rows.unvisited, history=out.history,
                            n_evals=out.n_evals, n_projections=out.n_moved,
                            max_violation=out.residuals.max_violation)
