"""NearestCorrelation at n = 100,000 from a rank-20 factor (input='factor'):
Newton-CG on the dual against the cyclic projections, from an easy and a
hard start.

The factor G0 (n x r) has rows N(0, s^2 I).  The easy start (s = 0.1) has
every |g_i|^2 < 1: the start K0 = Psi0 + G0 G0' is nearly a correlation
matrix already.  The hard start (s^2 = 0.81 / r, about a fifth of the rows
with |g_i|^2 > 1) has those rows' psi0 floored at the nugget, so K0 misses
the unit diagonal there and the solution has to pull the shared factor.
Each start is fitted by ``solver='newton'`` (the default) and
``solver='projections'`` (the paper's cyclic projections, each sweep
followed by a Newton step on the n-dimensional dual), in the same run;
printed: fit time, iterations, the largest |K_ii - 1| recomputed from the
result, the divergence, and how far the two solvers' solutions are apart
(their uniquenesses and duals: nothing n x n is formed, one such array
would take 80 GB), then the hard / easy time ratio of each solver, and the
peak memory of the Newton fits (tracemalloc).  BLAS on one thread.  Run::

    python benchmarks/bench_nearest_correlation_scale.py [--n N] [--rank R]
        [--skip-projections]
    python benchmarks/bench_nearest_correlation_scale.py \
        --sizes 12500 25000 50000 100000 --json PATH

``--sizes`` runs the same for each n in turn (time and traced peak memory
against n, where one n x n array would take n^2 8 bytes); ``--json PATH``
writes every fit for the documentation's figure
(``benchmarks/results/nearest_correlation_scale.json``).
"""

import argparse
import os
import resource
import sys
import time
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_bregman import NearestCorrelation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _results  # noqa: E402


def fit(G0, solver):
    tracemalloc.start()
    t0 = time.perf_counter()
    est = NearestCorrelation(input="factor", solver=solver, max_iter=5000).fit(G0)
    sec = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return est, sec, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--rank", type=int, default=20)
    parser.add_argument("--skip-projections", action="store_true",
                        help="fit the hard start by Newton-CG only (the projections "
                             "take minutes there)")
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="run each n in turn (instead of --n)")
    _results.add_json_argument(parser)
    args = parser.parse_args()
    # BLAS on one thread: on a shared 2-core machine two OpenBLAS threads made
    # the same fit vary tenfold
    threadpool_limits(1)
    records = []
    warm = np.random.default_rng(1).standard_normal((500, args.rank)) * 0.1
    for solver in ("newton", "projections"):  # warm-up: imports, first calls
        NearestCorrelation(input="factor", solver=solver).fit(warm)
    for n in args.sizes or [args.n]:
        if args.sizes:
            print(f"\n--- n = {n:,}, r = {args.rank}")
        run(n, args.rank, args.skip_projections, records)
    _results.write(args.json, "bench_nearest_correlation_scale",
                   {"rank": args.rank, "input": "factor", "max_iter": 5000,
                    "easy_start": "rows N(0, 0.01 I)", "hard_start": "rows N(0, 0.81/r I)",
                    "memory": "tracemalloc peak of each fit (MB = 2^20 bytes)",
                    "blas_threads": 1},
                   {"fits": records})


def run(n, r, skip_projections, records):
    starts = {"easy": 0.1, "hard": np.sqrt(0.81 / r)}
    times = {}
    print(f"{'start':6} {'capped rows':>11} {'solver':20} {'time [s]':>9} {'iters':>6} "
          f"{'max|K_ii-1|':>12} {'D_ld(K, K0)':>14} {'peak MB':>8}")
    for name, scale in starts.items():
        G0 = np.random.default_rng(0).standard_normal((n, r)) * scale
        capped = int(np.count_nonzero(np.einsum("ij,ij->i", G0, G0) > 1.0))
        fitted = {}
        for solver in ("newton", "projections"):
            if solver == "projections" and name == "hard" and skip_projections:
                continue
            est, sec, peak = fit(G0, solver)
            fitted[solver] = est
            times[name, solver] = sec
            records.append({"n": n, "rank": r, "start": name, "capped_rows": capped,
                            "solver": est.solver_, "seconds": sec, "iterations": est.n_iter_,
                            "max_diagonal_error": est.max_diagonal_error_,
                            "divergence": est.divergence_, "peak_traced_mb": peak / 2**20,
                            "nxn_float64_mb": n * n * 8 / 2**20})
            print(f"{name:6} {capped:11d} {est.solver_:20} {sec:9.2f} {est.n_iter_:6d} "
                  f"{est.max_diagonal_error_:12.2e} {est.divergence_:14.6f} "
                  f"{peak / 2**20:8.1f}", flush=True)
        if len(fitted) == 2:
            a, b = fitted["newton"], fitted["projections"]
            print(f"{'':6} newton vs projections: max |psi diff| "
                  f"{np.abs(a.uniqueness_ - b.uniqueness_).max():.2e}, max |alpha diff| "
                  f"{np.abs(a.dual_coef_ - b.dual_coef_).max():.2e}, divergence diff "
                  f"{abs(a.divergence_ - b.divergence_):.2e} (relative "
                  f"{abs(a.divergence_ - b.divergence_) / max(abs(b.divergence_), 1):.2e})")
    for solver in ("newton", "projections"):
        if ("hard", solver) in times:
            print(f"{solver:12} hard / easy time: "
                  f"{times['hard', solver] / times['easy', solver]:.1f}x")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB (Linux)
    print(f"peak RSS (ru_maxrss) {rss:.1f} MB for the whole process; one n x n float64 "
          f"array: {n * n * 8 / 2**30:.1f} GB")


if __name__ == "__main__":
    main()
