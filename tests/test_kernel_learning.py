"""LogDetKernelLearner: one optimum with ITML, range space, pipelines (scikit-learn's
checks: tests/test_common.py)."""

import pickle
import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    ITMLTransformer,
    LogDetKernelLearner,
    PairConstraints,
    VonNeumannKernelLearner,
    knn_scorer,
)
from sklearn_bregman.constraints import pair_sqdist


def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("slack", [1.0, 10.0])
def test_same_optimum_as_itml_in_another_basis(slack):
    # One problem, one optimum: ITML on X with the identity prior, and LogDet
    # kernel learning on the incomplete-Cholesky factor of K = X X' (other
    # coordinates, same kernel) learn the same distances.
    X, y = wine()
    itml = ITMLTransformer(bounds="relative", slack=slack, tol=1e-8, max_iter=100000,
                           random_state=0).fit(X, y)
    K = X @ X.T
    learner = LogDetKernelLearner(kernel="precomputed", slack=slack, tol=1e-8,
                                  max_iter=100000).fit(K, constraints=itml.constraints_)
    assert itml.converged_ and learner.converged_
    D_itml = pairwise_distances(itml.transform(X))
    D_kernel = pairwise_distances(learner.transform(K))
    assert np.abs(D_kernel - D_itml).max() <= 1e-6 * D_itml.max()
    # and on the data itself with the linear kernel
    linear = LogDetKernelLearner(kernel="linear", slack=slack, tol=1e-8, max_iter=100000)
    linear.fit(X, constraints=itml.constraints_)
    D_linear = pairwise_distances(linear.transform(X))
    assert np.abs(D_linear - D_itml).max() <= 1e-6 * D_itml.max()


@pytest.mark.parametrize("Learner", [LogDetKernelLearner, VonNeumannKernelLearner])
def test_range_space_rank_psd_and_hard_constraints(Learner):
    X, y = load_iris(return_X_y=True)
    learner = Learner(kernel="rbf", gamma=0.5, rank=12, slack=np.inf, n_constraints=20,
                      tol=1e-10, max_iter=100000, random_state=0).fit(X, y)
    assert learner.converged_
    G0 = learner.factor_.transform(X)
    K = learner.learned_kernel(X)
    # PSD, with the rank of the initial kernel
    w = np.linalg.eigvalsh(K)
    assert w.min() > -1e-9 * w.max()
    assert np.linalg.matrix_rank(K, tol=1e-8 * w.max()) == learner.rank_ == 12
    # range(K) = range(K0): K's columns lie in span(G0)
    Q, _ = np.linalg.qr(G0)
    assert np.abs(K - Q @ (Q.T @ K)).max() <= 1e-9 * np.abs(K).max()
    # K = G0 M G0'
    assert np.allclose(K, G0 @ learner.metric_ @ G0.T)
    # hard constraints hold at convergence
    pc = learner.constraints_
    d = np.diag(K)[pc.i] + np.diag(K)[pc.j] - 2 * K[pc.i, pc.j]
    assert np.all(pc.sign * (d - pc.bound) <= 1e-6 * pc.bound)
    assert np.abs(learner.transform(X) - learner.embedding_).max() < 1e-8


def test_transform_embedding_and_learned_kernel_agree():
    X, y = load_iris(return_X_y=True)
    learner = LogDetKernelLearner(kernel="rbf", rank=15, random_state=0).fit(X, y)
    assert np.abs(learner.transform(X) - learner.embedding_).max() < 1e-8
    Z = learner.transform(X[:5])
    assert np.allclose(learner.learned_kernel(X[:5], X[5:9]), Z @ learner.transform(X[5:9]).T)
    assert learner.get_feature_names_out().shape == (15,)


def test_learning_shrinks_similar_and_stretches_dissimilar_pairs():
    X, y = load_iris(return_X_y=True)
    learner = LogDetKernelLearner(kernel="rbf", rank=20, slack=10.0, random_state=0).fit(X, y)
    pc = learner.constraints_
    G0 = learner.factor_.transform(X)
    d0 = pair_sqdist(G0, pc.i, pc.j)
    d1 = pair_sqdist(learner.embedding_, pc.i, pc.j)
    assert np.median(d1[pc.sign > 0] / d0[pc.sign > 0]) < 0.8
    assert np.median(d1[pc.sign < 0] / d0[pc.sign < 0]) > 1.2


def test_precomputed_follows_sklearn_convention():
    X, y = load_iris(return_X_y=True)
    train, test = np.arange(0, 150, 2), np.arange(1, 150, 2)
    K_train = rbf_kernel(X[train], gamma=0.5)
    K_test = rbf_kernel(X[test], X[train], gamma=0.5)
    pre = LogDetKernelLearner(kernel="precomputed", rank=20, random_state=0).fit(K_train, y[train])
    direct = LogDetKernelLearner(kernel="rbf", gamma=0.5, rank=20,
                                 random_state=0).fit(X[train], y[train])
    assert np.allclose(pre.transform(K_test) @ pre.transform(K_test).T,
                       direct.transform(X[test]) @ direct.transform(X[test]).T, atol=1e-8)


def test_unlabeled_points_are_embedded_not_constrained():
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[1::2] = -1
    learner = LogDetKernelLearner(kernel="rbf", rank=10, random_state=0).fit(X, y)
    assert learner.embedding_.shape == (150, 10)
    used = np.union1d(learner.constraints_.i, learner.constraints_.j)
    assert np.all(y[used] != -1)


def test_repeatable_and_picklable():
    X, y = load_iris(return_X_y=True)
    a = LogDetKernelLearner(kernel="rbf", rank=10, order="random", random_state=1).fit(X, y)
    b = LogDetKernelLearner(kernel="rbf", rank=10, order="random", random_state=1).fit(X, y)
    assert np.array_equal(a.embedding_, b.embedding_)
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.transform(X), a.transform(X))


@pytest.mark.parametrize(
    "params, fit_kw, match",
    [
        ({"rank": 500, "kernel": "rbf"}, {}, "rank=500 is larger than the data allows"),
        ({"rank": 0}, {}, "'rank' parameter"),
        ({"kernel": "nope"}, {}, "'kernel' parameter"),
        ({"gamma": -1.0, "kernel": "rbf"}, {}, "'gamma' parameter"),
        ({"slack": 0}, {}, "'slack' parameter"),
        ({}, {"constraints": [[0, 200, 1]]}, "constraints: index out of range"),
    ],
)
def test_bad_input(params, fit_kw, match):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        LogDetKernelLearner(**params).fit(X, y, **fit_kw)


def test_grid_search_over_gamma_and_slack_in_a_pipeline():
    X, y = load_iris(return_X_y=True)
    pipe = Pipeline([("learner", LogDetKernelLearner(kernel="rbf", rank=15, random_state=0)),
                     ("knn", KNeighborsClassifier(3))])
    grid = {"learner__gamma": [0.1, 1.0], "learner__slack": [0.1, 10.0]}
    gs = GridSearchCV(pipe, grid, cv=3, n_jobs=2, error_score="raise").fit(X, y)
    assert gs.best_score_ > 0.9
    assert gs.predict(X[:3]).shape == (3,)


def test_constraints_without_labels():
    X, _ = load_iris(return_X_y=True)
    pc = PairConstraints([0, 1, 2, 60], [3, 4, 110, 120], [1, 1, -1, -1])
    learner = LogDetKernelLearner(kernel="rbf", rank=10).fit(X, constraints=pc)
    assert len(learner.dual_coef_) == 4


def my_rbf(x, y, gamma):
    return np.exp(-gamma * np.sum((x - y) ** 2))


def test_callable_kernel_matches_the_named_one():
    X, y = load_iris(return_X_y=True)
    X = X[::3]
    y = y[::3]
    named = LogDetKernelLearner(kernel="rbf", gamma=0.3, rank=12, random_state=0).fit(X, y)
    func = LogDetKernelLearner(kernel=my_rbf, kernel_params={"gamma": 0.3}, rank=12,
                               random_state=0).fit(X, y)
    assert np.array_equal(named.pivots_, func.pivots_)
    assert np.allclose(named.learned_kernel(X[:5], X), func.learned_kernel(X[:5], X),
                       atol=1e-8)


def _cache_entries(location):
    import os

    return sum("output.pkl" in files for _, _, files in os.walk(location))


@pytest.mark.parametrize("Learner", [LogDetKernelLearner, VonNeumannKernelLearner])
def test_memory_caches_the_factor_across_slack(tmp_path, Learner):
    from joblib import Memory
    from sklearn.model_selection import GridSearchCV

    X, y = wine()
    plain = [Learner(kernel="rbf", rank=20, slack=s, random_state=0).fit(X, y)
             for s in (0.5, 5.0)]
    memory = Memory(tmp_path / "joblib", verbose=0)
    cached = [Learner(kernel="rbf", rank=20, slack=s, random_state=0, memory=memory)
              .fit(X, y) for s in (0.5, 5.0)]
    # one factorisation for both slacks, and the same fits as without the cache
    assert _cache_entries(tmp_path) == 1
    for a, b in zip(plain, cached):
        assert np.array_equal(a.metric_, b.metric_)
        assert np.array_equal(a.transform(X[:5]), b.transform(X[:5]))
    # a path works too; a new gamma is a new factor
    Learner(kernel="rbf", gamma=0.3, rank=20, memory=str(tmp_path / "joblib"),
            random_state=0).fit(X, y)
    assert _cache_entries(tmp_path) == 2
    # a grid search factors each (training set, gamma) once: 2 gammas x 2 folds
    # + the refit on the whole data with gamma=0.3, which is cached already
    gs = GridSearchCV(Learner(kernel="rbf", rank=20, random_state=0, memory=memory),
                      {"slack": [0.5, 5.0, 50.0], "gamma": [0.1, 0.3]}, cv=2,
                      scoring=knn_scorer())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gs.fit(X, y)
    assert _cache_entries(tmp_path) == 2 + 4 + (gs.best_params_["gamma"] != 0.3)


@pytest.mark.parametrize("label_constraints", ["pairs", "relative"])
def test_plus_minus_one_warning_points_at_the_fit_call(label_constraints):
    X = np.random.RandomState(0).randn(40, 3)
    y = np.array([-1, 1] * 20)
    learner = LogDetKernelLearner(label_constraints=label_constraints, random_state=0)
    with pytest.warns(UserWarning, match="unlabeled=None") as record:
        with pytest.raises(ValueError, match="one class"):
            learner.fit(X, y)
    assert [w.filename for w in record if "unlabeled=None" in str(w.message)] == [__file__]


#: Scales of X that check_scale accepts on iris (its squared norms reach 1e2
#: s^2), far beyond where log X0 = diag(log s_k^2) of von Neumann meets the
#: engine's guard (|log| <= 230: s ~ 1e50) on either side.
EXTREME_SCALES = [1e-75, 1e-60, 1e60, 1e150]


def _scaled_fits(Learner, scale, how, **params):
    """The same fit on iris and on iris * scale (``how``: dense, CSR, the
    precomputed linear kernel, a three-batch stream, fit then partial_fit,
    hard relative rows), and the points each transforms (the training points
    in kernel space, or held-out ones)."""
    import scipy.sparse as sp

    from sklearn_bregman.constraints import RelativeConstraints

    X, y = load_iris(return_X_y=True)
    train, held = np.arange(150) % 5 != 0, np.arange(150) % 5 == 0
    batches = np.array_split(np.random.RandomState(0).permutation(np.flatnonzero(train)), 3)
    rows = RelativeConstraints(np.arange(0, 40), np.arange(1, 41), np.arange(0, 40),
                               np.arange(60, 100), ratio=1.5)
    fits = []
    for s in (1.0, scale):
        Xs = X * s
        est = Learner(kernel="precomputed" if how == "precomputed" else "linear",
                      random_state=0, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no ConvergenceWarning at any scale
            if how == "precomputed":
                est.fit(Xs[train] @ Xs[train].T, y[train])
                out = Xs[held] @ Xs[train].T
            elif how == "stream":
                for b in batches:
                    est.partial_fit(Xs[b], y[b])
                out = Xs[held]
            elif how == "fit+partial_fit":
                est.fit(Xs[train], y[train]).partial_fit(Xs[held], y[held])
                out = Xs[held]
            elif how == "hard rows":
                est.set_params(slack=np.inf).fit(Xs, constraints=rows)
                out = Xs[held]
            else:
                fmt = sp.csr_matrix if how == "csr" else np.asarray
                est.fit(fmt(Xs[train]), y[train])
                out = fmt(Xs[held])
        fits.append((est, out))
    return fits


@pytest.mark.parametrize("how", ["dense", "csr", "precomputed", "stream", "fit+partial_fit",
                                 "hard rows"])
@pytest.mark.parametrize("scale", EXTREME_SCALES)
@pytest.mark.parametrize("Learner", [LogDetKernelLearner, VonNeumannKernelLearner])
def test_extreme_scales_learn_the_scaled_kernel(Learner, scale, how):
    # X * s: the initial kernel is s^2 K0 and the bounds (relative, or drawn
    # as percentiles) are s^2 b, so the learned kernel is s^2 K, both for
    # LogDet (scale-invariant) and for von Neumann (D(cX, cX0) = c D(X, X0),
    # JMLR 2009, Section 5.2): the same sweeps, the same duals (LogDet's,
    # of M^-1, in units of 1 / s^2; von Neumann's, of log X, without units),
    # the Gram of the embedding and of held-out points scaled by s^2.  (von
    # Neumann stopped in sweep 1 beyond s ~ 1e+-50 with the initial kernel:
    # log X0 was past the engine's guard before any projection.)
    (plain, out1), (scaled, outs) = _scaled_fits(Learner, scale, how)
    assert plain.converged_ and scaled.converged_
    assert scaled.n_iter_ == plain.n_iter_
    dual_unit = scale ** 2 if Learner is LogDetKernelLearner else 1.0
    np.testing.assert_allclose(scaled.dual_coef_ * dual_unit, plain.dual_coef_, rtol=1e-10,
                               atol=1e-10 * np.abs(plain.dual_coef_).max())
    for E1, Es in ((plain.embedding_, scaled.embedding_),
                   (plain.transform(out1), scaled.transform(outs))):
        K1, Ks = E1 @ E1.T, (Es / scale) @ (Es / scale).T
        np.testing.assert_allclose(Ks, K1, rtol=0, atol=1e-10 * np.abs(K1).max())


def test_a_scale_beyond_double_precision_is_refused_naming_it_and_changes_nothing():
    X, y = load_iris(return_X_y=True)
    est = VonNeumannKernelLearner(random_state=0).fit(X * 1e60, y)
    before = pickle.dumps(est)
    with pytest.raises(ValueError, match=r"underflow double precision \(largest squared "
                       r"norm of a training point .*: 1\.23e-198\)"):
        est.fit(X * 1e-100, y)
    assert pickle.dumps(est) == before


@pytest.mark.parametrize("scale", [1e-60, 1e60])
@pytest.mark.parametrize("kind", ["pairs", "hard rows"])
def test_warnings_at_extreme_scales_report_the_users_squared_distances(kind, scale):
    # von Neumann sweeps the scaled kernel in a unit of its own; a run
    # stopped by max_iter reports the worst row's value and target as the
    # user knows them: s=1's scaled by s^2
    from sklearn_bregman.constraints import RelativeConstraints

    X, y = load_iris(return_X_y=True)
    rng = np.random.RandomState(0)
    a, b, c = rng.randint(0, 50, 60), rng.randint(0, 50, 60), rng.randint(100, 150, 60)
    rows = RelativeConstraints(a, b, a, c, ratio=30.0)
    found = []
    for s in (1.0, scale):
        est = VonNeumannKernelLearner(random_state=0, max_iter=1 if kind == "pairs" else 2)
        with pytest.warns(ConvergenceWarning, match="did not converge") as record:
            if kind == "pairs":
                est.fit(X * s, y)
            else:
                est.set_params(slack=np.inf).fit(X * s, constraints=rows)
        message = str(record[0].message)
        found.append(re.search(r"\(row (\d+): (\S+) where the target is (\S+)\)",
                               message).groups())
    (row1, value1, target1), (row_s, value_s, target_s) = found
    assert row_s == row1
    assert float(value_s) == pytest.approx(float(value1) * scale ** 2, rel=1e-3)
    assert float(target_s) == pytest.approx(float(target1) * scale ** 2, rel=1e-3)
