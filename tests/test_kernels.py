"""Kernel values: what the estimators do with kernels that are not finite,
and with precomputed matrices that are not kernels.

Kernel values that are not finite (a callable returning NaN, ``coef0=nan``,
a huge degree, ``X * 1e300``) are reported as such, naming the kernel and
what to check, instead of "the initial kernel is zero" or a complaint about
constraints; out of sample no output is silently non-finite (a value that
is mathematically 0, as the adaptive Gaussian far from every training
point, is returned as 0); kernel k-means never reports an infinite inertia;
and a precomputed matrix that is not symmetric is refused by the check every
estimator uses.
"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import pairwise_kernels

from sklearn_bregman import CSIDecomposition, LogDetKernelLearner
from sklearn_bregman._factors._factors import pivoted_cholesky
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
