"""Sparse X (CSR, CSC) goes in as it is: kernel columns and diagonals from the
sparse rows (against scikit-learn's kernels on the dense copy), the same model
as the dense fit, nothing of the dense size allocated, and clear errors where
sparse input cannot be taken (a d x d ITML metric too large, a precomputed
kernel)."""

import copy
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils import get_tags

from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    PairClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman._factors._kernels import kernel_diagonal, kernel_source
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def text_like(n, d, density, n_classes, seed):
    """A TF-IDF-like CSR matrix: each class draws its words mostly from its own
    block of the vocabulary, non-negative weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    nnz_row = max(1, int(round(density * d)))
    block = d // n_classes
    cols = np.where(rng.random((n, nnz_row)) < 0.7,
                    y[:, None] * block + rng.integers(0, block, (n, nnz_row)),
                    rng.integers(0, d, (n, nnz_row)))
    rows = np.repeat(np.arange(n), nnz_row)
    X = sp.csr_matrix((rng.random(n * nnz_row) + 0.1, (rows, cols.ravel())), shape=(n, d))
    X.sum_duplicates()
    return X, y


@pytest.fixture(scope="module")
def data():
    X, y = text_like(240, 400, 0.05, 3, seed=0)
    X[5] = 0.0  # an empty document
    X.eliminate_zeros()
    return X, y


@pytest.mark.parametrize("kernel", ["linear", "poly", "sigmoid", "rbf", "cosine",
                                    "laplacian"])
def test_columns_and_diagonal_from_sparse_rows(kernel, data):
    X, _ = data
    params = {"gamma": 0.3, "degree": 2, "coef0": 0.5}
    dense = pairwise_kernels(X.toarray(), metric=kernel, filter_params=True, **params)
    column, diag = kernel_source(X, kernel, params)
    assert np.allclose(diag, np.diag(dense), rtol=1e-12, atol=1e-14)
    for p in (0, 5, 17, 239):
        assert np.allclose(column(p), dense[:, p], rtol=1e-12, atol=1e-14)
    # the cosine diagonal is the same bit for bit from the dense rows, so that
    # pivots that tie (every diagonal entry 1) are chosen alike
    if kernel == "cosine":
        assert np.array_equal(kernel_diagonal(X.toarray(), kernel, params), diag)


ESTIMATORS = [
    ITMLTransformer(max_iter=20, random_state=0),
    LogDetKernelLearner(kernel="cosine", rank=20, max_iter=20, random_state=0),
    LogDetKernelLearner(kernel="rbf", gamma=0.5, rank=20, low_rank="rpcholesky",
                        max_iter=20, random_state=0),
    VonNeumannKernelLearner(kernel="cosine", rank=20, max_iter=20, random_state=0),
    DefiniteBoost(kernel="cosine", rank=20, n_constraints=60, max_iter=20, random_state=0),
    SKLRClusterer(n_clusters=3, max_iter=3, random_state=0),
    CSIDecomposition(kernel="cosine", rank=10),
    KernelKMeans(n_clusters=3, kernel="cosine", random_state=0),
]
IDS = ["ITML", "LogDet-cosine", "LogDet-rbf-rpcholesky", "vN-cosine", "DefiniteBoost",
       "SKLR", "CSI", "KernelKMeans"]


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_same_model_as_dense(est, fmt, data):
    X, y = data
    assert get_tags(est).input_tags.sparse
    new = text_like(30, X.shape[1], 0.05, 3, seed=1)[0]
    dense = clone(est).fit(X.toarray(), y)
    sparse = clone(est).fit(X.asformat(fmt), y)
    if isinstance(est, KernelKMeans):
        assert np.array_equal(sparse.labels_, dense.labels_)
        assert np.array_equal(sparse.predict(new), dense.predict(new.toarray()))
        return
    Zs, Zd = sparse.transform(new.asformat(fmt)), dense.transform(new.toarray())
    assert isinstance(Zs, np.ndarray)
    # through the learned kernel (coordinates are defined up to a rotation)
    assert np.abs(Zs @ Zs.T - Zd @ Zd.T).max() <= 1e-8 * max(np.abs(Zd @ Zd.T).max(), 1)



#: The public methods that take sparse rows, and how each is called.
_SPARSE_METHODS = {
    "fit": lambda est, X, y: est.fit(X, y),
    "partial_fit": lambda est, X, y: est.partial_fit(X, y),
    "fit_transform": lambda est, X, y: est.fit_transform(X, y),
    "fit_predict": lambda est, X, y: est.fit_predict(X, y),
    "transform": lambda est, X, y: est.transform(X),
    "predict": lambda est, X, y: est.predict(X),
    "score": lambda est, X, y: est.score(X, y),
    "learned_kernel": lambda est, X, y: est.learned_kernel(X, X),
}


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_no_public_method_changes_the_users_sparse_matrix(est, fmt, data):
    """Every public method that takes sparse rows, given a matrix in a
    non-canonical form (duplicate entries, unsorted indices, explicit
    zeros), leaves the user's object byte for byte as it was: not sorted,
    not summed, no cached flag set (the canonical form is taken on a copy)."""
    X, y = data
    odd = _with_duplicates_and_unsorted(X)
    if fmt != "csr":
        odd = odd.asformat(fmt, copy=True)  # (duplicates kept: COO and CSC alike)
    assert odd.nnz > X.nnz  # not summed
    fitted = clone(est).fit(X, y)
    called = []
    for name, call in _SPARSE_METHODS.items():
        if not hasattr(est, name):
            continue
        target = clone(est) if name.startswith("fit") or name == "partial_fit" else fitted
        given = copy.deepcopy(odd)
        before = pickle.dumps(given)
        call(target, given, y)
        assert pickle.dumps(given) == before, f"{name} changed the user's {fmt} matrix"
        called.append(name)
    assert {"fit", "transform"} <= set(called) or {"fit", "predict"} <= set(called)



def test_no_tuple_method_changes_a_sparse_preprocessor(data):
    """The classifiers over identifiers into a non-canonical sparse
    ``preprocessor``: fit, partial_fit, decision_function, predict, score,
    pair_distance and calibrate_threshold leave it byte for byte as given."""
    X, y = data
    odd = _with_duplicates_and_unsorted(X)
    before = pickle.dumps(odd)
    inner = LogDetKernelLearner(kernel="cosine", rank=20, max_iter=20, random_state=0)
    pc = pairs_from_labels(y, 120, random_state=0)
    pairs, signs = np.column_stack([pc.i, pc.j]), pc.sign
    clf = PairClassifier(inner, preprocessor=odd).fit(pairs, signs)
    clf.partial_fit(pairs[:40], signs[:40])
    clf.decision_function(pairs)
    clf.predict(pairs)
    clf.score(pairs, signs)
    clf.pair_distance(pairs)
    clf.calibrate_threshold(pairs, signs)
    triplets = triplets_from_labels(y, 60, random_state=0)
    tc = TripletClassifier(inner, preprocessor=odd).fit(triplets)
    tc.predict(triplets)
    tc.score(triplets)
    assert pickle.dumps(odd) == before


def test_no_dense_copy_of_a_large_sparse_matrix():
    # 20,000 x 50,000 at 0.05 %: 8 GB dense, 6 MB sparse
    X, y = text_like(20_000, 50_000, 0.0005, 10, seed=2)
    est = LogDetKernelLearner(kernel="cosine", rank=40, n_constraints=400, max_iter=20,
                              random_state=0)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            # (documents orthogonal to every pivot coincide at rank 40: skipped pairs)
            warnings.simplefilter("ignore", UserWarning)
            est.fit(X, y)
        Z = est.transform(X[:1000])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert Z.shape == (1000, est.rank_)
    assert peak < 100 * 2**20  # far below the 8 GB of one dense copy


def test_itml_refuses_a_metric_too_large_and_points_to_the_low_rank_learner():
    X, y = text_like(50, 5000, 0.002, 2, seed=3)
    with pytest.raises(ValueError, match=r"d x d.*5000.*LogDetKernelLearner"):
        ITMLTransformer().fit(X, y)


def test_linear_kernel_on_sparse_rows_is_factored_from_pivots(data):
    X, y = data
    est = LogDetKernelLearner(kernel="linear", rank=15, max_iter=20, random_state=0).fit(X, y)
    assert est.rank_ == 15 and est.pivots_ is not None
    # linear in the input all the same: components_ maps sparse rows directly
    new = text_like(10, X.shape[1], 0.05, 3, seed=4)[0]
    assert np.allclose(est.transform(new), new @ est.components_.T, atol=1e-12)


def test_precomputed_kernel_must_be_dense():
    K = sp.identity(10, format="csr")
    for est in (LogDetKernelLearner(kernel="precomputed"), CSIDecomposition(kernel="precomputed"),
                KernelKMeans(n_clusters=2, kernel="precomputed")):
        assert not get_tags(est).input_tags.sparse
        with pytest.raises(ValueError, match="precomputed.*dense"):
            est.fit(K, np.arange(10) % 2)


def test_tuples_through_a_sparse_preprocessor(data):
    X, y = data
    pc = pairs_from_labels(y, 150, random_state=0)
    ids = np.column_stack([pc.i, pc.j])
    for inner in (LogDetKernelLearner(kernel="cosine", rank=20, max_iter=20, random_state=0),
                  ITMLTransformer(max_iter=5, random_state=0)):
        a = PairClassifier(inner, preprocessor=X).fit(ids, pc.sign)
        b = PairClassifier(inner, preprocessor=X.toarray()).fit(ids, pc.sign)
        assert np.allclose(a.decision_function(ids), b.decision_function(ids), atol=1e-10)
        assert np.allclose(a.pair_distance(ids), b.pair_distance(ids), atol=1e-10)
    triplets = triplets_from_labels(y, 100, random_state=0)
    inner = LogDetKernelLearner(kernel="cosine", rank=20, max_iter=20, random_state=0)
    a = TripletClassifier(inner, preprocessor=X).fit(triplets)
    b = TripletClassifier(inner, preprocessor=X.toarray()).fit(triplets)
    assert np.allclose(a.decision_function(triplets), b.decision_function(triplets), atol=1e-10)
    # and a learner fitted on identifiers into a sparse matrix
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = LogDetKernelLearner(kernel="cosine", rank=20, max_iter=20, random_state=0,
                                  preprocessor=X).fit(np.arange(X.shape[0]), y)
    assert np.allclose(est.transform(np.arange(3)), est.transform(X[:3]))


def _with_duplicates_and_unsorted(X):
    """``X`` as a CSR matrix whose stored entries are split in two (each
    value stored twice, halves), in reverse order within each row, with
    explicit zeros: legal in SciPy, what a hand-made ``coo -> csr`` gives."""
    C = sp.coo_matrix(X)
    rows = np.concatenate([C.row, C.row, C.row[:5]])
    cols = np.concatenate([C.col, C.col, C.col[:5]])
    vals = np.concatenate([C.data / 2, C.data / 2, np.zeros(5)])
    order = np.lexsort((-cols, rows))
    indptr = np.searchsorted(rows[order], np.arange(X.shape[0] + 1))
    return sp.csr_matrix((vals[order], cols[order], indptr), shape=X.shape)


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_duplicate_entries_and_unsorted_indices_are_the_same_matrix(est, data):
    """A CSR matrix with duplicate entries, unsorted indices and explicit
    zeros is the matrix it sums to: the same model as its dense copy, and the
    user's matrix is left as it was (not sorted, not summed, no flag set)."""
    X, y = data
    odd = _with_duplicates_and_unsorted(X)
    assert not odd.has_canonical_format and np.allclose(odd.toarray(), X.toarray())
    before = pickle.dumps(odd)
    dense = clone(est).fit(X.toarray(), y)
    sparse = clone(est).fit(odd, y)
    assert pickle.dumps(odd) == before
    if isinstance(est, KernelKMeans):
        assert np.array_equal(sparse.labels_, dense.labels_)
        return
    Zs, Zd = sparse.transform(odd), dense.transform(X.toarray())
    assert pickle.dumps(odd) == before
    assert np.abs(Zs @ Zs.T - Zd @ Zd.T).max() <= 1e-8 * max(np.abs(Zd @ Zd.T).max(), 1)


WIDE_LINEAR = [
    LogDetKernelLearner(kernel="linear", rank=20, n_constraints=300, max_iter=30,
                        random_state=0),
    VonNeumannKernelLearner(kernel="linear", rank=20, n_constraints=300, max_iter=30,
                            random_state=0),
    DefiniteBoost(kernel="linear", rank=20, n_constraints=100, epsilon=0.05, max_iter=30,
                  random_state=0),
    SKLRClusterer(3, kernel="linear", rank=20, n_triplets=100, max_iter=10, random_state=0),
]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore:.*(identical points|one line through):UserWarning")
@pytest.mark.parametrize("est", WIDE_LINEAR, ids=lambda e: type(e).__name__)
def test_the_linear_kernel_on_wide_sparse_data_never_forms_a_d_by_d_array(est):
    """2,000 x 200,000 at 0.01 %: the d x d identity the learned map was
    built from would take 298 GB (GiB), the dense X 3 GB; the fit and transform
    of new rows stay in O(nnz + (n + d) r) (the map from the pivots' rows,
    ``P = X_pivots' L^-T``, or SKLR's ``X' U L^-1/2``): components_ is
    r x d, transform(X) = X @ components_.T on sparse rows, and
    get_mahalanobis_matrix (d x d by definition) is refused naming the size."""
    X, y = text_like(2000, 200_000, 0.0001, 3, seed=5)
    new = text_like(100, 200_000, 0.0001, 3, seed=6)[0]
    tracemalloc.start()
    try:
        est.fit(X, y)
        Z = est.transform(new)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 250 * 2**20, peak  # (components_ alone: 20 x 200,000 = 32 MB)
    assert est.components_.shape == (est.rank_, 200_000)
    np.testing.assert_allclose(Z, new @ est.components_.T,
                               atol=1e-10 * max(np.abs(Z).max(), 1.0))
    with pytest.raises(ValueError, match=r"get_mahalanobis_matrix: .*d = 200000 features "
                                         r"that is 298 GB"):
        est.get_mahalanobis_matrix()


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore:.*(identical points|one line through):UserWarning")
@pytest.mark.parametrize("est", WIDE_LINEAR, ids=lambda e: type(e).__name__)
def test_the_linear_map_from_the_factor_is_the_map_of_unit_vectors(est, data):
    """The input-space map from the factor's own rows equals phi0 of the unit
    vectors (what it was built from before, in O(d^2)), on sparse and dense
    data: the same transform and Mahalanobis matrix."""
    X, y = data
    for Xf in (X, X.toarray()):
        fitted = clone(est).fit(Xf, y)
        d = Xf.shape[1]
        B = (fitted.components_ if fitted.factor_.input_map() is None else
             fitted.components_ @ np.linalg.pinv(fitted.factor_.input_map()).T)
        P_unit = fitted.factor_.transform(np.eye(d))
        np.testing.assert_allclose(fitted.components_, B @ P_unit.T, atol=1e-9)
        M = fitted.get_mahalanobis_matrix()
        np.testing.assert_allclose(M, fitted.components_.T @ fitted.components_, atol=1e-12)


@pytest.mark.filterwarnings("ignore:.*identical points:UserWarning")
@pytest.mark.parametrize("low_rank", ["cholesky", "rpcholesky"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("scale", [1e8, 1e10, 1e20, 1e100])
def test_rbf_on_sparse_rows_at_large_scales_is_the_dense_kernel(scale, fmt, low_rank, data):
    """kernel='rbf' on sparse rows at 1e8 .. 1e100: K(x_p, x_p) = 1 in the
    pivot columns (the expansion |x|^2 + |x|^2 - 2 x.x left eps |x|^2 there,
    read as exp(-gamma eps |x|^2) = 0 at large scales, and other values
    from sparse than from dense rows); the sparse fit is the dense one (same
    pivots and rank), and transform / predict of the training points and of
    new points is what fit gave and what the dense model gives."""
    X, y = data
    A = (X * scale).asformat(fmt)
    params = {"gamma": None, "degree": 3, "coef0": 1}
    column, _ = kernel_source(A, "rbf", params)
    for p in (0, 5, 17, 239):
        assert column(p)[p] == 1.0
    new = text_like(30, X.shape[1], 0.05, 3, seed=1)[0] * scale
    new = sp.vstack([new, X[:5] * scale]).tocsr()  # and training points, as new points
    est = LogDetKernelLearner(kernel="rbf", rank=40, low_rank=low_rank, max_iter=20,
                              random_state=0)
    sparse, dense = clone(est).fit(A, y), clone(est).fit(A.toarray(), y)
    assert np.array_equal(sparse.pivots_, dense.pivots_) and sparse.rank_ == dense.rank_
    Z = sparse.transform(A)
    assert np.abs(Z @ Z.T - sparse.embedding_ @ sparse.embedding_.T).max() <= 1e-10
    assert np.abs(Z @ Z.T - dense.transform(A.toarray()) @ dense.embedding_.T).max() <= 1e-10
    Zs, Zd = sparse.transform(new.asformat(fmt)), dense.transform(new.toarray())
    assert np.abs(Zs @ Zs.T - Zd @ Zd.T).max() <= 1e-10
    km = KernelKMeans(n_clusters=3, kernel="rbf", random_state=0)
    ks, kd = clone(km).fit(A), clone(km).fit(A.toarray())
    assert np.array_equal(ks.predict(A), ks.labels_)
    assert np.array_equal(ks.labels_, kd.labels_)
    assert np.array_equal(ks.predict(new.asformat(fmt)), kd.predict(new.toarray()))
