"""Property-based tests of the whole public surface: what every fit promises.

Hypothesis generates inputs for every public estimator and scorer:

- data: 1 to 40 rows, 1 to 6 features, dtype float64 / float32 / int64 / bool,
  duplicate rows, constant rows and columns, scales from 1e-6 to 1e200 (whose
  squares overflow) and, now and then, a NaN or an infinity;
- labels: several classes, one class, all unlabeled (-1), one sample per
  class, some unlabeled, string labels, {-1, +1}, floating-point responses
  (CSI), NaN labels (scorers), a wrong length;
- explicit pairs (``constraints=``) and triplets (``triplets=``,
  ``equal_triplets=``) as arrays, tuples or container objects, valid or not:
  out-of-range, negative or non-integer indices, ``i == j``, repeated points,
  signs other than +-1, NaN / negative / infinite bounds, wrong shapes,
  ragged rows, an empty set;
- parameters: ``slack`` finite and ``np.inf``, every kernel (named,
  'precomputed' with a symmetric or a non-symmetric matrix, callables, one
  of which returns NaN), ``rank``, ``low_rank``, ``bounds``, ``order``,
  ``tol``, capped ``max_iter`` and the estimator's own options.

Every example must satisfy one contract, checked by one helper
per family (``check_pair_learner``, ``check_sklr``, ``check_csi``,
``check_kernel_kmeans``, ``check_scorer``) on top of shared ones:

(a) the fit (or score) raises a ``ValueError`` / ``TypeError`` with a
    message, raised by the package itself or by scikit-learn's own input and
    parameter validation (``sklearn.utils``) -- not a ``LinAlgError``, an
    ``IndexError``, a ``FloatingPointError`` ..., not from inside NumPy /
    SciPy / another part of scikit-learn, not NumPy's own wording ("could
    not convert", "inhomogeneous shape" ...), and not blaming
    "constraints" when the user passed labels only; inputs known to be
    invalid (see ``Case.invalid``) *must* take this branch; or

(b) the fit succeeds and then: every fitted output (``embedding_``,
    ``transform``, ``metric_``, ``components_``, ``labels_``, ``inertia_``
    ...) is finite; ``metric_`` and the learned kernel (``embedding_ @
    embedding_.T``) are symmetric PSD within a relative tolerance;
    ``transform`` of finite new points is finite or a clean error; the
    estimator owns its data (changing the caller's training array in place
    afterwards changes nothing); ``converged_ = False`` comes with a
    ``ConvergenceWarning``; and ``converged_ = True`` with hard constraints
    (``slack=np.inf``, DefiniteBoost, SKLR with ``slack=None``) means every
    non-skipped constraint holds within ``HARD_RTOL`` (relative to its bound,
    or ``tol`` if larger), measured on the fitted model: learned squared
    distances ``|embedding_[i] - embedding_[j]|^2`` (kernel learners) or
    ``|transform(X)[i] - transform(X)[j]|^2`` (ITML) against
    ``constraints_.sign`` / ``constraints_.bound``, and the triplet rows of
    ``triplets_`` for SKLR.  Skipped are only the constraints no model can
    move: zero-length pairs (relative to the data's scale), triplets whose
    two difference vectors are parallel, and DefiniteBoost's generated
    dissimilar pairs that no trace-one kernel can reach.

Budget: one hypothesis test per estimator, so the profile's
``max_examples`` is the number of generated examples per estimator.  The
``default`` profile of ``tests/conftest.py`` draws **40 examples per
estimator** (ITMLTransformer, LogDetKernelLearner, VonNeumannKernelLearner,
DefiniteBoost, SKLRClusterer, CSIDecomposition, KernelKMeans) and 40 for
the two scorers together (``knn_scorer`` and ``kernel_kmeans_scorer``),
derandomized (the same examples every run), 320 in all; they take about
10 s when they pass (shrinking a failure takes longer).
``--hypothesis-profile=thorough`` draws 600 per estimator, at random.
Failures hypothesis found once are pinned as plain examples
(``test_pinned_pair_learner_examples``).

PYTEST_DONT_REWRITE (assertion messages are the contract's own wording)
"""

import os
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy
import sklearn
from hypothesis import given
from hypothesis import note as _hypothesis_note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import FunctionTransformer

import sklearn_bregman
from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    PairConstraints,
    SKLRClusterer,
    TripletConstraints,
    VonNeumannKernelLearner,
    kernel_kmeans_scorer,
    knn_scorer,
)

#: Hard constraints must hold to this relative tolerance when a fit says it converged.
HARD_RTOL = 1e-3
#: A learned kernel / metric is PSD if its smallest eigenvalue is >= -PSD_RTOL * largest.
PSD_RTOL = 1e-8
#: A pair (or a triplet's difference vectors) this small against the data's
#: squared scale is "zero length": no model can move it, a learner may skip it.
ZERO_RTOL = 1e-12

MAX_N, MAX_D = 40, 6

_PACKAGE_DIR = os.path.dirname(sklearn_bregman.__file__)
_SKLEARN_VALIDATION = os.path.join(os.path.dirname(sklearn.__file__), "utils")
_FOREIGN = (os.path.dirname(np.__file__), os.path.dirname(scipy.__file__),
            os.path.dirname(sklearn.__file__))
#: NumPy's / Python's own wording: a package error message must not be one of these.
_NUMPY_WORDING = (
    "could not convert", "inhomogeneous", "cannot reshape array", "float() argument",
    "int() argument", "cannot convert float nan", "invalid literal", "setting an array "
    "element", "only integer scalar arrays", "buffer dtype mismatch",
)


# --------------------------------------------------------------------------- #
# Callable kernels (module level, so that reproducers can import them)
# --------------------------------------------------------------------------- #

def linear_callable(x, y):
    """The linear kernel as a callable (scikit-learn's convention: two rows in,
    one number out)."""
    return float(np.dot(x, y))


def nan_callable(x, y):
    """A broken user kernel: NaN everywhere."""
    return np.nan


# --------------------------------------------------------------------------- #
# A generated case, printable as a standalone reproducer
# --------------------------------------------------------------------------- #

def _fmt(v):
    """Python source that rebuilds ``v``."""
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r}, dtype=np.{v.dtype.name})"
    if isinstance(v, PairConstraints):
        return (f"PairConstraints(i={_fmt(v.i)}, j={_fmt(v.j)}, sign={_fmt(v.sign)}, "
                f"bound={_fmt(v.bound)})")
    if isinstance(v, TripletConstraints):
        return f"TripletConstraints(outlier={_fmt(v.outlier)}, equal={_fmt(v.equal)})"
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    return repr(v)


@dataclass
class Case:
    """One generated call: ``getattr(estimator, method)(X, **kwargs)``.

    ``invalid`` says why the input must be rejected (None: valid input,
    either outcome of the contract is fine).  ``hard`` says whether the
    constraints are hard.  ``probe`` scales ``X`` for the out-of-sample
    ``transform`` check.
    """

    estimator: object
    X: np.ndarray
    kwargs: dict = field(default_factory=dict)
    method: str = "fit"
    invalid: str = None
    hard: bool = False
    probe: float = 1.0

    def __repr__(self):
        params = self.estimator.get_params(deep=False)
        default = type(self.estimator)().get_params(deep=False)
        changed = ", ".join(f"{k}={_fmt(v)}" for k, v in params.items()
                            if _fmt(v) != _fmt(default[k]))
        kw = "".join(f", {k}={_fmt(v)}" for k, v in self.kwargs.items())
        return (
            "\nimport numpy as np\nfrom numpy import nan, inf\n"
            "from sklearn_bregman import *\n"
            "from sklearn_bregman.constraints import PairConstraints, TripletConstraints\n"
            "from tests.test_properties import linear_callable, nan_callable\n"
            f"X = {_fmt(self.X)}\n"
            f"est = {type(self.estimator).__name__}({changed})\n"
            f"est.{self.method}(X{kw})\n"
            f"# invalid={self.invalid!r} hard={self.hard}\n"
            f"# then: est.transform(X * {self.probe!r}) / est.predict(X), and the "
            "same after changing the fitted-on array in place\n"
        )


# --------------------------------------------------------------------------- #
# Strategies
# --------------------------------------------------------------------------- #

DTYPES = ("float64", "float32", "int64", "bool")
#: Scales of the data (repeats weight the draw: 1e200 overflows squares, 1 in 6).
SCALES = (1.0, 1.0, 1e-6, 1.0, 1e6, 1e200)


@st.composite
def datasets(draw, max_n=MAX_N, max_d=MAX_D, nonfinite=True):
    """(X, invalid): duplicate / constant rows and columns, dtypes, scales.

    One sample now and then (1 in 20), else 2 to ``max_n``.  ``invalid`` is
    set when X holds NaN or inf (scikit-learn's validation must reject it)."""
    n = 1 if draw(st.integers(0, 19)) == 19 else draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_d))
    n_distinct = draw(st.integers(1, n))
    base = draw(arrays(np.float64, (n_distinct, d),
                       elements=st.floats(-10, 10, allow_subnormal=False, width=32)))
    extra = draw(st.lists(st.integers(0, n_distinct - 1), min_size=n - n_distinct,
                          max_size=n - n_distinct))
    order = draw(st.permutations(range(n)))
    X = base[np.concatenate([np.arange(n_distinct), extra]).astype(int)][list(order)]
    if draw(st.booleans()):
        X[:, draw(st.integers(0, d - 1))] = draw(st.sampled_from([0.0, 1.0, 3.5]))
    dtype = draw(st.sampled_from(DTYPES))
    if dtype in ("int64", "bool"):
        X = np.rint(X).astype(np.int64) if dtype == "int64" else X > 0
    else:
        with np.errstate(all="ignore"):
            scale = draw(st.sampled_from(SCALES))
            X = (X * (min(scale, 1e30) if dtype == "float32" else scale)).astype(dtype)
    invalid = None if np.isfinite(X).all() else "X holds NaN or inf"  # float32 overflow
    if nonfinite and dtype.startswith("float") and draw(st.integers(0, 19)) == 19:
        X[draw(st.integers(0, n - 1)), draw(st.integers(0, d - 1))] = draw(
            st.sampled_from([np.nan, np.inf, -np.inf]))
        invalid = "X holds NaN or inf"
    return X, invalid


LABEL_PATTERNS = ("classes", "classes", "one_class", "classes", "all_unlabeled",
                  "one_per_class", "classes", "some_unlabeled", "strings", "plus_minus_one",
                  "classes", "wrong_length")


@st.composite
def labels(draw, n, patterns=LABEL_PATTERNS):
    """(y, invalid) of one of ``patterns``."""
    kind = draw(st.sampled_from(patterns))
    codes = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=int)
    if kind == "classes":
        return codes, None
    if kind == "one_class":
        return np.full(n, 7), None
    if kind == "all_unlabeled":
        return np.full(n, -1), None
    if kind == "one_per_class":
        return np.arange(n), None
    if kind == "some_unlabeled":
        return np.where(codes == 3, -1, codes), None
    if kind == "strings":
        return np.array(["ant", "bee", "cat", "dog"])[codes], None
    if kind == "plus_minus_one":
        return np.where(codes % 2 == 0, -1, 1), None
    if kind == "responses":  # floating-point targets (CSI: regression)
        v = draw(st.sampled_from([0.0, 1.0, 1e300]))
        return codes * v + draw(st.sampled_from([0.0, 2.5])), None
    if kind == "nan_labels":
        y = codes.astype(float)
        y[draw(st.integers(0, n - 1))] = np.nan
        return y, "y holds NaN labels"
    assert kind == "wrong_length"
    return np.append(codes, 0), "len(y) != n_samples"


# Corruptions of an explicit pair set: name -> whether it makes the set invalid.
PAIR_CORRUPTIONS = ("none", "out_of_range", "negative_index", "self_pair", "bad_sign",
                    "fractional_sign", "float_index", "nan_index", "huge_index",
                    "nan_bound_partial", "negative_bound", "inf_bound", "empty",
                    "five_columns", "one_dimensional", "ragged", "two_d_field")


@st.composite
def pair_sets(draw, n):
    """(constraints, invalid): explicit pairs in one of four forms, maybe corrupted."""
    m = draw(st.integers(1, 12))
    idx = st.integers(0, max(n - 1, 0))
    i = np.array(draw(st.lists(idx, min_size=m, max_size=m)), dtype=float)
    j = np.array(draw(st.lists(idx, min_size=m, max_size=m)), dtype=float)
    j = np.where(i == j, (j + 1) % max(n, 1), j)  # distinct unless n == 1
    sign = np.array(draw(st.lists(st.sampled_from([1.0, -1.0]), min_size=m, max_size=m)))
    bound = np.array(draw(st.lists(
        st.one_of(st.just(np.nan), st.floats(0, 50, allow_subnormal=False, width=32),
                  st.sampled_from([0.0, 1e-300, 1e300])),
        min_size=m, max_size=m)))
    # one set in four is corrupted (the shrinker moves towards valid sets)
    how = draw(st.sampled_from(PAIR_CORRUPTIONS)) if draw(st.integers(0, 3)) == 3 else "none"
    invalid = None if (how == "none" and n > 1) else how if how != "none" else "i == j (n=1)"
    if how == "nan_bound_partial":
        invalid = None  # NaN bounds are legal: filled by the ``bounds`` rule
    k = draw(st.integers(0, m - 1))
    if how == "out_of_range":
        i[k] = n + draw(st.integers(0, 3))
    elif how == "negative_index":
        j[k] = -1
    elif how == "self_pair":
        j[k] = i[k]
    elif how == "bad_sign":
        sign[k] = draw(st.sampled_from([0.0, 2.0, 257.0, -3.0]))
    elif how == "fractional_sign":
        sign[k] = 1.5
    elif how == "float_index":
        i[k] = 0.7
    elif how == "nan_index":
        i[k] = np.nan
    elif how == "huge_index":
        i[k] = 2.0**63
    elif how == "nan_bound_partial":
        bound[k] = np.nan
    elif how == "negative_bound":
        bound[k] = -1.0
    elif how == "inf_bound":
        bound[k] = np.inf
    form = draw(st.sampled_from(["array4", "array3", "object", "tuple"]))
    if form == "array3" and how in ("negative_bound", "inf_bound"):
        form = "array4"  # (three columns would drop the corrupted bound)
    if how == "empty":
        return np.zeros((0, 4)), invalid
    if how == "five_columns":
        return np.column_stack([i, j, sign, bound, bound]), invalid
    if how == "one_dimensional":
        return np.array([i[0], j[0], sign[0], 1.0]), invalid
    if how == "ragged":
        rows = [[i[r], j[r], sign[r], bound[r]] for r in range(m)]
        rows[k] = rows[k][:3] if k or m == 1 else rows[k]
        rows[-1] = rows[-1][:2]
        return rows, invalid
    if how == "two_d_field":  # (a tuple: the fit builds the PairConstraints)
        return (np.stack([i, i]), np.stack([j, j]), np.tile(sign, 2),
                np.tile(bound, 2)), invalid
    if form == "array3":
        return np.column_stack([i, j, sign]), invalid
    if form == "array4":
        return np.column_stack([i, j, sign, bound]), invalid
    if form == "tuple":
        return (i, j, sign, bound), invalid
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with np.errstate(all="ignore"):
                return PairConstraints(i, j, sign, bound), invalid
        except Exception as exc:  # the container itself refused: fine if clean
            return _Refused(exc), invalid


class _Refused:
    """A container whose construction raised (checked like a fit error)."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f"<constructor raised {self.exc!r}>"


TRIPLET_CORRUPTIONS = ("none", "none", "out_of_range", "repeated_point", "float_index",
                       "nan_index", "four_columns", "flat_four", "ragged", "negative_index")


@st.composite
def triplet_sets(draw, n, max_m=10):
    """(triplets, invalid): outlier or equality triplets, maybe corrupted."""
    m = draw(st.integers(1, max_m))
    if n < 3:
        rows = np.array(draw(st.lists(st.lists(st.integers(0, max(n - 1, 0)), min_size=3,
                                               max_size=3), min_size=m, max_size=m)),
                        dtype=float)
        return rows, None  # every triplet repeats a point: valid, skipped
    rows = np.array([draw(st.permutations(range(n)))[:3] for _ in range(m)], dtype=float)
    how = (draw(st.sampled_from(TRIPLET_CORRUPTIONS)) if draw(st.integers(0, 3)) == 3
           else "none")
    k = draw(st.integers(0, m - 1))
    if how == "out_of_range":
        rows[k, 2] = n
    elif how == "negative_index":
        rows[k, 0] = -1
    elif how == "repeated_point":  # valid (tests/test_self_tuples.py): skipped
        rows[k, 1] = rows[k, 0]
        return rows, None
    elif how == "float_index":
        rows[k, 0] = 0.5
    elif how == "nan_index":
        rows[k, 1] = np.nan
    elif how == "four_columns":
        return np.column_stack([rows, rows[:, :1]]), how
    elif how == "flat_four":
        return rows.reshape(-1)[:4] if rows.size >= 4 else np.zeros(4), how
    elif how == "ragged":
        out = rows.tolist()
        out[k] = out[k][:2]
        return (out, how) if m > 1 else ([out[0], [0.0, 1.0, 2.0, 3.0]], how)
    return rows, None if how == "none" else how


KERNELS = ("linear", "rbf", "linear", "poly", "rbf", "laplacian", "sigmoid", "cosine",
           "precomputed", "linear", linear_callable, nan_callable)


@st.composite
def kernel_params(draw, kernels=KERNELS):
    """Kernel parameters shared by the kernel estimators."""
    kernel = draw(st.sampled_from(kernels))
    return dict(
        kernel=kernel,
        gamma=draw(st.sampled_from([None, 0.1, 10.0])),
        degree=draw(st.sampled_from([3, 2, 3, 400])),
        coef0=draw(st.sampled_from([1, 0, 1, 0.5, 1, np.nan])),
    )


def _kernel_matrix(X, params):
    """The kernel matrix k(X, X) as sklearn computes it (NaN-tolerant)."""
    kernel = params["kernel"]
    if kernel == "adaptive_rbf":
        return None
    Xf = np.asarray(X, dtype=np.float64)
    kw = {} if callable(kernel) else {k: params[k] for k in ("gamma", "degree", "coef0")}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return pairwise_kernels(Xf, metric=kernel, filter_params=True, **kw)
        except ValueError:  # NaN in X
            return np.full((Xf.shape[0], Xf.shape[0]), np.nan)


@st.composite
def kernel_input(draw, X, invalid, params):
    """X as the estimator gets it (a kernel matrix for 'precomputed'), and
    why the input is invalid (non-finite kernel, non-symmetric matrix)."""
    if params["kernel"] == "precomputed":
        inner = draw(st.sampled_from(["linear", "rbf"]))
        K = _kernel_matrix(X, dict(params, kernel=inner, coef0=1))
        if draw(st.integers(0, 5)) == 0 and K.shape[0] > 1:
            K = K.copy()
            K[0, -1] += 1.0 + abs(K[0, -1])
            invalid = invalid or "precomputed kernel is not symmetric"
        X = K
        Kf = K
    else:
        Kf = _kernel_matrix(X, params)
    if invalid is None and Kf is not None and not np.isfinite(Kf).all():
        invalid = "kernel values are not finite"
    if invalid is None and Kf is None and _sqdist_overflow(X):
        invalid = "squared distances overflow"
    return X, invalid


def _sqdist_overflow(X):
    """Whether some pairwise squared distance of the rows of X is not finite."""
    with np.errstate(all="ignore"):
        Xf = np.asarray(X, dtype=np.float64)
        D = Xf[:, None, :] - Xf[None, :, :]
        return not np.isfinite(np.einsum("ijk,ijk->ij", D, D)).all()


def _common_pair_params(draw):
    return dict(
        n_constraints=draw(st.one_of(st.none(), st.integers(1, 30))),
        bounds=draw(st.sampled_from(["relative", "percentile", (1.0, 4.0)])),
        epsilon=draw(st.sampled_from([0.25, 0.0, 0.9])),
        unlabeled=draw(st.sampled_from([-1, None])),
        tol=draw(st.sampled_from([1e-3, 1e-4])),
        max_iter=draw(st.sampled_from([30, 200])),
        random_state=0,
    )


@st.composite
def pair_learner_cases(draw, Estimator):
    """A Case for ITMLTransformer / LogDet / von Neumann / DefiniteBoost."""
    X, invalid = draw(datasets())
    n = X.shape[0]
    if n < 2:
        invalid = invalid or "one sample"
    params = _common_pair_params(draw)
    is_db = Estimator is DefiniteBoost
    if not is_db:
        params["slack"] = draw(st.sampled_from([np.inf, 1.0, 1e3]))
        params["order"] = draw(st.sampled_from(["random", "cyclic"]))
    if Estimator is ITMLTransformer:
        prior = draw(st.sampled_from(["identity", "covariance", "identity",
                                          "matrix", "bad_matrix"]))
        d = X.shape[1]
        if prior == "matrix":
            prior = np.eye(d) * 2.0
        elif prior == "bad_matrix":
            prior = -np.eye(d)
            invalid = invalid or "prior is not positive definite"
        params["prior"] = prior
        Xk = X
        if invalid is None and _sqdist_overflow(X):
            invalid = "squared distances overflow"
    else:
        kp = draw(kernel_params())
        identity = is_db and draw(st.booleans())  # DefiniteBoost(init='identity')
        if identity:  # the kernel is not used: only X's own validity counts
            Xk, _ = draw(kernel_input(X, invalid, kp))
        else:
            Xk, invalid = draw(kernel_input(X, invalid, kp))
        params.update(kp)
        params["rank"] = draw(st.one_of(st.none(), st.integers(1, 6)))
        params["low_rank"] = draw(st.sampled_from(["cholesky", "cholesky", "csi"]))
    if is_db:
        params.update(
            selection=draw(st.sampled_from(["greedy", "cyclic"])),
            projection=draw(st.sampled_from(["exact", "approximate"])),
            dual_correction=draw(st.booleans()),
            init="identity" if identity else "kernel",
        )
    est = Estimator(**params)
    hard = is_db or params["slack"] == np.inf
    mode = draw(st.sampled_from(["labels", "constraints"] + (["partial_fit"] * is_db)))
    y, y_invalid = draw(labels(n))
    if mode == "labels":
        return Case(est, Xk, {"y": y}, invalid=invalid or y_invalid, hard=hard,
                    probe=draw(st.sampled_from([1.0, 1e200])))
    if mode == "partial_fit":
        m = draw(st.integers(1, 6))
        # pairs (i, j, +1, target): MEG regresses a pair's distance onto its bound
        rows = [[draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)), 1.0,
                 draw(st.sampled_from([0.0, 0.5, 2.0, 1e300]))] for _ in range(m)]
        est.set_params(learning_rate=draw(st.sampled_from([0.5, 1e300])))
        return Case(est, Xk, {"constraints": np.array(rows, dtype=float)},
                    method="partial_fit", invalid=invalid, hard=False)
    constraints, c_invalid = draw(pair_sets(n))
    kwargs = {"constraints": constraints}
    if params.get("low_rank") == "csi" or draw(st.booleans()):  # labels as well
        kwargs = {"y": y, **kwargs}
        c_invalid = c_invalid or (y_invalid if params.get("low_rank") == "csi" else None)
    return Case(est, Xk, kwargs, invalid=invalid or c_invalid, hard=hard,
                probe=draw(st.sampled_from([1.0, 1e200])))


@st.composite
def sklr_cases(draw):
    X, invalid = draw(datasets())
    n = X.shape[0]
    if n < 2:
        invalid = invalid or "one sample"
    kernel = draw(st.sampled_from(("adaptive_rbf",) + KERNELS))
    kp = draw(kernel_params(kernels=[kernel]))
    Xk, invalid = draw(kernel_input(X, invalid, kp))
    n_clusters = draw(st.integers(1, 4))
    if n < n_clusters:
        invalid = invalid or "n_samples < n_clusters"
    est = SKLRClusterer(
        n_clusters, **kp,
        n_neighbors=draw(st.integers(1, 8)),
        energy=draw(st.sampled_from([0.99, 0.5, 1.0])),
        rank=draw(st.one_of(st.none(), st.integers(1, 6))),
        margin=draw(st.sampled_from([np.sqrt(2.0), 1.05, 3.0])),
        slack=draw(st.sampled_from([None, np.inf, 1.0, 10.0])),
        equality_slack=draw(st.sampled_from([None, 1.0])),
        n_triplets=draw(st.one_of(st.none(), st.integers(1, 30))),
        unlabeled=draw(st.sampled_from([-1, None])),
        order=draw(st.sampled_from(["random", "cyclic"])),
        n_init=1,
        max_iter=draw(st.sampled_from([30, 100])),
        tol=draw(st.sampled_from([1e-3, 1e-4])),
        random_state=0,
    )
    hard = est.slack in (None, np.inf) or est.equality_slack is None
    probe = draw(st.sampled_from([1.0, 1e200]))
    if draw(st.booleans()):
        y, y_invalid = draw(labels(n))
        return Case(est, Xk, {"y": y}, invalid=invalid or y_invalid, hard=hard, probe=probe)
    kwargs = {}
    if draw(st.booleans()):
        kwargs["triplets"], t_invalid = draw(triplet_sets(n))
        invalid = invalid or t_invalid
    if not kwargs or draw(st.booleans()):
        kwargs["equal_triplets"], t_invalid = draw(triplet_sets(n, max_m=4))
        invalid = invalid or t_invalid
    return Case(est, Xk, kwargs, invalid=invalid, hard=hard, probe=probe)


@st.composite
def csi_cases(draw):
    X, invalid = draw(datasets())
    n = X.shape[0]
    kp = draw(kernel_params())
    Xk, invalid = draw(kernel_input(X, invalid, kp))
    rank = draw(st.one_of(st.none(), st.integers(1, 8)))
    if rank is not None and rank > n:
        invalid = invalid or "rank > n_samples"
    est = CSIDecomposition(**kp, rank=rank,
                           kappa=draw(st.sampled_from([0.99, 0.0, 0.5, 1.0])),
                           delta=draw(st.sampled_from([40, 0, 1, 3])),
                           tol=draw(st.sampled_from([1e-4, 0.0])),
                           center=draw(st.booleans()), random_state=0)
    kwargs = {}
    if draw(st.integers(0, 3)):
        y, y_invalid = draw(labels(n, LABEL_PATTERNS + ("responses",)))
        kwargs["y"] = y
        invalid = invalid or y_invalid
    return Case(est, Xk, kwargs, invalid=invalid,
                probe=draw(st.sampled_from([1.0, 1e200])))


@st.composite
def kernel_kmeans_cases(draw):
    X, invalid = draw(datasets())
    n = X.shape[0]
    kp = draw(kernel_params())
    Xk, invalid = draw(kernel_input(X, invalid, kp))
    n_clusters = draw(st.integers(1, 4))
    if n < n_clusters:
        invalid = invalid or "n_samples < n_clusters"
    est = KernelKMeans(n_clusters, **kp, rank=draw(st.one_of(st.none(), st.integers(1, 6))),
                       n_init=draw(st.sampled_from([1, 3])),
                       max_iter=draw(st.sampled_from([300, 2])), random_state=0)
    return Case(est, Xk, {}, invalid=invalid,
                probe=draw(st.sampled_from([1.0, 1e200])))


@st.composite
def scorer_cases(draw):
    X, invalid = draw(datasets())
    n = X.shape[0]
    y, y_invalid = draw(labels(n, LABEL_PATTERNS + ("nan_labels",)))
    which = draw(st.sampled_from(["knn", "kmeans_nmi", "kmeans_ari"]))
    if which == "knn":
        scorer = knn_scorer(draw(st.integers(1, 6)), unlabeled=draw(st.sampled_from([-1, None])))
    else:
        scorer = kernel_kmeans_scorer(which[-3:], n_init=1, random_state=0,
                                      unlabeled=draw(st.sampled_from([-1, None])))
    if invalid is None and _sqdist_overflow(X):
        invalid = "squared distances overflow"
    return scorer, X, y, invalid or y_invalid


# --------------------------------------------------------------------------- #
# The contract, in reusable pieces
# --------------------------------------------------------------------------- #

_VIOLATIONS = {}


def violation(kind, message):
    """An AssertionError of a class named after ``kind``: hypothesis tells
    bugs apart by exception type and line, so that "transform not finite"
    and "total_loss_ not finite" (one line of ``assert_finite``) or two
    reasons to reject an input are reported (and shrunk) separately."""
    name = "Violation_" + "".join(c if c.isalnum() else "_" for c in kind)[:60]
    cls = _VIOLATIONS.setdefault(name, type(name, (AssertionError,), {}))
    return cls(message)


def note(text):
    """hypothesis' ``note`` (the reproducer printed with a falsifying
    example), also usable from the plain pinned tests."""
    try:
        _hypothesis_note(text)
    except InvalidArgument:  # outside a hypothesis test
        pass


def _raising_file(exc):
    tb, last = exc.__traceback__, None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last or ""


def _package_caller(exc):
    """``file:line`` of the package's last frame in the traceback."""
    tb, where = exc.__traceback__, "?"
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if "sklearn_bregman" in f:
            where = f"{os.path.basename(f)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def check_clean_error(exc, case_invalid=None, labels_only=False):
    """Branch (a): a ValueError / TypeError raised by the package (or by
    scikit-learn's validation) with a message of its own.  Anything else is
    re-raised as it is, so that hypothesis reports each bug at its origin."""
    from numpy.linalg import LinAlgError

    if not isinstance(exc, (ValueError, TypeError)) or isinstance(exc, LinAlgError):
        raise exc
    where = _raising_file(exc)
    ours = "sklearn_bregman" in where or where.startswith(_PACKAGE_DIR)
    validation = where.startswith(_SKLEARN_VALIDATION)
    if not ours and not validation and where.startswith(_FOREIGN):
        raise violation(f"dependency error via {_package_caller(exc)}",
                        f"error raised inside a dependency ({where}), called from "
                        f"{_package_caller(exc)}: {exc!r}") from exc
    msg = str(exc).strip()
    assert msg, f"{type(exc).__name__} without a message"
    low = msg.lower()
    for w in _NUMPY_WORDING:
        if w in low:
            raise violation(f"numpy wording {w}", f"NumPy's wording, not ours: {msg!r}")
    if labels_only:
        assert not low.startswith("constraints"), (
            f"the user passed labels only, but the error blames 'constraints': {msg!r}")


def fit_case(case):
    """Fit on a copy of ``case.X``; return (estimator, error, warnings, X_copy)."""
    Xc = case.X.copy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with np.errstate(all="ignore"):
                getattr(case.estimator, case.method)(Xc, **case.kwargs)
        except Exception as exc:  # checked by the caller
            return case.estimator, exc, caught, Xc
    return case.estimator, None, caught, Xc


def expect_outcome(case, labels_only=False):
    """Run the fit; on an error check branch (a) and return None, else
    return (estimator, warnings, X_copy) for the branch (b) checks."""
    note(repr(case))
    for v in case.kwargs.values():
        if isinstance(v, _Refused):
            check_clean_error(v.exc, case.invalid)
            return None
    est, exc, caught, Xc = fit_case(case)
    if exc is not None:
        check_clean_error(exc, case.invalid, labels_only)
        return None
    if case.invalid is not None:
        raise violation(f"accepted {case.invalid}",
                        f"invalid input accepted without an error ({case.invalid})")
    return est, caught, Xc


def assert_finite(name, value):
    value = np.asarray(value, dtype=np.float64)
    if not np.isfinite(value).all():
        raise violation(f"{name.split('(')[0]} not finite",
                        f"{name} is not finite: {value.ravel()[:8]}")


def assert_psd(name, M):
    M = np.asarray(M, dtype=np.float64)
    assert_finite(name, M)
    scale = max(np.abs(M).max(initial=0.0), np.finfo(float).tiny)
    if np.abs(M - M.T).max(initial=0.0) > 1e-8 * scale:
        raise violation(f"{name} not symmetric", f"{name} is not symmetric")
    w = np.linalg.eigvalsh((M + M.T) / 2)
    if w.min(initial=0.0) < -PSD_RTOL * max(abs(w).max(initial=0.0), 1e-300):
        raise violation(f"{name} not PSD",
                        f"{name} is not PSD: eigenvalues {w[:3]} ... {w[-1:]}")


def check_convergence_reported(est, caught):
    """``converged_`` is a bool, and False comes with a ConvergenceWarning."""
    assert est.converged_ in (True, False), f"converged_={est.converged_!r}"
    if not est.converged_:
        assert any(issubclass(w.category, ConvergenceWarning) for w in caught), (
            "converged_=False without a ConvergenceWarning")


def check_owns_data(est, case, Xc, method="transform"):
    """Changing the caller's training array after fit changes nothing."""
    if not hasattr(est, method):
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            before = getattr(est, method)(case.X)
        except (ValueError, TypeError):
            return
        Xc[...] = Xc[::-1].copy() if Xc.shape[0] > 1 else 0
        if Xc.dtype.kind in "fi":
            Xc += 1
        after = getattr(est, method)(case.X)
    assert np.array_equal(np.asarray(before), np.asarray(after), equal_nan=True), (
        f"{method} depends on the caller's training array after fit")


def check_transform_probe(est, case, method="transform"):
    """``transform`` of finite new points is finite, or a clean error."""
    Xp = np.asarray(case.X, dtype=np.float64) * case.probe
    if not np.isfinite(Xp).all():
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            out = getattr(est, method)(Xp)
        except Exception as exc:
            check_clean_error(exc)
            return
    assert_finite(f"{method}(X * {case.probe:g})", out)


def _zero_length(G, i, j):
    """Pairs whose squared distance is negligible against the data's scale: at
    most ``ZERO_RTOL`` of the largest squared norm of a row of the initial
    factor, the user guide's definition (kernel values carry rounding errors of
    about eps times that scale)."""
    G = np.asarray(G, dtype=np.float64)
    d0 = np.einsum("ij,ij->i", G[i] - G[j], G[i] - G[j])
    scale = np.einsum("ij,ij->i", G, G).max(initial=0.0)
    return d0 <= ZERO_RTOL * scale


def _validated(case, est):
    """The training input as the estimator validated it (float64)."""
    return np.asarray(case.X, dtype=np.float64)


def check_pair_constraints_hold(est, case, Z, G0, reach=None):
    """Hard constraints: converged_ only if every non-skipped pair holds."""
    pc = est.constraints_
    rtol = max(HARD_RTOL, getattr(est, "tol", 0.0))
    D = Z[pc.i] - Z[pc.j]
    d = np.einsum("ij,ij->i", D, D)
    skip = _zero_length(G0, pc.i, pc.j)
    if reach is not None:  # DefiniteBoost: out of reach of every trace-one kernel
        skip |= (pc.sign < 0) & (pc.bound >= reach * (1 - 1e-12))
    scale = np.einsum("ij,ij->i", Z, Z).max(initial=0.0)
    slackness = rtol * pc.bound + 1e-10 * scale
    violation = pc.sign * (d - pc.bound) - slackness
    bad = np.flatnonzero(~skip & (violation > 0))
    if bad.size:
        k = bad[np.argmax(violation[bad])]
        raise AssertionError(
            f"converged_=True with hard constraints, but {bad.size} of {len(pc)} "
            f"constraints are violated; worst: row {k}, pair ({pc.i[k]}, {pc.j[k]}), "
            f"sign {pc.sign[k]:+d}, bound {pc.bound[k]:.6g}, learned squared "
            f"distance {d[k]:.6g}")


# --------------------------------------------------------------------------- #
# One check per family
# --------------------------------------------------------------------------- #

def check_pair_learner(case):
    """ITMLTransformer, LogDetKernelLearner, VonNeumannKernelLearner, DefiniteBoost."""
    labels_only = "constraints" not in case.kwargs
    outcome = expect_outcome(case, labels_only=labels_only)
    if outcome is None:
        return
    est, caught, Xc = outcome
    X = _validated(case, est)
    assert_psd("metric_", est.metric_)
    assert_finite("components_", est.components_)
    linear = hasattr(est, "get_mahalanobis_matrix")  # components_ on the input
    if est.metric_.size and not (linear and not isinstance(est, ITMLTransformer)):
        np.testing.assert_allclose(
            est.components_.T @ est.components_, est.metric_,
            atol=1e-8 * np.abs(est.metric_).max(), err_msg="metric_ != L'L")
    if isinstance(est, ITMLTransformer):
        Z, G0 = est.transform(X), X
    else:
        Z = est.embedding_
        assert_finite("embedding_", Z)
        assert_psd("learned kernel embedding_ @ embedding_.T", Z @ Z.T)
        G0 = (np.eye(X.shape[0]) / np.sqrt(X.shape[0]) if est.factor_ is None
              else est.factor_.transform(X))
        # the learned kernel is G0 M G0', whatever coordinates components_ uses
        K, F = Z @ Z.T, np.eye(X.shape[0]) if est.factor_ is None else G0
        np.testing.assert_allclose(F @ est.metric_ @ F.T, K,
                                   atol=1e-8 * max(np.abs(K).max(), 1e-300),
                                   err_msg="embedding_ embedding_' != G0 metric_ G0'")
    if linear:
        L = est.components_
        np.testing.assert_allclose(est.get_mahalanobis_matrix(), L.T @ L,
                                   err_msg="get_mahalanobis_matrix() != L'L")
        Zx = est.transform(X)
        np.testing.assert_allclose(Zx, X @ L.T, atol=1e-9 * max(np.abs(Zx).max(), 1e-300),
                                   err_msg="transform(X) != X L'")
    assert_finite("the training points' coordinates", Z)
    if case.method == "partial_fit":
        assert_finite("total_loss_", est.total_loss_)
        return
    assert_finite("dual_coef_", est.dual_coef_)
    check_convergence_reported(est, caught)
    if case.hard and est.converged_:
        reach = None
        if isinstance(est, DefiniteBoost):
            U = np.linalg.svd(G0, full_matrices=False)[0]
            V = U[est.constraints_.i] - U[est.constraints_.j]
            reach = np.einsum("ij,ij->i", V, V)
        check_pair_constraints_hold(est, case, Z, G0, reach)
    check_transform_probe(est, case)
    check_owns_data(est, case, Xc)


def check_sklr(case):
    outcome = expect_outcome(case)
    if outcome is None:
        return
    est, caught, Xc = outcome
    X = _validated(case, est)
    n = X.shape[0]
    E = est.embedding_
    assert_finite("embedding_", E)
    assert_psd("metric_", est.metric_)
    assert_psd("learned kernel embedding_ @ embedding_.T", E @ E.T)
    assert_finite("dual_coef_", est.dual_coef_)
    assert_finite("cluster_centers_", est.cluster_centers_)
    assert np.isfinite(est.inertia_) and est.inertia_ >= 0, f"inertia_={est.inertia_}"
    assert est.labels_.shape == (n,) and set(np.unique(est.labels_)) <= set(
        range(est.n_clusters)), f"labels_={est.labels_}"
    with np.errstate(all="ignore"):
        T = est.transform(X)
    assert_finite("transform(X)", T)
    check_convergence_reported(est, caught)
    if est.converged_ and len(est.triplets_):
        check_triplets_hold(est, E, est.factor_.transform(X))
    check_transform_probe(est, case)
    check_owns_data(est, case, Xc)


def check_triplets_hold(est, E, G0):
    """Hard triplets (SKLR): converged_ only if every non-degenerate row holds."""
    a, b, c, kind, gamma2, _ = est.triplets_.rows(est.margin)
    hard_ineq = est.slack is None or est.slack == np.inf
    hard_eq = est.equality_slack is None or est.equality_slack == np.inf
    # rows() lists the two rows of every outlier triplet first
    n_out = 2 * est.triplets_.outlier.shape[0]
    is_ineq = np.arange(a.size) < n_out
    check = np.where(is_ineq, hard_ineq, hard_eq)
    u, w = G0[a] - G0[b], G0[a] - G0[c]
    uu, ww, uw = (np.einsum("ij,ij->i", p, q) for p, q in ((u, u), (w, w), (u, w)))
    scale = np.einsum("ij,ij->i", G0 - G0.mean(0), G0 - G0.mean(0)).max(initial=0.0)
    degenerate = (uu * ww - uw**2 <= 1e-8 * uu * ww) | (np.minimum(uu, ww) <= ZERO_RTOL * scale)
    dab = np.einsum("ij,ij->i", E[a] - E[b], E[a] - E[b])
    dac = np.einsum("ij,ij->i", E[a] - E[c], E[a] - E[c])
    rtol = max(HARD_RTOL, est.tol)
    atol = 1e-10 * np.einsum("ij,ij->i", E, E).max(initial=0.0)
    lhs = gamma2 * dab
    viol = np.where(is_ineq, lhs - dac, np.abs(lhs - dac)) - rtol * np.maximum(lhs, dac) - atol
    bad = np.flatnonzero(check & ~degenerate & (viol > 0))
    if bad.size:
        k = bad[np.argmax(viol[bad])]
        raise AssertionError(
            f"converged_=True with hard triplets, but {bad.size} of {a.size} rows are "
            f"violated; worst: row {k} ({'outlier' if is_ineq[k] else 'equality'}, points "
            f"{a[k]}, {b[k]}, {c[k]}): gamma^2 d(a,b) = {lhs[k]:.6g}, d(a,c) = {dac[k]:.6g}")


def check_csi(case):
    outcome = expect_outcome(case)
    if outcome is None:
        return
    est, caught, Xc = outcome
    X = _validated(case, est)
    G = est.embedding_
    n = X.shape[0]
    assert_finite("embedding_", G)
    assert G.shape == (n, est.rank_) and est.rank_ >= 1
    if est.rank is not None:
        assert est.rank_ <= est.rank
    assert len(set(est.pivots_.tolist())) == est.rank_, f"pivots_={est.pivots_}"
    assert_psd("learned kernel embedding_ @ embedding_.T", G @ G.T)
    assert_finite("approximation_error_", est.approximation_error_)
    assert_finite("prediction_error_", est.prediction_error_)
    K = X if est.kernel == "precomputed" else _kernel_matrix(X, est.get_params())
    diag = np.diag(K)
    top = max(np.abs(diag).max(initial=0.0), 1e-300)
    resid = diag - np.einsum("ij,ij->i", G, G)
    psd = np.linalg.eigvalsh((K + K.T) / 2).min(initial=0.0) >= -1e-10 * top
    # (the residual K - G G' is PSD only when K is: sigmoid kernels are not)
    assert not psd or resid.min(initial=0.0) >= -1e-8 * top, (
        f"the factor exceeds the kernel's diagonal by {-resid.min():.3g} (of {top:.3g})")
    with np.errstate(all="ignore"):
        T = est.transform(X)
    assert_finite("transform(X)", T)
    np.testing.assert_allclose(T, G, atol=1e-6 * np.sqrt(top), rtol=0,
                               err_msg="transform(X_train) != embedding_")
    check_transform_probe(est, case)
    check_owns_data(est, case, Xc)


def check_kernel_kmeans(case):
    outcome = expect_outcome(case)
    if outcome is None:
        return
    est, caught, Xc = outcome
    n = case.X.shape[0]
    assert np.isfinite(est.inertia_) and est.inertia_ >= 0, f"inertia_={est.inertia_}"
    assert est.labels_.shape == (n,)
    assert set(np.unique(est.labels_)) <= set(range(est.n_clusters)), f"{est.labels_}"
    if hasattr(est, "cluster_centers_"):
        assert_finite("cluster_centers_", est.cluster_centers_)
    with np.errstate(all="ignore"):
        pred = est.predict(np.asarray(case.X, dtype=np.float64))
    assert set(np.unique(pred)) <= set(range(est.n_clusters)), f"predict gives {pred}"
    check_owns_data(est, case, Xc, method="predict")


def check_scorer(scorer, X, y, invalid):
    note(f"\nscorer = {scorer!r}\nX = {_fmt(X)}\ny = {_fmt(np.asarray(y))}\n"
         f"scorer(FunctionTransformer().fit(X), X, y)  # invalid={invalid!r}")
    est = FunctionTransformer().fit(X)
    try:
        with np.errstate(all="ignore"):
            score = scorer(est, X, y)
    except Exception as exc:
        check_clean_error(exc, invalid)
        return
    if invalid is not None:
        raise violation(f"accepted {invalid}",
                        f"invalid input accepted without an error ({invalid})")
    assert np.isfinite(score), f"score {score}"
    low = -1.0 if getattr(scorer, "metric", None) == "ari" else 0.0
    assert low - 1e-12 <= score <= 1 + 1e-12, f"score {score} out of range"


# --------------------------------------------------------------------------- #
# The tests: one per estimator (the profile's max_examples each)
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize(
    "Estimator",
    [ITMLTransformer, LogDetKernelLearner, VonNeumannKernelLearner, DefiniteBoost],
)
def test_pair_learner_contract(Estimator):
    @given(case=pair_learner_cases(Estimator))
    def run(case):
        check_pair_learner(case)

    run()


@given(case=sklr_cases())
def test_sklr_contract(case):
    check_sklr(case)


@given(case=csi_cases())
def test_csi_contract(case):
    check_csi(case)


@given(case=kernel_kmeans_cases())
def test_kernel_kmeans_contract(case):
    check_kernel_kmeans(case)


# (random data with duplicate points: k-means says it found fewer clusters)
@pytest.mark.filterwarnings(
    "ignore:Number of distinct clusters:sklearn.exceptions.ConvergenceWarning")
@given(args=scorer_cases())
def test_scorer_contract(args):
    check_scorer(*args)


# --------------------------------------------------------------------------- #
# Failures hypothesis found once, pinned as examples
# --------------------------------------------------------------------------- #

_TINY = 1.1663351327043966e-19

PINNED = [
    # Pivoted Cholesky of the cosine kernel keeps pivots with zero residual for
    # rows of norm ~1e-19 (kernel_diagonal says 1, the kernel columns say ~0):
    # the factor's L is singular and transform(X) on the training points
    # raises SciPy's LinAlgError.
    pytest.param(Case(LogDetKernelLearner(kernel="cosine", max_iter=30, random_state=0),
                      np.array([[_TINY]] + [[1.0]] * 10 + [[_TINY]] * 23),
                      {"y": np.array([0] * 33 + [1])}),
                 id="cosine-tiny-rows-singular-factor"),
    # Hard constraints with 'percentile' bounds on 1-D data: converged_=True
    # and a negative 1 x 1 metric_ (not PSD).
    pytest.param(Case(LogDetKernelLearner(bounds="percentile", slack=np.inf, max_iter=30,
                                          random_state=0),
                      np.array([[8.777287803241052e-07]] + [[0.0]] * 7 + [[1.0]]
                               + [[0.0]] * 2 + [[8.777287803241052e-07]] * 23),
                      {"y": np.array([0] * 33 + [1])}, hard=True),
                 id="hard-percentile-negative-metric"),
]


@pytest.mark.parametrize("case", PINNED)
def test_pinned_pair_learner_examples(case):
    check_pair_learner(case)
