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

The random state is the one object the rule cannot cover by itself: a
``random_state`` given as a RandomState instance (or ``None``, NumPy's
global one) belongs to the user, and drawing from it changes it in place.
So every call draws from a private copy (:func:`call_random_state`), and
:func:`all_or_nothing` advances the user's generator to the copy's final
state only when the whole call succeeds (scikit-learn's estimators consume
such a generator: it advances on success, as before); a call that raises
leaves it where it was.  A ``partial_fit`` stream keeps the copy its first
call drew from, never the user's object, so that drawing from it between
calls does not change how the stream continues.
"""

import contextvars
import copy
import functools

import numpy as np
from sklearn.utils import check_random_state

from ._sklearn_compat import fit_context as sklearn_fit_context

__all__ = ["TransactionalMixin", "all_or_nothing", "call_random_state", "call_rng",
           "fit_context"]


class _Draws:
    """The private copies of the users' generators that one call (of a
    method decorated by :func:`all_or_nothing`) draws from, by the generator
    they copy; ``parent``: those of the call this one runs inside."""

    def __init__(self, parent):
        self.parent = parent
        self.copies = {}  # id(generator) -> (generator, its private copy)

    def _current(self, source):
        """The copy of ``source`` this call or an enclosing one drew from, or None."""
        draws = self
        while draws is not None:
            if id(source) in draws.copies:
                return draws.copies[id(source)][1]
            draws = draws.parent
        return None

    def generator(self, source):
        """This call's copy of the generator ``source`` (one per call: the
        call's draws continue one sequence, as they did on ``source``),
        taken where the enclosing calls' draws left it."""
        entry = self.copies.get(id(source))
        if entry is None:
            base = self.parent._current(source) if self.parent is not None else None
            entry = self.copies[id(source)] = (
                source, copy.deepcopy(source if base is None else base))
        return entry[1]

    def commit(self):
        """The call succeeded: its draws become the enclosing call's (to be
        kept if that one succeeds too), or, for the outermost call, the
        users' generators advance to where the copies ended."""
        for source, drawn in self.copies.values():
            if self.parent is None:
                source.set_state(drawn.get_state())
                continue
            outer = self.parent.copies.get(id(source))
            if outer is not None:  # (the enclosing call's own private copy)
                outer[1].set_state(drawn.get_state())
            else:  # (a copy of it: this call's may be kept by the estimator)
                self.parent.copies[id(source)] = (source, copy.deepcopy(drawn))


#: The draws of the calls in progress in this thread (innermost).
_DRAWS = contextvars.ContextVar("sklearn_bregman_draws", default=None)


def call_random_state(random_state):
    """``random_state`` as the call in progress draws from it.

    An int (or anything but a RandomState and ``None``) is returned as it
    is: each use seeds a new generator, nobody else's.  A RandomState
    instance, or ``None`` (NumPy's global RandomState), gives the call's
    private copy of that generator, the same for every use within the call
    (module docstring); outside a call of the package, the generator itself.

    Parameters
    ----------
    random_state : int, RandomState instance or None
        The estimator's ``random_state`` parameter.

    Returns
    -------
    random_state : int or RandomState
        What to pass on where ``random_state`` would be passed.
    """
    if random_state is not None and not isinstance(random_state, np.random.RandomState):
        return random_state
    draws = _DRAWS.get()
    source = check_random_state(random_state)
    return source if draws is None else draws.generator(source)


def call_rng(random_state):
    """:func:`call_random_state` as a RandomState (an int seeds a new one)."""
    return check_random_state(call_random_state(random_state))


def all_or_nothing(method):
    """Decorate a method so that, when it raises, the estimator's
    ``__dict__`` is restored to what it was before the call, and the
    users' generators it drew from (:func:`call_random_state`) are left
    where they were; when it succeeds, they advance by its draws."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        draws = _Draws(_DRAWS.get())
        token = _DRAWS.set(draws)
        try:
            result = method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        finally:
            _DRAWS.reset(token)
        draws.commit()
        return result

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
