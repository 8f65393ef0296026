"""GridSearchCV on a dask.distributed LocalCluster: processes or threads per worker?

The same 5 x 2 grid (``slack`` x ``gamma``, 3 folds: 30 fits + refit) of
``LogDetKernelLearner(kernel='rbf', rank=100)`` with 2,000 pairs on 20,000 points (20
dimensions, 5 Gaussian classes, standardised; 5-NN scorer) runs, in one
process and one after the other:

- sequentially (``n_jobs=1``);
- joblib's default process pool (loky, ``n_jobs=2``);
- under ``joblib.parallel_backend('dask')`` on a ``LocalCluster`` of two
  worker processes with one thread each;
- the same on one worker process with two threads.

The compiled sweeps release the GIL (``with nogil``), so threads can share
the work; the NumPy and scikit-learn parts of a fit (factor, residuals,
scoring) partly hold it.  BLAS runs on one thread in every worker.  The best
parameters must agree everywhere.

Usage::

    python benchmarks/bench_dask_grid_search.py [--n 20000]
"""

import argparse
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import joblib  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sklearn_bregman import LogDetKernelLearner, knn_scorer  # noqa: E402

GRID = {"slack": [0.1, 1.0, 10.0, 100.0, 1000.0], "gamma": [0.02, 0.05]}


def search(X, y, n_jobs):
    gs = GridSearchCV(LogDetKernelLearner(kernel="rbf", rank=100, n_constraints=2000,
                                          random_state=0),
                      GRID, cv=3, scoring=knn_scorer(), n_jobs=n_jobs)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gs.fit(X, y)
    return time.perf_counter() - t0, gs.best_params_


def on_cluster(X, y, n_workers, threads):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=n_workers, threads_per_worker=threads, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        search(X[:500], y[:500], -1)  # warm the workers (imports)
        with joblib.parallel_backend("dask"):
            return search(X, y, -1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()
    X, y = make_blobs(args.n, n_features=20, centers=5, cluster_std=6.0, random_state=0)
    X = StandardScaler().fit_transform(X)
    runs = [
        ("sequential, n_jobs=1", lambda: search(X, y, 1)),
        ("loky, n_jobs=2", lambda: search(X, y, 2)),
        ("dask: 2 processes x 1 thread", lambda: on_cluster(X, y, 2, 1)),
        ("dask: 1 process x 2 threads", lambda: on_cluster(X, y, 1, 2)),
    ]
    print(f"n = {args.n}, grid 5 x 2, 3 folds (30 fits + refit), 2 cores")
    base = None
    for name, run in runs:
        t, best = run()
        base = base or t
        print(f"{name:32s} {t:7.1f} s  {base / t:4.2f}x  best {best}")


if __name__ == "__main__":
    main()
