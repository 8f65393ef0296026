"""What the classifiers on pairs and triplets share: tuples of points as samples.

A sample of :class:`~sklearn_bregman.PairClassifier` is a pair, one of
:class:`~sklearn_bregman.TripletClassifier` a triplet: ``t`` points given
either as points, ``(n, t, n_features)``, or as integer indices into a
``preprocessor``, ``(n, t)`` (an array, or a callable mapping indices to
rows).  :class:`TupleMetaEstimator` turns either form into the points an
inner learner is fitted on and the tuples' rows among them, and maps tuples
through the fitted learner.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ._sklearn_compat import is_arraylike_not_scalar

__all__ = ["TupleMetaEstimator", "unique_points"]


def unique_points(P, t):
    """The distinct rows of the points ``P`` (t n x n_features, the tuples'
    points in order) and each tuple's rows among them, (n, t)."""
    X, inverse = np.unique(P, axis=0, return_inverse=True)
    return X, inverse.reshape(-1, t)


class TupleMetaEstimator(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Base of the meta-estimators whose samples are tuples of ``_size`` points.

    Subclasses set ``_size`` (2 or 3) and ``_name`` ('pairs', 'triplets'),
    and have the parameters ``estimator`` and ``preprocessor``.
    """

    _size = 2
    _name = "pairs"

    def _kind(self, tuples):
        """'points' or 'indices', from the shape of ``tuples``."""
        shape, t, name = np.shape(tuples), self._size, self._name
        if len(shape) == 3 and shape[1] == t:
            return "points"
        if len(shape) == 2 and shape[1] == t:
            return "indices"
        raise ValueError(
            f"{name} must have shape (n_{name}, {t}, n_features) (points) or "
            f"(n_{name}, {t}) (indices into the preprocessor); got shape {shape}."
        )

    def _index_tuples(self, tuples):
        """Integer (n, t) indices, checked against the preprocessor."""
        name, t = self._name, self._size
        if self.preprocessor is None:
            raise ValueError(
                f"{name} of shape (n_{name}, {t}) are indices, which need a preprocessor "
                f"(the array or callable they index); pass points as (n_{name}, {t}, "
                "n_features) otherwise."
            )
        idx = np.asarray(tuples)
        if idx.dtype.kind == "f":
            if not (np.isfinite(idx).all() and (idx == np.round(idx)).all()):
                raise ValueError(f"{name}: indices must be integers.")
        elif idx.dtype.kind not in "iu":
            raise ValueError(f"{name}: indices must be integers; got dtype {idx.dtype}.")
        idx = idx.astype(np.intp)
        if is_arraylike_not_scalar(self.preprocessor):
            n = len(self.preprocessor)
            bad = np.flatnonzero(((idx < 0) | (idx >= n)).any(1))
            if bad.size:
                raise ValueError(
                    f"{name}: row {bad[0]} has indices {idx[bad[0]].tolist()} outside "
                    f"[0, {n}) of the preprocessor."
                )
        elif (idx < 0).any():
            bad = int(np.flatnonzero((idx < 0).any(1))[0])
            raise ValueError(f"{name}: row {bad} has negative indices {idx[bad].tolist()}.")
        return idx

    def _lookup(self, idx):
        """Rows of the points with indices ``idx`` (1-D)."""
        if callable(self.preprocessor):
            return check_array(self.preprocessor(idx), dtype=np.float64,
                               input_name="preprocessor(indices)")
        return check_array(self.preprocessor, dtype=np.float64,
                           input_name="preprocessor")[idx]

    def _points(self, tuples):
        """Point tuples as a (t n, n_features) array of their rows, in order."""
        if len(tuples) == 0:
            raise ValueError(f"{self._name}: no {self._name[:-1]} given.")
        P = np.asarray(tuples, dtype=np.float64).reshape(len(tuples) * self._size, -1)
        return check_array(P, input_name=self._name)

    def _training_set(self, tuples):
        """The points the inner learner is fitted on, and the tuples' rows
        among them, (n, t).

        Point tuples: identical points are one sample (``np.unique`` on the
        rows).  Index tuples into an array: the whole array (points in no
        tuple still shape the initial kernel).  Into a callable: the points
        the tuples use.
        """
        t = self._size
        if self._kind(tuples) == "points":
            return unique_points(self._points(tuples), t)
        idx = self._index_tuples(tuples)
        if len(idx) == 0:
            raise ValueError(f"{self._name}: no {self._name[:-1]} given.")
        if callable(self.preprocessor):
            used, inverse = np.unique(idx.reshape(-1), return_inverse=True)
            return self._lookup(used), inverse.reshape(-1, t)
        X = check_array(self.preprocessor, dtype=np.float64, input_name="preprocessor")
        return X, idx

    def _keep_embedding(self, tuples, X):
        """After fitting on ``X``: with index tuples into an array, the training
        points' rows of the learned map are kept (O(n r)), so that scoring
        tuples over them reads them off."""
        self._embedding = None
        if self._kind(tuples) == "indices" and not callable(self.preprocessor):
            est = self.estimator_
            E = getattr(est, "embedding_", None)
            # (a transductive learner, e.g. DefiniteBoost(init='identity'), has
            # no transform: its embedding_ is the map of the training points)
            self._embedding = E if E is not None and E.shape[0] == X.shape[0] else (
                est.transform(X))

    def _mapped(self, tuples):
        """The tuples' points through the learned map, (n, t, r)."""
        check_is_fitted(self)
        t = self._size
        if self._kind(tuples) == "points":
            return self.estimator_.transform(self._points(tuples)).reshape(len(tuples), t, -1)
        idx = self._index_tuples(tuples)
        if self._embedding is not None:
            return self._embedding[idx]
        used, inverse = np.unique(idx.reshape(-1), return_inverse=True)
        return self.estimator_.transform(self._lookup(used))[inverse.reshape(-1, t)]

    def transform(self, X):
        """Map points with the inner learner's ``transform``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The points in the learned coordinates.
        """
        check_is_fitted(self)
        return self.estimator_.transform(X)

    def get_metric(self):
        """Return the learned distance as a function of two points.

        Returns
        -------
        callable
            ``d(u, v)``, the learned distance of two points (1-D arrays),
            usable as ``NearestNeighbors(metric=...)``.
        """
        check_is_fitted(self)
        est = self.estimator_

        def metric(u, v):
            Z = est.transform(np.vstack([u, v]))
            return float(np.sqrt(((Z[0] - Z[1]) ** 2).sum()))

        return metric

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        return tags
