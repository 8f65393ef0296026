"""Randomly pivoted Cholesky (blocked, accelerated by rejection sampling) as an
initial factor: ``randomly_pivoted_cholesky`` and ``low_rank='rpcholesky'``."""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels

from sklearn_bregman import DefiniteBoost, LogDetKernelLearner, VonNeumannKernelLearner
from sklearn_bregman._factors._factors import LowRankFactor, randomly_pivoted_cholesky

PARAMS = {"gamma": 0.5, "degree": 2, "coef0": 1.0}


def data(n=120, d=4, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


def clustered(n=600, seed=0):
    """Unbalanced Gaussian clusters, standardised: the test bed of the quality test."""
    X, _ = make_blobs(n_samples=[300, 150, 80, 40, 20, 10], n_features=5, cluster_std=1.0,
                      center_box=(-8, 8), random_state=seed)
    return (X - X.mean(0)) / X.std(0)


def rp(kernel, rank, tol=0.0, seed=0, params=PARAMS):
    return LowRankFactor(kernel, rank, tol, params, method="rpcholesky", random_state=seed)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly"])
def test_factor_against_the_dense_kernel(kernel):
    X = data()
    K = pairwise_kernels(X, metric=kernel, filter_params=True, **PARAMS)
    f = rp(kernel, 30)
    G = f.fit(X)
    piv = f.pivots_
    # (the degree-2 polynomial kernel on 4 features has rank 15: it stops there)
    r = 15 if kernel == "poly" else 30
    assert G.shape == (120, r) and np.unique(piv).size == r
    # the residual trace of every step is tr(K - G_k G_k') computed densely
    trK = np.trace(K)
    dense = [trK - (G[:, :k] ** 2).sum() for k in range(r + 1)]
    assert np.allclose(f.residual_trace_, dense, rtol=1e-10, atol=1e-10 * trK)
    assert f.residual_trace_[-1] == pytest.approx(np.trace(K - G @ G.T), rel=1e-10)
    # the residual K - G G' is PSD: non-negative diagonal, no negative eigenvalue
    E = K - G @ G.T
    assert np.diag(E).min() >= -1e-12
    assert np.linalg.eigvalsh(E).min() > -1e-10
    # a Nystrom factor on its pivots: exact on the pivot columns, G[piv] triangular
    assert np.abs(G @ G[piv].T - K[:, piv]).max() < 1e-10
    assert np.all(np.triu(G[piv], 1) == 0)


def test_full_rank_reproduces_the_kernel():
    X = data(60)
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    G = rp("rbf", 60).fit(X)
    assert np.abs(G @ G.T - K).max() < 1e-8


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly", "precomputed", "adaptive_rbf"])
def test_out_of_sample_map_reproduces_the_training_factor(kernel):
    X = data(80)
    params = {"n_neighbors": 7} if kernel == "adaptive_rbf" else PARAMS
    if kernel == "precomputed":
        X = pairwise_kernels(X, metric="rbf", gamma=0.5)
    f = rp(kernel, 25, params=params)
    G = f.fit(X)
    assert G.shape[1] == (15 if kernel == "poly" else 25)  # poly: its rank
    assert np.abs(f.transform(X) - G).max() < 1e-8
    # and on new points: the Nystrom map of the pivots, k(x, X_piv) L^-T
    if kernel in ("rbf", "poly"):
        Xn = data(10, seed=1)
        Kn = pairwise_kernels(Xn, X[f.pivots_], metric=kernel, filter_params=True, **params)
        assert np.allclose(f.transform(Xn) @ G[f.pivots_].T, Kn, atol=1e-10)


def test_repeatable_under_random_state_and_random_otherwise():
    X = data()
    G0, G1 = rp("rbf", 20, seed=3).fit(X), rp("rbf", 20, seed=3).fit(X)
    assert np.array_equal(G0, G1)
    a, b = rp("rbf", 20, seed=3), rp("rbf", 20, seed=4)
    a.fit(X)
    b.fit(X)
    assert not np.array_equal(a.pivots_, b.pivots_)
    # a RandomState instance is drawn from, as scikit-learn does
    rs = np.random.RandomState(0)
    c, e = rp("rbf", 20, seed=rs), rp("rbf", 20, seed=rs)
    c.fit(X)
    e.fit(X)
    assert not np.array_equal(c.pivots_, e.pivots_)


def test_factor_tol_stops_at_the_first_column_below_it():
    X = data(200)
    f = rp("rbf", 200, tol=1e-2)
    G = f.fit(X)
    res = f.residual_trace_
    assert G.shape[1] < 200 and res.shape == (G.shape[1] + 1,)
    assert res[-1] <= 1e-2 * res[0] < res[-2]


def test_numerically_low_rank_kernel_stops_at_its_rank():
    # a rank-3 PSD matrix with duplicated points: no dependent pivot is taken
    rng = np.random.default_rng(0)
    B = rng.standard_normal((20, 3))
    B = np.vstack([B, B[:10]])
    K = B @ B.T
    for seed in range(5):
        f = rp("precomputed", 30, seed=seed)
        G = f.fit(K)
        assert G.shape[1] == 3 and np.isfinite(G).all()
        assert np.abs(G @ G.T - K).max() < 1e-8 * np.abs(K).max()


def test_block_size_does_not_change_the_factors_quality_or_validity():
    X = data()
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    column = lambda S: K[:, S]  # noqa: E731
    sub = lambda S: K[np.ix_(S, S)]  # noqa: E731
    for b in (1, 7, 500):
        G, piv, res = randomly_pivoted_cholesky(column, sub, np.diag(K).copy(), 25, 0.0,
                                                block_size=b, random_state=0)
        assert G.shape == (120, 25) and np.unique(piv).size == 25
        assert res[-1] == pytest.approx(np.trace(K - G @ G.T), rel=1e-10)
        assert np.all(np.triu(G[piv], 1) == 0)
    with pytest.raises(ValueError, match="block_size"):
        randomly_pivoted_cholesky(column, sub, np.diag(K).copy(), 5, 0.0, block_size=0)


def test_one_kernel_call_per_round_and_about_r_plus_one_n_entries():
    X = data(500)
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    calls = {"columns": 0, "entries": 0}

    def column(S):
        calls["columns"] += 1
        calls["entries"] += K.shape[0] * len(S)
        return K[:, S]

    def sub(S):
        calls["entries"] += len(S) ** 2
        return K[np.ix_(S, S)]

    G, _, _ = randomly_pivoted_cholesky(column, sub, np.diag(K).copy(), 50, 0.0,
                                        random_state=0)
    assert G.shape[1] == 50
    assert calls["columns"] <= 50 // 5  # blocks of columns, not one call per column
    # n for the diagonal + n per pivot + b^2 per round (b = 50 here)
    assert calls["entries"] + 500 <= 51 * 500 + calls["columns"] * 50 ** 2


def test_trace_error_against_greedy_and_the_papers_bound():
    # Chen et al. 2024, Theorem 5.1: E tr(K - K_hat) <= (1 + eps) tr(K - [[K]]_k)
    # once r >= k / eps + k log(1 / (eps eta)), eta = tr(K - [[K]]_k) / tr(K).
    # With eps = 1: twice the best rank-k error, at the largest such k.
    X = clustered()
    gamma = 1.0 / X.shape[1]
    K = pairwise_kernels(X, metric="rbf", gamma=gamma)
    lam = np.linalg.eigvalsh(K)[::-1]
    tail = np.concatenate([np.cumsum(lam[::-1])[::-1], [0.0]])  # tail[k] = sum_{i>=k} lam_i
    r = 40
    ks = [k for k in range(1, r) if k + k * np.log(np.trace(K) / tail[k]) <= r]
    k = max(ks)
    params = {"gamma": gamma}
    greedy = LowRankFactor("rbf", r, 0.0, params)
    greedy.fit(X)
    errors = []
    for seed in range(20):
        f = LowRankFactor("rbf", r, 0.0, params, method="rpcholesky", random_state=seed)
        f.fit(X)
        errors.append(f.residual_trace_[-1])
    mean = np.mean(errors)
    # the bound on the expectation, with 10% for the mean of 20 runs
    assert mean <= 1.1 * 2 * tail[k]
    # and within twice the greedy factor's error on this clustered set
    assert mean <= 2 * greedy.residual_trace_[-1]
    assert max(errors) <= 3 * greedy.residual_trace_[-1]


def test_no_n_by_n_array_is_allocated():
    n, r = 20_000, 50
    X = data(n, 5)
    f = rp("rbf", r, params={"gamma": 0.2})
    tracemalloc.start()
    try:
        G = f.fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert G.shape == (n, r)
    # n x n doubles would be 3.2 GB; the factor itself is 8 MB
    assert peak < 0.02 * n * n * 8
    assert peak < 10 * n * r * 8


def test_linear_kernel_keeps_the_linear_factor():
    X = data(50)
    a = LowRankFactor("linear", None, 0.0, {}).fit(X)
    b = LowRankFactor("linear", None, 0.0, {}, method="rpcholesky", random_state=0).fit(X)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("Learner", [LogDetKernelLearner, VonNeumannKernelLearner,
                                     DefiniteBoost])
def test_learners_run_on_the_rpcholesky_factor(Learner):
    X, y = make_blobs(120, n_features=4, centers=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = Learner(kernel="rbf", gamma=0.2, rank=15, low_rank="rpcholesky",
                    random_state=0).fit(X, y)
        b = Learner(kernel="rbf", gamma=0.2, rank=15, low_rank="rpcholesky",
                    random_state=0).fit(X, y)
        c = Learner(kernel="rbf", gamma=0.2, rank=15, low_rank="rpcholesky",
                    random_state=1).fit(X, y)
    assert a.rank_ == 15 and a.pivots_.shape == (15,)
    assert np.array_equal(a.pivots_, b.pivots_)
    assert not np.array_equal(a.pivots_, c.pivots_)
    assert np.allclose(a.transform(X), b.transform(X))
    assert np.isfinite(a.transform(X)).all()


def test_unknown_low_rank_is_rejected():
    X, y = make_blobs(30, n_features=3, centers=2, random_state=0)
    with pytest.raises(ValueError, match="low_rank"):
        LogDetKernelLearner(kernel="rbf", low_rank="rp").fit(X, y)


def test_pivots_follow_the_distribution_of_pivot_at_a_time_rpcholesky():
    # Rejection sampling makes a block's pivots exact RPCholesky samples
    # (Epperly, Tropp & Webber 2024): P({i, j}) = P(i) P(j | i) + P(j) P(i | j),
    # P(i) = K_ii / tr K, P(j | i) = the residual diagonal after i, normalised.
    # Points 0 and 1 nearly coincide: after one of them the other has almost no
    # residual, so {0, 1} is (almost) never chosen -- drawing a block i.i.d.
    # from the diagonal without the rejection would pick it 1/8 of the time.
    X = np.array([[0.0, 0.0], [0.05, 0.0], [3.0, 0.0], [0.0, 3.0]])
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    n = K.shape[0]
    exact = {}
    for i in range(n):
        res = np.diag(K) - K[:, i] ** 2 / K[i, i]
        for j in range(n):
            if j != i:
                key = frozenset((i, j))
                exact[key] = exact.get(key, 0.0) + K[i, i] / np.trace(K) * res[j] / res.sum()
    column = lambda S: K[:, S].copy()  # noqa: E731
    sub = lambda S: K[np.ix_(S, S)]  # noqa: E731
    runs = 4000
    counts = dict.fromkeys(exact, 0)
    rng = np.random.RandomState(0)
    for _ in range(runs):
        _, piv, _ = randomly_pivoted_cholesky(column, sub, np.diag(K).copy(), 2, 0.0,
                                              block_size=4, random_state=rng)
        counts[frozenset(piv.tolist())] += 1
    for key, p in exact.items():
        # within 4 binomial standard deviations (and 0.005 for the tiny ones)
        assert abs(counts[key] / runs - p) <= 4 * np.sqrt(p * (1 - p) / runs) + 0.005, key
    assert exact[frozenset((0, 1))] < 0.01


def test_cached_factor_is_keyed_on_random_state(tmp_path):
    # with memory=..., the rpcholesky factor is cached per random_state: the
    # same seed reuses it, another seed draws other pivots
    X, y = make_blobs(120, n_features=4, centers=3, random_state=0)
    kw = dict(kernel="rbf", gamma=0.2, rank=15, low_rank="rpcholesky", memory=str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LogDetKernelLearner(random_state=0, **kw).fit(X, y)
        b = LogDetKernelLearner(random_state=0, slack=10.0, **kw).fit(X, y)
        c = LogDetKernelLearner(random_state=1, **kw).fit(X, y)
    assert np.array_equal(a.pivots_, b.pivots_)
    assert not np.array_equal(a.pivots_, c.pivots_)
