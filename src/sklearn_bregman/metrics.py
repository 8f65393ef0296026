"""Scorers for tuning the learners with ``GridSearchCV``.

Each factory returns a callable ``scorer(estimator, X, y) -> float`` (higher
is better) that maps ``X`` through ``estimator.transform`` — any transformer
of the suite, or a fitted ``Pipeline`` ending in one — and measures how well
the new coordinates separate the classes of ``y`` on those points alone.  In
a cross-validation, ``X`` and ``y`` are the held-out fold, so the score is an
out-of-sample one.  Samples labelled -1 (unlabeled) are not scored.
"""

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.neighbors import NearestNeighbors

__all__ = ["kernel_kmeans_scorer", "knn_scorer"]

_CLUSTER_METRICS = {"nmi": normalized_mutual_info_score, "ari": adjusted_rand_score}


def _labelled_embedding(estimator, X, y, unlabeled):
    if not hasattr(estimator, "transform"):
        raise TypeError(
            f"the scorer needs an estimator with a transform method; got "
            f"{type(estimator).__name__}."
        )
    Z = np.asarray(estimator.transform(X))
    y = np.asarray(y)
    keep = y != unlabeled if unlabeled is not None else np.ones(len(y), bool)
    return Z[keep], y[keep]


class _KNNScorer:
    def __init__(self, n_neighbors, unlabeled):
        self.n_neighbors = n_neighbors
        self.unlabeled = unlabeled

    def __call__(self, estimator, X, y):
        Z, y = _labelled_embedding(estimator, X, y, self.unlabeled)
        n = len(y)
        if n < 2:
            raise ValueError("knn_scorer needs at least 2 labelled samples.")
        k = min(self.n_neighbors, n - 1)
        ind = NearestNeighbors(n_neighbors=k + 1).fit(Z).kneighbors(Z, return_distance=False)
        # Drop each point from its own neighbour list (with duplicates it
        # need not come first); if it is absent, drop the farthest neighbour.
        is_self = ind == np.arange(n)[:, None]
        is_self[~is_self.any(1), -1] = True
        neighbours = ind[~is_self].reshape(n, k)
        classes, y_enc = np.unique(y, return_inverse=True)
        votes = np.zeros((n, classes.shape[0]))
        np.add.at(votes, (np.repeat(np.arange(n), k), y_enc[neighbours].ravel()), 1.0)
        # ties go to the smallest class, as KNeighborsClassifier
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
        Z, y = _labelled_embedding(estimator, X, y, self.unlabeled)
        n_clusters = np.unique(y).shape[0]
        if n_clusters < 2 or len(y) <= n_clusters:
            raise ValueError(
                "kernel_kmeans_scorer needs at least 2 classes and more labelled samples "
                "than classes."
            )
        labels = KMeans(n_clusters, n_init=self.n_init,
                        random_state=self.random_state).fit_predict(Z)
        return float(_CLUSTER_METRICS[self.metric](y, labels))

    def __repr__(self):
        return f"kernel_kmeans_scorer(metric={self.metric!r})"


def knn_scorer(n_neighbors=5, *, unlabeled=-1):
    """Leave-one-out k-NN accuracy in the learned coordinates.

    Each labelled point of ``X`` is classified by a majority vote of its
    ``n_neighbors`` nearest other points of ``X`` after
    ``estimator.transform``; ties go to the smallest class label.

    Parameters
    ----------
    n_neighbors : int, default=5
    unlabeled : int, str or None, default=-1
        Label of samples to leave out.

    Returns
    -------
    scorer : callable ``(estimator, X, y) -> float``

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_bregman import ITMLTransformer
    >>> from sklearn_bregman.metrics import knn_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> search = GridSearchCV(ITMLTransformer(random_state=0), {"slack": [0.1, 10.0]},
    ...                       scoring=knn_scorer(5), cv=3).fit(X, y)
    """
    if int(n_neighbors) != n_neighbors or n_neighbors < 1:
        raise ValueError(f"n_neighbors must be a positive integer; got {n_neighbors!r}.")
    return _KNNScorer(int(n_neighbors), unlabeled)


def kernel_kmeans_scorer(metric="nmi", *, n_init=10, random_state=0, unlabeled=-1):
    """Agreement of kernel k-means in the learned coordinates with the classes.

    ``estimator.transform(X)`` is a factor E of the learned kernel on ``X``
    (K = E E'), so k-means on its rows is kernel k-means with the learned
    kernel; the number of clusters is the number of classes in ``y``.

    Parameters
    ----------
    metric : {'nmi', 'ari'}, default='nmi'
        Normalised mutual information or adjusted Rand index.
    n_init : int, default=10
        k-means restarts.
    random_state : int, default=0
        Seed of k-means, fixed so that scores are comparable across a grid.
    unlabeled : int, str or None, default=-1
        Label of samples to leave out.

    Returns
    -------
    scorer : callable ``(estimator, X, y) -> float``
    """
    if metric not in _CLUSTER_METRICS:
        raise ValueError(f"metric must be 'nmi' or 'ari'; got {metric!r}.")
    return _KernelKMeansScorer(metric, n_init, random_state, unlabeled)
