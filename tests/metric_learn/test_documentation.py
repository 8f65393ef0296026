"""metric-learn's documentation and examples, translated by the migration page.

Every code snippet of metric-learn's documentation and examples
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence, Copyright
(c) 2015 CJ Carey and Yuan Tang) that concerns what this package offers,
translated to sklearn_bregman as docs/user_guide/migration.md tells a user to,
runs here and asserts what the snippet shows.  A snippet is a code block of
the documentation (a ``::`` literal block, or a run of ``>>>`` lines between
two paragraphs) or a code cell of an example.  One test per snippet, named
after its file and section, with a comment quoting (a line or two of) what it
translates.  The sources, and the 59 snippets:

- doc/getting_started.rst: the quick start (1);
- doc/introduction.rst: no code;
- doc/weakly_supervised.rst: all 36 (pairs, triplets, quadruplets, and the
  algorithm sections of ITML, SDML, RCA, MMC, SCML, LSML);
- doc/preprocessor.rst: all 5;
- doc/supervised.rst: the general API (7) and the supervised versions of the
  weakly supervised learners (1); not its LMNN, NCA, LFDA and MLKR sections;
- doc/unsupervised.rst: Covariance (1);
- examples/plot_metric_learning_examples.py: the cells of ITML_Supervised,
  MMC_Supervised, SDML_Supervised, LSML_Supervised, RCA_Supervised, the
  hand-made pair constraints (with their print) and ITML on them (7); not the
  LMNN, NCA, LFDA and MLKR cells, nor the t-SNE plots;
- examples/plot_sandwich.py: the demo's learners (1).

What the page says, in short, as these tests use it: ``ITML``, ``MMC``,
``SDML`` on pairs are ``PairClassifier(ITMLTransformer())``; their
``*_Supervised`` are ``ITMLTransformer`` (``n_constraints`` pairs of each
kind: ``2 * n_constraints`` here); RCA's chunks are their similar pairs;
``SCML`` is ``TripletClassifier(LogDetKernelLearner())``, ``LSML``
``QuadrupletClassifier(LogDetKernelLearner())`` and ``LSML_Supervised``
``LogDetKernelLearner(label_constraints='relative')``; ``NCA`` is
scikit-learn's ``NeighborhoodComponentsAnalysis``, or ``ITMLTransformer``
where the snippet uses the metric surface or a preprocessor;
``Covariance`` is ``PCA(whiten=True)``; a pair learner's default ``score``
(ROC AUC) is ``scoring='roc_auc'``.  Thresholds and ``decision_function``
are in distances, as metric-learn's.
"""

import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_classification
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import get_scorer, roc_auc_score
from sklearn.model_selection import KFold, cross_val_score, train_test_split
from sklearn.neighbors import (
    KNeighborsClassifier,
    NearestNeighbors,
    NeighborhoodComponentsAnalysis,
)
from sklearn.pipeline import make_pipeline

from sklearn_bregman import (
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    TripletClassifier,
)
from sklearn_bregman.constraints import PairConstraints, pairs_from_labels

# -- the documentation's data -----------------------------------------------------

# doc/weakly_supervised.rst, "3D array of tuples" and "2D array of indicators"
TUPLES = np.array([[[-0.12, -1.21, -0.20], [+0.05, -0.19, -0.05]],
                   [[-2.16, +0.11, -0.02], [+1.58, +0.16, +0.93]],
                   [[+1.58, +0.16, +0.93], [+0.89, -0.34, +2.41]],
                   [[-0.12, -1.21, -0.20], [-2.16, +0.11, -0.02]]])
TUPLES_X = np.array([[-0.12, -1.21, -0.20],
                     [+0.05, -0.19, -0.05],
                     [-2.16, +0.11, -0.02],
                     [+1.58, +0.16, +0.93],
                     [+0.89, -0.34, +2.41]])
TUPLES_INDICES = np.array([[0, 1], [2, 3], [3, 4], [0, 2]])
TUPLES_Y = np.array([-1, 1, 1, -1])

# doc/weakly_supervised.rst, "Learning on pairs"
PAIRS = np.array([[[1.2, 3.2], [2.3, 5.5]],
                  [[4.5, 2.3], [2.1, 2.3]]])
Y_PAIRS = np.array([1, -1])
NEW_PAIRS = [[[0.6, 1.6], [1.15, 2.75]],
             [[3.2, 1.1], [5.4, 6.1]]]
PAIRS_TEST = np.array([[[0.6, 1.6], [1.15, 2.75]],
                       [[3.2, 1.1], [5.4, 6.1]],
                       [[7.7, 5.6], [1.23, 8.4]]])

# doc/weakly_supervised.rst, the ITML, SDML and MMC sections' pairs
FEATURE_PAIRS = [[[1.2, 7.5], [1.3, 1.5]],
                 [[6.4, 2.6], [6.2, 9.7]],
                 [[1.3, 4.5], [3.2, 4.6]],
                 [[6.2, 5.5], [5.4, 5.4]]]
FEATURE_Y = [1, 1, -1, -1]

# doc/weakly_supervised.rst, "Learning on triplets" and "Learning on quadruplets"
TRIPLETS = np.array([[[1.2, 3.2], [2.3, 5.5], [2.1, 0.6]],
                     [[4.5, 2.3], [2.1, 2.3], [7.3, 3.4]]])
TRIPLETS_TEST = np.array([[[5.6, 5.3], [2.2, 2.1], [1.2, 3.4]],
                          [[6.0, 4.2], [4.3, 1.2], [0.1, 7.8]]])
QUADRUPLETS = np.array([[[1.2, 3.2], [2.3, 5.5], [2.4, 6.7], [2.1, 0.6]],
                        [[4.5, 2.3], [2.1, 2.3], [0.6, 1.2], [7.3, 3.4]]])
QUADRUPLETS_X = np.array([[1.2, 3.2], [2.3, 5.5], [2.4, 6.7], [2.1, 0.6],
                          [4.5, 2.3], [2.1, 2.3], [0.6, 1.2], [7.3, 3.4]])
QUADRUPLETS_TEST = np.array([[[5.6, 5.3], [2.2, 2.1], [0.4, 0.6], [1.2, 3.4]],
                             [[6.0, 4.2], [4.3, 1.2], [4.5, 0.6], [0.1, 7.8]]])

# doc/preprocessor.rst
PRE_X = np.array([[-0.7, -0.23],
                  [-0.43, -0.49],
                  [0.14, -0.37]])

# doc/supervised.rst, "Input data": two dogs and a cat
ANIMALS_X = np.array([[2.3, 3.6], [0.2, 0.5], [6.7, 2.1]])
ANIMALS_Y = np.array(["dog", "cat", "dog"])


# -- what the snippets show, checked the same way everywhere -------------------------


def assert_pairs_by_distance(clf, pairs):
    """metric-learn's pair rule: ``decision_function`` is minus the learned
    distance, and a pair is similar (+1) where its distance is at most
    ``threshold_``, a distance."""
    d = clf.pair_distance(pairs)
    assert_allclose(clf.decision_function(pairs), -d)
    assert_allclose(clf.pair_score(pairs), -d)
    assert_array_equal(clf.predict(pairs), np.where(d <= clf.threshold_, 1, -1))


def assert_tuples_by_distance(clf, tuples, first, second):
    """A triplet or quadruplet learner: ``decision_function`` is the learned
    distance of the ``second`` pair minus that of the ``first`` (distances,
    not squared), ``predict`` +1 where it is positive and -1 elsewhere, and
    ``score`` (no ``y``) the fraction predicted +1."""
    tuples = np.asarray(tuples)
    d_first = clf.pair_distance(tuples[:, first])
    d_second = clf.pair_distance(tuples[:, second])
    assert_allclose(clf.decision_function(tuples), d_second - d_first)
    pred = clf.predict(tuples)
    assert_array_equal(pred, np.where(d_second - d_first > 0, 1, -1))
    assert clf.score(tuples) == pytest.approx(np.mean(pred == 1))


def same_class_neighbour(Z, y):
    """Fraction of points whose nearest other point (in ``Z``) has their label."""
    nn = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z, return_distance=False)
    return np.mean(y[nn[:, 1]] == y)


def mmc_of_the_general_api():
    """The ``mmc`` of doc/weakly_supervised.rst's "Fit, transform, and so on",
    as the page translates it: ``MMC(random_state=42).fit(tuples, y)``."""
    return PairClassifier(ITMLTransformer(random_state=42)).fit(TUPLES, TUPLES_Y)


def mmc_of_learning_on_pairs():
    """The ``mmc`` of doc/weakly_supervised.rst's "Learning on pairs"."""
    return PairClassifier(ITMLTransformer(random_state=42)).fit(PAIRS, Y_PAIRS)


# == doc/getting_started.rst ===========================================================


def test_getting_started_quick_start():
    # doc/getting_started.rst, "Quick start":
    #     clf = make_pipeline(NCA(), KNeighborsClassifier())
    #     cross_val_score(clf, X, y)
    X, y = load_iris(return_X_y=True)
    clf = make_pipeline(NeighborhoodComponentsAnalysis(random_state=0),
                        KNeighborsClassifier())
    scores = cross_val_score(clf, X, y)
    assert scores.shape == (5,)
    assert scores.mean() > 0.9


# == doc/weakly_supervised.rst: general API ============================================


def test_weakly_supervised_basic_form_fit():
    # doc/weakly_supervised.rst, "Basic form":
    #     >>> my_algo.fit(tuples, y)
    my_algo = PairClassifier(ITMLTransformer(random_state=0))
    assert my_algo.fit(TUPLES, TUPLES_Y) is my_algo
    assert set(my_algo.predict(TUPLES)) <= {-1, 1}


def test_weakly_supervised_basic_form_train_test_split():
    # doc/weakly_supervised.rst, "Basic form":
    #     >>> pairs_train, pairs_test, y_train, y_test = train_test_split(pairs, y)
    X, labels = load_iris(return_X_y=True)
    pc = pairs_from_labels(labels, 200, random_state=0)
    pairs, y = X[np.column_stack([pc.i, pc.j])], pc.sign
    pairs_train, pairs_test, y_train, y_test = train_test_split(pairs, y, random_state=0)
    assert pairs_train.shape == (150, 2, 4) and pairs_test.shape == (50, 2, 4)
    clf = PairClassifier(ITMLTransformer(random_state=0)).fit(pairs_train, y_train)
    assert clf.score(pairs_test, y_test) > 0.8  # accuracy on the held-out pairs


def test_weakly_supervised_3d_array_of_tuples():
    # doc/weakly_supervised.rst, "3D array of tuples": 4 pairs of 2 points of 3 features
    #     >>> tuples = np.array([[[-0.12, -1.21, -0.20],
    #     >>> y = np.array([-1, 1, 1, -1])
    assert TUPLES.shape == (4, 2, 3)
    clf = PairClassifier(ITMLTransformer(random_state=0)).fit(TUPLES, TUPLES_Y)
    # a point repeated across pairs ("same as tuples[1, 1, :]") is one point
    c = clf.estimator_.constraints_
    assert max(c.i.max(), c.j.max()) == len(TUPLES_X) - 1
    assert clf.predict(TUPLES).shape == (4,)


def test_weakly_supervised_2d_array_of_indicators_and_preprocessor():
    # doc/weakly_supervised.rst, "2D array of indicators + preprocessor":
    #     >>> tuples_indices = np.array([[0, 1],
    # "An equivalent representation of the above pairs"
    assert_array_equal(TUPLES_X[TUPLES_INDICES], TUPLES)
    clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=TUPLES_X)
    clf.fit(TUPLES_INDICES, TUPLES_Y)
    assert_allclose(clf.pair_distance(TUPLES_INDICES), clf.pair_distance(TUPLES))
    assert_array_equal(clf.predict(TUPLES_INDICES), clf.predict(TUPLES))


def test_weakly_supervised_fit_transform_and_so_on_fit():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> mmc = MMC(random_state=42)
    #     >>> mmc.fit(tuples, y)
    mmc = PairClassifier(ITMLTransformer(random_state=42))
    assert mmc.fit(TUPLES, TUPLES_Y) is mmc
    assert "random_state=42" in repr(mmc)
    assert_pairs_by_distance(mmc, TUPLES)


def test_weakly_supervised_fit_transform_and_so_on_fit_with_preprocessor():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> mmc = MMC(preprocessor=X, random_state=42)
    #     >>> mmc.fit(pairs_indice, y)
    # (the documentation's ``pairs_indice`` is the ``tuples_indices`` above)
    mmc = PairClassifier(ITMLTransformer(random_state=42), preprocessor=TUPLES_X)
    mmc.fit(TUPLES_INDICES, TUPLES_Y)
    assert mmc.components_.shape == (3, 3)
    assert_pairs_by_distance(mmc, TUPLES_INDICES)


def test_weakly_supervised_fit_transform_and_so_on_transform():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> X_new = np.array([[9.4, 4.1, 4.2], [2.1, 4.4, 2.3]])
    #     >>> mmc.transform(X_new)
    mmc = mmc_of_the_general_api()
    X_new = np.array([[9.4, 4.1, 4.2], [2.1, 4.4, 2.3]])
    X_embedded = mmc.transform(X_new)
    assert X_embedded.shape == (2, 3)
    assert_allclose(X_embedded, X_new @ mmc.components_.T)


def test_weakly_supervised_fit_transform_and_so_on_pair_distance():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> mmc.pair_distance([[[3.5, 3.6, 5.2], [5.6, 2.4, 6.7]],
    #     ...                  [[1.2, 4.2, 7.7], [2.1, 6.4, 0.9]]])
    mmc = mmc_of_the_general_api()
    pairs = np.array([[[3.5, 3.6, 5.2], [5.6, 2.4, 6.7]],
                      [[1.2, 4.2, 7.7], [2.1, 6.4, 0.9]]])
    d = mmc.pair_distance(pairs)
    assert d.shape == (2,)
    Z = mmc.transform(pairs.reshape(4, 3)).reshape(2, 2, -1)
    assert_allclose(d, np.linalg.norm(Z[:, 0] - Z[:, 1], axis=1))


def test_weakly_supervised_fit_transform_and_so_on_get_metric():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> metric_fun = mmc.get_metric()
    #     >>> metric_fun([3.5, 3.6, 5.2], [5.6, 2.4, 6.7])
    mmc = mmc_of_the_general_api()
    metric_fun = mmc.get_metric()
    u, v = [3.5, 3.6, 5.2], [5.6, 2.4, 6.7]
    assert metric_fun(u, v) == pytest.approx(mmc.pair_distance([[u, v]])[0])
    assert metric_fun(u, v, squared=True) == pytest.approx(metric_fun(u, v) ** 2)


def test_weakly_supervised_fit_transform_and_so_on_pair_score():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> score = mmc.pair_score([[[3.5, 3.6], [5.6, 2.4]], [[1.2, 4.2], [2.1, 6.4]],
    #     ...                         [[3.3, 7.8], [10.9, 0.1]]])
    # As written it fails in metric-learn too: two features, the ``mmc`` three.
    mmc = mmc_of_the_general_api()
    as_written = [[[3.5, 3.6], [5.6, 2.4]], [[1.2, 4.2], [2.1, 6.4]],
                  [[3.3, 7.8], [10.9, 0.1]]]
    with pytest.raises(ValueError, match="features"):
        mmc.pair_score(as_written)
    # what it shows, on pairs of the model's three features
    pairs = [[[3.5, 3.6, 0.0], [5.6, 2.4, 0.0]], [[1.2, 4.2, 0.0], [2.1, 6.4, 0.0]],
             [[3.3, 7.8, 0.0], [10.9, 0.1, 0.0]]]
    score = mmc.pair_score(pairs)
    assert score.shape == (3,) and np.all(score <= 0)
    assert_allclose(score, -mmc.pair_distance(pairs))


def test_weakly_supervised_fit_transform_and_so_on_get_mahalanobis_matrix():
    # doc/weakly_supervised.rst, "Fit, transform, and so on":
    #     >>> mmc.get_mahalanobis_matrix()
    mmc = mmc_of_the_general_api()
    M = mmc.get_mahalanobis_matrix()
    assert M.shape == (3, 3)
    assert_allclose(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    assert_allclose(M, mmc.components_.T @ mmc.components_)
    u, v = np.array([3.5, 3.6, 5.2]), np.array([5.6, 2.4, 6.7])
    assert mmc.get_metric()(u, v, squared=True) == pytest.approx((u - v) @ M @ (u - v))


def test_weakly_supervised_scikit_learn_compatibility():
    # doc/weakly_supervised.rst, "Scikit-learn compatibility":
    #     >>> mmc = MMC(preprocessor=X)
    #     >>> cross_val_score(mmc, pairs_indices, y)
    # metric-learn's default score of pairs is the ROC AUC: scoring='roc_auc' here
    rng = np.random.RandomState(42)
    X, _ = load_iris(return_X_y=True)
    pairs_indices = rng.randint(X.shape[0], size=(30, 2))
    y = 2 * rng.randint(2, size=30) - 1
    mmc = PairClassifier(ITMLTransformer(), preprocessor=X)
    scores = cross_val_score(mmc, pairs_indices, y, scoring="roc_auc")
    assert scores.shape == (5,)
    assert np.all((scores >= 0) & (scores <= 1))


# == doc/weakly_supervised.rst: learning on pairs ======================================


def test_weakly_supervised_learning_on_pairs_fitting():
    # doc/weakly_supervised.rst, "Learning on pairs", "Fitting":
    #     >>> mmc = MMC(random_state=42)
    #     >>> mmc.fit(pairs, y_pairs)
    mmc = PairClassifier(ITMLTransformer(random_state=42))
    assert mmc.fit(PAIRS, Y_PAIRS) is mmc
    # "a metric that puts the two first points closer together in the transformed
    # space, and the two next points further away from each other"
    euclidean = np.linalg.norm(PAIRS[:, 0] - PAIRS[:, 1], axis=1)
    ratio = mmc.pair_distance(PAIRS) / euclidean
    assert ratio[0] < 1 < ratio[1]


def test_weakly_supervised_learning_on_pairs_prediction():
    # doc/weakly_supervised.rst, "Learning on pairs", "Prediction":
    #     >>> mmc.predict([[[0.6, 1.6], [1.15, 2.75]],
    #     ...              [[3.2, 1.1], [5.4, 6.1]]])
    #     array([1, -1])
    mmc = mmc_of_learning_on_pairs()
    assert_array_equal(mmc.predict(NEW_PAIRS), [1, -1])
    assert_pairs_by_distance(mmc, NEW_PAIRS)


def test_weakly_supervised_prediction_threshold_calibration_at_fit_time():
    # doc/weakly_supervised.rst, "Prediction threshold", calibration at fit time:
    #     >>> mmc.fit(pairs, y) # will fit the threshold automatically after fitting
    mmc = mmc_of_learning_on_pairs()
    # metric-learn's 'accuracy' threshold: the distance of the farthest accepted pair
    assert mmc.threshold_ == pytest.approx(mmc.pair_distance(PAIRS)[0])
    assert_array_equal(mmc.predict(PAIRS), Y_PAIRS)
    assert_pairs_by_distance(mmc, PAIRS)
    # "the calibration parameters [...] in the fit method" (calibration_params)
    calibration_params = {"strategy": "max_tnr", "min_rate": 1.0}
    clf = PairClassifier(ITMLTransformer(random_state=42), **calibration_params)
    clf.fit(PAIRS, Y_PAIRS)
    by_hand = mmc_of_learning_on_pairs().calibrate_threshold(PAIRS, Y_PAIRS, **calibration_params)
    assert clf.threshold_ == pytest.approx(by_hand.threshold_)


def test_weakly_supervised_prediction_threshold_calibration_on_validation_set():
    # doc/weakly_supervised.rst, "Prediction threshold", calibration on a validation set:
    #     >>> mmc.calibrate_threshold(pairs, y)
    mmc = mmc_of_learning_on_pairs()
    assert mmc.calibrate_threshold(PAIRS, Y_PAIRS) is mmc
    assert_array_equal(mmc.predict(PAIRS), Y_PAIRS)
    # on a validation set of iris pairs, metric-learn's order of arguments
    X, labels = load_iris(return_X_y=True)
    pc = pairs_from_labels(labels, 400, random_state=0)
    pairs, y = np.column_stack([pc.i, pc.j]), pc.sign
    clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=X)
    clf.fit(pairs[:200], y[:200])
    pairs_valid, y_valid = pairs[200:], y[200:]
    d = clf.pair_distance(pairs_valid)

    def accuracy_at(t):
        return np.mean(np.where(d <= t, 1, -1) == y_valid)

    clf.calibrate_threshold(pairs_valid, y_valid)  # strategy='accuracy'
    assert accuracy_at(clf.threshold_) == max(accuracy_at(t) for t in np.append(d, -1.0))
    clf.calibrate_threshold(pairs_valid, y_valid, "max_tpr", 0.9)
    pred = clf.predict(pairs_valid)
    assert np.mean(pred[y_valid == -1] == -1) >= 0.9  # the true negative rate
    clf.calibrate_threshold(pairs_valid, y_valid, "max_tnr", 0.9)
    pred = clf.predict(pairs_valid)
    assert np.mean(pred[y_valid == 1] == 1) >= 0.9  # the true positive rate
    assert_pairs_by_distance(clf, pairs_valid)


def test_weakly_supervised_prediction_threshold_manual():
    # doc/weakly_supervised.rst, "Prediction threshold", manual threshold:
    #     >>> mmc.set_threshold(0.4)
    mmc = mmc_of_learning_on_pairs()
    assert mmc.set_threshold(0.4) is mmc
    assert mmc.threshold_ == 0.4
    d = mmc.pair_distance(NEW_PAIRS)
    assert_array_equal(mmc.predict(NEW_PAIRS), np.where(d <= 0.4, 1, -1))
    # a distance between the two pairs' separates them
    mmc.set_threshold(d.mean())
    assert_array_equal(mmc.predict(NEW_PAIRS), [1, -1])


def test_weakly_supervised_learning_on_pairs_scoring_decision_function():
    # doc/weakly_supervised.rst, "Learning on pairs", "Scoring":
    #     >>> mmc.decision_function([[[0.6, 1.6], [1.15, 2.75]],
    #     ...                        [[3.2, 1.1], [5.4, 6.1]]])
    #     array([-0.12811124, -0.74750256])
    mmc = mmc_of_learning_on_pairs()
    scores = mmc.decision_function(NEW_PAIRS)
    assert_allclose(scores, -mmc.pair_distance(NEW_PAIRS))  # the opposite of the distance
    assert np.all(scores < 0) and scores[0] > scores[1]  # the first pair more similar


def test_weakly_supervised_learning_on_pairs_scoring_cross_val_score():
    # doc/weakly_supervised.rst, "Learning on pairs", "Scoring":
    #     >>> cross_val_score(mmc, pairs_test, y_test, scoring='accuracy')
    #     array([1., 0., 1.])
    # cv=KFold(3): scikit-learn's default (5 stratified folds) refuses 3 pairs
    # (metric-learn's snippet fails the same on today's scikit-learn)
    mmc = mmc_of_learning_on_pairs()
    y_test = np.array([-1., 1., -1.])
    scores = cross_val_score(mmc, PAIRS_TEST, y_test, scoring="accuracy", cv=KFold(3))
    assert scores.shape == (3,)
    assert set(scores) <= {0.0, 1.0}


def test_weakly_supervised_learning_on_pairs_scoring_default_score():
    # doc/weakly_supervised.rst, "Learning on pairs", "Scoring":
    #     >>> mmc.score(pairs_test, y_test)
    #     1.0
    # metric-learn's score is the ROC AUC; ours is accuracy
    mmc = mmc_of_learning_on_pairs()
    y_test = np.array([1., -1., -1.])
    assert roc_auc_score(y_test, mmc.decision_function(PAIRS_TEST)) == 1.0
    assert get_scorer("roc_auc")(mmc, PAIRS_TEST, y_test) == 1.0
    assert mmc.score(PAIRS_TEST, y_test) == np.mean(mmc.predict(PAIRS_TEST) == y_test)


def _weighs_the_first_feature_more(clf):
    """The ITML, SDML and MMC sections' task: "points where the first feature is
    close [...] closer to each other, no matter how close the second feature is"."""
    M = clf.get_mahalanobis_matrix()
    assert M[0, 0] > M[1, 1]
    assert_array_equal(clf.predict(FEATURE_PAIRS)[:2], [1, 1])  # the similar pairs
    assert_pairs_by_distance(clf, FEATURE_PAIRS)


def test_weakly_supervised_itml_example_code():
    # doc/weakly_supervised.rst, "ITML", "Example Code":
    #     itml = ITML()
    #     itml.fit(pairs, y)
    itml = PairClassifier(ITMLTransformer())
    itml.fit(FEATURE_PAIRS, FEATURE_Y)
    _weighs_the_first_feature_more(itml)


def test_weakly_supervised_sdml_example_code():
    # doc/weakly_supervised.rst, "SDML", "Example Code":
    #     sdml = SDML()
    #     sdml.fit(pairs, y)
    sdml = PairClassifier(ITMLTransformer())
    sdml.fit(FEATURE_PAIRS, FEATURE_Y)
    _weighs_the_first_feature_more(sdml)


def test_weakly_supervised_rca_example_code():
    # doc/weakly_supervised.rst, "RCA", "Example Code":
    #     chunks = [0, 0, 1, 1, 2, 2, 3, 3]
    #     rca.fit(X, chunks)
    X = np.array([[-0.05, 3.0], [0.05, -3.0],
                  [0.1, -3.55], [-0.1, 3.55],
                  [-0.95, -0.05], [0.95, 0.05],
                  [0.4, 0.05], [-0.4, -0.05]])
    chunks = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    i, j = np.triu_indices(len(chunks), 1)
    same = (chunks[i] == chunks[j]) & (chunks[i] >= 0)
    rca = ITMLTransformer()
    rca.fit(X, constraints=PairConstraints(i[same], j[same], np.ones(same.sum())))
    # the chunklets spread along the second feature: it weighs less
    M = rca.get_mahalanobis_matrix()
    assert M[1, 1] < M[0, 0]
    assert rca.transform(X).shape == (8, 2)


def test_weakly_supervised_mmc_example_code():
    # doc/weakly_supervised.rst, "MMC", "Example Code":
    #     mmc = MMC()
    #     mmc.fit(pairs, y)
    mmc = PairClassifier(ITMLTransformer())
    mmc.fit(FEATURE_PAIRS, FEATURE_Y)
    _weighs_the_first_feature_more(mmc)


# == doc/weakly_supervised.rst: learning on triplets ===================================


def scml_of_learning_on_triplets():
    """The ``scml`` of "Learning on triplets": ``SCML(random_state=42).fit(triplets)``."""
    return TripletClassifier(LogDetKernelLearner(random_state=42)).fit(TRIPLETS)


def test_weakly_supervised_learning_on_triplets_fitting():
    # doc/weakly_supervised.rst, "Learning on triplets", "Fitting":
    #     >>> scml = SCML(random_state=42)
    #     >>> scml.fit(triplets)
    scml = TripletClassifier(LogDetKernelLearner(random_state=42))
    assert scml.fit(TRIPLETS) is scml
    # "for each of the two triplets, [...] the first point closer to the second
    # point than to the third one"
    assert_array_equal(scml.predict(TRIPLETS), [1, 1])
    assert scml.components_.shape == (2, 2)


def test_weakly_supervised_learning_on_triplets_fitting_with_preprocessor():
    # doc/weakly_supervised.rst, "Learning on triplets", "Fitting":
    #     >>> triplets_indices = np.array([[0, 1, 2], [3, 4, 5]])
    #     >>> scml = SCML(preprocessor=X, random_state=42)
    # (as written, its X has an unbalanced bracket: a SyntaxError in metric-learn too)
    X = np.array([[1.2, 3.2], [2.3, 5.5], [2.1, 0.6],
                  [4.5, 2.3], [2.1, 2.3], [7.3, 3.4]])
    triplets_indices = np.array([[0, 1, 2], [3, 4, 5]])
    assert_array_equal(X[triplets_indices], TRIPLETS)
    scml = TripletClassifier(LogDetKernelLearner(random_state=42), preprocessor=X)
    scml.fit(triplets_indices)
    assert_array_equal(scml.predict(triplets_indices), [1, 1])
    assert_array_equal(scml.predict(TRIPLETS), [1, 1])  # points skip the preprocessor


def test_weakly_supervised_learning_on_triplets_prediction():
    # doc/weakly_supervised.rst, "Learning on triplets", "Prediction":
    #     >>> scml.predict(triplets_test)
    #     array([-1.,  1.])
    scml = scml_of_learning_on_triplets()
    pred = scml.predict(TRIPLETS_TEST)
    assert pred.shape == (2,) and set(pred) <= {-1, 1}
    assert_tuples_by_distance(scml, TRIPLETS_TEST, [0, 1], [0, 2])


def test_weakly_supervised_learning_on_triplets_scoring_decision_function():
    # doc/weakly_supervised.rst, "Learning on triplets", "Scoring":
    #     >>> scml.decision_function(triplets_test)
    #     array([-1.75700306,  4.98982131])
    # "the distance between the first two points minus the distance between the
    # first and last points", taken as metric-learn computes it: d(a, c) - d(a, b)
    scml = scml_of_learning_on_triplets()
    assert_tuples_by_distance(scml, TRIPLETS_TEST, [0, 1], [0, 2])


def test_weakly_supervised_learning_on_triplets_scoring_score():
    # doc/weakly_supervised.rst, "Learning on triplets", "Scoring":
    #     >>> scml.score(triplets_test)
    #     0.5
    scml = scml_of_learning_on_triplets()
    score = scml.score(TRIPLETS_TEST)
    assert score == np.mean(scml.predict(TRIPLETS_TEST) == 1)
    assert score in (0.0, 0.5, 1.0)


def test_weakly_supervised_scml_example_code():
    # doc/weakly_supervised.rst, "SCML", "Example Code":
    #     scml = SCML()
    #     scml.fit(triplets)
    triplets = [[[1.2, 7.5], [1.3, 1.5], [6.2, 9.7]],
                [[1.3, 4.5], [3.2, 4.6], [5.4, 5.4]],
                [[3.2, 7.5], [3.3, 1.5], [8.2, 9.7]],
                [[3.3, 4.5], [5.2, 4.6], [7.4, 5.4]]]
    scml = TripletClassifier(LogDetKernelLearner())
    scml.fit(triplets)
    assert scml.score(triplets) == 1.0
    assert_tuples_by_distance(scml, triplets, [0, 1], [0, 2])


# == doc/weakly_supervised.rst: learning on quadruplets ================================


def lsml_of_learning_on_quadruplets():
    """The ``lsml`` of "Learning on quadruplets": ``LSML(random_state=42).fit(quadruplets)``."""
    from sklearn_bregman import QuadrupletClassifier

    return QuadrupletClassifier(LogDetKernelLearner(random_state=42)).fit(QUADRUPLETS)


def test_weakly_supervised_learning_on_quadruplets_fitting():
    # doc/weakly_supervised.rst, "Learning on quadruplets", "Fitting":
    #     >>> lsml = LSML(random_state=42)
    #     >>> lsml.fit(quadruplets)
    from sklearn_bregman import QuadrupletClassifier

    lsml = QuadrupletClassifier(LogDetKernelLearner(random_state=42))
    assert lsml.fit(QUADRUPLETS) is lsml
    # "for each of the two quadruplets, [...] the two first points closer together
    # than the two last points"
    assert_array_equal(lsml.predict(QUADRUPLETS), [1, 1])


def test_weakly_supervised_learning_on_quadruplets_fitting_with_preprocessor():
    # doc/weakly_supervised.rst, "Learning on quadruplets", "Fitting":
    #     >>> quadruplets_indices = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
    #     >>> lsml = LSML(preprocessor=X, random_state=42)
    from sklearn_bregman import QuadrupletClassifier

    quadruplets_indices = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
    assert_array_equal(QUADRUPLETS_X[quadruplets_indices], QUADRUPLETS)
    lsml = QuadrupletClassifier(LogDetKernelLearner(random_state=42),
                                preprocessor=QUADRUPLETS_X)
    lsml.fit(quadruplets_indices)
    assert_array_equal(lsml.predict(quadruplets_indices), [1, 1])
    assert_array_equal(lsml.predict(QUADRUPLETS), [1, 1])


def test_weakly_supervised_learning_on_quadruplets_prediction():
    # doc/weakly_supervised.rst, "Learning on quadruplets", "Prediction":
    #     >>> lsml.predict(quadruplets_test)
    #     array([-1.,  1.])
    lsml = lsml_of_learning_on_quadruplets()
    pred = lsml.predict(QUADRUPLETS_TEST)
    assert pred.shape == (2,) and set(pred) <= {-1, 1}
    assert_tuples_by_distance(lsml, QUADRUPLETS_TEST, [0, 1], [2, 3])


def test_weakly_supervised_learning_on_quadruplets_scoring_decision_function():
    # doc/weakly_supervised.rst, "Learning on quadruplets", "Scoring":
    #     >>> lsml.decision_function(quadruplets_test)
    #     array([-1.75700306,  4.98982131])
    # metric-learn computes d(c, d) - d(a, b), in distances
    lsml = lsml_of_learning_on_quadruplets()
    assert_tuples_by_distance(lsml, QUADRUPLETS_TEST, [0, 1], [2, 3])


def test_weakly_supervised_learning_on_quadruplets_scoring_score():
    # doc/weakly_supervised.rst, "Learning on quadruplets", "Scoring":
    #     >>> lsml.score(quadruplets_test)
    #     0.5
    lsml = lsml_of_learning_on_quadruplets()
    score = lsml.score(QUADRUPLETS_TEST)
    assert score == np.mean(lsml.predict(QUADRUPLETS_TEST) == 1)
    assert score in (0.0, 0.5, 1.0)


def test_weakly_supervised_lsml_example_code():
    # doc/weakly_supervised.rst, "LSML", "Example Code":
    #     lsml = LSML()
    #     lsml.fit(quadruplets)
    from sklearn_bregman import QuadrupletClassifier

    quadruplets = [[[1.2, 7.5], [1.3, 1.5], [6.4, 2.6], [6.2, 9.7]],
                   [[1.3, 4.5], [3.2, 4.6], [6.2, 5.5], [5.4, 5.4]],
                   [[3.2, 7.5], [3.3, 1.5], [8.4, 2.6], [8.2, 9.7]],
                   [[3.3, 4.5], [5.2, 4.6], [8.2, 5.5], [7.4, 5.4]]]
    lsml = QuadrupletClassifier(LogDetKernelLearner())
    assert lsml.fit(quadruplets) is lsml
    q = np.asarray(quadruplets)
    euclidean = np.mean(np.linalg.norm(q[:, 0] - q[:, 1], axis=1)
                        < np.linalg.norm(q[:, 2] - q[:, 3], axis=1))
    assert lsml.score(quadruplets) >= euclidean  # no worse than before learning
    assert_tuples_by_distance(lsml, quadruplets, [0, 1], [2, 3])


# == doc/preprocessor.rst ==============================================================


def test_preprocessor_array_like_supervised():
    # doc/preprocessor.rst, "Array-like" (a supervised learner):
    #     >>> nca = NCA(preprocessor=X)
    #     >>> nca.fit(points_indices, y)
    # (the page: a learner here with a preprocessor, ITMLTransformer.)  The
    # indices repeat point 0 with the labels 0 and 1: the dissimilar pair they draw
    # joins the point to itself, is skipped, and cannot be met.
    points_indices = np.array([2, 0, 1, 0])
    y = np.array([1, 0, 1, 1])
    nca = ITMLTransformer(preprocessor=PRE_X, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nca.fit(points_indices, y)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    # "under the hood the algorithm will create points = X[points_indices]"
    assert_allclose(nca.transform(points_indices), nca.transform(PRE_X[points_indices]))


def test_preprocessor_array_like_weakly_supervised():
    # doc/preprocessor.rst, "Array-like" (a weakly supervised learner):
    #     >>> mmc = MMC(preprocessor=X)
    #     >>> mmc.fit(pairs_indices, y_pairs)
    pairs_indices = np.array([[2, 0], [1, 0]])
    y_pairs = np.array([1, -1])
    mmc = PairClassifier(ITMLTransformer(random_state=0), preprocessor=PRE_X)
    mmc.fit(pairs_indices, y_pairs)
    # "under the hood the algorithm will create pairs = [[[0.14, -0.37], [-0.7, -0.23]], ..."
    pairs = np.array([[[0.14, -0.37], [-0.7, -0.23]],
                      [[-0.43, -0.49], [-0.7, -0.23]]])
    assert_array_equal(PRE_X[pairs_indices], pairs)
    assert_allclose(mmc.decision_function(pairs_indices), mmc.decision_function(pairs))
    assert_array_equal(mmc.predict(pairs_indices), mmc.predict(pairs))
    assert_pairs_by_distance(mmc, pairs_indices)


@pytest.fixture
def images(tmp_path, monkeypatch):
    """img00.png, img01.png, img02.png in the working directory (each a small
    array saved with NumPy: no image library needed), and ``find_images``,
    metric-learn's callable (``np.vstack`` for its ``np.row_stack``, deprecated
    in NumPy 2), recording each call's identifiers."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.RandomState(0)
    for k in range(3):
        with open(f"img0{k}.png", "wb") as f:
            np.save(f, rng.rand(2, 3) + k)
    calls = []

    def find_images(file_paths):
        # each file contains a small image to use as an input datapoint
        calls.append(list(file_paths))
        return np.vstack([np.load(f).ravel() for f in file_paths])

    return find_images, calls


def test_preprocessor_callable_supervised(images):
    # doc/preprocessor.rst, "Callable" (a supervised learner):
    #     >>> nca = NCA(preprocessor=find_images)
    #     >>> nca.fit(['img01.png', 'img00.png', 'img02.png'], [1, 0, 1])
    find_images, calls = images
    nca = ITMLTransformer(preprocessor=find_images, random_state=0)
    nca.fit(["img01.png", "img00.png", "img02.png"], [1, 0, 1])
    # "under the hood preprocessor(indicators) will be called"
    assert calls and set(calls[0]) == {"img00.png", "img01.png", "img02.png"}
    names = ["img02.png", "img00.png"]
    assert_allclose(nca.transform(names), nca.transform(find_images(names)))
    assert nca.transform(names).shape == (2, 6)


def test_preprocessor_callable_weakly_supervised(images):
    # doc/preprocessor.rst, "Callable" (a weakly supervised learner):
    #     >>> mmc = NCA(preprocessor=find_images)
    #     >>> mmc.fit(pairs_images_paths, y_pairs)
    # (``NCA`` there stands for MMC: a pair learner)
    find_images, calls = images
    pairs_images_paths = [["img02.png", "img00.png"],
                          ["img01.png", "img00.png"]]
    y_pairs = np.array([1, -1])
    mmc = PairClassifier(ITMLTransformer(random_state=0), preprocessor=find_images)
    mmc.fit(pairs_images_paths, y_pairs)
    # metric-learn calls it on each column of the pairs; here once per call, on
    # the distinct identifiers
    assert calls
    for call in calls:
        assert len(call) == len(set(call))
    assert set(itertools.chain(*calls)) == {"img00.png", "img01.png", "img02.png"}
    assert_pairs_by_distance(mmc, pairs_images_paths)


def test_preprocessor_note_tuples_of_points_skip_it():
    # doc/preprocessor.rst, the note ("the classical way of providing inputs stays valid"):
    #     >>> mmc = MMC(preprocessor=preprocessor_wip)
    #     >>> mmc.fit(pairs, y_pairs)  # preprocessor_wip will not be called here
    def preprocessor_wip(array):
        raise NotImplementedError("This preprocessor does nothing yet.")

    pairs = np.array([[[0.14, -0.37], [-0.7, -0.23]],
                      [[-0.43, -0.49], [-0.7, -0.23]]])
    y_pairs = np.array([1, -1])
    mmc = PairClassifier(ITMLTransformer(random_state=0), preprocessor=preprocessor_wip)
    assert mmc.fit(pairs, y_pairs) is mmc
    assert_pairs_by_distance(mmc, pairs)


# == doc/supervised.rst ================================================================
# The general API fits NCA and uses the metric surface: the page's learner for
# that is ITMLTransformer (scikit-learn's NCA has no pair_distance, get_metric
# or get_mahalanobis_matrix).


def nca_of_the_general_api():
    """``NCA(random_state=42).fit(X, y)`` on the two dogs and the cat."""
    return ITMLTransformer(random_state=42).fit(ANIMALS_X, ANIMALS_Y)


def test_supervised_input_data():
    # doc/supervised.rst, "Input data":
    #     >>> X = np.array([[2.3, 3.6], [0.2, 0.5], [6.7, 2.1]])
    #     >>> y = np.array(['dog', 'cat', 'dog'])
    # (labels of any type: metric-learn's *_Supervised take integers only)
    assert ANIMALS_X.shape == (3, 2) and ANIMALS_Y.shape == (3,)
    c = nca_of_the_general_api().constraints_
    assert (c.n_similar, c.n_dissimilar) == (1, 2)  # every pair these labels make


def test_supervised_fit_transform_and_so_on_fit():
    # doc/supervised.rst, "Fit, transform, and so on":
    #     >>> nca = NCA(random_state=42)
    #     >>> nca.fit(X, y)
    nca = ITMLTransformer(random_state=42)
    assert nca.fit(ANIMALS_X, ANIMALS_Y) is nca
    assert nca.n_features_in_ == 2


def test_supervised_fit_transform_and_so_on_transform():
    # doc/supervised.rst, "Fit, transform, and so on":
    #     >>> X_new = np.array([[9.4, 4.1], [2.1, 4.4]])
    #     >>> nca.transform(X_new)
    nca = nca_of_the_general_api()
    X_new = np.array([[9.4, 4.1], [2.1, 4.4]])
    assert nca.transform(X_new).shape == (2, 2)
    assert_allclose(nca.transform(X_new), X_new @ nca.components_.T)


SUPERVISED_PAIRS = [[[3.5, 3.6], [5.6, 2.4]], [[1.2, 4.2], [2.1, 6.4]],
                    [[3.3, 7.8], [10.9, 0.1]]]


def test_supervised_fit_transform_and_so_on_pair_distance():
    # doc/supervised.rst, "Fit, transform, and so on":
    #     >>> nca.pair_distance([[[3.5, 3.6], [5.6, 2.4]], [[1.2, 4.2], [2.1, 6.4]],
    #     ...                    [[3.3, 7.8], [10.9, 0.1]]])
    nca = nca_of_the_general_api()
    d = nca.pair_distance(SUPERVISED_PAIRS)
    P = np.asarray(SUPERVISED_PAIRS)
    assert d.shape == (3,)
    assert_allclose(d, np.linalg.norm(nca.transform(P[:, 0]) - nca.transform(P[:, 1]), axis=1))


def test_supervised_fit_transform_and_so_on_get_metric():
    # doc/supervised.rst, "Fit, transform, and so on":
    #     >>> metric_fun = nca.get_metric()
    #     >>> metric_fun([3.5, 3.6], [5.6, 2.4])
    nca = nca_of_the_general_api()
    metric_fun = nca.get_metric()
    assert metric_fun([3.5, 3.6], [5.6, 2.4]) == pytest.approx(
        nca.pair_distance(SUPERVISED_PAIRS)[0])
    # "independent from the metric learner": a later fit does not change it
    before = metric_fun([3.5, 3.6], [5.6, 2.4])
    nca.fit(ANIMALS_X[::-1], ANIMALS_Y[::-1])
    assert metric_fun([3.5, 3.6], [5.6, 2.4]) == before


def test_supervised_fit_transform_and_so_on_pair_score():
    # doc/supervised.rst, "Fit, transform, and so on":
    #     >>> score = nca.pair_score([[[3.5, 3.6], [5.6, 2.4]], [[1.2, 4.2], [2.1, 6.4]],
    #     ...                         [[3.3, 7.8], [10.9, 0.1]]])
    nca = nca_of_the_general_api()
    assert_allclose(nca.pair_score(SUPERVISED_PAIRS), -nca.pair_distance(SUPERVISED_PAIRS))


def test_supervised_fit_transform_and_so_on_get_mahalanobis_matrix():
    # doc/supervised.rst, "Fit, transform, and so on" (note):
    #     >>> nca.get_mahalanobis_matrix()
    nca = nca_of_the_general_api()
    M = nca.get_mahalanobis_matrix()
    assert M.shape == (2, 2)
    assert_allclose(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    assert_allclose(M, nca.components_.T @ nca.components_)


def test_supervised_versions_of_weakly_supervised_algorithms():
    # doc/supervised.rst, "Supervised versions of weakly-supervised algorithms":
    #     mmc = MMC_Supervised(n_constraints=200)
    #     mmc.fit(X, Y)
    # n_constraints pairs of each kind there, all pairs here: 2 * 200
    X, Y = load_iris(return_X_y=True)
    mmc = ITMLTransformer(n_constraints=2 * 200, random_state=0)
    mmc.fit(X, Y)
    c = mmc.constraints_
    assert (c.n_similar, c.n_dissimilar) == (200, 200)
    assert np.all((Y[c.i] == Y[c.j]) == (c.sign == 1))


# == doc/unsupervised.rst ==============================================================


def test_unsupervised_covariance():
    # doc/unsupervised.rst, "Covariance", "Example Code":
    #     cov = Covariance().fit(iris)
    #     x = cov.transform(iris)
    iris = load_iris()["data"]
    cov = PCA(whiten=True).fit(iris)
    x = cov.transform(iris)
    assert x.shape == iris.shape
    # Covariance's metric is the inverse covariance of the data
    M = np.linalg.pinv(np.cov(iris, rowvar=False))
    L = cov.components_ / np.sqrt(cov.explained_variance_)[:, None]
    assert_allclose(L.T @ L, M, rtol=1e-8, atol=1e-10)
    a, b = iris[:10], iris[10:20]
    mahalanobis = np.sqrt(np.einsum("ij,jk,ik->i", a - b, M, a - b))
    assert_allclose(np.linalg.norm(cov.transform(a) - cov.transform(b), axis=1), mahalanobis)


# == examples/plot_metric_learning_examples.py =========================================


@pytest.fixture
def walkthrough_data():
    """The walkthrough's data: 100 points in 3 classes, 5 features, two
    informative ones hidden among features scaled by 20."""
    X, y = make_classification(n_samples=100, n_classes=3, n_clusters_per_class=2,
                               n_informative=3, class_sep=4., n_features=5,
                               n_redundant=0, shuffle=True, scale=[1, 1, 20, 20, 20],
                               random_state=42)
    return X, y


def test_plot_metric_learning_examples_itml(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Information Theoretic Metric Learning":
    #     itml = metric_learn.ITML_Supervised()
    #     X_itml = itml.fit_transform(X, y)
    X, y = walkthrough_data
    itml = ITMLTransformer()
    X_itml = itml.fit_transform(X, y)
    assert X_itml.shape == (100, 5)
    assert len(itml.constraints_) == 2 * 20 * 3 ** 2  # metric-learn: 20 c^2 of each kind
    assert same_class_neighbour(X_itml, y) > same_class_neighbour(X, y)


def test_plot_metric_learning_examples_mmc(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Mahalanobis Metric for Clustering":
    #     mmc = metric_learn.MMC_Supervised()
    #     X_mmc = mmc.fit_transform(X, y)
    X, y = walkthrough_data
    X_mmc = ITMLTransformer().fit_transform(X, y)
    assert X_mmc.shape == (100, 5)
    assert same_class_neighbour(X_mmc, y) > same_class_neighbour(X, y)


def test_plot_metric_learning_examples_sdml(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Sparse Determinant Metric Learning":
    #     sdml = metric_learn.SDML_Supervised(sparsity_param=0.1, balance_param=0.0015,
    #                                         prior='covariance')
    X, y = walkthrough_data
    sdml = ITMLTransformer(prior="covariance")
    X_sdml = sdml.fit_transform(X, y)
    assert X_sdml.shape == (100, 5)
    assert_allclose(sdml.prior_, np.linalg.inv(np.cov(X, rowvar=False)))
    assert same_class_neighbour(X_sdml, y) > same_class_neighbour(X, y)


def test_plot_metric_learning_examples_lsml(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Least Squares Metric Learning":
    #     lsml = metric_learn.LSML_Supervised(tol=0.0001, max_iter=10000,
    #                                         prior='covariance')
    X, y = walkthrough_data
    lsml = make_pipeline(PCA(whiten=True),
                         LogDetKernelLearner(label_constraints="relative", tol=0.0001,
                                             max_iter=10000))
    X_lsml = lsml.fit_transform(X, y)
    assert X_lsml.shape == (100, 5)
    assert same_class_neighbour(X_lsml, y) > same_class_neighbour(X, y)


def test_plot_metric_learning_examples_rca(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Relative Components Analysis":
    #     rca = metric_learn.RCA_Supervised(n_chunks=30, chunk_size=2)
    #     X_rca = rca.fit_transform(X, y)
    # 30 chunks of 2 points: the 30 similar pairs of pairs_from_labels(y, 2 * 30)
    X, y = walkthrough_data
    pc = pairs_from_labels(y, 2 * 30, random_state=0)
    s = pc.sign == 1
    rca = ITMLTransformer()
    X_rca = rca.fit(X, constraints=PairConstraints(pc.i[s], pc.j[s], pc.sign[s])).transform(X)
    assert X_rca.shape == (100, 5)
    assert rca.constraints_.n_similar == 30
    assert same_class_neighbour(X_rca, y) > same_class_neighbour(X, y)


def create_constraints(y, rng):
    """The walkthrough's hand-made constraints: every pair of points of one
    class (+1), and as many pairs of points of different classes drawn at
    random (-1), as ``(pairs, pairs_labels)``."""
    sim = np.array([p for c in np.unique(y)
                    for p in itertools.combinations(np.flatnonzero(y == c), 2)])
    dis = np.array([(a, b) for a, b in itertools.combinations(range(len(y)), 2)
                    if y[a] != y[b]])
    dis = dis[rng.choice(len(dis), len(sim), replace=False)]
    return (np.vstack([sim, dis]),
            np.concatenate([np.ones(len(sim)), -np.ones(len(sim))]))


def test_plot_metric_learning_examples_create_constraints(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Metric Learning from Weaker Supervision":
    #     pairs, pairs_labels = create_constraints(y)
    #     print(pairs)
    X, y = walkthrough_data
    pairs, pairs_labels = create_constraints(y, np.random.RandomState(0))
    assert pairs.shape == (len(pairs_labels), 2)
    assert np.all((y[pairs[:, 0]] == y[pairs[:, 1]]) == (pairs_labels == 1))
    # the same pairs as a container of this package
    pc = PairConstraints(pairs[:, 0], pairs[:, 1], pairs_labels)
    assert pc.n_similar == pc.n_dissimilar == len(pairs) // 2


def test_plot_metric_learning_examples_itml_on_pairs(walkthrough_data):
    # examples/plot_metric_learning_examples.py, "Metric Learning from Weaker Supervision":
    #     itml = metric_learn.ITML(preprocessor=X)
    #     itml.fit(pairs, pairs_labels)
    #     X_itml = itml.transform(X)
    X, y = walkthrough_data
    pairs, pairs_labels = create_constraints(y, np.random.RandomState(0))
    itml = PairClassifier(ITMLTransformer(), preprocessor=X)
    itml.fit(pairs, pairs_labels)
    X_itml = itml.transform(X)
    assert X_itml.shape == (100, 5)
    assert same_class_neighbour(X_itml, y) > same_class_neighbour(X, y)
    assert itml.score(pairs, pairs_labels) > 0.8  # accuracy on its own pairs


# == examples/plot_sandwich.py =========================================================


def test_plot_sandwich_demo():
    # examples/plot_sandwich.py, sandwich_demo():
    #     mls = [LMNN(), ITML_Supervised(n_constraints=200),
    #            SDML_Supervised(n_constraints=200, balance_param=0.001),
    #            LSML_Supervised(n_constraints=200)]
    # six horizontal layers of nine points, 0.7 apart: the nearest point in the
    # input space lies in another layer
    rng = np.random.RandomState(0)
    centres = [(x, 0.7 * (k - 3)) for k in range(6) for x in np.arange(9) - 4.5]
    x = rng.normal(centres, 0.1)
    y = np.repeat(np.arange(6), 9)
    assert same_class_neighbour(x, y) < 0.1
    mls = [
        NeighborhoodComponentsAnalysis(random_state=0),  # LMNN: none; NCA's use
        ITMLTransformer(n_constraints=2 * 200, random_state=0),
        ITMLTransformer(n_constraints=2 * 200, random_state=0),  # SDML_Supervised
        LogDetKernelLearner(label_constraints="relative", n_constraints=200, random_state=0),
    ]
    for ml in mls:
        ml.fit(x, y)
        tx = ml.transform(x)
        assert same_class_neighbour(tx, y) > 0.9, type(ml).__name__
