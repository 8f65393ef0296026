"""Where data enters: one interface to rows held in memory or in dask chunks.

An estimator that takes a dask array calls :func:`enter` once, at the top of
``fit``, ``transform`` or ``predict``; that is the only place where the type
of the array decides anything (``tests/test_structure.py`` checks that no
other module asks).  What comes back is a *rows* object, and from then on
the estimator talks to it alone, the same code for both kinds of data:

- ``n``, ``shape``: the number of rows, the shape;
- ``take(idx)``: rows ``idx`` (any order, repeats) as an ndarray;
- ``all()``: every row, the ndarray or the lazy dask array;
- ``in_memory(purpose)``: every row as an ndarray, or a ValueError saying
  that ``purpose`` needs the data in memory;
- ``map(f, n_columns)``: ``f`` applied to the rows block by block (lazy on
  dask), as ``out_dtype``: float32 when the data came in as float32
  (scikit-learn's convention for transformers; the engine computes in
  float64), float64 otherwise;
- ``max_squared_norm()``, ``covariance()``;
- ``label_index(y, unlabeled)``: where the labeled samples of
  each class are (labels in memory or in a dask array);
- ``low_rank_factor(...)``: the initial factor, ``(factor, factor rows)``;
- ``side_information_cholesky(...)``: CSI's factor, its QR and map;
- ``kmeans(...)``: k-means on the rows (scikit-learn's ``KMeans`` in
  memory, :func:`sklearn_bregman._data._dask_kmeans.kmeans_dask` on chunks).

The factor rows returned by :meth:`InMemoryRows.low_rank_factor` are rows
objects too (of G0), with one more method, ``orthonormal_rows(idx, G_idx)``:
the rows ``idx`` of an orthonormal basis U of range(G0) (thin SVD
``G0 = U S V'``) with ``S`` and ``V'``, for the von Neumann learners.

:class:`InMemoryRows` is the in-memory implementation, here;
:class:`sklearn_bregman._data._dask.DaskRows` the one for dask arrays, which runs
the O(n r) parts as tasks on the chunks (ARCHITECTURE.md, "Data in dask
chunks").
"""

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.utils.extmath import row_norms
from sklearn.utils.validation import check_memory

from .._constraints._labels import LabelIndex, check_labels
from .._engine import max_squared_norm
from .._factors._factors import (
    LowRankFactor,
    PivotMap,
    cholesky_side_information,
    orthonormal_basis,
)
from .._factors._kernels import kernel_source
from .._utils._warnings import fit_kmeans, validate_data
from ._dask import DaskRows, check_dask_array, check_finite_chunks, is_dask_array
from ._inputs import points_of

__all__ = ["FACTOR_ROWS_INTERFACE", "ROWS_INTERFACE", "InMemoryRows", "enter",
           "fit_low_rank_factor", "output_dtype"]

#: The rows interface: what every implementation has (the data's rows).
ROWS_INTERFACE = ("n", "shape", "take", "all", "in_memory", "map", "max_squared_norm",
                  "label_index", "kmeans", "covariance", "low_rank_factor",
                  "side_information_cholesky")
#: What the rows of a factor (``low_rank_factor``'s second result) have.
FACTOR_ROWS_INTERFACE = ("n", "shape", "take", "all", "in_memory", "map",
                         "max_squared_norm", "label_index", "kmeans", "orthonormal_rows")


def output_dtype(X):
    """The dtype of what ``transform`` (or ``fit_transform``) returns for ``X``:
    float32 for float32 data, as scikit-learn's transformers keep it (the
    ``preserves_dtype`` tag), float64 for anything else (the engine computes in
    float64 either way).

    The data's dtype is the one scikit-learn's ``check_array`` reads: ``X.dtype``
    for an array (dense, sparse, dask); for a DataFrame, which has one dtype
    per column, their ``np.result_type`` when every column has a NumPy dtype
    (float32 columns, or float32 beside int8 / bool / float16 ones, are
    float32 data; beside a float64 or int64 column, float64), none when a
    column has a pandas extension dtype (``'Float32'``, sparse): float64, as
    ``PCA`` returns for the same frames.
    """
    dtype = getattr(X, "dtype", None)
    if not isinstance(dtype, np.dtype):  # (a column named "dtype" is not one)
        dtype = None
        dtypes = getattr(X, "dtypes", None)
        if dtypes is not None and hasattr(X, "columns"):
            dtypes = list(dtypes)
            if dtypes and all(isinstance(d, np.dtype) for d in dtypes):
                dtype = np.result_type(*dtypes)
    return np.float32 if dtype == np.float32 else np.float64


def enter(estimator, X, y=None, *, reset, fitting=None, check_y=None, **check):
    """Validated ``X`` (and ``y``) as a rows object: the one branch on dask.

    A 1-D ``X`` with an estimator's ``preprocessor`` is identifiers of
    points, replaced by their rows (:func:`~sklearn_bregman._data._inputs.points_of`).

    Parameters
    ----------
    estimator : estimator
        Sets (``reset``) or checks ``n_features_in_`` (and feature names).
    X : array-like or dask array
    y : array-like, default=None
        Validated with ``X`` when ``check_y`` is given (keyword arguments of
        scikit-learn's ``validate_data`` for the pair), in memory only;
        passed through otherwise.
    reset : bool
        ``fit`` (True) or a later method (False).
    fitting : bool, default=None
        Whether the call fits (``fit``, every ``partial_fit`` call: the
        ``preprocessor`` parameter resolves identifiers) or not (the fitted
        ``preprocessor_`` does); ``None``: ``reset``.
    **check
        Further keyword arguments of ``validate_data`` (``ensure_min_samples``);
        ``dtype`` is float64.  A scipy sparse matrix (CSR or CSC) is taken as
        it is, as CSR (rows), never densified here.

    Returns
    -------
    rows : InMemoryRows or DaskRows
    y : array-like or None
        Only when ``check_y`` is given.
    """
    X = points_of(estimator, X, fitting=reset if fitting is None else fitting)
    out = output_dtype(X)
    if is_dask_array(X):
        X = check_dask_array(X, estimator, reset=reset,
                             ensure_min_samples=check.get("ensure_min_samples", 1))
        # chunks that hold NaN or inf raise when computed, for every method
        # (in memory, validate_data checks), at no extra pass
        rows = DaskRows(check_finite_chunks(X), out)
        return (rows, y) if check_y is not None else rows
    sparse = {"accept_sparse": ("csr", "csc")}
    if check_y is not None and y is not None:
        X, y = validate_data(estimator, X, y, reset=reset, dtype=np.float64, **check_y,
                             **sparse, **check)
        return InMemoryRows(_rows_format(X), out), y
    X = _rows_format(validate_data(estimator, X, reset=reset, dtype=np.float64, **sparse,
                                   **check))
    return (InMemoryRows(X, out), y) if check_y is not None else InMemoryRows(X, out)


def _rows_format(X):
    """A sparse X as CSR in canonical form (row slices and products by rows
    are what the factors take: duplicate entries summed, indices sorted), on
    a copy (the user's matrix is never changed, not even its cached flags);
    an array as it is."""
    if sp.issparse(X):
        X = X.tocsr(copy=True)
        X.sum_duplicates()
    return X


def fit_low_rank_factor(X, y, kernel, rank, factor_tol, kernel_params, low_rank,
                        unlabeled, random_state=None):
    """A fitted :class:`~sklearn_bregman._factors._factors.LowRankFactor` and its G0.

    A module-level function of its arguments only, so that joblib's
    ``Memory`` can cache it (the learners' ``memory`` parameter); ``y``
    matters only to ``low_rank='csi'`` and ``random_state`` (the pivots'
    draws) only to ``low_rank='rpcholesky'``; each is ``None`` otherwise.
    """
    factor = LowRankFactor(kernel, rank, factor_tol, kernel_params, method=low_rank,
                           unlabeled=unlabeled, random_state=random_state)
    return factor, factor.fit(X, y)


class InMemoryRows:
    """Rows held in memory: an ndarray (the data X, or a factor G0).

    Parameters
    ----------
    A : ndarray or scipy sparse CSR matrix of shape (n, width)
        The rows (C-contiguous float64 as ``validate_data`` gives them).  A
        sparse A stays sparse: :meth:`take` gives the rows asked for as a
        dense array (the rows a learner gathers, e.g. ITML's pairs), the
        factors compute kernel columns from the sparse rows.
    out_dtype : dtype, default=np.float64
        The dtype of :meth:`map`'s result (:func:`output_dtype` of the data).
    """

    def __init__(self, A, out_dtype=np.float64):
        self.A = A
        self.n = A.shape[0]
        self.shape = A.shape
        self.out_dtype = out_dtype
        self.sparse = sp.issparse(A)
        self._scale = None

    def take(self, idx):
        """Rows ``idx`` as an ndarray (a copy; dense also for a sparse A)."""
        if sp.issparse(self.A):
            return self.A[np.asarray(idx)].toarray()
        return self.A[idx]

    def all(self):
        """Every row: the ndarray itself."""
        return self.A

    def in_memory(self, purpose, advice=None):
        """Every row as an ndarray (they are; on dask a ValueError that names
        ``purpose`` and gives the ``advice``)."""
        return self.A

    def map(self, function, n_columns=None, dtype=None):
        """``function(A)``: a function of row blocks applied to all the rows, as
        ``dtype`` (default ``out_dtype``)."""
        return function(self.A).astype(dtype or self.out_dtype, copy=False)

    def max_squared_norm(self):
        """The largest squared norm of a row (computed once)."""
        if self._scale is None:
            self._scale = (float(row_norms(self.A, squared=True).max(initial=0.0))
                           if sp.issparse(self.A) else max_squared_norm(self.A))
        return self._scale

    def covariance(self):
        """The covariance matrix of the columns (at least 2-D; d x d dense, from
        the sparse rows without a dense copy of them)."""
        if sp.issparse(self.A):
            n = self.n
            mean = np.asarray(self.A.mean(axis=0)).ravel()
            C = (self.A.T @ self.A).toarray() - n * np.outer(mean, mean)
            return np.atleast_2d(C / max(n - 1, 1))
        return np.atleast_2d(np.cov(self.A, rowvar=False))

    def label_index(self, y, unlabeled):
        """A :class:`~sklearn_bregman._constraints._labels.LabelIndex` of the labels ``y``
        (one per row)."""
        return LabelIndex(check_labels(y, self.n), unlabeled)

    def orthonormal_rows(self, idx, G_idx=None):
        """Rows ``idx`` of an orthonormal basis U of range(A), with S and V'
        (the thin SVD ``A = U S V'``)."""
        U, s, Vt = orthonormal_basis(self.A)
        return np.ascontiguousarray(U[idx]), s, Vt

    def low_rank_factor(self, y, kernel, rank, tol, params, method, unlabeled=-1,
                        random_state=None, memory=None):
        """The initial factor: a fitted
        :class:`~sklearn_bregman._factors._factors.LowRankFactor` and its G0 as rows
        (``memory``: a joblib ``Memory`` caching it, or None)."""
        fit = check_memory(memory).cache(fit_low_rank_factor)
        factor, G0 = fit(self.A, y if method == "csi" else None, kernel, rank, tol, params,
                         method, unlabeled,
                         random_state=random_state if method == "rpcholesky" else None)
        return factor, InMemoryRows(G0)

    def side_information_cholesky(self, Y, kernel, params, *, max_rank, kappa, delta, tol,
                                  center, random_state):
        """CSI (Bach & Jordan 2005) on the rows: a
        :class:`~sklearn_bregman._factors._factors.CSIResult` and the out-of-sample
        map of its pivots."""
        column, diag = kernel_source(self.A, kernel, params)
        res = cholesky_side_information(
            column, diag, Y, max_rank=max_rank, kappa=kappa, delta=delta, tol=tol,
            center=center, random_state=random_state)
        if res.G.shape[1] == 0:
            raise ValueError("The kernel is zero on the training data: nothing to factor.")
        return res, PivotMap(res.G, res.pivots, self.A, kernel, params)

    def kmeans(self, n_clusters, *, n_init, max_iter, tol, random_state, verbose,
               init="auto"):
        """scikit-learn's :class:`~sklearn.cluster.KMeans` (greedy k-means++
        seeding, whatever ``init`` names: the rows are at hand) on the rows:
        ``(centers, inertia, n_iter, labels, the fitted KMeans)``."""
        km = fit_kmeans(KMeans(n_clusters, n_init=n_init, max_iter=max_iter, tol=tol,
                               random_state=random_state, verbose=verbose), self.A)
        return km.cluster_centers_, km.inertia_, km.n_iter_, km.labels_, km
