"""Triplets as samples: a classifier on relative comparisons.

A relative comparison ``(a, b, c)`` says "``a`` is closer to ``b`` than to
``c``".  :class:`TripletClassifier` treats each comparison as one sample, as
metric-learn's triplet learners do, so that scikit-learn's model selection
(``GridSearchCV``, ``cross_val_score``) splits, fits and scores triplets: the
inner learner is fitted on the training triplets as constraints, and a
held-out triplet is scored by how much farther ``c`` is from ``a`` than ``b``
in the learned kernel.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, _fit_context, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import (
    _is_arraylike_not_scalar,
    check_array,
    check_is_fitted,
    column_or_1d,
)

__all__ = ["TripletClassifier"]


class TripletClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    r"""Classify relative comparisons "a is closer to b than to c" with a learned kernel.

    A meta-estimator around a learner that takes triplets,
    ``estimator.fit(X, triplets=T)`` with ``T`` of shape ``(n, 3)`` indices
    into the rows of X, and maps points with ``transform`` (for now
    :class:`~sklearn_bregman.SKLRClusterer`; any estimator with that ``fit``
    and ``transform`` works the same way).  ``fit(triplets)`` fits a clone of
    ``estimator`` with the training triplets as constraints, and a triplet's
    score is :math:`d(a, c) - d(a, b)`, with :math:`d` the learned squared
    distance.  Each triplet is a sample, so ``GridSearchCV`` tunes the inner
    learner's parameters (``estimator__margin``, ``estimator__slack``) on
    triplets, scored by the fraction ordered correctly.

    How the forms relate: the comparison ``(a, b, c)`` here,
    :math:`d(a, b) < d(a, c)`, is given to SKLR as its outlier triplet
    ``(a, b | c)`` (``c`` the odd one out), which asks for *two*
    inequalities, :math:`\gamma^2 d(a, b) \le d(a, c)` and
    :math:`\gamma^2 d(b, a) \le d(b, c)`, with :math:`\gamma` = ``margin``
    (> 1).  SKLR's triplet is therefore a stronger statement than the
    relative comparison: a margin :math:`\gamma^2` and the same comparison
    seen from ``b`` (``b`` also closer to ``a`` than to ``c``).  Training
    triplets are learned in that stronger form; ``decision_function``,
    ``predict`` and ``score`` judge only the comparison itself,
    :math:`d(a, b) < d(a, c)`.

    Triplets come in two forms:

    - ``(n_triplets, 3, n_features)`` point triplets: identical points are
      recognised as one sample (``np.unique`` on the rows), so that
      triplets sharing a point share it in the learned kernel;
    - ``(n_triplets, 3)`` integer indices into ``preprocessor``: an array
      (the inner learner is then fitted on the whole array, so points in no
      triplet still shape the initial kernel: SKLR's semi-supervised
      setting), or a callable mapping an array of indices to the rows of
      those points (fitted on the points the triplets use).

    Parameters
    ----------
    estimator : estimator object
        A learner with ``fit(X, triplets=...)`` and ``transform`` (cloned in
        ``fit``).
    preprocessor : array-like of shape (n_samples, n_features) or callable, \
            default=None
        Where index triplets point to; ``None``: triplets are given as points.

    Attributes
    ----------
    estimator_ : estimator
        The fitted inner learner.
    classes_ : ndarray of shape (2,)
        ``[-1, 1]``.
    n_features_in_ : int
        Features of a point.

    Notes
    -----
    ``predict`` says +1 where ``decision_function`` is strictly positive
    (``a`` strictly closer to ``b`` than to ``c``) and -1 elsewhere: a tie
    :math:`d(a, b) = d(a, c)` does not confirm the comparison and counts as
    -1 (metric-learn returns 0 there).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_bregman import SKLRClusterer, TripletClassifier
    >>> from sklearn_bregman.constraints import triplets_from_labels
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> t = triplets_from_labels(y, 400, random_state=0)  # (a, b | c): c the outlier
    >>> clf = TripletClassifier(SKLRClusterer(n_clusters=3, random_state=0),
    ...                         preprocessor=X)
    >>> clf = clf.fit(t[:200])  # 200 comparisons to learn from
    >>> clf.predict(t[200:203])  # three held-out ones: ordered correctly?
    array([1, 1, 1])
    >>> clf.score(t[200:])  # held-out fraction ordered correctly (Euclidean: 0.875)
    0.975
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "transform"])],
        "preprocessor": ["array-like", callable, None],
    }

    def __init__(self, estimator, *, preprocessor=None):
        self.estimator = estimator
        self.preprocessor = preprocessor

    # -- input ---------------------------------------------------------------

    def _kind(self, triplets):
        """'points' or 'indices', from the shape of ``triplets``."""
        shape = np.shape(triplets)
        if len(shape) == 3 and shape[1] == 3:
            return "points"
        if len(shape) == 2 and shape[1] == 3:
            return "indices"
        raise ValueError(
            "triplets must have shape (n_triplets, 3, n_features) (points) or "
            f"(n_triplets, 3) (indices into the preprocessor); got shape {shape}."
        )

    def _index_triplets(self, triplets):
        """Integer (n, 3) index triplets, checked against the preprocessor."""
        if self.preprocessor is None:
            raise ValueError(
                "triplets of shape (n_triplets, 3) are indices, which need a "
                "preprocessor (the array or callable they index); pass points as "
                "(n_triplets, 3, n_features) otherwise."
            )
        idx = np.asarray(triplets)
        if idx.dtype.kind == "f":
            if not (np.isfinite(idx).all() and (idx == np.round(idx)).all()):
                raise ValueError("triplets: indices must be integers.")
        elif idx.dtype.kind not in "iu":
            raise ValueError(f"triplets: indices must be integers; got dtype {idx.dtype}.")
        idx = idx.astype(np.intp)
        if _is_arraylike_not_scalar(self.preprocessor):
            n = len(self.preprocessor)
            bad = np.flatnonzero(((idx < 0) | (idx >= n)).any(1))
            if bad.size:
                raise ValueError(
                    f"triplets: row {bad[0]} has indices {idx[bad[0]].tolist()} outside "
                    f"[0, {n}) of the preprocessor."
                )
        elif (idx < 0).any():
            bad = int(np.flatnonzero((idx < 0).any(1))[0])
            raise ValueError(f"triplets: row {bad} has negative indices {idx[bad].tolist()}.")
        return idx

    def _lookup(self, idx):
        """Rows of the points with indices ``idx`` (1-D)."""
        if callable(self.preprocessor):
            return check_array(self.preprocessor(idx), dtype=np.float64,
                               input_name="preprocessor(indices)")
        return check_array(self.preprocessor, dtype=np.float64,
                           input_name="preprocessor")[idx]

    def _points(self, triplets):
        """Point triplets as a (3 n, n_features) array of rows a, b, c, a, ..."""
        if len(triplets) == 0:
            raise ValueError("triplets: no triplet given.")
        return check_array(np.asarray(triplets, dtype=np.float64).reshape(len(triplets) * 3, -1),
                           input_name="triplets")

    def _training_set(self, triplets):
        """The points the inner learner is fitted on, and the triplets' rows (n, 3)."""
        if self._kind(triplets) == "points":
            X, inverse = np.unique(self._points(triplets), axis=0, return_inverse=True)
            return X, inverse.reshape(-1, 3)
        idx = self._index_triplets(triplets)
        if len(idx) == 0:
            raise ValueError("triplets: no triplet given.")
        if callable(self.preprocessor):
            used, inverse = np.unique(idx.reshape(-1), return_inverse=True)
            return self._lookup(used), inverse.reshape(-1, 3)
        X = check_array(self.preprocessor, dtype=np.float64, input_name="preprocessor")
        return X, idx

    # -- fit -----------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, triplets, y=None):
        """Fit the inner learner with the triplets as constraints.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
            Point triplets, or index triplets into ``preprocessor``: each row
            ``a, b, c`` says ``a`` is closer to ``b`` than to ``c``.
        y : array-like of shape (n_triplets,), default=None
            ``None`` (every triplet holds, as +1), or +1 / -1 for each: -1
            says the comparison is reversed (``a`` closer to ``c`` than to
            ``b``), and that triplet is learned as ``a, c, b``.

        Returns
        -------
        self
        """
        X, rows = self._training_set(triplets)
        if y is not None:
            y = self._check_y(y, len(rows))
            rows = rows.copy()
            flip = y == -1
            rows[flip, 1], rows[flip, 2] = rows[flip, 2], rows[flip, 1].copy()
        same = (rows[:, 0] == rows[:, 1]) | (rows[:, 0] == rows[:, 2]) | (rows[:, 1] == rows[:, 2])
        if same.any():
            k = int(np.flatnonzero(same)[0])
            raise ValueError(
                f"triplets: row {k} repeats a point (a triplet compares three "
                "distinct points)."
            )
        # "a closer to b than to c" is the outlier triplet (a, b | c)
        self.estimator_ = clone(self.estimator).fit(X, triplets=rows)
        self.n_features_in_ = X.shape[1]
        self.classes_ = np.array([-1, 1])
        # index triplets into an array: the training points' rows of the
        # learned map, kept (O(n r)) so that scoring them reads them off
        self._embedding = (self._embed(X) if self._kind(triplets) == "indices"
                           and not callable(self.preprocessor) else None)
        return self

    @staticmethod
    def _check_y(y, n):
        y = column_or_1d(y, warn=True)
        if len(y) != n:
            raise ValueError(f"y has {len(y)} entries but there are {n} triplets.")
        if not np.isin(y, (-1, 1)).all():
            raise ValueError(
                "y must hold +1 (the comparison holds) or -1 (it is reversed) for "
                f"each triplet; got {np.unique(y).tolist()[:5]}."
            )
        return y.astype(int)

    def _embed(self, X):
        est = self.estimator_
        E = getattr(est, "embedding_", None)
        if E is not None and E.shape[0] == X.shape[0]:
            return E
        return est.transform(X)

    # -- scores --------------------------------------------------------------

    def _sqdists(self, triplets):
        """Learned squared distances d(a, b) and d(a, c)."""
        check_is_fitted(self)
        if self._kind(triplets) == "points":
            Z = self.estimator_.transform(self._points(triplets)).reshape(len(triplets), 3, -1)
        else:
            idx = self._index_triplets(triplets)
            if self._embedding is not None:
                Z = self._embedding[idx]
            else:
                used, inverse = np.unique(idx.reshape(-1), return_inverse=True)
                Z = self.estimator_.transform(self._lookup(used))[inverse.reshape(-1, 3)]
        ab, ac = Z[:, 0] - Z[:, 1], Z[:, 0] - Z[:, 2]
        return np.einsum("ij,ij->i", ab, ab), np.einsum("ij,ij->i", ac, ac)

    def decision_function(self, triplets):
        """``d(a, c) - d(a, b)``, with d the learned squared distance.

        Positive where ``a`` is closer to ``b`` than to ``c``.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)

        Returns
        -------
        ndarray of shape (n_triplets,)
        """
        d_ab, d_ac = self._sqdists(triplets)
        return d_ac - d_ab

    def predict(self, triplets):
        """+1 where ``a`` is strictly closer to ``b`` than to ``c`` in the
        learned kernel (``decision_function > 0``), -1 elsewhere (ties too)."""
        return np.where(self.decision_function(triplets) > 0, 1, -1)

    def score(self, triplets, y=None, sample_weight=None):
        """Fraction of the triplets ordered correctly.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
        y : array-like of shape (n_triplets,), default=None
            ``None``: every comparison is taken to hold (+1); else +1 / -1.
        sample_weight : array-like of shape (n_triplets,), default=None

        Returns
        -------
        float
            Accuracy of :meth:`predict` against ``y``.
        """
        from sklearn.metrics import accuracy_score

        pred = self.predict(triplets)
        y = np.ones(len(pred), dtype=int) if y is None else self._check_y(y, len(pred))
        return float(accuracy_score(y, pred, sample_weight=sample_weight))

    # -- the learned map -----------------------------------------------------

    def transform(self, X):
        """The inner learner's map of points."""
        check_is_fitted(self)
        return self.estimator_.transform(X)

    def get_metric(self):
        """A function ``d(u, v)`` giving the learned distance of two points
        (1-D arrays), usable as ``NearestNeighbors(metric=...)``."""
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
