# cython: language_level=3
"""Compiled sweep of rank-one LogDet Bregman projections (ITML's update).

One call projects onto every pair constraint once, in the order given, and
never returns to Python in between.  The state is a dense symmetric r x r
matrix ``M`` (row-major); a constraint ``c`` on the rows ``i, j`` of the factor
``G`` only needs ``v = G[i] - G[j]`` (JMLR 2009, Section 4.2, Lemma 8).

For constraint ``c`` with sign ``delta`` (+1: ``d <= b``, -1: ``d >= b``),
dual variable ``nu_c >= 0``, slack target ``xi_c`` and slack ``gamma``
(JMLR 2009 Section 5.1 and 6.2.1; Davis et al. 2007, Algorithm 1)::

    p     = v' M v
    alpha = min(nu_c, delta * gamma / (gamma + 1) * (1/p - 1/xi_c))
    nu_c  = nu_c - alpha
    beta  = delta * alpha / (1 - delta * alpha * p)
    xi_c  = gamma * xi_c / (gamma + delta * alpha * xi_c)
    M     = M + beta * (M v) (M v)'

With ``gamma = inf`` the constraints are hard: the factor gamma / (gamma + 1)
is 1 and ``xi_c`` stays at the bound.

Departures from the papers, for speed only: the state is kept in the upper
triangle of ``M`` (the lower one is refreshed when the sweep ends, which also
keeps ``M`` exactly symmetric), and the rank-one update of constraint ``t``
is fused with the product ``M v`` of constraint ``t + 1``, so each
projection reads and writes the r(r+1)/2 stored entries once: about 1.5 r^2
multiply-adds when the constraint moves ``M``, r^2 when it does not.  The
arithmetic is that of the two separate steps (the vector kernels are in
``_dense_kernels.h``).
"""

from libc.math cimport isinf

import numpy as np

cimport numpy as cnp

cnp.import_array()


# Vector kernels on the r x r state (C, for restrict and run-time AVX/FMA
# dispatch); see _dense_kernels.h for how each loop is laid out.
from ._dense_kernels cimport (
    skb_difference,
    skb_dot,
    skb_matvec,
    skb_mirror_upper,
    skb_prefetch_pair,
    skb_update,
    skb_update_matvec,
)


def logdet_pair_sweep(const double[:, ::1] G,
                      const cnp.intp_t[::1] idx_i,
                      const cnp.intp_t[::1] idx_j,
                      const signed char[::1] sign,
                      const double[::1] bound,
                      double[::1] xi,
                      double[::1] nu,
                      double[:, ::1] M,
                      const cnp.intp_t[::1] order,
                      double slack,
                      double rtol,
                      bint correction=True):
    """Project once onto each pair constraint listed in ``order``.

    Parameters
    ----------
    G : ndarray of shape (n, r), C-contiguous float64
        Factor whose row differences give the constraint vectors.
    idx_i, idx_j : ndarray of shape (c,), intp
        Rows of ``G`` of each constraint.
    sign : ndarray of shape (c,), int8
        +1 for ``d <= bound`` (similar), -1 for ``d >= bound`` (dissimilar).
    bound : ndarray of shape (c,)
        Original bounds; only used to count satisfied constraints.
    xi : ndarray of shape (c,)
        Slack targets, updated in place (left alone when ``slack`` is inf).
    nu : ndarray of shape (c,)
        Dual variables, non-negative, updated in place.
    M : ndarray of shape (r, r), C-contiguous
        Symmetric positive definite state, updated in place.  Only its upper
        triangle is read; on return the lower triangle mirrors it.
    order : ndarray of shape (m,), intp
        Constraints to visit, in this order.
    slack : float
        gamma > 0; ``inf`` for hard constraints.
    rtol : float
        A constraint counts as satisfied when
        ``delta * (p - bound) <= rtol * bound`` before its projection.
    correction : bool, default=True
        Clip ``alpha`` at ``nu_c`` (the dual correction).  ``False`` projects
        onto the equality ``p = xi_c`` at every visit, which is wrong for
        inequality constraints (JMLR 2009, App. B); for demonstrations only.

    Returns
    -------
    n_satisfied : int
        Constraints satisfied (to ``rtol``) when visited.
    n_skipped : int
        Constraints with ``p = v' M v <= 0`` (zero-length pairs), not projected.
    n_moved : int
        Projections that changed ``M``.
    """
    cdef Py_ssize_t r = G.shape[1]
    cdef Py_ssize_t m = order.shape[0]
    if M.shape[0] != r or M.shape[1] != r:
        raise ValueError("M must be r x r with r = G.shape[1]")
    if r == 0 or m == 0:
        return 0, 0, 0

    cdef double[:, ::1] buf = np.empty((4, r), dtype=np.float64)
    cdef double* v = &buf[0, 0]
    cdef double* w = &buf[1, 0]
    cdef double* v_next = &buf[2, 0]
    cdef double* w_next = &buf[3, 0]
    cdef double* tmp
    cdef double* Mp = &M[0, 0]
    cdef const double* Gp = &G[0, 0]

    cdef bint hard = isinf(slack)
    cdef double gproj = 1.0 if hard else slack / (slack + 1.0)
    cdef Py_ssize_t t, c, c_next
    cdef double p, delta, alpha, beta, da
    cdef Py_ssize_t n_satisfied = 0, n_skipped = 0, n_moved = 0

    with nogil:
        c = order[0]
        skb_difference(Gp, r, idx_i[c], idx_j[c], v)
        skb_matvec(Mp, r, v, w)
        for t in range(m):
            c = order[t]
            p = skb_dot(v, w, r)
            delta = <double> sign[c]
            beta = 0.0
            if p <= 0.0:
                n_skipped += 1
            else:
                if delta * (p - bound[c]) <= rtol * bound[c]:
                    n_satisfied += 1
                alpha = delta * gproj * (1.0 / p - 1.0 / xi[c])
                if correction and nu[c] < alpha:
                    alpha = nu[c]
                if alpha != 0.0:
                    nu[c] -= alpha
                    da = delta * alpha
                    beta = da / (1.0 - da * p)
                    if not hard:
                        xi[c] = slack * xi[c] / (slack + da * xi[c])
            if t + 2 < m:
                skb_prefetch_pair(Gp, r, idx_i[order[t + 2]], idx_j[order[t + 2]])
            if t + 1 < m:
                c_next = order[t + 1]
                skb_difference(Gp, r, idx_i[c_next], idx_j[c_next], v_next)
                if beta != 0.0:
                    n_moved += 1
                    skb_update_matvec(Mp, r, beta, w, v_next, w_next)
                else:
                    skb_matvec(Mp, r, v_next, w_next)
                tmp = v
                v = v_next
                v_next = tmp
                tmp = w
                w = w_next
                w_next = tmp
            elif beta != 0.0:
                n_moved += 1
                skb_update(Mp, r, beta, w)
        skb_mirror_upper(Mp, r)
    return n_satisfied, n_skipped, n_moved
