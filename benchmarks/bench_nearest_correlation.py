"""NearestCorrelation against statsmodels' corr_nearest and corr_nearest_factor.

Data: a factor model X = Z B' + noise (k = 5 factors, 200 observations of n
variables), 20% of the entries missing at random, and the pairwise-complete
correlation estimate C (each pair from the rows where both are observed):
symmetric with unit diagonal, indefinite.  For each n the three methods
fit C:

- ``NearestCorrelation(rank=k)`` (LogDet, ``input='matrix'``): start
  K0 = Psi0 + G0 G0' from the top k eigenpairs of C;
- ``corr_nearest(C, threshold=1e-8, n_fact=20/n)`` (Higham-type alternating
  projections with Dykstra's correction, Frobenius; at most 20 iterations,
  each an n x n eigendecomposition: with its default n_fact=100 it runs
  100 n of them unless the eigenvalues need no clipping, which took more
  than 2 minutes at n = 300 here).  It returns the last iterate with its
  diagonal set to 1, so its diagonal error is 0 and its smallest eigenvalue
  shows how far it is from PSD;
- ``corr_nearest_factor(C, k)`` (F F' + diag(1 - |f_i|^2), Frobenius over
  that family).

Columns: fit time (wall clock, time.perf_counter, the fit only, C given),
the largest |K_ii - 1|, the Frobenius distance ||K - C||_F, and the
smallest eigenvalue of K.  BLAS runs on one thread (threadpoolctl; on a
2-core machine with another process busy, two OpenBLAS threads made the
same fit vary from 0.1 s to 5 s).  A fit is interrupted after 60 s (a SIGALRM timer
checked between the library's calls) and shown as "> 60".

"Largest n within 60 s": n doubles from 500 (one C per n, shared by the
methods); a method drops out at the first n whose fit takes more than
60 s, and the last n it fitted within 60 s is reported.  The cap is
n = 8000 (C and its copies take several n x n arrays).  Run::

    python benchmarks/bench_nearest_correlation.py           # n = 500, 2000, 5000
    python benchmarks/bench_nearest_correlation.py --quick   # n = 300, 600; 5 s budget
    python benchmarks/bench_nearest_correlation.py --sizes 500 2000 --start 250 \
        --cap 4000 --json PATH

``--sizes`` sets the table's n, ``--budget``, ``--start`` and ``--cap`` the
search for the largest n; ``--json PATH`` writes both (every fit's time,
diagonal error, distance to C and smallest eigenvalue; the time against n
of each method) for the documentation's figure
(``benchmarks/results/nearest_correlation.json``).
"""

import argparse
import os
import signal
import sys
import time
import warnings

import numpy as np
from statsmodels.stats.correlation_tools import corr_nearest, corr_nearest_factor
from threadpoolctl import threadpool_limits

from sklearn_bregman import NearestCorrelation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _results  # noqa: E402

K_FACTORS = 5
N_OBS = 200


def pairwise_correlation(n, seed, missing=0.2, n_obs=N_OBS, k=K_FACTORS):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, k)) * 0.6
    X = rng.standard_normal((n_obs, k)) @ B.T + rng.standard_normal((n_obs, n))
    mask = rng.random(X.shape) >= missing
    Xz = np.where(mask, X, 0.0)
    Mf = mask.astype(float)
    cnt = Mf.T @ Mf
    C = Xz.T @ Xz
    C /= cnt
    m = Xz.T @ Mf
    m /= cnt  # m[i, j]: mean of variable i over rows where j is observed too
    C -= m * m.T
    v = (Xz ** 2).T @ Mf
    v /= cnt
    v -= m ** 2  # v[i, j]: variance of i over those rows
    C /= np.sqrt(v * v.T)
    del m, v, cnt
    C = (C + C.T) / 2
    np.fill_diagonal(C, 1.0)
    return C


def fit_ours(C):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (C is indefinite: said once below)
        est = NearestCorrelation(rank=K_FACTORS).fit(C)
    assert est.converged_
    return est.correlation_


def fit_corr_nearest(C):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return corr_nearest(C, threshold=1e-8, n_fact=20 / C.shape[0])


def fit_corr_nearest_factor(C):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return corr_nearest_factor(C, K_FACTORS).corr.to_matrix()


METHODS = {
    "NearestCorrelation (LogDet, rank=5)": fit_ours,
    "statsmodels corr_nearest": fit_corr_nearest,
    "statsmodels corr_nearest_factor (k=5)": fit_corr_nearest_factor,
}


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout


def timed(fit, C, budget):
    """(K, seconds), or (None, seconds) when the fit ran past ``budget``."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, budget)
    t0 = time.perf_counter()
    try:
        K = fit(C)
    except Timeout:
        K = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return K, time.perf_counter() - t0


def table(sizes, budget):
    rows = []
    print(f"{'n':>6}  {'method':<38} {'time [s]':>9} {'max|K_ii-1|':>12} "
          f"{'||K-C||_F':>10} {'min eig K':>10}")
    for n in sizes:
        C = pairwise_correlation(n, seed=n)
        w = np.linalg.eigvalsh(C)
        print(f"{n:>6}  (input C: smallest eigenvalue {w[0]:.3f}, "
              f"negative mass {-w[w < 0].sum():.2f}, ||C||_F {np.linalg.norm(C):.1f})")
        for name, fit in METHODS.items():
            K, sec = timed(fit, C, budget)
            if K is None:
                print(f"{n:>6}  {name:<38} {'> ' + str(int(budget)):>9}")
                rows.append({"n": n, "method": name, "seconds": None,
                             "interrupted_after": budget})
                continue
            err = np.abs(np.diag(K) - 1).max()
            fro = np.linalg.norm(K - C)
            mineig = np.linalg.eigvalsh(K)[0]
            print(f"{n:>6}  {name:<38} {sec:9.2f} {err:12.2e} {fro:10.2f} {mineig:10.2e}")
            rows.append({"n": n, "method": name, "seconds": sec, "max_diagonal_error": err,
                         "distance_to_C": fro, "min_eigenvalue": mineig,
                         "input_min_eigenvalue": w[0]})
            del K
    return rows


def largest_within(budget, start, cap):
    print(f"\nlargest n whose fit took at most {budget:.0f} s (n doubling from {start}, "
          f"cap {cap}; wall clock of the fit alone):")
    best = dict.fromkeys(METHODS)
    stopped = {}
    curve = []
    n = start
    while n <= cap and len(stopped) < len(METHODS):
        C = pairwise_correlation(n, seed=n)
        for name, fit in METHODS.items():
            if name in stopped:
                continue
            K, sec = timed(fit, C, budget)
            del K
            print(f"  n = {n:>5}  {name:<38} {sec:7.2f} s")
            curve.append({"n": n, "method": name, "seconds": sec,
                          "interrupted": bool(sec > budget)})
            if sec > budget:
                stopped[name] = n
            else:
                best[name] = n
        del C
        n *= 2
    for name in METHODS:
        why = (f"n = {stopped[name]} took more than {budget:.0f} s" if name in stopped
               else f"cap {cap} reached")
        print(f"  {name:<38} largest n = {best[name]} ({why})")
    return curve, best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 5 s budget")
    parser.add_argument("--sizes", type=int, nargs="*", default=None,
                        help="n of the table (default 500 2000 5000)")
    parser.add_argument("--budget", type=float, default=None, help="seconds (default 60)")
    parser.add_argument("--start", type=int, default=None,
                        help="first n of the search for the largest n (default 500)")
    parser.add_argument("--cap", type=int, default=None,
                        help="last n of that search (default 8000)")
    _results.add_json_argument(parser)
    args = parser.parse_args()
    sizes, budget, start, cap = ([300, 600], 5.0, 300, 2400) if args.quick else \
        ([500, 2000, 5000], 60.0, 500, 8000)
    sizes = sizes if args.sizes is None else args.sizes
    budget = budget if args.budget is None else args.budget
    start = start if args.start is None else args.start
    cap = cap if args.cap is None else args.cap
    threadpool_limits(1)
    t0 = time.perf_counter()
    C = pairwise_correlation(60, seed=0)
    for fit in METHODS.values():  # warm-up: imports, BLAS threads
        fit(C)
    rows = table(sizes, budget) if sizes else []
    curve, best = largest_within(budget, start, cap)
    total = time.perf_counter() - t0
    print(f"\ntotal {total:.0f} s")
    _results.write(args.json, "bench_nearest_correlation",
                   {"factors": K_FACTORS, "observations": N_OBS, "missing": 0.2,
                    "budget_s": budget, "start": start, "cap": cap, "blas_threads": 1,
                    "corr_nearest": "threshold=1e-8, n_fact=20/n (at most 20 iterations)",
                    "ours": f"NearestCorrelation(rank={K_FACTORS}), LogDet, input='matrix'"},
                   {"table": rows, "time_against_n": curve, "largest_n": best,
                    "total_s": total},
                   peers=("statsmodels",))


if __name__ == "__main__":
    main()
