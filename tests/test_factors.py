"""Initial low-rank factors: pivoted incomplete Cholesky and the linear factor."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

import sklearn_bregman._factors._kernels as kernels
from sklearn_bregman._factors._factors import LowRankFactor
from sklearn_bregman._factors._kernels import kernel_diagonal

PARAMS = {"gamma": 0.5, "degree": 2, "coef0": 1.0}


def data(n=60, d=4, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


@pytest.mark.parametrize("kernel", ["rbf", "poly", "laplacian", "sigmoid", "cosine", "linear"])
def test_kernel_diagonal_matches_pairwise_kernels(kernel):
    X = data()
    K = pairwise_kernels(X, metric=kernel, filter_params=True, **PARAMS)
    assert np.allclose(kernel_diagonal(X, kernel, PARAMS), np.diag(K))


def test_full_rank_icd_reproduces_the_kernel_and_its_pivot_columns():
    X = data(40)
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    f = LowRankFactor("rbf", 40, 0.0, PARAMS)
    G = f.fit(X)
    piv = f.pivots_
    # exact on the pivot columns (Bach & Jordan, Proposition 1)
    assert np.allclose(G @ G[piv].T, K[:, piv], atol=1e-10)
    # G[pivots] is lower triangular
    assert np.all(np.triu(G[piv], 1) == 0)
    # the residual trace is tr(K) - |G|_F^2 at the end
    assert f.residual_trace_[-1] == pytest.approx(np.trace(K) - (G**2).sum(), abs=1e-8)
    assert np.abs(G @ G.T - K).max() < 1e-6
    # K - G G' is PSD at every rank
    for r in [3, 10, 20]:
        Gr = LowRankFactor("rbf", r, 0.0, PARAMS).fit(X)
        assert np.linalg.eigvalsh(K - Gr @ Gr.T).min() > -1e-10


def test_pivots_follow_the_largest_residual_diagonal():
    X = data(30)
    K = pairwise_kernels(X, metric="poly", **PARAMS)
    f = LowRankFactor("poly", 8, 0.0, PARAMS)
    G = f.fit(X)
    d = np.diag(K).copy()
    for k, p in enumerate(f.pivots_):
        assert p == np.argmax(d)
        d = np.diag(K) - (G[:, :k + 1] ** 2).sum(1)
        d[f.pivots_[:k + 1]] = 0


def test_out_of_sample_map_reproduces_the_training_factor():
    X = data(50)
    for kernel in ["rbf", "laplacian", "poly"]:
        f = LowRankFactor(kernel, 20, 0.0, PARAMS)
        G = f.fit(X)
        assert np.abs(f.transform(X) - G).max() < 1e-8


def test_precomputed_factor_and_input_left_untouched():
    X = data(30)
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    K_copy = K.copy()
    f = LowRankFactor("precomputed", 30, 0.0, {})
    G = f.fit(K)
    assert np.array_equal(K, K_copy)
    assert np.abs(G @ G.T - K).max() < 1e-6
    assert np.abs(f.transform(K) - G).max() < 1e-8


def test_factor_tol_stops_early_and_numerical_rank_is_respected():
    X = data(80)
    f = LowRankFactor("rbf", 80, 1e-2, PARAMS)
    G = f.fit(X)
    assert G.shape[1] < 80
    assert f.residual_trace_[-1] <= 1e-2 * f.residual_trace_[0]
    # a rank-3 linear kernel handed in as a precomputed matrix: 3 columns
    Z = data(40, 3)
    K = Z @ Z.T
    assert LowRankFactor("precomputed", 40, 0.0, {}).fit(K).shape[1] == 3


def test_nonlinear_factor_uses_kernel_columns_only(monkeypatch):
    shapes = []
    original = kernels.kernel_columns

    def spy(X, Y, kernel, params):
        shapes.append((X.shape[0], Y.shape[0]))
        return original(X, Y, kernel, params)

    monkeypatch.setattr(kernels, "kernel_columns", spy)
    X = data(200)
    f = LowRankFactor("rbf", 10, 0.0, PARAMS)
    f.fit(X)
    f.transform(X[:7])
    assert shapes and all(min(s) <= 10 for s in shapes)


def test_linear_factor():
    X = data(30, 5)
    f = LowRankFactor("linear", None, 0.0, {})
    assert f.fit(X) is not None and np.array_equal(f.transform(X), X)
    f = LowRankFactor("linear", 2, 0.0, {})
    G = f.fit(X)
    assert G.shape == (30, 2) and np.allclose(f.transform(X), G)
    # more features than samples: the thin factor keeps every distance
    W = data(6, 20)
    f = LowRankFactor("linear", None, 0.0, {})
    G = f.fit(W)
    assert G.shape == (6, 6)
    assert np.allclose(G @ G.T, W @ W.T)


@pytest.mark.parametrize("kernel, rank", [("linear", 6), ("rbf", 31)])
def test_rank_larger_than_the_data_allows(kernel, rank):
    with pytest.raises(ValueError, match=f"rank={rank} is larger than the data allows"):
        LowRankFactor(kernel, rank, 0.0, PARAMS).fit(data(30, 5))


def test_precomputed_must_be_square_and_symmetric():
    with pytest.raises(ValueError, match="square"):
        LowRankFactor("precomputed", None, 0.0, {}).fit(data(10, 3))
    with pytest.raises(ValueError, match="symmetric"):
        LowRankFactor("precomputed", None, 0.0, {}).fit(np.triu(np.ones((5, 5))))
    with pytest.warns(UserWarning, match="not positive semi-definite"):
        LowRankFactor("precomputed", None, 0.0, {}).fit(np.diag([1.0, -1.0, 2.0, 0.5]))


@pytest.mark.parametrize("kernel, gamma, rank, tol", [
    ("rbf", 0.5, 60, 0.0), ("rbf", 0.05, 200, 1e-8), ("poly", 0.3, 200, 0.0),
    ("linear", None, 200, 0.0),
])
def test_dense_pivoted_cholesky_is_the_greedy_rule(kernel, gamma, rank, tol):
    """LAPACK's blocked pivoted Cholesky on a matrix held whole chooses the
    pivots of the column-by-column greedy factor and gives its factor to
    rounding, cut at the same rank and residual trace."""
    from sklearn_bregman._factors._factors import dense_pivoted_cholesky, pivoted_cholesky

    X = np.random.default_rng(3).standard_normal((200, 6))
    K = pairwise_kernels(X, metric=kernel, **({} if gamma is None else {"gamma": gamma}))
    K0 = K.copy()
    G1, p1, r1, n1 = pivoted_cholesky(lambda p: K[:, p], np.diag(K).copy(), rank, tol)
    G2, p2, r2, n2 = dense_pivoted_cholesky(K, rank, tol)
    np.testing.assert_array_equal(K, K0)  # the input is left alone
    np.testing.assert_array_equal(p1, p2)
    scale = np.abs(K).max()
    np.testing.assert_allclose(G2, G1, atol=1e-8 * np.sqrt(scale))
    np.testing.assert_allclose(r2, r1, atol=1e-10 * r1[0])
    np.testing.assert_allclose(n2, n1, rtol=1e-8, atol=1e-12 * r1[0])
    np.testing.assert_allclose(np.tril(G2[p2]), G2[p2])  # G[pivots] lower triangular
    assert G2.flags.f_contiguous


def test_precomputed_factor_at_most_of_n_uses_the_dense_rule():
    from sklearn_bregman._factors._factors import LowRankFactor

    X = np.random.default_rng(4).standard_normal((120, 4))
    K = pairwise_kernels(X, metric="rbf", gamma=0.3)
    full = LowRankFactor("precomputed", 120, 0.0, {}).fit(K)      # dense: 2 r >= n
    part = LowRankFactor("precomputed", 40, 0.0, {}).fit(K)       # column by column
    np.testing.assert_allclose(full[:, :40], part, atol=1e-8)
    np.testing.assert_allclose(full @ full.T, K, atol=1e-8)
