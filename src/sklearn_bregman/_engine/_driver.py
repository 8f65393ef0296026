"""Sweep driver: cyclic Bregman projections until the duals settle.

Python runs once per sweep (ordering, convergence test, progress line); the
projections of a sweep all run in compiled code.
"""

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..constraints import pair_sqdist
from ._logdet import logdet_pair_sweep
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
                     verbose=0, owner="Bregman projections"):
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
    _check_similar_bounds(constraints, active)

    sweep = SWEEPS[divergence]
    nu = np.zeros(c)
    xi = constraints.bound.copy()
    history = []
    n_evals = n_moved = 0
    converged = False
    n_iter = 0
    t0 = time.perf_counter()
    for n_iter in range(1, max_iter + 1):
        visit = rng.permutation(active) if order == "random" else active
        nu_old = nu.copy()
        stats = sweep(
            G, constraints.i, constraints.j, constraints.sign, constraints.bound,
            xi, nu, M, visit, float(slack), REPORT_RTOL,
        )
        n_sat = stats[0]
        n_moved += stats[2]
        if len(stats) > 3:
            n_evals += stats[3]
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
            f"{history[-1]:.3e} > tol={tol}). Increase max_iter, loosen tol, or use a "
            "finite slack if the constraints may be infeasible.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return ProjectionResult(M=M, dual=nu, slack_target=xi, n_iter=n_iter,
                            converged=converged, skipped=skipped, history=history,
                            n_evals=n_evals, n_projections=n_moved)


def _check_similar_bounds(constraints, active):
    """A similar pair of non-zero length with bound 0 cannot be met by an SPD M."""
    sel = active[(constraints.sign[active] > 0) & (constraints.bound[active] <= 0)]
    if sel.size:
        k = sel[0]
        raise ValueError(
            f"constraints: row {k} asks the squared distance of two distinct points "
            f"({constraints.i[k]}, {constraints.j[k]}) to be <= 0, which no positive "
            "definite metric satisfies; similar pairs need a positive bound."
        )
