"""Tuples and identifiers as users pass them: the one place they are checked.

Every method of the package that takes pairs or triplets (``pair_distance``,
``pair_score``, the classifiers' ``fit``, ``predict``, ``decision_function``,
``calibrate_threshold``) and every ``fit`` / ``transform`` that takes points
by identifier goes through this module, so that a tuple is read the same way
everywhere and a bad one gets the same message:

- :func:`tuple_form`: points ``(n, t, n_features)`` or identifiers
  ``(n, t)``; a scalar, a ragged list, an empty array, the wrong ``t`` or
  the wrong number of dimensions is a ValueError that names the argument;
- :func:`check_point_tuples`: point tuples as a float64 array, complex data,
  NaN and inf refused (scikit-learn's ``check_array``: "Complex data not
  supported", metric-learn's message; complex numbers in an object array
  the same words naming the tuples, values that are not numbers the
  package's error naming them);
- :class:`Preprocessor`: identifiers to rows, through an array (integer
  indices into its rows) or a callable (any hashable identifiers: file
  names, database keys), whose output is checked against the identifiers
  (one 2-D row per identifier: a ValueError naming the preprocessor and
  both counts otherwise; sparse rows are densified);
- :func:`check_tuples`: either form as points;
- :func:`points_of`: a ``fit`` / ``transform`` argument ``X`` given as a 1-D
  array of identifiers, through the estimator's ``preprocessor``; any other
  ``X`` checked by :func:`check_rows` (numbers, or the package's error
  naming ``X``), and at a fitting call the ``preprocessor`` itself by
  :func:`check_preprocessor`;
- :func:`check_preprocessor`: rows (an array-like of shape (n_samples,
  n_features)), a sparse matrix or a callable, or a TypeError / ValueError
  naming ``preprocessor`` and what it got (a dict passes scikit-learn's
  "array-like" parameter check);
- :func:`check_rows`: an array-like of numbers, before scikit-learn's
  ``validate_data`` sees it: ``None``, a dict, a set, a string, an iterator,
  ragged rows and values that are not numbers (in a list, an object array
  or a DataFrame's object columns) get the package's error naming the
  argument instead of NumPy's conversion message, complex numbers there
  "Complex data not supported" naming it;
- :func:`refuse_sparse_kernel`: a precomputed kernel must be dense.

The forms are metric-learn's (``preprocessor``, ``(n, 2)`` index pairs), so
that code written for it runs here unchanged.
"""

from collections.abc import Iterator, Mapping, Set
from numbers import Integral, Number

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .._utils._sklearn_compat import InvalidParameterError, is_arraylike_not_scalar

__all__ = ["Preprocessor", "check_point_tuples", "check_preprocessor", "check_rows",
           "check_tuples", "complex_value", "points_of", "refuse_sparse_kernel", "tuple_form",
           "unique_identifiers"]

_SINGULAR = {"pairs": "pair", "pairs_valid": "pair", "triplets": "triplet",
             "quadruplets": "quadruplet"}


def _shape(obj, name):
    """``np.shape`` of a user's argument, with a message naming it when the
    nesting is ragged (numpy's 'inhomogeneous shape')."""
    try:
        return np.shape(obj)
    except ValueError:
        raise ValueError(
            f"{name}: the rows have unequal lengths (a ragged list); every "
            f"{_SINGULAR.get(name, 'row')} must have the same number of entries."
        ) from None


def _not_an_array(obj):
    """Whether ``obj`` is a value numpy would take as one object rather than
    as rows: ``None``, a dict, a set, a string, an iterator (a generator).
    (A scipy sparse matrix is rows, although SciPy's DOK format is a dict.)"""
    return not sp.issparse(obj) and (
        obj is None or isinstance(obj, (Mapping, Set, str, bytes, Iterator)))


def _as_numbers(arr, name, owner=""):
    """``arr`` (an ndarray, a list or a tuple) as a float64 ndarray, or the
    exception NumPy raised converting it (same type: a TypeError for a dict
    among the values, a ValueError for a string that is not a number), with
    the argument's name in front."""
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        who = f"{owner}: " if owner else ""
        raise type(exc)(
            f"{who}{name} must hold numbers; {exc}."
        ) from None


def complex_value(arr):
    """The first complex number the object array ``arr`` holds, or ``None``
    (``None`` for any other dtype: the scan is over object arrays only).

    NumPy converts such an array to float64 with a TypeError that names
    nothing ("float() argument must be ... not 'complex'"), and
    scikit-learn's "Complex data not supported" reads the dtype only
    (``dtype.kind == 'c'``), so an object array never gets it."""
    if arr.dtype.kind != "O":
        return None
    return next((v for v in arr.flat if isinstance(v, (complex, np.complexfloating))),
                None)


def _refuse_complex(value, what, name, owner=""):
    """The refusal of complex data held where a complex dtype does not show
    it (``value``, one of the numbers, is not ``None``): scikit-learn's
    wording for a complex array, naming ``name`` and where the number was."""
    if value is not None:
        who = f"{owner}: " if owner else ""
        raise ValueError(
            f"{who}{name}: Complex data not supported; got {what} holding complex "
            f"numbers, e.g. {complex(value)!r}."
        )


def _object_columns(X):
    """The columns of object dtype of a pandas DataFrame ``X`` as one object
    array (``None`` if ``X`` is not a DataFrame or has no such column): the
    only ones whose values NumPy's conversion may fail on."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns") or not hasattr(X, "iloc"):
        return None
    try:
        columns = [k for k, dt in enumerate(dtypes) if getattr(dt, "kind", "") == "O"]
    except TypeError:  # (a Series: one dtype, not iterable)
        return None
    if not columns:
        return None
    return np.asarray(X.iloc[:, columns].to_numpy(dtype=object))


def check_rows(X, name="X", owner=""):
    """``X`` ready for scikit-learn's ``validate_data``, or the package's error
    naming ``name``.

    Only what NumPy would otherwise reject with a message that names nothing
    is looked at: ``None``, a dict, a set, a string or an iterator (a
    TypeError saying what ``X`` is), ragged rows (a ValueError), and a list,
    a tuple, or an array of objects or strings whose values are not numbers
    (the conversion's TypeError or ValueError, naming ``X``), and the object
    columns of a DataFrame alike.  Complex numbers in a list, an object array
    or an object column are a ValueError naming ``X`` with the wording
    ``validate_data`` gives a complex array ("Complex data not supported",
    which scikit-learn's ``check_estimator`` asks for; ``validate_data``
    itself would only see a failed conversion); a complex array is left to
    ``validate_data``.  ``X`` itself is returned, never a copy
    (``validate_data`` converts it); arrays of numbers, sparse matrices, data
    frames without object columns and dask arrays are not read at all.
    """
    who = f"{owner}: " if owner else ""
    if _not_an_array(X):
        raise TypeError(
            f"{who}{name} must be an array-like of shape (n_samples, n_features) or a "
            f"sparse matrix; got {_what(X)}."
        )
    if isinstance(X, (list, tuple)):
        try:
            arr = np.asarray(X)
        except ValueError:  # numpy's "inhomogeneous shape"
            raise ValueError(
                f"{who}{name}: the rows have unequal lengths (a ragged list); every "
                "row must have the same number of entries."
            ) from None
        if arr.dtype.kind == "c":  # (validate_data converts the list: a TypeError)
            imaginary = np.flatnonzero(arr.imag)
            _refuse_complex(arr.flat[imaginary[0] if imaginary.size else 0],
                            f"a {type(X).__name__}", name, owner)
        check_rows(arr, name, owner)
    elif isinstance(X, np.ndarray) and X.dtype.kind in "OUSV":
        _refuse_complex(complex_value(X), "an object array", name, owner)
        _as_numbers(X, name, owner)
    elif (columns := _object_columns(X)) is not None:
        _refuse_complex(complex_value(columns), "a DataFrame with object columns", name,
                        owner)
        _as_numbers(columns, name, owner)
    return X


def _what(obj):
    """What ``obj`` is, for a message: ``None``, or its type and, for a
    string, its value."""
    if obj is None:
        return "None"
    if isinstance(obj, (str, bytes)):
        return f"a {type(obj).__name__}, {obj[:40]!r}"
    return f"an object of type {type(obj).__name__}"


def refuse_sparse_kernel(X, owner, name="X"):
    """A ValueError naming ``name`` if ``X``, given for ``kernel='precomputed'``,
    is a sparse matrix: a kernel matrix (or kernel values against the
    training points) is taken dense."""
    if sp.issparse(X):
        raise ValueError(
            f"{owner}: {name} with kernel='precomputed' is the kernel matrix (or the "
            "kernel values against the training points) as a dense array; got a sparse "
            f"{type(X).__name__}. Pass X.toarray(), or the points themselves (sparse "
            "rows are welcome) with a kernel name, e.g. kernel='cosine' or 'linear'."
        )


def check_preprocessor(preprocessor, owner):
    """``preprocessor`` checked at a fitting call, whatever form ``X`` has.

    scikit-learn's parameter check (``"array-like"``) passes a dict and a
    set (they have a length); a preprocessor must be rows (an array-like of
    shape (n_samples, n_features)), a scipy sparse matrix or a callable.
    Anything else is scikit-learn's ``InvalidParameterError`` (a TypeError
    and a ValueError) naming ``preprocessor`` and its type; rows of another
    number of dimensions a ValueError.  Only the type and the
    shape are read here (the values are checked where identifiers are
    resolved, :class:`Preprocessor`).
    """
    if preprocessor is None or sp.issparse(preprocessor):
        return
    if callable(preprocessor) and not is_arraylike_not_scalar(preprocessor):
        return
    if _not_an_array(preprocessor) or not is_arraylike_not_scalar(preprocessor):
        # (scikit-learn's class for a parameter of the wrong type: a TypeError and a
        # ValueError, as its own refusal of a number or a string here)
        raise InvalidParameterError(
            f"{owner}: preprocessor must be an array of points (identifiers index its "
            "rows) or a callable (identifiers to rows), or None; got "
            f"{type(preprocessor).__name__}."
        )
    shape = _shape(preprocessor, "preprocessor")
    if len(shape) != 2:
        raise ValueError(
            f"{owner}: preprocessor must be a 2-D array of points, shape (n_samples, "
            f"n_features) (identifiers index its rows); got a {len(shape)}-D "
            f"{type(preprocessor).__name__} of shape {shape}."
        )


def tuple_form(tuples, size, name="pairs", preprocessor=None):
    """``'points'`` or ``'identifiers'``, from the shape of ``tuples``.

    Parameters
    ----------
    tuples : array-like
        ``(n, size, n_features)`` points or ``(n, size)`` identifiers.
    size : int
        Points per tuple: 2 for pairs, 3 for triplets, 4 for quadruplets.
    name : str, default='pairs'
        The argument's name in messages.
    preprocessor : array-like, callable or None, default=None
        Identifiers need one.

    Returns
    -------
    str
        ``'points'`` or ``'identifiers'``.
    """
    shape = _shape(tuples, name)
    expected = (f"{name} must have shape (n_{name}, {size}, n_features) (points) or "
                f"(n_{name}, {size}) (identifiers of points, with a preprocessor)")
    if len(shape) == 0:
        if tuples is None or isinstance(tuples, (Number, str, bytes, np.generic, np.ndarray)):
            raise ValueError(f"{expected}; got a scalar, {tuples!r}.")
        # (a generator, a set, a dict: numpy sees one object, not rows)
        raise ValueError(f"{expected}; got an object of type {type(tuples).__name__}, "
                         "not an array or a list of tuples.")
    if len(shape) not in (2, 3):
        raise ValueError(f"{expected}; got a {len(shape)}-D array of shape {shape}.")
    if shape[1] != size and len(shape) == 2 and preprocessor is None:
        # one tuple of points without its leading axis, e.g. (2, n_features)
        # for one pair: metric-learn's "3D array of formed tuples expected"
        raise ValueError(
            f"{expected}; got a 2-D array of shape {shape} and no preprocessor. "
            f"Points go in as a 3-D array, even for one "
            f"{_SINGULAR.get(name, 'tuple')} (tuples[None] adds the leading axis)."
        )
    if shape[1] != size:
        raise ValueError(
            f"{name}: tuples of {size} points expected; got tuples of {shape[1]} "
            f"(shape {shape})."
        )
    if shape[0] == 0:
        raise ValueError(
            f"{name}: found an empty array (shape {shape}) while at least one "
            f"{_SINGULAR.get(name, 'tuple')} is required."
        )
    if len(shape) == 3:
        return "points"
    if preprocessor is None:
        raise ValueError(
            f"{name} of shape (n_{name}, {size}) are identifiers of points, which need "
            f"a preprocessor (an array they index, or a callable that returns their "
            f"rows); pass points as (n_{name}, {size}, n_features) otherwise."
        )
    return "identifiers"


def check_point_tuples(tuples, size, name="pairs", n_features=None):
    """Point tuples as a float64 ``(n, size, n_features)`` array.

    Complex data, NaN and inf are refused with scikit-learn's messages
    (``check_array``), naming ``name``; complex numbers in an object array
    (which ``check_array`` would only fail to convert) with the same wording,
    naming ``name``; ``n_features``, if given, must match.
    """
    arr = np.asarray(tuples)
    n, t, d = arr.shape
    if d == 0:
        raise ValueError(f"{name}: found points with 0 features (shape {arr.shape}) "
                         "while a minimum of 1 is required.")
    if n_features is not None and d != n_features:
        raise ValueError(
            f"{name}: points have {d} features, but the estimator was fitted on "
            f"{n_features} features."
        )
    if arr.dtype.kind not in "biufc":
        # (a complex array: check_array's message, metric-learn's)
        _refuse_complex(complex_value(arr), "an object array", name)
        arr = _as_numbers(arr, name)
    P = check_array(arr.reshape(n * t, d), dtype=np.float64, input_name=name)
    return P.reshape(n, t, d)


def unique_identifiers(ids):
    """The distinct identifiers of the 1-D array ``ids`` and each one's
    position among them (``np.unique`` where the identifiers sort; first
    appearance order for hashables that do not, e.g. mixed types)."""
    ids = np.asarray(ids)
    try:
        return np.unique(ids, return_inverse=True)
    except TypeError:
        seen = {}
        inverse = np.fromiter((seen.setdefault(k, len(seen)) for k in ids.tolist()),
                              dtype=np.intp, count=ids.shape[0])
        unique = np.empty(len(seen), dtype=object)
        unique[:] = list(seen)
        return unique, inverse


class Preprocessor:
    """Identifiers to rows: through an array's rows or a callable.

    Parameters
    ----------
    preprocessor : array-like or sparse matrix of shape (n_samples, n_features), or callable
        An array (or a scipy sparse matrix): identifiers are integer indices
        into its rows.  A callable:
        ``preprocessor(ids)`` takes a 1-D array of identifiers (any hashable
        values: integers, file names, database keys) and returns their rows,
        one per identifier, as a 2-D array.
    owner : str
        The estimator's name, for messages.

    Notes
    -----
    A pandas DataFrame's column names are the names of its points'
    features: :attr:`points` and :meth:`named_rows` give its rows as a
    DataFrame, so that ``validate_data`` sets them as the ``feature_names_in_``
    of an estimator fitted through it (as if fitted on the frame itself) and
    checks them at its later calls.
    """

    def __init__(self, preprocessor, owner):
        self.owner = owner
        check_preprocessor(preprocessor, owner)
        if preprocessor is None:
            raise ValueError(f"{owner}: identifiers of points need a preprocessor; got "
                             "preprocessor=None.")
        self.callable = callable(preprocessor) and not is_arraylike_not_scalar(preprocessor)
        self.frame = None
        if self.callable:
            self.function, self.array = preprocessor, None
        else:
            self.function = None
            # (a sparse matrix stays sparse, as CSR: its rows go to the
            # learners as they are; tuples of its points are densified)
            if not sp.issparse(preprocessor):
                preprocessor = check_rows(preprocessor, "preprocessor", owner)
                if np.iscomplexobj(preprocessor):
                    raise ValueError(f"{owner}: preprocessor: Complex data not "
                                     "supported.")
            self.array = check_array(preprocessor, dtype=np.float64,
                                     accept_sparse="csr", input_name="preprocessor")
            if hasattr(preprocessor, "iloc") and hasattr(preprocessor, "columns"):
                self.frame = preprocessor  # (a pandas DataFrame: its names, Notes)

    @property
    def n_samples(self):
        """Rows of the array preprocessor (``None`` for a callable)."""
        return None if self.array is None else self.array.shape[0]

    @property
    def points(self):
        """Every point of an array preprocessor, for an estimator to be
        fitted on: the DataFrame itself (its names, Notes), or the checked
        array."""
        return self.array if self.frame is None else self.frame

    def identifiers(self, ids, name):
        """``ids`` checked: integer indices in range for an array (integral
        floats are accepted), any non-complex values for a callable."""
        ids = np.asarray(ids)
        if ids.dtype.kind == "c":
            raise ValueError(f"{name}: complex identifiers are not supported; got "
                             f"dtype {ids.dtype}.")
        if self.callable:
            return ids
        if ids.dtype.kind == "f":
            if not (np.isfinite(ids).all() and (ids == np.round(ids)).all()):
                raise ValueError(
                    f"{name}: identifiers into an array preprocessor are row indices, "
                    "integers; got non-integral values.")
        elif ids.dtype.kind not in "iu":
            raise ValueError(
                f"{name}: identifiers into an array preprocessor are row indices, "
                f"integers; got dtype {ids.dtype} (a callable preprocessor takes any "
                "identifiers).")
        ids = ids.astype(np.intp)
        n = self.array.shape[0]
        bad = (ids < 0) | (ids >= n)
        if bad.any():
            k = np.argwhere(bad)[0]
            where = f"row {k[0]} has identifier" if ids.ndim == 2 else (
                f"position {k[0]} has identifier")
            raise ValueError(
                f"{name}: {where} {ids[tuple(k)]} outside [0, {n}), the rows of the "
                "preprocessor."
            )
        return ids

    def rows(self, ids, name):
        """The rows of the 1-D identifiers ``ids`` (checked), float64."""
        ids = self.identifiers(ids, name)
        if not self.callable:
            return self.array[ids]
        try:
            out = self.function(ids)
        except Exception as exc:
            raise ValueError(
                f"{self.owner}: the preprocessor raised {type(exc).__name__}: {exc} "
                f"(it was called on the identifiers of {name}, a 1-D array of "
                f"{ids.shape[0]} values of dtype {ids.dtype})."
            ) from exc
        if sp.issparse(out):  # rows of a sparse matrix: densified, as tuples are
            out = out.toarray()
        if np.ndim(out) != 2:
            raise ValueError(
                f"{self.owner}: the preprocessor returned a {np.ndim(out)}-D array of "
                f"shape {np.shape(out)} for {ids.shape[0]} identifiers of {name}; it "
                "must return a 2-D array, one row of features per identifier."
            )
        # (complex numbers of an object array: check_array would only fail to convert)
        _refuse_complex(complex_value(np.asarray(out)), "an object array",
                        f"the rows the preprocessor returned for {name}", self.owner)
        try:
            out = check_array(out, dtype=np.float64, input_name=f"preprocessor({name})")
        except ValueError as exc:
            who = f"{self.owner}: the" if self.owner else "The"
            raise ValueError(
                f"{who} rows the preprocessor returned for {name} are not usable: "
                f"{exc}") from exc
        if out.shape[0] != ids.shape[0]:
            raise ValueError(
                f"{self.owner}: the preprocessor returned {out.shape[0]} rows for "
                f"{ids.shape[0]} identifiers of {name}; it must return one row per "
                "identifier, in order."
            )
        return out

    def named_rows(self, ids, name):
        """The rows of the 1-D identifiers ``ids`` (checked), for an
        estimator to validate: of a DataFrame preprocessor, as a DataFrame
        (its names, Notes); :meth:`rows` otherwise."""
        if self.frame is None:
            return self.rows(ids, name)
        return self.frame.iloc[self.identifiers(ids, name)]

    def tuple_rows(self, tuples, name):
        """Identifier tuples ``(n, t)`` as points ``(n, t, n_features)``
        (each distinct identifier looked up once)."""
        ids = self.identifiers(tuples, name)
        n, t = ids.shape
        if not self.callable:
            if sp.issparse(self.array):
                return self.array[ids.ravel()].toarray().reshape(n, t, -1)
            return self.array[ids]
        used, inverse = unique_identifiers(ids.reshape(-1))
        return self.rows(used, name)[inverse].reshape(n, t, -1)


def check_tuples(tuples, size, preprocessor=None, *, name="pairs", owner="", n_features=None):
    """Pairs or triplets, as points or through ``preprocessor``, as a
    float64 ``(n, size, n_features)`` array (:func:`tuple_form`,
    :func:`check_point_tuples`, :class:`Preprocessor`)."""
    if tuple_form(tuples, size, name, preprocessor) == "points":
        return check_point_tuples(tuples, size, name, n_features)
    P = Preprocessor(preprocessor, owner).tuple_rows(tuples, name)
    if n_features is not None and P.shape[2] != n_features:
        raise ValueError(
            f"{name}: the preprocessor's points have {P.shape[2]} features, but the "
            f"estimator was fitted on {n_features} features."
        )
    return P


def points_of(estimator, X, name="X", *, fitting=False):
    """``X`` itself, or, if it is a 1-D array of identifiers and the
    estimator has a preprocessor, the rows they identify.

    A fitting call (``fit``, ``partial_fit``) reads the ``preprocessor``
    parameter; every other method the one the estimator was fitted with,
    its ``preprocessor_`` (a ``set_params`` after ``fit`` changes nothing
    until the next fit).  A 2-D ``X`` is points, with or without a
    preprocessor (metric-learn's convention); a 1-D ``X`` without a
    preprocessor is left to the usual checks (scikit-learn's "Expected 2D
    array" error).  The rows of a DataFrame preprocessor are a DataFrame
    (:meth:`Preprocessor.named_rows`): the estimator has its feature names.
    Anything else is :func:`check_rows`'s (values that are
    not numbers get the package's error naming ``name``), and a fitting call
    checks the ``preprocessor`` parameter first (:func:`check_preprocessor`),
    whether ``X`` is identifiers or points.
    """
    owner = type(estimator).__name__
    preprocessor = getattr(estimator, "preprocessor" if fitting else "preprocessor_", None)
    if fitting:
        check_preprocessor(preprocessor, owner)
    if (preprocessor is None or isinstance(X, Integral) or _not_an_array(X)
            or len(_shape(X, name)) != 1):
        return check_rows(X, name, owner)
    return Preprocessor(preprocessor, owner).named_rows(X, name)
