"""Sweep driver: cyclic Bregman projections until the duals settle.

Python runs once per sweep (ordering, convergence test, progress line); the
projections of a sweep all run in compiled code.
"""

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..constraints import pair_sqdist
from ._definiteboost import definiteboost_cyclic_sweep, definiteboost_greedy
from ._logdet import logdet_pair_sweep
from ._sklr import logdet_triplet_sweep
from ._vonneumann import vonneumann_pair_sweep

#: The compiled sweep of each divergence: one pass of rank-one projections.
SWEEPS = {"logdet": logdet_pair_sweep, "vonneumann": vonneumann_pair_sweep}

#: A constraint counts as satisfied in the progress line when its squared
#: distance is within this relative margin of its bound.
REPORT_RTOL = 1e-3


@dataclass
class ProjectionResult:
    """Outcome of a run of the projection engine.

    Attributes
    ----------
    M : ndarray of shape (r, r)
        Final state: the matrix M itself for LogDet, log X for von Neumann.
    dual : ndarray of shape (c,)
        Dual variables (non-negative), one per constraint.
    slack_target : ndarray of shape (c,)
        Final slack targets (equal to the bounds for hard constraints).
    n_iter : int
        Sweeps run.
    converged : bool
        Whether the dual change fell below ``tol``.
    skipped : ndarray of shape (c,), bool
        Constraints left out because their two points coincide in the
        factor (zero-length pairs).
    history : list of float
        Convergence measure after each sweep.
    n_evals : int
        Root-finder evaluations over the run (von Neumann; 0 for LogDet).
    n_projections : int
        Projections that moved the state.
    dual_objective : float
        DefiniteBoost only: the dual objective (Tsuda et al. eq. 9) at the end.
    """

    M: np.ndarray
    dual: np.ndarray
    slack_target: np.ndarray
    n_iter: int
    converged: bool
    skipped: np.ndarray
    history: list = field(default_factory=list)
    n_evals: int = 0
    n_projections: int = 0
    dual_objective: float = 0.0


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
                     verbose=0, owner="Bregman projections", dual_correction=True):
    """Minimise a Bregman matrix divergence to ``M0`` under pair constraints.

    Solves (JMLR 2009, eq. 4 with slack eq. 22, on the r x r state)::

        min_M  D(M, M0) + slack * D(xi, b)
        s.t.   sign_c * ((g_i - g_j)' M (g_i - g_j) - xi_c) <= 0

    by cyclic rank-one Bregman projections with dual corrections, for
    ``D`` the LogDet divergence (state M) or the von Neumann divergence
    (state log M; ``G`` must then be orthonormal-basis coordinates, see
    DESIGN.md).

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
        Stop when the dual change of a sweep falls below ``tol``.
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

    Returns
    -------
    ProjectionResult
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    M = np.array(M0, dtype=np.float64, order="C", copy=True)
    rng = check_random_state(random_state)
    c = len(constraints)

    # Zero-length pairs cannot be moved by any M: skip them once, up front.
    skipped = pair_sqdist(G, constraints.i, constraints.j) == 0.0
    n_skipped = int(skipped.sum())
    if n_skipped:
        warnings.warn(
            f"{owner}: {n_skipped} of {c} constraints join two identical points "
            "(zero distance under every metric); they are skipped.",
            UserWarning,
            stacklevel=3,
        )
    active = np.flatnonzero(~skipped).astype(np.intp)
    check_similar_bounds(constraints, active)

    sweep = SWEEPS[divergence]
    nu = np.zeros(c)
    xi = constraints.bound.copy()

    def run(visit):
        return sweep(
            G, constraints.i, constraints.j, constraints.sign, constraints.bound,
            xi, nu, M, visit, float(slack), REPORT_RTOL, bool(dual_correction),
        )

    n_iter, converged, history, n_evals, n_moved = sweep_until_settled(
        run, M, nu, active, order=order, tol=tol, max_iter=max_iter, rng=rng,
        verbose=verbose, owner=owner,
        advice="use a finite slack if the constraints may be infeasible",
    )
    return ProjectionResult(M=M, dual=nu, slack_target=xi, n_iter=n_iter,
                            converged=converged, skipped=skipped, history=history,
                            n_evals=n_evals, n_projections=n_moved)


#: ``sweep_until_settled(..., diverged=...)``: a state whose entries grow past
#: this (or its inverse's, through the diagonal) has left double precision's
#: comfortable range; hard constraints that contradict each other get there.
DIVERGED = 1e100


def sweep_until_settled(run, M, nu, active, *, order, tol, max_iter, rng, verbose,
                        owner, advice, diverged="raise"):
    """Call the compiled sweep ``run(visit)`` until the duals settle.

    ``visit`` is ``active`` (order 'cyclic') or a new permutation of it each
    sweep ('random'); ``run`` updates the state ``M`` and the duals ``nu``
    in place and returns ``(n_satisfied, n_skipped, n_moved[, n_evals])``.

    ``diverged`` says what happens when the state turns non-finite (or, for
    'stop', when an entry of M or 1 / M_aa passes ``DIVERGED``): 'raise' a
    FloatingPointError, or 'stop': go back to the state of the sweep before,
    warn, and return.

    Returns
    -------
    n_iter, converged, history, n_evals, n_moved
    """
    history = []
    n_evals = n_moved = 0
    converged = False
    n_iter = 0
    t0 = time.perf_counter()
    for n_iter in range(1, max_iter + 1):
        visit = rng.permutation(active) if order == "random" else active
        nu_old = nu.copy()
        if diverged == "stop":
            M_old = M.copy()
        stats = run(visit)
        n_sat = stats[0]
        n_moved += stats[2]
        if len(stats) > 3:
            n_evals += stats[3]
        if diverged == "stop" and not _moderate(M):
            M[...] = M_old
            nu[...] = nu_old
            warnings.warn(
                f"{owner}: the state diverged in sweep {n_iter} (the hard constraints "
                "contradict each other: no kernel satisfies them all); stopped at the "
                f"state after sweep {n_iter - 1}; {advice}.",
                ConvergenceWarning,
                stacklevel=4,
            )
            return n_iter - 1, False, history, n_evals, n_moved
        if not np.isfinite(M).all():
            raise FloatingPointError(
                f"{owner}: the state became non-finite after sweep {n_iter}; the "
                "constraints are too far from the prior for double precision."
            )
        conv = dual_change(nu, nu_old)
        history.append(conv)
        if verbose:
            share = n_sat / max(active.size, 1)
            print(
                f"[{owner}] sweep {n_iter}: dual change {conv:.3e}, "
                f"satisfied {100 * share:.1f}% ({n_sat}/{active.size}), "
                f"{time.perf_counter() - t0:.2f}s"
            )
        if conv < tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"{owner} did not converge in max_iter={max_iter} sweeps (last dual change "
            f"{history[-1]:.3e} > tol={tol}). Increase max_iter, loosen tol, or "
            f"{advice}.",
            ConvergenceWarning,
            stacklevel=4,
        )
    return n_iter, converged, history, n_evals, n_moved


def _moderate(M):
    """Finite, and neither M nor (through its diagonal) M^-1 beyond DIVERGED."""
    if not np.isfinite(M).all():
        return False
    diag = np.diag(M)
    return bool(np.abs(M).max() <= DIVERGED and diag.min() >= 1.0 / DIVERGED)


def degenerate_triplet_rows(G, a, b, c, rtol=1e-10):
    """Rows whose ``u = g_a - g_b`` and ``w = g_a - g_c`` are parallel (or zero).

    Linear dependence survives every congruence, so under any learned M the
    ratio d(a, c) / d(a, b) of such a row stays what it is in G: no
    projection can move it.
    """
    out = np.empty(a.shape[0], dtype=bool)
    for start in range(0, a.shape[0], 8192):
        sl = slice(start, start + 8192)
        U = G[a[sl]] - G[b[sl]]
        W = G[a[sl]] - G[c[sl]]
        uu = np.einsum("ij,ij->i", U, U)
        ww = np.einsum("ij,ij->i", W, W)
        uw = np.einsum("ij,ij->i", U, W)
        out[sl] = (uu == 0) | (ww == 0) | (uu * ww - uw * uw <= rtol * uu * ww)
    return out


def triplet_projections(G, triplets, M0, *, margin=np.sqrt(2.0), slack=np.inf,
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

    by rank-two Bregman projections (``_sklr.pyx``) with dual corrections.

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
        Stop when the relative L1 change of the duals over a sweep is below.
    max_iter : int
        Maximum number of sweeps (the paper's passes).

    Returns
    -------
    ProjectionResult
        ``dual`` holds one dual per row of ``triplets.rows`` (the ``alpha``
        of eq. 19), ``slack_target`` the slacks ``xi = alpha / lam`` (zero
        for hard rows), ``skipped`` the degenerate rows.
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    M = np.array(M0, dtype=np.float64, order="C", copy=True)
    rng = check_random_state(random_state)
    a, b, c, kind, gamma2, _ = triplets.rows(margin)
    m = a.shape[0]
    skipped = degenerate_triplet_rows(G, a, b, c)
    if skipped.any():
        warnings.warn(
            f"{owner}: {int(skipped.sum())} of {m} triplet constraints have their "
            "three points on one line through the anchor in the initial kernel's "
            "feature space (or two points that coincide); no kernel of that range "
            "changes their ratio of distances, so they are skipped.",
            UserWarning,
            stacklevel=3,
        )
    active = np.flatnonzero(~skipped).astype(np.intp)
    nu = np.zeros(m)

    def run(visit):
        return logdet_triplet_sweep(G, a, b, c, kind, gamma2, nu, M, visit,
                                    float(slack), float(equality_slack), REPORT_RTOL,
                                    bool(dual_correction))

    n_iter, converged, history, _, n_moved = sweep_until_settled(
        run, M, nu, active, order=order, tol=tol, max_iter=max_iter, rng=rng,
        verbose=verbose, owner=owner,
        advice="use a finite slack if the triplets may contradict each other",
        diverged="stop",
    )
    lam = np.where(kind == 1, slack, equality_slack)
    xi = np.where(np.isinf(lam), 0.0, nu / np.where(np.isinf(lam), 1.0, lam))
    return ProjectionResult(M=M, dual=nu, slack_target=xi, n_iter=n_iter,
                            converged=converged, skipped=skipped, history=history,
                            n_projections=n_moved)


def check_similar_bounds(constraints, active):
    """A similar pair of non-zero length with bound 0 cannot be met by an SPD M."""
    sel = active[(constraints.sign[active] > 0) & (constraints.bound[active] <= 0)]
    if sel.size:
        k = sel[0]
        raise ValueError(
            f"constraints: row {k} asks the squared distance of two distinct points "
            f"({constraints.i[k]}, {constraints.j[k]}) to be <= 0, which no positive "
            "definite metric satisfies; similar pairs need a positive bound."
        )


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


def definiteboost_scores(V, sign, bound, dual, w, Q, correction):
    """Relative KKT violation of each DefiniteBoost constraint.

    ``r_j = tr(W C_j) = s_j (v_j' W v_j - b_j)``; the score is ``r_j`` when
    positive and, with the dual correction, ``-r_j`` when negative with a
    positive dual (the projected gradient of the dual objective), divided
    by ``b_j``.
    """
    rho = ((V @ Q) ** 2) @ w
    viol = sign * (rho - bound)
    score = np.where(viol > 0, viol, 0.0)
    if correction:
        score = np.where((viol < 0) & (dual > 0), -viol, score)
    return score / bound


def definiteboost(V, sign, bound, L0, *, selection="greedy", exact=True,
                  dual_correction=True, tol=1e-3, max_iter=1000, random_state=None,
                  verbose=0, owner="DefiniteBoost"):
    """Trace-one Bregman projection under constraints ``tr(W C_j) <= 0``.

    Solves Tsuda et al. (2005), eq. 8, with ``C_j = s_j (v_j v_j' - b_j I)``::

        min_W  D_vN(W, W_1)  s.t.  tr W = 1,  s_j (v_j' W v_j - b_j) <= 0

    through its dual (eq. 9) by DefiniteBoost steps (``_definiteboost.pyx``).

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
        ``M`` is ``log W`` (trace one), ``dual`` the ``gamma_j``,
        ``n_projections`` the steps that moved W; ``history`` holds the
        largest relative KKT violation after each sweep, and the extra
        attribute ``dual_objective`` the final value of eq. 9.
    """
    V = np.ascontiguousarray(V, dtype=np.float64)
    sign = np.ascontiguousarray(sign, dtype=np.int8)
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    L = np.array(L0, dtype=np.float64, order="C", copy=True)
    rng = check_random_state(random_state)
    c = V.shape[0]
    gamma = np.zeros(c)
    w, Q = renormalise_log_trace(L)
    # Weak duality: D(W*, W_1) >= -dual objective, and no trace-one W is
    # further than -log lambda_min(W_1) from W_1; below that the constraints
    # are infeasible (the dual objective is then unbounded below).
    infeasible_below = float(np.log(w.min()))
    infeasible = False
    history = []
    dual_obj = 0.0
    n_evals = n_moved = 0
    converged = False
    n_iter = 0
    t0 = time.perf_counter()
    for n_iter in range(1, max_iter + 1):
        if selection == "greedy":
            steps, converged, d_dual, evals, worst = definiteboost_greedy(
                V, sign, bound, gamma, L, c, float(tol), bool(exact), bool(dual_correction)
            )
            moved = steps  # the compiled loop renormalises before every step
        else:
            d_dual, evals, moved = definiteboost_cyclic_sweep(
                V, sign, bound, gamma, L, rng.permutation(c).astype(np.intp),
                bool(exact), bool(dual_correction),
            )
            w, Q = renormalise_log_trace(L)
            worst = float(definiteboost_scores(V, sign, bound, gamma, w, Q,
                                               dual_correction).max(initial=0.0))
            converged = worst <= tol
        dual_obj += d_dual
        n_evals += evals
        n_moved += moved
        history.append(worst)
        if not np.isfinite(L).all():
            raise FloatingPointError(
                f"{owner}: the state became non-finite after sweep {n_iter}."
            )
        if verbose:
            print(
                f"[{owner}] sweep {n_iter}: largest relative violation {worst:.3e}, "
                f"dual objective {dual_obj:.6e}, {time.perf_counter() - t0:.2f}s"
            )
        if converged:
            break
        if dual_obj < infeasible_below:
            infeasible = True
            warnings.warn(
                f"{owner}: the constraints are infeasible: no trace-one kernel on the "
                f"range of the initial one satisfies them all (certificate: dual "
                f"objective {dual_obj:.4g} < log lambda_min(W_1) = {infeasible_below:.4g} "
                f"after {n_iter} sweeps). Stopped; use fewer constraints "
                "(n_constraints) or looser bounds (epsilon, bounds).",
                ConvergenceWarning,
                stacklevel=3,
            )
            break
    if not converged and not infeasible:
        warnings.warn(
            f"{owner} did not converge in max_iter={max_iter} sweeps (largest relative "
            f"constraint violation {history[-1]:.3e} > tol={tol}). Increase max_iter or "
            "loosen tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    if selection == "greedy":
        renormalise_log_trace(L)  # after the last step
        n_iter = max(1, -(-n_moved // max(c, 1)))  # sweeps of c steps
    return ProjectionResult(M=L, dual=gamma, slack_target=bound.copy(), n_iter=n_iter,
                            converged=bool(converged), skipped=np.zeros(c, bool),
                            history=history, n_evals=n_evals, n_projections=n_moved,
                            dual_objective=dual_obj)
