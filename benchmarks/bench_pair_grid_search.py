"""What PairClassifier costs in a grid search: GridSearchCV on pairs vs by hand.

``PairClassifier`` makes each pair a sample so that ``GridSearchCV`` can
tune a pair learner on pairs.  This times, in one run, the same search done
twice on 10,000 index pairs over n = 5,000 points (``make_classification``:
20 features, 10 informative, 4 classes, one cluster each, ``class_sep=1.5``,
standardised; pairs from the labels with ``pairs_from_labels``, half
same-class, half different-class):

1. ``GridSearchCV(PairClassifier(LogDetKernelLearner(kernel='rbf', rank=50),
   preprocessor=X), ...)`` over 3 x 3 values of ``estimator__gamma`` x
   ``estimator__slack``, ``scoring='roc_auc'``, ``cv=KFold(3)``,
   ``n_jobs=1``, ``refit=False`` (27 fits);
2. by hand, with the same KFold splits of the pairs: for each candidate and
   fold, a clone of the inner learner is fitted on X with
   ``constraints=PairConstraints(i, j, sign)`` of the training pairs, and the
   held-out AUC is computed from minus the squared distances in its
   ``transform(X)``.

The two searches alternate ``--repeats`` times (default 5) with BLAS on one
thread, and the best time of each is compared (the spread over the repeats
is printed too: on a shared 2-core machine, with BLAS free to use both
cores, the same search once took 77 % longer than the run before it, far more
than the effect measured; on one thread the runs agree to about 2 %).  It prints both
times, the wrapper's overhead in percent (target: under 10 %),
the best parameters of each search (they must agree) and the largest
difference between the two searches' fold AUCs (the fits are deterministic, so
it should be 0).  What the wrapper adds: parameter validation, checks of the
index pairs, the threshold calibration on the training pairs (a sort of
their scores) and the scorer's bookkeeping.  ``refit=False`` because the
refit on all pairs is a 28th fit the hand search does not do.

The rank is 50 and the slack at most 10, so that a run (5 repeats) takes
about 55 s on 2 cores (at rank 100 or slack 100 a single fit with gamma 0.1
takes from 5 to 35 s); the best slack is then the largest of the grid,
which is of no consequence for the timing.

Usage::

    python benchmarks/bench_pair_grid_search.py [--repeats 5] [--rank 50] [--n-pairs 10000]
"""

import argparse
import itertools
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_bregman import LogDetKernelLearner, PairClassifier
from sklearn_bregman.constraints import PairConstraints, pairs_from_labels

OVERHEAD_TARGET = 10.0  # percent
GRID = {"gamma": [0.01, 0.03, 0.1], "slack": [0.1, 1.0, 10.0]}


def search_by_hand(learner, X, pairs, same, splits):
    """Mean held-out AUC per candidate (GridSearchCV's candidate order), and the
    fold AUCs, without the wrapper."""
    candidates = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    aucs = np.empty((len(candidates), len(splits)))
    for c, params in enumerate(candidates):
        for f, (train, test) in enumerate(splits):
            est = clone(learner).set_params(**params)
            est.fit(X, constraints=PairConstraints(pairs[train, 0], pairs[train, 1],
                                                   same[train].astype(np.int8)))
            Z = est.transform(X)
            diff = Z[pairs[test, 0]] - Z[pairs[test, 1]]
            aucs[c, f] = roc_auc_score(same[test], -np.einsum("ij,ij->i", diff, diff))
    return candidates, aucs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rank", type=int, default=50)
    parser.add_argument("--n-samples", type=int, default=5000)
    parser.add_argument("--n-pairs", type=int, default=10_000)
    args = parser.parse_args()

    X, y = make_classification(args.n_samples, 20, n_informative=10, n_classes=4,
                               n_clusters_per_class=1, class_sep=1.5, random_state=0)
    X = StandardScaler().fit_transform(X)
    pc = pairs_from_labels(y, args.n_pairs, random_state=0)
    pairs, same = np.column_stack([pc.i, pc.j]), np.asarray(pc.sign, dtype=int)
    cv = KFold(3, shuffle=True, random_state=0)
    splits = list(cv.split(pairs))
    learner = LogDetKernelLearner(kernel="rbf", rank=args.rank, random_state=0)
    print(f"n = {len(X):,} points, d = {X.shape[1]}, {len(pairs):,} index pairs "
          f"({(same == 1).sum():,} similar), rbf LogDet kernel learner at rank {args.rank}, "
          f"3 x 3 grid (gamma {GRID['gamma']}, slack {GRID['slack']}), 3-fold KFold, "
          f"{9 * 3} fits per search, best of {args.repeats} alternating runs, BLAS on "
          f"one thread")

    times_grid, times_hand = [], []
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(args.repeats):
            search = GridSearchCV(
                PairClassifier(learner, preprocessor=X),
                {f"estimator__{k}": v for k, v in GRID.items()},
                scoring="roc_auc", cv=cv, n_jobs=1, refit=False)
            t0 = time.perf_counter()
            search.fit(pairs, same)
            times_grid.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            candidates, aucs = search_by_hand(learner, X, pairs, same, splits)
            times_hand.append(time.perf_counter() - t0)
    t_grid, t_hand = min(times_grid), min(times_hand)

    grid_aucs = np.column_stack([search.cv_results_[f"split{f}_test_score"]
                                 for f in range(len(splits))])
    best_grid = {k.replace("estimator__", ""): v for k, v in search.best_params_.items()}
    best_hand = candidates[int(np.argmax(aucs.mean(1)))]
    overhead = 100 * (t_grid - t_hand) / t_hand

    spread = lambda t: f"(runs {min(t):.2f} to {max(t):.2f} s)"  # noqa: E731
    print(f"  GridSearchCV(PairClassifier)  {t_grid:7.2f} s {spread(times_grid)}  best "
          f"{best_grid}  mean AUC {search.best_score_:.4f}")
    print(f"  by hand (clone, fit, AUC)     {t_hand:7.2f} s {spread(times_hand)}  best "
          f"{best_hand}  mean AUC {aucs.mean(1).max():.4f}")
    print(f"  overhead of the wrapper: {overhead:+.1f} % (target < {OVERHEAD_TARGET:.0f} %: "
          f"{'ok' if overhead < OVERHEAD_TARGET else 'MISSED'})")
    print(f"  same best parameters: {'yes' if best_grid == best_hand else 'NO'}; largest "
          f"difference of the fold AUCs: {np.abs(grid_aucs - aucs).max():.2e}")
    print("  mean held-out AUC per candidate (rows gamma, columns slack):")
    table = aucs.mean(1).reshape(len(GRID["gamma"]), len(GRID["slack"]))
    print("  " + " " * 12 + "".join(f"{s:>9g}" for s in GRID["slack"]))
    for g, row in zip(GRID["gamma"], table):
        print(f"  gamma {g:<6g}" + "".join(f"{a:9.4f}" for a in row))


if __name__ == "__main__":
    main()
