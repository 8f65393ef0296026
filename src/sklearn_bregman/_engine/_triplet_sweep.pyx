# cython: language_level=3
"""Compiled sweep of rank-two LogDet Bregman projections on relative constraints.

One call projects onto every triplet constraint once, in the order given,
and never returns to Python in between (Amid, Gionis & Ukkonen, Section
4.1-4.2; the formulas are in ``_rank2_kernels.h``).  A constraint row ``c``
reads ``gamma2_c d(a, b) <= d(a, c)`` (inequality) or ``d(a, b) = d(a, c)``
(equality) with ``d`` the squared distance under ``M`` of rows of ``G``::

    u = G[a] - G[b],  w = G[a] - G[c],  A = [u w]' M [u w]
    s = gamma2 A11 - A22            (the constraint's value tr(M C))
    q = gamma2 (A11 A22 - A12^2)    (minus the product of the eigenvalues of M C)
    d = step(s, q, nu_c, lam)       (eq. 13, or the root of eq. 21 with slack)
    nu_c = nu_c + d
    M = (M^-1 + d C)^-1             (Woodbury, eq. 14: a rank-two update)

Each projection costs about 3 r^2 multiply-adds: the update of one
constraint is fused with the products ``M u``, ``M w`` of the next.
"""

from libc.math cimport fabs

import numpy as np

cimport numpy as cnp

cnp.import_array()

from ._dense_kernels cimport skb_difference, skb_dot, skb_mirror_upper, skb_prefetch_pair
from ._rank2_kernels cimport r2_step, r2_update, r2_update_matvec2, r2_woodbury

#: A constraint whose u and w are this close to parallel under M
#: (q <= DEGENERATE * gamma2 * A11 * A22) cannot be moved by any step.
cdef double DEGENERATE = 1e-13


def logdet_triplet_sweep(const double[:, ::1] G,
                         const cnp.intp_t[::1] idx_a,
                         const cnp.intp_t[::1] idx_b,
                         const cnp.intp_t[::1] idx_c,
                         const signed char[::1] kind,
                         const double[::1] gamma2,
                         double[::1] nu,
                         double[:, ::1] M,
                         const cnp.intp_t[::1] order,
                         double lam_neq,
                         double lam_eq,
                         double rtol,
                         bint correction=True):
    """Project once onto each triplet constraint listed in ``order``.

    Parameters
    ----------
    G : ndarray of shape (n, r), C-contiguous float64
        Factor of the training points.
    idx_a, idx_b, idx_c : ndarray of shape (m,), intp
        Anchor, near and far point of each constraint row.
    kind : ndarray of shape (m,), int8
        1: inequality ``gamma2 d(a, b) <= d(a, c)``; 0: equality.
    gamma2 : ndarray of shape (m,)
        Squared margin of each row (1 for equalities).
    nu : ndarray of shape (m,)
        Dual variables, updated in place (inequalities stay >= 0 with
        ``correction``; equalities have free sign).
    M : ndarray of shape (r, r), C-contiguous
        Symmetric positive definite state, updated in place.  Only its upper
        triangle is read; on return the lower triangle mirrors it.
    order : ndarray of shape (k,), intp
        Rows to visit, in this order.
    lam_neq, lam_eq : float
        Penalty ``lam`` of eq. 16 for the slack of inequality and equality
        rows; ``inf`` for hard constraints.
    rtol : float
        A row counts as satisfied when, before its projection,
        ``s <= rtol * A22`` (inequality) or ``|s| <= rtol * A22``
        (equality).
    correction : bool, default=True
        Keep the duals of inequalities non-negative (the dual correction of
        Bregman's method).  ``False`` projects onto each inequality's
        boundary at every visit (for demonstrations only).

    Returns
    -------
    n_satisfied : int
    n_skipped : int
        Rows whose u and w are parallel under M (or zero): no step can
        change their ratio of distances.
    n_moved : int
        Projections that changed ``M``.
    """
    cdef Py_ssize_t r = G.shape[1]
    cdef Py_ssize_t m = order.shape[0]
    if M.shape[0] != r or M.shape[1] != r:
        raise ValueError("M must be r x r with r = G.shape[1]")
    if r == 0 or m == 0:
        return 0, 0, 0

    cdef double[:, ::1] buf = np.empty((10, r), dtype=np.float64)
    cdef double* u = &buf[0, 0]
    cdef double* w = &buf[1, 0]
    cdef double* mu = &buf[2, 0]
    cdef double* mw = &buf[3, 0]
    cdef double* u_n = &buf[4, 0]
    cdef double* w_n = &buf[5, 0]
    cdef double* mu_n = &buf[6, 0]
    cdef double* mw_n = &buf[7, 0]
    cdef double* p1 = &buf[8, 0]
    cdef double* p2 = &buf[9, 0]
    cdef double* tmp
    cdef double* Mp = &M[0, 0]
    cdef const double* Gp = &G[0, 0]

    cdef Py_ssize_t t, c, c_n, b
    cdef double g2, A11, A12, A22, s, q, d, lam, S11, S12, S22
    cdef bint ineq, moved
    cdef Py_ssize_t n_satisfied = 0, n_skipped = 0, n_moved = 0

    with nogil:
        c = order[0]
        skb_difference(Gp, r, idx_a[c], idx_b[c], u)
        skb_difference(Gp, r, idx_a[c], idx_c[c], w)
        r2_update_matvec2(Mp, r, NULL, NULL, NULL, NULL, u, w, mu, mw)
        for t in range(m):
            c = order[t]
            ineq = kind[c] != 0
            g2 = gamma2[c]
            A11 = skb_dot(u, mu, r)
            A12 = skb_dot(u, mw, r)
            A22 = skb_dot(w, mw, r)
            s = g2 * A11 - A22
            q = g2 * (A11 * A22 - A12 * A12)
            moved = False
            if A11 <= 0.0 or A22 <= 0.0 or q <= DEGENERATE * g2 * A11 * A22:
                n_skipped += 1
            else:
                if (ineq and s <= rtol * A22) or (not ineq and fabs(s) <= rtol * A22):
                    n_satisfied += 1
                lam = lam_neq if ineq else lam_eq
                d = r2_step(s, q, nu[c], lam, ineq, correction)
                if d != 0.0:
                    moved = True
                    nu[c] += d
                    r2_woodbury(g2, A11, A12, A22, s, q, d, &S11, &S12, &S22)
                    for b in range(r):
                        p1[b] = S11 * mu[b] + S12 * mw[b]
                        p2[b] = S12 * mu[b] + S22 * mw[b]
            if moved:
                n_moved += 1
            if t + 2 < m:
                c_n = order[t + 2]
                skb_prefetch_pair(Gp, r, idx_a[c_n], idx_b[c_n])
                skb_prefetch_pair(Gp, r, idx_a[c_n], idx_c[c_n])
            if t + 1 < m:
                c_n = order[t + 1]
                skb_difference(Gp, r, idx_a[c_n], idx_b[c_n], u_n)
                skb_difference(Gp, r, idx_a[c_n], idx_c[c_n], w_n)
                if moved:
                    # M -= Z S Z' with Z = [M u, M w]: z1 p1' + z2 p2'
                    r2_update_matvec2(Mp, r, mu, mw, p1, p2, u_n, w_n, mu_n, mw_n)
                else:
                    r2_update_matvec2(Mp, r, NULL, NULL, NULL, NULL, u_n, w_n,
                                      mu_n, mw_n)
                tmp = u
                u = u_n
                u_n = tmp
                tmp = w
                w = w_n
                w_n = tmp
                tmp = mu
                mu = mu_n
                mu_n = tmp
                tmp = mw
                mw = mw_n
                mw_n = tmp
            elif moved:
                r2_update(Mp, r, mu, mw, p1, p2)
        skb_mirror_upper(Mp, r)
    return n_satisfied, n_skipped, n_moved
