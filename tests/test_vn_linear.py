"""Von Neumann projections on general symmetric low-rank rows: the compiled
sweep against a dense expm / brentq oracle, the row held after one
projection, and the KKT conditions after cyclic sweeps."""

import numpy as np
import pytest
from scipy import linalg
from sklearn_bregman._engine._vn_linear import vonneumann_linear_sweep

from tests.oracles import (
    row_abs_matrix,
    row_matrix,
)
from tests.oracles import (
    vonneumann_linear_sweep_reference as linear_sweep_reference,
)


def random_state(r, rng):
    A = rng.standard_normal((r, r))
    X0 = A @ A.T / r + 0.3 * np.eye(r)
    L0 = linalg.logm(X0).real
    return (L0 + L0.T) / 2


def random_rows(r, q, n_rows, rng, L0, kinds="mixed"):
    """Rows of q signed vectors, each normalised to unit scale, with targets
    that a projection can reach: for q = r the vectors come from an
    eigendecomposition of a random symmetric matrix."""
    V = np.zeros((n_rows, q, r))
    S = np.zeros((n_rows, q), dtype=np.int8)
    X0 = linalg.expm(L0)
    for c in range(n_rows):
        if q == r:
            A = rng.standard_normal((r, r))
            w, U = np.linalg.eigh(A + A.T)
            V[c] = (U * np.sqrt(np.abs(w))).T
            S[c] = np.where(w >= 0, 1, -1)
        else:
            V[c] = rng.standard_normal((q, r))
            S[c] = rng.choice([1, -1], q) if q > 1 else 1
            if q > 1:
                S[c, 0], S[c, 1] = 1, -1  # a relative (indefinite) row
        V[c] /= np.sqrt(np.trace(row_abs_matrix(V[c], S[c])) / r)
    kind = (rng.random(n_rows) < 0.6).astype(np.int8) if kinds == "mixed" else \
        np.full(n_rows, kinds, dtype=np.int8)
    f0 = np.array([np.trace(X0 @ row_matrix(V[c], S[c])) for c in range(n_rows)])
    spread = np.array([np.trace(X0 @ row_abs_matrix(V[c], S[c])) for c in range(n_rows)])
    # targets around f0: some violated, some satisfied, some negative
    bound = f0 + spread * rng.uniform(-0.4, 0.3, n_rows)
    if q > 1:  # a relative row d(a, b) - d(c, d) <= -margin
        bound[0] = -0.2 * spread[0]
    return V, S, kind, bound


def rel(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1.0)


def run_both(V, S, kind, bound, L0, orders, slack, correction, rtol=1e-6):
    out = []
    for sweep in (vonneumann_linear_sweep, linear_sweep_reference):
        L, nu, xi = L0.copy(), np.zeros(len(kind)), bound.copy()
        counts = [sweep(V, S, kind, bound, xi, nu, L, o, slack, rtol, correction)[:3]
                  for o in orders]
        out.append((L, nu, xi, counts))
    return out


CASES = [(r, q) for r in (1, 2, 5, 12, 30) for q in sorted({1, 2, r}) if q <= r]


@pytest.mark.parametrize("r, q", CASES)
@pytest.mark.parametrize("slack, correction", [(np.inf, True), (0.5, True), (np.inf, False)])
def test_sweep_matches_dense_oracle(r, q, slack, correction):
    rng = np.random.default_rng(100 * r + q)
    L0 = random_state(r, rng)
    n_rows = 6 if r < 30 else 4
    V, S, kind, bound = random_rows(r, q, n_rows, rng, L0)
    orders = [np.arange(n_rows, dtype=np.intp), rng.permutation(n_rows).astype(np.intp),
              np.arange(n_rows, dtype=np.intp)[::-1].copy()]
    (L1, nu1, xi1, c1), (L2, nu2, xi2, c2) = run_both(V, S, kind, bound, L0, orders,
                                                      slack, correction)
    assert rel(L1, L2) < 1e-9
    assert rel(nu1, nu2) < 1e-9
    assert rel(xi1, xi2) < 1e-9
    assert c1 == c2
    assert np.array_equal(L1, L1.T)


def wide_state(r, rng, lo=-25.0, hi=3.0):
    """log X with eigenvalues spread over [lo, hi], as log S^2 of a low-rank kernel."""
    Q = np.linalg.qr(rng.standard_normal((r, r)))[0]
    L = (Q * np.linspace(lo, hi, r)) @ Q.T
    return (L + L.T) / 2


@pytest.mark.parametrize("r, q", [(10, 1), (10, 2), (30, 1), (30, 3)])
def test_far_targets_on_a_wide_spectrum(r, q):
    """Targets 10^-4 and 10^2 times f(0) on semidefinite rows of unit scale
    (tr(X0 |C|) = 1), log X0 spread over [-25, 3]: f is then like an
    exponential in a, where plain Newton steps on g crawl or overshoot."""
    rng = np.random.default_rng(20 + r + q)
    L0 = wide_state(r, rng)
    X0 = linalg.expm(L0)
    V = rng.standard_normal((4, q, r))
    S = np.ones((4, q), np.int8)
    S[2:] = -1  # negative semidefinite rows too
    for c in range(4):
        V[c] /= np.sqrt(np.trace(X0 @ row_abs_matrix(V[c], S[c])))
    f0 = np.array([np.trace(X0 @ row_matrix(V[c], S[c])) for c in range(4)])
    kind = np.array([1, 0, 0, 1], np.int8)
    bound = f0 * np.array([1e-4, 1e2, 1e-4, 1e2])
    order = np.arange(4, dtype=np.intp)
    (L1, nu1, xi1, c1), (L2, nu2, xi2, c2) = run_both(V, S, kind, bound, L0, [order],
                                                      np.inf, True)
    assert c1 == c2 and c1[0][2] == 4
    assert rel(L1, L2) < 1e-9 and rel(nu1, nu2) < 1e-9
    L, nu, xi = L0.copy(), np.zeros(4), bound.copy()
    out = vonneumann_linear_sweep(V, S, kind, bound, xi, nu, L, order, np.inf, 1e-6)
    assert out[3] <= 4 * 15  # root finder evaluations


def test_null_rows_are_skipped_and_counted():
    rng = np.random.default_rng(5)
    r, q = 6, 2
    L0 = random_state(r, rng)
    V, S, kind, bound = random_rows(r, q, 6, rng, L0)
    V[1] = 0.0           # every vector zero
    S[3] = 0             # every slot unused
    V[5, 1] = V[5, 0]    # v v' - v v' = 0
    V[4, 1] = 0.0        # one zero vector among others: an ordinary row
    bound[4] = 0.5 * np.trace(linalg.expm(L0) @ row_matrix(V[4], S[4]))  # C >= 0 now
    order = np.arange(6, dtype=np.intp)
    (L1, nu1, xi1, c1), (L2, nu2, xi2, c2) = run_both(V, S, kind, bound, L0, [order],
                                                      np.inf, True)
    assert c1 == c2 and c1[0][1] == 3
    assert nu1[1] == nu1[3] == nu1[5] == 0.0
    assert rel(L1, L2) < 1e-9 and rel(nu1, nu2) < 1e-9


@pytest.mark.parametrize("r, q", [(1, 1), (5, 2), (12, 2), (12, 12), (30, 3)])
def test_equality_row_holds_after_one_projection(r, q):
    rng = np.random.default_rng(7 + r)
    L0 = random_state(r, rng)
    V, S, kind, bound = random_rows(r, q, 1, rng, L0, kinds=0)
    L, nu, xi = L0.copy(), np.zeros(1), bound.copy()
    out = vonneumann_linear_sweep(V, S, kind, bound, xi, nu, L, np.zeros(1, np.intp),
                                  np.inf, 1e-6)
    assert out[2] == 1
    C = row_matrix(V[0], S[0])
    scale = np.trace(linalg.expm(L) @ row_abs_matrix(V[0], S[0]))
    assert abs(np.trace(linalg.expm(L) @ C) - xi[0]) <= 1e-10 * scale
    assert np.allclose(L, L0 - nu[0] * C, rtol=0, atol=1e-13)


def feasible_problem(r, n_rows, rng):
    """Mixed rows (q = 1, 2 and r) feasible at a random X*, from another X0."""
    L0 = random_state(r, rng)
    Ls = random_state(r, rng)
    Xs = linalg.expm(Ls)
    blocks = [random_rows(r, q, n_rows, rng, L0) for q in (1, 2, r)]
    V = np.zeros((3 * n_rows, r, r))
    S = np.zeros((3 * n_rows, r), dtype=np.int8)
    for b, (Vb, Sb, _, _) in enumerate(blocks):
        q = Vb.shape[1]
        V[b * n_rows:(b + 1) * n_rows, :q] = Vb
        S[b * n_rows:(b + 1) * n_rows, :q] = Sb
    m = 3 * n_rows
    kind = np.where(np.arange(m) % 3 == 0, 0, 1).astype(np.int8)
    fs = np.array([np.trace(Xs @ row_matrix(V[c], S[c])) for c in range(m)])
    # inequality rows: X* strictly inside; equality rows: X* on them
    bound = np.where(kind > 0, fs + 0.05 * np.abs(fs), fs)
    return V, S, kind, bound, L0


@pytest.mark.parametrize("slack", [np.inf, 4.0])
def test_cyclic_sweeps_reach_the_kkt_point(slack):
    rng = np.random.default_rng(11)
    r = 5
    V, S, kind, bound, L0 = feasible_problem(r, 3, rng)
    m = len(kind)
    L, nu, xi = L0.copy(), np.zeros(m), bound.copy()
    order = np.arange(m, dtype=np.intp)
    for _ in range(3000):
        nu_old = nu.copy()
        vonneumann_linear_sweep(V, S, kind, bound, xi, nu, L, order, slack, 1e-6)
        if np.abs(nu - nu_old).sum() <= 1e-13 * (np.abs(nu).sum() + 1e-300):
            break
    else:
        pytest.fail("sweeps did not settle")
    Cs = np.array([row_matrix(V[c], S[c]) for c in range(m)])
    # stationarity: log X - log X0 = -sum_c nu_c C_c
    assert np.abs(L - L0 + np.einsum("c,cij->ij", nu, Cs)).max() <= 1e-9
    X = linalg.expm(L)
    f = np.einsum("ij,cji->c", X, Cs)
    Cabs = np.array([row_abs_matrix(V[c], S[c]) for c in range(m)])
    scale = np.einsum("ij,cji->c", X, Cabs)
    # feasibility at the targets; the targets are b + nu / gamma
    assert np.all(np.where(kind > 0, f - xi, np.abs(f - xi)) <= 1e-6 * scale)
    if np.isinf(slack):
        assert np.array_equal(xi, bound)
    else:
        assert np.allclose(xi - bound, nu / slack, rtol=1e-12, atol=1e-14)
    assert np.all(nu[kind > 0] >= 0.0)
    active = nu > 1e-8
    assert np.all(np.abs(f - xi)[active] <= 1e-6 * scale[active])
    assert active.any() and (kind > 0).any()


def test_without_correction_a_satisfied_row_moves_onto_its_boundary():
    """The App. B mistake: with no dual correction a satisfied inequality is
    projected onto tr(X C) = xi (its dual turns negative)."""
    rng = np.random.default_rng(3)
    r = 6
    L0 = random_state(r, rng)
    V, S, _, _ = random_rows(r, 2, 1, rng, L0)
    C = row_matrix(V[0], S[0])
    f0 = np.trace(linalg.expm(L0) @ C)
    bound = np.array([f0 + 0.5 * np.trace(linalg.expm(L0) @ row_abs_matrix(V[0], S[0]))])
    kind = np.ones(1, np.int8)
    order = np.zeros(1, np.intp)
    for correction, moves in [(True, 0), (False, 1)]:
        L, nu, xi = L0.copy(), np.zeros(1), bound.copy()
        out = vonneumann_linear_sweep(V, S, kind, bound, xi, nu, L, order, np.inf, 1e-6,
                                      correction)
        assert out[0] == 1 and out[2] == moves
        assert (nu[0] < 0) == (not correction)


def test_an_unreachable_hard_row_is_left_alone():
    """tr(X v v') <= -1 has no solution: no root, the state does not move."""
    rng = np.random.default_rng(8)
    r = 4
    L0 = random_state(r, rng)
    V = rng.standard_normal((1, 1, r))
    S = np.ones((1, 1), np.int8)
    kind, bound = np.ones(1, np.int8), np.array([-1.0])
    L, nu, xi = L0.copy(), np.zeros(1), bound.copy()
    out = vonneumann_linear_sweep(V, S, kind, bound, xi, nu, L, np.zeros(1, np.intp),
                                  np.inf, 1e-6)
    assert out[:3] == (0, 0, 0) and out[3] <= 200
    assert np.array_equal(L, L0) and nu[0] == 0.0


def test_rejects_inconsistent_arguments():
    V = np.zeros((2, 1, 3))
    S = np.ones((2, 1), np.int8)
    kind = np.ones(2, np.int8)
    b = np.ones(2)
    with pytest.raises(ValueError):
        vonneumann_linear_sweep(V, S, kind, b, b.copy(), np.zeros(2), np.zeros((2, 2)),
                                np.zeros(1, np.intp), np.inf, 1e-6)
    with pytest.raises(ValueError):
        vonneumann_linear_sweep(V, S, kind, b, b.copy(), np.zeros(2), np.zeros((3, 3)),
                                np.array([2], np.intp), np.inf, 1e-6)
    with pytest.raises(ValueError):
        vonneumann_linear_sweep(V, S, -kind, b, b.copy(), np.zeros(2), np.zeros((3, 3)),
                                np.zeros(1, np.intp), np.inf, 1e-6)
