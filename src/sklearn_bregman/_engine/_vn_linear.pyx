# cython: language_level=3
"""Compiled sweep of von Neumann Bregman projections on general symmetric rows.

Row ``c`` is ``tr(X C_c) <= xi_c`` (kind +1) or ``= xi_c`` (kind 0) with the
symmetric, possibly indefinite, low-rank ``C_c = sum_k s_k v_k v_k'`` (the
vectors ``v_k = V[c, k]``, signs ``s_k = S[c, k]`` in {+1, -1, 0}).  The state
is ``L = log X`` (r x r, kept exactly symmetric).  One projection (JMLR 2009,
Section 5.2, Algorithm 3, generalised from rank one; dual correction of
Section 3.4 and a quadratic slack penalty ``gamma / 2 (xi - b)^2`` in place
of Section 6.2.1's)::

    f(a)  = tr(exp(L - a C) C)                 non-increasing in a
    a*    : root of g(a) = f(a) - a / gamma - xi_c     (g strictly decreasing)
    a     = max(a*, -nu_c)   (kind +1, correction)   or   a*   (otherwise)
    nu_c += a,   xi_c += a / gamma,   L -= a C

(Stationarity of ``D(X, X_t) + gamma / 2 (xi - xi_t)^2`` under
``tr(X C) = xi`` gives ``xi = xi_t + a / gamma`` and hence the ``- a / gamma``
in g: at the root the row holds at its new target, ``f(a) = xi_c``.)

Evaluation of f: ``L - a C`` differs from L only inside ``span(V_c)``, so the
block Krylov space of L started from an orthonormal basis Q_1 of
``span(V_c)`` does not depend on a.  One block Lanczos run (full
reorthogonalisation, rank-revealing: dependent candidates are dropped) gives
Q (r x m) and ``T = Q' L Q``; with ``V_c = Q_1 R`` the projected row is
``Ct = R S R'`` (p x p) and

    f(a) = tr(exp(T - a E Ct E') E Ct E')      (E: the first p columns of I_m)

is an m x m problem: its eigenvalues and the first p rows of its
eigenvectors, by Householder tridiagonalisation (``_vn_linear.h``) and the
engine's QL (``_tridiag_ql.h``;
LAPACK ``dsyev`` as the fallback), O(m^3) per evaluation.  Its derivative
comes from the same decomposition (Daleckii-Krein):
``f'(a) = -sum_jl Ct~_jl^2 [th_j, th_l]exp`` with ``Ct~`` the projected row
in the eigenbasis and ``[x, y]exp`` the divided difference of exp.  The
Krylov depth grows a block at a time until f at the current a changes by
less than ``LIN_KTOL`` of ``tr(exp(...) |C|)`` from one block fewer, or the
space is invariant (m = r at worst: then f is exact); it is checked at
``a = 0`` and again at the root.  The root comes from Newton steps inside
a bracket (on ``log(f / (xi + a / gamma))`` where that is defined and f is
far from its target or the row semidefinite, on g itself otherwise), with
doubling until the bracket closes and bisection when a step leaves it or
does not halve |g|.  A hard row with no root (``tr(X v v') <= -1``) is left
as it is.
"""

from libc.math cimport INFINITY, NAN, exp, fabs, isfinite, isinf, isnan, log, sqrt

import numpy as np

cimport numpy as cnp
from scipy.linalg.cython_lapack cimport dsyev

from ._dense_kernels cimport skb_dot, skb_matvec, skb_mirror_upper


cdef extern from "_vn_linear.h" nogil:
    void vnl_tridiag(double* A, Py_ssize_t m, double* d, double* e, double* P,
                     Py_ssize_t p, double* v, double* w)

cdef extern from "_tridiag_ql.h" nogil:
    int vn_tridiag_eig_rows(double* d, double* e, Py_ssize_t n, double* z, Py_ssize_t p)

cnp.import_array()

# Relative change of f between two Krylov depths taken as converged.
cdef double LIN_KTOL = 1e-13
# |g| at the root, relative to the size of its terms.
cdef double LIN_GTOL = 1e-14
# |f(0) - xi| below which a row is at its target already.
cdef double LIN_ATROOT = 1e-13
# Candidate Krylov vectors below this fraction of |L q| are dependent.
cdef double LIN_DROP = 1e-13
# Start vectors below this fraction of their own norm after orthogonalisation
# are dependent on the earlier ones.
cdef double LIN_VDROP = 1e-12
# Krylov size a projection starts at (before its first check).
cdef Py_ssize_t LIN_KSTART = 8
cdef int LIN_MAXEVAL = 100

cdef extern from *:
    """
    typedef struct {
        ptrdiff_t r, q;
        double *Qb;    /* r x r: basis vectors (rows) */
        double *LQ;    /* r x r: L q_j (rows) */
        double *T;     /* r x r: Q' L Q (leading dimension r) */
        double *Ct;    /* q x q: projected row R S R' (leading dimension q) */
        double *Ca;    /* q x q: projected |C| = R |S| R' */
        double *R;     /* q x q: R[i * q + k] = q_i . v_k */
        double *Z;     /* r x r: eigen work (column-major, leading dimension m) */
        double *th;    /* r: eigenvalues */
        double *Y;     /* r x q: eigenvectors' first p entries times Ct */
        double *dg;    /* r: diagonal of Ct~ */
        double *ex;    /* r: exp(th) */
        double *e, *v1, *v2;  /* r each: tridiagonal and Householder work */
        double *P;     /* q x r: first p rows of the eigenvectors */
        ptrdiff_t c_m[2];  /* cache of two evaluations (c_m = -1: empty) */
        double c_a[2], c_f[2], c_fa[2], c_df[2];
        int c_next;
        double last_ratio; /* the last Krylov check: |f_m - f_(m-block)| / fa */
        int semidef;   /* every sign of the row alike: C >= 0 or C <= 0 */
        double *w;     /* r: work vector */
        double *cf;    /* r: Gram-Schmidt coefficients */
        double *work;  /* lwork: LAPACK */
        int lwork;
        ptrdiff_t *blk; /* r + 1: blk[j] = end of block j */
        ptrdiff_t nblk, m, p;
        int exhausted;
        double normest; /* largest |L q_j| seen */
        long n_evals;
    } lin_work;
    """
    ctypedef struct lin_work:
        Py_ssize_t r
        Py_ssize_t q
        double* Qb
        double* LQ
        double* T
        double* Ct
        double* Ca
        double* R
        double* Z
        double* th
        double* Y
        double* dg
        double* ex
        double* e
        double* v1
        double* v2
        double* P
        Py_ssize_t c_m[2]
        double c_a[2]
        double c_f[2]
        double c_fa[2]
        double c_df[2]
        int c_next
        double last_ratio
        int semidef
        double* w
        double* cf
        double* work
        int lwork
        Py_ssize_t* blk
        Py_ssize_t nblk
        Py_ssize_t m
        Py_ssize_t p
        int exhausted
        double normest
        long n_evals


cdef int _gs_append(lin_work* W, double* w, double scale) noexcept nogil:
    """Orthogonalise w against the basis and append it, normalised, unless its
    norm falls to ``<= scale`` (dependent): returns 1 if appended."""
    cdef Py_ssize_t r = W.r, m = W.m, i, t
    cdef double nrm = sqrt(skb_dot(w, w, r)), before, ci
    cdef int npass
    for npass in range(3):  # "twice is enough", a third only if it lost much
        if m == 0 or nrm <= scale:
            break
        before = nrm
        for i in range(m):
            W.cf[i] = skb_dot(W.Qb + i * r, w, r)
        for i in range(m):
            ci = W.cf[i]
            for t in range(r):
                w[t] -= ci * W.Qb[i * r + t]
        nrm = sqrt(skb_dot(w, w, r))
        if npass >= 1 and nrm > 0.5 * before:
            break
    if not (nrm > scale) or m >= r:
        return 0
    ci = 1.0 / nrm
    for t in range(r):
        W.Qb[m * r + t] = w[t] * ci
    W.m = m + 1
    return 1


cdef void _products(lin_work* W, const double* L, Py_ssize_t j0) noexcept nogil:
    """L q_j and the entries of T for the new basis vectors j0 <= j < m."""
    cdef Py_ssize_t r = W.r, m = W.m, i, j
    cdef double x
    for j in range(j0, m):
        skb_matvec(L, r, W.Qb + j * r, W.LQ + j * r)
        x = sqrt(skb_dot(W.LQ + j * r, W.LQ + j * r, r))
        if x > W.normest:
            W.normest = x
        for i in range(j + 1):
            x = skb_dot(W.Qb + i * r, W.LQ + j * r, r)
            if i >= j0:  # both new: symmetrise the pair
                x = 0.5 * (x + skb_dot(W.Qb + j * r, W.LQ + i * r, r))
            W.T[i * r + j] = x
            W.T[j * r + i] = x


cdef Py_ssize_t _start(lin_work* W, const double* L, const double* Vc,
                       const signed char* Sc) noexcept nogil:
    """Orthonormal basis of span(V_c), R, Ct and Ca; L q_j and T for it.
    Returns p, or 0 when the row is null (no vector with a sign, or C = 0)."""
    cdef Py_ssize_t r = W.r, q = W.q, k, i, j, t, nact = 0
    cdef double nv, sk, x, cmax = 0.0, ctr = 0.0
    cdef int npos = 0, nneg = 0
    W.m = 0
    W.nblk = 0
    W.c_m[0] = W.c_m[1] = -1
    W.c_next = 0
    W.exhausted = 0
    W.normest = 0.0
    for k in range(q):
        if Sc[k] == 0:
            continue
        nv = sqrt(skb_dot(Vc + k * r, Vc + k * r, r))
        if nv == 0.0:
            continue
        nact += 1
        if Sc[k] > 0:
            npos += 1
        else:
            nneg += 1
        for t in range(r):
            W.w[t] = Vc[k * r + t]
        _gs_append(W, W.w, LIN_VDROP * nv)
    if nact == 0 or W.m == 0:
        return 0
    W.p = W.m
    W.semidef = npos == 0 or nneg == 0
    cdef Py_ssize_t p = W.p
    for i in range(p):
        for k in range(q):
            W.R[i * q + k] = skb_dot(W.Qb + i * r, Vc + k * r, r) if Sc[k] != 0 else 0.0
    for i in range(p):
        for j in range(i, p):
            x = 0.0
            nv = 0.0
            for k in range(q):
                sk = <double> Sc[k]
                x += sk * W.R[i * q + k] * W.R[j * q + k]
                nv += fabs(sk) * W.R[i * q + k] * W.R[j * q + k]
            W.Ct[i * q + j] = x
            W.Ct[j * q + i] = x
            W.Ca[i * q + j] = nv
            W.Ca[j * q + i] = nv
            if fabs(x) > cmax:
                cmax = fabs(x)
        ctr += W.Ca[i * q + i]
    if not (cmax > 1e-13 * ctr):  # C = 0 (e.g. v v' - v v'): nothing to hold
        return 0
    _products(W, L, 0)
    W.blk[0] = p
    W.nblk = 1
    if p >= r:
        W.exhausted = 1
    return p


cdef void _add_block(lin_work* W, const double* L) noexcept nogil:
    """One more block: L q_j of the last block, orthogonalised (dependent
    ones dropped); the space is invariant when none is left."""
    cdef Py_ssize_t r = W.r, j, t, m0 = W.m
    cdef Py_ssize_t b0 = W.blk[W.nblk - 2] if W.nblk >= 2 else 0
    cdef Py_ssize_t b1 = W.blk[W.nblk - 1]
    if W.exhausted:
        return
    for j in range(b0, b1):
        for t in range(r):
            W.w[t] = W.LQ[j * r + t]
        _gs_append(W, W.w, LIN_DROP * W.normest)
    if W.m == m0:
        W.exhausted = 1
        return
    _products(W, L, m0)
    W.blk[W.nblk] = W.m
    W.nblk += 1
    if W.m >= r:
        W.exhausted = 1


cdef inline void _exhaust_if_near(lin_work* W, const double* L) noexcept nogil:
    """Grow to the whole (invariant) space once m >= 0.8 r: one evaluation at
    size r, exact, costs less than a check's two at sizes m and m - p."""
    while not W.exhausted and 5 * W.m >= 4 * W.r:
        _add_block(W, L)


cdef double _eval_new(lin_work* W, Py_ssize_t m, double a, double* fa_out,
                      double* df_out) noexcept nogil:
    """f(a) on the leading m x m block of T, with tr(exp(.) |C|) in *fa_out
    and f'(a) in *df_out.  NAN if LAPACK fails."""
    cdef Py_ssize_t r = W.r, q = W.q, p = W.p, i, j, k
    cdef double* Z = W.Z
    cdef double* zj
    cdef double* yl
    cdef double x, f = 0.0, fa = 0.0, df = 0.0, e, h, ej
    cdef int n = <int> m, info = 0
    cdef char jobz = b'V', uplo = b'U'
    # M = T - a E Ct E' (both triangles), then its eigenvalues and the first
    # p rows of its eigenvectors (_vn_linear.h); LAPACK if the QL fails
    for i in range(m):
        for j in range(i, m):
            x = W.T[i * r + j]
            if j < p:
                x -= a * W.Ct[i * q + j]
            Z[i * m + j] = x
            Z[j * m + i] = x
    vnl_tridiag(Z, m, W.th, W.e, W.P, p, W.v1, W.v2)
    if vn_tridiag_eig_rows(W.th, W.e, m, W.P, p) == 0:
        for j in range(m):
            for k in range(p):
                Z[j * m + k] = W.P[k * m + j]
    else:
        for j in range(m):
            for i in range(j + 1):
                x = W.T[i * r + j]
                if j < p:
                    x -= a * W.Ct[i * q + j]
                Z[i + j * m] = x
        dsyev(&jobz, &uplo, &n, Z, &n, W.th, W.work, &W.lwork, &info)
        if info != 0:
            return NAN
    # Y[j] = Ct z_j (first p entries), dg_j = z_j' Ct z_j
    for j in range(m):
        zj = Z + j * m
        yl = W.Y + j * q
        x = 0.0
        e = 0.0
        for k in range(p):
            yl[k] = 0.0
            h = 0.0
            for i in range(p):
                yl[k] += W.Ct[k * q + i] * zj[i]
                h += W.Ca[k * q + i] * zj[i]
            x += zj[k] * yl[k]
            e += zj[k] * h
        W.dg[j] = x
        W.ex[j] = exp(W.th[j])
        f += W.ex[j] * x
        fa += W.ex[j] * e
    # f'(a) = -sum_jl Ct~_jl^2 [th_j, th_l]exp (Daleckii-Krein); the divided
    # difference from the exponentials when |h| >= 1e-3 (relative error
    # ~1e-13: it only steers Newton), a Taylor form below
    for j in range(m):
        ej = W.ex[j]
        df += W.dg[j] * W.dg[j] * ej
        zj = Z + j * m
        for i in range(j + 1, m):
            yl = W.Y + i * q
            x = 0.0
            for k in range(p):
                x += zj[k] * yl[k]
            h = W.th[i] - W.th[j]
            if fabs(h) >= 1e-3:
                e = (W.ex[i] - ej) / h
            else:
                e = ej * (1.0 + h * (0.5 + h * (1.0 / 6.0 + h * (1.0 / 24.0))))
            df += 2.0 * x * x * e
    fa_out[0] = fa
    df_out[0] = -df
    return f


cdef double _eval(lin_work* W, Py_ssize_t m, double a, double* fa_out,
                  double* df_out) noexcept nogil:
    """_eval_new through a cache of the last two evaluations (a row's
    Krylov checks and its root finder ask for the same points again); the
    cache is cleared by _start (T's leading blocks never change within a
    row).  fa_out / df_out may be NULL."""
    cdef int s
    cdef double f, fa, df
    for s in range(2):
        if W.c_m[s] == m and W.c_a[s] == a:
            if fa_out != NULL:
                fa_out[0] = W.c_fa[s]
            if df_out != NULL:
                df_out[0] = W.c_df[s]
            return W.c_f[s]
    f = _eval_new(W, m, a, &fa, &df)
    s = W.c_next
    W.c_next = 1 - s
    W.c_m[s] = m if not isnan(f) else -1
    W.c_a[s] = a
    W.c_f[s] = f
    W.c_fa[s] = fa
    W.c_df[s] = df
    if fa_out != NULL:
        fa_out[0] = fa
    if df_out != NULL:
        df_out[0] = df
    return f


cdef int _converged(lin_work* W, double a, double* f_out, double* fa_out) noexcept nogil:
    """f(a) at the current depth in *f_out (and tr(exp(.)|C|) in *fa_out);
    1 if it agrees with one block fewer to LIN_KTOL, or the space is exact."""
    cdef double fa, f1, f0
    W.last_ratio = INFINITY
    f1 = _eval(W, W.m, a, &fa, NULL)
    f_out[0] = f1
    fa_out[0] = fa
    if W.exhausted:
        return 1
    if W.nblk < 2 or isnan(f1):
        return 0
    f0 = _eval(W, W.blk[W.nblk - 2], a, NULL, NULL)
    W.last_ratio = fabs(f1 - f0) / fa
    return fabs(f1 - f0) <= LIN_KTOL * fa


cdef inline double _newton(double a, double f, double df, double xi,
                           double ig, int semidef) noexcept nogil:
    """The Newton step for g(a) = f(a) - t(a), t(a) = xi + a ig, taken on
    h = log(f / t) when f and t have one sign and the row is semidefinite
    or they differ by more than a factor 2 (f is a sum of exponentials in a,
    of one sign for a semidefinite row: h is nearly linear, where g's own
    Newton steps crawl over an exponential's flat side or overshoot into its
    steep one), on g otherwise.  NAN when the slope is unusable."""
    cdef double t = xi + a * ig, dh, dg, rho = f / t
    if rho > 0.0 and (semidef or rho > 2.0 or rho < 0.5):
        dh = df / f - ig / t  # h falls with a when t > 0, rises when t < 0
        if dh * t < 0.0 and isfinite(dh):
            return a - log(f / t) / dh
    dg = df - ig
    if dg < 0.0 and isfinite(dg):
        return a - (f - t) / dg
    return NAN


cdef double _root(lin_work* W, double g0, double xi, double ig, double a_start,
                  double* a_best_out) noexcept nogil:
    """Root of g(a) = f(a) - a ig - xi at the current depth (g decreasing),
    given g(0) = g0, from a_start (0: a Newton step from 0)."""
    cdef double lo = -INFINITY, hi = INFINITY  # g(lo) > 0 > g(hi)
    cdef double a = 0.0, ga = g0, an, fa, fv, df, prev = 0.0, gprev, x
    cdef double best_a = 0.0, best_g = fabs(g0), tol
    cdef int n, shrink = 0, done = 0
    if g0 > 0.0:
        lo = 0.0
    else:
        hi = 0.0
    # f'(0) for the first step
    fv = _eval(W, W.m, 0.0, &fa, &df)  # f(0) itself: not counted
    gprev = fabs(g0)
    an = a_start if a_start != 0.0 else NAN
    for n in range(LIN_MAXEVAL):
        if isnan(an):
            an = _newton(a, fv, df, xi, ig, W.semidef)
            if isfinite(lo) and isfinite(hi):
                if not (an > lo and an < hi) or fabs(ga) > 0.5 * gprev:
                    an = 0.5 * (lo + hi)
            elif not (an > lo and an < hi) or fabs(ga) > 0.5 * gprev:
                # one end open: double the last move outward (at least Newton's)
                x = fabs(a - prev)
                if not (an > lo and an < hi):
                    if x == 0.0:
                        x = 1.0
                elif fabs(an - a) > 2.0 * x:
                    x = 0.5 * fabs(an - a)
                an = a + 2.0 * x if ga > 0.0 else a - 2.0 * x
        tol = 4.0 * 2.220446049250313e-16 * fabs(a)
        if n > 0 and (fabs(an - a) <= tol or hi - lo <= tol):
            done = 1
            break
        while True:
            fv = _eval(W, W.m, an, &fa, &df)
            W.n_evals += 1
            if isfinite(fv) and isfinite(df):
                break
            shrink += 1
            if shrink > 60:
                a_best_out[0] = best_a
                return NAN
            an = 0.5 * (a + an)  # overflow: back towards the last point
        prev = a
        gprev = fabs(ga)
        a = an
        ga = fv - a * ig - xi
        if fabs(ga) < best_g:
            best_g = fabs(ga)
            best_a = a
        if fabs(ga) <= LIN_GTOL * (fa + fabs(xi) + fabs(a * ig)) or ga == 0.0:
            best_a = a
            done = 1
            break
        if ga > 0.0:
            lo = a
        else:
            hi = a
        an = NAN
    a_best_out[0] = best_a
    if not done and not (isfinite(lo) and isfinite(hi)):
        return NAN  # no sign change found: no root (an infeasible hard row)
    return best_a


cdef void _update(double* L, Py_ssize_t r, double a, const double* Vc,
                  const signed char* Sc, Py_ssize_t q) noexcept nogil:
    """Upper triangle of L -= a sum_k s_k v_k v_k'."""
    cdef Py_ssize_t k, i, j
    cdef double s
    cdef const double* v
    for k in range(q):
        if Sc[k] == 0:
            continue
        v = Vc + k * r
        for i in range(r):
            s = a * (<double> Sc[k]) * v[i]
            if s == 0.0:
                continue
            for j in range(i, r):
                L[i * r + j] -= s * v[j]


def vonneumann_linear_sweep(const double[:, :, ::1] V,
                            const signed char[:, ::1] S,
                            const signed char[::1] kind,
                            const double[::1] bound,
                            double[::1] xi,
                            double[::1] nu,
                            double[:, ::1] L,
                            const cnp.intp_t[::1] order,
                            double slack,
                            double rtol,
                            bint correction=True):
    """Project once onto each general symmetric row listed in ``order``.

    Parameters
    ----------
    V : (c, q, r) array
        The vectors ``v_{c,k}`` of row c, ``C_c = sum_k S[c, k] v v'``.
    S : (c, q) int8 array
        Signs +1 / -1, 0 for an unused slot.
    kind : (c,) int8 array
        +1: ``tr(X C_c) <= xi_c``; 0: ``tr(X C_c) = xi_c``.
    bound : (c,) array
        The original right-hand sides (for counting satisfied rows only).
    xi, nu : (c,) arrays
        Targets and duals, updated in place (xi only when soft).
    L : (r, r) array
        ``log X``, symmetric, updated in place (the upper triangle is read;
        the lower one is its mirror on return).
    order : (m,) intp array
        Rows to visit, in this order.
    slack : float
        gamma of the quadratic slack penalty ``gamma / 2 (xi - b)^2``;
        ``inf`` is hard.
    rtol : float
        Absolute tolerance on ``f(0)`` for counting satisfied rows (rows come
        scaled to unit size).
    correction : bool
        The dual correction (JMLR 2009, App. B); off only for demonstrations.

    Returns
    -------
    n_satisfied, n_skipped, n_moved : int
        Rows satisfied before their projection, null rows skipped (no signed
        non-zero vector, or C = 0), rows whose state moved.
    n_evals : int
        Evaluations of f by the root finder (f(0) and the Krylov checks not
        counted).
    n_krylov : int
        Krylov vectors generated (the start block included).
    """
    cdef Py_ssize_t nrow = V.shape[0], q = V.shape[1], r = V.shape[2]
    cdef Py_ssize_t nord = order.shape[0]
    cdef Py_ssize_t t, c, p, kstart = LIN_KSTART, kfinal
    cdef double f0, fa0, g0, a, ab, fr, far
    cdef long n_krylov = 0
    cdef Py_ssize_t n_satisfied = 0, n_skipped = 0, n_moved = 0
    if L.shape[0] != r or L.shape[1] != r:
        raise ValueError("L must be r x r with r = V.shape[2]")
    if (S.shape[0] != nrow or S.shape[1] != q or kind.shape[0] != nrow
            or bound.shape[0] != nrow or xi.shape[0] != nrow or nu.shape[0] != nrow):
        raise ValueError("V, S, kind, bound, xi and nu must describe the same rows")
    if not slack > 0.0:
        raise ValueError("slack must be > 0 (inf: hard)")
    for t in range(nord):
        if order[t] < 0 or order[t] >= nrow:
            raise ValueError("order holds a row index out of range")
    for t in range(nrow):
        if kind[t] != 0 and kind[t] != 1:
            raise ValueError("kind must be +1 (<=) or 0 (=)")
    if r == 0 or nord == 0 or q == 0:
        return 0, 0, 0, 0, 0

    cdef double[:, ::1] Qb = np.zeros((r, r))
    cdef double[:, ::1] LQ = np.zeros((r, r))
    cdef double[:, ::1] T = np.zeros((r, r))
    cdef double[:, ::1] Ct = np.zeros((q, q))
    cdef double[:, ::1] Ca = np.zeros((q, q))
    cdef double[:, ::1] R = np.zeros((q, q))
    cdef double[:, ::1] Z = np.zeros((r, r))
    cdef double[:, ::1] Y = np.zeros((r, q))
    cdef double[:, ::1] vecs = np.zeros((8, r))
    cdef double[:, ::1] Pb = np.zeros((q, r))
    cdef cnp.intp_t[::1] blk = np.zeros(r + 1, dtype=np.intp)
    # LAPACK workspace: the optimal size for the largest problem
    cdef int n = <int> r, info = 0, lwork = -1
    cdef double wq = 0.0
    cdef char jobz = b'V', uplo = b'U'
    dsyev(&jobz, &uplo, &n, &Z[0, 0], &n, &vecs[0, 0], &wq, &lwork, &info)
    lwork = max(<int> wq, 3 * n, 1)
    cdef double[::1] work = np.zeros(lwork)

    cdef lin_work W
    W.r = r
    W.q = q
    W.Qb = &Qb[0, 0]
    W.LQ = &LQ[0, 0]
    W.T = &T[0, 0]
    W.Ct = &Ct[0, 0]
    W.Ca = &Ca[0, 0]
    W.R = &R[0, 0]
    W.Z = &Z[0, 0]
    W.Y = &Y[0, 0]
    W.th = &vecs[0, 0]
    W.dg = &vecs[1, 0]
    W.w = &vecs[2, 0]
    W.cf = &vecs[3, 0]
    W.ex = &vecs[4, 0]
    W.e = &vecs[5, 0]
    W.v1 = &vecs[6, 0]
    W.v2 = &vecs[7, 0]
    W.P = &Pb[0, 0]
    W.work = &work[0]
    W.lwork = lwork
    W.blk = <Py_ssize_t*> &blk[0]
    W.n_evals = 0

    cdef double* Lp = &L[0, 0]
    cdef bint hard = isinf(slack)
    cdef double ig = 0.0 if hard else 1.0 / slack

    with nogil:
        skb_mirror_upper(Lp, r)  # symmetric in: read the upper triangle only
        for t in range(nord):
            c = order[t]
            p = _start(&W, Lp, &V[c, 0, 0], &S[c, 0])
            if p == 0:
                n_skipped += 1
                continue
            while W.m < kstart and not W.exhausted:
                _add_block(&W, Lp)
            _exhaust_if_near(&W, Lp)
            # f(0) to the Krylov tolerance
            while not _converged(&W, 0.0, &f0, &fa0):
                _add_block(&W, Lp)
                _exhaust_if_near(&W, Lp)
            if kind[c] > 0:
                if f0 <= bound[c] + rtol:
                    n_satisfied += 1
            elif fabs(f0 - bound[c]) <= rtol:
                n_satisfied += 1
            g0 = f0 - xi[c]
            # At its target already (to rounding), or satisfied with no dual
            # to give back: the row does not move.
            if (fabs(g0) <= LIN_ATROOT * (fa0 + fabs(xi[c]))
                    or (kind[c] > 0 and correction and nu[c] <= 0.0 and g0 <= 0.0)):
                n_krylov += W.m
                continue
            a = 0.0
            while True:
                a = _root(&W, g0, xi[c], ig, a, &ab)
                if isnan(a):
                    break
                if _converged(&W, a, &fr, &far):
                    break
                _add_block(&W, Lp)
                _exhaust_if_near(&W, Lp)
                # g(0) again at the new depth (f(0) itself has converged)
                g0 = _eval(&W, W.m, 0.0, NULL, NULL) - xi[c]
            n_krylov += W.m
            kfinal = W.m
            # the next row starts at this size, a block less when the last
            # block was not needed even against LIN_KTOL (the state got simpler)
            if not W.exhausted and W.last_ratio < 1e-3 * LIN_KTOL:
                kfinal -= W.p
            kstart = kfinal if kfinal > LIN_KSTART else LIN_KSTART
            if isnan(a):  # no root found (an infeasible hard row): leave it
                continue
            if kind[c] > 0 and correction and a < -nu[c]:
                a = -nu[c]
            if a == 0.0:
                continue
            nu[c] += a
            if not hard:
                xi[c] += a * ig
            _update(Lp, r, a, &V[c, 0, 0], &S[c, 0], q)
            n_moved += 1
        skb_mirror_upper(Lp, r)
    return n_satisfied, n_skipped, n_moved, W.n_evals, n_krylov
