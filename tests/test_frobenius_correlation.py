"""NearestCorrelation(divergence='frobenius'): Qi & Sun's Newton method on the
dual against dense oracles (the KKT conditions, Higham's alternating
projections with Dykstra's correction, the generalised Jacobian), the inputs
that are already correlation matrices, the errors, and the conventions."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import sklearn_bregman._engine._frobenius as frobenius
import sklearn_bregman._learners._nearest_correlation as nc_module
from sklearn_bregman import NearestCorrelation
from tests.oracles import frobenius_jacobian_reference, higham_dykstra_reference


def uniform_unit_diagonal(n, seed):
    """Symmetric, unit diagonal, off-diagonal entries uniform in [-1, 1]
    (upper triangle drawn, mirrored): indefinite."""
    rng = np.random.default_rng(seed)
    U = np.triu(rng.uniform(-1.0, 1.0, (n, n)), 1)
    C = U + U.T
    np.fill_diagonal(C, 1.0)
    return C


def pairwise_complete(n, seed, k=4, n_obs=60, missing=0.3):
    """Pairwise-complete correlation estimate of a k-factor model with
    missing values (each pair from the rows where both are observed):
    unit diagonal, indefinite in general."""
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, k)) * 0.7
    X = rng.standard_normal((n_obs, k)) @ B.T + rng.standard_normal((n_obs, n))
    mask = rng.random(X.shape) >= missing
    Xz = np.where(mask, X, 0.0)
    Mf = mask.astype(float)
    cnt = Mf.T @ Mf
    m = Xz.T @ Mf / cnt  # mean of i over the rows where j is observed too
    cov = Xz.T @ Xz / cnt - m * m.T
    var = (Xz ** 2).T @ Mf / cnt - m ** 2
    C = cov / np.sqrt(var * var.T)
    C = (C + C.T) / 2
    np.fill_diagonal(C, 1.0)
    return C


def make(kind, n, seed):
    C = uniform_unit_diagonal(n, seed) if kind == "uniform" else pairwise_complete(n, seed)
    assert np.linalg.eigvalsh(C)[0] < -1e-3  # indefinite: work to do
    return C


def weights_for(n, seed):
    return np.random.default_rng(seed + 100).uniform(0.25, 4.0, n)


def kkt_matrix(C, w, eig_min, y):
    """``eig_min I + W^-1/2 Pi(W^1/2 C W^1/2 - eig_min W + diag y) W^-1/2``."""
    n = C.shape[0]
    w = np.ones(n) if w is None else w
    sw = np.sqrt(w)
    M = sw[:, None] * C * sw[None, :] - eig_min * np.diag(w) + np.diag(y)
    lam, P = np.linalg.eigh(M)
    Z = (P * np.maximum(lam, 0.0)) @ P.T
    return eig_min * np.eye(n) + Z / sw[:, None] / sw[None, :]


def objective(X, C, w):
    sw = np.ones(C.shape[0]) if w is None else np.sqrt(w)
    E = sw[:, None] * (X - C) * sw[None, :]
    return 0.5 * float(np.sum(E * E))


def feasible_rescaled(Z, eig_min):
    """A feasible point from a PSD Z: ``eig_min I + D Z D`` with D making the
    diagonal ``1 - eig_min``."""
    d = np.sqrt((1.0 - eig_min) / np.diag(Z))
    return eig_min * np.eye(Z.shape[0]) + d[:, None] * Z * d[None, :]


CASES = [("uniform", 30, 0), ("uniform", 120, 1), ("pairwise", 80, 2),
         ("pairwise", 200, 3)]


# ---------------------------------------------------------------- optimality

@pytest.mark.parametrize("eig_min", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True], ids=["W=I", "weighted"])
@pytest.mark.parametrize("kind,n,seed", CASES)
def test_kkt_conditions(kind, n, seed, weighted, eig_min):
    C = make(kind, n, seed)
    w = weights_for(n, seed) if weighted else None
    est = NearestCorrelation("frobenius", weights=w, eig_min=eig_min).fit(C)
    assert est.converged_ and est.solver_ == "newton" and 1 <= est.n_iter_ < 40
    X = est.correlation_
    assert np.array_equal(X, X.T)
    assert np.abs(np.diag(X) - 1.0).max() <= 1e-9
    assert est.max_diagonal_error_ == np.abs(np.diag(X) - 1.0).max() <= est.tol
    # X is the primal point of the dual's y
    assert np.abs(X - kkt_matrix(C, w, eig_min, est.dual_coef_)).max() <= 1e-9 * np.abs(X).max()
    lam = np.linalg.eigvalsh(X)
    assert lam[0] >= eig_min - 1e-12
    assert est.min_eigenvalue_ == pytest.approx(eig_min) and est.min_eigenvalue_ <= lam[0] + 1e-9
    # on the boundary of the cone: X - eig_min I has rank rank_ < n
    assert est.rank_ < n
    assert est.rank_ == np.count_nonzero(lam - eig_min > 1e-8)
    assert est.divergence_ == pytest.approx(objective(X, C, w), rel=1e-12)


@pytest.mark.parametrize("eig_min", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True], ids=["W=I", "weighted"])
@pytest.mark.parametrize("kind,n,seed", [("uniform", 40, 4), ("pairwise", 50, 5)])
def test_same_as_higham_dykstra_reference(kind, n, seed, weighted, eig_min):
    C = make(kind, n, seed)
    w = weights_for(n, seed) if weighted else None
    X_ref, iterates = higham_dykstra_reference(C, w, eig_min, tol=1e-13)
    assert np.abs(np.diag(X_ref) - 1).max() <= 1e-13  # (the oracle converged)
    est = NearestCorrelation("frobenius", weights=w, eig_min=eig_min).fit(C)
    assert np.abs(est.correlation_ - X_ref).max() <= 1e-7
    # the package's own projections (the dual form) reach it too
    proj = NearestCorrelation("frobenius", weights=w, eig_min=eig_min, solver="projections",
                              max_iter=20000).fit(C)
    assert proj.converged_ and proj.solver_ == "projections"
    assert proj.n_iter_ > est.n_iter_
    assert np.abs(proj.correlation_ - est.correlation_).max() <= 1e-8
    assert np.abs(proj.correlation_ - kkt_matrix(C, w, eig_min, proj.dual_coef_)).max() <= 1e-9
    # no feasible point is nearer: the oracle's iterates rescaled to the
    # constraints, and C's eigenvalues clipped at several levels, rescaled
    best = objective(est.correlation_, C, w)
    for X in iterates[::max(1, len(iterates) // 20)]:
        Z = X - eig_min * np.eye(n)
        assert best <= objective(feasible_rescaled(Z, eig_min), C, w) + 1e-9
    lam, P = np.linalg.eigh(C)
    for floor in (0.0, 1e-3, 0.05, 0.2):
        Z = (P * np.maximum(lam - eig_min, floor)) @ P.T
        assert best <= objective(feasible_rescaled(Z, eig_min), C, w) + 1e-9
    assert best < objective(feasible_rescaled(np.eye(n), eig_min), C, w)


def test_start_with_another_diagonal():
    # C's diagonal is not 1 (a covariance-like input): the start sets it
    rng = np.random.default_rng(6)
    A = rng.standard_normal((40, 40))
    C = 3.0 * (A + A.T) + np.diag(rng.uniform(0, 10, 40))
    est = NearestCorrelation("frobenius").fit(C)
    assert est.converged_ and est.max_diagonal_error_ <= 1e-10
    X_ref, _ = higham_dykstra_reference(C, tol=1e-13)
    assert np.abs(est.correlation_ - X_ref).max() <= 1e-7


def test_statsmodels_corr_nearest_agrees():
    correlation_tools = pytest.importorskip("statsmodels.stats.correlation_tools")
    C = uniform_unit_diagonal(30, 7)
    est = NearestCorrelation("frobenius").fit(C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (its iteration limit: it has no tolerance)
        H = correlation_tools.corr_nearest(C, threshold=0.0, n_fact=100)
    assert np.abs(est.correlation_ - H).max() < 1e-5


# ---------------------------------------------------------------- the Newton step

def _spectrum(G, y):
    n = y.size
    return frobenius._Spectrum(G, np.diag(G).copy(), np.ones(n), y.copy())


@pytest.mark.parametrize("shift", [-1.5, 0.0, 1.5], ids=["few positive", "half", "many"])
def test_hessian_product_and_diagonal_against_dense_oracle(shift):
    n = 30
    G = uniform_unit_diagonal(n, 8)
    y = np.random.default_rng(9).standard_normal(n) * 0.3 + shift
    spec = _spectrum(G, y)
    assert 0 < spec.r < n
    # (both forms of the product: r <= n / 2 and the complement)
    V = frobenius_jacobian_reference(G, y)
    rng = np.random.default_rng(10)
    for _ in range(3):
        h = rng.standard_normal(n)
        assert np.allclose(spec.hessian_product(h), V @ h, rtol=0, atol=1e-12 * np.abs(V).sum())
    assert np.allclose(spec.hessian_diagonal(), np.diag(V), rtol=0, atol=1e-13)
    # V is the derivative of F where no eigenvalue is 0 (central differences)
    h = rng.standard_normal(n)
    eps = 1e-6
    Fp = _spectrum(G, y + eps * h).diag_z
    Fm = _spectrum(G, y - eps * h).diag_z
    assert np.allclose((Fp - Fm) / (2 * eps), V @ h, rtol=0, atol=1e-6)
    # V is symmetric positive semidefinite with eigenvalues in [0, 1]
    ev = np.linalg.eigvalsh((V + V.T) / 2)
    assert np.allclose(V, V.T, atol=1e-13) and ev[0] >= -1e-12 and ev[-1] <= 1 + 1e-12


def test_all_positive_or_none_positive():
    n = 12
    G = uniform_unit_diagonal(n, 11)
    h = np.random.default_rng(12).standard_normal(n)
    up = _spectrum(G, np.full(n, 100.0))
    assert up.r == n and np.allclose(up.hessian_product(h), h)
    assert np.allclose(up.hessian_diagonal(), 1.0)
    down = _spectrum(G, np.full(n, -100.0))
    assert down.r == 0 and np.all(down.hessian_product(h) == 0)
    assert np.all(down.hessian_diagonal() == 0)


def test_conjugate_gradients_solve_the_newton_system():
    n = 40
    G = uniform_unit_diagonal(n, 13)
    y = np.random.default_rng(14).standard_normal(n) * 0.3
    spec = _spectrum(G, y)
    V = frobenius_jacobian_reference(G, y)
    rhs = np.random.default_rng(15).standard_normal(n)
    mu = 1e-3
    d, steps = frobenius._pcg(spec, rhs, mu, 1e-12 * np.linalg.norm(rhs), 4 * n)
    assert 1 <= steps <= 4 * n
    A = V + mu * np.eye(n)
    assert np.allclose(A @ d, rhs, rtol=0, atol=1e-10)
    assert np.allclose(d, np.linalg.solve(A, rhs), rtol=1e-8, atol=1e-8)
    # the forcing term: a loose tolerance stops earlier with that residual
    d, loose = frobenius._pcg(spec, rhs, mu, 1e-2 * np.linalg.norm(rhs), 4 * n)
    assert loose < steps
    assert np.linalg.norm(A @ d - rhs) <= 1e-2 * np.linalg.norm(rhs) * (1 + 1e-8)


def test_newton_converges_quadratically():
    C = uniform_unit_diagonal(150, 16)
    _, _, history = frobenius._newton(
        C, np.ones(150), np.ones(150), np.ones(150), np.zeros(150), tol=1e-14,
        max_iter=50, verbose=0, owner="test")
    errors = np.array(history)
    assert errors[-1] <= 1e-13 and len(errors) < 15
    # the last steps: e_{k+1} <= c e_k^2 once e_k is small
    small = np.nonzero(errors[:-1] < 1e-2)[0]
    assert small.size >= 2
    for k in small[:-1]:
        assert errors[k + 1] <= 10.0 * errors[k] ** 2 + 1e-13


# ---------------------------------------------------------------- already correlation matrices

@pytest.mark.parametrize("solver", ["auto", "projections"])
def test_correlation_matrices_come_back_at_once(solver):
    rng = np.random.default_rng(17)
    data = rng.standard_normal((20, 8)) @ rng.standard_normal((8, 8))
    few = rng.standard_normal((5, 12))  # 5 observations of 12 variables: singular
    for C, kw in [(np.eye(9), {}), (np.eye(9), {"eig_min": 0.5}),
                  (np.eye(9), {"weights": np.arange(1.0, 10.0)}),
                  (np.corrcoef(data.T), {}), (np.corrcoef(few.T), {}),
                  (np.corrcoef(data.T), {"weights": np.linspace(0.5, 2.0, 8)})]:
        est = NearestCorrelation("frobenius", solver=solver, **kw).fit(C)
        assert est.n_iter_ == 0 and est.converged_, kw
        assert np.allclose(est.correlation_, C, rtol=0, atol=1e-14), kw
        assert est.max_diagonal_error_ <= 1e-14 and est.divergence_ <= 1e-26
    assert np.array_equal(NearestCorrelation("frobenius").fit(np.eye(9)).correlation_,
                          np.eye(9))


# ---------------------------------------------------------------- errors

def test_errors_name_the_parameter():
    C = uniform_unit_diagonal(6, 18)
    with pytest.raises(ValueError, match=r"weights must have shape \(n,\) = \(6,\)"):
        NearestCorrelation("frobenius", weights=np.ones(5)).fit(C)
    with pytest.raises(ValueError, match=r"weights must have shape"):
        NearestCorrelation("frobenius", weights=np.ones((6, 1))).fit(C)
    with pytest.raises(ValueError, match="weights must be positive"):
        NearestCorrelation("frobenius", weights=[1, 1, 0, 1, 1, 1]).fit(C)
    with pytest.raises(ValueError, match="weights must be positive"):
        NearestCorrelation("frobenius", weights=[1, 1, -2, 1, 1, 1]).fit(C)
    with pytest.raises(ValueError, match="weights must be finite"):
        NearestCorrelation("frobenius", weights=[1, 1, np.nan, 1, 1, 1]).fit(C)
    with pytest.raises(ValueError, match="weights must be finite"):
        NearestCorrelation("frobenius", weights=[1, 1, np.inf, 1, 1, 1]).fit(C)
    with pytest.raises(ValueError, match="weights must be an array"):
        NearestCorrelation("frobenius", weights=["a"] * 6).fit(C)
    for bad in (1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="'eig_min' parameter"):
            NearestCorrelation("frobenius", eig_min=bad).fit(C)
    for divergence in ("logdet", "vonneumann"):
        with pytest.raises(ValueError, match=r"^weights: .*divergence='frobenius' only"):
            NearestCorrelation(divergence, weights=np.ones(6)).fit(C)
        with pytest.raises(ValueError, match=r"eig_min=0.1: .*divergence='frobenius' only"):
            NearestCorrelation(divergence, eig_min=0.1).fit(C)
    with pytest.raises(ValueError, match="divergence='frobenius' takes input='matrix'"):
        NearestCorrelation("frobenius", input="factor").fit(np.ones((6, 2)))
    with pytest.raises(ValueError, match="rank=3 does not apply to divergence='frobenius'"):
        NearestCorrelation("frobenius", rank=3).fit(C)
    with pytest.raises(ValueError, match="square"):
        NearestCorrelation("frobenius").fit(np.ones((6, 3)))
    bad = C.copy()
    bad[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        NearestCorrelation("frobenius").fit(bad)
    bad = C.copy()
    bad[0, 1] = bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="C contains NaN"):
        NearestCorrelation("frobenius").fit(bad)


def test_size_limit_is_checked_before_any_eigendecomposition(monkeypatch):
    assert nc_module.FROBENIUS_MAX_N == 10000

    def refuse(*args, **kwargs):
        raise AssertionError("an eigendecomposition ran before the size check")

    monkeypatch.setattr(nc_module, "FROBENIUS_MAX_N", 5)
    for module, names in ((scipy.linalg, ("eigh", "eigvalsh")),
                          (np.linalg, ("eigh", "eigvalsh", "svd"))):
        for name in names:
            monkeypatch.setattr(module, name, refuse)
    with pytest.raises(ValueError, match=r"limited to n <= 5; got n=6"):
        NearestCorrelation("frobenius").fit(uniform_unit_diagonal(6, 19))
    monkeypatch.undo()
    monkeypatch.setattr(nc_module, "FROBENIUS_MAX_N", 6)
    assert NearestCorrelation("frobenius").fit(uniform_unit_diagonal(6, 19)).converged_


def test_unfinished_runs_warn_with_what_failed_and_what_to_change():
    C = uniform_unit_diagonal(60, 20)
    with pytest.warns(ConvergenceWarning,
                      match=r"largest diagonal error.*max_iter=1 Newton.*increase max_iter"):
        est = NearestCorrelation("frobenius", max_iter=1).fit(C)
    assert not est.converged_ and est.n_iter_ == 1 and est.max_diagonal_error_ > est.tol
    with pytest.warns(ConvergenceWarning, match=r"max_iter=3 projection.*solver='newton'"):
        est = NearestCorrelation("frobenius", solver="projections", max_iter=3).fit(C)
    assert not est.converged_ and est.n_iter_ == 3
    # still the primal point of its dual iterate, and positive semidefinite
    assert np.allclose(est.correlation_, kkt_matrix(C, None, 0.0, est.dual_coef_), atol=1e-12)
    assert np.linalg.eigvalsh(est.correlation_)[0] >= -1e-12


# ---------------------------------------------------------------- conventions

def test_repeatable_clone_pickle_and_refit():
    C = pairwise_complete(50, 21)
    w = weights_for(50, 21)
    est = NearestCorrelation("frobenius", weights=w, eig_min=0.05, tol=1e-9)
    a = clone(est).fit(C)
    b = clone(est).fit(C)
    assert np.array_equal(a.correlation_, b.correlation_)
    assert np.array_equal(a.dual_coef_, b.dual_coef_) and a.n_iter_ == b.n_iter_
    params = clone(est).get_params()
    assert params["eig_min"] == 0.05 and np.array_equal(params["weights"], w)
    again = pickle.loads(pickle.dumps(a))
    assert np.array_equal(again.correlation_, a.correlation_)
    assert again.n_features_in_ == 50 and again.min_eigenvalue_ == a.min_eigenvalue_
    # a refit on another path keeps nothing of the earlier one
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ld = NearestCorrelation(rank=3).fit(C)
    assert hasattr(ld, "factor_") and hasattr(ld, "negative_mass_")
    ld.set_params(divergence="frobenius", rank=None).fit(C)
    assert not hasattr(ld, "factor_") and not hasattr(ld, "negative_mass_")
    fro = NearestCorrelation("frobenius").fit(C)
    fro.set_params(divergence="logdet", rank=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fro.fit(C)
    assert not hasattr(fro, "min_eigenvalue_")


def test_verbose_prints_one_line_per_iteration(capsys):
    est = NearestCorrelation("frobenius", verbose=1).fit(uniform_unit_diagonal(40, 22))
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "Newton iteration" in ln]
    assert len(lines) == est.n_iter_ >= 1
