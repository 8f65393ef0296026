"""Kernel k-means: k-means on the rows of a factor of the kernel."""

from functools import partial
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted

from .._data._data import enter
from .._data._inputs import refuse_sparse_kernel
from .._factors._kernels import KERNEL_PARAMETERS, KernelParamsMixin
from .._utils._sklearn_compat import Interval, StrOptions
from .._utils._state import TransactionalMixin, call_random_state, fit_context

__all__ = ["KernelKMeans"]

#: Residual trace (relative to the trace) at which the kernel's factor stops.
_FACTOR_TOL = 1e-10


class KernelKMeans(TransactionalMixin, KernelParamsMixin, ClusterMixin, BaseEstimator):
    r"""Kernel k-means (Dhillon, Guan & Kulis 2004).

    Minimises :math:`\sum_i \| \phi(x_i) - m_{c(i)} \|^2` with cluster means
    :math:`m_c` in the kernel's feature space, where

    .. math:: \|\phi(x_i) - m_c\|^2 = K_{ii} - \frac{2}{|c|} \sum_{j \in c} K_{ij}
              + \frac{1}{|c|^2} \sum_{j, l \in c} K_{jl}.

    Kernel k-means on ``K = G G'`` is k-means on the rows of G (the
    distances above are those of the rows), so the kernel is factored,
    K ~= G G' (the data itself for 'linear', pivoted incomplete Cholesky of
    rank ``rank`` otherwise, to a residual trace of 1e-10 of the trace),
    and the rows of G go through one k-means: scikit-learn's
    :class:`~sklearn.cluster.KMeans` in memory, O(n r c) per iteration,
    memory O(n r).

    - ``kernel='precomputed'``: the given n x n matrix (square and
      symmetric, as for every estimator of the package) is factored the
      same way, at rank n by default, so that up to that residual this is
      kernel k-means on the matrix itself (a matrix that is not positive
      semi-definite is factored on its positive part, with a warning);
      ``predict`` takes the kernel between new and training points.
    - On a dask array the factor is built on the chunks and the k-means
      runs as per-chunk tasks (:mod:`sklearn_bregman._data._dask_kmeans`):
      seeding (``init``) and Lloyd's iterations, every pass over the rows
      serving all ``n_init`` restarts at once; ``labels_`` and ``predict``
      are then lazy.

    A learner's ``embedding_`` is such a factor of its learned kernel, so
    ``KernelKMeans(kernel='linear')`` on it clusters with the learned kernel
    exactly.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters.
    kernel : str or callable, default='linear'
        One of 'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine',
        'precomputed', or a callable ``k(x, y) -> float``.
        Kernel of the feature space.  With 'precomputed', ``fit`` takes the
        n x n training kernel and ``predict`` the kernel between new and
        training points (scikit-learn's convention).
    gamma : float, default=None
        Bandwidth of 'rbf', 'laplacian', 'poly', 'sigmoid' (``None``:
        1 / n_features, as scikit-learn).
    degree : float, default=3
        Degree of 'poly'.
    coef0 : float, default=1
        Constant of 'poly' and 'sigmoid'.
    kernel_params : dict, default=None
        Parameters of a callable kernel.
    rank : int, default=None
        Largest rank of the incomplete Cholesky factor for non-linear kernels
        (``None``: min(n_samples, 100); n_samples for 'precomputed').
    low_rank : {'cholesky', 'rpcholesky'}, default='cholesky'
        Pivots of that factor: the largest residual diagonal, or drawn in
        proportion to it (randomly pivoted Cholesky, blocked; with
        ``random_state``), which on a dask array keeps only the diagonal on
        the workers and passes over the data once per block of pivots.
    n_init : int, default=10
        Restarts; the lowest inertia wins.
    init : {'auto', 'k-means++', 'k-means||', 'sample'}, default='auto'
        Seeding.  In memory it is always scikit-learn's greedy k-means++
        (the rows are at hand).  On a dask array: ``'k-means||'`` (Bahmani
        et al., Scalable k-means++, PVLDB 2012: 5 sampling rounds and a
        weighting pass over the rows), ``'sample'`` (scikit-learn's
        ``KMeans`` on a uniform sample of max(10000, 100 ``n_clusters``)
        rows drawn in one pass; a cluster of fewer than about n / 10000
        rows may get no seed) or ``'k-means++'`` (one pass per seed and
        restart); ``'auto'``: ``'k-means||'`` when the factor's rows are
        kept on the workers (a pass is cheap), ``'sample'`` when every pass
        computes them anew from the data (a pass costs the whole map).
    max_iter : int, default=300
        Iterations per restart.
    tol : float, default=1e-4
        KMeans' own ``tol`` (on the shift of the centres).
    random_state : int, RandomState instance or None, default=None
        Seeds the seeding of every restart (``init``) and the pivots of
        ``low_rank='rpcholesky'``.
    verbose : int, default=0
        Passed to scikit-learn's KMeans (its own output: the inertia of every
        iteration).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of every training point; a lazy dask array when ``X`` is one.
    inertia_ : float
        Sum of squared feature-space distances to the cluster means (a
        ValueError if it overflows float64, e.g. for ``X * 1e300``).
    n_iter_ : int
        Iterations of the best run.
    cluster_centers_ : ndarray of shape (n_clusters, rank)
        Means in the factor's coordinates.
    factor_ : LowRankFactor or DaskFactor
        The kernel's factor G (``K ~= G G'``) and its map of new points, built
        on the chunks (``DaskFactor``) when ``X`` is a dask array.
    kmeans_ : sklearn.cluster.KMeans
        The fitted k-means on the rows of the factor (data in memory only).
    n_features_in_ : int
        Number of features seen during ``fit``.

    References
    ----------
    I. S. Dhillon, Y. Guan and B. Kulis. Kernel k-means, spectral clustering
    and normalized cuts. KDD 2004.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from sklearn_bregman import KernelKMeans
    >>> X, _ = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    >>> km = KernelKMeans(n_clusters=2, kernel="rbf", gamma=5, random_state=0).fit(X)
    >>> km.labels_.shape
    (200,)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        **KERNEL_PARAMETERS,
        "rank": [Interval(Integral, 1, None, closed="left"), None],
        "low_rank": [StrOptions({"cholesky", "rpcholesky"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions({"auto", "k-means++", "k-means||", "sample"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters=8, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 kernel_params=None, rank=None, low_rank="cholesky", n_init=10,
                 init="auto", max_iter=300, tol=1e-4, random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank = rank
        self.low_rank = low_rank
        self.n_init = n_init
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster ``X`` (or the kernel matrix ``X`` if precomputed).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training points, or the training kernel matrix when
            ``kernel='precomputed'``; or a dask array of points.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.kernel == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        rows = enter(self, X, reset=True)
        if rows.n < self.n_clusters:
            raise ValueError(
                f"n_samples={rows.n} should be >= n_clusters={self.n_clusters}."
            )
        rank = self.rank
        if self.kernel == "precomputed":
            rows.in_memory("KernelKMeans with kernel='precomputed'",
                           "the n x n kernel matrix is what a factor avoids; give the points")
            rank = rows.n if rank is None else rank
        # kernel k-means on G G' is k-means on the rows of G: scikit-learn's
        # KMeans in memory, the per-chunk k-means of _dask_kmeans on a dask
        # array (kept on the workers when the rows fit there, otherwise
        # computed anew from X at every pass)
        random_state = call_random_state(self.random_state)  # (the call's own draws)
        self.factor_, G = rows.low_rank_factor(
            None, self.kernel, rank, _FACTOR_TOL, self._kernel_params(), self.low_rank,
            random_state=random_state)
        self.cluster_centers_, inertia, self.n_iter_, self.labels_, kmeans = G.kmeans(
            self.n_clusters, n_init=self.n_init, max_iter=self.max_iter, tol=self.tol,
            random_state=random_state, verbose=self.verbose, init=self.init)
        if kmeans is not None:
            self.kmeans_ = kmeans
        self.inertia_ = _finite_inertia(inertia, self.cluster_centers_)
        return self

    def predict(self, X):
        """Nearest cluster mean in feature space for new points.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features), or (n_new, n_train)
            New points, or their kernel values against the training points
            if precomputed; or a dask array of points.

        Returns
        -------
        labels : ndarray of shape (n_new,)
            Index of the nearest cluster mean of every point (a lazy dask
            array for a dask array).
        """
        check_is_fitted(self)
        if getattr(self.factor_, "kernel", self.kernel) == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        rows = enter(self, X, reset=False)
        # (fitted in memory: its KMeans' own predict; on chunks: the centres)
        nearest = (partial(_kmeans_predict, self.factor_, self.kmeans_)
                   if hasattr(self, "kmeans_") else
                   partial(_nearest_centre, self.factor_, self.cluster_centers_))
        return rows.map(nearest, None, dtype=np.intp)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # sparse rows (CSR, CSC) of points; a kernel matrix must be dense
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags


def _kmeans_predict(factor, kmeans, X):
    """Labels of a fitted KMeans on the factor's coordinates of ``X``."""
    return kmeans.predict(factor.transform(X))


def _nearest_centre(factor, centers, X):
    """Labels of the nearest centre in the factor's coordinates."""
    Z = factor.transform(X)
    return np.argmin((Z * Z).sum(1)[:, None] - 2.0 * Z @ centers.T
                     + (centers * centers).sum(1)[None, :], axis=1)


def _finite_inertia(inertia, values):
    """The inertia as a float, or a ValueError if it overflowed float64
    (``values``: the factor or kernel matrix it came from, for the message)."""
    inertia = float(inertia)
    if not np.isfinite(inertia):
        largest = float(np.abs(values).max())
        raise ValueError(
            "KernelKMeans: the inertia (sum of squared feature-space distances) is not "
            f"finite: it overflows float64 (largest |value| = {largest:.3g}). Check the "
            "scale of X, or of the kernel matrix for kernel='precomputed'."
        )
    return inertia
