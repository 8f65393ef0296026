"""QuadrupletClassifier, and the kernel learners' ``quadruplets=``.

A quadruplet ``(a, b, c, d)`` says d(a, b) < d(c, d) (metric-learn's third
kind of tuple; the relative comparison constraint of JMLR 2009, Section
6.2.2).  The properties that cannot be faked: the classifier's fit is the
inner learner fitted directly on ``RelativeConstraints(a, b, c, d,
ratio=ratio)``, bit for bit; a converged hard fit meets every training
quadruplet with its ratio, read off the returned map; a stream of batches
ends where a fit on their union ends; held-out quadruplets over unseen
points are ordered better than by the Euclidean distance.  Then each class
of /work/shared/SURFACE.md that applies: input forms (points; identifiers
through an array, a sparse matrix, a callable, a DataFrame; lists;
float32), bad input (NaN / inf, shapes, one-point tuples, labels), state
(failed calls, set_params, copies mid-stream), the user's arrays untouched.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    cross_val_predict,
    cross_val_score,
    train_test_split,
)
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from sklearn_bregman import (
    ITMLTransformer,
    LogDetKernelLearner,
    PairKFold,
    QuadrupletClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
    learner_tags,
)
from sklearn_bregman._learners._base import learns_from
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import (
    PairConstraints,
    RelativeConstraints,
    TripletConstraints,
    pairs_from_labels,
    triplets_from_labels,
)

TIGHT = dict(tol=1e-10, max_iter=100_000)
LEARNERS = [LogDetKernelLearner, VonNeumannKernelLearner]


def quadruplets_of(y, n, seed):
    """``n`` quadruplets over the labels ``y``: a similar pair, then a
    dissimilar one (d(a, b) < d(c, d) by the labels), as metric-learn's
    LSML_Supervised forms them."""
    pc = pairs_from_labels(y, 4 * n, random_state=seed)
    pairs = np.column_stack([pc.i, pc.j])
    similar, dissimilar = pairs[pc.sign > 0], pairs[pc.sign < 0]
    rng = np.random.default_rng(seed)
    return np.hstack([similar[rng.choice(len(similar), n)],
                      dissimilar[rng.choice(len(dissimilar), n)]])


def euclidean_accuracy(P):
    """Fraction of point quadruplets ``P`` (n, 4, d) ordered correctly by
    the Euclidean distance."""
    d_ab = np.linalg.norm(P[:, 0] - P[:, 1], axis=1)
    d_cd = np.linalg.norm(P[:, 2] - P[:, 3], axis=1)
    return float(np.mean(d_cd > d_ab))


@pytest.fixture(scope="module")
def iris():
    """Iris' distinct rows (a quadruplet of points repeating one is refused
    at fit), standardised, and 300 quadruplets of their labels."""
    X, y = load_iris(return_X_y=True)
    keep = np.sort(np.unique(X, axis=0, return_index=True)[1])
    X, y = StandardScaler().fit_transform(X[keep]), y[keep]
    return X, y, quadruplets_of(y, 300, 0)


@pytest.fixture(scope="module")
def wine():
    """Wine split by points: training and held-out quadruplets share no point."""
    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    return (scaler.transform(Xtr), scaler.transform(Xte), quadruplets_of(ytr, 300, 0),
            quadruplets_of(yte, 2000, 1))


def logdet(**kw):
    return LogDetKernelLearner(**{"kernel": "rbf", "rank": 20, "random_state": 0, **kw})


def vonneumann(**kw):
    return VonNeumannKernelLearner(**{"kernel": "rbf", "rank": 20, "random_state": 0, **kw})


def unique_quadruplets(P):
    """The distinct points of point quadruplets and the quadruplets' rows
    among them (what the classifier fits its inner learner on)."""
    U, inverse = np.unique(P.reshape(-1, P.shape[2]), axis=0, return_inverse=True)
    return U, inverse.reshape(-1, 4)


def relative(q, ratio):
    return RelativeConstraints(q[:, 0], q[:, 1], q[:, 2], q[:, 3], ratio=ratio)


# --------------------------------------------------------------------------
# What is learned, and how well
# --------------------------------------------------------------------------

def test_held_out_quadruplets_over_new_points_beat_the_euclidean_distance(wine):
    Xtr, Xte, qtr, qte = wine
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = QuadrupletClassifier(logdet(rank=50, slack=np.inf)).fit(Xtr[qtr])
    assert clf.estimator_.converged_
    assert clf.score(Xtr[qtr]) == 1.0
    learned, euclid = clf.score(Xte[qte]), euclidean_accuracy(Xte[qte])
    # measured: 0.984 learned against 0.854 Euclidean
    assert euclid < 0.9
    assert learned > euclid + 0.1
    assert learned == pytest.approx(np.mean(clf.predict(Xte[qte]) == 1))


@pytest.mark.parametrize("make", [logdet, vonneumann])
@pytest.mark.parametrize("ratio", [1.0, 2.0, 4.0])
@pytest.mark.parametrize("form", ["points", "identifiers"])
def test_the_fit_is_the_inner_learner_on_relative_constraints(iris, make, ratio, form):
    """Bit for bit: the classifier's inner learner is the learner fitted on
    the distinct points with ``RelativeConstraints(a, b, c, d, ratio)``
    (identifiers into an array: on the whole array)."""
    X, _, q = iris
    q = q[:120]
    inner = make(ratio=ratio)
    if form == "points":
        clf = QuadrupletClassifier(inner).fit(X[q])
        Xfit, rows = unique_quadruplets(X[q])
    else:
        clf = QuadrupletClassifier(inner, preprocessor=X).fit(q)
        Xfit, rows = X, q
    direct = clone(inner).fit(Xfit, constraints=relative(rows, ratio))
    for name in ("metric_", "embedding_", "components_", "dual_coef_"):
        np.testing.assert_array_equal(getattr(clf.estimator_, name), getattr(direct, name),
                                      err_msg=name)
    (rc,) = clf.estimator_.constraints_
    np.testing.assert_array_equal(np.column_stack([rc.i, rc.j, rc.k, rc.l]), rows)
    np.testing.assert_array_equal(rc.ratio, ratio)
    assert clf.estimator_.n_iter_ == direct.n_iter_


@pytest.mark.parametrize("make", LEARNERS)
@pytest.mark.parametrize("ratio", [1.5, 2.0, 4.0])
def test_converged_means_every_training_quadruplet_meets_its_ratio(iris, make, ratio):
    """``converged_`` read against the returned map: every training
    quadruplet has ratio d2(a, b) <= d2(c, d) to the learner's ``tol``
    (relative to the row's size), and so is predicted +1."""
    X, _, q = iris
    clf = QuadrupletClassifier(make(kernel="rbf", rank=30, ratio=ratio, slack=np.inf,
                                    random_state=0), preprocessor=X).fit(q[:150])
    est = clf.estimator_
    assert est.converged_
    Z = clf.transform(np.arange(len(X)))
    np.testing.assert_allclose(Z, est.embedding_, rtol=1e-9, atol=1e-12)
    d_ab = ((Z[q[:150, 0]] - Z[q[:150, 1]]) ** 2).sum(1)
    d_cd = ((Z[q[:150, 2]] - Z[q[:150, 3]]) ** 2).sum(1)
    excess = ratio * d_ab - d_cd
    assert (excess <= est.tol * (ratio * d_ab + d_cd) * (1 + 1e-9)).all()
    assert est.max_violation_ <= est.tol
    # a ratio > 1 met to tol orders each training quadruplet strictly
    assert clf.score(q[:150]) == 1.0
    np.testing.assert_allclose(clf.decision_function(q[:150]), np.sqrt(d_cd) - np.sqrt(d_ab),
                               rtol=1e-9, atol=1e-12)


def test_training_score_one_on_data_a_metric_separates():
    """The class is in one feature drowned by noise in the others: the
    Euclidean distance orders few quadruplets, a learned linear metric all
    of them (and the held-out ones)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    X = np.column_stack([y + 0.02 * rng.standard_normal(300), 3 * rng.standard_normal((300, 3))])
    q = quadruplets_of(y, 400, 0)
    clf = QuadrupletClassifier(LogDetKernelLearner(slack=np.inf, random_state=0),
                               preprocessor=X).fit(q[:200])
    assert clf.estimator_.converged_
    assert euclidean_accuracy(X[q]) < 0.75
    assert clf.score(q[:200]) == 1.0
    assert clf.score(q[200:]) > 0.98
    # the learned Mahalanobis matrix weighs the class feature most
    M = clf.get_mahalanobis_matrix()
    assert np.argmax(np.diag(M)) == 0
    np.testing.assert_array_equal(clf.components_, clf.estimator_.components_)


def test_decision_function_is_the_difference_of_learned_distances(iris):
    X, _, q = iris
    clf = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:150])
    held = q[150:]
    d_ab, d_cd = clf.pair_distance(held[:, :2]), clf.pair_distance(held[:, 2:])
    expected = d_cd - d_ab
    np.testing.assert_allclose(clf.decision_function(held), expected, rtol=1e-10, atol=1e-12)
    # metric-learn's definition: pair_score of the first pair minus that of the second
    np.testing.assert_allclose(clf.decision_function(held),
                               clf.pair_score(held[:, :2]) - clf.pair_score(held[:, 2:]),
                               rtol=1e-10, atol=1e-12)
    # distances, not their squares
    Z = clf.transform(X)
    np.testing.assert_allclose(
        expected, np.linalg.norm(Z[held[:, 2]] - Z[held[:, 3]], axis=1)
        - np.linalg.norm(Z[held[:, 0]] - Z[held[:, 1]], axis=1), rtol=1e-9, atol=1e-12)
    # the two pairs swapped flip the sign; predict is the sign, ties -1
    np.testing.assert_allclose(clf.decision_function(held[:, [2, 3, 0, 1]]), -expected,
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(held), np.where(expected > 0, 1, -1))
    np.testing.assert_array_equal(clf.classes_, [-1, 1])
    tie = held.copy()
    tie[:, 2:] = tie[:, [1, 0]]  # d(c, d) = d(b, a)
    assert np.all(clf.decision_function(tie) == 0)
    assert np.all(clf.predict(tie) == -1)
    assert clf.score(tie) == 0.0


def test_repeatable_under_random_state(iris):
    X, _, q = iris
    a = QuadrupletClassifier(logdet(order="random"), preprocessor=X).fit(q[:150])
    b = QuadrupletClassifier(logdet(order="random"), preprocessor=X).fit(q[:150])
    np.testing.assert_array_equal(a.decision_function(q), b.decision_function(q))
    np.testing.assert_array_equal(a.estimator_.metric_, b.estimator_.metric_)
    c = QuadrupletClassifier(logdet(order="random", random_state=1, kernel="rbf",
                                    low_rank="rpcholesky"), preprocessor=X).fit(q[:150])
    d = QuadrupletClassifier(logdet(order="random", random_state=2, kernel="rbf",
                                    low_rank="rpcholesky"), preprocessor=X).fit(q[:150])
    assert not np.array_equal(c.estimator_.pivots_, d.estimator_.pivots_)


# --------------------------------------------------------------------------
# Model selection
# --------------------------------------------------------------------------

def test_grid_search_over_the_kernel_bandwidth(iris):
    X, _, q = iris
    grid = {"estimator__gamma": [0.05, 0.5]}
    search = GridSearchCV(QuadrupletClassifier(logdet(), preprocessor=X), grid,
                          cv=KFold(3, shuffle=True, random_state=0),
                          error_score="raise").fit(q[:240])
    best = search.best_params_["estimator__gamma"]
    assert best in grid["estimator__gamma"]
    assert isinstance(search.best_estimator_, QuadrupletClassifier)
    assert search.best_estimator_.estimator_.gamma == best
    assert search.cv_results_["mean_test_score"].min() > 0.85
    assert search.score(q[240:]) == search.best_estimator_.score(q[240:])


@pytest.mark.parametrize("form", ["points", "identifiers"])
def test_cross_val_score_with_pair_kfold_keeps_the_points_apart(iris, form):
    X, y, _ = iris
    q = quadruplets_of(y, 3000, 2)
    est = QuadrupletClassifier(logdet(), preprocessor=X if form == "identifiers" else None)
    data = q if form == "identifiers" else X[q]
    cv = PairKFold(2, random_state=0)
    splits = list(cv.split(data))
    for train, test in splits:
        assert len(test) > 50 and len(train) > 50
        # no point of a test quadruplet is in a training quadruplet (points:
        # identical rows of iris are one point)
        assert not set(q[test].ravel()) & set(q[train].ravel())
    scores = cross_val_score(est, data, cv=cv, error_score="raise")
    by_hand = [clone(est).fit(data[train]).score(data[test]) for train, test in splits]
    np.testing.assert_allclose(scores, by_hand)
    assert scores.min() > 0.85


def test_cross_val_predict_takes_the_encoding_it_passes(iris):
    X, _, q = iris
    s = np.where(np.arange(240) % 3 == 0, -1, 1)
    qs = np.where((s == 1)[:, None], q[:240], q[:240, [2, 3, 0, 1]])
    est = QuadrupletClassifier(logdet(), preprocessor=X)
    scores = cross_val_predict(est, qs, s, cv=3, method="decision_function")
    assert scores.shape == (240,)
    pred = cross_val_predict(est, qs, s, cv=3)
    assert set(np.unique(pred)) <= {-1, 1}
    assert np.mean(pred == s) > 0.85


# --------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------

def test_y_minus_one_is_the_reversed_quadruplet(iris):
    X, _, q = iris
    y = np.where(np.arange(150) % 3 == 0, -1, 1)
    given = np.where((y == 1)[:, None], q[:150], q[:150, [2, 3, 0, 1]])
    a = QuadrupletClassifier(logdet(), preprocessor=X).fit(given, y)
    b = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:150])
    np.testing.assert_array_equal(a.estimator_.metric_, b.estimator_.metric_)
    np.testing.assert_array_equal(a.decision_function(q), b.decision_function(q))
    # score with y: the reordered quadruplets' score
    held = q[150:]
    yh = np.where(np.arange(len(held)) % 2 == 0, 1, -1)
    reordered = np.where((yh == 1)[:, None], held, held[:, [2, 3, 0, 1]])
    assert a.score(reordered, yh) == pytest.approx(a.score(held))


def test_labels_1_0_are_plus_minus_1(iris):
    X, _, q = iris
    s = np.where(np.arange(150) % 4 == 0, -1, 1)
    qs = np.where((s == 1)[:, None], q[:150], q[:150, [2, 3, 0, 1]])
    pm = QuadrupletClassifier(logdet(), preprocessor=X).fit(qs, s)
    zo = QuadrupletClassifier(logdet(), preprocessor=X).fit(qs, (s + 1) // 2)
    np.testing.assert_array_equal(zo.classes_, [0, 1])
    np.testing.assert_array_equal(pm.classes_, [-1, 1])
    np.testing.assert_array_equal(zo.decision_function(q), pm.decision_function(q))
    np.testing.assert_array_equal(zo.predict(q), (pm.predict(q) + 1) // 2)
    assert zo.score(qs, (s + 1) // 2) == pm.score(qs, s)
    # all +1 as a list, booleans' look-alike 1 / 0 as floats
    np.testing.assert_array_equal(
        QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:150], [1] * 150).estimator_.metric_,
        QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:150]).estimator_.metric_)


@pytest.mark.parametrize("bad, match", [
    (np.full(20, 2), r"y must hold \+1 \(the comparison holds\) or -1"),
    (np.r_[np.zeros(10, int), -np.ones(10, int)], "not -1 and 0 together"),
    (np.full(20, "a"), r"y must hold \+1"),
    (np.ones(19), "y has 19 entries but there are 20 quadruplets"),
    (np.ones((20, 2)), "y"),
    (np.r_[np.ones(19), np.nan], r"y"),
])
def test_bad_labels_are_refused_naming_y(iris, bad, match):
    X, _, q = iris
    clf = QuadrupletClassifier(logdet(), preprocessor=X)
    with pytest.raises(ValueError, match=match):
        clf.fit(q[:20], bad)
    with pytest.raises(NotFittedError):
        check_is_fitted(clf)
    fitted = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:20])
    with pytest.raises(ValueError, match=match):
        fitted.score(q[:20], bad)


def test_sample_weight_weighs_the_accuracy(iris):
    X, _, q = iris
    clf = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:40])
    right = clf.predict(q) == 1
    w = np.linspace(0.1, 2.0, len(q))
    assert clf.score(q, sample_weight=w) == pytest.approx(np.sum(w * right) / w.sum())
    for bad, match in [(np.ones(3), r"sample_weight must have shape \(n_quadruplets,\)"),
                       (-np.ones(len(q)), "non-negative"),
                       (np.zeros(len(q)), "all zero"),
                       ({"a": 1}, "sample_weight")]:
        with pytest.raises((ValueError, TypeError), match=match):
            clf.score(q, sample_weight=bad)


# --------------------------------------------------------------------------
# Input forms: the same model from each
# --------------------------------------------------------------------------

def test_every_form_of_the_quadruplets_gives_the_same_model(iris):
    """Points, and identifiers through a callable, fit on the distinct
    points; identifiers through an array (dense, sparse, a DataFrame, a
    list) fit on the array: the same decision values, form by form."""
    pd = pytest.importorskip("pandas")
    X, _, q = iris
    q = q[:150]
    U, rows = unique_quadruplets(X[q])
    by_points = QuadrupletClassifier(logdet()).fit(X[q])
    held = np.arange(40).reshape(10, 4) % len(U)
    ref = by_points.decision_function(U[held])
    for clf, ids in [
        (QuadrupletClassifier(logdet(), preprocessor=lambda i: U[i]).fit(rows), rows),
        (QuadrupletClassifier(logdet(), preprocessor=U).fit(rows), rows),
        (QuadrupletClassifier(logdet(), preprocessor=sp.csr_matrix(U)).fit(rows), rows),
        (QuadrupletClassifier(logdet(), preprocessor=pd.DataFrame(U, columns=list("abcd")))
         .fit(rows), rows),
        (QuadrupletClassifier(logdet(), preprocessor=U.tolist()).fit(rows.tolist()), rows),
        (QuadrupletClassifier(logdet()).fit(X[q].tolist()), None),
    ]:
        np.testing.assert_allclose(clf.decision_function(U[held]), ref, rtol=1e-9, atol=1e-12)
        if ids is not None:
            np.testing.assert_allclose(clf.decision_function(held), ref, rtol=1e-9,
                                       atol=1e-12)
            np.testing.assert_allclose(clf.decision_function(held.tolist()), ref, rtol=1e-9,
                                       atol=1e-12)
    # any hashable identifiers through a callable
    names = np.array([f"p{k:03d}" for k in range(len(U))])
    lookup = dict(zip(names, U))
    by_name = QuadrupletClassifier(
        logdet(), preprocessor=lambda ids: np.array([lookup[k] for k in ids])).fit(names[rows])
    np.testing.assert_allclose(by_name.decision_function(names[held]), ref, rtol=1e-9,
                               atol=1e-12)


def test_identifiers_into_an_array_fit_on_the_whole_array(iris):
    X, _, q = iris
    clf = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:50])
    assert clf.estimator_.embedding_.shape[0] == X.shape[0]
    Z = clf.transform(np.arange(len(X)))
    expected = (np.linalg.norm(Z[q[:, 2]] - Z[q[:, 3]], axis=1)
                - np.linalg.norm(Z[q[:, 0]] - Z[q[:, 1]], axis=1))
    np.testing.assert_allclose(clf.decision_function(q), expected, rtol=1e-8, atol=1e-10)
    # and new points by value, through the same fitted map
    np.testing.assert_allclose(clf.decision_function(X[q]), expected, rtol=1e-8, atol=1e-10)


def test_float32_is_its_float64_copy(iris):
    X, _, q = iris
    X32 = X.astype(np.float32)
    a = QuadrupletClassifier(logdet()).fit(X32[q[:150]])
    b = QuadrupletClassifier(logdet()).fit(X32[q[:150]].astype(np.float64))
    np.testing.assert_array_equal(a.estimator_.metric_, b.estimator_.metric_)
    np.testing.assert_allclose(a.decision_function(X32[q]), b.decision_function(X[q]),
                               rtol=1e-5, atol=1e-6)
    c = QuadrupletClassifier(logdet(), preprocessor=X32).fit(q[:150])
    d = QuadrupletClassifier(logdet(), preprocessor=X32.astype(np.float64)).fit(q[:150])
    np.testing.assert_array_equal(c.decision_function(q), d.decision_function(q))
    assert c.transform(np.arange(5)).dtype.kind == "f"


def test_points_of_integers_and_booleans_are_numbers(iris):
    X, _, q = iris
    Xi = np.round(1000 * X).astype(int)  # (distinct rows stay distinct)
    a = QuadrupletClassifier(logdet(gamma=0.25e-6)).fit(Xi[q[:100]])
    b = QuadrupletClassifier(logdet(gamma=0.25e-6)).fit(Xi[q[:100]].astype(float))
    np.testing.assert_array_equal(a.decision_function(Xi[q]), b.decision_function(Xi[q]))


# --------------------------------------------------------------------------
# Bad input: the package's error, naming the argument
# --------------------------------------------------------------------------

@pytest.mark.parametrize("quadruplets, preprocessor, match", [
    (np.zeros((4, 3)), None, r"\(n_quadruplets, 4, n_features\).*2-D array of shape \(4, 3\)"),
    (np.zeros((4, 3)), np.zeros((5, 2)), "tuples of 4 points expected; got tuples of 3"),
    (np.zeros((4, 1)), np.zeros((5, 2)), "tuples of 4 points expected; got tuples of 1"),
    (np.zeros((4, 1, 2)), None, "tuples of 4 points expected; got tuples of 1"),
    (np.zeros((4, 5, 2)), None, "tuples of 4 points expected; got tuples of 5"),
    (np.zeros((4, 4, 2, 1)), None, r"\(n_quadruplets, 4, n_features\).*4-D"),
    (np.zeros((4, 4, 0)), None, "quadruplets: found points with 0 features"),
    (np.zeros((0, 4)), np.zeros((5, 2)), "quadruplets: found an empty array.*one quadruplet"),
    (np.zeros((0, 4, 2)), None, "quadruplets: found an empty array"),
    (np.array([[0, 1, 2, 3]]), None, "need a preprocessor"),
    (np.array([[0, 1, 2, 3], [0, 1, 2, 9]]), np.zeros((5, 2)), r"row 1 .*outside \[0, 5\)"),
    (np.array([[0, 1, 2, -1]]), np.zeros((5, 2)), r"row 0 .*outside"),
    (np.array([[0.5, 1, 2, 3]]), np.zeros((5, 2)), "integers"),
    (np.array([["a", "b", "c", "d"]]), np.zeros((5, 2)), "integers"),
    (np.array([[0, 1, 2, 3j]]), np.zeros((5, 2)), "complex"),
    (np.array([[0, 1, 2, 3]]), lambda i: np.zeros((2 * len(i), 2)), "returned 8 rows for 4"),
    ([[0, 1, 2, 3], [0, 1, 2]], np.zeros((5, 2)), "quadruplets: the rows have unequal lengths"),
    (3, np.zeros((5, 2)), "got a scalar"),
    ({"a": 1}, np.zeros((5, 2)), "quadruplets must have shape"),
])
def test_bad_quadruplets_are_refused_naming_them(quadruplets, preprocessor, match):
    clf = QuadrupletClassifier(logdet(), preprocessor=preprocessor)
    with pytest.raises(ValueError, match=match):
        clf.fit(quadruplets)
    with pytest.raises(NotFittedError):
        clf.predict(np.zeros((1, 4, 2)))


def test_nan_and_inf_are_refused_at_fit_and_after(iris):
    X, _, q = iris
    P = X[q[:40]].copy()
    for value in (np.nan, np.inf, -np.inf):
        bad = P.copy()
        bad[3, 2, 1] = value
        with pytest.raises(ValueError, match="quadruplets"):
            QuadrupletClassifier(logdet()).fit(bad)
        Xbad = X.copy()
        Xbad[q[3, 2], 1] = value
        with pytest.raises(ValueError, match="preprocessor"):
            QuadrupletClassifier(logdet(), preprocessor=Xbad).fit(q[:40])
        with pytest.raises(ValueError, match="preprocessor"):
            QuadrupletClassifier(logdet(), preprocessor=Xbad.__getitem__).fit(q[:40])
    fitted = QuadrupletClassifier(logdet()).fit(P)
    before = pickle.dumps(fitted)
    for method in ("predict", "decision_function", "score"):
        bad = P.copy()
        bad[0, 0, 0] = np.nan
        with pytest.raises(ValueError, match="quadruplets"):
            getattr(fitted, method)(bad)
        with pytest.raises(ValueError, match="quadruplets: points have 3 features"):
            getattr(fitted, method)(P[:, :, :3])
    assert pickle.dumps(fitted) == before


@pytest.mark.parametrize("est", [ITMLTransformer(), SKLRClusterer(n_clusters=3),
                                 TripletClassifier(LogDetKernelLearner()), "LogDet", None])
def test_what_does_not_learn_from_quadruplets_is_refused_naming_estimator(iris, est):
    X, _, q = iris
    with pytest.raises((InvalidParameterError, ValueError, TypeError)) as info:
        QuadrupletClassifier(est, preprocessor=X).fit(q[:20])
    assert "'estimator' parameter of QuadrupletClassifier" in str(info.value)
    if isinstance(est, (ITMLTransformer, SKLRClusterer)):
        assert "must be a quadruplet learner" in str(info.value)
        assert "LogDetKernelLearner or VonNeumannKernelLearner" in str(info.value)


class _Identity(BaseEstimator):
    """Any learner that declares it learns from quadruplets
    (``fit(X, quadruplets=...)``) and has a transform: the identity map.
    No partial_fit: the classifier has none either."""

    def __sklearn_tags__(self):
        return learner_tags(super().__sklearn_tags__(), learns_from=("quadruplets",))

    def fit(self, X, quadruplets=None):
        self.X_, self.quadruplets_ = X, np.asarray(quadruplets)
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float)


def test_any_learner_of_quadruplets_works(iris, wine):
    X, _, q = iris
    clf = QuadrupletClassifier(_Identity(), preprocessor=X).fit(q)
    np.testing.assert_array_equal(clf.estimator_.quadruplets_, q)
    assert clf.score(q) == pytest.approx(euclidean_accuracy(X[q]))
    assert not hasattr(clf, "partial_fit")
    assert hasattr(QuadrupletClassifier(logdet()), "partial_fit")
    assert not hasattr(QuadrupletClassifier(SKLRClusterer()), "partial_fit")
    _, Xte, _, qte = wine
    clf = QuadrupletClassifier(_Identity()).fit(Xte[qte])
    assert clf.score(Xte[qte]) == pytest.approx(euclidean_accuracy(Xte[qte]))


def test_the_kernel_learners_declare_quadruplets():
    for learner in LEARNERS:
        assert {"pairs", "triplets", "quadruplets"} <= set(learns_from(learner()))
    assert "quadruplets" not in learns_from(ITMLTransformer())
    assert "quadruplets" not in learns_from(SKLRClusterer())


def test_metric_surface_and_linear_maps(iris):
    X, _, q = iris
    lin = QuadrupletClassifier(LogDetKernelLearner(random_state=0), preprocessor=X).fit(q[:100])
    M = lin.get_mahalanobis_matrix()
    u, v = X[0], X[1]
    assert lin.get_metric()(u, v) == pytest.approx(np.sqrt((u - v) @ M @ (u - v)))
    np.testing.assert_allclose(lin.transform(X[:3]), X[:3] @ lin.components_.T)
    rbf = clone(lin).set_params(estimator=logdet())
    assert not hasattr(rbf, "get_mahalanobis_matrix")
    refit = copy.deepcopy(lin).set_params(estimator=logdet()).fit(q[:100])
    assert not hasattr(refit, "components_")  # the new map is not linear
    Z = refit.transform(X[:2])
    assert refit.get_metric()(X[0], X[1]) == pytest.approx(np.linalg.norm(Z[0] - Z[1]))


# --------------------------------------------------------------------------
# The kernel learners' quadruplets=
# --------------------------------------------------------------------------

@pytest.mark.parametrize("make", LEARNERS)
def test_kernel_learners_take_quadruplets_as_relative_constraints(iris, make):
    X, y, q = iris
    est = make(kernel="rbf", rank=15, ratio=3.0, random_state=0)
    a = clone(est).fit(X, quadruplets=q[:100])
    b = clone(est).fit(X, constraints=relative(q[:100], 3.0))
    np.testing.assert_array_equal(a.metric_, b.metric_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    # lists and float indices are indices too
    c = clone(est).fit(X, quadruplets=q[:100].astype(float).tolist())
    np.testing.assert_array_equal(c.metric_, a.metric_)
    # joined to the other constraints where triplets are: after them
    pc = PairConstraints([0, 60], [1, 120], [1, -1])
    t = triplets_from_labels(y, 30, random_state=0)
    d = clone(est).fit(X, constraints=pc, triplets=t, quadruplets=q[:100])
    e = clone(est).fit(X, constraints=[pc, TripletConstraints(outlier=t),
                                       relative(q[:100], 3.0)])
    np.testing.assert_array_equal(d.metric_, e.metric_)
    assert [type(c).__name__ for c in d.constraints_] == [
        "PairConstraints", "TripletConstraints", "RelativeConstraints"]
    # and in a stream
    q75 = quadruplets_of(y[:75], 40, 3)
    f = clone(est).partial_fit(X[:75], quadruplets=q75)
    g = clone(est).partial_fit(X[:75], constraints=relative(q75, 3.0))
    np.testing.assert_array_equal(f.metric_, g.metric_)


@pytest.mark.parametrize("make", LEARNERS)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "dok", "lil", "bsr"])
def test_kernel_learners_take_quadruplets_over_sparse_x_of_every_format(iris, make, fmt):
    """``quadruplets=`` beside X in each SciPy sparse format: the model of
    the dense X (to rounding: the kernel's sums run in another order), the
    user's matrix as given, and a stream over it too."""
    X, _, q = iris
    est = make(kernel="rbf", rank=15, ratio=3.0, random_state=0)
    dense = clone(est).fit(X, quadruplets=q[:60])
    Xs = sp.csr_matrix(X).asformat(fmt)
    before = Xs.copy()
    fitted = clone(est).fit(Xs, quadruplets=q[:60])
    np.testing.assert_allclose(fitted.metric_, dense.metric_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fitted.transform(Xs), dense.transform(X), rtol=1e-8,
                               atol=1e-10)
    assert (Xs != before).nnz == 0 and type(Xs) is type(before)
    streamed = clone(est).partial_fit(Xs, quadruplets=q[:30])
    streamed.partial_fit(Xs, quadruplets=q[30:60])
    assert streamed.metric_.shape == dense.metric_.shape
    assert np.isfinite(streamed.transform(Xs)).all()


@pytest.mark.parametrize("bad, error, match", [
    ([[0, 1, 2]], ValueError, r"quadruplets must be an array of shape \(n_quadruplets, 4\)"),
    (np.zeros((2, 4, 1), int), ValueError, r"got shape \(2, 4, 1\)"),
    ([[0, 1, 2, 999]], ValueError,
     r"quadruplets: index out of range in row 0 \(\[0, 1, 2, 999\]\); "
     r".*\[0, 148\] for 149 samples"),
    ([[0, 1, 2, -3]], ValueError, "quadruplets: index out of range in row 0.*negative"),
    ([[0, 1, 2, 3], [0, 1, 2, 2.5]], ValueError, r"quadruplets must be integers.*row 1"),
    ([[0, 1, 2, np.nan]], ValueError, "quadruplets must be integers"),
    (np.zeros((0, 4), int), ValueError, "quadruplets is empty"),
    ([], ValueError, "quadruplets is empty"),
    ([[True, False, True, False]], TypeError, "quadruplets must hold integer sample indices"),
    ([["a", "b", "c", "d"]], TypeError, "quadruplets must hold integer sample indices"),
    ([[0, 1, 2, 3], [0, 1]], ValueError, "quadruplets could not be read as an array"),
    ({"a": 1}, TypeError, "quadruplets must be an array-like of numbers; got a dict"),
    (RelativeConstraints([0], [1], [2], [3]), TypeError,
     "quadruplets must be an array of shape .*pass a RelativeConstraints as constraints"),
])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_kernel_learners_refuse_bad_quadruplets_naming_them(iris, bad, error, match, method):
    X, _, _ = iris
    est = LogDetKernelLearner(random_state=0)
    with pytest.raises(error, match=match):
        getattr(est, method)(X, quadruplets=bad)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_a_stream_of_pairs_refuses_quadruplets_and_a_stream_of_rows_takes_them(iris):
    X, y, q = iris
    pairs = LogDetKernelLearner(kernel="rbf", rank=10, random_state=0).partial_fit(X, y)
    before = pickle.dumps(pairs)
    with pytest.raises(ValueError, match="triplets and quadruplets need a stream that starts"):
        pairs.partial_fit(X, quadruplets=q[:10])
    assert pickle.dumps(pairs) == before
    rows = LogDetKernelLearner(kernel="rbf", rank=10, random_state=0).partial_fit(
        X, triplets=triplets_from_labels(y, 20, random_state=0))
    rows.partial_fit(X, quadruplets=q[:10])
    assert rows.n_constraints_seen_ == 2 * 20 + 10 and rows.converged_
    with pytest.raises(ValueError, match=r"y, or constraints .*quadruplets=\.\.\."):
        LogDetKernelLearner().fit(X)


@pytest.mark.parametrize("kernel", [dict(kernel="linear"),
                                    dict(kernel="rbf", gamma=0.05, rank=15)])
def test_a_stream_of_quadruplets_equals_fit_on_the_union(kernel):
    """tests/test_partial_fit.py's triplet version, for quadruplets: the
    LogDet stream keeps its first call's factor; the union fit on its
    coordinates (the linear kernel of phi0(X), at full rank) has the same
    initial kernel, and LogDet is invariant under congruence."""
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    p = np.random.RandomState(0).permutation(len(X))
    X, y = X[p], y[p]
    batches = np.array_split(np.arange(len(X)), 6)
    est = LogDetKernelLearner(random_state=0, **kernel, **TIGHT)
    union = []
    for k, b in enumerate(batches):
        q = quadruplets_of(y[b], 15, k)
        est.partial_fit(X[b], quadruplets=q)
        assert est.converged_
        union.append(b[q])
    union = np.vstack(union)
    assert est.n_constraints_seen_ == len(union)  # one relative row each
    Phi = est.factor_.transform(X)
    ref = LogDetKernelLearner(kernel="linear", random_state=1, **TIGHT).fit(
        Phi, quadruplets=union)
    assert ref.converged_
    K, K_ref = est.learned_kernel(X), ref.learned_kernel(Phi)
    assert float(np.abs(K - K_ref).max() / np.abs(K_ref).max()) < 1e-6


def test_a_von_neumann_stream_of_quadruplets_meets_everything_kept():
    """Von Neumann measures its divergence in the first call's basis (not a
    fit on the union's): after every call each kept row is met to tol."""
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    est = VonNeumannKernelLearner(kernel="rbf", gamma=0.05, rank=15, slack=np.inf,
                                  random_state=0)
    seen = []
    for k, b in enumerate(np.array_split(np.random.RandomState(0).permutation(len(X)), 4)):
        q = quadruplets_of(y[b], 15, k)
        est.partial_fit(X[b], quadruplets=q)
        seen.append(X[b][q])
        assert est.converged_ and est.max_violation_ <= est.tol
        P = np.concatenate(seen)
        Z = est.transform(P.reshape(-1, X.shape[1])).reshape(len(P), 4, -1)
        d_ab = ((Z[:, 0] - Z[:, 1]) ** 2).sum(1)
        d_cd = ((Z[:, 2] - Z[:, 3]) ** 2).sum(1)
        r = est.ratio
        assert (r * d_ab - d_cd <= est.tol * (r * d_ab + d_cd) * (1 + 1e-6)).all()


def test_the_classifier_passes_the_stream_on():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    batches = np.array_split(np.random.RandomState(1).permutation(len(X)), 3)
    clf = QuadrupletClassifier(logdet(gamma=0.05, rank=10, **TIGHT))
    union = []
    for k, b in enumerate(batches):
        q = quadruplets_of(y[b], 40, k)
        clf.partial_fit(X[b][q])
        assert clf.estimator_.converged_
        union.append(X[b][q])
    assert clf.estimator_.n_constraints_seen_ == 3 * 40
    union = np.concatenate(union)
    assert clf.score(union) > max(0.9, euclidean_accuracy(union))
    # the stream is the inner learner's on the classifier's rows
    inner = logdet(gamma=0.05, rank=10, **TIGHT)
    for P in np.split(union, 3):
        U, rows = unique_quadruplets(P)
        inner.partial_fit(U, quadruplets=rows)
    np.testing.assert_array_equal(clf.estimator_.metric_, inner.metric_)


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------

def _stream(X, q, make=logdet):
    clf = QuadrupletClassifier(make(), preprocessor=X)
    clf.partial_fit(q[:60])
    clf.partial_fit(q[60:120], np.ones(60, int))
    return clf


def test_a_call_that_raises_changes_nothing(iris):
    X, _, q = iris
    bad_calls = {
        "out of range": lambda e: e.fit(np.array([[0, 1, 2, 999]])),
        "a negative index": lambda e: e.fit(np.array([[0, 1, 2, 3], [5, 5, 6, -7]])),
        "bad y": lambda e: e.fit(q[:10], np.full(10, 3)),
        "NaN points": lambda e: e.fit(np.full((3, 4, 4), np.nan)),
        "a learner of pairs": lambda e: e.set_params(estimator=ITMLTransformer()).fit(q[:10]),
    }
    for name, call in bad_calls.items():
        for est in (QuadrupletClassifier(logdet(), preprocessor=X),
                    QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:30])):
            fitted = hasattr(est, "estimator_")
            before = pickle.dumps(est)
            with pytest.raises((ValueError, TypeError)):
                call(est)
            if name != "a learner of pairs":  # (set_params itself succeeded)
                assert pickle.dumps(est) == before, name
            if not fitted:
                with pytest.raises(NotFittedError):
                    est.decision_function(q[:3])


def test_a_stream_continues_as_if_the_refused_calls_had_not_been_made(iris):
    X, _, q = iris
    clean, noisy = _stream(X, q), _stream(X, q)
    refused = [
        lambda e: e.partial_fit(q[120:140], np.zeros(20, int)),  # the other encoding
        lambda e: e.partial_fit(np.array([[0, 1, 2, 999]])),
        lambda e: e.partial_fit(X[q[120:140]][:, :, :3]),  # points of other features
        lambda e: e.partial_fit(np.array([[0, 1, 1, 0.5]])),
    ]
    for call in refused:
        before = pickle.dumps(noisy)
        with pytest.raises(ValueError):
            call(noisy)
        assert pickle.dumps(noisy) == before
    clean.partial_fit(q[120:])
    noisy.partial_fit(q[120:])
    np.testing.assert_array_equal(noisy.estimator_.metric_, clean.estimator_.metric_)
    np.testing.assert_array_equal(noisy.decision_function(q), clean.decision_function(q))


def test_set_params_after_fit_changes_nothing_until_the_next_fit(iris):
    X, _, q = iris
    est = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:100])

    def answers():
        return [est.decision_function(q), est.predict(q), est.transform(np.arange(len(X))),
                est.pair_distance(q[:5, :2]), np.array(est.score(q))]

    before = answers()
    for params in ({"estimator": VonNeumannKernelLearner(kernel="linear")},
                   {"preprocessor": X[::-1].copy()}, {"estimator__gamma": 3.0},
                   {"estimator__ratio": 10.0}, {"estimator__kernel": "linear"}):
        est.set_params(**params)
        for a, b in zip(answers(), before):
            np.testing.assert_array_equal(a, b, err_msg=str(params))
    # the next fit takes them
    est.set_params(estimator=logdet(gamma=3.0), preprocessor=X).fit(q[:100])
    assert est.estimator_.gamma == 3.0
    assert not np.array_equal(est.decision_function(q), before[0])


def test_set_params_between_partial_fit_calls_is_honoured_or_refused_by_name(iris):
    X, _, q = iris
    clf = _stream(X, q)
    # honoured: a parameter of the sweeps
    clf.set_params(estimator__tol=1e-8)
    clf.partial_fit(q[120:140])
    assert clf.estimator_.tol == 1e-8 and clf.estimator_.converged_
    # refused by name: a parameter the stream fixed (the initial kernel)
    clf.set_params(estimator__gamma=3.0)
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match="gamma changed since the call that fixed it"):
        clf.partial_fit(q[140:160])
    assert pickle.dumps(clf) == before
    clf.set_params(estimator__gamma=None)
    # a learner of the same class: its parameters, by the same rules
    clf.set_params(estimator=logdet(max_iter=7))
    clf.partial_fit(q[140:160])
    assert clf.estimator_.max_iter == 7
    # a learner of another class: refused, naming estimator
    clf.set_params(estimator=vonneumann())
    with pytest.raises(ValueError, match="partial_fit: estimator is now a VonNeumann"):
        clf.partial_fit(q[160:180])
    # and the classifier's preprocessor: honoured for the batch's identifiers
    clf.set_params(estimator=logdet(max_iter=7), preprocessor=X[::-1].copy())
    clf.partial_fit(q[160:180])
    np.testing.assert_array_equal(clf.preprocessor_, X[::-1])


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_copies_mid_stream_continue_exactly(iris, how):
    X, _, q = iris
    original = _stream(X, q)
    copied = (pickle.loads(pickle.dumps(original)) if how == "pickle"
              else copy.deepcopy(original))
    np.testing.assert_array_equal(copied.decision_function(q), original.decision_function(q))
    for batch in (q[120:180], q[180:]):
        original.partial_fit(batch)
        copied.partial_fit(batch)
    np.testing.assert_array_equal(copied.estimator_.metric_, original.estimator_.metric_)
    np.testing.assert_array_equal(copied.decision_function(q), original.decision_function(q))
    assert copied.estimator_.n_constraints_seen_ == original.estimator_.n_constraints_seen_
    fresh = clone(original)
    with pytest.raises(NotFittedError):
        check_is_fitted(fresh)
    assert fresh.get_params()["estimator__gamma"] == original.get_params()["estimator__gamma"]


def test_fit_after_partial_fit_and_partial_fit_after_fit(iris):
    X, _, q = iris
    streamed = _stream(X, q)
    refit = streamed.fit(q[:100])
    assert not hasattr(refit.estimator_, "n_constraints_seen_")
    np.testing.assert_array_equal(
        refit.estimator_.metric_,
        QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:100]).estimator_.metric_)
    refit.partial_fit(q[100:150])  # continues the fitted model
    assert refit.estimator_.n_constraints_seen_ == 50 and refit.estimator_.converged_
    # fit twice on different data: the second fit alone
    twice = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[:50]).fit(q[50:150])
    once = QuadrupletClassifier(logdet(), preprocessor=X).fit(q[50:150])
    np.testing.assert_array_equal(twice.decision_function(q), once.decision_function(q))


def test_the_users_arrays_are_never_modified(iris):
    X, _, q = iris
    Xs = sp.csr_matrix(X)
    Xs.has_sorted_indices = False  # (as given: nothing sorts it in place)
    given = {"X": X.copy(), "q": q.copy(), "P": X[q].copy(), "y": np.ones(len(q), int),
             "w": np.linspace(0.5, 1.5, len(q)), "Xs": Xs}
    before = {k: pickle.dumps(v) for k, v in given.items()}
    a = QuadrupletClassifier(logdet(), preprocessor=given["X"]).fit(given["q"], given["y"])
    a.partial_fit(given["q"][:50], given["y"][:50])
    a.decision_function(given["q"])
    a.predict(given["q"])
    a.score(given["q"], given["y"], sample_weight=given["w"])
    a.transform(np.arange(10))
    b = QuadrupletClassifier(logdet()).fit(given["P"])
    b.partial_fit(given["P"][:50])
    b.score(given["P"], sample_weight=given["w"])
    c = QuadrupletClassifier(logdet(), preprocessor=given["Xs"]).fit(given["q"])
    c.predict(given["q"])
    LogDetKernelLearner(random_state=0).fit(given["X"], quadruplets=given["q"])
    for k, v in given.items():
        assert pickle.dumps(v) == before[k], k
