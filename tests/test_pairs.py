"""PairClassifier: pairs as samples for model selection."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics import fbeta_score, roc_auc_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    PairConstraints,
    VonNeumannKernelLearner,
)
from sklearn_bregman.constraints import pairs_from_labels


def index_pairs(y, n, seed=0):
    pc = pairs_from_labels(y, n, random_state=seed)
    return np.column_stack([pc.i, pc.j]), pc.sign.astype(int)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def test_same_optimum_as_itml_on_the_same_constraints(iris):
    X, y = iris
    pairs, s = index_pairs(y, 200)
    clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=X).fit(pairs, s)
    direct = ITMLTransformer(random_state=0).fit(
        X, constraints=PairConstraints(pairs[:, 0], pairs[:, 1], s))
    np.testing.assert_allclose(clf.estimator_.metric_, direct.metric_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(clf.estimator_.constraints_.bound,
                               direct.constraints_.bound, rtol=1e-12)


def test_point_pairs_and_index_pairs_give_the_same_model(iris):
    X, y = iris
    pairs, s = index_pairs(y, 150)
    # 'relative' bounds depend on each pair alone, not on the other points
    learner = ITMLTransformer(bounds="relative", random_state=0)
    by_index = PairClassifier(learner, preprocessor=X).fit(pairs, s)
    by_point = PairClassifier(learner).fit(X[pairs], s)
    np.testing.assert_allclose(by_point.estimator_.metric_, by_index.estimator_.metric_,
                               rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(by_point.decision_function(X[pairs]),
                               by_index.decision_function(pairs), rtol=1e-8)
    assert by_point.threshold_ == pytest.approx(by_index.threshold_, rel=1e-8)


def test_point_pairs_share_repeated_points():
    X = np.array([[0.0, 0], [1, 0], [0, 1], [1, 1]])
    pairs = np.array([[X[0], X[1]], [X[1], X[2]], [X[0], X[3]]])
    clf = PairClassifier(ITMLTransformer()).fit(pairs, [1, -1, 1])
    # four distinct points, not six: the pairs sharing X[0] and X[1] share them
    i, j = clf.estimator_.constraints_.i, clf.estimator_.constraints_.j
    assert len(set(i) | set(j)) == 4
    assert i[0] == i[2]  # X[0]
    assert j[0] == i[1]  # X[1]


def _rates(s, y, t):
    pred = np.where(s >= t, 1, -1)
    tp = np.sum((pred == 1) & (y == 1))
    tn = np.sum((pred == -1) & (y == -1))
    return pred, tp / max((y == 1).sum(), 1), tn / max((y == -1).sum(), 1)


@pytest.mark.parametrize("strategy,kw", [("accuracy", {}), ("f_beta", {"beta": 0.5}),
                                         ("f_beta", {"beta": 2.0}),
                                         ("max_tpr", {"min_rate": 0.8}),
                                         ("max_tnr", {"min_rate": 0.9})])
def test_calibrated_threshold_is_the_best_of_a_brute_force_scan(iris, strategy, kw):
    X, y = iris
    pairs, s = index_pairs(y, 300)
    clf = PairClassifier(LogDetKernelLearner(kernel="rbf", rank=10, slack=0.1,
                                             random_state=0), preprocessor=X)
    clf.fit(pairs[:150], s[:150])
    held, s_held = pairs[150:], s[150:]
    clf.calibrate_threshold(held, s_held, strategy=strategy, **kw)
    scores = clf.decision_function(held)

    def value(t):
        pred, tpr, tnr = _rates(scores, s_held, t)
        if strategy == "accuracy":
            return np.mean(pred == s_held)
        if strategy == "f_beta":
            return fbeta_score(s_held, pred, beta=kw["beta"], pos_label=1, zero_division=0)
        keep, gain = (tnr, tpr) if strategy == "max_tpr" else (tpr, tnr)
        return gain if keep >= kw["min_rate"] else -np.inf

    candidates = np.concatenate([np.unique(scores), [scores.max() + 1]])
    best = max(value(t) for t in candidates)
    assert value(clf.threshold_) == pytest.approx(best, abs=1e-12)
    assert np.array_equal(clf.predict(held), np.where(scores >= clf.threshold_, 1, -1))


def test_grid_search_on_pairs_beats_the_euclidean_distance():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    pairs, s = index_pairs(y, 600, seed=1)
    tr, te = train_test_split(np.arange(len(s)), test_size=0.3, random_state=0,
                              stratify=s)
    search = GridSearchCV(
        PairClassifier(LogDetKernelLearner(kernel="rbf", rank=30, random_state=0),
                       preprocessor=X),
        {"estimator__gamma": [0.02, 0.1], "estimator__slack": [0.1, 10.0]},
        scoring="roc_auc", cv=3,
    ).fit(pairs[tr], s[tr])
    auc = roc_auc_score(s[te], search.decision_function(pairs[te]))
    d = X[pairs[te, 0]] - X[pairs[te, 1]]
    auc_euclid = roc_auc_score(s[te], -np.einsum("ij,ij->i", d, d))
    assert auc > 0.9
    assert auc > auc_euclid + 0.01


@pytest.mark.parametrize("learner", [
    ITMLTransformer(random_state=0),
    LogDetKernelLearner(kernel="rbf", rank=15, random_state=0),
    VonNeumannKernelLearner(kernel="rbf", rank=15, random_state=0),
    DefiniteBoost(kernel="rbf", rank=15, epsilon=0.05, random_state=0),
    DefiniteBoost(init="identity", epsilon=0.05, random_state=0),
], ids=lambda e: repr(e))
def test_every_pair_learner_fits_scores_and_pickles(iris, learner):
    X, y = iris
    pairs, s = index_pairs(y, 120)
    clf = PairClassifier(learner, preprocessor=X).fit(pairs, s)
    scores = clf.decision_function(pairs)
    assert scores.shape == (len(pairs),) and np.all(scores <= 0)
    assert roc_auc_score(s, scores) > 0.8
    assert set(np.unique(clf.predict(pairs))) <= {-1, 1}
    assert 0.0 <= clf.score(pairs, s) <= 1.0
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(pairs), scores)
    np.testing.assert_allclose(clf.pair_score(pairs), -np.sqrt(-scores))


def test_callable_preprocessor_and_linear_map(iris):
    X, y = iris
    pairs, s = index_pairs(y, 100)
    # a callable preprocessor yields the points in pairs only: 'relative' bounds
    # (each pair's own) make the two fits the same problem
    learner = ITMLTransformer(bounds="relative", random_state=0)
    clf = PairClassifier(learner, preprocessor=lambda idx: X[idx]).fit(pairs, s)
    ref = PairClassifier(learner, preprocessor=X).fit(pairs, s)
    np.testing.assert_allclose(clf.decision_function(pairs), ref.decision_function(pairs),
                               rtol=1e-6)
    M = clf.get_mahalanobis_matrix()
    d = X[pairs[:, 0]] - X[pairs[:, 1]]
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", d, M, d),
                               -clf.decision_function(pairs), rtol=1e-8)
    metric = clf.get_metric()
    assert metric(X[0], X[1]) == pytest.approx(clf.pair_distance(pairs[:1] * 0 + [0, 1])[0])
    assert not hasattr(PairClassifier(LogDetKernelLearner(kernel="rbf")), "get_mahalanobis_matrix")


@pytest.mark.parametrize("pairs,y,match", [
    (np.array([[0, 1], [1, 2]]), [-1, 0], "y must hold"),
    (np.zeros((2, 3)), [1, -1], "tuples of 2 points expected"),
    (np.array([[0, 1], [1, 200]]), [1, -1], "outside"),
    (np.array([[0, 0], [1, 2]]), [1, -1], "to itself"),
    (np.array([[0, 1], [1, 2]]), [1, -1, 1], "entries"),
])
def test_bad_pairs_get_a_clear_error(iris, pairs, y, match):
    X, _ = iris
    with pytest.raises(ValueError, match=match):
        PairClassifier(ITMLTransformer(), preprocessor=X).fit(pairs, y)


def test_index_pairs_need_a_preprocessor():
    with pytest.raises(ValueError, match="preprocessor"):
        PairClassifier(ITMLTransformer()).fit(np.array([[0, 1], [1, 2]]), [1, -1])


@pytest.mark.parametrize("as_points", [False, True])
def test_pair_kfold_keeps_test_points_out_of_training_pairs(iris, as_points):
    from sklearn_bregman import PairKFold

    X, y = iris
    pairs, s = index_pairs(y, 400)
    data = X[pairs] if as_points else pairs
    seen_test = np.zeros(len(pairs), int)
    for train, test in PairKFold(3, random_state=0).split(data):
        assert len(train) and len(test)
        assert not set(pairs[train].ravel()) & set(pairs[test].ravel())
        seen_test[test] += 1
    assert seen_test.max() == 1  # a pair is tested at most once
    # GroupKFold on the first point is not enough: some test pair's second
    # point sits in a training pair
    from sklearn.model_selection import GroupKFold

    leaks = [bool(set(pairs[tr].ravel()) & set(pairs[te].ravel()))
             for tr, te in GroupKFold(3).split(pairs, groups=pairs[:, 0])]
    assert any(leaks)


def test_grid_search_on_new_points(iris):
    from sklearn_bregman import PairKFold

    X, y = iris
    pairs, s = index_pairs(y, 400)
    search = GridSearchCV(
        PairClassifier(ITMLTransformer(random_state=0), preprocessor=X),
        {"estimator__slack": [0.1, 10.0]}, scoring="roc_auc",
        cv=PairKFold(3, random_state=0),
    ).fit(pairs, s)
    assert search.best_score_ > 0.9


def test_metadata_routing_of_constraints_and_triplets(iris):
    import sklearn
    from sklearn.exceptions import UnsetMetadataPassedError
    from sklearn.pipeline import Pipeline

    from sklearn_bregman import SKLRClusterer
    from sklearn_bregman.constraints import triplets_from_labels

    X, y = iris
    pc = pairs_from_labels(y, 100, random_state=0)
    tc = triplets_from_labels(y, 50, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        learner = LogDetKernelLearner(random_state=0).set_fit_request(constraints=True)
        pipe = Pipeline([("scale", StandardScaler()), ("learner", learner)])
        pipe.fit(X, constraints=pc)
        assert len(pipe[-1].constraints_) == 100
        sklr = SKLRClusterer(3, random_state=0).set_fit_request(triplets=True)
        Pipeline([("scale", StandardScaler()), ("sklr", sklr)]).fit(X, triplets=tc)
        assert len(sklr.triplets_) == 50  # the routed triplets, not ones drawn from y
        # not requested: scikit-learn refuses to drop it silently
        with pytest.raises(UnsetMetadataPassedError):
            Pipeline([("learner", LogDetKernelLearner())]).fit(X, constraints=pc)


def test_estimator_conventions_on_pairs(iris):
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError
    from sklearn.model_selection import cross_val_score

    X, y = iris
    pairs, s = index_pairs(y, 150)
    clf = PairClassifier(LogDetKernelLearner(kernel="rbf", rank=10, random_state=0),
                         preprocessor=X)
    with pytest.raises(NotFittedError):
        clf.decision_function(pairs)
    assert clone(clf).get_params()["estimator__rank"] == 10
    first = clf.fit(pairs, s).decision_function(pairs)
    again = clf.fit(pairs, s).decision_function(pairs)  # refitting is idempotent
    np.testing.assert_array_equal(first, again)
    assert not hasattr(clf.estimator, "estimator_") and not hasattr(clf.estimator, "metric_")
    assert clf.n_features_in_ == X.shape[1] and clf.classes_.tolist() == [-1, 1]
    for scoring in ["accuracy", "f1", "roc_auc", "average_precision"]:
        assert cross_val_score(clf, pairs, s, cv=3, scoring=scoring).mean() > 0.8
