"""Kernel k-means: on a factor, k-means on its rows; on a kernel matrix, the real one."""

from functools import partial
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._data import enter
from ._factors import power_of_two_below
from ._kernels import KERNEL_PARAMETERS, KernelParamsMixin, check_precomputed
from ._sklearn_compat import Interval, StrOptions, fit_context

__all__ = ["KernelKMeans"]


class KernelKMeans(KernelParamsMixin, ClusterMixin, BaseEstimator):
    r"""Kernel k-means (Dhillon, Guan & Kulis 2004).

    Minimises :math:`\sum_i \| \phi(x_i) - m_{c(i)} \|^2` with cluster means
    :math:`m_c` in the kernel's feature space, where

    .. math:: \|\phi(x_i) - m_c\|^2 = K_{ii} - \frac{2}{|c|} \sum_{j \in c} K_{ij}
              + \frac{1}{|c|^2} \sum_{j, l \in c} K_{jl}.

    - ``kernel='precomputed'``: the real kernel k-means on the given n x n
      matrix (square and symmetric, as for every estimator of the package);
      each iteration is one product ``K @ Z`` with the n x c cluster
      indicator Z, O(n^2 c).  k-means++ seeding in feature space.
    - any other kernel: the kernel is factored, K ~= G G' (the data itself
      for 'linear', pivoted incomplete Cholesky of rank ``rank``
      otherwise), and kernel k-means on G G' is k-means on the rows of G
      (scikit-learn's :class:`~sklearn.cluster.KMeans`), O(n r c) per
      iteration, memory O(n r).  On a dask array the factor is built on
      the chunks and k-means++ and Lloyd's iterations run as per-chunk
      tasks (:mod:`sklearn_bregman._dask_kmeans`); ``labels_`` and
      ``predict`` are then lazy.  A learner's ``embedding_`` is such a factor
      of its learned kernel, so ``KernelKMeans(kernel='linear')`` on it
      clusters with the learned kernel exactly.

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
        Rank of the incomplete Cholesky factor for non-linear kernels
        (``None``: min(n_samples, 100)).
    low_rank : {'cholesky', 'rpcholesky'}, default='cholesky'
        Pivots of that factor: the largest residual diagonal, or drawn in
        proportion to it (randomly pivoted Cholesky, blocked; with
        ``random_state``), which on a dask array keeps only the diagonal on
        the workers and passes over the data once per block of pivots.
    n_init : int, default=10
        Restarts; the lowest inertia wins.
    max_iter : int, default=300
        Iterations per restart.
    tol : float, default=1e-4
        Stop when the inertia improves by less than ``tol`` times itself
        (precomputed path), or KMeans' own ``tol``.
    random_state : int, RandomState instance or None, default=None
        Seeds the k-means++ seeding of every restart and the pivots of
        ``low_rank='rpcholesky'``.
    verbose : int, default=0
        Print the inertia of every restart (scikit-learn's KMeans' own
        output for the factored path).

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
        Means in the factor's coordinates (not for 'precomputed').
    factor_ : LowRankFactor or DaskFactor
        The kernel's factor G (``K ~= G G'``) and its map of new points, built
        on the chunks (``DaskFactor``) when ``X`` is a dask array (not for
        'precomputed').
    kmeans_ : sklearn.cluster.KMeans
        The fitted k-means on the rows of the factor (in-memory, not
        'precomputed' data only).
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
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters=8, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 kernel_params=None, rank=None, low_rank="cholesky", n_init=10,
                 max_iter=300, tol=1e-4, random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank = rank
        self.low_rank = low_rank
        self.n_init = n_init
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
        rows = enter(self, X, reset=True)
        if rows.n < self.n_clusters:
            raise ValueError(
                f"n_samples={rows.n} should be >= n_clusters={self.n_clusters}."
            )
        if self.kernel == "precomputed":
            K = rows.in_memory("KernelKMeans with kernel='precomputed'",
                               "the n x n kernel matrix is what a factor avoids; give "
                               "the points")
            check_precomputed(K)
            self._fit_precomputed(K)
            return self
        # the factor's rows: scikit-learn's KMeans in memory, the per-chunk
        # k-means of _dask_kmeans on a dask array (kept on the workers when
        # the rows fit there, otherwise computed anew from X at every pass)
        self.factor_, G = rows.low_rank_factor(
            None, self.kernel, self.rank, 1e-10, self._kernel_params(), self.low_rank,
            random_state=self.random_state)
        self.cluster_centers_, inertia, self.n_iter_, self.labels_, kmeans = G.kmeans(
            self.n_clusters, n_init=self.n_init, max_iter=self.max_iter, tol=self.tol,
            random_state=self.random_state, verbose=self.verbose)
        if kmeans is not None:
            self.kmeans_ = kmeans
        self.inertia_ = _finite_inertia(inertia, self.cluster_centers_)
        return self

    def _fit_precomputed(self, K):
        rng = check_random_state(self.random_state)
        # Kernel k-means is homogeneous in K (same labels, inertia times s for
        # K / s): a kernel so large that its sums would overflow is divided by
        # a power of two (exact) and the inertia scaled back.  Only then is K
        # copied.
        K_in = K
        largest = max(float(K.max()), -float(K.min()))
        scale = power_of_two_below(largest) if largest > _LARGE else 1.0
        if scale != 1.0:
            K = K / scale
        diag = np.diag(K).copy()
        best = None
        for run in range(self.n_init):
            labels, inertia, n_iter = _kernel_kmeans_single(
                K, diag, self.n_clusters, self.max_iter, self.tol, rng
            )
            if self.verbose:
                print(f"[KernelKMeans] init {run}: inertia {inertia:.6g}, {n_iter} iterations")
            if best is None or inertia < best[1]:
                best = (labels, inertia, n_iter)
        self.labels_, inertia, self.n_iter_ = best
        self.inertia_ = _finite_inertia(inertia * scale, K_in)
        # what predict needs: K_new @ Zs and the squared norms of the means
        self._Zs, _, within, _ = _means(K, self.labels_, self.n_clusters)
        self._within = within * scale

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
        rows = enter(self, X, reset=False, finite=False)
        if self.kernel == "precomputed":
            K = rows.in_memory("KernelKMeans with kernel='precomputed'")
            # K(x, x) is the same for every cluster: left out of the argmin
            return np.argmin(self._within - 2.0 * (K @ self._Zs), axis=1)
        # (fitted in memory: its KMeans' own predict; on chunks: the centres)
        nearest = (partial(_kmeans_predict, self.factor_, self.kmeans_)
                   if hasattr(self, "kmeans_") else
                   partial(_nearest_centre, self.factor_, self.cluster_centers_))
        return rows.map(nearest, None, dtype=np.intp)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


#: Largest kernel value used as it is by the precomputed path; sums of up to
#: n^2 such values stay far from overflow.
_LARGE = 1e100


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


def _indicator(labels, k):
    Z = np.zeros((labels.shape[0], k))
    Z[np.arange(labels.shape[0]), labels] = 1.0
    return Z


def _means(K, labels, k):
    """Cluster means as weights Zs (n x k, columns sum to 1), with K @ Zs and
    the squared norms of the means, diag(Zs' K Zs)."""
    Z = _indicator(labels, k)
    sizes = Z.sum(0)
    Zs = Z / np.maximum(sizes, 1)
    KZs = K @ Zs
    return Zs, KZs, np.einsum("ij,ij->j", Zs, KZs), sizes


def _distances(diag, KZs, norms, sizes):
    """Squared feature-space distances of every point to every cluster mean."""
    D = diag[:, None] - 2.0 * KZs + norms[None, :]
    D[:, sizes == 0] = np.inf
    return np.maximum(D, 0.0)


def _kmeans_plus_plus(K, diag, k, rng):
    """Greedy k-means++ seeding in feature space (as scikit-learn's KMeans).

    Each new seed is the best, by the resulting potential, of
    ``2 + log(k)`` candidates drawn with probability proportional to the
    squared distance to the nearest seed so far.
    """
    n = K.shape[0]
    n_trials = 2 + int(np.log(k))

    def sq_dist_to(c):
        return np.maximum(diag - 2 * K[:, c] + diag[c], 0.0)

    seeds = [rng.randint(n)]
    closest = sq_dist_to(seeds[0])
    for _ in range(1, k):
        total = closest.sum()
        if total <= 0:  # every point coincides with a seed
            seeds.append(rng.choice(np.setdiff1d(np.arange(n), seeds)))
            continue
        candidates = rng.choice(n, size=n_trials, p=closest / total)
        trials = np.minimum(closest[:, None], np.maximum(
            diag[:, None] - 2 * K[:, candidates] + diag[candidates][None, :], 0.0))
        best = int(np.argmin(trials.sum(0)))
        seeds.append(candidates[best])
        closest = trials[:, best]
    return np.array(seeds)


def _kernel_kmeans_single(K, diag, k, max_iter, tol, rng):
    """One run of Lloyd's iterations in feature space from k-means++ seeds.

    Stops when no label changes, or when the squared shift of the means,
    sum_c |m_c - m_c_old|^2, is at most ``tol`` times the data's total
    variance in feature space (scikit-learn's KMeans measures ``tol`` on the
    centre shift the same way, against the mean feature variance).
    """
    n = K.shape[0]
    tol_abs = tol * max((diag.sum() - K.sum() / n) / n, 0.0)
    seeds = _kmeans_plus_plus(K, diag, k, rng)
    labels = np.argmin(diag[:, None] - 2 * K[:, seeds] + diag[seeds][None, :], axis=1)
    labels[seeds] = np.arange(k)
    Zs_old = norms_old = None
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (returned after the loop)
        Zs, KZs, norms, sizes = _means(K, labels, k)
        if Zs_old is not None:
            # |m_c - m_c_old|^2 = |m_c|^2 - 2 m_c_old . m_c + |m_c_old|^2
            shift = (norms - 2 * np.einsum("ij,ij->j", Zs_old, KZs) + norms_old).sum()
            if shift <= tol_abs:
                break
        D = _distances(diag, KZs, norms, sizes)
        new = np.argmin(D, axis=1)
        # an empty cluster takes the point farthest from its current mean
        for c in np.setdiff1d(np.arange(k), new):
            far = np.argmax(D[np.arange(n), new])
            new[far] = c
            D[far, :] = 0.0
        if np.array_equal(new, labels):
            break
        labels, Zs_old, norms_old = new, Zs, norms
    _, KZs, norms, sizes = _means(K, labels, k)
    D = _distances(diag, KZs, norms, sizes)
    return labels, float(D[np.arange(n), labels].sum()), n_iter
