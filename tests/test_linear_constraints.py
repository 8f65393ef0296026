"""Relative, similarity and general linear constraints (JMLR 2009, §6.2.2).

- the compiled LogDet sweep on general rows against its dense oracle;
- each kind's projection against the one-constraint Bregman projection
  solved densely in n x n: ``(K0^-1 + a A)^-1`` (LogDet) or
  ``expm(log K0 - a A)`` (von Neumann), ``a`` by a scalar root finder;
- the KKT conditions of a problem mixing every kind;
- the App. B counter-example on the general rows;
- the containers' validation and the learners' interface.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import linalg
from scipy.optimize import brentq
from sklearn.datasets import load_iris
from sklearn.preprocessing import StandardScaler
from sklearn_bregman._engine._linear import logdet_linear_sweep

from sklearn_bregman import LogDetKernelLearner, TripletClassifier, VonNeumannKernelLearner
from sklearn_bregman._constraints._rows import build_rows
from sklearn_bregman._engine import LinearRows, linear_projections, row_values
from sklearn_bregman._factors._factors import orthonormal_basis
from sklearn_bregman.constraints import (
    LinearConstraints,
    PairConstraints,
    RelativeConstraints,
    SimilarityConstraints,
    TripletConstraints,
    relative_from_labels,
)
from tests.oracles import logdet_linear_sweep_reference

LEARNERS = {"logdet": LogDetKernelLearner, "vonneumann": VonNeumannKernelLearner}


def random_rows(r, q, c, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(r, r))
    M0 = A @ A.T / r + np.eye(r)
    V = rng.normal(size=(c, q, r))
    S = rng.choice([-1, 1], size=(c, q)).astype(np.int8)
    kind = rng.choice([0, 1], size=c).astype(np.int8)
    C = np.einsum("ck,cki,ckj->cij", S.astype(float), V, V)
    f = np.einsum("cij,ij->c", C, M0)
    bound = f + rng.normal(size=c) * np.abs(f).mean() * 0.3
    if q == 1:  # one vector: tr(M C) keeps the sign of s
        bound = np.abs(bound) * S[:, 0]
    return V, S, kind, bound, M0


@pytest.mark.parametrize("r, q", [(1, 1), (2, 2), (5, 2), (12, 2), (8, 4), (10, 10)])
@pytest.mark.parametrize("slack", [np.inf, 0.5])
@pytest.mark.parametrize("correction", [True, False])
def test_logdet_linear_sweep_matches_the_dense_oracle(r, q, slack, correction):
    c = 3 * r + 4
    V, S, kind, bound, M0 = random_rows(r, q, c, seed=r * 10 + q)
    V[0] = 0.0  # a row with no vector: skipped and counted
    out = []
    for fn in (logdet_linear_sweep, logdet_linear_sweep_reference):
        M, xi, nu = M0.copy(), bound.copy(), np.zeros(c)
        stats = [fn(V, S, kind, bound, xi, nu, M, np.arange(c), slack, 1e-9, correction)
                 for _ in range(3)]  # several sweeps: duals give back
        out.append((M, xi, nu, [s[:3] for s in stats]))
    (M1, xi1, nu1, s1), (M2, xi2, nu2, s2) = out
    assert np.abs(M1 - M2).max() <= 1e-9 * np.abs(M2).max()
    assert np.abs(nu1 - nu2).max() <= 1e-9 * max(np.abs(nu2).max(), 1e-300)
    assert np.abs(xi1 - xi2).max() <= 1e-9 * max(np.abs(xi2).max(), 1.0)
    assert s1 == s2
    assert s1[0][1] >= 1  # the zero row
    if correction:
        assert np.all(nu1[kind == 1] >= -1e-12)


def test_one_equality_projection_lands_on_its_row():
    V, S, kind, bound, M0 = random_rows(6, 2, 1, seed=5)
    kind[:] = 0
    M, xi, nu = M0.copy(), bound.copy(), np.zeros(1)
    logdet_linear_sweep(V, S, kind, bound, xi, nu, M, np.arange(1), np.inf, 1e-9)
    C = np.einsum("k,ki,kj->ij", S[0].astype(float), V[0], V[0])
    assert np.trace(M @ C) == pytest.approx(bound[0], abs=1e-10 * np.abs(C).max())
    assert linalg.eigvalsh(M)[0] > 0


# --------------------------------------------------------------------------
# Each kind against the dense one-constraint Bregman projection
# --------------------------------------------------------------------------

def dense_projection(K0, A, b, divergence):
    """The Bregman projection of K0 onto tr(K A) = b, solved in n x n."""
    A = 0.5 * (A + A.T)
    if divergence == "logdet":
        K0inv = np.linalg.inv(K0)

        def K(a):
            return np.linalg.inv(K0inv + a * A)
        w = linalg.eigvalsh(K0 @ A) if False else np.linalg.eigvals(K0 @ A).real
        lo = -1 / w.max() if w.max() > 1e-12 else -1e6
        hi = -1 / w.min() if w.min() < -1e-12 else 1e6
    else:
        L0 = linalg.logm(K0).real

        def K(a):
            return linalg.expm(L0 - a * A)
        lo, hi = -50.0, 50.0

    def g(a):
        return np.trace(K(a) @ A) - b

    lo_, hi_ = lo + 1e-9 * abs(lo), hi - 1e-9 * abs(hi)
    a = brentq(g, lo_, hi_, xtol=1e-15, rtol=1e-15, maxiter=500)
    return K(a)


def kind_cases(n, rng):
    """(container, dense A, bound) for one row of every kind."""
    i, j, k, l = 0, 3, 5, 7  # noqa: E741
    E = np.eye(n)
    d = lambda a, b: np.outer(E[a] - E[b], E[a] - E[b])  # noqa: E731
    sym = lambda a, b: 0.5 * (np.outer(E[a], E[b]) + np.outer(E[b], E[a]))  # noqa: E731
    A_sparse = sp.random(n, n, density=0.2, random_state=1, format="csr")
    Z = rng.normal(size=(n, 2))
    s = np.array([1.0, -0.5])
    return {
        "relative": (RelativeConstraints([i], [j], [k], [l], ratio=2.0, margin=0.1,
                                         equality=True),
                     2.0 * d(i, j) - d(k, l), -0.1),
        "relative-3": (RelativeConstraints([i], [j], [i], [l], equality=True),
                       d(i, j) - d(i, l), 0.0),
        "relative-K": (RelativeConstraints([i], [j], [k], [l], ratio=1.5, margin=0.1,
                                           equality=True, measure="similarity"),
                       sym(k, l) - 1.5 * sym(i, j), -0.1),
        "relative-Kii": (RelativeConstraints([i], [i], [k], [l], equality=True,
                                             measure="similarity"),
                         sym(k, l) - sym(i, i), 0.0),
        "similarity": (SimilarityConstraints([i], [j], [0], [0.3]), sym(i, j), 0.3),
        "diagonal": (SimilarityConstraints([k], [k], [0], [2.0]), sym(k, k), 2.0),
        "sparse": (LinearConstraints([A_sparse], [0.4], sense=0),
                   A_sparse.toarray(), 0.4),
        "factored": (LinearConstraints([(Z, s)], [0.2], sense=0),
                     (Z * s) @ Z.T, 0.2),
    }


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
@pytest.mark.parametrize("case", ["relative", "relative-3", "relative-K", "relative-Kii",
                                  "similarity", "diagonal", "sparse", "factored"])
def test_each_kind_is_the_dense_bregman_projection(divergence, case):
    # full rank (r = n): the learner's kernel is the dense projection itself
    n = 12
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, n))
    con, A, b = kind_cases(n, rng)[case]
    learner = LEARNERS[divergence](rank=n, slack=np.inf, tol=1e-12, max_iter=50,
                                   random_state=0).fit(X, constraints=con)
    K = learner.learned_kernel(X)
    K_dense = dense_projection(X @ X.T, A, b, divergence)
    assert learner.converged_
    assert np.abs(K - K_dense).max() <= 1e-9 * np.abs(K_dense).max()


# --------------------------------------------------------------------------
# A problem mixing every kind: KKT at convergence
# --------------------------------------------------------------------------

def mixed_constraints(X, rng):
    """Every kind at once, feasible by construction: the bounds are met (with
    room on half of the inequalities) by the kernel K* = X M* X' of a random
    M*, computed densely in n x n; the start M = I meets few of them."""
    n, d = X.shape
    A = rng.normal(size=(d, d))
    K = X @ (A @ A.T + 0.2 * np.eye(d)) @ X.T
    sq = lambda a, b: K[a, a] + K[b, b] - 2 * K[a, b]  # noqa: E731
    room = lambda v, sense: v + sense * 0.5 * abs(v)  # noqa: E731
    pi, pj, ps = [0, 1, 2], [5, 6, 9], [1, -1, 1]
    pb = [room(sq(a, b), s) if k % 2 else sq(a, b) for k, (a, b, s) in
          enumerate(zip(pi, pj, ps))]
    ri, rj, rk, rl = [0, 2, 4], [1, 3, 5], [0, 2, 6], [8, 9, 10]
    rm = [-(1.5 * sq(a, b) - sq(c, e)) - (0.3 * abs(sq(c, e)) if k == 1 else 0.0)
          for k, (a, b, c, e) in enumerate(zip(ri, rj, rk, rl))]
    em = -(sq(11, 12) - sq(11, 13))
    si, sj, ss = [3, 4, 7], [7, 4, 8], [-1, 0, 1]
    sb = [K[3, 7] - 0.2 * abs(K[3, 7]), K[4, 4], K[7, 8]]
    ones = np.ones(n)
    # an outlier triplet (a, b | c) that K* orders with ratio 1.2 both ways
    trip = next([a, b, c] for a in range(n) for b in range(a + 1, n) for c in range(n)
                if c not in (a, b) and 1.2 * sq(a, b) <= min(sq(a, c), sq(b, c))
                and sq(a, b) > 0.3 * min(sq(a, c), sq(b, c)))
    return [
        PairConstraints(pi, pj, ps, pb),
        RelativeConstraints(ri, rj, rk, rl, ratio=1.5, margin=rm),
        RelativeConstraints([11], [12], [11], [13], margin=em, equality=True),
        SimilarityConstraints(si, sj, ss, sb),
        LinearConstraints([sp.identity(n, format="csr"), (ones, [1.0])],
                          [np.trace(K), ones @ K @ ones + 1.0], sense=[0, 1]),
        TripletConstraints(outlier=[trip]),
    ]


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
@pytest.mark.parametrize("slack", [np.inf, 2.0])
def test_mixed_kinds_satisfy_kkt(slack, divergence):
    rng = np.random.default_rng(1)
    n, d = 18, 6
    X = rng.normal(size=(n, d))
    cons = mixed_constraints(X, rng)
    learner = LEARNERS[divergence](rank=d, slack=slack, tol=1e-9, max_iter=20000,
                                   order="cyclic", ratio=1.2, random_state=0)
    learner.fit(X, constraints=cons)
    assert learner.converged_
    M = learner.metric_
    # rebuild the rows the engine saw (same bounds: the learner's constraints_),
    # in the engine's coordinates: G0 = X (LogDet, from I) or the orthonormal
    # basis U of X = U S V' (von Neumann, from S^2; its state X_U = S V' M V S)
    if divergence == "logdet":
        B, X0, state = X, np.eye(d), M
        grad = np.linalg.inv(X0) - np.linalg.inv(M)  # of -logdet, at M minus at X0
    else:
        U, s, Vt = orthonormal_basis(X)
        B, X0 = U, np.diag(s ** 2)
        state = (s[:, None] * Vt) @ M @ (Vt.T * s)
        grad = linalg.logm(state).real - np.diag(np.log(s ** 2))  # of tr(X log X - X)
    rows = build_rows(learner.constraints_, B, X0, triplet_ratio=learner.ratio)
    C = np.einsum("ck,cki,ckj->cij", rows.S.astype(float), rows.V, rows.V)
    nu = learner.dual_coef_ * rows.scale * rows.flip  # back to the rows' units
    # stationarity: grad phi(X) - grad phi(X0) = -sum nu_c C_c
    rhs = -np.einsum("c,cij->ij", nu, C)
    assert np.abs(grad - rhs).max() <= 1e-7 * max(np.abs(grad).max(), 1.0)
    # feasibility against the targets, and the duals' signs
    f = row_values(rows, state)
    xi = rows.bound + (0 if np.isinf(slack) else nu / slack)
    ineq = rows.kind == 1
    assert np.all(f[ineq] - xi[ineq] <= 1e-8)
    assert np.all(np.abs(f[~ineq] - xi[~ineq]) <= 1e-8)
    assert np.all(nu[ineq] >= 0)
    # complementary slackness
    active = nu[ineq] > 1e-8
    assert np.all(np.abs(f[ineq][active] - xi[ineq][active]) <= 1e-8)
    assert 0 < active.sum() < ineq.sum()  # a real mix of active and slack rows


@pytest.mark.parametrize("slack", [np.inf, 1.0])
def test_logdet_divergence_beats_feasible_points(slack):
    # the optimum of a convex problem: any feasible point we can construct
    # (scalings t I of the start) is at least as far in LogDet divergence
    rng = np.random.default_rng(2)
    n, d = 15, 5
    X = rng.normal(size=(n, d))
    rc = RelativeConstraints([0, 1], [2, 3], [0, 1], [4, 5], margin=0.0)
    sc = SimilarityConstraints([6], [6], [-1], [2.0 * (X[6] @ X[6])])
    learner = LogDetKernelLearner(rank=d, slack=np.inf, tol=1e-10, max_iter=5000,
                                  random_state=0).fit(X, constraints=[rc, sc])
    assert learner.converged_
    M = learner.metric_

    def D(M):
        return np.trace(M) - np.log(np.linalg.det(M)) - d

    rows = build_rows([rc, sc], X, np.eye(d))
    found = 0
    for A in [np.eye(d) * t for t in np.linspace(0.5, 5, 46)] + [
            np.diag(rng.uniform(0.5, 4, d)) for _ in range(200)]:
        f = row_values(rows, A)
        if np.all(f <= rows.bound + 1e-12):
            found += 1
            assert D(M) <= D(A) + 1e-10
    assert found > 0


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
def test_appendix_b_counter_example_on_general_rows(divergence):
    # JMLR 2009 App. B on the general rows: min D(X, I) s.t. X11 + X22 - 2 X12
    # >= 1 as the row -(e1 - e2)(e1 - e2)' <= -1.  I is feasible; without the
    # dual correction the equality's projection lands elsewhere.
    v = np.array([1.0, -1.0])
    rows = LinearRows(V=v.reshape(1, 1, 2) / np.sqrt(2), S=np.array([[-1]], np.int8),
                      kind=np.array([1], np.int8), bound=np.array([-0.5]),
                      scale=np.array([2.0]), flip=np.array([-1.0]),
                      skipped=np.array([False]))
    X0 = np.eye(2) if divergence == "logdet" else np.zeros((2, 2))
    fixed = linear_projections(rows, X0, divergence=divergence, max_iter=5)
    wrong = linear_projections(rows, X0, divergence=divergence, max_iter=5,
                               dual_correction=False)
    to_x = (lambda M: M) if divergence == "logdet" else linalg.expm
    assert np.array_equal(to_x(fixed.state), np.eye(2)) and fixed.dual[0] == 0.0
    X_wrong = to_x(wrong.state)
    assert v @ X_wrong @ v == pytest.approx(1.0, rel=1e-9)
    assert not np.allclose(X_wrong, np.eye(2), atol=1e-2)


# --------------------------------------------------------------------------
# Interface
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
def test_relative_from_labels_and_repeatable(iris, divergence):
    X, y = iris
    kw = dict(kernel="rbf", rank=15, label_constraints="relative", n_constraints=150,
              random_state=3)
    a = LEARNERS[divergence](**kw).fit(X, y)
    b = LEARNERS[divergence](**kw).fit(X, y)
    assert np.array_equal(a.metric_, b.metric_)
    assert a.converged_ and a.max_violation_ <= a.tol
    assert isinstance(a.constraints_[0], RelativeConstraints)
    assert len(a.dual_coef_) == 150
    assert np.all(np.linalg.eigvalsh(a.metric_) > 0)  # learned kernel PSD


def test_triplet_classifier_accepts_the_kernel_learners(iris):
    X, y = iris
    from sklearn_bregman.constraints import triplets_from_labels

    t = triplets_from_labels(y, 300, random_state=0)
    clf = TripletClassifier(LogDetKernelLearner(kernel="rbf", rank=15, random_state=0),
                            preprocessor=X)
    clf.fit(t[:200])
    assert clf.score(t[200:]) > 0.9


def test_relative_constraints_validation():
    # a pair joining a point to itself, and a pair compared with itself, are rows
    # (a triplet or quadruplet repeating a point gives them; tests/test_self_tuples.py)
    assert len(RelativeConstraints([1], [1], [2], [3])) == 1
    assert len(RelativeConstraints([1], [2], [2], [1])) == 1
    with pytest.raises(ValueError, match="ratio must hold finite numbers > 0"):
        RelativeConstraints([1], [2], [1], [3], ratio=-1.0)
    with pytest.raises(ValueError, match="margin must hold finite numbers"):
        RelativeConstraints([1], [2], [1], [3], margin=np.nan)
    with pytest.raises(ValueError, match="one entry per constraint"):
        RelativeConstraints([1, 2], [2, 3, 4], [1], [3])
    with pytest.raises(TypeError, match="equality must hold booleans"):
        RelativeConstraints([1], [2], [1], [3], equality=[1])
    with pytest.raises(ValueError, match="measure must be 'distance' or 'similarity'"):
        RelativeConstraints([1], [2], [1], [3], measure="kernel")
    # diagonal entries are fine for kernel entries, not for distances
    assert len(RelativeConstraints([1], [1], [2], [2], measure="similarity")) == 1


def test_similarity_and_linear_validation():
    with pytest.raises(ValueError, match="sense must be"):
        SimilarityConstraints([0], [1], [2], [0.5])
    with pytest.raises(ValueError, match="diagonal entry"):
        SimilarityConstraints([0], [0], [1], [-0.5])
    with pytest.raises(ValueError, match="bound must hold finite numbers"):
        SimilarityConstraints([0], [1], [1], [np.inf])
    with pytest.raises(ValueError, match="matrix 0 must be square"):
        LinearConstraints([np.ones((3, 4))], [1.0])
    with pytest.raises(ValueError, match="matrix 0 contains NaN"):
        LinearConstraints([np.full((3, 3), np.nan)], [1.0])
    with pytest.raises(ValueError, match="2 matrices but 3 bounds"):
        LinearConstraints([np.eye(3), np.eye(3)], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="matrices must be a matrix"):
        LinearConstraints({"A": np.eye(3)}, [1.0])
    # one matrix on its own: sparse, dense or factored; a stack of matrices
    for one in (sp.identity(3, format="csr"), np.eye(3), (np.ones(3), [1.0])):
        assert len(LinearConstraints(one, 1.0)) == 1
    assert len(LinearConstraints(np.stack([np.eye(3)] * 2), [1.0, 2.0])) == 2


def test_fit_names_the_bad_constraint(iris):
    X, y = iris
    learner = LogDetKernelLearner(rank=4)
    with pytest.raises(ValueError, match="constraints: RelativeConstraints index out of "
                                         "range in row 1"):
        learner.fit(X, constraints=RelativeConstraints([0, 1], [2, 500], [0, 1], [3, 4]))
    with pytest.raises(ValueError, match="LinearConstraints matrix 0 is 5 x 5"):
        learner.fit(X, constraints=LinearConstraints([np.eye(5)], [1.0]))
    with pytest.raises(ValueError, match="triplets: index out of range"):
        learner.fit(X, triplets=[[0, 1, 1000]])


def test_infeasible_hard_rows_warn_and_do_not_converge(iris):
    X, y = iris
    # d(0, 1) >= 2 d(0, 1): impossible for a positive definite kernel
    rc = RelativeConstraints([0], [2], [0], [2 + 1], ratio=1.0, margin=0.0)
    rc2 = RelativeConstraints([0], [3], [0], [2], ratio=1.0, margin=0.0)
    with pytest.warns(Warning, match="infeasible|did not converge|diverged"):
        m = LogDetKernelLearner(rank=4, slack=np.inf, max_iter=50,
                                random_state=0).fit(X, constraints=[rc, rc2,
                                RelativeConstraints([0], [2], [0], [3], margin=1.0)])
    assert not m.converged_


def test_relative_from_labels_rows():
    y = np.repeat([0, 1, 2], 10)
    rc = relative_from_labels(y, 40, ratio=1.5, margin=0.2, random_state=0)
    assert len(rc) == 40
    assert np.all(y[rc.i] == y[rc.j]) and np.all(y[rc.i] != y[rc.l])
    assert np.all(rc.i == rc.k)
    assert np.all(rc.ratio == 1.5) and np.all(rc.margin == 0.2)


def test_pairs_alone_take_the_pair_path_in_any_wrapping(iris):
    X, y = iris
    from sklearn_bregman.constraints import pairs_from_labels

    pc = pairs_from_labels(y, 60, random_state=0)
    a = LogDetKernelLearner(rank=4, random_state=0).fit(X, constraints=pc)
    b = LogDetKernelLearner(rank=4, random_state=0).fit(X, constraints=[pc])
    assert np.array_equal(a.metric_, b.metric_)
    assert isinstance(b.constraints_, PairConstraints)
    # pairs as an array next to triplets: both kinds in one run of the rows
    c = LogDetKernelLearner(rank=4, random_state=0).fit(
        X, constraints=pc.to_array()[:, :3], triplets=[[0, 1, 120]])
    assert isinstance(c.constraints_, list) and len(c.dual_coef_) == 60 + 2
