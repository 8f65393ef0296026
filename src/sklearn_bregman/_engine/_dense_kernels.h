/* Dense vector kernels of the projection sweeps.
 *
 * The state M is a symmetric r x r matrix stored row-major, of which the
 * kernels use the upper triangle only.  Every kernel walks M row by row with
 * unit stride; the dot products along a row are vectorised through
 * `#pragma omp simd reduction` (-fopenmp-simd, no OpenMP runtime).  Rows are
 * taken four at a time so that the accumulators of the next product M v stay
 * in registers: each element of the triangle is loaded and stored once per
 * projection.
 *
 * On x86-64 with GCC or Clang and glibc, each kernel is also compiled for
 * AVX+FMA and the best version is picked when the module loads
 * (target_clones), so one build runs everywhere and uses FMA where present.
 */
#ifndef SKLEARN_BREGMAN_DENSE_KERNELS_H
#define SKLEARN_BREGMAN_DENSE_KERNELS_H

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && \
    defined(__GLIBC__) && !defined(__INTEL_COMPILER)
#define SKB_CLONES __attribute__((target_clones("fma", "default")))
#else
#define SKB_CLONES
#endif

/* v = G[i] - G[j] */
static inline void skb_difference(const double *restrict G, ptrdiff_t r,
                                  ptrdiff_t i, ptrdiff_t j,
                                  double *restrict v)
{
    const double *restrict gi = G + i * r;
    const double *restrict gj = G + j * r;
    for (ptrdiff_t b = 0; b < r; ++b)
        v[b] = gi[b] - gj[b];
}

/* Ask for rows i and j of G ahead of use: constraints are visited in an
 * order known in advance, and on a large factor (n x r beyond the caches)
 * each projection would otherwise wait on two random rows from memory. */
static inline void skb_prefetch_pair(const double *G, ptrdiff_t r, ptrdiff_t i,
                                     ptrdiff_t j)
{
#if defined(__GNUC__)
    const char *gi = (const char *)(G + i * r);
    const char *gj = (const char *)(G + j * r);
    for (ptrdiff_t off = 0; off < r * (ptrdiff_t)sizeof(double); off += 64) {
        __builtin_prefetch(gi + off);
        __builtin_prefetch(gj + off);
    }
#else
    (void)G; (void)r; (void)i; (void)j;
#endif
}

/* x . y, four partial sums (a plain loop with one sum would not vectorise). */
static inline double skb_dot(const double *restrict x, const double *restrict y,
                             ptrdiff_t r)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    ptrdiff_t b = 0;
    for (; b + 4 <= r; b += 4) {
        s0 += x[b] * y[b];
        s1 += x[b + 1] * y[b + 1];
        s2 += x[b + 2] * y[b + 2];
        s3 += x[b + 3] * y[b + 3];
    }
    for (; b < r; ++b)
        s0 += x[b] * y[b];
    return (s0 + s1) + (s2 + s3);
}

/* The kernels below read and write only the upper triangle of M (b >= a in
 * row a); skb_mirror_upper copies it to the lower triangle when a caller
 * needs the full matrix.  For symmetric M and a row a of its upper part,
 *     (M v)[b] += v[a] M[a][b]      for b >= a   (axpy along the row)
 *     (M v)[a] += M[a][b] v[b]      for b >  a   (dot product along the row)
 * so one pass over the triangle gives M v with r^2/2 elements touched.
 * Rows are taken four at a time; the 4 x 4 diagonal block is done by
 * skb_block_head, the rest of the four rows by one vectorised loop. */

/* Diagonal 4x4 block of rows a..a+3: optional update (s != NULL), then
 * contributions to w_next of the block's upper part. */
static inline void skb_block_head(double *restrict M, ptrdiff_t r, ptrdiff_t a,
                                  const double *restrict s,
                                  const double *restrict w,
                                  const double *restrict v,
                                  double *restrict w_next)
{
    for (ptrdiff_t i = 0; i < 4; ++i) {
        double *restrict mi = M + (a + i) * r;
        for (ptrdiff_t j = i; j < 4; ++j) {
            double x = mi[a + j];
            if (s) {
                x += s[i] * w[a + j];
                mi[a + j] = x;
            }
            w_next[a + j] += v[a + i] * x;
            if (j > i)
                w_next[a + i] += x * v[a + j];
        }
    }
}

/* One row a of the upper triangle (for the r mod 4 rows left over). */
static inline void skb_row(double *restrict M, ptrdiff_t r, ptrdiff_t a,
                           int update, double s, const double *restrict w,
                           const double *restrict v, double *restrict w_next)
{
    double *restrict m0 = M + a * r;
    double d = 0.0;
    if (update)
        m0[a] += s * w[a];
    w_next[a] += v[a] * m0[a];
    for (ptrdiff_t b = a + 1; b < r; ++b) {
        double x = m0[b];
        if (update) {
            x += s * w[b];
            m0[b] = x;
        }
        w_next[b] += v[a] * x;
        d += x * v[b];
    }
    w_next[a] += d;
}

/* w = M v (upper triangle of symmetric M). */
SKB_CLONES
static void skb_matvec(const double *restrict M, ptrdiff_t r,
                       const double *restrict v, double *restrict w)
{
    ptrdiff_t a = 0, b;
    memset(w, 0, (size_t)r * sizeof(double));
    for (; a + 4 <= r; a += 4) {
        const double *restrict m0 = M + a * r;
        const double *restrict m1 = m0 + r;
        const double *restrict m2 = m1 + r;
        const double *restrict m3 = m2 + r;
        const double v0 = v[a], v1 = v[a + 1], v2 = v[a + 2], v3 = v[a + 3];
        double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
        skb_block_head((double *)M, r, a, NULL, NULL, v, w);
#pragma omp simd reduction(+:d0, d1, d2, d3)
        for (b = a + 4; b < r; ++b) {
            const double vb = v[b];
            w[b] += (v0 * m0[b] + v1 * m1[b]) + (v2 * m2[b] + v3 * m3[b]);
            d0 += m0[b] * vb;
            d1 += m1[b] * vb;
            d2 += m2[b] * vb;
            d3 += m3[b] * vb;
        }
        w[a] += d0;
        w[a + 1] += d1;
        w[a + 2] += d2;
        w[a + 3] += d3;
    }
    for (; a < r; ++a)
        skb_row((double *)M, r, a, 0, 0.0, NULL, v, w);
}

/* M += beta w w' (upper triangle), and in the same pass w_next = M v_next
 * with the updated M. */
SKB_CLONES
static void skb_update_matvec(double *restrict M, ptrdiff_t r, double beta,
                              const double *restrict w,
                              const double *restrict v_next,
                              double *restrict w_next)
{
    ptrdiff_t a = 0, b;
    memset(w_next, 0, (size_t)r * sizeof(double));
    for (; a + 4 <= r; a += 4) {
        double *restrict m0 = M + a * r;
        double *restrict m1 = m0 + r;
        double *restrict m2 = m1 + r;
        double *restrict m3 = m2 + r;
        const double s[4] = {beta * w[a], beta * w[a + 1],
                             beta * w[a + 2], beta * w[a + 3]};
        const double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
        const double v0 = v_next[a], v1 = v_next[a + 1];
        const double v2 = v_next[a + 2], v3 = v_next[a + 3];
        double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
        skb_block_head(M, r, a, s, w, v_next, w_next);
#pragma omp simd reduction(+:d0, d1, d2, d3)
        for (b = a + 4; b < r; ++b) {
            const double wb = w[b], vb = v_next[b];
            const double x0 = m0[b] + s0 * wb;
            const double x1 = m1[b] + s1 * wb;
            const double x2 = m2[b] + s2 * wb;
            const double x3 = m3[b] + s3 * wb;
            m0[b] = x0;
            m1[b] = x1;
            m2[b] = x2;
            m3[b] = x3;
            w_next[b] += (v0 * x0 + v1 * x1) + (v2 * x2 + v3 * x3);
            d0 += x0 * vb;
            d1 += x1 * vb;
            d2 += x2 * vb;
            d3 += x3 * vb;
        }
        w_next[a] += d0;
        w_next[a + 1] += d1;
        w_next[a + 2] += d2;
        w_next[a + 3] += d3;
    }
    for (; a < r; ++a)
        skb_row(M, r, a, 1, beta * w[a], w, v_next, w_next);
}

/* M += beta w w' (upper triangle). */
SKB_CLONES
static void skb_update(double *restrict M, ptrdiff_t r, double beta,
                       const double *restrict w)
{
    for (ptrdiff_t a = 0; a < r; ++a) {
        double *restrict m0 = M + a * r;
        const double s0 = beta * w[a];
        for (ptrdiff_t b = a; b < r; ++b)
            m0[b] += s0 * w[b];
    }
}

/* One pass of classical Gram-Schmidt against the n rows of Q (r each):
 * c = Q w, then w -= Q' c.  Two sweeps over Q, four rows at a time, so that
 * the dot products share the loads of w and run side by side (one row at a
 * time, each short product waits on its own sum). */
SKB_CLONES
static void skb_project_out(const double *restrict Q, ptrdiff_t n, ptrdiff_t r,
                            double *restrict w, double *restrict c)
{
    ptrdiff_t i = 0, t;
    for (; i + 4 <= n; i += 4) {
        const double *restrict q0 = Q + i * r;
        const double *restrict q1 = q0 + r;
        const double *restrict q2 = q1 + r;
        const double *restrict q3 = q2 + r;
        double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
#pragma omp simd reduction(+:d0, d1, d2, d3)
        for (t = 0; t < r; ++t) {
            const double wt = w[t];
            d0 += q0[t] * wt;
            d1 += q1[t] * wt;
            d2 += q2[t] * wt;
            d3 += q3[t] * wt;
        }
        c[i] = d0;
        c[i + 1] = d1;
        c[i + 2] = d2;
        c[i + 3] = d3;
    }
    for (; i < n; ++i)
        c[i] = skb_dot(Q + i * r, w, r);
    for (i = 0; i + 4 <= n; i += 4) {
        const double *restrict q0 = Q + i * r;
        const double *restrict q1 = q0 + r;
        const double *restrict q2 = q1 + r;
        const double *restrict q3 = q2 + r;
        const double c0 = c[i], c1 = c[i + 1], c2 = c[i + 2], c3 = c[i + 3];
#pragma omp simd
        for (t = 0; t < r; ++t)
            w[t] -= (c0 * q0[t] + c1 * q1[t]) + (c2 * q2[t] + c3 * q3[t]);
    }
    for (; i < n; ++i) {
        const double *restrict qi = Q + i * r;
        const double ci = c[i];
#pragma omp simd
        for (t = 0; t < r; ++t)
            w[t] -= ci * qi[t];
    }
}

/* w -= a q + b p (or w -= a q when p is NULL), returning |w|^2 after: a
 * step of the Lanczos three-term recurrence and the norm that the test of
 * its reorthogonalisation starts from, in one sweep over w. */
SKB_CLONES
static double skb_recur_norm2(double *restrict w, const double *restrict q, double a,
                              const double *restrict p, double b, ptrdiff_t r)
{
    double s = 0.0;
    ptrdiff_t t;
    if (p) {
#pragma omp simd reduction(+:s)
        for (t = 0; t < r; ++t) {
            const double x = w[t] - (a * q[t] + b * p[t]);
            w[t] = x;
            s += x * x;
        }
    } else {
#pragma omp simd reduction(+:s)
        for (t = 0; t < r; ++t) {
            const double x = w[t] - a * q[t];
            w[t] = x;
            s += x * x;
        }
    }
    return s;
}

/* Lower triangle := upper triangle. */
static void skb_mirror_upper(double *restrict M, ptrdiff_t r)
{
    for (ptrdiff_t a = 1; a < r; ++a)
        for (ptrdiff_t b = 0; b < a; ++b)
            M[a * r + b] = M[b * r + a];
}

#endif
