"""The metric surface every learner shares, the preprocessor, the thresholds.

What metric-learn's users call (``pair_distance``, ``pair_score``,
``get_metric``, ``get_mahalanobis_matrix``, ``components_``,
``preprocessor=``, ``set_threshold`` / ``calibrate_threshold``), checked
against properties that hold whatever the learner: the learned distance is
the Euclidean distance after ``transform``; a linear map's
``components_`` reproduces ``transform``; identifiers through a
preprocessor give what the points give.  (metric-learn's own tests, ported,
are in ``tests/metric_learn/``.)
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

# the properties here hold at any state a fit stops at, converged or not
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
X_IRIS = StandardScaler().fit_transform(X_IRIS)

LINEAR = [
    ITMLTransformer(random_state=0),
    LogDetKernelLearner(kernel="linear", random_state=0),
    LogDetKernelLearner(kernel="linear", rank=2, random_state=0),
    LogDetKernelLearner(kernel="linear", rank=3, low_rank="csi", random_state=0),
    VonNeumannKernelLearner(kernel="linear", random_state=0),
    DefiniteBoost(kernel="linear", n_constraints=20, epsilon=0.05, random_state=0),
    SKLRClusterer(n_clusters=3, kernel="linear", n_triplets=100, slack=1.0, random_state=0),
]
NONLINEAR = [
    LogDetKernelLearner(kernel="rbf", rank=10, random_state=0),
    SKLRClusterer(n_clusters=3, n_triplets=100, random_state=0),
    DefiniteBoost(kernel="rbf", rank=10, n_constraints=20, random_state=0),
]


def _ids(est):
    return type(est).__name__ + ("-" + est.kernel if hasattr(est, "kernel") else "")


@pytest.fixture(scope="module")
def pairs():
    pc = pairs_from_labels(Y_IRIS, 40, random_state=1)
    return np.stack([X_IRIS[pc.i], X_IRIS[pc.j]], axis=1)


@pytest.mark.parametrize("est", LINEAR, ids=_ids)
def test_linear_map_is_components(est, pairs):
    est = clone(est).fit(X_IRIS, Y_IRIS)
    L = est.components_
    assert L.ndim == 2 and L.shape[1] == X_IRIS.shape[1]
    np.testing.assert_allclose(est.transform(X_IRIS), X_IRIS @ L.T, atol=1e-10)
    M = est.get_mahalanobis_matrix()
    np.testing.assert_allclose(M, L.T @ L, rtol=1e-10, atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > -1e-10 * np.abs(M).max()
    diff = pairs[:, 0] - pairs[:, 1]
    sq = np.einsum("ij,jk,ik->i", diff, M, diff)
    np.testing.assert_allclose(est.pair_distance(pairs, squared=True), sq, rtol=1e-9)
    np.testing.assert_allclose(est.pair_score(pairs), -np.sqrt(sq), rtol=1e-9)


@pytest.mark.parametrize("est", NONLINEAR, ids=_ids)
def test_nonlinear_map_has_no_mahalanobis_matrix(est, pairs):
    est = clone(est).fit(X_IRIS, Y_IRIS)
    assert not hasattr(est, "get_mahalanobis_matrix")
    Z = est.transform(pairs.reshape(-1, 4)).reshape(len(pairs), 2, -1)
    np.testing.assert_allclose(est.pair_distance(pairs),
                               np.linalg.norm(Z[:, 0] - Z[:, 1], axis=1), rtol=1e-10)


def test_linear_components_keep_the_learned_kernel():
    # the input-space map is a change of coordinates only: same embedding
    est = LogDetKernelLearner(kernel="linear", rank=3, random_state=0).fit(X_IRIS, Y_IRIS)
    np.testing.assert_allclose(est.transform(X_IRIS), est.embedding_, atol=1e-10)
    assert est.components_.shape == (3, 4) and est.metric_.shape == (3, 3)


@pytest.mark.parametrize("est", LINEAR[:2] + NONLINEAR[:1], ids=_ids)
def test_get_metric(est):
    est = clone(est).fit(X_IRIS, Y_IRIS)
    metric = est.get_metric()
    Z = est.transform(X_IRIS[:2])
    d = np.linalg.norm(Z[0] - Z[1])
    assert metric(X_IRIS[0], X_IRIS[1]) == pytest.approx(d)
    assert metric(X_IRIS[0], X_IRIS[1], squared=True) == pytest.approx(d ** 2)
    assert metric(list(X_IRIS[0]), tuple(X_IRIS[1])) == pytest.approx(d)
    nn = NearestNeighbors(n_neighbors=3, metric=metric).fit(X_IRIS[:30])
    dist, _ = nn.kneighbors(X_IRIS[:2])
    assert dist[:, 0] == pytest.approx([0.0, 0.0], abs=1e-7)
    for u, v, match in [
        (X_IRIS[:2], X_IRIS[1], "1-D points; u has shape"),
        (X_IRIS[0], X_IRIS[:1], "v has shape"),
        (X_IRIS[0, :3], X_IRIS[1, :3], "3 features"),
        (X_IRIS[0] + 1j, X_IRIS[1], "complex"),
        (np.full(4, np.nan), X_IRIS[1], "NaN"),
        (5.0, X_IRIS[1], "shape"),
    ]:
        with pytest.raises(ValueError, match=match):
            metric(u, v)
    # independent of later fits
    before = metric(X_IRIS[0], X_IRIS[1])
    est.set_params(random_state=7).fit(X_IRIS[::-1], Y_IRIS[::-1])
    assert metric(X_IRIS[0], X_IRIS[1]) == before


@pytest.mark.parametrize("est", [
    ITMLTransformer(random_state=0),
    LogDetKernelLearner(kernel="rbf", rank=10, random_state=0),
    VonNeumannKernelLearner(kernel="linear", random_state=0),
    DefiniteBoost(n_constraints=20, epsilon=0.05, random_state=0),
    SKLRClusterer(n_clusters=3, n_triplets=100, random_state=0),
], ids=_ids)
def test_preprocessor_identifiers_give_what_points_give(est):
    ref = clone(est).fit(X_IRIS, Y_IRIS)
    ids = np.arange(150)
    names = np.array([f"flower-{k}" for k in range(150)])
    lookup = dict(zip(names, X_IRIS))
    for pre, keys in [(X_IRIS, ids), (lambda n: np.array([lookup[k] for k in n]), names)]:
        got = clone(est).set_params(preprocessor=pre).fit(keys, Y_IRIS)
        np.testing.assert_allclose(got.transform(keys[:5]), ref.transform(X_IRIS[:5]),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got.transform(X_IRIS[:5]), ref.transform(X_IRIS[:5]),
                                   rtol=1e-10, atol=1e-12)
        key_pairs = np.array([[keys[0], keys[60]], [keys[1], keys[2]]])
        np.testing.assert_allclose(
            got.pair_distance(key_pairs),
            ref.pair_distance(np.stack([X_IRIS[[0, 1]], X_IRIS[[60, 2]]], axis=1)),
            rtol=1e-10)


def test_preprocessor_errors():
    est = ITMLTransformer(preprocessor=X_IRIS, random_state=0)
    with pytest.raises(ValueError, match=r"position 1 has identifier 150 outside \[0, 150\)"):
        est.fit(np.array([0, 150]), [0, 1])
    with pytest.raises(ValueError, match="integers; got dtype <U"):
        est.fit(np.array(["a", "b"]), [0, 1])
    short = ITMLTransformer(preprocessor=lambda k: X_IRIS[:1], random_state=0)
    with pytest.raises(ValueError, match="returned 1 rows for 3 identifiers of X"):
        short.fit(np.array([0, 1, 2]), [0, 1, 1])
    boom = ITMLTransformer(preprocessor=lambda k: {}[k[0]], random_state=0)
    with pytest.raises(ValueError, match="the preprocessor raised KeyError"):
        boom.fit(np.array(["x", "y"]), [0, 1])
    with pytest.raises(ValueError, match="preprocessor"):
        ITMLTransformer(preprocessor="X").fit(X_IRIS, Y_IRIS)


@pytest.mark.parametrize("tuples, match", [
    (5, "got a scalar"),
    ([], "got a 1-D array"),
    (np.zeros((0, 2, 4)), "empty array"),
    ([[[1, 2, 3, 4], [1, 2, 3]]], "unequal lengths"),
    (np.zeros((3, 2, 4)) + 1j, "Complex data not supported"),
    (np.full((3, 2, 4), np.nan), "NaN"),
    (np.zeros((3, 4, 4)), "tuples of 2 points expected; got tuples of 4"),
    (np.zeros((3, 2)), "need a preprocessor"),
    (np.zeros((3, 2, 3)), "3 features, but the estimator was fitted on 4"),
])
def test_tuples_checked_in_one_place(tuples, match):
    itml = ITMLTransformer(random_state=0).fit(X_IRIS, Y_IRIS)
    with pytest.raises(ValueError, match=match):
        itml.pair_distance(tuples)
    clf = PairClassifier(ITMLTransformer(random_state=0))
    if "fitted on" not in match:
        with pytest.raises(ValueError, match=match):
            clf.fit(tuples, np.ones(len(tuples) if hasattr(tuples, '__len__') else 1))


def _pair_data():
    pc = pairs_from_labels(Y_IRIS, 300, random_state=0)
    return np.column_stack([pc.i, pc.j]), pc.sign.astype(int)


def test_pair_classifier_over_string_identifiers():
    pairs, y = _pair_data()
    names = np.array([f"img_{k:03d}.png" for k in range(150)])
    lookup = dict(zip(names, X_IRIS))
    clf = PairClassifier(ITMLTransformer(random_state=0),
                         preprocessor=lambda n: np.array([lookup[k] for k in n]))
    clf.fit(names[pairs[:200]], y[:200])
    ref = PairClassifier(ITMLTransformer(random_state=0), preprocessor=X_IRIS)
    ref.fit(pairs[:200], y[:200])
    # a callable fits on the points the pairs use; an array on all its rows
    assert clf.score(names[pairs[200:]], y[200:]) > 0.85
    np.testing.assert_allclose(clf.transform(names[:3]),
                               clf.transform(X_IRIS[:3]), rtol=1e-12)
    np.testing.assert_allclose(ref.transform(np.arange(3)), ref.transform(X_IRIS[:3]))
    d = clf.pair_distance(names[pairs[200:205]])
    P = np.stack([X_IRIS[pairs[200:205, 0]], X_IRIS[pairs[200:205, 1]]], axis=1)
    np.testing.assert_allclose(d, clf.pair_distance(P), rtol=1e-12)
    np.testing.assert_allclose(clf.decision_function(names[pairs[200:205]]), -d,
                               rtol=1e-12)
    assert clf.components_.shape == (4, 4)
    np.testing.assert_allclose(clf.get_mahalanobis_matrix(),
                               clf.estimator_.get_mahalanobis_matrix())


def test_roc_auc_grid_search_on_identifier_pairs():
    pairs, y = _pair_data()
    names = np.array([f"id{k}" for k in range(150)])
    lookup = dict(zip(names, X_IRIS))
    clf = PairClassifier(ITMLTransformer(random_state=0),
                         preprocessor=lambda n: np.array([lookup[k] for k in n]))
    gs = GridSearchCV(clf, {"estimator__slack": [0.1, 10.0]}, scoring="roc_auc", cv=3)
    gs.fit(names[pairs], y)
    assert gs.best_score_ > 0.9


def test_triplet_classifier_metric_surface():
    t = triplets_from_labels(Y_IRIS, 200, random_state=0)
    clf = TripletClassifier(SKLRClusterer(n_clusters=3, kernel="linear", slack=1.0,
                                          random_state=0), preprocessor=X_IRIS).fit(t)
    assert clf.components_.shape[1] == 4
    pairs = t[:10, :2]
    Z = clf.transform(X_IRIS)
    np.testing.assert_allclose(
        clf.pair_distance(pairs), np.linalg.norm(Z[pairs[:, 0]] - Z[pairs[:, 1]], axis=1),
        rtol=1e-10)
    np.testing.assert_allclose(clf.pair_score(pairs), -clf.pair_distance(pairs))
    assert clf.get_metric()(X_IRIS[0], X_IRIS[1]) == pytest.approx(
        np.linalg.norm(Z[0] - Z[1]))
    rbf = TripletClassifier(SKLRClusterer(n_clusters=3, random_state=0),
                            preprocessor=X_IRIS).fit(t)
    assert not hasattr(rbf, "get_mahalanobis_matrix") and not hasattr(rbf, "components_")


@pytest.fixture(scope="module")
def fitted_pairs():
    pairs, y = _pair_data()
    return PairClassifier(ITMLTransformer(random_state=0), preprocessor=X_IRIS).fit(
        pairs[:200], y[:200]), pairs[200:], y[200:]


def test_set_threshold(fitted_pairs):
    clf, pairs, y = fitted_pairs
    clf = clone(clf).fit(pairs, y)
    d = clf.pair_distance(pairs)
    clf.set_threshold(np.median(d))  # a distance, as metric-learn's
    assert clf.threshold_ == np.median(d)
    np.testing.assert_array_equal(clf.predict(pairs), np.where(d <= np.median(d), 1, -1))
    for bad in [np.nan, np.inf, None, "0.5", 1 + 2j]:
        with pytest.raises(InvalidParameterError, match="'threshold' parameter of "
                           "PairClassifier.set_threshold"):
            clf.set_threshold(bad)


@pytest.mark.parametrize("kwargs, match", [
    (dict(strategy="accuracy", beta=-1), "'beta' parameter"),
    (dict(strategy="f_beta", beta=3 + 2j), "'beta' parameter"),
    (dict(strategy="f_beta", beta=None), "'beta' parameter"),
    (dict(strategy="max_tpr", min_rate=-0.2), "'min_rate' parameter"),
    (dict(strategy="max_tnr", min_rate="weird"), "'min_rate' parameter"),
    (dict(strategy="max_tpr"), "needs min_rate"),
    (dict(strategy="best"), "'strategy' parameter"),
])
def test_calibrate_threshold_follows_the_constructors_rules(fitted_pairs, kwargs, match):
    clf, pairs, y = fitted_pairs
    with pytest.raises(InvalidParameterError, match=match):
        clf.calibrate_threshold(pairs, y, **kwargs)
    params = {k: v for k, v in kwargs.items()}
    with pytest.raises(InvalidParameterError, match=match.replace("needs", "needs")):
        clone(clf).set_params(**params).fit(pairs, y)


@pytest.mark.parametrize("y, match", [
    (lambda y: y[:-1], "entries but there are"),
    # (1 / 0 labels are accepted in place of +1 / -1, issue 28; -1 and 0 mixed are not)
    (lambda y: np.where(np.arange(len(y)) % 3 == 0, 0, y), "y_valid must hold"),
    (lambda y: np.where(y > 0, np.nan, -1.0), "y_valid must hold"),
])
def test_calibrate_threshold_checks_y(fitted_pairs, y, match):
    clf, pairs, yy = fitted_pairs
    with pytest.raises(ValueError, match=match):
        clf.calibrate_threshold(pairs, y(yy))


def test_itml_prior_random_and_checked_arrays():
    a = ITMLTransformer(prior="random", random_state=3).fit(X_IRIS, Y_IRIS)
    b = ITMLTransformer(prior="random", random_state=3).fit(X_IRIS, Y_IRIS)
    np.testing.assert_array_equal(a.prior_, b.prior_)
    assert np.linalg.eigvalsh(a.prior_).min() > 0
    c = ITMLTransformer(prior="random", random_state=4).fit(X_IRIS, Y_IRIS)
    assert not np.allclose(a.prior_, c.prior_)
    rng = np.random.default_rng(0)
    B = rng.standard_normal((4, 3))
    cases = [
        (B @ B.T, "prior must be positive definite: its smallest eigenvalue"),
        (B @ B.T + 1e-13 * np.eye(4), "prior is numerically singular"),
        (np.triu(np.ones((4, 4))), "prior must be a symmetric matrix"),
        (-np.eye(4), "prior must be positive definite"),
        (np.eye(3), r"prior must have shape \(n_features, n_features\) = \(4, 4\)"),
        (np.full((4, 4), np.nan), "prior"),
    ]
    for prior, match in cases:
        with pytest.raises(ValueError, match=match):
            ITMLTransformer(prior=prior).fit(X_IRIS, Y_IRIS)
