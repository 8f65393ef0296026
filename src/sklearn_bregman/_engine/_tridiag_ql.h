/* The engine's one QL: the symmetric tridiagonal eigenproblem by implicit
 * QL iteration, written after LAPACK's DSTEQR (see below and NOTICE).
 *
 * Included by _vn_kernels.h (the rank-one von Neumann projection: the first
 * row of the eigenvectors) and _vn_linear.h (the general rows: p rows).
 */
#ifndef SKLEARN_BREGMAN_TRIDIAG_QL_H
#define SKLEARN_BREGMAN_TRIDIAG_QL_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* sqrt(a^2 + b^2) without hypot's overflow guards (slow in glibc): the
 * entries here are logs of kernel eigenvalues and their rotations, far from
 * overflow. */
static inline double vn_norm2(double a, double b)
{
    return sqrt(a * a + b * b);
}

/* The symmetric tridiagonal eigenproblem: eigenvalues, and p rows of the
 * eigenvector matrix (or of a p x n matrix times it) only: the first row for
 * the Gauss rule of the rank-one von Neumann projection (_vn_kernels.h,
 * p = 1), the first p rows for the general rows (_vn_linear.pyx, after the
 * Householder reduction of _vn_linear.h).  The one QL of the engine.
 *
 * Implicit QL iteration with Wilkinson's shift, written after the QL branch
 * of LAPACK's DSTEQR (Reference-LAPACK, SRC/dsteqr.f, version 3.3.1;
 * LAPACK's modified BSD licence), with its helpers:
 *   - a block ends at the first m with e_m^2 <= eps^2 |d_m| |d_{m+1}| +
 *     safmin (eps = DLAMCH('E') = DBL_EPSILON / 2, safmin = DBL_MIN), and
 *     that e_m is set to zero;
 *   - a 2 x 2 block is solved directly, as DSTEQR does with DLAEV2
 *     (SRC/dlaev2.f): vn_eig2x2;
 *   - each plane rotation is DLARTG's (SRC/dlartg.f90: r = sign(g) |(g, f)|,
 *     c = g / r, s = f / r), its scaled branch kept for arguments near
 *     underflow or overflow only: vn_rotation;
 *   - at most 30 n QL sweeps in all (DSTEQR's MAXIT), else failure (-1).
 * Left out of DSTEQR: the scaling of a block whose norm is near overflow or
 * underflow (our entries are logs of kernel eigenvalues), the choice of QR
 * instead of QL for a block whose top is the larger end, and the final sort.
 * Of the eigenvector matrix Z only p rows are updated (z, p x n, row-major:
 * entry (k, j) of row k's product with eigenvector j), by the rotations
 * DSTEQR hands to DLASR, applied as they are made; the Wilkinson shift's
 * sqrt(g^2 + 1) falls back on hypot for |g| >= 1e150 (DSTEQR's DLAPY2).
 *
 * The sweep is kept as an explicit state (vn_ql: vn_ql_next sets a sweep up,
 * vn_ql_rot makes one rotation of it) so that two independent problems can
 * be run side by side (vn_tridiag_eig2). */

#define VN_QL_EPS2 (0.25 * DBL_EPSILON * DBL_EPSILON)
#define VN_QL_MAXIT 30
/* sqrt(DBL_MIN) and sqrt(DBL_MAX / 2): DLARTG's rtmin and rtmax */
#define VN_RTMIN 1.4916681462400413e-154
#define VN_RTMAX 9.480751908109176e+153

/* DLARTG(g, f): c, s and r with [c s; -s c] [g; f] = [r; 0], c >= 0. */
static inline void vn_rotation(double g, double f, double *c, double *s, double *r)
{
    double d = vn_norm2(g, f);
    if (!(d > VN_RTMIN && d < VN_RTMAX)) {
        const double u = fmax(fabs(g), fabs(f));
        if (u == 0.0) {  /* (0, 0): no rotation */
            *c = 1.0;
            *s = 0.0;
            *r = 0.0;
            return;
        }
        d = u * vn_norm2(g / u, f / u);
    }
    const double rr = copysign(d, g);
    *c = g / rr;
    *s = f / rr;
    *r = rr;
}

/* DLAEV2: eigenvalues rt1 (the larger in magnitude) and rt2 of
 * [a b; b c], and the unit eigenvector (cs, sn) of rt1. */
static inline void vn_eig2x2(double a, double b, double c, double *rt1, double *rt2,
                             double *cs, double *sn)
{
    const double sm = a + c, df = a - c, adf = fabs(df), tb = b + b, ab = fabs(tb);
    const double acmx = fabs(a) > fabs(c) ? a : c, acmn = fabs(a) > fabs(c) ? c : a;
    double rt;
    if (adf > ab)
        rt = adf * sqrt(1.0 + (ab / adf) * (ab / adf));
    else if (adf < ab)
        rt = ab * sqrt(1.0 + (adf / ab) * (adf / ab));
    else
        rt = ab * sqrt(2.0);
    int sgn1;
    if (sm < 0.0) {
        *rt1 = 0.5 * (sm - rt);
        sgn1 = -1;
        *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
    } else if (sm > 0.0) {
        *rt1 = 0.5 * (sm + rt);
        sgn1 = 1;
        *rt2 = (acmx / *rt1) * acmn - (b / *rt1) * b;
    } else {
        *rt1 = 0.5 * rt;
        *rt2 = -0.5 * rt;
        sgn1 = 1;
    }
    const int sgn2 = df >= 0.0 ? 1 : -1;
    const double cv = df >= 0.0 ? df + rt : df - rt;
    double c1, s1;
    if (fabs(cv) > ab) {
        const double ct = -tb / cv;
        s1 = 1.0 / sqrt(1.0 + ct * ct);
        c1 = ct * s1;
    } else if (ab == 0.0) {
        c1 = 1.0;
        s1 = 0.0;
    } else {
        const double tn = -cv / tb;
        c1 = 1.0 / sqrt(1.0 + tn * tn);
        s1 = tn * c1;
    }
    if (sgn1 == sgn2) {
        const double tn = c1;
        c1 = -s1;
        s1 = tn;
    }
    *cs = c1;
    *sn = s1;
}

typedef struct {
    double *d, *e, *z;
    ptrdiff_t n, rows;     /* order; rows of z (p) */
    ptrdiff_t l, m, i;     /* first unsolved row, end of its block, rotation */
    long sweeps_left;
    double s, c, p, g;     /* sweep state */
} vn_ql;

/* The plane rotation [c s; -s c]' on columns i, i + 1 of the rows of z. */
static inline void vn_ql_rotate_rows(const vn_ql *P, ptrdiff_t i, double c, double s)
{
    if (P->rows == 1) {  /* the rank-one projections' hot path */
        double *z1 = P->z;
        const double zi = z1[i], zn = z1[i + 1];
        z1[i + 1] = c * zn + s * zi;
        z1[i] = c * zi - s * zn;
        return;
    }
    for (ptrdiff_t k = 0; k < P->rows; ++k) {
        double *zk = P->z + k * P->n;
        const double zi = zk[i], zn = zk[i + 1];
        zk[i + 1] = c * zn + s * zi;
        zk[i] = c * zi - s * zn;
    }
}

/* A QL run on (d, e) that updates the p rows of z as they are given. */
static inline void vn_ql_init_rows(vn_ql *P, double *d, double *e, double *z, ptrdiff_t n,
                                   ptrdiff_t p)
{
    P->d = d;
    P->e = e;
    P->z = z;
    P->n = n;
    P->rows = p;
    P->l = P->m = P->i = 0;
    P->sweeps_left = (long)VN_QL_MAXIT * n;
    P->s = P->c = P->p = P->g = 0.0;
}

/* A QL run whose z1 (n) becomes the first row of the eigenvector matrix. */
static inline void vn_ql_init(vn_ql *P, double *d, double *e, double *z1, ptrdiff_t n)
{
    vn_ql_init_rows(P, d, e, z1, n, 1);
    for (ptrdiff_t i = 0; i < n; ++i)
        z1[i] = (i == 0);
}

/* Set up P's next QL sweep: 1, or 0 when all eigenvalues are found, -1
 * when the sweeps ran out.  Eigenvalues that split off and 2 x 2 blocks are
 * settled here. */
static inline int vn_ql_next(vn_ql *P)
{
    double *d = P->d, *e = P->e;
    const ptrdiff_t n = P->n;
    while (P->l < n) {
        const ptrdiff_t l = P->l;
        ptrdiff_t m = l;
        while (m < n - 1 &&
               !(e[m] * e[m] <= VN_QL_EPS2 * fabs(d[m]) * fabs(d[m + 1]) + DBL_MIN))
            ++m;
        if (m < n - 1)
            e[m] = 0.0;
        if (m == l) {  /* d[l] is an eigenvalue */
            ++P->l;
            continue;
        }
        if (m == l + 1) {  /* a 2 x 2 block */
            double rt1, rt2, c, s;
            vn_eig2x2(d[l], e[l], d[l + 1], &rt1, &rt2, &c, &s);
            d[l] = rt1;
            d[l + 1] = rt2;
            e[l] = 0.0;
            /* (rt1's eigenvector (c, s) first: the rotation by -s) */
            vn_ql_rotate_rows(P, l, c, -s);
            P->l += 2;
            continue;
        }
        if (P->sweeps_left-- <= 0)
            return -1;
        /* Wilkinson's shift: the eigenvalue of the leading 2 x 2 block
         * nearer to d[l] */
        double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
        const double rr = fabs(g) < 1e150 ? vn_norm2(g, 1.0) : hypot(g, 1.0);
        P->g = d[m] - d[l] + e[l] / (g + (g >= 0.0 ? rr : -rr));
        P->s = P->c = 1.0;
        P->p = 0.0;
        P->m = m;
        P->i = m - 1;
        return 1;
    }
    return 0;
}

/* One rotation (in the plane i, i + 1) of P's sweep, bottom to top; 1 when
 * the sweep is over. */
static inline int vn_ql_rot(vn_ql *P)
{
    double *d = P->d, *e = P->e;
    const ptrdiff_t i = P->i;
    const double f = P->s * e[i], b = P->c * e[i];
    double c, s, r;
    vn_rotation(P->g, f, &c, &s, &r);
    if (i != P->m - 1)
        e[i + 1] = r;
    const double g = d[i + 1] - P->p;
    r = (d[i] - g) * s + 2.0 * c * b;
    P->p = s * r;
    d[i + 1] = g + P->p;
    P->g = c * r - b;
    P->s = s;
    P->c = c;
    vn_ql_rotate_rows(P, i, c, s);
    if (--P->i < P->l) {
        d[P->l] -= P->p;
        e[P->l] = P->g;
        return 1;
    }
    return 0;
}

/* Eigenvalues d (unsorted) and first eigenvector row z1 of the symmetric
 * tridiagonal with diagonal d and off-diagonal e[0..n-1) (destroyed); 0, or
 * -1 without convergence. */
static int vn_tridiag_eig(double *d, double *e, double *z1, ptrdiff_t n)
{
    vn_ql P;
    vn_ql_init(&P, d, e, z1, n);
    int ret;
    while ((ret = vn_ql_next(&P)) > 0)
        while (!vn_ql_rot(&P))
            ;
    return ret;
}

/* Eigenvalues d (unsorted) of the symmetric tridiagonal (d, e[0..n-1),
 * destroyed), and z (p x n, row-major) times its eigenvector matrix (column
 * j: eigenvector j); 0, or -1 without convergence. */
static int vn_tridiag_eig_rows(double *d, double *e, ptrdiff_t n, double *z, ptrdiff_t p)
{
    vn_ql P;
    vn_ql_init_rows(&P, d, e, z, n, p);
    int ret;
    while ((ret = vn_ql_next(&P)) > 0)
        while (!vn_ql_rot(&P))
            ;
    return ret;
}

/* vn_tridiag_eig on two matrices at once.  Each rotation of a QL sweep
 * waits on the previous one (a square root and a division: the QL is
 * latency-bound), so the sweeps of two independent problems are run
 * rotation by rotation side by side, which the processor overlaps.  The
 * arithmetic of each problem is that of vn_tridiag_eig. */
static int vn_tridiag_eig2(double *da, double *ea, double *za, ptrdiff_t na,
                           double *db, double *eb, double *zb, ptrdiff_t nb)
{
    vn_ql A, B;
    vn_ql_init(&A, da, ea, za, na);
    vn_ql_init(&B, db, eb, zb, nb);
    int ra = vn_ql_next(&A), rb = vn_ql_next(&B);
    while (ra > 0 && rb > 0) {
        int fa, fb;
        do {
            fa = vn_ql_rot(&A);
            fb = vn_ql_rot(&B);
        } while (!fa && !fb);
        if (fa)
            ra = vn_ql_next(&A);
        if (fb)
            rb = vn_ql_next(&B);
    }
    while (ra > 0) {
        while (!vn_ql_rot(&A))
            ;
        ra = vn_ql_next(&A);
    }
    while (rb > 0) {
        while (!vn_ql_rot(&B))
            ;
        rb = vn_ql_next(&B);
    }
    return (ra < 0 || rb < 0) ? -1 : 0;
}

#endif
