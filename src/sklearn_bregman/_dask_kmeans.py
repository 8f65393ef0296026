"""k-means on the rows of a dask array, run on the active dask scheduler.

The rows of ``Z`` (n x r, chunked by rows, one column chunk) are clustered
by Lloyd's algorithm (S. P. Lloyd, Least squares quantization in PCM, IEEE
Trans. Inf. Theory 28(2):129-137, 1982) from k-means++ seeds (D. Arthur,
S. Vassilvitskii, k-means++: the advantages of careful seeding, SODA 2007),
in scikit-learn's greedy variant: each new seed is the best, by the
resulting potential, of ``2 + int(log(k))`` candidates drawn with
probability proportional to the squared distance to the nearest seed so far.

Everything of size n stays on the workers (on a ``distributed.Client``
when one is active, else on the local scheduler): every pass over the data
is a set of dask tasks, one per row chunk, and the client receives only
O(k r) numbers (centres, their partial sums after a tree reduction) and
O(number of chunks) scalars.  The per-chunk arrays that live from one pass
to the next (the closest squared distances while seeding, the labels during
Lloyd's iterations) are persisted and released as soon as they are
replaced.  An iteration's labels do not depend on the previous ones (the
number of changed labels is a separate task), so the scheduler's record of
the tasks stays flat over the iterations; while seeding, each round's
distances depend on the previous round's, so the scheduler keeps O(k x
number of chunks) small task records until the seeding ends.

Differences from scikit-learn's ``KMeans``: the first seed is drawn with
``randint`` (scikit-learn draws it with ``choice``), so seeds differ for a
given ``random_state``; sums are added chunk by chunk (results agree to
rounding); the data are not centred first; and an empty cluster is given
the farthest *distinct* point not lying on its centre (see
``_relocate_empty``).

dask is an optional dependency: it is imported inside the functions, and
this module is imported only when the input is a dask array.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

#: Fan-in of the tree reduction of the per-chunk partial sums.
_SPLIT_EVERY = 8

#: A point whose squared distance to its centre is at most this times
#: ``|x|^2 + |c|^2`` lies on the centre up to rounding (a mean of copies of
#: the point differs from it by a few ulps): moving an empty cluster to it
#: would gain nothing, and moving it from one such point to another each
#: iteration would keep the run from converging.
_ON_CENTRE = (1e3 * np.finfo(np.float64).eps) ** 2


# ---------------------------------------------------------------------------
# Per-chunk work (runs on the workers; plain NumPy on one row chunk)
# ---------------------------------------------------------------------------


def _sq_dist_to(X, c):
    """Squared Euclidean distances of the rows of ``X`` to the point ``c``."""
    D = X - c
    return np.einsum("ij,ij->i", D, D)


def _candidate_minima(X, closest, candidates):
    """Row ``j``: ``min(closest, squared distance to candidates[j])``, shape (t, m)."""
    out = np.empty((candidates.shape[0], X.shape[0]))
    for j, c in enumerate(candidates):
        np.minimum(closest, _sq_dist_to(X, c), out=out[j])
    return out


def _row_sums(A):
    """Sums of the rows of a 2-D array (each candidate's potential on a chunk)."""
    return A.sum(axis=1)


def _take_row(A, j):
    """Row ``j`` of ``A`` (the chosen candidate's closest distances)."""
    return A[j].copy()


def _locate(X, closest, targets):
    """Indices and rows where the cumulative sum of ``closest`` reaches ``targets``.

    The second level of the k-means++ draw: ``targets`` are already local to
    this chunk (in ``[0, closest.sum()]``).
    """
    cum = np.cumsum(closest)
    idx = np.searchsorted(cum, targets)
    # a target past the end (the chunk's sum, rounded differently): the last
    # row of positive distance
    positive = np.flatnonzero(closest > 0)
    idx[idx >= closest.size] = positive[-1] if positive.size else closest.size - 1
    return idx, X[idx]


def _assign(X, centers):
    """Index of the nearest centre of each row (ties: the lowest index)."""
    scores = X @ centers.T
    scores *= -2.0
    scores += np.einsum("ij,ij->i", centers, centers)
    return scores.argmin(axis=1)


def _labels_chunk(X, centers):
    """Labels of one chunk (the blocks of the returned lazy label array)."""
    return _assign(X, centers).astype(np.intp, copy=False)


def _lloyd_chunk(X, centers):
    """One chunk's share of a Lloyd iteration.

    Returns
    -------
    labels : ndarray of shape (m,)
        Nearest centre of each row.
    stats : tuple
        ``(sums (k, r), counts (k,), inertia)``: per-cluster sums of the
        rows, cluster sizes and the sum of squared distances to the
        assigned centres.
    """
    k = centers.shape[0]
    m = X.shape[0]
    labels = _labels_chunk(X, centers)
    onehot = sp.csr_matrix((np.ones(m), (labels, np.arange(m))), shape=(k, m))
    sums = np.asarray(onehot @ X)
    counts = np.bincount(labels, minlength=k)
    D = X - centers[labels]
    inertia = float(np.einsum("ij,ij->", D, D))
    return labels, (sums, counts, inertia)


def _n_changed(labels, old_labels):
    """How many labels of a chunk differ from the previous iteration's (all: none)."""
    if old_labels is None:
        return labels.size
    return int(np.count_nonzero(labels != old_labels))


def _add_stats(*stats):
    """Sum of several ``(sums, counts, inertia)`` tuples."""
    return tuple(sum(parts[1:], parts[0]) for parts in zip(*stats))


def _first_distinct(rows, order, n):
    """Positions in ``order`` of the first (at most ``n``) distinct rows of ``rows[order]``."""
    _, first = np.unique(rows[order], axis=0, return_index=True)
    return np.sort(first)[:n]


def _farthest_chunk(X, labels, centers, n_far):
    """The chunk's (at most) ``n_far`` distinct rows farthest from their centres.

    Rows that lie on their centre (up to rounding, see ``_ON_CENTRE``) are
    not candidates.  Returns ``(squared distances, rows, labels)`` of those
    rows, farthest first (ties: in row order).
    """
    C = centers[labels]
    D = X - C
    dist = np.einsum("ij,ij->i", D, D)
    scale = np.einsum("ij,ij->i", X, X) + np.einsum("ij,ij->i", C, C)
    off = np.flatnonzero(dist > _ON_CENTRE * scale)
    order = off[np.argsort(-dist[off], kind="stable")]
    top = min(order.size, 4 * n_far)
    while order.size:  # widen the window until it holds n_far distinct rows
        chosen = _first_distinct(X, order[:top], n_far)
        if chosen.size >= n_far or top == order.size:
            order = order[:top][chosen]
            break
        top = min(order.size, 2 * top)
    return dist[order], X[order], labels[order]


def _merge_farthest(n_far, *parts):
    """The (at most) ``n_far`` farthest distinct rows of several chunks' candidates."""
    dist, rows, labels = (np.concatenate(field) for field in zip(*parts))
    order = np.argsort(-dist, kind="stable")  # ties: in chunk order, i.e. in row order
    order = order[_first_distinct(rows, order, n_far)]
    return dist[order], rows[order], labels[order]


# ---------------------------------------------------------------------------
# Client-side drivers
# ---------------------------------------------------------------------------


def _tree_reduce(parts, combine, *args):
    """One delayed object: ``combine(*args, *group)`` applied over a tree of ``parts``.

    ``combine`` is applied at least once (also to a single part).
    """
    from dask import delayed

    parts = list(parts)
    while True:
        parts = [delayed(combine)(*args, *parts[i:i + _SPLIT_EVERY])
                 for i in range(0, len(parts), _SPLIT_EVERY)]
        if len(parts) == 1:
            return parts[0]


def _fetch_row(blocks, offsets, i):
    """Row ``i`` of the data (one small task on the chunk that holds it)."""
    from dask import delayed

    b = int(np.searchsorted(offsets, i, side="right")) - 1
    return delayed(_locate_rows)(blocks[b], [i - offsets[b]]).compute()[0]


def _locate_rows(X, idx):
    """Rows ``idx`` of one chunk."""
    return X[np.asarray(idx)]


def _draw_candidates(blocks, closest, chunk_pot, targets):
    """The rows where the global cumulative sum of ``closest`` reaches ``targets``.

    Two levels: the chunk from the cumulative per-chunk sums (on the client),
    then the index inside the chunk from its local cumulative sum (one task
    per chunk that received targets).
    """
    import dask
    from dask import delayed

    chunk_cum = np.cumsum(chunk_pot)
    which = np.searchsorted(chunk_cum, targets)
    np.clip(which, None, len(blocks) - 1, out=which)
    # exact prefix: a positive target stays positive inside its chunk, so it
    # lands on a row of positive distance
    before = np.concatenate([[0.0], chunk_cum[:-1]])
    local = targets - before[which]
    hit = np.unique(which)
    found = dask.compute(*[delayed(_locate)(blocks[b], closest[b], local[which == b])
                           for b in hit])
    rows = np.empty((targets.size, found[0][1].shape[1]))
    for b, (_, chunk_rows) in zip(hit, found):
        rows[which == b] = chunk_rows
    return rows


def _kmeans_plusplus(blocks, offsets, n_clusters, random_state):
    """Greedy k-means++ seeds, shape (n_clusters, r).

    As scikit-learn's ``_kmeans_plusplus``: the first centre uniformly at
    random, then each new centre the best (lowest resulting potential) of
    ``2 + int(log(n_clusters))`` candidates drawn with probability
    proportional to the squared distance to the nearest centre so far.
    """
    import dask
    from dask import delayed

    n_trials = 2 + int(np.log(n_clusters))
    first = _fetch_row(blocks, offsets, random_state.randint(offsets[-1]))
    centers = np.empty((n_clusters, first.shape[0]))
    centers[0] = first
    closest = dask.persist(*[delayed(_sq_dist_to)(X, first) for X in blocks])
    chunk_pot = np.array(dask.compute(*[delayed(np.sum)(d) for d in closest]))
    for c in range(1, n_clusters):
        targets = random_state.uniform(size=n_trials) * chunk_pot.sum()
        candidates = _draw_candidates(blocks, closest, chunk_pot, targets)
        shared = delayed(candidates)  # one graph node, not a copy in every task
        minima = dask.persist(*[delayed(_candidate_minima)(X, d, shared)
                                for X, d in zip(blocks, closest)])
        pots = np.array(dask.compute(*[delayed(_row_sums)(a) for a in minima]))
        best = int(np.argmin(pots.sum(axis=0)))
        centers[c] = candidates[best]
        chunk_pot = pots[:, best]
        del closest  # the scheduler frees the previous round's distances
        closest = dask.persist(*[delayed(_take_row)(a, best) for a in minima])
        del minima
    del closest
    return centers


def _relocate_empty(blocks, labels, centers, sums, counts, empty):
    """Give each empty cluster a point far from its centre (in place on sums, counts).

    As scikit-learn: the points farthest from the centre they were assigned
    to (``centers``, the centres of this iteration's assignment) leave their
    cluster and each becomes an empty cluster's only member.  Unlike
    scikit-learn, distinct points are preferred, so that two empty clusters
    do not receive copies of one point, and points lying on their centre are
    not taken: when there are not enough others (fewer distinct points than
    clusters), the remaining clusters stay empty and keep their centres.
    The candidates come from one task per chunk and a tree reduction, so
    the client receives ``len(empty)`` rows at most.
    """
    from dask import delayed

    n_empty = empty.size
    shared = delayed(centers)
    found = [delayed(_farthest_chunk)(X, lab, shared, n_empty)
             for X, lab in zip(blocks, labels)]
    _, rows, owner = _tree_reduce(found, _merge_farthest, n_empty).compute()
    for new, row, old in zip(empty, rows, owner):  # rows may be fewer than empty
        sums[old] -= row
        counts[old] -= 1
        sums[new] = row
        counts[new] = 1


def _lloyd_pass(blocks, centers, old_labels=None):
    """One pass over the data: assignment to ``centers`` and the summed statistics.

    ``old_labels`` is the previous iteration's per-chunk labels (None for
    a chunk in the first iteration), or None for the final pass, which
    keeps no labels.  Returns the per-chunk labels, persisted (None for
    the final pass), the summed ``sums, counts, inertia`` and the number of
    changed labels.  The new labels do not depend on the old ones, so that the
    scheduler does not keep every iteration's lineage; the changed counts
    are separate small tasks.
    """
    import dask
    from dask import delayed

    centers = delayed(centers)  # one graph node, not a copy in every task
    parts = [delayed(_lloyd_chunk, nout=2)(X, centers) for X in blocks]
    stats = [p[1] for p in parts]
    if old_labels is None:
        (sums, counts, inertia), = dask.compute(_tree_reduce(stats, _add_stats))
        return None, sums, counts, inertia, sum(X.shape[0] for X in blocks)
    nb = len(blocks)
    persisted = dask.persist(*[p[0] for p in parts], *stats)
    labels, stats = list(persisted[:nb]), persisted[nb:]
    total, *changed = dask.compute(
        _tree_reduce(stats, _add_stats), *[delayed(_n_changed)(new, old)
                            for new, old in zip(labels, old_labels)])
    sums, counts, inertia = total
    return labels, sums, counts, inertia, sum(changed)


def _lloyd(blocks, centers, max_iter, tol, verbose):
    """Lloyd's iterations from ``centers``; scikit-learn's ``_kmeans_single_lloyd``.

    ``tol`` is absolute here (already scaled by the mean feature variance).

    Returns
    -------
    centers : ndarray of shape (k, r)
    inertia : float
        Sum of squared distances of the rows to the nearest final centre.
    n_iter : int
    counts : ndarray of shape (k,)
        Cluster sizes under the final centres.
    """
    labels = [None] * len(blocks)
    for i in range(max_iter):
        new_labels, sums, counts, inertia, changed = _lloyd_pass(blocks, centers, labels)
        empty = np.flatnonzero(counts == 0)
        if empty.size:
            _relocate_empty(blocks, new_labels, centers, sums, counts, empty)
        new_centers = centers.copy()
        filled = counts > 0
        new_centers[filled] = sums[filled] / counts[filled, None]
        if verbose:
            print(f"Iteration {i}, inertia {inertia}.")
        shift = float(((new_centers - centers) ** 2).sum())
        centers = new_centers
        del labels  # the scheduler frees the previous iteration's labels
        labels = new_labels
        if changed == 0:
            if verbose:
                print(f"Converged at iteration {i}: strict convergence.")
            break
        if shift <= tol:
            if verbose:
                print(f"Converged at iteration {i}: center shift {shift} within "
                      f"tolerance {tol}.")
            break
    # the labels, inertia and sizes of the final centres (one more pass)
    del labels
    _, _, counts, inertia, _ = _lloyd_pass(blocks, centers)
    return centers, inertia, i + 1, counts


def _check_params(Z, n_clusters, n_init, max_iter, tol):
    import dask.array as da

    if not isinstance(Z, da.Array):
        raise TypeError(f"Z must be a dask array, got {type(Z).__name__}.")
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D, got {Z.ndim} dimension(s).")
    if any(np.isnan(s) for s in Z.shape):
        raise ValueError("Z has unknown chunk sizes; call Z.compute_chunk_sizes() first.")
    for name, value, low in [("n_clusters", n_clusters, 1), ("n_init", n_init, 1),
                             ("max_iter", max_iter, 1)]:
        if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    if not isinstance(tol, Real) or not tol >= 0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}.")
    if Z.shape[0] < n_clusters:
        raise ValueError(f"n_samples={Z.shape[0]} should be >= n_clusters={n_clusters}.")


def kmeans_dask(Z, n_clusters, *, n_init=10, max_iter=300, tol=1e-4, random_state=None,
                verbose=0, persist=True):
    """k-means on the rows of a dask array, without collecting it on the client.

    Greedy k-means++ seeding, then Lloyd's iterations, ``n_init`` times; the
    run with the lowest inertia is returned.  Every pass over ``Z`` runs as
    tasks on the active dask scheduler (a ``distributed.Client`` when one
    exists); the client holds the centres and per-chunk scalars only.

    Parameters
    ----------
    Z : dask.array.Array of shape (n, r)
        The points, chunked by rows (column chunks are merged into one).
        Cast to float64 and (``persist``) persisted on the workers for the
        duration of the call, since every pass reads it.
    n_clusters : int
        Number of clusters k, at most n.
    n_init : int, default=10
        Number of seedings; the run with the lowest inertia is kept.
    max_iter : int, default=300
        Maximum number of Lloyd iterations per run.
    tol : float, default=1e-4
        Relative tolerance, as scikit-learn's: a run stops when the sum of
        the squared centre shifts of an iteration is at most
        ``tol * mean(var(Z, axis=0))`` (computed once, with dask).  A run
        also stops when no label changed in an iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the k-means++ draws (:func:`sklearn.utils.check_random_state`).
    verbose : int, default=0
        If positive, print one line per iteration (inertia of the
        iteration's assignment) and the reason a run stopped.
    persist : bool, default=True
        Keep ``Z`` on the workers during the call; ``False`` for a ``Z``
        larger than the cluster's memory (a lazy map of data that does not
        fit there): each pass then computes its chunks anew.

    Returns
    -------
    centers : ndarray of shape (n_clusters, r)
        Centres of the best run.  An empty cluster takes, as in
        scikit-learn, the point farthest from the centre it was assigned to
        (when several clusters are empty, the farthest distinct points; a
        point lying on its centre is never taken, so with fewer distinct
        points than clusters some clusters stay empty at their centres).
    inertia : float
        Sum of squared distances of the rows to their nearest centre.
    n_iter : int
        Lloyd iterations of the best run.
    labels : dask.array.Array of shape (n,)
        Index of each row's nearest centre, lazy (chunked as ``Z``'s rows).

    Warns
    -----
    ConvergenceWarning
        When fewer than ``n_clusters`` clusters are non-empty at the end
        (possible when ``Z`` has fewer than ``n_clusters`` distinct rows).
    """
    import dask.array as da

    _check_params(Z, n_clusters, n_init, max_iter, tol)
    random_state = check_random_state(random_state)
    if Z.numblocks[1] != 1:
        Z = Z.rechunk({1: -1})
    Z = Z.astype(np.float64)
    Zp = Z.persist() if persist else Z
    # chunks of no rows take no part (a draw could land on them)
    sizes = np.asarray(Z.chunks[0], dtype=np.int64)
    blocks = [X for X, m in zip(Zp.to_delayed().ravel(), sizes) if m > 0]
    offsets = np.concatenate([[0], np.cumsum(sizes[sizes > 0])])
    tol_abs = float(da.var(Zp, axis=0).mean().compute()) * tol if tol > 0 else 0.0

    best = None
    for run in range(n_init):
        seeds = _kmeans_plusplus(blocks, offsets, n_clusters, random_state)
        if verbose:
            print(f"Initialization complete (run {run}).")
        centers, inertia, n_iter, counts = _lloyd(blocks, seeds, max_iter, tol_abs, verbose)
        if best is None or inertia < best[1]:
            best = (centers, inertia, n_iter, counts)
    del blocks, Zp
    centers, inertia, n_iter, counts = best

    n_distinct = int(np.count_nonzero(counts))
    if n_distinct < n_clusters:
        warnings.warn(f"Number of distinct clusters ({n_distinct}) found smaller than "
                      f"n_clusters ({n_clusters}). Possibly due to duplicate points in Z.",
                      ConvergenceWarning, stacklevel=2)
    labels = Z.map_blocks(_labels_chunk, centers, dtype=np.intp, drop_axis=1)
    return centers, float(inertia), int(n_iter), labels
