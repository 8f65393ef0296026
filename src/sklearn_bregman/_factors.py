"""Initial low-rank factors of a kernel, with their out-of-sample map.

A factor is a pair (G0, phi0): G0 (n x r) with K0 ~= G0 G0' on the training
points, and a map phi0 with phi0(X_train) = G0 that takes new points to the
same r coordinates (DESIGN.md, layer 2).  The learners work on G0 only, so
nothing of size n x n is ever formed, except for ``kernel='precomputed'``
where the user hands the n x n matrix in.

- linear kernel: the data itself (phi0(x) = x), or its top right singular
  directions (phi0(x) = x V) when fewer than ``n_features`` columns are
  asked for or there are more features than samples;
- any other kernel: pivoted incomplete Cholesky (Fine & Scheinberg 2001;
  Bach & Jordan 2005, Section 2), greedy on the largest residual diagonal,
  built from kernel columns only, with the Nystrom-form out-of-sample map
  phi0(x) = k0(x, X_pivots) L^-T, L = G0[pivots] (lower triangular).
  This includes SKLR's adaptive Gaussian ``'adaptive_rbf'``
  (:class:`AdaptiveGaussian`).
"""

import warnings

import numpy as np
from scipy import linalg
from sklearn.metrics.pairwise import euclidean_distances, pairwise_kernels
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize
from sklearn.utils.validation import _num_samples

from ._engine._csi import cholesky_append

__all__ = ["AdaptiveGaussian", "LowRankFactor", "check_finite_kernel", "kernel_diagonal",
           "pivoted_cholesky"]

KERNELS = ("linear", "rbf", "poly", "laplacian", "sigmoid", "cosine", "precomputed")


class AdaptiveGaussian:
    """Gaussian kernel with a bandwidth per point (Amid et al., eq. 29).

    ``k0(x, y) = exp(-|x - y|^2 / (sigma(x) sigma(y)))`` with ``sigma(x)``
    the distance from ``x`` to its ``n_neighbors``-th nearest training
    point: large bandwidths in sparse regions, small ones in dense regions
    (the "self-tuning" bandwidth of Zelnik-Manor & Perona).  A training point
    counts itself as its own first neighbour, so that ``sigma`` depends on
    the point alone and a training point gets the same value in ``fit`` and
    ``transform``.  The kernel is not PSD in general; the factors built on it
    keep its positive part.

    Parameters
    ----------
    n_neighbors : int
        k; capped at the number of training points.
    """

    def __init__(self, n_neighbors):
        self.n_neighbors = n_neighbors

    def fit(self, X):
        self.n_neighbors_ = min(int(self.n_neighbors), X.shape[0])
        self.nn_ = NearestNeighbors(n_neighbors=self.n_neighbors_).fit(X)
        sigma = self.nn_.kneighbors(X)[0][:, -1]
        # duplicates can leave sigma = 0: a tiny floor keeps 0/0 out
        self.floor_ = 1e-12 * max(float(sigma.max()), 1.0)
        self.sigma_ = np.maximum(sigma, self.floor_)
        return self

    def bandwidth(self, X):
        """sigma(x) for the rows of X."""
        return np.maximum(self.nn_.kneighbors(X)[0][:, -1], self.floor_)

    def __call__(self, X, Y, sigma_x, sigma_y):
        """The kernel matrix k0(X, Y) given the bandwidths of both sides.

        ``Y`` are training points (finite bandwidths ``sigma_y``).  A point so
        far from them that its squared distances, or its own bandwidth,
        overflow float64 gets the value the kernel really has there, 0 (see
        :func:`_far_adaptive_values`), not NaN; anything still not finite is
        an error.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            D = euclidean_distances(X, Y, squared=True)
            overflow = ~np.isfinite(D)
            overflow |= ~np.isfinite(np.asarray(sigma_x, dtype=float))[:, None]
            D /= np.outer(sigma_x, sigma_y)
            K = np.exp(-D, out=D)
        rows = np.flatnonzero(overflow.any(1))
        for i in rows:
            K[i, overflow[i]] = _far_adaptive_values(X[i], Y[overflow[i]],
                                                      sigma_y[overflow[i]])
        return check_finite_kernel(K, "adaptive_rbf", {"n_neighbors": self.n_neighbors},
                                   X, Y)


def _far_adaptive_values(x, Y, sigma_y):
    """Adaptive-Gaussian values of one point x against training points Y
    whose squared distances to x (or x's bandwidth) overflow float64.

    The exponent d^2 / (sigma(x) sigma(y)) cannot be formed, but it is
    bounded below: the k nearest training points of y lie within sigma(y) of
    y, hence within d + sigma(y) of x, so sigma(x) <= d + sigma(y) and

        k0(x, y) <= exp(-d^2 / ((d + sigma(y)) sigma(y))).

    d itself is computed on x and Y scaled to at most 1 (no overflow).  Where
    the bound underflows to 0 the value is exactly 0 in float64; elsewhere it
    is NaN (undefined), which the caller reports.
    """
    scale = max(float(np.abs(x).max()), float(np.abs(Y).max()), 1.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        d = scale * np.sqrt(((x / scale - Y / scale) ** 2).sum(1))
        exponent = (d / sigma_y) / (1.0 + sigma_y / d)  # d^2 / ((d + sigma_y) sigma_y)
        bound = np.exp(-exponent)
    return np.where(bound == 0.0, 0.0, np.nan)


def _kernel_params(kernel, gamma, degree, coef0, kernel_params):
    if callable(kernel):
        return dict(kernel_params or {})
    return {"gamma": gamma, "degree": degree, "coef0": coef0}


#: The parameters each named kernel reads (named in error messages).
_KERNEL_ARGS = {"rbf": ("gamma",), "laplacian": ("gamma",),
                "poly": ("gamma", "degree", "coef0"), "sigmoid": ("gamma", "coef0"),
                "adaptive_rbf": ("n_neighbors",)}


def _not_finite_message(what, kernel, params, arrays):
    """Error message for kernel values (or coordinates built from them) that
    are not finite: names the kernel, its parameters and what to check."""
    if callable(kernel):
        name = getattr(kernel, "__name__", repr(kernel))
        desc = f"kernel={name}" + (f" with kernel_params={params}" if params else "")
        check = "what the kernel function returns"
    elif kernel == "precomputed":
        desc, check = "kernel='precomputed'", "the scale of the kernel matrix"
    else:
        names = _KERNEL_ARGS.get(kernel, ())
        args = ", ".join(f"{k}={params.get(k)}" for k in names)
        desc = f"kernel={kernel!r}" + (f" ({args})" if args else "")
        check = "the kernel parameters " + ", ".join(names) if names else ""
    if kernel != "precomputed":
        largest = max((float(np.abs(a).max()) for a in arrays if a.size), default=0.0)
        check = f"the scale of X (largest |X| = {largest:.3g})" + (f" and {check}"
                                                                  if check else "")
    return f"{what} are not finite (NaN or inf) for {desc}. Check {check}."


def check_finite_kernel(K, kernel, params, *arrays):
    """Return kernel values K, or raise a ValueError naming the kernel if some
    are NaN or infinite (``arrays``: the points, for the scale in the
    message).  O(K.size), like computing K."""
    if not np.isfinite(K).all():
        raise ValueError(_not_finite_message("The kernel values", kernel, params, arrays))
    return K


def check_finite_coordinates(Z, kernel, params, X):
    """Return the out-of-sample coordinates Z of the points X, or raise a
    ValueError if finite kernel values overflowed once mapped."""
    if not np.isfinite(Z).all():
        raise ValueError(_not_finite_message(
            "The factor's coordinates of the new points (finite kernel values mapped "
            "through the training factor)", kernel, params, (X,)))
    return Z


def kernel_columns(X, Y, kernel, params):
    """k0(X, Y) for a named or callable kernel (n_X x n_Y); non-finite values
    are an error (:func:`check_finite_kernel`)."""
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        K = pairwise_kernels(X, Y, metric=kernel, filter_params=True, **params)
    return check_finite_kernel(K, kernel, params, X, Y)


def kernel_diagonal(X, kernel, params):
    """k0(x_i, x_i) for every row, in O(n d) (no kernel matrix is formed);
    non-finite values are an error (:func:`check_finite_kernel`)."""
    n = X.shape[0]
    if kernel in ("rbf", "laplacian"):
        return np.ones(n)
    if kernel == "cosine":
        # as sklearn's cosine_similarity computes it (rows normalised by
        # sklearn.preprocessing.normalize): 1 for most rows, but not exactly
        # 1 for rows of tiny or overflowing norm, which normalize leaves
        # as they are or sends to 0; a diagonal of 1 for them would make the
        # factor singular
        with np.errstate(over="ignore", invalid="ignore"):
            Xn = normalize(X)
        return check_finite_kernel(np.einsum("ij,ij->i", Xn, Xn), kernel, params, X)
    if kernel not in ("linear", "poly", "sigmoid"):
        # callable: one evaluation per row (what pairwise_kernels does per pair)
        return np.array([kernel_columns(X[i:i + 1], X[i:i + 1], kernel, params)[0, 0]
                         for i in range(n)])
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        sq = np.einsum("ij,ij->i", X, X)
        gamma = params.get("gamma")
        if gamma is None:
            gamma = 1.0 / X.shape[1]
        if kernel == "linear":
            diag = sq
        elif kernel == "poly":
            diag = (gamma * sq + params["coef0"]) ** params["degree"]
        else:
            diag = np.tanh(gamma * sq + params["coef0"])
    return check_finite_kernel(diag, kernel, params, X)


def _power_of_two_below(x):
    """A power of two in (x / 2, x] (1 for x = 0), always finite: dividing by
    it is exact (barring underflow), so results computed on scaled values are
    the same as on the values themselves."""
    if x == 0:
        return 1.0
    mantissa, exponent = np.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return float(np.ldexp(1.0, int(exponent) - 1))


def check_precomputed(X):
    """A precomputed training kernel must be a square, symmetric matrix."""
    if X.shape[0] != X.shape[1]:
        raise ValueError(
            "kernel='precomputed' needs a square kernel matrix in fit; got X of "
            f"shape {X.shape}."
        )
    scale = max(np.abs(np.diag(X)).max(), 1.0)
    if not np.allclose(X, X.T, rtol=1e-8, atol=1e-10 * scale):
        raise ValueError("kernel='precomputed': X must be a symmetric kernel matrix.")


def kernel_source(X, kernel, params):
    """``(column, diag)`` of the training kernel, without forming it:
    ``column(p)`` is K[:, p] and ``diag`` the diagonal (X itself for
    'precomputed', checked by :func:`check_precomputed` first)."""
    if kernel == "precomputed":
        return (lambda p: X[:, p]), np.diag(X).copy()
    return ((lambda p: kernel_columns(X, X[p:p + 1], kernel, params)[:, 0]),
            kernel_diagonal(X, kernel, params))


def pivot_columns(X, kernel, params, X_pivots, pivots):
    """k(X, X_pivots): kernel values of (new) points against the pivots (for
    'precomputed', X holds kernel values against all training points)."""
    if kernel == "precomputed":
        return X[:, pivots]
    return kernel_columns(X, X_pivots, kernel, params)


def pivoted_cholesky(column, diag, max_rank, tol):
    """Pivoted incomplete Cholesky from kernel columns.

    At step k the pivot p is the point of largest residual diagonal
    ``d_p = K_pp - |G[p, :k]|^2`` and the new column is
    ``G[:, k] = (K[:, p] - G[:, :k] G[p, :k]') / sqrt(d_p)``
    (Bach & Jordan 2005, Section 2.1).  Memory O(n * max_rank).

    Parameters
    ----------
    column : callable
        ``column(p)`` returns the kernel column K[:, p] as an ndarray (n,).
    diag : ndarray of shape (n,)
        The kernel's diagonal.
    max_rank : int
        Largest number of columns.
    tol : float
        Stop once the residual trace ``tr(K - G G')`` is at most
        ``tol * tr(K)``.

    Returns
    -------
    G : ndarray of shape (n, r), C-contiguous
    pivots : ndarray of shape (r,), intp
    residual_trace : ndarray of shape (r + 1,)
        ``tr(K - G G')`` before the first and after each step.
    """
    n = diag.shape[0]
    d = np.array(diag, dtype=np.float64)
    if not np.isfinite(d).all():
        raise ValueError("The kernel's diagonal is not finite (NaN or inf): nothing to factor.")
    np.maximum(d, 0.0, out=d)
    trace0 = d.sum()
    G = np.zeros((n, max_rank), order="F")  # columns contiguous for the step
    pivots = np.zeros(max_rank, dtype=np.intp)
    residual = [trace0]
    # pivots whose residual is below this are numerically dependent on the others
    floor = 1e-12 * max(d.max(), np.finfo(float).tiny) if n else 0.0
    k = 0
    while k < max_rank and residual[-1] > tol * trace0:
        p = int(np.argmax(d))
        if d[p] <= floor:
            break
        values = np.ascontiguousarray(column(p), dtype=np.float64).reshape(-1)
        if not np.isfinite(values).all():
            raise ValueError(f"Kernel column {p} is not finite (NaN or inf): nothing to factor.")
        # compiled: G[:, k] = (K[:, p] - G[:, :k] G[p, :k]') / sqrt(d_p),
        # d -= G[:, k]^2, zeros at the earlier pivots (G[pivots] triangular)
        cholesky_append(G, d, values, k, pivots, p)
        pivots[k] = p
        k += 1
        residual.append(max(float(d.sum()), 0.0))
    return np.ascontiguousarray(G[:, :k]), pivots[:k], np.array(residual)


class LowRankFactor:
    """Initial factor G0 of a kernel and its out-of-sample map phi0.

    Parameters
    ----------
    kernel : str or callable
        'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine', a callable
        ``k(x, y) -> float``, 'precomputed' (``fit`` gets the n x n kernel
        matrix, ``transform`` rows of kernel values against the training
        points), or 'adaptive_rbf' (:class:`AdaptiveGaussian`, parameter
        ``n_neighbors`` in ``params``).
    rank : int or None
        Number of columns; ``None``: ``min(n_samples, n_features)`` for the
        linear kernel, ``min(n_samples, 100)`` otherwise.  Pivoted Cholesky
        stops earlier when the residual trace is below ``tol`` times the
        trace, or at the kernel's numerical rank.
    tol : float
        Relative residual trace at which pivoted Cholesky stops.
    params : dict
        Kernel parameters (gamma, degree, coef0, or the callable's own).
    method : {'cholesky', 'csi'}, default='cholesky'
        How the pivots are chosen: the largest residual diagonal, or
        Cholesky with side information (Bach & Jordan 2005, see
        :mod:`sklearn_bregman._csi`) with the class labels passed to ``fit``
        (``tol`` is then CSI's: stop when a step's gain falls below).  With
        'csi' every kernel, the linear one too, is factored from pivots.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples for 'csi' (no side information).

    Attributes (after ``fit``)
    --------------------------
    rank_ : int
    pivots_ : ndarray or None
        Training rows used as pivots (incomplete Cholesky only).
    residual_trace_ : ndarray or None
        tr(K - G G') before the first and after each Cholesky step.
    """

    def __init__(self, kernel, rank, tol, params, method="cholesky", unlabeled=-1):
        self.kernel = kernel
        self.rank = rank
        self.tol = tol
        self.params = params
        self.method = method
        self.unlabeled = unlabeled

    def fit(self, X, y=None):
        """Return G0 (n x rank_, C-contiguous) for the training points X.

        ``y`` (class labels) is only read by ``method='csi'``, which needs it.
        """
        n, d = X.shape
        self.pivots_ = None
        self.residual_trace_ = None
        self._map = None
        if self.kernel == "precomputed":
            check_precomputed(X)
        if self.method == "csi" and y is None:
            raise ValueError(
                "low_rank='csi' requires y to be passed, but the target y is None: CSI "
                "chooses the pivots with the class labels (with constraints=..., pass "
                "the labels as y as well)."
            )
        if self.method == "csi" and _num_samples(y) != n:
            raise ValueError(
                f"low_rank='csi' chooses the pivots with the labels y, but y has "
                f"{_num_samples(y)} entries and X has {n} samples."
            )
        if self.kernel == "linear" and self.method != "csi":
            # G0 is X (or X V): finite, but the kernel X X' may not be; its
            # diagonal bounds every entry (|x . y| <= max(|x|^2, |y|^2))
            kernel_diagonal(X, "linear", self.params)
            limit = min(n, d)
            rank = limit if self.rank is None else self.rank
            self._check_rank(rank, limit, "min(n_samples, n_features)")
            if rank == d:
                self.rank_ = d
                return np.ascontiguousarray(X)
            # top right singular directions: phi0(x) = x V
            _, _, Vt = linalg.svd(X, full_matrices=False)
            self._map = np.ascontiguousarray(Vt[:rank].T)
            self.rank_ = rank
            return np.ascontiguousarray(X @ self._map)

        limit = n
        rank = min(n, 100) if self.rank is None else self.rank
        self._check_rank(rank, limit, "n_samples")
        if self.kernel == "adaptive_rbf":
            k0 = AdaptiveGaussian(self.params["n_neighbors"]).fit(X)
            sigma = k0.sigma_
            G, piv, res = self._pivots(
                lambda p: k0(X, X[p:p + 1], sigma, sigma[p:p + 1])[:, 0],
                np.ones(n), rank, y,
            )
            self._adaptive = k0
            self._X_pivots = X[piv].copy()
            self._sigma_pivots = sigma[piv].copy()
        else:
            column, diag = kernel_source(X, self.kernel, self.params)
            if self.kernel == "precomputed" and np.any(diag < 0):
                warnings.warn(
                    "kernel='precomputed': the kernel matrix has negative diagonal "
                    "entries, so it is not positive semi-definite; incomplete Cholesky "
                    "factors only its positive part.",
                    UserWarning,
                    stacklevel=3,
                )
            G, piv, res = self._pivots(column, diag, rank, y)
            self._X_pivots = None if self.kernel == "precomputed" else X[piv].copy()
        if G.shape[1] == 0:
            raise ValueError(
                "The initial kernel is zero on the training data (no pivot with a "
                "positive residual): nothing to learn from."
            )
        self.pivots_ = piv
        self.residual_trace_ = res
        self._L = G[piv].copy()  # lower triangular, r x r
        self.rank_ = G.shape[1]
        return G

    def _pivots(self, column, diag, rank, y):
        """G, pivots and residual traces by the chosen pivot rule."""
        if self.method != "csi":
            return pivoted_cholesky(column, diag, rank, self.tol)
        from ._csi import cholesky_side_information, side_information  # (circular)

        res = cholesky_side_information(column, diag, side_information(y, self.unlabeled),
                                        max_rank=rank, tol=self.tol)
        return np.ascontiguousarray(res.G), res.pivots, res.approximation_error

    def _check_rank(self, rank, limit, what):
        if rank > limit:
            raise ValueError(
                f"rank={rank} is larger than the data allows: at most {what} = {limit}."
            )

    def transform(self, X):
        """phi0(X): the factor's coordinates of (new) points."""
        if self.kernel == "linear" and self.method != "csi":
            return X if self._map is None else X @ self._map
        if self.kernel == "adaptive_rbf":
            Kc = self._adaptive(X, self._X_pivots, self._adaptive.bandwidth(X),
                                self._sigma_pivots)
        else:
            Kc = pivot_columns(X, self.kernel, self.params, self._X_pivots, self.pivots_)
        # phi0(x) = k(x, pivots) L^-T  <=>  L phi0(x)' = k(pivots, x)
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            Z = linalg.solve_triangular(self._L, Kc.T, lower=True, check_finite=False).T
        return check_finite_coordinates(Z, self.kernel, self.params, X)


class SpectralFactor:
    """Eigen-truncated initial factor without the n x n kernel matrix.

    SKLR's low-rank start (Amid et al., Algorithm 1): the top eigenpairs
    ``K0 ~= U L U'`` of the kernel matrix, as many as it takes for
    ``|K0_r|_F >= energy * |K0|_F``, and ``G0 = U L^(1/2)``.  The eigenpairs
    come from a randomized subspace iteration (Halko, Martinsson & Tropp
    2011, Alg. 4.4 with Rayleigh-Ritz): every product ``K0 @ Omega`` is
    accumulated over row blocks of kernel values, so memory stays
    O(n (r + p) + block * n).  The sketch doubles until the Ritz values
    reach the energy share (they are lower bounds, so the rank chosen is
    never too small).  |K0|_F is summed over the same blocks.

    The out-of-sample map is the Nystrom extension of the eigenvectors,
    ``phi0(x) = k0(x, X) U L^(-1/2)``; on the training points it gives
    ``K0 U L^(-1/2)``, which is G0 (exactly so when the eigenpairs are).
    This is eq. 28 of the paper with ``K0`` the truncated start.

    Parameters
    ----------
    kernel : str or callable
        As :class:`LowRankFactor`, including 'adaptive_rbf' and 'precomputed'.
    energy : float in (0, 1]
        Share of the Frobenius norm kept.
    rank : int or None
        Upper bound on the rank (``None``: n_samples).
    params : dict
        Kernel parameters (``n_neighbors`` for 'adaptive_rbf').
    random_state : RandomState
        Draws the sketch.
    n_power : int, default=2
        Power iterations per sketch.
    """

    #: Rows of kernel values held at a time.
    BLOCK = 512
    #: Columns of the first sketch, and the extra columns of every sketch.
    START, OVERSAMPLE = 64, 16

    def __init__(self, kernel, energy, rank, params, random_state, n_power=2):
        self.kernel = kernel
        self.energy = energy
        self.rank = rank
        self.params = params
        self.random_state = random_state
        self.n_power = n_power

    def _rows(self, X, sl):
        """Kernel values between the rows ``sl`` of X and the training points."""
        if self.kernel == "precomputed":
            return X[sl]
        if self.kernel == "adaptive_rbf":
            return self._adaptive(X[sl], self._X, self._adaptive.bandwidth(X[sl])
                                  if X is not self._X else self._adaptive.sigma_[sl],
                                  self._adaptive.sigma_)
        return kernel_columns(X[sl], self._X, self.kernel, self.params)

    def _times(self, X, Omega, frobenius=False):
        """k0(X, X_train) @ Omega over row blocks (and |k0(X, X_train)|_F^2).

        The kernel values are checked as they are computed (a ValueError
        names the kernel if some are not finite), and so are the products:
        finite values can still overflow once summed."""
        out = np.empty((X.shape[0], Omega.shape[1]))
        fro2 = 0.0
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            for start in range(0, X.shape[0], self.BLOCK):
                sl = slice(start, start + self.BLOCK)
                Kb = self._rows(X, sl)
                out[sl] = Kb @ Omega
                if frobenius:
                    fro2 += float(np.einsum("ij,ij->", Kb, Kb))
        if not (np.isfinite(out).all() and np.isfinite(fro2)):
            raise ValueError(_not_finite_message(
                "Sums of the kernel values (finite, but too large to add up)",
                self.kernel, self.params, (X,)))
        return (out, fro2) if frobenius else out

    def fit(self, X):
        """Return G0 (n x rank_, C-contiguous) for the training points X."""
        n = X.shape[0]
        if self.kernel == "precomputed":
            check_precomputed(X)
        else:
            # transform reads the training points: own them, so that a caller
            # who changes their array after fit does not change the map
            X = X.copy()
        self._X = X
        if self.kernel == "adaptive_rbf":
            self._adaptive = AdaptiveGaussian(self.params["n_neighbors"]).fit(X)
        max_rank = n if self.rank is None else min(self.rank, n)
        rng = self.random_state
        ell = min(n, max(self.START, 1))
        fro2 = None
        while True:
            Omega = rng.standard_normal((n, ell))
            if fro2 is None:
                Y, fro2 = self._times(X, Omega, frobenius=True)
            else:
                Y = self._times(X, Omega)
            for _ in range(self.n_power):
                Y = self._times(X, linalg.qr(Y, mode="economic")[0])
            Q = linalg.qr(Y, mode="economic")[0]
            KQ = self._times(X, Q)
            lam, V = linalg.eigh(Q.T @ KQ)
            lam, V = lam[::-1], V[:, ::-1]
            pos = int(np.count_nonzero(lam > 1e-12 * max(lam[0], 0.0)))
            if fro2 <= 0.0 or pos == 0:
                raise ValueError(
                    "The initial kernel is zero on the training data: nothing to learn "
                    "from."
                )
            share = np.sqrt(np.cumsum(lam[:pos] ** 2) / fro2)
            reached = np.flatnonzero(share >= self.energy * (1 - 1e-12))
            usable = pos if ell >= n else max(ell - self.OVERSAMPLE, 1)
            if reached.size and reached[0] < usable:
                r = int(reached[0]) + 1
                break
            if ell >= n or usable >= max_rank:
                r = min(pos, usable)
                break
            ell = min(n, 2 * ell)
        r = min(r, max_rank)
        self.rank_ = r
        self.energy_ = float(share[r - 1])
        self.eigenvalues_ = lam[:r].copy()
        # phi0(x) = k0(x, X) U L^-1/2 with U = Q V; on X: (K Q) V L^-1/2
        scale = 1.0 / np.sqrt(lam[:r])
        self._map = np.ascontiguousarray((Q @ V[:, :r]) * scale)
        self.pivots_ = None
        return np.ascontiguousarray((KQ @ V[:, :r]) * scale)

    def transform(self, X):
        """phi0(X): the factor's coordinates of (new) points.

        Far from every training point the adaptive Gaussian vanishes and the
        coordinates are 0; kernel values that are not finite are an error.
        """
        return self._times(X, self._map)
