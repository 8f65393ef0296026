"""Fits on dask arrays, on a real dask.distributed cluster.

A ``distributed.LocalCluster`` of two worker processes is started and closed
by the fixture (no mock).  The dask path must equal the in-memory path under
the same ``random_state``: the same pivots, the same pairs, the same learned
M to 1e-10 (relative), the same ``transform`` values; outputs stay lazy.
"""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from sklearn_bregman import (
    CSIDecomposition,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    VonNeumannKernelLearner,
)
from sklearn_bregman.constraints import RelativeConstraints

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(2400, 8, n_informative=5, n_redundant=0, n_classes=3,
                               random_state=0)
    # uneven chunks: the per-chunk bookkeeping must not assume equal ones
    chunks = (500, 700, 300, 900)
    return X, y, da.from_array(X, chunks=(chunks, 8)), da.from_array(y, chunks=(chunks,))


def _rel(a, b):
    return np.abs(a - b).max() / np.abs(a).max()


def _boom(block):
    raise RuntimeError("a block of this array was computed")


@pytest.mark.parametrize("low_rank", ["rpcholesky", "cholesky"])
@pytest.mark.parametrize("bounds", ["relative", "percentile"])
def test_logdet_on_dask_equals_in_memory(client, data, low_rank, bounds):
    X, y, Xd, yd = data
    kw = dict(kernel="rbf", gamma=0.1, rank=40, low_rank=low_rank, bounds=bounds,
              random_state=0)
    a = LogDetKernelLearner(**kw).fit(X, y)
    b = LogDetKernelLearner(**kw).fit(Xd, yd)
    np.testing.assert_array_equal(a.pivots_, b.pivots_)
    for field in ("i", "j", "sign"):
        np.testing.assert_array_equal(getattr(a.constraints_, field),
                                      getattr(b.constraints_, field))
    np.testing.assert_allclose(a.constraints_.bound, b.constraints_.bound, rtol=1e-12)
    assert a.n_iter_ == b.n_iter_ and b.converged_
    assert _rel(a.metric_, b.metric_) < 1e-10
    assert isinstance(b.embedding_, da.Array)
    assert _rel(a.embedding_, b.embedding_.compute()) < 1e-10
    Zd = b.transform(Xd[:300])
    assert isinstance(Zd, da.Array)
    assert _rel(a.transform(X[:300]), Zd.compute()) < 1e-10
    # a NumPy array through the dask-fitted map, and after pickling
    assert _rel(a.transform(X[:50]), pickle.loads(pickle.dumps(b)).transform(X[:50])) < 1e-10


def test_vonneumann_on_dask_equals_in_memory(client, data):
    X, y, Xd, yd = data
    kw = dict(kernel="rbf", gamma=0.1, rank=30, low_rank="rpcholesky", random_state=1)
    a = VonNeumannKernelLearner(**kw).fit(X, y)
    b = VonNeumannKernelLearner(**kw).fit(Xd, yd)
    np.testing.assert_array_equal(a.pivots_, b.pivots_)
    # the orthonormal basis comes from a tall-skinny QR of G0 instead of its
    # SVD: the same basis, to rounding amplified by G0's condition number
    assert _rel(a.metric_, b.metric_) < 1e-8
    assert _rel(a.embedding_, b.embedding_.compute()) < 1e-8


@pytest.mark.parametrize("prior", ["identity", "covariance"])
def test_itml_on_dask_equals_in_memory(client, data, prior):
    X, y, Xd, yd = data
    a = ITMLTransformer(prior=prior, bounds="percentile", random_state=0).fit(X, y)
    b = ITMLTransformer(prior=prior, bounds="percentile", random_state=0).fit(Xd, yd)
    assert _rel(a.metric_, b.metric_) < 1e-10
    assert _rel(a.transform(X), b.transform(Xd).compute()) < 1e-10


@pytest.mark.parametrize("kw", [dict(gamma=0.1, rank=25), dict(gamma=0.05, tol=1e-3)])
def test_csi_plain_path_on_dask_equals_in_memory(client, data, kw):
    X, _, Xd, _ = data
    a = CSIDecomposition(**kw).fit(X)
    b = CSIDecomposition(**kw).fit(Xd)
    np.testing.assert_array_equal(a.pivots_, b.pivots_)  # also where the gain rule stops
    assert isinstance(b.embedding_, da.Array) and isinstance(b.Q_, da.Array)
    assert _rel(a.embedding_, b.embedding_.compute()) < 1e-10
    # Q and R from a tall-skinny QR: the same up to signs
    assert _rel(np.abs(a.R_), np.abs(b.R_)) < 1e-10
    assert _rel(np.abs(a.Q_), np.abs(b.Q_.compute())) < 1e-8
    np.testing.assert_allclose(a.gains_, b.gains_, rtol=1e-10)
    np.testing.assert_allclose(a.approximation_error_, b.approximation_error_, rtol=1e-10,
                               atol=1e-10 * a.approximation_error_[0])
    assert _rel(a.transform(X[:200]), b.transform(Xd[:200]).compute()) < 1e-10
    with pytest.raises(ValueError, match="takes y=None"):
        CSIDecomposition(**kw).fit(Xd, np.zeros(Xd.shape[0]))


def test_linear_kernel_and_labels_in_memory(client, data):
    # dask X with NumPy labels and the linear kernel (the data is the factor)
    X, y, Xd, _ = data
    a = LogDetKernelLearner(random_state=0).fit(X, y)
    b = LogDetKernelLearner(random_state=0).fit(Xd, y)
    assert _rel(a.metric_, b.metric_) < 1e-10


def test_unlabeled_samples_and_explicit_pairs(client, data):
    X, y, Xd, _ = data
    y = y.copy()
    y[::5] = -1
    yd = da.from_array(y, chunks=600)
    kw = dict(kernel="rbf", gamma=0.1, rank=20, low_rank="rpcholesky", random_state=3)
    a = LogDetKernelLearner(**kw).fit(X, y)
    b = LogDetKernelLearner(**kw).fit(Xd, yd)
    np.testing.assert_array_equal(a.constraints_.i, b.constraints_.i)
    assert not np.isin(b.constraints_.i, np.flatnonzero(y == -1)).any()
    assert _rel(a.metric_, b.metric_) < 1e-10
    pairs = np.c_[np.arange(0, 100), np.arange(1000, 1100),
                  np.where(y[:100] == y[1000:1100], 1, -1)]
    a = LogDetKernelLearner(**kw).fit(X, constraints=pairs)
    b = LogDetKernelLearner(**kw).fit(Xd, constraints=pairs)
    assert _rel(a.metric_, b.metric_) < 1e-10


def test_transform_stays_lazy(client, data):
    X, y, Xd, yd = data
    learner = LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=20, low_rank="rpcholesky",
                                  random_state=0).fit(Xd, yd)
    # an array whose every block raises when computed: transform must not
    # compute any of it, and computing the result must
    untouchable = Xd.map_blocks(_boom, dtype=float)
    Z = learner.transform(untouchable)
    assert isinstance(Z, da.Array) and Z.shape == (Xd.shape[0], learner.rank_)
    with pytest.raises(RuntimeError, match="computed"):
        Z.compute()


def test_dask_errors_name_the_problem(client, data):
    X, y, Xd, yd = data
    with pytest.raises(ValueError, match="low_rank='csi' is not available on dask"):
        LogDetKernelLearner(kernel="rbf", low_rank="csi", rank=10).fit(Xd, yd)
    rel = RelativeConstraints([0], [1], [2], [3])
    with pytest.raises(ValueError, match="needs the data in memory.*takes pair constraints"):
        LogDetKernelLearner(kernel="rbf", rank=10).fit(Xd, constraints=rel)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        LogDetKernelLearner(kernel="rbf", rank=10).fit(Xd[Xd[:, 0] > 0], yd)
    with pytest.raises(ValueError, match="has 100 entries but X has 2400"):
        LogDetKernelLearner(kernel="rbf", rank=10).fit(Xd, yd[:100])
    bad = X.copy()
    bad[1500, 3] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        LogDetKernelLearner(kernel="rbf", rank=10, low_rank="rpcholesky").fit(
            da.from_array(bad, chunks=(600, 8)), yd)
    fitted = LogDetKernelLearner(kernel="rbf", rank=10, random_state=0).fit(Xd, yd)
    with pytest.raises(ValueError, match="X has 3 features"):
        fitted.transform(Xd[:, :3])


@pytest.mark.parametrize("kernel, low_rank", [("linear", "cholesky"), ("rbf", "rpcholesky"),
                                              ("rbf", "cholesky")])
def test_kernel_kmeans_on_dask_finds_the_in_memory_clusters(client, kernel, low_rank):
    from sklearn.datasets import make_blobs
    from sklearn.metrics import adjusted_rand_score

    X, _ = make_blobs(2000, 6, centers=4, cluster_std=0.6, random_state=0)
    Xd = da.from_array(X, chunks=(600, 6))
    kw = dict(n_clusters=4, kernel=kernel, gamma=0.05, low_rank=low_rank, n_init=2,
              random_state=0, rank=None if kernel == "linear" else 30)
    a = KernelKMeans(**kw).fit(X)
    b = KernelKMeans(**kw).fit(Xd)
    if kernel != "linear":
        np.testing.assert_array_equal(a.factor_.pivots_, b.factor_.pivots_)
    assert isinstance(b.labels_, da.Array)
    labels = b.labels_.compute()
    assert adjusted_rand_score(a.labels_, labels) == 1.0
    np.testing.assert_allclose(a.inertia_, b.inertia_, rtol=1e-8)
    pred = b.predict(Xd[:500])
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), labels[:500])
    np.testing.assert_array_equal(b.predict(X[:500]), labels[:500])


def test_kernel_kmeans_on_a_learners_lazy_embedding(client):
    from sklearn.datasets import make_blobs
    from sklearn.metrics import adjusted_rand_score

    X, y = make_blobs(2000, 5, centers=3, cluster_std=1.5, random_state=1)
    Xd, yd = da.from_array(X, chunks=(700, 5)), da.from_array(y, chunks=700)
    kw = dict(kernel="rbf", gamma=0.1, rank=20, low_rank="rpcholesky", random_state=0)
    a = LogDetKernelLearner(**kw).fit(X, y)
    b = LogDetKernelLearner(**kw).fit(Xd, yd)
    ka = KernelKMeans(3, n_init=2, random_state=0).fit(a.embedding_)
    kb = KernelKMeans(3, n_init=2, random_state=0).fit(b.embedding_)
    assert adjusted_rand_score(ka.labels_, kb.labels_.compute()) == 1.0
    np.testing.assert_allclose(ka.inertia_, kb.inertia_, rtol=1e-8)


@pytest.mark.parametrize("make", [
    lambda: LogDetKernelLearner(kernel="rbf", rank=10, low_rank="rpcholesky",
                                random_state=0),
    lambda: ITMLTransformer(random_state=0),
])
@pytest.mark.parametrize("chunked", [False, True])
def test_plus_minus_one_labels_warning_points_at_the_fit_call(client, data, make, chunked):
    # y in {-1, +1} with unlabeled=-1 leaves one class: a warning that names
    # the user's fit call, then the error
    X, _, Xd, _ = data
    y = np.where(np.arange(X.shape[0]) % 2, 1, -1)
    X_in = Xd if chunked else X
    y_in = da.from_array(y, chunks=600) if chunked else y
    with pytest.warns(UserWarning, match="unlabeled=None") as record:
        with pytest.raises(ValueError, match="one class"):
            make().fit(X_in, y_in)
    assert [w.filename for w in record if "unlabeled=None" in str(w.message)] == [__file__]


def test_every_method_refuses_non_finite_chunks_as_in_memory(client):
    # transform and predict check NaN and inf on chunks when computed, as
    # validate_data does in memory (they used to pass them to the map)
    from sklearn.datasets import make_blobs

    from sklearn_bregman import CSIDecomposition, ITMLTransformer, KernelKMeans

    X, y = make_blobs(600, 4, centers=3, random_state=0)
    bad = X[:40].copy()
    bad[7, 1] = np.nan
    bad_d = da.from_array(bad, chunks=(20, 4))
    fitted = [KernelKMeans(3, random_state=0).fit(X),
              ITMLTransformer(random_state=0).fit(X, y),
              LogDetKernelLearner(kernel="rbf", rank=10, random_state=0).fit(X, y),
              CSIDecomposition(rank=5).fit(X, y)]
    for est in fitted:
        method = est.predict if isinstance(est, KernelKMeans) else est.transform
        with pytest.raises(ValueError, match="NaN"):
            method(bad)
        with pytest.raises(ValueError, match="NaN"):
            np.asarray(method(bad_d))


def test_labels_of_unknown_chunk_sizes_say_so(client):
    X = np.random.RandomState(0).normal(size=(200, 3))
    y = np.repeat([0, 1], 100)
    Xd, yd = da.from_array(X, chunks=(50, 3)), da.from_array(y, chunks=50)
    with pytest.raises(ValueError, match="y has unknown chunk sizes"):
        LogDetKernelLearner(random_state=0).fit(Xd, yd[yd >= 0])


def test_a_list_holding_one_pair_container_fits_alike_in_memory_and_on_chunks(client):
    from sklearn.base import clone

    from sklearn_bregman import ITMLTransformer, PairConstraints

    X = np.random.RandomState(0).normal(size=(300, 4))
    pc = PairConstraints([0, 1, 2], [3, 4, 5], [1, -1, 1])
    for est in (ITMLTransformer(random_state=0), LogDetKernelLearner(random_state=0)):
        a = clone(est).fit(X, constraints=[pc])
        b = clone(est).fit(da.from_array(X, chunks=(100, 4)), constraints=[pc])
        c = clone(est).fit(X, constraints=pc)
        np.testing.assert_allclose(a.metric_, b.metric_, rtol=1e-10)
        np.testing.assert_array_equal(a.metric_, c.metric_)
