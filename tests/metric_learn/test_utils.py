"""Port of metric-learn's test/test_utils.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's ``check_input(tuples, type_of_inputs='tuples',
tuple_size=t, preprocessor=p)`` is ``sklearn_bregman._data._inputs.check_tuples(tuples,
t, p)`` (``tuple_form`` reads the shape, ``check_point_tuples`` checks points,
``Preprocessor`` turns identifiers into points); the public methods that go
through it are the classifiers' ``fit`` / ``predict`` / ``decision_function``
and every learner's ``pair_distance`` / ``pair_score``.  ``check_input(X,
type_of_inputs='classic')`` is ``points_of`` (a 1-D ``X`` of identifiers through
the estimator's ``preprocessor``) followed by scikit-learn's ``validate_data``
at the top of ``fit`` / ``transform``: tested through
``ITMLTransformer(preprocessor=...)``.  ``ArrayIndexer``, ``preprocess_tuples``
and ``preprocess_points`` are ``Preprocessor`` (an array: integer row indices;
a callable: any hashable identifiers); ``PreprocessorError`` is a ValueError
that names the argument or the estimator; ``check_collapsed_pairs`` is the
check at the top of ``PairClassifier.fit``; ``check_y_valid_values_for_pairs``
is ``sklearn_bregman._tuples._pairs.check_pair_labels``; ``_check_sdp_from_eigen`` on a
prior is ITMLTransformer's check of an array ``prior``; ``_check_n_components``
is the kernel learners' ``rank``; ``validate_vector`` is the point check of
``get_metric``'s function.  metric-learn's pair learners (``ITML``, ``MMC``,
``SDML``) become ``PairClassifier`` around ``ITMLTransformer`` or
``LogDetKernelLearner(kernel='linear')``, its triplet learner ``SCML``
``TripletClassifier`` around ``LogDetKernelLearner(kernel='linear')`` or
``SKLRClusterer``, its supervised learners (``LFDA``, ``NCA``, ``*_Supervised``)
``ITMLTransformer``, ``LogDetKernelLearner(kernel='linear')`` and
``SKLRClusterer`` with ``fit(X, y)``.  Where metric-learn's messages say
"... by NCA", ours name the argument (``pairs``, ``triplets``, ``X``), and those
about the preprocessor name the estimator.

Not ported:

- test_check_input_invalid_type_of_inputs: there is no ``type_of_inputs``;
  tuples and points are read by different functions (``check_tuples``,
  ``points_of``);
- test_make_context, test_make_name: no context helper; the messages name the
  argument, and the preprocessor's messages the estimator (see
  test_preprocessor_error_message);
- the quadruplets learner (``LSML``) and the regressor (``MLKR``) cases: no
  counterpart here;
- test__check_sdp_from_eigen_positive_err_messages,
  test__check_sdp_from_eigen_tol_psd, test__check_sdp_from_eigen_tol_non_psd:
  the prior check has no tolerance parameter (a prior must be positive
  definite with eigenvalues within a ratio of 1e-10);
- test__auto_select_init: no ``init='auto'`` (no LDA / PCA initialisation);
- test_pseudo_inverse_from_eig_and_pinvh_singular,
  test_pseudo_inverse_from_eig_and_pinvh_nonsingular: no counterpart (a
  prior is positive definite and inverted as such).
"""

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils import shuffle

from sklearn_bregman import (
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    SKLRClusterer,
    TripletClassifier,
)
from sklearn_bregman._data._inputs import (
    Preprocessor,
    check_point_tuples,
    check_tuples,
    points_of,
    tuple_form,
)
from sklearn_bregman._tuples._pairs import check_pair_labels
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

# a few sweeps only: these tests are about the inputs, not about convergence
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SEED = 42

PAIR_LEARNERS = [
    PairClassifier(ITMLTransformer(max_iter=2, random_state=SEED)),
    PairClassifier(LogDetKernelLearner(kernel="linear", max_iter=2, random_state=SEED)),
]
PAIR_IDS = ["Pair-ITMLTransformer", "Pair-LogDetKernelLearner-linear"]
TRIPLET_LEARNERS = [
    TripletClassifier(LogDetKernelLearner(kernel="linear", max_iter=2, random_state=SEED)),
    TripletClassifier(SKLRClusterer(n_clusters=3, max_iter=3, random_state=SEED)),
]
TRIPLET_IDS = ["Triplet-LogDetKernelLearner-linear", "Triplet-SKLRClusterer"]
TUPLE_LEARNERS = PAIR_LEARNERS + TRIPLET_LEARNERS
TUPLE_IDS = PAIR_IDS + TRIPLET_IDS

SUPERVISED_LEARNERS = [
    ITMLTransformer(max_iter=2, random_state=SEED),
    LogDetKernelLearner(kernel="linear", max_iter=2, random_state=SEED),
    SKLRClusterer(n_clusters=3, max_iter=3, random_state=SEED),
]
SUPERVISED_IDS = ["ITMLTransformer", "LogDetKernelLearner-linear", "SKLRClusterer"]


# -- builders (metric-learn's build_pairs / build_triplets / build_classification) --


def iris():
    """Iris, shuffled: (X, labels)."""
    X, labels = load_iris(return_X_y=True)
    return shuffle(X, labels, random_state=SEED)


def tuples_of(estimator, labels, n=100):
    """``n`` labelled tuples over the rows ``labels`` describes, as identifiers:
    pairs and their +1 / -1 (a PairClassifier), or triplets and None."""
    if isinstance(estimator, PairClassifier):
        pc = pairs_from_labels(labels, n, random_state=SEED)
        return np.column_stack([pc.i, pc.j]), np.asarray(pc.sign, dtype=int)
    return triplets_from_labels(labels, n, random_state=SEED), None


def fit_on(estimator, tuples, y):
    """``fit(tuples, y)``, or ``fit(tuples)`` for a learner on triplets
    (metric-learn's ``remove_y``)."""
    return estimator.fit(tuples) if y is None else estimator.fit(tuples, y)


def mock_preprocessor(ids):
    """metric-learn's mock: a row of three ones for each identifier."""
    return np.ones((np.asarray(ids).shape[0], 3))


class RowLoader:
    """A callable preprocessor: identifiers are row numbers of ``X``, looked up
    one by one (as a loader of files or database rows would)."""

    def __init__(self, X):
        self.X = X

    def __call__(self, ids):
        return np.array([self.X[int(k)] for k in ids])


def fitted_itml(preprocessor=None, n_features=3):
    """An ITMLTransformer fitted on random points with ``n_features`` features
    (a 2-D X is points, with or without a preprocessor)."""
    rng = np.random.RandomState(SEED)
    return ITMLTransformer(max_iter=2, random_state=SEED, preprocessor=preprocessor).fit(
        rng.randn(20, n_features), np.arange(20) % 2)


def tuples_prep():
    """metric-learn's identifier pairs (with a preprocessor)."""
    return np.array([[1, 2], [2, 3]])


def tuples_no_prep():
    """metric-learn's point pairs (without a preprocessor)."""
    return np.array([[[1.0, 2.3], [2.3, 5.3]], [[2.3, 4.3], [0.2, 0.4]]])


def no_warning(function, *args, **kwargs):
    """``function(*args, **kwargs)``, asserting that it warns nothing."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = function(*args, **kwargs)
    assert [str(w.message) for w in record] == []
    return out


# -- tuples: check_input(type_of_inputs='tuples') -> tuple_form / check_tuples -------

SHAPE = ("pairs must have shape (n_pairs, 2, n_features) (points) or (n_pairs, 2) "
         "(identifiers of points, with a preprocessor)")


# ports: test_check_tuples_invalid_tuple_size
@pytest.mark.parametrize("load_tuples, preprocessor",
                         [(tuples_prep, mock_preprocessor), (tuples_no_prep, None),
                          (tuples_no_prep, mock_preprocessor)])
def test_check_tuples_invalid_tuple_size(load_tuples, preprocessor):
    # differs on purpose: the message gives the shape of the tuples as given
    # (metric-learn: after the preprocessor) and does not print them
    tuples = load_tuples()
    msg = f"pairs: tuples of 3 points expected; got tuples of 2 (shape {tuples.shape})."
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples, 3, preprocessor)
    assert str(raised_error.value) == msg
    # the public route: a triplet learner given pairs
    msg = msg.replace("pairs:", "triplets:")
    with pytest.raises(ValueError) as raised_error:
        TripletClassifier(SKLRClusterer(), preprocessor=preprocessor).fit(tuples)
    assert str(raised_error.value) == msg


# ports: test_check_tuples_invalid_shape
@pytest.mark.parametrize("tuples, preprocessor, msg", [
    (5, mock_preprocessor, f"{SHAPE}; got a scalar, array(5)."),
    (5, None, f"{SHAPE}; got a scalar, array(5)."),
    ([1, 2], mock_preprocessor, f"{SHAPE}; got a 1-D array of shape (2,)."),
    ([1, 2], None, f"{SHAPE}; got a 1-D array of shape (2,)."),
    ([[[[5]]]], mock_preprocessor, f"{SHAPE}; got a 4-D array of shape (1, 1, 1, 1)."),
    ([[[[5]]]], None, f"{SHAPE}; got a 4-D array of shape (1, 1, 1, 1)."),
    ([[1], [3]], None,
     f"{SHAPE}; got a 2-D array of shape (2, 1) and no preprocessor. Points go in as a "
     "3-D array, even for one pair (tuples[None] adds the leading axis)."),
    # identifiers without a preprocessor (metric-learn: "... and/or use a preprocessor")
    ([[1, 2], [3, 4]], None,
     "pairs of shape (n_pairs, 2) are identifiers of points, which need a preprocessor "
     "(an array they index, or a callable that returns their rows); pass points as "
     "(n_pairs, 2, n_features) otherwise."),
])
def test_check_tuples_invalid_shape(tuples, preprocessor, msg):
    tuples = np.array(tuples)
    with pytest.raises(ValueError) as raised_error:
        tuple_form(tuples, 2, "pairs", preprocessor)
    assert str(raised_error.value) == msg
    # the same message from the public methods that take pairs
    with pytest.raises(ValueError) as raised_error:
        fitted_itml(preprocessor).pair_distance(tuples)
    assert str(raised_error.value) == msg
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer(), preprocessor=preprocessor).fit(tuples, [1, -1])
    assert str(raised_error.value) == msg


# ports: test_check_tuples_invalid_n_features
def test_check_tuples_invalid_n_features():
    # differs on purpose: no ensure_min_features; points need at least one feature,
    # and as many as the estimator was fitted on
    tuples = np.zeros((2, 2, 0))
    with pytest.raises(ValueError) as raised_error:
        check_point_tuples(tuples, 2)
    assert str(raised_error.value) == ("pairs: found points with 0 features (shape "
                                       "(2, 2, 0)) while a minimum of 1 is required.")
    msg = "pairs: points have 2 features, but the estimator was fitted on 3 features."
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples_no_prep(), 2, None, n_features=3)
    assert str(raised_error.value) == msg
    with pytest.raises(ValueError) as raised_error:
        fitted_itml(n_features=3).pair_distance(tuples_no_prep())
    assert str(raised_error.value) == msg
    # the preprocessor's points too
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples_prep(), 2, mock_preprocessor, n_features=2)
    assert str(raised_error.value) == ("pairs: the preprocessor's points have 3 features, "
                                       "but the estimator was fitted on 2 features.")


# ports: test_check_tuples_invalid_n_samples
@pytest.mark.parametrize("tuples, preprocessor",
                         [(np.zeros((0, 2), dtype=int), mock_preprocessor),
                          (np.zeros((0, 2, 2)), None),
                          (np.zeros((0, 2, 2)), mock_preprocessor)])
def test_check_tuples_invalid_n_samples(tuples, preprocessor):
    # differs on purpose: no ensure_min_samples; at least one tuple is required
    msg = (f"pairs: found an empty array (shape {tuples.shape}) while at least one pair "
           "is required.")
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples, 2, preprocessor)
    assert str(raised_error.value) == msg
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer(), preprocessor=preprocessor).fit(tuples, [])
    assert str(raised_error.value) == msg


# ports: test_check_tuples_invalid_dtype_not_convertible_with_preprocessor
def test_check_tuples_invalid_dtype_not_convertible_with_preprocessor():
    def preprocessor(indices):
        # a preprocessor that returns strings
        return np.full((indices.shape[0], 3), "a")

    with pytest.raises(ValueError):
        check_tuples(tuples_prep(), 2, preprocessor)
    with pytest.raises(ValueError):
        PairClassifier(ITMLTransformer(), preprocessor=preprocessor).fit(tuples_prep(),
                                                                         [1, -1])


# ports: test_check_tuples_invalid_dtype_not_convertible_without_preprocessor
def test_check_tuples_invalid_dtype_not_convertible_without_preprocessor():
    tuples = np.full_like(tuples_no_prep(), "a", dtype=object)
    with pytest.raises(ValueError):
        check_tuples(tuples, 2, None)
    with pytest.raises(ValueError):
        PairClassifier(ITMLTransformer()).fit(tuples, [1, -1])


# ports: test_check_tuples_valid_tuple_size
def test_check_tuples_valid_tuple_size():
    # (metric-learn's tuple_size=None has no counterpart: the size is always given)
    P = no_warning(check_tuples, tuples_prep(), 2, mock_preprocessor)
    assert_array_equal(P, np.ones((2, 2, 3)))
    P = no_warning(check_tuples, tuples_no_prep(), 2, None)
    assert_array_equal(P, tuples_no_prep())
    assert P.dtype == np.float64


# ports: test_check_tuples_valid_with_preprocessor
@pytest.mark.parametrize("tuples", [
    np.array([[2.5, 0.1, 2.6], [1.6, 4.8, 9.1]]),
    np.array([[2, 0, 2], [1, 4, 9]]),
    np.array([["img1.png", "img3.png"], ["img2.png", "img4.png"]]),
    [[2, 0, 2], [1, 4, 9]],
    [np.array([2, 0, 2]), np.array([1, 4, 9])],
    ((2, 0, 2), (1, 4, 9)),
    np.array([[[1.2, 2.2], [1.4, 3.3]], [[2.6, 2.3], [3.4, 5.0]]]),
])
def test_check_tuples_valid_with_preprocessor(tuples):
    # a callable preprocessor takes any identifiers; 3-D tuples are points even
    # with a preprocessor
    size = np.shape(tuples)[1]
    P = no_warning(check_tuples, tuples, size, mock_preprocessor)
    if np.ndim(tuples) == 3:
        assert_array_equal(P, tuples)
    else:
        assert_array_equal(P, np.ones((2, size, 3)))


# ports: test_check_tuples_valid_with_preprocessor (identifiers into an array)
def test_array_preprocessor_takes_row_indices():
    # differs on purpose (metric-learn: whatever numpy indexing takes): identifiers
    # into an array are integer row indices (integral floats accepted)
    X = np.arange(30.0).reshape(10, 3)
    for ids in ([[2, 0, 2], [1, 4, 9]], np.array([[2.0, 0.0, 2.0], [1.0, 4.0, 9.0]])):
        assert_array_equal(no_warning(check_tuples, ids, 3, X), X[np.array(ids, dtype=int)])
    with pytest.raises(ValueError) as raised_error:
        check_tuples(np.array([[2.5, 0.1, 2.6], [1.6, 4.8, 9.1]]), 3, X)
    assert str(raised_error.value) == ("pairs: identifiers into an array preprocessor are row "
                                       "indices, integers; got non-integral values.")
    with pytest.raises(ValueError) as raised_error:
        check_tuples(np.array([["img1.png", "img3.png"]]), 2, X)
    assert str(raised_error.value) == (
        "pairs: identifiers into an array preprocessor are row indices, integers; got "
        "dtype <U8 (a callable preprocessor takes any identifiers).")


# ports: test_check_tuples_valid_without_preprocessor
@pytest.mark.parametrize("tuples", [
    np.array([[[2.5], [0.1], [2.6]], [[1.6], [4.8], [9.1]], [[5.6], [2.8], [6.1]]]),
    np.array([[[2], [0], [2]], [[1], [4], [9]], [[1], [5], [3]]]),
    [[[2], [0], [2]], [[1], [4], [9]], [[3], [4], [29]]],
    (((2, 1), (0, 2), (2, 3)), ((1, 2), (4, 4), (9, 3)), ((3, 1), (4, 4), (29, 4))),
])
def test_check_tuples_valid_without_preprocessor(tuples):
    P = no_warning(check_tuples, tuples, 3, None, name="triplets")
    assert_array_equal(P, np.asarray(tuples, dtype=float))
    assert P.dtype == np.float64


# ports: test_check_tuples_behaviour_auto_dtype
def test_check_tuples_behaviour_auto_dtype():
    # any identifiers through a callable; numbers only as points
    no_warning(check_tuples, [["img1.png", "img2.png"], ["img3.png", "img5.png"]], 2,
               mock_preprocessor)
    no_warning(check_tuples, tuples_no_prep(), 2, None)
    strings = np.array([[["img1.png"], ["img2.png"]], [["img3.png"], ["img5.png"]]])
    with pytest.raises(ValueError):
        check_tuples(strings.astype(object), 2, None)


# ports: test_check_tuples_invalid_complex_data
def test_check_tuples_invalid_complex_data():
    # scikit-learn's check_array message, on the points as rows (n * 2, n_features)
    tuples = np.array([[[1 + 2j, 3 + 4j], [5 + 7j, 5 + 7j]],
                       [[1 + 3j, 2 + 4j], [5 + 8j, 1 + 7j]]])
    msg = f"Complex data not supported\n{tuples.reshape(-1, 2)}\n"
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples, 2, None)
    assert str(raised_error.value) == msg
    with pytest.raises(ValueError) as raised_error:
        fitted_itml(n_features=2).pair_distance(tuples)
    assert str(raised_error.value) == msg
    # complex identifiers too
    with pytest.raises(ValueError) as raised_error:
        check_tuples(np.array([[1j, 2]]), 2, mock_preprocessor)
    assert str(raised_error.value) == ("pairs: complex identifiers are not supported; got "
                                       "dtype complex128.")


# ports: test_check_tuples_invalid_complex_data (NaN and inf: check_input's finiteness)
@pytest.mark.parametrize("value, what", [(np.nan, "NaN"),
                                         (np.inf, "infinity or a value too large for "
                                                  "dtype('float64')")])
def test_check_tuples_invalid_non_finite_data(value, what):
    tuples = tuples_no_prep()
    tuples[1, 0, 1] = value
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples, 2, None)
    assert str(raised_error.value) == f"Input pairs contains {what}."
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer()).fit(tuples, [1, -1])
    assert str(raised_error.value) == f"Input pairs contains {what}."
    # a callable preprocessor's rows are checked the same way
    with pytest.raises(ValueError) as raised_error:
        check_tuples(tuples_prep(), 2, lambda ids: np.full((len(ids), 2), value))
    assert str(raised_error.value) == ("The rows the preprocessor returned for pairs are "
                                       f"not usable: Input preprocessor(pairs) contains "
                                       f"{what}.")


# -- points: check_input(type_of_inputs='classic') -> points_of + validate_data ------

X_SMALL = np.array([[0.89, 0.11, 1.48, 0.12],
                    [2.63, 1.08, 1.68, 0.46],
                    [1.00, 0.59, 0.62, 1.15]])


# ports: test_check_classic_invalid_shape
@pytest.mark.parametrize("points, preprocessor, msg", [
    (5, mock_preprocessor, "Expected 2D array, got scalar array instead"),
    (5, None, "Expected 2D array, got scalar array instead"),
    ([1, 2], None, "Expected 2D array, got 1D array instead"),
    ([[[5]]], mock_preprocessor, "Found array with dim 3"),
    ([[[5]]], None, "Found array with dim 3"),
])
def test_check_classic_invalid_shape(points, preprocessor, msg):
    # differs on purpose: scikit-learn's messages (validate_data; points_of leaves
    # X to it unless X is a 1-D array of identifiers and there is a preprocessor)
    points = np.array(points)
    with pytest.raises(ValueError, match=msg):
        ITMLTransformer(preprocessor=preprocessor).fit(points, [0])
    with pytest.raises(ValueError, match=msg):
        fitted_itml(preprocessor).transform(points)


# ports: test_check_classic_invalid_n_features
def test_check_classic_invalid_n_features():
    # differs on purpose: no ensure_min_features; scikit-learn's minimum of one
    # feature, and as many as the estimator was fitted on
    with pytest.raises(ValueError) as raised_error:
        ITMLTransformer().fit(np.zeros((3, 0)), [0, 1, 0])
    assert str(raised_error.value) == ("Found array with 0 feature(s) (shape=(3, 0)) while a "
                                       "minimum of 1 is required by ITMLTransformer.")
    with pytest.raises(ValueError, match="X has 2 features, but ITMLTransformer is expecting "
                                         "3 features as input"):
        fitted_itml(n_features=3).transform(np.ones((2, 2)))


# ports: test_check_classic_invalid_n_samples
@pytest.mark.parametrize("points, preprocessor",
                         [(np.array([1]), X_SMALL), (X_SMALL[:1], None),
                          (X_SMALL[:1], X_SMALL)])
def test_check_classic_invalid_n_samples(points, preprocessor):
    # ITML's fit needs two samples (metric-learn's ensure_min_samples), counted
    # after the identifiers are looked up
    with pytest.raises(ValueError) as raised_error:
        ITMLTransformer(preprocessor=preprocessor).fit(points, [0])
    assert str(raised_error.value) == ("Found array with 1 sample(s) (shape=(1, 4)) while a "
                                       "minimum of 2 is required by ITMLTransformer.")


# ports: test_check_classic_invalid_dtype_not_convertible
@pytest.mark.parametrize("preprocessor, points",
                         [(mock_preprocessor, np.array([["a", "b"], ["e", "b"]])),
                          (None, np.array([[["b", "v"], ["a", "d"]],
                                           [["x", "u"], ["c", "a"]]]))])
def test_check_classic_invalid_dtype_not_convertible(preprocessor, points):
    with pytest.raises(ValueError):
        ITMLTransformer(preprocessor=preprocessor).fit(points, [0, 1])


# ports: test_check_classic_valid_with_preprocessor
@pytest.mark.parametrize("points", [
    ["img1.png", "img3.png", "img2.png"],
    np.array(["img1.png", "img3.png", "img2.png"]),
    [2, 0, 2, 1, 4, 9],
    range(10),
    np.array([2, 0, 2]),
    (2, 0, 2),
    np.array([[1.2, 2.2], [2.6, 2.3]]),
])
def test_check_classic_valid_with_preprocessor(points):
    P = no_warning(points_of, ITMLTransformer(preprocessor=mock_preprocessor), points,
                   fitting=True)
    if np.ndim(points) == 2:  # points, with or without a preprocessor
        assert P is points
        return
    assert_array_equal(P, np.ones((len(points), 3)))
    # and through a fitted estimator's transform
    itml = fitted_itml(mock_preprocessor)
    Z = no_warning(itml.transform, points)
    assert_allclose(Z, itml.transform(np.ones((len(points), 3))))


# ports: test_check_classic_valid_without_preprocessor
@pytest.mark.parametrize("points", [
    np.array([[2.5, 0.1, 2.6], [1.6, 4.8, 9.1], [5.6, 2.8, 6.1]]),
    np.array([[2, 0, 2], [1, 4, 9], [1, 5, 3]]),
    [[2, 0, 2], [1, 4, 9], [3, 4, 29]],
    ((2, 1, 0, 2, 2, 3), (1, 2, 4, 4, 9, 3), (3, 1, 4, 4, 29, 4)),
])
def test_check_classic_valid_without_preprocessor(points):
    itml = fitted_itml(n_features=np.shape(points)[1])
    Z = no_warning(itml.transform, points)
    assert_allclose(Z, np.asarray(points, dtype=float) @ itml.components_.T)


# ports: test_check_classic_by_default
@pytest.mark.parametrize("preprocessor", [None, mock_preprocessor, X_SMALL])
def test_check_classic_by_default(preprocessor):
    # a 2-D X is points, whether or not there is a preprocessor (metric-learn's
    # 'classic' default): points_of leaves it alone
    X = [[2, 3], [3, 2]]
    assert points_of(ITMLTransformer(preprocessor=preprocessor), X, fitting=True) is X


# ports: test_check_classic_behaviour_auto_dtype
def test_check_classic_behaviour_auto_dtype():
    # any identifiers through a callable; numbers only as points
    P = no_warning(points_of, ITMLTransformer(preprocessor=mock_preprocessor),
                   ["img1.png", "img2.png", "img3.png", "img5.png"], fitting=True)
    assert P.shape == (4, 3)
    no_warning(fitted_itml(n_features=2).transform, np.array([[1.0, 2.3], [2.3, 4.3]]))
    strings = np.array(["img1.png", "img2.png", "img3.png", "img5.png"]).astype(object)
    with pytest.raises(ValueError):
        ITMLTransformer().fit(strings, [0, 1, 0, 1])


# ports: test_check_classic_invalid_complex_data
@pytest.mark.parametrize("points", [
    np.array([[[1 + 2j, 3 + 4j], [5 + 7j, 5 + 7j]], [[1 + 3j, 2 + 4j], [5 + 8j, 1 + 7j]]]),
    np.array([[1 + 2j, 3 + 4j], [5 + 7j, 5 + 7j]]),
])
def test_check_classic_invalid_complex_data(points):
    with pytest.raises(ValueError) as raised_error:
        ITMLTransformer().fit(points, [0, 1])
    assert str(raised_error.value) == f"Complex data not supported\n{points}\n"


# -- preprocessors ------------------------------------------------------------------


class MockFileLoader:
    """A preprocessor that takes a root folder at construction and simulates
    fetching files in it by name."""

    def __init__(self, root):
        self.root = root
        self.folders = {"fake_root": {"img0.png": X_SMALL[0], "img1.png": X_SMALL[1],
                                      "img2.png": X_SMALL[2]},
                        "other_folder": {}}  # an empty folder

    def __call__(self, path_list):
        return np.array([self.folders[self.root][path] for path in path_list])


def mock_id_loader(list_of_indicators):
    """A preprocessor as a function: identifiers 'id<k>' to the rows of X_SMALL."""
    return np.array([X_SMALL[int(indicator[2:])] for indicator in list_of_indicators])


PREPROCESSORS = [X_SMALL, MockFileLoader("fake_root"), mock_id_loader]
PREPROCESSOR_IDS = ["array", "class-callable", "function-callable"]
TUPLES_LIST = [np.array([[0, 1], [2, 1]]),
               np.array([["img0.png", "img1.png"], ["img2.png", "img1.png"]]),
               np.array([["id0", "id1"], ["id2", "id1"]])]
POINTS_LIST = [np.array([0, 1, 2, 1]),
               np.array(["img0.png", "img1.png", "img2.png", "img1.png"]),
               np.array(["id0", "id1", "id2", "id1"])]


# ports: test_preprocessor_weakly_supervised
@pytest.mark.parametrize("estimator", TUPLE_LEARNERS, ids=TUPLE_IDS)
@pytest.mark.parametrize("preprocessor, tuples, points",
                         list(zip(PREPROCESSORS, TUPLES_LIST, POINTS_LIST)),
                         ids=PREPROCESSOR_IDS)
def test_preprocessor_weakly_supervised(estimator, preprocessor, tuples, points):
    # an array, a class callable and a function callable as the preprocessor of a
    # learner on tuples: fit, predict and transform take identifiers
    estimator = clone(estimator).set_params(preprocessor=preprocessor)
    if isinstance(estimator, PairClassifier):
        estimator.fit(tuples, [-1, 1])
        tested = tuples
    else:
        tested = np.array([[tuples[0, 0], tuples[0, 1], tuples[1, 0]]])
        estimator.fit(tested)
    assert set(estimator.predict(tested)) <= {-1, 1}
    Z = estimator.transform(points)
    assert_allclose(Z, estimator.transform(X_SMALL[[0, 1, 2, 1]]))


# ports: test_preprocessor_supervised
@pytest.mark.filterwarnings("ignore:.*join two identical points:UserWarning")
@pytest.mark.filterwarnings("ignore:.*triplet constraints have their three points:UserWarning")
@pytest.mark.parametrize("estimator", SUPERVISED_LEARNERS, ids=SUPERVISED_IDS)
@pytest.mark.parametrize("preprocessor, points", list(zip(PREPROCESSORS, POINTS_LIST)),
                         ids=PREPROCESSOR_IDS)
def test_preprocessor_supervised(estimator, preprocessor, points):
    # the same with a supervised learner, fit(X, y) with X a 1-D array of identifiers
    # (identifier 1 twice with two labels: a dissimilar pair of one point, skipped
    # with a warning)
    y_points = [0, 1, 0, 0]
    with_prep = clone(estimator).set_params(preprocessor=preprocessor).fit(points, y_points)
    without = clone(estimator).fit(X_SMALL[[0, 1, 2, 1]], y_points)
    assert_allclose(with_prep.transform(points), without.transform(X_SMALL[[0, 1, 2, 1]]))


# ports: test_preprocess_tuples_invalid_message
# ports: test_preprocess_points_invalid_message
@pytest.mark.parametrize("route", ["tuples", "points"])
def test_preprocess_invalid_output_message(route):
    # a preprocessor that returns a 3-D array instead of rows: the message says that
    # the preprocessor's output is wrong, and whose preprocessor it is (metric-learn:
    # "... expected by NCA after the preprocessor has been applied")
    def preprocessor(sequence):
        return np.ones((len(sequence), 2, 2))

    with pytest.raises(ValueError) as raised_error:
        if route == "tuples":
            PairClassifier(ITMLTransformer(), preprocessor=preprocessor).fit(
                np.array([[0, 1], [1, 2], [0, 2]]), [1, -1, 1])
        else:
            ITMLTransformer(preprocessor=preprocessor).fit(np.arange(3), [0, 1, 0])
    owner = "PairClassifier" if route == "tuples" else "ITMLTransformer"
    assert owner in str(raised_error.value)
    assert "preprocessor" in str(raised_error.value)


# ports: test_preprocessor_error_message
def test_preprocessor_error_message():
    # differs on purpose: a ValueError naming the argument and the identifier
    # (metric-learn: PreprocessorError)
    X = np.array([[1.2, 3.3], [3.1, 3.2]])
    # identifiers beyond the rows of the array
    tuples = np.array([[2, 3], [3, 3]])
    msg = "pairs: row 0 has identifier 2 outside [0, 2), the rows of the preprocessor."
    with pytest.raises(ValueError) as raised_error:
        Preprocessor(X, "PairClassifier").tuple_rows(tuples, "pairs")
    assert str(raised_error.value) == msg
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer(), preprocessor=X).fit(tuples, [1, -1])
    assert str(raised_error.value) == msg
    points = np.array([1, 2, 3, 3])
    msg = "X: position 1 has identifier 2 outside [0, 2), the rows of the preprocessor."
    with pytest.raises(ValueError) as raised_error:
        Preprocessor(X, "ITMLTransformer").rows(points, "X")
    assert str(raised_error.value) == msg
    with pytest.raises(ValueError) as raised_error:
        ITMLTransformer(preprocessor=X).fit(points, [0, 1, 0, 1])
    assert str(raised_error.value) == msg
    # a callable that fails: the message names the estimator
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer(), preprocessor=MockFileLoader("other_folder")).fit(
            TUPLES_LIST[1], [-1, 1])
    assert str(raised_error.value).startswith(
        "PairClassifier: the preprocessor raised KeyError: ")
    assert isinstance(raised_error.value.__cause__, KeyError)
    with pytest.raises(ValueError) as raised_error:
        ITMLTransformer(preprocessor=MockFileLoader("other_folder")).fit(POINTS_LIST[1],
                                                                         [0, 1, 0, 1])
    assert str(raised_error.value).startswith(
        "ITMLTransformer: the preprocessor raised KeyError: ")
    # a callable that returns a row too few
    with pytest.raises(ValueError) as raised_error:
        ITMLTransformer(preprocessor=lambda ids: X_SMALL[: len(ids) - 1]).fit(
            np.arange(3), [0, 1, 0])
    assert str(raised_error.value) == (
        "ITMLTransformer: the preprocessor returned 2 rows for 3 identifiers of X; it "
        "must return one row per identifier, in order.")


def array_likes():
    """metric-learn's array-likes as a preprocessor, and a pandas DataFrame."""
    pd = pytest.importorskip("pandas")
    return [[[5, 3], [3, 2]], ((5, 3), (3, 2)), pd.DataFrame([[5, 3], [3, 2]])]


# ports: test_array_like_indexer_array_like_valid_classic
@pytest.mark.parametrize("indices", [[0, 1], (1, 0)])
def test_array_like_indexer_array_like_valid_classic(indices):
    # any array-like as the preprocessor, and as the identifiers
    expected = np.array([[5, 3], [3, 2]], dtype=float)[list(indices)]
    for input_data in array_likes():
        assert_array_equal(points_of(ITMLTransformer(preprocessor=input_data), indices,
                                     fitting=True), expected)


# ports: test_array_like_indexer_array_like_valid_tuples
@pytest.mark.parametrize("indices", [[[0, 1], [1, 0]], ((1, 0), (1, 0))])
def test_array_like_indexer_array_like_valid_tuples(indices):
    expected = np.array([[5, 3], [3, 2]], dtype=float)[np.array(indices)]
    for input_data in array_likes():
        assert_array_equal(check_tuples(indices, 2, input_data), expected)


# ports: test_array_like_indexer_array_like_valid_tuples (identifiers as a DataFrame)
def test_dataframes_as_identifiers_and_preprocessor():
    # a DataFrame of identifier pairs, a Series of identifiers, and a callable that
    # looks keys up in a DataFrame (a database table)
    pd = pytest.importorskip("pandas")
    X, labels = iris()
    table = pd.DataFrame(X, index=[f"flower{k}" for k in range(len(X))])
    pairs, y = tuples_of(PAIR_LEARNERS[0], labels)
    keys = pd.DataFrame(table.index.to_numpy()[pairs], columns=["left", "right"])
    clf = clone(PAIR_LEARNERS[1]).set_params(
        preprocessor=lambda ids: table.loc[ids].to_numpy())
    clf.fit(keys, pd.Series(y))
    # the same pairs as points (a learner whose fit does not depend on the order of
    # its rows: see test_same_with_or_without_callable_preprocessor)
    reference = clone(PAIR_LEARNERS[1]).fit(X[pairs], y)
    assert_allclose(clf.decision_function(keys), reference.decision_function(X[pairs]))
    assert_allclose(clf.transform(pd.Series(table.index[:5])), reference.transform(X[:5]))


# ports: test_error_message_check_preprocessor
@pytest.mark.parametrize("preprocessor", [4, KNeighborsClassifier()])
def test_error_message_check_preprocessor(preprocessor):
    # differs on purpose: scikit-learn's parameter validation, at fit
    for estimator in [ITMLTransformer(), PairClassifier(ITMLTransformer()),
                      TripletClassifier(SKLRClusterer())]:
        estimator.set_params(preprocessor=preprocessor)
        with pytest.raises(InvalidParameterError) as e:
            estimator.fit(np.array([[0, 1, 2], [1, 2, 0]]), [1, -1])
        # (scikit-learn >= 1.8 says "a sparse array or matrix")
        assert re.fullmatch(
            re.escape(f"The 'preprocessor' parameter of {type(estimator).__name__} must "
                      "be an array-like, a sparse ") + r"(array or )?matrix"
            + re.escape(f", a callable or None. Got {preprocessor!r} instead."),
            str(e.value))
    # and Preprocessor itself
    with pytest.raises(ValueError) as e:
        Preprocessor(preprocessor, "ITMLTransformer")
    assert str(e.value) == (
        "ITMLTransformer: preprocessor must be an array of points (identifiers index its "
        "rows) or a callable (identifiers to rows), or None; got "
        f"{type(preprocessor).__name__}.")


# ports: test_error_message_tuple_size
@pytest.mark.parametrize("estimator", TUPLE_LEARNERS, ids=TUPLE_IDS)
def test_error_message_tuple_size(estimator):
    invalid_tuples = np.ones((2, 5, 2))
    with pytest.raises(ValueError) as raised_err:
        fit_on(clone(estimator), invalid_tuples,
               [1, 1] if isinstance(estimator, PairClassifier) else None)
    name, size = (("pairs", 2) if isinstance(estimator, PairClassifier)
                  else ("triplets", 3))
    assert str(raised_err.value) == (f"{name}: tuples of {size} points expected; got tuples "
                                     "of 5 (shape (2, 5, 2)).")


# ports: test_error_message_t_pair_distance_or_score
@pytest.mark.parametrize("estimator", TUPLE_LEARNERS + SUPERVISED_LEARNERS,
                         ids=TUPLE_IDS + SUPERVISED_IDS)
def test_error_message_t_pair_distance_or_score(estimator):
    triplets = np.array([[[1.3, 6.3], [3.0, 6.8], [6.5, 4.4]],
                         [[1.9, 5.3], [1.0, 7.8], [3.2, 1.2]]])
    # differs on purpose: the estimator must be fitted first (metric-learn checks the
    # tuples of an unfitted one)
    with pytest.raises(NotFittedError):
        clone(estimator).pair_score(triplets)
    # points with two features, as the triplets (random: no two coincide)
    X = np.random.RandomState(SEED).randn(150, 2)
    labels = np.arange(150) % 3
    if isinstance(estimator, PairClassifier | TripletClassifier):
        tuples, y = tuples_of(estimator, labels)
        estimator = fit_on(clone(estimator), X[tuples], y)
    else:
        estimator = clone(estimator).fit(X, labels)
    msg = "pairs: tuples of 2 points expected; got tuples of 3 (shape (2, 3, 2))."
    for method in (estimator.pair_score, estimator.pair_distance):
        with pytest.raises(ValueError) as raised_err:
            method(triplets)
        assert str(raised_err.value) == msg


# ports: test_preprocess_tuples_simple_example
def test_preprocess_tuples_simple_example():
    # differs on purpose: a callable is called once, on the distinct identifiers
    # (metric-learn: once per column of the tuples), so that each point is loaded once
    array = np.array([[1, 2], [2, 3], [4, 5]])
    rows = {k: [k, k] for k in range(1, 6)}
    calls = []

    def fun(ids):
        calls.append(list(ids))
        return np.array([rows[k] for k in ids])

    expected = np.array([[[1, 1], [2, 2]], [[2, 2], [3, 3]], [[4, 4], [5, 5]]])
    assert_array_equal(check_tuples(array, 2, fun), expected)
    assert calls == [[1, 2, 3, 4, 5]]

    # metric-learn's fun, three rows whatever it is given, returns too few rows for the
    # five distinct identifiers
    def fixed(ids):
        return np.array([[1, 1], [3, 3], [4, 4]])

    with pytest.raises(ValueError) as raised_error:
        check_tuples(array, 2, fixed, owner="PairClassifier")
    assert str(raised_error.value) == (
        "PairClassifier: the preprocessor returned 3 rows for 5 identifiers of pairs; it "
        "must return one row per identifier, in order.")


# ports: test_preprocess_points_simple_example
def test_preprocess_points_simple_example():
    array = np.array([1, 2, 4])

    def fun(row):
        return [[1, 1], [3, 3], [4, 4]]

    P = points_of(ITMLTransformer(preprocessor=fun), array, fitting=True)
    assert_array_equal(P, np.array([[1, 1], [3, 3], [4, 4]]))
    assert P.dtype == np.float64


# -- the same with or without a preprocessor ---------------------------------------


def assert_same_outputs(with_prep, with_inputs, without, without_inputs):
    """Every prediction method gives the same outputs on identifiers through the
    preprocessor (``with_prep``) as on the points themselves (``without``);
    ``*_inputs``: (tuples, pairs, points)."""
    def same(method, argument):
        k = ["tuples", "pairs", "points"].index(argument)
        out, expected = (getattr(with_prep, method)(with_inputs[k]),
                         getattr(without, method)(without_inputs[k]))
        if method == "predict":
            assert_array_equal(out, expected)
        else:  # (up to rounding: an array's identifiers read the fit's embedding)
            assert_allclose(out, expected, rtol=1e-12, atol=1e-12)

    same("predict", "tuples")
    same("decision_function", "tuples")
    same("pair_score", "pairs")
    same("pair_distance", "pairs")
    same("transform", "points")


def held_out_tuples(n_points, size):
    """30 random tuples of distinct rows among ``n_points``."""
    rng = np.random.RandomState(SEED)
    return np.array([rng.choice(n_points, size=size, replace=False) for _ in range(30)])


# ports: test_same_with_or_without_preprocessor
@pytest.mark.parametrize("kind", ["array", "callable"])
@pytest.mark.parametrize("estimator", TUPLE_LEARNERS, ids=TUPLE_IDS)
def test_same_with_or_without_preprocessor(estimator, kind):
    # the preprocessor holds the points the tuples use, in the order the point form
    # takes them (its distinct rows, sorted): fitted on identifiers or on points,
    # the learner is the same
    X, labels = iris()
    tuples, y = tuples_of(estimator, labels)
    P = X[tuples]
    U, inverse = np.unique(P.reshape(-1, X.shape[1]), axis=0, return_inverse=True)
    ids = inverse.reshape(tuples.shape)
    preprocessor = U if kind == "array" else RowLoader(U)
    with_prep = fit_on(clone(estimator).set_params(preprocessor=preprocessor), ids, y)
    without = fit_on(clone(estimator), P, y)
    test = held_out_tuples(len(U), ids.shape[1])
    inputs = (test, test[:, :2], test[:, 0])
    formed = (U[test], U[test[:, :2]], U[test[:, 0]])
    assert_same_outputs(with_prep, inputs, without, formed)
    # and the learner fitted with the preprocessor takes points as well
    assert_same_outputs(with_prep, inputs, with_prep, formed)


# ports: test_same_with_or_without_preprocessor (an array of more points than the tuples')
@pytest.mark.parametrize("estimator", TUPLE_LEARNERS, ids=TUPLE_IDS)
def test_same_with_or_without_preprocessor_whole_array(estimator):
    # differs on purpose: with an array preprocessor the inner learner is fitted on
    # every row of the array (the papers' transductive setting: points in no tuple
    # still shape the initial kernel), so it is not the learner fitted on the point
    # tuples (metric-learn: the tuples' points only).  The learner fitted on
    # identifiers takes identifiers and points alike (metric-learn's
    # estimator_with_prep_formed).
    X, labels = iris()
    tuples, y = tuples_of(estimator, labels)
    args = (tuples, y) if y is not None else (tuples,)
    split = train_test_split(*args, random_state=SEED)
    train, test = split[0], split[1]
    y_train = split[2] if y is not None else None
    with_prep = fit_on(clone(estimator).set_params(preprocessor=X), train, y_train)
    with_prep_formed = fit_on(clone(estimator).set_params(preprocessor=X), train, y_train)
    points = test[:, 0]
    assert_same_outputs(with_prep, (test, test[:, :2], points),
                        with_prep_formed, (X[test], X[test[:, :2]], X[points]))


# ports: test_same_with_or_without_preprocessor (identifiers in any order)
@pytest.mark.parametrize("estimator", [
    TUPLE_LEARNERS[0],
    TUPLE_LEARNERS[1],
    TUPLE_LEARNERS[2],
    TUPLE_LEARNERS[3],
], ids=TUPLE_IDS)
def test_same_with_or_without_callable_preprocessor(estimator):
    # metric-learn's setting: identifiers are the row numbers of a shuffled data set,
    # looked up by a callable (which, unlike an array, fits on the tuples' points only)
    X, labels = iris()
    tuples, y = tuples_of(estimator, labels)
    args = (tuples, y) if y is not None else (tuples,)
    split = train_test_split(*args, random_state=SEED)
    train, test = split[0], split[1]
    y_train = split[2] if y is not None else None
    with_prep = fit_on(clone(estimator).set_params(preprocessor=RowLoader(X)), train,
                       y_train)
    without = fit_on(clone(estimator), X[train], y_train)
    points = test[:, 0]
    assert_same_outputs(with_prep, (test, test[:, :2], points),
                        without, (X[test], X[test[:, :2]], X[points]))


# ports: test_same_with_or_without_preprocessor (its supervised learners)
@pytest.mark.parametrize("kind", ["array", "callable"])
@pytest.mark.parametrize("estimator", SUPERVISED_LEARNERS, ids=SUPERVISED_IDS)
def test_same_with_or_without_preprocessor_supervised(estimator, kind):
    # fit(X, y) with X a 1-D array of identifiers is fit on their rows
    X, labels = iris()
    indices = shuffle(np.arange(len(X)), random_state=SEED)[:100]
    preprocessor = X if kind == "array" else RowLoader(X)
    with_prep = clone(estimator).set_params(preprocessor=preprocessor).fit(
        indices, labels[indices])
    without = clone(estimator).fit(X[indices], labels[indices])
    pairs = np.array([[0, 2], [5, 3], [7, 1]])
    assert_allclose(with_prep.pair_score(pairs), without.pair_score(X[pairs]))
    assert_allclose(with_prep.pair_distance(pairs), without.pair_distance(X[pairs]))
    assert_allclose(with_prep.transform(indices), without.transform(X[indices]))
    assert_allclose(with_prep.transform(X[indices]), without.transform(X[indices]))


# -- collapsed pairs, labels of pairs -----------------------------------------------


# ports: test_check_collapsed_pairs_raises_no_error
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_check_collapsed_pairs_raises_no_error(estimator):
    pairs_ok = np.array([[[0.1, 3.3], [3.3, 0.1]],
                         [[0.1, 3.3], [3.3, 0.1]],
                         [[2.5, 8.1], [0.1, 3.3]]])
    clf = clone(estimator).fit(pairs_ok, [1, 1, -1])
    assert set(clf.predict(pairs_ok)) <= {-1, 1}


# ports: test_check_collapsed_pairs_raises_error
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_check_collapsed_pairs_raises_error(estimator):
    # differs on purpose: metric-learn's check_collapsed_pairs counts the collapsed
    # pairs in an error that no learner raises (its learners take them); here fit
    # takes them too, and counts them in a warning: they are skipped as zero-length
    # pairs, and a dissimilar one, which no metric can meet, leaves the learner
    # unconverged with a ConvergenceWarning (tests/test_self_tuples.py)
    pairs_not_ok = np.array([[[0.1, 3.3], [0.1, 3.3]],
                             [[0.1, 3.3], [3.3, 0.1]],
                             [[2.5, 8.1], [2.5, 8.1]]])
    with pytest.warns(UserWarning, match="2 of 3 constraints join two identical points"):
        clf = clone(estimator).fit(pairs_not_ok, [1, 1, 1])
    assert set(clf.predict(pairs_not_ok)) <= {-1, 1}
    # the same pairs by identifier, a dissimilar one among them: ITML's bounds
    # (percentiles of the points' distances) are positive, which it cannot meet;
    # the LogDet learner's (bounds='relative': (1 + epsilon) times its distance, 0)
    # hold
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = clone(estimator).set_params(preprocessor=pairs_not_ok[:, 0]).fit(
            np.array([[0, 2], [1, 1]]), [1, -1])
    messages = [str(w.message) for w in caught]
    assert any("1 of 2 constraints join two identical points" in m for m in messages)
    unmet = any("1 of 2 constraints cannot be met" in m for m in messages)
    assert unmet is (clf.estimator_.bounds == "percentile") is (not clf.estimator_.converged_)


# differs on purpose: 1 / 0 labels (scikit-learn's LabelEncoder encoding, which
# cross_val_predict passes) are accepted in place of +1 / -1 (issue 28); labels mixing
# the two encodings stand in for metric-learn's random 0 / 1 labels
WRONG_LABELS = [[0.5, 0.6, 0.7, 0.8, 0.9],
                np.random.RandomState(42).randn(5),
                np.array([0, 1, -1, 1, 0])]
LABELS_MSG = "y must hold +1 (similar) and -1 (dissimilar) for each pair; got "
LABELS_NOTE = (" 1 and 0 are accepted in place of +1 and -1 (the encoding scikit-learn's "
               "cross_val_predict passes), but not -1 and 0 together.")


# ports: test_check_y_valid_values_for_pairs
@pytest.mark.parametrize("wrong_labels", WRONG_LABELS)
def test_check_y_valid_values_for_pairs(wrong_labels):
    with pytest.raises(ValueError) as raised_error:
        check_pair_labels(wrong_labels, 5)
    # differs on purpose: the message lists the values found
    values = np.unique(np.asarray(wrong_labels).astype(str)).tolist()[:5]
    assert str(raised_error.value) == f"{LABELS_MSG}{values}.{LABELS_NOTE}"


# ports: test_check_input_invalid_tuples_without_preprocessor
@pytest.mark.parametrize("wrong_labels", WRONG_LABELS)
def test_check_input_invalid_tuples_without_preprocessor(wrong_labels):
    pairs = np.random.RandomState(42).randn(5, 2, 3)
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer()).fit(pairs, wrong_labels)
    assert str(raised_error.value).startswith(LABELS_MSG)


# ports: test_check_input_invalid_tuples_with_preprocessor
@pytest.mark.parametrize("wrong_labels", WRONG_LABELS)
def test_check_input_invalid_tuples_with_preprocessor(wrong_labels):
    rng = np.random.RandomState(42)
    pairs = rng.randint(10, size=(5, 2))
    preprocessor = rng.randn(10, 4)
    with pytest.raises(ValueError) as raised_error:
        PairClassifier(ITMLTransformer(), preprocessor=preprocessor).fit(pairs, wrong_labels)
    assert str(raised_error.value).startswith(LABELS_MSG)


# ports: test_check_input_pairs_learners_invalid_y
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_check_input_pairs_learners_invalid_y(estimator, with_preprocessor):
    # the only labels for learning pairs are +1 and -1
    X, labels = iris()
    pairs, y = tuples_of(estimator, labels)
    model = clone(estimator)
    if with_preprocessor:
        model.set_params(preprocessor=X)
    else:
        pairs = X[pairs]
    wrong_labels_list = [y + 0.5, np.random.RandomState(42).randn(len(y)),
                         np.where(np.arange(len(y)) % 3 == 0, 0, y)]  # -1 and 0 mixed
    for wrong_labels in wrong_labels_list:
        with pytest.raises(ValueError) as raised_error:
            model.fit(pairs, wrong_labels)
        assert str(raised_error.value).startswith(LABELS_MSG)


# -- get_metric's points, priors, rank ----------------------------------------------


# ports: test__validate_vector
def test__validate_vector():
    # validate_vector's counterpart: the point check of get_metric's function
    X, labels = iris()
    metric = ITMLTransformer(max_iter=2, random_state=SEED).fit(X[:, :3], labels).get_metric()
    zero = np.zeros(3)
    assert metric([1, 2, 3], zero) == metric(np.array([1.0, 2.0, 3.0]), zero)
    assert metric((1, 2, 3), zero) == metric([1, 2, 3], zero)
    # differs on purpose: only 1-D points of n_features values (validate_vector
    # squeezes a scalar or an array of shape (1, n, 1) to 1-D)
    for u, shape in [(1, "()"), (np.arange(3).reshape(1, -1, 1), "(1, 3, 1)"),
                     ([[1, 2], [3, 4]], "(2, 2)")]:
        with pytest.raises(ValueError) as e:
            metric(u, zero)
        assert str(e.value) == (
            f"ITMLTransformer.get_metric(): the metric takes two 1-D points; u has shape "
            f"{shape}. For many points use pair_distance, or transform and a pairwise "
            "distance.")
    with pytest.raises(ValueError) as e:
        metric([1], zero)
    assert str(e.value) == ("ITMLTransformer.get_metric(): u has 1 features, but the "
                            "estimator was fitted on 3.")


# the eigenvalues of metric-learn's _check_sdp_from_eigen tests, as the eigenvalues of
# an ITML prior (diagonal): ITML's LogDet divergence needs a positive definite,
# well-conditioned prior (metric-learn's ITML: a strictly positive definite one)
NOT_PD = "prior must be positive definite: its smallest eigenvalue is"
SINGULAR = "prior is numerically singular: its eigenvalues range from"


def fit_with_prior(w):
    rng = np.random.RandomState(SEED)
    return ITMLTransformer(prior=np.diag(w), max_iter=2, random_state=SEED).fit(
        rng.randn(30, len(w)), np.arange(30) % 3)


# ports: test__check_sdp_from_eigen_positive_eigenvalues
# ports: test__check_sdp_from_eigen_tol_default_non_psd
@pytest.mark.parametrize("w", [[-1.2, 5.5, 6.6], [-1.2, -5.6], [1.0, -1.0],
                               [-1e-10, 1e-10]])
def test_prior_with_negative_eigenvalues_is_refused(w):
    with pytest.raises(ValueError, match=NOT_PD):
        fit_with_prior(w)


# ports: test__check_sdp_from_eigen_negative_eigenvalues
# ports: test__check_sdp_from_eigen_returns_definiteness
# ports: test__check_sdp_from_eigen_tol_default_psd
@pytest.mark.parametrize("w, definite", [
    ([0.0, 2.3, 5.3], False), ([1e-20, 3.5], False), ([1.5, 2.4, 4.6], True),
    ([1e-15, 5.6], False), ([-1e-15, 5.6], False), ([3.2, 5.6, 0.01], True),
    ([1e5] * 6 + [1e-20], False), ([1e-10, 1e-10], True)])
def test_prior_must_be_definite(w, definite):
    # differs on purpose: a semi-definite prior (metric-learn: valid, "not definite") is
    # refused, ITML's LogDet divergence needs its inverse
    if definite:
        assert_allclose(fit_with_prior(w).prior_, np.diag(w))
        return
    with pytest.raises(ValueError, match=NOT_PD if min(w) <= 0 else SINGULAR):
        fit_with_prior(w)


# ports: test__check_n_components
def test__check_n_components():
    # metric-learn's n_components is the kernel learners' rank
    X = np.random.RandomState(SEED).randn(50, 3)
    labels = np.arange(50) % 3

    def rank_of(rank):
        return LogDetKernelLearner(kernel="linear", rank=rank, max_iter=2,
                                   random_state=SEED).fit(X, labels)

    assert rank_of(None).components_.shape == (3, 3)
    assert rank_of(2).components_.shape == (2, 3)
    with pytest.raises(ValueError) as e:
        rank_of(10)
    assert str(e.value) == ("rank=10 is larger than the data allows: at most "
                            "min(n_samples, n_features) = 3.")
    with pytest.raises(InvalidParameterError) as e:
        rank_of(0)
    assert str(e.value) == ("The 'rank' parameter of LogDetKernelLearner must be an int in "
                            "the range [1, inf) or None. Got 0 instead.")
