"""float32 data keeps its dtype through ``transform`` and ``fit_transform``
(scikit-learn's convention for transformers, the ``preserves_dtype`` tag);
the engine computes in float64, so the float32 results are the float64 ones
rounded."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_transformer_preserve_dtypes

from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    SKLRClusterer,
    VonNeumannKernelLearner,
)

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

TRANSFORMERS = [
    ITMLTransformer(max_iter=20, random_state=0),
    LogDetKernelLearner(kernel="rbf", rank=10, max_iter=20, random_state=0),
    LogDetKernelLearner(kernel="linear", max_iter=20, random_state=0),
    VonNeumannKernelLearner(kernel="rbf", rank=10, max_iter=20, random_state=0),
    DefiniteBoost(kernel="rbf", rank=10, n_constraints=60, max_iter=20, random_state=0),
    SKLRClusterer(n_clusters=3, max_iter=5, random_state=0),
    CSIDecomposition(rank=8),
]
IDS = ["ITML", "LogDet-rbf", "LogDet-linear", "vN-rbf", "DefiniteBoost", "SKLR", "CSI"]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("est", TRANSFORMERS, ids=IDS)
def test_float32_in_float32_out(est, wine):
    X, y = wine
    X32 = X.astype(np.float32)
    assert "float32" in get_tags(est).transformer_tags.preserves_dtype
    fitted64 = clone(est).fit(X, y)
    fitted32 = clone(est).fit(X32, y)
    Z64, Z32 = fitted64.transform(X), fitted32.transform(X32)
    assert Z64.dtype == np.float64 and Z32.dtype == np.float32
    # fitted in float64 from the float32 data: the float64 result up to the
    # data's own rounding (about 1e-7 relative), compared through the learned
    # kernel Z Z' (the coordinates are defined up to a rotation where the
    # learned metric has close eigenvalues, as SKLR's does here)
    K64 = Z64 @ Z64.T
    K32 = Z32.astype(np.float64) @ Z32.T.astype(np.float64)
    assert np.abs(K32 - K64).max() <= 1e-5 * np.abs(K64).max()
    assert clone(est).fit_transform(X32, y).dtype == np.float32
    # integers and float64 give float64
    assert fitted64.transform(np.rint(X).astype(int)).dtype == np.float64


@pytest.mark.parametrize("est", TRANSFORMERS, ids=IDS)
def test_scikit_learn_preserve_dtypes_check(est):
    check_transformer_preserve_dtypes(type(est).__name__, clone(est))


def test_predictions_stay_integer_labels(wine):
    X, y = wine
    X32 = X.astype(np.float32)
    sklr = SKLRClusterer(n_clusters=3, max_iter=5, random_state=0).fit(X32, y)
    assert sklr.predict(X32).dtype.kind == "i"
    assert np.array_equal(sklr.predict(X32), sklr.predict(X))
    km = KernelKMeans(n_clusters=3, random_state=0).fit(X32)
    assert km.predict(X32).dtype.kind == "i"


def test_dask_float32_blocks_are_float32(wine):
    da = pytest.importorskip("dask.array")
    X, y = wine
    est = LogDetKernelLearner(kernel="rbf", rank=10, max_iter=20, random_state=0).fit(X, y)
    Xd = da.from_array(X.astype(np.float32), chunks=(50, X.shape[1]))
    Z = est.transform(Xd)
    assert Z.dtype == np.float32
    computed = Z.compute()
    assert computed.dtype == np.float32
    assert np.allclose(computed, est.transform(X), rtol=0, atol=1e-5 * np.abs(computed).max())


def _frames(X32):
    """DataFrames of the float32 data, and scikit-learn's dtype for each
    (check_array's: the np.result_type of the columns' NumPy dtypes; float64
    when a column has a pandas extension dtype)."""
    pd = pytest.importorskip("pandas")
    columns = [f"f{k}" for k in range(X32.shape[1])]
    df = pd.DataFrame(X32, columns=columns)
    return {
        "float32": (df, np.float32),
        "float32_and_int8": (df.astype({"f0": np.int8}), np.float32),
        "float32_and_bool": (df.assign(f0=df["f0"] > 0), np.float32),
        "float32_and_float64": (df.astype({"f0": np.float64}), np.float64),
        "float32_and_int64": (df.astype({"f0": np.int64}), np.float64),
        "extension_Float32": (df.astype("Float32"), np.float64),
        "float64": (df.astype(np.float64), np.float64),
        # (a column named "dtype": X.dtype is that column, not a dtype)
        "float32_column_named_dtype": (df.rename(columns={"f0": "dtype"}), np.float32),
    }


FRAMES = ["float32", "float32_and_int8", "float32_and_bool", "float32_and_float64",
          "float32_and_int64", "extension_Float32", "float64", "float32_column_named_dtype"]


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("est", TRANSFORMERS, ids=IDS)
def test_a_float32_dataframe_gives_float32_as_pca_does(est, frame, wine):
    """A DataFrame has no ``dtype``: its float32 data came back float64 (the
    float32 ndarray and CSR matrix gave float32). The output dtype is now
    scikit-learn's ``PCA``'s for the same frame (the oracle), through
    ``transform``, ``fit_transform`` and ``set_output(transform='pandas')``,
    and the values are those of the frame's float64 copy, rounded. Not bit
    for bit: the engine computes in float64 either way, but the layout pandas
    gives the converted frame (which varies between its versions) decides
    BLAS's order of summation, and DefiniteBoost's iterations carry that
    rounding to about 5e-11 relative (pandas 2.3 against 2.0)."""
    from sklearn.decomposition import PCA

    X, y = wine
    X32 = X.astype(np.float32)
    df, expected = _frames(X32)[frame]
    assert PCA(2).fit(df).transform(df).dtype == expected  # the oracle agrees
    fitted = clone(est).fit(df, y)
    Z = fitted.transform(df)
    assert Z.dtype == expected
    assert np.asarray(clone(est).fit_transform(df, y)).dtype == expected
    out = clone(est).set_output(transform="pandas").fit(df, y).transform(df)
    assert set(out.dtypes) == {np.dtype(expected)}
    df64 = df.astype(np.float64)
    want = clone(est).fit(df64, y).transform(df64).astype(expected)
    tol = 1e-9 if expected == np.float64 else 1e-6
    np.testing.assert_allclose(Z, want, rtol=0, atol=tol * np.abs(want).max())
