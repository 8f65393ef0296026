"""The metric surface every learner of the suite shares, written once.

A learner of the suite maps points to coordinates whose Euclidean distance
is the learned one: ``transform``.  :class:`MetricMixin` builds on that map
the methods metric-learn's users call (its ``MahalanobisMixin``):

- ``pair_distance(pairs)``, ``pair_score(pairs)``: the learned distance of
  each pair, and minus it (larger: more similar); pairs as points
  ``(n, 2, n_features)`` or as identifiers ``(n, 2)`` through the
  estimator's ``preprocessor`` (:mod:`sklearn_bregman._data._inputs`);
- ``get_metric()``: the learned distance as a function of two 1-D points,
  ``d(u, v, squared=False)``, usable as ``NearestNeighbors(metric=...)``,
  independent of later fits of the estimator.

:class:`MahalanobisMixin` adds, for learners whose map is linear in the
input (ITML; the kernel learners with ``kernel='linear'``),
``get_mahalanobis_matrix()``: :math:`M = L^T L` with ``L = components_``,
the learned squared distance being :math:`(x - y)^T M (x - y)`.

A class using the mixin provides ``_point_map()``: a function of a 2-D
array of points returning their learned coordinates, built from the fitted
attributes as they are when it is called (so that ``get_metric``'s function
does not change when the estimator is refitted).
"""

import copy

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._data._inputs import check_tuples, complex_value
from .._utils._warnings import formed_rows

__all__ = ["MahalanobisMixin", "MetricMixin", "check_metric_point"]


def check_metric_point(u, name, n_features, owner):
    """One point for ``get_metric``'s function: a real, finite 1-D array of
    ``n_features`` values, or a ValueError that says what it got."""
    arr = np.asarray(u)
    if arr.ndim != 1:
        raise ValueError(
            f"{owner}.get_metric(): the metric takes two 1-D points; {name} has shape "
            f"{arr.shape}. For many points use pair_distance, or transform and a "
            "pairwise distance."
        )
    if arr.dtype.kind == "c" or complex_value(arr) is not None:
        raise ValueError(f"{owner}.get_metric(): complex data is not supported ({name}).")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}.get_metric(): {name} must be numeric; got dtype "
                         f"{arr.dtype}.") from None
    if arr.shape[0] != n_features:
        raise ValueError(
            f"{owner}.get_metric(): {name} has {arr.shape[0]} features, but the "
            f"estimator was fitted on {n_features}."
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{owner}.get_metric(): {name} contains NaN or infinity.")
    return arr


class MetricMixin:
    """``pair_distance``, ``pair_score`` and ``get_metric`` on a learned map."""

    def _point_map(self):
        """A function of a 2-D array of points: their learned coordinates.

        Default: ``transform`` of a shallow copy of the fitted estimator
        (a later fit sets new attributes on the estimator, not on the copy).
        """
        return copy.copy(self).transform

    def _tuple_coordinates(self, tuples, size, name):
        """The tuples' points in the learned coordinates, ``(n, size, r)``."""
        check_is_fitted(self)
        P = check_tuples(tuples, size, getattr(self, "preprocessor_", None), name=name,
                         owner=type(self).__name__, n_features=self.n_features_in_)
        n, t, d = P.shape
        with formed_rows():  # (rows of tuples: no feature names to check)
            return self.transform(P.reshape(n * t, d)).reshape(n, t, -1)

    def _pair_sqdist(self, pairs, name="pairs"):
        Z = self._tuple_coordinates(pairs, 2, name)
        diff = Z[:, 0] - Z[:, 1]
        return np.einsum("ij,ij->i", diff, diff)

    def pair_distance(self, pairs, squared=False):
        """The learned distance between the two points of each pair.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            The two points of each pair, or their identifiers through
            ``preprocessor`` (indices into an array, or any identifiers a
            callable preprocessor takes).
        squared : bool, default=False
            Return the squared distance.

        Returns
        -------
        distances : ndarray of shape (n_pairs,)
            The learned (squared, if ``squared``) distance of each pair: the
            Euclidean distance of the two points after ``transform``.
        """
        sq = self._pair_sqdist(pairs)
        return sq if squared else np.sqrt(sq)

    def pair_score(self, pairs):
        """Minus the learned distance of each pair: larger is more similar.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            The two points of each pair, or their identifiers through
            ``preprocessor``.

        Returns
        -------
        scores : ndarray of shape (n_pairs,)
            ``-pair_distance(pairs)``.
        """
        return -self.pair_distance(pairs)

    def get_metric(self):
        """The learned distance as a function of two points.

        The function ``d(u, v, squared=False)`` takes two 1-D points of
        ``n_features_in_`` values (not identifiers: it does not use the
        preprocessor) and returns their learned distance, or its square.
        It works as ``NearestNeighbors(metric=d)`` and any other
        scikit-learn estimator that takes a callable metric.  It keeps the
        map of the fit it was taken from: refitting the estimator does not
        change it.  Anything but two real, finite 1-D points of the right
        length is a ValueError (use :meth:`pair_distance` for many pairs).

        Returns
        -------
        metric : callable
            ``metric(u, v, squared=False) -> float``.
        """
        check_is_fitted(self)
        point_map = self._point_map()
        n_features, owner = self.n_features_in_, type(self).__name__

        def metric(u, v, squared=False):
            """The learned distance between the points ``u`` and ``v``.

            Parameters
            ----------
            u, v : array-like of shape (n_features,)
                Two points.
            squared : bool, default=False
                Return the squared distance.

            Returns
            -------
            float
                The learned (squared, if ``squared``) distance.
            """
            u = check_metric_point(u, "u", n_features, owner)
            v = check_metric_point(v, "v", n_features, owner)
            with formed_rows():  # (two 1-D points: no feature names to check)
                Z = point_map(np.vstack([u, v]))
            sq = float(((Z[0] - Z[1]) ** 2).sum())
            return sq if squared else float(np.sqrt(sq))

        return metric


#: Most features for which ``get_mahalanobis_matrix`` forms the d x d matrix
#: (512 MB of doubles): beyond, the learned map is ``components_`` (r x d),
#: and the distances need nothing larger (``pair_distance``, ``get_metric``).
MAHALANOBIS_MAX_FEATURES = 8192


def mahalanobis_matrix(components, owner):
    """``L' L`` of ``L = components`` (r x d), or a ValueError naming the
    size when the d x d matrix would be too large to form."""
    r, d = components.shape
    if d > MAHALANOBIS_MAX_FEATURES:
        raise ValueError(
            f"{owner}.get_mahalanobis_matrix: the Mahalanobis matrix is d x d, and with "
            f"d = {d} features that is {d * d * 8 / 2**30:.3g} GB (it is formed for at "
            f"most {MAHALANOBIS_MAX_FEATURES} features). The learned map is components_ "
            f"({r} x {d}: M = components_.T @ components_, transform(X) = X @ "
            "components_.T); pair_distance and get_metric compute distances without M.")
    return components.T @ components


def linear_point_map(components):
    """The map ``X -> X L'`` of a learned map linear in the input (a copy of
    ``L = components``: a later fit does not change it)."""
    L = np.array(components, copy=True)
    return lambda X: X @ L.T


class MahalanobisMixin(MetricMixin):
    """The metric surface of a learned map linear in the input:
    ``transform(X) = X @ components_.T``, so that the learned squared
    distance is :math:`(x - y)^T M (x - y)` with
    :math:`M = L^T L`, ``L = components_``."""

    def _point_map(self):
        return linear_point_map(self.components_)

    def get_mahalanobis_matrix(self):
        """The learned Mahalanobis matrix :math:`M = L^T L`.

        The learned squared distance is :math:`(x - y)^T M (x - y)`.

        Returns
        -------
        M : ndarray of shape (n_features, n_features)
            Symmetric positive semi-definite (a copy).

        Raises
        ------
        ValueError
            With more than ``MAHALANOBIS_MAX_FEATURES`` = 8192 features (the
            d x d matrix would exceed 512 MB).
        """
        check_is_fitted(self)
        return mahalanobis_matrix(self.components_, type(self).__name__)
