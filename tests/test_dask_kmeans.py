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

from sklearn_bregman._dask_kmeans import _kmeans_plusplus, _lloyd, kmeans_dask  # noqa: E402


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
    import sklearn_bregman._dask_kmeans as module

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
    assert n_iter >= 20
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
