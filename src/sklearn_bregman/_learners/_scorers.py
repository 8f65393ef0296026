"""Scorers for tuning transformers with ``GridSearchCV``.

Each factory returns a callable ``scorer(estimator, X, y) -> float`` (higher
is better), usable as ``scoring=`` in scikit-learn's model selection tools.
It maps ``X`` through ``estimator.transform`` — any fitted transformer, such
as the learners of this package, or a fitted ``Pipeline`` ending in one —
and measures how well the new coordinates separate the classes of ``y`` on
those points alone.  In a cross-validation ``X`` and ``y`` are the held-out
fold, so the score is an out-of-sample one.  Samples labelled ``unlabeled``
(-1 by default) are left out entirely: they are neither scored nor used as
neighbours or clustered.
"""

from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.neighbors import NearestNeighbors

from .._utils._sklearn_compat import Interval, InvalidParameterError, StrOptions, validate_params
from .._utils._warnings import fit_kmeans

__all__ = ["kernel_kmeans_scorer", "knn_scorer"]

_CLUSTER_METRICS = {"nmi": normalized_mutual_info_score, "ari": adjusted_rand_score}


def _labelled_embedding(estimator, X, y, unlabeled, scorer):
    """``estimator.transform(X)`` and ``y`` restricted to the labelled samples."""
    if not hasattr(estimator, "transform"):
        raise TypeError(
            f"{scorer} needs a fitted estimator with a transform method (a "
            f"transformer, or a Pipeline ending in one); got {type(estimator).__name__}."
        )
    if y is None:
        raise ValueError(f"{scorer} needs the class labels y of the samples to score.")
    y = _check_labels(y, scorer)
    Z = estimator.transform(X)
    if not sparse.issparse(Z):
        Z = np.asarray(Z)
    if y.ndim != 1 or y.shape[0] != Z.shape[0]:
        raise ValueError(
            f"{scorer}: y must be 1-d with one label per sample of X; got y of shape "
            f"{y.shape} for {Z.shape[0]} samples."
        )
    if unlabeled is not None:
        keep = np.asarray(y != unlabeled, dtype=bool)
        Z, y = Z[keep], y[keep]
    _check_distances(Z, scorer)
    return Z, y


def _check_distances(Z, scorer):
    """Euclidean distances between the rows of Z are finite (no score from
    inf or NaN distances)."""
    if Z.ndim != 2:
        return  # not a transformer's output: NearestNeighbors / KMeans say so
    values = Z.data if sparse.issparse(Z) else Z
    with np.errstate(over="ignore", invalid="ignore"):
        sq = Z.multiply(Z).sum(1) if sparse.issparse(Z) else np.einsum("ij,ij->i", Z, Z)
    # |z_i - z_j|^2 <= 4 max |z|^2: below the largest double, no distance overflows
    if not np.isfinite(values).all() or not np.all(sq <= np.finfo(np.float64).max / 4):
        raise ValueError(
            f"{scorer}: the transformed points are not finite, or their squared distances "
            "overflow double precision; rescale X (or the estimator's output)."
        )


def _check_labels(y, scorer):
    """``np.asarray(y)``; missing labels (NaN or None) are not a class, nor
    are infinite or complex ones, and the labels must be of one comparable
    kind (numbers, or strings)."""
    if sparse.issparse(y):
        raise TypeError(f"{scorer}: y must be a dense 1-d array of class labels; got a "
                        f"sparse {type(y).__name__} of shape {y.shape} (use y.toarray() "
                        "for one column of labels).")
    y = np.asarray(y)
    if y.dtype.kind == "c":
        raise ValueError(f"{scorer}: y: Complex data not supported (dtype {y.dtype}); "
                         "class labels are integers or strings.")
    if y.dtype.kind == "f" and np.isinf(y).any():
        raise ValueError(
            f"{scorer}: y holds infinite labels ({int(np.isinf(y).sum())}); an infinite "
            "value is not a class.")
    if y.dtype.kind in "fc":
        missing = np.isnan(y)
    elif y.dtype.kind == "O":
        missing = np.array([v is None or (isinstance(v, float) and v != v)
                            for v in y.reshape(-1)], dtype=bool).reshape(y.shape)
    else:
        missing = np.zeros(y.shape, dtype=bool)
    if missing.any():
        k = np.flatnonzero(missing.reshape(-1))[0]
        raise ValueError(
            f"{scorer}: y holds missing labels ({int(missing.sum())} NaN or None, the "
            f"first at sample {k}); a missing label is not a class. Give unlabeled "
            "samples the label of the scorer's unlabeled argument (-1 by default) "
            "to leave them out."
        )
    if y.dtype.kind == "O":
        try:
            np.unique(y)
        except TypeError:
            kinds = sorted({type(v).__name__ for v in y.reshape(-1)})
            raise TypeError(
                f"{scorer}: y mixes label types that cannot be compared ({', '.join(kinds)}); "
                "use labels of one kind (numbers, or strings)."
            ) from None
    return y


def _not_a_bool(value, name, caller):
    """``validate_params`` takes a bool for an int; a count of True is a slip."""
    if isinstance(value, bool):
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must be an int in the range [1, inf), "
            f"not a bool. Got {value!r} instead."
        )


class _KNNScorer:
    def __init__(self, n_neighbors, unlabeled):
        self.n_neighbors = n_neighbors
        self.unlabeled = unlabeled

    def __call__(self, estimator, X, y):
        Z, y = _labelled_embedding(estimator, X, y, self.unlabeled, "knn_scorer")
        n = y.shape[0]
        if n < 2:
            raise ValueError(f"knn_scorer needs at least 2 labelled samples; got {n}.")
        k = min(self.n_neighbors, n - 1)
        # Without X, kneighbors leaves each point out of its own neighbours
        # (a point with more than k duplicates loses one of them instead:
        # the k left are as near, a valid k-NN of the others).
        neighbours = NearestNeighbors(n_neighbors=k).fit(Z).kneighbors(
            return_distance=False)
        classes, y_enc = np.unique(y, return_inverse=True)
        votes = np.zeros((n, classes.shape[0]))
        np.add.at(votes, (np.repeat(np.arange(n), k), y_enc[neighbours].ravel()), 1.0)
        # argmax: ties go to the smallest class, as in KNeighborsClassifier
        return float(np.mean(np.argmax(votes, axis=1) == y_enc))

    def __repr__(self):
        return f"knn_scorer(n_neighbors={self.n_neighbors})"


class _KernelKMeansScorer:
    def __init__(self, metric, n_init, random_state, unlabeled):
        self.metric = metric
        self.n_init = n_init
        self.random_state = random_state
        self.unlabeled = unlabeled

    def __call__(self, estimator, X, y):
        Z, y = _labelled_embedding(estimator, X, y, self.unlabeled,
                                   "kernel_kmeans_scorer")
        n_clusters = np.unique(y).shape[0]
        if n_clusters < 2:
            raise ValueError(
                f"kernel_kmeans_scorer needs at least 2 classes among the labelled "
                f"samples; got {n_clusters}. In a cross-validation, use folds that mix "
                "the classes (e.g. cv=StratifiedKFold(shuffle=True), or shuffle sorted "
                "data)."
            )
        labels = fit_kmeans(KMeans(n_clusters, n_init=self.n_init,
                                   random_state=self.random_state), Z).labels_
        return float(_CLUSTER_METRICS[self.metric](y, labels))

    def __repr__(self):
        return f"kernel_kmeans_scorer(metric={self.metric!r})"


@validate_params(
    {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "unlabeled": [Integral, str, None],
    },
    prefer_skip_nested_validation=True,
)
def knn_scorer(n_neighbors=5, *, unlabeled=-1):
    """Leave-one-out k-NN accuracy in the transformed coordinates.

    With :math:`Z` = ``estimator.transform(X)`` restricted to the labelled
    samples, each of them is classified by a majority vote of the labels of
    its ``n_neighbors`` nearest *other* samples of :math:`Z` (Euclidean
    distance), and the score is the fraction classified correctly: the
    leave-one-out accuracy of a k-nearest-neighbour classifier on the
    (validation) set itself.  Ties between classes go to the smallest class
    label, as in :class:`~sklearn.neighbors.KNeighborsClassifier` with
    uniform weights.  With fewer than ``n_neighbors + 1`` labelled samples,
    all the others vote.

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of voting neighbours.
    unlabeled : int, str or None, default=-1
        Label of the samples to leave out: they are neither scored nor
        neighbours.  ``None`` if every label is a class.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y) -> float`` in [0, 1], for a fitted
        estimator with a ``transform`` method.  It raises ValueError when
        ``y`` holds missing labels (NaN or None: not a class; label such
        samples ``unlabeled`` to leave them out).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.decomposition import PCA
    >>> from sklearn.model_selection import GridSearchCV, StratifiedKFold
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_bregman import knn_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> search = GridSearchCV(make_pipeline(StandardScaler(), PCA()),
    ...                       {"pca__n_components": [1, 3]}, scoring=knn_scorer(5),
    ...                       cv=StratifiedKFold(3, shuffle=True, random_state=0))
    >>> search.fit(X, y).best_params_
    {'pca__n_components': 3}
    """
    _not_a_bool(n_neighbors, "n_neighbors", "knn_scorer")
    return _KNNScorer(int(n_neighbors), unlabeled)


@validate_params(
    {
        "metric": [StrOptions(set(_CLUSTER_METRICS))],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "unlabeled": [Integral, str, None],
    },
    prefer_skip_nested_validation=True,
)
def kernel_kmeans_scorer(metric="nmi", n_init=10, random_state=0, *, unlabeled=-1):
    """Agreement with the classes of k-means in the transformed coordinates.

    :math:`Z` = ``estimator.transform(X)`` restricted to the labelled samples
    is clustered by :class:`~sklearn.cluster.KMeans` into as many clusters as
    there are classes in ``y``, and the partition is compared with ``y``.
    When :math:`Z` is a factor of a learned kernel (:math:`K = Z Z^T`, as
    the learners of this package produce), this is kernel k-means with the
    learned kernel (Dhillon, Guan & Kulis 2004).

    Parameters
    ----------
    metric : {'nmi', 'ari'}, default='nmi'
        :func:`~sklearn.metrics.normalized_mutual_info_score` (in [0, 1]) or
        :func:`~sklearn.metrics.adjusted_rand_score` (at most 1, about 0 for
        a random partition, can be negative).
    n_init : int, default=10
        Restarts of k-means.
    random_state : int, RandomState instance or None, default=0
        Seed of k-means, fixed by default so that scores are comparable
        across a parameter grid.
    unlabeled : int, str or None, default=-1
        Label of the samples to leave out.  ``None`` if every label is a
        class.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y) -> float``, for a fitted estimator with a
        ``transform`` method.  It raises ValueError when the labelled samples
        hold fewer than 2 classes, or when ``y`` holds missing labels (NaN or
        None: not a class; label such samples ``unlabeled`` to leave them
        out).

    References
    ----------
    I. S. Dhillon, Y. Guan and B. Kulis. Kernel k-means, spectral clustering
    and normalized cuts. KDD 2004.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.decomposition import PCA
    >>> from sklearn_bregman import kernel_kmeans_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> scorer = kernel_kmeans_scorer("ari")
    >>> 0.4 < scorer(PCA(2).fit(X), X, y) <= 1
    True
    """
    _not_a_bool(n_init, "n_init", "kernel_kmeans_scorer")
    return _KernelKMeansScorer(metric, int(n_init), random_state, unlabeled)
