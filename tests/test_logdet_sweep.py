"""The compiled LogDet sweep against its plain NumPy oracle, and its invariants."""

import numpy as np
import pytest
from sklearn_bregman._engine._logdet import logdet_pair_sweep

from tests.oracles import logdet_pair_sweep_reference


def random_problem(r, n=60, c=400, seed=0):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, r))
    i = rng.integers(0, n, c)
    j = (i + 1 + rng.integers(0, n - 1, c)) % n
    sign = np.where(rng.random(c) < 0.5, 1, -1).astype(np.int8)
    d0 = ((G[i] - G[j]) ** 2).sum(1)
    bound = np.where(sign > 0, 0.6 * d0, 1.5 * d0)
    A = rng.standard_normal((r, r))
    M0 = A @ A.T / r + np.eye(r)  # a non-trivial SPD start
    return G, i.astype(np.intp), j.astype(np.intp), sign, bound, M0


def run(fn, problem, slack, orders):
    G, i, j, sign, bound, M0 = problem
    M, nu, xi = M0.copy(), np.zeros(len(i)), bound.copy()
    counts = [fn(G, i, j, sign, bound, xi, nu, M, o, slack, 1e-3)[:2] for o in orders]
    return M, nu, xi, counts


def rel(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)


@pytest.mark.parametrize("r", [1, 2, 16, 64, 67])
@pytest.mark.parametrize("slack", [np.inf, 10.0, 0.3])
def test_sweep_matches_numpy_oracle(r, slack):
    problem = random_problem(r, seed=r)
    rng = np.random.default_rng(1)
    c = len(problem[1])
    # three sweeps: cyclic, shuffled, and a partial visit with repeats
    orders = [np.arange(c, dtype=np.intp), rng.permutation(c).astype(np.intp),
              rng.integers(0, c, c // 3).astype(np.intp)]
    M1, nu1, xi1, counts1 = run(logdet_pair_sweep, problem, slack, orders)
    M2, nu2, xi2, counts2 = run(logdet_pair_sweep_reference, problem, slack, orders)
    assert rel(M1, M2) < 1e-10
    assert rel(nu1, nu2) < 1e-10
    assert rel(xi1, xi2) < 1e-10
    assert counts1 == counts2
    assert np.array_equal(M1, M1.T)  # the kernel keeps M exactly symmetric
    assert (nu1 >= 0).all()
    if np.isinf(slack):
        assert np.array_equal(xi1, problem[4])  # hard: targets stay at the bounds


def _dist(G, i, j, M, c):
    v = G[i[c]] - G[j[c]]
    return v @ M @ v


def test_projection_meets_the_constraint_exactly():
    # A single hard projection lands the pair on its bound (p' = b).
    G, i, j, sign, bound, M0 = random_problem(8, c=50, seed=3)
    violated = [c for c in range(50) if sign[c] * (_dist(G, i, j, M0, c) - bound[c]) > 0]
    assert len(violated) > 10
    for c in violated:
        M, nu, xi = M0.copy(), np.zeros(50), bound.copy()
        logdet_pair_sweep(G, i, j, sign, bound, xi, nu, M, np.array([c], np.intp),
                          np.inf, 1e-3)
        assert _dist(G, i, j, M, c) == pytest.approx(bound[c], rel=1e-12)
        assert nu[c] > 0


def test_slack_projection_meets_the_moved_target():
    # With slack gamma, the pair lands on its updated target xi (eq. 23),
    # which moved from b towards the current distance.
    G, i, j, sign, bound, M0 = random_problem(8, c=50, seed=4)
    gamma = 0.7
    violated = [c for c in range(50) if sign[c] * (_dist(G, i, j, M0, c) - bound[c]) > 0]
    assert len(violated) > 10
    for c in violated:
        M, nu, xi = M0.copy(), np.zeros(50), bound.copy()
        p0 = _dist(G, i, j, M, c)
        logdet_pair_sweep(G, i, j, sign, bound, xi, nu, M, np.array([c], np.intp),
                          gamma, 1e-3)
        p = _dist(G, i, j, M, c)
        assert p == pytest.approx(xi[c], rel=1e-12)
        assert min(p0, bound[c]) < xi[c] < max(p0, bound[c])


def test_zero_length_pairs_are_skipped_and_counted():
    G, i, j, sign, bound, M0 = random_problem(4, c=20, seed=5)
    G[1] = G[0]
    i[:3], j[:3] = 0, 1
    M, nu, xi = M0.copy(), np.zeros(20), bound.copy()
    _, n_skipped, _ = logdet_pair_sweep(G, i, j, sign, bound, xi, nu, M,
                                        np.arange(20, dtype=np.intp), np.inf, 1e-3)
    assert n_skipped == 3
    assert (nu[:3] == 0).all()


def test_state_stays_positive_definite_after_a_million_projections():
    G, i, j, sign, bound, _ = random_problem(16, n=200, c=2000, seed=6)
    M, nu, xi = np.eye(16), np.zeros(2000), bound.copy()
    order = np.arange(2000, dtype=np.intp)
    for _ in range(500):  # 10^6 projections
        logdet_pair_sweep(G, i, j, sign, bound, xi, nu, M, order, 1.0, 1e-3)
    assert np.isfinite(M).all()
    assert np.linalg.eigvalsh(M).min() > 0
