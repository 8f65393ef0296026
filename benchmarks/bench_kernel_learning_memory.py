"""Peak memory of an RBF LogDetKernelLearner at rank 100 on n = 200,000 points.

The learner must never form an n x n array: at n = 200,000 one float64
kernel matrix would take 320 GB.  This script fits on 200,000 points in 50
dimensions (10 classes, labels give the default 40 * 10^2 = 4,000 pair
constraints), and prints the peak resident memory of the process before
and after the fit, next to the sizes of the data and of the n x r factor.

Usage::

    python benchmarks/bench_kernel_learning_memory.py [--n 200000]
    python benchmarks/bench_kernel_learning_memory.py --sizes 25000 50000 100000 200000 \
        [--json PATH]

``--sizes`` fits each n in a process of its own (a fresh peak resident
memory each) and prints the fit time and peak memory against n beside the
n x r factor and the n x n kernel that is never formed; ``--json PATH``
writes that series for the documentation's figure
(``benchmarks/results/kernel_learning_memory.json``).

Issue #3 target: peak memory under 1 GB.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from sklearn.datasets import make_classification

from sklearn_bregman import LogDetKernelLearner

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _results  # noqa: E402


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--rank", type=int, default=100)
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help="fit each n in a process of its own and print the series")
    ap.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    _results.add_json_argument(ap)
    args = ap.parse_args()
    if args.sizes:
        return series(args)

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
          f"({'under' if after < 1024 else 'OVER'} 1 GB)")
    if args.record:
        print("RECORD " + json.dumps({
            "n": args.n, "fit_s": fit_s, "transform_10000_s": tr_s,
            "peak_rss_before_mb": before, "peak_rss_mb": after,
            "data_mb": X.nbytes / mb, "factor_mb": args.n * learner.rank_ * 8 / mb,
            "kernel_nxn_mb": args.n**2 * 8 / mb, "sweeps": learner.n_iter_,
            "converged": bool(learner.converged_), "rank": learner.rank_}))


def series(args):
    """Each n in a fresh process: fit time and peak memory against n."""
    rows = []
    for n in args.sizes:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--n", str(n),
                              "--d", str(args.d), "--rank", str(args.rank), "--record"],
                             capture_output=True, text=True, check=True).stdout
        print(f"--- n = {n:,}")
        for line in out.splitlines():
            if line.startswith("RECORD "):
                rows.append(json.loads(line[len("RECORD "):]))
            else:
                print(line)
    print(f"\n{'n':>9} {'fit s':>7} {'peak RSS MB':>12} {'X MB':>7} {'n x r MB':>9} "
          f"{'n x n GiB':>9}")
    for row in rows:
        print(f"{row['n']:>9,} {row['fit_s']:7.1f} {row['peak_rss_mb']:12.0f} "
              f"{row['data_mb']:7.0f} {row['factor_mb']:9.0f} "
              f"{row['kernel_nxn_mb'] / 1024:9.1f}")
    _results.write(args.json, "bench_kernel_learning_memory",
                   {"d": args.d, "rank": args.rank, "kernel": "rbf",
                    "gamma": f"1/{args.d}", "classes": 10,
                    "constraints": "default (40 c^2 = 4,000)", "blas_threads": "default",
                    "memory": "ru_maxrss of a fresh process per n (MB = 2^20 bytes)"},
                   {"runs": rows})


if __name__ == "__main__":
    main()
