"""Port of metric-learn's test/test_triplets_classifiers.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's triplet learner ``SCML(n_basis=320)`` becomes
``TripletClassifier`` around ``SKLRClusterer`` (its default adaptive RBF
kernel) or around ``LogDetKernelLearner(kernel='linear')`` (which takes
``fit(X, triplets=...)`` too); ``fit(triplets)``, ``predict`` (+1 where ``a``
is strictly closer to ``b`` than to ``c``, else -1), ``score`` (the fraction
ordered correctly) and ``decision_function`` keep metric-learn's meaning.
metric-learn's ``build_triplets`` is ``build_triplets`` below (iris,
triplets from ``triplets_from_labels``; metric-learn's k-NN triplets have no
counterpart, labelled triplets say the same "a closer to b than to c").
Forcing the map to the identity (metric-learn: ``components_ = eye``) is
replacing the fitted inner learner ``estimator_`` by an identity map, which
works for any inner learner, linear or not.

Not ported:

- test_raise_big_number_of_features: SCML's basis-size check ("Number of
  features (4) is greater than the number of triplets(3)") has no
  counterpart (SKLR and the LogDet learner have no basis to generate).
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import shuffle

from sklearn_bregman import LogDetKernelLearner, SKLRClusterer, TripletClassifier
from sklearn_bregman.constraints import triplets_from_labels

# a few sweeps only: these tests are about the classifier around the learner
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SEED = 42


# -- builders (metric-learn's test_utils.build_triplets) -------------------------


def build_triplets(with_preprocessor=False):
    """Iris, shuffled, and 100 triplets (a, b, c), a closer to b than to c:
    (triplets, y, preprocessor, X).

    With a preprocessor, triplets are (n, 3) indices into X; without, (n, 3, 4)
    points.  ``y`` is all ones (every comparison holds), as metric-learn's."""
    X, labels = load_iris(return_X_y=True)
    X, labels = shuffle(X, labels, random_state=SEED)
    triplets = triplets_from_labels(labels, 100, random_state=SEED)
    y = np.ones(len(triplets))
    if with_preprocessor:
        return triplets, y, X, X
    return X[triplets], y, None, X


TRIPLET_LEARNERS = [
    TripletClassifier(SKLRClusterer(n_clusters=3, max_iter=10, random_state=SEED)),
    TripletClassifier(LogDetKernelLearner(kernel="linear", max_iter=5, random_state=SEED)),
]
TRIPLET_IDS = ["SKLRClusterer", "LogDetKernelLearner-linear"]


def force_identity(estimator, X):
    """Make the fitted classifier's map the identity on points like ``X``."""
    estimator.estimator_ = FunctionTransformer().fit(X)
    return estimator


# ports: test_predict_only_one_or_minus_one
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", TRIPLET_LEARNERS, ids=TRIPLET_IDS)
def test_predict_only_one_or_minus_one(estimator, with_preprocessor):
    triplets, _, preprocessor, _ = build_triplets(with_preprocessor)
    estimator = clone(estimator).set_params(preprocessor=preprocessor)
    triplets_train, triplets_test = train_test_split(triplets, random_state=SEED)
    estimator.fit(triplets_train)
    predictions = estimator.predict(triplets_test)
    assert set(np.unique(predictions)) <= {-1, 1}


# ports: test_no_zero_prediction
@pytest.mark.parametrize("estimator", TRIPLET_LEARNERS, ids=TRIPLET_IDS)
def test_no_zero_prediction(estimator):
    # no prediction is 0, even where d(a, b) = d(a, c) (the cases where a sign would be 0)
    triplets, _, _, X = build_triplets(with_preprocessor=False)
    # three features only, to use the cross product for orthogonal vectors
    triplets = triplets[:, :, :3]
    X = X[:, :3]
    estimator = clone(estimator).fit(triplets)
    # force the map to be the identity, hence the Euclidean distance
    force_identity(estimator, X)
    # two unit vectors orthogonal to X[1] and to each other
    k = X[1] / np.linalg.norm(X[1])
    x = X[2] - X[2].dot(k) * k
    x /= np.linalg.norm(x)
    y = np.cross(k, x)
    # they differ from X[1]
    with pytest.raises(AssertionError):
        assert_array_equal(X[1], x)
    with pytest.raises(AssertionError):
        assert_array_equal(X[1], y)
    # and are at the same distance from it
    metric = estimator.get_metric()
    assert metric(X[1], x) == metric(X[1], y)
    # the three cases where metric-learn's sign would give 0
    triplets_test = np.array(
        [[X[0], X[2], X[2]],
         [X[1], X[1], X[1]],
         [X[1], x, y]])
    predictions = estimator.predict(triplets_test)
    assert np.sum(predictions == 0) == 0
    # differs on purpose: an exact tie predicts -1 (it does not confirm "a closer to b")
    assert_array_equal(predictions[:2], [-1, -1])


# ports: test_raise_not_fitted_error_if_not_fitted
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", TRIPLET_LEARNERS, ids=TRIPLET_IDS)
def test_raise_not_fitted_error_if_not_fitted(estimator, with_preprocessor):
    triplets, _, preprocessor, _ = build_triplets(with_preprocessor)
    estimator = clone(estimator).set_params(preprocessor=preprocessor)
    with pytest.raises(NotFittedError):
        estimator.predict(triplets)
    with pytest.raises(NotFittedError):
        estimator.decision_function(triplets)
    with pytest.raises(NotFittedError):
        estimator.score(triplets)


# ports: test_accuracy_toy_example
@pytest.mark.parametrize("estimator", TRIPLET_LEARNERS, ids=TRIPLET_IDS)
def test_accuracy_toy_example(estimator):
    # the default scoring (the fraction ordered correctly) on a toy example
    triplets, _, _, X = build_triplets(with_preprocessor=False)
    estimator = clone(estimator).fit(triplets)
    # four regularly spaced points on the line through X[0] and X[1]
    X_test = X[0] + np.arange(4)[:, np.newaxis] * (X[0] - X[1]) / 4
    triplets_test = np.array(
        [[X_test[0], X_test[2], X_test[1]],
         [X_test[1], X_test[3], X_test[0]],
         [X_test[1], X_test[2], X_test[3]],
         [X_test[3], X_test[0], X_test[2]]])
    # force the map to be the identity so that we control what it does
    force_identity(estimator, X)
    assert estimator.score(triplets_test) == 0.25
