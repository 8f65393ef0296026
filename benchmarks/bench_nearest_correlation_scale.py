"""NearestCorrelation at n = 100,000 from a rank-20 factor (input='factor').

The factor G0 (n x r, rows N(0, s^2 I); s = 0.15 by default: mean
communality |g_i|^2 = 0.45, and the ~100 rows with |g_i|^2 > 1 have their
psi0 floored at the nugget, so the start K0 = Psi0 + G0 G0' misses the unit
diagonal there and the projections have to pull the shared factor; with
--scale 0.2, a fifth of the rows) goes in as it is; nothing of size n x n is formed (one such
array would take 80 GB).  Printed: fit time, sweeps, the largest |K_ii - 1|
recomputed from the result, the evidence that K = Psi + F F' is positive
definite of the stated structure (F has r columns, every psi_i > 0), and
peak memory: tracemalloc's peak of Python-allocated memory during the fit
and the process's resident-set peak (resource.getrusage ru_maxrss).  Run::

    python benchmarks/bench_nearest_correlation_scale.py [--n N] [--rank R]
"""

import argparse
import resource
import time
import tracemalloc

import numpy as np

from sklearn_bregman import NearestCorrelation


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--rank", type=int, default=20)
    parser.add_argument("--verbose", type=int, default=0)
    parser.add_argument("--scale", type=float, default=0.15)
    args = parser.parse_args()
    n, r = args.n, args.rank
    rng = np.random.default_rng(0)
    G0 = rng.standard_normal((n, r)) * args.scale
    over = int(np.count_nonzero(np.einsum("ij,ij->i", G0, G0) > 1.0))
    print(f"n = {n}, r = {r}: {over} rows with |g_i|^2 > 1 (psi0 floored at the nugget)")

    tracemalloc.start()
    t0 = time.perf_counter()
    est = NearestCorrelation(input="factor", verbose=args.verbose).fit(G0)
    sec = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB (Linux)

    F, psi = est.factor_, est.uniqueness_
    diag = psi + np.einsum("ij,ij->i", F, F)
    print(f"fit time                      {sec:.2f} s ({est.n_iter_} sweeps, "
          f"converged_={est.converged_})")
    print(f"max |K_ii - 1| (recomputed)   {np.abs(diag - 1).max():.2e}")
    print(f"factor_ shape                 {F.shape} (rank of F F': "
          f"{np.linalg.matrix_rank(F)})")
    print(f"min uniqueness_ psi_i         {psi.min():.3e} (all > 0: "
          f"{bool(np.all(psi > 0))}; K = diag(psi) + F F' is positive definite)")
    print(f"divergence_ D_ld(K, K0)       {est.divergence_:.6g}")
    print(f"peak memory (tracemalloc)     {peak / 2**20:.1f} MB during the fit")
    print(f"peak RSS (ru_maxrss)          {rss:.1f} MB for the whole process")
    print(f"(one n x n float64 array: {n * n * 8 / 2**30:.1f} GB)")


if __name__ == "__main__":
    main()
