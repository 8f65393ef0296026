"""TripletClassifier: relative comparisons as samples around SKLR."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import SKLRClusterer, TripletClassifier, learner_tags
from sklearn_bregman.constraints import triplets_from_labels


@pytest.fixture(scope="module")
def wine():
    """Wine split by points: training and held-out triplets share no point."""
    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    ttr = triplets_from_labels(ytr, 300, random_state=0)
    tte = triplets_from_labels(yte, 1000, random_state=1)
    return Xtr, Xte, ttr, tte


def sklr(**kw):
    return SKLRClusterer(n_clusters=3, random_state=0, **kw)


def euclidean_accuracy(P):
    d_ab = ((P[:, 0] - P[:, 1]) ** 2).sum(1)
    d_ac = ((P[:, 0] - P[:, 2]) ** 2).sum(1)
    return float(np.mean(d_ac > d_ab))


def test_learned_kernel_orders_held_out_triplets_better_than_euclidean(wine):
    Xtr, Xte, ttr, tte = wine
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = TripletClassifier(sklr()).fit(Xtr[ttr])
    learned = clf.score(Xte[tte])
    euclid = euclidean_accuracy(Xte[tte])
    # measured: 0.979 learned against 0.869 Euclidean (seeds 0-2: 0.979-0.982)
    assert euclid < 0.9
    assert learned > euclid + 0.07
    assert learned == pytest.approx(np.mean(clf.predict(Xte[tte]) == 1))


def test_decision_function_is_the_difference_of_learned_distances(wine):
    Xtr, Xte, ttr, tte = wine
    clf = TripletClassifier(sklr()).fit(Xtr[ttr])
    P = Xte[tte[:50]]
    Z = clf.transform(P.reshape(-1, Xte.shape[1])).reshape(50, 3, -1)
    # metric-learn's units: distances, not squared
    expected = np.linalg.norm(Z[:, 0] - Z[:, 2], axis=1) - np.linalg.norm(Z[:, 0] - Z[:, 1], axis=1)
    np.testing.assert_allclose(clf.decision_function(P), expected, rtol=1e-10, atol=1e-12)
    assert set(np.unique(clf.predict(P))) <= {-1, 1}
    np.testing.assert_array_equal(clf.classes_, [-1, 1])
    # swapping b and c flips the sign
    np.testing.assert_allclose(clf.decision_function(P[:, [0, 2, 1]]), -expected,
                               rtol=1e-10, atol=1e-12)


def test_the_inner_estimator_gets_the_outlier_triplets(wine):
    Xtr, _, ttr, _ = wine
    P = Xtr[ttr]
    clf = TripletClassifier(sklr()).fit(P)
    U, inverse = np.unique(P.reshape(-1, Xtr.shape[1]), axis=0, return_inverse=True)
    np.testing.assert_array_equal(clf.estimator_.triplets_.outlier, inverse.reshape(-1, 3))
    direct = sklr().fit(U, triplets=inverse.reshape(-1, 3))
    np.testing.assert_allclose(clf.estimator_.embedding_, direct.embedding_, atol=1e-12)


def test_ties_and_y(wine):
    Xtr, Xte, ttr, tte = wine
    clf = TripletClassifier(sklr()).fit(Xtr[ttr])
    P = Xte[tte[:40]]
    y = np.where(np.arange(40) % 2 == 0, 1, -1)
    Q = np.where((y == 1)[:, None, None], P, P[:, [0, 2, 1]])
    # y=-1 means the reversed comparison: score(P, y) is score of the reordered triplets
    assert clf.score(P, y) == pytest.approx(clf.score(Q))
    # a tie (b and c the same point) is not a confirmed comparison: -1
    T = P.copy()
    T[:, 2] = T[:, 1]
    assert np.all(clf.decision_function(T) == 0)
    assert np.all(clf.predict(T) == -1)
    # fitting with y = -1 is fitting on the reordered triplets
    yt = np.where(np.arange(len(ttr)) % 3 == 0, -1, 1)
    Ptr = Xtr[ttr]
    Rtr = np.where((yt == 1)[:, None, None], Ptr, Ptr[:, [0, 2, 1]])
    a = TripletClassifier(sklr()).fit(Rtr, yt)
    b = TripletClassifier(sklr()).fit(Ptr)
    np.testing.assert_allclose(a.decision_function(P), b.decision_function(P), atol=1e-10)


def test_index_triplets_give_the_decision_values_of_point_triplets(wine):
    """Same inner problem: index triplets into the sorted unique points of the
    point triplets (array and callable preprocessor) fit SKLR on the same rows
    with the same triplets.  (Index triplets into the whole of Xtr would fit it
    on points in no triplet too, which changes SKLR's adaptive start.)"""
    Xtr, Xte, ttr, tte = wine
    P = Xtr[ttr]
    U, inverse = np.unique(P.reshape(-1, Xtr.shape[1]), axis=0, return_inverse=True)
    idx = inverse.reshape(-1, 3)
    by_points = TripletClassifier(sklr()).fit(P)
    by_array = TripletClassifier(sklr(), preprocessor=U).fit(idx)
    by_callable = TripletClassifier(sklr(), preprocessor=lambda i: U[i]).fit(idx)
    held = np.arange(60).reshape(20, 3) % len(U)
    held = held[(held[:, 0] != held[:, 1]) & (held[:, 0] != held[:, 2])]
    ref = by_points.decision_function(U[held])
    for clf in (by_array, by_callable):
        np.testing.assert_allclose(clf.decision_function(held), ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(clf.decision_function(idx[:30]),
                                   by_points.decision_function(P[:30]), rtol=1e-9, atol=1e-12)
    # new points of Xte through the callable vs as points
    V = np.vstack([U, Xte])
    by_new = TripletClassifier(sklr(), preprocessor=lambda i: V[i]).fit(idx)
    np.testing.assert_allclose(by_new.decision_function(tte[:30] + len(U)),
                               by_points.decision_function(Xte[tte[:30]]), rtol=1e-9, atol=1e-12)


def test_index_triplets_into_an_array_fit_on_the_whole_array(wine):
    Xtr, _, ttr, _ = wine
    clf = TripletClassifier(sklr(), preprocessor=Xtr).fit(ttr[:100])
    assert clf.estimator_.embedding_.shape[0] == Xtr.shape[0]
    # the stored rows and the inner transform agree
    Z = clf.transform(Xtr)
    d = (np.linalg.norm(Z[ttr[:, 0]] - Z[ttr[:, 2]], axis=1)
         - np.linalg.norm(Z[ttr[:, 0]] - Z[ttr[:, 1]], axis=1))
    np.testing.assert_allclose(clf.decision_function(ttr), d, rtol=1e-8, atol=1e-10)


def test_grid_search_over_an_sklr_parameter(wine):
    Xtr, Xte, ttr, tte = wine
    search = GridSearchCV(
        TripletClassifier(sklr(slack=1.0), preprocessor=Xtr),
        {"estimator__margin": [1.1, 1.5]},
        cv=KFold(3, shuffle=True, random_state=0),
    ).fit(ttr)
    assert search.best_params_["estimator__margin"] in (1.1, 1.5)
    assert search.cv_results_["mean_test_score"].min() > 0.8
    assert isinstance(search.best_estimator_, TripletClassifier)
    assert search.score(ttr) == search.best_estimator_.score(ttr)


def test_pickle(wine):
    Xtr, Xte, ttr, tte = wine
    clf = TripletClassifier(sklr()).fit(Xtr[ttr])
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.decision_function(Xte[tte]),
                                  clf.decision_function(Xte[tte]))
    clf = TripletClassifier(sklr(), preprocessor=Xtr).fit(ttr)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.decision_function(ttr), clf.decision_function(ttr))


def test_clone_and_params():
    clf = TripletClassifier(sklr(), preprocessor=np.zeros((3, 2)))
    assert set(TripletClassifier._parameter_constraints) == set(clf.get_params(deep=False))
    assert clone(clf).get_params()["estimator__n_clusters"] == 3


def test_metric(wine):
    Xtr, Xte, ttr, _ = wine
    clf = TripletClassifier(sklr()).fit(Xtr[ttr])
    Z = clf.transform(Xte[:2])
    assert clf.get_metric()(Xte[0], Xte[1]) == pytest.approx(np.linalg.norm(Z[0] - Z[1]))


@pytest.mark.parametrize("triplets, preprocessor, match", [
    (np.zeros((4, 2)), None, r"\(n_triplets, 3, n_features\).*2-D array of shape \(4, 2\)"),
    (np.zeros((4, 2)), np.zeros((5, 2)), r"tuples of 3 points expected; got tuples of 2"),
    (np.zeros((4, 3, 2, 1)), None, r"shape \(n_triplets, 3, n_features\).*4-D"),
    (np.zeros((4, 2, 5)), None, "tuples of 3 points expected"),
    (np.array([[0, 1, 2]]), None, "need a preprocessor"),
    (np.array([[0, 1, 2], [0, 1, 9]]), np.zeros((5, 2)), r"row 1 .*outside \[0, 5\)"),
    (np.array([[0, 1, -1]]), np.zeros((5, 2)), r"row 0 .*outside"),
    # a callable takes any identifiers, and must return one row for each
    (np.array([[0, 1, -1]]), lambda i: np.zeros((2 * len(i), 2)), "returned 6 rows for 3"),
    (np.array([[0.5, 1, 2]]), np.zeros((5, 2)), "integers"),
    (np.array([["a", "b", "c"]]), np.zeros((5, 2)), "integers"),
    (np.zeros((0, 3)), np.zeros((5, 2)), "empty array"),
])
def test_clear_errors(triplets, preprocessor, match):
    with pytest.raises(ValueError, match=match):
        TripletClassifier(sklr(), preprocessor=preprocessor).fit(triplets)


def test_repeated_point_triplet_and_bad_y(wine):
    Xtr, _, ttr, _ = wine
    P = Xtr[ttr[:30]].copy()
    P[4, 2] = P[4, 0]  # identical points are one sample: c on a, which never holds
    with pytest.warns(UserWarning, match="2 of 60 triplet constraints"), \
            pytest.warns(ConvergenceWarning, match="cannot be met"):
        clf = TripletClassifier(sklr()).fit(P)
    assert not clf.estimator_.converged_
    with pytest.raises(ValueError, match="y has 2 entries but there are 30 triplets"):
        TripletClassifier(sklr()).fit(Xtr[ttr[:30]], [1, -1])
    with pytest.raises(ValueError, match=r"y must hold \+1"):
        TripletClassifier(sklr()).fit(Xtr[ttr[:30]], np.full(30, 2))
    with pytest.raises(ValueError, match="estimator"):
        TripletClassifier("SKLR").fit(Xtr[ttr[:30]])


class _Identity(BaseEstimator):
    """Any learner that declares it learns from triplets (fit(X, triplets=...))
    and has a transform: here the identity map."""

    def __sklearn_tags__(self):
        return learner_tags(super().__sklearn_tags__(), learns_from=("triplets",))

    def __init__(self, scale=1.0):
        self.scale = scale

    def get_params(self, deep=True):
        return {"scale": self.scale}

    def set_params(self, **params):
        self.scale = params.get("scale", self.scale)
        return self

    def fit(self, X, triplets=None):
        self.X_, self.triplets_ = X, np.asarray(triplets)
        return self

    def transform(self, X):
        return self.scale * np.asarray(X, dtype=float)


def test_any_learner_with_fit_triplets_works(wine):
    Xtr, Xte, ttr, tte = wine
    clf = TripletClassifier(_Identity(), preprocessor=Xtr).fit(ttr)
    np.testing.assert_array_equal(clf.estimator_.triplets_, ttr)
    assert clf.estimator_.X_.shape == Xtr.shape
    # the identity map orders triplets as the Euclidean distance does
    assert clf.score(ttr) == pytest.approx(euclidean_accuracy(Xtr[ttr]))
    clf = TripletClassifier(_Identity()).fit(Xtr[ttr])
    assert clf.score(Xte[tte]) == pytest.approx(euclidean_accuracy(Xte[tte]))
