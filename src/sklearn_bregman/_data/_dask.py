"""Data beyond one machine: the O(n r) parts of a fit on dask arrays.

The learned kernel lives in r x r; what grows with the data is the initial
factor G0 (n x r), the embedding, the out-of-sample map and kernel k-means.
When ``X`` is a :class:`dask.array.Array` (rows in chunks) those parts run
chunk by chunk as dask tasks, on whatever scheduler is active (a
``distributed.Client`` when one exists), and the client holds only what is
O(r^2), the pivots' rows and a few numbers per chunk:

- :class:`DaskFactor` builds G0 on the chunks.  Randomly pivoted Cholesky
  (``'rpcholesky'``, the one to use at scale) keeps only the residual
  diagonal on the workers: each round draws its proposals from the
  per-chunk sums of the diagonal (the uniforms of ``RandomState.choice``,
  located in two levels, chunk then row), so the pivots are those of the
  in-memory :func:`~sklearn_bregman._factors._factors.randomly_pivoted_cholesky`
  under the same seed, and G0's rows are recomputed from ``X`` by replaying
  the rounds (:func:`_replay`) whenever they are needed, never stored.
  Greedy pivoted Cholesky (``'cholesky'``) needs the factor itself to update
  the diagonal, one pass per pivot: its chunks of ``[G0 | d]`` stay on the
  workers (O(n r) memory there).  The linear kernel is ``X`` itself.
- :class:`DaskLabelIndex` answers the questions of drawing pairs from labels
  (:func:`sklearn_bregman._constraints._labels.draw_label_pairs`: how many of each
  class, the a-th sample of class k) with per-chunk counts and small
  per-chunk tasks, so the same pairs are drawn as in memory.
- :class:`DaskRows` and :class:`DaskFactorRows` are the dask
  implementation of the rows interface of :mod:`sklearn_bregman._data._data`
  (the data's rows, and the factor's): gathering rows
  (:func:`sklearn_bregman._constraints._resolve.resolve_pairs` takes the ones the pairs
  touch, once, for the r x r engine), maps, label indices, the factor,
  CSI's plain path and k-means (:mod:`sklearn_bregman._data._dask_kmeans`).
- Outputs (``embedding_``, ``transform``, ``predict``) are lazy dask arrays
  mapped block by block (:func:`map_rows`).

NumPy input never comes here: ``_data.enter`` hands it to
:class:`sklearn_bregman._data._data.InMemoryRows`.
"""

import sys
from functools import partial

import numpy as np
from scipy import linalg
from sklearn.utils import check_random_state

from .._constraints._labels import LabelIndex, check_labels, encode_labels
from .._factors._factors import (
    FLOOR,
    RPCHOLESKY_BLOCK,
    CSIResult,
    PivotMap,
    check_rank,
    cholesky_step,
    input_map,
    orthonormal_basis,
    rejection_cholesky,
    rpcholesky_columns,
)
from .._factors._kernels import kernel_column, kernel_columns, kernel_diagonal
from ._dask_kmeans import kmeans_dask

__all__ = ["DaskFactor", "DaskFactorRows", "DaskLabelIndex", "DaskRows", "check_dask_array",
           "check_finite_chunks", "fits_on_workers", "gather", "is_dask_array",
           "largest_squared_norm", "map_rows"]


def is_dask_array(X):
    """Whether ``X`` is a dask array (without importing dask: if it was never
    imported, nothing can be one)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(X, da.Array)


def check_dask_array(X, estimator, *, reset, ensure_min_samples=1):
    """``validate_data`` for a dask array: 2-D, known row chunks, numbers,
    ``n_features_in_`` set (``reset``) or checked; float64 with the columns
    in one chunk.  NaN and inf are found by the first pass over the data
    (:func:`check_finite_chunks`), not here, so nothing is computed."""
    name = type(estimator).__name__
    if X.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D dask array X, got {X.ndim}-D "
                         f"(shape {X.shape}).")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(f"{name}: X has unknown chunk sizes (e.g. after boolean "
                         "indexing); call X.compute_chunk_sizes() first.")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise ValueError(f"{name}: X has dtype {X.dtype}; numbers are needed.")
    n, d = X.shape
    if n < ensure_min_samples:
        raise ValueError(f"{name}: found array with {n} sample(s) while a minimum of "
                         f"{ensure_min_samples} is required.")
    if reset:
        estimator.n_features_in_ = d
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    elif d != estimator.n_features_in_:
        raise ValueError(f"X has {d} features, but {name} is expecting "
                         f"{estimator.n_features_in_} features as input.")
    X = X.astype(np.float64)
    return X.rechunk({1: -1}) if len(X.chunks[1]) > 1 else X


def _not_finite(block):
    if not np.isfinite(block).all():
        raise ValueError("Input X contains NaN or infinity.")
    return block


def check_finite_chunks(X):
    """``X`` whose chunks raise a ValueError, when computed, if they hold NaN or
    inf (as scikit-learn's ``validate_data``, at no extra pass)."""
    return X.map_blocks(_not_finite, dtype=X.dtype)


def _offsets(chunks):
    return np.concatenate([[0], np.cumsum(chunks)]).astype(np.int64)


def _blocks(X):
    """The row blocks of ``X`` as dask delayed objects."""
    return X.to_delayed().reshape(-1)


def _by_chunk(offsets, idx):
    """Chunks holding the global rows ``idx``: ``{chunk: (positions in idx,
    local rows)}``."""
    chunk = np.searchsorted(offsets, idx, side="right") - 1
    out = {}
    for c in np.unique(chunk):
        sel = np.flatnonzero(chunk == c)
        out[int(c)] = (sel, idx[sel] - offsets[c])
    return out


def _take(block, rows):
    return block[rows]


def gather(X, idx):
    """Rows ``X[idx]`` (any order, repeats allowed) as a NumPy array on the
    client: one small task per chunk that holds any of them, one compute."""
    import dask

    idx = np.asarray(idx, dtype=np.int64)
    out = np.empty((idx.shape[0],) + X.shape[1:], dtype=X.dtype)
    if not idx.size:
        return out
    blocks = _blocks(X)
    where = _by_chunk(_offsets(X.chunks[0]), idx)
    parts = dask.compute(*[dask.delayed(_take)(blocks[c], rows)
                           for c, (_, rows) in where.items()])
    for (sel, _), values in zip(where.values(), parts):
        out[sel] = values
    return out


def map_rows(X, function, n_columns, dtype=np.float64):
    """``function`` applied to each row block of ``X``, lazily: a dask array of
    ``n_columns`` columns (1-D for ``n_columns=None``)."""
    def block(B):
        return function(B).astype(dtype, copy=False)

    if n_columns is None:
        return X.map_blocks(block, drop_axis=1, dtype=dtype, chunks=(X.chunks[0],))
    return X.map_blocks(block, dtype=dtype, chunks=(X.chunks[0], (n_columns,)))


def _row_squared_norms(X):
    return np.einsum("ij,ij->i", X, X)


def largest_squared_norm(X):
    """The largest squared norm of a row of the dask array ``X`` (one pass)."""
    return float(map_rows(X, _row_squared_norms, None).max().compute())


def room_on_workers():
    """Bytes that may stay on the workers: half of their summed
    ``memory_limit`` on a distributed cluster (``inf`` if a limit is
    unknown), half of this machine's available memory otherwise."""
    import os

    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):  # no distributed, or no client
        client = None
    if client is not None:
        limits = [w.get("memory_limit") or 0
                  for w in client.scheduler_info()["workers"].values()]
        return sum(limits) / 2 if limits and all(limits) else np.inf
    available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return available / 2


def fits_on_workers(nbytes):
    """Whether ``nbytes`` may stay on the workers now (:func:`room_on_workers`)."""
    return nbytes <= room_on_workers()


def _per_chunk(function, X):
    """``function`` of each row block of ``X``, as rows of a NumPy array on the
    client (one small result per chunk)."""
    import dask

    return np.array(dask.compute(*[dask.delayed(function)(blk) for blk in _blocks(X)]))


def _chunk_stats(d):
    return np.array([d.sum(), d.max(initial=0.0)])


def _locate(d, targets):
    """Rows of the block whose cumulative sum first exceeds each target (the
    second level of a draw proportional to ``d``), and ``d`` there."""
    rows = np.minimum(np.cumsum(d).searchsorted(targets, side="right"), d.shape[0] - 1)
    return rows, d[rows]


def draw_proportional(d, u, sums):
    """Rows drawn with probability ``d / sum(d)`` from the uniforms ``u``:
    ``RandomState.choice(n, p=d / d.sum())`` in two levels (the chunk from
    the per-chunk ``sums``, then the row), with the residuals there.

    ``choice`` finds the first row whose cumulative share exceeds ``u``;
    here the same, with the cumulative sum built per chunk (rounding of
    the sums aside, the same rows).
    """
    import dask

    cum = np.cumsum(sums)
    targets = u * cum[-1]
    chunk = np.minimum(cum.searchsorted(targets, side="right"), len(sums) - 1)
    offsets = _offsets(d.chunks[0])
    blocks = _blocks(d)
    order = np.unique(chunk)
    before = np.concatenate([[0.0], cum])
    parts = dask.compute(*[dask.delayed(_locate)(blocks[c], targets[chunk == c] - before[c])
                           for c in order])
    rows = np.empty(u.shape[0], dtype=np.int64)
    values = np.empty(u.shape[0])
    for c, (r, v) in zip(order, parts):
        rows[chunk == c] = r + offsets[c]
        values[chunk == c] = v
    return rows, values


class _Round:
    """One round of randomly pivoted Cholesky: its pivots ``A`` (global
    rows), their points ``XA``, ``L`` (lower triangular, the Cholesky factor
    of their residual block) and ``GA``, their rows of the columns before."""

    def __init__(self, A, XA, L, GA):
        self.A, self.XA, self.L, self.GA = A, XA, L, GA


def _replay(X, rows, rounds, kernel, params):
    """Rows of G0 for the points ``X`` (global training rows ``rows``, or
    ``None`` for new points), by the recurrence of
    :func:`~sklearn_bregman._factors._factors.randomly_pivoted_cholesky`: round after
    round, ``G[:, new] = (K[:, A] - G G[A]') L^-T`` with exact zeros at the
    earlier pivots and ``L`` at the round's own.  Row by row the same
    arithmetic as the in-memory factor."""
    r = sum(t.A.shape[0] for t in rounds)
    G = np.zeros((X.shape[0], r))
    k = 0
    pivots = np.empty(0, dtype=np.int64)
    for t in rounds:
        m = t.A.shape[0]
        values = kernel_columns(X, t.XA, kernel, params)
        if rows is None:  # new points: no pivot among them
            earlier = at = pos = np.empty(0, dtype=np.int64)
        else:
            earlier = np.isin(rows, pivots)
            at, pos = _positions(rows, t.A)
        G[:, k:k + m] = rpcholesky_columns(values, G[:, :k], t.GA, t.L, earlier, at, pos)
        k += m
        pivots = np.concatenate([pivots, t.A])
    return G


def _positions(rows, A):
    """Where the pivots ``A`` occur among ``rows``: (positions in rows,
    positions in A)."""
    hit = np.flatnonzero(np.isin(rows, A))
    lookup = {int(a): p for p, a in enumerate(A)}
    return hit, np.array([lookup[int(rows[h])] for h in hit], dtype=np.int64)


def _rows_of(block_info):
    start, stop = block_info[0]["array-location"][0]
    return np.arange(start, stop, dtype=np.int64)


def _round_update(X, d, rounds, kernel, params, block_info=None):
    """One chunk of a round: the new columns (replayed), their squared norms
    and the residual diagonal after them, as ``[d_new | norms]`` stacked in
    one 1-D block of ``len(d) + m`` entries."""
    rows = _rows_of(block_info)
    d = d[:, 0]  # passed as a column, to align with X's blocks
    m = rounds[-1].A.shape[0]
    new = _replay(X, rows, rounds, kernel, params)[:, -m:]
    sq = new * new
    d_new = np.maximum(d - sq.sum(axis=1), 0.0)
    d_new[np.isin(rows, rounds[-1].A)] = 0.0
    return np.concatenate([d_new, sq.sum(axis=0)])


def _set_rows(d, rows_values, block_info=None):
    rows = _rows_of(block_info)
    out = d.copy()
    idx, values = rows_values
    hit = np.isin(idx, rows)
    out[idx[hit] - rows[0]] = values[hit]
    return out


def _greedy_start(diag):
    return np.maximum(diag, 0.0)[:, None]


def _greedy_step(S, X, x_p, g_p, d_p, p, pivots, kernel, params, block_info=None):
    """One chunk of a greedy pivoted Cholesky step on ``S = [G | d]``: column
    ``k`` from pivot ``p`` by the in-memory step
    (:func:`~sklearn_bregman._factors._factors.cholesky_step`), appended
    (``[G | g_k | d]``)."""
    rows = _rows_of(block_info)
    k = S.shape[1] - 1
    col = kernel_column(X, x_p, kernel, params)  # as the in-memory column
    d = S[:, -1].copy()
    col = cholesky_step(col, S[:, :k], g_p, d_p, d, np.isin(rows, pivots))
    if rows[0] <= p < rows[0] + rows.shape[0]:
        d[p - rows[0]] = 0.0
    return np.column_stack([S[:, :k], col, d])


class DaskFactor:
    """The initial factor G0 of a dask array ``X`` and its out-of-sample map.

    The counterpart of :class:`~sklearn_bregman._factors._factors.LowRankFactor` for
    data in chunks: the same pivots, the same rows of G0 (to rounding of
    the per-chunk sums), the same ``transform``.  See the module's
    docstring for what stays on the workers.

    Parameters
    ----------
    kernel, rank, tol, params, method, random_state
        As :class:`~sklearn_bregman._factors._factors.LowRankFactor`; ``method`` is
        'cholesky' or 'rpcholesky' ('csi' and 'precomputed' need the whole
        data in one place).
    block_size : int, default=None
        Proposals per round of 'rpcholesky' (``None``: as in memory).
    stop : {'residual', 'gain'}, default='residual'
        When 'cholesky' stops: the residual trace at most ``tol`` times the
        trace, or (CSI's plain path) a column whose squared norm is below
        ``tol`` times the trace.

    Attributes (after ``fit``)
    --------------------------
    rank_ : int
    pivots_ : ndarray or None
    residual_trace_ : ndarray or None
    max_squared_norm_ : float
        Largest squared norm of a row of G0 (for the scale check); for the
        linear kernel one pass over ``X``, made when first asked for (a
        learner's scale check asks, k-means does not).
    """

    def __init__(self, kernel, rank, tol, params, method="cholesky", random_state=None,
                 block_size=None, stop="residual"):
        self.kernel = kernel
        self.rank = rank
        self.tol = tol
        self.params = params
        self.method = method
        self.random_state = random_state
        self.block_size = block_size
        self.stop = stop

    def fit(self, X):
        """Build the factor of the training chunks ``X`` (a checked dask array)."""
        import dask.array as da

        if self.kernel in ("precomputed", "adaptive_rbf"):
            raise ValueError(f"kernel={self.kernel!r} is not available on dask arrays: "
                             "it needs the whole data in one place.")
        if self.method not in ("cholesky", "rpcholesky"):
            raise ValueError(f"low_rank={self.method!r} is not available on dask arrays "
                             "(CSI chooses its pivots with the whole of the labels); use "
                             "'rpcholesky' or 'cholesky'.")
        n, dim = X.shape
        self._X = X
        self.pivots_ = None
        self.residual_trace_ = None
        self._map = None
        self._rounds = None
        self._state = None
        self._max_squared_norm = None
        if self.kernel == "linear" and self.stop != "gain":  # (CSI pivots every kernel)
            limit = min(n, dim)
            rank = limit if self.rank is None else self.rank
            check_rank(rank, limit, "min(n_samples, n_features)")
            if rank < dim:
                # top right singular directions from the R of a tall-skinny QR
                _, R = da.linalg.tsqr(X)
                _, _, Vt = linalg.svd(np.array(R.compute()), full_matrices=False)
                self._map = np.ascontiguousarray(Vt[:rank].T)
            self.rank_ = rank
            return self
        rank = min(n, 100) if self.rank is None else self.rank
        check_rank(rank, n, "n_samples")
        diag = map_rows(X, partial(kernel_diagonal, kernel=self.kernel, params=self.params),
                        None)
        if self.method == "rpcholesky":
            self._fit_rpcholesky(X, diag, rank)
        else:
            self._fit_greedy(X, diag, rank)
        if self.rank_ == 0:
            raise ValueError("The initial kernel is zero on the training data (no pivot "
                             "with a positive residual): nothing to learn from.")
        return self

    # -- randomly pivoted Cholesky: only the diagonal stays on the workers
    def _fit_rpcholesky(self, X, diag, max_rank):
        import dask
        import dask.array as da

        rng = check_random_state(self.random_state)
        b = (min(max_rank, RPCHOLESKY_BLOCK) if self.block_size is None
             else int(self.block_size))
        d = da.maximum(diag, 0.0).persist()
        kernel, params = self.kernel, self.params
        rounds = []
        pivots = np.empty(0, dtype=np.int64)
        stats = _per_chunk(_chunk_stats, d)
        trace0, floor = self._start(stats)
        residual = [trace0]
        k = 0
        while k < max_rank and residual[-1] > self.tol * trace0:
            total = float(stats[:, 0].sum())
            if not total > 0.0 or stats[:, 1].max() <= floor:
                break
            # rng.choice(n, size=b, p=d / total) draws random_sample(b), then
            # rng.uniform(size=b) the acceptances: the same stream as in memory
            S, dS = draw_proportional(d, rng.random_sample(b), stats[:, 0])
            u = rng.uniform(size=b)
            XS = gather(X, S)
            H = kernel_columns(XS, XS, kernel, params)
            if k:
                GS = _replay(XS, S, rounds, kernel, params)
                H -= GS @ GS.T
            accepted, C = rejection_cholesky(H, dS, u, floor, max_rank - k)
            if not accepted.size:
                h = np.diag(H).copy()
                h[h <= floor] = 0.0
                d = d.map_blocks(_set_rows, (S, np.minimum(dS, np.maximum(h, 0.0))),
                                 dtype=float).persist()
                stats = _per_chunk(_chunk_stats, d)
                continue
            A = S[accepted]
            GA = GS[accepted] if k else np.zeros((A.shape[0], 0))
            rounds.append(_Round(A, XS[accepted], C[accepted], GA))
            m = A.shape[0]
            both = da.map_blocks(
                _round_update, X, d[:, None], rounds, kernel, params, drop_axis=1,
                chunks=(tuple(c + m for c in X.chunks[0]),), dtype=float).persist()
            parts = _split(both, X.chunks[0], m)
            norms = np.sum(dask.compute(*[p[1] for p in parts]), axis=0)
            after = total - np.cumsum(norms)
            below = np.flatnonzero(after <= self.tol * trace0)
            if below.size:  # the last round: keep the columns up to tol
                m = int(below[0]) + 1
                t = rounds[-1]
                rounds[-1] = _Round(A[:m], t.XA[:m], t.L[:m, :m], t.GA[:m])
                residual.extend(np.maximum(after[:m], 0.0).tolist())
                pivots = np.concatenate([pivots, A[:m]])
                k += m
                break
            d = da.concatenate([p[0] for p in parts]).persist()
            del both
            stats = _per_chunk(_chunk_stats, d)
            pivots = np.concatenate([pivots, A])
            k += m
            residual.extend(np.maximum(after[:m - 1], 0.0).tolist())
            residual.append(max(float(stats[:, 0].sum()), 0.0))
        self._rounds = rounds
        self._finish(X, pivots, residual, diag, gather(X, pivots) if k else None)

    # -- greedy pivoted Cholesky: [G | d] stays on the workers, one pass a pivot
    def _fit_greedy(self, X, diag, max_rank):
        import dask

        kernel, params = self.kernel, self.params
        S = diag.map_blocks(_greedy_start, dtype=float, new_axis=1,
                            chunks=(X.chunks[0], (1,))).persist()
        offsets = _offsets(X.chunks[0])
        stats = _per_chunk(_column_stats, S)
        trace0, floor = self._start(stats)
        residual = [trace0]
        self.column_norms_ = []
        pivots = []
        k = 0
        # stop rules: the residual trace at most tol tr(K) (pivoted_cholesky),
        # or, for CSI's plain path, a column's squared norm below tol tr(K)
        # (its gain, Bach & Jordan Section 2.2), that column kept
        while k < max_rank and (self.stop == "gain" or residual[-1] > self.tol * trace0):
            # np.argmax(d): the first of the largest, over the chunks in order
            c = int(np.argmax(stats[:, 1]))
            if stats[c, 1] <= floor:
                break
            p = int(offsets[c] + stats[c, 2])
            row, x_p = dask.compute(S[p], X[p])
            S = S.map_blocks(_greedy_step, X, x_p, row[:k].copy(), row[-1], p,
                             np.array(pivots, dtype=np.int64), kernel, params,
                             dtype=float, chunks=(X.chunks[0], (k + 2,))).persist()
            pivots.append(p)
            k += 1
            stats = _per_chunk(_column_stats, S)
            residual.append(max(float(stats[:, 0].sum()), 0.0))
            self.column_norms_.append(float(stats[:, 3].sum()))
            if self.stop == "gain" and self.column_norms_[-1] / trace0 < self.tol:
                break
        self._state = S[:, :k]
        pivots = np.array(pivots, dtype=np.int64)
        self._finish(X, pivots, residual, diag, gather(X, pivots) if k else None)

    def _start(self, stats):
        """The trace of the clipped diagonal and the residual below which a
        point is numerically dependent on the pivots (1e-12 of the largest
        diagonal entry, as in memory), from the first per-chunk statistics
        (sum and largest value per chunk)."""
        trace0 = float(stats[:, 0].sum())
        if not np.isfinite(trace0):
            raise ValueError("The kernel's diagonal is not finite (NaN or inf): nothing "
                             "to factor.")
        self._diag_max = float(stats[:, 1].max())
        return trace0, FLOOR * max(self._diag_max, np.finfo(float).tiny)

    def _finish(self, X, pivots, residual, diag, X_pivots):
        self.rank_ = pivots.shape[0]
        self.pivots_ = pivots
        self.residual_trace_ = np.array(residual)
        if not self.rank_:
            return
        L = self.rows(pivots, X_pivots)
        self._map = PivotMap.from_pivot_rows(L, pivots, X_pivots, self.kernel, self.params)
        # rows of G0 have squared norm K_ii - d_i <= max K_ii (the scale check's
        # figure; the in-memory check measures the rows themselves)
        self._max_squared_norm = self._diag_max

    @property
    def max_squared_norm_(self):
        """Largest squared norm of a row of G0 (see the class's docstring)."""
        if self._max_squared_norm is None:
            if self._X is None:
                raise AttributeError("max_squared_norm_ of a linear factor is measured on "
                                     "its training chunks, which a pickled factor no "
                                     "longer holds.")
            self._max_squared_norm = largest_squared_norm(self._X)
        return self._max_squared_norm

    def rows(self, idx, X_rows=None):
        """Rows ``G0[idx]`` on the client (``X_rows``: ``X[idx]`` if at hand)."""
        idx = np.asarray(idx, dtype=np.int64)
        if self._state is not None:
            return gather(self._state, idx)
        X_rows = gather(self._X, idx) if X_rows is None else X_rows
        if self.kernel == "linear":
            return X_rows if self._map is None else X_rows @ self._map
        return _replay(X_rows, idx, self._rounds, self.kernel, self.params)

    def training_factor(self):
        """G0 of the training chunks, lazy (n x rank_)."""
        if self._state is not None:
            return self._state
        if self.kernel == "linear":
            return self._X if self._map is None else self._X @ self._map
        return self._X.map_blocks(_replay_block, self._rounds, self.kernel, self.params,
                                  dtype=float, chunks=(self._X.chunks[0], (self.rank_,)))

    def transform(self, X):
        """phi0(X) for NumPy rows (the same map as the in-memory factor)."""
        if self.kernel == "linear":
            return X if self._map is None else X @ self._map
        return self._map(X)

    def input_map(self):
        """P of ``phi0(x) = x P`` for the linear kernel (``None``: the
        identity), as :meth:`LowRankFactor.input_map`."""
        return input_map(self.kernel, self._map)

    def tsqr_r(self):
        """R of a tall-skinny QR of G0 (r x r; one pass over the chunks):
        ``G0' G0 = R' R`` without squaring G0's condition number."""
        import dask.array as da

        _, R = da.linalg.tsqr(self.training_factor())
        return np.array(R.compute())  # writeable (a worker's result may not be)

    def __getstate__(self):
        # the training chunks and the workers' state belong to the cluster
        # they were built on; what is pickled maps new points
        state = self.__dict__.copy()
        state["_X"] = state["_state"] = None
        return state


def _replay_block(X, rounds, kernel, params, block_info=None):
    return _replay(X, _rows_of(block_info), rounds, kernel, params)


def _column_stats(S):
    """Sum, largest value and the first row holding it of the last column
    (the residual diagonal), and the squared norm of the one before (the
    newest column of G)."""
    d = S[:, -1]
    new = float(S[:, -2] @ S[:, -2]) if S.shape[1] > 1 else 0.0
    if not d.shape[0]:
        return np.array([0.0, -np.inf, 0.0, new])
    p = int(np.argmax(d))
    return np.array([d.sum(), d[p], p, new])


def _split(both, row_chunks, m):
    """The per-chunk ``[d_new | norms]`` of :func:`_round_update`, apart."""
    import dask.array as da

    parts = []
    start = 0
    for c in row_chunks:
        blk = both[start:start + c + m]
        parts.append((blk[:c], blk[c:]))
        start += c + m
    return parts if parts else [(da.zeros(0), da.zeros(m))]


class DaskLabelIndex:
    """Where the labeled samples of each class are, for labels in a dask array.

    Answers the questions of :class:`sklearn_bregman._constraints._labels.LabelIndex`
    from per-chunk class counts (the client holds chunks x classes integers)
    and small per-chunk tasks, so that
    :func:`~sklearn_bregman._constraints._labels.draw_label_pairs` draws the same
    pairs as from the labels in memory.
    """

    def __init__(self, y, unlabeled):
        import dask

        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise ValueError(f"y should be a 1-D dask array, got shape {y.shape}.")
        self._y = y
        self._unlabeled = unlabeled
        present = np.unique(np.concatenate(dask.compute(*[dask.delayed(np.unique)(b)
                                                          for b in _blocks(y)])))
        # the checks and the warning of the in-memory labels, on the distinct ones
        _, _, self.classes, _ = encode_labels(present, unlabeled)
        self.n = y.shape[0]
        self._offsets = _offsets(y.chunks[0])
        per_chunk = np.array(dask.compute(*[
            dask.delayed(_class_counts)(b, self.classes, unlabeled) for b in _blocks(y)]))
        self._counts_by_chunk = per_chunk.reshape(len(y.chunks[0]), self.classes.shape[0])
        self.counts = self._counts_by_chunk.sum(axis=0).astype(np.int64)
        self._before = np.vstack([np.zeros(self.classes.shape[0], np.int64),
                                  np.cumsum(self._counts_by_chunk, axis=0)])
        labeled = self._counts_by_chunk.sum(axis=1)
        self._labeled_before = np.concatenate([[0], np.cumsum(labeled)])

    def _find(self, before, pos, k=None):
        import dask

        pos = np.asarray(pos, dtype=np.int64)
        k = None if k is None else np.asarray(k, dtype=np.int64)
        chunk = np.empty(pos.shape[0], dtype=np.int64)
        if k is None:
            chunk[:] = np.searchsorted(before, pos, side="right") - 1
            local = pos - before[chunk]
        else:
            for kk in np.unique(k):
                sel = k == kk
                chunk[sel] = np.searchsorted(before[:, kk], pos[sel], side="right") - 1
            local = pos - before[chunk, k]
        blocks = _blocks(self._y)
        order = np.unique(chunk)
        parts = dask.compute(*[
            dask.delayed(_nth)(blocks[c], self.classes, self._unlabeled,
                               None if k is None else k[chunk == c], local[chunk == c])
            for c in order])
        out = np.empty(pos.shape[0], dtype=np.intp)
        for c, rows in zip(order, parts):
            out[chunk == c] = rows + self._offsets[c]
        return out

    def of_class(self, k, a):
        """The ``a``-th labeled sample (in index order) of class code ``k``."""
        return self._find(self._before, a, k)

    def labeled(self, pos):
        """The ``pos``-th labeled sample, in index order."""
        return self._find(self._labeled_before, pos)

    def codes(self, i):
        """Class codes of samples ``i`` (-1: unlabeled)."""
        return _codes(gather(self._y, i), self.classes, self._unlabeled)

    def all_labeled(self):
        """Every labeled sample and its class code (collects the labels; only
        for label sets so small that all pairs are listed)."""
        codes = _codes(self._y.compute(), self.classes, self._unlabeled)
        idx = np.flatnonzero(codes >= 0)
        return idx, codes[idx]


def _codes(y, classes, unlabeled):
    """Class codes of labels (-1 for the unlabeled ones)."""
    out = np.full(y.shape[0], -1, dtype=np.intp)
    lab = np.ones(y.shape[0], bool) if unlabeled is None else y != unlabeled
    out[lab] = np.searchsorted(classes, y[lab])
    return out


def _class_counts(y, classes, unlabeled):
    codes = _codes(y, classes, unlabeled)
    return np.bincount(codes[codes >= 0], minlength=classes.shape[0])


def _nth(y, classes, unlabeled, k, local):
    """Rows of the block: the ``local``-th labeled one (of class ``k``)."""
    codes = _codes(y, classes, unlabeled)
    if k is None:
        return np.flatnonzero(codes >= 0)[local]
    out = np.empty(local.shape[0], dtype=np.intp)
    for kk in np.unique(k):
        sel = k == kk
        out[sel] = np.flatnonzero(codes == kk)[local[sel]]
    return out


# --------------------------------------------------------------------------
# The rows interface of sklearn_bregman._data._data, for data in chunks
# --------------------------------------------------------------------------

def _label_index(y, n, unlabeled):
    """The index of labels ``y`` of ``n`` rows in chunks: in a dask array
    (:class:`DaskLabelIndex`) or in memory."""
    if not is_dask_array(y):
        return LabelIndex(check_labels(y, n), unlabeled)
    if np.isnan(y.shape[0]):
        raise ValueError("y has unknown chunk sizes (a dask array filtered by a mask, for "
                         "instance); call y.compute_chunk_sizes() first.")
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} entries but X has {n} samples.")
    return DaskLabelIndex(y, unlabeled)


def _kmeans(Z, n_clusters, n_init, max_iter, tol, random_state, verbose, init="auto",
            room=None):
    """:func:`~sklearn_bregman._data._dask_kmeans.kmeans_dask` on the rows ``Z``,
    kept on the workers when they take at most half of their memory
    (otherwise every pass computes them anew from the data):
    ``(centers, inertia, n_iter, labels, None)``.  ``init='auto'`` seeds by
    k-means|| when the rows fit in ``room`` bytes (measured when the data
    entered the fit: :class:`DaskRows`) and on one uniform sample otherwise
    (one pass instead of six).  Keeping the rows is decided by the workers
    alive now, which changes only memory and time; the seeding changes the
    model, so that it is not decided by a worker lost in the middle of the
    fit (dask recomputes what the lost worker held: the same model)."""
    persist = fits_on_workers(Z.nbytes)
    if init == "auto":
        init = "k-means||" if (persist if room is None else Z.nbytes <= room) else "sample"
    centers, inertia, n_iter, labels = kmeans_dask(
        Z, n_clusters, n_init=n_init, max_iter=max_iter, tol=tol,
        random_state=random_state, verbose=verbose, persist=persist, init=init)
    return centers, inertia, n_iter, labels, None


class DaskRows:
    """Rows in dask chunks (the data X): the dask implementation of the rows
    interface of :mod:`sklearn_bregman._data._data` (see there for the methods).

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)
        Checked (:func:`check_dask_array`): float64, the columns in one chunk.
    out_dtype : dtype, default=np.float64
        The dtype of :meth:`map`'s blocks (float32 for float32 data).
    """

    def __init__(self, X, out_dtype=np.float64):
        self.X = X
        self.n = X.shape[0]
        self.shape = X.shape
        self.out_dtype = out_dtype
        self.sparse = False
        # the workers' memory, once, when the data enter the fit: a choice
        # that changes the model (k-means' seeding) must not change with a
        # worker lost later in the fit
        self.room = room_on_workers()

    def take(self, idx):
        return gather(self.X, idx)

    def all(self):
        return self.X

    def in_memory(self, purpose, advice=None):
        raise ValueError(f"{purpose} needs the data in memory, but X is a dask array"
                         + (f"; {advice}." if advice else "."))

    def map(self, function, n_columns=None, dtype=None):
        return map_rows(self.X, function, n_columns, dtype or self.out_dtype)

    def max_squared_norm(self):
        return largest_squared_norm(self.X)

    def covariance(self):
        import dask.array as da

        # (a copy: results from a distributed worker can be read-only, which
        # scipy's inv refuses)
        return np.atleast_2d(np.array(da.cov(self.X, rowvar=False).compute()))

    def label_index(self, y, unlabeled):
        return _label_index(y, self.n, unlabeled)

    def low_rank_factor(self, y, kernel, rank, tol, params, method, unlabeled=-1,
                        random_state=None, memory=None):
        """The factor built on the chunks (:class:`DaskFactor`; ``memory``
        is not used: a dask array is not hashed)."""
        factor = DaskFactor(kernel, rank, tol, params, method,
                            random_state=random_state if method == "rpcholesky" else None)
        return factor.fit(self.X), DaskFactorRows(factor, self.room)

    def side_information_cholesky(self, Y, kernel, params, *, max_rank, kappa, delta, tol,
                                  center, random_state):
        """The plain path of CSI (``Y=None``) on the chunks: greedy pivots by
        the largest residual diagonal, one pass over the chunks per pivot
        (:class:`DaskFactor`, which keeps ``[G | d]`` on the workers),
        stopped by the same gain rule; G and Q lazy, Q and R from a
        tall-skinny QR (equal to the in-memory ones up to the signs of Q's
        columns and R's rows)."""
        import dask.array as da

        if Y is not None:
            raise ValueError(
                "CSIDecomposition.fit on a dask array takes y=None (plain pivoted "
                "incomplete Cholesky): choosing the pivots with the labels needs all of "
                "them in one place."
            )
        factor = DaskFactor(kernel, max_rank, tol, params, "cholesky", stop="gain").fit(self.X)
        trace = factor.residual_trace_[0]
        G = factor.training_factor()
        Gc = G - G.mean(axis=0) if center else G
        Q, R = da.linalg.tsqr(Gc)
        norms, R = da.compute(da.sqrt((Gc * Gc).sum(axis=0)), R)
        R = np.array(R)
        # a column in the span of the earlier ones: Q[:, k] = 0, R[k, k] = 0,
        # as the in-memory path
        flat = np.abs(np.diag(R)) <= 1e-12 * norms
        R[flat, flat] = 0.0
        res = CSIResult(G=G, pivots=factor.pivots_, Q=Q * (~flat), R=R,
                        approximation_error=factor.residual_trace_,
                        prediction_error=np.zeros(factor.rank_ + 1),
                        gains=np.array(factor.column_norms_) / trace)
        return res, factor._map

    def kmeans(self, n_clusters, *, n_init, max_iter, tol, random_state, verbose,
               init="auto"):
        return _kmeans(self.X, n_clusters, n_init, max_iter, tol, random_state, verbose,
                       init, self.room)


class DaskFactorRows:
    """The rows of a factor built on chunks (:class:`DaskFactor`): gathered
    or replayed on demand, never all on the client.  The rows interface of
    :mod:`sklearn_bregman._data._data`, plus ``orthonormal_rows``.
    """

    def __init__(self, factor, room=None):
        self.factor = factor
        self.room = room  # DaskRows.room: the workers' memory when the data entered
        self.n = factor._X.shape[0]
        self.shape = (self.n, factor.rank_)

    def take(self, idx):
        return self.factor.rows(idx)

    def all(self):
        return self.factor.training_factor()

    def in_memory(self, purpose, advice=None):
        raise ValueError(f"{purpose} needs the data in memory, but X is a dask array"
                         + (f"; {advice}." if advice else "."))

    def map(self, function, n_columns=None, dtype=np.float64):
        return map_rows(self.all(), function, n_columns, dtype)

    def max_squared_norm(self):
        return self.factor.max_squared_norm_

    def label_index(self, y, unlabeled):
        return _label_index(y, self.n, unlabeled)

    def orthonormal_rows(self, idx, G_idx):
        """Rows of the orthonormal basis of range(G0) at the rows ``idx``
        (whose rows of G0 are ``G_idx``): ``G0 = U S V'`` from the R of a
        tall-skinny QR of G0 (one pass), ``U = G0 V S^-1`` at the rows."""
        _, s, Vt = orthonormal_basis(self.factor.tsqr_r())
        return np.ascontiguousarray((G_idx @ Vt.T) / s), s, Vt

    def kmeans(self, n_clusters, *, n_init, max_iter, tol, random_state, verbose,
               init="auto"):
        return _kmeans(self.all(), n_clusters, n_init, max_iter, tol, random_state, verbose,
                       init, self.room)
