"""A kernel learned from labels on text-like sparse data that never goes dense.

A TF-IDF-like CSR matrix of n = 100,000 documents over d = 50,000 words at
0.05 % non-zeros (25 words a document; 10 classes, each drawing half of its
words from its own topic of 300 words, the rest from the whole vocabulary), as scikit-learn's
``TfidfVectorizer`` would give it: ``LogDetKernelLearner(kernel=..., rank=100)``
is fitted from the labels and maps 10,000 new documents, with the cosine
kernel and with the linear one (whose learned map is linear in the words:
``components_`` is 100 x 50,000, built from the pivots' rows, never a d x d
or n x d dense array).  One dense copy of X would take 37 GB.  Each kernel
runs in a process of its own (so that each resident-set peak is its own).
Printed, for each kernel:

- fit and transform time, and peak memory: tracemalloc's peak of Python
  allocations during fit + transform, and the process's resident-set peak
  (``ru_maxrss``), against the 1 GB target and the dense size;
- the same model as the dense fit: on the first ``--check`` documents (a
  subsample whose dense copy fits in memory) the learner is fitted on the CSR
  rows and on their dense copy; the largest difference of the two learned
  kernels on new documents (target 1e-8), and the two fit times (the
  reference: the dense path);
- what the learned kernel gained: 5-nearest-neighbour accuracy of the new
  documents against the training ones, under the cosine kernel and under
  the learned one.

Run::

    python benchmarks/bench_sparse_text.py [--n 100000] [--d 50000]
        [--density 0.0005] [--rank 100] [--check 3000] [--kernel cosine linear]
"""

import argparse
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import normalize

from sklearn_bregman import LogDetKernelLearner


def text_like(n, d, density, n_classes, rng):
    """TF-IDF-like rows: non-negative weights, each row of unit norm."""
    y = rng.integers(0, n_classes, n)
    per_row = max(1, int(round(density * d)))
    topic = 300  # words of each class's topic (the first 3,000 of the vocabulary)
    cols = np.where(rng.random((n, per_row)) < 0.5,
                    y[:, None] * topic + rng.integers(0, topic, (n, per_row)),
                    rng.integers(0, d, (n, per_row)))
    X = sp.csr_matrix((rng.random(n * per_row) + 0.1,
                       (np.repeat(np.arange(n), per_row), cols.ravel())), shape=(n, d))
    X.sum_duplicates()
    return normalize(X), y


def knn_accuracy(Z_train, y_train, Z_test, y_test):
    return KNeighborsClassifier(5).fit(Z_train, y_train).score(Z_test, y_test)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=50_000)
    parser.add_argument("--density", type=float, default=0.0005)
    parser.add_argument("--rank", type=int, default=100)
    parser.add_argument("--check", type=int, default=3000)
    parser.add_argument("--kernel", nargs="+", default=["cosine", "linear"])
    args = parser.parse_args()
    if len(args.kernel) > 1:  # one process per kernel: each its own memory peak
        for kernel in args.kernel:
            print(f"\n=== kernel={kernel!r}", flush=True)
            subprocess.run([sys.executable, __file__, "--n", str(args.n), "--d", str(args.d),
                            "--density", str(args.density), "--rank", str(args.rank),
                            "--check", str(args.check), "--kernel", kernel], check=True)
        return
    run(args, args.kernel[0])


def run(args, kernel):
    rng = np.random.default_rng(0)
    X, y = text_like(args.n, args.d, args.density, 10, rng)
    X_new, y_new = text_like(10_000, args.d, args.density, 10, rng)
    print(f"X: {X.shape[0]} x {X.shape[1]} CSR, {X.nnz} non-zeros "
          f"({100 * X.nnz / (X.shape[0] * X.shape[1]):.3f} %), "
          f"{(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20:.1f} MB; "
          f"dense: {X.shape[0] * X.shape[1] * 8 / 2**30:.1f} GB")

    est = LogDetKernelLearner(kernel=kernel, rank=args.rank, random_state=0)
    tracemalloc.start()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (pairs that coincide at this rank)
        est.fit(X, y)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    Z_new = est.transform(X_new)
    t_transform = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10  # kB -> MB
    print(f"fit (sparse, {len(est.constraints_)} pairs from the labels): {t_fit:.1f} s, "
          f"{est.n_iter_} sweeps, converged_={est.converged_}, rank_={est.rank_}, "
          f"components_ {est.components_.shape}")
    print(f"transform of {X_new.shape[0]} new documents: {t_transform:.2f} s -> "
          f"{Z_new.shape}")
    ok = "below" if max(peak / 2**20, rss) < 1024 else "ABOVE"
    print(f"peak memory: tracemalloc {peak / 2**20:.0f} MB during fit + transform, "
          f"ru_maxrss {rss:.0f} MB for the process ({ok} the 1 GB target)")

    if kernel == "linear":
        check_linear_map(est, X_new, Z_new)
    else:
        check_against_dense(args, kernel, X, y, X_new)
    knn_report(kernel, est, X, y, X_new, y_new, Z_new)


def check_linear_map(est, X_new, Z_new):
    """The learned map on the words (``X components_'``, ``components_`` from
    the pivots' rows) against the same map through the initial factor
    (``phi0(X) L'`` with ``phi0(x) = k(x, X_pivots) L^-T``, ``M = L' L``): one
    kernel.  (A dense linear fit takes the top singular directions, another
    start, so it is no reference here.)"""
    L = np.linalg.cholesky(est.metric_).T
    Zf = est.factor_.transform(X_new[:2000]) @ L.T
    diff = np.abs(Z_new[:2000] @ Z_new[:2000].T - Zf @ Zf.T).max()
    print(f"the learned map on the words against the factor's: largest difference of the "
          f"learned kernels on 2000 new documents {diff:.1e} (target 1e-8)")


def check_against_dense(args, kernel, X, y, X_new):
    """The same model as the dense fit, on the first ``--check`` documents."""
    m = args.check
    Xs, ys = X[:m], y[:m]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t0 = time.perf_counter()
        a = LogDetKernelLearner(kernel=kernel, rank=args.rank, random_state=0).fit(Xs, ys)
        t_sparse = time.perf_counter() - t0
        Za = a.transform(X_new[:2000])
        Xd = Xs.toarray()
        t0 = time.perf_counter()
        b = LogDetKernelLearner(kernel=kernel, rank=args.rank, random_state=0).fit(Xd, ys)
        t_dense = time.perf_counter() - t0
    Zb = b.transform(X_new[:2000].toarray())
    diff = np.abs(Za @ Za.T - Zb @ Zb.T).max()
    print(f"same model as dense on the first {m} documents ({Xd.nbytes / 2**20:.0f} MB "
          f"dense): largest difference of the learned kernels on 2000 new documents "
          f"{diff:.1e} (target 1e-8); fit sparse {t_sparse:.2f} s, dense {t_dense:.2f} s "
          f"(dense / sparse {t_dense / t_sparse:.1f}x)")


def knn_report(kernel, est, X, y, X_new, y_new, Z_new):
    train = slice(0, 20_000)
    base = knn_accuracy(X[train], y[train], X_new, y_new)
    start = knn_accuracy(est.factor_.transform(X[train]), y[train],
                         est.factor_.transform(X_new), y_new)
    learned = knn_accuracy(est.transform(X[train]), y[train], Z_new, y_new)
    print(f"5-NN accuracy of the new documents (20,000 training documents): the "
          f"{kernel} kernel itself {base:.3f} (rows of unit norm: the same neighbours); its "
          f"rank-{est.rank_} start (Nystrom on the pivots) {start:.3f}; the learned kernel "
          f"{learned:.3f}")


if __name__ == "__main__":
    main()
