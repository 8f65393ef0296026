"""The one door through which scikit-learn's private names enter the package.

scikit-learn keeps some of what an estimator written in its own style needs
in private modules: the declarative parameter validation
(``sklearn.utils._param_validation``), the ``fit`` decorator that runs it
(``sklearn.base._fit_context``) and two small helpers of
``sklearn.utils.validation``.  They may move in any release.  Every module
of this package imports them from here, never from scikit-learn itself
(``tests/test_structure.py`` checks it), so that a move breaks one import
below, with a message that says what is missing, instead of fifteen
modules at once; where a name is simple enough, a fallback written here
takes over.

- ``Interval``, ``StrOptions``, ``HasMethods``, ``validate_params``,
  ``validate_parameter_constraints``, ``InvalidParameterError``:
  ``sklearn.utils._param_validation``; no
  fallback (an ImportError that names them, below);
- ``fit_context``: ``sklearn.base._fit_context``; fallback
  :func:`_fit_context_fallback`;
- ``num_samples``: ``sklearn.utils.validation._num_samples``; fallback
  :func:`_num_samples_fallback`;
- ``is_arraylike_not_scalar``:
  ``sklearn.utils.validation._is_arraylike_not_scalar``; fallback
  :func:`_is_arraylike_not_scalar_fallback`.

The parameter-validation classes have no fallback: the estimators'
``_parameter_constraints`` are written in them and scikit-learn's own
``BaseEstimator._validate_params`` reads them, so a scikit-learn without
them is one this package cannot run on.  Their ImportError says which
version is installed and which ones the package is tested on.
"""

import functools
import numbers

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn import config_context, get_config

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "fit_context",
    "is_arraylike_not_scalar",
    "num_samples",
    "validate_parameter_constraints",
    "validate_params",
]

#: The scikit-learn releases CI tests (pyproject.toml's lower bound, the newest).
TESTED = "scikit-learn 1.6 to 1.9"


def _missing(name, where):
    return ImportError(
        f"sklearn_bregman needs {name} from {where}, which scikit-learn "
        f"{sklearn.__version__} does not provide (it is private to scikit-learn and "
        f"has moved). sklearn_bregman is tested on {TESTED}: install one of those, or "
        "a newer sklearn_bregman."
    )


try:
    from sklearn.utils._param_validation import (
        HasMethods,
        Interval,
        InvalidParameterError,
        StrOptions,
        validate_parameter_constraints,
        validate_params,
    )
except ImportError as exc:  # pragma: no cover - only on a scikit-learn we do not support
    raise _missing("the parameter validation (Interval, StrOptions, HasMethods, "
                   "validate_params, InvalidParameterError)",
                   "sklearn.utils._param_validation") from exc


def _fit_context_fallback(*, prefer_skip_nested_validation):
    """``sklearn.base._fit_context`` as scikit-learn 1.6-1.9 define it: the
    estimator's parameters checked against its ``_parameter_constraints``
    (unless the global config skips it), then ``fit`` run with nested
    validation skipped when ``prefer_skip_nested_validation``.  (The first
    call of ``partial_fit`` is validated like any other here.)"""

    def decorator(fit_method):
        @functools.wraps(fit_method)
        def wrapper(estimator, *args, **kwargs):
            global_skip = get_config()["skip_parameter_validation"]
            if not global_skip:
                validate_parameter_constraints(
                    estimator._parameter_constraints, estimator.get_params(deep=False),
                    caller_name=type(estimator).__name__)
            with config_context(
                    skip_parameter_validation=prefer_skip_nested_validation or global_skip):
                return fit_method(estimator, *args, **kwargs)

        return wrapper

    return decorator


def _num_samples_fallback(x):
    """Number of samples of an array-like (``sklearn.utils.validation._num_samples``)."""
    if hasattr(x, "fit") and callable(x.fit):
        raise TypeError(f"Expected sequence or array-like, got estimator {x}")
    shape = getattr(x, "shape", None)
    if shape is not None:
        if len(shape) == 0:
            raise TypeError(f"Input should have at least 1 dimension i.e. satisfy "
                            f"`len(x.shape) > 0`, got scalar `{x!r}` instead.")
        if isinstance(shape[0], numbers.Integral):
            return int(shape[0])
    if not hasattr(x, "__len__") and not hasattr(x, "shape"):
        if hasattr(x, "__array__"):
            return _num_samples_fallback(np.asarray(x))
        raise TypeError(f"Expected sequence or array-like, got {type(x)}")
    try:
        return len(x)
    except TypeError as exc:
        raise TypeError(f"Expected sequence or array-like, got {type(x)}") from exc


def _is_arraylike_not_scalar_fallback(array):
    """Whether ``array`` is array-like and not a scalar
    (``sklearn.utils.validation._is_arraylike_not_scalar``)."""
    if sp.issparse(array):  # (scikit-learn counts no sparse matrix as array-like)
        return False
    arraylike = (hasattr(array, "__len__") or hasattr(array, "shape")
                 or hasattr(array, "__array__"))
    return arraylike and not np.isscalar(array)


try:
    from sklearn.base import _fit_context as fit_context
except ImportError:  # pragma: no cover - exercised by tests/test_structure.py
    fit_context = _fit_context_fallback

try:
    from sklearn.utils.validation import _num_samples as num_samples
except ImportError:  # pragma: no cover
    num_samples = _num_samples_fallback

try:
    from sklearn.utils.validation import _is_arraylike_not_scalar as is_arraylike_not_scalar
except ImportError:  # pragma: no cover
    is_arraylike_not_scalar = _is_arraylike_not_scalar_fallback
