/* Vector kernels of CSI (_csi_steps.pyx): the sums of the estimated gains
 * (csi_window_norms), the Gram-Schmidt pass of qr_step (csi_project), the
 * rotations of a pivot's move (csi_rotate, csi_add_rotate, and
 * csi_rotate_chain for W in lookahead_step) and the products of
 * lookahead_step (csi_combine).
 *
 * W (n x w, column-major with leading dimension ldw) holds the coordinates
 * of the look-ahead; the estimated gains need, for every row i,
 *
 *     B[i] = sum_j W[i, j]^2,   acc[i, c] = sum_j W[i, j] E[c, j]
 *
 * (E: d x w, column-major).  Both are summed over j in increasing order, so
 * B is what a loop over the columns gives, bit for bit, and acc what the
 * dgemm it replaces gives wherever that dgemm accumulates each element
 * along j by one chain of multiply-adds: OpenBLAS' kernels do, with fused
 * multiply-adds on the CPUs that have them, so acc is accumulated the same
 * way there (csi_window_norms picks the fused version at run time on x86-64
 * with GCC or Clang; elsewhere a product and a sum).  A dgemm would first
 * copy W into its packing buffer; here W is read once, four columns at a
 * time over blocks of rows, for B and acc together.
 */
#ifndef SKLEARN_BREGMAN_CSI_KERNELS_H
#define SKLEARN_BREGMAN_CSI_KERNELS_H

#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__INTEL_COMPILER)
#define CSI_FMA_DISPATCH 1
#if defined(__clang__)
#define CSI_FMA_TARGET __attribute__((target("avx,fma")))
#define CSI_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define CSI_FMA_TARGET __attribute__((target("avx,fma"), optimize("fp-contract=off")))
#define CSI_NO_CONTRACT
#endif
#else
#define CSI_FMA_DISPATCH 0
#endif

#define CSI_ROWS 512 /* rows of a block: four columns of it stay in L1 */

/* The body of csi_window_norms, with MADD(x, e, a) = a + x e (fused or not);
 * B and acc are overwritten. */
#define CSI_WINDOW_NORMS_BODY(MADD)                                                  \
    for (ptrdiff_t i = 0; i < n; ++i)                                                \
        B[i] = 0.0;                                                                  \
    for (ptrdiff_t c = 0; c < d; ++c)                                                \
        for (ptrdiff_t i = 0; i < n; ++i)                                            \
            acc[i + c * ldacc] = 0.0;                                                \
    ptrdiff_t j = 0;                                                                 \
    for (; j + 4 <= w; j += 4) {                                                     \
        const double *w0 = W + j * ldw, *w1 = w0 + ldw, *w2 = w1 + ldw,              \
                     *w3 = w2 + ldw;                                                 \
        for (ptrdiff_t i0 = 0; i0 < n; i0 += CSI_ROWS) {                             \
            ptrdiff_t i1 = i0 + CSI_ROWS < n ? i0 + CSI_ROWS : n;                    \
            for (ptrdiff_t i = i0; i < i1; ++i) {                                    \
                double b = B[i];                                                     \
                b = b + w0[i] * w0[i];                                               \
                b = b + w1[i] * w1[i];                                               \
                b = b + w2[i] * w2[i];                                               \
                b = b + w3[i] * w3[i];                                               \
                B[i] = b;                                                            \
            }                                                                        \
            for (ptrdiff_t c = 0; c < d; ++c) {                                      \
                const double e0 = E[c + j * d], e1 = E[c + (j + 1) * d],             \
                             e2 = E[c + (j + 2) * d], e3 = E[c + (j + 3) * d];       \
                double *ac = acc + c * ldacc;                                        \
                for (ptrdiff_t i = i0; i < i1; ++i) {                                \
                    double a = ac[i];                                                \
                    a = MADD(w0[i], e0, a);                                          \
                    a = MADD(w1[i], e1, a);                                          \
                    a = MADD(w2[i], e2, a);                                          \
                    a = MADD(w3[i], e3, a);                                          \
                    ac[i] = a;                                                       \
                }                                                                    \
            }                                                                        \
        }                                                                            \
    }                                                                                \
    for (; j < w; ++j) {                                                             \
        const double *w0 = W + j * ldw;                                              \
        for (ptrdiff_t i = 0; i < n; ++i)                                            \
            B[i] = B[i] + w0[i] * w0[i];                                             \
        for (ptrdiff_t c = 0; c < d; ++c) {                                          \
            const double e0 = E[c + j * d];                                          \
            double *ac = acc + c * ldacc;                                            \
            for (ptrdiff_t i = 0; i < n; ++i)                                        \
                ac[i] = MADD(w0[i], e0, ac[i]);                                      \
        }                                                                            \
    }

#define CSI_MADD(x, e, a) ((a) + (x) * (e))

static void csi_window_norms_plain(const double *restrict W, ptrdiff_t n, ptrdiff_t ldw,
                                   ptrdiff_t w, const double *restrict E, ptrdiff_t d,
                                   double *restrict B, double *restrict acc,
                                   ptrdiff_t ldacc)
{
    CSI_WINDOW_NORMS_BODY(CSI_MADD)
}

#if CSI_FMA_DISPATCH
#define CSI_FMADD(x, e, a) __builtin_fma((x), (e), (a))

CSI_FMA_TARGET
static void csi_window_norms_fma(const double *restrict W, ptrdiff_t n, ptrdiff_t ldw,
                                 ptrdiff_t w, const double *restrict E, ptrdiff_t d,
                                 double *restrict B, double *restrict acc,
                                 ptrdiff_t ldacc)
{
    CSI_NO_CONTRACT /* B: a product, then a sum, as in the plain version */
    CSI_WINDOW_NORMS_BODY(CSI_FMADD)
}
#endif

/* B[i] = |W[i, :]|^2 and acc[i, :] = W[i, :] E' for the n x w block W. */
static void csi_window_norms(const double *W, ptrdiff_t n, ptrdiff_t ldw, ptrdiff_t w,
                             const double *E, ptrdiff_t d, double *B, double *acc,
                             ptrdiff_t ldacc)
{
#if CSI_FMA_DISPATCH
    static int have_fma = -1;
    if (have_fma < 0) {
        __builtin_cpu_init();
        have_fma = __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
    }
    if (have_fma) {
        csi_window_norms_fma(W, n, ldw, w, E, d, B, acc, ldacc);
        return;
    }
#endif
    csi_window_norms_plain(W, n, ldw, w, E, d, B, acc, ldacc);
}

/* Gram-Schmidt against the m columns of Q (n rows, leading dimension ldq),
 * in one pass over them, four columns at a time:
 *
 *     tmp[j] = Q[:, j] . x                 (j < m)
 *     q -= Q[:, :m] c                      (if q is given)
 *
 * the projection coefficients of the new column x and, in the same pass,
 * the subtraction that forms the previous column (whose coefficients c
 * the previous call gave).  The dot products are vectorised through
 * `#pragma omp simd reduction` (-fopenmp-simd), so their rounding depends
 * on the vector width, as a BLAS dgemv's does. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && \
    defined(__GLIBC__) && !defined(__INTEL_COMPILER)
#define CSI_CLONES __attribute__((target_clones("fma", "default")))
#else
#define CSI_CLONES
#endif

CSI_CLONES
static void csi_project(const double *restrict Q, ptrdiff_t n, ptrdiff_t ldq, ptrdiff_t m,
                        const double *restrict x, double *restrict tmp,
                        double *restrict q, const double *restrict c)
{
    ptrdiff_t j = 0;
    for (; j + 4 <= m; j += 4) {
        const double *q0 = Q + j * ldq, *q1 = q0 + ldq, *q2 = q1 + ldq, *q3 = q2 + ldq;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        if (q) {
            const double c0 = c[j], c1 = c[j + 1], c2 = c[j + 2], c3 = c[j + 3];
#pragma omp simd reduction(+:s0, s1, s2, s3)
            for (ptrdiff_t i = 0; i < n; ++i) {
                const double a0 = q0[i], a1 = q1[i], a2 = q2[i], a3 = q3[i], xi = x[i];
                s0 += a0 * xi;
                s1 += a1 * xi;
                s2 += a2 * xi;
                s3 += a3 * xi;
                q[i] = q[i] - a0 * c0 - a1 * c1 - a2 * c2 - a3 * c3;
            }
        } else {
#pragma omp simd reduction(+:s0, s1, s2, s3)
            for (ptrdiff_t i = 0; i < n; ++i) {
                const double xi = x[i];
                s0 += q0[i] * xi;
                s1 += q1[i] * xi;
                s2 += q2[i] * xi;
                s3 += q3[i] * xi;
            }
        }
        tmp[j] = s0;
        tmp[j + 1] = s1;
        tmp[j + 2] = s2;
        tmp[j + 3] = s3;
    }
    for (; j < m; ++j) {
        const double *q0 = Q + j * ldq;
        double s0 = 0.0;
        if (q) {
            const double c0 = c[j];
#pragma omp simd reduction(+:s0)
            for (ptrdiff_t i = 0; i < n; ++i) {
                s0 += q0[i] * x[i];
                q[i] = q[i] - q0[i] * c0;
            }
        } else {
#pragma omp simd reduction(+:s0)
            for (ptrdiff_t i = 0; i < n; ++i)
                s0 += q0[i] * x[i];
        }
        tmp[j] = s0;
    }
}

/* x . y (vectorised, as csi_project's products). */
CSI_CLONES
static double csi_dot(const double *restrict x, const double *restrict y, ptrdiff_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+:s)
    for (ptrdiff_t i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

/* [x y] <- [x y] [[cs, -sn], [sn, cs]]: the Givens rotations of App. A's
 * exchanges, compiled for AVX2 too, picked when the module loads.  No fused
 * multiply-add in either version (AVX2 does not bring FMA along), so the
 * result is the same everywhere, bit for bit, only with twice the width. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && \
    defined(__GLIBC__) && !defined(__INTEL_COMPILER)
#define CSI_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CSI_AVX2_CLONES
#endif

CSI_AVX2_CLONES
static void csi_rotate(double *restrict x, double *restrict y, ptrdiff_t n, double cs,
                       double sn)
{
    for (ptrdiff_t i = 0; i < n; ++i) {
        const double a = x[i], b = y[i];
        x[i] = cs * a + sn * b;
        y[i] = -sn * a + cs * b;
    }
}

/* s2 = G[:, :w] c2 and, if c1 is given, s1 = G[:, :w] c1: one pass over the
 * w columns of G (n rows, leading dimension ldg), four at a time. */
CSI_CLONES
static void csi_combine(const double *restrict G, ptrdiff_t n, ptrdiff_t ldg, ptrdiff_t w,
                        const double *restrict c1, const double *restrict c2,
                        double *restrict s1, double *restrict s2)
{
    for (ptrdiff_t i = 0; i < n; ++i) {
        s2[i] = 0.0;
        if (c1)
            s1[i] = 0.0;
    }
    ptrdiff_t j = 0;
    for (; j + 4 <= w; j += 4) {
        const double *g0 = G + j * ldg, *g1 = g0 + ldg, *g2 = g1 + ldg, *g3 = g2 + ldg;
        const double b0 = c2[j], b1 = c2[j + 1], b2 = c2[j + 2], b3 = c2[j + 3];
        if (c1) {
            const double a0 = c1[j], a1 = c1[j + 1], a2 = c1[j + 2], a3 = c1[j + 3];
            for (ptrdiff_t i = 0; i < n; ++i) {
                const double x0 = g0[i], x1 = g1[i], x2 = g2[i], x3 = g3[i];
                s1[i] = s1[i] + x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
                s2[i] = s2[i] + x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3;
            }
        } else {
            for (ptrdiff_t i = 0; i < n; ++i)
                s2[i] = s2[i] + g0[i] * b0 + g1[i] * b1 + g2[i] * b2 + g3[i] * b3;
        }
    }
    for (; j < w; ++j) {
        const double *g0 = G + j * ldg;
        const double b0 = c2[j];
        if (c1) {
            const double a0 = c1[j];
            for (ptrdiff_t i = 0; i < n; ++i) {
                s1[i] = s1[i] + g0[i] * a0;
                s2[i] = s2[i] + g0[i] * b0;
            }
        } else {
            for (ptrdiff_t i = 0; i < n; ++i)
                s2[i] = s2[i] + g0[i] * b0;
        }
    }
}

/* x += h rho, then csi_rotate: the update of W by a new look-ahead column in
 * the same pass as W's rotation (the same arithmetic as the two passes). */
CSI_AVX2_CLONES
static void csi_add_rotate(double *restrict x, double *restrict y, ptrdiff_t n, double cs,
                           double sn, const double *restrict h, double rho)
{
    for (ptrdiff_t i = 0; i < n; ++i) {
        const double a = x[i] + h[i] * rho, b = y[i];
        x[i] = cs * a + sn * b;
        y[i] = -sn * a + cs * b;
    }
}

/* The rotations of W in one move of a pivot (App. A), one pass over the
 * columns lo..hi of W (n rows, leading dimension ldw): for p = hi - 1 down
 * to lo, first x_p += h rho[p] if h is given and rho[p] != 0, then, if
 * rot[p] != 0, [x_p x_(p+1)] <- [x_p x_(p+1)] [[cs[p], -sn[p]], [sn[p],
 * cs[p]]] (x_j: column j).  The same arithmetic as csi_add_rotate /
 * csi_rotate on each pair in turn, bit for bit (column p + 1 of a pair is
 * the column p of the pair before it, carried over a block of rows), with
 * each column read and written once instead of twice.  The blocks are
 * short (128 rows: the carried block and one of each column stay in L1)
 * and the next block of each column is prefetched, which the hardware
 * prefetchers do not do for a chunk of each of ~40 columns in turn (without
 * it the pass was slower than the rotations one after the other when W is
 * not in cache, as in a fit). */
#define CSI_CHAIN_ROWS 128
CSI_AVX2_CLONES
static void csi_rotate_chain(double *restrict W, ptrdiff_t n, ptrdiff_t ldw, ptrdiff_t lo,
                             ptrdiff_t hi, const double *restrict cs,
                             const double *restrict sn, const double *restrict rot,
                             const double *restrict h, const double *restrict rho)
{
    double cur[CSI_CHAIN_ROWS];
    if (hi <= lo)
        return;
    for (ptrdiff_t i0 = 0; i0 < n; i0 += CSI_CHAIN_ROWS) {
        const ptrdiff_t m = n - i0 < CSI_CHAIN_ROWS ? n - i0 : CSI_CHAIN_ROWS;
        const double *top = W + i0 + hi * ldw;
#if defined(__GNUC__)
        if (i0 + CSI_CHAIN_ROWS < n)
            for (ptrdiff_t k = 0; k < CSI_CHAIN_ROWS; k += 8)
                __builtin_prefetch(top + CSI_CHAIN_ROWS + k, 0, 3);
#endif
        for (ptrdiff_t i = 0; i < m; ++i)
            cur[i] = top[i];
        for (ptrdiff_t p = hi - 1; p >= lo; --p) {
            double *restrict x = W + i0 + p * ldw;
            double *restrict y = W + i0 + (p + 1) * ldw;
            const double c = cs[p], s = sn[p];
            const int add = h != NULL && rho[p] != 0.0;
            const double r = add ? rho[p] : 0.0;
            const double *restrict hb = add ? h + i0 : NULL;
#if defined(__GNUC__)
            /* the next block of this column: the hardware prefetchers do not
             * follow a chunk of rows of each of the columns in turn */
            if (i0 + CSI_CHAIN_ROWS < n)
                for (ptrdiff_t k = 0; k < CSI_CHAIN_ROWS; k += 8)
                    __builtin_prefetch(x + CSI_CHAIN_ROWS + k, 1, 3);
#endif
            if (rot[p] != 0.0) {
                if (add) {
                    for (ptrdiff_t i = 0; i < m; ++i) {
                        const double a = x[i] + hb[i] * r, b = cur[i];
                        cur[i] = c * a + s * b;
                        y[i] = -s * a + c * b;
                    }
                } else {
                    for (ptrdiff_t i = 0; i < m; ++i) {
                        const double a = x[i], b = cur[i];
                        cur[i] = c * a + s * b;
                        y[i] = -s * a + c * b;
                    }
                }
            } else if (add) {
                for (ptrdiff_t i = 0; i < m; ++i) {
                    y[i] = cur[i];
                    cur[i] = x[i] + hb[i] * r;
                }
            } else {
                for (ptrdiff_t i = 0; i < m; ++i) {
                    y[i] = cur[i];
                    cur[i] = x[i];
                }
            }
        }
        double *bottom = W + i0 + lo * ldw;
        for (ptrdiff_t i = 0; i < m; ++i)
            bottom[i] = cur[i];
    }
}

#endif
