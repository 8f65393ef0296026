"""Sweep driver: Bregman projections until the optimality conditions hold.

One loop, :func:`sweep_until_settled`, runs every engine: the pair sweeps
(LogDet, von Neumann; :func:`pair_projections`), the triplet sweeps of SKLR
(:func:`triplet_projections`) and DefiniteBoost's steps
(:func:`definiteboost`); what differs between them (the compiled sweep, the
convergence measure, the residuals, an early stop) are its arguments.
Python runs once per sweep (ordering, convergence test, progress line); the
projections of a sweep all run in compiled code.  See ARCHITECTURE.md,
layer 3.
"""

import time
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg
from scipy.linalg.lapack import dpotrf as _potrf
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._utils._warnings import warn
from ._definiteboost_steps import definiteboost_cyclic_sweep, definiteboost_greedy
from ._geometry import pair_sqdist
from ._logdet import logdet_pair_sweep
from ._triplet_sweep import logdet_triplet_sweep
from ._vonneumann import vonneumann_pair_sweep

#: The compiled sweep of each divergence: one pass of rank-one projections.
SWEEPS = {"logdet": logdet_pair_sweep, "vonneumann": vonneumann_pair_sweep}
#: Whether each divergence's state is the logarithm of the metric (von
#: Neumann's log X) or the metric itself (LogDet's M): how the guards and the
#: residuals read it.
LOG_STATE = {"logdet": False, "vonneumann": True}

#: A constraint counts as satisfied in the progress line when its squared
#: distance is within this relative margin of its bound.
REPORT_RTOL = 1e-3


@dataclass
class ProjectionResult:
    """Outcome of a run of the projection engine.

    Every constraint is held, at the end, to ``sign * (value - target) <= 0``
    (an equality for "don't know" triplet rows): ``targets`` are those
    right-hand sides.

    Attributes
    ----------
    state : ndarray of shape (r, r)
        The final r x r state, in the coordinates the engine was given:
        the metric M itself (``log_state=False``: LogDet pairs, SKLR
        triplets) or its logarithm (``log_state=True``: log X for von
        Neumann pairs, log W for DefiniteBoost).
    log_state : bool
        Whether ``state`` holds the logarithm of the metric.
    dual : ndarray of shape (c,)
        Dual variables (non-negative for inequalities), one per constraint.
    targets : ndarray of shape (c,)
        The right-hand side each constraint is held to at the end: for
        pairs, the slack target xi_c of JMLR 2009 eq. 22 (soft) or the bound
        (hard); for triplet rows, the slack xi_c = alpha_c / lam of Amid et
        al. eq. 20 (0 when hard); for DefiniteBoost, the bound.
    n_iter : int
        Sweeps run.
    converged : bool
        Whether the convergence measure settled below ``tol`` and the
        optimality (KKT) conditions held to ``tol`` (:class:`Residuals`).
    skipped : ndarray of shape (c,), bool
        Constraints left out because no state can move them (zero-length
        pairs, degenerate triplet rows).
    history : list of float
        Convergence measure after each sweep: the dual change
        (:func:`dual_change`), or DefiniteBoost's largest KKT score.
    n_evals : int
        Root-finder evaluations over the run (von Neumann, DefiniteBoost;
        0 for LogDet).
    n_projections : int
        Projections that moved the state.
    dual_objective : float
        DefiniteBoost only: the dual objective (Tsuda et al. eq. 9) at the end.
    max_violation : float
        Largest relative violation of a constraint at the end, against its
        target; 0 when every one holds.
    """

    state: np.ndarray
    log_state: bool
    dual: np.ndarray
    targets: np.ndarray
    n_iter: int
    converged: bool
    skipped: np.ndarray
    history: list = field(default_factory=list)
    n_evals: int = 0
    n_projections: int = 0
    dual_objective: float = 0.0
    max_violation: float = 0.0

    @property
    def metric(self):
        """The metric M of the state: ``state``, or ``exp(state)`` when it is
        held as a logarithm."""
        return sym_exp(self.state) if self.log_state else self.state


@dataclass
class UnitDiagonalResult(ProjectionResult):
    """A :class:`ProjectionResult` of the projections onto ``K_ii = 1``
    (the nearest correlation matrix, JMLR 2009 Section 6.3).

    Attributes
    ----------
    diag : ndarray of shape (n,)
        The diagonal of the result K, recomputed from it.
    divergence : float
        ``D(K, K0)``: LogDet or von Neumann.
    factor, uniqueness : ndarray of shape (n, r) and (n,), or None
        LogDet: ``K = diag(uniqueness) + factor factor'``.
    correlation : ndarray of shape (n, n) or None
        Von Neumann: K itself (dense).
    method : str
        How it was solved: 'newton' (Newton-CG on the reduced dual),
        'newton+projections' (the projections finished what it started) or
        'projections'.
    """

    diag: np.ndarray = None
    divergence: float = 0.0
    factor: np.ndarray = None
    uniqueness: np.ndarray = None
    correlation: np.ndarray = None
    method: str = "projections"


@dataclass
class SweepStats:
    """What one compiled sweep reports to :func:`sweep_until_settled`.

    Attributes
    ----------
    n_moved : int
        Projections that moved the state.
    n_evals : int
        Root-finder evaluations.
    n_satisfied : int or None
        Constraints already within ``REPORT_RTOL`` of their bound when
        visited (for the progress line).
    dual_objective_change : float
        DefiniteBoost: change of the dual objective over the sweep (a
        non-finite value means the sweep diverged).
    worst : float or None
        The largest KKT score, when the sweep measured it (DefiniteBoost).
    converged : bool or None
        The sweep's own verdict on the KKT conditions, when it has one
        (DefiniteBoost); ``None``: the loop decides.
    """

    n_moved: int
    n_evals: int = 0
    n_satisfied: int | None = None
    dual_objective_change: float = 0.0
    worst: float | None = None
    converged: bool | None = None


def dual_change(nu, nu_old):
    """ITML's convergence measure ``|nu - nu_old|_1 / (|nu|_1 + |nu_old|_1)``.

    Zero when both vectors are zero (every constraint met from the start).
    """
    denom = np.abs(nu).sum() + np.abs(nu_old).sum()
    if denom == 0.0:
        return 0.0
    return float(np.abs(nu - nu_old).sum() / denom)


def pair_projections(G, constraints, M0, *, divergence="logdet", slack=np.inf,
                     order="cyclic", tol=1e-3, max_iter=1000, random_state=None,
                     verbose=0, owner="Bregman projections", dual_correction=True,
                     skip=None, start=None, warn_skipped=True, unit=1.0):
    """Minimise a Bregman matrix divergence to ``M0`` under pair constraints.

    Solves (JMLR 2009, eq. 4 with slack eq. 22, on the r x r state)::

        min_M  D(M, M0) + slack * D(xi, b)
        s.t.   sign_c * ((g_i - g_j)' M (g_i - g_j) - xi_c) <= 0

    by cyclic rank-one Bregman projections with dual corrections, for
    ``D`` the LogDet divergence (state M) or the von Neumann divergence
    (state log M; ``G`` must then be orthonormal-basis coordinates, see
    ARCHITECTURE.md, layer 3).

    Parameters
    ----------
    G : ndarray of shape (n, r)
        Factor of the training points (``v_c = G[i_c] - G[j_c]``).
    constraints : PairConstraints
        Validated constraints with every bound set.
    M0 : ndarray of shape (r, r)
        Starting state: the prior M0 for LogDet, log M0 for von Neumann.
    divergence : {'logdet', 'vonneumann'}, default='logdet'

    slack : float, default=inf
        gamma > 0 of eq. 22; ``inf`` makes the constraints hard.
    order : {'cyclic', 'random'}, default='cyclic'
        Visit the constraints in their given order every sweep, or in a new
        random order each sweep.
    tol : float, default=1e-3
        Stop when the dual change of a sweep falls below ``tol`` and the
        optimality conditions hold to ``tol`` (:func:`pair_residuals`).
    max_iter : int, default=1000
        Maximum number of sweeps.
    random_state : int, RandomState instance or None
        Seeds the random order.
    verbose : int, default=0
        If positive, print one line per sweep.
    owner : str
        Name used in warnings and progress lines.
    dual_correction : bool, default=True
        Bregman's method for inequalities (JMLR 2009, Section 3.4).  ``False``
        projects onto each constraint's equality at every visit, the mistake
        App. B describes; it exists to demonstrate it.
    skip : ndarray of shape (c,), bool, default=None
        Zero-length pairs, if the caller has them already (the learners'
        bound check finds them) or knows them better than ``G`` does (``G``
        in an orthonormal basis carries the rounding of the change of
        basis); ``None``: :func:`zero_length_pairs` of ``G``.
    start : tuple (nu, xi) of ndarrays of shape (c,), default=None
        Warm start (``partial_fit``): the duals and slack targets of a run
        that ended at the state ``M0``, the constraints it did not know
        with dual 0 and target their bound.  Bregman's method with dual
        corrections keeps ``M^-1 = M_prior^-1 + sum_c sign_c nu_c v_c v_c'``
        (LogDet; ``log M = log M_prior + ...`` for von Neumann) along the
        way, so continuing from ``(M0, nu, xi)`` reaches the optimum of
        the union of the constraints from the first run's prior, as a run
        from that prior with zero duals does.  ``None``: ``nu = 0`` and
        ``xi = bound`` (a run from the prior ``M0``).
    warn_skipped : bool, default=True
        Warn about the zero-length pairs (``False``: the caller did, once:
        a ``partial_fit`` stream keeps them from call to call).
    unit : float, default=1.0
        The squared distances, bounds and targets are the user's divided by
        ``unit`` (the von Neumann strategy holds the kernel in a unit of its
        scale): the warnings report them times ``unit``, as the user knows
        them.

    Returns
    -------
    ProjectionResult
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    M = np.array(M0, dtype=np.float64, order="C", copy=True)
    rng = check_random_state(random_state)
    c = len(constraints)

    # Zero-length pairs cannot be moved by any M: skip them once, up front.
    v2 = pair_sqdist(G, constraints.i, constraints.j)  # |v_c|^2
    skipped = (zero_length_pairs(G, constraints.i, constraints.j, sqdist=v2)
               if skip is None else np.asarray(skip, dtype=bool).copy())
    if warn_skipped:
        warn_zero_length(skipped, owner)
    active = np.flatnonzero(~skipped).astype(np.intp)
    log_state = LOG_STATE[divergence]

    sweep = SWEEPS[divergence]
    if start is None:
        nu = np.zeros(c)
        xi = constraints.bound.copy()
    else:
        nu, xi = (np.array(a, dtype=np.float64, copy=True) for a in start)
        if nu.shape != (c,) or xi.shape != (c,):  # pragma: no cover - internal error
            raise ValueError(f"start must hold two arrays of shape ({c},).")
    hard = bool(np.isinf(slack))

    def run():
        visit = rng.permutation(active) if order == "random" else active
        stats = sweep(
            G, constraints.i, constraints.j, constraints.sign, constraints.bound,
            xi, nu, M, visit, float(slack), REPORT_RTOL, bool(dual_correction),
        )
        return SweepStats(n_moved=stats[2], n_evals=stats[3] if len(stats) > 3 else 0,
                          n_satisfied=stats[0])

    def residuals(state):
        return pair_residuals(G, constraints, state, nu, xi, skipped,
                              weight=v2 if log_state else None, tol=tol, unit=unit)

    out = sweep_until_settled(
        run, M, nu, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, log_state=log_state, n_active=active.size,
        advice=_SLACK_ADVICE if hard else None,
    )
    return ProjectionResult(state=M, log_state=log_state, dual=nu, targets=xi,
                            n_iter=out.n_iter, converged=out.converged, skipped=skipped,
                            history=out.history, n_evals=out.n_evals,
                            n_projections=out.n_moved,
                            max_violation=out.residuals.max_violation)


#: Advice of the warnings when hard constraints are not all met.
_SLACK_ADVICE = ("the hard constraints (slack=inf) may be infeasible: no kernel of the "
                 "initial kernel's range satisfies them all. Use a finite slack, fewer "
                 "constraints (n_constraints) or looser bounds (bounds, epsilon)")

#: Advice when soft constraints drive the state out of double precision.
_BOUNDS_ADVICE = ("check the bounds against the data's squared distances (bounds), or "
                  "use a smaller slack")

#: Two points whose squared distance in the factor is at most this share of the
#: largest squared row norm (the largest initial kernel diagonal) coincide:
#: kernel-derived distances carry absolute rounding errors of about eps times
#: that scale, so a pair below it has no direction any projection could use.
ZERO_LENGTH_RTOL = 1e-12


def zero_length_pairs(G, i, j, rtol=ZERO_LENGTH_RTOL, sqdist=None, scale=None):
    """Pairs whose points coincide in ``G`` (to ``rtol`` of its scale).

    One test for every learner: duplicate rows, and rows that differ only
    by rounding (e.g. after an orthonormal change of basis).

    Parameters
    ----------
    G : ndarray of shape (n, r)
    i, j : ndarray of shape (c,)
    rtol : float
        Relative to ``max_k |g_k|^2``.
    sqdist : ndarray of shape (c,), default=None
        ``pair_sqdist(G, i, j)``, if the caller has it already.
    scale : float, default=None
        ``max_k |g_k|^2`` over all the training rows, when ``G`` holds only
        some of them (``None``: over ``G``'s rows).

    Returns
    -------
    ndarray of shape (c,), bool
    """
    d = pair_sqdist(G, i, j) if sqdist is None else sqdist
    return d <= rtol * (max_squared_norm(G) if scale is None else scale)


def warn_zero_length(skipped, owner):
    """The one warning about zero-length pairs left out (if there are any)."""
    n_skipped = int(np.count_nonzero(skipped))
    if n_skipped:
        warn(f"{owner}: {n_skipped} of {skipped.shape[0]} constraints join two identical "
             "points (they coincide in the initial kernel's feature space: zero "
             "distance under every learned kernel); they are skipped.")


def max_squared_norm(G):
    """Largest squared row norm of ``G``, in blocks (no copy of G)."""
    scale = 0.0
    for start in range(0, G.shape[0], 8192):
        B = G[start:start + 8192]
        scale = max(scale, float(np.einsum("ij,ij->i", B, B).max(initial=0.0)))
    return scale


@dataclass
class Residuals:
    """How far a state is from the optimality (KKT) conditions.

    Every constraint is read as ``sign * (d - t) <= 0`` with ``d`` its
    squared distance (or ``g`` of a triplet row) and ``t`` its target (the
    bound when hard, the slack target when soft).  At the optimum it holds
    (primal feasibility) and a positive dual variable forces equality
    (complementary slackness); stationarity holds for every iterate by the
    form of the updates.

    Attributes
    ----------
    violation : ndarray of shape (c,)
        ``max(0, sign * (d - t)) / scale``: relative primal violation.
    complementarity : ndarray of shape (c,)
        For a positive dual: ``min(|d - t| / scale, dual * w)`` with ``w``
        the constraint's scale in the update, so that a dual too small to
        move anything does not count; 0 otherwise.
    tol : float
        Violations above ``tol`` are counted in ``n_violated``.
    detail : tuple of ndarray or None
        ``(d, t)``: each constraint's value and target, quoted by warnings.
    fixed : ndarray of shape (c,), bool, or None
        Constraints no state can move (the skipped ones: zero-length pairs,
        rows zero in the initial kernel's range, degenerate triplet rows).
        They are measured like the others, at the value every state gives
        them, against their bound: a violated one can never be met, so the
        loop stops on the others (:attr:`movable_worst`) and the run is not
        converged (:attr:`fixed_violated`).
    """

    violation: np.ndarray
    complementarity: np.ndarray
    tol: float
    detail: object = None
    fixed: np.ndarray = None

    @property
    def max_violation(self):
        return float(self.violation.max(initial=0.0))

    @property
    def worst(self):
        """The KKT residual: the larger of both parts."""
        return max(self.max_violation, float(self.complementarity.max(initial=0.0)))

    @property
    def movable_worst(self):
        """The KKT residual of the constraints a state can move."""
        if self.fixed is None or not self.fixed.any():
            return self.worst
        keep = ~self.fixed
        return max(float(self.violation[keep].max(initial=0.0)),
                   float(self.complementarity[keep].max(initial=0.0)))

    @property
    def fixed_violated(self):
        """Rows no state can move that miss their bound by more than ``tol``."""
        if self.fixed is None:
            return np.zeros(0, dtype=np.intp)
        return np.flatnonzero(self.fixed & (self.violation > self.tol))

    @property
    def n_violated(self):
        return int(np.count_nonzero(self.violation > self.tol))


def sym_fun(A, fun):
    """``fun(A)`` of a symmetric matrix by its eigendecomposition."""
    w, Q = linalg.eigh(A)
    return (Q * fun(w)) @ Q.T


def sym_exp(L):
    """``exp(L)`` of a symmetric matrix by its eigendecomposition."""
    return sym_fun(L, np.exp)


def pair_residuals(G, constraints, M, nu, xi, skipped, *, weight=None, tol=1e-3,
                   unit=1.0):
    """KKT residuals of pair constraints at the state ``M``.

    Parameters
    ----------
    G : ndarray of shape (n, r)
    constraints : PairConstraints
    M : ndarray of shape (r, r)
        The state (``log X`` when ``weight`` is given).
    nu, xi : ndarray of shape (c,)
        Duals and slack targets (the bounds when hard).
    skipped : ndarray of shape (c,), bool
        Constraints left out (zero-length pairs): measured at distance 0
        against their bound (a dissimilar one with a positive bound is
        violated under every metric) and flagged ``fixed``.
    weight : ndarray of shape (c,), default=None
        ``None``: LogDet, the metric is ``M`` and a dual's scale is
        ``p = v' M v`` (the update is ``M + beta M v v' M``).  Given: von
        Neumann, ``M`` holds ``log X``, the metric is ``exp(M)`` and a dual's
        scale is ``weight = |v|^2`` (the update is ``log X + alpha v v'``).
    tol : float
    unit : float, default=1.0
        ``detail`` is in units of ``unit`` (:func:`pair_projections`).

    Returns
    -------
    Residuals
        ``detail`` holds ``(p, t)``: squared distances and targets, times
        ``unit``.
    """
    log_state = weight is not None
    p = pair_sqdist(G, constraints.i, constraints.j, sym_exp(M) if log_state else M)
    # a skipped pair joins two points that coincide in the factor: distance 0
    # under every metric, held to its bound (never visited, its target is the
    # bound): a dissimilar one with a positive bound can never be met
    skipped = np.asarray(skipped, dtype=bool)
    p = np.where(skipped, 0.0, p)
    gap = relative_gap(p, constraints.sign, xi)
    w = weight if log_state else p
    comp = np.where(nu > 0, np.minimum(np.abs(gap), nu * w), 0.0)
    comp[skipped] = 0.0
    detail = (p, xi) if unit == 1.0 else (p * unit, xi * unit)
    return Residuals(np.maximum(gap, 0.0), comp, tol, detail=detail, fixed=skipped)


def relative_gap(d, sign, target):
    """``sign * (d - target) / target``: positive where a pair constraint is
    violated, by that share of its target (``+inf`` for a violated target
    of 0, and 0 for a met one)."""
    sign = np.asarray(sign, dtype=np.float64)
    pos = target > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pos, sign * (d - target) / np.where(pos, target, 1.0),
                        np.where(sign * (d - target) > 0, np.inf, 0.0))


#: ``sweep_until_settled``: a state whose entries grow past this (or its
#: inverse's, through the diagonal) has left double precision's comfortable
#: range; hard constraints that contradict each other get there.
DIVERGED = 1e100
#: The same for a state held as a logarithm (von Neumann, DefiniteBoost):
#: ``exp(DIVERGED_LOG)`` is about ``DIVERGED``, so that the kernel and the
#: squared distances computed from it stay finite.
DIVERGED_LOG = 230.0
#: A state M (not a logarithm) whose smallest eigenvalue falls to this share of
#: its largest is numerically singular: a squared distance along its weakest
#: direction then carries a relative rounding error of about eps / STATE_RCOND
#: (1e-4), too coarse for the optimality test at the default tol.  Hard
#: constraints that contradict each other drive LogDet states there (the
#: points they involve collapse); it is the same 1e-12 as ZERO_LENGTH_RTOL.
STATE_RCOND = 1e-12


@dataclass
class LoopOutcome:
    """What :func:`sweep_until_settled` returns."""

    n_iter: int
    converged: bool
    history: list
    n_evals: int
    n_moved: int
    residuals: Residuals


def sweep_until_settled(run, state, duals, *, tol, max_iter, verbose, owner, residuals,
                        n_active, log_state=False, advice=None, diverged_advice=None,
                        measure=None, measure_name="dual change", progress=None,
                        stop=None):
    """The one sweep loop of the engine: call ``run()`` until the optimality
    conditions hold.

    ``run()`` performs one compiled sweep (choosing its own visiting order),
    updates ``state`` and ``duals`` in place and returns a
    :class:`SweepStats`.  After each sweep:

    1. :func:`moderate_state` guards the state (held as a logarithm when
       ``log_state``); when it fails, or the sweep's dual objective change
       is not finite, the state and duals go back to those of the sweep
       before and the run stops with a ConvergenceWarning.
    2. ``measure(duals_old, stats)`` is the sweep's convergence measure
       (default: ITML's :func:`dual_change` of the duals), kept in the
       history.
    3. Convergence: the measure is below ``tol`` (or the sweep says it has
       converged, ``stats.converged``) *and* ``residuals(state)`` (a
       :class:`Residuals`) is at most ``tol``: every constraint holds to
       ``tol`` relative to its target and every positive dual sits on an
       active constraint.  The duals alone are not enough: when hard
       constraints contradict each other the duals grow without bound and
       their relative change falls below any ``tol`` while the constraints
       stay violated.  The residuals are computed only once the measure
       has settled (and at the end).  A sweep that gives its own verdict
       (DefiniteBoost's greedy steps measure the KKT scores themselves) is
       not second-guessed.  Constraints no state can move
       (``Residuals.fixed``: the skipped ones) cannot change: the loop
       stops once the others hold, and the run has converged only if the
       fixed ones hold too (measured at the value every state gives them,
       against their bound); if not, a ConvergenceWarning names them.
    4. ``stop(stats)`` may end the run early with the message of a
       ConvergenceWarning (DefiniteBoost's certificate of infeasibility).

    ``progress(stats)`` adds to the verbose line; ``advice`` ends the
    warnings when constraints stay violated, and ``diverged_advice`` (by
    default ``advice``, or a word on the bounds) the warning of a diverged
    state.

    Returns
    -------
    LoopOutcome
    """
    if measure is None:
        def measure(duals_old, stats):
            return dual_change(duals, duals_old)
    history = []
    n_evals = n_moved = 0
    settled = False
    n_iter = 0
    res = None
    t0 = time.perf_counter()
    for n_iter in range(1, max_iter + 1):
        duals_old = duals.copy()
        state_old = state.copy()
        stats = run()
        if not (moderate_state(state, log=log_state)
                and np.isfinite(stats.dual_objective_change)):
            state[...] = state_old
            duals[...] = duals_old
            res = residuals(state)
            where = (f", where {_violation_summary(res, n_active)}" if res.n_violated
                     else "")
            warn(f"{owner}: the state diverged in sweep {n_iter} (the constraints or "
                 "their bounds pull it beyond double precision); stopped at the state "
                 f"after sweep {n_iter - 1}{where}. "
                 f"{_capital(diverged_advice or advice or _BOUNDS_ADVICE)}.", ConvergenceWarning)
            return LoopOutcome(n_iter - 1, False, history, n_evals, n_moved, res)
        n_moved += stats.n_moved
        n_evals += stats.n_evals
        conv = measure(duals_old, stats)
        history.append(conv)
        stop_message = stop(stats) if stop is not None else None
        if verbose:
            extra = progress(stats) if progress is not None else (
                f"satisfied {100 * stats.n_satisfied / max(n_active, 1):.1f}% "
                f"({stats.n_satisfied}/{n_active})")
            print(
                f"[{owner}] sweep {n_iter}: {measure_name} {conv:.3e}, {extra}, "
                f"{time.perf_counter() - t0:.2f}s"
            )
        if stats.converged is not None:
            if stats.converged:
                settled = True
                break
            res = None
        elif conv < tol:
            res = residuals(state)
            # constraints no state moves cannot change: the run stops on the others
            if res.movable_worst <= tol:
                settled = True
                break
        else:
            res = None
        if stop_message is not None:
            warn(f"{owner}: {stop_message}", ConvergenceWarning)
            return LoopOutcome(n_iter, False, history, n_evals, n_moved,
                               res if res is not None else residuals(state))
    if res is None:
        res = residuals(state)
    # converged: settled, and no constraint that no state moves is off its bound
    converged = settled and not res.fixed_violated.size
    if settled and not converged:
        warn(f"{owner}: {_fixed_summary(res)}. The other constraints hold to tol; "
             "converged_ is False. Remove those constraints, or use an initial kernel "
             "whose range moves them (another kernel, or a larger rank).", ConvergenceWarning)
    elif not converged:
        if res.n_violated:
            what = (f"{_violation_summary(res, n_active)}. "
                    f"{_capital(advice or 'Increase max_iter or loosen tol')}")
        else:
            what = (f"last {measure_name} {history[-1]:.3e}, optimality residual "
                    f"{res.worst:.3e}, tol={tol}. Increase max_iter or loosen tol")
        if res.fixed_violated.size:
            what += f" (and {_fixed_summary(res)})"
        warn(f"{owner} did not converge in max_iter={max_iter} sweeps: {what}.", ConvergenceWarning)
    return LoopOutcome(n_iter, converged, history, n_evals, n_moved, res)


def _capital(s):
    return s[:1].upper() + s[1:]


def _fixed_summary(res):
    """'k of c constraints cannot be met by any kernel ...' for warnings."""
    bad = res.fixed_violated
    k = int(bad[np.argmax(res.violation[bad])])
    listed = ", ".join(str(int(b)) for b in bad[:10]) + (", ..." if bad.size > 10 else "")
    text = (f"{bad.size} of {res.violation.shape[0]} constraints cannot be met by any "
            "kernel of the initial kernel's range: they are zero in that range or "
            "compare a pair that joins a point to itself (no learned kernel changes "
            "them; they were skipped) and miss their bounds by "
            f"more than tol={res.tol:g} (relative), the largest by "
            f"{res.violation[k]:.3g} (row {k}")
    if res.detail is not None:
        d, t = res.detail
        text += f": {d[k]:.4g} where the bound is {t[k]:.4g}"
    return text + f"; rows {listed})"


def _violation_summary(res, n_active):
    """'k of c constraints are violated by more than tol ...' for warnings."""
    if not res.n_violated:
        return "every constraint holds to tol"
    if res.fixed_violated.size:  # rows counted beyond the active ones
        n_active = res.violation.shape[0]
    k = int(np.argmax(res.violation))
    text = (f"{res.n_violated} of {n_active} constraints are violated by more than "
            f"tol={res.tol:g} (relative), the largest by {res.max_violation:.3g} "
            f"(row {k}")
    if res.detail is not None:
        d, t = res.detail
        text += f": {d[k]:.4g} where the target is {t[k]:.4g}"
    return text + ")"


def moderate_state(M, log=False):
    """The guard of every engine's state: is it safely inside double precision?

    A state ``M`` (LogDet, SKLR) must be finite with neither M nor (through
    its diagonal) M^-1 beyond ``DIVERGED``, and numerically positive
    definite: its smallest eigenvalue above ``STATE_RCOND`` times its largest
    (once per sweep: a Cholesky factorisation settles the clear cases in
    r^3/3 flops, an r x r eigenvalue problem the others).  A state held as
    a logarithm (``log=True``: von Neumann, DefiniteBoost, MEG) must be
    finite with entries at most ``DIVERGED_LOG``, so that ``exp`` stays
    finite.
    """
    if not np.isfinite(M).all():
        return False
    if log:
        return bool(np.abs(M).max(initial=0.0) <= DIVERGED_LOG)
    diag = np.diag(M)
    if not (np.abs(M).max() <= DIVERGED and diag.min() >= 1.0 / DIVERGED):
        return False
    # The common case, decided in r^3/3 flops instead of eigvalsh's ~4r^3:
    # M - tau I with tau = 2 STATE_RCOND |M|_inf (>= 2 STATE_RCOND lambda_max)
    # has a Cholesky factor only if lambda_min > tau, up to the factorisation's
    # rounding (about r eps |M|, far below tau), hence lambda_min > STATE_RCOND
    # lambda_max.  When it fails the exact test decides.
    tau = 2.0 * STATE_RCOND * np.abs(M).sum(axis=1).max()
    _, info = _potrf(M - tau * np.eye(M.shape[0]), lower=True, clean=False,
                     overwrite_a=True)
    if info == 0:
        return True
    w = linalg.eigvalsh(M, check_finite=False)
    return bool(w[0] > STATE_RCOND * w[-1])



def degenerate_triplet_rows(G, a, b, c, rtol=1e-10):
    """Rows whose ``u = g_a - g_b`` and ``w = g_a - g_c`` are parallel (or zero).

    Linear dependence survives every congruence, so under any learned M the
    ratio d(a, c) / d(a, b) of such a row stays what it is in G: no
    projection can move it.
    """
    out = np.empty(a.shape[0], dtype=bool)
    zero = ZERO_LENGTH_RTOL * max_squared_norm(G)  # as zero_length_pairs
    for start in range(0, a.shape[0], 8192):
        sl = slice(start, start + 8192)
        U = G[a[sl]] - G[b[sl]]
        W = G[a[sl]] - G[c[sl]]
        uu = np.einsum("ij,ij->i", U, U)
        ww = np.einsum("ij,ij->i", W, W)
        uw = np.einsum("ij,ij->i", U, W)
        out[sl] = (uu <= zero) | (ww <= zero) | (uu * ww - uw * uw <= rtol * uu * ww)
    return out


def triplet_projections(G, triplets, M0, *, margin=2.0 ** 0.5, slack=np.inf,
                        equality_slack=np.inf, order="random", tol=1e-3, max_iter=100,
                        random_state=None, verbose=0, owner="SKLR",
                        dual_correction=True):
    """Minimise the LogDet divergence to ``M0`` under relative constraints.

    Solves Amid, Gionis & Ukkonen, Problem 6 (hard) or 7 (soft margin, with
    penalties ``slack / 2 * xi^2`` and ``equality_slack / 2 * xi^2``) on the
    r x r state::

        min_M  D_ld(M, M0) + sum_c lam_c / 2 xi_c^2
        s.t.   gamma^2 d(i, j) - d(i, k) <= xi_c    for (i, j | k)
               d(i, j) - d(i, k) = xi_c             for "don't know" rows

    by rank-two Bregman projections (``_triplet_sweep.pyx``) with dual corrections.

    Parameters
    ----------
    G : ndarray of shape (n, r)
    triplets : TripletConstraints
        Validated triplets.
    M0 : ndarray of shape (r, r)
    margin : float
        gamma > 1 of the outlier triplets.
    slack, equality_slack : float
        Penalties lam of the inequality and equality rows (``inf``: hard).
    order : {'random', 'cyclic'}
        Visit the rows in a new random order every sweep (the paper) or as
        listed.
    tol : float
        Stop when the relative L1 change of the duals over a sweep is below
        ``tol`` and the optimality conditions hold to ``tol``
        (:func:`triplet_residuals`).
    max_iter : int
        Maximum number of sweeps (the paper's passes).

    Returns
    -------
    ProjectionResult
        ``dual`` holds one dual per row of ``triplets.rows`` (the ``alpha``
        of eq. 19), ``targets`` the slacks ``xi = alpha / lam`` (zero
        for hard rows), ``skipped`` the degenerate rows.
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    M = np.array(M0, dtype=np.float64, order="C", copy=True)
    rng = check_random_state(random_state)
    a, b, c, kind, gamma2, _ = triplets.rows(margin)
    m = a.shape[0]
    skipped = degenerate_triplet_rows(G, a, b, c)
    if skipped.any():
        warn(f"{owner}: {int(skipped.sum())} of {m} triplet constraints have their "
             "three points on one line through the anchor in the initial kernel's "
             "feature space (or two points that coincide); no kernel of that range "
             "changes their ratio of distances, so they are skipped.")
    active = np.flatnonzero(~skipped).astype(np.intp)
    nu = np.zeros(m)
    lam = np.where(kind == 1, slack, equality_slack)
    soft = ~np.isinf(lam)
    lam_div = np.where(soft, lam, 1.0)

    def run():
        visit = rng.permutation(active) if order == "random" else active
        stats = logdet_triplet_sweep(G, a, b, c, kind, gamma2, nu, M, visit,
                                     float(slack), float(equality_slack), REPORT_RTOL,
                                     bool(dual_correction))
        return SweepStats(n_moved=stats[2], n_satisfied=stats[0])

    def residuals(state):
        xi = np.where(soft, nu / lam_div, 0.0)
        return triplet_residuals(G, a, b, c, kind, gamma2, state, nu, xi, skipped, tol)

    out = sweep_until_settled(
        run, M, nu, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, n_active=active.size,
        advice=("hard triplets may contradict each other: no kernel satisfies them all. "
                "Use a finite slack" if np.isinf(lam).any() else None),
    )
    xi = np.where(soft, nu / lam_div, 0.0)
    return ProjectionResult(state=M, log_state=False, dual=nu, targets=xi,
                            n_iter=out.n_iter, converged=out.converged, skipped=skipped,
                            history=out.history, n_projections=out.n_moved,
                            max_violation=out.residuals.max_violation)


def triplet_residuals(G, a, b, c, kind, gamma2, M, nu, xi, skipped, tol):
    """KKT residuals of the triplet rows at the state ``M`` (see :class:`Residuals`).

    A row reads ``g = gamma2 d(a, b) - d(a, c) <= xi`` (inequality) or
    ``g = xi`` (equality), with ``xi = nu / lam`` when soft and 0 when hard;
    it is measured relative to ``d(a, c)`` (the row's "bound"), and a dual's
    scale in the update ``M^-1 + alpha C`` is ``s = gamma2 d(a, b) + d(a, c)``.
    Skipped (degenerate) rows keep their ratio of distances under every M:
    they are measured like the others, against 0, and flagged ``fixed``.
    """
    d_ab = pair_sqdist(G, a, b, M)
    d_ac = pair_sqdist(G, a, c, M)
    g = gamma2 * d_ab - d_ac - xi
    s = gamma2 * d_ab + d_ac
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(d_ac > 0, g / np.where(d_ac > 0, d_ac, 1.0), 0.0)
    ineq = kind == 1
    skipped = np.asarray(skipped, dtype=bool)
    if skipped.any():
        # degenerate rows keep d(a, b) / d(a, c) under every M: measured at the
        # state like the others; where a point coincides with the anchor, by
        # the geometry (as degenerate_triplet_rows): c on a, b not (gamma2
        # d(a, b) <= 0) misses by the whole row (1), b on a (-d(a, c) <= 0)
        # holds as an inequality and misses by 1 as an equality
        sk = np.flatnonzero(skipped)
        zero = ZERO_LENGTH_RTOL * max_squared_norm(G)
        uu = pair_sqdist(G, a[sk], b[sk])
        ww = pair_sqdist(G, a[sk], c[sk])
        rel[sk] = np.where(ww <= zero, np.where(uu <= zero, 0.0, 1.0),
                           np.where(uu <= zero, -1.0, rel[sk]))
    viol = np.where(ineq, np.maximum(rel, 0.0), np.abs(rel))
    comp = np.where(ineq & (nu > 0), np.minimum(np.abs(rel), nu * s), 0.0)
    comp[skipped] = 0.0
    return Residuals(viol, comp, tol, detail=(gamma2 * d_ab - d_ac, xi), fixed=skipped)


def renormalise_log_trace(L):
    """Shift ``L`` in place so that ``tr exp(L) = 1``; return its eigen-pair.

    Returns
    -------
    w : ndarray of shape (r,)
        Eigenvalues of the trace-one ``W = exp(L)`` (not of ``L``).
    Q : ndarray of shape (r, r)
        Their eigenvectors.
    """
    lam, Q = linalg.eigh(L)
    shift = logsumexp(lam)
    L[np.diag_indices_from(L)] -= shift
    return np.exp(lam - shift), Q


def definiteboost_residuals(V, sign, bound, dual, L, correction, tol):
    """KKT residuals of DefiniteBoost's constraints at ``log W = L`` (see
    :class:`Residuals`).

    ``r_j = tr(W C_j) = s_j (v_j' W v_j - b_j)``: the violation is ``r_j``
    when positive and the complementarity, with the dual correction,
    ``-r_j`` when negative with a positive dual (the projected gradient of
    the dual objective), both divided by ``b_j``.  Their larger part is the
    score the greedy steps choose by.  ``L`` is renormalised to trace one
    in place.
    """
    w, Q = renormalise_log_trace(L)
    rho = ((V @ Q) ** 2) @ w
    gap = relative_gap(rho, sign, bound)  # r_j / b_j (the bounds are positive)
    violation = np.maximum(gap, 0.0)
    comp = (np.where((gap < 0) & (dual > 0), -gap, 0.0) if correction
            else np.zeros_like(violation))
    return Residuals(violation, comp, tol, detail=(rho, bound))


def definiteboost(V, sign, bound, L0, *, selection="greedy", exact=True,
                  dual_correction=True, tol=1e-3, max_iter=1000, random_state=None,
                  verbose=0, owner="DefiniteBoost"):
    """Trace-one Bregman projection under constraints ``tr(W C_j) <= 0``.

    Solves Tsuda et al. (2005), eq. 8, with ``C_j = s_j (v_j v_j' - b_j I)``::

        min_W  D_vN(W, W_1)  s.t.  tr W = 1,  s_j (v_j' W v_j - b_j) <= 0

    through its dual (eq. 9) by DefiniteBoost steps (``_definiteboost_steps.pyx``).

    Parameters
    ----------
    V : ndarray of shape (c, r)
        Constraint vectors in an orthonormal basis.
    sign : ndarray of shape (c,), int8
    bound : ndarray of shape (c,)
        Positive, and below ``|v_j|^2`` for ``s_j = -1`` (feasible, binding
        constraints only; the caller sorts the others out).
    L0 : ndarray of shape (r, r)
        ``log W_1`` (renormalised to trace one here).
    selection : {'greedy', 'cyclic'}
        The most violated constraint at each step (the paper), or every
        constraint in turn, in a new random order each sweep.
    exact : bool
        Exact step sizes (eq. 11) or the approximate ones (eq. 13).
    dual_correction : bool
        Let steps give back dual weight (``alpha >= -gamma_j``) or not
        (``alpha >= 0``, the original algorithm).
    tol : float
        Stop when every relative KKT violation is at most ``tol``.
    max_iter : int
        Maximum number of sweeps; a greedy sweep is ``c`` steps.

    Returns
    -------
    ProjectionResult
        ``state`` is ``log W`` (trace one, ``log_state=True``), ``dual``
        the ``gamma_j``, ``targets`` the bounds, ``n_projections`` the
        steps that moved W; ``history`` holds the largest relative KKT
        violation after each sweep, and ``dual_objective`` the final value
        of eq. 9.  The sweeps are run by :func:`sweep_until_settled`, the
        loop of the pair and triplet drivers, with the greedy steps'
        own convergence verdict and the infeasibility certificate as
        arguments.
    """
    V = np.ascontiguousarray(V, dtype=np.float64)
    sign = np.ascontiguousarray(sign, dtype=np.int8)
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    L = np.array(L0, dtype=np.float64, order="C", copy=True)
    rng = check_random_state(random_state)
    c = V.shape[0]
    gamma = np.zeros(c)
    w, _ = renormalise_log_trace(L)
    # Weak duality: D(W*, W_1) >= -dual objective, and no trace-one W is
    # further than -log lambda_min(W_1) from W_1; below that the constraints
    # are infeasible (the dual objective is then unbounded below).
    infeasible_below = float(np.log(w.min()))
    dual_obj = 0.0

    def residuals(state):
        return definiteboost_residuals(V, sign, bound, gamma, state, dual_correction, tol)

    def run():
        if selection == "greedy":
            steps, converged, d_dual, evals, worst = definiteboost_greedy(
                V, sign, bound, gamma, L, c, float(tol), bool(exact), bool(dual_correction)
            )
            # (the compiled loop renormalises before every step)
            return SweepStats(n_moved=steps, n_evals=evals, dual_objective_change=d_dual,
                              worst=worst, converged=bool(converged))
        d_dual, evals, moved = definiteboost_cyclic_sweep(
            V, sign, bound, gamma, L, rng.permutation(c).astype(np.intp),
            bool(exact), bool(dual_correction),
        )
        worst = residuals(L).worst  # (renormalises L)
        return SweepStats(n_moved=moved, n_evals=evals, dual_objective_change=d_dual,
                          worst=worst, converged=worst <= tol)

    def stop(stats):
        nonlocal dual_obj
        dual_obj += stats.dual_objective_change
        if not stats.converged and dual_obj < infeasible_below:
            return ("the constraints are infeasible: no trace-one kernel on the range of "
                    "the initial one satisfies them all (certificate: dual objective "
                    f"{dual_obj:.4g} < log lambda_min(W_1) = {infeasible_below:.4g}). "
                    "Stopped; use fewer constraints (n_constraints) or looser bounds "
                    "(epsilon, bounds)")
        return None

    out = sweep_until_settled(
        run, L, gamma, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, n_active=c, log_state=True,
        diverged_advice=("use fewer constraints (n_constraints) or looser bounds (epsilon, "
                         "bounds)"),
        measure=lambda duals_old, stats: stats.worst,
        measure_name="largest relative violation",
        progress=lambda stats: f"dual objective {dual_obj:.6e}", stop=stop,
    )
    # out.residuals are those of the final L (the loop computes them last,
    # which also renormalises L after the greedy steps' last one)
    n_iter = out.n_iter
    if selection == "greedy":
        n_iter = max(1, -(-out.n_moved // max(c, 1)))  # sweeps of c steps
    return ProjectionResult(state=L, log_state=True, dual=gamma, targets=bound.copy(),
                            n_iter=n_iter, converged=out.converged,
                            skipped=np.zeros(c, bool), history=out.history,
                            n_evals=out.n_evals, n_projections=out.n_moved,
                            dual_objective=dual_obj,
                            max_violation=out.residuals.max_violation)
