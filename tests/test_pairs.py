"""PairClassifier: pairs as samples for model selection."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
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
    learner_tags,
)
from sklearn_bregman.constraints import pairs_from_labels


class IdentityPairLearner(TransformerMixin, BaseEstimator):
    """A pair learner that learns nothing: the learned distance is the Euclidean one."""

    def fit(self, X, y=None, constraints=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float)

    def __sklearn_tags__(self):
        return learner_tags(super().__sklearn_tags__(), learns_from=("pairs",))


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


def _rates(dist, y, t):
    pred = np.where(dist <= t, 1, -1)  # similar: at most the threshold apart
    tp = np.sum((pred == 1) & (y == 1))
    tn = np.sum((pred == -1) & (y == -1))
    return pred, tp / max((y == 1).sum(), 1), tn / max((y == -1).sum(), 1)


CALIBRATIONS = [("accuracy", {}), ("f_beta", {"beta": 0.0}), ("f_beta", {"beta": 0.5}),
                ("f_beta", {"beta": 2.0}), ("max_tpr", {"min_rate": 0.8}),
                ("max_tnr", {"min_rate": 0.9}), ("max_tpr", {"min_rate": 0.0}),
                ("max_tnr", {"min_rate": 0.0}), ("max_tnr", {"min_rate": 1.0})]


@pytest.mark.parametrize("strategy,kw", CALIBRATIONS)
def test_calibrated_threshold_is_the_best_of_a_brute_force_scan(iris, strategy, kw):
    X, y = iris
    pairs, s = index_pairs(y, 300)
    clf = PairClassifier(LogDetKernelLearner(kernel="rbf", rank=10, slack=0.1,
                                             random_state=0), preprocessor=X)
    clf.fit(pairs[:150], s[:150])
    held, s_held = pairs[150:], s[150:]
    clf.calibrate_threshold(held, s_held, strategy, **kw)
    dist = clf.pair_distance(held)
    np.testing.assert_array_equal(clf.decision_function(held), -dist)

    def value(t):
        pred, tpr, tnr = _rates(dist, s_held, t)
        if strategy == "accuracy":
            return np.mean(pred == s_held)
        if strategy == "f_beta":
            return fbeta_score(s_held, pred, beta=kw["beta"], pos_label=1, zero_division=0)
        keep, gain = (tnr, tpr) if strategy == "max_tpr" else (tpr, tnr)
        return gain if keep >= kw["min_rate"] else -np.inf

    candidates = np.concatenate([[dist.min() - 1], np.unique(dist)])
    best = max(value(t) for t in candidates)
    assert value(clf.threshold_) == pytest.approx(best, abs=1e-12)
    assert np.isfinite(clf.threshold_)
    assert np.array_equal(clf.predict(held), np.where(dist <= clf.threshold_, 1, -1))


def metric_learn_threshold(scores, y, strategy, min_rate=None, beta=1.0):
    """metric-learn 0.7.0's ``_PairsClassifierMixin.calibrate_threshold`` restated
    as a plain oracle (its algorithm, on the scores ``decision_function`` gave;
    ``roc_curve``'s reject-all threshold read as ``max + 1``, as scikit-learn
    gave it before 1.3, the version metric-learn was written for)."""
    from sklearn.metrics import precision_recall_curve, roc_curve

    if strategy == "accuracy":
        order = np.argsort(scores)[::-1]
        s_sorted, y_ordered = scores[order], y[order]
        s_sorted = np.concatenate([[s_sorted[0] + 1], s_sorted])
        cum_tp = np.concatenate([[0.0], np.cumsum(y_ordered == 1)])
        cum_tn = np.concatenate([[0.0], np.cumsum(y_ordered[::-1] == -1)])[::-1]
        return -s_sorted[np.argmax((cum_tp + cum_tn) / len(y))]
    if strategy == "f_beta":
        precision, recall, thresholds = precision_recall_curve(y, scores, pos_label=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
        f[np.isnan(f)] = 0.0
        return -thresholds[np.argmax(f)]
    fpr, tpr, thresholds = roc_curve(y, scores, pos_label=1)
    thresholds = np.where(np.isinf(thresholds), scores.max() + 1, thresholds)
    if strategy == "max_tpr":
        indices = np.where(1 - fpr >= min_rate)[0]
        return -thresholds[indices[np.argmax(tpr[indices])]]
    indices = np.where(tpr >= min_rate)[0]
    return -thresholds[indices[np.argmax(1 - fpr[indices])]]


@pytest.mark.parametrize("strategy,kw", CALIBRATIONS)
def test_calibrate_threshold_is_metric_learns(iris, strategy, kw):
    # metric-learn's order of arguments and its threshold on the same scores,
    # on held-out pairs of a fitted model (no two at the same distance)
    X, y = iris
    pairs, s = index_pairs(y, 300)
    clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=X)
    clf.fit(pairs[:150], s[:150])
    held, s_held = pairs[150:], s[150:]
    scores = clf.decision_function(held)
    assert np.unique(scores).size == scores.size
    args = (kw.get("min_rate"), kw.get("beta", 1.0))
    clf.calibrate_threshold(held, s_held, strategy, *args)  # positionally, as metric-learn's
    assert clf.threshold_ == metric_learn_threshold(scores, s_held, strategy, *args)


def _fitted_at_scales(Learner, X, pairs, s, scale, then=None):
    """PairClassifier(Learner) fitted on the first 150 of ``pairs`` over X
    and over X * scale (``then(clf)`` after each fit): (plain, scaled)."""
    fitted = []
    for factor in (1.0, scale):
        clf = PairClassifier(Learner(random_state=0), preprocessor=X * factor)
        clf.fit(pairs[:150], s[:150])
        if then is not None:
            then(clf)
        fitted.append(clf)
    return fitted


@pytest.mark.parametrize("scale", [1e-60, 1e100, 1e150])
@pytest.mark.parametrize("strategy,kw", CALIBRATIONS)
def test_calibration_at_extreme_scales_is_the_scaled_threshold(iris, strategy, kw, scale):
    # points scaled by s: ITML learns the same metric (its bounds and its
    # constraints scale alike), the distances scale by s, and so does every
    # calibrated threshold; the predictions do not change
    X, y = iris
    pairs, s = index_pairs(y, 300)
    plain, scaled = _fitted_at_scales(ITMLTransformer, X, pairs, s, scale,
                                      lambda clf: clf.calibrate_threshold(
                                          pairs[150:], s[150:], strategy, **kw))
    assert np.isfinite(scaled.threshold_)
    d_plain = -plain.decision_function(pairs[150:])
    if plain.threshold_ < d_plain.min():
        # rejecting every pair (min_rate = 1): below the smallest distance,
        # also where subtracting 1 no longer changes it
        assert scaled.threshold_ < (-scaled.decision_function(pairs[150:])).min()
        assert (scaled.predict(pairs[150:]) == -1).all()
        assert (plain.predict(pairs[150:]) == -1).all()
    else:
        assert scaled.threshold_ / scale == pytest.approx(plain.threshold_, rel=1e-9)
        np.testing.assert_array_equal(scaled.predict(pairs), plain.predict(pairs))
    np.testing.assert_allclose(scaled.decision_function(pairs) / scale,
                               plain.decision_function(pairs), rtol=1e-9)


@pytest.mark.parametrize("scale", [1e-60, 1e150])
@pytest.mark.parametrize("fmt", ["csr_matrix", "csc_array", "coo_array", "lil_matrix",
                                 "dok_array"])
def test_calibration_over_a_sparse_preprocessor_at_extreme_scales_is_the_dense_one(
        iris, fmt, scale):
    # the same points scaled by s, held as a dense array and in a sparse
    # format (COO with duplicated entries and an explicit zero): the fitted
    # distances, every calibrated threshold (the reject-all
    # one of max_tnr with min_rate = 1 included) and the predictions agree
    X, y = iris
    pairs, s = index_pairs(y, 300)
    Xs = X * scale
    sparse = getattr(sp, fmt)(Xs)
    if fmt == "coo_array":  # every entry stored twice, as two halves, and an explicit zero
        c = sparse
        sparse = sp.coo_array((np.r_[c.data / 2, c.data / 2, 0.0],
                               (np.r_[c.row, c.row, 1], np.r_[c.col, c.col, 1])),
                              shape=Xs.shape)
    before = sparse.copy()
    dense = PairClassifier(ITMLTransformer(random_state=0), preprocessor=Xs)
    held = PairClassifier(ITMLTransformer(random_state=0), preprocessor=sparse)
    dense.fit(pairs[:150], s[:150])
    held.fit(pairs[:150], s[:150])
    np.testing.assert_allclose(held.decision_function(pairs), dense.decision_function(pairs),
                               rtol=1e-10)
    for strategy, kw in CALIBRATIONS:
        dense.calibrate_threshold(pairs[150:], s[150:], strategy, **kw)
        held.calibrate_threshold(pairs[150:], s[150:], strategy, **kw)
        assert np.isfinite(held.threshold_)
        assert held.threshold_ == pytest.approx(dense.threshold_, rel=1e-10), (strategy, kw)
        np.testing.assert_array_equal(held.predict(pairs), dense.predict(pairs))
    assert (sparse != before).nnz == 0  # the user's matrix is left alone


@pytest.mark.parametrize("scale", [1e-60, 1e60, 1e150])
@pytest.mark.parametrize("Learner", [ITMLTransformer, LogDetKernelLearner,
                                     VonNeumannKernelLearner])
def test_a_kernel_learner_at_extreme_scales_makes_the_same_predictions(iris, Learner,
                                                                       scale):
    # points scaled by s: each learner learns the scaled kernel (von Neumann
    # too: it returned the initial kernel beyond s ~ 1e+-50, its log X0 past
    # the engine's guard), so the distances scale by s, the fitted and the
    # calibrated thresholds with them, and no prediction changes
    X, y = iris
    pairs, s = index_pairs(y, 300)
    plain, scaled = _fitted_at_scales(Learner, X, pairs, s, scale)
    assert scaled.estimator_.converged_ and plain.estimator_.converged_
    assert scaled.estimator_.n_iter_ == plain.estimator_.n_iter_
    np.testing.assert_allclose(scaled.decision_function(pairs) / scale,
                               plain.decision_function(pairs), rtol=1e-9)
    assert scaled.threshold_ / scale == pytest.approx(plain.threshold_, rel=1e-9)
    np.testing.assert_array_equal(scaled.predict(pairs), plain.predict(pairs))
    for clf in (plain, scaled):
        clf.calibrate_threshold(pairs[150:], s[150:], "accuracy")
    assert scaled.threshold_ / scale == pytest.approx(plain.threshold_, rel=1e-9)
    np.testing.assert_array_equal(scaled.predict(pairs), plain.predict(pairs))


@pytest.mark.parametrize("far", [1.0, 1e20, 1e150])
@pytest.mark.parametrize("strategy,kw", [("accuracy", {}), ("max_tnr", {"min_rate": 0.0})])
def test_rejecting_every_pair_rejects_the_closest_at_any_distance(far, strategy, kw):
    # every pair dissimilar: the best threshold rejects them all, the closest
    # too, also where "smallest distance minus 1" rounds back to it
    dist = far * np.array([1.0, 2.0, 3.0])
    y = np.array([-1, -1, -1])
    pairs = np.array([[[0.0], [d]] for d in dist])
    clf = PairClassifier(IdentityPairLearner()).fit(pairs, y)
    clf.calibrate_threshold(pairs, y, strategy, **kw)
    assert clf.threshold_ < dist.min()
    assert (clf.predict(pairs) == -1).all()


@pytest.mark.parametrize("strategy,kw", [("accuracy", {}), ("f_beta", {}),
                                         ("max_tpr", {"min_rate": 0.5})])
def test_calibration_on_distances_that_overflow_is_refused_naming_pairs_valid(strategy, kw):
    pairs = np.array([[[0.0], [d]] for d in (1.0, 2.0, 1e200)])
    y = np.array([1, -1, -1])
    clf = PairClassifier(IdentityPairLearner()).fit(pairs[:2], y[:2])
    before = clf.threshold_
    with pytest.raises(ValueError, match="pairs_valid: the learned squared distance of "
                                         "pair 2 overflows"):
        clf.calibrate_threshold(pairs, y, strategy, **kw)
    assert clf.threshold_ == before


def test_calibration_never_splits_pairs_at_the_same_distance():
    # metric-learn's 'accuracy' counts a cut inside a run of equal scores that no
    # threshold can make; ours cuts between distinct distances only, and reaches
    # at least the accuracy metric-learn's threshold gives
    dist = np.array([1.0, 2.0, 2.0, 2.0, 3.0])
    y = np.array([1, 1, -1, -1, -1])
    pairs = np.array([[[0.0], [d]] for d in dist])
    clf = PairClassifier(IdentityPairLearner()).fit(pairs, y)
    clf.calibrate_threshold(pairs, y, "accuracy")
    theirs = metric_learn_threshold(-dist, y, "accuracy")
    accuracy = np.mean(clf.predict(pairs) == y)
    assert accuracy == 0.8 and clf.threshold_ == 1.0
    assert accuracy >= np.mean(np.where(dist <= theirs, 1, -1) == y)


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
    # metric-learn's decision_function: pair_score, minus the distance
    np.testing.assert_array_equal(clf.pair_score(pairs), scores)


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
                               clf.decision_function(pairs) ** 2, rtol=1e-8)
    metric = clf.get_metric()
    assert metric(X[0], X[1]) == pytest.approx(clf.pair_distance(pairs[:1] * 0 + [0, 1])[0])
    assert not hasattr(PairClassifier(LogDetKernelLearner(kernel="rbf")), "get_mahalanobis_matrix")


@pytest.mark.parametrize("pairs,y,match", [
    (np.array([[0, 1], [1, 2]]), [-1, 0], "y must hold"),
    (np.zeros((2, 3)), [1, -1], "tuples of 2 points expected"),
    (np.array([[0, 1], [1, 200]]), [1, -1], "outside"),
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


# -- metric-learn's units (issue 35) ---------------------------------------------


def test_a_threshold_is_a_distance_as_in_metric_learn():
    # the silent opposite: two new pairs 0.81 and 3.47 apart under the
    # learned metric, a threshold of 10: metric-learn says both are similar
    rng = np.random.RandomState(0)
    pairs, labels = rng.randn(10, 2, 3), np.tile([1, -1], 5)
    clf = PairClassifier(ITMLTransformer(random_state=42)).fit(pairs, labels)
    new = rng.randn(2, 2, 3)
    d = clf.pair_distance(new)
    np.testing.assert_array_equal(clf.decision_function(new), -d)
    assert d.max() < 10.0
    np.testing.assert_array_equal(clf.set_threshold(10.0).predict(new), [1, 1])
    np.testing.assert_array_equal(clf.set_threshold(d.min()).predict(new),
                                  np.where(d <= d.min(), 1, -1))
    np.testing.assert_array_equal(clf.set_threshold(d.min() / 2).predict(new), [-1, -1])
    # the constructor's threshold is the same distance
    fixed = PairClassifier(ITMLTransformer(random_state=42), threshold=10.0).fit(pairs, labels)
    np.testing.assert_array_equal(fixed.predict(new), [1, 1])


@pytest.mark.parametrize("form", ["points", "array", "sparse", "callable", "float32"])
def test_decision_function_is_minus_pair_distance_in_every_form(iris, form):
    import scipy.sparse as sp

    X, y = iris
    pairs, s = index_pairs(y, 120)
    pre = {"points": None, "array": X, "sparse": sp.csr_array(X),
           "callable": lambda ids: X[ids], "float32": X.astype(np.float32)}[form]
    given = X[pairs] if form == "points" else pairs
    clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=pre).fit(given, s)
    d = clf.pair_distance(given)
    np.testing.assert_array_equal(clf.decision_function(given), -d)
    np.testing.assert_array_equal(clf.pair_score(given), -d)
    np.testing.assert_array_equal(clf.predict(given), np.where(d <= clf.threshold_, 1, -1))
    # (point pairs and a callable fit on the points the pairs use, an array on
    # all its rows: the same model within each group)
    ref_pre, ref_given = (None, X[pairs]) if form in ("points", "callable") else (X, pairs)
    ref = PairClassifier(ITMLTransformer(random_state=0), preprocessor=ref_pre).fit(ref_given, s)
    np.testing.assert_allclose(d, ref.pair_distance(ref_given),
                               rtol=1e-5 if form == "float32" else 1e-10)


def test_calibrate_threshold_takes_metric_learns_positional_order(iris):
    X, y = iris
    pairs, s = index_pairs(y, 300)
    clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=X).fit(pairs[:150], s[:150])
    held, s_held = pairs[150:], s[150:]
    # the call the migration page used to write, metric-learn's order
    clf.calibrate_threshold(held, s_held, "max_tpr", 0.9)
    pred = clf.predict(held)
    assert np.mean(pred[s_held == -1] == -1) >= 0.9
    by_keyword = clone(clf).fit(pairs[:150], s[:150]).calibrate_threshold(
        pairs_valid=held, y_valid=s_held, strategy="max_tpr", min_rate=0.9)
    assert by_keyword.threshold_ == clf.threshold_
    # f_beta with beta=0 maximises the precision (metric-learn's F_0)
    from sklearn.metrics import precision_score

    clf.calibrate_threshold(held, s_held, "f_beta", None, 0.0)
    best = precision_score(s_held, clf.predict(held), zero_division=0)
    for t in clf.pair_distance(held):
        p = precision_score(s_held, np.where(clf.pair_distance(held) <= t, 1, -1),
                            zero_division=0)
        assert p <= best
