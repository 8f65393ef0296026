"""DefiniteBoost and MEG: compiled steps vs dense oracles, optimality, the estimator."""


import numpy as np
import pytest
from scipy import linalg
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn_bregman._engine._definiteboost_steps import (
    definiteboost_cyclic_sweep,
    definiteboost_greedy,
    meg_steps,
)

from sklearn_bregman import DefiniteBoost, PairClassifier, PairConstraints
from sklearn_bregman._engine import definiteboost
from tests.oracles import definiteboost_step_reference, meg_step_reference


def trace_one_log(r, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((r, r))
    W = A @ A.T / r + 0.1 * np.eye(r)
    W /= np.trace(W)
    L = linalg.logm(W).real
    return (L + L.T) / 2, W


def feasible_problem(r=6, c=15, seed=1, margin=0.02):
    """Constraints strictly satisfied by a known trace-one W_star."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((r, r))
    W_star = A @ A.T
    W_star /= np.trace(W_star)
    V = rng.standard_normal((c, r))
    rho = np.einsum("ij,jk,ik->i", V, W_star, V)
    sign = np.where(rng.random(c) < 0.5, 1, -1).astype(np.int8)
    bound = np.where(sign > 0, rho * (1 + margin), rho * (1 - margin))
    L0 = -np.log(r) * np.eye(r)
    return V, sign, bound, L0, W_star


def vn_divergence(W, W0):
    return float(np.trace(W @ (linalg.logm(W).real - linalg.logm(W0).real)))


def dual_objective(L0, V, sign, bound, dual):
    r = L0.shape[0]
    S = sum(g * s * (np.outer(v, v) - b * np.eye(r))
            for g, s, v, b in zip(dual, sign, V, bound))
    return np.log(np.trace(linalg.expm(L0 - S)))


@pytest.mark.parametrize("r", [2, 12, 40])
@pytest.mark.parametrize("s", [1, -1])
@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("gamma0", [0.0, 0.05])
def test_step_matches_dense_oracle(r, s, exact, gamma0):
    L, W = trace_one_log(r, seed=r)
    rng = np.random.default_rng(r + 7)
    v = rng.standard_normal(r)
    rho = v @ W @ v
    # violated (gamma0 = 0) or over-satisfied with dual weight to give back
    factor = 0.7 if (s > 0) == (gamma0 == 0.0) else 1.3
    b = rho * factor
    L_ref, g_ref = definiteboost_step_reference(L, v, s, b, gamma0, exact, True)
    Lc, gam = L.copy(), np.array([gamma0])
    definiteboost_cyclic_sweep(v[None, :].copy(), np.array([s], np.int8), np.array([b]),
                               gam, Lc, np.array([0], np.intp), exact, True)
    assert abs(gam[0] - g_ref) <= 1e-9 * max(abs(g_ref), 1e-3)
    Wc, W_ref = linalg.expm(Lc), linalg.expm(L_ref)
    assert np.abs(Wc - W_ref).max() <= 1e-9 * np.abs(W_ref).max()
    assert abs(np.trace(Wc) - 1) < 1e-12
    if exact and gam[0] > 0:  # the projected constraint holds with equality
        assert abs(v @ Wc @ v - b) <= 1e-9 * b


def test_step_without_correction_never_gives_weight_back():
    L, W = trace_one_log(5, seed=3)
    v = np.ones(5)
    b = 1.3 * (v @ W @ v)  # similar pair, satisfied: alpha* < 0
    gam = np.array([0.5])
    Lc = L.copy()
    definiteboost_cyclic_sweep(v[None, :].copy(), np.array([1], np.int8), np.array([b]),
                               gam, Lc, np.array([0], np.intp), True, False)
    assert gam[0] == 0.5 and np.array_equal(Lc, L)


def test_meg_steps_match_dense_oracle():
    L, W = trace_one_log(10, seed=4)
    rng = np.random.default_rng(5)
    V = rng.standard_normal((6, 10))
    y = rng.random(6)
    Lc = L.copy()
    pred = meg_steps(V, y, 0.3, Lc)
    Lr = L.copy()
    for t in range(6):
        Lr, yhat = meg_step_reference(Lr, V[t], y[t], 0.3)
        assert abs(pred[t] - yhat) <= 1e-10 * abs(yhat)
    assert np.abs(linalg.expm(Lc) - linalg.expm(Lr)).max() < 1e-10


@pytest.mark.parametrize("selection", ["greedy", "cyclic"])
def test_exact_and_approximate_reach_the_same_optimum(selection):
    V, sign, bound, L0, W_star = feasible_problem()
    runs = [definiteboost(V, sign, bound, L0, selection=selection, exact=exact, tol=1e-10,
                          max_iter=20000, random_state=0) for exact in (True, False)]
    W = [linalg.expm(res.state) for res in runs]
    assert np.abs(W[0] - W[1]).max() < 1e-7
    for res, Wk in zip(runs, W):
        assert res.converged
        rho = np.einsum("ij,jk,ik->i", V, Wk, V)
        viol = sign * (rho - bound)
        assert viol.max() <= 1e-9 * bound.max()                 # feasible
        assert np.all(res.dual >= 0)
        assert np.abs(res.dual * viol).max() < 1e-8             # complementary slackness
        # the dual objective is eq. 9 at the returned duals, and W its minimiser
        assert res.dual_objective == pytest.approx(
            dual_objective(L0, V, sign, bound, res.dual), abs=1e-9)
        assert res.dual_objective < 0
    # exact projections need fewer steps than approximate ones
    assert runs[0].n_projections < runs[1].n_projections
    # optimal: no feasible point is closer to W_1 (the target, and segments to it)
    W0 = linalg.expm(L0)
    D = vn_divergence(W[0], W0)
    for t in [0.0, 0.5, 0.9]:
        assert D <= vn_divergence(t * W[0] + (1 - t) * W_star, W0) + 1e-10


def test_greedy_picks_the_most_violated_constraint():
    V, sign, bound, L0, _ = feasible_problem(c=8, seed=2, margin=-0.3)
    W = linalg.expm(L0)
    viol = sign * (np.einsum("ij,jk,ik->i", V, W, V) - bound)
    L, gam = L0.copy(), np.zeros(8)
    steps, *_ = definiteboost_greedy(V, sign, bound, gam, L, 1, 0.0, True, True)
    assert steps == 1
    assert np.flatnonzero(gam) == [np.argmax(viol)]


def test_without_dual_correction_feasible_but_suboptimal():
    # JMLR 2009 App. B: projecting only on violated constraints, never giving
    # dual weight back, stops at a feasible point that is not the projection.
    rng = np.random.default_rng(4)
    r, c = 3, 4
    A = rng.standard_normal((r, r))
    W0 = A @ A.T + 0.1 * np.eye(r)
    W0 /= np.trace(W0)
    L0 = linalg.logm(W0).real
    L0 = (L0 + L0.T) / 2
    V = rng.standard_normal((c, r))
    rho = np.einsum("ij,jk,ik->i", V, W0, V)
    sign = np.where(rng.random(c) < 0.5, 1, -1).astype(np.int8)
    bound = np.where(sign > 0, rho * 0.7, rho * 1.3)
    fixed = definiteboost(V, sign, bound, L0, tol=1e-10, max_iter=5000)
    orig = definiteboost(V, sign, bound, L0, tol=1e-10, max_iter=5000,
                         dual_correction=False)
    assert fixed.converged and orig.converged
    for res in (fixed, orig):
        W = linalg.expm(res.state)
        assert (sign * (np.einsum("ij,jk,ik->i", V, W, V) - bound)).max() <= 1e-9
    D_fixed = vn_divergence(linalg.expm(fixed.state), W0)
    D_orig = vn_divergence(linalg.expm(orig.state), W0)
    assert D_orig > 1.2 * D_fixed


def test_infeasible_constraints_are_reported():
    # the same direction asked to be both shorter and longer
    r = 4
    v = np.array([1.0, -1.0, 0.0, 0.0])
    V = np.array([v, 2 * v])
    sign = np.array([1, -1], np.int8)
    bound = np.array([0.1, 0.8])  # d(2v) = 4 d(v) <= 0.4 < 0.8
    with pytest.warns(ConvergenceWarning, match="infeasible"):
        res = definiteboost(V, sign, bound, -np.log(r) * np.eye(r), max_iter=10000)
    assert not res.converged


# --- the estimator -----------------------------------------------------------

@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.mark.parametrize("selection", ["greedy", "cyclic"])
def test_learned_kernel_is_trace_one_psd_and_feasible(iris, selection):
    X, y = iris
    db = DefiniteBoost(kernel="rbf", rank=20, n_constraints=100, selection=selection,
                       tol=1e-6, random_state=0).fit(X, y)
    assert db.converged_
    K = db.learned_kernel(X)
    assert np.allclose(K, db.embedding_ @ db.embedding_.T, atol=1e-12)
    assert np.trace(K) == pytest.approx(1.0, abs=1e-10)
    assert np.linalg.eigvalsh(K).min() > -1e-12
    pc = db.constraints_
    d = K[pc.i, pc.i] + K[pc.j, pc.j] - 2 * K[pc.i, pc.j]
    assert np.all(pc.sign * (d - pc.bound) <= 1e-5 * pc.bound)
    # repeatable under random_state
    db2 = DefiniteBoost(kernel="rbf", rank=20, n_constraints=100, selection=selection,
                        tol=1e-6, random_state=0).fit(X, y)
    assert np.array_equal(db.metric_, db2.metric_)


def test_identity_init_is_transductive(iris):
    X, y = iris
    idx = np.r_[0:15, 50:65, 100:115]
    X, y = X[idx], y[idx]
    db = DefiniteBoost(init="identity", n_constraints=60, random_state=0)
    E = db.fit_transform(X, y)
    assert E.shape == (45, 45) and db.rank_ == 45 and db.factor_ is None
    K = E @ E.T
    assert np.trace(K) == pytest.approx(1.0)
    pc = db.constraints_
    assert np.allclose(pc.bound[pc.sign > 0], 0.75 * 2 / 45)
    with pytest.raises(ValueError, match="transductive"):
        db.transform(X)


def test_identity_init_refuses_every_map_with_its_own_message(iris):
    # the metric surface of a transductive fit: get_metric refuses at once
    # (its function could map no point), as transform, pair_distance,
    # pair_score and learned_kernel do, with the package's message; a
    # PairClassifier around it hands out the inner learner's refusal
    X, y = iris
    db = DefiniteBoost(init="identity", n_constraints=40, random_state=0).fit(X, y)
    pairs = X[np.array([[0, 1], [0, 60]])]
    calls = [lambda: db.get_metric(), lambda: db.transform(X[:2]),
             lambda: db.pair_distance(pairs), lambda: db.pair_score(pairs),
             lambda: db.learned_kernel(X[:2])]
    for call in calls:
        with pytest.raises(ValueError, match=r"DefiniteBoost\(init='identity'\) is "
                                             "transductive"):
            call()
    assert not hasattr(db, "get_mahalanobis_matrix")
    ids = np.array([[0, 1], [0, 60], [50, 51], [100, 10]] * 5)
    signs = np.array([1, -1, 1, -1] * 5)
    clf = PairClassifier(DefiniteBoost(init="identity", random_state=0),
                         preprocessor=X).fit(ids, signs)
    assert clf.score(ids, signs) >= 0.5  # (identifiers: read off embedding_)
    with pytest.raises(ValueError, match="transductive"):
        clf.get_metric()


def test_constraint_validation(iris):
    X, y = iris
    # a dissimilar pair asked further apart than any trace-one kernel allows
    with pytest.raises(ValueError, match="trace-one"):
        DefiniteBoost(kernel="rbf", rank=10).fit(X, constraints=[[0, 60, -1, 5.0]])
    with pytest.raises(ValueError, match="positive bound"):
        DefiniteBoost(kernel="rbf", rank=10).fit(X, constraints=[[0, 60, 1, 0.0]])
    # a similar pair with a bound no trace-one kernel can exceed never binds
    db = DefiniteBoost(kernel="rbf", rank=10).fit(X, constraints=[[0, 60, 1, 5.0]])
    assert db.n_projections_ == 0 and np.all(db.dual_coef_ == 0)


def test_partial_fit_learns_target_distances():
    # MEG on distances of a target trace-one kernel: the online loss falls
    rng = np.random.default_rng(0)
    n = 20
    Xt = rng.standard_normal((n, 3))
    Kt = Xt @ Xt.T
    Kt /= np.trace(Kt)
    i = rng.integers(0, n, 3000)
    j = (i + 1 + rng.integers(0, n - 1, 3000)) % n
    target = Kt[i, i] + Kt[j, j] - 2 * Kt[i, j]
    ex = np.c_[i, j, np.ones(3000), target]  # (i, j, sign, bound): the bound is the target
    X = rng.standard_normal((n, 4))
    db = DefiniteBoost(init="identity", learning_rate=2.0)
    losses = []
    for batch in np.array_split(ex, 10):
        before = db.total_loss_ if hasattr(db, "total_loss_") else 0.0
        db.partial_fit(X, constraints=batch)
        losses.append(db.total_loss_ - before)
    assert db.n_examples_seen_ == 3000
    assert losses[-1] < 0.2 * losses[0]
    K = db.embedding_ @ db.embedding_.T
    assert np.trace(K) == pytest.approx(1.0)
    d = K[i, i] + K[j, j] - 2 * K[i, j]
    d0 = np.full_like(d, 2.0 / n)
    assert np.abs(d - target).mean() < 0.3 * np.abs(d0 - target).mean()


def test_partial_fit_checks_its_input(iris):
    X, y = iris
    db = DefiniteBoost(kernel="rbf", rank=10, n_constraints=20, random_state=0)
    db.partial_fit(X, y)
    assert db.n_examples_seen_ == 20
    # later batches' points enter through the initial factor (init='kernel')
    db.partial_fit(X[::10], y[::10])
    assert db.n_examples_seen_ == 40 and len(db.constraints_) == 20
    with pytest.raises(ValueError, match="first call"):
        DefiniteBoost(init="identity", n_constraints=20).partial_fit(X, y).partial_fit(
            X[:10], y[:10])
    with pytest.raises(ValueError, match="shape"):
        db.partial_fit(X, constraints=[[0, 1]])
    with pytest.raises(ValueError, match="index out of range"):
        db.partial_fit(X, constraints=[[0, 150, 1, 0.1]])
    with pytest.raises(ValueError, match=r"lie in \[0, 2\]; row 0 has 3.0"):
        db.partial_fit(X, constraints=[[0, 1, 1, 3.0]])
    # it continues from fit's solution
    db = DefiniteBoost(kernel="rbf", rank=10, n_constraints=20, random_state=0).fit(X, y)
    M = db.metric_.copy()
    db.partial_fit(X, constraints=[[0, 1, 1, 0.0]])
    assert not np.allclose(M, db.metric_)


def test_pair_constraints_object(iris):
    X, y = iris
    pc = PairConstraints([0, 1], [60, 2], [-1, 1])
    db = DefiniteBoost(kernel="rbf", rank=10, random_state=0).fit(X, constraints=pc)
    assert len(db.constraints_) == 2 and np.isfinite(db.constraints_.bound).all()
