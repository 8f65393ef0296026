"""A kernel learned and clustered on data several times a worker's memory.

``LogDetKernelLearner(kernel='rbf', rank=100, low_rank='rpcholesky')`` plus
``KernelKMeans`` on its (lazy) embedding, on a dask array of 6,000,000 x 20
float64 (960 MB) generated chunk by chunk from a seed (5 Gaussian classes),
on a ``distributed.LocalCluster`` of two worker processes limited to 512 MB
each (one thread each; a worker process holds about 180 MB before any data
and some 300 MB of unmanaged memory while working, so at 256, 320 or 400
MB it stays paused at its 80 % threshold and the run stalls): neither X
(960 MB, nearly twice a worker's limit) nor the factor G0 (n x 100,
4.8 GB, nine times it) nor the embedding ever exists whole anywhere.  X
is never persisted: each pass regenerates its chunks.  Reported:

- wall time of each stage (factor + constraints + engine; k-means);
- each worker's peak resident memory (``ru_maxrss`` of the worker process,
  read on the worker with ``client.run``) and the client's (this process,
  which also runs the scheduler);
- the check against the in-memory fit: the same learner fitted in memory on
  the first ``--check`` rows and with dask on the same rows (the same M to
  rounding), and the adjusted Rand index of the clusters against the
  generating classes, for the big fit (from per-chunk contingency tables;
  ``--n-init`` restarts sharing their passes over the data: seeded, as
  ``init='auto'`` does when the embedding does not fit on the workers, by
  scikit-learn's KMeans on one uniform sample drawn in one pass, then
  Lloyd's iterations, one pass each; ``--init k-means||`` for the five
  rounds and weighting pass of k-means||) and for the in-memory subsample
  (scikit-learn's KMeans, ``n_init=10``).

With ``--dask-ml`` (dask-ml installed: ``pip install dask-ml``) the same
embedding is also clustered by ``dask_ml.cluster.KMeans`` (k-means||
seeding, Bahmani et al. 2012, then Lloyd's iterations), in the same run:
its time, inertia and ARI beside ours.

Usage::

    python benchmarks/bench_dask_out_of_core.py [--n 6000000] [--chunk 10000]
        [--memory-limit 512MB] [--n-init 2] [--init auto] [--check 20000] [--dask-ml]
        [--json PATH]

``--json PATH`` writes the stages' times, the clusterings' inertia and ARI
(ours and dask-ml's) and the peak memory for the documentation's figure
(``benchmarks/results/dask_out_of_core.json``).
"""

import argparse
import os
import resource
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _results  # noqa: E402

from sklearn_bregman import KernelKMeans, LogDetKernelLearner  # noqa: E402

D, CLASSES = 20, 5
CENTERS = np.random.RandomState(42).normal(scale=1.2, size=(CLASSES, D))


def _chunk(block_id, size, what):
    """Labels and points of one chunk, from the chunk's own seed."""
    rng = np.random.default_rng(1000 + block_id)
    y = rng.integers(0, CLASSES, size)
    if what == "y":
        return y
    return CENTERS[y] + rng.normal(size=(size, D))


def _x_block(block_info=None):
    info = block_info[None]
    start, stop = info["array-location"][0]
    return _chunk(info["chunk-location"][0], stop - start, "x")


def _y_block(block_info=None):
    info = block_info[None]
    start, stop = info["array-location"][0]
    return _chunk(info["chunk-location"][0], stop - start, "y")


def data(n, chunk):
    import dask.array as da

    chunks = (chunk,) * (n // chunk) + ((n % chunk,) if n % chunk else ())
    X = da.map_blocks(_x_block, dtype=float, chunks=(chunks, (D,)))
    y = da.map_blocks(_y_block, dtype=np.int64, chunks=(chunks,))
    return X, y


def _contingency(labels, y):
    table = np.zeros((CLASSES, CLASSES), dtype=np.int64)
    np.add.at(table, (labels, y), 1)
    return table


def ari_from_table(table):
    """Adjusted Rand index from a contingency table (Hubert & Arabie 1985)."""
    def pairs(x):
        return (x * (x - 1) / 2).sum()

    n = table.sum()
    index = pairs(table)
    rows, cols = pairs(table.sum(1)), pairs(table.sum(0))
    expected = rows * cols / (n * (n - 1) / 2)
    return (index - expected) / ((rows + cols) / 2 - expected)


def _table(labels, y):
    """The (cluster, class) contingency table, summed from per-chunk tables."""
    import dask

    return sum(dask.compute(*[
        dask.delayed(_contingency)(a, b)
        for a, b in zip(labels.to_delayed().ravel(), y.to_delayed().ravel())]))


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def learner():
    return LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=100, low_rank="rpcholesky",
                               n_constraints=2000, random_state=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=6_000_000)
    parser.add_argument("--chunk", type=int, default=10_000)
    # a worker process holds ~180 MB before any data (Python, NumPy, SciPy,
    # scikit-learn) and ~300 MB of unmanaged memory while working; at 256,
    # 320 or 400 MB it stays paused at its 80 % threshold
    parser.add_argument("--memory-limit", default="512MB")
    parser.add_argument("--check", type=int, default=20_000)
    parser.add_argument("--n-init", type=int, default=2)
    parser.add_argument("--init", default="auto",
                        choices=["auto", "sample", "k-means||", "k-means++"])
    parser.add_argument("--dask-ml", action="store_true",
                        help="also cluster the embedding with dask_ml.cluster.KMeans")
    _results.add_json_argument(parser)
    args = parser.parse_args()

    import dask.array as da
    from distributed import Client, LocalCluster

    X, y = data(args.n, args.chunk)
    print(f"X: {X.shape[0]:,} x {D} float64 = {X.nbytes / 1e6:,.0f} MB in "
          f"{X.numblocks[0]} chunks of {args.chunk:,} rows; workers: 2 processes x 1 "
          f"thread, memory_limit={args.memory_limit} each")
    warnings.simplefilter("ignore", ConvergenceWarning)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      memory_limit=args.memory_limit, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        base = client.run(peak_mb)
        t0 = time.perf_counter()
        model = learner().fit(X, y)
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        km = KernelKMeans(n_clusters=CLASSES, kernel="linear", n_init=args.n_init,
                          init=args.init,
                          random_state=0).fit(model.embedding_)
        t_km = time.perf_counter() - t0
        # per-chunk contingency tables of (cluster, class): nothing of size n
        # comes to the client
        table = _table(km.labels_, y)
        if args.dask_ml:
            from dask_ml.cluster import KMeans as DaskMLKMeans

            t0 = time.perf_counter()
            dml = DaskMLKMeans(n_clusters=CLASSES, init="k-means||", random_state=0).fit(
                model.embedding_)
            t_dml = time.perf_counter() - t0
            dml_table = _table(dml.labels_, y)
        peaks = client.run(peak_mb)
        # the check: the same rows in memory and on the cluster
        m = args.check
        Xs, ys = X[:m].compute(), y[:m].compute()
        local = learner().fit(Xs, ys)
        remote = learner().fit(da.from_array(Xs, chunks=(m // 4, D)),
                               da.from_array(ys, chunks=m // 4))
        km_local = KernelKMeans(n_clusters=CLASSES, kernel="linear", n_init=10,
                                random_state=0).fit(local.embedding_)
    err = np.abs(local.metric_ - remote.metric_).max() / np.abs(local.metric_).max()
    print(f"\nfit (factor, pairs, engine): {t_fit:8.1f} s   rank {model.rank_}, "
          f"{model.n_iter_} sweeps, converged={model.converged_}")
    print(f"KernelKMeans on the lazy embedding: {t_km:8.1f} s   {km.n_iter_} iterations, "
          f"inertia {km.inertia_:.6g}, ARI {ari_from_table(table):.4f}")
    if args.dask_ml:
        print(f"dask_ml KMeans (k-means||):          {t_dml:8.1f} s   {dml.n_iter_} iterations, "
              f"inertia {dml.inertia_:.6g}, ARI {ari_from_table(dml_table):.4f}")
    print("\npeak resident memory (MB):")
    for w in sorted(peaks):
        print(f"  worker {w}: {peaks[w]:7.0f}   (at start {base[w]:5.0f})")
    print(f"  client + scheduler: {peak_mb():7.0f}")
    print(f"\nARI of the clusters vs the generating classes: {ari_from_table(table):.4f} "
          f"(all {args.n:,} points); in memory on the first {m:,}: "
          f"{adjusted_rand_score(ys, km_local.labels_):.4f}")
    print(f"in memory vs dask on the first {m:,} rows: max |M_mem - M_dask| / max |M_mem| "
          f"= {err:.2e}, pivots equal: {np.array_equal(local.pivots_, remote.pivots_)}")
    results = {
        "fit": {"seconds": t_fit, "rank": model.rank_, "sweeps": model.n_iter_,
                "converged": bool(model.converged_)},
        "kernel_kmeans": {"seconds": t_km, "iterations": km.n_iter_,
                          "inertia": km.inertia_, "ari": ari_from_table(table)},
        "peak_mb": {"workers": sorted(peaks.values()), "workers_at_start": sorted(base.values()),
                    "client_and_scheduler": peak_mb()},
        "check": {"rows": m, "relative_metric_difference": err,
                  "ari_in_memory": adjusted_rand_score(ys, km_local.labels_)}}
    if args.dask_ml:
        results["dask_ml_kmeans"] = {"seconds": t_dml, "iterations": int(dml.n_iter_),
                                     "inertia": float(dml.inertia_),
                                     "ari": ari_from_table(dml_table)}
    _results.write(args.json, "bench_dask_out_of_core",
                   {"n": args.n, "d": D, "classes": CLASSES, "chunk": args.chunk,
                    "workers": "2 processes x 1 thread", "memory_limit": args.memory_limit,
                    "n_init": args.n_init, "init": args.init,
                    "learner": "LogDetKernelLearner(kernel='rbf', gamma=0.05, rank=100, "
                               "low_rank='rpcholesky', n_constraints=2000)",
                    "dask_ml": "dask_ml.cluster.KMeans(n_clusters=5, init='k-means||')"
                    if args.dask_ml else None, "blas_threads": 1},
                   results, peers=("dask", "distributed", "dask-ml"))


if __name__ == "__main__":
    main()
