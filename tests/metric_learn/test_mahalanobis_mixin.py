"""Port of metric-learn's test/test_mahalanobis_mixin.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's ``metric_learners`` (its Mahalanobis learners, each with
its ``build_dataset``) become ``LEARNERS`` below: the supervised learners
(``ITML_Supervised(max_iter=5)``) become ``ITMLTransformer``,
``LogDetKernelLearner(kernel='linear')`` and
``VonNeumannKernelLearner(kernel='linear')`` fitted on ``fit(X, y)`` (iris);
the pair learners (``ITML(max_iter=2)``) become ``PairClassifier`` around
each of them, fitted on ``fit(pairs, y)``; the triplet learner (``SCML``)
becomes ``TripletClassifier`` around the two kernel learners (which take
``fit(X, triplets=...)``), fitted on ``fit(triplets)``.  All of them have a
linear map: ``components_``, ``transform(X) = X @ components_.T`` and
``get_mahalanobis_matrix()`` (the classifiers read them off their inner
learner, ``estimator_``).  ``pair_distance``, ``pair_score`` and
``get_metric`` keep metric-learn's meaning (``sklearn_bregman._learners._metric``).
metric-learn's ``set_random_state`` is the learners' (and the inner
learners') ``random_state``; ``remove_y`` (triplets take no labels) is
``fit_learner`` below; ``n_components`` (dimensionality reduction) is the
kernel learners' ``rank``; a Mahalanobis ``prior`` is ITML's ``prior``
(``'identity'``, ``'covariance'``, ``'random'`` or an SPD array); the
kernel learners have no prior or init (they start from their initial
kernel).

Not ported:

- the learners with no counterpart here: ``Covariance``, ``LFDA``, ``LMNN``,
  ``NCA``, ``RCA``, ``MLKR``, ``MMC``, ``SDML``, ``LSML`` and the quadruplet
  learners, and ``SCML`` (whose role the triplet classifiers above take);
  ``init`` (MMC's, SDML's) exists only as ITML's ``prior``;
- test_init_transformation: the linear-transformation ``init`` of LMNN,
  NCA, MLKR and LFDA ('auto', 'pca', 'lda', 'identity', 'random' or an
  ``(n_components, n_features)`` array, checked against ``n_components``):
  no learner here starts from a given transformation;
- test_auto_init_transformation: ``init='auto'`` choosing between 'lda',
  'pca' and 'identity' from ``n_components``, ``n_classes`` and
  ``n_samples`` (LMNN, NCA, MLKR): no counterpart, as above;
- test_singular_covariance_init_of_non_strict_pd: MMC's ``init='covariance'``
  falling back to the pseudo-inverse (with a warning) on singular data: no
  learner here accepts a singular start (ITML's prior must be strictly
  positive definite, see test_singular_covariance_init_or_prior_strictpd);
- test_singular_array_init_of_non_strict_pd: a test of metric-learn's
  private ``_initialize_metric_mahalanobis(..., strict_pd=False)``, which no
  learner of metric-learn uses either; no counterpart.
"""

from itertools import product

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_almost_equal, assert_array_equal
from scipy.spatial.distance import mahalanobis, pdist, squareform
from scipy.stats import ortho_group
from sklearn.base import clone
from sklearn.cluster import DBSCAN
from sklearn.datasets import load_iris, make_spd_matrix
from sklearn.utils import shuffle

from sklearn_bregman import (
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

# a few sweeps only (metric-learn: ITML(max_iter=2), ITML_Supervised(max_iter=5)):
# these tests are about the metric surface of the learned map, not about convergence
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SEED = 42


# -- builders (metric-learn's test_utils.build_classification / _pairs / _triplets) --


def build_classification():
    """Iris, shuffled: (X, y, X)."""
    X, y = load_iris(return_X_y=True)
    X, y = shuffle(X, y, random_state=SEED)
    return X, y, X


def build_pairs():
    """Iris, shuffled, and 100 labelled point pairs of it: (pairs, y, X)."""
    X, labels = build_classification()[:2]
    pc = pairs_from_labels(labels, 100, random_state=SEED)
    return X[np.column_stack([pc.i, pc.j])], np.asarray(pc.sign, dtype=int), X


def build_triplets():
    """Iris, shuffled, and 100 point triplets (a, b, c), a closer to b than to
    c: (triplets, y, X), ``y`` all ones."""
    X, labels = build_classification()[:2]
    triplets = triplets_from_labels(labels, 100, random_state=SEED)
    return X[triplets], np.ones(len(triplets), dtype=int), X


def ldk(max_iter):
    return LogDetKernelLearner(kernel="linear", max_iter=max_iter, random_state=SEED)


def vnk(max_iter):
    return VonNeumannKernelLearner(kernel="linear", max_iter=max_iter, random_state=SEED)


def itml(max_iter, **params):
    return ITMLTransformer(max_iter=max_iter, random_state=SEED, **params)


LEARNERS = [
    (itml(5), build_classification),
    (ldk(5), build_classification),
    (vnk(5), build_classification),
    (PairClassifier(itml(2)), build_pairs),
    (PairClassifier(ldk(2)), build_pairs),
    (PairClassifier(vnk(2)), build_pairs),
    (TripletClassifier(ldk(5)), build_triplets),
    (TripletClassifier(vnk(5)), build_triplets),
]
LEARNER_IDS = ["ITMLTransformer", "LogDetKernelLearner-linear",
               "VonNeumannKernelLearner-linear", "PairClassifier-ITMLTransformer",
               "PairClassifier-LogDetKernelLearner-linear",
               "PairClassifier-VonNeumannKernelLearner-linear",
               "TripletClassifier-LogDetKernelLearner-linear",
               "TripletClassifier-VonNeumannKernelLearner-linear"]

# the learners with a Mahalanobis prior (metric-learn: 'ITML' in the id)
ITML_LEARNERS = [
    (itml(5), build_classification),
    (PairClassifier(itml(2)), build_pairs),
]
ITML_IDS = ["ITMLTransformer", "PairClassifier-ITMLTransformer"]


def is_classifier_of_tuples(estimator):
    return isinstance(estimator, (PairClassifier, TripletClassifier))


def inner(estimator):
    """The learner of the map: the estimator itself, or a classifier's inner one."""
    return estimator.estimator if is_classifier_of_tuples(estimator) else estimator


def set_inner_params(estimator, **params):
    """Set parameters of the learner of the map (``estimator__`` for a classifier)."""
    if is_classifier_of_tuples(estimator):
        params = {f"estimator__{k}": v for k, v in params.items()}
    return estimator.set_params(**params)


def fit_learner(estimator, input_data, labels):
    """metric-learn's ``model.fit(*remove_y(model, input_data, labels))``."""
    if isinstance(estimator, TripletClassifier):
        return estimator.fit(input_data)
    return estimator.fit(input_data, labels)


def fitted(estimator, build_dataset):
    """A clone of ``estimator`` fitted on its dataset, and the dataset's points X."""
    input_data, labels, X = build_dataset()
    return fit_learner(clone(estimator), input_data, labels), X


# -- pair_distance / pair_score ---------------------------------------------------


# ports: test_pair_distance_pair_score_equivalent
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_pair_distance_pair_score_equivalent(estimator, build_dataset):
    # pair_score is minus pair_distance
    model, X = fitted(estimator, build_dataset)
    pairs = np.array(list(product(X[:20], X[:20])))
    distances = model.pair_distance(pairs)
    assert_array_equal(distances, -1 * model.pair_score(pairs))
    assert (distances > 0).any()


def check_is_distance_matrix(pairwise):
    assert (pairwise >= 0).all()  # positivity
    assert np.array_equal(pairwise, pairwise.T)  # symmetry
    assert (pairwise.diagonal() == 0).all()  # identity
    # triangle inequality
    tol = 1e-12
    assert (pairwise <= pairwise[:, :, np.newaxis] + pairwise[:, np.newaxis, :] + tol).all()


# ports: test_pair_distance_pairwise
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_pair_distance_pairwise(estimator, build_dataset):
    # the distances of all pairs of 20 points are a Euclidean distance matrix
    model, X = fitted(estimator, build_dataset)
    n_samples = 20
    X = X[:n_samples]
    pairwise = model.pair_distance(np.array(list(product(X, X)))).reshape(n_samples,
                                                                           n_samples)
    check_is_distance_matrix(pairwise)
    # a necessary condition for Euclidean distance matrices
    # (https://en.wikipedia.org/wiki/Euclidean_distance_matrix)
    assert np.linalg.matrix_rank(pairwise ** 2) <= min(X.shape) + 2
    # the distances of the points after transform
    assert_array_almost_equal(squareform(pairwise), pdist(model.transform(X)))


# ports: test_pair_distance_toy_example
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_pair_distance_toy_example(estimator, build_dataset):
    model, X = fitted(estimator, build_dataset)
    pairs = np.stack([X[:10], X[10:20]], axis=1)
    embedded_pairs = pairs.dot(model.components_.T)
    distances = np.sqrt(np.sum((embedded_pairs[:, 1] - embedded_pairs[:, 0]) ** 2, axis=-1))
    assert_array_almost_equal(model.pair_distance(pairs), distances)


# ports: test_pair_distance_finite
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_pair_distance_finite(estimator, build_dataset):
    model, X = fitted(estimator, build_dataset)
    pairs = np.array(list(product(X, X)))
    assert np.isfinite(model.pair_distance(pairs)).all()


# ports: test_pair_distance_dim
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_pair_distance_dim(estimator, build_dataset):
    # a 3-D array of pairs gives one distance per pair; one pair alone (a 2-D
    # array) is an error, as scikit-learn's for a 1-D array of points
    model, X = fitted(estimator, build_dataset)
    pairs = np.array(list(product(X, X)))
    assert model.pair_distance(pairs).shape == (pairs.shape[0],)
    # differs on purpose: our message (sklearn_bregman._data._inputs.tuple_form), not
    # "3D array of formed tuples expected"
    with pytest.raises(ValueError, match=r"^pairs\b.*\(2, 4\)"):
        model.pair_distance(pairs[1])


# ports: test_pair_distance_dim (its message)
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS[:1] + LEARNERS[3:4],
                         ids=LEARNER_IDS[:1] + LEARNER_IDS[3:4])
def test_pair_distance_of_one_pair_says_how_to_reshape(estimator, build_dataset):
    # metric-learn: "3D array of formed tuples expected. Found 2D array instead: ...
    # Reshape your data and/or use a preprocessor."  Without a preprocessor a 2-D
    # array cannot be identifiers: the message must give the points' form, not read
    # the pair as "tuples of 4"
    model, X = fitted(estimator, build_dataset)
    with pytest.raises(ValueError) as raised_error:
        model.pair_distance(np.stack([X[0], X[1]]))
    message = str(raised_error.value)
    assert "(n_pairs, 2, n_features)" in message
    assert "shape (2, 4)" in message
    assert "tuples of 4" not in message


# -- transform ------------------------------------------------------------------------


# ports: test_embed_toy_example
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_embed_toy_example(estimator, build_dataset):
    model, X = fitted(estimator, build_dataset)
    X = X[:20]
    assert_array_almost_equal(model.transform(X), X.dot(model.components_.T))


# the error of transform on one point given as a 1-D array
# differs on purpose: scikit-learn's check_array message, not metric-learn's
# "2D array of formed points expected"
ONE_POINT_ERROR = r"^Expected 2D array, got 1D array instead"


# ports: test_embed_dim
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_embed_dim(estimator, build_dataset):
    # the output space has the expected dimension
    input_data, labels, X = build_dataset()
    model = fit_learner(clone(estimator), input_data, labels)
    assert model.transform(X).shape == X.shape
    with pytest.raises(ValueError, match=ONE_POINT_ERROR):
        model.pair_distance(model.transform(X[0, :]))
    # and with dimensionality reduction (metric-learn's n_components: the kernel
    # learners' rank; ITML learns a full-rank metric)
    if hasattr(inner(model), "rank"):
        set_inner_params(model, rank=2)
        fit_learner(model, input_data, labels)
        assert model.transform(X).shape == (X.shape[0], 2)
        assert model.components_.shape == (2, X.shape[1])
        with pytest.raises(ValueError, match=ONE_POINT_ERROR):
            model.transform(model.transform(X[0, :]))


# ports: test_embed_finite
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_embed_finite(estimator, build_dataset):
    model, X = fitted(estimator, build_dataset)
    assert np.isfinite(model.transform(X)).all()


# ports: test_embed_is_linear
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_embed_is_linear(estimator, build_dataset):
    model, X = fitted(estimator, build_dataset)
    assert_array_almost_equal(model.transform(X[:10] + X[10:20]),
                              model.transform(X[:10]) + model.transform(X[10:20]))
    assert_array_almost_equal(model.transform(5 * X[:10]), 5 * model.transform(X[:10]))


# -- get_metric -------------------------------------------------------------------------


# ports: test_get_metric_equivalent_to_explicit_mahalanobis
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_get_metric_equivalent_to_explicit_mahalanobis(estimator, build_dataset):
    # get_metric's function is scipy's Mahalanobis distance with the learned matrix
    rng = np.random.RandomState(42)
    model, X = fitted(estimator, build_dataset)
    metric = model.get_metric()
    n_features = X.shape[1]
    a, b = rng.randn(n_features), rng.randn(n_features)
    expected_dist = mahalanobis(a, b, VI=model.get_mahalanobis_matrix())
    assert_allclose(metric(a, b), expected_dist, rtol=1e-13)


# ports: test_get_metric_is_pseudo_metric
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_get_metric_is_pseudo_metric(estimator, build_dataset):
    # a metric but for one side of the identity of indiscernibles
    model, X = fitted(estimator, build_dataset)
    metric = model.get_metric()
    n_features = X.shape[1]
    for seed in range(10):
        rng = np.random.RandomState(seed)
        a, b, c = (rng.randn(n_features) for _ in range(3))
        assert metric(a, b) >= 0  # positivity
        assert metric(a, b) == metric(b, a)  # symmetry
        # x == y => d(x, y) == 0 (the converse does not always hold for a
        # Mahalanobis distance)
        assert metric(a, a) == 0
        # triangle inequality
        assert (metric(a, c) < metric(a, b) + metric(b, c)
                or np.isclose(metric(a, c), metric(a, b) + metric(b, c), rtol=1e-20))


# ports: test_get_metric_compatible_with_scikit_learn
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_get_metric_compatible_with_scikit_learn(estimator, build_dataset):
    # get_metric's function works as a custom metric of scikit-learn's algorithms,
    # DBSCAN for instance; and it clusters as the Euclidean metric after transform
    model, X = fitted(estimator, build_dataset)
    X = X[:60]
    clustering = DBSCAN(metric=model.get_metric()).fit(X)
    reference = DBSCAN().fit(model.transform(X))
    assert len(set(reference.labels_)) > 2  # clusters, not all noise
    assert_array_equal(clustering.labels_, reference.labels_)


# ports: test_get_squared_metric
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_get_squared_metric(estimator, build_dataset):
    # the squared metric is the square of the metric
    model, X = fitted(estimator, build_dataset)
    metric = model.get_metric()
    n_features = X.shape[1]
    for seed in range(10):
        rng = np.random.RandomState(seed)
        a, b = (rng.randn(n_features) for _ in range(2))
        assert_allclose(metric(a, b, squared=True), metric(a, b, squared=False) ** 2,
                        rtol=1e-15)


# -- components_ ----------------------------------------------------------------------


# ports: test_components_is_2D
# (on one feature, some of the pairs drawn from labels join equal values: skipped, with
# a warning)
@pytest.mark.filterwarnings("ignore:.*join two identical points:UserWarning")
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_components_is_2D(estimator, build_dataset):
    # the map is a 2-D matrix, also for data with a single feature
    input_data, labels, X = build_dataset()
    model = fit_learner(clone(estimator), input_data, labels)
    assert model.components_.shape == (X.shape[1], X.shape[1])

    # a single feature: the 2nd one, to avoid border cases
    trunc_data = input_data[..., 1:2]
    # drop the tuples that collapse on one feature: a pair (a, a), a triplet
    # (a, a, c) or (a, b, a); and (ours) a triplet (a, b, b), which a
    # TripletClassifier refuses (a triplet compares three distinct points)
    if isinstance(model, PairClassifier):
        same = [[0, 1]]
    elif isinstance(model, TripletClassifier):
        same = [[0, 1], [0, 2], [1, 2]]
    else:
        same = []
    to_keep = np.ones(len(trunc_data), dtype=bool)
    for u, v in same:
        to_keep &= np.abs(trunc_data[:, v, 0] - trunc_data[:, u, 0]) > 1e-9
    trunc_data, labels = trunc_data[to_keep], labels[to_keep]
    fit_learner(model, trunc_data, labels)
    assert model.components_.shape == (1, 1)  # the components must be 2D
    assert model.get_mahalanobis_matrix().shape == (1, 1)


# -- ITML's prior (metric-learn's Mahalanobis init / prior) ------------------------------


# ports: test_init_mahalanobis
@pytest.mark.parametrize("estimator, build_dataset", ITML_LEARNERS, ids=ITML_IDS)
def test_init_mahalanobis(estimator, build_dataset):
    input_data, labels, X = build_dataset()
    model = clone(estimator)
    rng = np.random.RandomState(42)
    n_features = X.shape[1]

    for prior in ["identity", "random", "covariance",
                  make_spd_matrix(n_dim=n_features, random_state=rng)]:
        set_inner_params(model, prior=prior)
        fit_learner(model, input_data, labels)
        assert model.get_mahalanobis_matrix().shape == (n_features, n_features)
        # the prior used (ITML's prior_)
        used = getattr(model, "estimator_", model).prior_
        if isinstance(prior, np.ndarray):
            assert_allclose(used, prior)
        elif prior == "identity":
            assert_array_equal(used, np.eye(n_features))

    # differs on purpose (below): our messages, all ValueErrors (metric-learn raises
    # its NonPSDError for a prior that is not PSD; ITML needs it positive definite)
    # the prior's dimension must be the input's
    set_inner_params(model, prior=make_spd_matrix(n_dim=n_features + 1, random_state=rng))
    with pytest.raises(ValueError, match=r"^prior must have shape \(n_features, n_features\) "
                       r"= \(4, 4\); got \(5, 5\)\.$"):
        fit_learner(model, input_data, labels)

    # the prior must be symmetric
    set_inner_params(model, prior=rng.rand(n_features, n_features))
    with pytest.raises(ValueError, match=r"^prior must be a symmetric matrix; "):
        fit_learner(model, input_data, labels)

    # the prior must be positive definite
    P = ortho_group.rvs(n_features, random_state=rng)
    w = np.abs(rng.randn(n_features))
    w[0] = -10.0
    set_inner_params(model, prior=P.dot(np.diag(w)).dot(P.T))
    with pytest.raises(ValueError, match=r"^prior must be positive definite: its smallest "
                       r"eigenvalue is -10\. "):
        fit_learner(model, input_data, labels)

    # the prior must be as the docstring says (scikit-learn's parameter validation)
    set_inner_params(model, prior=1)
    with pytest.raises(InvalidParameterError, match=r"^The 'prior' parameter of "
                       r"ITMLTransformer must be a str among .* or an array-like\. "
                       r"Got 1 instead\.$"):
        fit_learner(model, input_data, labels)


# ports: test_singular_covariance_init_or_prior_strictpd
@pytest.mark.parametrize("estimator, build_dataset", ITML_LEARNERS, ids=ITML_IDS)
def test_singular_covariance_init_or_prior_strictpd(estimator, build_dataset):
    # prior='covariance' on data whose covariance is singular is an error that says so
    # (ITML needs a strictly positive definite prior)
    input_data, labels, _ = build_dataset()
    model = set_inner_params(clone(estimator), prior="covariance")
    # a feature that is a linear combination of the first two
    input_data = np.concatenate([input_data, input_data[..., :2].dot([[2], [3]])], axis=-1)
    # differs on purpose: a ValueError with our message (metric-learn: a LinAlgError)
    with pytest.raises(ValueError, match=r"^prior='covariance' needs an invertible "
                       r"covariance matrix of X, but its smallest eigenvalue is "):
        fit_learner(model, input_data, labels)
    # the same without the collinear feature is fitted
    fit_learner(model, input_data[..., :-1], labels)


# ports: test_singular_array_init_or_prior_strictpd
@pytest.mark.parametrize("w0", [1e-20, 0.0, -1e-20])
@pytest.mark.parametrize("estimator, build_dataset", ITML_LEARNERS, ids=ITML_IDS)
def test_singular_array_init_or_prior_strictpd(estimator, build_dataset, w0):
    # a singular array prior is an error that says so
    rng = np.random.RandomState(42)
    input_data, labels, X = build_dataset()
    P = ortho_group.rvs(X.shape[1], random_state=rng)
    w = np.abs(rng.randn(X.shape[1]))
    w[0] = w0
    model = set_inner_params(clone(estimator), prior=P.dot(np.diag(w)).dot(P.T))
    # differs on purpose: a ValueError with our message (metric-learn: a LinAlgError);
    # rounding leaves the smallest eigenvalue a tiny number of either sign
    with pytest.raises(ValueError, match=r"^prior (must be positive definite|is "
                       r"numerically singular): "):
        fit_learner(model, input_data, labels)


# -- random_state -------------------------------------------------------------------------


# ports: test_deterministic_initialization
@pytest.mark.parametrize("estimator, build_dataset", LEARNERS, ids=LEARNER_IDS)
def test_deterministic_initialization(estimator, build_dataset):
    # with random_state fixed a fit is deterministic, a random prior too
    input_data, labels, _ = build_dataset()
    model = clone(estimator)
    if "prior" in inner(model).get_params():
        set_inner_params(model, prior="random")

    def fit(random_state):
        m = set_inner_params(clone(model), random_state=random_state)
        return fit_learner(m, input_data, labels).get_mahalanobis_matrix()

    assert_allclose(fit(42), fit(42))
    if "prior" in inner(model).get_params():
        # and the random prior does depend on random_state
        assert not np.allclose(fit(42), fit(7))
