"""k-means on the rows of a dask array, run on the active dask scheduler.

The rows of ``Z`` (n x r, chunked by rows, one column chunk) are clustered
by Lloyd's algorithm (S. P. Lloyd, Least squares quantization in PCM, IEEE
Trans. Inf. Theory 28(2):129-137, 1982) from seeds chosen by

- ``init='k-means||'`` (the default): k-means|| (B. Bahmani, B. Moseley,
  A. Vattani, R. Kumar, S. Vassilvitskii, Scalable k-means++, PVLDB
  5(7):622-633, 2012, Algorithm 2): a first centre drawn uniformly, then
  ``n_rounds`` rounds (5 by default: the paper's Corollary 3 asks for
  O(log psi) rounds, psi the potential of the first centre, in the worst
  case, and its experiments, Section 5, find a few enough in practice),
  each of which samples every row independently with
  probability ``min(1, l d^2(x, C) / phi_X(C))`` (oversampling factor
  ``l``, 2k by default; about ``l`` new candidates per round); the
  candidates ``C`` are then weighted by the number of rows nearest to each
  (step 7) and reclustered into k seeds in memory (step 8) by
  scikit-learn's :class:`~sklearn.cluster.KMeans` with ``sample_weight``
  (its weighted greedy k-means++, then weighted Lloyd iterations:
  Theorem 1 of the paper holds for any alpha-approximation in step 8),
  each candidate represented by the mean of the rows nearest to it,
  summed in the pass that counts them (see :func:`_recluster`).  A round
  is one pass over the data.
- ``init='k-means++'``: the exact greedy k-means++ of scikit-learn (D.
  Arthur, S. Vassilvitskii, k-means++: the advantages of careful seeding,
  SODA 2007; each new seed the best, by the resulting potential, of ``2 +
  int(log(k))`` candidates drawn with probability proportional to the
  squared distance to the nearest seed so far): one pass per seed and
  restart, kept for comparison and for small data.

- ``init='sample'``: every run seeded by scikit-learn's ``KMeans``
  (k-means++ and Lloyd, one restart per run) on the same uniform sample of
  about ``sample_size`` rows, drawn in one pass (each row kept when its
  uniform of :func:`_uniforms` falls below ``sample_size / n``): one
  seeding pass in all, and Lloyd's iterations start near their end.  For
  an embedding that is computed anew at every pass, the cheapest seeding;
  a cluster of fewer than about ``n / sample_size`` rows may get no seed
  (Lloyd's iterations then rarely find it), which k-means|| avoids.

**Passes.**  A *pass* reads every row chunk of ``Z`` once: one task per
chunk, which computes the chunk once (for a lazy ``Z``, such as a learned
embedding mapped from the data, the whole map) and updates from it the
statistics of *every* restart (``n_init``): its distances to each run's
candidates or centres.  So the restarts cost arithmetic, not passes: a call
makes ``n_rounds + 1`` seeding passes (k-means||), one pass per Lloyd
iteration of the longest run, and one last pass for the labels of the final
centres, unless every run ended with no label changed (then the last
iteration's assignment is the final one).  A run stopped by the tolerance
takes its final assignment in the next iteration of the others.  Besides,
the first centres are read from the chunks that hold them (at most
``n_init`` chunks), a chunk that holds more sampled rows than it kept is
read again (rare: it keeps four times its share), and an empty cluster
costs one more pass.

Everything of size n stays on the workers (on a ``distributed.Client``
when one is active, else on the local scheduler), and nothing of size n
lives from one pass to the next: the client receives only O(k r) numbers
per run (centres, partial sums after a tree reduction), the candidates and
O(number of chunks) scalars.  The sampling of a round is drawn from
uniforms that depend only on the seed and the global row index
(:func:`_uniforms`), so that a row's fate does not depend on the chunking
nor on where the chunk runs; a row x is sampled when ``phi / l <
d^2(x, C) / u_x``, and each chunk keeps the rows of largest
``d^2(x, C) / u_x`` (the sample's candidates) until the pass has summed
``phi``.  A Lloyd iteration recomputes the labels of the previous
centres in the same task to count the changed ones, so no labels are kept
between passes and the scheduler's record of the tasks stays flat over the
iterations.

Differences from scikit-learn's ``KMeans``: the seeding (k-means|| by
default; with ``'k-means++'`` the first seed is drawn with ``randint``,
scikit-learn draws it with ``choice``), so seeds differ for a given
``random_state``; sums are added chunk by chunk (results agree to
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

from .._utils._warnings import warn

#: Fan-in of the tree reduction of the per-chunk partial sums.
_SPLIT_EVERY = 8

#: A point whose squared distance to its centre is at most this times
#: ``|x|^2 + |c|^2`` lies on the centre up to rounding (a mean of copies of
#: the point differs from it by a few ulps): moving an empty cluster to it
#: would gain nothing, and moving it from one such point to another each
#: iteration would keep the run from converging.
_ON_CENTRE = (1e3 * np.finfo(np.float64).eps) ** 2

#: Restarts of the in-memory reclustering of the k-means|| candidates (step
#: 8): a few milliseconds on some 10 k weighted points, while a poor local
#: optimum there costs Lloyd iterations over all the data.
_RECLUSTER_INIT = 10

#: Initialisations of :func:`kmeans_dask`.
INITS = ("k-means||", "k-means++", "sample")

# SplitMix64 (G. L. Steele, D. Lea, C. H. Flood, Fast splittable
# pseudorandom number generators, OOPSLA 2014): the constants of its output
# function and of its state increment.
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


# ---------------------------------------------------------------------------
# Per-chunk work (runs on the workers; plain NumPy on one row chunk)
# ---------------------------------------------------------------------------


def _sq_dist_to(X, c):
    """Squared Euclidean distances of the rows of ``X`` to the point ``c``."""
    D = X - c
    return np.einsum("ij,ij->i", D, D)


def _sq_norms(X):
    """Squared norms of the rows of ``X``."""
    return np.einsum("ij,ij->i", X, X)


def _uniforms(seed, start, m):
    """Uniforms in (0, 1) of the global rows ``start, ..., start + m - 1``.

    SplitMix64's output function of ``seed + (i + 1) * gamma`` for row
    ``i``: a counter-based generator, so the uniform of a row depends only
    on ``seed`` and the row's global index, not on the chunk that holds it.
    """
    with np.errstate(over="ignore"):
        z = np.arange(start + 1, start + m + 1, dtype=np.uint64) * _GAMMA + np.uint64(seed)
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z ^= z >> np.uint64(31)
    return ((z >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0 ** -53


def _nearest_candidates(X, x_sq, C):
    """Squared distance to, and index of, the nearest row of ``C`` (ties: the lowest).

    By ``|x|^2 - 2 x.c + |c|^2`` (one matrix product; ``x_sq`` holds the
    ``|x|^2``), clipped at zero: a row equal to a candidate gets a few ulps
    of ``|x|^2`` instead of zero, which neither the sampling of k-means||
    nor the choice of the nearest candidate minds.
    """
    S = X @ C.T
    S *= -2.0
    S += _sq_norms(C)
    nearest = S.argmin(axis=1)
    d = np.take_along_axis(S, nearest[:, None], axis=1)[:, 0]
    d += x_sq
    np.maximum(d, 0.0, out=d)
    return d, nearest


def _seeding_chunk(X, start, runs, n_keep):
    """One chunk's share of a k-means|| pass, for every run (Algorithm 2).

    Parameters
    ----------
    X : ndarray of shape (m, r)
        The chunk; its first row is the global row ``start``.
    start : int
    runs : list of (ndarray of shape (t, r), int or None)
        Per run: its candidates so far ``C`` and the seed of this round's
        uniforms (None: no sampling follows this pass, the last one).
    n_keep : int
        Rows kept per run for the sampling (those of the largest key).

    Returns
    -------
    stats : list of tuple
        Per run ``(phi, weights, sums)``: the chunk's potential ``sum
        d^2(x, C)``, how many of its rows have each candidate as their
        nearest (step 7) and, in the last pass (no seed), the sums of those
        rows, shape (t, r) (else 0.0).
    kept : list of tuple or None
        Per run ``(keys, rows, points)``: the (at most ``n_keep``) rows of
        largest key ``d^2(x, C) / u_x``, largest first, their global
        indices and coordinates; None when the run samples nothing.
    """
    x_sq = _sq_norms(X)
    stats, kept = [], []
    for C, seed in runs:
        d, nearest = _nearest_candidates(X, x_sq, C)
        weights = np.bincount(nearest, minlength=C.shape[0])
        if seed is None:
            stats.append((float(d.sum()), weights, _label_sums(X, nearest, C.shape[0])))
            kept.append(None)
            continue
        stats.append((float(d.sum()), weights, 0.0))
        keys = d / _uniforms(seed, start, X.shape[0])
        top = (np.argpartition(-keys, n_keep - 1)[:n_keep] if n_keep < keys.size
               else np.arange(keys.size))
        top = top[np.argsort(-keys[top], kind="stable")]
        kept.append((keys[top], start + top, X[top]))
    return stats, kept


def _sampled(part, thresholds, n_rows):
    """The rows of one chunk's kept table whose key exceeds each run's threshold.

    ``part`` is a :func:`_seeding_chunk` result, ``n_rows`` the chunk's
    number of rows.  Returns per run ``(global rows, points, [complete])``,
    in row order; ``complete`` is False when the chunk may hold more sampled
    rows than it kept (every kept key above the threshold and rows left
    out): the chunk's sample is then recomputed (:func:`_sample_chunk`).
    """
    out = []
    for table, thr in zip(part[1], thresholds):
        if table is None or thr is None:
            out.append(None)
            continue
        keys, rows, points = table
        hit = keys > thr
        complete = not (hit.all() and keys.size < n_rows)
        hit = np.flatnonzero(hit)
        hit = hit[np.argsort(rows[hit], kind="stable")]  # in row order
        out.append((rows[hit], points[hit], [complete]))
    return out


def _sample_chunk(X, start, C, seed, threshold):
    """Every row of one chunk with ``d^2(x, C) / u_x > threshold``: ``(global rows, points)``."""
    d, _ = _nearest_candidates(X, _sq_norms(X), C)
    hit = np.flatnonzero(d / _uniforms(seed, start, X.shape[0]) > threshold)
    return start + hit, X[hit]


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


def _label_sums(X, labels, k):
    """Sums of the rows of ``X`` that carry each of the ``k`` labels, shape (k, r)."""
    m = X.shape[0]
    onehot = sp.csr_matrix((np.ones(m), (labels, np.arange(m))), shape=(k, m))
    return np.asarray(onehot @ X)


def _cluster_stats(X, labels, centers):
    """``(sums (k, r), counts (k,), inertia)`` of a chunk under ``labels``:
    per-cluster sums of the rows, cluster sizes and the sum of squared
    distances to the assigned centres."""
    k = centers.shape[0]
    sums = _label_sums(X, labels, k)
    counts = np.bincount(labels, minlength=k)
    D = X - centers[labels]
    return sums, counts, float(np.einsum("ij,ij->", D, D))


def _lloyd_chunk(X, runs, moments=False):
    """One chunk's share of a Lloyd iteration, for every run.

    Parameters
    ----------
    X : ndarray of shape (m, r)
    runs : list of (ndarray of shape (k, r), ndarray of shape (k, r) or None)
        Per run: the centres of this iteration and those of the previous
        one (None: the first iteration, or the final assignment).
    moments : bool
        Also return the chunk's column moments (for the tolerance).

    Returns
    -------
    stats : list of tuple
        Per run ``(sums (k, r), counts (k,), inertia, changed)``: the
        statistics of the nearest-centre assignment and how many rows have
        another nearest centre than under the previous centres (all rows
        when there are none).
    moments : tuple or None
        ``(m, column means, column sums of squared deviations)``.
    """
    stats = []
    for centers, previous in runs:
        labels = _assign(X, centers)
        changed = (X.shape[0] if previous is None
                   else int(np.count_nonzero(labels != _assign(X, previous))))
        stats.append(_cluster_stats(X, labels, centers) + (changed,))
    if not moments:
        return stats, None
    mean = X.mean(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    return stats, (X.shape[0], mean, ((X - mean) ** 2).sum(axis=0))


def _add_runs(*parts):
    """Sum, run by run, of several chunks' per-run statistics (tuples of
    numbers and arrays, or ``(stats, moments)`` pairs of Lloyd's chunks)."""
    return [tuple(sum(field[1:], field[0]) for field in zip(*run)) for run in zip(*parts)]


def _add_lloyd(*parts):
    """Combine several :func:`_lloyd_chunk` results: run statistics summed,
    column moments merged (Chan, Golub & LeVeque's pairwise update)."""
    stats = _add_runs(*[p[0] for p in parts])
    moments = None
    for part in parts:
        if part[1] is None:
            continue
        if moments is None:
            moments = part[1]
            continue
        (na, ma, sa), (nb, mb, sb) = moments, part[1]
        n = na + nb
        if n:
            delta = mb - ma
            moments = (n, ma + delta * (nb / n), sa + sb + delta ** 2 * (na * nb / n))
    return stats, moments


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


def _farthest_runs(X, queries):
    """:func:`_farthest_chunk` for several runs, each ``(centers, n_far)``,
    the labels being the nearest centres (recomputed, as in the pass)."""
    return [_farthest_chunk(X, _assign(X, centers), centers, n_far)
            for centers, n_far in queries]


def _merge_farthest(n_far, *parts):
    """The (at most) ``n_far`` farthest distinct rows of several chunks' candidates."""
    dist, rows, labels = (np.concatenate(field) for field in zip(*parts))
    order = np.argsort(-dist, kind="stable")  # ties: in chunk order, i.e. in row order
    order = order[_first_distinct(rows, order, n_far)]
    return dist[order], rows[order], labels[order]


def _merge_farthest_runs(n_fars, *parts):
    """:func:`_merge_farthest` run by run."""
    return [_merge_farthest(n_far, *run) for n_far, run in zip(n_fars, zip(*parts))]


def _concat_samples(*parts):
    """Concatenate, run by run and in chunk order, several chunks' sampled rows."""
    out = []
    for run in zip(*parts):
        if run[0] is None:
            out.append(None)
            continue
        out.append((np.concatenate([p[0] for p in run]),
                    np.concatenate([p[1] for p in run]),
                    [flag for p in run for flag in p[2]]))
    return out


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


def _locate_rows(X, idx):
    """Rows ``idx`` of one chunk."""
    return X[np.asarray(idx)]


def _gather_rows(blocks, offsets, idx):
    """Rows ``idx`` (global) of the data, shape (len(idx), r): one small task
    per chunk that holds any of them, one compute."""
    import dask
    from dask import delayed

    idx = np.asarray(idx, dtype=np.int64)
    which = np.searchsorted(offsets, idx, side="right") - 1
    hit = np.unique(which)
    found = dask.compute(*[delayed(_locate_rows)(blocks[b], idx[which == b] - offsets[b])
                           for b in hit])
    rows = np.empty((idx.size, found[0].shape[1]))
    for b, chunk_rows in zip(hit, found):
        rows[which == b] = chunk_rows
    return rows


def _fetch_row(blocks, offsets, i):
    """Row ``i`` of the data (one small task on the chunk that holds it)."""
    return _gather_rows(blocks, offsets, [i])[0]


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
    """Greedy k-means++ seeds of one run, shape (n_clusters, r).

    As scikit-learn's ``_kmeans_plusplus``: the first centre uniformly at
    random, then each new centre the best (lowest resulting potential) of
    ``2 + int(log(n_clusters))`` candidates drawn with probability
    proportional to the squared distance to the nearest centre so far.
    One pass over the data per centre; the closest distances are kept on
    the workers from one pass to the next.
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


def _n_keep(m, n, ell):
    """Rows a chunk of ``m`` of the ``n`` rows keeps per run for the sampling:
    four times its expected share of the ``ell`` sampled rows, and four."""
    return int(min(m, np.ceil(4.0 * ell * m / n) + 4))


def _seeding_pass(blocks, offsets, runs, ell):
    """One k-means|| pass: every run's potential and candidate weights, and
    the rows each run samples for its next round.

    ``runs`` is a list of ``(candidates, seed or None)`` (see
    :func:`_seeding_chunk`).  Returns ``(phi, weights, sums, sampled)`` per
    run: the potential of the candidates, the number of rows nearest to
    each candidate and (last pass) their sums, and ``(global rows,
    points)`` of the rows sampled with probability ``min(1, ell d^2 /
    phi)`` (None when the run's seed is None or its potential is zero).
    """
    import dask
    from dask import delayed

    n = int(offsets[-1])
    shared = delayed(runs)  # one graph node, not a copy in every task
    parts = dask.persist(*[
        delayed(_seeding_chunk)(X, int(offsets[b]), shared,
                                _n_keep(int(offsets[b + 1] - offsets[b]), n, ell))
        for b, X in enumerate(blocks)])
    totals, = dask.compute(_tree_reduce([p[0] for p in parts], _add_runs))
    phis = [float(t[0]) for t in totals]
    thresholds = [phi / ell if seed is not None and phi > 0 else None
                  for phi, (_, seed) in zip(phis, runs)]
    samples = [None] * len(runs)
    if any(t is not None for t in thresholds):
        sizes = np.diff(offsets)
        found, = dask.compute(_tree_reduce(
            [delayed(_sampled)(p, thresholds, int(m)) for p, m in zip(parts, sizes)],
            _concat_samples))
        # chunks that kept too few rows: their sample recomputed exactly
        redo = [(s, b) for s, run in enumerate(found) if run is not None
                for b, complete in enumerate(run[2]) if not complete]
        extra = dask.compute(*[delayed(_sample_chunk)(blocks[b], int(offsets[b]), runs[s][0],
                                                      runs[s][1], thresholds[s])
                               for s, b in redo])
        for s, run in enumerate(found):
            if run is None:
                continue
            rows, points, complete = run
            redone = [b for b, ok in enumerate(complete) if not ok]
            if redone:  # drop those chunks' partial samples, add the full ones
                owner = np.searchsorted(offsets, rows, side="right") - 1
                keep = ~np.isin(owner, redone)
                more = [e for (t, _), e in zip(redo, extra) if t == s]
                rows = np.concatenate([rows[keep]] + [e[0] for e in more])
                points = np.concatenate([points[keep]] + [e[1] for e in more])
                order = np.argsort(rows, kind="stable")
                rows, points = rows[order], points[order]
            samples[s] = (rows, points)
    del parts
    return [(phi, t[1], t[2], sample) for phi, t, sample in zip(phis, totals, samples)]


def _recluster(points, weights, sums, n_clusters, seed):
    """Step 8 of k-means||: the weighted candidates clustered into
    ``n_clusters`` seeds in memory, by scikit-learn's weighted k-means++
    followed by its weighted Lloyd iterations, the best of
    ``_RECLUSTER_INIT`` restarts (``KMeans(n_init=10)``).

    Each candidate stands for its cell, the rows nearest to it (step 7:
    ``weights``), and what is reclustered is the mean of each cell
    (``sums / weights``; the candidate itself when the sums are not known)
    rather than the candidate: for a partition of the data into unions of
    cells, the k-means cost is the weighted cost of the cells' means plus
    the within-cell costs, which do not depend on the partition, so the
    seeds are the exact means of the data of such a partition (a Lloyd
    step's worth better than the candidates' own weighted means, at no
    further pass: the sums come from the pass that counts the weights).
    Empty cells (a candidate duplicating another) take no part.

    With no more cells than clusters (possible when the data have few
    distinct rows), the first cell fills the missing seeds: Lloyd's
    iterations then move those empty clusters to the farthest points.
    """
    from sklearn.cluster import KMeans

    full = weights > 0
    if np.ndim(sums):
        points = sums[full] / weights[full, None]
    else:
        points = points[full]
    weights = weights[full].astype(np.float64)
    if points.shape[0] <= n_clusters:
        fill = np.repeat(points[:1], n_clusters - points.shape[0], axis=0)
        return np.vstack([points, fill])
    with warnings.catch_warnings():
        # fewer distinct cells than clusters: duplicated seeds, which
        # Lloyd's iterations relocate (and kmeans_dask reports at the end)
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters, init="k-means++", n_init=_RECLUSTER_INIT, random_state=seed)
        km.fit(points, sample_weight=weights)
    return km.cluster_centers_


def _uniform_sample_chunk(X, start, seed, p):
    """The rows of one chunk whose uniform (:func:`_uniforms`, by global row
    index) is below ``p``."""
    return np.asarray(X)[_uniforms(seed, start, X.shape[0]) < p]


def _sample_seeds(blocks, offsets, n_clusters, n_runs, random_state, sample_size):
    """Seeds of ``n_runs`` runs from one uniform sample of the rows (one pass).

    Each row is kept with probability ``p = min(1, sample_size / n)``
    (uniforms by global row index, so the sample does not depend on the
    chunking); each run's seeds are the centres of scikit-learn's
    ``KMeans(n_init=1)`` on the sample, with its own seed.  A sample of
    fewer rows than clusters (possible only when ``sample_size`` is close
    to ``n_clusters``) is completed with rows drawn uniformly.
    """
    import dask
    from dask import delayed
    from sklearn.cluster import KMeans

    n = int(offsets[-1])
    p = min(1.0, sample_size / n)
    seed = int(random_state.randint(np.iinfo(np.int64).max, dtype=np.int64))
    parts = dask.compute(*[delayed(_uniform_sample_chunk)(X, int(offsets[b]), seed, p)
                           for b, X in enumerate(blocks)])
    S = np.concatenate(parts)
    if S.shape[0] < n_clusters:  # (a sample of about sample_size >= 10 k rows: rare)
        S = np.concatenate([S, _gather_rows(
            blocks, offsets, random_state.randint(n, size=n_clusters - S.shape[0]))])
    seeds = []
    for rs in random_state.randint(np.iinfo(np.int32).max, size=n_runs):
        with warnings.catch_warnings():
            # fewer distinct rows than clusters: Lloyd's iterations relocate
            warnings.simplefilter("ignore", ConvergenceWarning)
            seeds.append(KMeans(n_clusters, n_init=1, random_state=int(rs)).fit(S)
                         .cluster_centers_)
    return seeds


def _kmeans_parallel(blocks, offsets, n_clusters, n_runs, random_state, *, n_rounds=5,
                     oversampling_factor=2.0, verbose=0):
    """k-means|| seeds of ``n_runs`` runs, all in the same passes (Algorithm 2).

    Per run: step 1, a first candidate uniformly at random (read from the
    chunks that hold them, all runs in one compute); steps 3-6, ``n_rounds``
    rounds, each one pass over the data that computes every row's squared
    distance to the run's candidates and samples it with probability
    ``min(1, l d^2(x, C) / phi_X(C))``, ``l = oversampling_factor *
    n_clusters``; step 7, the weights (and the sums of the rows of each
    candidate's cell) from one more pass (or from the pass after which no
    run can sample: every potential zero); step 8, :func:`_recluster`.
    Draws from ``random_state``: the first rows, then one seed of uniforms
    per round and run, then one seed per run for the reclustering.

    Returns
    -------
    seeds : list of ndarray of shape (n_clusters, r)
    candidates : list of tuple
        Per run ``(global rows, points, weights, sums)`` of the candidates:
        weights sum to n, sums of shape (t, r) (0.0 after an early stop).
    """
    n = int(offsets[-1])
    ell = float(oversampling_factor) * n_clusters
    first = random_state.randint(n, size=n_runs)
    points = _gather_rows(blocks, offsets, first)
    cands = [(first[s:s + 1].astype(np.int64), points[s:s + 1]) for s in range(n_runs)]
    for t in range(n_rounds + 1):
        sample = t < n_rounds
        seeds = (random_state.randint(np.iinfo(np.int64).max, size=n_runs, dtype=np.int64)
                 if sample else [None] * n_runs)
        out = _seeding_pass(blocks, offsets, [(c[1], None if s is None else int(s))
                                              for c, s in zip(cands, seeds)], ell)
        cells = [(w, sums) for _, w, sums, _ in out]
        for s, (phi, _, _, sampled) in enumerate(out):
            if verbose:
                print(f"k-means|| pass {t}, potential {phi} with {cands[s][0].size} "
                      f"candidates (run {s}).")
            if sampled is None:
                continue
            rows, pts = sampled
            new = ~np.isin(rows, cands[s][0])  # a candidate is at distance ~0: not again
            cands[s] = (np.concatenate([cands[s][0], rows[new]]),
                        np.vstack([cands[s][1], pts[new]]))
        if all(sampled is None for _, _, _, sampled in out):
            break  # nothing left to sample (every potential zero): these weights are final
    recluster_seeds = random_state.randint(np.iinfo(np.int32).max, size=n_runs)
    seeds = [_recluster(c[1], w, sums, n_clusters, int(rs))
             for c, (w, sums), rs in zip(cands, cells, recluster_seeds)]
    return seeds, [(c[0], c[1], w, sums) for c, (w, sums) in zip(cands, cells)]


def _relocate_empty(blocks, entries):
    """Give each empty cluster a point far from its centre (in place on sums, counts).

    ``entries`` holds, per run that has empty clusters, ``(centers, sums,
    counts, empty)``.  As scikit-learn: the points farthest from the centre
    they were assigned to (``centers``, the centres of this iteration's
    assignment) leave their cluster and each becomes an empty cluster's
    only member.  Unlike scikit-learn, distinct points are preferred, so
    that two empty clusters do not receive copies of one point, and points
    lying on their centre are not taken: when there are not enough others
    (fewer distinct points than clusters), the remaining clusters stay
    empty and keep their centres.  One pass for all the runs (one task per
    chunk, the labels recomputed there) and a tree reduction, so the
    client receives ``len(empty)`` rows per run at most.
    """
    from dask import delayed

    queries = delayed([(centers, empty.size) for centers, _, _, empty in entries])
    n_fars = [empty.size for _, _, _, empty in entries]
    found = [delayed(_farthest_runs)(X, queries) for X in blocks]
    merged = _tree_reduce(found, _merge_farthest_runs, n_fars).compute()
    for (_, sums, counts, empty), (_, rows, owner) in zip(entries, merged):
        for new, row, old in zip(empty, rows, owner):  # rows may be fewer than empty
            sums[old] -= row
            counts[old] -= 1
            sums[new] = row
            counts[new] = 1


def _lloyd_pass(blocks, runs, moments=False):
    """One pass over the data: every run's assignment and summed statistics.

    ``runs`` is a list of ``(centers, previous centers or None)``.  Returns
    the list, per run, of ``(sums, counts, inertia, changed)`` (see
    :func:`_lloyd_chunk`) and, with ``moments``, the column moments ``(n,
    means, sums of squared deviations)`` of the data (else None).  Nothing
    stays on the workers after it.
    """
    import dask
    from dask import delayed

    shared = delayed(runs)  # one graph node, not a copy in every task
    parts = [delayed(_lloyd_chunk)(X, shared, moments) for X in blocks]
    (stats, col_moments), = dask.compute(_tree_reduce(parts, _add_lloyd))
    return stats, col_moments


def _lloyd_runs(blocks, starts, max_iter, tol, verbose, *, relative_tol=False):
    """Lloyd's iterations of several runs in the same passes; scikit-learn's
    ``_kmeans_single_lloyd`` for each.

    Iteration ``i`` of every run still going is one pass; a run stops when
    no label changed (strict convergence: its last assignment is the final
    one), when the squared shift of its centres is at most ``tol`` or after
    ``max_iter`` iterations (then the labels of its final centres come from
    the next pass, shared with the other runs' iterations, or from a last
    pass).  ``tol`` is absolute, or with ``relative_tol`` a fraction of
    the mean column variance, measured in the first pass.

    Returns
    -------
    list of tuple
        Per run ``(centers, inertia, n_iter, counts)``: the final centres,
        the sum of squared distances of the rows to the nearest of them,
        the iterations and the cluster sizes under them.
    """
    n_runs = len(starts)
    centers = [np.array(c, dtype=np.float64) for c in starts]
    previous = [None] * n_runs
    n_iter = [0] * n_runs
    going = list(range(n_runs))  # runs that iterate
    closing = []  # runs whose final assignment is due
    results = [None] * n_runs
    tol_abs = None if relative_tol and tol > 0 else (0.0 if relative_tol else tol)
    while going or closing:
        entries = [(s, centers[s], previous[s]) for s in going] + \
                  [(s, centers[s], None) for s in closing]
        stats, moments = _lloyd_pass(blocks, [(c, p) for _, c, p in entries],
                                     moments=tol_abs is None)
        if moments is not None:
            tol_abs = float((moments[2] / moments[0]).mean()) * tol
        for s, (_, counts, inertia, _) in zip(closing, stats[len(going):]):
            results[s] = (centers[s], inertia, n_iter[s], counts)
        closing = []
        stats = stats[:len(going)]
        empties = [(s, np.flatnonzero(st[1] == 0)) for s, st in zip(going, stats)]
        moved = {s for s, empty in empties if empty.size}
        if moved:
            _relocate_empty(blocks, [(centers[s], st[0], st[1], empty)
                                     for (s, empty), st in zip(empties, stats) if empty.size])
        still = []
        for s, (sums, counts, inertia, changed) in zip(going, stats):
            i = n_iter[s]
            new_centers = centers[s].copy()
            filled = counts > 0
            new_centers[filled] = sums[filled] / counts[filled, None]
            shift = float(((new_centers - centers[s]) ** 2).sum())
            if verbose:
                print(f"Iteration {i}, inertia {inertia} (run {s}).")
            previous[s], centers[s] = centers[s], new_centers
            n_iter[s] = i + 1
            if changed == 0 and s not in moved:
                # the same labels as the previous iteration: the same means
                # (bitwise, unless clusters were moved the iteration before),
                # so this pass's assignment is the final one
                if verbose:
                    print(f"Converged at iteration {i}: strict convergence (run {s}).")
                if np.array_equal(new_centers, previous[s]):
                    results[s] = (new_centers, inertia, n_iter[s], counts)
                else:
                    closing.append(s)
            elif shift <= tol_abs or n_iter[s] == max_iter:
                if verbose and shift <= tol_abs:
                    print(f"Converged at iteration {i}: center shift {shift} within "
                          f"tolerance {tol_abs} (run {s}).")
                closing.append(s)
            else:
                still.append(s)
        going = still
    return results


def _lloyd(blocks, centers, max_iter, tol, verbose):
    """Lloyd's iterations of one run from ``centers`` (``tol`` absolute):
    ``(centers, inertia, n_iter, counts)``, see :func:`_lloyd_runs`."""
    return _lloyd_runs(blocks, [centers], max_iter, tol, verbose)[0]


def _check_params(Z, n_clusters, n_init, max_iter, tol, init, n_rounds, oversampling_factor,
                  sample_size=None):
    import dask.array as da

    if not isinstance(Z, da.Array):
        raise TypeError(f"Z must be a dask array, got {type(Z).__name__}.")
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D, got {Z.ndim} dimension(s).")
    if any(np.isnan(s) for s in Z.shape):
        raise ValueError("Z has unknown chunk sizes; call Z.compute_chunk_sizes() first.")
    for name, value, low in [("n_clusters", n_clusters, 1), ("n_init", n_init, 1),
                             ("max_iter", max_iter, 1), ("n_rounds", n_rounds, 1)]:
        if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    if not isinstance(tol, Real) or not tol >= 0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}.")
    if (not isinstance(oversampling_factor, Real) or isinstance(oversampling_factor, bool)
            or not 0 < oversampling_factor < np.inf):
        raise ValueError(f"oversampling_factor must be a positive number, got "
                         f"{oversampling_factor!r}.")
    if sample_size is not None and (not isinstance(sample_size, Integral)
                                    or isinstance(sample_size, bool) or sample_size < 1):
        raise ValueError(f"sample_size must be an integer >= 1 or None, got "
                         f"{sample_size!r}.")
    if not isinstance(init, str) or init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}.")
    if Z.shape[0] < n_clusters:
        raise ValueError(f"n_samples={Z.shape[0]} should be >= n_clusters={n_clusters}.")


def kmeans_dask(Z, n_clusters, *, n_init=10, max_iter=300, tol=1e-4, random_state=None,
                verbose=0, persist=True, init="k-means||", n_rounds=5,
                oversampling_factor=2.0, sample_size=None):
    """k-means on the rows of a dask array, without collecting it on the client.

    Seeding (k-means|| by default, Bahmani et al. 2012, Algorithm 2; or the
    exact greedy k-means++), then Lloyd's iterations, ``n_init`` times; the
    run with the lowest inertia is returned.  The ``n_init`` runs share
    their passes over ``Z``: each pass computes a chunk once and updates
    every run from it (``n_rounds + 1`` passes of seeding with k-means||,
    one per Lloyd iteration of the longest run, at most one more for the
    final labels).  Every pass runs as tasks on the active dask scheduler
    (a ``distributed.Client`` when one exists); the client holds the
    centres, the candidates and per-chunk scalars only.

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
        ``tol * mean(var(Z, axis=0))`` (measured in the first Lloyd pass).
        A run also stops when no label changed in an iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws of the seeding
        (:func:`sklearn.utils.check_random_state`).
    verbose : int, default=0
        If positive, print the potential of every k-means|| pass, one line
        per iteration (inertia of the iteration's assignment) and the reason
        a run stopped.
    persist : bool, default=True
        Keep ``Z`` on the workers during the call (released at its end);
        ``False`` for a ``Z`` larger than the cluster's memory (a lazy map
        of data that does not fit there): each pass then computes its chunks
        anew, once for all the runs.
    init : {'k-means||', 'k-means++'}, default='k-means||'
        The seeding.  ``'k-means||'``: ``n_rounds`` rounds of
        Algorithm 2 of Bahmani et al., one pass each for all the runs, and
        one for the weights; then the weighted candidates (each as the mean
        of its cell) reclustered in memory by scikit-learn's ``KMeans``
        (weighted k-means++ and Lloyd).  ``'k-means++'``:
        scikit-learn's greedy k-means++ on the chunks, one pass per centre,
        run after run (``n_clusters * n_init`` passes).  ``'sample'``:
        each run's seeds are scikit-learn's ``KMeans`` (one restart) on one
        uniform sample of about ``sample_size`` rows, drawn in one pass.
    n_rounds : int, default=5
        Sampling rounds of k-means|| (each one pass over ``Z``); the
        seeding stops earlier when a round samples nothing (every row lies
        on a candidate).
    oversampling_factor : float, default=2.0
        ``l / n_clusters``: each round of k-means|| samples every row with
        probability ``min(1, l d^2(x, C) / phi_X(C))``, at most ``l`` rows
        in expectation (Theorem 2's bound on the potential after a round
        improves as ``l / k`` grows).
    sample_size : int, default=None
        Expected size of the sample of ``init='sample'``: ``None`` gives
        ``max(10000, 100 * n_clusters)``.

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
    _check_params(Z, n_clusters, n_init, max_iter, tol, init, n_rounds, oversampling_factor,
                  sample_size)
    random_state = check_random_state(random_state)
    if Z.numblocks[1] != 1:
        Z = Z.rechunk({1: -1})
    Z = Z.astype(np.float64)
    Zp = Z.persist() if persist else Z
    # chunks of no rows take no part (a draw could land on them)
    sizes = np.asarray(Z.chunks[0], dtype=np.int64)
    blocks = [X for X, m in zip(Zp.to_delayed().ravel(), sizes) if m > 0]
    offsets = np.concatenate([[0], np.cumsum(sizes[sizes > 0])])

    if init == "sample":
        size = max(10_000, 100 * n_clusters) if sample_size is None else sample_size
        seeds = _sample_seeds(blocks, offsets, n_clusters, n_init, random_state, size)
    elif init == "k-means||":
        seeds, _ = _kmeans_parallel(blocks, offsets, n_clusters, n_init, random_state,
                                    n_rounds=n_rounds,
                                    oversampling_factor=oversampling_factor, verbose=verbose)
    else:
        seeds = [_kmeans_plusplus(blocks, offsets, n_clusters, random_state)
                 for _ in range(n_init)]
    if verbose:
        print("Initialization complete.")
    runs = _lloyd_runs(blocks, seeds, max_iter, tol, verbose, relative_tol=True)
    del blocks, Zp
    # the lowest inertia; ties: the first run
    centers, inertia, n_iter, counts = min(runs, key=lambda run: run[1])

    n_distinct = int(np.count_nonzero(counts))
    if n_distinct < n_clusters:
        warn(f"Number of distinct clusters ({n_distinct}) found smaller than "
             f"n_clusters ({n_clusters}). Possibly due to duplicate points in Z.",
             ConvergenceWarning)
    labels = Z.map_blocks(_labels_chunk, centers, dtype=np.intp, drop_axis=1)
    return centers, float(inertia), int(n_iter), labels
