/* Von Neumann rank-one projection: Lanczos + small tridiagonal problems.
 *
 * The state is L = log X (symmetric r x r, upper triangle).  A projection on
 * the vector v needs the root x of
 *     g(x) = log f(x) + x / gamma - log xi,   f(x) = v' exp(L + x v v') v,
 * (JMLR 2009, Section 5.2 and 6.2.1).  The Krylov space of L + x v v'
 * started from v does not depend on x, so one Lanczos run on L gives
 * Q' (L + x v v') Q = T + x |v|^2 e1 e1' for every x, and
 *     f(x) = |v|^2 e1' exp(T + x |v|^2 e1 e1') e1
 * is a k x k problem: the eigenvalues theta and the first row z of the
 * eigenvectors of T + x |v|^2 e1 e1' give f = |v|^2 sum_j z_j^2 exp(theta_j).
 * T is diagonalised once per Krylov size (QL iteration tracking only the
 * first row); each x then only needs the secular equation of the
 * diagonal-plus-rank-one matrix diag(theta_0) + x |v|^2 z z', the route of
 * the paper's Section 5.2, here on the k x k problem (O(k^2) per x, with
 * independent divisions rather than the QL's chain of rotations).  Lanczos
 * grows one step at a time until the Gauss-rule estimate f_k - f_{k-1} is
 * below VN_RTOL * f at the root (see vn_eval), or the Krylov space is
 * exhausted; a projection starts at the size the previous one ended with,
 * or one smaller (vn_start, vn_root_checked).
 */
#ifndef SKLEARN_BREGMAN_VN_KERNELS_H
#define SKLEARN_BREGMAN_VN_KERNELS_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "_dense_kernels.h"
#include "_tridiag_ql.h"

#define VN_RTOL 1e-11      /* Krylov error estimate, relative to f (the tests ask 1e-9) */
#define VN_GTOL 1e-14      /* |g(x)| at the root (g is a log: relative error of f) */
#define VN_KSTART 8        /* Lanczos steps of a projection before the first check */
#define VN_KSTEP 1         /* Lanczos steps added at a time after that */
/* The next projection starts one size smaller (vn_root_checked) when the
 * check passed with f_k - f_{k-1} <= VN_HINT_DROP * VN_RTOL: on the
 * digits fits the estimate fell by a factor of about 100-300 per Lanczos
 * step near the sizes used (k = 9, 10), so the check at k - 1 is then
 * expected to pass too. */
#define VN_HINT_DROP 1e-2
#define VN_MAXEVAL 100
#define VN_KRYLOV_CAP 128  /* largest Krylov dimension per projection */

/* Decomposition of the leading size x size block of T at x = 0, for the
 * secular evaluations (vn_gauss_secular): T = S diag(th) S', th ascending,
 * zz = S' e1, deflated to the first m entries (the rest of th: eigenvalues
 * with no weight on e1); thn / zzn the same for -T (for x < 0). */
typedef struct {
    double *th, *zz, *thn, *zzn;  /* kcap each */
    ptrdiff_t m, size;            /* size: block cached (-1: none) */
    double *lam;                  /* kcap: roots of the last evaluation (or */
    int lam_sign;                 /* vn_check_guess's starting points), for
                                   * rho > 0 (+1) or rho < 0 (-1); 0: none */
} vn_eig;

typedef struct {
    ptrdiff_t r, kcap;     /* dimension, largest Krylov dimension */
    double *Q;             /* kcap x r Lanczos vectors (rows) */
    double *a, *b;         /* tridiagonal: diagonal a[0..k), off-diagonal b[0..k) */
    double *w;             /* r: work vector */
    double *d, *e, *z1;    /* kcap each: QL work */
    ptrdiff_t k;           /* Lanczos steps done */
    int exhausted;         /* the Krylov space is invariant: T is exact */
    double nv2;            /* |v|^2 */
    long n_evals;          /* small-problem evaluations (root finder) */
    vn_eig cur, prev;      /* blocks of size k (the rule) and k - 1 (its check) */
    double *dl;            /* kcap: secular and Gram-Schmidt work */
    /* the last rule of size k evaluated (vn_eval): log f / |v|^2, log tr and
     * d/dx log f (NAN: not computed) at x for Krylov size c_k (-1: none) */
    ptrdiff_t c_k;
    double c_x, c_lf, c_ltr, c_dlf;
    ptrdiff_t k_hint;      /* Krylov size to start the next projection at */
} vn_work;

/* Krylov capacity for dimension r: min(r, VN_KRYLOV_CAP), at least 1. */
static inline ptrdiff_t vn_kcap(ptrdiff_t r)
{
    return r < 1 ? 1 : (r < VN_KRYLOV_CAP ? r : VN_KRYLOV_CAP);
}

/* Rows of kcap doubles that vn_work_init takes in `small`. */
#define VN_SMALL_ROWS 16

/* Point W at caller-owned buffers: Q (kcap x r), small (VN_SMALL_ROWS x
 * kcap), w (r). */
static void vn_work_init(vn_work *W, ptrdiff_t r, ptrdiff_t kcap, double *Q,
                         double *small, double *w)
{
    W->r = r;
    W->kcap = kcap;
    W->Q = Q;
    W->w = w;
    double **rows[VN_SMALL_ROWS] = {
        &W->a, &W->b, &W->d, &W->e, &W->z1, &W->dl,
        &W->cur.th, &W->cur.zz, &W->cur.thn, &W->cur.zzn,
        &W->prev.th, &W->prev.zz, &W->prev.thn, &W->prev.zzn,
        &W->cur.lam, &W->prev.lam};
    for (int i = 0; i < VN_SMALL_ROWS; ++i)
        *rows[i] = small + i * kcap;
    W->n_evals = 0;
    W->k = 0;
    W->cur.size = W->prev.size = -1;
    W->c_k = -1;
    W->k_hint = 0;
}

/* Lanczos steps until k == k_to (or the space is exhausted).  Each step
 * takes w = L q_j - a_j q_j - b_{j-1} q_{j-1} (the three-term recurrence)
 * and reorthogonalises it fully: one pass of classical Gram-Schmidt against
 * q_0..q_j, and a second only when that pass cut |w| by more than a factor
 * 1/sqrt(2) (the test of Daniel, Gragg, Kaufman & Stewart 1976; after two
 * passes w is orthogonal to working precision, "twice is enough": Giraud,
 * Langou & Rozloznik 2005).  The recurrence has taken the large components
 * out of L q_j already, so the pass only removes those that orthogonality
 * lost to rounding, and a second pass is rare: in default fits on iris,
 * wine, ionosphere, breast cancer and digits (linear and rbf kernels) it ran
 * only at steps that exhaust the Krylov space.  (Applied to |L q_j| itself, before the recurrence, the
 * test would ask for a second pass at nearly every step: it would see the
 * recurrence's own cancellation.) */
static void vn_lanczos_extend(const double *L, vn_work *W, ptrdiff_t k_to)
{
    const ptrdiff_t r = W->r;
    if (k_to > W->kcap)
        k_to = W->kcap;
    while (W->k < k_to && !W->exhausted) {
        const ptrdiff_t j = W->k;
        const double *q = W->Q + j * r;
        double *w = W->w;
        skb_matvec(L, r, q, w);
        W->a[j] = skb_dot(q, w, r);
        const double before = skb_recur_norm2(w, q, W->a[j], j > 0 ? q - r : NULL,
                                              j > 0 ? W->b[j - 1] : 0.0, r);
        skb_project_out(W->Q, j + 1, r, w, W->dl);
        double beta2 = skb_dot(w, w, r);
        if (beta2 < 0.5 * before) {  /* the DGKS test */
            skb_project_out(W->Q, j + 1, r, w, W->dl);
            beta2 = skb_dot(w, w, r);
        }
        const double beta = sqrt(beta2);
        W->k = j + 1;
        double scale = fabs(W->a[0]);
        for (ptrdiff_t i = 1; i <= j; ++i)
            if (fabs(W->a[i]) > scale)
                scale = fabs(W->a[i]);
        if (W->k == r || beta <= 1e-14 * (scale > 1.0 ? scale : 1.0)) {
            W->b[j] = 0.0;
            W->exhausted = 1;
            break;
        }
        W->b[j] = beta;
        /* at capacity (k == kcap) T stays an approximation; callers check k */
        if (W->k < W->kcap) {
            double *qn = W->Q + (j + 1) * r;
            const double inv = 1.0 / beta;
            for (ptrdiff_t t = 0; t < r; ++t)
                qn[t] = w[t] * inv;
        }
    }
}

/* Eigenvalues (W->d) and first eigenvector row (W->z1) of the leading
 * m x m block of T + x |v|^2 e1 e1'. */
static int vn_block_eig(vn_work *W, ptrdiff_t m, double x)
{
    memcpy(W->d, W->a, (size_t)m * sizeof(double));
    if (m > 1)
        memcpy(W->e, W->b, (size_t)(m - 1) * sizeof(double));
    W->d[0] += x * W->nv2;
    return vn_tridiag_eig(W->d, W->e, W->z1, m);
}

/* log of the Gauss rule e1' exp(T_m + x |v|^2 e1 e1') e1 on the leading
 * m x m block of T, by QL; also log tr exp(T_m + ...) in *log_tr unless
 * NULL.  Leaves the nodes in W->d, the weights in W->e and the scaled
 * exponentials in W->z1 (as vn_gauss_secular). */
static double vn_gauss(vn_work *W, ptrdiff_t m, double x, double *log_tr)
{
    if (vn_block_eig(W, m, x) != 0)
        return NAN;
    double tmax = W->d[0];
    for (ptrdiff_t j = 1; j < m; ++j)
        if (W->d[j] > tmax)
            tmax = W->d[j];
    double s = 0.0, tr = 0.0;
    for (ptrdiff_t j = 0; j < m; ++j) {
        const double ex = exp(W->d[j] - tmax);
        W->e[j] = W->z1[j] * W->z1[j];  /* for vn_dlog_rule */
        W->z1[j] = ex;
        s += W->e[j] * ex;
        tr += ex;
    }
    if (log_tr)
        *log_tr = tmax + log(tr);
    return tmax + log(s);
}

/* Eigen-decomposition of the leading k x k block of T at x = 0 into E:
 * sorted, with weightless components and (numerically) repeated
 * eigenvalues deflated as LAPACK's dlaed2 does. */
static void vn_eig0_store(vn_work *W, vn_eig *E, ptrdiff_t k, const double *dv,
                          const double *zv)
{
    double *th = E->th, *zz = E->zz;
    /* insertion sort of (dv, zv) by dv */
    for (ptrdiff_t i = 0; i < k; ++i) {
        const double t = dv[i], z = zv[i];
        ptrdiff_t j = i;
        while (j > 0 && th[j - 1] > t) {
            th[j] = th[j - 1];
            zz[j] = zz[j - 1];
            --j;
        }
        th[j] = t;
        zz[j] = z;
    }
    double scale = 1.0;
    for (ptrdiff_t i = 0; i < k; ++i)
        if (fabs(th[i]) > scale)
            scale = fabs(th[i]);
    const double tol = 8.0 * DBL_EPSILON * scale;
    /* kept entries first (in order), deflated eigenvalues in W->d */
    ptrdiff_t m = 0, nd = 0;
    for (ptrdiff_t i = 0; i < k; ++i) {
        if (fabs(zz[i]) <= DBL_EPSILON * 1e-2) {
            W->d[nd++] = th[i];           /* no weight on e1 */
        } else if (m > 0 && th[i] - th[m - 1] <= tol) {
            /* rotate the pair so one vector has no weight on e1 */
            zz[m - 1] = sqrt(zz[m - 1] * zz[m - 1] + zz[i] * zz[i]);
            W->d[nd++] = th[i];
        } else {
            th[m] = th[i];
            zz[m] = zz[i];
            ++m;
        }
    }
    for (ptrdiff_t i = 0; i < nd; ++i)
        th[m + i] = W->d[i];
    for (ptrdiff_t i = 0; i < m; ++i) {
        E->thn[i] = -th[m - 1 - i];
        E->zzn[i] = zz[m - 1 - i];
    }
    E->m = m;
    E->size = k;
    E->lam_sign = 0;
}

static int vn_eig0(vn_work *W, vn_eig *E, ptrdiff_t k)
{
    if (vn_block_eig(W, k, 0.0) != 0)
        return -1;
    vn_eig0_store(W, E, k, W->d, W->z1);
    return 0;
}

/* vn_eig0 for the rule (W->cur, size k) and its check (W->prev, size
 * k - 1, k >= 2) at once (vn_tridiag_eig2); the check's problem is worked
 * in W->d / e / z1, the rule's in W->cur's thn / zzn / lam, which
 * vn_eig0_store overwrites only after reading them. */
static int vn_eig0_pair(vn_work *W, ptrdiff_t k)
{
    double *db = W->cur.thn, *eb = W->cur.zzn, *zb = W->cur.lam;
    memcpy(W->d, W->a, (size_t)(k - 1) * sizeof(double));
    memcpy(db, W->a, (size_t)k * sizeof(double));
    memcpy(W->e, W->b, (size_t)(k - 1) * sizeof(double));
    memcpy(eb, W->b, (size_t)(k - 1) * sizeof(double));
    if (vn_tridiag_eig2(W->d, W->e, W->z1, k - 1, db, eb, zb, k) != 0)
        return -1;
    vn_eig0_store(W, &W->prev, k - 1, W->d, W->z1);
    vn_eig0_store(W, &W->cur, k, db, zb);
    return 0;
}

/* The i-th (0-based) root lambda of 1 + rho sum_j z_j^2 / (d_j - lambda) = 0
 * for rho > 0, d strictly ascending, no z_j zero and |z| = 1: lambda lies in
 * (d_i, d_{i+1}), or (d_{m-1}, d_{m-1} + rho) for the last.  The unknown is
 * the offset tau from the nearer pole d_o, so that delta_j = d_j - lambda =
 * (d_j - d_o) - tau keeps full relative accuracy (Golub 1973; Bunch,
 * Nielsen & Sorensen 1978).  Each step keeps the pole term at d_o exact and
 * linearises the others (a quadratic in the new tau), inside a bisection
 * bracket.  `guess` (NAN: none) is a starting point, e.g. the root for a
 * nearby rho: the root finder's evaluations converge, and so do the roots.
 * Fills delta; returns lambda, or NAN without convergence.
 *
 * LAPACK's DLAED4 (scipy.linalg.cython_lapack) solves the same equation
 * under the same assumptions; it was measured against this routine, per
 * root and inside the sweeps, and was slower in both (it takes no starting
 * point): benchmarks/bench_secular_root.py times the two on the same
 * inputs. */
static double vn_secular_root(ptrdiff_t m, ptrdiff_t i, const double *d, const double *z,
                              double rho, double guess, double *delta)
{
    ptrdiff_t o;
    double lo, hi, tau, F = 1.0, dF = 0.0, absF = 1.0;
    int have = 0;  /* F, dF, absF hold the values at tau */
    const double right = i == m - 1 ? d[i] + rho : d[i + 1];
    if (guess > d[i] && guess < right) {  /* false for NAN */
        if (i == m - 1 || guess - d[i] <= right - guess) {
            o = i;
            lo = 0.0;
            hi = right - d[i];
        } else {
            o = i + 1;
            lo = d[i] - d[i + 1];
            hi = 0.0;
        }
        tau = guess - d[o];
        if (!(tau > lo && tau < hi))
            tau = 0.5 * (lo + hi);
    } else if (i == m - 1) {
        o = i;
        lo = 0.0;
        hi = rho;
        tau = 0.5 * rho;
    } else {
        const double mid = 0.5 * (d[i + 1] - d[i]);
        for (ptrdiff_t j = 0; j < m; ++j) {
            const double t = z[j] / ((d[j] - d[i]) - mid);
            const double term = rho * z[j] * t;
            F += term;
            absF += fabs(term);
            dF += rho * t * t;
        }
        have = 1;  /* the same point seen from either pole */
        if (F >= 0.0) {  /* F increases: the root is left of the midpoint */
            o = i;
            lo = 0.0;
            hi = tau = mid;
        } else {
            o = i + 1;
            lo = tau = -mid;
            hi = 0.0;
        }
    }
    const double c = rho * z[o] * z[o];
    for (ptrdiff_t j = 0; j < m; ++j)
        delta[j] = d[j] - d[o];
    for (int it = 0; it < 100; ++it) {
        if (!have) {
            F = 1.0;
            dF = 0.0;
            absF = 1.0;
            for (ptrdiff_t j = 0; j < m; ++j) {
                const double t = z[j] / (delta[j] - tau);
                const double term = rho * z[j] * t;
                F += term;
                absF += fabs(term);
                dF += rho * t * t;
            }
        }
        have = 0;
        if (fabs(F) <= 4.0 * DBL_EPSILON * absF)
            break;
        if (F < 0.0)
            lo = tau;
        else
            hi = tau;
        /* F(t) ~ R + R' (t - tau) - c / t:  R' t^2 + (R - R' tau) t - c = 0 */
        const double R = F + c / tau, dR = dF - c / (tau * tau);
        const double a = dR > 0.0 ? dR : 0.0, b = R - a * tau;
        const double disc = sqrt(b * b + 4.0 * a * c);
        double tn;
        if (o == i)  /* the positive root */
            tn = b >= 0.0 ? 2.0 * c / (b + disc) : (a > 0.0 ? (disc - b) / (2.0 * a) : NAN);
        else         /* the negative root */
            tn = b <= 0.0 ? -2.0 * c / (disc - b) : (a > 0.0 ? -(b + disc) / (2.0 * a) : NAN);
        if (!(tn > lo && tn < hi))
            tn = 0.5 * (lo + hi);
        if (tn == tau || hi - lo <= DBL_EPSILON * fabs(tau))
            break;
        tau = tn;
        if (it == 99)
            return NAN;
    }
    for (ptrdiff_t j = 0; j < m; ++j)
        delta[j] -= tau;
    return d[o] + tau;
}

/* log e1' exp(T_k + x |v|^2 e1 e1') e1 (T_k: the leading k x k block of T,
 * decomposed in E) by the secular equation of
 * diag(th) + rho zz zz', rho = x |v|^2 (Golub 1973): its eigenvalues
 * lambda_i (vn_secular_root) and the weights on e1, (zz' u_i)^2 = 1 /
 * (rho^2 sum_j zz_j^2 / (th_j - lambda_i)^2).  Independent divisions
 * instead of the QL's chain of rotations.  Returns NAN if a root fails.
 * Leaves the m nodes lambda in W->d, their weights in W->e and
 * exp(lambda - max) in W->z1, for vn_dlog_rule. */
static double vn_gauss_secular(vn_work *W, vn_eig *E, ptrdiff_t k, double x,
                               double *log_tr)
{
    if (E->size != k && vn_eig0(W, E, k) != 0)
        return NAN;
    const ptrdiff_t m = E->m;
    double rho = x * W->nv2;
    const int neg = rho < 0.0;
    double *D = neg ? E->thn : E->th, *Z = neg ? E->zzn : E->zz;
    double *lam = W->d, *wt = W->e;
    const int sign = neg ? -1 : 1;
    if (neg)
        rho = -rho;
    for (ptrdiff_t i = 0; i < m; ++i) {
        if (rho == 0.0) {
            lam[i] = D[i];
            wt[i] = Z[i] * Z[i];
            continue;
        }
        if (m == 1) {
            lam[i] = D[0] + rho * Z[0] * Z[0];
            wt[i] = 1.0;
            continue;
        }
        const double li = vn_secular_root(m, i, D, Z, rho,
                                          E->lam_sign == sign ? E->lam[i] : NAN, W->dl);
        if (isnan(li)) {
            E->lam_sign = 0;
            return NAN;
        }
        lam[i] = E->lam[i] = li;
        double psi = 0.0;  /* delta_j = d_j - lambda_i */
        for (ptrdiff_t j = 0; j < m; ++j) {
            const double q = Z[j] / W->dl[j];
            psi += q * q;
        }
        wt[i] = 1.0 / (rho * rho * psi);
    }
    if (rho != 0.0 && m > 1)
        E->lam_sign = sign;
    double lmax = -INFINITY;
    for (ptrdiff_t i = 0; i < m; ++i) {
        if (neg)
            lam[i] = -lam[i];
        if (lam[i] > lmax)
            lmax = lam[i];
    }
    for (ptrdiff_t i = m; i < k; ++i)  /* deflated: unchanged eigenvalues */
        if (E->th[i] > lmax)
            lmax = E->th[i];
    double s = 0.0, tr = 0.0;
    for (ptrdiff_t i = 0; i < m; ++i) {
        const double ex = exp(lam[i] - lmax);
        W->z1[i] = ex;  /* for vn_dlog_rule */
        s += wt[i] * ex;
        tr += ex;
    }
    if (log_tr) {
        for (ptrdiff_t i = m; i < k; ++i)
            tr += exp(E->th[i] - lmax);
        *log_tr = lmax + log(tr);
    }
    return lmax + log(s);
}

/* d/dx log of the rule sum_a w_a e^lam_a of T + x |v|^2 e1 e1' (nodes lam,
 * weights w, ex = exp(lam - c) for any constant c):  the Frechet derivative
 * of exp in the direction |v|^2 e1 e1' gives
 *     f' / f = |v|^2 sum_ab w_a w_b [lam_a, lam_b]exp / sum_a w_a e^lam_a
 * with the divided difference [a, b]exp = (e^a - e^b) / (a - b).  Only the
 * root finder's steps use it (convergence is judged on g itself), so the
 * difference quotient of the cached exponentials is good enough for
 * |h| >= 1e-3 (relative error ~ 1e-13), with a Taylor form below. */
static double vn_dlog_rule(const double *lam, const double *w, const double *ex,
                           ptrdiff_t m, double nv2)
{
    double num = 0.0, den = 0.0;
    for (ptrdiff_t a = 0; a < m; ++a) {
        const double wa = w[a], ea = ex[a];
        double row = 0.5 * wa * ea;  /* the diagonal term, halved as below */
        for (ptrdiff_t b = a + 1; b < m; ++b) {
            const double h = lam[b] - lam[a];
            const double phi = fabs(h) >= 1e-3
                ? (ex[b] - ea) / h
                : ea * (1.0 + h * (0.5 + h * (1.0 / 6.0 + h * (1.0 / 24.0))));
            row += w[b] * phi;
        }
        num += wa * row;
        den += wa * ea;
    }
    return 2.0 * nv2 * num / den;
}

/* Starting points for the secular roots of the check (W->prev, size k - 1)
 * at x, when it has none of its own, from the rule's (W->cur, size k).
 * The rule's roots are the eigenvalues lam of A_k = T_k + x |v|^2 e1 e1',
 * the check's those, mu, of A_{k-1}, its leading (k-1) x (k-1) block; in
 * the frame of the secular equation (negated for x < 0, as in
 * vn_gauss_secular) both ascend and interlace (Cauchy's interlacing
 * theorem), lam_i <= mu_i <= lam_{i+1}, as do the poles: th_i <= th'_i <=
 * th_{i+1} (th: T_k's eigenvalues, th': T_{k-1}'s).  Lanczos being near
 * convergence here, each th'_i sits close to one of its neighbours th_j
 * (j = i or i + 1, the same Ritz value one step earlier).  The rank-one
 * term moves an eigenvalue by about rho times its squared weight on e1
 * (zz_j^2 for th_j, zz'_i^2 for th'_i; first-order perturbation), so the
 * guess is th'_i + (lam_j - th_j) zz'_i^2 / zz_j^2, kept inside mu_i's
 * bracket (max(lam_i, th'_i), min(lam_{i+1}, th'_{i+1})) or replaced by its
 * midpoint.  The rule's roots may be those of a nearby x (vn_step_rule),
 * which only makes the guess rougher: the root finder converges from any
 * starting point, so the guess changes the cost, not the root (beyond
 * rounding), and f_{k-1} only enters the accept / grow decision.  On the
 * digits fits (1,400 points; linear and rbf) the check's roots took 2.05 secular
 * evaluations each with this guess, 2.98 without.  Only without deflation
 * (m = size in both), so that the roots are all the eigenvalues. */
static void vn_check_guess(vn_work *W, ptrdiff_t k, double x)
{
    vn_eig *P = &W->prev, *C = &W->cur;
    const double rho = x * W->nv2;
    const int sign = rho < 0.0 ? -1 : 1;
    if (rho == 0.0 || P->lam_sign == sign || P->size != k - 1 || C->size != k ||
        P->m != k - 1 || C->m != k || C->lam_sign != sign || k < 3)
        return;
    const double *d = sign < 0 ? P->thn : P->th, *D = sign < 0 ? C->thn : C->th;
    const double *zd = sign < 0 ? P->zzn : P->zz, *zD = sign < 0 ? C->zzn : C->zz;
    const double *lam = C->lam;
    const double arho = fabs(rho);
    for (ptrdiff_t i = 0; i < k - 1; ++i) {
        const ptrdiff_t j = d[i] - D[i] <= D[i + 1] - d[i] ? i : i + 1;
        const double lo = lam[i] > d[i] ? lam[i] : d[i];
        const double right = i == k - 2 ? d[i] + arho : d[i + 1];
        const double hi = lam[i + 1] < right ? lam[i + 1] : right;
        double gs = d[i] + (lam[j] - D[j]) * (zd[i] * zd[i]) / (zD[j] * zD[j]);
        if (!(gs > lo && gs < hi))
            gs = 0.5 * (lo + hi);
        P->lam[i] = gs;
    }
    P->lam_sign = sign;
}

/* log f(x) / |v|^2 from T of size k (not counted as an evaluation), and
 * its error estimate relative to f; also log tr exp(T + x |v|^2 e1 e1') in
 * *log_tr and d/dx log f in *dlog_f, each unless NULL.
 *
 * f_k = |v|^2 e1' exp(T_k + ...) e1 is the k-point Gauss rule for
 * v' exp(L + x v v') v (Golub & Meurant): exp has positive derivatives of
 * every order, so f_k increases with k to f, and the convergence is
 * superlinear, so f - f_k is below f_k - f_{k-1}, the estimate used.  The
 * vector estimate b_k |e_k' exp(T) e1| of exp(L) v (Saad 1992) is far too
 * pessimistic for a quadratic form: the Krylov vector is exact for
 * polynomials of degree k - 1, the Gauss rule for degree 2k - 1, so the
 * rule's error is roughly the square of the vector's.  With rel_err NULL
 * the estimate is skipped.  f_k comes from the secular equation on the
 * decomposition of T cached for this Krylov size, not from a new QL; the
 * last f_k is remembered, so that the check at a root the finder has just
 * evaluated only adds f_{k-1}. */
static double vn_eval(vn_work *W, double x, double *rel_err, double *log_tr,
                      double *dlog_f)
{
    const ptrdiff_t k = W->k;
    double lf_prev = NAN;
    if (rel_err && !W->exhausted && k > 1 && W->prev.size != k - 1 &&
        W->cur.size != k) {
        if (W->cur.size == k - 1) {
            /* Lanczos grew by one step: the last rule's decomposition is the
             * check's (the same QL arithmetic), only T_k is new */
            const vn_eig t = W->prev;
            W->prev = W->cur;
            W->cur = t;
            W->cur.size = -1;  /* vn_gauss_secular decomposes it */
        } else if (vn_eig0_pair(W, k) != 0) {
            W->prev.size = W->cur.size = -1;  /* each on its own below */
        }
    }
    if (rel_err && !W->exhausted && k > 1) {
        vn_check_guess(W, k, x);
        lf_prev = vn_gauss_secular(W, &W->prev, k - 1, x, NULL);
        if (isnan(lf_prev))
            lf_prev = vn_gauss(W, k - 1, x, NULL);
    }
    double lf, ltr;
    if (W->c_k == k && W->c_x == x && !dlog_f && !(log_tr && isnan(W->c_ltr))) {
        lf = W->c_lf;
        ltr = W->c_ltr;
    } else {
        ptrdiff_t m;  /* nodes of the rule */
        lf = vn_gauss_secular(W, &W->cur, k, x, &ltr);
        if (isnan(lf)) {  /* a secular root failed: QL on T + x |v|^2 e1 e1' */
            lf = vn_gauss(W, k, x, &ltr);
            m = k;
        } else {
            m = W->cur.m;
        }
        W->c_dlf = NAN;
        if (dlog_f)
            *dlog_f = W->c_dlf = isnan(lf) ? NAN : vn_dlog_rule(W->d, W->e, W->z1, m, W->nv2);
        W->c_k = isnan(lf) ? -1 : k;
        W->c_x = x;
        W->c_lf = lf;
        W->c_ltr = ltr;
    }
    if (log_tr)
        *log_tr = ltr;
    if (rel_err) {
        if (isnan(lf))
            *rel_err = INFINITY;
        else if (W->exhausted)
            *rel_err = 0.0;
        else if (k > 1)
            *rel_err = isnan(lf_prev) ? INFINITY : -expm1(lf_prev - lf);
        else
            *rel_err = INFINITY;
    }
    return lf;
}

/* log f(x) (see vn_eval), counted as an evaluation. */
static double vn_log_f(vn_work *W, double x, double *rel_err, double *log_tr,
                       double *dlog_f)
{
    W->n_evals += 1;
    return vn_eval(W, x, rel_err, log_tr, dlog_f) + log(W->nv2);
}

/* Start a projection on v: Lanczos from v up to VN_KSTART steps, or to the
 * size the last solved projection needed (W->k_hint, set by
 * vn_root_checked).  Projections of a sweep act on similar states and need
 * similar sizes; starting at that size skips the rule and its check at the
 * sizes below (a QL decomposition each).  The stopping rule is checked
 * as before, so the hint changes the cost, not the accuracy. */
static void vn_start(const double *L, vn_work *W, const double *v)
{
    const ptrdiff_t r = W->r;
    W->nv2 = skb_dot(v, v, r);
    const double inv = 1.0 / sqrt(W->nv2);
    for (ptrdiff_t t = 0; t < r; ++t)
        W->Q[t] = v[t] * inv;
    W->k = 0;
    W->exhausted = 0;
    W->cur.size = W->prev.size = -1;
    W->c_k = -1;
    vn_lanczos_extend(L, W, W->k_hint > VN_KSTART ? W->k_hint : VN_KSTART);
}

/* log f(x) accurate to VN_RTOL: grows the Krylov space as needed; also
 * log tr exp(T + x |v|^2 e1 e1') at the final size in *log_tr (or NULL). */
static double vn_log_f_exact(const double *L, vn_work *W, double x, double *log_tr)
{
    for (;;) {
        double err;
        const double lf = vn_log_f(W, x, &err, log_tr, NULL);
        if (err <= VN_RTOL || W->exhausted || W->k >= W->kcap)
            return lf;
        vn_lanczos_extend(L, W, W->k + VN_KSTEP);
    }
}

/* An increasing function g of x and its derivative (in *dg), evaluated by
 * the root finder. */
typedef double (*vn_gfun)(void *ctx, double x, double *dg);

/* Root of the increasing g given g(0) = g0 and its slope at 0 (or a guess).
 * Newton steps with the derivative of each evaluation (vn_dlog_rule), kept
 * inside the bracket [lo, hi] of the points seen so far: a step that leaves
 * it, or an evaluation that did not halve |g|, is replaced by bisection once
 * both ends are known, and by doubling the last move before.  At most
 * VN_MAXEVAL evaluations; |g| <= VN_GTOL counts as a root, and a step or
 * bracket at rounding level of x ends the search.  (The paper leaves the
 * scalar root finder open; a secant / Illinois iteration, which needs no
 * derivative, took more evaluations per projection.)
 *
 * A Newton step x' = x - g/g' leaves g(x') = g''/2 (g/g')^2 + O((g/g')^3)
 * (Taylor).  When that is below VN_GTOL / 100, with g'' that of the
 * quadratic through g and g' at x and g at the previous point, x' is
 * returned without evaluating g there: the evaluation would only confirm
 * |g(x')| <= VN_GTOL, and x' is the root the search would have returned.
 * Then *x_last is x, the last point evaluated (the Krylov check at x' starts
 * from it: vn_step_rule); otherwise NAN. */
static double vn_root(vn_gfun g, void *ctx, double g0, double slope, double *x_last)
{
    double lo = -INFINITY, hi = INFINITY;  /* g(lo) < 0 < g(hi) */
    if (g0 < 0.0)
        lo = 0.0;
    else
        hi = 0.0;
    double xp = 0.0, gp = fabs(g0), gps = g0;  /* the previous point, |g| and g there */
    double x = -g0 / slope;
    *x_last = NAN;
    double best_x = 0.0, best_g = fabs(g0);
    for (int n = 0; n < VN_MAXEVAL; ++n) {
        double dg;
        const double gx = g(ctx, x, &dg);
        if (fabs(gx) < best_g) {
            best_g = fabs(gx);
            best_x = x;
        }
        if (fabs(gx) <= VN_GTOL || isnan(gx))
            return isnan(gx) ? best_x : x;
        if (gx < 0.0)
            lo = x;
        else
            hi = x;
        double xn = (dg > 0.0 && isfinite(dg)) ? x - gx / dg : NAN;
        const int newton = xn > lo && xn < hi && fabs(gx) <= 0.5 * gp;
        if (!newton) {
            if (isfinite(lo) && isfinite(hi))
                xn = 0.5 * (lo + hi);
            else if (!(xn > lo && xn < hi))  /* g' unusable: keep going */
                xn = x + 2.0 * (gx < 0.0 ? fabs(x - xp) : -fabs(x - xp));
        }
        const double tol = 4.0 * DBL_EPSILON * fabs(x);
        if (fabs(xn - x) <= tol || hi - lo <= tol)
            return x;
        if (newton) {
            const double h = xp - x, step = gx / dg;
            const double g2 = 2.0 * (gps - gx - dg * h) / (h * h);  /* g'' */
            if (0.5 * fabs(g2) * step * step <= 1e-2 * VN_GTOL) {
                *x_last = x;
                return xn;
            }
        }
        xp = x;
        gp = fabs(gx);
        gps = gx;
        x = xn;
    }
    return best_x;
}

/* Remember the rule of size k at x, from the one just evaluated at x_last
 * (with its derivative) by a first-order step, for the Krylov check at a
 * root that vn_root returned without evaluating: the step's error,
 * |(log f)''| (x - x_last)^2 / 2, is vn_root's estimate of |g(x)| (the
 * projection's g is log f plus terms linear in x), below VN_GTOL / 100 and
 * far below what the check resolves (VN_RTOL).  log tr is not stepped:
 * vn_eval computes it if asked. */
static void vn_step_rule(vn_work *W, double x_last, double x)
{
    if (W->c_k != W->k || W->c_x != x_last || !isfinite(W->c_dlf))
        return;  /* nothing to step from: the check evaluates f_k(x) */
    W->c_lf += W->c_dlf * (x - x_last);
    W->c_x = x;
    W->c_ltr = NAN;
    W->c_dlf = NAN;
}

/* vn_root on evaluations at the current Krylov size, with the Krylov
 * accuracy checked at the root only: if f_k - f_{k-1} is too large there,
 * Lanczos grows by one step and the root is sought again from the previous
 * one.  The final size k is the next projection's start (W->k_hint), or
 * k - 1 when f_k - f_{k-1} is so far below VN_RTOL that the check at k - 1
 * is expected to pass (VN_HINT_DROP): without that step down, a hint raised
 * once by a harder projection would stay up for the rest of the sweep. */
static double vn_root_checked(const double *L, vn_work *W, vn_gfun g, void *ctx,
                              double g0, double slope)
{
    for (;;) {
        double x_last;
        const double x = vn_root(g, ctx, g0, slope, &x_last);
        if (!isnan(x_last))
            vn_step_rule(W, x_last, x);
        double err;
        vn_log_f(W, x, &err, NULL, NULL);  /* f_k(x) is usually remembered */
        if (err <= VN_RTOL || W->exhausted || W->k >= W->kcap) {
            if (W->exhausted)
                W->k_hint = 0;
            else
                W->k_hint = err <= VN_HINT_DROP * VN_RTOL ? W->k - 1 : W->k;
            return x;
        }
        vn_lanczos_extend(L, W, W->k + VN_KSTEP);
        if (x != 0.0 && isfinite(x))
            slope = -g0 / x;  /* first step lands on the previous root */
    }
}

/* d/dx log f at x = 0 at the current Krylov size (not counted as an
 * evaluation): at x = 0 the rule is the cached decomposition itself. */
static double vn_dlog_f0(vn_work *W)
{
    double d;
    if (isnan(vn_eval(W, 0.0, NULL, NULL, &d)))
        return NAN;
    return d;
}

typedef struct {
    const double *L;
    vn_work *W;
    double inv_gamma, log_xi;
} vn_proj;

static double vn_proj_g(void *ctx, double x, double *dg)
{
    vn_proj *P = (vn_proj *)ctx;
    double dlf;
    const double gx = vn_log_f(P->W, x, NULL, NULL, &dlf) + x * P->inv_gamma - P->log_xi;
    *dg = dlf + P->inv_gamma;
    return gx;
}

/* Root of g(x) = log f(x) + x * inv_gamma - log_xi (the projection of
 * Section 5.2 with the slack of Section 6.2.1), given g(0) = g0 accurate to
 * VN_RTOL; the Krylov accuracy is checked again at the root. */
static double vn_solve(const double *L, vn_work *W, double g0, double inv_gamma,
                       double log_xi)
{
    vn_proj P = {L, W, inv_gamma, log_xi};
    double slope = vn_dlog_f0(W);  /* g'(0): the first step is Newton's */
    if (!(slope > 0.0) || !isfinite(slope))
        slope = W->nv2;  /* exact when v is an eigenvector of L */
    return vn_root_checked(L, W, vn_proj_g, &P, g0, slope + inv_gamma);
}

#endif
