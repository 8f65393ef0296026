"""Regression tests of issue 12 ("Reliability"), items 1, 6 (kernels) and 7.

- Item 1: CSI with no usable side information (``kappa=1``, ``delta=0``, one
  class, every label unlabeled, a constant y, a single sample, a 1 x 1
  kernel) is plain pivoted incomplete Cholesky, not an ``IndexError``; a huge
  regression y gives the pivots of the rescaled y (CSI does not depend on
  the scale of y), and the default ``CSIDecomposition()`` fits one sample.
- Item 6, kernels: kernel values that are not finite (a callable returning
  NaN, ``coef0=nan``, a huge degree, ``X * 1e300``) are reported as such, with
  the kernel and what to check, instead of "the initial kernel is zero" or a
  complaint about constraints; out of sample, no output is silently
  non-finite (a value that is mathematically 0, as the adaptive Gaussian far
  from every training point, is returned as 0); kernel k-means never reports
  an infinite inertia.
- Item 7: ``KernelKMeans(kernel='precomputed')`` rejects a non-symmetric
  matrix with the check the other estimators use.

In the snippets of the issue ``X, y = make_blobs(30, 4, centers=3,
random_state=0)``.
"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.estimator_checks import check_fit2d_1sample

from sklearn_bregman import CSIDecomposition, LogDetKernelLearner
from sklearn_bregman._cluster import KernelKMeans
from sklearn_bregman._factors import LowRankFactor, pivoted_cholesky
from sklearn_bregman._sklr import SKLRClusterer

X, y = make_blobs(30, 4, centers=3, random_state=0)
K_RBF = pairwise_kernels(X, metric="rbf", gamma=0.25)  # gamma=None: 1 / n_features


def plain_cholesky(K, rank):
    """Pivots and factor of pivoted incomplete Cholesky on the whole kernel."""
    G, piv, _, _ = pivoted_cholesky(lambda p: K[:, p], np.diag(K).copy(), rank, 0.0)
    return G, piv


# ---------------------------------------------------------------------------
# Item 1: CSI without usable side information is plain incomplete Cholesky
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("params, target", [
    ({"kappa": 1.0}, y),                      # no weight on predicting y
    ({"delta": 0}, y),                        # no look-ahead: the lower bound of §2.2
    ({}, np.zeros(30, dtype=int)),            # a single class: nothing to predict
    ({}, -np.ones(30, dtype=int)),            # every label "unlabeled" (one class)
    ({}, np.full(30, 3.5)),                   # a constant response
])
def test_csi_without_side_information_is_plain_cholesky(params, target):
    csi = CSIDecomposition(rank=12, tol=0.0, **params).fit(X, target)
    G_ref, piv_ref = plain_cholesky(K_RBF, 12)
    assert list(csi.pivots_) == list(piv_ref)
    np.testing.assert_allclose(csi.embedding_, G_ref, atol=1e-12)
    # Proposition 1: G G' equals K on the pivot columns
    G = csi.embedding_
    np.testing.assert_allclose(G @ G[csi.pivots_].T, K_RBF[:, csi.pivots_], atol=1e-10)
    # the reported prediction errors are those of the (centred) targets
    Y = np.eye(3)[y] if target is y else np.zeros((30, 1))
    Yc = Y - Y.mean(0)
    for k in (0, 5, 12):
        Qk = csi.Q_[:, :k]
        err = ((Yc - Qk @ (Qk.T @ Yc)) ** 2).sum()
        assert csi.prediction_error_[k] == pytest.approx(err, rel=1e-9, abs=1e-10)


def test_csi_one_sample_and_one_by_one_kernel():
    """One sample (scikit-learn's check_fit2d_1sample for the defaults) and a
    1 x 1 precomputed kernel: the factor is sqrt(k(x, x))."""
    check_fit2d_1sample("CSIDecomposition", CSIDecomposition())
    csi = CSIDecomposition().fit(X[:1], [0])
    np.testing.assert_allclose(csi.embedding_, [[1.0]])  # rbf: k(x, x) = 1
    pre = CSIDecomposition(kernel="precomputed").fit([[4.0]], [1])
    np.testing.assert_allclose(pre.embedding_, [[2.0]])
    assert list(pre.pivots_) == [0]
    np.testing.assert_allclose(pre.transform([[6.0]]), [[3.0]])


def test_csi_does_not_depend_on_the_scale_of_a_regression_y():
    """CSI's cost is normalised by tr(Y'Y): a huge y gives the pivots of the
    rescaled y; one whose squared norm overflows is a clear error."""
    response = X[:, 0] ** 2 + X[:, 1]
    ref = CSIDecomposition(rank=10, random_state=0).fit(X, response)
    big = CSIDecomposition(rank=10, random_state=0).fit(X, response * 1e150)
    assert list(big.pivots_) == list(ref.pivots_)
    np.testing.assert_allclose(big.embedding_, ref.embedding_, atol=1e-12)
    np.testing.assert_allclose(big.prediction_error_, ref.prediction_error_ * 1e300,
                               rtol=1e-9)
    with pytest.raises(ValueError, match=r"y is too large.*rescale y"):
        CSIDecomposition(rank=10).fit(X, response * 1e300)


def test_csi_start_of_a_learner_with_one_class():
    """LogDetKernelLearner(low_rank='csi') with a single class: the initial
    factor is plain pivoted incomplete Cholesky; pairs from such labels are
    a clear error, explicit constraints are learned from."""
    one = np.zeros(30, dtype=int)
    f = LowRankFactor("rbf", 10, 1e-6, {"gamma": None, "degree": 3, "coef0": 1},
                      method="csi")
    G_ref, piv_ref = plain_cholesky(K_RBF, 10)
    np.testing.assert_allclose(f.fit(X, one), G_ref, atol=1e-12)
    assert list(f.pivots_) == list(piv_ref)
    with pytest.raises(ValueError, match=r"one class"):
        LogDetKernelLearner(kernel="rbf", low_rank="csi", rank=10).fit(X, one)
    pairs = [[0, 1, 1], [0, 12, -1], [3, 4, 1]]
    learner = LogDetKernelLearner(kernel="rbf", low_rank="csi", rank=10,
                                  random_state=0).fit(X, one, constraints=pairs)
    assert list(learner.pivots_) == list(piv_ref)
    np.testing.assert_allclose(learner.factor_.transform(X), G_ref, atol=1e-10)


# ---------------------------------------------------------------------------
# Item 6: kernel values that are not finite
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
# Item 7: one check of a precomputed kernel matrix
# ---------------------------------------------------------------------------

def test_kernel_kmeans_rejects_a_non_symmetric_kernel():
    K = K_RBF.copy()
    K[0, 1] += 0.5
    with pytest.raises(ValueError, match=r"kernel='precomputed'.*symmetric"):
        KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    with pytest.raises(ValueError, match=r"kernel='precomputed'.*square"):
        KernelKMeans(3, kernel="precomputed", random_state=0).fit(K[:, :20])
