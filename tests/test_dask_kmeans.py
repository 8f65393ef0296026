"""k-means on the rows of a dask array, on a real dask.distributed cluster.

A ``distributed.LocalCluster`` with two worker processes is started and
closed by the fixture (no mock).  ``kmeans_dask`` must find scikit-learn's
clustering, be repeatable, leave the labels lazy and gather only small
results, not depend on the chunking, and survive empty clusters.
"""

import time

import numpy as np
import pytest

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from dask.sizeof import sizeof  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

from sklearn_bregman._data._dask_kmeans import (  # noqa: E402
    _add_lloyd,
    _kmeans_parallel,
    _kmeans_plusplus,
    _lloyd,
    _lloyd_chunk,
    _lloyd_runs,
    _nearest_candidates,
    _sample_chunk,
    _sampled,
    _seeding_chunk,
    _uniforms,
    kmeans_dask,
)


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(n_samples=3000, centers=5, n_features=4, cluster_std=0.6,
                      random_state=0)
    return X


def test_matches_scikit_learn_on_separated_blobs(client, blobs):
    Z = da.from_array(blobs, chunks=(500, -1))
    centers, inertia, n_iter, labels = kmeans_dask(Z, 5, n_init=3, random_state=0)
    reference = KMeans(n_clusters=5, random_state=0).fit(blobs)
    assert centers.shape == (5, 4) and 1 <= n_iter <= 300
    assert adjusted_rand_score(reference.labels_, labels.compute()) == 1.0
    assert inertia == pytest.approx(reference.inertia_, rel=1e-8)


def test_repeatable_under_random_state(client, blobs, capsys):
    Z = da.from_array(blobs, chunks=(500, -1))
    first = kmeans_dask(Z, 5, n_init=2, random_state=3)
    second = kmeans_dask(Z, 5, n_init=2, random_state=np.random.RandomState(3), verbose=1)
    np.testing.assert_array_equal(first[0], second[0])
    assert first[1:3] == second[1:3]
    out = capsys.readouterr().out
    assert "Iteration 0, inertia" in out and "Converged at iteration" in out


def test_labels_lazy_results_small_and_chunking_irrelevant(client, blobs, monkeypatch):
    # every result the client gathers is recorded: none may be of the data's size
    gathered = []
    gather = client.gather

    def recording_gather(futures, *args, **kwargs):
        result = gather(futures, *args, **kwargs)
        gathered.append(sizeof(result))
        return result

    monkeypatch.setattr(client, "gather", recording_gather)
    even = da.from_array(blobs, chunks=(500, -1))
    uneven = da.from_array(blobs, chunks=((700, 800, 1500), (2, 2)))  # two column chunks
    c_even, i_even, n_even, l_even = kmeans_dask(even, 5, n_init=2, random_state=1)
    c_uneven, i_uneven, n_uneven, l_uneven = kmeans_dask(uneven, 5, n_init=2, random_state=1)
    assert gathered and max(gathered) < blobs[:200].nbytes  # far below one chunk
    monkeypatch.undo()

    assert isinstance(l_even, da.Array) and isinstance(l_uneven, da.Array)
    assert l_uneven.chunks == ((700, 800, 1500),)
    assert np.issubdtype(l_even.dtype, np.integer)
    np.testing.assert_allclose(c_uneven, c_even, rtol=1e-10, atol=1e-12)
    assert i_uneven == pytest.approx(i_even, rel=1e-10) and n_uneven == n_even
    np.testing.assert_array_equal(l_uneven.compute(), l_even.compute())


def test_nothing_is_left_on_the_cluster(client, blobs):
    Z = da.from_array(blobs, chunks=(500, -1))
    result = kmeans_dask(Z, 5, n_init=2, max_iter=20, random_state=0)
    assert isinstance(result[3], da.Array)

    def n_tasks(dask_scheduler):
        return len(dask_scheduler.tasks)

    # persisted Z, distances and labels are released (the lazy labels hold nothing)
    deadline = time.monotonic() + 10
    while client.run_on_scheduler(n_tasks) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.run_on_scheduler(n_tasks) == 0


def test_lineage_does_not_grow_with_the_iterations(client, monkeypatch):
    # labels of iteration i must not depend on those of i - 1, or the scheduler
    # keeps the tasks of every iteration (for recomputation)
    import sklearn_bregman._data._dask_kmeans as module

    def n_tasks(dask_scheduler):
        return len(dask_scheduler.tasks)

    seen = []
    lloyd_pass = module._lloyd_pass

    def recording_pass(*args, **kwargs):
        seen.append(client.run_on_scheduler(n_tasks))
        return lloyd_pass(*args, **kwargs)

    monkeypatch.setattr(module, "_lloyd_pass", recording_pass)
    X = np.random.RandomState(0).uniform(size=(1500, 2))  # no clusters: slow convergence
    Z = da.from_array(X, chunks=(500, -1))
    _, _, n_iter, _ = kmeans_dask(Z, 8, n_init=1, max_iter=30, tol=0.0, random_state=0)
    assert n_iter >= 15  # (k-means|| seeds: 17 iterations; k-means++'s took over 20)
    assert max(seen) < 100


def test_inertia_is_the_numpy_recomputation(client, blobs):
    Z = da.from_array(blobs, chunks=(600, -1))
    centers, inertia, _, labels = kmeans_dask(Z, 7, n_init=2, random_state=0)
    labels = labels.compute()
    distances = ((blobs[:, None, :] - centers[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(labels, distances.argmin(axis=1))
    assert inertia == pytest.approx(((blobs - centers[labels]) ** 2).sum(), rel=1e-10)


def _duplicates(n_distinct, copies, seed=0):
    rng = np.random.RandomState(seed)
    points = rng.normal(size=(n_distinct, 3)) * 10
    return points, rng.permutation(np.repeat(points, copies, axis=0))


@pytest.mark.parametrize("chunk", [70, 240])  # four chunks, one chunk
def test_empty_clusters_are_refilled_with_distinct_points(client, chunk):
    points, X = _duplicates(6, 40)
    Z = da.from_array(X, chunks=(chunk, -1)).persist()
    blocks = list(Z.to_delayed().ravel())
    # two centres on the data, four far away: four clusters are empty at once
    start = np.vstack([points[:2], 1e3 + np.arange(12.0).reshape(4, 3)])
    centers, inertia, _, counts = _lloyd(blocks, start, max_iter=50, tol=0.0, verbose=0)
    assert np.all(counts > 0) and counts.sum() == len(X)
    assert inertia == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(np.unique(centers, axis=0), np.unique(points, axis=0),
                               atol=1e-9)


def test_duplicates_through_the_public_function(client):
    points, X = _duplicates(6, 40, seed=1)
    Z = da.from_array(X, chunks=(100, -1))
    centers, inertia, _, labels = kmeans_dask(Z, 6, n_init=2, random_state=0)
    labels = labels.compute()
    assert np.unique(labels).size == 6 and np.unique(centers, axis=0).shape[0] == 6
    assert inertia == pytest.approx(0.0, abs=1e-9)
    # more clusters than distinct points: no crash, a warning, k centres
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        centers, inertia, _, labels = kmeans_dask(Z, 8, n_init=1, random_state=0)
    assert centers.shape == (8, 3) and inertia == pytest.approx(0.0, abs=1e-9)
    assert np.unique(labels.compute()).size == 6


def test_seeds_are_data_points_and_distinct(client, blobs):
    Z = da.from_array(blobs, chunks=(500, -1)).persist()
    blocks = list(Z.to_delayed().ravel())
    offsets = np.arange(0, 3001, 500)
    seeds = _kmeans_plusplus(blocks, offsets, 8, np.random.RandomState(0))
    hits = [np.flatnonzero((blobs == s).all(axis=1)) for s in seeds]
    assert all(h.size == 1 for h in hits)
    assert np.unique(np.concatenate(hits)).size == 8


def test_rejects_bad_input(client, blobs):
    with pytest.raises(TypeError, match="dask array"):
        kmeans_dask(blobs, 3)
    Z = da.from_array(blobs[:4], chunks=(2, -1))
    with pytest.raises(ValueError, match="n_clusters"):
        kmeans_dask(Z, 5)
    with pytest.raises(ValueError, match="tol"):
        kmeans_dask(Z, 2, tol=-1.0)


# ---------------------------------------------------------------------------
# k-means|| and the shared passes (Bahmani et al. 2012, Algorithm 2)
# ---------------------------------------------------------------------------


def _oracle_sq_distances(X, C):
    return ((X[:, None, :] - C[None]) ** 2).sum(axis=2)


def test_per_chunk_distances_and_uniforms_against_numpy():
    rng = np.random.RandomState(0)
    X, C = rng.normal(size=(300, 5)), rng.normal(size=(7, 5))
    d, nearest = _nearest_candidates(X, np.einsum("ij,ij->i", X, X), C)
    D = _oracle_sq_distances(X, C)
    np.testing.assert_array_equal(nearest, D.argmin(axis=1))
    np.testing.assert_allclose(d, D.min(axis=1), rtol=1e-10, atol=1e-12)
    # a row on a candidate: zero up to rounding, never negative
    d, nearest = _nearest_candidates(C, np.einsum("ij,ij->i", C, C), C)
    np.testing.assert_array_equal(nearest, np.arange(7))
    assert d.min() >= 0.0 and d.max() < 1e-12

    # the uniforms of a row depend on the seed and its global index only
    u = _uniforms(12345, 0, 100_000)
    np.testing.assert_array_equal(_uniforms(12345, 30_000, 500), u[30_000:30_500])
    assert 0.0 < u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / u.size)
    assert abs(u.var() - 1 / 12) < 1e-3
    counts, _ = np.histogram(u, bins=20, range=(0, 1))
    expected = u.size / 20
    assert ((counts - expected) ** 2 / expected).sum() < 50  # chi2(19): p ~ 1e-4
    assert np.abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.02  # neighbours not correlated
    assert not np.array_equal(_uniforms(12346, 0, 100), u[:100])


def test_seeding_chunk_against_numpy():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(400, 3))
    C = X[[5, 17, 300]]
    start, seed, n_keep = 1000, 99, 12
    (stats, ), (kept, ) = _seeding_chunk(X, start, [(C, seed)], n_keep)
    D = _oracle_sq_distances(X, C)
    d = D.min(axis=1)
    phi, weights, sums = stats
    assert phi == pytest.approx(d.sum(), rel=1e-10)
    np.testing.assert_array_equal(weights, np.bincount(D.argmin(axis=1), minlength=3))
    assert weights.sum() == len(X) and sums == 0.0  # cells' sums: in the last pass only
    keys = d / _uniforms(seed, start, len(X))
    top = np.argsort(-keys)[:n_keep]
    k, rows, points = kept
    np.testing.assert_array_equal(rows, start + top)
    np.testing.assert_allclose(k, keys[top], rtol=1e-9)
    np.testing.assert_array_equal(points, X[top])

    # sampling: every row whose key exceeds the threshold, recomputed when the
    # kept table may be short
    ordered = np.sort(keys)
    for j in [5, 40]:  # thresholds between two keys
        thr = (ordered[-j] + ordered[-j - 1]) / 2
        (rows_s, points_s, (complete, )), = _sampled(([stats], [kept]), [thr], len(X))
        want = np.flatnonzero(keys > thr)
        assert complete == (want.size < n_keep)
        if complete:
            np.testing.assert_array_equal(rows_s, start + want)
        full_rows, full_points = _sample_chunk(X, start, C, seed, thr)
        np.testing.assert_array_equal(full_rows, start + want)
        np.testing.assert_array_equal(full_points, X[want])
    # the last pass samples nothing and sums the rows of each candidate's cell
    ((phi_last, weights_last, sums), ), (none, ) = _seeding_chunk(X, start, [(C, None)],
                                                                  n_keep)
    assert none is None and phi_last == phi
    np.testing.assert_array_equal(weights_last, weights)
    np.testing.assert_allclose(sums, [X[D.argmin(axis=1) == j].sum(axis=0) for j in range(3)],
                               rtol=1e-12, atol=1e-12)


def test_lloyd_chunk_and_its_reduction_against_numpy():
    rng = np.random.RandomState(2)
    X = rng.normal(size=(500, 4))
    centers, previous = X[:6] + 0.1, X[10:16]
    chunks = [X[:100], X[100:101], X[101:350], X[350:]]
    parts = [_lloyd_chunk(B, [(centers, previous), (previous, None)], moments=True)
             for B in chunks]
    stats, (n, mean, m2) = _add_lloyd(_add_lloyd(*parts[:2]), _add_lloyd(*parts[2:]))
    for (sums, counts, inertia, changed), c, p in zip(stats, [centers, previous],
                                                        [previous, None]):
        labels = _oracle_sq_distances(X, c).argmin(axis=1)
        np.testing.assert_array_equal(counts, np.bincount(labels, minlength=6))
        np.testing.assert_allclose(sums, [X[labels == j].sum(axis=0) for j in range(6)],
                                   rtol=1e-12, atol=1e-12)
        assert inertia == pytest.approx(((X - c[labels]) ** 2).sum(), rel=1e-12)
        old = labels if p is None else _oracle_sq_distances(X, p).argmin(axis=1)
        assert changed == (len(X) if p is None else np.count_nonzero(labels != old))
    assert n == len(X)
    np.testing.assert_allclose(mean, X.mean(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(m2 / n, X.var(axis=0), rtol=1e-12)


def _kmeans_parallel_oracle(X, n_clusters, n_runs, seed, n_rounds, factor):
    """Algorithm 2 in NumPy on the whole array, with the same draws."""
    rs = np.random.RandomState(seed)
    n, ell = len(X), factor * n_clusters
    first = rs.randint(n, size=n_runs)
    cands = [[int(i)] for i in first]
    expected, drawn = [], []
    for _ in range(n_rounds):
        seeds = rs.randint(np.iinfo(np.int64).max, size=n_runs, dtype=np.int64)
        for s in range(n_runs):
            d = _oracle_sq_distances(X, X[cands[s]]).min(axis=1)
            phi = d.sum()
            expected.append(np.minimum(1.0, ell * d / phi).sum())
            new = [int(i) for i in np.flatnonzero(d / _uniforms(int(seeds[s]), 0, n) > phi / ell)
                   if i not in cands[s]]
            drawn.append(len(new))
            cands[s] += new
    weights = [np.bincount(_oracle_sq_distances(X, X[c]).argmin(axis=1), minlength=len(c))
               for c in cands]
    return cands, weights, np.array(expected), np.array(drawn)


@pytest.mark.parametrize("chunks", [(500, -1), ((700, 800, 1500), -1), (3000, -1)])
def test_kmeans_parallel_draws_the_numpy_oracle_sample(client, blobs, chunks):
    Z = da.from_array(blobs, chunks=chunks).persist()
    blocks = list(Z.to_delayed().ravel())
    offsets = np.concatenate([[0], np.cumsum(Z.chunks[0])])
    seeds, found = _kmeans_parallel(blocks, offsets, 5, 3, np.random.RandomState(7),
                                    n_rounds=4, oversampling_factor=2.0)
    cands, weights, expected, drawn = _kmeans_parallel_oracle(blobs, 5, 3, 7, 4, 2.0)
    for (rows, points, w, sums), c, w_oracle, s in zip(found, cands, weights, seeds):
        # the candidates are data rows, those the oracle samples (in round
        # order, each round in row order), and each weight counts the rows
        # nearest to its candidate (step 7): they sum to n; the sums are
        # those of the rows of each candidate's cell
        np.testing.assert_array_equal(rows, c)
        np.testing.assert_array_equal(points, blobs[rows])
        np.testing.assert_array_equal(w, w_oracle)
        assert w.sum() == len(blobs)
        nearest = _oracle_sq_distances(blobs, points).argmin(axis=1)
        np.testing.assert_allclose(sums, [blobs[nearest == j].sum(axis=0)
                                          for j in range(len(c))], rtol=1e-10, atol=1e-10)
        assert s.shape == (5, 4)
    # each round samples min(1, l d^2 / phi) per row: at most l = 10 expected
    assert np.all(expected <= 10.0 + 1e-9)
    assert abs(drawn.sum() - expected.sum()) < 4 * np.sqrt(expected.sum())


def test_kmeans_parallel_meets_the_papers_bound_and_seeds_well(client, blobs):
    # Theorem 2 / Corollary 3: E[phi after t rounds] <= ((1 + a) / 2)^t psi +
    # 16 / (1 - a) phi*, a = exp(-(1 - exp(-l / 2k))); scikit-learn's optimum
    # bounds phi* from above
    Z = da.from_array(blobs, chunks=(500, -1)).persist()
    blocks = list(Z.to_delayed().ravel())
    offsets = np.arange(0, 3001, 500)
    k, factor, rounds = 5, 2.0, 5
    optimum = KMeans(n_clusters=k, n_init=10, random_state=0).fit(blobs).inertia_
    seeds, found = _kmeans_parallel(blocks, offsets, k, 6, np.random.RandomState(0),
                                    n_rounds=rounds, oversampling_factor=factor)
    a = np.exp(-(1 - np.exp(-factor * k / (2 * k))))
    potentials, psis = [], []
    for _, points, _, _ in found:
        psis.append(((blobs - points[0]) ** 2).sum())
        potentials.append(_oracle_sq_distances(blobs, points).min(axis=1).sum())
    bound = ((1 + a) / 2) ** rounds * np.mean(psis) + 16 / (1 - a) * optimum
    assert np.mean(potentials) <= bound
    # after step 8 every run's seeds are within 10 % of the optimum here
    for s in seeds:
        assert _oracle_sq_distances(blobs, s).min(axis=1).sum() <= 1.1 * optimum


def test_lloyd_runs_give_scikit_learns_iterations_from_the_same_starts(client):
    # several runs in the same passes, each the iterations of scikit-learn's
    # KMeans from the same start: same labels, centres, inertia, iterations
    X = np.random.RandomState(0).uniform(size=(1500, 2))  # slow convergence
    Z = da.from_array(X, chunks=(400, -1)).persist()
    blocks = list(Z.to_delayed().ravel())
    rng = np.random.RandomState(1)
    starts = [X[rng.choice(1500, 6, replace=False)] for _ in range(3)]
    for tol in [0.0, 1e-4]:
        runs = _lloyd_runs(blocks, starts, 300, tol, 0, relative_tol=True)
        for start, (centers, inertia, n_iter, counts) in zip(starts, runs):
            ref = KMeans(n_clusters=6, init=start, n_init=1, tol=tol).fit(X)
            labels = _oracle_sq_distances(X, centers).argmin(axis=1)
            np.testing.assert_array_equal(labels, ref.labels_)
            np.testing.assert_allclose(centers, ref.cluster_centers_, rtol=1e-10, atol=1e-12)
            assert inertia == pytest.approx(ref.inertia_, rel=1e-10)
            assert n_iter == ref.n_iter_
            np.testing.assert_array_equal(counts, np.bincount(ref.labels_, minlength=6))
        if tol == 0.0:  # runs that stop at different iterations
            assert len({r[2] for r in runs}) > 1


def _counting_source(X, chunks):
    """A lazy dask array whose chunk tasks carry a name of their own, so that
    the task stream counts how many times each chunk was computed."""
    import uuid

    base = da.from_array(X, chunks=chunks)
    name = f"counted-chunk-{uuid.uuid4().hex}"
    return base.map_blocks(np.array, dtype=X.dtype, name=name), name


def _reads_per_chunk(stream, name, n_chunks):
    import re

    reads = np.zeros(n_chunks, dtype=int)
    for task in stream:
        found = re.match(r"\('([^']+)', (\d+)", str(task["key"]))
        if found and found.group(1) == name:
            reads[int(found.group(2))] += 1
    return reads


@pytest.mark.parametrize("n_init", [1, 4])
def test_one_pass_per_round_and_iteration_for_all_restarts(client, monkeypatch, n_init):
    from distributed import get_task_stream

    import sklearn_bregman._data._dask_kmeans as module

    calls = {"seeding": 0, "lloyd": 0}
    seeding_pass, lloyd_pass = module._seeding_pass, module._lloyd_pass

    def counted(kind, f):
        def wrapper(*args, **kwargs):
            calls[kind] += 1
            return f(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(module, "_seeding_pass", counted("seeding", seeding_pass))
    monkeypatch.setattr(module, "_lloyd_pass", counted("lloyd", lloyd_pass))
    X = np.random.RandomState(0).uniform(size=(2000, 3))  # no clusters: slow convergence
    Z, name = _counting_source(X, (250, -1))
    with get_task_stream(client) as stream:
        kmeans_dask(Z, 6, n_init=n_init, max_iter=4, tol=0.0, random_state=0, n_rounds=3,
                    persist=False)
    reads = _reads_per_chunk(stream.data, name, 8)
    # 3 rounds + the weights; 4 iterations + the final labels; whatever n_init
    assert calls == {"seeding": 4, "lloyd": 5}
    passes = calls["seeding"] + calls["lloyd"]
    # every chunk is computed once per pass, once for all the runs; besides,
    # the chunks holding the runs' first rows are read once more (and, rarely,
    # a chunk whose sample is recomputed)
    assert reads.min() == passes
    assert reads.sum() <= passes * 8 + n_init + 2


def test_persisted_rows_are_computed_once(client):
    from distributed import get_task_stream

    X = np.random.RandomState(0).uniform(size=(2000, 3))
    Z, name = _counting_source(X, (250, -1))
    with get_task_stream(client) as stream:
        kmeans_dask(Z, 6, n_init=3, max_iter=4, tol=0.0, random_state=0, persist=True)
    np.testing.assert_array_equal(_reads_per_chunk(stream.data, name, 8), 1)


def test_exact_kmeans_plusplus_stays_reachable(client, blobs):
    Z = da.from_array(blobs, chunks=(500, -1))
    centers, inertia, _, labels = kmeans_dask(Z, 5, n_init=2, random_state=0,
                                              init="k-means++")
    reference = KMeans(n_clusters=5, random_state=0).fit(blobs)
    assert adjusted_rand_score(reference.labels_, labels.compute()) == 1.0
    assert inertia == pytest.approx(reference.inertia_, rel=1e-8)
    parallel = kmeans_dask(Z, 5, n_init=2, random_state=0)
    assert parallel[1] == pytest.approx(inertia, rel=1e-8)


def test_kmeans_parallel_parameters_are_checked(client, blobs):
    Z = da.from_array(blobs, chunks=(500, -1))
    with pytest.raises(ValueError, match="init must be one of"):
        kmeans_dask(Z, 3, init="random")
    with pytest.raises(ValueError, match="n_rounds"):
        kmeans_dask(Z, 3, n_rounds=0)
    with pytest.raises(ValueError, match="oversampling_factor"):
        kmeans_dask(Z, 3, oversampling_factor=0.0)


def test_chunks_that_kept_too_few_rows_are_sampled_again(client, blobs, monkeypatch):
    # one kept row per chunk: most chunks hold more sampled rows, recomputed
    # by the driver; the sample stays the oracle's
    import sklearn_bregman._data._dask_kmeans as module

    monkeypatch.setattr(module, "_n_keep", lambda m, n, ell: 1)
    Z = da.from_array(blobs, chunks=(250, -1)).persist()
    blocks = list(Z.to_delayed().ravel())
    offsets = np.arange(0, 3001, 250)
    _, found = _kmeans_parallel(blocks, offsets, 5, 2, np.random.RandomState(3), n_rounds=3)
    cands, weights, _, _ = _kmeans_parallel_oracle(blobs, 5, 2, 3, 3, 2.0)
    for (rows, _, w, _), c, w_oracle in zip(found, cands, weights):
        np.testing.assert_array_equal(rows, c)
        np.testing.assert_array_equal(w, w_oracle)


# ---------------------------------------------------------------------------
# init='sample': seeds from one uniform sample, one pass
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("chunks", [(500, -1), ((700, 800, 1500), -1)])
def test_sample_seeding_is_the_numpy_oracle_sample_whatever_the_chunking(
        client, blobs, chunks, monkeypatch):
    import sklearn_bregman._data._dask_kmeans as module

    seen = {}
    fit = KMeans.fit

    def recording(self, S, *args, **kwargs):
        seen.setdefault("S", S.copy())
        return fit(self, S, *args, **kwargs)

    monkeypatch.setattr(KMeans, "fit", recording)
    rs = np.random.RandomState(7)
    seeds = module._sample_seeds(
        [b for b in da.from_array(blobs, chunks=chunks).to_delayed().ravel()],
        np.concatenate([[0], np.cumsum(da.from_array(blobs, chunks=chunks).chunks[0])]),
        5, 3, rs, 400)
    # the oracle: each global row kept when its uniform is below 400 / n
    seed = np.random.RandomState(7).randint(np.iinfo(np.int64).max, dtype=np.int64)
    u = module._uniforms(int(seed), 0, len(blobs))
    np.testing.assert_array_equal(seen["S"], blobs[u < 400 / len(blobs)])
    assert 300 < seen["S"].shape[0] < 500
    # each run: scikit-learn's KMeans(n_init=1) on the sample with its own seed
    run_seeds = np.random.RandomState(7)
    run_seeds.randint(np.iinfo(np.int64).max, dtype=np.int64)
    for s, centers in zip(run_seeds.randint(np.iinfo(np.int32).max, size=3), seeds):
        monkeypatch.setattr(KMeans, "fit", fit)
        ref = KMeans(5, n_init=1, random_state=int(s)).fit(seen["S"]).cluster_centers_
        np.testing.assert_array_equal(centers, ref)


def test_sample_seeding_takes_one_pass_and_finds_the_blobs(client, blobs, monkeypatch):
    from distributed import get_task_stream

    import sklearn_bregman._data._dask_kmeans as module

    calls = {"lloyd": 0}
    lloyd_pass = module._lloyd_pass

    def counted(*args, **kwargs):
        calls["lloyd"] += 1
        return lloyd_pass(*args, **kwargs)

    monkeypatch.setattr(module, "_lloyd_pass", counted)
    Z, name = _counting_source(blobs, (500, -1))
    with get_task_stream(client) as stream:
        centers, inertia, n_iter, labels = kmeans_dask(
            Z, 5, n_init=3, random_state=0, init="sample", sample_size=600, persist=False)
    reads = _reads_per_chunk(stream.data, name, len(blobs) // 500)
    # one pass for the sample, one per Lloyd iteration (the final labels
    # folded into the last when nothing changed), for the three runs at once
    np.testing.assert_array_equal(reads, 1 + calls["lloyd"])
    reference = KMeans(n_clusters=5, random_state=0).fit(blobs)
    assert adjusted_rand_score(reference.labels_, labels.compute()) == 1.0
    assert inertia == pytest.approx(reference.inertia_, rel=1e-8)
    with pytest.raises(ValueError, match="sample_size"):
        kmeans_dask(Z, 3, init="sample", sample_size=0)


def test_kernel_kmeans_seeds_on_a_sample_when_the_rows_are_not_kept(client, monkeypatch):
    import sklearn_bregman._data._dask as dask_module
    import sklearn_bregman._data._dask_kmeans as module
    from sklearn_bregman import KernelKMeans

    used = []
    real = module._sample_seeds

    def spy(*args, **kwargs):
        used.append("sample")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "_sample_seeds", spy)
    X, _ = make_blobs(2000, centers=4, cluster_std=0.5, random_state=0)
    Xd = da.from_array(X, chunks=(500, -1))
    KernelKMeans(4, n_init=2, random_state=0).fit(Xd)
    assert used == []  # kept on the workers: k-means||
    monkeypatch.setattr(dask_module, "room_on_workers", lambda: 0)
    km = KernelKMeans(4, n_init=2, random_state=0).fit(Xd)
    assert used == ["sample"]
    ref = KernelKMeans(4, n_init=2, random_state=0).fit(X)
    assert adjusted_rand_score(ref.labels_, km.labels_.compute()) == 1.0
