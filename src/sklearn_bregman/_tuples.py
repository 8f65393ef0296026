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
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._inputs import (
    Preprocessor,
    check_point_tuples,
    points_of,
    tuple_form,
    unique_identifiers,
)
from ._metric import MetricMixin

__all__ = ["TupleMetaEstimator", "unique_points"]


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


class TupleMetaEstimator(MetricMixin, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Base of the meta-estimators whose samples are tuples of ``_size`` points.

    Subclasses set ``_size`` (2 or 3) and ``_name`` ('pairs', 'triplets'),
    and have the parameters ``estimator`` and ``preprocessor``.  Tuples are
    read by :mod:`sklearn_bregman._inputs` (points or identifiers); the
    metric surface (``pair_distance``, ``pair_score``, ``get_metric``) is
    :class:`~sklearn_bregman._metric.MetricMixin`'s, on the inner learner's
    map.
    """

    _size = 2
    _name = "pairs"

    def __sklearn_is_fitted__(self):
        # fitted means the inner learner is (``set_threshold`` may come first)
        return hasattr(self, "estimator_")

    def _training_set(self, tuples):
        """The points the inner learner is fitted on, and the tuples' rows
        among them, (n, t).

        Point tuples: identical points are one sample (``np.unique`` on the
        rows).  Identifiers into an array: the whole array (points in no
        tuple still shape the initial kernel).  Into a callable: the points
        the tuples use, each distinct identifier looked up once, then as
        point tuples (``np.unique`` on the rows), so that the same tuples
        given as points or through a callable fit the same model (the
        learners' bounds and draws depend on the order of their samples).
        """
        t, name = self._size, self._name
        if tuple_form(tuples, t, name, self.preprocessor) == "points":
            P = check_point_tuples(tuples, t, name)
            return unique_points(P.reshape(-1, P.shape[2]), t)
        pre = Preprocessor(self.preprocessor, type(self).__name__)
        ids = pre.identifiers(tuples, name)
        if not pre.callable:
            return pre.array, ids
        used, inverse = unique_identifiers(ids.reshape(-1))
        return unique_points(pre.rows(used, name)[inverse], t)

    def _keep_embedding(self, tuples, X):
        """After fitting on ``X``: with identifier tuples into an array, the
        training points' rows of the learned map are kept (O(n r)), so that
        scoring tuples over them reads them off."""
        self._embedding = None
        if (tuple_form(tuples, self._size, self._name, self.preprocessor) == "identifiers"
                and not callable(self.preprocessor)):
            est = self.estimator_
            E = getattr(est, "embedding_", None)
            # (a transductive learner, e.g. DefiniteBoost(init='identity'), has
            # no transform: its embedding_ is the map of the training points)
            self._embedding = E if E is not None and E.shape[0] == X.shape[0] else (
                est.transform(X))

    def _tuple_coordinates(self, tuples, size, name):
        """The tuples' points through the learned map, (n, size, r)."""
        check_is_fitted(self)
        if tuple_form(tuples, size, name, self.preprocessor) == "points":
            P = check_point_tuples(tuples, size, name, self.n_features_in_)
            n, t, d = P.shape
            return self.estimator_.transform(P.reshape(n * t, d)).reshape(n, t, -1)
        pre = Preprocessor(self.preprocessor, type(self).__name__)
        ids = pre.identifiers(tuples, name)
        if self._embedding is not None and not pre.callable:
            return self._embedding[ids]
        used, inverse = unique_identifiers(ids.reshape(-1))
        Z = self.estimator_.transform(pre.rows(used, name))
        return Z[inverse].reshape(ids.shape[0], size, -1)

    def _mapped(self, tuples):
        """This estimator's tuples through the learned map, (n, t, r)."""
        return self._tuple_coordinates(tuples, self._size, self._name)

    def _point_map(self):
        est = self.estimator_
        if isinstance(est, MetricMixin):
            return est._point_map()
        return copy.copy(est).transform

    def _set_linear_attributes(self):
        """``components_`` of a linear inner map, as metric-learn's pair and
        triplet learners have it."""
        if _inner_is_linear(self):
            self.components_ = self.estimator_.components_

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
