/* DefiniteBoost and MEG steps on a trace-one state (Tsuda, Ratsch & Warmuth
 * 2005, Sections 3-4), on the Lanczos machinery of _vn_kernels.h.
 *
 * The state is L = log W (symmetric r x r, upper triangle) with
 * tr exp(L) = 1 on entry to every step.  A constraint is
 *     C = s (v v' - b I),  tr(W C) = s (v'Wv - b) <= 0,
 * so exp(L - alpha C) = exp(L + x v v') e^{alpha s b} with x = -s alpha: one
 * step is the von Neumann rank-one update L += x v v' followed by the
 * normalisation L -= log Z(x) I, Z(x) = tr exp(L + x v v').
 *
 * Z(x) from the small problem.  d/dx tr exp(L + x v v') = f(x) = v' exp(L +
 * x v v') v, and the same identity holds for T + x |v|^2 e1 e1' on the
 * Krylov space, so
 *     Z(x) = 1 + (tr exp(T_x) - tr exp(T_0))
 * with an error bounded by the integral of the Lanczos error of f on
 * [0, x] (exact once the Krylov space is invariant).
 */
#ifndef SKLEARN_BREGMAN_DB_KERNELS_H
#define SKLEARN_BREGMAN_DB_KERNELS_H

#include "_vn_kernels.h"

/* 1 - tr exp(T_0) at the Krylov size k it was computed for. */
typedef struct {
    double rest;
    ptrdiff_t k;
} db_rest;

/* log f(x) and log Z(x), at the Krylov accuracy of vn_log_f_exact if
 * `check`, else at the current Krylov size (and then d/dx log f in *dlog_f
 * unless NULL). */
static double db_log_fz(const double *L, vn_work *W, db_rest *R, double x, int check,
                        double *log_z, double *dlog_f)
{
    double log_tr;
    const double lf = check ? vn_log_f_exact(L, W, x, &log_tr)
                            : vn_log_f(W, x, NULL, &log_tr, dlog_f);
    if (R->k != W->k) {
        /* the Krylov space grew: tr exp(T_0) of the new size (not counted as
         * a root-finder evaluation) */
        double lt0;
        vn_eval(W, 0.0, NULL, &lt0, NULL);
        R->rest = 1.0 - exp(lt0);
        if (R->rest < 0.0)  /* rounding: the Krylov part holds all the trace */
            R->rest = 0.0;
        R->k = W->k;
        /* vn_log_f overwrote the eigen work; log_tr and lf are kept above */
    }
    /* log(rest + e^{log_tr}) without overflow for large x */
    *log_z = log_tr + log1p(R->rest * exp(-log_tr));
    return lf;
}

/* L += x v v' (upper triangle), then L -= log Z(x) I: back to trace one.
 * Returns log Z(x). */
static double db_apply(double *L, vn_work *W, db_rest *R, const double *v, double x)
{
    const ptrdiff_t r = W->r;
    double lz;
    db_log_fz(L, W, R, x, 1, &lz, NULL);
    skb_update(L, r, x, v);
    for (ptrdiff_t i = 0; i < r; ++i)
        L[i * r + i] -= lz;
    return lz;
}

typedef struct {
    const double *L;
    vn_work *W;
    db_rest *R;
    double log_b;
} db_proj;

/* g(x) = log f(x) - log Z(x) - log b = log v'W(x)v - log b, increasing;
 * g' = f'/f - f/Z (dZ/dx = f). */
static double db_proj_g(void *ctx, double x, double *dg)
{
    db_proj *P = (db_proj *)ctx;
    double lz, dlf;
    const double lf = db_log_fz(P->L, P->W, P->R, x, 0, &lz, &dlf);
    *dg = dlf - exp(lf - lz);
    return lf - lz - P->log_b;
}

/* One DefiniteBoost step on C = s (v v' - b I), requiring 0 < b and, for
 * s = -1, b < |v|^2 (the caller skips or rejects the other cases).
 *
 * exact:      alpha* minimises tr exp(L - alpha C) (eq. 11): the root of
 *             v'W(x)v = b, x = -s alpha.
 * otherwise:  alpha* minimises the convexity bound of Theorem 4.1,
 *             alpha* = log((1 - r/lmin) / (1 - r/lmax)) / (lmax - lmin),
 *             r = tr(W C).  The printed eq. 13 reads (1 + r/lmax) /
 *             (1 + r/lmin): the same for symmetric eigenvalues (AdaBoost,
 *             Section 4.3) but undefined once r > -lmin; this form is the
 *             minimiser of the bound and gives the rho(r) of eq. 14.
 * alpha = max(alpha*, -gamma) with the dual correction (Bregman's method
 * with inequality constraints, JMLR 2009 Section 3.4), max(alpha*, 0)
 * without (Tsuda et al.).  gamma += alpha; L += x v v'; L -= log Z(x) I.
 *
 * Returns alpha; *d_dual receives the change of the dual objective (9),
 * log Z(x) + alpha s b (zero when alpha = 0), and *viol the value r.
 */
static double db_step(double *L, vn_work *W, const double *v, double s, double b,
                      double *gamma, int exact, int correction, double *d_dual,
                      double *viol)
{
    db_rest R = {0.0, -1};
    double lz, alpha;
    *d_dual = 0.0;
    vn_start(L, W, v);
    const double nv2 = W->nv2;
    const double lp = db_log_fz(L, W, &R, 0.0, 1, &lz, NULL);
    const double rho = exp(lp - lz);          /* v'Wv */
    const double rv = s * (rho - b);
    *viol = rv;
    if (exact) {
        const double g0 = lp - lz - log(b);
        if (g0 == 0.0) {
            alpha = 0.0;
        } else {
            db_proj P = {L, W, &R, log(b)};
            /* g'(0) = d/dx log f - f / Z at 0: the first step is Newton's */
            double slope = vn_dlog_f0(W) - rho;
            if (!(slope > 1e-12 * nv2) || !isfinite(slope))
                slope = nv2;
            alpha = -s * vn_root_checked(L, W, db_proj_g, &P, g0, slope);
        }
    } else {
        const double lmax = s > 0 ? nv2 - b : b;
        const double lmin = s > 0 ? -b : b - nv2;
        const double num = 1.0 - rv / lmin, den = 1.0 - rv / lmax;
        alpha = (num > 0.0 && den > 0.0) ? log(num / den) / (lmax - lmin) : 0.0;
    }
    const double lo = correction ? -*gamma : 0.0;
    if (alpha < lo)
        alpha = lo;
    if (alpha == 0.0)
        return 0.0;
    *gamma += alpha;
    *d_dual = db_apply(L, W, &R, v, -s * alpha) + alpha * s * b;
    return alpha;
}

/* One MEG step (eq. 4, in the stable form of eq. 7: L is the running
 * exponent, renormalised to trace one) on the example (v, y): prediction
 * yhat = v'Wv, L += -2 eta (yhat - y) v v', L -= log Z I.  Returns yhat. */
static double meg_step(double *L, vn_work *W, const double *v, double y, double eta)
{
    db_rest R = {0.0, -1};
    double lz;
    vn_start(L, W, v);
    const double lp = db_log_fz(L, W, &R, 0.0, 1, &lz, NULL);
    const double yhat = exp(lp - lz);
    const double x = -2.0 * eta * (yhat - y);
    if (x != 0.0)
        db_apply(L, W, &R, v, x);
    return yhat;
}

#endif
