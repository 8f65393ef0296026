"""What the classifiers on pairs and triplets share: tuples of points as samples.

A sample of :class:`~sklearn_bregman.PairClassifier` is a pair, one of
:class:`~sklearn_bregman.TripletClassifier` a triplet: ``t`` points given
either as points, ``(n, t, n_features)``, or as integer indices into a
``preprocessor``, ``(n, t)`` (an array, or a callable mapping indices to
rows).  :class:`TupleMetaEstimator` turns either form into the points an
inner learner is fitted on and the tuples' rows among them, and maps tuples
through the fitted learner.
"""

import copy

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._data._inputs import (
    Preprocessor,
    check_point_tuples,
    check_preprocessor,
    points_of,
    tuple_form,
    unique_identifiers,
)
from .._learners._base import learns_from, same_value
from .._learners._metric import MetricMixin
from .._utils._sklearn_compat import InvalidParameterError
from .._utils._state import TransactionalMixin
from .._utils._warnings import column_or_1d, formed_rows

__all__ = ["ComparisonMixin", "TupleMetaEstimator", "check_sample_weight", "check_tuple_labels",
           "inner_streams", "unique_points"]

#: The two label encodings a tuple classifier takes: its own, +1 / -1, and
#: 1 / 0, the one scikit-learn's tools pass (``cross_val_predict`` with
#: ``method='decision_function'`` re-encodes y by ``LabelEncoder``).
ENCODINGS = (np.array([-1, 1]), np.array([0, 1]))


def check_tuple_labels(y, n, name, meaning, label_name="y"):
    """Labels of ``n`` tuples: +1 / -1, or 1 / 0 (0 in place of -1).

    Parameters
    ----------
    y : array-like of shape (n,)
        The labels.
    n : int
        Tuples the labels go with.
    name : str
        The tuples' name ('pairs', 'triplets'), for messages.
    meaning : str
        What +1 and -1 mean, for messages.
    label_name : str, default='y'
        The labels' argument name, for messages.

    Returns
    -------
    signs : ndarray of shape (n,), dtype int8
        +1 / -1 (1 / 0 mapped to +1 / -1).
    classes : ndarray of shape (2,)
        The encoding ``y`` is in, sorted: ``[-1, 1]``, or ``[0, 1]`` when
        ``y`` holds a 0 (``y`` of only 1 reads as ``[-1, 1]``).
    """
    y = column_or_1d(y, input_name=label_name)
    if y.shape[0] != n:
        raise ValueError(f"{label_name} has {y.shape[0]} entries but there are {n} {name}.")
    for classes in ENCODINGS:
        try:
            ok = y.dtype.kind in "biufO" and bool(np.isin(y, classes).all())
        except TypeError:
            ok = False
        if ok:
            return np.where(y == 1, 1, -1).astype(np.int8), classes.copy()
    try:
        found = np.unique(y.astype(str)).tolist()[:5]
    except (TypeError, ValueError):
        found = sorted({repr(v) for v in y.tolist()})[:5]
    raise ValueError(
        f"{label_name} must hold {meaning} for each {name[:-1]}; got {found}. 1 and 0 are "
        "accepted in place of +1 and -1 (the encoding scikit-learn's "
        "cross_val_predict passes), but not -1 and 0 together."
    )


def check_sample_weight(sample_weight, n, name):
    """The weights of ``n`` tuples (``name``: 'pairs', 'triplets') for a
    score: ``None``, or a 1-D array of ``n`` finite, non-negative numbers
    that do not all vanish, as float64; a ValueError (a TypeError for
    something that is not an array of numbers) naming ``sample_weight``
    otherwise."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, (dict, set, frozenset, str, bytes)) or sp.issparse(
            sample_weight):
        raise TypeError(f"sample_weight must be an array-like of shape (n_{name},); got "
                        f"{type(sample_weight).__name__}.")
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"sample_weight must hold numbers; {exc}.") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"sample_weight must have shape (n_{name},) = ({n},), one weight "
                         f"per {name[:-1]}; got shape {w.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must hold finite, non-negative weights; got "
                         f"{w[~(np.isfinite(w) & (w >= 0))][0]!r}.")
    if not w.any():
        raise ValueError("sample_weight: the weights are all zero; nothing to score.")
    return w


def unique_points(P, t):
    """The distinct rows of the points ``P`` (t n x n_features, the tuples'
    points in order) and each tuple's rows among them, (n, t)."""
    X, inverse = np.unique(P, axis=0, return_inverse=True)
    return X, inverse.reshape(-1, t)


def _inner_is_linear(self):
    """The inner learner's map is linear in the input (it has
    ``get_mahalanobis_matrix``: ITML, or a kernel learner on the linear
    kernel)."""
    est = self.estimator_ if hasattr(self, "estimator_") else self.estimator
    return hasattr(est, "get_mahalanobis_matrix")


def inner_streams(meta):
    """Whether the wrapped learner learns from a stream of the meta-estimator's
    tuples: it declares it learns from them (its tags' ``learns_from``) and
    has a ``partial_fit``, which then takes them with ``fit``'s contract (the
    kernel learners for triplets; not SKLR, which has none)."""
    est = meta.estimator
    return hasattr(est, "partial_fit") and meta._name in learns_from(est)


class TupleMetaEstimator(TransactionalMixin, MetricMixin, MetaEstimatorMixin, ClassifierMixin,
                         BaseEstimator):
    """Base of the meta-estimators whose samples are tuples of ``_size`` points.

    Subclasses set ``_size`` (2 or 3) and ``_name`` ('pairs', 'triplets'),
    and have the parameters ``estimator`` and ``preprocessor``.  Tuples are
    read by :mod:`sklearn_bregman._data._inputs` (points or identifiers); the
    metric surface (``pair_distance``, ``pair_score``, ``get_metric``) is
    :class:`~sklearn_bregman._learners._metric.MetricMixin`'s, on the inner learner's
    map.
    """

    _size = 2
    _name = "pairs"
    #: the inner learner's fit parameter the tuples go to, and learners that have it
    _fit_keyword = "constraints"
    _learners = ("ITMLTransformer, LogDetKernelLearner, VonNeumannKernelLearner or "
                 "DefiniteBoost")

    def _check_learner(self):
        """``estimator`` checked before it is cloned: a learner that declares
        it learns from these tuples (its tags' ``learns_from``; its ``fit``
        then takes them as ``fit(X, _fit_keyword=...)``)."""
        est = self.estimator
        if self._name in learns_from(est):
            return
        owner, what = type(self).__name__, self._name[:-1]
        raise InvalidParameterError(
            f"The 'estimator' parameter of {owner} must be a {what} learner, whose fit "
            f"takes the {self._name} as fit(X, {self._fit_keyword}=...): "
            f"{self._learners}. Got {est!r}, which does not learn from {self._name}."
        )

    def _fit_inner(self, X, tuples, signs, classes, *, partial):
        """The inner learner fitted on the points ``X`` with ``tuples`` (its
        ``_fit_keyword`` argument), or with them added to its stream
        (``partial``), and the ``classes_`` to keep: a stream keeps its first
        call's encoding, and refuses a batch labelled in the other one
        (``signs``: the batch's labels as +1 / -1, or None when every tuple
        holds).  Assigns nothing: a stream continues on a shallow copy of the
        inner learner (whose calls rebind its attributes, never change what
        they refer to), so that the learner in ``estimator_`` is untouched
        until the whole call succeeds.

        The parameters of ``estimator`` changed since the last fitting call
        (``set_params(estimator__tol=...)``, or ``estimator`` replaced by
        another learner of its class) are set on that copy, whose
        ``partial_fit`` honours them or refuses those its stream fixed (the
        kernel, the factor, ``slack``, ``bounds``, ``random_state``) with a
        ValueError naming them: never kept silently at their old values.
        ``estimator`` replaced by a learner of another class is refused,
        naming ``estimator``."""
        keyword = {self._fit_keyword: tuples}
        if not partial:
            return clone(self.estimator).fit(X, **keyword), classes
        if hasattr(self, "estimator_"):
            owner, now = type(self).__name__, self.estimator
            if type(now) is not type(self.estimator_):
                raise ValueError(
                    f"{owner}.partial_fit: estimator is now a {type(now).__name__}, but "
                    f"the stream was started on a {type(self.estimator_).__name__}, which "
                    "it continues; set estimator back, or call fit to start again.")
            used = (np.unique(np.where(signs == 1, 1, classes[0])) if signs is not None
                    else np.array([1]))
            if not np.isin(used, self.classes_).all():
                raise ValueError(
                    f"y: this batch labels {self._name} {used.tolist()} but the first "
                    f"partial_fit call set classes_ to {self.classes_.tolist()}; keep "
                    "one encoding, +1 / -1 or 1 / 0, throughout the stream.")
            old = self._inner_params
            changed = {name: value for name, value in now.get_params(deep=False).items()
                       if name not in old or not same_value(value, old[name])}
            inner, classes = copy.copy(self.estimator_), self.classes_
            if changed:
                inner.set_params(**changed)
        else:
            inner = clone(self.estimator)
        return inner.partial_fit(X, **keyword), classes

    def _labels(self, signs):
        """The signs ±1 as labels of ``classes_``."""
        return self.classes_[(np.asarray(signs) > 0).astype(np.intp)]

    def __sklearn_is_fitted__(self):
        # fitted means the inner learner is (``set_threshold`` may come first)
        return hasattr(self, "estimator_")

    def _check_fit_parameters(self):
        """What every ``fit`` and ``partial_fit`` call checks first: the
        inner learner (:meth:`_check_learner`) and the ``preprocessor``
        (:func:`~sklearn_bregman._data._inputs.check_preprocessor`, whatever
        form the tuples have)."""
        self._check_learner()
        check_preprocessor(self.preprocessor, type(self).__name__)

    def _training_set(self, tuples, partial=False):
        """The points the inner learner is fitted on, and the tuples' rows
        among them, (n, t).

        A ``partial`` call after a first one takes points of the features
        the stream started on (a ValueError naming the tuples otherwise).

        Point tuples: identical points are one sample (``np.unique`` on the
        rows).  Identifiers into an array: the whole array (points in no
        tuple still shape the initial kernel; a DataFrame as it is, so that
        the learner has its feature names).  Into a callable: the points
        the tuples use, each distinct identifier looked up once, then as
        point tuples (``np.unique`` on the rows), so that the same tuples
        given as points or through a callable fit the same model (the
        learners' bounds and draws depend on the order of their samples).
        """
        t, name = self._size, self._name
        d = self.n_features_in_ if partial and hasattr(self, "estimator_") else None
        if tuple_form(tuples, t, name, self.preprocessor) == "points":
            P = check_point_tuples(tuples, t, name, n_features=d)
            return unique_points(P.reshape(-1, P.shape[2]), t)
        pre = Preprocessor(self.preprocessor, type(self).__name__)
        ids = pre.identifiers(tuples, name)
        if not pre.callable:  # (a DataFrame as it is: the learner has its names)
            X, rows = pre.points, ids
        else:
            used, inverse = unique_identifiers(ids.reshape(-1))
            X, rows = unique_points(pre.rows(used, name)[inverse], t)
        if d is not None and X.shape[1] != d:
            raise ValueError(
                f"{name}: the preprocessor's points have {X.shape[1]} features, but the "
                f"stream was started on {d} features."
            )
        return X, rows

    def _embedding_of(self, est, tuples, X):
        """After fitting ``est`` on ``X``: with identifier tuples into an
        array, the training points' rows of the learned map (O(n r)), kept so
        that scoring tuples over them reads them off; ``None`` otherwise."""
        if (tuple_form(tuples, self._size, self._name, self.preprocessor) == "identifiers"
                and not callable(self.preprocessor)):
            E = getattr(est, "embedding_", None)
            # (a transductive learner, e.g. DefiniteBoost(init='identity'), has
            # no transform: its embedding_ is the map of the training points)
            return E if E is not None and E.shape[0] == X.shape[0] else est.transform(X)
        return None

    def _tuple_coordinates(self, tuples, size, name):
        """The tuples' points through the learned map, (n, size, r) (rows
        the package forms: the inner learner checks no feature names on
        them)."""
        check_is_fitted(self)
        if tuple_form(tuples, size, name, self.preprocessor_) == "points":
            P = check_point_tuples(tuples, size, name, self.n_features_in_)
            n, t, d = P.shape
            with formed_rows():
                return self.estimator_.transform(P.reshape(n * t, d)).reshape(n, t, -1)
        pre = Preprocessor(self.preprocessor_, type(self).__name__)
        ids = pre.identifiers(tuples, name)
        if self._embedding is not None and not pre.callable:
            return self._embedding[ids]
        used, inverse = unique_identifiers(ids.reshape(-1))
        rows = pre.rows(used, name)
        if rows.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{type(self).__name__}: the preprocessor returned rows of "
                f"{rows.shape[1]} features for the identifiers of {name}, but the "
                f"estimator was fitted on {self.n_features_in_} features."
            )
        with formed_rows():
            Z = self.estimator_.transform(rows)
        return Z[inverse].reshape(ids.shape[0], size, -1)

    def _mapped(self, tuples):
        """This estimator's tuples through the learned map, (n, t, r)."""
        return self._tuple_coordinates(tuples, self._size, self._name)

    def _point_map(self):
        # (an inner learner that is not one of the package's: its transform,
        # on a shallow copy that a later fit does not change)
        return copy.copy(self.estimator_).transform

    def get_metric(self):
        """The learned distance as a function of two points.

        The inner learner's ``get_metric()`` when it has one (the package's
        learners), else the distance after its ``transform``: ``d(u, v,
        squared=False)`` takes two 1-D points of ``n_features_in_`` values
        (not identifiers), works as ``NearestNeighbors(metric=d)``, and keeps
        the map of the fit it was taken from.

        Returns
        -------
        metric : callable
            ``metric(u, v, squared=False) -> float``.
        """
        check_is_fitted(self)
        if isinstance(self.estimator_, MetricMixin):
            return self.estimator_.get_metric()
        return super().get_metric()

    def _fitted(self, est, X, tuples, classes):
        """The fitted attributes of a call that fitted the inner learner
        ``est`` on ``X`` (set together, by the caller, when it succeeds):
        ``components_`` of a linear inner map, as metric-learn's pair and
        triplet learners have it; ``feature_names_in_``, the inner
        learner's."""
        fitted = {"estimator_": est, "n_features_in_": X.shape[1], "classes_": classes,
                  "preprocessor_": self.preprocessor,
                  "_embedding": self._embedding_of(est, tuples, X),
                  # (what a later partial_fit compares estimator's parameters with)
                  "_inner_params": self.estimator.get_params(deep=False)}
        if hasattr(est, "get_mahalanobis_matrix"):
            fitted["components_"] = est.components_
        if hasattr(est, "feature_names_in_"):  # (a DataFrame preprocessor's names)
            fitted["feature_names_in_"] = est.feature_names_in_
        return fitted

    def _set_fitted(self, fitted):
        """Set the attributes of :meth:`_fitted` (``components_`` is removed
        when the new inner map is not linear, ``feature_names_in_`` when the
        new points have no names)."""
        for optional in ("components_", "feature_names_in_"):
            if optional not in fitted:
                self.__dict__.pop(optional, None)
        for attribute, value in fitted.items():
            setattr(self, attribute, value)

    def transform(self, X):
        """Map points with the inner learner's ``transform``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples,)
            Points, or (with a ``preprocessor``) a 1-D array of their
            identifiers.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The points in the learned coordinates.
        """
        check_is_fitted(self)
        return self.estimator_.transform(points_of(self, X))

    @available_if(_inner_is_linear)
    def get_mahalanobis_matrix(self):
        """The learned Mahalanobis matrix M of a linear inner learner.

        Available when the inner learner's map is linear in the features
        (ITML; the kernel learners with ``kernel='linear'``): the learned
        squared distance is :math:`(x - y)^T M (x - y)`.

        Returns
        -------
        M : ndarray of shape (``n_features_in_``, ``n_features_in_``)
            The inner learner's ``get_mahalanobis_matrix()``.
        """
        check_is_fitted(self)
        return self.estimator_.get_mahalanobis_matrix()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        return tags


class ComparisonMixin:
    """What the triplet and quadruplet classifiers share: a tuple says its
    closer pair (``_closer``, two positions in the tuple) is closer than its
    farther pair (``_farther``); y = -1 reverses it, learned as the tuple's
    columns in the order ``_reversed``.  Subclasses of
    :class:`TupleMetaEstimator` with ``_check_y(y, n)``."""

    _closer, _farther, _reversed = (0, 1), (0, 2), [0, 2, 1]

    def _fit(self, tuples, y, *, partial):
        """``fit``, or a ``partial_fit`` call (``partial``).  A tuple that
        repeats a point reaches the learner, which skips what no kernel
        changes and counts them in one warning."""
        self._check_fit_parameters()
        classes = np.array([-1, 1])
        if y is not None:
            tuple_form(tuples, self._size, self._name, self.preprocessor)
            y, classes = self._check_y(y, len(tuples))
        X, rows = self._training_set(tuples, partial)
        if y is not None:
            rows = np.where((y == -1)[:, None], rows[:, self._reversed], rows)
        est, classes = self._fit_inner(X, rows, y, classes, partial=partial)
        self._set_fitted(self._fitted(est, X, tuples, classes))
        return self

    def _margins(self, tuples):
        """The learned distance of the farther pair minus the closer one's."""
        Z = self._mapped(tuples)
        (a, b), (c, d) = self._closer, self._farther
        near, far = Z[:, a] - Z[:, b], Z[:, c] - Z[:, d]
        return (np.sqrt(np.einsum("ij,ij->i", far, far))
                - np.sqrt(np.einsum("ij,ij->i", near, near)))

    def _accuracy(self, tuples, y, sample_weight):
        """``score``: accuracy of ``margin > 0`` against ``y`` (None: all hold)."""
        from sklearn.metrics import accuracy_score

        pred = np.where(self.decision_function(tuples) > 0, 1, -1)
        y = np.ones(len(pred), dtype=int) if y is None else self._check_y(y, len(pred))[0]
        sample_weight = check_sample_weight(sample_weight, len(pred), self._name)
        return float(accuracy_score(y, pred, sample_weight=sample_weight))
