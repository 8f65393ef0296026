"""Every error a user can trigger is the package's own, naming the argument.

Project issue 34, item 5.  Every public method of every public estimator of
``sklearn_bregman.__all__`` (``fit``, ``partial_fit``, ``transform``,
``predict``, ``fit_transform``, ``fit_predict``, ``decision_function``,
``score``, ``pair_distance``, ``pair_score``, ``get_metric()(u, v)``,
``learned_kernel``, ``calibrate_threshold``, ``set_threshold``; the
``split`` of ``PairKFold``, the scorers' calls) is called with classes of
bad input, one argument at a time: NaN / inf, empty arrays, the wrong number
of dimensions (1-D for 2-D and the reverse, 3-D), the wrong number of
features after ``fit``, strings and object arrays of non-numbers, complex
numbers, a dict, ``None`` where an array is required, a ragged list, a
sparse matrix where only a dense one is taken (``kernel='precomputed'``),
``y`` of the wrong length, identifiers out of range, a ``preprocessor`` of
another type.  Each call must raise, and the exception must be

- a ``ValueError`` or ``TypeError`` (``NotFittedError``, a ValueError, for
  a method of an estimator not fitted yet);
- raised by the package: the innermost frame of its traceback (where the
  ``raise`` ran) is a file of ``src/sklearn_bregman`` — not NumPy, SciPy,
  pandas or scikit-learn internals — and its message names the argument
  (``X``, ``y``, ``pairs``, ``triplets``, ``constraints``, ``preprocessor``,
  ``u``, ``threshold`` ...) as a word;
- or one of scikit-learn's *validation* errors, accepted as naming the
  argument (:func:`accepted_validation_message` holds the list): raised in
  ``sklearn/utils/validation.py`` (``validate_data``, ``check_array``,
  ``check_X_y``, ``column_or_1d``, ``check_is_fitted``) or
  ``sklearn/utils/_param_validation.py`` (the ``InvalidParameterError`` of
  ``_parameter_constraints``), with

  * a message that names the argument as a word: "Input X contains NaN.",
    "Input y contains infinity", "X has 3 features, but ITMLTransformer is
    expecting 4 features as input.", "y should be a 1d array, got an array
    of shape (30, 2) instead.", "The 'preprocessor' parameter of ... must
    be ...";
  * or, for the array ``validate_data`` is given (the method's data
    argument: ``X``, the ``Y`` of ``learned_kernel``, the ``C`` of
    ``NearestCorrelation.fit``), the wording scikit-learn's own
    ``check_estimator`` requires of every estimator for that array:
    "Expected 2D array, got 1D array instead", "... got scalar array
    instead", "Found array with dim 3", "Found array with 0 sample(s)",
    "Found array with 0 feature(s)", "Complex data not supported";
  * or, for ``pairs`` and ``triplets`` of complex numbers, "Complex data
    not supported" followed by the points: metric-learn's message, which
    ``tests/metric_learn/test_utils.py`` pins to the character (code
    written for metric-learn may match it);
  * or, for ``y`` of the wrong length given with ``X``: "Found input
    variables with inconsistent numbers of samples";
  * or "This ... instance is not fitted yet" (a method before ``fit``).

  A conversion error of NumPy surfacing through ``validate_data`` ("could
  not convert string to float: 'a'", "float() argument must be a string or
  a real number, not 'dict'") names nothing, and is not accepted.

A failed call also leaves the estimator as it was (methods change state only
by rebinding attributes; ``fit`` is all or nothing): the fitted estimator's
attributes are compared before and after.

Then the three reproductions of the issue, as their own tests: SKLR's
``predict`` / ``transform`` on sparse rows after a dense fit (and the
reverse), in every sparse format; a ``preprocessor`` that is not an array of
rows, a sparse matrix or a callable, refused at ``fit`` by every estimator
that takes one; CSI's ``fit`` with a sparse ``y``, the model of its dense
copy.  And a hypothesis test: arbitrary arrays (any dtype, 0 to 3
dimensions, NaN and inf among the values) to the methods of fitted
estimators get a result of the right shape or a clean error.
"""

import copy
import os
import re
import time
import tracemalloc
import warnings
from dataclasses import dataclass, field

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.preprocessing import StandardScaler

import sklearn_bregman
from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    NearestCorrelation,
    PairClassifier,
    PairKFold,
    QuadrupletClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
    kernel_kmeans_scorer,
    knn_scorer,
)
from sklearn_bregman._factors import _factors as factors_module
from sklearn_bregman._learners import _definiteboost as definiteboost_module
from sklearn_bregman._learners import _itml as itml_module
from sklearn_bregman._utils._warnings import SklearnBregmanWarning
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

PACKAGE = os.path.dirname(os.path.abspath(sklearn_bregman.__file__)) + os.sep
_SKLEARN = os.path.dirname(os.path.abspath(__import__("sklearn").__file__)) + os.sep
SKLEARN_VALIDATION = (os.path.join(_SKLEARN, "utils", "validation.py"),
                      os.path.join(_SKLEARN, "utils", "_param_validation.py"))

N, D = 30, 4


# --------------------------------------------------------------------------- #
# The data every case starts from (good values of every argument)
# --------------------------------------------------------------------------- #


def _good():
    X, y = make_blobs(N, D, centers=3, cluster_std=0.6, random_state=0)
    X = StandardScaler().fit_transform(X)
    pc = pairs_from_labels(y, 40, random_state=0)
    constraints = np.column_stack([pc.i, pc.j, pc.sign]).astype(np.intp)
    triplets = np.asarray(triplets_from_labels(y, 20, random_state=0))
    # a similar pair beside a dissimilar one: d(a, b) < d(c, d)
    quadruplets = np.hstack([constraints[constraints[:, 2] > 0, :2][:10],
                             constraints[constraints[:, 2] < 0, :2][:10]])
    K = X @ X.T + np.eye(N)
    rng = np.random.RandomState(0)
    F = rng.randn(12, 3)
    C = F @ F.T + np.eye(12)
    d = np.sqrt(np.diag(C))
    return dict(
        X=X, y=y, constraints=constraints, triplets=triplets,
        pairs=X[constraints[:, :2]], pair_labels=constraints[:, 2].astype(int),
        id_pairs=constraints[:, :2].copy(),
        point_triplets=X[triplets], ids=np.arange(N),
        quadruplets=quadruplets, point_quadruplets=X[quadruplets],
        u=X[0].copy(), v=X[1].copy(), threshold=-1.0, K=K, K_test=K[:5].copy(),
        C=C / np.outer(d, d), responses=X[:, :2] @ [1.0, -2.0],
        sample_weight=np.ones(len(constraints)),
    )


GOOD = _good()


# --------------------------------------------------------------------------- #
# Classes of bad values, by the kind of argument
# --------------------------------------------------------------------------- #


def _with(a, index, value, dtype=float):
    a = np.array(a, dtype=dtype, copy=True)
    a[index] = value
    return a


def _objects(shape, value):
    a = np.empty(shape, dtype=object)
    a.fill(value)
    return a


def _common(good):
    """Bad values of any array argument: not arrays at all."""
    return {
        "dict": {"a": good},
        "None": None,
        "string": "abc",
        "set": {1.0, 2.0},
    }


def bad_points(good, fitted):
    """Bad values of a 2-D array of points (X, Y)."""
    n, d = good.shape
    out = {
        **_common(good),
        "nan": _with(good, (0, 0), np.nan),
        "inf": _with(good, (1, 1), np.inf),
        "empty": good[:0],
        "no_features": good[:, :0],
        "1d": good[:, 0].copy(),
        "scalar": 1.5,
        "3d": good[:, :, None],
        "strings": np.full((n, d), "a"),
        "object_none": _objects((n, d), None),
        "object_dict": _objects((n, d), {"a": 1}),
        "complex": good + 1j,
        # (complex numbers NumPy's conversion fails on before any dtype shows them)
        "complex_object": (good + 1j).astype(object),
        "complex_list": (good + 1j).tolist(),
        "ragged": [[1.0, 2.0], [3.0]],
        "list_of_dicts": [{"a": 1}] * n,
    }
    if fitted:
        out["fewer_features"] = good[:, :-1]
        out["more_features"] = np.hstack([good, good[:, :1]])
    return out


def bad_identifiers(good, fitted):
    """Bad values of a 1-D array of identifiers into an array preprocessor."""
    return {
        "out_of_range": _with(good, 0, N, dtype=np.intp),
        "negative": _with(good, 0, -N - 1, dtype=np.intp),
        "non_integral": _with(good, 0, 0.5),
        "nan": _with(good, 0, np.nan),
        "strings": np.full(good.shape, "a"),
        "complex": good + 1j,
        "empty": good[:0],
        "object_dict": _objects(good.shape, {"a": 1}),
        "dict": {"a": good},
    }


def bad_labels(good, fitted):
    """Bad values of class labels ``y`` (one per sample)."""
    n = good.shape[0]
    return {
        "dict": {"a": good},
        "string": "abc",
        "short": good[:-1],
        "long": np.r_[good, good[:1]],
        "two_columns": np.column_stack([good, good]),
        "3d": good[:, None, None],
        "nan": _with(good, 0, np.nan),
        "inf": _with(good, 0, np.inf),
        "complex": good + 1j,
        "object_dict": _objects(n, {"a": 1}),
        "sparse_two_columns": sp.csr_matrix(np.column_stack([good, good]).astype(float)),
    }


def bad_responses(good, fitted):
    """Bad values of CSI's ``y``: responses or labels."""
    n = good.shape[0]
    return {
        "dict": {"a": good},
        "string": "abc",
        "short": good[:-1],
        "3d": good[:, None, None],
        "nan": _with(good, 0, np.nan),
        "inf": _with(good, 0, np.inf),
        "complex": good + 1j,
        "object_dict": _objects(n, {"a": 1}),
        "sparse_nan": sp.csr_matrix(_with(good[:, None], (0, 0), np.nan)),
        "sparse_short": sp.csr_matrix(good[:-1, None]),
    }


def bad_index_tuples(good, fitted, t):
    """Bad values of (n, t) integer index tuples (constraints, triplets)."""
    out = {
        **_common(good),
        "nan": _with(good, (0, 0), np.nan),
        "non_integral": _with(good, (0, 0), 0.5),
        "out_of_range": _with(good, (0, 0), N, dtype=np.intp),
        "negative": _with(good, (0, 1), -1, dtype=np.intp),
        # (a repeated point, a pair (i, i), is a valid tuple: tests/test_self_tuples.py)
        "empty": good[:0],
        "two_columns": good[:, :2],
        "five_columns": np.hstack([good, good[:, :2]]),
        "1d": good[:, 0].copy(),
        "3d": good[:, :, None],
        "scalar": 3,
        "strings": np.full(good.shape, "a"),
        "complex": good + 1j,
        "object_dict": _objects(good.shape, {"a": 1}),
        "ragged": [[0, 1, 1], [2, 3]],
    }
    if t == 3 and good.shape[1] == 3 and good[:, 2].max() <= 1:  # constraints: i, j, sign
        out["bad_sign"] = _with(good, (0, 2), 2, dtype=np.intp)
    return out


def bad_point_tuples(good, fitted):
    """Bad values of point tuples (n, t, n_features)."""
    n, t, d = good.shape
    out = {
        **_common(good),
        "nan": _with(good, (0, 0, 0), np.nan),
        "inf": _with(good, (0, 1, 0), -np.inf),
        "empty": good[:0],
        "no_features": good[:, :, :0],
        "points_2d": good[:, 0],
        "one_tuple_2d": good[0],
        "1d": good[:, 0, 0].copy(),
        "4d": good[..., None],
        "scalar": 2.0,
        "wrong_t": np.concatenate([good, good[:, :1]], axis=1),
        "strings": np.full(good.shape, "a"),
        "object_dict": _objects(good.shape, {"a": 1}),
        "complex": good + 1j,
        "complex_object": (good + 1j).astype(object),
        "ragged": [[[1.0, 2.0], [3.0]]],
        "index_tuples_without_preprocessor": np.zeros((n, t), dtype=int),
    }
    if fitted:
        out["fewer_features"] = good[:, :, :-1]
    return out


def bad_id_tuples(good, fitted):
    """Bad values of identifier tuples (n, t) into an array preprocessor."""
    return {
        "out_of_range": _with(good, (0, 0), N, dtype=np.intp),
        "non_integral": _with(good, (0, 0), 0.5),
        "nan": _with(good, (0, 0), np.nan),
        "strings": np.full(good.shape, "a"),
        "complex": good + 1j,
        "empty": good[:0],
        "wrong_t": np.hstack([good, good[:, :1]]),
        "dict": {"a": good},
    }


def bad_tuple_labels(good, fitted):
    """Bad values of pair (or triplet) labels, +1 / -1."""
    return {
        "dict": {"a": good},
        "string": "abc",
        "short": good[:-1],
        "long": np.r_[good, good[:1]],
        "two_columns": np.column_stack([good, good]),
        "nan": _with(good, 0, np.nan),
        "other_values": _with(good, 0, 2, dtype=int),
        "minus_one_and_zero": _with(_with(good, 0, 0, dtype=int), 1, -1, dtype=int),
        "strings": np.full(good.shape, "a"),
        "complex": good + 1j,
    }


def bad_point(good, fitted):
    """Bad values of one point of ``get_metric()(u, v)``."""
    return {
        **_common(good),
        "nan": _with(good, 0, np.nan),
        "inf": _with(good, 0, np.inf),
        "2d": good[None],
        "fewer_features": good[:-1],
        "empty": good[:0],
        "scalar": 1.0,
        "strings": np.full(good.shape, "a"),
        "complex": good + 1j,
        "complex_object": (good + 1j).astype(object),
        "object_dict": _objects(good.shape, {"a": 1}),
    }


def bad_threshold(good, fitted):
    return {
        "nan": np.nan,
        "inf": np.inf,
        "string": "abc",
        "dict": {"a": 1.0},
        "None": None,
        "complex": 1 + 1j,
        "array": np.ones(3),
    }


def bad_sample_weight(good, fitted):
    return {
        "short": good[:-1],
        "nan": _with(good, 0, np.nan),
        "strings": np.full(good.shape, "a"),
        "dict": {"a": good},
        "2d": good[:, None, None],
    }


def bad_kernel_matrix(good, fitted):
    """Bad values of a precomputed kernel (fit: n x n; later: n_test x n_train)."""
    out = {
        "sparse": sp.csr_matrix(good),
        "nan": _with(good, (0, 0), np.nan),
        "1d": good[0].copy(),
        "dict": {"a": good},
    }
    if fitted:
        out["wrong_columns"] = good[:, :-1]
    else:
        out["not_square"] = good[:, :-1]
        out["not_symmetric"] = _with(good, (0, 1), good[0, 1] + 1.0)
    return out


def bad_matrix(good, fitted):
    """Bad values of NearestCorrelation's C."""
    return {
        **_common(good),
        "nan": _with(good, (0, 0), np.nan),
        "inf": _with(good, (0, 1), np.inf),
        "empty": good[:0, :0],
        "1d": good[0].copy(),
        "3d": good[:, :, None],
        "not_square": good[:, :-1],
        "not_symmetric": _with(good, (0, 1), good[0, 1] + 0.5),
        "strings": np.full(good.shape, "a"),
        "complex": good + 1j,
        "sparse": sp.csr_matrix(good),
    }


def bad_preprocessor(good, fitted):
    """Preprocessors that are neither rows, a sparse matrix nor a callable."""
    return {
        "dict": {0: good[0]},
        "string": "rows.npy",
        "scalar": 3,
        "set": {1, 2},
        "generator": (row for row in good),
        "1d": good[:, 0].copy(),
        "3d": good[:, :, None],
    }


def bad_split_pairs(good, fitted):
    """Bad values of the pairs PairKFold splits: the shapes and types of
    :func:`bad_point_tuples` (a splitter reads no values: NaN, strings are
    points like any other; index pairs are its other form; it splits tuples
    of any size, so three points per tuple is a triplet)."""
    out = bad_point_tuples(good, fitted)
    for valid in ("nan", "inf", "strings", "object_dict", "complex", "complex_object",
                  "index_tuples_without_preprocessor", "fewer_features", "wrong_t"):
        out.pop(valid, None)
    out["one_point_tuples"] = good[:, :1]
    return out


KINDS = {
    "split_pairs": bad_split_pairs,
    "points": bad_points, "identifiers": bad_identifiers, "labels": bad_labels,
    "responses": bad_responses, "constraints": lambda g, f: bad_index_tuples(g, f, 3),
    "index_triplets": lambda g, f: bad_index_tuples(g, f, 3),
    "index_quadruplets": lambda g, f: bad_index_tuples(g, f, 4),
    "point_tuples": bad_point_tuples, "id_tuples": bad_id_tuples,
    "tuple_labels": bad_tuple_labels, "point": bad_point, "threshold": bad_threshold,
    "sample_weight": bad_sample_weight, "kernel_matrix": bad_kernel_matrix,
    "matrix": bad_matrix, "preprocessor": bad_preprocessor,
}


# --------------------------------------------------------------------------- #
# The estimators and their methods
# --------------------------------------------------------------------------- #


@dataclass
class Method:
    """A public method and how to call it: ``call(estimator, args)`` with
    ``args`` the good values of every argument (a dict), one of them replaced
    by a bad value.  ``arguments`` maps each argument the method takes to
    (the key of its good value in GOOD, the kind of its bad values)."""

    name: str
    call: object
    arguments: dict
    fitted: bool = True
    data_argument: str = "X"
    #: arguments for which None is a valid value (not a bad one)
    optional: tuple = ()


@dataclass
class Spec:
    """A public estimator in one configuration, and its methods."""

    name: str
    make: object
    fit: object  # fits make() on the good data
    methods: list = field(default_factory=list)


def _metric(est, a):
    return est.get_metric()(a["u"], a["v"])


def _transform(key="X", kind="points"):
    return Method("transform", lambda e, a: e.transform(a["X"]), {"X": (key, kind)})


def _metric_surface(pairs_key="pairs", pairs_kind="point_tuples"):
    return [
        Method("pair_distance", lambda e, a: e.pair_distance(a["pairs"]),
               {"pairs": (pairs_key, pairs_kind)}),
        Method("pair_score", lambda e, a: e.pair_score(a["pairs"]),
               {"pairs": (pairs_key, pairs_kind)}),
        Method("get_metric()", _metric, {"u": ("u", "point"), "v": ("v", "point")}),
    ]


def _pair_learner(name, make, labels_kind="labels", kernel=True, triplets=False,
                  quadruplets=False):
    g = GOOD
    methods = [
        Method("fit", lambda e, a: e.fit(a["X"], a["y"]),
               {"X": ("X", "points"), "y": ("y", labels_kind)}, fitted=False),
        Method("fit(constraints)", lambda e, a: e.fit(a["X"], constraints=a["constraints"]),
               {"constraints": ("constraints", "constraints")}, fitted=False),
        Method("partial_fit", lambda e, a: e.partial_fit(a["X"], a["y"]),
               {"X": ("X", "points"), "y": ("y", labels_kind)}, fitted=False),
        Method("partial_fit(fitted)", lambda e, a: e.partial_fit(a["X"], a["y"]),
               {"X": ("X", "points"), "y": ("y", labels_kind)}),
        Method("fit_transform", lambda e, a: e.fit_transform(a["X"], a["y"]),
               {"X": ("X", "points"), "y": ("y", labels_kind)}, fitted=False),
        _transform(),
        *_metric_surface(),
    ]
    if triplets:
        methods.append(Method(
            "fit(triplets)", lambda e, a: e.fit(a["X"], triplets=a["triplets"]),
            {"triplets": ("triplets", "index_triplets")}, fitted=False))
    if quadruplets:
        Q = ("quadruplets", "index_quadruplets")
        methods += [
            Method("fit(quadruplets)", lambda e, a: e.fit(a["X"], quadruplets=a["quadruplets"]),
                   {"quadruplets": Q}, fitted=False, optional=("quadruplets",)),
            Method("partial_fit(quadruplets)",
                   lambda e, a: e.partial_fit(a["X"], quadruplets=a["quadruplets"]),
                   {"quadruplets": Q}, fitted=False, optional=("quadruplets",)),
        ]
    if kernel:
        methods += [
            Method("learned_kernel", lambda e, a: e.learned_kernel(a["X"]),
                   {"X": ("X", "points")}),
            Method("learned_kernel(X, Y)", lambda e, a: e.learned_kernel(a["X"], a["Y"]),
                   {"Y": ("X", "points")}, data_argument="Y", optional=("Y",)),
        ]
    return Spec(name, make, lambda e: e.fit(g["X"], g["y"]), methods)


def _identifier_learner(name, make):
    """A pair learner with ``preprocessor=X``: X and pairs as identifiers."""
    g = GOOD
    methods = [
        Method("fit", lambda e, a: e.fit(a["X"], a["y"]),
               {"X": ("ids", "identifiers")}, fitted=False),
        Method("transform", lambda e, a: e.transform(a["X"]),
               {"X": ("ids", "identifiers")}),
        Method("pair_distance", lambda e, a: e.pair_distance(a["pairs"]),
               {"pairs": ("id_pairs", "id_tuples")}),
    ]
    return Spec(name, make, lambda e: e.fit(g["ids"], g["y"]), methods)


def _precomputed(name, make, fit_takes_y=True, method="transform"):
    g = GOOD
    call = ((lambda e, a: e.fit(a["X"], a["y"])) if fit_takes_y
            else (lambda e, a: e.fit(a["X"])))
    later = {"transform": lambda e, a: e.transform(a["X"]),
             "predict": lambda e, a: e.predict(a["X"])}[method]
    return Spec(name, make, lambda e: e.fit(g["K"], g["y"] if fit_takes_y else None), [
        Method("fit", call, {"X": ("K", "kernel_matrix")}, fitted=False),
        Method(method, later, {"X": ("K_test", "kernel_matrix")}),
    ])


def _pair_classifier(name, make):
    g = GOOD
    P, s = ("pairs", "point_tuples"), ("pair_labels", "tuple_labels")
    return Spec(name, make, lambda e: e.fit(g["pairs"], g["pair_labels"]), [
        Method("fit", lambda e, a: e.fit(a["pairs"], a["y"]), {"pairs": P, "y": s},
               fitted=False),
        Method("partial_fit", lambda e, a: e.partial_fit(a["pairs"], a["y"]),
               {"pairs": P, "y": s}, fitted=False),
        Method("partial_fit(fitted)", lambda e, a: e.partial_fit(a["pairs"], a["y"]),
               {"pairs": P, "y": s}),
        Method("predict", lambda e, a: e.predict(a["pairs"]), {"pairs": P}),
        Method("decision_function", lambda e, a: e.decision_function(a["pairs"]),
               {"pairs": P}),
        Method("score", lambda e, a: e.score(a["pairs"], a["y"], a["sample_weight"]),
               {"pairs": P, "y": s, "sample_weight": ("sample_weight", "sample_weight")}),
        Method("calibrate_threshold",
               lambda e, a: e.calibrate_threshold(a["pairs_valid"], a["y_valid"]),
               {"pairs_valid": P, "y_valid": s}),
        Method("set_threshold", lambda e, a: e.set_threshold(a["threshold"]),
               {"threshold": ("threshold", "threshold")}),
        _transform(),
        *_metric_surface(),
    ])


def _triplet_classifier(name, make):
    g = GOOD
    T = ("point_triplets", "point_tuples")
    return Spec(name, make, lambda e: e.fit(g["point_triplets"]), [
        Method("fit", lambda e, a: e.fit(a["triplets"]), {"triplets": T}, fitted=False),
        Method("fit(y)", lambda e, a: e.fit(a["triplets"], a["y"]),
               {"y": ("ones_triplets", "tuple_labels")}, fitted=False),
        Method("partial_fit", lambda e, a: e.partial_fit(a["triplets"]), {"triplets": T},
               fitted=False),
        Method("predict", lambda e, a: e.predict(a["triplets"]), {"triplets": T}),
        Method("decision_function", lambda e, a: e.decision_function(a["triplets"]),
               {"triplets": T}),
        Method("score", lambda e, a: e.score(a["triplets"], a["y"]),
               {"triplets": T, "y": ("ones_triplets", "tuple_labels")}),
        _transform(),
        *_metric_surface(),
    ])


GOOD["ones_triplets"] = np.ones(len(GOOD["triplets"]), dtype=int)


def _quadruplet_classifier(name, make):
    g = GOOD
    Q, s = ("point_quadruplets", "point_tuples"), ("ones_quadruplets", "tuple_labels")
    return Spec(name, make, lambda e: e.fit(g["point_quadruplets"]), [
        Method("fit", lambda e, a: e.fit(a["quadruplets"]), {"quadruplets": Q},
               fitted=False),
        Method("fit(y)", lambda e, a: e.fit(a["quadruplets"], a["y"]), {"y": s},
               fitted=False),
        Method("partial_fit", lambda e, a: e.partial_fit(a["quadruplets"], a["y"]),
               {"quadruplets": Q, "y": s}, fitted=False),
        Method("partial_fit(fitted)", lambda e, a: e.partial_fit(a["quadruplets"], a["y"]),
               {"quadruplets": Q, "y": s}),
        Method("predict", lambda e, a: e.predict(a["quadruplets"]), {"quadruplets": Q}),
        Method("decision_function", lambda e, a: e.decision_function(a["quadruplets"]),
               {"quadruplets": Q}),
        Method("score", lambda e, a: e.score(a["quadruplets"], a["y"], a["sample_weight"]),
               {"quadruplets": Q, "y": s,
                "sample_weight": ("ones_quadruplets", "sample_weight")}),
        _transform(),
        *_metric_surface(),
    ])


GOOD["ones_quadruplets"] = np.ones(len(GOOD["quadruplets"]), dtype=int)


def _sklr():
    g = GOOD
    fit_args = {"X": ("X", "points"), "y": ("y", "labels")}
    return Spec(
        "SKLRClusterer", lambda: SKLRClusterer(n_clusters=3, slack=1.0, n_init=2,
                                               random_state=0),
        lambda e: e.fit(g["X"], g["y"]), [
            Method("fit", lambda e, a: e.fit(a["X"], a["y"]), fit_args, fitted=False),
            Method("fit(triplets)", lambda e, a: e.fit(a["X"], triplets=a["triplets"]),
                   {"triplets": ("triplets", "index_triplets")}, fitted=False,
                   optional=("triplets",)),
            Method("fit(equal_triplets)",
                   lambda e, a: e.fit(a["X"], equal_triplets=a["equal_triplets"]),
                   {"equal_triplets": ("triplets", "index_triplets")}, fitted=False,
                   optional=("equal_triplets",)),
            Method("fit_predict", lambda e, a: e.fit_predict(a["X"], a["y"]), fit_args,
                   fitted=False),
            Method("fit_transform", lambda e, a: e.fit_transform(a["X"], a["y"]), fit_args,
                   fitted=False),
            Method("predict", lambda e, a: e.predict(a["X"]), {"X": ("X", "points")}),
            _transform(),
            *_metric_surface(),
        ])


def _scorer(name, scorer):
    g = GOOD
    return Spec(name, lambda: ITMLTransformer(random_state=0),
                lambda e: e.fit(g["X"], g["y"]), [
                    Method("__call__", lambda e, a: scorer(e, a["X"], a["y"]),
                           {"X": ("X", "points"), "y": ("y", "labels")}),
                ])


SPECS = [
    _pair_learner("ITMLTransformer", lambda: ITMLTransformer(random_state=0), kernel=False),
    _pair_learner("LogDetKernelLearner", lambda: LogDetKernelLearner(random_state=0),
                  triplets=True, quadruplets=True),
    _pair_learner("VonNeumannKernelLearner", lambda: VonNeumannKernelLearner(random_state=0),
                  triplets=True, quadruplets=True),
    _pair_learner("DefiniteBoost", lambda: DefiniteBoost(kernel="rbf", n_constraints=20,
                                                         random_state=0)),
    _sklr(),
    Spec("CSIDecomposition", lambda: CSIDecomposition(rank=5, random_state=0),
         lambda e: e.fit(GOOD["X"], GOOD["y"]), [
             Method("fit", lambda e, a: e.fit(a["X"], a["y"]),
                    {"X": ("X", "points"), "y": ("responses", "responses")}, fitted=False),
             Method("fit_transform", lambda e, a: e.fit_transform(a["X"], a["y"]),
                    {"X": ("X", "points"), "y": ("y", "responses")}, fitted=False),
             _transform(),
         ]),
    Spec("KernelKMeans", lambda: KernelKMeans(3, kernel="rbf", n_init=2, random_state=0),
         lambda e: e.fit(GOOD["X"]), [
             Method("fit", lambda e, a: e.fit(a["X"]), {"X": ("X", "points")}, fitted=False),
             Method("fit_predict", lambda e, a: e.fit_predict(a["X"]),
                    {"X": ("X", "points")}, fitted=False),
             Method("predict", lambda e, a: e.predict(a["X"]), {"X": ("X", "points")}),
         ]),
    Spec("NearestCorrelation", lambda: NearestCorrelation(),
         lambda e: e.fit(GOOD["C"]), [
             Method("fit", lambda e, a: e.fit(a["C"]), {"C": ("C", "matrix")},
                    fitted=False, data_argument="C"),
         ]),
    _pair_classifier("PairClassifier", lambda: PairClassifier(ITMLTransformer(random_state=0))),
    _triplet_classifier("TripletClassifier",
                        lambda: TripletClassifier(LogDetKernelLearner(random_state=0))),
    _quadruplet_classifier("QuadrupletClassifier",
                           lambda: QuadrupletClassifier(LogDetKernelLearner(random_state=0))),
    Spec("QuadrupletClassifier(preprocessor=X)",
         lambda: QuadrupletClassifier(LogDetKernelLearner(random_state=0),
                                      preprocessor=GOOD["X"]),
         lambda e: e.fit(GOOD["quadruplets"]), [
             Method("fit", lambda e, a: e.fit(a["quadruplets"]),
                    {"quadruplets": ("quadruplets", "id_tuples")}, fitted=False),
             Method("predict", lambda e, a: e.predict(a["quadruplets"]),
                    {"quadruplets": ("quadruplets", "id_tuples")}),
             Method("transform", lambda e, a: e.transform(a["X"]),
                    {"X": ("ids", "identifiers")}),
         ]),
    Spec("PairKFold", lambda: PairKFold(3, random_state=0), lambda e: e, [
        Method("split", lambda e, a: list(e.split(a["X"])),
               {"X": ("pairs", "split_pairs")}),
    ]),
    _identifier_learner("ITMLTransformer(preprocessor=X)",
                        lambda: ITMLTransformer(random_state=0, preprocessor=GOOD["X"])),
    _identifier_learner("LogDetKernelLearner(preprocessor=X)",
                        lambda: LogDetKernelLearner(random_state=0, preprocessor=GOOD["X"])),
    _identifier_learner("SKLRClusterer(preprocessor=X)",
                        lambda: SKLRClusterer(3, slack=1.0, n_init=2, random_state=0,
                                              preprocessor=GOOD["X"])),
    Spec("PairClassifier(preprocessor=X)",
         lambda: PairClassifier(ITMLTransformer(random_state=0), preprocessor=GOOD["X"]),
         lambda e: e.fit(GOOD["id_pairs"], GOOD["pair_labels"]), [
             Method("fit", lambda e, a: e.fit(a["pairs"], a["y"]),
                    {"pairs": ("id_pairs", "id_tuples")}, fitted=False),
             Method("predict", lambda e, a: e.predict(a["pairs"]),
                    {"pairs": ("id_pairs", "id_tuples")}),
             Method("transform", lambda e, a: e.transform(a["X"]),
                    {"X": ("ids", "identifiers")}),
         ]),
    _precomputed("LogDetKernelLearner(kernel='precomputed')",
                 lambda: LogDetKernelLearner(kernel="precomputed", random_state=0)),
    _precomputed("VonNeumannKernelLearner(kernel='precomputed')",
                 lambda: VonNeumannKernelLearner(kernel="precomputed", random_state=0)),
    _precomputed("DefiniteBoost(kernel='precomputed')",
                 lambda: DefiniteBoost(kernel="precomputed", n_constraints=20,
                                       random_state=0)),
    _precomputed("CSIDecomposition(kernel='precomputed')",
                 lambda: CSIDecomposition(kernel="precomputed", rank=5, random_state=0)),
    _precomputed("KernelKMeans(kernel='precomputed')",
                 lambda: KernelKMeans(3, kernel="precomputed", n_init=2, random_state=0),
                 fit_takes_y=False, method="predict"),
    _precomputed("SKLRClusterer(kernel='precomputed')",
                 lambda: SKLRClusterer(3, kernel="precomputed", slack=1.0, n_init=2,
                                       random_state=0), method="predict"),
    _scorer("knn_scorer", knn_scorer(3)),
    _scorer("kernel_kmeans_scorer", kernel_kmeans_scorer(n_init=2)),
]
SPEC = {s.name: s for s in SPECS}

#: Estimators with a ``preprocessor`` parameter, and how each fits on points.
PREPROCESSOR_ESTIMATORS = {
    "ITMLTransformer": (lambda: ITMLTransformer(random_state=0), "X"),
    "LogDetKernelLearner": (lambda: LogDetKernelLearner(random_state=0), "X"),
    "VonNeumannKernelLearner": (lambda: VonNeumannKernelLearner(random_state=0), "X"),
    "DefiniteBoost": (lambda: DefiniteBoost(kernel="rbf", n_constraints=20,
                                            random_state=0), "X"),
    "SKLRClusterer": (lambda: SKLRClusterer(3, slack=1.0, n_init=2, random_state=0), "X"),
    "PairClassifier": (lambda: PairClassifier(ITMLTransformer(random_state=0)), "pairs"),
    "TripletClassifier": (lambda: TripletClassifier(LogDetKernelLearner(random_state=0)),
                          "triplets"),
    "QuadrupletClassifier": (lambda: QuadrupletClassifier(LogDetKernelLearner(random_state=0)),
                             "quadruplets"),
}


def _fit_with_preprocessor(name, preprocessor, identifiers):
    make, form = PREPROCESSOR_ESTIMATORS[name]
    est = make().set_params(preprocessor=preprocessor)
    g = GOOD
    if form == "X":
        return est.fit(g["ids"] if identifiers else g["X"], g["y"])
    if form == "pairs":
        return est.fit(g["id_pairs"] if identifiers else g["pairs"], g["pair_labels"])
    if form == "quadruplets":
        return est.fit(g["quadruplets"] if identifiers else g["point_quadruplets"])
    return est.fit(g["triplets"] if identifiers else g["point_triplets"])


# --------------------------------------------------------------------------- #
# The check of an error
# --------------------------------------------------------------------------- #

#: scikit-learn's validation messages accepted for the array validate_data is
#: given (the method's data argument), which they do not name.
_DATA_ARRAY_MESSAGES = (
    r"Expected 2D array, got 1D array instead",
    r"Expected 2D array, got scalar array instead",
    r"Found array with dim \d+",
    r"Found array with 0 sample\(s\)",
    r"Found array with 0 feature\(s\)",
    r"Complex data not supported",
)


def _named(message, name):
    """Whether ``name`` occurs in ``message`` as a word (``X`` in "Input X
    contains NaN", ``pairs`` in "pairs: ...", ``u`` in "(u)")."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", message) is not None


def accepted_validation_message(message, argument, data_argument):
    """Whether a message of scikit-learn's validation (``validation.py``,
    ``_param_validation.py``) names ``argument``, by the rules of the module
    docstring."""
    if _named(message, argument):
        return True
    if re.search(r"This \w+ instance is not fitted yet", message):
        return True
    if argument == data_argument and any(re.search(p, message)
                                         for p in _DATA_ARRAY_MESSAGES):
        return True
    if argument in ("pairs", "pairs_valid", "triplets", "quadruplets") and message.startswith(
            "Complex data not supported"):
        return True  # metric-learn's message, pinned by tests/metric_learn
    return argument == "y" and "inconsistent numbers of samples" in message


def raising_frame(exc):
    """The file and line where ``exc`` was raised: its traceback's innermost
    frame."""
    tb, where = exc.__traceback__, ("?", 0)
    while tb is not None:
        where = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return where


def check_error(exc, argument, data_argument="X", fitted=True):
    """Assert that ``exc`` is the package's own error naming ``argument``, or
    an accepted validation error of scikit-learn (module docstring)."""
    where, line = raising_frame(exc)
    desc = f"{type(exc).__name__} at {where}:{line}: {str(exc)[:400]!r}"
    assert isinstance(exc, (ValueError, TypeError)), f"not a ValueError/TypeError: {desc}"
    if isinstance(exc, NotFittedError):
        assert not fitted, f"NotFittedError from a fitted estimator: {desc}"
        return
    message = str(exc)
    if os.path.abspath(where).startswith(PACKAGE):
        assert _named(message, argument), f"the message does not name {argument!r}: {desc}"
        return
    assert where in SKLEARN_VALIDATION, f"raised outside the package: {desc}"
    assert accepted_validation_message(message, argument, data_argument), (
        f"scikit-learn's validation message does not name {argument!r}: {desc}")


def state(est):
    """What a failed call must leave as it was: each attribute's identity and
    the hash of its value."""
    return {k: (id(v), joblib.hash(v)) for k, v in vars(est).items()}


_FITTED = {}


def fitted_estimator(spec):
    """A deep copy of ``spec``'s estimator fitted on the good data (fitted
    once per module)."""
    if spec.name not in _FITTED:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SklearnBregmanWarning)
            _FITTED[spec.name] = spec.fit(spec.make())
    return copy.deepcopy(_FITTED[spec.name])


def _cases():
    for spec in SPECS:
        for method in spec.methods:
            for argument, (key, kind) in method.arguments.items():
                for bad_id in KINDS[kind](GOOD[key], method.fitted):
                    if not (bad_id == "None" and argument in method.optional):
                        yield spec.name, method.name, argument, bad_id


CASES = [pytest.param(*c, id="/".join(c)) for c in _cases()]


def _args(spec, method):
    return {arg: copy.deepcopy(GOOD[key]) for arg, (key, kind) in method.arguments.items()} | {
        # the arguments a call takes but does not vary
        k: copy.deepcopy(v) for k, v in dict(
            X=GOOD["X"], y=GOOD["y"], pairs=GOOD["pairs"], u=GOOD["u"], v=GOOD["v"],
            sample_weight=GOOD["sample_weight"], threshold=GOOD["threshold"],
            triplets=GOOD["point_triplets"] if "Classifier" in spec.name
            else GOOD["triplets"],
            quadruplets=GOOD["point_quadruplets"] if "Classifier" in spec.name
            else GOOD["quadruplets"],
        ).items() if k not in method.arguments
    }


@pytest.mark.parametrize("spec_name, method_name, argument, bad_id", CASES)
def test_bad_input_gets_the_packages_error_naming_the_argument(spec_name, method_name,
                                                               argument, bad_id):
    spec = SPEC[spec_name]
    method = next(m for m in spec.methods if m.name == method_name)
    key, kind = method.arguments[argument]
    args = _args(spec, method)
    if spec_name.startswith("PairClassifier"):
        args["y"] = GOOD["pair_labels"] if argument != "y" else args["y"]
    if spec_name.startswith("TripletClassifier") and argument != "y":
        args["y"] = GOOD["ones_triplets"]
    if spec_name.startswith("QuadrupletClassifier") and argument != "y":
        args["y"] = GOOD["ones_quadruplets"]
    if "quadruplets" in args and "preprocessor=X" in spec_name and argument != "quadruplets":
        args["quadruplets"] = GOOD["quadruplets"]
    if "pairs" in args and "preprocessor=X" in spec_name and argument != "pairs":
        args["pairs"] = GOOD["id_pairs"]
    args[argument] = KINDS[kind](GOOD[key], method.fitted)[bad_id]
    est = fitted_estimator(spec) if method.fitted else spec.make()
    before = state(est)
    with pytest.raises((ValueError, TypeError)) as info:
        method.call(est, args)
    check_error(info.value, argument, method.data_argument, fitted=True)
    assert state(est) == before, "a failed call changed the estimator"


# -- before fit: NotFittedError, or the argument's own error ----------------------------


UNFITTED = [pytest.param(s.name, m.name, id=f"{s.name}/{m.name}")
            for s in SPECS for m in s.methods
            if m.fitted and s.name not in ("PairKFold", "knn_scorer", "kernel_kmeans_scorer")
            and not m.name.startswith("partial_fit")]


@pytest.mark.parametrize("spec_name, method_name", UNFITTED)
def test_a_method_before_fit_raises_not_fitted(spec_name, method_name):
    spec = SPEC[spec_name]
    method = next(m for m in spec.methods if m.name == method_name)
    args = _args(spec, method)
    if spec_name.startswith("PairClassifier"):
        args["y"] = GOOD["pair_labels"]
    with pytest.raises(NotFittedError) as info:
        method.call(spec.make(), args)
    check_error(info.value, next(iter(method.arguments)), fitted=False)


# -- the preprocessor of every estimator that takes one ---------------------------------


@pytest.mark.parametrize("identifiers", [False, True], ids=["points", "identifiers"])
@pytest.mark.parametrize("bad_id", list(bad_preprocessor(GOOD["X"], False)))
@pytest.mark.parametrize("name", list(PREPROCESSOR_ESTIMATORS))
def test_a_preprocessor_of_another_type_is_refused_at_fit(name, bad_id, identifiers):
    """Issue 34 item 5, reproduction 2: ``preprocessor={0: X[0]}`` passed
    scikit-learn's "array-like" check and failed with "float() argument ...
    not 'dict'" (identifiers), or was taken silently (points)."""
    bad = bad_preprocessor(GOOD["X"], False)[bad_id]
    with pytest.raises((TypeError, ValueError)) as info:
        _fit_with_preprocessor(name, bad, identifiers)
    check_error(info.value, "preprocessor")
    where, _ = raising_frame(info.value)
    if where.startswith(PACKAGE) and bad_id in ("dict", "set"):
        # (a str, a number and a generator are not array-like for scikit-learn's
        # parameter check, whose InvalidParameterError names preprocessor too)
        assert isinstance(info.value, TypeError)
        assert type(bad).__name__ in str(info.value)


@pytest.mark.parametrize("name", list(PREPROCESSOR_ESTIMATORS))
@pytest.mark.parametrize("good", ["array", "list", "sparse", "dok", "callable"])
def test_a_preprocessor_of_rows_or_a_callable_is_taken(name, good):
    X = GOOD["X"]
    pre = {"array": X, "list": X.tolist(), "sparse": sp.csr_matrix(X),
           "dok": sp.dok_matrix(X),
           "callable": lambda ids: X[np.asarray(ids, dtype=int)]}[good]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SklearnBregmanWarning)
        _fit_with_preprocessor(name, pre, identifiers=True)
        _fit_with_preprocessor(name, pre, identifiers=False)


# --------------------------------------------------------------------------- #
# Reproduction 1: SKLR's predict and transform on sparse rows
# --------------------------------------------------------------------------- #

SPARSE_FORMATS = [f"{fmt}_{kind}" for kind in ("matrix", "array")
                  for fmt in ("csr", "csc", "coo", "lil", "dok")]


def _sparse(X, fmt):
    return getattr(sp, fmt)(X)


@pytest.fixture(scope="module")
def sklr_dense_and_sparse():
    X, y = GOOD["X"], GOOD["y"]
    Xs = X.copy()
    Xs[np.abs(Xs) < 0.5] = 0.0  # sparse enough that the formats matter
    dense = SKLRClusterer(3, slack=1.0, n_init=2, random_state=0).fit(Xs, y)
    sparse = SKLRClusterer(3, slack=1.0, n_init=2, random_state=0).fit(sp.csr_matrix(Xs), y)
    return Xs, dense, sparse


@pytest.mark.parametrize("fmt", SPARSE_FORMATS)
def test_sklr_maps_sparse_rows_as_their_dense_copy_after_a_dense_fit(fmt,
                                                                      sklr_dense_and_sparse):
    """Issue 34 item 5, reproduction 1: "kd_tree does not work with sparse
    matrices" from scikit-learn's NearestNeighbors (the adaptive Gaussian's
    neighbours of new points)."""
    Xs, dense, _ = sklr_dense_and_sparse
    Q = Xs[::2]
    np.testing.assert_allclose(dense.transform(_sparse(Q, fmt)), dense.transform(Q),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(dense.predict(_sparse(Q, fmt)), dense.predict(Q))


@pytest.mark.parametrize("fmt", SPARSE_FORMATS)
def test_sklr_maps_dense_rows_as_their_sparse_copy_after_a_sparse_fit(fmt,
                                                                       sklr_dense_and_sparse):
    Xs, dense, sparse = sklr_dense_and_sparse
    Q = Xs[::2]
    np.testing.assert_allclose(sparse.transform(Q), sparse.transform(_sparse(Q, fmt)),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(Q), sparse.predict(_sparse(Q, fmt)))
    # and the sparse fit is the dense one
    np.testing.assert_allclose(np.abs(sparse.transform(Q)), np.abs(dense.transform(Q)),
                               rtol=1e-6, atol=1e-8)


def test_sklr_maps_many_sparse_rows_by_blocks(sklr_dense_and_sparse, monkeypatch):
    """More rows than a block: the same map, row by row."""
    from sklearn_bregman._factors import _kernels

    Xs, dense, _ = sklr_dense_and_sparse
    monkeypatch.setattr(_kernels, "_DENSE_BLOCK", 7)  # (the adaptive Gaussian's bandwidths)
    np.testing.assert_allclose(dense.transform(sp.csr_matrix(Xs)), dense.transform(Xs),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", ["adaptive_rbf", "rbf", "linear"])
def test_sklr_sparse_rows_after_a_dense_fit_for_every_kernel(kernel):
    X, y = GOOD["X"], GOOD["y"]
    est = SKLRClusterer(3, kernel=kernel, slack=1.0, n_init=2, random_state=0).fit(X, y)
    np.testing.assert_allclose(est.transform(sp.csc_matrix(X)), est.transform(X),
                               rtol=1e-10, atol=1e-10)


SPARSE_ESTIMATORS = ["ITMLTransformer", "LogDetKernelLearner", "VonNeumannKernelLearner",
                     "DefiniteBoost", "SKLRClusterer", "CSIDecomposition", "KernelKMeans"]


@pytest.mark.parametrize("fit_on", ["dense", "sparse"])
@pytest.mark.parametrize("name", SPARSE_ESTIMATORS)
def test_every_estimator_maps_sparse_rows_as_their_dense_copy(name, fit_on):
    """The same for every estimator whose tags take sparse X: a model fitted
    on dense rows maps sparse rows (every format) as their dense copy, and a
    model fitted on sparse rows maps dense ones as their sparse copy."""
    spec = SPEC[name]
    Xs = GOOD["X"].copy()
    Xs[np.abs(Xs) < 0.5] = 0.0
    est = spec.make().fit(sp.csr_matrix(Xs) if fit_on == "sparse" else Xs, GOOD["y"])
    method = est.transform if hasattr(est, "transform") else est.predict
    reference = method(Xs)
    for fmt in SPARSE_FORMATS:
        np.testing.assert_allclose(method(_sparse(Xs, fmt)), reference, rtol=1e-10,
                                   atol=1e-10, err_msg=fmt)


# --------------------------------------------------------------------------- #
# Reproduction 3: CSI with a sparse y
# --------------------------------------------------------------------------- #


def _csi_attributes(est):
    return {k: getattr(est, k) for k in ("pivots_", "embedding_", "R_",
                                         "approximation_error_", "prediction_error_",
                                         "gains_", "rank_")}


@pytest.mark.parametrize("fmt", SPARSE_FORMATS)
@pytest.mark.parametrize("what", ["responses", "one_hot_int", "one_hot_float"])
def test_csi_with_a_sparse_y_fits_its_dense_copy(what, fmt):
    """Issue 34 item 5, reproduction 3: "Unknown label type ... Compressed
    Sparse Row" from scikit-learn."""
    X, y = GOOD["X"], GOOD["y"]
    Y = {"responses": np.column_stack([GOOD["responses"], X[:, 2]]),
         "one_hot_int": np.eye(3, dtype=np.int64)[y],
         "one_hot_float": np.eye(3)[y]}[what]
    Y = Y.copy()
    Y[np.abs(Y) < 0.3] = 0  # sparse responses
    dense = CSIDecomposition(rank=6, random_state=0).fit(X, Y)
    sparse = CSIDecomposition(rank=6, random_state=0).fit(X, _sparse(Y, fmt))
    for name, value in _csi_attributes(dense).items():
        np.testing.assert_array_equal(getattr(sparse, name), value, err_msg=name)


def test_csi_with_a_sparse_y_of_labels_is_the_one_hot_model():
    X, y = GOOD["X"], GOOD["y"]
    labels = CSIDecomposition(rank=6, random_state=0).fit(X, y)
    one_hot = CSIDecomposition(rank=6, random_state=0).fit(
        X, sp.csr_matrix(np.eye(3, dtype=int)[y]))
    np.testing.assert_array_equal(one_hot.pivots_, labels.pivots_)
    np.testing.assert_allclose(one_hot.embedding_, labels.embedding_)


@pytest.mark.parametrize("bad", ["nan", "short", "complex"])
def test_csi_refuses_a_bad_sparse_y_naming_y(bad):
    X = GOOD["X"]
    Y = np.eye(3)[GOOD["y"]]
    Y = {"nan": _with(Y, (0, 0), np.nan), "short": Y[:-1], "complex": Y + 1j}[bad]
    with pytest.raises(ValueError) as info:
        CSIDecomposition(rank=6).fit(X, sp.csr_matrix(Y))
    check_error(info.value, "y")


# --------------------------------------------------------------------------- #
# Complex numbers that no complex dtype shows
# --------------------------------------------------------------------------- #


def _complex_forms():
    """X with one complex number (imaginary part 0, as a value cast from a
    complex array; and a true one) in every container that hides it from a
    dtype check: an object array (Python and NumPy complex scalars), a list,
    a DataFrame's object column."""
    pd = pytest.importorskip("pandas")
    X = GOOD["X"]
    one = X.astype(object)
    one[3, 1] = complex(X[3, 1], 2.0)
    single = X.astype(object)
    single[0, 0] = np.complex64(1 + 1j)
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["b"] = frame["b"].astype(object)
    frame.at[5, "b"] = 1j
    return {"object_all": (X + 0j).astype(object), "object_one": one,
            "object_complex64": single, "list": (X + 0j).tolist(), "frame_column": frame}


@pytest.mark.parametrize("form", ["object_all", "object_one", "object_complex64", "list",
                                  "frame_column"])
@pytest.mark.parametrize("make", [lambda: ITMLTransformer(random_state=0),
                                  lambda: KernelKMeans(3, random_state=0),
                                  lambda: CSIDecomposition(rank=4)],
                         ids=["ITMLTransformer", "KernelKMeans", "CSIDecomposition"])
def test_complex_numbers_without_a_complex_dtype_are_refused_naming_X(make, form):
    """An object array of complex numbers got NumPy's "float() argument must
    be a string or a real number, not 'complex'" from scikit-learn's
    conversion (its "Complex data not supported" reads ``dtype.kind`` only):
    now the complex array's wording, naming X, at fit and at transform /
    predict, the fitted estimator left as it was."""
    bad = _complex_forms()[form]
    owner = type(make()).__name__
    with pytest.raises(ValueError, match=rf"^{owner}: X: Complex data not supported; ") as info:
        make().fit(bad, GOOD["y"])
    check_error(info.value, "X")
    fitted = make().fit(GOOD["X"], GOOD["y"])
    before = state(fitted)
    method = fitted.predict if isinstance(fitted, KernelKMeans) else fitted.transform
    with pytest.raises(ValueError, match=r"X: Complex data not supported; "):
        method(bad)
    assert state(fitted) == before


def test_complex_points_without_a_complex_dtype_are_refused_naming_the_tuples():
    """The same for the points of pairs (an object array), for the rows of an
    array preprocessor of objects and for those a callable preprocessor
    returns; a complex array keeps scikit-learn's message (metric-learn's,
    tests/metric_learn/test_utils.py)."""
    pairs, labels, ids = GOOD["pairs"], GOOD["pair_labels"], GOOD["id_pairs"]
    bad = pairs.astype(object)
    bad[2, 1, 0] = complex(pairs[2, 1, 0], -1.0)
    clf = PairClassifier(ITMLTransformer(random_state=0)).fit(pairs, labels)
    before = state(clf)
    for call in (lambda: PairClassifier(ITMLTransformer(random_state=0)).fit(bad, labels),
                 lambda: clf.predict(bad), lambda: clf.decision_function(bad),
                 lambda: clf.score(bad, labels), lambda: clf.pair_distance(bad),
                 lambda: clf.calibrate_threshold(bad, labels)):
        with pytest.raises(ValueError, match=r"^pairs(_valid)?: Complex data not supported; got an "
                                             r"object array holding complex numbers, "
                                             r"e\.g\. \(.*-1j\)\.$"):
            call()
    assert state(clf) == before
    rows = GOOD["X"].astype(object)
    rows[ids[0, 0], 1] = 2j
    for preprocessor, where in ((rows, "preprocessor"),
                                (lambda i: rows[np.asarray(i, dtype=int)],
                                 "the rows the preprocessor returned for pairs")):
        with pytest.raises(ValueError, match=rf"^PairClassifier: {where}: Complex data not "
                                             "supported; "):
            PairClassifier(ITMLTransformer(random_state=0),
                           preprocessor=preprocessor).fit(ids, labels)
    with pytest.raises(ValueError) as info:
        clf.predict(pairs + 1j)
    assert str(info.value) == f"Complex data not supported\n{(pairs + 1j).reshape(-1, D)}\n"


def test_object_arrays_and_frames_of_real_numbers_fit_as_their_float_copy():
    """The complex check reads object arrays and object columns; real numbers
    there give the float64 copy's model, bitwise."""
    pd = pytest.importorskip("pandas")
    X, y = GOOD["X"], GOOD["y"]
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["b"] = frame["b"].astype(object)
    ref = ITMLTransformer(random_state=0).fit(X, y)
    for data in (X.astype(object), X.tolist(), frame):
        est = ITMLTransformer(random_state=0).fit(data, y)
        np.testing.assert_array_equal(est.components_, ref.components_)
        np.testing.assert_array_equal(est.transform(data), ref.transform(X))


# --------------------------------------------------------------------------- #
# Arbitrary arrays to the methods of fitted estimators (hypothesis)
# --------------------------------------------------------------------------- #

_DTYPES = st.sampled_from([np.float64, np.float32, np.int64, np.bool_, np.complex128,
                           np.dtype("U3"), np.dtype(object)])


@st.composite
def arrays(draw):
    dtype = np.dtype(draw(_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    if dtype.kind == "O":
        elements = st.one_of(st.none(), st.floats(), st.text(max_size=2),
                             st.dictionaries(st.text(max_size=1), st.integers(), max_size=1))
        return draw(hnp.arrays(dtype, shape, elements=elements))
    if dtype.kind == "U":
        return draw(hnp.arrays(dtype, shape, elements=st.sampled_from(["a", "1.5", "", "x"])))
    if dtype.kind == "f":
        return draw(hnp.arrays(dtype, shape, elements=st.floats(-10, 10, width=32)
                               | st.sampled_from([np.nan, np.inf, -np.inf])))
    return draw(hnp.arrays(dtype, shape))


_SURFACE = [
    ("ITMLTransformer", "transform", "X"), ("ITMLTransformer", "pair_distance", "pairs"),
    ("LogDetKernelLearner", "transform", "X"), ("LogDetKernelLearner", "learned_kernel", "X"),
    ("SKLRClusterer", "predict", "X"), ("SKLRClusterer", "transform", "X"),
    ("CSIDecomposition", "transform", "X"), ("KernelKMeans", "predict", "X"),
    ("PairClassifier", "decision_function", "pairs"), ("PairClassifier", "predict", "pairs"),
    ("TripletClassifier", "predict", "triplets"), ("DefiniteBoost", "pair_score", "pairs"),
    ("QuadrupletClassifier", "decision_function", "quadruplets"),
]


@given(data=st.data(), case=st.sampled_from(_SURFACE))
def test_arbitrary_arrays_get_a_result_or_a_clean_error(data, case):
    spec_name, method_name, argument = case
    method = next(m for m in SPEC[spec_name].methods if m.name == method_name)
    value = data.draw(arrays(), label=argument)
    est = fitted_estimator(SPEC[spec_name])
    args = _args(SPEC[spec_name], method)
    args[argument] = value
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SklearnBregmanWarning)
            out = method.call(est, args)
    except (ValueError, TypeError) as exc:
        check_error(exc, argument, method.data_argument)
    else:
        out = np.asarray(out)
        assert out.shape[0] == np.shape(value)[0]
        if out.dtype.kind == "f":
            assert np.isfinite(out).all()


# ---------------------------------------------------------------------------
# Sizes beyond what is supported: refused before any O(n^2) array is formed,
# fast and small, naming the argument and the limit, the estimator unchanged.


def refused_cheaply(call, match):
    """Run ``call``, which must raise a ValueError matching ``match`` in
    under 2 s with a traced peak under 100 MB; the error."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(ValueError, match=match) as info:
            call()
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 2.0, f"refused after {elapsed:.2f} s"
    assert peak < 100 * 2**20, f"refused after tracing {peak / 2**20:.0f} MB"
    return info.value


def _small_labelled(n, d=3, seed=0):
    X = np.random.RandomState(seed).randn(n, d)
    return X, np.arange(n) % 2


def _quiet_fit(est, X, y):
    """``est.fit(X, y)`` with its ConvergenceWarning (max_iter=2) ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


@pytest.mark.parametrize("fitted", [False, True])
def test_definiteboost_identity_refuses_more_samples_than_its_limit(fitted):
    # n x n arrays at n = 100,000 would be 74.5 GB each
    est = DefiniteBoost(init="identity", n_constraints=10, max_iter=2, random_state=0)
    if fitted:
        _quiet_fit(est, *_small_labelled(20))
    before = state(est)
    X, y = _small_labelled(100_000)
    exc = refused_cheaply(lambda: est.fit(X, y),
                          r"init='identity'.*n <= 2000 samples; got n=100000.*init='kernel'")
    check_error(exc, "n")
    assert state(est) == before
    if not fitted:  # the first call of a stream sets up the same start
        refused_cheaply(lambda: est.partial_fit(X, y), r"n <= 2000 samples; got n=100000")
        assert state(est) == before
    assert definiteboost_module.IDENTITY_MAX_N == 2000


def test_definiteboost_identity_limit_is_the_largest_n_taken(monkeypatch):
    monkeypatch.setattr(definiteboost_module, "IDENTITY_MAX_N", 12)
    est = DefiniteBoost(init="identity", n_constraints=10, max_iter=2, random_state=0)
    refused_cheaply(lambda: est.fit(*_small_labelled(13)), r"n <= 12 samples; got n=13")
    assert _quiet_fit(est, *_small_labelled(12)).metric_.shape == (12, 12)


@pytest.mark.parametrize("make", [
    lambda: CSIDecomposition(rank=5, delta=2),
    lambda: LogDetKernelLearner(kernel="rbf", rank=5, low_rank="csi", n_constraints=10,
                                max_iter=2, random_state=0),
    lambda: DefiniteBoost(kernel="rbf", rank=5, low_rank="csi", n_constraints=10,
                          max_iter=2, random_state=0),
])
def test_csi_refuses_one_hot_side_information_beyond_its_limit(make):
    # integer y with n distinct values (ids, counts): one-hot n x n, 74.5 GB
    X = np.random.RandomState(0).randn(100_000, 3)
    y = np.arange(100_000)
    est = make()
    before = state(est)
    exc = refused_cheaply(lambda: est.fit(X, y),
                          r"y holds class labels with 100000 classes.*limit of 67108864 "
                          r"cells.*floating-point responses")
    check_error(exc, "y")
    assert state(est) == before
    assert factors_module.ONE_HOT_MAX_CELLS == 2**26


def test_csi_one_hot_limit_counts_cells_and_spares_responses(monkeypatch):
    X = np.random.RandomState(0).randn(40, 3)
    y = np.arange(40) % 4
    ordinary = CSIDecomposition(rank=3, delta=2).fit(X, y)
    monkeypatch.setattr(factors_module, "ONE_HOT_MAX_CELLS", 160)  # 40 x 4: taken
    taken = CSIDecomposition(rank=3, delta=2).fit(X, y)
    np.testing.assert_array_equal(taken.pivots_, ordinary.pivots_)
    est = CSIDecomposition(rank=3, delta=2).fit(X[:30], y[:30])
    before = state(est)
    monkeypatch.setattr(factors_module, "ONE_HOT_MAX_CELLS", 159)
    refused_cheaply(lambda: est.fit(X, y), r"4 classes for 40 samples.*limit of 159 cells")
    assert state(est) == before
    # the same values as responses are one column
    assert CSIDecomposition(rank=3, delta=2).fit(X, y.astype(float)).rank_ >= 1
    learner = LogDetKernelLearner(kernel="rbf", rank=3, low_rank="csi", n_constraints=10,
                                  max_iter=2, random_state=0)
    refused_cheaply(lambda: learner.fit(X, y), r"4 classes for 40 samples")


@pytest.mark.parametrize("method, fitted", [("fit", False), ("fit", True),
                                            ("partial_fit", False)])
def test_itml_refuses_dense_x_with_more_features_than_its_limit(method, fitted):
    # the d x d metric at d = 50,000 would be 18.6 GB
    est = ITMLTransformer(max_iter=2, random_state=0)
    if fitted:
        _quiet_fit(est, *_small_labelled(20))
    before = state(est)
    X = np.random.RandomState(0).randn(4, 50_000)
    exc = refused_cheaply(lambda: getattr(est, method)(X, np.array([0, 0, 1, 1])),
                          r"n_features d = 50000.*at most 8192 features")
    check_error(exc, "X")
    assert state(est) == before
    assert itml_module.ITML_DENSE_MAX_FEATURES == 8192


def test_itml_dense_limit_is_the_largest_d_taken(monkeypatch):
    monkeypatch.setattr(itml_module, "ITML_DENSE_MAX_FEATURES", 3)
    refused_cheaply(lambda: ITMLTransformer(max_iter=2).fit(*_small_labelled(20, d=4)),
                    r"n_features d = 4.*at most 3 features")
    est = _quiet_fit(ITMLTransformer(max_iter=2), *_small_labelled(20, d=3))
    assert est.metric_.shape == (3, 3)
