# cython: language_level=3
"""Compiled DefiniteBoost loops and MEG steps (Tsuda, Ratsch & Warmuth 2005).

The state is ``L = log W`` (symmetric r x r, upper triangle read, lower
refreshed on return) with ``tr exp(L) = 1``.  Constraint ``j`` is
``C_j = s_j (v_j v_j' - b_j I)`` with ``v_j`` the j-th row of ``V``; its dual
variable is ``gamma_j >= 0`` and ``W = exp(log W_1 - sum_j gamma_j C_j) / Z``
(eq. 9).  One step is ``_db_kernels.h``'s ``db_step``: exact (eq. 11) or
approximate (eq. 13) step size, with or without the dual correction, then
the rank-one update of L and its renormalisation, O(k r^2) with k Lanczos
steps.

``definiteboost_greedy`` is the paper's algorithm: every step evaluates all
constraints (an eigendecomposition of L, O(r^3), and ``V Q``, O(c r^2)) and
projects on the most violated one.  ``definiteboost_cyclic_sweep`` visits
the constraints in a given order at O(k r^2) per projection (the JMLR 2009
form); the caller checks convergence once per sweep.
"""

from libc.math cimport exp, log
from libc.string cimport memcpy

import numpy as np

cimport numpy as cnp
from scipy.linalg.cython_blas cimport dgemm
from scipy.linalg.cython_lapack cimport dsyevr

from ._dense_kernels cimport skb_mirror_upper
from ._vn_kernels cimport VN_SMALL_ROWS, vn_kcap, vn_work, vn_work_init

cnp.import_array()


cdef extern from "_db_kernels.h" nogil:
    double db_step(double* L, vn_work* W, const double* v, double s, double b,
                   double* gamma, int exact, int correction, double* d_dual,
                   double* viol)
    double meg_step(double* L, vn_work* W, const double* v, double y, double eta)


cdef class _Work:
    """Buffers of one ``vn_work`` (Lanczos vectors, tridiagonal, QL rows)."""
    cdef vn_work W
    cdef double[:, ::1] Q
    cdef double[:, ::1] small
    cdef double[::1] w

    def __cinit__(self, Py_ssize_t r):
        cdef Py_ssize_t kcap = vn_kcap(r)
        self.Q = np.empty((kcap, r))
        self.small = np.empty((VN_SMALL_ROWS, kcap))
        self.w = np.empty(max(r, 1))
        vn_work_init(&self.W, r, kcap, &self.Q[0, 0], &self.small[0, 0], &self.w[0])


def _check_shapes(V, L, sign, bound, gamma):
    if L.shape[0] != V.shape[1] or L.shape[1] != V.shape[1]:
        raise ValueError("L must be r x r with r = V.shape[1]")
    if not sign.shape[0] == bound.shape[0] == gamma.shape[0] == V.shape[0]:
        raise ValueError("one sign, bound and dual per row of V")


def definiteboost_greedy(const double[:, ::1] V,
                         const signed char[::1] sign,
                         const double[::1] bound,
                         double[::1] gamma,
                         double[:, ::1] L,
                         long max_steps,
                         double tol,
                         bint exact,
                         bint correction):
    """Greedy DefiniteBoost: project on the most violated constraint.

    The score of constraint j is its violation ``r_j = tr(W C_j)`` when
    positive and, with the dual correction, ``-r_j`` when negative with
    ``gamma_j > 0`` (the projected gradient of the dual objective (9)).  The
    loop stops when every score is at most ``tol * b_j`` or after
    ``max_steps`` steps.

    Parameters
    ----------
    V : ndarray of shape (c, r)
        Constraint vectors (rows).
    sign, bound : ndarray of shape (c,)
        s_j in {+1, -1} and b_j > 0 (b_j < |v_j|^2 when s_j = -1).
    gamma : ndarray of shape (c,)
        Dual variables, updated in place.
    L : ndarray of shape (r, r)
        log W, updated in place (renormalised to trace one at every step).
    max_steps : int
    tol : float
    exact, correction : bool

    Returns
    -------
    n_steps : int
    converged : bool
    d_dual : float
        Change of the dual objective (9) over the run.
    n_evals : int
        Root-finder evaluations (exact steps).
    max_score : float
        Largest relative score ``score_j / b_j`` at the last check.
    """
    cdef int r = <int> V.shape[1]
    cdef int c = <int> V.shape[0]
    _check_shapes(V, L, sign, bound, gamma)
    if r == 0 or c == 0:
        return 0, True, 0.0, 0, 0.0
    cdef _Work work = _Work(r)
    cdef double[:, ::1] A = np.empty((r, r))
    cdef double[:, ::1] Z = np.empty((r, r))
    cdef double[:, ::1] P = np.empty((c, r))
    cdef double[::1] lam = np.empty(r)
    cdef double[::1] elam = np.empty(r)
    cdef int[::1] isuppz = np.empty(2 * r, dtype=np.intc)
    cdef int m = 0, info = 0, lwork = -1, liwork = -1, il = 1, iu = r
    cdef double vl = 0.0, vu = 0.0, abstol = 0.0, one = 1.0, zero = 0.0
    cdef double wq
    cdef int iwq
    cdef char jobz = b'V', rng = b'A', uplo = b'L', tn = b'T', nn = b'N'
    # workspace query
    dsyevr(&jobz, &rng, &uplo, &r, &A[0, 0], &r, &vl, &vu, &il, &iu, &abstol, &m,
           &lam[0], &Z[0, 0], &r, &isuppz[0], &wq, &lwork, &iwq, &liwork, &info)
    lwork = <int> wq
    liwork = iwq
    cdef double[::1] work_d = np.empty(max(lwork, 1))
    cdef int[::1] work_i = np.empty(max(liwork, 1), dtype=np.intc)
    cdef double* Lp = &L[0, 0]
    cdef long step = 0
    cdef bint converged = False
    cdef double d_dual = 0.0, dd, viol, score, best, rel, max_rel = 0.0, lt, mx, rho
    cdef Py_ssize_t j, jbest, kk
    with nogil:
        while True:
            # Eigendecomposition of L (row-major upper = column-major lower).
            memcpy(&A[0, 0], Lp, r * r * sizeof(double))
            dsyevr(&jobz, &rng, &uplo, &r, &A[0, 0], &r, &vl, &vu, &il, &iu, &abstol,
                   &m, &lam[0], &Z[0, 0], &r, &isuppz[0], &work_d[0], &lwork,
                   &work_i[0], &liwork, &info)
            if info != 0:
                break
            # exact renormalisation: L -= log tr exp(L) I
            mx = lam[0]
            for kk in range(r):
                if lam[kk] > mx:
                    mx = lam[kk]
            lt = 0.0
            for kk in range(r):
                lt += exp(lam[kk] - mx)
            lt = mx + log(lt)
            for kk in range(r):
                Lp[kk * r + kk] -= lt
                elam[kk] = exp(lam[kk] - lt)
            # P = V Q: column-major Z holds the eigenvectors Q as columns.
            dgemm(&tn, &nn, &r, &c, &r, &one, &Z[0, 0], &r, &V[0, 0], &r, &zero,
                  &P[0, 0], &r)
            best = 0.0
            jbest = -1
            max_rel = 0.0
            for j in range(c):
                rho = 0.0
                for kk in range(r):
                    rho += P[j, kk] * P[j, kk] * elam[kk]
                viol = sign[j] * (rho - bound[j])
                score = 0.0
                if viol > 0.0:
                    score = viol
                elif correction and gamma[j] > 0.0:
                    score = -viol
                if score > best:
                    best = score
                    jbest = j
                rel = score / bound[j]
                if rel > max_rel:
                    max_rel = rel
            if max_rel <= tol or jbest < 0:
                converged = True
                break
            if step >= max_steps:
                break
            db_step(Lp, &work.W, &V[jbest, 0], <double> sign[jbest], bound[jbest],
                    &gamma[jbest], exact, correction, &dd, &viol)
            d_dual += dd
            step += 1
        skb_mirror_upper(Lp, r)
    if info != 0:
        raise np.linalg.LinAlgError(f"dsyevr failed (info={info}) on the state log W")
    return step, bool(converged), d_dual, work.W.n_evals, max_rel


def definiteboost_cyclic_sweep(const double[:, ::1] V,
                               const signed char[::1] sign,
                               const double[::1] bound,
                               double[::1] gamma,
                               double[:, ::1] L,
                               const cnp.intp_t[::1] order,
                               bint exact,
                               bint correction):
    """One DefiniteBoost step on each constraint listed in ``order``.

    Same arguments as :func:`definiteboost_greedy`.  ``L`` should have trace
    one on entry; each step renormalises it through the Lanczos estimate of
    Z (the caller renormalises exactly between sweeps).

    Returns
    -------
    d_dual : float
        Change of the dual objective (9) over the sweep.
    n_evals : int
        Root-finder evaluations.
    n_moved : int
        Steps that moved the state.
    """
    cdef Py_ssize_t r = V.shape[1]
    cdef Py_ssize_t m = order.shape[0]
    _check_shapes(V, L, sign, bound, gamma)
    if r == 0 or m == 0:
        return 0.0, 0, 0
    cdef _Work work = _Work(r)
    cdef double* Lp = &L[0, 0]
    cdef double d_dual = 0.0, dd, viol, alpha
    cdef Py_ssize_t t, j, n_moved = 0
    with nogil:
        for t in range(m):
            j = order[t]
            alpha = db_step(Lp, &work.W, &V[j, 0], <double> sign[j], bound[j], &gamma[j],
                            exact, correction, &dd, &viol)
            if alpha != 0.0:
                n_moved += 1
                d_dual += dd
        skb_mirror_upper(Lp, r)
    return d_dual, work.W.n_evals, n_moved


def meg_steps(const double[:, ::1] V,
              const double[::1] target,
              double eta,
              double[:, ::1] L):
    """MEG updates (eq. 4 / 7) on the examples ``(V[t], target[t])`` in order.

    Returns
    -------
    prediction : ndarray of shape (n_examples,)
        ``v_t' W_t v_t`` before each update (the online prediction).
    """
    cdef Py_ssize_t r = V.shape[1]
    cdef Py_ssize_t m = V.shape[0]
    if L.shape[0] != r or L.shape[1] != r:
        raise ValueError("L must be r x r with r = V.shape[1]")
    if target.shape[0] != m:
        raise ValueError("one target per row of V")
    out = np.zeros(m)
    if r == 0 or m == 0:
        return out
    cdef double[::1] yhat = out
    cdef _Work work = _Work(r)
    cdef double* Lp = &L[0, 0]
    cdef Py_ssize_t t
    with nogil:
        for t in range(m):
            yhat[t] = meg_step(Lp, &work.W, &V[t, 0], target[t], eta)
        skb_mirror_upper(Lp, r)
    return out
