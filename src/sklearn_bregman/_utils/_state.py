"""State that changes only when a call succeeds.

The package's estimators keep one rule: a method changes the estimator by
*rebinding* its attributes, never by changing in place an object an
attribute refers to (arrays, the ``partial_fit`` streams, an inner
estimator: each is replaced by a new one).  Under that rule a shallow copy
of ``__dict__`` taken before a call is the whole state before it, and
:func:`all_or_nothing` puts it back when the call raises: an unfitted
estimator stays unfitted (``NotFittedError``, not an ``AttributeError`` on a
half-set attribute), a stream continues as if the failed call had not been
made, its random state included (each call draws from its own copy).  The
methods still compute first and assign last; this is what makes a failure
anywhere in between (validation, LAPACK, a refused batch) harmless.
"""

import functools

from ._sklearn_compat import fit_context as sklearn_fit_context

__all__ = ["TransactionalMixin", "all_or_nothing", "fit_context"]


def all_or_nothing(method):
    """Decorate a method so that, when it raises, the estimator's
    ``__dict__`` is restored to what it was before the call."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return wrapper


class TransactionalMixin:
    """``set_params``, ``fit_transform`` and ``fit_predict`` all or nothing
    (``fit`` and ``partial_fit`` are, through
    :func:`~sklearn_bregman._utils._sklearn_compat.fit_context`):
    scikit-learn's ``set_params`` sets the valid parameters one by one before
    it meets an invalid one, and ``fit_transform`` may raise in ``transform``
    after ``fit`` succeeded."""

    @all_or_nothing
    def set_params(self, **params):
        """Set the parameters of this estimator (all of them, or none).

        As scikit-learn's ``set_params``: keys are parameter names, or
        ``<component>__<parameter>`` for a nested estimator; when one is
        invalid, none is set.

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : estimator instance
            Estimator instance.
        """
        return super().set_params(**params)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # fit_transform / fit_predict as the class resolves them (scikit-learn's
        # mixins, or the class's own), made all or nothing once per class
        for name in ("fit_transform", "fit_predict"):
            method = getattr(cls, name, None)
            if method is not None and not getattr(method, "_all_or_nothing", False):
                wrapped = all_or_nothing(method)
                wrapped._all_or_nothing = True
                setattr(cls, name, wrapped)


def fit_context(*, prefer_skip_nested_validation):
    """scikit-learn's ``_fit_context`` (the parameters validated once, from
    ``_parameter_constraints``) with :func:`all_or_nothing` around it: the
    decorator of every ``fit`` and ``partial_fit`` of the package."""
    validated = sklearn_fit_context(prefer_skip_nested_validation=prefer_skip_nested_validation)

    def decorator(method):
        return all_or_nothing(validated(method))

    return decorator
