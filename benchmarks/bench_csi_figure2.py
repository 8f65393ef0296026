"""Bach & Jordan (ICML 2005), Figure 2: the rank CSI needs against incomplete Cholesky.

The paper's protocol (Section 6.3) as far as it is published:

- every variable scaled to unit variance; 10 random 75/25 splits;
- Gaussian kernel ``exp(-gamma |x - y|^2)``; LS-SVM (Section 6.1: squared
  loss on the labels, an unpenalised intercept, penalty ``lambda/2 a'K a``
  against ``1/(2n)`` times the loss); on a factor G it is ridge regression
  with an intercept on the rows of G with penalty ``n lambda`` (eq. 11-12),
  test rows from kernel values against the pivots (Section 6.2);
- gamma and lambda chosen "so as to minimise error on the training split"
  by grid search: here 3-fold cross-validation with the full kernel on the
  training part of the first split (the paper does not say more);
- CSI with kappa = 0.99, delta = 40 (the paper's); both decompositions greedy,
  so the rank-r factor is the first r columns of one longer run (tol = 0 up
  to ``--max-rank``); the rank at which the paper's stopping rule (gain below
  1e-4) would have stopped each run is printed too;
- the minimal rank whose mean test accuracy over the splits comes within one
  standard deviation (over the splits) of the full kernel's mean accuracy.

Data: ringnorm (1,000 points) and twonorm (4,000) generated from Breiman's
definitions (``breiman.py``), the paper's sizes; the paper's third row,
spambase, is not shipped with any package here, so a real set that
scikit-learn ships stands in: breast cancer (569 points, 30 features; digits
as a binary problem was tried too, but its full kernel needs more than 300
columns with either factor).  Printed: the chosen gamma and lambda, the full
kernel's accuracy, the minimal rank of incomplete Cholesky and of CSI with the
paper's ranks beside them, the accuracies at a few ranks, and the ratio CSI /
Cholesky; then ringnorm again with the width fixed at four values, to show
how much the minimal ranks hang on it.

Usage::

    python benchmarks/bench_csi_figure2.py [--splits 10] [--max-rank 300] [--kappa 0.99]
"""

import argparse
import os
import sys
import time

import numpy as np
from scipy import linalg
from sklearn.datasets import load_breast_cancer
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_bregman import CSIDecomposition

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from breiman import ringnorm, twonorm  # noqa: E402

#: kernel widths tried: gamma = s / n_features
GAMMA_SCALES = (1 / 256, 1 / 64, 1 / 16, 1 / 4, 1.0, 4.0)
#: LS-SVM penalties tried (lambda of Section 6.1; ridge penalty n * lambda)
LAMBDAS = (1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
KAPPA, DELTA, PAPER_TOL = 0.99, 40, 1e-4
#: Figure 2's ranks (incomplete Cholesky, CSI) and sizes
PAPER = {"ringnorm": (14, 3, 1000), "twonorm": (8, 3, 4000), "spambase": (90, 31, 4000)}
SHOW = (1, 2, 3, 5, 10, 20, 50, 100, 200)


def datasets():
    """(name, X, y in {0, 1}, the paper's row it stands beside)."""
    yield ("ringnorm", *ringnorm(PAPER["ringnorm"][2], random_state=0), "ringnorm")
    yield ("twonorm", *twonorm(PAPER["twonorm"][2], random_state=0), "twonorm")
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast cancer", X, y, "spambase"


def signs(y):
    return np.where(y == 1, 1.0, -1.0)


def lssvm_full(K, y, K_test, lams):
    """Full-kernel LS-SVM (Section 6.1) for each penalty: the decision values
    on the test points.  The intercept is unpenalised, so the solution is
    ``a = Pi (Pi K Pi + n lam I)^-1 Pi y``, ``b = mean(y - K a)``."""
    n = len(y)
    t = signs(y)
    Kc = K - K.mean(0)
    Kc = Kc - Kc.mean(1)[:, None]
    tc = t - t.mean()
    out = []
    for lam in lams:
        c = linalg.cho_factor(Kc + n * lam * np.eye(n), check_finite=False)
        a = linalg.cho_solve(c, tc, check_finite=False)
        a -= a.mean()
        b = t.mean() - (K @ a).mean()
        out.append(K_test @ a + b)
    return out


def lssvm_ranks(G, y, T, lam, ranks):
    """LS-SVM on the first r columns of a factor, for each r in ``ranks``
    (eq. 11-12: ridge with an intercept on the rows, penalty n lam): the
    decision values on the test rows ``T``."""
    n = len(y)
    t = signs(y)
    mean = G.mean(0)
    Gc = G - mean
    A = Gc.T @ Gc
    c = Gc.T @ (t - t.mean())
    out = []
    for r in ranks:
        beta = linalg.solve(A[:r, :r] + n * lam * np.eye(r), c[:r], assume_a="pos",
                            check_finite=False)
        out.append(T[:, :r] @ beta + (t.mean() - mean[:r] @ beta))
    return out


def accuracy(f, y):
    return float(np.mean((f > 0) == (y == 1)))


def choose(X, y, scales=GAMMA_SCALES):
    """gamma (among ``scales / n_features``), lambda by 3-fold cross-validation
    with the full kernel."""
    scores = np.zeros((len(scales), len(LAMBDAS)))
    for tr, va in KFold(3, shuffle=True, random_state=0).split(X):
        for i, s in enumerate(scales):
            gamma = s / X.shape[1]
            f = lssvm_full(rbf_kernel(X[tr], gamma=gamma), y[tr],
                           rbf_kernel(X[va], X[tr], gamma=gamma), LAMBDAS)
            scores[i] += [accuracy(fj, y[va]) for fj in f]
    i, j = np.unravel_index(np.argmax(scores), scores.shape)
    return scales[i] / X.shape[1], LAMBDAS[j]


def first_rank(curve, target, ranks):
    ok = np.flatnonzero(curve >= target)
    return ranks[ok[0]] if ok.size else None


def stop_rank(gains, tol):
    """The rank at which a run with this tol stops (it keeps the step whose
    gain falls below tol), or None if it would go on."""
    below = np.flatnonzero(gains < tol)
    return int(below[0]) + 1 if below.size else None


def run(name, X, y, splits, max_rank, kappa=KAPPA, scales=GAMMA_SCALES):
    X = StandardScaler().fit_transform(X)
    split = list(ShuffleSplit(splits, test_size=0.25, random_state=0).split(X))
    gamma, lam = choose(X[split[0][0]], y[split[0][0]], scales)
    rank = min(max_rank, len(split[0][0]))
    ranks = np.arange(1, rank + 1)
    full = []
    acc = {"chol": np.full((splits, rank), np.nan), "csi": np.full((splits, rank), np.nan)}
    stops = {"chol": [], "csi": []}
    for s, (tr, te) in enumerate(split):
        K = rbf_kernel(X[tr], gamma=gamma)
        full.append(accuracy(lssvm_full(K, y[tr], rbf_kernel(X[te], X[tr], gamma=gamma),
                                        [lam])[0], y[te]))
        for method in ("chol", "csi"):
            est = CSIDecomposition(gamma=gamma, rank=rank, kappa=kappa, delta=DELTA,
                                   tol=0.0, random_state=0)
            est.fit(X[tr], y[tr] if method == "csi" else None)
            m = est.rank_  # below rank only if the kernel's numerical rank is
            f = lssvm_ranks(est.embedding_, y[tr], est.transform(X[te]), lam, ranks[:m])
            acc[method][s, :m] = [accuracy(fj, y[te]) for fj in f]
            acc[method][s, m:] = acc[method][s, m - 1]
            stops[method].append(stop_rank(est.gains_, PAPER_TOL))
    full = np.array(full)
    target = full.mean() - full.std()
    curves = {k: v.mean(0) for k, v in acc.items()}
    found = {k: first_rank(curves[k], target, ranks) for k in curves}
    return dict(gamma=gamma, lam=lam, full=full, target=target, curves=curves,
                found=found, stops=stops, rank=rank, n=len(X), d=X.shape[1])


def fmt_rank(r, top):
    return f"{r:d}" if r is not None else f">{top}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--max-rank", type=int, default=300)
    parser.add_argument("--kappa", type=float, default=KAPPA,
                        help="CSI's kappa (0.01: the weights this package used before "
                             "issue 26, when 0.99 meant 0.01)")
    args = parser.parse_args()
    rows = []
    with threadpool_limits(1):
        for name, X, y, paper in datasets():
            t0 = time.perf_counter()
            res = run(name, X, y, args.splits, args.max_rank, args.kappa)
            res["seconds"] = time.perf_counter() - t0
            rows.append((name, paper, res))
            c, k = res["curves"], res["rank"]
            print(f"\n{name}: n = {res['n']}, d = {res['d']}, gamma = {res['gamma']:.4g} "
                  f"(= {res['gamma'] * res['d']:.4g} / d), lambda = {res['lam']:g}; full "
                  f"kernel {res['full'].mean():.4f} +- {res['full'].std():.4f}, target "
                  f"{res['target']:.4f}  ({res['seconds']:.0f} s)")
            print("  rank                " + " ".join(f"{r:>6d}" for r in SHOW if r <= k))
            for method, label in (("chol", "incomplete Chol."), ("csi", "CSI")):
                print(f"  {label:19s} " + " ".join(f"{c[method][r - 1]:6.4f}"
                                                  for r in SHOW if r <= k))
            for method, label in (("chol", "incomplete Cholesky"), ("csi", "CSI")):
                st = [s for s in res["stops"][method] if s is not None]
                where = (f"at rank {min(st)}-{max(st)}" if st else f"beyond rank {k}")
                print(f"  {label} with the paper's stopping rule (gain < {PAPER_TOL:g}) "
                      f"stops {where}" + ("" if len(st) in (0, args.splits) else
                                         f" (beyond rank {k} on some splits)"))
    print(f"\nFigure 2 (Bach & Jordan 2005): minimal rank whose mean test accuracy over "
          f"{args.splits} random 75/25 splits is within one standard deviation of the full "
          f"kernel's; kappa = {args.kappa}, delta = {DELTA}")
    print(f"{'data':14s} {'n':>5s} {'full kernel':>16s}   {'Chol':>5s} {'CSI':>5s} "
          f"{'CSI/Chol':>8s}   {'paper: data':>16s} {'Chol':>5s} {'CSI':>5s}")
    for name, paper, res in rows:
        chol, csi = res["found"]["chol"], res["found"]["csi"]
        ratio = f"{csi / chol:.2f}" if chol and csi else "-"
        pc, ps, _ = PAPER[paper]
        print(f"{name:14s} {res['n']:5d} {res['full'].mean():8.4f} +-{res['full'].std():.4f}"
              f"   {fmt_rank(chol, res['rank']):>5s} {fmt_rank(csi, res['rank']):>5s} "
              f"{ratio:>8s}   {paper:>16s} {pc:5d} {ps:5d}")
    half = [res["found"]["csi"] is not None and res["found"]["chol"] is not None
            and 2 * res["found"]["csi"] <= res["found"]["chol"]
            for name, _, res in rows if name in ("ringnorm", "twonorm")]
    print(f"CSI's minimal rank at most half of incomplete Cholesky's on ringnorm and "
          f"twonorm: {'yes' if all(half) else 'NO'}")
    # how much the minimal ranks hang on the width: ringnorm with gamma fixed
    print("\nringnorm with the kernel width fixed (lambda by cross-validation): a wider "
          "kernel loses accuracy and needs fewer columns")
    X, y = ringnorm(PAPER["ringnorm"][2], random_state=0)
    with threadpool_limits(1):
        for s in (1 / 64, 1 / 16, 1 / 4, 1.0):
            res = run("ringnorm", X, y, args.splits, args.max_rank, args.kappa, (s,))
            chol, csi = res["found"]["chol"], res["found"]["csi"]
            print(f"  gamma = {s:g} / d, lambda = {res['lam']:g}: full kernel "
                  f"{res['full'].mean():.4f} +- {res['full'].std():.4f}, minimal rank "
                  f"Cholesky {fmt_rank(chol, res['rank'])}, CSI {fmt_rank(csi, res['rank'])}")


if __name__ == "__main__":
    main()
