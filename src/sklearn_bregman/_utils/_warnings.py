"""The package's one way to warn: at the user's line.

A warning is only useful where the user can act on it: the line of their
script that called ``fit``, ``partial_fit`` or a generator, not a line of
this package or of the scikit-learn wrapper around ``fit``.  :func:`warn`
finds that line by walking up the stack to the first frame outside this
package and outside the libraries that call into it on the user's behalf
(scikit-learn's ``_fit_context``, ``validate_params`` and ``set_output``
wrappers, ``Pipeline``, ``GridSearchCV``; joblib's sequential backend), as
pandas' ``find_stack_level`` does for pandas; nothing counts frames by hand,
so refactoring a call chain cannot move a warning off the user's line.

Every warning of the package is an instance of :class:`SklearnBregmanWarning`
(as well as of the category it is raised as: ``UserWarning``,
scikit-learn's ``ConvergenceWarning``), so that a test suite can turn the
package's own warnings into errors without touching those of other
libraries (``filterwarnings = error::sklearn_bregman.SklearnBregmanWarning``
is the configuration of this package's own tests).
"""

import contextlib
import contextvars
import os
import re
import sys
import warnings

import joblib
import numpy as np
import sklearn

__all__ = ["SklearnBregmanWarning", "column_or_1d", "find_stack_level", "fit_kmeans",
           "formed_rows", "validate_data", "warn"]


class SklearnBregmanWarning(Warning):
    """Base of every warning this package raises.

    A warning is raised as a subclass of this and of its category
    (``UserWarning``, ``ConvergenceWarning``), so filters on either catch it.
    """


def _folder(module):
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


#: Where the frames to skip live: this package, and the libraries whose
#: wrappers stand between the user's call and this package's code.
_INTERNAL = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
    _folder(sklearn),
    _folder(joblib),
)

#: One subclass per category, made once (warnings' "once" and "default"
#: registries key on the category, so it must be the same class every time).
_CATEGORIES = {}


def _category(category):
    if issubclass(category, SklearnBregmanWarning):
        return category
    if category not in _CATEGORIES:
        _CATEGORIES[category] = type(category.__name__, (category, SklearnBregmanWarning),
                                     {"__module__": category.__module__})
    return _CATEGORIES[category]


def find_stack_level():
    """The ``stacklevel`` that puts a warning raised by this function's caller
    at the first frame outside the package (and the wrappers of
    :data:`_INTERNAL`): the user's line.

    Returns
    -------
    int
        For ``warnings.warn(..., stacklevel=find_stack_level())``; when every
        frame is internal (a worker thread), the outermost one.
    """
    frame = sys._getframe(1)  # the caller: stacklevel 1
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame = frame.f_back
        level += 1
    return level


def warn(message, category=UserWarning):
    """Warn ``message`` as ``category`` at the user's line.

    Parameters
    ----------
    message : str
        What happened and what to change; it names the estimator or the
        parameter (the package's rule).
    category : type of Warning, default=UserWarning
        Raised as a subclass of it and of :class:`SklearnBregmanWarning`.
    """
    warnings.warn(message, _category(category), stacklevel=find_stack_level())


def column_or_1d(y, *, input_name="y"):
    """scikit-learn's ``column_or_1d``, with its DataConversionWarning (a
    column vector given where a 1-D array is expected) raised at the user's
    line instead of this package's.

    Parameters
    ----------
    y : array-like of shape (n_samples,) or (n_samples, 1)
    input_name : str, default='y'
        The argument's name, for the messages.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    from sklearn.exceptions import DataConversionWarning
    from sklearn.utils.validation import column_or_1d as _column_or_1d

    # (scikit-learn's messages for these name no argument: "Found array with
    # dim 3", "Complex data not supported")
    shape, dtype = getattr(y, "shape", None), getattr(y, "dtype", None)
    if shape is None or dtype is None:  # a list (not read again if an array)
        try:
            arr = np.asarray(y)
        except ValueError:  # numpy's "inhomogeneous shape"
            raise ValueError(f"{input_name}: the entries have unequal lengths (a ragged "
                             "list); labels are one value per sample.") from None
        shape, dtype = arr.shape, arr.dtype
    if len(shape) not in (1, 2) or (len(shape) == 2 and shape[1] != 1):
        raise ValueError(f"{input_name} should be a 1d array, got an array of shape "
                         f"{tuple(shape)} instead.")
    if getattr(dtype, "kind", "") == "c":
        raise ValueError(f"{input_name}: Complex data not supported; labels are "
                         "integers or strings (responses real numbers).")
    out = _column_or_1d(y)  # (input_name: scikit-learn >= 1.7 only)
    if len(getattr(y, "shape", ())) == 2 or (
            not hasattr(y, "shape") and isinstance(y, (list, tuple)) and len(y)
            and isinstance(y[0], (list, tuple))):
        warn(f"A column-vector {input_name} was passed when a 1d array was expected. "
             f"Please change the shape of {input_name} to (n_samples, ), for example "
             "using ravel().", DataConversionWarning)
    return out



def fit_kmeans(km, X, sample_weight=None):
    """``km.fit(X)`` for a scikit-learn ``KMeans``, its ConvergenceWarning
    about duplicate points ("Number of distinct clusters ... found smaller
    than n_clusters") raised at the user's line instead of scikit-learn's
    (the same message the out-of-core k-means raises); every other warning
    as ``KMeans`` raises it.

    Returns
    -------
    KMeans
        ``km``, fitted.
    """
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Number of distinct clusters",
                                ConvergenceWarning)
        km.fit(X, sample_weight=sample_weight)
    n_distinct = int(np.unique(km.labels_).size)
    if n_distinct < km.n_clusters:
        warn(f"Number of distinct clusters ({n_distinct}) found smaller than n_clusters "
             f"({km.n_clusters}). Possibly due to duplicate points in X.",
             ConvergenceWarning)
    return km


#: The two warnings of scikit-learn's feature-name check (``validate_data``
#: after ``fit``): the data have no names but the fit's had, or the reverse.
_FEATURE_NAMES = r"X (does not have valid feature names|has feature names), but "

#: Whether the data ``validate_data`` is given are the user's (their names
#: are checked) or rows the package formed itself (:func:`formed_rows`).
_USERS_ROWS = contextvars.ContextVar("users_rows", default=True)


@contextlib.contextmanager
def formed_rows():
    """The data validated in this block are rows the package formed itself:
    the points of tuples reshaped to rows (``pair_distance``, ``predict`` of
    the tuple classifiers, ...), two 1-D points stacked (``get_metric``).
    They cannot carry feature names and the user cannot give them any, so
    scikit-learn's feature-name check does not apply to them (the user's own
    ``X`` is checked at its own call)."""
    token = _USERS_ROWS.set(False)
    try:
        yield
    finally:
        _USERS_ROWS.reset(token)


def validate_data(estimator, *args, **kwargs):
    """scikit-learn's ``validate_data``, with its warnings about feature
    names ("X does not have valid feature names, but ... was fitted with
    feature names", "X has feature names, but ... was fitted without feature
    names") raised at the user's line instead of scikit-learn's, in
    scikit-learn's words (a filter on them still matches), and not at all
    for rows the package formed (:func:`formed_rows`).

    scikit-learn checks the names first, before the data; its warning is
    made an error there, so that its message is caught and validation runs
    again with it ignored (the names check is O(n_features)); every other
    warning is left to the filters in force.

    Parameters
    ----------
    estimator : estimator
    *args, **kwargs
        ``validate_data``'s.

    Returns
    -------
    The result of ``validate_data``.
    """
    from sklearn.utils.validation import validate_data as _validate_data

    users = _USERS_ROWS.get()
    with warnings.catch_warnings():
        warnings.filterwarnings("error" if users else "ignore", _FEATURE_NAMES, UserWarning)
        try:
            return _validate_data(estimator, *args, **kwargs)
        except UserWarning as w:
            if not re.match(_FEATURE_NAMES, str(w)):
                raise
            message = str(w)
    warn(message)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", _FEATURE_NAMES, UserWarning)
        return _validate_data(estimator, *args, **kwargs)
