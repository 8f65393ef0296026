"""Learning from a stream of batches: ``partial_fit`` against refitting.

Three measurements, in one run:

1. **Same optimum.**  ``partial_fit`` over 10 batches of the digits (PCA to
   20 dimensions, labels drawn into 100 pairs per batch, fixed bounds)
   against ``fit`` on the union of their constraints, ``tol=1e-10``:
   relative difference of the learned metric (ITML) and of the learned
   kernel on all points (LogDet, rbf rank 50, the union fitted on the
   stream's factor coordinates).
2. **Time of a stream.**  The same stream of B batches (``--batches``,
   default 30): the whole stream by ``partial_fit`` keeping every
   constraint (each call ends at the optimum of everything seen), by
   ``partial_fit(max_constraints=m)`` (a window of the last m), and by
   refitting from scratch after every batch on everything seen (ITML: the
   union of the constraints with the stream's bounds, the same problem;
   LogDet: the points seen so far, its factor rebuilt on them, the union of
   the pairs with bounds by its own rule on that factor), with the sweeps
   of each.
3. **An unbounded stream.**  1,000 batches of 50 new points (5 Gaussian
   classes in 20 dimensions, 100 pairs each) through
   ``LogDetKernelLearner(kernel='rbf', rank=50, max_constraints=2000)``: the
   size of the fitted estimator (pickled) and the traced peak of each call
   at batches 1, 10, 100, 1,000, and the time per call; and, for the first
   ``--refit`` batches (default 200), the time of refitting from scratch
   after every batch on every point and pair seen, against the window's
   time over the same batches.

Run::

    python benchmarks/bench_partial_fit.py [--batches 30] [--stream 1000] [--refit 200]
"""

import argparse
import os
import pickle
import sys
import time
import tracemalloc
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sklearn_bregman import ITMLTransformer, LogDetKernelLearner  # noqa: E402


def digits(seed=0):
    X, y = load_digits(return_X_y=True)
    X = PCA(20, random_state=0).fit_transform(X)
    X /= X.std()
    p = np.random.RandomState(seed).permutation(len(X))
    return X[p], y[p]


def run_stream(est, X, y, batches):
    """partial_fit over the batches: time, sweeps, the union as rows over X."""
    rows, sweeps = [], 0
    t0 = time.perf_counter()
    for b in batches:
        est.partial_fit(X[b], y[b])
        sweeps += est.n_iter_
        c = est.constraints_
        rows.append(np.c_[b[c.i], b[c.j], c.sign, c.bound])
    return time.perf_counter() - t0, sweeps, rows


def same_optimum():
    X, y = digits()
    batches = np.array_split(np.arange(len(X)), 10)
    tight = dict(tol=1e-10, max_iter=100_000)
    print("1. partial_fit over 10 batches against fit on the union of their constraints "
          "(tol=1e-10)")
    itml = ITMLTransformer(n_constraints=100, random_state=0, **tight)
    _, _, rows = run_stream(itml, X, y, batches)
    union = np.vstack(rows)
    ref = ITMLTransformer(random_state=1, **tight).fit(X, constraints=union)
    err = np.abs(itml.metric_ - ref.metric_).max() / np.abs(ref.metric_).max()
    print(f"   ITML ({len(union)} pairs): max |A_stream - A_fit| / max |A_fit| = {err:.2e}")
    ld = LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=50, n_constraints=100,
                             random_state=0, **tight)
    _, _, rows = run_stream(ld, X, y, batches)
    union = np.vstack(rows)
    Phi = ld.factor_.transform(X)
    ref = LogDetKernelLearner(kernel="linear", random_state=1, **tight).fit(
        Phi, constraints=union)
    K1, K2 = ld.learned_kernel(X), ref.learned_kernel(Phi)
    err = np.abs(K1 - K2).max() / np.abs(K2).max()
    print(f"   LogDet rbf rank 50 ({len(union)} pairs, {len(X)} points): "
          f"max |K_stream - K_fit| / max |K_fit| = {err:.2e}")


def stream_time(n_batches):
    X, y = digits()
    batches = np.array_split(np.arange(len(X)), n_batches)
    print(f"\n2. a stream of {n_batches} batches of the digits ({len(batches[0])} points, "
          "100 pairs each), default tol")
    print(f"   {'':<34}{'time (s)':>10}{'sweeps':>9}{'vs refit':>10}")
    for name, make, refit_points in [
            ("ITML", lambda **kw: ITMLTransformer(n_constraints=100, random_state=0, **kw),
             False),
            ("LogDet rbf rank 50",
             lambda **kw: LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=50,
                                              n_constraints=100, random_state=0, **kw),
             True)]:
        t_all, s_all, rows = run_stream(make(), X, y, batches)
        t_win, s_win, _ = run_stream(make(max_constraints=500), X, y, batches)
        # refit from scratch after every batch, on everything seen
        t0, s_ref = time.perf_counter(), 0
        for k in range(1, n_batches + 1):
            union = np.vstack(rows[:k])
            seen = np.concatenate(batches[:k])
            if refit_points:  # the points seen, re-indexed; bounds by its own rule
                where = np.empty(len(X), np.intp)
                where[seen] = np.arange(seen.size)
                cons = np.c_[where[union[:, 0].astype(int)], where[union[:, 1].astype(int)],
                             union[:, 2]].astype(int)
                est = make().fit(X[seen], constraints=cons)
            else:
                est = make().fit(X, constraints=union)
            s_ref += est.n_iter_
        t_ref = time.perf_counter() - t0
        print(f"   {name}: refit after every batch  {t_ref:10.2f}{s_ref:9d}{1.0:9.1f}x")
        print(f"   {name}: partial_fit, all kept    {t_all:10.2f}{s_all:9d}"
              f"{t_ref / t_all:9.1f}x")
        print(f"   {name}: max_constraints=500      {t_win:10.2f}{s_win:9d}"
              f"{t_ref / t_win:9.1f}x")


def unbounded_stream(n_calls, n_refit):
    rng = np.random.default_rng(0)
    centers = rng.normal(scale=1.0, size=(5, 20))

    def make(**kw):
        return LogDetKernelLearner(kernel="rbf", gamma=0.02, rank=50, n_constraints=100,
                                   random_state=0, **kw)

    est = make(max_constraints=2000)
    print(f"\n3. {n_calls} batches of 50 new points (100 pairs each), "
          "LogDetKernelLearner(kernel='rbf', rank=50, max_constraints=2000)")
    print(f"   {'batch':>6}{'pickled (KB)':>14}{'traced peak of the call (KB)':>30}"
          f"{'s per call':>12}{'kept':>7}{'converged':>11}")
    marks = {1, 10, 100, 1000, n_calls}
    t_last, calls, t_window = time.perf_counter(), 0, 0.0
    points, pairs = [], []
    for k in range(1, n_calls + 1):
        y = rng.integers(0, 5, 50)
        X = centers[y] + rng.normal(size=(50, 20))
        tracemalloc.start()
        t0 = time.perf_counter()
        est.partial_fit(X, y)
        if k <= n_refit:
            t_window += time.perf_counter() - t0
            c = est.constraints_
            pairs.append(np.c_[c.i + 50 * (k - 1), c.j + 50 * (k - 1), c.sign])
            points.append(X)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        calls += 1
        if k in marks:
            per = (time.perf_counter() - t_last) / calls
            print(f"   {k:>6}{len(pickle.dumps(est)) / 1024:14.1f}{peak / 1024:30.1f}"
                  f"{per:12.4f}{est.n_constraints_kept_:7d}{str(est.converged_):>11}")
            t_last, calls = time.perf_counter(), 0
    if n_refit:
        t0, sweeps = time.perf_counter(), 0
        for k in range(1, n_refit + 1):
            ref = make().fit(np.vstack(points[:k]), constraints=np.vstack(pairs[:k]))
            sweeps += ref.n_iter_
        t_refit = time.perf_counter() - t0
        print(f"   the first {n_refit} batches: refit from scratch after every batch "
              f"(every point and pair seen) {t_refit:.2f} s ({sweeps} sweeps), "
              f"the window's partial_fit {t_window:.2f} s: {t_refit / t_window:.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--stream", type=int, default=1000)
    parser.add_argument("--refit", type=int, default=200)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    same_optimum()
    stream_time(args.batches)
    unbounded_stream(args.stream, args.refit)


if __name__ == "__main__":
    main()
