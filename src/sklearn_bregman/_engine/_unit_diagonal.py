"""Bregman projections onto a unit diagonal (JMLR 2009, Section 6.3).

The engine's set-up of :class:`~sklearn_bregman.NearestCorrelation`:
:func:`logdet_nearest_correlation` runs the compiled sweep of
``_correlation.pyx`` on the diagonal-plus-low-rank form of the LogDet
solution (O(n r) memory), each sweep followed by a Newton step on the dual
when it is affordable; :func:`vonneumann_nearest_correlation` runs the
rank-one von Neumann sweep on the dense state ``log K``.  Both go through
the one loop, :func:`~._driver.sweep_until_settled`.  The formulation and
its departure from the paper are in ``sklearn_bregman._nearest_correlation``.
"""

import numpy as np
from scipy import linalg

from ._correlation import correlation_sweep
from ._driver import (
    Residuals,
    SweepStats,
    UnitDiagonalResult,
    _sym_exp,
    _sym_fun,
    sweep_until_settled,
)
from ._vonneumann import vonneumann_pair_sweep

#: Largest cost (in multiply-adds) of a Newton step on the LogDet dual that
#: follows each sweep: O(n m^2 + m^3) with m = r(r+1)/2 by Woodbury, or
#: O(n^3) with the dense n x n Hessian when m > n (n <= NEWTON_DENSE_MAX_N).
#: Above it the projections run alone.
NEWTON_MAX_FLOPS = 5e10
NEWTON_DENSE_MAX_N = 5000


def _newton_cost(n, r):
    """Multiply-adds of one Newton step on the dual (inf when not affordable)."""
    m = r * (r + 1) // 2
    if m <= n:
        return float(n) * m * m + float(m) ** 3
    return float(n) ** 3 / 3 + float(n) ** 2 * r if n <= NEWTON_DENSE_MAX_N else np.inf


_ADVICE = ("increase max_iter, or nugget: a larger floor of the start's "
           "uniquenesses psi0 keeps K0 and the result better conditioned, and the "
           "projections then converge in fewer sweeps")


def _factor_of(W, t, psi0):
    """``F`` with ``K = diag(t) + F F'`` and the diagonal of K, in O(n r^2).

    ``S = I + W' diag(psi0 - t) W`` is formed afresh (no rounding carried over
    from the sweeps); ``F = diag(t) W L^-T`` with ``S = L L'``.
    """
    n, r = W.shape
    if r == 0:
        return np.zeros((n, 0)), t.copy(), np.zeros((0, 0))
    S = _s_matrix(W, t, psi0)
    L = linalg.cholesky(S, lower=True)
    F = linalg.solve_triangular(L, (W * t[:, None]).T, lower=True).T
    diag = t + np.einsum("ij,ij->i", F, F)
    return np.ascontiguousarray(F), diag, L


def _s_matrix(W, t, psi0):
    """``S = I + W' diag(psi0 - t) W`` (r x r), in blocks of rows."""
    r = W.shape[1]
    S = np.eye(r)
    c = psi0 - t
    for start in range(0, W.shape[0], 16384):
        B = W[start:start + 16384]
        S += B.T @ (B * c[start:start + 16384, None])
    return (S + S.T) / 2


def _refresh_sinv(W, t, psi0, Sinv):
    S = _s_matrix(W, t, psi0)
    Sinv[...] = linalg.cho_solve(linalg.cho_factor(S), np.eye(W.shape[1]))
    Sinv[...] = (Sinv + Sinv.T) / 2


def _dual_objective(W, delta, psi0):
    """The LogDet dual ``g = logdet(K0^-1 + diag(alpha)) - sum(alpha)`` up to a
    constant (``sum log delta + logdet S - sum delta``), or None outside the
    domain (``K^-1`` not positive definite: some ``delta <= 0`` or S not)."""
    if not (np.all(delta > 0) and np.isfinite(delta).all()):
        return None
    S = _s_matrix(W, 1.0 / delta, psi0)
    try:
        L = linalg.cholesky(S, lower=True)
    except linalg.LinAlgError:
        return None
    return float(np.log(delta).sum() + 2.0 * np.log(np.diag(L)).sum() - delta.sum())


def _newton_step(W, t, psi0):
    """One Newton step on the dual of the LogDet problem, with backtracking
    (updates ``t`` in place; returns 1 if it moved, else 0).

    The dual ``g(alpha) = logdet(K0^-1 + diag(alpha)) - sum(alpha)`` is
    concave with gradient ``diag(K) - 1`` and Hessian ``-(K o K)``
    (Hadamard square).  With ``K = diag(t) + F F'``,
    ``K o K = diag(t^2 + 2 t |f_i|^2) + Z Z'`` where the m = r(r+1)/2
    columns of Z are ``f_a o f_b`` (a <= b, times sqrt 2 off the diagonal):
    the Newton system is solved by Woodbury in O(n m^2 + m^3), or with the
    dense n x n Hessian in O(n^3) when m > n (then n is small).  Cyclic
    projections are coordinate ascent on g; they crawl when ``K o K`` is
    ill-conditioned along its low-rank part (many rows pulling against one
    shared factor), which a Newton step removes at once.
    """
    n, r = W.shape
    F, diag, _ = _factor_of(W, t, psi0)
    grad = diag - 1.0
    f2 = diag - t
    D = t * t + 2.0 * t * f2
    a, b = np.triu_indices(r)
    m = a.size
    if m > n:
        H = F @ F.T
        H[np.diag_indices(n)] += t
        H *= H
        try:
            d = linalg.solve(H, grad, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            return 0
    else:
        weight = np.where(a == b, 1.0, np.sqrt(2.0))
        M = np.eye(m)
        y = np.zeros(m)
        gd = grad / D
        for start in range(0, n, 4096):
            sl = slice(start, start + 4096)
            Z = F[sl][:, a] * F[sl][:, b] * weight
            M += Z.T @ (Z / D[sl, None])
            y += Z.T @ gd[sl]
        try:
            y = linalg.solve(M, y, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            return 0
        d = gd.copy()
        for start in range(0, n, 4096):
            sl = slice(start, start + 4096)
            Z = F[sl][:, a] * F[sl][:, b] * weight
            d[sl] -= (Z @ y) / D[sl]
    delta = 1.0 / t
    g0 = _dual_objective(W, delta, psi0)
    slope = float(grad @ d)
    if g0 is None or not slope > 0:
        return 0
    step = 1.0
    for _ in range(60):
        g = _dual_objective(W, delta + step * d, psi0)
        if g is not None and g >= g0 + 1e-4 * step * slope:
            t[...] = 1.0 / (delta + step * d)
            return 1
        step /= 2
    return 0


def logdet_nearest_correlation(G0, psi0, *, tol, max_iter, verbose, owner):
    """Cyclic LogDet projections onto ``K_ii = 1`` from ``K0 = diag(psi0) + G0 G0'``,
    each sweep followed by a Newton step on the dual (:func:`_newton_step`)
    when its cost is at most ``NEWTON_MAX_FLOPS``.

    Runs :func:`~sklearn_bregman._engine.sweep_until_settled` over the
    compiled :func:`~sklearn_bregman._engine.correlation_sweep`: the state is
    ``S^-1`` (r x r) with the duals ``t = 1 / delta`` (n); the convergence
    measure is the largest ``|K_ii - 1|`` met in a sweep, and the residuals
    the diagonal of K recomputed from the factor.

    Returns
    -------
    UnitDiagonalResult
        ``factor`` (n x r), ``uniqueness`` (n,), ``dual`` (alpha, n),
        ``diag`` (the diagonal of K), ``n_iter``, ``converged``,
        ``divergence`` (``D_ld(K, K0)``); ``state`` is ``S^-1`` (r x r).
    """
    n, r = G0.shape
    W = G0 / psi0[:, None]
    t = psi0.copy()
    order = np.arange(n, dtype=np.intp)
    if r == 0:
        # K0 diagonal: the projections set K = I at once.
        t[:] = 1.0
        n_iter, converged, history, n_moved = 1, True, [0.0], n
    else:
        Sinv = np.eye(r)  # S = I at t = psi0

        newton = _newton_cost(n, r) <= NEWTON_MAX_FLOPS

        def run():
            # S^-1 afresh from t before each sweep (O(n r^2)): no drift.
            _refresh_sinv(W, t, psi0, Sinv)
            worst, moved = correlation_sweep(W, t, Sinv, order)
            ok = np.isfinite(worst) and bool(np.all(t > 0)) and np.isfinite(t).all()
            if ok and newton and worst > tol:
                moved += _newton_step(W, t, psi0)
            if ok:
                _refresh_sinv(W, t, psi0, Sinv)
            return SweepStats(n_moved=int(moved), worst=float(worst),
                              dual_objective_change=0.0 if ok else np.nan)

        def residuals(state):
            _, diag, _ = _factor_of(W, t, psi0)
            return Residuals(np.abs(diag - 1.0), np.zeros(0), tol,
                             detail=(diag, np.ones(n)))

        out = sweep_until_settled(
            run, Sinv, t, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
            residuals=residuals, n_active=n, advice=_ADVICE, diverged_advice=_ADVICE,
            measure=lambda duals_old, stats: stats.worst,
            measure_name="largest diagonal error",
            progress=lambda stats: f"{stats.n_moved} of {n} rows moved",
        )
        n_iter, converged, history, n_moved = (out.n_iter, out.converged, out.history,
                                               out.n_moved)
    F, diag, L = _factor_of(W, t, psi0)
    alpha = 1.0 / t - 1.0 / psi0
    # D_ld(K, K0) = tr(K K0^-1) - logdet(K K0^-1) - n with K0^-1 = K^-1 - diag(alpha)
    # and, by the determinant lemma, logdet(K K0^-1) = -sum log(psi0 / t) - logdet S.
    logdet_s = 2.0 * np.log(np.diag(L)).sum() if r else 0.0
    divergence = float(np.log(psi0 / t).sum() + logdet_s - alpha @ diag)
    ones = np.ones(n)
    return UnitDiagonalResult(
        state=linalg.inv(L @ L.T) if r else np.zeros((0, 0)), log_state=False,
        dual=alpha, targets=ones, n_iter=n_iter, converged=converged,
        skipped=np.zeros(n, bool), history=history, n_projections=n_moved,
        max_violation=float(np.abs(diag - 1.0).max(initial=0.0)), diag=diag,
        divergence=divergence, factor=F, uniqueness=t)


def vonneumann_nearest_correlation(K0, *, tol, max_iter, verbose, owner):
    """Von Neumann projections onto ``K_ii = 1`` on the dense state ``log K``.

    Reuses the compiled rank-one von Neumann sweep of the pair learners
    (``vonneumann_pair_sweep``) on the n x n state ``L = log K`` with the
    orthonormal "factor" ``U = [I_n; 0]`` and the pairs ``(i, n)``: the
    vector of row i is ``e_i`` and its "squared distance" ``e_i' exp(L) e_i
    = K_ii``.  Each row is an equality, so it is projected onto exactly at
    every visit (no dual correction): ``L <- L + x e_i e_i'`` with x the
    root of ``(exp(L + x e_i e_i'))_ii = 1`` (Lanczos and the secular
    equation, ``_vn_kernels.h``), and its dual is ``alpha_i = -sum x``.

    Returns
    -------
    UnitDiagonalResult
        ``correlation`` (n x n), ``dual`` (alpha), ``diag``, ``n_iter``,
        ``converged``, ``divergence`` (``D_vN(K, K0)``); ``state`` is
        ``log K``.
    """
    n = K0.shape[0]
    L0 = _sym_fun(K0, np.log)
    L = np.ascontiguousarray(L0.copy())
    U = np.vstack([np.eye(n), np.zeros((1, n))])
    rows = np.arange(n, dtype=np.intp)
    other = np.full(n, n, dtype=np.intp)
    sign = np.ones(n, dtype=np.int8)
    bound = np.ones(n)
    xi = np.ones(n)
    nu = np.zeros(n)

    def run():
        stats = vonneumann_pair_sweep(U, rows, other, sign, bound, xi, nu, L, rows,
                                      np.inf, tol, False)
        return SweepStats(n_moved=stats[2], n_evals=stats[3])

    def residuals(state):
        diag = np.diag(_sym_exp(state))
        return Residuals(np.abs(diag - 1.0), np.zeros(0), tol, detail=(diag, bound))

    out = sweep_until_settled(
        run, L, nu, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, n_active=n, log_state=True, advice=_ADVICE,
        diverged_advice=_ADVICE,
        measure=lambda duals_old, stats: float(np.abs(nu - duals_old).max(initial=0.0)),
        measure_name="largest dual step",
        progress=lambda stats: f"{stats.n_moved} of {n} rows moved",
    )
    K = _sym_exp(L)
    K = (K + K.T) / 2
    diag = np.diag(K).copy()
    alpha = -np.diag(L - L0).copy()
    # D_vN(K, K0) = tr(K log K - K log K0 - K + K0)
    divergence = float(np.sum(K * (L - L0)) - np.trace(K) + np.trace(K0))
    return UnitDiagonalResult(
        state=L, log_state=True, dual=alpha, targets=bound, n_iter=out.n_iter,
        converged=out.converged, skipped=np.zeros(n, bool), history=out.history,
        n_evals=out.n_evals, n_projections=out.n_moved,
        max_violation=float(np.abs(diag - 1.0).max(initial=0.0)), diag=diag,
        divergence=divergence, correlation=K)
