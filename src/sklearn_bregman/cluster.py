"""Kernel k-means: the real one on a kernel matrix, k-means on a factor otherwise.

Dhillon, Guan & Kulis, "Kernel k-means, spectral clustering and normalized
cuts", KDD 2004.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["KernelKMeans"]

_KERNELS = ("linear", "rbf", "poly", "laplacian", "sigmoid", "cosine", "precomputed")


class KernelKMeans(ClusterMixin, BaseEstimator):
    r"""Kernel k-means clustering (Dhillon, Guan & Kulis 2004).

    Partitions the points into ``n_clusters`` clusters :math:`\pi_c` that
    minimise the within-cluster sum of squared distances in the kernel's
    feature space,

    .. math:: \sum_c \sum_{i \in \pi_c} \|\phi(x_i) - m_c\|^2, \qquad
              m_c = \frac{1}{|\pi_c|} \sum_{j \in \pi_c} \phi(x_j),

    where, with :math:`K_{ij} = \phi(x_i)^T \phi(x_j)`,

    .. math:: \|\phi(x_i) - m_c\|^2 = K_{ii}
              - \frac{2}{|\pi_c|} \sum_{j \in \pi_c} K_{ij}
              + \frac{1}{|\pi_c|^2} \sum_{j, l \in \pi_c} K_{jl}

    (Dhillon et al. 2004, eq. 2).  Two ways to get there:

    - ``kernel='precomputed'``: ``fit`` takes the n x n kernel matrix and
      runs the real kernel k-means on it.  With the n x c indicator matrix
      :math:`Z` scaled to :math:`W = Z \,\mathrm{diag}(1/|\pi_c|)`, all
      distances at once are
      :math:`D = \mathrm{diag}(K) 1^T - 2 K W + 1 \,\mathrm{diag}(W^T K W)^T`,
      one product :math:`K W` per iteration, O(n^2 c) time and no loop over
      points.  Seeding is k-means++ in feature space (the same draws as
      :class:`~sklearn.cluster.KMeans` with the same ``random_state``).
    - any other kernel: kernel k-means on a factor :math:`K \approx G G^T`
      is ordinary k-means on the rows of :math:`G`, since then
      :math:`\|\phi(x_i) - \phi(x_j)\|^2 = \|g_i - g_j\|^2`.  For
      ``'linear'`` the factor is ``X`` itself, so this is exactly
      :class:`~sklearn.cluster.KMeans` on ``X``.  Otherwise :math:`G` is a
      pivoted incomplete Cholesky factor of rank at most ``rank`` (Fine &
      Scheinberg 2001; Bach & Jordan 2005), built from ``rank`` kernel
      columns (O(n r d) kernel evaluations, O(n r) memory, no n x n matrix),
      and new points are mapped by the Nystrom formula
      :math:`g(x) = k(x, X_P) L^{-T}` with :math:`X_P` the pivots and
      :math:`L = G_{P,:}` lower triangular.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters.
    kernel : {'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine', \
            'precomputed'} or callable, default='linear'
        Kernel, as in :func:`sklearn.metrics.pairwise.pairwise_kernels`.  A
        callable takes two rows and returns a float.  With 'precomputed',
        ``fit`` takes the n x n kernel matrix and ``predict`` the kernel
        values between new and training points.  'sigmoid' is not positive
        semi-definite; its incomplete Cholesky factor covers only its
        positive part.
    gamma : float, default=None
        Kernel coefficient of 'rbf', 'poly', 'laplacian' and 'sigmoid';
        ``None`` means ``1 / n_features``.
    degree : float, default=3
        Degree of the 'poly' kernel.
    coef0 : float, default=1
        Constant term of the 'poly' and 'sigmoid' kernels.
    kernel_params : dict, default=None
        Keyword arguments of a callable kernel; ignored by the named ones.
    rank : int, default=100
        Largest rank of the incomplete Cholesky factor (non-linear kernels
        other than 'precomputed'): it stops at ``min(rank, n_samples)``
        columns, or earlier once the residual trace
        :math:`\mathrm{tr}(K - G G^T)` is below ``1e-10`` times
        :math:`\mathrm{tr}(K)`.  Ignored by 'linear' and 'precomputed'.
    n_init : int, default=10
        Number of k-means++ restarts; the run of lowest inertia is kept.
    max_iter : int, default=300
        Largest number of iterations of a run.
    tol : float, default=1e-4
        'precomputed': a run stops when no assignment changes, or when the
        inertia improves by less than ``tol * inertia`` in an iteration.
        Other kernels: :class:`~sklearn.cluster.KMeans`' own ``tol`` (on the
        shift of the centres).
    random_state : int, RandomState instance or None, default=None
        Seeds the k-means++ initialisations.
    verbose : int, default=0
        Verbosity: one line per run ('precomputed', and per iteration if
        above 1), or :class:`~sklearn.cluster.KMeans`' own messages.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training point.
    inertia_ : float
        Sum of the squared feature-space distances of the training points
        to their closest cluster centre.
    n_iter_ : int
        Iterations of the kept run.
    cluster_centers_ : ndarray of shape (n_clusters, n_features) or (n_clusters, rank_)
        Cluster centres in ``X``'s coordinates ('linear') or in the
        incomplete Cholesky factor's (other kernels).  Not defined for
        'precomputed', whose centres live in the implicit feature space.
    rank_ : int
        Columns of the incomplete Cholesky factor (non-linear kernels other
        than 'precomputed' only).
    n_features_in_ : int
        Number of features of ``X``, or of training points for
        'precomputed'.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when ``X`` has string feature names.

    See Also
    --------
    sklearn.cluster.KMeans : k-means in the input space.
    sklearn.cluster.SpectralClustering : normalised cuts, the weighted
        kernel k-means objective of Dhillon et al. (2004).

    Notes
    -----
    Empty clusters ('precomputed') are re-seeded, as in scikit-learn's
    KMeans, with the points farthest from their own centre.  With duplicate
    points a run can still end with fewer than ``n_clusters`` distinct
    labels; a :class:`~sklearn.exceptions.ConvergenceWarning` says so.

    References
    ----------
    I. S. Dhillon, Y. Guan and B. Kulis. Kernel k-means, spectral clustering
    and normalized cuts. KDD 2004.

    S. Fine and K. Scheinberg. Efficient SVM training using low-rank kernel
    representations. JMLR 2, 2001.

    F. R. Bach and M. I. Jordan. Predictive low-rank decomposition for
    kernel methods. ICML 2005.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from sklearn_bregman.cluster import KernelKMeans
    >>> X, y = make_circles(300, factor=0.3, noise=0.05, random_state=0)
    >>> km = KernelKMeans(n_clusters=2, kernel="rbf", gamma=5, random_state=0).fit(X)
    >>> bool(adjusted_rand_score(y, km.labels_) > 0.9)
    True
    >>> K = rbf_kernel(X, gamma=5)
    >>> km = KernelKMeans(n_clusters=2, kernel="precomputed", random_state=0).fit(K)
    >>> bool(adjusted_rand_score(y, km.labels_) > 0.9)
    True
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions(set(_KERNELS)), callable],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "rank": [Interval(Integral, 1, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters=8, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 kernel_params=None, rank=100, n_init=10, max_iter=300, tol=1e-4,
                 random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank = rank
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the points of ``X`` (or of the kernel matrix ``X``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training points, or their kernel matrix if ``kernel='precomputed'``.
        y : None
            Ignored.

        Returns
        -------
        self : KernelKMeans
        """
        X = validate_data(self, X, dtype=np.float64)
        n = X.shape[0]
        if n < self.n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={self.n_clusters}.")
        if self.kernel == "precomputed":
            self._fit_precomputed(X)
            return self
        if self.kernel == "linear":
            G = X
        else:
            params = self._kernel_params()
            G, pivots = _incomplete_cholesky(X, self.kernel, params, min(self.rank, n))
            self._X_pivots = X[pivots]
            self._L = G[pivots]
            self.rank_ = max(pivots.shape[0], 1)
            # Run k-means on exactly the coordinates predict gives the
            # training points (equal to G up to rounding).
            G = self._feature_map(X)
        self._kmeans = KMeans(self.n_clusters, n_init=self.n_init, max_iter=self.max_iter,
                              tol=self.tol, random_state=self.random_state,
                              verbose=self.verbose).fit(G)
        self.labels_ = self._kmeans.labels_
        self.inertia_ = float(self._kmeans.inertia_)
        self.n_iter_ = int(self._kmeans.n_iter_)
        self.cluster_centers_ = self._kmeans.cluster_centers_
        return self

    def predict(self, X):
        """Closest cluster centre in feature space of each point.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features) or (n_new, n_train)
            New points, or for ``kernel='precomputed'`` their kernel values
            against the training points (scikit-learn's convention).  The
            point's own :math:`k(x, x)` is the same for every cluster and is
            not needed.

        Returns
        -------
        labels : ndarray of shape (n_new,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.kernel == "precomputed":
            return _closest(X @ self._center_weights, self._center_sq_norms)
        return self._kmeans.predict(self._feature_map(X))

    def _kernel_params(self):
        if callable(self.kernel):
            return dict(self.kernel_params or {})
        return {"gamma": self.gamma, "degree": self.degree, "coef0": self.coef0}

    def _feature_map(self, X):
        """Factor coordinates g(x) = k(x, X_pivots) L^-T (X itself if linear)."""
        if self.kernel == "linear":
            return X
        if self._L.shape[0] == 0:  # zero kernel on the training points
            return np.zeros((X.shape[0], 1))
        Kc = pairwise_kernels(X, self._X_pivots, metric=self.kernel, filter_params=True,
                              **self._kernel_params())
        return linalg.solve_triangular(self._L, Kc.T, lower=True).T

    def _fit_precomputed(self, K):
        n = K.shape[0]
        if K.shape[1] != n:
            raise ValueError(
                f"kernel='precomputed' needs a square kernel matrix in fit; got X of "
                f"shape {K.shape}."
            )
        scale = max(np.abs(K).max(), np.finfo(float).tiny)
        if not np.allclose(K, K.T, rtol=1e-7, atol=1e-10 * scale):
            raise ValueError("kernel='precomputed' needs a symmetric kernel matrix.")
        rng = check_random_state(self.random_state)
        diag = np.diag(K).copy()
        best = None
        for run in range(self.n_init):
            seeds = _kmeans_plusplus(K, diag, self.n_clusters, rng)
            result = _kernel_kmeans_single(K, diag, seeds, self.max_iter, self.tol,
                                           self.verbose)
            if self.verbose:
                print(f"[KernelKMeans] run {run}: inertia {result[1]:.6g} after "
                      f"{result[3]} iterations")
            if best is None or result[1] < best[1]:
                best = result
        labels, self.inertia_, W, self.n_iter_ = best
        self.labels_ = labels
        # predict needs the centres m_c = sum_j W_jc phi(x_j): the weights W
        # (indicator / cluster size) and |m_c|^2 = sum_{j,l in c} K_jl / |c|^2
        self._center_weights = W
        self._center_sq_norms = np.einsum("ij,ij->j", W, K @ W)
        distinct = np.unique(labels).shape[0]
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than n_clusters "
                f"({self.n_clusters}). Possibly due to duplicate points in X.",
                ConvergenceWarning, stacklevel=3,
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


def _kernel_diagonal(X, kernel, params):
    """k(x_i, x_i) for every row in O(n d), without any kernel matrix."""
    if kernel in ("rbf", "laplacian"):
        return np.ones(X.shape[0])
    if kernel == "cosine":  # sklearn maps all-zero rows to zero
        return (np.abs(X).max(axis=1) > 0).astype(np.float64)
    if callable(kernel):  # one evaluation per row, as pairwise_kernels does per pair
        return np.array([kernel(x, x, **params) for x in X], dtype=np.float64)
    gamma = 1.0 / X.shape[1] if params["gamma"] is None else params["gamma"]
    inner = gamma * np.einsum("ij,ij->i", X, X) + params["coef0"]
    return inner ** params["degree"] if kernel == "poly" else np.tanh(inner)


def _incomplete_cholesky(X, kernel, params, max_rank, tol=1e-10):
    """Pivoted incomplete Cholesky factor of k on the rows of X, from columns.

    At step k the pivot p is the point of largest residual diagonal
    ``d_p = K_pp - |G[p, :k]|^2`` and the new column is
    ``G[:, k] = (K[:, p] - G[:, :k] G[p, :k]^T) / sqrt(d_p)``.  It stops after
    ``max_rank`` columns or once the residual trace ``sum(d)`` is at most
    ``tol * trace(K)``.  ``G[pivots]`` is lower triangular.

    Returns
    -------
    G : ndarray of shape (n, r)
    pivots : ndarray of shape (r,)
    """
    n = X.shape[0]
    d = np.maximum(_kernel_diagonal(X, kernel, params), 0.0)
    trace = d.sum()
    floor = 1e-12 * d.max(initial=0.0)
    G = np.zeros((n, max_rank))
    pivots = np.zeros(max_rank, dtype=np.intp)
    k = 0
    while k < max_rank and d.sum() > tol * trace:
        p = int(np.argmax(d))
        if d[p] <= floor:  # the rest is numerically dependent on the pivots
            break
        g = pairwise_kernels(X, X[[p]], metric=kernel, filter_params=True, **params)[:, 0]
        g = (g - G[:, :k] @ G[p, :k]) / np.sqrt(d[p])
        g[pivots[:k]] = 0.0  # zero in exact arithmetic: keeps G[pivots] triangular
        G[:, k] = g
        pivots[k] = p
        d = np.maximum(d - g * g, 0.0)
        d[p] = 0.0
        k += 1
    return G[:, :k], pivots[:k]


def _closest(KW, sq_norms):
    """argmin_c of |m_c|^2 - 2 k(x, .)^T w_c: the squared distance minus k(x, x)."""
    return np.argmin(sq_norms[None, :] - 2.0 * KW, axis=1)


def _kmeans_plusplus(K, diag, k, rng):
    """k-means++ seeding in feature space, as scikit-learn's ``_kmeans_plusplus``.

    The first seed is uniform; each further seed is the best, by the
    resulting potential, of ``2 + log(k)`` candidates drawn with probability
    proportional to the squared distance to the closest seed so far.  It
    makes the same random draws as scikit-learn, so ``K = X X^T`` gets the
    seeds :class:`~sklearn.cluster.KMeans` would pick on ``X`` (up to
    rounding).
    """
    n = K.shape[0]
    n_trials = 2 + int(np.log(k))

    def sq_dist(idx):  # (len(idx), n): |phi(x_c) - phi(x_i)|^2
        return np.maximum(diag[idx, None] - 2.0 * K[idx] + diag[None, :], 0.0)

    seeds = np.empty(k, dtype=np.intp)
    seeds[0] = rng.choice(n, p=np.full(n, 1.0 / n))
    closest = sq_dist(seeds[:1])[0]
    potential = closest.sum()
    for c in range(1, k):
        draws = rng.uniform(size=n_trials) * potential
        candidates = np.searchsorted(np.cumsum(closest), draws)
        np.clip(candidates, None, n - 1, out=candidates)
        trials = np.minimum(closest[None, :], sq_dist(candidates))
        best = int(np.argmin(trials.sum(axis=1)))
        seeds[c] = candidates[best]
        closest = trials[best]
        potential = closest.sum()
    return seeds


def _kernel_kmeans_single(K, diag, seeds, max_iter, tol, verbose=0):
    """One run of kernel k-means (Lloyd's iterations in feature space).

    The centres are kept as weights W (n x k), :math:`m_c = \\sum_j W_{jc}
    \\phi(x_j)`: first the seeds, then each cluster's indicator over its
    size.  Each iteration assigns every point to its closest centre from
    one product ``K @ W`` (E-step), then recomputes W from the assignment
    (M-step), re-seeding an empty cluster with the point farthest from its
    own centre.  A run stops when the assignment no longer changes, the
    inertia improved by at most ``tol * inertia``, or after ``max_iter``
    E-steps; the labels returned are the closest centres of the W returned,
    so that ``predict`` on the training points gives them back.

    Returns
    -------
    labels : ndarray of shape (n,)
    inertia : float
    W : ndarray of shape (n, k)
    n_iter : int
    """
    n, k = K.shape[0], seeds.shape[0]
    rows = np.arange(n)
    W = np.zeros((n, k))
    W[seeds, np.arange(k)] = 1.0
    labels, previous = None, np.inf
    for n_iter in range(1, max_iter + 1):
        KW = K @ W
        sq_norms = np.einsum("ij,ij->j", W, KW)
        new = _closest(KW, sq_norms)
        dist = np.maximum(diag - 2.0 * KW[rows, new] + sq_norms[new], 0.0)
        inertia = float(dist.sum())
        if verbose > 1:
            print(f"[KernelKMeans] iteration {n_iter}: inertia {inertia:.6g}")
        stop = (labels is not None and np.array_equal(new, labels)) or (
            previous - inertia <= tol * abs(inertia))
        labels, previous = new, inertia
        if stop or n_iter == max_iter:
            break
        labels = _reseed_empty_clusters(labels.copy(), dist, k)
        sizes = np.bincount(labels, minlength=k).astype(np.float64)
        W = np.zeros((n, k))
        W[rows, labels] = 1.0 / sizes[labels]
    return labels, inertia, W, n_iter


def _reseed_empty_clusters(labels, dist, k):
    """Move the points farthest from their centre into the empty clusters.

    A point is only taken from a cluster that keeps at least one other
    member, so no new cluster empties.  The loop runs over at most
    ``n_empty + k`` candidates, never over all points.
    """
    sizes = np.bincount(labels, minlength=k)
    empty = np.flatnonzero(sizes == 0)
    if empty.size == 0:
        return labels
    order = np.argsort(-dist, kind="stable")
    for c in empty:
        for pos, i in enumerate(order):
            if sizes[labels[i]] > 1:
                sizes[labels[i]] -= 1
                labels[i], sizes[c] = c, 1
                order = order[pos + 1:]
                break
    return labels
