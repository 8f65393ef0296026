/* Rank-two LogDet Bregman projections (Amid, Gionis & Ukkonen, Section 4).
 *
 * A relative constraint on the anchor a and the points b, c of a triplet is
 *     tr(M C) <= 0   (inequality)   or   tr(M C) = 0   (equality),
 *     C = g2 u u' - w w',   u = g_a - g_b,   w = g_a - g_c
 * (eq. 1-3 and 25, in the coordinates of the initial factor; g2 = gamma^2 for
 * an outlier triplet, 1 for a "don't know" triplet).  With P = [u w] and
 * D = diag(g2, -1), C = P D P', and the Bregman step of size d is
 *     M+ = (M^-1 + d C)^-1 = M - Z S Z',   Z = M P = [M u, M w]   (eq. 10, 14)
 *     S  = d D (I + d A D)^-1,             A = P' M P (2 x 2)
 * by Woodbury.  Everything the step needs is in the 2 x 2 matrix A:
 *     s = tr(M C) = g2 A11 - A22 = eta1 + eta2,
 *     q = g2 (A11 A22 - A12^2) = -eta1 eta2 >= 0,
 * where eta1 >= 0 >= eta2 are the non-zero eigenvalues of M C, and
 *     tr(M+ C) = h(d) = (s - 2 d q) / (1 + d s - d^2 q),
 * decreasing on the interval where 1 + d s - d^2 q > 0 (M+ positive
 * definite).  The exact projection is h(d) = 0: d = s / (2 q), which is
 * eq. 13, -(eta1 + eta2) / (2 eta1 eta2).
 *
 * The state M (r x r, symmetric) is kept in its upper triangle, as the
 * rank-one kernels of _dense_kernels.h; the update of one constraint is
 * fused with the two products M u, M w of the next, so each projection
 * reads and writes the stored triangle once.
 */
#ifndef SKLEARN_BREGMAN_RANK2_KERNELS_H
#define SKLEARN_BREGMAN_RANK2_KERNELS_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "_dense_kernels.h"

/* Rows a..a+3 of the upper triangle of M (four at a time, so that each
 * entry of the vectors u, w, p1, p2, mu, mw is loaded once per four rows):
 * optional update M -= z1 p1' + z2 p2' (if z1 != NULL), then the rows'
 * contributions to mu = M u and mw = M w.  For symmetric M and row a,
 *     mu[b] += u[a] M[a][b]   (b >= a),     mu[a] += M[a][b] u[b]   (b > a). */
static inline void r2_rows4(double *restrict M, ptrdiff_t r, ptrdiff_t a,
                            const double *restrict z1, const double *restrict z2,
                            const double *restrict p1, const double *restrict p2,
                            const double *restrict u, const double *restrict w,
                            double *restrict mu, double *restrict mw)
{
    double *restrict m0 = M + a * r;
    double *restrict m1 = m0 + r;
    double *restrict m2 = m1 + r;
    double *restrict m3 = m2 + r;
    double du0 = 0.0, du1 = 0.0, du2 = 0.0, du3 = 0.0;
    double dw0 = 0.0, dw1 = 0.0, dw2 = 0.0, dw3 = 0.0;
    ptrdiff_t b;
    /* the 4 x 4 diagonal block, entry by entry */
    for (ptrdiff_t i = 0; i < 4; ++i) {
        double *restrict mi = M + (a + i) * r;
        for (ptrdiff_t j = i; j < 4; ++j) {
            double x = mi[a + j];
            if (z1) {
                x -= z1[a + i] * p1[a + j] + z2[a + i] * p2[a + j];
                mi[a + j] = x;
            }
            mu[a + j] += u[a + i] * x;
            mw[a + j] += w[a + i] * x;
            if (j > i) {
                mu[a + i] += x * u[a + j];
                mw[a + i] += x * w[a + j];
            }
        }
    }
    const double u0 = u[a], u1 = u[a + 1], u2 = u[a + 2], u3 = u[a + 3];
    const double w0 = w[a], w1 = w[a + 1], w2 = w[a + 2], w3 = w[a + 3];
    if (z1) {
        const double y0 = z1[a], y1 = z1[a + 1], y2 = z1[a + 2], y3 = z1[a + 3];
        const double v0 = z2[a], v1 = z2[a + 1], v2 = z2[a + 2], v3 = z2[a + 3];
#pragma omp simd reduction(+:du0, du1, du2, du3, dw0, dw1, dw2, dw3)
        for (b = a + 4; b < r; ++b) {
            const double pb = p1[b], qb = p2[b], ub = u[b], wb = w[b];
            const double x0 = m0[b] - (y0 * pb + v0 * qb);
            const double x1 = m1[b] - (y1 * pb + v1 * qb);
            const double x2 = m2[b] - (y2 * pb + v2 * qb);
            const double x3 = m3[b] - (y3 * pb + v3 * qb);
            m0[b] = x0;
            m1[b] = x1;
            m2[b] = x2;
            m3[b] = x3;
            mu[b] += (u0 * x0 + u1 * x1) + (u2 * x2 + u3 * x3);
            mw[b] += (w0 * x0 + w1 * x1) + (w2 * x2 + w3 * x3);
            du0 += x0 * ub;
            du1 += x1 * ub;
            du2 += x2 * ub;
            du3 += x3 * ub;
            dw0 += x0 * wb;
            dw1 += x1 * wb;
            dw2 += x2 * wb;
            dw3 += x3 * wb;
        }
    } else {
#pragma omp simd reduction(+:du0, du1, du2, du3, dw0, dw1, dw2, dw3)
        for (b = a + 4; b < r; ++b) {
            const double ub = u[b], wb = w[b];
            const double x0 = m0[b], x1 = m1[b], x2 = m2[b], x3 = m3[b];
            mu[b] += (u0 * x0 + u1 * x1) + (u2 * x2 + u3 * x3);
            mw[b] += (w0 * x0 + w1 * x1) + (w2 * x2 + w3 * x3);
            du0 += x0 * ub;
            du1 += x1 * ub;
            du2 += x2 * ub;
            du3 += x3 * ub;
            dw0 += x0 * wb;
            dw1 += x1 * wb;
            dw2 += x2 * wb;
            dw3 += x3 * wb;
        }
    }
    mu[a] += du0;
    mu[a + 1] += du1;
    mu[a + 2] += du2;
    mu[a + 3] += du3;
    mw[a] += dw0;
    mw[a + 1] += dw1;
    mw[a + 2] += dw2;
    mw[a + 3] += dw3;
}

/* One row a (for the r mod 4 rows left over). */
static inline void r2_row(double *restrict M, ptrdiff_t r, ptrdiff_t a,
                          const double *restrict z1, const double *restrict z2,
                          const double *restrict p1, const double *restrict p2,
                          const double *restrict u, const double *restrict w,
                          double *restrict mu, double *restrict mw)
{
    double *restrict m0 = M + a * r;
    double du = 0.0, dw = 0.0;
    for (ptrdiff_t b = a; b < r; ++b) {
        double x = m0[b];
        if (z1) {
            x -= z1[a] * p1[b] + z2[a] * p2[b];
            m0[b] = x;
        }
        mu[b] += u[a] * x;
        mw[b] += w[a] * x;
        if (b > a) {
            du += x * u[b];
            dw += x * w[b];
        }
    }
    mu[a] += du;
    mw[a] += dw;
}

/* mu = M u, mw = M w; with z1 != NULL, first M -= z1 p1' + z2 p2' (the
 * update of the previous constraint), in the same pass. */
SKB_CLONES
static void r2_update_matvec2(double *restrict M, ptrdiff_t r,
                              const double *z1, const double *z2,
                              const double *p1, const double *p2,
                              const double *restrict u, const double *restrict w,
                              double *restrict mu, double *restrict mw)
{
    ptrdiff_t a = 0;
    memset(mu, 0, (size_t)r * sizeof(double));
    memset(mw, 0, (size_t)r * sizeof(double));
    for (; a + 4 <= r; a += 4)
        r2_rows4(M, r, a, z1, z2, p1, p2, u, w, mu, mw);
    for (; a < r; ++a)
        r2_row(M, r, a, z1, z2, p1, p2, u, w, mu, mw);
}

/* M -= z1 p1' + z2 p2' (upper triangle). */
SKB_CLONES
static void r2_update(double *restrict M, ptrdiff_t r,
                      const double *restrict z1, const double *restrict z2,
                      const double *restrict p1, const double *restrict p2)
{
    for (ptrdiff_t a = 0; a < r; ++a) {
        double *restrict m0 = M + a * r;
        const double s1 = z1[a], s2 = z2[a];
        for (ptrdiff_t b = a; b < r; ++b)
            m0[b] -= s1 * p1[b] + s2 * p2[b];
    }
}

/* tr(M+ C) after a step d: h(d) = (s - 2 d q) / (1 + d s - d^2 q). */
static inline double r2_trace_after(double s, double q, double d)
{
    return (s - 2.0 * d * q) / (1.0 + d * (s - d * q));
}

/* The step d of one constraint, given s, q > 0 (above), its dual nu and the
 * penalty lam of its slack (INFINITY: hard).
 *
 * Hard: d = s / (2 q) (eq. 13).  Soft (eq. 16-23): the subproblem
 * min D(M+, M) + lam/2 xi^2 s.t. tr(M+ C) <= xi has the optimality condition
 *     h(d) = (nu + d) / lam      (= xi; the KKT condition lam xi = alpha of
 *                                 eq. 19, with alpha = nu + d the whole dual)
 * whose root, for nu = 0 and s > 0, is the smaller positive root of the
 * cubic eq. 22.  h(d) - (nu + d)/lam decreases from +inf to -inf over the
 * domain (pl, ph), so it has one root there; it is found by Newton's method
 * safeguarded by bisection, from d = s / (2 q).
 *
 * Inequalities (ineq != 0) keep nu + d >= 0 when `correction` is set: the
 * step is clipped at d = -nu (dual correction, JMLR 2009 Section 3.4), which
 * lies between the root and 0, hence inside the domain.
 *
 * Departure from the paper: eq. 20-22 as printed weigh the slack by lam in
 * one place and 1/lam in another; here lam is the weight of lam/2 xi^2 in
 * eq. 16 throughout, so xi = alpha / lam (eq. 19), large lam is nearly hard,
 * and the roots approach +-sqrt(2 lam) as the paper states. */
static double r2_step(double s, double q, double nu, double lam, int ineq,
                      int correction)
{
    const double dh = s / (2.0 * q);
    const int clip = ineq && correction;
    if (isinf(lam)) {
        if (clip && nu + dh < 0.0)
            return -nu;
        return dh;
    }
    if (clip && nu + dh <= 0.0)
        return -nu;  /* the root is then at most dh <= -nu: clipped */
    /* poles of h: the roots of 1 + d s - d^2 q, -1/eta1 < 0 < -1/eta2,
     * each computed without cancellation */
    const double disc = sqrt(s * s + 4.0 * q);
    const double pl = s >= 0.0 ? -2.0 / (s + disc) : (s - disc) / (2.0 * q);
    const double ph = s >= 0.0 ? (s + disc) / (2.0 * q) : 2.0 / (disc - s);
    /* bracket: phi(dh) = -(nu + dh)/lam, phi(-nu) = h(-nu) of the other sign */
    double lo, hi;  /* phi(lo) > 0 > phi(hi); a pole end is never evaluated */
    if (nu + dh >= 0.0) {
        lo = -nu > pl ? -nu : pl;
        hi = dh;
    } else {
        lo = dh;
        hi = -nu < ph ? -nu : ph;
    }
    double d = dh;
    for (int it = 0; it < 200; ++it) {
        const double den = 1.0 + d * (s - d * q);
        const double num = s - 2.0 * d * q;
        const double phi = num / den - (nu + d) / lam;
        if (phi == 0.0)
            break;
        if (phi > 0.0)
            lo = d;
        else
            hi = d;
        /* phi' = h'(d) - 1/lam, h' = -(2 q den + num^2) / den^2 < 0 */
        const double dphi = -(2.0 * q * den + num * num) / (den * den) - 1.0 / lam;
        double next = d - phi / dphi;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);  /* bisection keeps to the domain */
        const double step = fabs(next - d);
        const double tiny = 4.0 * DBL_EPSILON * (fabs(next) + 1.0 / disc);
        d = next;
        if (step <= tiny || hi - lo <= tiny)
            break;
    }
    if (clip && nu + d < 0.0)
        return -nu;
    return d;
}

/* The 2 x 2 matrix S of M+ = M - Z S Z' for a step d (see the header):
 * S = d D (I + d A D)^-1 = d / det * [[g2 (1 - d A22), d g2 A12],
 *                                     [d g2 A12, -(1 + d g2 A11)]],
 * det = 1 + d s - d^2 q. */
static inline void r2_woodbury(double g2, double A11, double A12, double A22,
                               double s, double q, double d, double *S11,
                               double *S12, double *S22)
{
    const double f = d / (1.0 + d * (s - d * q));
    *S11 = f * g2 * (1.0 - d * A22);
    *S12 = f * d * g2 * A12;
    *S22 = -f * (1.0 + d * g2 * A11);
}

#endif
