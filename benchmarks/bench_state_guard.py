"""Microseconds per call of the engine's state guard against eigvalsh alone.

``moderate_state`` runs once per sweep of every LogDet / SKLR fit.  Its rule
is lambda_min > 1e-12 lambda_max; it settles the clear cases by a Cholesky
factorisation of ``M - 2e-12 |M|_inf I`` and leaves the rest to the
eigenvalue rule.  Reference, in the same run: ``scipy.linalg.eigvalsh`` of
the same well-conditioned SPD matrix (what the guard used to cost), one BLAS
thread.

Usage::

    python benchmarks/bench_state_guard.py [--ranks 20 100 300]
"""

import argparse
import os
import sys
import timeit

import numpy as np
from scipy import linalg
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sklearn_bregman._engine import moderate_state  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[20, 100, 300])
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'r':>5} {'guard us':>10} {'eigvalsh us':>12} {'ratio':>7}")
    for r in args.ranks:
        A = rng.standard_normal((r, r))
        M = A @ A.T / r + np.eye(r)
        with threadpool_limits(1):
            guard = min(timeit.repeat(lambda M=M: moderate_state(M), number=200,
                                      repeat=5)) / 200
            eig = min(timeit.repeat(lambda M=M: linalg.eigvalsh(M, check_finite=False),
                                    number=200, repeat=5)) / 200
        print(f"{r:5d} {guard * 1e6:10.0f} {eig * 1e6:12.0f} {eig / guard:6.1f}x")


if __name__ == "__main__":
    main()
