"""CSI and plain incomplete Cholesky: exactness, the compiled steps, the estimator."""


import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_iris,
    load_wine,
    make_blobs,
)
from sklearn.linear_model import RidgeClassifier
from sklearn.metrics.pairwise import pairwise_kernels, rbf_kernel
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_fit2d_1sample
from sklearn_bregman._engine._csi_steps import (
    complete_pending,
    estimated_gains,
    lookahead_added,
    lookahead_chosen,
    lookahead_step,
    move_pivot,
    move_pivot_u,
    qr_append,
    qr_step,
    rotate_chain,
)
from sklearn_bregman._engine._testing import swap_pivots

from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    LogDetKernelLearner,
    VonNeumannKernelLearner,
)
from sklearn_bregman._factors._factors import (
    LowRankFactor,
    cholesky_side_information,
    pivoted_cholesky,
    side_information,
)
from tests.oracles import csi_greedy_reference, csi_reference


def problem(n=60, seed=0, gamma=0.5, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    score = X[:, 0] + 0.3 * rng.standard_normal(n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y, rbf_kernel(X, gamma=gamma)


def run(K, Y, m, **kw):
    return cholesky_side_information(lambda p: K[:, p], np.diag(K).copy(), Y,
                                     max_rank=m, **kw)


# ---------------------------------------------------------------------------
# The algorithm against its definitions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kappa", [0.99, 0.5])
@pytest.mark.parametrize("delta", [1, 3, 8])
@pytest.mark.parametrize("center", [True, False])
def test_pivots_match_the_dense_reference(seed, kappa, delta, center):
    """The compiled look-ahead updates give the pivots that eq. 9-10 give
    when every approximation is formed densely (tests/oracles.py)."""
    X, y, K = problem(seed=seed, classes=3)
    Y = np.eye(3)[y]
    ref, history = csi_reference(K, Y, 10, kappa=kappa, delta=delta, center=center)
    res = run(K, Y, 10, kappa=kappa, delta=delta, tol=0.0, center=center)
    assert list(res.pivots) == ref
    # the estimated gain that chose each pivot: the largest of eq. 9-10
    np.testing.assert_allclose(res.predicted_gains, [h.max() for h in history],
                               rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("kappa", [0.99, 0.9, 0.2])
@pytest.mark.parametrize("center", [True, False])
def test_kappa_weighs_the_prediction_as_the_paper(kappa, center):
    """Section 3.2: lam = (1 - kappa) / tr K, mu = kappa / tr(Y'Y).  With a
    look-ahead over every point the estimated gains are exact (Section 5.1),
    so CSI is greedy on J itself: the brute-force greedy minimisation of
    eq. 2 (tests/oracles.py) makes the same choices, and each step's true
    gain is the drop of J."""
    X, y, K = problem(n=30, seed=6, gamma=0.3, classes=3)
    Y = np.eye(3)[y]
    ref, costs = csi_greedy_reference(K, Y, 8, kappa=kappa, center=center)
    res = run(K, Y, 8, kappa=kappa, delta=30, tol=0.0, center=center)
    assert list(res.pivots) == ref
    np.testing.assert_allclose(res.gains, -np.diff([1.0] + costs), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(res.predicted_gains, res.gains, rtol=1e-8, atol=1e-12)


def test_gains_are_the_weighted_reductions_of_the_paper():
    """Each true gain is (1 - kappa) |g_k|^2 / tr K + kappa |Y'q_k|^2 / |Y|^2
    (eq. 5-7 with Section 3.2's weights; Y centred), from the factor."""
    X, y, K = problem(n=80, seed=7, classes=3)
    Y = np.eye(3)[y]
    for kappa in (0.99, 0.3):
        res = run(K, Y, 12, kappa=kappa, delta=6, tol=0.0)
        Yc = Y - Y.mean(0)
        expected = ((1 - kappa) * (res.G ** 2).sum(0) / np.trace(K)
                    + kappa * ((Yc.T @ res.Q) ** 2).sum(0) / (Yc ** 2).sum())
        np.testing.assert_allclose(res.gains, expected, rtol=1e-10)


def kernlab_problem():
    """The data of the values recorded from kernlab below (120 points, 5
    features; labels by the sign of x0 x1 plus noise), and its rbf kernel
    (kernlab's rbfdot sigma = gamma = 0.2)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((120, 5))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(120) > 0).astype(int)
    return X, y, rbf_kernel(X, gamma=0.2)


#: kernlab 0.9.32 on kernlab_problem() (benchmarks/compare_kernlab.R): csi
#: with its near-maximum pivot rules made exact maxima (then it defines the
#: paper's algorithm, as ours; the shipped rules take other pivots), y the
#: one-hot labels, rank 15, tol 0: its pivots in the order chosen
#: (order(pivots(r)) - 1) and first true gains truegain(r); inchol's pivots
#: (maxiter 15).
KERNLAB = {
    (0.99, 10, True): ([115, 67, 19, 83, 61, 84, 17, 42, 80, 101, 73, 91, 22, 119, 57],
                       [0.057926014491838110, 0.046295045084370649, 0.021632056236864906,
                        0.011877531899925324, 0.070179835183482489]),
    (0.7, 5, False): ([108, 115, 83, 19, 25, 9, 72, 49, 92, 99, 54, 101, 91, 77, 50],
                      [0.36195673121936423, 0.043054120390758080, 0.027203308143123328,
                       0.019112352454686087, 0.017974863984740547]),
}
KERNLAB_INCHOL = [0, 50, 95, 83, 54, 25, 9, 49, 92, 19, 99, 116, 114, 75, 46]


@pytest.mark.parametrize("kappa, delta, center", list(KERNLAB))
def test_pivots_and_gains_are_kernlabs(kappa, delta, center):
    """An independent implementation (Bach's code, as kernlab ships it) gives
    the same pivots and gains, recorded here so that the test needs no R."""
    X, y, K = kernlab_problem()
    pivots, gains = KERNLAB[kappa, delta, center]
    res = run(K, np.eye(2)[y], 15, kappa=kappa, delta=delta, tol=0.0, center=center)
    assert list(res.pivots) == pivots
    np.testing.assert_allclose(res.gains[:5], gains, rtol=1e-10)
    est = CSIDecomposition(gamma=0.2, rank=15, kappa=kappa, delta=delta, tol=0.0,
                           center=center).fit(X, y)
    assert list(est.pivots_) == pivots


def test_plain_pivots_are_kernlab_inchols():
    X, _, K = kernlab_problem()
    assert list(pivoted_cholesky(lambda p: K[:, p], np.ones(120), 15, 0.0)[1]) == \
        KERNLAB_INCHOL
    assert list(CSIDecomposition(gamma=0.2, rank=15, tol=0.0).fit(X).pivots_) == \
        KERNLAB_INCHOL


@pytest.mark.parametrize("y_kind", ["none", "classes", "regression"])
def test_exactness(y_kind):
    """Proposition 1 (G G' equals K on the pivot columns), K - G G' PSD, the
    reported trace error, the QR decomposition of the centred factor, and
    the prediction errors |Y - Q Q' Y|^2."""
    X, y, K = problem(n=80, seed=2)
    Y = {"none": None, "classes": np.eye(2)[y],
         "regression": np.column_stack([X[:, 0] ** 2, X[:, 1]])}[y_kind]
    res = run(K, Y, 25, tol=0.0)
    G, piv = res.G, res.pivots
    L = G @ G.T
    assert G.shape[1] == 25
    np.testing.assert_allclose(L[:, piv], K[:, piv], atol=1e-10)
    assert np.linalg.eigvalsh(K - L).min() >= -1e-10
    assert res.approximation_error[-1] == pytest.approx(np.trace(K) - (G ** 2).sum(),
                                                        abs=1e-10)
    assert np.all(np.diff(res.approximation_error) <= 1e-12)
    np.testing.assert_allclose(np.triu(G[piv]), np.diag(np.diag(G[piv])), atol=0)
    Gc = G - G.mean(0)
    np.testing.assert_allclose(res.Q @ res.R, Gc, atol=1e-10)
    np.testing.assert_allclose(res.Q.T @ res.Q, np.eye(25), atol=1e-10)
    if Y is not None:
        Yc = Y - Y.mean(0)
        for k in (0, 5, 25):
            Qk = res.Q[:, :k]
            err = ((Yc - Qk @ (Qk.T @ Yc)) ** 2).sum()
            assert res.prediction_error[k] == pytest.approx(err, rel=1e-9, abs=1e-10)


def test_without_y_the_pivots_are_the_classical_greedy_ones():
    _, _, K = problem(n=70, seed=3)
    d = np.diag(K).copy()
    G = np.zeros((70, 0))
    expected, bounds = [], []
    for _ in range(20):
        p = int(np.argmax(np.where(np.isin(np.arange(70), expected), -1, d)))
        g = (K[:, p] - G @ G[p]) / np.sqrt(d[p])
        bounds.append(d[p] / np.trace(K))  # the lower bound of Section 2.2
        G = np.column_stack([G, g])
        d = d - g ** 2
        expected.append(p)
    res = run(K, None, 20, tol=0.0)
    assert list(res.pivots) == expected
    np.testing.assert_allclose(res.G, G, atol=1e-12)
    np.testing.assert_allclose(res.predicted_gains, bounds, rtol=1e-10)


def test_side_information_predicts_better_at_equal_rank():
    """What CSI is for: at the same rank its factor explains the labels
    better (smaller |Y - Q Q' Y|) than incomplete Cholesky's."""
    X, y, K = problem(n=200, seed=4, gamma=2.0)
    Y = np.eye(2)[y]
    csi = run(K, Y, 15, kappa=0.9, delta=20, tol=0.0)
    chol = run(K, None, 15, tol=0.0)
    Yc = Y - Y.mean(0)
    Qc = chol.Q
    chol_err = ((Yc - Qc @ (Qc.T @ Yc)) ** 2).sum()
    assert csi.prediction_error[-1] < 0.8 * chol_err


# ---------------------------------------------------------------------------
# The compiled steps against NumPy
# ---------------------------------------------------------------------------

def test_every_pivot_move_keeps_the_approximation():
    """App. A: after each transposition G G' is the same, G[pivots] is lower
    triangular, Q R is still the centred G with Q orthonormal, and the
    look-ahead coordinates W turn with Q (Q W' unchanged)."""
    X, y, K = problem(n=50, seed=5)
    n, t = 50, 8
    res = run(K, None, t, tol=0.0)
    G = np.asfortranarray(res.G.copy())
    piv = res.pivots.copy()
    Q = np.zeros((n, t), order="F")
    R = np.zeros((t, t), order="F")
    Y = np.asfortranarray(np.eye(2)[y] - np.eye(2)[y].mean(0))
    E = np.zeros((2, t), order="F")
    for j in range(t):
        qr_append(Q, R, E, Y, G, j, True)
    rng = np.random.default_rng(0)
    W = np.asfortranarray(rng.standard_normal((n, t)))
    L0, QW0 = G @ G.T, Q @ W.T
    for p in [6, 5, 4, 0, 3, 2, 6, 1]:
        swap_pivots(G, Q, R, E, W, piv, p, t)
        np.testing.assert_allclose(G @ G.T, L0, atol=1e-12)
        np.testing.assert_allclose(np.triu(G[piv], 1), 0, atol=0)
        np.testing.assert_allclose(Q @ R, G - G.mean(0), atol=1e-12)
        np.testing.assert_allclose(np.tril(R, -1), 0, atol=0)
        np.testing.assert_allclose(Q.T @ Q, np.eye(t), atol=1e-12)
        np.testing.assert_allclose(E, Y.T @ Q, atol=1e-12)
        np.testing.assert_allclose(Q @ W.T, QW0, atol=1e-12)
    # Proposition 1 with the new order: the same columns, the same approximation
    np.testing.assert_allclose((G @ G.T)[:, piv], K[:, piv], atol=1e-10)


def move_pivot_reference(G, Q, R, E, W, pivots, src, dst, t):
    """App. A in NumPy, exchange after exchange (p = src - 1, ..., dst): the
    plain oracle of the compiled ``move_pivot``."""
    def rotate(M, p, cs, sn):
        a, b = M[:, p].copy(), M[:, p + 1].copy()
        M[:, p] = cs * a + sn * b
        M[:, p + 1] = -sn * a + cs * b

    for p in range(src - 1, dst - 1, -1):
        pivots[p], pivots[p + 1] = pivots[p + 1], pivots[p]
        b = pivots[p]
        x, y = G[b, p], G[b, p + 1]
        rho = np.hypot(x, y)
        rotate(G, p, x / rho, y / rho)
        G[b, p + 1] = 0.0
        a0, a1 = R[:p + 2, p].copy(), R[:p + 2, p + 1].copy()
        R[:p + 2, p] = x / rho * a0 + y / rho * a1
        R[:p + 2, p + 1] = -y / rho * a0 + x / rho * a1
        x, y = R[p, p], R[p + 1, p]
        rho = np.hypot(x, y)
        if rho > 0:
            cs, sn = x / rho, y / rho
            r0, r1 = R[p, p:t].copy(), R[p + 1, p:t].copy()
            R[p, p:t] = cs * r0 + sn * r1
            R[p + 1, p:t] = -sn * r0 + cs * r1
            R[p + 1, p] = 0.0
            for M in (Q, E, W):
                rotate(M, p, cs, sn)


def csi_state(n, t, d, seed):
    """A CSI state with t columns on n points (n > the compiled kernels'
    blocks of 256 rows that BLAS or a blocked kernel might use, and not a
    multiple of it): G, Q, R, E of the run, random look-ahead coordinates W."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    K = rbf_kernel(X, gamma=0.3)
    G = np.asfortranarray(run(K, None, t, tol=0.0).G)
    piv = run(K, None, t, tol=0.0).pivots.copy()
    Y = np.asfortranarray(rng.standard_normal((n, d)))
    Q = np.zeros((n, t), order="F")
    R = np.zeros((t, t), order="F")
    E = np.zeros((d, t), order="F")
    for j in range(t):
        qr_append(Q, R, E, Y, G, j, True)
    W = np.asfortranarray(rng.standard_normal((n, t)))
    return G, Q, R, E, W, piv


@pytest.mark.parametrize("d", [0, 3])
@pytest.mark.parametrize(("src", "dst"), [(11, 2), (11, 0), (5, 4), (7, 7)])
def test_move_pivot_is_the_exchanges_one_by_one(d, src, dst):
    """The compiled move over several positions against the NumPy exchanges
    one after the other: the same pivots, and the same arrays to rounding
    (bit for bit where the compiler does not contract the rotations into
    fused multiply-adds)."""
    t = 12
    state = csi_state(700, t, d, seed=d + src)
    ref = [a.copy(order="F") for a in state]
    move_pivot(*state, src, dst, t)
    move_pivot_reference(*ref, src, dst, t)
    np.testing.assert_array_equal(state[5], ref[5])
    for got, want in zip(state[:5], ref[:5]):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * np.abs(want).max(initial=1.0))
    G, piv = state[0], state[5]
    np.testing.assert_array_equal(np.triu(G[piv[:t]], 1), 0)


@pytest.mark.parametrize(("appended", "pos"),
                         [(True, 11), (True, 6), (True, 3), (False, 8), (False, 3)])
def test_lookahead_step_is_the_three_steps(appended, pos):
    """The driver's step against the calls it stands for, one after the
    other (lookahead_added of the appended column t - 1, move_pivot_u of the
    pivot at pos to k0, lookahead_chosen): W, G, U, R, E, the pivots, dk and
    |g|^2 bit for bit (also where the move leaves the appended column in
    place), A to rounding (its products come from the Gram matrix M of the
    window, turned with G), and M stays G[:, k0:t]' G[:, k0:t]."""
    n, t, k0, d = 611, 12, 3, 2
    rng = np.random.default_rng(3)
    G, _, R, E, W, piv = csi_state(n, t, d, seed=7)
    U = np.asfortranarray(np.linalg.qr(rng.standard_normal((t, t)))[0])
    A, dk = rng.random(n), rng.random(n) + 1.0
    M = np.asfortranarray(G.T @ G)
    if appended:
        M[:, t - 1] = M[t - 1] = np.nan  # lookahead_step's to fill
    state = [A, dk, G, U, R, E, W, M, piv]
    ref = [a.copy(order="F") for a in state]
    work = np.empty(3 * n + 3 * t)
    gg = lookahead_step(*state, k0, t, appended, pos, work)
    A, dk, G, U, R, E, W, _, piv = ref
    if appended:
        lookahead_added(A, W, G, R, k0, t - 1, work)
    move_pivot_u(G, U, R, E, W, piv, pos, k0, t)
    assert gg == lookahead_chosen(A, dk, G, k0, t, work)
    for got, want in zip(state[1:7] + state[8:], ref[1:7] + ref[8:]):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(state[0], A, rtol=0, atol=1e-12 * np.abs(A).max())
    Gw = G[:, k0:t]
    np.testing.assert_allclose(state[7][k0:t, k0:t], Gw.T @ Gw, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n", [1, 127, 128, 300, 611])
@pytest.mark.parametrize(("lo", "hi", "with_h"), [(3, 11, True), (0, 9, False), (2, 3, True),
                                                  (5, 5, True)])
def test_rotate_chain_is_the_rotations_one_by_one(n, lo, hi, with_h):
    """csi_rotate_chain (W's turn in lookahead_step) against the exchanges'
    rotations written in NumPy, one pair of columns after the other: bit for
    bit, with pairs not turned (rot = 0), zero coefficients of h (no add),
    blocks of rows (128) cut at n, and untouched columns outside [lo, hi]."""
    cap = 12
    rng = np.random.default_rng(n + 7 * hi)
    W = np.asfortranarray(rng.standard_normal((n, cap)))
    angle = rng.uniform(0, 2 * np.pi, cap)
    cs, sn = np.cos(angle), np.sin(angle)
    rot = (rng.random(cap) > 0.25).astype(float)
    h = rng.standard_normal(n)
    rho = rng.standard_normal(cap) * (rng.random(cap) > 0.3)
    want = W.copy(order="F")
    for p in range(hi - 1, lo - 1, -1):
        if with_h and rho[p] != 0.0:
            want[:, p] = want[:, p] + h * rho[p]
        if rot[p] != 0.0:
            a, b = want[:, p].copy(), want[:, p + 1].copy()
            want[:, p] = cs[p] * a + sn[p] * b
            want[:, p + 1] = -sn[p] * a + cs[p] * b
    if with_h:
        rotate_chain(W, lo, hi, cs, sn, rot, h, rho)
    else:
        rotate_chain(W, lo, hi, cs, sn, rot)
    np.testing.assert_array_equal(W, want)


@pytest.mark.parametrize("mu", [0.0, 0.7])
@pytest.mark.parametrize(("d", "k0", "t"), [(3, 4, 15), (1, 2, 10), (4, 5, 7), (2, 0, 20)])
def test_estimated_gains_are_eq_9_10(mu, d, k0, t):
    """The compiled gains against eq. 9-10 written in NumPy, with
    non-candidates and points without residual; windows of t - k0 = 11, 8,
    2 and 20 columns (B and C are summed four columns at a time, then one
    by one), n not a multiple of the kernel's blocks of rows."""
    n, cap, lam = 613, 20, 0.3
    rng = np.random.default_rng(1)
    W = np.asfortranarray(rng.standard_normal((n, cap)))
    W[5] = 0.0  # B = 0: no prediction term
    E = np.asfortranarray(rng.standard_normal((d, cap)))
    A, dadv = rng.random(n), rng.random(n)
    dk = dadv + rng.random(n)
    dk[7] = 0.0
    candidate = (rng.random(n) > 0.1).view(np.uint8)
    out = np.empty(n)
    acc = np.zeros((n, d), order="F")
    work = np.empty(2 * n)
    estimated_gains(out, A, dk, dadv, W, E, k0, t, lam, mu, candidate, acc, work)
    Ww = W[:, k0:t]
    B = (Ww ** 2).sum(1)
    C = ((Ww @ E[:, k0:t].T) ** 2).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = lam * (A + dadv * (2 * dk - dadv)) / dk + np.where(B > 0, mu * C / B, 0.0)
    want[(candidate == 0) | (dk <= 0)] = -np.inf
    np.testing.assert_array_equal(np.isinf(out), np.isinf(want))
    np.testing.assert_allclose(out[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-13)


def test_lookahead_updates_are_the_rank_one_changes():
    """The compiled look-ahead updates against NumPy: ``A[i] = |Delta[:, i]|^2``
    for the look-ahead part ``Delta = Gw Gw'`` after a column joins it and
    after its first leaves, ``W += h R[k0:t+1, t]'`` and ``dk -= g^2``."""
    n, t, k0 = 611, 9, 3
    G, Q, R, E, W, piv = csi_state(n, t + 1, 2, seed=4)
    Delta = G[:, k0:t] @ G[:, k0:t].T
    A = (Delta ** 2).sum(0)
    W0, work = W.copy(), np.empty(2 * n + 4)
    lookahead_added(A, W, G, R, k0, t, work)
    Delta += np.outer(G[:, t], G[:, t])
    np.testing.assert_allclose(A, (Delta ** 2).sum(0), rtol=1e-12)
    W0[:, t] = 0.0
    W0[:, k0:t + 1] += np.outer(G[:, t], R[k0:t + 1, t])
    np.testing.assert_allclose(W, W0, rtol=1e-14, atol=1e-15)
    dk = (G ** 2).sum(1) + 1.0
    dk0 = dk.copy()
    gg = lookahead_chosen(A, dk, G, k0, t + 1, work)
    Delta -= np.outer(G[:, k0], G[:, k0])
    np.testing.assert_allclose(A, (Delta ** 2).sum(0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dk, dk0 - G[:, k0] ** 2, rtol=1e-14)
    assert gg == pytest.approx(G[:, k0] @ G[:, k0], rel=1e-14)


def test_qr_append_of_a_column_in_the_span():
    n = 30
    G = np.asfortranarray(np.column_stack([np.arange(n) * 1.0, np.ones(n)]))
    Q = np.zeros((n, 2), order="F")
    R = np.zeros((2, 2), order="F")
    E = np.zeros((0, 2), order="F")
    Y = np.zeros((n, 0), order="F")
    qr_append(Q, R, E, Y, G, 0, True)
    qr_append(Q, R, E, Y, G, 1, True)  # the constant column vanishes once centred
    assert R[1, 1] == 0 and np.all(Q[:, 1] == 0)
    np.testing.assert_allclose(Q @ R, G - G.mean(0), atol=1e-12)


def lazy_qr(n, cap, d):
    """The buffers of qr_step: Q_s, R, E, Es, U (the identity), prev, state, work."""
    return ([np.zeros((n, cap), order="F"), np.zeros((cap, cap), order="F"),
             np.zeros((d, cap), order="F"), np.zeros((d, cap), order="F"),
             np.asfortranarray(np.eye(cap))],
            np.empty(n), np.zeros(3 + cap), np.empty(n + 2 * (cap + 1) + d))


@pytest.mark.parametrize("center", [True, False])
def test_qr_step_is_qr_append_with_q_held_as_qs_u(center):
    """qr_step (Q = Q_s U, each column of Q_s formed one call late) with
    move_pivot_u against qr_append with move_pivot, column after column
    with moves in between: the same Q, R and E to rounding; a column nearly
    in the span of the earlier ones takes the second Gram-Schmidt pass, a
    column in it gives Q[:, t] = 0 and R[t, t] = 0, as in qr_append."""
    rng = np.random.default_rng(5)
    n, cap, d = 300, 16, 3
    K = rbf_kernel(rng.standard_normal((n, 4)), gamma=0.3)
    res = run(K, None, cap, tol=0.0)
    G = np.asfortranarray(res.G)
    G[:, 9] = 2.0 * G[:, 4] - G[:, 7] + 1e-3 * G[:, 9]  # cancels most of its norm
    G[:, 12] = G[:, 3] + 3.0  # in the span once centred (or nearly, if not)
    Y = np.asfortranarray(rng.standard_normal((n, d)))
    Y -= Y.mean(0) if center else 0.0
    ref = [G.copy(order="F"), np.zeros((n, cap), order="F"), np.zeros((cap, cap), order="F"),
           np.zeros((d, cap), order="F"), np.zeros((n, cap), order="F"), res.pivots.copy()]
    Gl, pl, Wl = G.copy(order="F"), res.pivots.copy(), np.zeros((n, cap), order="F")
    (Qs, R, E, Es, U), prev, state, work = lazy_qr(n, cap, d)
    moves = {5: 1, 10: 6, 13: 2, 15: 0}  # after column t: move t to position dst
    for t in range(cap):
        qr_append(ref[1], ref[2], ref[3], Y, ref[0], t, center)
        qr_step(Qs, R, E, Es, U, Y, Gl, t, center, prev, state, work)
        np.testing.assert_allclose(R[:t + 1, t], ref[2][:t + 1, t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(E[:, t], ref[3][:, t], rtol=0, atol=1e-12)
        if t == 12 and center:  # formed at once, as zero
            assert R[t, t] == 0 == ref[2][t, t] and np.all(Qs[:, t] == 0)
        if t in moves:
            move_pivot(*ref, t, moves[t], t + 1)
            move_pivot_u(Gl, U, R, E, Wl, pl, t, moves[t], t + 1)
    complete_pending(Qs, prev, state, cap)
    np.testing.assert_array_equal(pl, ref[5])
    np.testing.assert_array_equal(Gl, ref[0])
    np.testing.assert_allclose(Qs @ U, ref[1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(R, ref[2], rtol=0, atol=1e-12)
    np.testing.assert_allclose(E, ref[3], rtol=0, atol=1e-12)
    np.testing.assert_allclose(Es, Y.T @ Qs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(U.T @ U, np.eye(cap), atol=1e-14)


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------

def test_transform_extends_the_factor_to_new_points():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    csi = CSIDecomposition(gamma=0.1, rank=15, random_state=0).fit(X[:120], y[:120])
    np.testing.assert_allclose(csi.transform(X[:120]), csi.embedding_, atol=1e-8)
    Z = csi.transform(X[120:])
    K = rbf_kernel(X[120:], X[:120][csi.pivots_], gamma=0.1)
    np.testing.assert_allclose(Z @ csi.embedding_[csi.pivots_].T, K, atol=1e-10)
    pre = CSIDecomposition(kernel="precomputed", rank=15, random_state=0).fit(
        rbf_kernel(X[:120], gamma=0.1), y[:120])
    np.testing.assert_array_equal(pre.pivots_, csi.pivots_)
    np.testing.assert_allclose(pre.transform(rbf_kernel(X[120:], X[:120], gamma=0.1)), Z,
                               atol=1e-10)


def test_targets_are_one_hot_or_continuous():
    X, y = load_diabetes(return_X_y=True)
    reg = CSIDecomposition(gamma=0.1, rank=10).fit(X, y)
    assert reg.prediction_error_[0] == pytest.approx(((y - y.mean()) ** 2).sum())
    multi = CSIDecomposition(gamma=0.1, rank=10).fit(X, np.column_stack([y, -y]))
    assert multi.prediction_error_[0] == pytest.approx(2 * ((y - y.mean()) ** 2).sum())
    Xb, yb = load_breast_cancer(return_X_y=True)  # integer labels: two classes
    clf = CSIDecomposition(gamma=1e-6, rank=10).fit(Xb, yb)
    n1 = yb.mean()
    assert clf.prediction_error_[0] == pytest.approx(2 * len(yb) * n1 * (1 - n1))


def test_low_rank_pipelines_reach_the_full_kernel_score():
    """LS-SVM on the CSI factor (ridge on its rows) approaches the
    full-kernel score at a rank far below n."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    pipe = make_pipeline(CSIDecomposition(gamma=0.02, rank=20, random_state=0),
                         RidgeClassifier(alpha=1e-2))
    full = make_pipeline(CSIDecomposition(gamma=0.02, rank=len(X) * 2 // 3, tol=0,
                                          random_state=0), RidgeClassifier(alpha=1e-2))
    low, high = (cross_val_score(p, X, y, cv=3).mean() for p in (pipe, full))
    assert low > 0.95 and low > high - 0.02


@pytest.mark.parametrize("kwargs,match", [
    ({"rank": 500}, "rank=500"),
    ({"kappa": 1.5}, "kappa"),
    ({"delta": -1}, "delta"),
])
def test_bad_parameters(kwargs, match):
    X, y, _ = problem()
    with pytest.raises(ValueError, match=match):
        CSIDecomposition(**kwargs).fit(X, y)


def test_bad_targets():
    X, _, _ = problem()
    with pytest.raises(ValueError, match="Unknown label type"):
        CSIDecomposition().fit(X, np.arange(180).reshape(60, 3) % 4)


# ---------------------------------------------------------------------------
# CSI as the initial factor of the kernel learners
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [LogDetKernelLearner, VonNeumannKernelLearner,
                                 DefiniteBoost])
def test_learners_start_from_the_csi_factor(cls):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y_semi = y.copy()
    y_semi[::3] = -1
    kw = {"n_constraints": 60} if cls is DefiniteBoost else {}
    learner = cls(kernel="rbf", gamma=0.1, rank=12, low_rank="csi", random_state=0,
                  **kw).fit(X, y_semi)
    Y = side_information(y_semi)  # unlabeled rows carry no side information
    assert np.all(Y[y_semi == -1] == 0) and Y.shape[1] == 3
    res = cholesky_side_information(
        lambda p: rbf_kernel(X, X[p:p + 1], gamma=0.1)[:, 0], np.ones(len(X)), Y,
        max_rank=12, tol=1e-6)
    np.testing.assert_array_equal(learner.pivots_, res.pivots)
    assert learner.rank_ == 12


def test_csi_start_needs_labels():
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match="requires y"):
        LogDetKernelLearner(kernel="rbf", low_rank="csi").fit(X, constraints=[[0, 1, 1]])


def test_memory_follows_the_rank_not_n():
    """rank=None allows up to n columns; a run that stops early must not
    have allocated anything of size n x n (buffers grow by doubling)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 4000
    X = rng.standard_normal((n, 3))
    y = (X[:, 0] > 0).astype(int)
    tracemalloc.start()
    est = CSIDecomposition(gamma=0.5, tol=1e-3).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert est.rank_ < 100
    assert peak < 0.25 * n * n * 8  # an n x n float64 array is 128 MB


def test_plain_path_holds_two_factors_at_most():
    """y=None (plain incomplete Cholesky): the factor and its centred copy,
    which the QR overwrites, are the only n x m arrays held at once (a third,
    e.g. a temporary of squares for the column norms, would show here)."""
    import tracemalloc

    n, m = 20000, 40
    X = np.random.default_rng(0).standard_normal((n, 5))
    factor = n * m * 8
    tracemalloc.start()
    CSIDecomposition(gamma=0.2, rank=m, tol=0.0).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2.5 * factor


# ---------------------------------------------------------------------------
# Without usable side information CSI is plain incomplete Cholesky
# ---------------------------------------------------------------------------

#: The blobs of the reliability cases: 30 points, 4 features, 3 classes.
X_BLOBS, Y_BLOBS = make_blobs(30, 4, centers=3, random_state=0)
K_BLOBS = pairwise_kernels(X_BLOBS, metric="rbf", gamma=0.25)  # gamma=None: 1 / n_features


def plain_cholesky(K, rank):
    """Pivots and factor of pivoted incomplete Cholesky on the whole kernel."""
    G, piv, _, _ = pivoted_cholesky(lambda p: K[:, p], np.diag(K).copy(), rank, 0.0)
    return G, piv



@pytest.mark.parametrize("params, target", [
    ({"kappa": 0.0}, Y_BLOBS),                      # no weight on predicting y
    ({"delta": 0}, Y_BLOBS),                        # no look-ahead: the lower bound of §2.2
    ({}, np.zeros(30, dtype=int)),            # a single class: nothing to predict
    ({}, -np.ones(30, dtype=int)),            # every label "unlabeled" (one class)
    ({}, np.full(30, 3.5)),                   # a constant response
])
def test_csi_without_side_information_is_plain_cholesky(params, target):
    csi = CSIDecomposition(rank=12, tol=0.0, **params).fit(X_BLOBS, target)
    G_ref, piv_ref = plain_cholesky(K_BLOBS, 12)
    assert list(csi.pivots_) == list(piv_ref)
    np.testing.assert_allclose(csi.embedding_, G_ref, atol=1e-12)
    # Proposition 1: G G' equals K on the pivot columns
    G = csi.embedding_
    np.testing.assert_allclose(G @ G[csi.pivots_].T, K_BLOBS[:, csi.pivots_], atol=1e-10)
    # the reported prediction errors are those of the (centred) targets
    Y = np.eye(3)[Y_BLOBS] if target is Y_BLOBS else np.zeros((30, 1))
    Yc = Y - Y.mean(0)
    for k in (0, 5, 12):
        Qk = csi.Q_[:, :k]
        err = ((Yc - Qk @ (Qk.T @ Yc)) ** 2).sum()
        assert csi.prediction_error_[k] == pytest.approx(err, rel=1e-9, abs=1e-10)


def test_csi_one_sample_and_one_by_one_kernel():
    """One sample (scikit-learn's check_fit2d_1sample for the defaults) and a
    1 x 1 precomputed kernel: the factor is sqrt(k(x, x))."""
    check_fit2d_1sample("CSIDecomposition", CSIDecomposition())
    csi = CSIDecomposition().fit(X_BLOBS[:1], [0])
    np.testing.assert_allclose(csi.embedding_, [[1.0]])  # rbf: k(x, x) = 1
    pre = CSIDecomposition(kernel="precomputed").fit([[4.0]], [1])
    np.testing.assert_allclose(pre.embedding_, [[2.0]])
    assert list(pre.pivots_) == [0]
    np.testing.assert_allclose(pre.transform([[6.0]]), [[3.0]])


def test_csi_does_not_depend_on_the_scale_of_a_regression_y():
    """CSI's cost is normalised by tr(Y'Y): a huge y gives the pivots of the
    rescaled y; one whose squared norm overflows is a clear error."""
    response = X_BLOBS[:, 0] ** 2 + X_BLOBS[:, 1]
    ref = CSIDecomposition(rank=10, random_state=0).fit(X_BLOBS, response)
    big = CSIDecomposition(rank=10, random_state=0).fit(X_BLOBS, response * 1e150)
    assert list(big.pivots_) == list(ref.pivots_)
    np.testing.assert_allclose(big.embedding_, ref.embedding_, atol=1e-12)
    np.testing.assert_allclose(big.prediction_error_, ref.prediction_error_ * 1e300,
                               rtol=1e-9)
    with pytest.raises(ValueError, match=r"y is too large.*rescale y"):
        CSIDecomposition(rank=10).fit(X_BLOBS, response * 1e300)


@pytest.fixture(scope="module")
def iris_linear_csi():
    X, y = load_iris(return_X_y=True)
    return X, y, CSIDecomposition(kernel="linear", random_state=0).fit(X, y)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("s", [1e77, 1e100, 1e150, 1e-150])
def test_csi_does_not_depend_on_the_scale_of_the_kernel(iris_linear_csi, s, sparse):
    """CSI's cost is normalised by tr K: a kernel of any finite scale gives
    the pivots of the kernel at s = 1 and its factor times s.  The estimated
    gains' nu = dadv (2 dk - dadv) ~ diag^2 overflowed above ~1e154 (at
    s >= 1e77 for the linear kernel: 0 columns, "the kernel is zero") and
    underflowed at 1e-150 (other pivots, silently)."""
    X, y, ref = iris_linear_csi
    Xs = sp.csr_matrix(X * s) if sparse else X * s
    est = CSIDecomposition(kernel="linear", random_state=0).fit(Xs, y)
    assert list(est.pivots_) == list(ref.pivots_)
    np.testing.assert_allclose(est.embedding_ / s, ref.embedding_, rtol=1e-12,
                               atol=1e-12 * np.abs(ref.embedding_).max())
    np.testing.assert_allclose(est.R_ / s, ref.R_, rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(est.Q_, ref.Q_, atol=1e-11)
    # (the last errors and gains are rounding: iris is rank 4)
    for name, power in (("approximation_error_", 2), ("prediction_error_", 0),
                        ("gains_", 0)):
        value, expected = getattr(est, name) / s ** power, getattr(ref, name)
        np.testing.assert_allclose(value, expected, rtol=1e-12,
                                   atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose(est.transform(Xs[:9]) / s, ref.transform(X[:9]), atol=1e-11)


@pytest.mark.parametrize("e", [-300, -60, 60, 300])
def test_csi_at_a_power_of_two_scale_is_the_same_run(e):
    """The run works on K / 4^k with the largest diagonal entry in [1, 4): at
    a scale 2^e (exact) every output is that of s = 1, bit for bit, with G
    and R times 2^e and the approximation errors times 4^e."""
    X, y, _ = problem(classes=3)
    Y = np.eye(3)[y]
    K = X @ X.T * 7.0
    s = 2.0 ** e
    ref = run(K, Y, 8, delta=3, tol=0.0, random_state=0)
    res = run(K * s * s, Y, 8, delta=3, tol=0.0, random_state=0)
    assert list(res.pivots) == list(ref.pivots) and len(ref.pivots) == 3
    np.testing.assert_array_equal(res.G / s, ref.G)
    np.testing.assert_array_equal(res.R / s, ref.R)
    np.testing.assert_array_equal(res.Q, ref.Q)
    np.testing.assert_array_equal(res.approximation_error / (s * s), ref.approximation_error)
    for name in ("prediction_error", "gains", "predicted_gains"):
        np.testing.assert_array_equal(getattr(res, name), getattr(ref, name))
    plain, plain_ref = run(K * s * s, None, 8, tol=0.0), run(K, None, 8, tol=0.0)
    np.testing.assert_array_equal(plain.G / s, plain_ref.G)
    np.testing.assert_array_equal(plain.pivots, plain_ref.pivots)


@pytest.mark.parametrize("s", [1e77, 1e100, 1e150])
def test_csi_start_of_a_learner_at_large_scales(s):
    """LogDetKernelLearner(low_rank='csi') on s X: the initial factor has the
    pivots of X's (it said "the initial kernel is zero" from s = 1e77)."""
    X, y = load_iris(return_X_y=True)
    ref = LogDetKernelLearner(low_rank="csi", random_state=0).fit(X, y)
    est = LogDetKernelLearner(low_rank="csi", random_state=0).fit(X * s, y)
    assert list(est.pivots_) == list(ref.pivots_)
    assert (est.converged_, est.n_iter_) == (ref.converged_, ref.n_iter_)
    T, T0 = est.transform(X * s), ref.transform(X)
    np.testing.assert_allclose(T / s, T0, atol=1e-12 * np.abs(T0).max())


def test_csi_gains_out_of_range_are_an_error_not_a_zero_kernel():
    """Gains that are not finite for another reason than the kernel's scale
    (here a kernel with entries 1e200 off a unit diagonal) are an error that
    says so, and leaves a fitted estimator as it was; a trace that overflows
    is refused before any work."""
    y = np.arange(20) % 2
    K = np.eye(20)
    K[0, 5:] = K[5:, 0] = 1e200
    est = CSIDecomposition(kernel="precomputed", rank=5).fit(np.eye(20) + 0.1, y)
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match=r"estimated gains of CSI are not finite .*"
                                         r"largest diagonal entry 1\b.*rescale X or y"):
        est.fit(K, y)
    assert pickle.dumps(est) == before
    huge = np.eye(20) * 1e308
    for Y in (np.eye(2)[y], None):
        with pytest.raises(ValueError, match=r"trace overflows float64 \(largest diagonal "
                                             r"entry 1e\+308, n = 20\)"):
            run(huge, Y, 5)


def test_csi_start_of_a_learner_with_one_class():
    """LogDetKernelLearner(low_rank='csi') with a single class: the initial
    factor is plain pivoted incomplete Cholesky; pairs from such labels are
    a clear error, explicit constraints are learned from."""
    one = np.zeros(30, dtype=int)
    f = LowRankFactor("rbf", 10, 1e-6, {"gamma": None, "degree": 3, "coef0": 1},
                      method="csi")
    G_ref, piv_ref = plain_cholesky(K_BLOBS, 10)
    np.testing.assert_allclose(f.fit(X_BLOBS, one), G_ref, atol=1e-12)
    assert list(f.pivots_) == list(piv_ref)
    with pytest.raises(ValueError, match=r"one class"):
        LogDetKernelLearner(kernel="rbf", low_rank="csi", rank=10).fit(X_BLOBS, one)
    pairs = [[0, 1, 1], [0, 12, -1], [3, 4, 1]]
    learner = LogDetKernelLearner(kernel="rbf", low_rank="csi", rank=10,
                                  random_state=0).fit(X_BLOBS, one, constraints=pairs)
    assert list(learner.pivots_) == list(piv_ref)
    np.testing.assert_allclose(learner.factor_.transform(X_BLOBS), G_ref, atol=1e-10)
