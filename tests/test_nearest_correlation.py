"""NearestCorrelation: the compiled sweep against a dense oracle, optimality,
the von Neumann path, scale without n x n memory, and the conventions."""

import doctest
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy import linalg, optimize
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn_bregman._engine._correlation import correlation_sweep

import sklearn_bregman._engine._unit_diagonal as unit_diagonal
import sklearn_bregman._learners._nearest_correlation as nc_module
from sklearn_bregman import NearestCorrelation


def _factor_start(n, r, scale, nugget, seed):
    rng = np.random.default_rng(seed)
    G0 = rng.standard_normal((n, r)) * scale
    psi0 = np.maximum(1.0 - (G0 ** 2).sum(1), nugget)
    return G0, psi0


def _dense(G0, psi0):
    return G0 @ G0.T + np.diag(psi0)


def _oracle_sweeps(K0, n_sweeps):
    """Plain dense cyclic LogDet projections onto K_ii = 1:
    K <- K - a K e_i e_i' K / (1 + a K_ii), a = 1 - 1 / K_ii."""
    K = K0.copy()
    for _ in range(n_sweeps):
        for i in range(K.shape[0]):
            a = 1.0 - 1.0 / K[i, i]
            k = K[:, i].copy()
            K -= a * np.outer(k, k) / (1.0 + a * K[i, i])
    return K


def _sweeps(G0, psi0, n_sweeps):
    """The compiled sweep, S^-1 refreshed from t before each one (as the driver)."""
    n, r = G0.shape
    W = G0 / psi0[:, None]
    t = psi0.copy()
    Sinv = np.empty((r, r))
    order = np.arange(n, dtype=np.intp)
    for _ in range(n_sweeps):
        S = np.eye(r) + W.T @ ((psi0 - t)[:, None] * W)
        Sinv[...] = np.linalg.inv(S)
        correlation_sweep(W, t, Sinv, order)
    S = np.eye(r) + W.T @ ((psi0 - t)[:, None] * W)
    return np.diag(t) + (t[:, None] * W) @ np.linalg.inv(S) @ (t[:, None] * W).T


def ld_divergence(K, K0):
    A = K @ np.linalg.inv(K0)
    return float(np.trace(A) - np.linalg.slogdet(A)[1] - K.shape[0])


def vn_divergence(K, K0):
    def logm(A):
        w, Q = linalg.eigh(A)
        return (Q * np.log(w)) @ Q.T
    return float(np.trace(K @ logm(K) - K @ logm(K0) - K + K0))


def _pairwise_estimate(n, k, n_obs, seed, missing=0.3):
    """Correlation estimate of a factor model from pairwise-complete
    observations with missing values: indefinite in general."""
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, k)) * 0.7
    X = rng.standard_normal((n_obs, k)) @ B.T + rng.standard_normal((n_obs, n))
    X[rng.random(X.shape) < missing] = np.nan
    mask = ~np.isnan(X)
    Xz = np.where(mask, X, 0.0)
    cnt = mask.T.astype(float) @ mask
    s = Xz.T @ Xz / cnt
    m = Xz.T @ mask / cnt  # mean of column i over rows where j is observed
    ss = (Xz ** 2).T @ mask / cnt
    cov = s - m * m.T
    var_i = ss - m ** 2
    C = cov / np.sqrt(var_i * var_i.T)
    C = (C + C.T) / 2
    np.fill_diagonal(C, 1.0)
    return C


# ---------------------------------------------------------------- the compiled sweep

@pytest.mark.parametrize("r", [3, 6])
def test_compiled_sweep_matches_dense_oracle(r):
    # scale 0.6: many rows have |g_i|^2 > 1, so the projections have work to do
    G0, psi0 = _factor_start(40, r, 0.6 if r == 3 else 0.45, 0.05, seed=r)
    K0 = _dense(G0, psi0)
    for n_sweeps in (1, 5):
        K = _sweeps(G0, psi0, n_sweeps)
        assert np.abs(K - _oracle_sweeps(K0, n_sweeps)).max() < 1e-9
    # converged: the estimator and the oracle run to the end agree
    est = NearestCorrelation(input="factor", nugget=0.05).fit(G0)
    assert est.converged_
    K = est.factor_ @ est.factor_.T + np.diag(est.uniqueness_)
    assert np.abs(K - _oracle_sweeps(K0, 3000)).max() < 1e-9


def test_sweep_reports_the_largest_error_before_projecting():
    G0, psi0 = _factor_start(30, 4, 0.6, 0.05, seed=1)
    K = _dense(G0, psi0)
    errors = []
    for i in range(30):  # the oracle's sweep, recording |K_ii - 1| before each step
        errors.append(abs(K[i, i] - 1.0))
        a = 1.0 - 1.0 / K[i, i]
        k = K[:, i].copy()
        K -= a * np.outer(k, k) / (1.0 + a * K[i, i])
    W = G0 / psi0[:, None]
    t = psi0.copy()
    worst, moved = correlation_sweep(W, t, np.eye(4), np.arange(30, dtype=np.intp))
    assert worst == pytest.approx(max(errors), rel=1e-12)
    # rows already on the unit diagonal (psi0 = 1 - |g_i|^2) are met to the
    # last bit or to one rounding, depending on the BLAS that formed K: they
    # may or may not count as moved; every other row moves
    errors = np.array(errors)
    assert np.count_nonzero(errors > 1e-14) <= moved <= errors.size


# ---------------------------------------------------------------- the result

@pytest.mark.parametrize("rank", [None, 5])
def test_unit_diagonal_psd_repeatable(rank):
    C = _pairwise_estimate(80, 4, 60, seed=0)
    assert np.linalg.eigvalsh(C)[0] < -1e-3  # indefinite
    with pytest.warns(UserWarning, match="not positive semidefinite"):
        est = NearestCorrelation(rank=rank).fit(C)
    assert est.converged_ and est.max_diagonal_error_ <= 1e-10
    K = est.correlation_
    assert np.abs(np.diag(K) - 1).max() < 1e-8
    assert np.linalg.eigvalsh(K)[0] >= -1e-12
    assert np.all(est.uniqueness_ > 0) and est.factor_.shape == (80, est.rank_)
    assert np.allclose(est.uniqueness_ + (est.factor_ ** 2).sum(1), 1.0, atol=1e-10)
    assert np.allclose(K, est.factor_ @ est.factor_.T + np.diag(est.uniqueness_))
    w = np.linalg.eigvalsh(C)
    assert est.negative_mass_ == pytest.approx(-w[w < 0].sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        again = NearestCorrelation(rank=rank).fit(C)
    assert np.array_equal(again.correlation_, K)


def test_logdet_optimality_and_kkt():
    G0, psi0 = _factor_start(12, 3, 0.6, 0.05, seed=3)
    assert np.any((G0 ** 2).sum(1) > 1)  # K0 is not a correlation matrix
    K0 = _dense(G0, psi0)
    est = NearestCorrelation(input="factor", nugget=0.05).fit(G0)
    K = est.factor_ @ est.factor_.T + np.diag(est.uniqueness_)
    D = ld_divergence(K, K0)
    assert est.divergence_ == pytest.approx(D, rel=1e-9)
    # KKT: K^-1 - K0^-1 is diagonal, and equals diag(dual_coef_)
    E = np.linalg.inv(K) - np.linalg.inv(K0)
    off = E - np.diag(np.diag(E))
    assert np.abs(off).max() <= 1e-8 * np.abs(E).max()
    assert np.allclose(np.diag(E), est.dual_coef_, rtol=1e-8, atol=1e-8)
    # feasible points are no nearer: the rescaled start and its mixtures with I
    d = 1.0 / np.sqrt(np.diag(K0))
    X = d[:, None] * K0 * d
    for s in (0.0, 0.1, 0.5, 0.9):
        assert D <= ld_divergence((1 - s) * X + s * np.eye(12), K0) + 1e-10
    # ... and the Frobenius-nearest correlation matrix (Higham / statsmodels)
    # to K0 with its diagonal set to 1 (indefinite), kept positive definite by
    # the eigenvalue threshold
    correlation_tools = pytest.importorskip("statsmodels.stats.correlation_tools")
    C1 = K0.copy()
    np.fill_diagonal(C1, 1.0)
    assert np.linalg.eigvalsh(C1)[0] < 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (its iteration limit; the checks below hold)
        H = correlation_tools.corr_nearest(C1, threshold=1e-3, n_fact=1000)
    H = (H + H.T) / 2
    assert np.abs(np.diag(H) - 1).max() < 1e-8 and np.linalg.eigvalsh(H)[0] > 0
    assert D < ld_divergence(H, K0)
    # and a small random perturbation along the feasible set does not help
    rng = np.random.default_rng(0)
    for _ in range(5):
        P = rng.standard_normal((12, 12)) * 1e-3
        P = (P + P.T) / 2
        np.fill_diagonal(P, 0.0)
        assert D <= ld_divergence(K + P, K0) + 1e-12


def test_start_that_is_already_a_correlation_matrix_is_kept():
    G0, _ = _factor_start(50, 3, 0.3, 1e-3, seed=4)
    G0 /= np.maximum(1.0, np.linalg.norm(G0, axis=1) * 1.1)[:, None]
    est = NearestCorrelation(input="factor").fit(G0)
    assert est.converged_ and est.divergence_ == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(est.factor_ @ est.factor_.T + np.diag(est.uniqueness_),
                       G0 @ G0.T + np.diag(1 - (G0 ** 2).sum(1)))


def test_projections_alone_reach_the_same_optimum(monkeypatch):
    # the Newton step on the dual only accelerates: without it (its cost above
    # NEWTON_MAX_FLOPS) the sweeps reach the same K
    G0, _ = _factor_start(40, 3, 0.6, 0.05, seed=5)
    with_newton = NearestCorrelation(input="factor", nugget=0.05,
                                     solver="projections").fit(G0)
    monkeypatch.setattr(unit_diagonal, "NEWTON_MAX_FLOPS", 0)
    alone = NearestCorrelation(input="factor", nugget=0.05, max_iter=5000,
                               solver="projections").fit(G0)
    assert alone.converged_ and alone.n_iter_ > with_newton.n_iter_
    K1 = with_newton.factor_ @ with_newton.factor_.T + np.diag(with_newton.uniqueness_)
    K2 = alone.factor_ @ alone.factor_.T + np.diag(alone.uniqueness_)
    assert np.abs(K1 - K2).max() < 1e-9


# ---------------------------------------------------------------- Newton-CG on the dual

def _reduced_h_oracle(N, G0, psi0):
    """h(N) of _ReducedDual written from its definition, in plain NumPy: the
    n-dimensional dual maximised row by row (scipy's bounded scalar search)."""
    W = G0 / psi0[:, None]
    S0 = np.eye(G0.shape[1]) + W.T @ (W * psi0[:, None])
    total = 0.0
    for w in W:
        c = w @ N @ w
        res = optimize.minimize_scalar(lambda d, c=c: -(np.log(d) - d - c / d),
                                       bounds=(1e-9, 1e6), method="bounded",
                                       options=dict(xatol=1e-12))
        total += -res.fun
    return total + np.sum(S0 * N) - np.linalg.slogdet(N)[1]


def test_start_is_the_best_multiple_of_the_identity():
    G0, psi0 = _factor_start(200, 4, 0.6, 1e-3, seed=23)
    dual = unit_diagonal._ReducedDual(G0 / psi0[:, None], psi0)
    s = dual.best_multiple_of_identity()
    h = dual.value(s * np.eye(4))[0]
    assert h < dual.value(s * 1.01 * np.eye(4))[0] and h < dual.value(s / 1.01 * np.eye(4))[0]
    # no row capped: N = I is the optimum itself
    G0, psi0 = _factor_start(200, 4, 0.2, 1e-3, seed=23)
    assert np.all((G0 ** 2).sum(1) < 1)
    dual = unit_diagonal._ReducedDual(G0 / psi0[:, None], psi0)
    assert dual.best_multiple_of_identity() == pytest.approx(1.0, rel=1e-9)


def test_reduced_dual_value_gradient_and_hessian_against_oracles():
    G0, psi0 = _factor_start(30, 4, 0.6, 0.05, seed=21)
    W = G0 / psi0[:, None]
    dual = unit_diagonal._ReducedDual(W, psi0)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 4))
    N = np.eye(4) + 0.1 * (A @ A.T)
    h, delta, _ = dual.value(N)
    assert h == pytest.approx(_reduced_h_oracle(N, G0, psi0), rel=1e-9)
    # each row's unit diagonal: 1 / delta + c / delta^2 = 1
    c = np.einsum("ij,jk,ik->i", W, N, W)
    assert np.allclose(1 / delta + c / delta ** 2, 1.0, atol=1e-13)
    G, Ninv, curvature = dual.gradient(N, delta)
    V = rng.standard_normal((4, 4))
    V = (V + V.T) / 2
    eps = 1e-6
    hp, dp, _ = dual.value(N + eps * V)
    hm, dm, _ = dual.value(N - eps * V)
    assert np.sum(G * V) == pytest.approx((hp - hm) / (2 * eps), rel=1e-6)
    Gp, _, _ = dual.gradient(N + eps * V, dp)
    Gm, _, _ = dual.gradient(N - eps * V, dm)
    HV = dual.hessian_product(V, Ninv, curvature)
    assert np.allclose(HV, (Gp - Gm) / (2 * eps), rtol=1e-6, atol=1e-6)
    # the preconditioner is the Hessian's diagonal in the orthonormal basis
    D = dual.hessian_diagonal(Ninv, curvature)
    for a in range(4):
        for b in range(a, 4):
            E = np.zeros((4, 4))
            E[a, b] = E[b, a] = 1.0 if a == b else 1 / np.sqrt(2)
            assert D[a, b] == pytest.approx(np.sum(E * dual.hessian_product(E, Ninv,
                                                                          curvature)))


def test_cg_direction_solves_the_newton_system():
    G0, psi0 = _factor_start(60, 5, 0.6, 0.05, seed=22)
    W = G0 / psi0[:, None]
    dual = unit_diagonal._ReducedDual(W, psi0)
    rng = np.random.default_rng(1)
    A = rng.standard_normal((5, 5))
    N = 0.5 * np.eye(5) + 0.05 * (A @ A.T)  # not I: the congruence N = L U L' matters
    _, delta, _ = dual.value(N)
    G, Ninv, curvature = dual.gradient(N, delta)
    V, steps = unit_diagonal._newton_cg_direction(dual, G, N, curvature, eta=1e-12)
    assert steps <= 30  # r(r+1)/2 = 15 in exact arithmetic
    assert np.allclose(dual.hessian_product(V, Ninv, curvature), G, atol=1e-9 * abs(G).max())
    # the explicit Hessian in the upper-triangle coordinates, solved densely
    a, b = np.triu_indices(5)
    H = np.empty((a.size, a.size))
    for k in range(a.size):
        E = np.zeros((5, 5))
        E[a[k], b[k]] = E[b[k], a[k]] = 1.0
        HE = dual.hessian_product(E, Ninv, curvature)
        H[:, k] = np.where(a == b, 1.0, 2.0) * HE[a, b]
    x = np.linalg.solve(H, np.where(a == b, 1.0, 2.0) * G[a, b])
    assert np.allclose(V[a, b], x, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_newton_and_projections_reach_the_same_optimum(seed):
    # a hard start: about a third of the rows have |g_i| > 1 (psi0 at the nugget)
    G0, _ = _factor_start(300, 4, 0.6, 1e-3, seed=seed)
    assert np.count_nonzero((G0 ** 2).sum(1) > 1) > 50
    newton = NearestCorrelation(input="factor", solver="newton").fit(G0)
    proj = NearestCorrelation(input="factor", solver="projections").fit(G0)
    assert newton.converged_ and proj.converged_
    assert newton.solver_ == "newton" and proj.solver_ == "projections"
    K1 = newton.factor_ @ newton.factor_.T + np.diag(newton.uniqueness_)
    K2 = proj.factor_ @ proj.factor_.T + np.diag(proj.uniqueness_)
    assert np.abs(K1 - K2).max() < 1e-9
    assert np.allclose(newton.dual_coef_, proj.dual_coef_, rtol=1e-7, atol=1e-7)
    assert newton.divergence_ == pytest.approx(proj.divergence_, rel=1e-9)
    # optimality, densely: K^-1 - K0^-1 is diagonal
    K0 = G0 @ G0.T + np.diag(np.maximum(1 - (G0 ** 2).sum(1), 1e-3))
    E = np.linalg.inv(K1) - np.linalg.inv(K0)
    assert np.abs(E - np.diag(np.diag(E))).max() < 1e-6 * np.abs(E).max()
    assert newton.n_iter_ < 30


def test_newton_stopped_short_is_finished_by_the_projections(monkeypatch):
    G0, _ = _factor_start(200, 3, 0.6, 1e-3, seed=8)
    ref = NearestCorrelation(input="factor", solver="projections").fit(G0)
    real = unit_diagonal._newton_cg

    def two_iterations(W, t, psi0, **kw):
        # as if it had stalled after two iterations
        n_iter, _, history = real(W, t, psi0, **{**kw, "max_iter": 2})
        return n_iter, False, history

    monkeypatch.setattr(unit_diagonal, "_newton_cg", two_iterations)
    est = NearestCorrelation(input="factor").fit(G0)
    assert est.converged_ and est.solver_ == "newton+projections" and est.n_iter_ > 2
    assert np.abs(est.uniqueness_ - ref.uniqueness_).max() < 1e-9


def test_newton_is_refused_for_von_neumann():
    with pytest.raises(ValueError, match="solver='newton'.*LogDet"):
        NearestCorrelation("vonneumann", solver="newton").fit(np.eye(3))
    assert NearestCorrelation("vonneumann").fit(2 * np.eye(3)).solver_ == "projections"


# ---------------------------------------------------------------- von Neumann

def _vn_oracle(K0):
    """Dense dual ascent: maximise -tr exp(log K0 - diag a) - sum a (L-BFGS)."""
    w, Q = linalg.eigh(K0)
    L0 = (Q * np.log(w)) @ Q.T

    def f(a):
        lam, V = linalg.eigh(L0 - np.diag(a))
        K = (V * np.exp(lam)) @ V.T
        return np.trace(K) + a.sum(), 1.0 - np.diag(K)

    res = optimize.minimize(f, np.zeros(K0.shape[0]), jac=True, method="L-BFGS-B",
                            options=dict(gtol=1e-13, ftol=1e-15, maxiter=5000))
    lam, V = linalg.eigh(L0 - np.diag(res.x))
    return (V * np.exp(lam)) @ V.T, L0


def test_vonneumann_against_dense_oracle():
    G0, psi0 = _factor_start(15, 3, 0.6, 0.05, seed=6)
    K0 = _dense(G0, psi0)
    est = NearestCorrelation("vonneumann", input="factor", nugget=0.05).fit(G0)
    K = est.correlation_
    assert est.converged_ and np.abs(np.diag(K) - 1).max() < 1e-8
    assert not hasattr(est, "factor_")
    # optimality: log K - log K0 is diagonal, -diag(dual_coef_)
    w, Q = linalg.eigh(K)
    E = (Q * np.log(w)) @ Q.T - linalg.logm(K0).real
    assert np.abs(E - np.diag(np.diag(E))).max() < 1e-8
    assert np.allclose(-np.diag(E), est.dual_coef_, atol=1e-8)
    K_star, _ = _vn_oracle(K0)
    assert np.abs(K - K_star).max() < 1e-6
    assert est.divergence_ == pytest.approx(vn_divergence(K, K0), rel=1e-8)
    d = 1.0 / np.sqrt(np.diag(K0))
    assert est.divergence_ <= vn_divergence(d[:, None] * K0 * d, K0)
    # not the LogDet solution
    ld = NearestCorrelation(input="factor", nugget=0.05).fit(G0)
    assert np.abs(ld.factor_ @ ld.factor_.T + np.diag(ld.uniqueness_) - K).max() > 1e-4


@pytest.mark.parametrize("solver", ["projections", "newton"])
def test_logdet_start_singular_in_double_precision_is_refused_naming_nugget(solver):
    # a rank-one C whose variances span 1e-6 to 1e2, with nugget=1e-20: the
    # start's capacitance lost its Cholesky factor mid-run (scipy's
    # LinAlgError "1-th leading minor ..."); the message names nugget now,
    # and the failed call leaves the earlier fit as it was
    rng = np.random.RandomState(0)
    a = np.r_[np.full(12, 10.0), np.full(12, 1e-3)] * rng.randn(24)
    C = np.outer(a, a)
    est = NearestCorrelation(nugget=1e-3, solver=solver).fit(C)
    before = est.correlation_.copy()
    with pytest.raises(ValueError, match=r"divergence='logdet': the start .* \(from "
                                         r"nugget=1e-20\).* Raise nugget"):
        est.set_params(nugget=1e-20).fit(C)
    np.testing.assert_array_equal(est.correlation_, before)


def test_vonneumann_start_of_any_scale():
    # log(t K0) = log K0 + log(t) I: the solution from t K0 is the one from K0,
    # with the duals shifted by log t.  A start far above a unit diagonal
    # (here K_ii ~ 1e4, as scikit-learn's checks pass) asked for first
    # projections beyond double precision: the run stopped at the start.
    # C's mean diagonal is above 1, so the nugget floor scales with it and
    # the start of t C is t times the start of C for t >= 1.
    rng = np.random.default_rng(11)
    X = rng.normal(loc=1.0, size=(30, 2))
    C = X @ X.T
    floor = 1e-3 * np.mean(np.diag(C))
    assert floor > 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ref = NearestCorrelation("vonneumann").fit(C)
        for t in (10.0, 1e4):
            est = NearestCorrelation("vonneumann").fit(t * C)
            assert est.converged_ and est.max_diagonal_error_ <= est.tol
            assert np.abs(est.correlation_ - ref.correlation_).max() < 1e-8
            assert np.allclose(est.dual_coef_, ref.dual_coef_ + np.log(t), atol=1e-8)
            K0 = t * (C + floor * np.eye(30))  # (psi0 at the floor: C has rank 2)
            assert est.divergence_ == pytest.approx(vn_divergence(est.correlation_, K0),
                                                    rel=1e-8)
        small = NearestCorrelation("vonneumann").fit(1e-3 * C)
        assert small.converged_ and small.max_diagonal_error_ <= small.tol


# ---------------------------------------------------------------- scale

def test_factor_input_at_scale_without_n_by_n_memory():
    n, r = 20_000, 10
    G0, _ = _factor_start(n, r, 0.2, 1e-3, seed=7)
    assert np.count_nonzero((G0 ** 2).sum(1) > 1) > 50  # rows to project
    tracemalloc.start()
    try:
        est = NearestCorrelation(input="factor").fit(G0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert est.converged_
    diag = est.uniqueness_ + np.einsum("ij,ij->i", est.factor_, est.factor_)
    assert np.abs(diag - 1).max() < 1e-8
    assert np.all(est.uniqueness_ > 0) and est.factor_.shape == (n, r)
    assert not hasattr(est, "correlation_")
    assert peak < 0.01 * n * n * 8  # 32 MB; one n x n array would be 3.2 GB


# ---------------------------------------------------------------- errors and conventions

def test_errors_name_the_input_or_parameter():
    C = np.eye(4)
    with pytest.raises(ValueError, match="square"):
        NearestCorrelation().fit(np.ones((4, 3)))
    bad = C.copy()
    bad[0, 1] = 0.5
    with pytest.raises(ValueError, match="symmetric"):
        NearestCorrelation().fit(bad)
    bad = C.copy()
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match="C contains NaN"):
        NearestCorrelation().fit(bad)
    bad[1, 1] = np.inf
    with pytest.raises(ValueError, match="C contains inf"):
        NearestCorrelation().fit(bad)
    with pytest.raises(ValueError, match="'divergence' parameter"):
        NearestCorrelation(divergence="euclidean").fit(C)
    with pytest.raises(ValueError, match="rank=5 exceeds n=4"):
        NearestCorrelation(rank=5).fit(C)
    with pytest.raises(ValueError, match="rank=2 with input='factor'"):
        NearestCorrelation(rank=2, input="factor").fit(np.ones((4, 3)) * 0.1)
    with pytest.raises(ValueError, match="'nugget' parameter"):
        NearestCorrelation(nugget=0.0).fit(C)
    big = np.full((nc_module.VONNEUMANN_MAX_N + 1, 1), 0.1)
    with pytest.raises(ValueError, match=r"divergence='vonneumann'.*n=2001"):
        NearestCorrelation("vonneumann", input="factor").fit(big)


def test_unfinished_run_warns_with_the_error_and_the_remedy(monkeypatch):
    monkeypatch.setattr(unit_diagonal, "NEWTON_MAX_FLOPS", 0)
    G0, _ = _factor_start(40, 3, 0.6, 1e-3, seed=8)
    with pytest.warns(ConvergenceWarning, match=r"max_iter=3.*largest by.*nugget"):
        est = NearestCorrelation(input="factor", max_iter=3, solver="projections").fit(G0)
    assert not est.converged_ and est.max_diagonal_error_ > est.tol
    with pytest.warns(ConvergenceWarning, match=r"max_iter=2 Newton-CG.*nugget"):
        est = NearestCorrelation(input="factor", max_iter=2).fit(G0)
    assert not est.converged_ and est.max_diagonal_error_ > est.tol
    assert est.solver_ == "newton" and est.n_iter_ == 2


def test_get_params_clone_pickle():
    est = NearestCorrelation("vonneumann", rank=3, nugget=0.01, tol=1e-9)
    assert clone(est).get_params() == est.get_params()
    C = _pairwise_estimate(30, 2, 200, seed=9, missing=0.0)
    fitted = NearestCorrelation(rank=3).fit(C)
    again = pickle.loads(pickle.dumps(fitted))
    assert np.array_equal(again.correlation_, fitted.correlation_)
    assert again.n_features_in_ == 30


def test_dataframe_column_names():
    pd = pytest.importorskip("pandas")
    C = _pairwise_estimate(6, 2, 200, seed=10, missing=0.0)
    names = [f"v{i}" for i in range(6)]
    est = NearestCorrelation().fit(pd.DataFrame(C, index=names, columns=names))
    assert list(est.feature_names_in_) == names and est.n_features_in_ == 6
    assert np.array_equal(est.correlation_, NearestCorrelation().fit(C).correlation_)
    assert not hasattr(est.fit(C), "feature_names_in_")  # a refit forgets them


def test_docstring_examples():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        result = doctest.testmod(nc_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_vonneumann_size_limit_is_checked_before_any_cubic_work(monkeypatch):
    import sklearn_bregman._learners._nearest_correlation as module

    monkeypatch.setattr(module, "VONNEUMANN_MAX_N", 10)

    def refuse(*args, **kwargs):  # pragma: no cover - the failure mode
        raise AssertionError("an eigendecomposition ran before the size check")

    monkeypatch.setattr(module.linalg, "eigh", refuse)
    monkeypatch.setattr(module.linalg, "eigvalsh", refuse)
    C = np.corrcoef(np.random.default_rng(0).normal(size=(13, 40)))
    with pytest.raises(ValueError, match="limited to n <= 10; got n=13"):
        NearestCorrelation("vonneumann").fit(C)


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann", "frobenius"])
@pytest.mark.parametrize("nugget", [1e-8, 1e-3])
def test_a_correlation_matrix_comes_back_at_once(divergence, nugget):
    from sklearn.datasets import load_wine

    X, _ = load_wine(return_X_y=True)
    for C in (np.eye(4), np.corrcoef(X.T)):
        kw = {} if divergence == "frobenius" else {"nugget": nugget}
        nc = NearestCorrelation(divergence, **kw).fit(C)
        assert nc.converged_ and nc.n_iter_ == 0
        np.testing.assert_allclose(nc.correlation_, C, atol=1e-14)
        if divergence == "logdet":
            K = nc.factor_ @ nc.factor_.T + np.diag(nc.uniqueness_)
            np.testing.assert_allclose(K, C, atol=1e-12)
            assert nc.solver_ == "none" and np.all(nc.uniqueness_ >= 0)


@pytest.mark.filterwarnings("ignore:C is not positive semidefinite:UserWarning")
def test_a_stalled_run_stops_and_says_why():
    # a tiny nugget puts the projections' rounding floor (about eps / nugget)
    # above tol: they stop after 50 sweeps without progress, not 1000
    from sklearn.datasets import load_wine

    X, _ = load_wine(return_X_y=True)
    C = np.corrcoef(X.T)
    C[0, 1] = C[1, 0] = 0.99
    C[0, 2] = C[2, 0] = -0.99
    C[1, 2] = C[2, 1] = 0.99
    with pytest.warns(ConvergenceWarning, match="stalled at .* Use a larger nugget or tol"):
        nc = NearestCorrelation(nugget=1e-8, tol=1e-10).fit(C)
    assert not nc.converged_ and nc.n_iter_ < 200
    nc = NearestCorrelation(nugget=1e-3, tol=1e-10).fit(C)
    assert nc.converged_


@pytest.mark.parametrize("scale", [1e-20, 1e-8, 1e8, 1e50, 1e140])
def test_the_start_scales_with_c(scale):
    # the nugget is relative to C's mean diagonal: the LogDet solution from
    # s C is computed as well as from C, on any representable scale
    C = np.array([[1.0, 0.9, 0.7], [0.9, 1.0, 0.3], [0.7, 0.3, 1.0]])
    C[0, 2] = C[2, 0] = -0.6  # indefinite
    with pytest.warns(UserWarning, match="C is not positive semidefinite"):
        ref = NearestCorrelation().fit(C)
    with pytest.warns(UserWarning, match="C is not positive semidefinite"):
        nc = NearestCorrelation().fit(scale * C)
    assert nc.converged_
    assert np.abs(np.diag(nc.correlation_) - 1).max() <= 1e-10
    assert np.linalg.eigvalsh(nc.correlation_).min() > 0
    assert ref.converged_


@pytest.mark.parametrize("divergence, input, scale, what", [
    ("logdet", "matrix", 1e300, "input='matrix'"),
    ("vonneumann", "matrix", 1e200, "input='matrix'"),
    ("logdet", "factor", 1e200, "input='factor'"),
    ("frobenius", "matrix", 1e20, "divergence='frobenius'")])
def test_scales_beyond_double_precision_are_refused_naming_the_scale(divergence, input,
                                                                     scale, what):
    rng = np.random.default_rng(0)
    C = np.corrcoef(rng.normal(size=(6, 20))) if input == "matrix" else rng.normal(
        size=(6, 2))
    with pytest.raises(ValueError, match=f"C's entries reach .*beyond what {what}"):
        NearestCorrelation(divergence, input=input).fit(scale * C)
