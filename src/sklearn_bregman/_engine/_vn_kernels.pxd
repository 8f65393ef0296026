# Declarations of the von Neumann Lanczos machinery in _vn_kernels.h, shared
# by the von Neumann and DefiniteBoost sweeps (cimport them from here).

cdef extern from "_vn_kernels.h" nogil:
    ctypedef struct vn_eig:
        Py_ssize_t m
        Py_ssize_t size
    ctypedef struct vn_work:
        Py_ssize_t r
        Py_ssize_t kcap
        double* Q
        double* a
        double* b
        double* w
        double* d
        double* e
        double* z1
        Py_ssize_t k
        int exhausted
        double nv2
        long n_evals
        vn_eig cur
    int VN_SMALL_ROWS
    Py_ssize_t vn_kcap(Py_ssize_t r)
    void vn_work_init(vn_work* W, Py_ssize_t r, Py_ssize_t kcap, double* Q,
                      double* small, double* w)
    double vn_gauss(vn_work* W, Py_ssize_t m, double x, double* log_tr)
    double vn_gauss_secular(vn_work* W, vn_eig* E, Py_ssize_t k, double x,
                            double* log_tr)
    double vn_eval(vn_work* W, double x, double* rel_err, double* log_tr,
                   double* dlog_f)
    int vn_tridiag_eig2(double* da, double* ea, double* za, Py_ssize_t na,
                        double* db, double* eb, double* zb, Py_ssize_t nb)
    double vn_secular_root(Py_ssize_t m, Py_ssize_t i, const double* d,
                           const double* z, double rho, double guess,
                           double* delta)
    double vn_dlog_rule(const double* lam, const double* w, const double* ex,
                        Py_ssize_t m, double nv2)
    void vn_start(const double* L, vn_work* W, const double* v)
    double vn_log_f_exact(const double* L, vn_work* W, double x, double* log_tr)
    double vn_solve(const double* L, vn_work* W, double g0, double inv_gamma,
                    double log_xi)
