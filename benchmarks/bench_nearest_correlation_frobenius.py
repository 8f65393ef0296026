"""The Frobenius-norm nearest correlation matrix: Newton vs alternating projections.

Three solvers of the same problem, min ||X - C||_F s.t. X_ii = 1, X PSD, in
one run, at tol = 1e-8 (the largest |X_ii - 1| allowed):

- ``NearestCorrelation('frobenius')``: Qi & Sun's (2006) Newton method on
  the dual, conjugate gradients with a Jacobi preconditioner (Borsdorf &
  Higham 2010);
- ``NearestCorrelation('frobenius', solver='projections')``: Higham's (2002)
  alternating projections with Dykstra's correction (written on the dual,
  one eigendecomposition per iteration), until the PSD iterate's diagonal is
  within tol of 1;
- statsmodels' ``corr_nearest(C, n_fact=k / n)`` (the same alternating
  projections in matrix form; it has no tolerance and runs n * n_fact
  iterations unless an iterate needs no clipping): given k = the number of
  iterations our projections needed, or its default n_fact = 100 when they
  did not finish.  It returns the unit-diagonal iterate, so its diagonal
  error is 0 and its smallest eigenvalue shows how far from PSD it is.

Inputs: "uniform", a random symmetric matrix with unit diagonal and
off-diagonal entries uniform in [-1, 1] (upper triangle drawn with
``numpy.random.default_rng(n).uniform(-1, 1)``, mirrored; strongly
indefinite); "pairwise", the pairwise-complete correlation estimate of a
5-factor model with 20% of the entries missing, as
``bench_nearest_correlation.py`` builds it (seed n).

Columns: wall-clock time of the fit alone (time.perf_counter), iterations,
||X - C||_F, the smallest eigenvalue of the X returned (numpy.linalg.eigvalsh),
max |X_ii - 1|.  BLAS on one thread (threadpoolctl; the machine is shared).
A fit is interrupted after 120 s (SIGALRM, checked between the library's
calls) and shown as "> 120".  Run::

    python benchmarks/bench_nearest_correlation_frobenius.py           # n = 500, 1000, 2000
    python benchmarks/bench_nearest_correlation_frobenius.py --quick   # n = 200, 400
    python benchmarks/bench_nearest_correlation_frobenius.py --sizes 250 500 1000 \
        --pairwise-n 1000 --json PATH

``--sizes`` and ``--pairwise-n`` choose the n of the uniform inputs and the
one n of the pairwise input; ``--json PATH`` writes every fit (time,
iterations, ||X - C||_F, smallest eigenvalue, diagonal error) for the
documentation's figure (``benchmarks/results/nearest_correlation_frobenius.json``).
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from statsmodels.stats.correlation_tools import corr_nearest
from threadpoolctl import threadpool_limits

from sklearn_bregman import NearestCorrelation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# (the pairwise-complete input and the SIGALRM timer of the LogDet comparison)
import _results  # noqa: E402
from bench_nearest_correlation import pairwise_correlation, timed  # noqa: E402

TOL = 1e-8
BUDGET = 120.0
RECORDS = []  # one dict per fit, for --json


def uniform_unit_diagonal(n, seed):
    rng = np.random.default_rng(seed)
    U = np.triu(rng.uniform(-1.0, 1.0, (n, n)), 1)
    C = U + U.T
    np.fill_diagonal(C, 1.0)
    return C


def ours(C, solver):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # (converged_ is shown)
        est = NearestCorrelation("frobenius", solver=solver, tol=TOL,
                                 max_iter=100000).fit(C)
    return est.correlation_, est.n_iter_, est.converged_


def statsmodels(C, n_iter):
    n = C.shape[0]
    n_fact = 100 if n_iter is None else (n_iter + 0.5) / n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (its iteration limit)
        X = corr_nearest(C, n_fact=n_fact)
    return X, int(n * n_fact), None


def row(n, label, name, out, sec, C):
    if out is None:
        print(f"{n:>5} {label:<9} {name:<26} {'> ' + str(int(BUDGET)):>9}")
        RECORDS.append({"n": n, "input": label, "method": name, "seconds": None,
                        "interrupted_after": BUDGET})
        return None
    X, n_iter, converged = out
    lam0 = np.linalg.eigvalsh(X)[0]
    RECORDS.append({"n": n, "input": label, "method": name, "seconds": sec,
                    "iterations": n_iter, "distance_to_C": np.linalg.norm(X - C),
                    "min_eigenvalue": lam0, "max_diagonal_error": np.abs(np.diag(X) - 1).max(),
                    "converged": converged})
    flag = {True: "", False: "  (not converged)", None: ""}[converged]
    print(f"{n:>5} {label:<9} {name:<26} {sec:9.2f} {n_iter:>6} "
          f"{np.linalg.norm(X - C):11.6f} {lam0:11.2e} {np.abs(np.diag(X) - 1).max():10.2e}"
          f"{flag}")
    return lam0


def run(n, label, C):
    w = np.linalg.eigvalsh(C)
    print(f"{n:>5} {label:<9} (C: smallest eigenvalue {w[0]:.3f}, negative eigenvalues "
          f"{np.count_nonzero(w < 0)}, ||C||_F {np.linalg.norm(C):.1f})")
    newton, t_newton = timed(lambda C: ours(C, "newton"), C, BUDGET)
    lam_newton = row(n, label, "Newton (ours)", newton, t_newton, C)
    proj, t_proj = timed(lambda C: ours(C, "projections"), C, BUDGET)
    row(n, label, "projections (ours)", proj, t_proj, C)
    k = None if proj is None else proj[1]
    sm, t_sm = timed(lambda C: statsmodels(C, k), C, BUDGET)
    row(n, label, "statsmodels corr_nearest", sm, t_sm, C)
    if newton is not None and proj is not None:
        gap = np.abs(newton[0] - proj[0]).max()
        print(f"{'':>5} {label:<9} projections / Newton time: {t_proj / t_newton:.1f}x; "
              f"max |X_newton - X_projections| {gap:.1e}")
    elif newton is not None:
        print(f"{'':>5} {label:<9} projections / Newton time: > {BUDGET / t_newton:.1f}x")
    if sm is not None and newton is not None:
        print(f"{'':>5} {label:<9} statsmodels / Newton time: {t_sm / t_newton:.1f}x")
    return t_newton, t_proj if proj is not None else None, lam_newton


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 200, 400")
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="n of the uniform inputs (default 500 1000 2000)")
    parser.add_argument("--pairwise-n", type=int, default=None,
                        help="n of the pairwise input, one of --sizes (default 1000)")
    _results.add_json_argument(parser)
    args = parser.parse_args()
    threadpool_limits(1)
    t0 = time.perf_counter()
    C = uniform_unit_diagonal(60, 0)
    ours(C, "newton"), ours(C, "projections"), statsmodels(C, 10)  # warm-up
    sizes = [200, 400] if args.quick else [500, 1000, 2000]
    pairwise_n = 400 if args.quick else 1000
    sizes = sizes if args.sizes is None else args.sizes
    pairwise_n = pairwise_n if args.pairwise_n is None else args.pairwise_n
    print(f"tol = {TOL:g}; BLAS on one thread; fits interrupted after {BUDGET:.0f} s\n")
    print(f"{'n':>5} {'input':<9} {'method':<26} {'time [s]':>9} {'iters':>6} "
          f"{'||X-C||_F':>11} {'min eig X':>11} {'max|X_ii-1|':>10}")
    results = {}
    for n in sizes:
        results[n, "uniform"] = run(n, "uniform", uniform_unit_diagonal(n, n))
        if n == pairwise_n:
            results[n, "pairwise"] = run(n, "pairwise", pairwise_correlation(n, seed=n))
    print()
    worst = min(lam for _, _, lam in results.values() if lam is not None)
    print(f"smallest eigenvalue of any Newton result: {worst:.2e} "
          f"({'never below' if worst >= -1e-12 else 'BELOW'} -1e-12)")
    goal_n = 1000 if not args.quick else 400
    if (goal_n, "uniform") in results:
        t_n, t_p, _ = results[goal_n, "uniform"]
        ratio = (t_p if t_p is not None else BUDGET) / t_n
        print(f"n = {goal_n} (uniform): projections / Newton time "
              f"{'>' if t_p is None else ''}{ratio:.1f}x (goal: at least 5x)")
    total = time.perf_counter() - t0
    print(f"\ntotal {total:.0f} s")
    _results.write(args.json, "bench_nearest_correlation_frobenius",
                   {"tol": TOL, "budget_s": BUDGET, "blas_threads": 1,
                    "uniform_sizes": sizes, "pairwise_n": pairwise_n,
                    "corr_nearest": "n_fact = (iterations of our projections + 0.5) / n"},
                   {"fits": RECORDS, "total_s": total}, peers=("statsmodels",))


if __name__ == "__main__":
    main()
