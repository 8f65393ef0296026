# cython: language_level=3
"""Compiled sweep of rank-one von Neumann Bregman projections.

The state is ``L = log X`` (symmetric r x r, upper triangle), posed in an
orthonormal basis of the initial kernel's range (ARCHITECTURE.md, layer 3:
the von Neumann divergence is invariant under orthogonal changes of basis
only).  For pair
constraint ``c`` on ``v = U[i] - U[j]`` with sign ``delta``, dual ``nu_c``,
slack target ``xi_c`` and slack ``gamma`` (JMLR 2009, Section 5.2,
Algorithm 3, and Section 6.2.1)::

    p     = v' exp(L) v
    x*    : root of  log v' exp(L + x v v') v + x / gamma - log xi_c = 0
    alpha = min(nu_c, delta * x*)          (dual correction)
    nu_c  = nu_c - alpha
    xi_c  = xi_c * exp(-delta * alpha / gamma)
    L     = L + delta * alpha * v v'

Departure from the paper, for speed: Algorithm 3 keeps the eigen-
decomposition of X and pays O(r^3) for each basis update.  Here L itself is
kept and updated by a rank-one term (O(r^2)); f(x) = v' exp(L + x v v') v is
evaluated on the Lanczos tridiagonal of L from v, which serves every x
(see ``_vn_kernels.h``), and the root comes from Newton steps on the
monotone g (its derivative from the same small problem), safeguarded by
bisection inside the bracket.
"""

from libc.math cimport exp, isinf, log

import numpy as np

cimport numpy as cnp

from ._dense_kernels cimport skb_difference, skb_dot, skb_mirror_upper, skb_update
from ._vn_kernels cimport (
    VN_SMALL_ROWS,
    vn_kcap,
    vn_log_f_exact,
    vn_solve,
    vn_start,
    vn_work,
    vn_work_init,
)

cnp.import_array()


def vonneumann_pair_sweep(const double[:, ::1] U,
                          const cnp.intp_t[::1] idx_i,
                          const cnp.intp_t[::1] idx_j,
                          const signed char[::1] sign,
                          const double[::1] bound,
                          double[::1] xi,
                          double[::1] nu,
                          double[:, ::1] L,
                          const cnp.intp_t[::1] order,
                          double slack,
                          double rtol,
                          bint correction=True):
    """Project once onto each pair constraint listed in ``order``.

    Same arguments (``correction`` included) as
    :func:`sklearn_bregman._engine._logdet.logdet_pair_sweep`,
    with ``U`` rows in an orthonormal basis and ``L = log X`` as the state
    (upper triangle read; lower refreshed on return).

    Returns
    -------
    n_satisfied, n_skipped, n_moved : int
        As for LogDet.
    n_evals : int
        Evaluations of f by the root finder (the first one, p = f(0), not
        counted).
    n_krylov : int
        Lanczos steps (products with L) over the sweep.
    """
    cdef Py_ssize_t r = U.shape[1]
    cdef Py_ssize_t m = order.shape[0]
    if L.shape[0] != r or L.shape[1] != r:
        raise ValueError("L must be r x r with r = U.shape[1]")
    if r == 0 or m == 0:
        return 0, 0, 0, 0, 0
    cdef Py_ssize_t kcap = vn_kcap(r)
    cdef double[:, ::1] Q = np.empty((kcap, r))
    cdef double[:, ::1] small = np.empty((VN_SMALL_ROWS, kcap))
    cdef double[:, ::1] vec = np.empty((2, r))
    cdef vn_work W
    vn_work_init(&W, r, kcap, &Q[0, 0], &small[0, 0], &vec[1, 0])
    cdef double* v = &vec[0, 0]
    cdef double* Lp = &L[0, 0]
    cdef bint hard = isinf(slack)
    cdef double inv_gamma = 0.0 if hard else 1.0 / slack
    cdef Py_ssize_t t, c
    cdef long n_krylov = 0, evals_before
    cdef double lp, p, g0, x, alpha, delta
    cdef Py_ssize_t n_satisfied = 0, n_skipped = 0, n_moved = 0
    cdef long n_evals = 0

    with nogil:
        for t in range(m):
            c = order[t]
            skb_difference(&U[0, 0], r, idx_i[c], idx_j[c], v)
            if skb_dot(v, v, r) <= 0.0:
                n_skipped += 1
                continue
            delta = <double> sign[c]
            vn_start(Lp, &W, v)
            lp = vn_log_f_exact(Lp, &W, 0.0, NULL)
            p = exp(lp)
            if delta * (p - bound[c]) <= rtol * bound[c]:
                n_satisfied += 1
            g0 = lp - log(xi[c])
            # The root x* has the sign of -g0 (g is increasing).  With no dual
            # weight to give back, a satisfied constraint does not move.
            if g0 == 0.0 or (correction and nu[c] <= 0.0 and delta * g0 <= 0.0):
                n_krylov += W.k
                continue
            evals_before = W.n_evals
            x = vn_solve(Lp, &W, g0, inv_gamma, log(xi[c]))
            n_evals += W.n_evals - evals_before
            n_krylov += W.k
            alpha = delta * x
            if correction and nu[c] < alpha:
                alpha = nu[c]
            if alpha == 0.0:
                continue
            nu[c] -= alpha
            x = delta * alpha
            if not hard:
                xi[c] = xi[c] * exp(-x * inv_gamma)
            skb_update(Lp, r, x, v)
            n_moved += 1
        skb_mirror_upper(Lp, r)
    return n_satisfied, n_skipped, n_moved, n_evals, n_krylov
