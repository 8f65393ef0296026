"""Kernel values: what the estimators do with kernels that are not finite,
and with precomputed matrices that are not kernels.

Kernel values that are not finite (a callable returning NaN, ``coef0=nan``,
a huge degree, ``X * 1e300``) are reported as such, naming the kernel and
what to check, instead of "the initial kernel is zero" or a complaint about
constraints; out of sample no output is silently non-finite (a value that
is mathematically 0, as the adaptive Gaussian far from every training
point, is returned as 0); kernel k-means never reports an infinite inertia;
a precomputed matrix that is not symmetric is refused by the check every
estimator uses; and the distance-based kernels ('rbf', 'adaptive_rbf') are
exact to rounding at every scale (a point against itself is 1, not the
rounding error of |x|^2 + |x|^2 - 2 x.x), so that what fit factored and
what transform maps agree.
"""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import pairwise_kernels

from sklearn_bregman import CSIDecomposition, LogDetKernelLearner
from sklearn_bregman._factors._factors import pivoted_cholesky
from sklearn_bregman._factors._kernels import (
    AdaptiveGaussian,
    kernel_columns,
    kernel_source,
)
from sklearn_bregman._learners._cluster import KernelKMeans
from sklearn_bregman._learners._sklr import SKLRClusterer

X, y = make_blobs(30, 4, centers=3, random_state=0)
K_RBF = pairwise_kernels(X, metric="rbf", gamma=0.25)  # gamma=None: 1 / n_features


def plain_cholesky(K, rank):
    """Pivots and factor of pivoted incomplete Cholesky on the whole kernel."""
    G, piv, _, _ = pivoted_cholesky(lambda p: K[:, p], np.diag(K).copy(), rank, 0.0)
    return G, piv


# ---------------------------------------------------------------------------
# Kernel values that are not finite
# ---------------------------------------------------------------------------

def nan_kernel(a, b):
    return np.nan


NON_FINITE = [
    (dict(kernel=nan_kernel), X, r"kernel=nan_kernel"),
    (dict(kernel="poly", coef0=np.nan), X, r"kernel='poly'.*coef0=nan"),
    (dict(kernel="poly", degree=1e6), X, r"kernel='poly'.*degree=1000000"),
    (dict(kernel="rbf"), X * 1e300, r"kernel='rbf'.*scale of X"),
    (dict(kernel="linear"), X * 1e300, r"kernel='linear'.*scale of X"),
]


@pytest.mark.parametrize("make", [
    lambda kw: LogDetKernelLearner(random_state=0, **kw),
    lambda kw: CSIDecomposition(**kw),
    lambda kw: KernelKMeans(3, random_state=0, **kw),
    lambda kw: SKLRClusterer(3, random_state=0, **kw),
], ids=["LogDet", "CSI", "KernelKMeans", "SKLR"])
@pytest.mark.parametrize("kwargs, data, names", NON_FINITE,
                         ids=["callable-nan", "coef0-nan", "huge-degree", "rbf-1e300",
                              "linear-1e300"])
def test_non_finite_kernel_values_are_reported(make, kwargs, data, names):
    with pytest.raises(ValueError, match=r"kernel values are not finite") as err:
        make(kwargs).fit(data, y)
    assert err.match(names)


def test_adaptive_gaussian_far_from_the_training_points_is_zero():
    """The adaptive Gaussian of a point astronomically far from every training
    point is exp(-inf) = 0, whatever float64 makes of its bandwidth: the
    out-of-sample coordinates are 0, not NaN."""
    model = SKLRClusterer(3, random_state=0).fit(X, y)
    far = model.transform(X * 1e200)
    np.testing.assert_array_equal(far, np.zeros_like(far))
    np.testing.assert_allclose(model.transform(X), model.embedding_, atol=1e-8)


@pytest.mark.parametrize("make", [
    lambda: LogDetKernelLearner(kernel="poly", random_state=0),
    lambda: CSIDecomposition(kernel="poly"),
    lambda: SKLRClusterer(3, kernel="poly", slack=1.0, random_state=0),
], ids=["LogDet", "CSI", "SKLR"])
def test_out_of_sample_kernel_values_that_overflow_are_an_error(make):
    """A polynomial kernel of points at 1e200 is infinite: no NaN rows."""
    model = make().fit(X, y)
    with pytest.raises(ValueError, match=r"kernel values are not finite.*kernel='poly'"):
        model.transform(X * 1e200)


# (scikit-learn's own finiteness check of a kernel matrix near the float64
# limit warns while it sums it)
@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
def test_kernel_kmeans_never_reports_an_infinite_inertia():
    """Linear kernel of X * 1e300: the kernel values themselves overflow.  A
    precomputed kernel is clustered at any finite scale (kernel k-means is
    homogeneous in K), and an inertia that overflows is an error."""
    with pytest.raises(ValueError, match=r"kernel values are not finite.*kernel='linear'"):
        KernelKMeans(3, random_state=0).fit(X * 1e300)
    K = X @ X.T
    ref = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    big = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K * 1e300)
    np.testing.assert_array_equal(big.labels_, ref.labels_)
    assert big.inertia_ == pytest.approx(ref.inertia_ * 1e300, rel=1e-12)
    np.testing.assert_array_equal(big.predict(K[:7] * 1e300), ref.predict(K[:7]))
    Z = np.random.default_rng(0).standard_normal((200, 4))  # inertia >> max |K|
    K = Z @ Z.T
    with pytest.raises(ValueError, match=r"inertia.*not finite.*kernel matrix"):
        KernelKMeans(3, kernel="precomputed", random_state=0).fit(K * (1e308 / K.max()))



# ---------------------------------------------------------------------------
# One check of a precomputed kernel matrix
# ---------------------------------------------------------------------------

def test_kernel_kmeans_rejects_a_non_symmetric_kernel():
    K = K_RBF.copy()
    K[0, 1] += 0.5
    with pytest.raises(ValueError, match=r"kernel='precomputed'.*symmetric"):
        KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    with pytest.raises(ValueError, match=r"kernel='precomputed'.*square"):
        KernelKMeans(3, kernel="precomputed", random_state=0).fit(K[:, :20])


# ---------------------------------------------------------------------------
# Distance-based kernels at every scale
# ---------------------------------------------------------------------------

def exact_rbf(A, B, gamma):
    """exp(-gamma |a - b|^2) by the direct difference (no cancellation)."""
    A = A.toarray() if sp.issparse(A) else A
    B = B.toarray() if sp.issparse(B) else B
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


LARGE_SCALES = [1e8, 1e10, 1e20, 1e100]


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("scale", LARGE_SCALES)
def test_rbf_pivot_columns_are_one_at_their_pivot(scale, fmt):
    """K(x_p, x_p) = 1 exactly, as kernel_diagonal says, in the pivot columns
    a factor is built from (one column at a time, and in blocks): the
    expansion |x|^2 + |x|^2 - 2 x.x left eps |x|^2 ~ 1e4 at scale 1e10, so the
    column read exp(-1e4 / 4) = 0.  Every entry matches the direct
    difference."""
    A = X * scale if fmt == "dense" else sp.csr_matrix(X * scale)
    params = {"gamma": None, "degree": 3, "coef0": 1}
    column, diag = kernel_source(A, "rbf", params)
    np.testing.assert_array_equal(diag, 1.0)
    S = np.arange(0, X.shape[0], 3)
    cols = np.column_stack([column(p) for p in S])
    block = kernel_columns(A, A[S], "rbf", params)
    for K in (cols, block):
        np.testing.assert_array_equal(K[S, np.arange(S.size)], 1.0)
        np.testing.assert_allclose(K, exact_rbf(A, A[S], 1 / X.shape[1]),
                                   rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(np.diag(kernel_columns(A[S], A[S], "rbf", params)), 1.0)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_rbf_of_near_duplicates_far_from_the_origin(fmt):
    """Points at an offset of 1e6 with unit spread and gamma = 1: the
    expansion's rounding error, eps |x|^2 ~ 1e-4, is no longer below the
    distances themselves; the kernel must still be exact to rounding (and so
    the same as the data moved to the origin, an oracle by translation
    invariance).  float32 points too (scikit-learn's float64 chunks)."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((40, 3))
    Z[7] = Z[3] + 1e-9  # near-duplicates
    A = Z + 1e6
    ref = pairwise_kernels(Z, metric="rbf", gamma=1.0)
    S = [3, 7, 10, 39]
    B = A if fmt == "dense" else sp.csr_matrix(A)
    params = {"gamma": 1.0}
    column, _ = kernel_source(B, "rbf", params)
    exact = exact_rbf(A, A[S], 1.0)
    for K in (np.column_stack([column(p) for p in S]), kernel_columns(B, B[S], "rbf", params)):
        np.testing.assert_allclose(K, exact, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(K, ref[:, S], rtol=1e-9, atol=1e-9)
    A32 = (Z.astype(np.float32) + np.float32(1e4))
    K32 = kernel_columns(A32, A32[S], "rbf", params)
    np.testing.assert_array_equal(K32[S, np.arange(len(S))], 1.0)
    np.testing.assert_allclose(K32, exact_rbf(A32.astype(np.float64), A32[S].astype(np.float64),
                                              1.0), rtol=1e-6, atol=1e-6)


def test_adaptive_gaussian_of_near_duplicates_far_from_the_origin():
    """The adaptive Gaussian takes the same distances: k(x, x) = 1 and the
    values of a translated copy of the data are those of the data."""
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((40, 3))
    A = Z + 1e6
    ref = AdaptiveGaussian(5).fit(Z)
    k0 = AdaptiveGaussian(5).fit(A)
    K = k0(A, A, k0.sigma_, k0.sigma_)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_allclose(K, ref(Z, Z, ref.sigma_, ref.sigma_), rtol=1e-8, atol=1e-8)


def _fit_rbf(make, A):
    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no "identical points" warning
        return est.fit(A, y) if not isinstance(est, KernelKMeans) else est.fit(A)


@pytest.mark.parametrize("fmt", ["dense", "csr", "float32"])
@pytest.mark.parametrize("scale", LARGE_SCALES)
def test_rbf_at_large_scales_maps_the_training_points_as_fit(scale, fmt):
    """kernel='rbf' on points at 1e8 .. 1e100 (gamma=None; every pair is far
    apart: the kernel is the identity): the factor of the training points is
    the kernel (G0 G0' = I with a rank of n), transform / predict of the
    training points give what fit gave (no SciPy LinAlgError from a singular
    pivot block), no pair of distinct points is called identical, and sparse
    and float32 points give the dense result."""
    if fmt == "float32" and scale > 1e30:
        pytest.skip("beyond float32")
    A = (X.astype(np.float32) * np.float32(scale) if fmt == "float32"
         else X * scale if fmt == "dense" else sp.csr_matrix(X * scale))
    n = X.shape[0]
    ld = _fit_rbf(lambda: LogDetKernelLearner(kernel="rbf", rank=n, random_state=0), A)
    G0 = ld.factor_.transform(A)
    np.testing.assert_allclose(G0 @ G0.T, np.eye(n), atol=1e-12)
    Z = ld.transform(A).astype(np.float64)
    tol = 1e-6 if fmt == "float32" else 1e-10  # (transform keeps float32)
    np.testing.assert_allclose(Z @ Z.T, ld.embedding_ @ ld.embedding_.T, rtol=tol, atol=tol)
    km = _fit_rbf(lambda: KernelKMeans(3, kernel="rbf", random_state=0), A)
    np.testing.assert_array_equal(km.predict(A), km.labels_)
    dense = _fit_rbf(lambda: LogDetKernelLearner(kernel="rbf", rank=n, random_state=0), X * scale)
    np.testing.assert_array_equal(ld.pivots_, dense.pivots_)
    np.testing.assert_allclose(Z @ Z.T, dense.embedding_ @ dense.embedding_.T, atol=tol)


def test_a_singular_pivot_block_is_the_packages_error():
    """Should a factor's pivot block L = G0[pivots] be singular all the same,
    transform says so naming the kernel and the scale (not SciPy's
    LinAlgError), and leaves the estimator as it was."""
    ld = LogDetKernelLearner(kernel="rbf", rank=10, random_state=0).fit(X, y)
    ld.factor_._map.L[4, 4] = 0.0  # as a pivot column that disagreed with the diagonal
    before = pickle.dumps(ld)
    with pytest.raises(ValueError, match=r"pivot block.*singular.*kernel='rbf' \(gamma=None\)"
                                         r".*scale of X \(largest \|X\| = "):
        ld.transform(X)
    assert pickle.dumps(ld) == before
