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
  NaN and inf refused (scikit-learn's ``check_array``);
- :class:`Preprocessor`: identifiers to rows, through an array (integer
  indices into its rows) or a callable (any hashable identifiers: file
  names, database keys), whose output is checked against the identifiers
  (one 2-D row per identifier: a ValueError naming the preprocessor and
  both counts otherwise; sparse rows are densified);
- :func:`check_tuples`: either form as points;
- :func:`points_of`: a ``fit`` / ``transform`` argument ``X`` given as a 1-D
  array of identifiers, through the estimator's ``preprocessor``.

The forms are metric-learn's (``preprocessor``, ``(n, 2)`` index pairs), so
that code written for it runs here unchanged.
"""

from numbers import Integral, Number

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .._utils._sklearn_compat import is_arraylike_not_scalar

__all__ = ["Preprocessor", "check_point_tuples", "check_tuples", "points_of", "tuple_form",
           "unique_identifiers"]

_SINGULAR = {"pairs": "pair", "triplets": "triplet"}


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


def tuple_form(tuples, size, name="pairs", preprocessor=None):
    """``'points'`` or ``'identifiers'``, from the shape of ``tuples``.

    Parameters
    ----------
    tuples : array-like
        ``(n, size, n_features)`` points or ``(n, size)`` identifiers.
    size : int
        Points per tuple: 2 for pairs, 3 for triplets.
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
    (``check_array``), naming ``name``; ``n_features``, if given, must match.
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
    """

    def __init__(self, preprocessor, owner):
        self.owner = owner
        self.callable = callable(preprocessor) and not is_arraylike_not_scalar(preprocessor)
        if self.callable:
            self.function, self.array = preprocessor, None
        elif sp.issparse(preprocessor) or is_arraylike_not_scalar(preprocessor):
            self.function = None
            # (a sparse matrix stays sparse, as CSR: its rows go to the
            # learners as they are; tuples of its points are densified)
            self.array = check_array(preprocessor, dtype=np.float64,
                                     accept_sparse="csr", input_name="preprocessor")
        else:
            raise ValueError(
                f"{owner}: preprocessor must be an array of points (identifiers index "
                f"its rows) or a callable (identifiers to rows), or None; got "
                f"{type(preprocessor).__name__}."
            )

    @property
    def n_samples(self):
        """Rows of the array preprocessor (``None`` for a callable)."""
        return None if self.array is None else self.array.shape[0]

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
    array" error).
    """
    preprocessor = getattr(estimator, "preprocessor" if fitting else "preprocessor_", None)
    if preprocessor is None or isinstance(X, Integral):
        return X
    if len(_shape(X, name)) != 1:
        return X
    return Preprocessor(preprocessor, type(estimator).__name__).rows(X, name)
