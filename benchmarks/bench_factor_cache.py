"""A 5 x 2 grid over ``slack`` x ``gamma`` with and without the factor cache.

``GridSearchCV`` refits the learner for every candidate and split; the
initial factor depends only on the training data and the kernel parameters,
so with ``memory=`` (a joblib ``Memory``) a grid of 5 slack values x 2 gammas
on 3 splits factors 2 x 3 training sets (+ the refit's) instead of 30 (+1).
Both searches run in this process on the same data (n = 20,000 points in
20 dimensions, 5 Gaussian classes, standardised; ``LogDetKernelLearner``
with ``kernel='rbf'``, ``rank=100``, 500 pairs; 5-NN leave-one-out scorer on the
validation folds), the cache in a fresh temporary directory; the best
parameters and scores must agree.

Usage::

    python benchmarks/bench_factor_cache.py [--n 20000] [--rank 100]
"""

import argparse
import os
import sys
import tempfile
import time
import warnings

import numpy as np
from joblib import Memory
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sklearn_bregman import LogDetKernelLearner, knn_scorer  # noqa: E402


def search(X, y, rank, memory):
    grid = {"slack": [0.1, 1.0, 10.0, 100.0, 1000.0], "gamma": [0.02, 0.05]}
    gs = GridSearchCV(
        LogDetKernelLearner(kernel="rbf", rank=rank, n_constraints=500,
                            random_state=0, memory=memory),
        grid, cv=3, scoring=knn_scorer(), n_jobs=1,
    )
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gs.fit(X, y)
    return time.perf_counter() - t0, gs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--rank", type=int, default=100)
    args = ap.parse_args()
    X, y = make_blobs(args.n, n_features=20, centers=5, cluster_std=6.0, random_state=0)
    X = StandardScaler().fit_transform(X)
    with threadpool_limits(1), tempfile.TemporaryDirectory() as cache:
        t_plain, plain = search(X, y, args.rank, None)
        t_cached, cached = search(X, y, args.rank, Memory(cache, verbose=0))
        n_entries = sum("output.pkl" in files for _, _, files in os.walk(cache))
    print(f"n = {args.n}, d = 20, rank = {args.rank}, grid 5 slack x 2 gamma, 3 folds "
          f"(30 fits + refit), one BLAS thread")
    print(f"{'':24s}{'time [s]':>10s}  best params                         best score")
    for name, t, gs in [("without cache", t_plain, plain), ("memory=Memory(...)", t_cached,
                                                             cached)]:
        print(f"{name:24s}{t:10.1f}  {str(gs.best_params_):35s} {gs.best_score_:.4f}")
    print(f"speed-up {t_plain / t_cached:.1f}x; factors cached: {n_entries}")
    same = (plain.best_params_ == cached.best_params_ and np.allclose(
        plain.cv_results_["mean_test_score"], cached.cv_results_["mean_test_score"],
        rtol=0, atol=1e-12))
    print(f"same scores for every candidate: {same}")


if __name__ == "__main__":
    main()
