"""NearestCorrelation(divergence='frobenius'): Qi & Sun's Newton method on the
dual against dense oracles (the KKT conditions, Higham's alternating
projections with Dykstra's correction, the generalised Jacobian), the inputs
that are already correlation matrices, the errors, and the conventions."""

import pickle
import re
import tracemalloc
import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.datasets import load_wine
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


# ---------------------------------------------------------------- any scale (issue 34)

def _jacobi_eigh(A, eps):
    """Eigenvalues and eigenvectors (the columns of V) of the symmetric A, a
    list of lists of Decimal, by cyclic Jacobi rotations until the
    off-diagonal mass is below ``eps``: an eigensolver in the precision of
    the decimal context, independent of LAPACK."""
    n = len(A)
    A = [row[:] for row in A]
    V = [[Decimal(int(i == j)) for j in range(n)] for i in range(n)]
    one = Decimal(1)
    for _ in range(100):
        if sum(A[i][j] ** 2 for i in range(n) for j in range(i + 1, n)) <= eps * eps:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                if A[p][q] == 0:
                    continue
                theta = (A[q][q] - A[p][p]) / (2 * A[p][q])
                t = one / (abs(theta) + (theta * theta + one).sqrt())
                t = -t if theta < 0 else t
                c = one / (t * t + one).sqrt()
                s = t * c
                for M in (A, V):
                    for row in M:
                        row[p], row[q] = c * row[p] - s * row[q], s * row[p] + c * row[q]
                A[p], A[q] = ([c * a - s * b for a, b in zip(A[p], A[q])],
                              [s * a + c * b for a, b in zip(A[p], A[q])])
    return [A[i][i] for i in range(n)], V


def _solve(A, rhs):
    """A x = rhs by Gaussian elimination with partial pivoting (Decimal)."""
    n = len(rhs)
    M = [A[i][:] + [rhs[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    x = [Decimal(0)] * n
    for r in range(n - 1, -1, -1):
        x[r] = (M[r][n] - sum(M[r][k] * x[k] for k in range(r + 1, n))) / M[r][r]
    return x


def high_precision_nearest_correlation(C, scale, digits=60, tol_digits=30):
    """The nearest correlation matrix (W = I, eig_min = 0) to ``scale * C``
    in 60-digit decimal arithmetic: Qi & Sun's Newton method on the dual
    with the dense generalised Jacobian and an Armijo search (or, when it
    stalls, the gradient step), solved for ``10^k C``, k = 0, 1, ..., each
    from the last one's dual times 10, up to ``scale * C``; every stage to a
    diagonal error of 10^-tol_digits.  Independent of the package: its
    rounding (10^-60 against entries of 10^10) is far below double's."""
    n = C.shape[0]
    with localcontext() as ctx:
        ctx.prec = digits
        Cd = [[Decimal(float(C[i, j])) for j in range(n)] for i in range(n)]
        eps_eig = Decimal(10) ** (8 - digits)
        tol = Decimal(10) ** -tol_digits
        final, s, y = Decimal(float(scale)), Decimal(1), None
        while True:
            s = min(s, final)
            G = [[s * v for v in row] for row in Cd]
            if y is None:
                y = [1 - G[i][i] for i in range(n)]

            def spectrum(y, G=G, s=s):
                M = [[G[i][j] + (y[i] if i == j else 0) for j in range(n)] for i in range(n)]
                lam, P = _jacobi_eigh(M, eps_eig * (1 + s))
                diag = [sum(P[i][k] ** 2 * lam[k] for k in range(n) if lam[k] > 0)
                        for i in range(n)]
                return lam, P, diag, sum(v * v for v in lam if v > 0) / 2 - sum(y)

            lam, P, diag, theta = spectrum(y)
            for _ in range(200):
                F = [v - 1 for v in diag]
                err = max(abs(v) for v in F)
                if err <= tol:
                    break
                omega = [[Decimal(1) if lam[k] > 0 and lam[m] > 0 else Decimal(0)
                          if lam[k] <= 0 and lam[m] <= 0 else
                          max(lam[k], lam[m]) / (abs(lam[k]) + abs(lam[m]))
                          for m in range(n)] for k in range(n)]
                V = [[sum(P[i][k] * P[j][k] * omega[k][m] * P[i][m] * P[j][m]
                          for k in range(n) for m in range(n)) for j in range(n)]
                     for i in range(n)]
                mu = min(Decimal("1e-8"), err) * min(1, max(lam) / max(abs(v) for v in lam))
                for i in range(n):
                    V[i][i] += mu
                d = _solve(V, [-f for f in F])
                slope = sum(f * e for f, e in zip(F, d))
                step = Decimal(1)
                for _ in range(40):
                    trial = [a + step * b for a, b in zip(y, d)]
                    new = spectrum(trial)
                    if (new[3] <= theta + Decimal("1e-4") * step * slope
                            or max(abs(v - 1) for v in new[2]) <= (1 - step / 10 ** 4) * err):
                        break
                    step /= 2
                else:
                    trial = [a - f for a, f in zip(y, F)]
                    new = spectrum(trial)
                y, (lam, P, diag, theta) = trial, new
            else:
                raise RuntimeError("the high-precision reference did not converge")
            if s == final:
                break
            y, s = [10 * v for v in y], 10 * s
        X = [[sum(P[i][k] * P[j][k] * lam[k] for k in range(n) if lam[k] > 0)
              for j in range(n)] for i in range(n)]
    return np.array([[float(v) for v in row] for row in X])


def wine_correlation():
    return np.corrcoef(load_wine().data.T)


def test_the_high_precision_reference_agrees_with_higham():
    C = wine_correlation()[:6, :6]
    for s in (10.0, 100.0):  # (Higham's projections need about 20 s iterations)
        H, _ = higham_dykstra_reference(s * C, tol=1e-14)
        assert np.abs(high_precision_nearest_correlation(C, s) - H).max() <= 1e-13


def test_a_large_scale_reaches_the_nearest_correlation_matrix_of_that_scale():
    # The nearest correlation matrix of s C is not that of C (C itself, a
    # correlation matrix): the problem is scale dependent.  At s = 1e10 the
    # one of s C is close to the maximiser of <C, X> over correlation
    # matrices, here of rank 2.  The reference is computed in 60 digits.
    C = wine_correlation()[:6, :6]
    s = 1e10
    X_ref = high_precision_nearest_correlation(C, s)
    assert np.abs(np.diag(X_ref) - 1).max() <= 1e-15
    assert np.count_nonzero(np.linalg.eigvalsh(X_ref) > 1e-6) == 2
    assert np.abs(X_ref - C).max() > 0.5
    # the diagonal of the dual's point is resolved to about eps times the
    # scale of s C's entries (2e-6 here): a tol above that is met
    est = NearestCorrelation("frobenius", tol=1e-5).fit(s * C)
    assert est.converged_ and est.solver_ == "newton" and est.n_iter_ < 100
    X = est.correlation_
    assert est.max_diagonal_error_ == np.abs(np.diag(X) - 1).max() <= 1e-5
    assert est.min_eigenvalue_ == np.linalg.eigvalsh(X)[0] >= -1e-12 * np.abs(X).sum()
    assert np.abs(X - X_ref).max() <= 1e-5
    # the same (to that accuracy) as at 1e8, where the unit diagonal is met
    # to 1e-7: the limit of large scales
    est8 = NearestCorrelation("frobenius", tol=1e-7).fit(1e8 * C)
    assert est8.converged_ and np.abs(est8.correlation_ - X_ref).max() <= 1e-6


def test_a_scale_whose_rounding_exceeds_tol_stops_and_names_the_scale():
    # issue 34's reproduction: wine's correlation matrix times 1e10 ended
    # after 1,000 Newton iterations with |X_ii - 1| = 0.59 (1.1 on another
    # machine), the warning advising a larger max_iter
    C = wine_correlation() * 1e10
    big = np.abs(C - np.diag(np.diag(C))).max()  # (8.65e9)
    with pytest.warns(ConvergenceWarning,
                      match=r"rounding level of C's scale \(off-diagonal entries up to "
                            + re.escape(f"{big:.3g}") + r".*use tol >= "):
        est = NearestCorrelation("frobenius").fit(C)
    assert not est.converged_ and est.n_iter_ < 100
    assert est.max_diagonal_error_ == np.abs(np.diag(est.correlation_) - 1).max() < 1e-4
    # the tol it names is met
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NearestCorrelation("frobenius").fit(C)
    advised = float(str(caught[0].message).split("use tol >= ")[1].split(" ")[0].rstrip(",;."))
    est = NearestCorrelation("frobenius", tol=advised).fit(C)
    assert est.converged_ and est.max_diagonal_error_ <= advised
    # the KKT conditions, to the precision that s C's entries allow
    X = est.correlation_
    assert np.abs(X - kkt_matrix(C, None, 0.0, est.dual_coef_)).max() <= 1e-4
    assert np.linalg.eigvalsh(X)[0] >= -1e-12 * np.abs(X).sum()


def test_converged_is_judged_on_the_returned_matrix():
    # issue 34: with weights [1e300, 1, 1, 1, 1] the fit returned C itself
    # (smallest eigenvalue -0.45) with converged_=True and a min_eigenvalue_
    # of 0.04 read off the solver's decomposition; weights of 1e-300 (a
    # common factor) ended in a ZeroDivisionError
    C = uniform_unit_diagonal(5, 6)
    assert np.linalg.eigvalsh(C)[0] < -0.4
    with pytest.raises(ValueError, match=r"weights span a ratio of 1e\+300 \(largest "
                                         r"1e\+300, smallest 1\)"):
        NearestCorrelation("frobenius", weights=[1e300, 1, 1, 1, 1]).fit(C)
    with pytest.raises(ValueError, match=r"weights span a ratio of 1e\+300"):
        NearestCorrelation("frobenius", weights=[1, 1, 1e-300, 1, 1]).fit(C)
    # a common factor is no extreme ratio: weights are defined up to one
    ref = NearestCorrelation("frobenius").fit(C)
    for c in (1e-300, 1e-150, 1e150, 1e300):
        est = NearestCorrelation("frobenius", weights=np.full(5, c)).fit(C)
        assert est.converged_
        assert np.abs(est.correlation_ - ref.correlation_).max() <= 1e-14
        assert np.allclose(est.dual_coef_, c * ref.dual_coef_, rtol=1e-10, atol=0)
    est = NearestCorrelation("frobenius", weights=np.full(5, 1e150)).fit(C)
    assert est.divergence_ == pytest.approx(1e300 * ref.divergence_, rel=1e-12)
    # every fit's verdict is the returned matrix's own
    for C, w, eig_min in [(uniform_unit_diagonal(5, 6), [1e15, 1, 1, 1, 1], 0.0),
                          (uniform_unit_diagonal(5, 6), [1, 1e-12, 1, 1, 1], 0.0),
                          (uniform_unit_diagonal(5, 6), [1e8, 1, 1e-4, 1, 1], 0.1),
                          (uniform_unit_diagonal(30, 7), np.logspace(0, 14, 30), 0.0),
                          (pairwise_complete(40, 8), np.logspace(-6, 6, 40), 0.05),
                          (wine_correlation() * 1e4, None, 0.0),
                          (wine_correlation() + 0.2, None, 0.3)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = NearestCorrelation("frobenius", weights=w, eig_min=eig_min).fit(C)
        X = est.correlation_
        lam = np.linalg.eigvalsh(X)
        assert est.min_eigenvalue_ == lam[0]
        assert est.max_diagonal_error_ == np.abs(np.diag(X) - 1).max()
        assert est.converged_ == (est.max_diagonal_error_ <= est.tol
                                  and lam[0] >= eig_min - 1e-12 * max(1.0, lam[-1]))


# ---------------------------------------------------------------- size before O(n^2) work

@pytest.mark.parametrize("divergence, shape, dtype, kw", [
    ("frobenius", (10001, 10001), np.float64, {}),
    ("frobenius", (10001, 10001), np.int64, {}),
    ("frobenius", (10001, 10001), np.float32, {"weights": np.ones(10001)}),
    ("vonneumann", (2001, 2001), np.float64, {}),
    ("vonneumann", (2001, 2001), np.int64, {}),
    ("vonneumann", (2001, 3), np.float32, {"input": "factor"}),
])
def test_size_limits_are_checked_before_any_quadratic_work(monkeypatch, divergence, shape,
                                                            dtype, kw):
    # issue 34: fit(np.eye(10001)) was refused after 15-19 s and about 4 GB
    # (the symmetry check and a symmetrised copy ran first; an int64 input
    # to 'vonneumann' was converted, n^2 doubles, before its refusal).  A broadcast
    # view holds one number: the refusal must neither copy it nor read it.
    n = shape[0]
    limit = 10000 if divergence == "frobenius" else 2000
    C = np.broadcast_to(np.zeros(1, dtype=dtype), shape)

    def refuse(*args, **kwargs):
        raise AssertionError("C was read before its size was checked")

    monkeypatch.setattr(nc_module, "check_array", refuse)
    monkeypatch.setattr(nc_module, "validate_data", refuse)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=rf"limited to n <= {limit}; got n={n}"):
            NearestCorrelation(divergence, **kw).fit(C)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.01 * n * n * 8  # far less than n^2 doubles (0.8 GB at n = 10001)


def test_an_input_without_a_shape_is_sized_after_conversion(monkeypatch):
    monkeypatch.setattr(nc_module, "FROBENIUS_MAX_N", 3)
    monkeypatch.setattr(nc_module, "VONNEUMANN_MAX_N", 3)
    C = np.eye(4).tolist()
    with pytest.raises(ValueError, match=r"limited to n <= 3; got n=4"):
        NearestCorrelation("frobenius").fit(C)
    with pytest.raises(ValueError, match=r"limited to n <= 3; got n=4"):
        NearestCorrelation("vonneumann").fit(C)
    # (C's own errors come first on a size within the limit)
    bad = np.eye(3)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="C contains NaN"):
        NearestCorrelation("frobenius").fit(bad[:, :2])


# ---------------------------------------------------------------- LogDet and von Neumann

@pytest.mark.filterwarnings("ignore:C is not positive semidefinite:UserWarning")
def test_logdet_and_vonneumann_verdicts_are_the_returned_matrix_own():
    fits = []
    for seed in range(4):
        C = pairwise_complete(40, seed)
        for div, kw in (("logdet", {}), ("logdet", {"rank": 3}), ("vonneumann", {}),
                        ("logdet", {"solver": "projections", "rank": 4})):
            fits.append((NearestCorrelation(div, **kw), C))
    G = np.random.default_rng(0).standard_normal((60, 3)) * 0.7
    fits += [(NearestCorrelation(input="factor"), G),
             (NearestCorrelation("vonneumann", input="factor"), G)]
    for est, C in fits:
        est.fit(C)
        if hasattr(est, "correlation_"):
            diag = np.diag(est.correlation_)
        else:
            diag = est.uniqueness_ + np.einsum("ij,ij->i", est.factor_, est.factor_)
        assert est.max_diagonal_error_ == np.abs(diag - 1).max()
        assert est.converged_ and est.max_diagonal_error_ <= est.tol


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
def test_a_matrix_with_a_negative_eigenvalue_is_not_kept(divergence):
    # a unit diagonal and an eigenvalue of -1e-9 (below what the
    # "C is not positive semidefinite" warning reports): it was returned as
    # it is, solver_='none', converged_=True
    w, V = np.linalg.eigh(wine_correlation())
    w[0] = -1e-9
    C = (V * w) @ V.T
    d = 1 / np.sqrt(np.diag(C))
    C = d[:, None] * C * d[None, :]
    C = (C + C.T) / 2
    np.fill_diagonal(C, 1.0)
    assert -2e-9 < np.linalg.eigvalsh(C)[0] < -5e-10
    est = NearestCorrelation(divergence).fit(C)
    assert est.solver_ != "none" and est.converged_
    assert np.linalg.eigvalsh(est.correlation_)[0] > 0
    assert np.abs(np.diag(est.correlation_) - 1).max() <= est.tol
    # a correlation matrix to rounding still comes back at once
    est = NearestCorrelation(divergence).fit(wine_correlation())
    assert est.solver_ == "none" and est.n_iter_ == 0


@pytest.mark.parametrize("input, scale, nugget", [("factor", 1e8, 1e-3),
                                                  ("factor", 1e12, 1e-3),
                                                  ("matrix", 1.0, 1e-16),
                                                  ("matrix", 1.0, 1e-300)])
def test_a_vonneumann_start_beyond_double_precision_is_refused(input, scale, nugget):
    # a start K0 = Psi0 + G0 G0' whose diagonal exceeds its smallest
    # uniqueness 1e16-fold is numerically singular: its logarithm came out
    # NaN and scipy refused it ("array must not contain infs or NaNs")
    rng = np.random.default_rng(1)
    A = rng.standard_normal((20, 3))
    C = A * scale if input == "factor" else A @ A.T
    with pytest.raises(ValueError, match=r"the start K0 = Psi0 \+ G0 G0' has diagonal entries "
                                         r"up to .* uniqueness.*nugget="):
        NearestCorrelation("vonneumann", input=input, nugget=nugget).fit(C)
    # where it is representable, it converges
    est = NearestCorrelation("vonneumann", input=input, nugget=1e-3).fit(
        A / np.linalg.norm(A, axis=1, keepdims=True) * 3 if input == "factor" else C)
    assert est.converged_
