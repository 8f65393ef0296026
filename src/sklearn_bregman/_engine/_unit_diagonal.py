"""Bregman projections onto a unit diagonal (JMLR 2009, Section 6.3).

The engine's set-up of :class:`~sklearn_bregman.NearestCorrelation`:
:func:`logdet_nearest_correlation` runs Newton-CG on the LogDet dual reduced
to one r x r matrix (:class:`_ReducedDual`, :func:`_newton_cg`), or the
compiled sweep of ``_correlation.pyx`` on the diagonal-plus-low-rank form of
the LogDet solution (O(n r) memory), each sweep followed by a Newton step on
the n-dimensional dual when it is affordable; :func:`vonneumann_nearest_correlation` runs the
rank-one von Neumann sweep on the dense state ``log K``.  Both go through
the one loop, :func:`~._driver.sweep_until_settled`.  The formulation and
its departure from the paper are in ``sklearn_bregman._learners._nearest_correlation``.
"""

import time

import numpy as np
from scipy import linalg, optimize
from sklearn.exceptions import ConvergenceWarning

from .._utils._warnings import warn
from ._correlation import correlation_sweep
from ._driver import (
    Residuals,
    SweepStats,
    UnitDiagonalResult,
    sweep_until_settled,
    sym_exp,
    sym_fun,
)
from ._vonneumann import vonneumann_pair_sweep

#: Largest cost (in multiply-adds) of a Newton step on the LogDet dual that
#: follows each sweep: O(n m^2 + m^3) with m = r(r+1)/2 by Woodbury, or
#: O(n^3) with the dense n x n Hessian when m > n (n <= NEWTON_DENSE_MAX_N).
#: Above it the projections run alone.
NEWTON_MAX_FLOPS = 5e10
NEWTON_DENSE_MAX_N = 5000
#: The projections stop with a ConvergenceWarning when their largest
#: diagonal error has not decreased (by 0.1 %) in this many sweeps.
STALLED_SWEEPS = 50


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


def _row_duals(c):
    """``delta(c) = argmax_delta log(delta) - delta - c / delta`` for ``c >= 0``:
    the root ``(1 + sqrt(1 + 4c)) / 2`` of ``delta^2 - delta - c = 0``."""
    return 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * c))


class _ReducedDual:
    r"""The LogDet dual of the unit-diagonal problem with its n row duals
    maximised in closed form: a smooth convex function of one r x r matrix.

    With ``W = Psi0^-1 G0``, ``S0 = I + W' Psi0 W`` and ``delta = 1 / psi0 +
    alpha`` (so that ``K^-1 = K0^-1 + diag(alpha) = diag(delta) - W S0^-1 W'``),
    the dual ``g(delta) = logdet(diag(delta) - W S0^-1 W') - sum(delta)``
    (concave; gradient ``diag(K) - 1``) becomes, by the determinant lemma and
    ``logdet A = min_{N > 0} tr(N A) - logdet N - r`` for ``A = S0 - W'
    diag(delta)^-1 W``,

        g(delta) = min_N  sum_i [log delta_i - delta_i - c_i / delta_i]
                          + tr(S0 N) - logdet N + const,   c_i = w_i' N w_i.

    For a fixed N each row is a one-dimensional problem whose maximiser is
    :func:`_row_duals`: ``delta_i^2 - delta_i = c_i`` (the row's unit
    diagonal, ``1 / delta_i + c_i / delta_i^2 = 1``), with value
    ``phi(c_i) = log delta_i - 2 delta_i + 1``.  Swapping max and min (the
    function is concave in delta, convex in N) leaves

        h(N) = sum_i phi(w_i' N w_i) + tr(S0 N) - logdet N,

    convex in N > 0, with ``phi' = -1 / delta`` and ``phi'' = 1 / (delta^2
    (2 delta - 1)) > 0``::

        grad h(N)    = S0 - N^-1 - W' diag(1 / delta) W
        hess h(N)[V] = W' diag(phi''(c) o (w_i' V w_i)) W + N^-1 V N^-1.

    Each costs O(n r^2) and no n x n array: the Hessian-vector products of
    Newton-CG (Qi & Sun 2006 solve the Frobenius-norm dual the same way)
    go through the factor.  At its minimiser ``delta(N*)`` maximises g: the
    LogDet solution ``K = diag(1 / delta) + F F'``.  N starts at I, the
    minimiser for the start ``delta = 1 / psi0``.
    """

    def __init__(self, W, psi0):
        self.W = W
        self.S0 = _s_matrix(W, np.zeros_like(psi0), psi0)

    def value(self, N):
        """``(h(N), delta, size)``, or ``(inf, None, inf)`` when N is not
        positive definite; ``size`` bounds the magnitude of the terms summed,
        for the rounding error of h."""
        try:
            L = linalg.cholesky(N, lower=True)
        except linalg.LinAlgError:
            return np.inf, None, np.inf
        c = np.maximum(np.einsum("ij,ij->i", self.W @ N, self.W), 0.0)
        delta = _row_duals(c)
        rows = np.log(delta) - 2.0 * delta + 1.0
        trace = float(np.sum(self.S0 * N))
        logdet = 2.0 * float(np.log(np.diag(L)).sum())
        size = float(np.abs(rows).sum()) + abs(trace) + abs(logdet)
        return float(rows.sum()) + trace - logdet, delta, size

    def best_multiple_of_identity(self):
        """``s > 0`` minimising ``h(s I)``, the start of Newton's iterations.

        ``d h(s I) / ds = tr S0 - r / s - sum_i |w_i|^2 / delta_i(s |w_i|^2)``
        increases from -inf (s -> 0) to ``tr S0 > 0`` (s -> inf): its root,
        by Brent's method on log s (O(n) per evaluation).  It is 1 when no
        row of the start is capped (then ``delta = 1 / psi0`` and N = I are
        the optimum); when many are, N = I lies far outside the region where
        Newton's steps are full, and this one-dimensional search gets the
        scale of N right first."""
        w2 = np.einsum("ij,ij->i", self.W, self.W)
        r = self.W.shape[1]
        tr = float(np.trace(self.S0))

        def slope(log_s):
            s = np.exp(log_s)
            return tr - r / s - float(np.sum(w2 / _row_duals(s * w2)))

        lo, hi = 0.0, 0.0
        while slope(lo) > 0 and lo > -700:
            lo -= 4.0
        while slope(hi) < 0 and hi < 700:
            hi += 4.0
        if lo == hi:
            return 1.0
        return float(np.exp(optimize.brentq(slope, lo, hi, xtol=1e-12)))

    def gradient(self, N, delta):
        """``grad h(N)``, ``N^-1`` and ``phi''(c)``."""
        W = self.W
        Ninv = linalg.cho_solve(linalg.cho_factor(N, lower=True), np.eye(N.shape[0]))
        Ninv = (Ninv + Ninv.T) / 2
        G = self.S0 - Ninv - W.T @ (W / delta[:, None])
        curvature = 1.0 / (delta * delta * (2.0 * delta - 1.0))
        return (G + G.T) / 2, Ninv, curvature

    def hessian_product(self, V, Ninv, curvature, W=None):
        """``hess h(N)[V]``; with ``W = W0 L`` and ``Ninv = I`` the same in the
        coordinates ``N = L U L'`` (see :func:`_newton_cg_direction`)."""
        W = self.W if W is None else W
        cv = np.einsum("ij,ij->i", W @ V, W)
        H = W.T @ (W * (curvature * cv)[:, None]) + Ninv @ V @ Ninv
        return (H + H.T) / 2

    def hessian_diagonal(self, Ninv, curvature, W=None):
        """The Hessian's diagonal in the orthonormal basis of symmetric
        matrices (``e_a e_a'`` and ``(e_a e_b' + e_b e_a') / sqrt 2``), as an
        r x r array: the Jacobi preconditioner of the conjugate gradients."""
        W = self.W if W is None else W
        W2 = W * W
        A = W2.T @ (W2 * curvature[:, None])
        d = np.diag(Ninv)
        D = 2.0 * A + np.outer(d, d) + Ninv * Ninv
        D[np.diag_indices_from(D)] /= 2.0
        return D


def _newton_cg_direction(dual, G, N, curvature, eta):
    """Preconditioned conjugate gradients for the Newton system ``hess h(N) [V]
    = G`` on symmetric matrices (Frobenius inner product).

    The system is solved in the coordinates ``N = L U L'`` (``N = L L'``,
    U = I now), where the barrier's part of the Hessian, ``N^-1 V N^-1``,
    becomes the identity and the data part uses ``W L``: Newton's direction
    does not change (it is affine invariant), the conjugate gradients'
    conditioning does.  Jacobi preconditioner on top; stopped when the
    residual is below ``eta |G|`` or after ``2 r(r+1)/2`` steps (r(r+1)/2 in
    exact arithmetic).  Returns ``(V, steps)``.
    """
    r = G.shape[0]
    L = linalg.cholesky(N, lower=True)
    WL = dual.W @ L
    eye = np.eye(r)
    Gt = L.T @ G @ L
    D = dual.hessian_diagonal(eye, curvature, WL)
    U = np.zeros_like(G)
    res = Gt.copy()
    z = res / D
    p = z.copy()
    rz = float(np.sum(res * z))
    stop = eta * np.sqrt(float(np.sum(Gt * Gt)))
    steps = 0
    while steps < r * (r + 1):
        steps += 1
        Hp = dual.hessian_product(p, eye, curvature, WL)
        pHp = float(np.sum(p * Hp))
        if not pHp > 0:
            break
        a = rz / pHp
        U += a * p
        res -= a * Hp
        if np.sqrt(float(np.sum(res * res))) <= stop:
            break
        z = res / D
        rz_new = float(np.sum(res * z))
        p = z + (rz_new / rz) * p
        rz = rz_new
    V = L @ U @ L.T
    return (V + V.T) / 2, steps


def _diagonal_error(W, t, psi0):
    """``max_i |K_ii - 1|`` of ``K = (K0^-1 + diag(1/t - 1/psi0))^-1``; inf
    outside the dual's domain (K^-1 not positive definite)."""
    try:
        _, diag, _ = _factor_of(W, t, psi0)
    except linalg.LinAlgError:
        return np.inf
    return float(np.abs(diag - 1.0).max(initial=0.0))


def _newton_cg(W, t, psi0, *, tol, max_iter, verbose, owner):
    """Newton-CG on the reduced dual :class:`_ReducedDual` (updates ``t =
    1 / delta`` in place).

    Each iteration solves the Newton system inexactly by preconditioned
    conjugate gradients (forcing term ``min(0.5, sqrt(|G| / |G_0|))``,
    Nocedal & Wright, Algorithm 7.1) and backtracks along it (Armijo,
    ``h = inf`` outside N > 0).  Stops when the diagonal of K recomputed
    from ``t`` is within ``tol`` of 1, or when no step decreases h (the
    caller then hands ``t`` to the projections).

    Returns
    -------
    n_iter : int
        Iterations run (0 when the start is the optimum).
    converged : bool
    history : list of float
        The largest diagonal error after each iteration.
    """
    dual = _ReducedDual(W, psi0)
    r = W.shape[1]
    N = dual.best_multiple_of_identity() * np.eye(r)
    h, delta, size = dual.value(N)
    # the start may already be the optimum (no row capped: N = I, delta = 1 / psi0)
    t[...] = 1.0 / delta
    err = _diagonal_error(W, t, psi0)
    if err <= tol:
        return 0, True, [err]
    history = []
    g0 = None
    t0 = time.perf_counter()
    for n_iter in range(1, max_iter + 1):
        G, Ninv, curvature = dual.gradient(N, delta)
        gnorm = np.sqrt(float(np.sum(G * G)))
        g0 = gnorm if g0 is None else g0
        eta = min(0.5, np.sqrt(gnorm / g0)) if g0 > 0 else 0.5
        V, steps = _newton_cg_direction(dual, G, N, curvature, eta)
        slope = float(np.sum(G * V))  # h decreases along -V; slope ~ Newton decrement^2
        if not slope > 0:
            return n_iter - 1, False, history
        # Armijo backtracking.  Near the optimum the decrease (about slope / 2)
        # falls below the rounding of h (about eps times the size of its
        # terms): the full step is then taken when N - V stays positive definite.
        tiny = slope <= 1e3 * np.finfo(float).eps * size
        step, accepted = 1.0, False
        for _ in range(60):
            h_new, delta_new, size_new = dual.value(N - step * V)
            if delta_new is not None and (tiny or h_new <= h - 1e-4 * step * slope):
                accepted = True
                break
            step /= 2
        if not accepted:
            return n_iter - 1, False, history
        N = N - step * V
        N = (N + N.T) / 2
        h, delta, size = h_new, delta_new, size_new
        t[...] = 1.0 / delta
        err = _diagonal_error(W, t, psi0)
        history.append(err)
        if verbose:
            # (until K^-1 = K0^-1 + diag(alpha) is positive definite, K has no
            # diagonal to measure: N is not yet near its optimum)
            where = (f"largest diagonal error {err:.3e}" if np.isfinite(err)
                     else "row duals not yet in the dual's domain")
            print(f"[{owner}] Newton-CG iteration {n_iter}: {where}, {steps} CG steps, "
                  f"step {step:.3g}, {time.perf_counter() - t0:.2f}s")
        if err <= tol:
            return n_iter, True, history
        if tiny and step == 1.0 and len(history) > 1 and err >= history[-2]:
            # at rounding level without reaching tol: the projections polish
            return n_iter, False, history
    return max_iter, False, history


def _projections(W, t, psi0, *, tol, max_iter, verbose, owner):
    """Cyclic projections from ``t``, each sweep followed by a Newton step on the
    n-dimensional dual when affordable: ``(n_iter, converged, history, n_moved)``."""
    n, r = W.shape
    order = np.arange(n, dtype=np.intp)
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

    best = {"error": np.inf, "since": 0}

    def stop(stats):
        # Rounding in the representation K^-1 = diag(delta) - W C W' (W = G0 /
        # psi0) leaves an error floor of about eps max |g_i|^2 / psi0_i: a
        # tiny nugget can put it above tol, where the sweeps would only
        # repeat themselves until max_iter.
        if stats.worst < best["error"] * (1.0 - 1e-3):
            best["error"], best["since"] = stats.worst, 0
            return None
        best["since"] += 1
        if best["since"] < STALLED_SWEEPS or stats.worst <= tol:
            return None
        floor = np.finfo(float).eps * float((np.einsum("ij,ij->i", W, W) * psi0).max())
        return (f"the largest diagonal error has stalled at {best['error']:.3g} for "
                f"{STALLED_SWEEPS} sweeps, above tol={tol:g}: rounding in the start's "
                f"representation (uniquenesses psi0 down to {psi0.min():.3g}, the "
                f"nugget) limits the attainable error to about {floor:.2g}. Use a "
                "larger nugget or tol")

    out = sweep_until_settled(
        run, Sinv, t, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, n_active=n, advice=_ADVICE, diverged_advice=_ADVICE,
        measure=lambda duals_old, stats: stats.worst,
        measure_name="largest diagonal error",
        progress=lambda stats: f"{stats.n_moved} of {n} rows moved", stop=stop,
    )
    return out.n_iter, out.converged, out.history, out.n_moved


def logdet_nearest_correlation(G0, psi0, *, tol, max_iter, verbose, owner,
                               solver="newton"):
    """The LogDet nearest correlation matrix ``K_ii = 1`` from ``K0 = diag(psi0)
    + G0 G0'``, by Newton-CG on the reduced dual or by cyclic projections.

    ``solver='newton'`` (with r(r+1)/2 <= n) runs :func:`_newton_cg` on the
    r x r dual :class:`_ReducedDual`, at most ``max_iter`` iterations; if it
    stalls short of ``tol`` (rounding) the projections go on from where it
    stopped, at most ``max_iter`` sweeps.
    ``solver='projections'`` (and 'newton' when r(r+1)/2 > n, where the
    n-dimensional dual is the smaller one) runs the cyclic LogDet
    projections of the paper, each sweep followed by a Newton step on the
    n-dimensional dual (:func:`_newton_step`) when its cost is at most
    ``NEWTON_MAX_FLOPS``: :func:`~sklearn_bregman._engine.sweep_until_settled`
    over the compiled :func:`~sklearn_bregman._engine.correlation_sweep`, the
    state ``S^-1`` (r x r) with the duals ``t = 1 / delta`` (n); the
    convergence measure is the largest ``|K_ii - 1|`` met in a sweep, and the
    residuals the diagonal of K recomputed from the factor.  Both reach the
    same optimum.

    Returns
    -------
    UnitDiagonalResult
        ``factor`` (n x r), ``uniqueness`` (n,), ``dual`` (alpha, n),
        ``diag`` (the diagonal of K), ``n_iter``, ``converged``,
        ``divergence`` (``D_ld(K, K0)``), ``method`` ('newton',
        'newton+projections' or 'projections'); ``state`` is ``S^-1`` (r x r).
    """
    n, r = G0.shape
    W = G0 / psi0[:, None]
    t = psi0.copy()
    if r == 0:
        # K0 diagonal: the projections set K = I at once.
        t[:] = 1.0
        n_iter, converged, history, n_moved = 1, True, [0.0], n
        method = "newton"
    else:
        method = "projections"
        n_newton, newton_history = 0, []
        if solver == "newton" and r * (r + 1) // 2 <= n:
            n_newton, converged, newton_history = _newton_cg(
                W, t, psi0, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner)
            method = "newton"
            if not converged and not np.isfinite(_diagonal_error(W, t, psi0)):
                t[:] = psi0  # (stopped outside the dual's domain: start afresh)
        if method == "newton" and (converged or n_newton == max_iter):
            n_iter, history, n_moved = n_newton, newton_history, 0
            if not converged:
                err = _diagonal_error(W, t, psi0)
                where = (f"the largest diagonal error is {err:.3g}" if np.isfinite(err)
                         else "K^-1 = K0^-1 + diag(alpha) is not yet positive definite")
                warn(f"{owner} did not converge in max_iter={max_iter} Newton-CG "
                     f"iterations: {where} (tol={tol:g}). Increase max_iter, or "
                     "nugget.", ConvergenceWarning)
        else:
            # Newton-CG stalled (rounding) short of tol: the projections
            # finish from there, with their own max_iter sweeps
            n_iter, converged, history, n_moved = _projections(
                W, t, psi0, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner)
            n_iter += n_newton
            history = newton_history + history
            if method == "newton":
                method = "newton+projections"
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
        divergence=divergence, factor=F, uniqueness=t, method=method)


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
    L0 = sym_fun(K0, np.log)
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
        diag = np.diag(sym_exp(state))
        return Residuals(np.abs(diag - 1.0), np.zeros(0), tol, detail=(diag, bound))

    out = sweep_until_settled(
        run, L, nu, tol=tol, max_iter=max_iter, verbose=verbose, owner=owner,
        residuals=residuals, n_active=n, log_state=True, advice=_ADVICE,
        diverged_advice=_ADVICE,
        measure=lambda duals_old, stats: float(np.abs(nu - duals_old).max(initial=0.0)),
        measure_name="largest dual step",
        progress=lambda stats: f"{stats.n_moved} of {n} rows moved",
    )
    K = sym_exp(L)
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
        divergence=divergence, correlation=K, method="projections")
