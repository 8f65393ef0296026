# cython: language_level=3
"""Compiled steps of Cholesky with side information (Bach & Jordan 2005).

The factor G (n x cap), the orthonormal Q (n x cap) of the QR decomposition
of (centred) G, and the look-ahead coefficients W (n x cap) are stored in
column-major order, so that a column is contiguous; R (cap x cap) is upper
triangular and E = Y' Q (d x cap).  Columns ``[0, k0)`` of G are the chosen
pivots, columns ``[k0, t)`` the look-ahead ones (Section 5).  The driver
(``sklearn_bregman._factors._factors.cholesky_side_information``) calls one function
per step of the algorithm; each runs over the n points in C, with BLAS for
the matrix-vector products and the vector kernels of ``_csi_kernels.h``:

- :func:`cholesky_append`: one step of pivoted incomplete Cholesky (Section
  2.1), shared with plain incomplete Cholesky;
- :func:`qr_append`: the matching Gram-Schmidt step of the QR decomposition
  (Section 4.1-4.2);
- :func:`lookahead_added`, :func:`lookahead_chosen`: the updates of the
  approximate gains when a look-ahead column is added, or the first one
  becomes a chosen pivot (Section 5.2);
- :func:`estimated_gains`: eq. 9-10 for every point;
- :func:`move_pivot`: move a pivot to an earlier position by exchanges of
  two successive pivots, O(n) each (App. A).

The driver keeps Q as ``Q_s U`` instead (:func:`qr_step`,
:func:`move_pivot_u`, :func:`complete_pending`): the exchanges turn the
small U (cap x cap) where :func:`move_pivot` turns columns of Q, and each
column of ``Q_s`` is formed in the same pass over ``Q_s`` as the next
column's projection coefficients, so that a step reads Q once and writes
one column of it, where :func:`qr_append` and :func:`move_pivot` read it
twice and rewrite the look-ahead columns.  The driver's Q, R and E are
those of :func:`qr_append` and :func:`move_pivot` to rounding (the tests
compare them).  Once a step's pivot is chosen, :func:`lookahead_step` does
the work of :func:`lookahead_added` (of the column the step appended),
:func:`move_pivot_u` and :func:`lookahead_chosen` with fewer passes over the
look-ahead columns of G and W: those three stay as its reference.

The look-ahead terms are kept in a form that is cheaper to update than the
paper's A, B, C sums: with ``Delta = L_adv - L_(k-1)`` (the look-ahead part
of the approximation), ``A[i] = |Delta[:, i]|^2`` is updated by the rank-one
changes of Delta (one column added, one removed), and the projection
``(I - Q_(k-1) Q_(k-1)') Pi Delta[:, i]`` is held by its coordinates ``W[i, :]``
in the look-ahead columns of Q, so that ``B[i] = |W[i, :]|^2`` and
``C[i] = |E_w W[i, :]'|^2`` (E_w: the look-ahead columns of E).  Both cost
O(n delta) per step (plus O(n delta d) for C), as in Section 5.3.
"""

from libc.math cimport INFINITY, hypot, sqrt
from libc.stdlib cimport free, malloc

import numpy as np

cimport numpy as cnp
from scipy.linalg.cython_blas cimport dgemv

cnp.import_array()


cdef extern from "_csi_kernels.h" nogil:
    void csi_window_norms(const double* W, Py_ssize_t n, Py_ssize_t ldw, Py_ssize_t w,
                          const double* E, Py_ssize_t d, double* B, double* acc,
                          Py_ssize_t ldacc)
    void csi_project(const double* Q, Py_ssize_t n, Py_ssize_t ldq, Py_ssize_t m,
                     const double* x, double* tmp, double* q, const double* c)
    double csi_dot(const double* x, const double* y, Py_ssize_t n)
    void csi_rotate(double* x, double* y, Py_ssize_t n, double cs, double sn)
    void csi_add_rotate(double* x, double* y, Py_ssize_t n, double cs, double sn,
                        const double* h, double rho)
    void csi_combine(const double* G, Py_ssize_t n, Py_ssize_t ldg, Py_ssize_t w,
                     const double* c1, const double* c2, double* s1, double* s2)
    void csi_rotate_chain(double* W, Py_ssize_t n, Py_ssize_t ldw, Py_ssize_t lo,
                          Py_ssize_t hi, const double* cs, const double* sn,
                          const double* rot, const double* h, const double* rho)


cdef inline void _gemv(char trans, int m, int n, double alpha, const double* A,
                       int lda, const double* x, int incx, double beta, double* y,
                       int incy) noexcept nogil:
    dgemv(&trans, &m, &n, &alpha, <double*> A, &lda, <double*> x, &incx, &beta, y,
          &incy)


def cholesky_append(double[::1, :] G, double[::1] d, const double[::1] column,
                    Py_ssize_t t, const cnp.intp_t[::1] pivots, Py_ssize_t p):
    """Column t of G from pivot p: ``G[:, t] = (K[:, p] - G[:, :t] G[p, :t]') / sqrt(d_p)``.

    ``d`` (the residual diagonal ``K_ii - |G[i, :t]|^2``) is updated in place
    (clipped at 0; ``d_p = 0``); rows of the earlier pivots ``pivots[:t]`` get
    exact zeros, so that ``G[pivots]`` stays lower triangular.

    Returns
    -------
    float
        ``|G[:, t]|^2``, the step's reduction of ``tr(K - G G')``.
    """
    cdef int n = <int> G.shape[0]
    cdef Py_ssize_t i
    cdef double dp = d[p], g, total = 0.0
    if dp <= 0.0:
        raise ValueError("cholesky_append: the pivot has no residual left")
    cdef double scale = 1.0 / sqrt(dp)
    cdef double* col = &G[0, t]
    with nogil:
        for i in range(n):
            col[i] = column[i]
        if t > 0:
            _gemv(b'N', n, <int> t, -1.0, &G[0, 0], n, &G[p, 0], n, 1.0, col, 1)
        for i in range(t):
            col[pivots[i]] = 0.0
        for i in range(n):
            g = col[i] * scale
            col[i] = g
            total += g * g
            d[i] -= g * g
            if d[i] < 0.0:
                d[i] = 0.0
        d[p] = 0.0
    return total


def qr_append(double[::1, :] Q, double[::1, :] R, double[::1, :] E,
              const double[::1, :] Y, const double[::1, :] G, Py_ssize_t t,
              bint center):
    """Column t of the QR decomposition of (centred) G, and of E = Y' Q.

    Classical Gram-Schmidt against ``Q[:, :t]``, with a second pass when the
    first one cancelled more than half of the column's norm ("twice is
    enough": the result is then orthogonal to working precision; Giraud,
    Langou & Rozloznik 2005).  A column already in the span
    (``R[t, t]`` below 1e-12 of its norm, e.g. a constant column once
    centred) gets ``Q[:, t] = 0`` and ``R[t, t] = 0``.
    """
    cdef int n = <int> G.shape[0]
    cdef int d = <int> Y.shape[1]
    cdef Py_ssize_t i, j
    cdef int _pass
    cdef double mean = 0.0, norm0 = 0.0, norm = 0.0, before
    cdef double* q = &Q[0, t]
    cdef double* r = &R[0, t]
    cdef double[::1] tmp = np.zeros(max(t, 1))
    with nogil:
        for i in range(n):
            q[i] = G[i, t]
        if center:
            for i in range(n):
                mean += q[i]
            mean /= n
            for i in range(n):
                q[i] -= mean
        for i in range(n):
            norm0 += q[i] * q[i]
        norm = norm0
        for j in range(t + 1):
            r[j] = 0.0
        if t > 0:
            for _pass in range(2):
                before = norm
                _gemv(b'T', n, <int> t, 1.0, &Q[0, 0], n, q, 1, 0.0, &tmp[0], 1)
                _gemv(b'N', n, <int> t, -1.0, &Q[0, 0], n, &tmp[0], 1, 1.0, q, 1)
                for j in range(t):
                    r[j] += tmp[j]
                norm = 0.0
                for i in range(n):
                    norm += q[i] * q[i]
                if norm > 0.25 * before:  # lost less than half the norm: done
                    break
        norm = sqrt(norm)
        if norm <= 1e-12 * sqrt(norm0) or norm == 0.0:
            for i in range(n):
                q[i] = 0.0
            r[t] = 0.0
        else:
            r[t] = norm
            for i in range(n):
                q[i] /= norm
        if d > 0:
            _gemv(b'T', n, d, 1.0, &Y[0, 0], n, q, 1, 0.0, &E[0, t], 1)


def lookahead_step(double[::1] A, double[::1] dk, double[::1, :] G, double[::1, :] U,
                   double[::1, :] R, double[::1, :] E, double[::1, :] W, double[::1, :] M,
                   cnp.intp_t[::1] pivots, Py_ssize_t k0, Py_ssize_t t, bint appended,
                   Py_ssize_t pos, double[::1] work):
    """The look-ahead work of a step once its pivot is chosen.

    What :func:`lookahead_added` (if ``appended``: column ``t - 1`` has just
    joined the window ``[k0, t - 1)``), :func:`move_pivot_u` of the pivot at
    ``pos`` to ``k0`` and :func:`lookahead_chosen` do one after the other,
    with fewer passes over the look-ahead columns of G and W:

    - the two rank-one changes of A, ``Delta += h h'`` then ``Delta -= g g'``
      (g = ``G[:, k0]`` after the move), take ``s1 = Delta h`` and
      ``s2 = Delta' g`` from one pass over the window after the move
      (``csi_combine``).  Their coefficients come from ``M``, the Gram
      matrix of the window's columns (cap x cap, kept by
      :func:`lookahead_added` and here, turned with G by the exchanges):
      ``Gw' h`` (one dgemv before the move, as in :func:`lookahead_added`)
      turned as the columns, and ``M[:, k0]``.  A is the same to rounding;
    - W's update ``W[:, k0:t] += h R[k0:t, t-1]'`` is done in the exchanges'
      rotations of W, with the same arithmetic (W, G, U, R, E, dk, the
      pivots and the returned ``|g|^2`` are those of the three calls, bit
      for bit); the exchanges record their rotations, and W turns after
      them in one pass over its columns ``[k0, pos]`` (``csi_rotate_chain``,
      :func:`rotate_chain`), which reads and writes each column once where
      one rotation after the other reads and writes it twice.

    ``work`` has length >= 3 n + 3 cap.

    Returns
    -------
    float
        ``|g|^2``.
    """
    cdef Py_ssize_t n = G.shape[0], cap = G.shape[1], d = E.shape[0]
    cdef Py_ssize_t xcol = t - 1 if appended else -1, i, j, p
    if k0 < 0 or pos < k0 or pos >= t or t > cap or (appended and xcol < k0):
        raise ValueError("lookahead_step: need 0 <= k0 <= pos < t <= cap "
                         "(k0 <= t - 1 if appended)")
    if W.shape[0] != n or W.shape[1] != cap or U.shape[0] != cap or U.shape[1] != cap \
            or R.shape[0] != cap or R.shape[1] != cap or E.shape[1] != cap \
            or M.shape[0] != cap or M.shape[1] != cap or A.shape[0] != n \
            or dk.shape[0] != n:
        raise ValueError("lookahead_step: G, W must be n x cap, U, R, M cap x cap, "
                         "E d x cap")
    if work.shape[0] < 3 * n + 3 * cap:
        raise ValueError("lookahead_step: work needs 3 n + 3 cap entries")
    cdef double* h = &work[0]
    cdef double* s1 = &work[n]
    cdef double* s2 = &work[2 * n]
    cdef double* c1 = &work[3 * n]       # Gw' h, turned with the columns
    cdef double* b2 = &work[3 * n + cap]
    cdef double* r = &work[3 * n + 2 * cap]
    cdef double* Ep = &E[0, 0] if d > 0 else NULL
    cdef double xx = 0.0, gg = 0.0
    cdef const double* g
    cdef double* rec = <double*> malloc(3 * cap * sizeof(double))
    if rec == NULL:
        raise MemoryError()
    with nogil:
        if appended:
            # h = G[:, xcol] joins: its Gram column, |h|^2, and W's update of
            # the columns the exchanges do not turn first
            for i in range(n):
                h[i] = G[i, xcol]
                xx += h[i] * h[i]
            if xcol > k0:
                _gemv(b'T', <int> n, <int> (xcol - k0), 1.0, &G[0, k0], <int> n, h, 1, 0.0,
                      &c1[k0], 1)
            c1[xcol] = 0.0
            for j in range(k0, xcol):
                M[j, xcol] = c1[j]
                M[xcol, j] = c1[j]
            M[xcol, xcol] = xx
            for j in range(k0, xcol + 1):
                r[j] = R[j, xcol]
            for i in range(n):
                W[i, xcol] = 0.0
            for j in range(pos, xcol + 1):
                if r[j] != 0.0:
                    _add_column(&W[0, j], n, h, r[j])
        for p in range(pos - 1, k0 - 1, -1):
            _swap(&G[0, 0], &U[0, 0], &R[0, 0], Ep, NULL, &pivots[0], n, cap, d, p, t,
                  cap, t, NULL, 0.0, &M[0, 0], k0, c1 if appended else NULL, rec)
        # W's rotations (and its update by h), all the exchanges in one pass
        csi_rotate_chain(&W[0, 0], n, n, k0, pos, rec, rec + cap, rec + 2 * cap,
                         h if appended else NULL, r if appended else NULL)
        free(rec)
        # A: Delta += h h', then Delta -= g g', with Delta h = Gw c1 (Gw' h turned)
        # and Delta g = Gw M[:, k0], Gw = G[:, k0:t] after the move
        g = &G[0, k0]
        for i in range(n):
            gg += g[i] * g[i]
        for j in range(k0, t):
            b2[j] = M[j, k0]
        csi_combine(&G[0, k0], n, n, t - k0, &c1[k0] if appended else NULL, &b2[k0], s1, s2)
        if appended:
            for i in range(n):
                A[i] += 1.0 * 2.0 * h[i] * s1[i] + h[i] * h[i] * xx
        for i in range(n):
            A[i] += -1.0 * 2.0 * g[i] * s2[i] + g[i] * g[i] * gg
            dk[i] -= g[i] * g[i]
            if dk[i] < 0.0:
                dk[i] = 0.0
    return gg


def qr_step(double[::1, :] Q, double[::1, :] R, double[::1, :] E, double[::1, :] Es,
            const double[::1, :] U, const double[::1, :] Y, const double[::1, :] G,
            Py_ssize_t t, bint center, double[::1] prev, double[::1] state,
            double[::1] work):
    """Column t of the QR decomposition of (centred) G, and of E = Y' Q, with
    Q held as ``Q_s U`` and each column of ``Q_s`` formed one call late.

    The move of a pivot (App. A) turns the columns of Q by Givens rotations;
    here they turn the columns of U (cap x cap, :func:`move_pivot_u`), and
    ``Q_s`` (``Q``, n x cap) keeps the columns as they were made, so that no
    step rewrites columns of Q.  The projection coefficients of the new
    column ``x`` (``G[:, t]``, centred) on the earlier ones come from one pass
    over ``Q_s`` (``csi_project``), which also forms ``Q_s[:, t-1]`` from the
    previous call's coefficients: ``q = (x_prev - Q_s tmp_prev) / R_prev``.
    Its norm is known before it is formed, ``R[t, t]^2 = |x|^2 - |tmp|^2``,
    and so are ``R[:t, t] = U' tmp`` and ``E[:, t] = (Y' x - Es tmp) / R[t, t]``
    (``Es = Y' Q_s``, d x cap, unturned).  Where the projection cancels more
    than half of the column's norm (or t = 0), the column is formed at once,
    with a second Gram-Schmidt pass if needed, as :func:`qr_append` does.

    ``prev`` (n) holds the centred column awaiting its formation and
    ``state`` (>= 3 + t) its flag, ``R[t-1, t-1]`` and coefficients;
    ``work`` has length >= n + 2 (t + 1) + d.  :func:`complete_pending` forms
    the last column; then Q is ``Q_s[:, :t] U[:t, :t]``.
    """
    cdef Py_ssize_t n = G.shape[0], cap = G.shape[1], d = Y.shape[1]
    cdef Py_ssize_t i, j, m
    cdef int _pass
    cdef bint pend = t > 0 and state[0] != 0.0
    cdef double mean = 0.0, norm0 = 0.0, norm, rtt, v
    if t >= cap or state.shape[0] < 3 + t or work.shape[0] < n + 2 * (t + 1) + d \
            or prev.shape[0] != n or Es.shape[1] != cap or U.shape[0] != cap:
        raise ValueError("qr_step: buffers too small")
    cdef double* x = &work[0]
    cdef double* tmp = &work[n]
    cdef double* tmp2 = &work[n + t + 1]
    cdef double* ypx = &work[n + 2 * (t + 1)]
    cdef double* q = &Q[0, t]
    cdef double* r = &R[0, t]
    with nogil:
        for i in range(n):
            x[i] = G[i, t]
        if center:
            for i in range(n):
                mean += x[i]
            mean /= n
            for i in range(n):
                x[i] -= mean
        for i in range(n):
            norm0 += x[i] * x[i]
        for j in range(t + 1):
            r[j] = 0.0
            tmp[j] = 0.0
        if pend:  # form Q_s[:, t-1] in the pass that projects x
            m = t - 1
            for i in range(n):
                Q[i, m] = prev[i]
            csi_project(&Q[0, 0], n, n, m, x, tmp, &Q[0, m], &state[2])
            rtt = state[1]
            for i in range(n):
                Q[i, m] /= rtt
            tmp[m] = csi_dot(&Q[0, m], x, n)
            state[0] = 0.0
        elif t > 0:
            csi_project(&Q[0, 0], n, n, t, x, tmp, NULL, NULL)
        norm = norm0
        for j in range(t):
            norm -= tmp[j] * tmp[j]
        if t > 0 and norm > 0.25 * norm0:
            # formed by the next call; R, E now
            rtt = sqrt(norm)
            state[0] = 1.0
            state[1] = rtt
            for j in range(t):
                state[2 + j] = tmp[j]
            for i in range(n):
                prev[i] = x[i]
            if d > 0:
                _gemv(b'T', <int> n, <int> d, 1.0, &Y[0, 0], <int> n, x, 1, 0.0, ypx, 1)
                _gemv(b'N', <int> d, <int> t, -1.0, &Es[0, 0], <int> d, tmp, 1, 1.0, ypx, 1)
                for j in range(d):
                    E[j, t] = ypx[j] / rtt
                    Es[j, t] = E[j, t]
        else:
            # at once, as qr_append (tmp holds the first pass's coefficients)
            for i in range(n):
                q[i] = x[i]
            if t > 0:
                _gemv(b'N', <int> n, <int> t, -1.0, &Q[0, 0], <int> n, tmp, 1, 1.0, q, 1)
                norm = 0.0
                for i in range(n):
                    norm += q[i] * q[i]
                if norm <= 0.25 * norm0:  # lost more than half the norm: once more
                    _gemv(b'T', <int> n, <int> t, 1.0, &Q[0, 0], <int> n, q, 1, 0.0, tmp2, 1)
                    _gemv(b'N', <int> n, <int> t, -1.0, &Q[0, 0], <int> n, tmp2, 1, 1.0, q, 1)
                    for j in range(t):
                        tmp[j] += tmp2[j]
                    norm = 0.0
                    for i in range(n):
                        norm += q[i] * q[i]
            norm = sqrt(norm)
            if norm <= 1e-12 * sqrt(norm0) or norm == 0.0:
                for i in range(n):
                    q[i] = 0.0
                rtt = 0.0
            else:
                rtt = norm
                for i in range(n):
                    q[i] /= norm
            if d > 0:
                _gemv(b'T', <int> n, <int> d, 1.0, &Y[0, 0], <int> n, q, 1, 0.0, &E[0, t], 1)
                for j in range(d):
                    Es[j, t] = E[j, t]
        # R[:t, t] = U' tmp: the coefficients in the turned columns
        for j in range(t):
            v = 0.0
            for i in range(t):
                v += U[i, j] * tmp[i]
            r[j] = v
        r[t] = rtt


def complete_pending(double[::1, :] Q, const double[::1] prev, double[::1] state,
                     Py_ssize_t t):
    """Form the column ``Q_s[:, t-1]`` that :func:`qr_step` left pending, if
    any: ``(x_prev - Q_s[:, :t-1] tmp_prev) / R[t-1, t-1]``."""
    cdef Py_ssize_t n = Q.shape[0], i, m = t - 1
    cdef double rtt
    if t <= 0 or state[0] == 0.0:
        return
    with nogil:
        for i in range(n):
            Q[i, m] = prev[i]
        if m > 0:
            _gemv(b'N', <int> n, <int> m, -1.0, &Q[0, 0], <int> n, &state[2], 1, 1.0,
                  &Q[0, m], 1)
        rtt = state[1]
        for i in range(n):
            Q[i, m] /= rtt
        state[0] = 0.0


cdef double _window_update(double[::1] A, const double[::1, :] G, Py_ssize_t k0,
                           Py_ssize_t t, Py_ssize_t c, double sign,
                           double[::1] work) noexcept nogil:
    """A[i] += sign * 2 x_i s_i + x_i^2 |x|^2 for x = G[:, c], s = Gw Gw' x,
    Gw = G[:, k0:t] (the rank-one change Delta += sign x x' of the look-ahead
    part, sign = +1 or -1).  Returns |x|^2."""
    cdef int n = <int> G.shape[0]
    cdef int w = <int> (t - k0)
    cdef Py_ssize_t i
    cdef const double* x = &G[0, c]
    cdef double xx = 0.0
    cdef double* s = &work[0]
    cdef double* b = &work[n]
    for i in range(n):
        xx += x[i] * x[i]
    if w > 0:
        _gemv(b'T', n, w, 1.0, &G[0, k0], n, x, 1, 0.0, b, 1)
        _gemv(b'N', n, w, 1.0, &G[0, k0], n, b, 1, 0.0, s, 1)
        for i in range(n):
            A[i] += sign * 2.0 * x[i] * s[i] + x[i] * x[i] * xx
    else:
        for i in range(n):
            A[i] += x[i] * x[i] * xx
    return xx


def lookahead_added(double[::1] A, double[::1, :] W, const double[::1, :] G,
                    const double[::1, :] R, Py_ssize_t k0, Py_ssize_t t,
                    double[::1] work, double[::1, :] M=None):
    """Column t (just appended) joins the look-ahead window ``[k0, t)``.

    ``Delta += h h'`` with ``h = G[:, t]``: ``A`` gets the rank-one change,
    and ``W[:, k0:t+1] += h R[k0:t+1, t]'`` (the projection of ``Pi h`` on the
    look-ahead columns of Q).  ``work`` has length >= 2 n.  If ``M`` (cap x
    cap) is given, its row and column t get ``G[:, k0:t+1]' h``: M holds the
    Gram matrix of the window for :func:`lookahead_step`.
    """
    cdef int n = <int> G.shape[0]
    cdef Py_ssize_t i, j
    cdef double rho, xx
    cdef bint gram = M is not None
    if gram and (M.shape[0] != G.shape[1] or M.shape[1] != G.shape[1]):
        raise ValueError("lookahead_added: M must be cap x cap")
    with nogil:
        xx = _window_update(A, G, k0, t, t, 1.0, work)
        if gram:
            for j in range(k0, t):  # G[:, k0:t]' h, from _window_update
                M[j, t] = work[n + j - k0]
                M[t, j] = work[n + j - k0]
            M[t, t] = xx
        for i in range(n):
            W[i, t] = 0.0
        for j in range(k0, t + 1):
            rho = R[j, t]
            if rho != 0.0:
                for i in range(n):
                    W[i, j] += G[i, t] * rho


def lookahead_chosen(double[::1] A, double[::1] dk, const double[::1, :] G,
                     Py_ssize_t k0, Py_ssize_t t, double[::1] work):
    """Column k0, the first of the window ``[k0, t)``, becomes a chosen pivot.

    ``Delta -= g g'`` with ``g = G[:, k0]``, ``dk[i] -= g_i^2`` (the residual
    diagonal after the chosen columns only); W needs nothing: its column k0
    is dropped with the window (``(I - Q_k Q_k') Pi g = 0``).

    Returns
    -------
    float
        ``|g|^2``.
    """
    cdef int n = <int> G.shape[0]
    cdef Py_ssize_t i
    cdef double gg
    with nogil:
        gg = _window_update(A, G, k0, t, k0, -1.0, work)
        for i in range(n):
            dk[i] -= G[i, k0] * G[i, k0]
            if dk[i] < 0.0:
                dk[i] = 0.0
    return gg


def estimated_gains(double[::1] out, const double[::1] A, const double[::1] dk,
                    const double[::1] dadv, const double[::1, :] W,
                    const double[::1, :] E, Py_ssize_t k0, Py_ssize_t t,
                    double lam, double mu, const unsigned char[::1] candidate,
                    double[::1, :] acc, double[::1] work):
    """Estimated reduction of the cost for every point as the next pivot.

    Eq. 9-10 of Bach & Jordan::

        gain_i = lam (A_i + nu_i) / dk_i + mu C_i / B_i,
        nu_i = dk_i^2 - (dk_i - dadv_i)^2

    with ``B_i = |W[i, k0:t]|^2`` and ``C_i = |E[:, k0:t] W[i, k0:t]'|^2``.
    Exact for the look-ahead pivots.  Points with ``candidate[i] == 0`` get
    ``-inf``.  ``acc`` is an n x d work array, ``work`` has length >= 2 n.

    B and ``acc = W[:, k0:t] E[:, k0:t]'`` come from one pass over W
    (``csi_window_norms`` of ``_csi_kernels.h``), each summed along the
    columns in order: B as a loop over the columns sums it, acc as the
    dgemm of OpenBLAS does (with fused multiply-adds where the CPU has
    them), so the gains are those of that dgemm, bit for bit, without its
    copy of W into a packing buffer.
    """
    cdef int n = <int> W.shape[0]
    cdef int d = <int> E.shape[0]
    cdef int w = <int> (t - k0)
    cdef Py_ssize_t i, c
    cdef double x, nu
    cdef double* B = &work[0]
    cdef double* C = &work[n]
    cdef bint predict = w > 0 and d > 0 and mu != 0.0
    with nogil:
        for i in range(n):
            if not candidate[i] or dk[i] <= 0.0:
                out[i] = -INFINITY
                continue
            nu = dadv[i] * (2.0 * dk[i] - dadv[i])
            out[i] = lam * (A[i] + nu) / dk[i]
        if predict:
            # B and acc = W[:, k0:t] E[:, k0:t]'  (n x d) in one pass over W
            csi_window_norms(&W[0, k0], n, n, w, &E[0, k0], d, B, &acc[0, 0], n)
            for i in range(n):
                C[i] = 0.0
            for c in range(d):
                for i in range(n):
                    x = acc[i, c]
                    C[i] += x * x
            for i in range(n):
                if out[i] != -INFINITY and B[i] > 0.0:
                    out[i] += mu * C[i] / B[i]


cdef inline void _rotate_columns(double* x, double* y, Py_ssize_t n, double cs,
                                 double sn) noexcept nogil:
    """[x y] <- [x y] [[cs, -sn], [sn, cs]] (``csi_rotate``: AVX2 where the CPU
    has it, the same result bit for bit)."""
    csi_rotate(x, y, n, cs, sn)


cdef inline void _add_rotate_columns(double* x, double* y, Py_ssize_t n, double cs,
                                     double sn, const double* h, double rho) noexcept nogil:
    """``x += h rho``, then ``_rotate_columns``: the same arithmetic, one pass
    (``csi_add_rotate``)."""
    csi_add_rotate(x, y, n, cs, sn, h, rho)


cdef inline void _add_column(double* x, Py_ssize_t n, const double* h,
                             double rho) noexcept nogil:
    """``x += h rho``."""
    cdef Py_ssize_t i
    for i in range(n):
        x[i] += h[i] * rho


cdef void _swap(double* G, double* Q, double* R, double* E, double* W,
                cnp.intp_t* pivots, Py_ssize_t n, Py_ssize_t cap, Py_ssize_t d,
                Py_ssize_t p, Py_ssize_t t, Py_ssize_t ldq, Py_ssize_t nq,
                const double* h, double rho_h, double* M, Py_ssize_t lo,
                double* c, double* rec=NULL) noexcept nogil:
    """Exchange the pivots at positions p and p + 1 (Bach & Jordan, App. A)
    on raw column-major arrays (G, Q, W: n x cap; R: cap x cap; E: d x cap).

    The approximation G G', the span of every leading block of columns but
    the p-th, and Q R = Pi G are preserved:

    1. swap ``pivots[p]``, ``pivots[p+1]``;
    2. rotate columns p, p+1 of G (and of R) by the Givens rotation Q1 that
       makes the new 2 x 2 pivot block of G lower triangular again;
    3. rotate rows p, p+1 of R by Q2 to make R upper triangular again, and
       columns p, p+1 of Q, E and W by the same Q2.

    Each step is O(n); ``t`` is the number of columns in use.  The columns
    of Q have ``nq`` rows and a leading dimension ``ldq``: n and n for Q
    itself, t and cap for the U of :func:`qr_step`'s ``Q = Q_s U``.  For
    :func:`lookahead_step`: if ``h`` is given, ``W[:, p] += h rho_h`` first
    (in the same pass as W's rotation); if ``M`` is given (cap x cap, the
    Gram matrix of G's columns ``[lo, t)``), it turns with G (``J' M J``),
    and so do the entries p, p + 1 of ``c`` if given.  If ``rec`` is given
    (3 cap), W is left alone (pass NULL): ``rec[p]``, ``rec[cap + p]`` get
    Q2's cosine and sine and ``rec[2 cap + p]`` 1 if Q2 was applied (0 if
    not), for ``csi_rotate_chain`` to turn W once all the exchanges are done.
    """
    cdef Py_ssize_t j
    cdef cnp.intp_t a = pivots[p], b = pivots[p + 1]
    cdef double x, y, rho, cs, sn, r0, r1
    pivots[p] = b
    pivots[p + 1] = a
    # the new first pivot row b = [x, y] -> [rho, 0]
    x = G[b + p * n]
    y = G[b + (p + 1) * n]
    rho = hypot(x, y)
    cs = x / rho
    sn = y / rho
    _rotate_columns(G + p * n, G + (p + 1) * n, n, cs, sn)
    G[b + (p + 1) * n] = 0.0
    _rotate_columns(R + p * cap, R + (p + 1) * cap, p + 2, cs, sn)
    if M != NULL:
        _rotate_columns(M + lo + p * cap, M + lo + (p + 1) * cap, t - lo, cs, sn)
        for j in range(lo, t):
            r0 = M[p + j * cap]
            r1 = M[p + 1 + j * cap]
            M[p + j * cap] = cs * r0 + sn * r1
            M[p + 1 + j * cap] = -sn * r0 + cs * r1
    if c != NULL:
        r0 = c[p]
        r1 = c[p + 1]
        c[p] = cs * r0 + sn * r1
        c[p + 1] = -sn * r0 + cs * r1
    # R[p+1, p] != 0 now: a Givens rotation of rows p, p+1 removes it
    x = R[p + p * cap]
    y = R[p + 1 + p * cap]
    rho = hypot(x, y)
    if rho > 0.0:
        cs = x / rho
        sn = y / rho
        for j in range(p, t):
            r0 = R[p + j * cap]
            r1 = R[p + 1 + j * cap]
            R[p + j * cap] = cs * r0 + sn * r1
            R[p + 1 + j * cap] = -sn * r0 + cs * r1
        R[p + 1 + p * cap] = 0.0
        # Q R = (Q Q2)(Q2' R) with Q2 = [[cs, -sn], [sn, cs]]; E = Y'Q and the
        # coordinates W in the columns of Q turn with Q
        _rotate_columns(Q + p * ldq, Q + (p + 1) * ldq, nq, cs, sn)
        for j in range(d):
            r0 = E[j + p * d]
            r1 = E[j + (p + 1) * d]
            E[j + p * d] = cs * r0 + sn * r1
            E[j + (p + 1) * d] = -sn * r0 + cs * r1
        if rec != NULL:
            rec[p] = cs
            rec[cap + p] = sn
            rec[2 * cap + p] = 1.0
        elif h != NULL and rho_h != 0.0:
            _add_rotate_columns(W + p * n, W + (p + 1) * n, n, cs, sn, h, rho_h)
        else:
            _rotate_columns(W + p * n, W + (p + 1) * n, n, cs, sn)
    elif rec != NULL:
        rec[p] = 1.0
        rec[cap + p] = 0.0
        rec[2 * cap + p] = 0.0
    elif h != NULL and rho_h != 0.0:
        _add_column(W + p * n, n, h, rho_h)


def rotate_chain(double[::1, :] W, Py_ssize_t lo, Py_ssize_t hi, const double[::1] cs,
                 const double[::1] sn, const double[::1] rot, const double[::1] h=None,
                 const double[::1] rho=None):
    """W's turn in a move of a pivot (``csi_rotate_chain``), as
    :func:`lookahead_step` does it: for p = hi - 1 down to lo, ``W[:, p] +=
    h rho[p]`` (if h is given and ``rho[p] != 0``), then, if ``rot[p] != 0``,
    ``[W[:, p], W[:, p+1]] <- [W[:, p], W[:, p+1]] [[cs[p], -sn[p]], [sn[p],
    cs[p]]]``; the same arithmetic as the exchanges' rotations, bit for bit.
    """
    cdef Py_ssize_t n = W.shape[0]
    cdef bint bad_h = h is not None and (h.shape[0] != n or rho is None
                                         or rho.shape[0] < hi)
    if lo < 0 or hi >= W.shape[1] or cs.shape[0] < hi or sn.shape[0] < hi \
            or rot.shape[0] < hi or bad_h:
        raise ValueError("rotate_chain: need 0 <= lo, hi < W.shape[1], hi coefficients, "
                         "h of length n with rho")
    if hi <= lo:
        return
    cdef const double* hp = &h[0] if h is not None else NULL
    cdef const double* rp = &rho[0] if h is not None else NULL
    with nogil:
        csi_rotate_chain(&W[0, 0], n, n, lo, hi, &cs[0], &sn[0], &rot[0], hp, rp)


cdef void _exchanges(double[::1, :] G, double* Q, Py_ssize_t ldq, Py_ssize_t nq,
                     double[::1, :] R, double[::1, :] E, double[::1, :] W,
                     cnp.intp_t[::1] pivots, Py_ssize_t src, Py_ssize_t dst,
                     Py_ssize_t t) noexcept:
    """The exchanges at src - 1, ..., dst of :func:`move_pivot` and
    :func:`move_pivot_u`: ``Q`` is Q itself (``ldq = nq = n``) or U
    (``ldq = cap``, ``nq = t`` rows in use)."""
    cdef Py_ssize_t p
    cdef Py_ssize_t n = G.shape[0], cap = G.shape[1], d = E.shape[0]
    cdef double* Ep = &E[0, 0] if d > 0 else NULL
    with nogil:
        for p in range(src - 1, dst - 1, -1):
            _swap(&G[0, 0], Q, &R[0, 0], Ep, &W[0, 0], &pivots[0], n, cap, d, p, t,
                  ldq, nq, NULL, 0.0, NULL, 0, NULL)


def move_pivot(double[::1, :] G, double[::1, :] Q, double[::1, :] R,
               double[::1, :] E, double[::1, :] W, cnp.intp_t[::1] pivots,
               Py_ssize_t src, Py_ssize_t dst, Py_ssize_t t):
    """Move the pivot at position ``src`` to position ``dst < src`` by the
    exchanges of successive pivots at src - 1, ..., dst (``_swap``):
    O(n (src - dst)).
    """
    if dst < 0 or src >= t or dst > src:
        raise ValueError("move_pivot: need 0 <= dst <= src < t")
    cdef Py_ssize_t n = G.shape[0], cap = G.shape[1]
    if Q.shape[0] != n or W.shape[0] != n or Q.shape[1] != cap or W.shape[1] != cap \
            or R.shape[0] != cap or R.shape[1] != cap or E.shape[1] != cap:
        raise ValueError("move_pivot: G, Q, W must be n x cap, R cap x cap, E d x cap")
    _exchanges(G, &Q[0, 0], n, n, R, E, W, pivots, src, dst, t)


def move_pivot_u(double[::1, :] G, double[::1, :] U, double[::1, :] R,
                 double[::1, :] E, double[::1, :] W, cnp.intp_t[::1] pivots,
                 Py_ssize_t src, Py_ssize_t dst, Py_ssize_t t):
    """:func:`move_pivot` with Q held as ``Q_s U`` (:func:`qr_step`): the
    rotations of Q's columns turn the columns of U (cap x cap) instead, and
    Q_s is left alone.
    """
    if dst < 0 or src >= t or dst > src:
        raise ValueError("move_pivot_u: need 0 <= dst <= src < t")
    cdef Py_ssize_t n = G.shape[0], cap = G.shape[1]
    if W.shape[0] != n or W.shape[1] != cap or U.shape[0] != cap or U.shape[1] != cap \
            or R.shape[0] != cap or R.shape[1] != cap or E.shape[1] != cap:
        raise ValueError("move_pivot_u: G, W must be n x cap, U, R cap x cap, E d x cap")
    _exchanges(G, &U[0, 0], cap, t, R, E, W, pivots, src, dst, t)
