# Declarations of the C vector kernels in _dense_kernels.h, shared by the
# compiled sweeps (cimport them from here rather than redeclaring).

cdef extern from "_dense_kernels.h" nogil:
    void skb_difference(const double* G, Py_ssize_t r, Py_ssize_t i,
                        Py_ssize_t j, double* v)
    void skb_prefetch_pair(const double* G, Py_ssize_t r, Py_ssize_t i,
                           Py_ssize_t j)
    double skb_dot(const double* x, const double* y, Py_ssize_t r)
    void skb_matvec(const double* M, Py_ssize_t r, const double* v, double* w)
    void skb_update_matvec(double* M, Py_ssize_t r, double beta,
                           const double* w, const double* v_next,
                           double* w_next)
    void skb_update(double* M, Py_ssize_t r, double beta, const double* w)
    void skb_mirror_upper(double* M, Py_ssize_t r)
    void skb_project_out(const double* Q, Py_ssize_t n, Py_ssize_t r, double* w,
                         double* c)
