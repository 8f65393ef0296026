"""Plain NumPy oracles for the compiled kernels.

Each function here is the textbook form of an update, one constraint at a
time in Python, written for clarity and nothing else.  The tests check the
compiled sweeps against them; the benchmarks time them as the reference.
"""
import numpy as np


def logdet_pair_sweep_reference(G, idx_i, idx_j, sign, bound, xi, nu, M, order,
                                slack, rtol):
    """One sweep of rank-one LogDet projections (JMLR 2009 §5.1, §6.2.1).

    Same signature and in-place semantics as
    ``sklearn_bregman._engine._logdet.logdet_pair_sweep``.
    """
    hard = np.isinf(slack)
    gproj = 1.0 if hard else slack / (slack + 1.0)
    n_satisfied = n_skipped = n_moved = 0
    for c in order:
        v = G[idx_i[c]] - G[idx_j[c]]
        w = M @ v
        p = v @ w
        if p <= 0.0:
            n_skipped += 1
            continue
        delta = float(sign[c])
        if delta * (p - bound[c]) <= rtol * bound[c]:
            n_satisfied += 1
        alpha = min(nu[c], delta * gproj * (1.0 / p - 1.0 / xi[c]))
        if alpha == 0.0:
            continue
        nu[c] -= alpha
        beta = delta * alpha / (1.0 - delta * alpha * p)
        if not hard:
            xi[c] = slack * xi[c] / (slack + delta * alpha * xi[c])
        M += beta * np.outer(w, w)
        n_moved += 1
    return n_satisfied, n_skipped, n_moved
