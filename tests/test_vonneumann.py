"""Von Neumann projections: compiled sweep vs a dense expm oracle; the learner."""


import numpy as np
import pytest
from scipy import linalg
from sklearn.datasets import load_iris
from sklearn_bregman._engine._vonneumann import vonneumann_pair_sweep

from sklearn_bregman import PairConstraints, VonNeumannKernelLearner
from sklearn_bregman._engine import pair_projections
from tests.oracles import vonneumann_pair_sweep_reference


def random_problem(r, n=80, c=40, seed=0):
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.standard_normal((max(n, r), r)))[0][:n]
    i = rng.integers(0, n, c)
    j = (i + 1 + rng.integers(0, n - 1, c)) % n
    sign = np.where(rng.random(c) < 0.5, 1, -1).astype(np.int8)
    A = rng.standard_normal((r, r))
    X0 = A @ A.T / r + 0.2 * np.eye(r)
    L0 = linalg.logm(X0).real
    L0 = (L0 + L0.T) / 2
    V = U[i] - U[j]
    d0 = np.einsum("ij,jk,ik->i", V, X0, V)
    bound = np.where(sign > 0, 0.6 * d0, 1.5 * d0)
    return U, i.astype(np.intp), j.astype(np.intp), sign, bound, L0


def rel(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


@pytest.mark.parametrize("r", [1, 2, 16, 64])
@pytest.mark.parametrize("slack", [np.inf, 2.0])
def test_sweep_matches_dense_expm_oracle(r, slack):
    U, i, j, sign, bound, L0 = random_problem(r, seed=r)
    c = len(i)
    rng = np.random.default_rng(1)
    orders = [np.arange(c, dtype=np.intp), rng.permutation(c).astype(np.intp)]
    out = []
    for sweep in [vonneumann_pair_sweep, vonneumann_pair_sweep_reference]:
        L, nu, xi = L0.copy(), np.zeros(c), bound.copy()
        counts = [sweep(U, i, j, sign, bound, xi, nu, L, o, slack, 1e-3)[:2] for o in orders]
        out.append((L, nu, xi, counts))
    (L1, nu1, xi1, c1), (L2, nu2, xi2, c2) = out
    assert rel(L1, L2) < 1e-9
    assert rel(nu1, nu2) < 1e-9
    assert rel(xi1, xi2) < 1e-9
    assert c1 == c2
    assert np.array_equal(L1, L1.T) and (nu1 >= 0).all()


@pytest.mark.parametrize("r", [3, 16, 64])
def test_projected_constraint_holds_with_equality(r):
    U, i, j, sign, bound, L0 = random_problem(r, seed=10 + r)
    X0 = linalg.expm(L0)
    tested = 0
    for c in range(len(i)):
        v = U[i[c]] - U[j[c]]
        if sign[c] * (v @ X0 @ v - bound[c]) <= 0:
            continue  # satisfied: nothing to project
        L, nu, xi = L0.copy(), np.zeros(len(i)), bound.copy()
        vonneumann_pair_sweep(U, i, j, sign, bound, xi, nu, L, np.array([c], np.intp),
                              np.inf, 1e-3)
        X = linalg.expm(L)  # the dense X+ = exp(log X + alpha v v')
        assert v @ X @ v == pytest.approx(bound[c], rel=1e-10)
        tested += 1
    assert tested >= 5


def vn_divergence(X, Y):
    lx, ly = linalg.logm(X).real, linalg.logm(Y).real
    return np.trace(X @ lx - X @ ly - X + Y)


def test_hard_constraints_reach_the_kkt_point_and_beat_feasible_points():
    rng = np.random.default_rng(3)
    r, n, c = 5, 30, 12
    U = np.linalg.qr(rng.standard_normal((n, r)))[0]
    X0 = np.diag(rng.uniform(0.5, 2.0, r))
    B = rng.standard_normal((r, r))
    X_star = B @ B.T / r + 0.3 * np.eye(r)  # strictly feasible by construction
    i = rng.integers(0, n, c)
    j = (i + 1 + rng.integers(0, n - 1, c)) % n
    sign = np.where(rng.random(c) < 0.5, 1, -1)
    V = U[i] - U[j]
    d_star = np.einsum("ij,jk,ik->i", V, X_star, V)
    pc = PairConstraints(i, j, sign, np.where(sign > 0, 1.05 * d_star, 0.95 * d_star))
    res = pair_projections(U, pc, linalg.logm(X0).real, divergence="vonneumann",
                           tol=1e-12, max_iter=100000)
    assert res.converged
    X = linalg.expm(res.state)
    d = np.einsum("ij,jk,ik->i", V, X, V)
    nu = res.dual
    assert np.all(pc.sign * (d - pc.bound) <= 1e-7 * pc.bound)  # primal feasible
    assert np.all(nu >= 0)  # dual feasible
    # stationarity, grad phi(X) - grad phi(X0) + sum_c sign_c nu_c v_c v_c' = 0
    # with grad phi = log: log X - log X0 = -sum_c sign_c nu_c v_c v_c'
    S = (V * (pc.sign * nu)[:, None]).T @ V
    assert rel(res.state - linalg.logm(X0).real, -S) < 1e-8
    inactive = pc.sign * (d - pc.bound) < -1e-6 * pc.bound
    assert inactive.any() and np.all(nu[inactive] <= 1e-9 * nu.max())
    D = vn_divergence(X, X0)
    for t in [0.0, 0.3, 0.6, 0.9]:
        assert D <= vn_divergence(t * X + (1 - t) * X_star, X0) + 1e-10


def test_root_finder_needs_few_evaluations():
    # Range, rank and constraints of the learned kernel are tested for both
    # learners in test_kernel_learning.py; here only the root finder's cost.
    X, y = load_iris(return_X_y=True)
    learner = VonNeumannKernelLearner(kernel="rbf", rank=12, random_state=0).fit(X, y)
    assert learner.n_projections_ > 0
    assert learner.n_evals_ / learner.n_projections_ <= 8


def test_rank_deficient_linear_kernel():
    # constant features: G0 = X has zero singular values, which are left out
    X, y = load_iris(return_X_y=True)
    X = np.c_[X, np.zeros(len(X))]
    learner = VonNeumannKernelLearner(random_state=0).fit(X, y)
    assert np.isfinite(learner.embedding_).all()
    assert np.allclose(learner.embedding_[:, :], learner.transform(X))


def test_the_engine_unit_is_one_for_ordinary_kernels_and_centres_extreme_ones():
    # von Neumann's state is log(X / c): c = 1 (the start log X0 itself, as
    # it always was) for the kernels of ordinary data, and beyond half the
    # guard a power of four that centres log(X0 / c) on 0, exactly (S / 2**k
    # and back is the identity)
    from sklearn.datasets import load_digits, load_wine

    from sklearn_bregman._engine._driver import DIVERGED_LOG
    from sklearn_bregman._factors._factors import orthonormal_basis
    from sklearn_bregman._learners._divergences import VonNeumann, kernel_unit

    vn = VonNeumann()
    for load in (load_iris, load_wine, load_digits):
        X = load(return_X_y=True)[0]
        _, s, Vt = orthonormal_basis(X)
        assert kernel_unit(s) == 0
        np.testing.assert_array_equal(vn.initial_state((s, Vt), s.size),
                                      np.diag(2.0 * np.log(s)))
        np.testing.assert_array_equal(vn.prior((s, Vt), s.size), np.diag(s ** 2))
        for t in (2.0 ** -250, 1e-75, 1e60, 1e150):
            st = s * t
            k = kernel_unit(st)
            assert k != 0
            log_x0 = np.diag(vn.initial_state((st, Vt), s.size))
            assert np.abs(log_x0).max() <= DIVERGED_LOG / 2
            assert abs(log_x0.max() + log_x0.min()) <= 2 * np.log(4.0)  # centred
            np.testing.assert_array_equal(np.ldexp(np.ldexp(st, -k), k), st)
    # the boundary: log s^2 within DIVERGED_LOG / 2 on both sides
    edge = np.exp(DIVERGED_LOG / 4)
    assert kernel_unit(np.array([edge * 0.999, 1.0])) == 0
    assert kernel_unit(np.array([1.0, 1.001 / edge])) == 0
    assert kernel_unit(np.array([edge * 1.001])) != 0
    assert kernel_unit(np.array([0.999 / edge])) != 0


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
def test_appendix_b_dual_correction_counter_example(divergence):
    # JMLR 2009 App. B: min D(X, I) s.t. X11 + X22 - 2 X12 >= 1.  I is
    # feasible (its value is 2), so it is the answer; a projection onto the
    # equality without the correction moves X and lands elsewhere.
    pc = PairConstraints([0], [1], [-1], [1.0])
    M0 = np.eye(2) if divergence == "logdet" else np.zeros((2, 2))  # I, or log I
    fixed = pair_projections(np.eye(2), pc, M0, divergence=divergence, max_iter=5)
    wrong = pair_projections(np.eye(2), pc, M0, divergence=divergence, max_iter=5,
                             dual_correction=False)
    to_x = (lambda M: M) if divergence == "logdet" else linalg.expm
    X_fixed, X_wrong = to_x(fixed.state), to_x(wrong.state)
    assert np.array_equal(X_fixed, np.eye(2)) and fixed.dual[0] == 0.0
    v = np.array([1.0, -1.0])
    assert v @ X_wrong @ v == pytest.approx(1.0, rel=1e-9)  # on the equality
    if divergence == "logdet":
        D = np.trace(X_wrong) - np.log(np.linalg.det(X_wrong)) - 2
    else:
        D = vn_divergence(X_wrong, np.eye(2))
    assert D > 0.05  # strictly worse than X = I, where D = 0


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
def test_sweeps_without_correction_match_the_oracle(divergence):
    from sklearn_bregman._engine._logdet import logdet_pair_sweep

    from tests.oracles import logdet_pair_sweep_reference

    U, i, j, sign, bound, L0 = random_problem(8, c=20, seed=3)
    if divergence == "logdet":
        sweep, ref, M0 = logdet_pair_sweep, logdet_pair_sweep_reference, np.eye(8)
    else:
        sweep, ref, M0 = vonneumann_pair_sweep, vonneumann_pair_sweep_reference, L0
    order = np.arange(20, dtype=np.intp)
    states = []
    for fn in (sweep, ref):
        M, nu, xi = M0.copy(), np.zeros(20), bound.copy()
        for _ in range(2):
            fn(U, i, j, sign, bound, xi, nu, M, order, np.inf, 1e-3, False)
        states.append(M)
    assert rel(states[0], states[1]) < 1e-9


@pytest.mark.parametrize("spread", [5.0, 30.0])
@pytest.mark.parametrize("r", [40, 128])
def test_krylov_stopping_rule_on_wide_spectra(spread, r):
    # The Lanczos size is chosen by the Gauss-rule estimate f_k - f_{k-1};
    # a state whose log-eigenvalues spread over `spread` needs more steps.
    # The projection must stay exact against the dense X+ whatever the spread.
    rng = np.random.default_rng(int(spread) + r)
    Q = np.linalg.qr(rng.standard_normal((r, r)))[0]
    lam = np.linspace(-spread, 0.0, r)
    L0 = (Q * lam) @ Q.T
    U = np.linalg.qr(rng.standard_normal((200, r)))[0]
    i = np.arange(0, 20, dtype=np.intp)
    j = np.arange(100, 120, dtype=np.intp)
    V = U[i] - U[j]
    X0 = (Q * np.exp(lam)) @ Q.T
    d0 = np.einsum("ij,jk,ik->i", V, X0, V)
    sign = np.where(np.arange(20) % 2 == 0, 1, -1).astype(np.int8)
    bound = np.where(sign > 0, 0.5 * d0, 2.0 * d0)
    for c in range(20):
        L, nu, xi = L0.copy(), np.zeros(20), bound.copy()
        vonneumann_pair_sweep(U, i, j, sign, bound, xi, nu, L, np.array([c], np.intp),
                              np.inf, 1e-3)
        assert V[c] @ linalg.expm(L) @ V[c] == pytest.approx(bound[c], rel=1e-9)


def _tridiagonal_cases():
    rng = np.random.default_rng(7)
    cases = []
    for k in [1, 2, 3, 8, 20]:
        cases.append((rng.normal(size=k), rng.uniform(0.1, 2.0, k - 1)))
    # near-deflation: a tiny off-diagonal cuts T in two (weightless block)
    a, b = rng.normal(size=10), rng.uniform(0.5, 1.5, 9)
    b[4] = 1e-13
    cases.append((a, b))
    # clustered eigenvalues: constant diagonal, tiny couplings at the end
    a, b = np.zeros(12), np.r_[np.ones(6), np.full(5, 1e-9)]
    cases.append((a, b))
    # a wide spectrum, as log X of an ill-conditioned kernel
    cases.append((np.linspace(-35.0, 2.0, 16), rng.uniform(0.1, 3.0, 15)))
    return cases


@pytest.mark.parametrize("case", range(8))
@pytest.mark.parametrize("x", [0.0, 1e-6, 0.3, -0.3, 5.0, -40.0])
def test_secular_rule_matches_dense_expm(case, x):
    from sklearn_bregman._engine._testing import _tridiagonal_rule

    a, b = _tridiagonal_cases()[case]
    nv2 = 1.7
    T = np.diag(a) + np.diag(b, 1) + np.diag(b, -1)
    T[0, 0] += x * nv2
    exact = np.log(nv2 * linalg.expm(T)[0, 0])
    secular, ql = _tridiagonal_rule(a, b, nv2, x)
    assert secular == pytest.approx(exact, abs=1e-12 * max(1.0, abs(exact)))
    assert ql == pytest.approx(exact, abs=1e-12 * max(1.0, abs(exact)))


@pytest.mark.parametrize("case", range(8))
@pytest.mark.parametrize("x", [0.0, 1e-6, 0.3, -0.3, 5.0])
def test_newton_slope_matches_frechet_derivative(case, x):
    # d/dx log f from the rule's nodes and weights (vn_dlog_rule) against the
    # Frechet derivative of the dense expm in the direction nv2 e1 e1'.
    from sklearn_bregman._engine._testing import _tridiagonal_slope

    a, b = _tridiagonal_cases()[case]
    nv2 = 1.7
    T = np.diag(a) + np.diag(b, 1) + np.diag(b, -1)
    T[0, 0] += x * nv2
    E = np.zeros_like(T)
    E[0, 0] = nv2
    expT, dexpT = linalg.expm_frechet(T, E)
    exact = dexpT[0, 0] / expT[0, 0]
    secular, ql = _tridiagonal_slope(a, b, nv2, x)
    assert secular == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert ql == pytest.approx(exact, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n, r", [(1, 5), (3, 8), (4, 64), (7, 64), (10, 33)])
def test_project_out_matches_numpy(n, r):
    from sklearn_bregman._engine._testing import _project_out

    rng = np.random.default_rng(n * 100 + r)
    Q = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((r, n)))[0].T)
    w = rng.standard_normal(r)
    out, c = _project_out(Q, w)
    np.testing.assert_allclose(c, Q @ w, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(out, w - Q.T @ (Q @ w), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("case", range(8))
def test_paired_ql_matches_numpy(case):
    # the rule's T and its leading block (the error check's) decomposed side
    # by side (vn_tridiag_eig2) against numpy's eigh
    from sklearn_bregman._engine._testing import _tridiagonal_eig_pair

    a, b = _tridiagonal_cases()[case]
    if len(a) < 2:
        pytest.skip("a single entry has no leading block")
    for (d, z), m in zip(_tridiagonal_eig_pair(a, b), (len(a) - 1, len(a))):
        T = np.diag(a[:m]) + np.diag(b[:m - 1], 1) + np.diag(b[:m - 1], -1)
        lam, S = np.linalg.eigh(T)
        order = np.argsort(d)
        scale = max(1.0, np.abs(lam).max())
        np.testing.assert_allclose(d[order], lam, rtol=0, atol=1e-13 * scale)
        # first-row weights; a cluster's weight is only defined in sum
        np.testing.assert_allclose(np.sum(z ** 2), 1.0, rtol=1e-13)
        np.testing.assert_allclose(np.cumsum(z[order] ** 2),
                                   np.cumsum(S[0] ** 2), rtol=0, atol=1e-12)


@pytest.mark.parametrize("m", [1, 2, 3, 9, 20])
@pytest.mark.parametrize("rho", [1e-6, 0.3, 40.0])
def test_secular_root_matches_dlaed4(m, rho):
    # vn_secular_root (cold and warm-started) against LAPACK's dlaed4 and the
    # eigenvalues of diag(d) + rho z z'
    from sklearn_bregman._engine._testing import _secular_roots

    rng = np.random.default_rng(m)
    d = np.sort(rng.normal(size=m)) + 0.05 * np.arange(m)
    z = rng.uniform(0.2, 1.0, m) * rng.choice([-1, 1], m)
    z /= np.linalg.norm(z)
    exact = np.linalg.eigvalsh(np.diag(d) + rho * np.outer(z, z))
    ours, delta = _secular_roots(d, z, rho)
    warm, _ = _secular_roots(d, z, rho, guess=_secular_roots(d, z, 1.01 * rho)[0])
    lapack, delta_lapack = _secular_roots(d, z, rho, lapack=True)
    scale = max(1.0, np.abs(exact).max())
    for lam in (ours, warm, lapack):
        np.testing.assert_allclose(lam, exact, rtol=0, atol=1e-14 * scale)
    np.testing.assert_allclose(delta, d[None, :] - ours[:, None], rtol=0,
                               atol=1e-14 * scale)
    np.testing.assert_allclose(delta, delta_lapack, rtol=1e-10, atol=1e-15 * scale)
