/* Vector kernels of CSI's look-ahead (_csi_steps.pyx).
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

#endif
