"""KernelKMeans: what it must find (scikit-learn's checks: tests/test_common.py)."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs, make_circles
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import rbf_kernel

from sklearn_bregman._learners._cluster import KernelKMeans


def test_precomputed_linear_kernel_matches_kmeans():
    X, _ = make_blobs(300, 5, centers=4, cluster_std=1.0, random_state=0)
    km = KMeans(4, n_init=10, random_state=0).fit(X)
    kkm = KernelKMeans(4, kernel="precomputed", n_init=10, random_state=0).fit(X @ X.T)
    assert adjusted_rand_score(km.labels_, kkm.labels_) == 1.0
    assert kkm.inertia_ == pytest.approx(km.inertia_, rel=1e-6)


def test_rbf_kernel_separates_concentric_circles():
    X, y = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    assert adjusted_rand_score(y, KMeans(2, n_init=10, random_state=0).fit_predict(X)) < 0.3
    feat = KernelKMeans(2, kernel="rbf", gamma=5.0, rank=60, random_state=0).fit(X)
    pre = KernelKMeans(2, kernel="precomputed", random_state=0).fit(rbf_kernel(X, gamma=5.0))
    assert adjusted_rand_score(y, feat.labels_) > 0.9
    assert adjusted_rand_score(y, pre.labels_) > 0.9


def test_predict_on_training_points_returns_labels():
    X, _ = make_blobs(200, 3, centers=3, random_state=1)
    K = rbf_kernel(X, gamma=0.1)
    for est, data in [(KernelKMeans(3, kernel="precomputed", random_state=0), K),
                      (KernelKMeans(3, kernel="rbf", gamma=0.1, random_state=0), X)]:
        est.fit(data)
        assert np.array_equal(est.predict(data), est.labels_)


def test_repeatable_under_random_state():
    X, _ = make_blobs(150, 4, centers=3, random_state=2)
    K = X @ X.T
    a = KernelKMeans(3, kernel="precomputed", n_init=3, random_state=5).fit(K)
    b = KernelKMeans(3, kernel="precomputed", n_init=3, random_state=5).fit(K)
    assert np.array_equal(a.labels_, b.labels_) and a.inertia_ == b.inertia_


def test_errors():
    with pytest.raises(ValueError, match="n_clusters=5"):
        KernelKMeans(5).fit(np.random.default_rng(0).standard_normal((4, 2)))
    with pytest.raises(ValueError, match="square"):
        KernelKMeans(2, kernel="precomputed").fit(np.ones((5, 3)))
