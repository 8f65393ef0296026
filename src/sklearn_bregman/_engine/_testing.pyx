# cython: language_level=3
"""Test hooks: the compiled kernels of the engine, reachable from Python.

Nothing in the package imports this module; the tests and the benchmarks
do, to check the C kernels of ``_vn_kernels.h`` and ``_dense_kernels.h``
against dense oracles, and the pivot exchange of ``_csi_steps.pyx`` one
transposition at a time.
"""

from libc.math cimport NAN, log

import numpy as np

from scipy.linalg.cython_lapack cimport dlaed4

from ._csi_steps import move_pivot


cdef extern from "_tridiag_ql.h" nogil:
    int vn_tridiag_eig(double* d, double* e, double* z1, Py_ssize_t n)
    int vn_tridiag_eig_rows(double* d, double* e, Py_ssize_t n, double* z, Py_ssize_t p)
from ._dense_kernels cimport skb_project_out
from ._vn_kernels cimport (
    VN_SMALL_ROWS,
    vn_dlog_rule,
    vn_eval,
    vn_gauss,
    vn_gauss_secular,
    vn_secular_root,
    vn_tridiag_eig2,
    vn_work,
    vn_work_init,
)


cdef class _Tridiagonal:
    """A Krylov workspace holding a given tridiagonal T (diagonal ``a``,
    off-diagonal ``b``, one shorter) as an exhausted Lanczos run with
    ``|v|^2 = nv2``: what the hooks below evaluate on."""
    cdef double[:, ::1] Q, small
    cdef double[::1] w
    cdef vn_work W

    def __cinit__(self, const double[::1] a, const double[::1] b, double nv2):
        cdef Py_ssize_t k = a.shape[0], t
        if k < 1 or b.shape[0] != k - 1:
            raise ValueError("a must be non-empty and b one shorter")
        self.Q = np.zeros((k, 1))
        self.small = np.zeros((VN_SMALL_ROWS, k))
        self.w = np.zeros(1)
        vn_work_init(&self.W, 1, k, &self.Q[0, 0], &self.small[0, 0], &self.w[0])
        for t in range(k):
            self.W.a[t] = a[t]
        for t in range(k - 1):
            self.W.b[t] = b[t]
        self.W.k = k
        self.W.nv2 = nv2
        self.W.exhausted = 1


def _tridiagonal_rule(const double[::1] a, const double[::1] b, double nv2, double x):
    """The small problem of a projection, two ways.

    ``log(nv2 * e1' exp(T + x * nv2 * e1 e1') e1)`` for the symmetric
    tridiagonal ``T`` with diagonal ``a`` and off-diagonal ``b`` (length
    ``len(a) - 1``), by the secular equation (what the sweeps use) and by QL
    on ``T + x * nv2 * e1 e1'``.

    Returns
    -------
    secular, ql : float
    """
    cdef _Tridiagonal T = _Tridiagonal(a, b, nv2)
    cdef Py_ssize_t k = a.shape[0]
    cdef double sec = vn_gauss_secular(&T.W, &T.W.cur, k, x, NULL) + log(nv2)
    cdef double ql = vn_gauss(&T.W, k, x, NULL) + log(nv2)
    return sec, ql


def _tridiagonal_slope(const double[::1] a, const double[::1] b, double nv2, double x):
    """``d/dx log(nv2 * e1' exp(T + x * nv2 * e1 e1') e1)`` (the root
    finder's Newton slope), from the secular rule (what the sweeps use) and
    from the QL rule (their fallback); ``T`` as for :func:`_tridiagonal_rule`.

    Returns
    -------
    secular, ql : float
    """
    cdef _Tridiagonal T = _Tridiagonal(a, b, nv2)
    cdef Py_ssize_t k = a.shape[0]
    cdef double sec = 0.0
    vn_eval(&T.W, x, NULL, NULL, &sec)
    vn_gauss(&T.W, k, x, NULL)
    cdef double ql = vn_dlog_rule(T.W.d, T.W.e, T.W.z1, k, nv2)
    return sec, ql


def _project_out(const double[:, ::1] Q, const double[::1] w):
    """One pass of classical Gram-Schmidt, ``c = Q w`` and ``w - Q' c`` (the
    Lanczos reorthogonalisation, ``skb_project_out``).

    Returns
    -------
    w_out, c : ndarray
    """
    cdef Py_ssize_t n = Q.shape[0], r = Q.shape[1]
    if w.shape[0] != r:
        raise ValueError("w must have Q.shape[1] entries")
    out = np.array(w, dtype=np.float64)
    c = np.zeros(max(n, 1))
    cdef double[::1] o = out
    cdef double[::1] cv = c
    if n > 0 and r > 0:
        skb_project_out(&Q[0, 0], n, r, &o[0], &cv[0])
    return out, c[:n]


def _tridiagonal_eig_pair(const double[::1] a, const double[::1] b):
    """Eigenvalues and first eigenvector row of the symmetric tridiagonal
    ``T`` (diagonal ``a``, off-diagonal ``b``, length ``len(a) - 1``) and of
    its leading ``(k - 1) x (k - 1)`` block, from the paired QL of the rule
    and its check (``vn_tridiag_eig2``), unsorted.

    Returns
    -------
    (d_lead, z_lead), (d, z) : ndarrays
    """
    cdef Py_ssize_t k = a.shape[0]
    if k < 2 or b.shape[0] != k - 1:
        raise ValueError("a needs two entries or more and b one fewer")
    da, db = np.array(a[:k - 1]), np.array(a)
    ea, eb = np.zeros(k - 1), np.zeros(k)
    ea[:k - 2] = b[:k - 2]
    eb[:k - 1] = b
    za, zb = np.zeros(k - 1), np.zeros(k)
    cdef double[::1] dav = da, dbv = db, eav = ea, ebv = eb, zav = za, zbv = zb
    if vn_tridiag_eig2(&dav[0], &eav[0], &zav[0], k - 1,
                       &dbv[0], &ebv[0], &zbv[0], k) != 0:
        raise RuntimeError("QL did not converge")
    return (da, za), (db, zb)


def _tridiagonal_eig(const double[::1] a, const double[::1] b, Z=None):
    """The engine's one QL (``_tridiag_ql.h``) on the symmetric tridiagonal
    with diagonal ``a`` and off-diagonal ``b`` (one shorter): its eigenvalues
    (unsorted) and ``Z`` (p x n) times its eigenvector matrix, or, with
    ``Z=None``, the first row of the eigenvector matrix (the p = 1 path of
    the rank-one projections, ``vn_tridiag_eig``).

    Returns
    -------
    d : ndarray of shape (n,)
    rows : ndarray of shape (p, n), or (n,) for ``Z=None``
    """
    cdef Py_ssize_t n = a.shape[0]
    if n < 1 or b.shape[0] != n - 1:
        raise ValueError("a needs an entry or more and b one fewer")
    d = np.array(a, dtype=np.float64)
    e = np.zeros(n)
    e[:n - 1] = b
    cdef double[::1] dv = d, ev = e
    cdef double[:, ::1] zv
    cdef double[::1] z1v
    cdef int ret
    if Z is None:
        z1 = np.zeros(n)
        z1v = z1
        ret = vn_tridiag_eig(&dv[0], &ev[0], &z1v[0], n)
        out = z1
    else:
        out = np.array(Z, dtype=np.float64, order="C", ndmin=2)
        if out.shape[1] != n:
            raise ValueError("Z needs n columns")
        zv = out
        ret = vn_tridiag_eig_rows(&dv[0], &ev[0], n, &zv[0, 0] if out.shape[0] else NULL,
                                  out.shape[0])
    if ret != 0:
        raise RuntimeError("QL did not converge")
    return d, out


def _secular_roots(const double[::1] d, const double[::1] z, double rho,
                   guess=None, bint lapack=False, Py_ssize_t repeat=1):
    """Every root of the secular equation ``1 + rho sum_j z_j^2 / (d_j -
    lam) = 0`` (``d`` strictly ascending, no ``z_j`` zero, ``|z| = 1``,
    ``rho > 0``), by the sweeps' root finder ``vn_secular_root`` (started
    from ``guess[i]`` for root i when ``guess`` is given) or by LAPACK's
    ``dlaed4``; the whole set ``repeat`` times over, for timing.

    Returns
    -------
    lam : ndarray (m,)
    delta : ndarray (m, m)
        ``delta[i, j] = d_j - lam_i``, as each routine returns it (for
        ``dlaed4`` with m <= 2, which returns other quantities there,
        computed from ``lam``).
    """
    cdef Py_ssize_t m = d.shape[0], i, _rep
    if m < 1 or z.shape[0] != m:
        raise ValueError("d and z must be non-empty and of one length")
    if not rho > 0.0:
        raise ValueError("rho must be positive")
    lam = np.empty(m)
    delta = np.empty((m, m))
    g = np.full(m, np.nan) if guess is None else np.array(guess, dtype=np.float64)
    if g.shape != (m,):
        raise ValueError("guess must have one entry per root")
    cdef double[::1] lv = lam, gv = g
    cdef double[:, ::1] dv = delta
    cdef int n = <int> m, ii, info = 0
    cdef double lam_i
    with nogil:
        for _rep in range(repeat):
            for i in range(m):
                if lapack:
                    ii = <int> i + 1
                    dlaed4(&n, &ii, <double*> &d[0], <double*> &z[0], &dv[i, 0], &rho,
                           &lam_i, &info)
                    if info != 0:
                        lam_i = NAN
                elif m == 1:
                    lam_i = d[0] + rho * z[0] * z[0]
                    dv[i, 0] = d[0] - lam_i
                else:
                    lam_i = vn_secular_root(m, i, &d[0], &z[0], rho, gv[i], &dv[i, 0])
                lv[i] = lam_i
    if lapack and m <= 2:
        delta[:] = np.asarray(d)[None, :] - lam[:, None]
    return lam, delta


def swap_pivots(G, Q, R, E, W, pivots, Py_ssize_t p, Py_ssize_t t):
    """Exchange the pivots at positions p and p + 1 (Bach & Jordan, App. A):
    ``move_pivot`` of ``_csi_steps.pyx`` by one position."""
    move_pivot(G, Q, R, E, W, pivots, p + 1, p, t)
