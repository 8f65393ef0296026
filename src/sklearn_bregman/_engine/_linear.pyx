# cython: language_level=3
"""Compiled sweep of LogDet Bregman projections on general linear rows.

JMLR 2009, Section 6.2.2: besides pair distances, a kernel can be held to
any linear constraint ``tr(K A) <= b`` (or ``= b``).  In the factor's
coordinates (K = G0 M G0', Section 4.2) the row reads ``tr(M C) <= b`` with
``C = G0' A G0`` symmetric r x r, possibly indefinite; the caller hands it
over factored, ``C = sum_k s_k v_k v_k'`` with ``s_k = +1 or -1`` (relative
distance rows: ``v_1 = g_a - g_b``, ``v_2 = g_c - g_d``, signs +1, -1;
kernel-entry rows: ``(g_i + g_j) / 2`` and ``(g_i - g_j) / 2``; general rows:
eigenvectors of C scaled by the square roots of |eigenvalues|).

One projection on row c, target ``xi_c`` (the bound when hard), dual
``nu_c`` (non-negative for an inequality, free for an equality), slack
``gamma`` (quadratic penalty ``gamma / 2 (xi - b)^2``, as SKLR eq. 20, on rows
the caller normalised to unit scale)::

    M(a)^-1 = M^-1 + a C                      (LogDet Bregman projection)
    f(a)    = tr(M(a) C) = sum_k eta_k / (1 + a eta_k)
    a*      : root of f(a) - a / gamma - xi_c = 0
    a       = max(a*, -nu_c)   (inequality, dual correction; a* for equality)
    nu_c   += a,   xi_c += a / gamma,   M <- M(a)

with ``eta`` the non-zero eigenvalues of ``M C`` (those of the q x q matrix
``P S``, ``P = V' M V``: for two vectors SKLR's eq. 13, here for any q).  f
is decreasing on the interval where every ``1 + a eta_k > 0``; the root comes
from Newton's method, safeguarded by bisection where f has both a convex and
a concave part (both signs of eta; with one sign Newton converges
monotonically from a = 0).  The update is Woodbury's,
``M <- M - a Z (S + a P)^-1 Z'`` with ``Z = M V`` (S = S^-1 for signs +-1),
applied as q rank-one updates along the eigenvectors of ``S + a P``:
O(q r^2) per projection, q = 1 or 2 for pairs, relative and kernel-entry
rows.

With one vector, s = +1 and no slack this is the pair projection of
``_logdet.pyx`` in another parameterisation (a = -delta alpha).
"""

from libc.math cimport atan2, cos, fabs, isinf, sin, sqrt
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_lapack cimport dsyev

cimport numpy as cnp

from ._dense_kernels cimport skb_dot, skb_matvec, skb_mirror_upper, skb_update

cnp.import_array()

#: Newton / bisection steps per root at most.
cdef int MAX_ROOT_STEPS = 200
#: A root-finding step this small relative to |a| (or 1) ends the search.
cdef double ROOT_XTOL = 4e-16
#: |g(a)| below this share of the magnitudes of its terms is rounding: a root.
cdef double ROOT_GTOL = 2e-16
#: Eigenvalues of M C below this share of the largest are taken as zero.
cdef double ETA_RTOL = 1e-13


cdef struct row_work:
    int q              # vectors in use
    double *v          # q x r, the row's vectors (copied)
    double *s          # q signs
    double *Z          # q x r: rows M v_k
    double *P          # q x q: v_k' M v_l
    double *eta        # q eigenvalues of P S
    double *A          # q x q scratch
    double *Y          # q x q: (S + a P)^-1
    double *work       # LAPACK workspace
    int lwork


cdef inline double f_eta(const double *eta, int q, double a, double *fp,
                         double *fabs_sum) noexcept nogil:
    """f(a) = sum eta / (1 + a eta), f'(a) = -sum eta^2 / (1 + a eta)^2 and
    the sum of the terms' magnitudes (the rounding scale of f)."""
    cdef double f = 0.0, d = 0.0, t, sa = 0.0
    cdef int k
    for k in range(q):
        t = eta[k] / (1.0 + a * eta[k])
        f += t
        d -= t * t
        sa += fabs(t)
    fp[0] = d
    fabs_sum[0] = sa
    return f


cdef int eigen_ps(row_work *W) noexcept nogil:
    """Eigenvalues of P S into W.eta (real: P S is similar to P^1/2 S P^1/2)."""
    cdef int q = W.q, k, col, m, info = 0
    cdef double tr, det, disc, p11, p22, p12, d
    cdef char jobv = b'V', jobn = b'N', uplo = b'U'
    if q == 1:
        W.eta[0] = W.s[0] * W.P[0]
        return 0
    if q == 2:
        p11 = W.P[0]
        p12 = W.P[1]
        p22 = W.P[3]
        tr = W.s[0] * p11 + W.s[1] * p22
        det = W.s[0] * W.s[1] * (p11 * p22 - p12 * p12)
        disc = 0.25 * tr * tr - det
        if disc < 0.0:
            disc = 0.0
        disc = sqrt(disc)
        # the larger root first, the other from the product (no cancellation)
        if tr >= 0.0:
            W.eta[0] = 0.5 * tr + disc
        else:
            W.eta[0] = 0.5 * tr - disc
        W.eta[1] = det / W.eta[0] if W.eta[0] != 0.0 else 0.0
        return 0
    # General q: P = U D U' (LAPACK dsyev), B = D^1/2 U' S U D^1/2, eta = eig(B).
    for k in range(q * q):
        W.A[k] = W.P[k]
    dsyev(&jobv, &uplo, &q, W.A, &q, W.eta, W.work, &W.lwork, &info)
    if info != 0:
        return -1
    # columns of A (Fortran order: A[k * q + m] = U[m, k]) scaled by sqrt(d_k)
    for k in range(q):
        d = W.eta[k] if W.eta[k] > 0.0 else 0.0
        d = sqrt(d)
        for m in range(q):
            W.A[k * q + m] *= d
    for k in range(q):
        for col in range(k, q):
            tr = 0.0
            for m in range(q):
                tr += W.A[k * q + m] * W.s[m] * W.A[col * q + m]
            W.Y[col * q + k] = tr
            W.Y[k * q + col] = tr
    dsyev(&jobn, &uplo, &q, W.Y, &q, W.eta, W.work, &W.lwork, &info)
    return -1 if info != 0 else 0


cdef int eigen_sym(double *Y, double *lam, int q, double *work, int lwork) noexcept nogil:
    """Eigen-decomposition of a small symmetric Y in place: on return row k of
    Y holds the k-th unit eigenvector, ``lam[k]`` its eigenvalue (q = 1, 2 in
    closed form, a Jacobi rotation; LAPACK dsyev beyond)."""
    cdef double a, b, c, th, cs, sn
    cdef int info = 0
    cdef char jobv = b'V', uplo = b'U'
    if q == 1:
        lam[0] = Y[0]
        Y[0] = 1.0
        return 0
    if q == 2:
        a = Y[0]
        b = Y[1]
        c = Y[3]
        th = 0.5 * atan2(2.0 * b, a - c)
        cs = cos(th)
        sn = sin(th)
        lam[0] = a * cs * cs + 2.0 * b * cs * sn + c * sn * sn
        lam[1] = a * sn * sn - 2.0 * b * cs * sn + c * cs * cs
        Y[0] = cs
        Y[1] = sn
        Y[2] = -sn
        Y[3] = cs
        return 0
    # dsyev (column-major) on a symmetric matrix: column k of the result is
    # the k-th eigenvector, i.e. row k in our row-major reading
    dsyev(&jobv, &uplo, &q, Y, &q, lam, work, &lwork, &info)
    return -1 if info != 0 else 0


cdef double find_root(const double *eta, int q, double target, double inv_gamma,
                      double a_floor, bint clamp, int *n_evals, int *status) noexcept nogil:
    """The root a* of g(a) = f(a) - a inv_gamma - target (g decreasing), or
    ``a_floor`` when ``clamp`` and the root lies below it.  status: 0 found,
    1 clamped, -1 no root (an infeasible hard row)."""
    cdef double eta_max = 0.0, eta_min = 0.0, lo, hi, a, g, gp, fp, step, nxt, fs
    cdef int k, _
    cdef bint lo_inf, hi_inf
    for k in range(q):
        if eta[k] > eta_max:
            eta_max = eta[k]
        if eta[k] < eta_min:
            eta_min = eta[k]
    lo_inf = eta_max <= 0.0
    hi_inf = eta_min >= 0.0
    lo = -1.0 / eta_max if not lo_inf else 0.0
    hi = -1.0 / eta_min if not hi_inf else 0.0
    status[0] = 0
    g = f_eta(eta, q, 0.0, &fp, &fs) - target
    n_evals[0] += 1
    if g == 0.0:
        return 0.0
    if g > 0.0:
        # root above 0: bracket [0, hi)
        lo = 0.0
        lo_inf = False
        if hi_inf and inv_gamma == 0.0 and target <= 0.0:
            status[0] = -1  # f > 0 on [0, inf): no kernel meets this row
            return 0.0
    else:
        hi = 0.0
        hi_inf = False
        if clamp:
            # the dual can give back at most nu: is the root below -nu?
            if not lo_inf and a_floor <= lo:
                pass  # -nu outside the domain: the root is above it
            else:
                g = f_eta(eta, q, a_floor, &fp, &fs) - a_floor * inv_gamma - target
                n_evals[0] += 1
                if g <= 0.0:
                    status[0] = 1
                    return a_floor
                lo = a_floor
                lo_inf = False
        if lo_inf and inv_gamma == 0.0 and target >= 0.0:
            status[0] = -1  # f < 0 on (-inf, 0]: no kernel meets this row
            return 0.0
    a = 0.0
    for _ in range(MAX_ROOT_STEPS):
        g = f_eta(eta, q, a, &fp, &fs) - a * inv_gamma - target
        n_evals[0] += 1
        if fabs(g) <= ROOT_GTOL * (fs + fabs(target) + fabs(a) * inv_gamma):
            return a
        if g > 0.0:
            lo = a
            lo_inf = False
        else:
            hi = a
            hi_inf = False
        gp = fp - inv_gamma
        nxt = a - g / gp if gp < 0.0 else a
        if (not lo_inf and nxt <= lo) or (not hi_inf and nxt >= hi) or nxt == a:
            # Newton left the bracket: bisect (both ends are finite here,
            # since with an infinite end Newton is monotone)
            if lo_inf or hi_inf:
                return a
            nxt = 0.5 * (lo + hi)
        step = fabs(nxt - a)
        a = nxt
        if step <= ROOT_XTOL * (fabs(a) + 1e-300) or (
                not lo_inf and not hi_inf and hi - lo <= ROOT_XTOL * fabs(a)):
            return a
    return a


def logdet_linear_sweep(const double[:, :, ::1] V,
                        const signed char[:, ::1] S,
                        const signed char[::1] kind,
                        const double[::1] bound,
                        double[::1] xi,
                        double[::1] nu,
                        double[:, ::1] M,
                        const cnp.intp_t[::1] order,
                        double slack,
                        double rtol,
                        bint correction=True):
    """Project once onto each linear row listed in ``order``.

    Parameters
    ----------
    V : ndarray of shape (c, q, r), C-contiguous float64
        The vectors of each row: ``C_c = sum_k S[c, k] V[c, k] V[c, k]'``.
    S : ndarray of shape (c, q), int8
        +1 or -1, or 0 for an unused slot.
    kind : ndarray of shape (c,), int8
        +1: ``tr(M C_c) <= xi_c``; 0: ``tr(M C_c) = xi_c``.
    bound : ndarray of shape (c,)
        The rows' right-hand sides; only used to count satisfied rows.
    xi : ndarray of shape (c,)
        Targets, updated in place when ``slack`` is finite.
    nu : ndarray of shape (c,)
        Dual variables, updated in place.
    M : ndarray of shape (r, r), C-contiguous
        Symmetric positive definite state, updated in place.  Only its upper
        triangle is read; on return the lower triangle mirrors it.
    order : ndarray of shape (m,), intp
        Rows to visit, in this order.
    slack : float
        gamma > 0 of the penalty ``gamma / 2 (xi - b)^2``; ``inf``: hard.
    rtol : float
        A row counts as satisfied when ``tr(M C) - bound <= rtol`` (equality:
        in absolute value) before its projection (rows are unit-scaled).
    correction : bool, default=True
        Clip the step at ``-nu_c`` on inequality rows (the dual correction).

    Returns
    -------
    n_satisfied, n_skipped, n_moved, n_evals : int
        Rows satisfied when visited; rows skipped (no vector, or no kernel
        can meet them: ``tr(M C)`` keeps one sign for every M); projections
        that changed ``M``; evaluations of f by the root finder.
    """
    cdef Py_ssize_t c_rows = V.shape[0]
    cdef int qmax = <int> V.shape[1]
    cdef Py_ssize_t r = V.shape[2]
    cdef Py_ssize_t m = order.shape[0]
    if M.shape[0] != r or M.shape[1] != r:
        raise ValueError("M must be r x r with r = V.shape[2]")
    if S.shape[0] != c_rows or S.shape[1] != qmax:
        raise ValueError("S must be (c, q) like V's first two dimensions")
    if r == 0 or m == 0 or qmax == 0:
        return 0, 0, 0, 0

    cdef row_work W
    cdef int q2 = qmax * qmax
    W.lwork = 3 * qmax + 8
    cdef double *mem = <double *> malloc(
        sizeof(double) * (2 * qmax * r + qmax + qmax * qmax + qmax + 3 * q2 + W.lwork))
    if mem == NULL:
        raise MemoryError()
    W.v = mem
    W.Z = W.v + qmax * r
    W.s = W.Z + qmax * r
    W.P = W.s + qmax
    W.eta = W.P + q2
    W.A = W.eta + qmax
    W.Y = W.A + q2
    W.work = W.Y + q2 + q2

    cdef double *Mp = &M[0, 0]
    cdef bint hard = isinf(slack)
    cdef double inv_gamma = 0.0 if hard else 1.0 / slack
    cdef Py_ssize_t t, c, i
    cdef int k, col, q, status, evals = 0, nz
    cdef double f0, a, val, emax
    cdef const double *vk
    cdef Py_ssize_t n_satisfied = 0, n_skipped = 0, n_moved = 0
    cdef bint ineq, clamp, singular

    try:
        with nogil:
            for t in range(m):
                c = order[t]
                # gather the row's vectors with a sign
                q = 0
                for k in range(qmax):
                    if S[c, k] != 0:
                        vk = &V[c, k, 0]
                        nz = 0
                        for i in range(r):
                            W.v[q * r + i] = vk[i]
                            if vk[i] != 0.0:
                                nz = 1
                        if nz:
                            W.s[q] = <double> S[c, k]
                            q += 1
                if q == 0:
                    n_skipped += 1
                    continue
                W.q = q
                # Z = V M (rows M v_k), P = V M V' (upper triangle of M read)
                for k in range(q):
                    skb_matvec(Mp, r, &W.v[k * r], &W.Z[k * r])
                for k in range(q):
                    for col in range(k, q):
                        val = skb_dot(&W.v[k * r], &W.Z[col * r], r)
                        W.P[k * q + col] = val
                        W.P[col * q + k] = val
                f0 = 0.0
                for k in range(q):
                    f0 += W.s[k] * W.P[k * q + k]
                ineq = kind[c] != 0
                if ineq:
                    if f0 - bound[c] <= rtol:
                        n_satisfied += 1
                    if correction and nu[c] <= 0.0 and f0 <= xi[c]:
                        continue  # met, and no dual to give back
                else:
                    if fabs(f0 - bound[c]) <= rtol:
                        n_satisfied += 1
                if eigen_ps(&W) != 0:
                    n_skipped += 1
                    continue
                emax = 0.0
                for k in range(q):
                    if fabs(W.eta[k]) > emax:
                        emax = fabs(W.eta[k])
                for k in range(q):
                    if fabs(W.eta[k]) <= ETA_RTOL * emax:
                        W.eta[k] = 0.0
                if emax == 0.0:
                    n_skipped += 1
                    continue
                clamp = ineq and correction
                a = find_root(W.eta, q, xi[c], inv_gamma, -nu[c], clamp, &evals, &status)
                if status < 0:
                    n_skipped += 1
                    continue
                if a == 0.0:
                    continue
                # (S + a P)^-1 = sum_k u_k u_k' / lam_k with (lam_k, u_k) the
                # eigenpairs of the symmetric S + a P, so M <- M - a Z' (S +
                # a P)^-1 Z is q rank-one updates along the u_k (upper
                # triangle; mirrored when the sweep ends)
                for k in range(q):
                    for col in range(q):
                        W.Y[k * q + col] = a * W.P[k * q + col]
                    W.Y[k * q + k] += W.s[k]
                if eigen_sym(W.Y, W.eta, q, W.work, W.lwork) != 0:
                    n_skipped += 1
                    continue
                singular = False
                for k in range(q):
                    if W.eta[k] == 0.0:
                        singular = True
                if singular:
                    n_skipped += 1
                    continue
                for k in range(q):
                    for i in range(r):
                        val = 0.0
                        for col in range(q):
                            val = val + W.Y[k * q + col] * W.Z[col * r + i]
                        W.v[k * r + i] = val
                for k in range(q):
                    skb_update(Mp, r, -a / W.eta[k], &W.v[k * r])
                nu[c] += a
                if not hard:
                    xi[c] += a * inv_gamma
                n_moved += 1
            skb_mirror_upper(Mp, r)
    finally:
        free(mem)
    return n_satisfied, n_skipped, n_moved, evals
