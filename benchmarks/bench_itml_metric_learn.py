"""ITMLTransformer against metric-learn's ITML: per projection and to convergence.

Both solve the same problem (Davis et al. 2007; Kulis et al. 2009, eq. 22):
the same pairs over the same points, the same bounds, slack gamma = 1, the
identity prior.  metric-learn's ``ITML`` runs the same cyclic rank-one
Bregman projections with dual corrections in Python (one NumPy d x d update
per constraint, positive pairs first, then negative ones); ours runs them in
compiled code.  Data: ``make_classification`` (n = 1,000 points in d
dimensions, 4 classes, standardised); c pairs drawn from the labels, half
similar, half dissimilar; bounds (u, l) the 5th / 95th percentiles of the
squared distances between the pairs' points, given to both.

- **Per projection**: both run with no stopping rule (``tol=1e-300``), ours
  in the cyclic order metric-learn uses (``order='cyclic'`` on the same
  pairs, positive ones first), so both make the same projections; the time
  of a ``fit`` of 1 + S sweeps minus that of a fit of 1 sweep (what a fit
  costs besides its sweeps cancels), divided by S x pairs, each time the
  best of ``--repeats``; S is ``--sweeps`` for metric-learn and
  ``--sweeps-ours`` for ours (a sweep of ours is too short to time on its
  own).  After 1 + ``--sweeps`` sweeps each, the two learned matrices are
  the same iterate: their relative difference is printed.
- **To convergence**: each with its defaults, ``tol=1e-3``: metric-learn
  stops on the relative change of its dual vector over a sweep; ours on
  that and the optimality conditions (every constraint within tol of its
  target), in the reshuffled order (its default) and in the cyclic one.
  Printed: sweeps, seconds, and the distance of each learned A to the
  optimum (ours run to ``tol=1e-10``), ||A - A*||_F / ||A*||_F.

BLAS on one thread.  metric-learn 0.7.0 does not import with scikit-learn
1.8 or later (its ``check_X_y(..., force_all_finite=...)``); run this in an
environment with scikit-learn 1.7 (``pip install "scikit-learn<1.8"
metric-learn``, then this package)::

    python benchmarks/bench_itml_metric_learn.py [--dims 5 10 25 50 100]
        [--pairs 1000] [--sweeps 20] [--sweeps-ours 500] [--repeats 3]
        [--json PATH]

``--json PATH`` writes the series for the documentation's figure
(``benchmarks/results/itml_metric_learn.json``).
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_bregman import ITMLTransformer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _results  # noqa: E402

try:
    from metric_learn import ITML
except ImportError as exc:  # (scikit-learn >= 1.8, or not installed)
    sys.exit(f"metric-learn does not import here ({exc}); see this script's docstring")


def problem(d, n_pairs, n=1000, classes=4, seed=0):
    X, y = make_classification(n, d, n_informative=max(2, min(d, 10)),
                               n_redundant=0, n_classes=classes,
                               n_clusters_per_class=1, random_state=seed)
    X = StandardScaler().fit_transform(X)
    rng = np.random.default_rng(seed)
    pos, neg = [], []
    while len(pos) < n_pairs // 2 or len(neg) < n_pairs - n_pairs // 2:
        i, j = rng.integers(0, n, 2)
        if i == j:
            continue
        if y[i] == y[j] and len(pos) < n_pairs // 2:
            pos.append((i, j))
        elif y[i] != y[j] and len(neg) < n_pairs - n_pairs // 2:
            neg.append((i, j))
    ij = np.array(pos + neg)  # positive pairs first: metric-learn's cyclic order
    sign = np.r_[np.ones(len(pos)), -np.ones(len(neg))]
    pts = np.unique(ij.ravel())
    sq = ((X[pts, None, :] - X[None, pts, :]) ** 2).sum(-1)
    u, low = np.percentile(sq[np.triu_indices(len(pts), 1)], (5, 95))
    return X, ij, sign, (float(u), float(low))


def ours(X, ij, sign, bounds, **params):
    est = ITMLTransformer(slack=1.0, bounds=bounds, random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, constraints=np.c_[ij, sign])
    return est.metric_, est.n_iter_


def theirs(X, ij, sign, bounds, **params):
    est = ITML(gamma=1.0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X[ij], sign, bounds=np.array(bounds))
    L = est.components_
    return L.T @ L, est.n_iter_ + 1  # (its n_iter_ is the last sweep's 0-based index)


def best(repeats, fn, *args, **params):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args, **params)
        times.append(time.perf_counter() - t0)
    return out, min(times)


def rel(A, B):
    return float(np.linalg.norm(A - B) / np.linalg.norm(B))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", type=int, nargs="+", default=[5, 10, 25, 50, 100])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--sweeps", type=int, default=20)
    ap.add_argument("--sweeps-ours", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    _results.add_json_argument(ap)
    args = ap.parse_args()
    threadpool_limits(1)
    c, s, so = args.pairs, args.sweeps, args.sweeps_ours
    X, ij, sign, bounds = problem(5, 50)
    ours(X, ij, sign, bounds), theirs(X, ij, sign, bounds)  # warm-up: imports

    per, conv = [], []
    print(f"per projection: fit of 1 + S sweeps minus fit of 1 sweep (S = {so} ours, {s} "
          f"metric-learn), over {c} pairs, no stopping rule, the same cyclic order; best of "
          f"{args.repeats}; the learned matrices compared after {1 + s} sweeps")
    print(f"{'d':>5} {'ours us':>9} {'metric-learn us':>16} {'ratio':>7} "
          f"{'|A_ours - A_ml| / |A_ml|':>25}")
    for d in args.dims:
        X, ij, sign, bounds = problem(d, c)
        t = {}
        for sweeps in (1, 1 + s, 1 + so):
            if sweeps != 1 + s:
                _, t["ours", sweeps] = best(args.repeats, ours, X, ij, sign, bounds,
                                            order="cyclic", tol=1e-300, max_iter=sweeps)
            if sweeps != 1 + so:
                _, t["ml", sweeps] = best(args.repeats, theirs, X, ij, sign, bounds,
                                          tol=1e-300, max_iter=sweeps)
        A_o, _ = ours(X, ij, sign, bounds, order="cyclic", tol=1e-300, max_iter=1 + s)
        A_m, _ = theirs(X, ij, sign, bounds, tol=1e-300, max_iter=1 + s)
        us_o = (t["ours", 1 + so] - t["ours", 1]) / (so * c) * 1e6
        us_m = (t["ml", 1 + s] - t["ml", 1]) / (s * c) * 1e6
        per.append({"d": d, "ours_us": us_o, "metric_learn_us": us_m,
                    "ours_fit_1_sweep_s": t["ours", 1], "metric_learn_fit_1_sweep_s": t["ml", 1],
                    "relative_difference": rel(A_o, A_m)})
        print(f"{d:>5} {us_o:9.2f} {us_m:16.2f} {us_m / us_o:6.0f}x {rel(A_o, A_m):25.1e}")

    print(f"\nto convergence (tol = 1e-3, max_iter = 1000, {c} pairs); distance to the "
          f"optimum ||A - A*||_F / ||A*||_F")
    print(f"{'d':>5} {'method':<32} {'sweeps':>7} {'time [s]':>9} {'to optimum':>11}")
    for d in args.dims:
        X, ij, sign, bounds = problem(d, c)
        A_star, _ = ours(X, ij, sign, bounds, tol=1e-10, max_iter=100_000)
        row = {"d": d}
        for key, label, fn, params in (
                ("ours", "ITMLTransformer (random order)", ours, {}),
                ("ours_cyclic", "ITMLTransformer (order='cyclic')", ours, {"order": "cyclic"}),
                ("metric_learn", "metric-learn ITML", theirs, {})):
            (A, sweeps), sec = best(1, fn, X, ij, sign, bounds, **params)
            row[key] = {"seconds": sec, "sweeps": int(sweeps), "to_optimum": rel(A, A_star)}
            print(f"{d:>5} {label:<32} {sweeps:>7} {sec:9.3f} {rel(A, A_star):11.1e}")
        print(f"{'':>5} metric-learn / ours time: "
              f"{row['metric_learn']['seconds'] / row['ours']['seconds']:.0f}x")
        conv.append(row)
    _results.write(args.json, "bench_itml_metric_learn",
                   {"n": 1000, "classes": 4, "pairs": c, "timed_sweeps_metric_learn": s,
                    "timed_sweeps_ours": so,
                    "repeats": args.repeats, "slack_gamma": 1.0, "prior": "identity",
                    "tol": 1e-3, "blas_threads": 1},
                   {"per_projection": per, "to_convergence": conv},
                   peers=("metric-learn",))


if __name__ == "__main__":
    main()
