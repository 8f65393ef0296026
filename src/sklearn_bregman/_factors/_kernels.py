"""Kernel evaluation: the kernels the suite knows, their parameters, and checks.

Everything that evaluates an initial kernel k0 goes through this module: the
kernel names and the parameter constraints every estimator with a kernel
shares (:data:`KERNEL_PARAMETERS`, :class:`KernelParamsMixin`), kernel
columns and diagonals computed without the n x n matrix
(:func:`kernel_columns`, :func:`kernel_column`, :func:`kernel_diagonal`,
:func:`kernel_source`, :func:`pivot_columns`), SKLR's adaptive Gaussian (:class:`AdaptiveGaussian`),
the squared distances of the distance-based kernels ('rbf', 'adaptive_rbf';
:func:`squared_distances`), exact to rounding at every scale, and the checks
that turn non-finite kernel values or a malformed precomputed kernel into a
ValueError that names the kernel.  X may be a scipy sparse
CSR matrix (text, one-hot data): columns, diagonals and row norms are
computed from its sparse rows (O(nnz) per column), never from a dense copy.
The factor algorithms that consume these columns are in
:mod:`sklearn_bregman._factors._factors` (ARCHITECTURE.md, layer 2).
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import (
    check_pairwise_arrays,
    euclidean_distances,
    pairwise_kernels,
)
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.extmath import row_norms

from .._utils._sklearn_compat import Interval, StrOptions

KERNELS = ("linear", "rbf", "poly", "laplacian", "sigmoid", "cosine", "precomputed")



def kernel_parameters(extra=()):
    """The parameter constraints of an estimator with an initial kernel.

    ``kernel`` (a name of :data:`KERNELS`, plus ``extra`` names, or a
    callable), ``gamma``, ``degree``, ``coef0`` and ``kernel_params``, as
    scikit-learn's kernel estimators declare them.
    """
    return {
        "kernel": [StrOptions(set(KERNELS) | set(extra)), callable],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Real],
        "kernel_params": [dict, None],
    }


#: :func:`kernel_parameters` of the named kernels of :data:`KERNELS`.
KERNEL_PARAMETERS = kernel_parameters()


class KernelParamsMixin:
    """``_kernel_params()``: the keyword arguments of the estimator's kernel.

    For an estimator with the parameters of :data:`KERNEL_PARAMETERS`: a
    callable kernel gets ``kernel_params``, a named one ``gamma``,
    ``degree`` and ``coef0`` (each named kernel reads the ones it needs),
    and ``'adaptive_rbf'`` (:class:`AdaptiveGaussian`) the estimator's
    ``n_neighbors``.
    """

    def _kernel_params(self):
        if self.kernel == "adaptive_rbf":
            return {"n_neighbors": self.n_neighbors}
        if callable(self.kernel):
            return dict(self.kernel_params or {})
        return {"gamma": self.gamma, "degree": self.degree, "coef0": self.coef0}

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
        self.sparse_ = sp.issparse(X)
        self.nn_ = NearestNeighbors(n_neighbors=self.n_neighbors_).fit(X)
        sigma = self.nn_.kneighbors(X)[0][:, -1]
        self.floor_ = _bandwidth_floor(float(sigma.max()))
        self.sigma_ = np.maximum(sigma, self.floor_)
        return self

    def bandwidth(self, X):
        """sigma(x) for the rows of X.

        Sparse rows against dense training points: scikit-learn's index of
        dense points is a tree, which takes dense queries only, so the rows
        are densified ``_DENSE_BLOCK`` at a time (never more than a block of
        the batch); the same distances, the same bandwidths.
        """
        if sp.issparse(X) and not getattr(self, "sparse_", False):
            return np.concatenate([self.bandwidth(X[start:start + _DENSE_BLOCK].toarray())
                                   for start in range(0, X.shape[0], _DENSE_BLOCK)])
        return np.maximum(self.nn_.kneighbors(X)[0][:, -1], self.floor_)

    def __call__(self, X, Y, sigma_x, sigma_y):
        """The kernel matrix k0(X, Y) given the bandwidths of both sides.

        ``Y`` are training points (finite bandwidths ``sigma_y``).  A point so
        far from them that its squared distances, or its own bandwidth,
        overflow float64 gets the value the kernel really has there, 0 (see
        :func:`_far_adaptive_values`), not NaN; anything still not finite is
        an error.
        """
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            D = squared_distances(X, Y)
            overflow = ~np.isfinite(D)
            overflow |= ~np.isfinite(np.asarray(sigma_x, dtype=float))[:, None]
            bandwidths = np.outer(sigma_x, sigma_y)
            D /= bandwidths
            K = np.exp(-D, out=D)
        # bandwidths so small (floored, of data below ~1e-142) that their
        # product underflows: 0 / 0 between coincident points, whose value is
        # exp(0) = 1 at any bandwidth (distinct points get d^2 / 0 = inf, 0)
        if not bandwidths.all():
            K[(bandwidths == 0.0) & np.isnan(K) & ~overflow] = 1.0
        rows = np.flatnonzero(overflow.any(1))
        for i in rows:
            x = X[[i]].toarray()[0] if sp.issparse(X) else X[i]
            K[i, overflow[i]] = _far_adaptive_values(x, Y[overflow[i]],
                                                      sigma_y[overflow[i]])
        return check_finite_kernel(K, "adaptive_rbf", {"n_neighbors": self.n_neighbors},
                                   X, Y)


def _bandwidth_floor(sigma_max):
    """The least bandwidth of :class:`AdaptiveGaussian`, from the largest one.

    Duplicates can leave sigma = 0: a tiny floor keeps the bandwidths
    positive in ``|x - y|^2 / (sigma(x) sigma(y))``.  The floor is relative,
    1e-12 of the largest bandwidth, so that the kernel stays scale-free (X
    and s X give the same kernel: an absolute floor overrode every bandwidth
    below it, and changed the clustering of data scaled by 1e-12 or less).
    (Below ~1e-142 the product of two floored bandwidths underflows to 0;
    :meth:`AdaptiveGaussian.__call__` gives coincident points their value 1
    there.)  When every bandwidth is 0 (the training points coincide in
    groups of ``n_neighbors`` or more) there is no scale to be relative to,
    and the floor is 1e-12 as before.
    """
    if sigma_max > 0.0:
        return max(1e-12 * sigma_max, _LEAST_POSITIVE)
    return 1e-12


_LEAST_POSITIVE = float(np.nextafter(0.0, 1.0))


#: Rows of a sparse batch densified at a time to query an index of dense
#: training points (:meth:`AdaptiveGaussian.bandwidth`).
_DENSE_BLOCK = 512


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


#: The parameters each named kernel reads (named in error messages).
_KERNEL_ARGS = {"rbf": ("gamma",), "laplacian": ("gamma",),
                "poly": ("gamma", "degree", "coef0"), "sigmoid": ("gamma", "coef0"),
                "adaptive_rbf": ("n_neighbors",)}


def _describe(kernel, params, arrays):
    """``(desc, check)`` of the error messages about kernel values: the
    kernel with its parameters, and what to check (the scale of X, the
    largest |value| of ``arrays``, and the parameters the kernel reads)."""
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
        largest = max((float(abs(a).max()) for a in arrays if a.size), default=0.0)
        check = f"the scale of X (largest |X| = {largest:.3g})" + (f" and {check}"
                                                                  if check else "")
    return desc, check


def not_finite_message(what, kernel, params, arrays):
    """Error message for kernel values (or coordinates built from them) that
    are not finite: names the kernel, its parameters and what to check."""
    desc, check = _describe(kernel, params, arrays)
    return f"{what} are not finite (NaN or inf) for {desc}. Check {check}."


def singular_pivots_message(kernel, params, arrays):
    """Error message for a factor whose pivots' triangular block is singular
    (the out-of-sample map cannot be formed): names the kernel, its
    parameters and what to check, as :func:`not_finite_message`."""
    desc, check = _describe(kernel, params, arrays)
    return ("The factor's pivot block L = G0[pivots] is singular (a zero on its "
            f"diagonal) for {desc}: the kernel values of the training pivots do not "
            "agree with the kernel's diagonal, so new points cannot be mapped. "
            f"Check {check}.")


def check_finite_kernel(K, kernel, params, *arrays):
    """Return kernel values K, or raise a ValueError naming the kernel if some
    are NaN or infinite (``arrays``: the points, for the scale in the
    message).  O(K.size), like computing K."""
    if not np.isfinite(K).all():
        raise ValueError(not_finite_message("The kernel values", kernel, params, arrays))
    return K


def check_finite_coordinates(Z, kernel, params, X):
    """Return the out-of-sample coordinates Z of the points X, or raise a
    ValueError if finite kernel values overflowed once mapped."""
    if not np.isfinite(Z).all():
        raise ValueError(not_finite_message(
            "The factor's coordinates of the new points (finite kernel values mapped "
            "through the training factor)", kernel, params, (X,)))
    return Z


#: A squared distance computed by the expansion |x|^2 + |y|^2 - 2 x.y below this
#: fraction of |x|^2 + |y|^2 is recomputed by the direct difference
#: (:func:`recompute_cancelled`).
CANCELLATION = 1e-6

#: Elements of a block of dense differences in :func:`paired_squared_distances`.
_PAIR_BLOCK = 1 << 20


def squared_norms(X):
    """Squared row norms of X (dense or sparse) in float64: scikit-learn's
    ``row_norms`` (the norms ``euclidean_distances`` computes itself) for
    float64, accumulated in float64 for other dtypes (float32 squares
    overflow from |x| ~ 2e19)."""
    if X.dtype == np.float64:
        return row_norms(X, squared=True)
    return row_norms(X.astype(np.float64), squared=True)


def _dense_rows(X, rows):
    """``X[rows]`` as a dense array (X dense or sparse).  CSR rows are
    scattered from ``indptr`` directly: scipy's fancy row indexing costs
    more than the rest of a kernel column's correction."""
    if not sp.issparse(X):
        return X[rows]
    if X.format != "csr":
        return X[rows].toarray()
    out = np.zeros((rows.size, X.shape[1]), dtype=np.result_type(X.dtype, np.float64))
    if rows.size <= 8 and X.has_canonical_format:  # (a column's usual one or two rows)
        for k, r in enumerate(rows.tolist()):
            lo, hi = X.indptr[r], X.indptr[r + 1]
            out[k, X.indices[lo:hi]] = X.data[lo:hi]
        return out
    lo, hi = X.indptr[rows], X.indptr[rows + 1]
    counts = hi - lo
    pos = np.arange(counts.sum()) + np.repeat(lo - np.cumsum(counts) + counts, counts)
    # add.at: duplicate stored entries of a row are summed, as toarray() does
    np.add.at(out, (np.repeat(np.arange(rows.size), counts), X.indices[pos]), X.data[pos])
    return out


def paired_squared_distances(X, rows, Y, cols):
    """|X[rows[k]] - Y[cols[k]]|^2 for each k, by the direct difference.

    Each difference is exact to rounding (no cancellation): the sum of the
    squared coordinate differences, relative error at most about
    ``(n_features + 2) eps / 2``.  Sparse against sparse rows is one sparse
    difference (O(nnz)); otherwise the rows are differenced densely in
    float64, ``_PAIR_BLOCK`` elements at a time (a sparse row against a
    dense one: the same bits as the dense rows would give).  ``Y`` may be a
    1-D array (one point; ``cols`` is then ignored).
    """
    rows = np.asarray(rows, dtype=np.intp)
    if Y.ndim == 1:
        if rows.size * X.shape[1] <= _PAIR_BLOCK:
            # the common case, one column's few entries: as little overhead as can be
            diff = _dense_rows(X, rows) - Y
            if diff.dtype != np.float64:
                diff = np.subtract(_dense_rows(X, rows), Y, dtype=np.float64)
            return np.einsum("ij,ij->i", diff, diff)
        Y, cols = Y[None, :], np.zeros(rows.size, dtype=np.intp)
    cols = np.asarray(cols, dtype=np.intp)
    if sp.issparse(X) and sp.issparse(Y):
        diff = X[rows].astype(np.float64) - Y[cols].astype(np.float64)
        return np.asarray(diff.multiply(diff).sum(axis=1), dtype=np.float64).ravel()
    out = np.empty(rows.size)
    step = max(1, _PAIR_BLOCK // max(X.shape[1], 1))
    for start in range(0, rows.size, step):
        diff = np.subtract(_dense_rows(X, rows[start:start + step]),
                           _dense_rows(Y, cols[start:start + step]), dtype=np.float64)
        out[start:start + step] = np.einsum("ij,ij->i", diff, diff)
    return out


def recompute_cancelled(D, X, Y, XX, YY):
    """Recompute, in place, the squared distances of D that cancellation
    made unreliable; D is returned.

    ``D[i, j]`` (or ``D[i]`` when D is 1-D and Y one point) was computed by
    the expansion ``|x|^2 + |y|^2 - 2 x.y`` (scikit-learn's
    ``euclidean_distances``, BLAS speed), whose rounding error is about
    ``eps (|x|^2 + |y|^2)`` whatever the distance: on a point and itself,
    or two near-duplicates, it leaves ``~eps |x|^2`` instead of ~0, so at
    large scales ``exp(-gamma d^2)`` reads 0 where it is 1 (and differs
    between dense and sparse X).  Entries with
    ``D < CANCELLATION (|x|^2 + |y|^2)`` are recomputed by the direct
    difference (:func:`paired_squared_distances`); the others keep their
    bits.  The ones kept have relative error below about
    ``2 (n_features + 2) (eps / 2) / CANCELLATION`` in the worst case
    (2.4e-10 (n_features + 2)), ~1e-10 sqrt(n_features) typically, the same
    at every scale of X; since ``t exp(-t) <= 1/e``, the rbf value
    ``exp(-gamma d^2)`` is then off by less than that relative error / e in
    absolute terms.  For ordinary data the recomputed entries are a point
    against itself and near-duplicates (distance below 1e-3 of the norms),
    a handful per row.  ``XX`` and ``YY`` are the float64 squared norms of
    the rows of X and Y (``YY`` a float when D is 1-D).  NaN or infinite
    entries (overflow) are left alone for the callers' checks; a 1-D D is
    corrected under the caller's ``np.errstate`` (that of
    :func:`kernel_column`).
    """
    # Candidates in one pass, D < 3 CANCELLATION |y|^2, then the exact test on
    # the few of them: an entry with D < CANCELLATION (|x|^2 + |y|^2) has
    # (|x| - |y|)^2 <= D, hence |x|^2 < 1.01 |y|^2 and D < 3 CANCELLATION |y|^2
    # (the rounding of D, ~1e-16 (n_features + 2) |x|^2, cannot bridge the
    # gap of 0.08 |x|^2 that |x|^2 >= 2 |y|^2 would open)
    if D.ndim == 1:
        # (one column: kernel_column, which holds np.errstate for the overflow
        # of norms near the float64 limit; nothing here is worth its cost)
        rows = np.flatnonzero(D < (3 * CANCELLATION) * YY)
        if rows.size == 1 and not sp.issparse(X):  # (the pivot itself, usually)
            i = rows[0]
            if D[i] < CANCELLATION * (XX[i] + YY):
                diff = np.subtract(X[i], Y, dtype=np.float64)
                D[i] = np.einsum("ij,ij->i", diff[None, :], diff[None, :])[0]
        elif rows.size:
            rows = rows[D[rows] < CANCELLATION * (XX[rows] + YY)]
            D[rows] = paired_squared_distances(X, rows, Y, None)
        return D
    # flat indices: np.nonzero of a 2-D mask costs five times the comparison,
    # flatnonzero of the (contiguous) mask a tenth of it
    flat = np.flatnonzero(np.less(D, (3 * CANCELLATION) * YY[None, :]).ravel())
    if flat.size:
        rows, cols = np.divmod(flat, D.shape[1])
        with np.errstate(over="ignore", invalid="ignore"):
            keep = D[rows, cols] < CANCELLATION * (XX[rows] + YY[cols])
            rows, cols = rows[keep], cols[keep]
            D[rows, cols] = paired_squared_distances(X, rows, Y, cols)
    return D


def squared_distances(X, Y):
    """|x - y|^2 for the rows of X against those of Y (n_X x n_Y), exact to
    rounding at every scale.

    scikit-learn's ``euclidean_distances(X, Y, squared=True)`` (the values
    ``rbf_kernel`` exponentiates, bit for bit), with the entries that
    cancellation made unreliable recomputed (:func:`recompute_cancelled`).
    X and Y dense or sparse.
    """
    X, Y = check_pairwise_arrays(X, Y)
    # (the norms are not handed to euclidean_distances: it refuses infinite
    # ones, which the callers report as kernel values that are not finite)
    D = euclidean_distances(X, Y, squared=True)
    return recompute_cancelled(D, X, Y, squared_norms(X), squared_norms(Y))


def kernel_columns(X, Y, kernel, params):
    """k0(X, Y) for a named or callable kernel (n_X x n_Y); non-finite values
    are an error (:func:`check_finite_kernel`).  scikit-learn's
    ``pairwise_kernels``, except 'rbf': ``rbf_kernel``'s steps on
    :func:`squared_distances` (the same bits but where cancellation made
    scikit-learn's distances unreliable)."""
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        if kernel == "rbf":
            # rbf_kernel's steps on distances without its cancellation
            # (squared_distances): exp(-gamma d^2) is 1 on a point and itself
            # at every scale, as kernel_diagonal says
            K = squared_distances(X, Y)
            gamma = params.get("gamma")
            K *= -(1.0 / X.shape[1] if gamma is None else gamma)
            np.exp(K, out=K)
        else:
            K = pairwise_kernels(X, Y, metric=kernel, filter_params=True, **params)
    return check_finite_kernel(K, kernel, params, X, Y)


def kernel_diagonal(X, kernel, params):
    """k0(x_i, x_i) for every row, in O(n d) (no kernel matrix is formed);
    non-finite values are an error (:func:`check_finite_kernel`)."""
    n = X.shape[0]
    if kernel in ("rbf", "laplacian"):
        return np.ones(n)
    if kernel == "cosine":
        # by the rule of sklearn.preprocessing.normalize, which
        # cosine_similarity applies: a row of norm below 10 eps is left as it
        # is (its diagonal is its squared norm), one whose squared norm
        # overflows is sent to 0, every other row has norm 1.  A diagonal of
        # 1 for the first two kinds would make the factor singular.  Exactly
        # 1 (not the rounding of |x / |x||^2): the same diagonal for X dense
        # and sparse, hence the same pivots where they tie.
        with np.errstate(over="ignore", invalid="ignore"):
            sq = row_norms(X, squared=True)
            diag = np.where(np.sqrt(sq) < 10 * np.finfo(np.float64).eps, sq, 1.0)
        diag[~np.isfinite(sq)] = 0.0
        return diag
    if kernel not in ("linear", "poly", "sigmoid"):
        # callable: one evaluation per row (what pairwise_kernels does per pair)
        return np.array([kernel_columns(X[i:i + 1], X[i:i + 1], kernel, params)[0, 0]
                         for i in range(n)])
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        sq = row_norms(X, squared=True)
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


#: Rows per block of :func:`check_precomputed`'s symmetry test.
_SYMMETRY_BLOCK = 512


def check_precomputed(X):
    """A precomputed training kernel must be a dense, square, symmetric matrix."""
    if sp.issparse(X):
        raise ValueError(
            "X: kernel='precomputed' takes the kernel matrix as a dense array; got a sparse "
            "matrix. Pass the points themselves (sparse rows are welcome) with a kernel "
            "name, e.g. kernel='cosine' or 'linear'.")
    if X.shape[0] != X.shape[1]:
        raise ValueError(
            "kernel='precomputed' needs a square kernel matrix in fit; got X of "
            f"shape {X.shape}."
        )
    scale = max(np.abs(np.diag(X)).max(), 1.0)
    # scikit-learn's check_symmetric(X, tol) test, np.allclose(X, X.T,
    # atol=tol) (rtol 1e-5), in blocks of rows: allclose's n x n temporaries
    # made it most of a KernelKMeans fit on a precomputed kernel
    atol = 1e-10 * scale
    for start in range(0, X.shape[0], _SYMMETRY_BLOCK):
        rows = X[start:start + _SYMMETRY_BLOCK]
        cols = X[:, start:start + _SYMMETRY_BLOCK].T
        if not (np.abs(rows - cols) <= atol + 1e-5 * np.abs(cols)).all():
            raise ValueError("kernel='precomputed': X must be a symmetric kernel matrix.")


def kernel_source(X, kernel, params):
    """``(column, diag)`` of the training kernel, without forming it:
    ``column(p)`` is K[:, p] and ``diag`` the diagonal (X itself for
    'precomputed', checked by :func:`check_precomputed` first)."""
    if kernel == "precomputed":
        return (lambda p: X[:, p]), np.diag(X).copy()
    with np.errstate(over="ignore", invalid="ignore"):  # (reported by the columns)
        sq = row_norms(X, squared=True) if kernel in ("rbf", "cosine") else None
    return ((lambda p: kernel_column(X, dense_row(X, p), kernel, params, sq)),
            kernel_diagonal(X, kernel, params))


def dense_row(X, p):
    """Row ``p`` of ``X`` (an array or a sparse matrix) as a 1-D ndarray."""
    if sp.issparse(X):
        return X[[p]].toarray()[0]
    return X[p]


def kernel_column(X, x, kernel, params, sq=None):
    """k0(X, x) for one point ``x``, as a 1-D array (non-finite values are an
    error, :func:`check_finite_kernel`).

    A greedy factor asks for one column per pivot.  Through
    ``pairwise_kernels`` each such call validates X and, for 'rbf',
    recomputes its squared row norms: three passes over X besides the
    product, which made pivoted incomplete Cholesky slower than a plain
    NumPy loop.  For 'linear', 'poly', 'sigmoid' and 'rbf' the column is
    computed here with scikit-learn's own formulas and order of operations
    (``euclidean_distances`` then ``rbf_kernel``; ``polynomial_kernel``;
    ``sigmoid_kernel``), with ``sq``, the squared row norms of X, computed
    once by the caller; other kernels go through :func:`kernel_columns`.
    For 'rbf' the squared distances that cancellation made unreliable (the
    point itself, near-duplicates: :func:`recompute_cancelled`) are then
    recomputed by the direct difference, so that ``K(x_p, x_p) = 1`` as
    :func:`kernel_diagonal` says, at every scale of X.
    'cosine' is ``X x / (|X_i| |x|)`` with scikit-learn's ``normalize`` rule
    for norms below ``10 eps`` (taken as 1), which equals
    ``cosine_similarity`` up to rounding and, on sparse X, costs one sparse
    product instead of a normalised copy of X per column.  ``X`` may be
    sparse (``x`` is dense).
    """
    if kernel == "cosine":
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            if sq is None:
                sq = row_norms(X, squared=True)
            norms = np.sqrt(sq)
            norms[norms < 10 * np.finfo(np.float64).eps] = 1.0
            nx = float(np.sqrt(x @ x))
            K = np.asarray(X @ x, dtype=np.float64).ravel()
            K /= norms
            K /= nx if nx >= 10 * np.finfo(np.float64).eps else 1.0
        return check_finite_kernel(K, kernel, params, X, x[None, :])
    if kernel not in ("linear", "poly", "sigmoid", "rbf"):
        return kernel_columns(X, x[None, :], kernel, params)[:, 0]
    gamma = params.get("gamma")
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # reported just below
        K = np.asarray(X @ x, dtype=np.float64).ravel()
        if kernel == "rbf":
            if sq is None:
                sq = row_norms(X, squared=True)
            K *= -2.0
            K += sq
            xx = np.einsum("ij,ij->i", x[None, :], x[None, :])[0]  # (row_norms' sum)
            K += xx
            np.maximum(K, 0.0, out=K)
            # K(x, x) and near-duplicates by the direct difference (cancellation)
            recompute_cancelled(K, X, x, sq, xx)
            K *= -gamma
            np.exp(K, out=K)
        elif kernel == "poly":
            K *= gamma
            K += params["coef0"]
            K **= params["degree"]
        elif kernel == "sigmoid":
            K *= gamma
            K += params["coef0"]
            np.tanh(K, out=K)
    return check_finite_kernel(K, kernel, params, X, x[None, :])


def pivot_columns(X, kernel, params, X_pivots, pivots):
    """k(X, X_pivots): kernel values of (new) points against the pivots (for
    'precomputed', X holds kernel values against all training points)."""
    if kernel == "precomputed":
        return X[:, pivots]
    return kernel_columns(X, X_pivots, kernel, params)
