/* Small symmetric eigenproblems of the von Neumann projection on general
 * rows (_vn_linear.pyx): eigenvalues and the first p rows of the
 * eigenvector matrix only, which is all that f(a) = tr(exp(M) E Ct E') and
 * its derivative need (E: the first p columns of the identity).
 *
 * vnl_tridiag: Householder reduction M = Q T Q' (Golub & Van Loan,
 * Algorithm 8.3.1), with the reflectors applied to the p x m matrix E' from
 * the right as they are made, so that E' Q is formed in O(p m^2) instead of
 * Q in O(m^3).
 * The tridiagonal is then diagonalised by the engine's one QL
 * (_tridiag_ql.h, after LAPACK's DSTEQR: vn_tridiag_eig_rows), whose
 * rotations update those p rows only.  With LAPACK's dsyev this is the
 * same computation minus the accumulation of the full eigenvector matrix
 * (and the per-call overheads that dominate at m <= 30).
 */
#ifndef SKLEARN_BREGMAN_VN_LINEAR_H
#define SKLEARN_BREGMAN_VN_LINEAR_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "_tridiag_ql.h"

/* A: m x m symmetric, row-major, both triangles (destroyed).  On return d
 * (m) the diagonal and e (m) the off-diagonal of T (e[i] couples i, i + 1;
 * e[m - 1] = 0), and P (p x m, row-major) = E' Q.  v: m work. */
static void vnl_tridiag(double *A, ptrdiff_t m, double *d, double *e, double *P,
                        ptrdiff_t p, double *v, double *w)
{
    for (ptrdiff_t k = 0; k < p; ++k)
        for (ptrdiff_t j = 0; j < m; ++j)
            P[k * m + j] = (j == k) ? 1.0 : 0.0;
    for (ptrdiff_t k = 0; k + 2 < m; ++k) {
        const ptrdiff_t n = m - k - 1;  /* the trailing block B = A[k+1:, k+1:] */
        double alpha = 0.0, scale = 0.0;
        for (ptrdiff_t i = 0; i < n; ++i)
            scale = fmax(scale, fabs(A[(k + 1 + i) * m + k]));
        if (scale == 0.0) {
            e[k] = 0.0;
            continue;
        }
        for (ptrdiff_t i = 0; i < n; ++i) {
            v[i] = A[(k + 1 + i) * m + k] / scale;
            alpha += v[i] * v[i];
        }
        alpha = sqrt(alpha);
        if (v[0] > 0.0)
            alpha = -alpha;
        /* H x = alpha e1 with v = x / scale - alpha e1, H = I - tau v v' */
        v[0] -= alpha;
        double vv = 0.0;
        for (ptrdiff_t i = 0; i < n; ++i)
            vv += v[i] * v[i];
        e[k] = alpha * scale;
        if (vv == 0.0)
            continue;
        const double tau = 2.0 / vv;
        /* w = tau B v; w -= (tau / 2)(v' w) v;  B -= v w' + w v' */
        double vw = 0.0;
        for (ptrdiff_t i = 0; i < n; ++i) {
            const double *bi = A + (k + 1 + i) * m + (k + 1);
            double s = 0.0;
            for (ptrdiff_t j = 0; j < n; ++j)
                s += bi[j] * v[j];
            w[i] = tau * s;
            vw += v[i] * w[i];
        }
        const double K = 0.5 * tau * vw;
        for (ptrdiff_t i = 0; i < n; ++i)
            w[i] -= K * v[i];
        for (ptrdiff_t i = 0; i < n; ++i) {
            double *bi = A + (k + 1 + i) * m + (k + 1);
            const double vi = v[i], wi = w[i];
            for (ptrdiff_t j = 0; j < n; ++j)
                bi[j] -= vi * w[j] + wi * v[j];
        }
        /* P <- P H on columns k+1.. */
        for (ptrdiff_t r = 0; r < p; ++r) {
            double *pr = P + r * m + (k + 1);
            double s = 0.0;
            for (ptrdiff_t j = 0; j < n; ++j)
                s += pr[j] * v[j];
            s *= tau;
            if (s != 0.0)
                for (ptrdiff_t j = 0; j < n; ++j)
                    pr[j] -= s * v[j];
        }
    }
    for (ptrdiff_t i = 0; i < m; ++i)
        d[i] = A[i * m + i];
    if (m >= 2)
        e[m - 2] = A[(m - 1) * m + (m - 2)];
    e[m - 1] = 0.0;
}

#endif
