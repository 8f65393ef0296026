# Declarations of the rank-two kernels in _rank2_kernels.h (SKLR projections).

cdef extern from "_rank2_kernels.h" nogil:
    void r2_update_matvec2(double* M, Py_ssize_t r, const double* z1,
                           const double* z2, const double* p1, const double* p2,
                           const double* u, const double* w, double* mu,
                           double* mw)
    void r2_update(double* M, Py_ssize_t r, const double* z1, const double* z2,
                   const double* p1, const double* p2)
    double r2_trace_after(double s, double q, double d)
    double r2_step(double s, double q, double nu, double lam, int ineq,
                   int correction)
    void r2_woodbury(double g2, double A11, double A12, double A22, double s,
                     double q, double d, double* S11, double* S12, double* S22)
