# cython: language_level=3
"""Compiled sweep of LogDet Bregman projections onto ``K_ii = 1``.

The nearest correlation matrix under the LogDet divergence (JMLR 2009,
Section 6.3; Bregman projections, Section 3.4) from a start
``K0 = Psi0 + G0 G0'`` with ``Psi0 = diag(psi0) > 0``.  A projection onto
``K_ii = 1`` adds ``a e_i e_i'`` to ``K^-1``, so every iterate reads::

    K^-1 = Delta - W C W',       Delta = diag(delta),  delta = 1/psi0 + alpha
    W    = Psi0^-1 G0            (n x r),  C = (I + G0' Psi0^-1 G0)^-1
    K    = T + T W S^-1 W' T,    T = Delta^-1 = diag(t),  S = C^-1 - W' T W

(Woodbury), with ``S = I + W' diag(psi0 - t) W`` positive definite.  Only
``t`` (n) and ``S^-1`` (r x r) change.  With ``h = w_i' S^-1 w_i`` and
``t_old = t_i``, leaving row i out of ``S`` gives (Sherman-Morrison)
``q = h / (1 + t_old h)`` and ``K_ii(t) = t / (1 - t q)``: the projection
sets ``t_i = 1 / (1 + q)`` (``K_ii`` before it is ``t_old + t_old^2 h``),
and ``S`` changes by ``-(t_new - t_old) w_i w_i'``, one Sherman-Morrison
step on ``S^-1``.  A projection costs O(r^2); the caller recomputes ``S^-1``
from ``t`` before each sweep (O(n r^2)) so that rounding cannot build up.
Every quantity stays positive: ``q >= 0``, ``0 < t_new <= 1`` and
``1 - (t_new - t_old) h = (1 + t_old h) / (1 + q) > 0``.
"""

from libc.math cimport fabs

cimport numpy as cnp

from ._dense_kernels cimport skb_dot, skb_matvec, skb_mirror_upper, skb_update

import numpy as np

cnp.import_array()


def correlation_sweep(const double[:, ::1] W,
                      double[::1] t,
                      double[:, ::1] Sinv,
                      const cnp.intp_t[::1] order):
    """Project once onto ``K_ii = 1`` for each row ``i`` listed in ``order``.

    Parameters
    ----------
    W : ndarray of shape (n, r)
        ``Psi0^-1 G0``.
    t : ndarray of shape (n,)
        ``1 / delta``: the diagonal part of K (updated in place).
    Sinv : ndarray of shape (r, r)
        ``S^-1`` for the current ``t`` (upper triangle read and updated;
        the lower one is refreshed on return).
    order : ndarray of shape (m,), intp
        Rows to project onto, in order.

    Returns
    -------
    max_error : float
        Largest ``|K_ii - 1|`` met before a projection.
    n_moved : int
        Projections that changed ``t``.
    """
    cdef Py_ssize_t r = W.shape[1]
    cdef Py_ssize_t m = order.shape[0]
    if Sinv.shape[0] != r or Sinv.shape[1] != r:
        raise ValueError("Sinv must be r x r with r = W.shape[1]")
    if t.shape[0] != W.shape[0]:
        raise ValueError("t must have one entry per row of W")
    cdef double[::1] u = np.zeros(max(r, 1))
    cdef double* up = &u[0]
    cdef double* Sp = NULL
    if r > 0:
        Sp = &Sinv[0, 0]
    cdef Py_ssize_t k, i
    cdef const double* w
    cdef double h, q, t_old, t_new, d, kii, err
    cdef double max_error = 0.0
    cdef Py_ssize_t n_moved = 0

    with nogil:
        for k in range(m):
            i = order[k]
            t_old = t[i]
            if r > 0:
                w = &W[i, 0]
                skb_matvec(Sp, r, w, up)
                h = skb_dot(w, up, r)
            else:
                h = 0.0
            kii = t_old + t_old * t_old * h
            err = fabs(kii - 1.0)
            if err > max_error:
                max_error = err
            q = h / (1.0 + t_old * h)
            t_new = 1.0 / (1.0 + q)
            d = t_new - t_old
            if d == 0.0:
                continue
            t[i] = t_new
            n_moved += 1
            if r > 0:
                skb_update(Sp, r, d / (1.0 - d * h), up)
        if r > 0:
            skb_mirror_upper(Sp, r)
    return max_error, n_moved
