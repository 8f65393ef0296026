"""Microseconds per projection on general linear rows (JMLR 2009 §6.2.2).

``logdet_linear_sweep`` (``_engine/_linear.pyx``) projects onto rows
``tr(M C) <= b`` with ``C = sum_k s_k v_k v_k'`` of any rank q.  In one run,
on random problems (n = 2,000 points, rows drawn from a Gaussian factor of
rank r, one sweep from the identity, targets chosen so that almost every row
moves the state), this prints its time per projection next to:

- q = 1 (a pair row): the specialised rank-one pair sweep of ``_logdet.pyx``
  on the same constraints (ITML's update);
- q = 2 (a relative row ``d(a, b) <= d(a, c) / ratio``): SKLR's compiled
  rank-two triplet sweep of ``_triplet_sweep.pyx`` on the same rows (hard, its
  closed-form eq. 13);
- every q: the dense NumPy oracle of the tests (``tests/oracles.py``: an
  inverse per root-finder evaluation, O(r^3)), timed on 200 projections.

The von Neumann sweep on general rows (``_engine/_vn_linear.pyx``) is timed
the same way on the same pair and relative rows, posed on an orthonormal
basis with a spread log-spectrum, next to the rank-one von Neumann pair
sweep of ``_vonneumann.pyx`` (q = 1) and its dense oracle (``expm`` per
evaluation, timed on 20 projections).

Usage::

    python benchmarks/bench_linear_projection.py [--ranks 16 64 128]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sklearn_bregman._engine._linear import logdet_linear_sweep  # noqa: E402
from sklearn_bregman._engine._logdet import logdet_pair_sweep  # noqa: E402
from sklearn_bregman._engine._triplet_sweep import logdet_triplet_sweep  # noqa: E402
from sklearn_bregman._engine._vn_linear import vonneumann_linear_sweep  # noqa: E402
from sklearn_bregman._engine._vonneumann import vonneumann_pair_sweep  # noqa: E402

from benchmarks.bench_logdet_projection import problem  # noqa: E402
from tests.oracles import (  # noqa: E402
    logdet_linear_sweep_reference,
    vonneumann_linear_sweep_reference,
)


def best_of(repeats, fn):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def pair_problem(r, c, rng):
    """bench_logdet_projection's pairs, and the same as rows."""
    G, i, j, sign, bound = problem(r, c=c, seed=int(rng.integers(2 ** 31)))
    V = (G[i] - G[j])[:, None, :].copy()
    S = sign[:, None].copy()
    return (G, i, j, sign, bound), (V, S, np.ones(c, np.int8), sign * bound)


def triplet_problem(r, c, rng, ratio=2.0, n=2000):
    G = rng.standard_normal((n, r))
    a = rng.integers(0, n, c).astype(np.intp)
    b = ((a + 1 + rng.integers(0, n - 2, c)) % n).astype(np.intp)
    cc = ((b + 1 + rng.integers(0, n - 2, c)) % n).astype(np.intp)
    cc[cc == a] = (cc[cc == a] + 1) % n
    V = np.stack([np.sqrt(ratio) * (G[a] - G[b]), G[a] - G[cc]], axis=1)
    S = np.tile(np.array([1, -1], np.int8), (c, 1))
    return ((G, a, b, cc, np.ones(c, np.int8), np.full(c, ratio)),
            (V, S, np.ones(c, np.int8), np.zeros(c)))


def general_problem(r, q, c, rng):
    V = rng.standard_normal((c, q, r)) / np.sqrt(r)
    S = rng.choice(np.array([-1, 1], np.int8), size=(c, q))
    f0 = (S * (V ** 2).sum(2)).sum(1)
    return (V, S, np.ones(c, np.int8), f0 - 0.3 * np.abs(f0) - 0.1)


def linear_us(rows, m, slack, repeats, fn=logdet_linear_sweep, state0=None):
    V, S, kind, bound = rows
    r = V.shape[2]
    state0 = np.eye(r) if state0 is None else state0

    def run():
        M, xi, nu = state0.copy(), bound.copy(), np.zeros(len(bound))
        return fn(V, S, kind, bound, xi, nu, M, np.arange(m, dtype=np.intp), slack,
                  1e-3, True)
    t, out = best_of(repeats, run)
    return t / m * 1e6, out[2] / m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[16, 64, 128])
    ap.add_argument("--constraints", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    c, m_ref = args.constraints, 200
    rng = np.random.default_rng(0)
    print(f"{'row':>14} {'r':>4} {'compiled us':>12} {'moved':>6} {'specialist us':>14} "
          f"{'numpy oracle us':>16} {'vs specialist':>14} {'vs numpy':>9}")
    for r in args.ranks:
        pair, rows = pair_problem(r, c, rng)
        us, moved = linear_us(rows, c, 1.0, args.repeats)
        G, i, j, sign, bound = pair

        def run_pair(G=G, i=i, j=j, sign=sign, bound=bound, r=r):
            M, xi, nu = np.eye(r), bound.copy(), np.zeros(c)
            return logdet_pair_sweep(G, i, j, sign, bound, xi, nu, M,
                                     np.arange(c, dtype=np.intp), np.inf, 1e-3)
        t_spec, _ = best_of(args.repeats, run_pair)
        spec = t_spec / c * 1e6
        ref, _ = linear_us(rows, m_ref, 1.0, 1, logdet_linear_sweep_reference)
        print(f"{'pair (q=1)':>14} {r:4d} {us:12.2f} {moved:6.2f} {spec:14.2f} "
              f"{ref:16.1f} {us / spec:13.2f}x {ref / us:8.1f}x")

        trip, rows = triplet_problem(r, c, rng)
        us, moved = linear_us(rows, c, np.inf, args.repeats)
        G, a, b, cc, kind, g2 = trip

        def run_trip(G=G, a=a, b=b, cc=cc, kind=kind, g2=g2, r=r):
            M, nu = np.eye(r), np.zeros(c)
            return logdet_triplet_sweep(G, a, b, cc, kind, g2, nu, M,
                                        np.arange(c, dtype=np.intp), np.inf, np.inf,
                                        1e-3)
        t_spec, _ = best_of(args.repeats, run_trip)
        spec = t_spec / c * 1e6
        ref, _ = linear_us(rows, m_ref, np.inf, 1, logdet_linear_sweep_reference)
        print(f"{'relative (q=2)':>14} {r:4d} {us:12.2f} {moved:6.2f} {spec:14.2f} "
              f"{ref:16.1f} {us / spec:13.2f}x {ref / us:8.1f}x")

        q = max(r // 4, 3)
        rows = general_problem(r, q, c // 10, rng)
        us, moved = linear_us(rows, c // 10, 1.0, args.repeats)
        ref, _ = linear_us(rows, m_ref // 4, 1.0, 1, logdet_linear_sweep_reference)
        print(f"{f'general (q={q})':>14} {r:4d} {us:12.2f} {moved:6.2f} {'-':>14} "
              f"{ref:16.1f} {'-':>14} {ref / us:8.1f}x")

        vn_rows(r, c, rng, args.repeats)


def vn_rows(r, c, rng, repeats, n=2000):
    """Von Neumann: pair and relative rows on an orthonormal basis U of a
    Gaussian factor, from log X0 = diag(log s^2)."""
    c = c // 4
    U, s, _ = np.linalg.svd(rng.standard_normal((n, r)) * np.geomspace(1, 0.05, r),
                            full_matrices=False)
    L0 = np.diag(2 * np.log(s))
    X0 = np.diag(s ** 2)
    i = rng.integers(0, n, c).astype(np.intp)
    j = ((i + 1 + rng.integers(0, n - 1, c)) % n).astype(np.intp)
    k = ((j + 1 + rng.integers(0, n - 2, c)) % n).astype(np.intp)
    k[k == i] = (k[k == i] + 1) % n
    sign = np.where(rng.random(c) < 0.5, 1, -1).astype(np.int8)
    v = U[i] - U[j]
    d0 = np.einsum("cr,rs,cs->c", v, X0, v)
    bound = np.where(sign > 0, 0.6 * d0, 1.5 * d0)
    pair_rows = (v[:, None, :].copy(), sign[:, None].copy(), np.ones(c, np.int8),
                 sign * bound)
    us, moved = linear_us(pair_rows, c, 1.0, repeats, vonneumann_linear_sweep, L0)

    def run_pair():
        L, xi, nu = L0.copy(), bound.copy(), np.zeros(c)
        return vonneumann_pair_sweep(U, i, j, sign, bound, xi, nu, L,
                                     np.arange(c, dtype=np.intp), 1.0, 1e-3)
    t_spec, _ = best_of(repeats, run_pair)
    spec = t_spec / c * 1e6
    ref, _ = linear_us(pair_rows, 20, 1.0, 1, vonneumann_linear_sweep_reference, L0)
    print(f"{'vN pair (q=1)':>14} {r:4d} {us:12.2f} {moved:6.2f} {spec:14.2f} "
          f"{ref:16.1f} {us / spec:13.2f}x {ref / us:8.1f}x")
    rel_rows = (np.stack([np.sqrt(2.0) * (U[i] - U[j]), U[i] - U[k]], axis=1),
                np.tile(np.array([1, -1], np.int8), (c, 1)), np.ones(c, np.int8),
                np.zeros(c))
    us, moved = linear_us(rel_rows, c, np.inf, repeats, vonneumann_linear_sweep, L0)
    ref, _ = linear_us(rel_rows, 20, np.inf, 1, vonneumann_linear_sweep_reference, L0)
    print(f"{'vN rel. (q=2)':>14} {r:4d} {us:12.2f} {moved:6.2f} {'-':>14} "
          f"{ref:16.1f} {'-':>14} {ref / us:8.1f}x")


if __name__ == "__main__":
    main()
