"""Peak memory of an RBF LogDetKernelLearner at rank 100 on n = 200,000 points.

The learner must never form an n x n array: at n = 200,000 one float64
kernel matrix would take 320 GB.  This script fits on 200,000 points in 50
dimensions (10 classes, labels give the default 40 * 10^2 = 4,000 pair
constraints), and prints the peak resident memory of the process before
and after the fit, next to the sizes of the data and of the n x r factor.

Usage::

    python benchmarks/bench_kernel_learning_memory.py [--n 200000]

Issue #3 target: peak memory under 1 GB.
"""

import argparse
import resource
import time

from sklearn.datasets import make_classification

from sklearn_bregman import LogDetKernelLearner


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--rank", type=int, default=100)
    args = ap.parse_args()

    X, y = make_classification(args.n, args.d, n_informative=20, n_classes=10,
                               random_state=0)
    before = peak_rss_mb()
    learner = LogDetKernelLearner(kernel="rbf", gamma=1.0 / args.d, rank=args.rank,
                                  random_state=0)
    t0 = time.perf_counter()
    learner.fit(X, y)
    fit_s = time.perf_counter() - t0
    after = peak_rss_mb()
    t0 = time.perf_counter()
    Z = learner.transform(X[:10_000])
    tr_s = time.perf_counter() - t0

    mb = 1024**2
    print(f"n={args.n}, d={args.d}, rank={learner.rank_}, constraints="
          f"{len(learner.constraints_)}, sweeps={learner.n_iter_}, "
          f"converged={learner.converged_}")
    print(f"fit {fit_s:.1f} s; transform of 10,000 new points {tr_s:.2f} s -> {Z.shape}")
    print(f"data X: {X.nbytes / mb:.0f} MB; one n x r factor: "
          f"{args.n * learner.rank_ * 8 / mb:.0f} MB; an n x n float64 kernel would be "
          f"{args.n**2 * 8 / 1e9:.0f} GB")
    print(f"peak RSS before fit: {before:.0f} MB; peak RSS after fit: {after:.0f} MB "
          f"(target < 1024 MB: {'ok' if after < 1024 else 'MISSED'})")


if __name__ == "__main__":
    main()
