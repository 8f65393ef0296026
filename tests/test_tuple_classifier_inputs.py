"""PairClassifier, TripletClassifier and PairKFold on bad and unusual input
on bad and unusual input get a clear error naming the argument (scikit-learn's
exception types) or a correct result; they take the label encoding
scikit-learn's own tools pass them."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import (
    KFold,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
)
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    PairKFold,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman._tuples._pairs import check_threshold_parameters
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    pc = pairs_from_labels(y, 120, random_state=0)
    return X, y, np.column_stack([pc.i, pc.j]), pc.sign.astype(int)


@pytest.fixture(scope="module")
def fitted(iris):
    X, _, pairs, s = iris
    return PairClassifier(ITMLTransformer(random_state=0), preprocessor=X).fit(pairs, s)


def learner():
    return ITMLTransformer(random_state=0)


# -- 1. calibrate_threshold checks y and its arguments as fit does ---------------------


def test_calibrate_threshold_refuses_y_of_the_wrong_length(iris, fitted):
    _, _, pairs, s = iris
    before = fitted.threshold_
    with pytest.raises(ValueError, match="^y_valid has 119 entries but there are 120 pairs.$"):
        fitted.calibrate_threshold(pairs, s[:-1])
    with pytest.raises(ValueError, match="^y_valid has 121 entries but there are 120 pairs.$"):
        fitted.calibrate_threshold(pairs, np.r_[s, 1])
    assert fitted.threshold_ == before


def test_calibrate_threshold_refuses_empty_pairs(iris, fitted):
    with pytest.raises(ValueError, match=r"pairs_valid: found an empty array \(shape \(0, 2\)\) "
                                         "while at least one pair is required"):
        fitted.calibrate_threshold(np.empty((0, 2), dtype=int), [])
    with pytest.raises(ValueError, match="found an empty array"):
        fitted.calibrate_threshold(np.empty((0, 2, 4)), [])


@pytest.mark.parametrize("bad", [
    np.r_[np.nan, np.ones(119)],   # NaN
    np.r_[np.inf, np.ones(119)],   # inf
    np.r_[-1, 0, np.ones(118)],    # the two encodings mixed
    np.r_[2, np.ones(119)],
    np.full(120, "1"),             # strings
])
def test_calibrate_threshold_refuses_bad_labels(iris, fitted, bad):
    _, _, pairs, _ = iris
    before = fitted.threshold_
    with pytest.raises(ValueError, match=r"^y_valid must hold \+1 \(similar\) and -1 "
                                         r"\(dissimilar\) for each pair; got "):
        fitted.calibrate_threshold(pairs, bad)
    assert fitted.threshold_ == before


def test_calibrate_threshold_takes_1_0_labels_as_fit_does(iris):
    X, _, pairs, s = iris
    clf = PairClassifier(learner(), preprocessor=X).fit(pairs, s)
    for strategy, kw in [("accuracy", {}), ("f_beta", {"beta": 2.0}),
                         ("max_tpr", {"min_rate": 0.8}), ("max_tnr", {"min_rate": 0.9})]:
        expected = clf.calibrate_threshold(pairs, s, strategy, **kw).threshold_
        got = clf.calibrate_threshold(pairs, (s + 1) // 2, strategy, **kw).threshold_
        assert got == expected


@pytest.mark.parametrize("kw, name", [
    ({"strategy": "max_tpr", "min_rate": -1}, "min_rate"),
    ({"strategy": "max_tnr", "min_rate": 1.5}, "min_rate"),
    ({"strategy": "max_tpr", "min_rate": np.nan}, "min_rate"),
    ({"strategy": "f_beta", "beta": -1.0}, "beta"),
    ({"strategy": "f_beta", "beta": np.nan}, "beta"),
    ({"strategy": "roc"}, "strategy"),
    ({"strategy": "max_tpr"}, "min_rate"),  # min_rate needed
])
def test_calibrate_threshold_refuses_bad_arguments(iris, fitted, kw, name):
    _, _, pairs, s = iris
    before = fitted.threshold_
    with pytest.raises(InvalidParameterError, match=name) as e:
        fitted.calibrate_threshold(pairs, s, **kw)
    assert "PairClassifier.calibrate_threshold" in str(e.value)
    assert fitted.threshold_ == before
    # the same rule for the constructor's parameters, at fit
    X = fitted.preprocessor
    with pytest.raises(InvalidParameterError, match=name):
        PairClassifier(learner(), preprocessor=X, **kw).fit(pairs, s)


# -- 2. a threshold is a finite number --------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, np.float32("nan"), "0.5"])
def test_threshold_must_be_finite(iris, fitted, bad):
    X, _, pairs, s = iris
    msg = "The 'threshold' parameter of PairClassifier"
    with pytest.raises(InvalidParameterError, match=msg):
        PairClassifier(learner(), preprocessor=X, threshold=bad).fit(pairs, s)
    before = fitted.threshold_
    with pytest.raises(InvalidParameterError, match=f"{msg}.set_threshold"):
        fitted.set_threshold(bad)
    assert fitted.threshold_ == before


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, np.float64("nan")])
def test_threshold_check_says_finite(bad):
    # said by an explicit check too, not only by how an Interval treats NaN / inf
    with pytest.raises(InvalidParameterError, match="'threshold'"):
        check_threshold_parameters("PairClassifier", threshold=bad)


# -- 3. the label encoding scikit-learn's tools pass ------------------------------------


def test_fit_on_1_0_labels_is_fit_on_plus_minus_1(iris):
    X, _, pairs, s = iris
    pm = PairClassifier(learner(), preprocessor=X).fit(pairs, s)
    zo = PairClassifier(learner(), preprocessor=X).fit(pairs, (s + 1) // 2)
    assert pm.classes_.tolist() == [-1, 1]
    assert zo.classes_.tolist() == [0, 1]
    np.testing.assert_array_equal(zo.decision_function(pairs), pm.decision_function(pairs))
    assert zo.threshold_ == pm.threshold_
    # predict speaks the encoding it was fitted on, the same decisions
    np.testing.assert_array_equal(zo.predict(pairs), (pm.predict(pairs) + 1) // 2)
    np.testing.assert_array_equal(
        zo.predict(pairs), zo.classes_[(zo.pair_distance(pairs) <= zo.threshold_) * 1])
    # score reads y in either encoding, whichever the model was fitted on
    for clf in (pm, zo):
        assert clf.score(pairs, s) == clf.score(pairs, (s + 1) // 2)
    # float and boolean labels read as well
    fl = PairClassifier(learner(), preprocessor=X).fit(pairs, s.astype(float))
    bo = PairClassifier(learner(), preprocessor=X).fit(pairs, s == 1)
    assert fl.classes_.tolist() == [-1, 1] and bo.classes_.tolist() == [0, 1]
    np.testing.assert_array_equal(bo.decision_function(pairs), pm.decision_function(pairs))


def test_one_class_labels_read_unambiguously(iris):
    X, _, pairs, s = iris
    # only 1: the native encoding; only 0: dissimilar in the 1 / 0 encoding
    ones = PairClassifier(learner(), preprocessor=X, threshold=-1.0).fit(pairs, np.ones(120))
    assert ones.classes_.tolist() == [-1, 1]
    zeros = PairClassifier(learner(), preprocessor=X, threshold=-1.0).fit(
        pairs, np.zeros(120))
    assert zeros.classes_.tolist() == [0, 1]
    assert zeros.estimator_.constraints_.sign.tolist() == [-1] * 120


def test_cross_val_predict_decision_function(iris):
    X, _, pairs, s = iris
    clf = PairClassifier(learner(), preprocessor=X)
    got = cross_val_predict(clf, pairs, s, method="decision_function")
    assert got.shape == (120,)
    expected = np.empty(120)
    for train, test in StratifiedKFold(5).split(pairs, s):
        expected[test] = clone(clf).fit(pairs[train], s[train]).decision_function(pairs[test])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # a useful ranking: similar pairs score higher
    assert roc_auc_score(s, got) > 0.9


def test_cross_val_predict_predict_keeps_the_labels_given(iris):
    X, _, pairs, s = iris
    clf = PairClassifier(learner(), preprocessor=X)
    pred = cross_val_predict(clf, pairs, s)
    assert set(np.unique(pred)) <= {-1, 1}
    expected = np.empty(120, dtype=int)
    for train, test in StratifiedKFold(5).split(pairs, s):
        expected[test] = clone(clf).fit(pairs[train], s[train]).predict(pairs[test])
    np.testing.assert_array_equal(pred, expected)
    pred01 = cross_val_predict(clf, pairs, (s + 1) // 2)
    np.testing.assert_array_equal(pred01, (pred + 1) // 2)


def test_cross_val_score_roc_auc_and_accuracy(iris):
    X, _, pairs, s = iris
    clf = PairClassifier(learner(), preprocessor=X)
    cv = KFold(3, shuffle=True, random_state=0)
    auc = cross_val_score(clf, pairs, s, scoring="roc_auc", cv=cv)
    auc01 = cross_val_score(clf, pairs, (s + 1) // 2, scoring="roc_auc", cv=cv)
    np.testing.assert_allclose(auc, auc01, rtol=1e-12)
    for k, (train, test) in enumerate(cv.split(pairs)):
        fold = clone(clf).fit(pairs[train], s[train])
        assert auc[k] == pytest.approx(roc_auc_score(s[test], fold.decision_function(
            pairs[test])), rel=1e-12)
    assert (auc > 0.9).all()
    acc = cross_val_score(clf, pairs, s, cv=cv)  # estimator's score
    acc01 = cross_val_score(clf, pairs, (s + 1) // 2, cv=cv, scoring="accuracy")
    np.testing.assert_allclose(acc, acc01, rtol=1e-12)


def test_partial_fit_keeps_the_first_encoding(iris):
    X, _, pairs, s = iris
    clf = PairClassifier(learner(), preprocessor=X).partial_fit(pairs[:60], s[:60])
    assert clf.classes_.tolist() == [-1, 1]
    with pytest.raises(ValueError, match=r"y: this batch labels pairs \[0, 1\] but the first "
                                         r"partial_fit call set classes_ to \[-1, 1\]"):
        clf.partial_fit(pairs[60:], (s[60:] + 1) // 2)
    clf.partial_fit(pairs[60:], s[60:])
    zo = PairClassifier(learner(), preprocessor=X).partial_fit(pairs[:60], (s[:60] + 1) // 2)
    zo.partial_fit(pairs[60:], np.ones(60))  # all similar: either encoding
    assert zo.classes_.tolist() == [0, 1]
    assert set(np.unique(zo.predict(pairs))) <= {0, 1}


@pytest.fixture(scope="module")
def iris_triplets(iris):
    X, y, _, _ = iris
    t = triplets_from_labels(y, 90, random_state=0)
    rng = np.random.RandomState(0)
    flip = rng.rand(90) < 0.5
    t = t.copy()
    t[flip, 1], t[flip, 2] = t[flip, 2], t[flip, 1].copy()
    return X, t, np.where(flip, -1, 1)


def test_triplet_classifier_takes_1_0_labels(iris_triplets):
    X, t, s = iris_triplets
    est = LogDetKernelLearner(kernel="linear", random_state=0)
    pm = TripletClassifier(est, preprocessor=X).fit(t, s)
    zo = TripletClassifier(est, preprocessor=X).fit(t, (s + 1) // 2)
    assert pm.classes_.tolist() == [-1, 1] and zo.classes_.tolist() == [0, 1]
    np.testing.assert_allclose(zo.decision_function(t), pm.decision_function(t), rtol=1e-12)
    np.testing.assert_array_equal(zo.predict(t), (pm.predict(t) + 1) // 2)
    assert zo.score(t, s) == zo.score(t, (s + 1) // 2) == pm.score(t, s)
    got = cross_val_predict(TripletClassifier(est, preprocessor=X), t, s,
                            method="decision_function")
    assert got.shape == (90,)
    expected = np.empty(90)
    for train, test in StratifiedKFold(5).split(t, s):
        expected[test] = TripletClassifier(est, preprocessor=X).fit(
            t[train], s[train]).decision_function(t[test])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert roc_auc_score(s, got) > 0.8
    pred = cross_val_predict(TripletClassifier(est, preprocessor=X), t, s)
    assert set(np.unique(pred)) <= {-1, 1}


@pytest.mark.parametrize("bad", [np.r_[-1, 0, np.ones(88)], np.r_[np.nan, np.ones(89)],
                                 np.full(90, 2)])
def test_triplet_classifier_refuses_bad_labels(iris_triplets, bad):
    X, t, _ = iris_triplets
    clf = TripletClassifier(SKLRClusterer(n_clusters=3, random_state=0), preprocessor=X)
    with pytest.raises(ValueError, match=r"^y must hold \+1 \(the comparison holds\) or -1 "):
        clf.fit(t, bad)
    with pytest.raises(ValueError, match="^y has 89 entries but there are 90 triplets.$"):
        clf.fit(t, np.ones(89))


# -- 4. a callable preprocessor's output is checked against the identifiers -------------


def test_preprocessor_returning_twice_the_rows(iris):
    X, _, pairs, s = iris
    n_ids = np.unique(pairs).shape[0]
    clf = PairClassifier(learner(), preprocessor=lambda ids: np.vstack([X[ids], X[ids]]))
    with pytest.raises(ValueError, match=rf"^PairClassifier: the preprocessor returned "
                                         rf"{2 * n_ids} rows for {n_ids} identifiers of pairs"):
        clf.fit(pairs, s)


def test_preprocessor_returning_too_few_rows(iris):
    X, _, pairs, s = iris
    n_ids = np.unique(pairs).shape[0]
    clf = PairClassifier(learner(), preprocessor=lambda ids: X[ids][:-1])
    with pytest.raises(ValueError, match=rf"preprocessor returned {n_ids - 1} rows for "
                                         rf"{n_ids} identifiers") as e:
        clf.fit(pairs, s)
    assert "constraint" not in str(e.value)
    t = triplets_from_labels(iris[1], 30, random_state=0)
    tclf = TripletClassifier(SKLRClusterer(n_clusters=3), preprocessor=lambda ids: X[ids][1:])
    with pytest.raises(ValueError, match=r"^TripletClassifier: the preprocessor returned "
                                         r"\d+ rows for \d+ identifiers of triplets"):
        tclf.fit(t)


def test_preprocessor_checked_after_fit_too(iris):
    X, _, pairs, s = iris
    state = {"rows": 1, "features": 4}

    def pre(ids):
        return np.repeat(X[ids][:, :state["features"]], state["rows"], axis=0)

    clf = PairClassifier(learner(), preprocessor=pre).fit(pairs, s)
    state["rows"] = 2
    for method in (clf.predict, clf.decision_function, clf.pair_distance):
        with pytest.raises(ValueError, match="the preprocessor returned 8 rows for 4 "
                                             "identifiers of pairs"):
            method(np.array([[0, 1], [2, 3]]))
    state["rows"], state["features"] = 1, 3
    with pytest.raises(ValueError, match="^PairClassifier: the preprocessor returned rows of "
                                         "3 features for the identifiers of pairs, but the "
                                         "estimator was fitted on 4 features.$"):
        clf.decision_function(pairs)


def test_preprocessor_returning_sparse_rows_is_the_dense_model(iris):
    X, _, pairs, s = iris
    dense = PairClassifier(learner(), preprocessor=lambda ids: X[ids]).fit(pairs, s)
    sparse = PairClassifier(learner(), preprocessor=lambda ids: sp.csr_matrix(X[ids])).fit(
        pairs, s)
    np.testing.assert_allclose(sparse.decision_function(pairs),
                               dense.decision_function(pairs), rtol=1e-12)


# -- 5. scalars and ragged tuples ---------------------------------------------------------


@pytest.mark.parametrize("make", [PairClassifier, TripletClassifier])
@pytest.mark.parametrize("bad, what", [
    (3, "got a scalar, 3."),
    (None, "got a scalar, None."),
    ("pairs.csv", "got a scalar, 'pairs.csv'."),
    ((p for p in range(3)), "got an object of type generator, not an array or a list"),
])
def test_scalar_tuples(make, bad, what):
    est = learner() if make is PairClassifier else SKLRClusterer()
    name, size = ("pairs", 2) if make is PairClassifier else ("triplets", 3)
    with pytest.raises(ValueError) as e:
        make(est).fit(bad, [1])
    assert str(e.value).startswith(f"{name} must have shape (n_{name}, {size}, n_features)")
    assert what in str(e.value)


def test_ragged_pairs_and_triplets(iris):
    X = iris[0]
    msg = "pairs: the rows have unequal lengths (a ragged list); every pair must have"
    cases = [
        [[X[0], X[1]], [X[2]]],                   # a pair of one point
        [[X[0], X[1][:2]], [X[2], X[3]]],         # points of different lengths
        [[X[0].tolist(), X[1].tolist()], [X[2].tolist(), X[3][:3].tolist()]],
    ]
    for bad in cases:
        with pytest.raises(ValueError) as e:
            PairClassifier(learner()).fit(bad, [1, -1])
        assert str(e.value).startswith(msg)
    with pytest.raises(ValueError, match=r"^pairs: the rows have unequal lengths"):
        PairClassifier(learner(), preprocessor=X).fit([[0, 1], [2]], [1, -1])
    fitted = PairClassifier(learner(), preprocessor=X).fit([[0, 1], [2, 60]], [1, -1])
    for method in (fitted.predict, fitted.decision_function, fitted.pair_distance):
        with pytest.raises(ValueError, match=r"^pairs: the rows have unequal lengths"):
            method([[0, 1], [2]])
    with pytest.raises(ValueError, match=r"^pairs_valid: the rows have unequal lengths"):
        fitted.calibrate_threshold([[0, 1], [2]], [1, -1])
    with pytest.raises(ValueError, match=r"^triplets: the rows have unequal lengths \(a "
                                         r"ragged list\); every triplet must have"):
        TripletClassifier(SKLRClusterer(), preprocessor=X).fit([[0, 1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"^triplets: the rows have unequal lengths"):
        TripletClassifier(SKLRClusterer()).fit([[X[0], X[1], X[2]], [X[0], X[1], X[2][:2]]])


# -- 6. what the meta-estimators wrap -----------------------------------------------------


class _Recorder(PCA):
    """PCA that records whether it was fitted."""

    fitted = 0

    def fit(self, X, y=None):
        type(self).fitted += 1
        return super().fit(X, y)


@pytest.mark.parametrize("est", [PCA(), KMeans(n_clusters=2), CSIDecomposition(),
                                 SKLRClusterer(), _Recorder()],
                         ids=lambda e: type(e).__name__)
def test_pair_classifier_refuses_what_is_not_a_pair_learner(iris, est):
    X, _, pairs, s = iris
    with pytest.raises(InvalidParameterError) as e:
        PairClassifier(est, preprocessor=X).fit(pairs, s)
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)
    msg = str(e.value)
    assert msg.startswith("The 'estimator' parameter of PairClassifier must be a pair "
                          "learner, whose fit takes the pairs as fit(X, constraints=...): "
                          "ITMLTransformer, LogDetKernelLearner, VonNeumannKernelLearner or "
                          "DefiniteBoost.")
    assert msg.endswith(f"Got {est!r}, which does not learn from pairs.")
    assert _Recorder.fitted == 0  # refused before anything is fitted


@pytest.mark.parametrize("est", [ITMLTransformer(), DefiniteBoost(), PCA()],
                         ids=lambda e: type(e).__name__)
def test_triplet_classifier_refuses_what_is_not_a_triplet_learner(iris, est):
    X, y, _, _ = iris
    t = triplets_from_labels(y, 30, random_state=0)
    with pytest.raises(InvalidParameterError) as e:
        TripletClassifier(est, preprocessor=X).fit(t)
    msg = str(e.value)
    assert msg.startswith("The 'estimator' parameter of TripletClassifier must be a triplet "
                          "learner, whose fit takes the triplets as fit(X, triplets=...): "
                          "SKLRClusterer, LogDetKernelLearner or VonNeumannKernelLearner.")
    assert msg.endswith(f"Got {est!r}, which does not learn from triplets.")


def test_the_classifiers_read_what_a_learner_declares_not_its_signature(iris):
    """A learner declares the tuples it learns from (its tags' learns_from):
    a fit that merely has a 'constraints' parameter is not enough, and
    partial_fit is offered exactly for the learners that stream them."""
    from sklearn_bregman._learners._base import learns_from

    class LooksLikeOne(PCA):
        def fit(self, X, y=None, constraints=None):
            return super().fit(X)

    X, _, pairs, s = iris
    with pytest.raises(InvalidParameterError, match="does not learn from pairs"):
        PairClassifier(LooksLikeOne(), preprocessor=X).fit(pairs, s)
    assert learns_from(LogDetKernelLearner()) == ("pairs", "triplets", "quadruplets")
    assert learns_from(SKLRClusterer()) == ("triplets",)
    assert hasattr(PairClassifier(DefiniteBoost()), "partial_fit")
    assert hasattr(TripletClassifier(LogDetKernelLearner()), "partial_fit")
    assert not hasattr(TripletClassifier(SKLRClusterer()), "partial_fit")
    # DefiniteBoost's partial_fit takes the pairs as the other learners' do
    clf = PairClassifier(DefiniteBoost(kernel="rbf", rank=6, random_state=0),
                         preprocessor=X)
    clf.partial_fit(pairs[:60], s[:60]).partial_fit(pairs[60:], s[60:])
    assert clf.estimator_.n_examples_seen_ == len(pairs)


@pytest.mark.parametrize("est", [ITMLTransformer(max_iter=20), LogDetKernelLearner(max_iter=20),
                                 VonNeumannKernelLearner(max_iter=20),
                                 DefiniteBoost(max_iter=20)],
                         ids=lambda e: type(e).__name__)
def test_pair_learners_pass(iris, est):
    X, _, pairs, s = iris
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PairClassifier(est, preprocessor=X).fit(pairs[:40], s[:40])


@pytest.mark.parametrize("est", [SKLRClusterer(n_clusters=3, max_iter=5, n_init=1),
                                 LogDetKernelLearner(max_iter=20),
                                 VonNeumannKernelLearner(max_iter=20)],
                         ids=lambda e: type(e).__name__)
def test_triplet_learners_pass(iris, est):
    X, y, _, _ = iris
    t = triplets_from_labels(y, 30, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        TripletClassifier(est, preprocessor=X).fit(t)


class _KwargsLearner(ITMLTransformer):
    """A learner whose fit takes ``**fit_params`` (as a Pipeline or a search
    does): the signature cannot tell, so it is let through."""

    def fit(self, X, y=None, **fit_params):
        return super().fit(X, y, **fit_params)


def test_a_fit_with_kwargs_is_let_through(iris):
    X, _, pairs, s = iris
    clf = PairClassifier(_KwargsLearner(random_state=0), preprocessor=X).fit(pairs, s)
    ref = PairClassifier(learner(), preprocessor=X).fit(pairs, s)
    np.testing.assert_allclose(clf.decision_function(pairs), ref.decision_function(pairs))


# -- 7. PairKFold's n_splits ---------------------------------------------------------------


@pytest.mark.parametrize("bad", [2.5, 2.0, "a", "3", None, True, 1, 0, -2, np.float64(3)])
def test_pair_kfold_n_splits(bad):
    with pytest.raises(ValueError, match="^PairKFold: n_splits, the number of folds, must be "
                                         "an integer of at least 2"):
        PairKFold(bad)
    with pytest.raises(ValueError):  # as scikit-learn's KFold
        KFold(bad)


def test_pair_kfold_shuffle_and_random_state_as_kfold():
    with pytest.raises(TypeError, match="^PairKFold: shuffle must be True or False; got 'yes'"):
        PairKFold(3, shuffle="yes")
    with pytest.raises(ValueError, match="random_state has no effect since shuffle is False"):
        PairKFold(3, shuffle=False, random_state=0)
    cv = PairKFold(np.int64(3), shuffle=np.True_, random_state=0)
    assert cv.n_splits == 3 and type(cv.n_splits) is int and cv.get_n_splits() == 3
    assert "n_splits=3" in repr(cv)
