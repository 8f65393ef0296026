"""Scorers: usable as GridSearchCV scoring on transformers and pipelines."""

import itertools
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_blobs
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    LeaveOneOut,
    StratifiedKFold,
    cross_val_score,
)
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils import shuffle
from sklearn.utils._param_validation import InvalidParameterError
from threadpoolctl import threadpool_limits

from sklearn_bregman import LogDetKernelLearner
from sklearn_bregman._learners._scorers import kernel_kmeans_scorer, knn_scorer

SCORERS = [knn_scorer(5), kernel_kmeans_scorer("nmi"), kernel_kmeans_scorer("ari")]


@pytest.fixture(autouse=True)
def _one_thread():
    # Tiny k-means problems: OpenMP threads only add overhead.
    with threadpool_limits(1):
        yield


def iris_shuffled():
    # load_iris is sorted by class, and cv=3 on a non-classifier is an
    # unshuffled KFold: shuffle so that every fold holds all three classes.
    X, y = load_iris(return_X_y=True)
    return shuffle(X, y, random_state=0)


@pytest.mark.parametrize("scorer", SCORERS, ids=repr)
def test_scorer_in_grid_search_over_a_pipeline(scorer):
    X, y = iris_shuffled()
    pipe = Pipeline([("sc", StandardScaler()), ("pca", PCA())])
    gs = GridSearchCV(pipe, {"pca__n_components": [1, 3]}, scoring=scorer, cv=3, n_jobs=2,
                      error_score="raise").fit(X, y)
    scores = gs.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert np.all((scores > -1) & (scores <= 1))
    if repr(scorer) != "kernel_kmeans_scorer(metric='ari')":
        assert np.all(scores >= 0)
    assert gs.best_score_ > 0.5
    # the score of the refitted pipeline is the scorer called on it
    assert scorer(gs.best_estimator_, X, y) == pytest.approx(
        scorer(gs.best_estimator_.fit(X, y), X, y))


def test_scorers_are_picklable_and_repr():
    for scorer in SCORERS:
        assert repr(pickle.loads(pickle.dumps(scorer))) == repr(scorer)


def test_perfect_separation_scores_one():
    y = np.repeat([0, 1, 2], 10)
    X = y[:, None] * 100.0 + np.random.default_rng(0).standard_normal((30, 1))
    identity = FunctionTransformer().fit(X)
    assert knn_scorer(3)(identity, X, y) == 1.0
    assert kernel_kmeans_scorer("nmi")(identity, X, y) == pytest.approx(1.0)
    assert kernel_kmeans_scorer("ari")(identity, X, y) == pytest.approx(1.0)
    # leave-one-out: a point of class 2 moved amid class 0 is the only miss
    X[-1] = 0.0
    assert knn_scorer(3)(identity, X, y) == pytest.approx(29 / 30)


def test_a_transform_that_discards_the_classes_scores_low():
    X, y = make_blobs(90, 2, centers=[[0, 0], [10, 0], [20, 0]], random_state=0)
    keep_y_axis = FunctionTransformer(lambda A: A[:, 1:]).fit(X)
    assert knn_scorer(5)(keep_y_axis, X, y) < 0.6
    assert kernel_kmeans_scorer("nmi")(keep_y_axis, X, y) < 0.2
    assert knn_scorer(5)(FunctionTransformer().fit(X), X, y) == 1.0


@pytest.mark.parametrize("n_neighbors", [1, 4, 5])
def test_knn_scorer_is_leave_one_out_knn_classifier(n_neighbors):
    # even k has vote ties: they are broken as KNeighborsClassifier does
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 2))
    y = rng.integers(0, 3, 60)
    loo = cross_val_score(KNeighborsClassifier(n_neighbors), X, y, cv=LeaveOneOut()).mean()
    identity = FunctionTransformer().fit(X)
    assert knn_scorer(n_neighbors)(identity, X, y) == pytest.approx(loo)


def test_duplicate_points_are_not_their_own_neighbour():
    # points 0 and 1 coincide but differ in class: with k=1 each one's
    # neighbour is the other (a self-vote would make both right), 2-4 agree
    X = np.array([[0.0], [0.0], [5.0], [5.0], [5.0]])
    y = np.array([0, 1, 1, 1, 1])
    identity = FunctionTransformer().fit(X)
    assert knn_scorer(1)(identity, X, y) == pytest.approx(3 / 5)
    # more duplicates than neighbours: self may be cut from the k + 1 found
    X = np.zeros((6, 1))
    y = np.array([0, 0, 0, 0, 0, 1])
    assert knn_scorer(2)(identity, X, y) == pytest.approx(5 / 6)


def loo_knn_range(X, y, k):
    """Fewest and most points a leave-one-out k-NN vote can get right when
    ties at the k-th distance are broken in every possible way (ties between
    classes in the vote go to the smallest class)."""

    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    classes = np.unique(y)
    lo = hi = 0
    for i in range(len(y)):
        others = np.delete(np.arange(len(y)), i)
        d = D[i, others]
        dk = np.sort(d)[k - 1]
        near, tied = others[d < dk], others[d == dk]
        right = set()
        for pick in itertools.combinations(tied, k - len(near)):
            votes = [np.sum(y[np.r_[near, list(pick)].astype(int)] == c) for c in classes]
            right.add(classes[int(np.argmax(votes))] == y[i])
        lo += all(right)
        hi += any(right)
    return lo / len(y), hi / len(y)


@pytest.mark.parametrize("seed", range(12))
def test_ties_and_duplicates_give_a_leave_one_out_score(seed):
    # points on a small lattice: many equidistant neighbours and points with
    # more duplicates than neighbours; the score is that of one valid choice
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (11, 1 + seed % 2)).astype(float)
    y = rng.integers(0, 2, 11)
    k = 1 + seed % 4
    lo, hi = loo_knn_range(X, y, k)
    assert lo - 1e-12 <= knn_scorer(k)(FunctionTransformer().fit(X), X, y) <= hi + 1e-12


def test_unlabeled_samples_are_excluded():
    y = np.repeat([0, 1], 10)
    X = y[:, None] * 100.0 + np.random.default_rng(0).standard_normal((20, 1))
    identity = FunctionTransformer().fit(X)
    y_semi, X_noisy = y.copy(), X.copy()
    # three unlabeled points in the middle of class 1 would outvote its
    # labelled members (k=3) if they were neighbours with their true label 0
    X_noisy[:3] = 100.0
    y_semi[:3] = -1
    assert knn_scorer(3)(identity, X_noisy, y_semi) == 1.0
    assert kernel_kmeans_scorer("ari")(identity, X_noisy, y_semi) == 1.0
    # with them labelled, both scores drop
    assert knn_scorer(3)(identity, X_noisy, y) < 1.0
    assert kernel_kmeans_scorer("ari")(identity, X_noisy, y) < 1.0
    # a custom marker, and string labels
    y_str = np.where(y_semi == -1, "?", np.where(y_semi == 0, "a", "b"))
    assert knn_scorer(3, unlabeled="?")(identity, X_noisy, y_str) == 1.0


def test_bad_arguments():
    with pytest.raises(ValueError, match="'metric' parameter of kernel_kmeans_scorer"):
        kernel_kmeans_scorer("accuracy")
    with pytest.raises(ValueError, match="n_init"):
        kernel_kmeans_scorer("nmi", n_init=0)
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_scorer(0)
    X, y = np.zeros((4, 1)), np.array([0, 0, 1, 1])
    for scorer in SCORERS:
        with pytest.raises(TypeError, match="transform"):
            scorer(LogisticRegression().fit(X, y), X, y)
        with pytest.raises(ValueError, match="labels y"):
            scorer(FunctionTransformer().fit(X), X, None)
    with pytest.raises(ValueError, match="at least 2 classes"):
        kernel_kmeans_scorer("nmi")(FunctionTransformer().fit(X), X, np.zeros(4))


@pytest.mark.parametrize("factory, kwargs, name", [
    (knn_scorer, {"n_neighbors": 0}, "n_neighbors"),
    (knn_scorer, {"n_neighbors": 2.5}, "n_neighbors"),
    (knn_scorer, {"n_neighbors": True}, "n_neighbors"),
    (knn_scorer, {"unlabeled": 1.5}, "unlabeled"),
    (kernel_kmeans_scorer, {"metric": "accuracy"}, "metric"),
    (kernel_kmeans_scorer, {"n_init": 0}, "n_init"),
    (kernel_kmeans_scorer, {"n_init": True}, "n_init"),
    (kernel_kmeans_scorer, {"random_state": "seed"}, "random_state"),
    (kernel_kmeans_scorer, {"unlabeled": [-1]}, "unlabeled"),
])
def test_factories_validate_their_parameters(factory, kwargs, name):
    """scikit-learn's InvalidParameterError (a ValueError and a TypeError),
    naming the parameter and the factory, when the scorer is made."""
    with pytest.raises(InvalidParameterError,
                       match=rf"The '{name}' parameter of {factory.__name__} must be"):
        factory(**kwargs)


@pytest.mark.parametrize("scorer", SCORERS, ids=repr)
def test_scorer_tunes_a_kernel_learner(scorer):
    # The suite's own use: tune gamma and slack of a kernel learner.
    X, y = load_iris(return_X_y=True)
    learner = LogDetKernelLearner(kernel="rbf", rank=15, random_state=0)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(learner, {"gamma": [0.1, 1.0], "slack": [0.1, 10.0]}, scoring=scorer,
                      cv=cv, n_jobs=2, error_score="raise").fit(X, y)
    assert gs.best_score_ > 0.6
    assert set(gs.best_params_) == {"gamma", "slack"}


# ---------------------------------------------------------------------------
# Missing labels are not a class
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def blobs():
    return make_blobs(30, 4, centers=3, random_state=0)



@pytest.mark.parametrize("scorer, name", [(knn_scorer(5), "knn_scorer"),
                                          (kernel_kmeans_scorer(), "kernel_kmeans_scorer")])
def test_scorers_reject_nan_labels(blobs, scorer, name):
    X, y = blobs
    y = y.astype(float)
    y[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=rf"{name}: y holds missing labels \(2 NaN or "
                                         r"None, the first at sample 3\)"):
        scorer(PCA(2).fit(X), X, y)


@pytest.mark.parametrize("scorer, name", [(knn_scorer(5), "knn_scorer"),
                                          (kernel_kmeans_scorer(), "kernel_kmeans_scorer")])
def test_scorers_reject_none_labels_and_mixed_types(blobs, scorer, name):
    X, y = blobs
    yo = y.astype(object)
    yo[5] = None
    with pytest.raises(ValueError, match=rf"{name}: y holds missing labels .*sample 5"):
        scorer(PCA(2).fit(X), X, yo)
    yo[5] = "a"
    with pytest.raises(TypeError, match=rf"{name}: y mixes label types .*int, str"):
        scorer(PCA(2).fit(X), X, yo)


@pytest.mark.parametrize("scorer", [knn_scorer(2), kernel_kmeans_scorer()], ids=repr)
def test_scorers_reject_distances_that_overflow(scorer):
    """Found by the property tests: an embedding whose squared distances
    overflow gave NumPy's reshape error or a score computed from inf/NaN."""
    from sklearn.preprocessing import FunctionTransformer
    X = np.array([[1e200], [2e200], [-1e200], [3.0], [4.0], [5.0], [6.0]])
    y = [0, 0, 1, 1, 0, 1, 0]
    t = FunctionTransformer().fit(X)
    with pytest.raises(ValueError, match="squared distances overflow double precision"):
        scorer(t, X, y)
    assert 0.0 <= scorer(t, X[3:], y[3:]) <= 1.0
