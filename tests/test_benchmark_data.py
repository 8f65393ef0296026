"""The data generators of the benchmarks and of the gallery against their definitions.

``benchmarks/breiman.py``: Breiman's twonorm and ringnorm ("Bias, variance,
and arcing classifiers", 1996), the synthetic sets of Bach & Jordan's
Figure 2 (benchmarks/bench_csi_figure2.py, compare_kernlab.py).  The gallery's
examples/plot_csi_figure2.py carries its own copy, which must draw the same
points.  No R needed.
"""

import importlib.util
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


breiman = load("benchmarks/breiman.py", "breiman_under_test")

N = 40_000
D = 20


def check_normal(Z, mean, var):
    """Sample of N(mean 1, var I): per-coordinate means and the covariance
    within about five standard errors."""
    m = Z.shape[0]
    np.testing.assert_allclose(Z.mean(0), mean, atol=5 * np.sqrt(var / m))
    C = np.cov(Z, rowvar=False)
    # var of a sample variance 2 var^2 / m, of a covariance var^2 / m
    np.testing.assert_allclose(np.diag(C), var, atol=5 * var * np.sqrt(2 / m))
    off = C[~np.eye(D, dtype=bool)]
    assert np.abs(off).max() < 5 * var * np.sqrt(1 / m)


def test_twonorm_has_breimans_moments():
    X, y = breiman.twonorm(N, random_state=0)
    assert X.shape == (N, D) and set(np.unique(y)) == {0, 1}
    a = 2 / np.sqrt(20)
    assert breiman.TWONORM_SHIFT == pytest.approx(a)
    assert abs(y.mean() - 0.5) < 5 * 0.5 / np.sqrt(N)  # equally likely classes
    check_normal(X[y == 0], a, 1.0)
    check_normal(X[y == 1], -a, 1.0)


def test_ringnorm_has_breimans_moments():
    X, y = breiman.ringnorm(N, random_state=1)
    assert X.shape == (N, D) and set(np.unique(y)) == {0, 1}
    a = 1 / np.sqrt(20)
    assert breiman.RINGNORM_SHIFT == pytest.approx(a)
    assert abs(y.mean() - 0.5) < 5 * 0.5 / np.sqrt(N)
    check_normal(X[y == 0], 0.0, 4.0)
    check_normal(X[y == 1], a, 1.0)
    # the ring: class 0 lies farther out, |x|^2 about 80 against 20 + 20 a^2 = 21
    r2 = (X ** 2).sum(1)
    assert r2[y == 0].mean() == pytest.approx(4 * D, rel=0.02)
    assert r2[y == 1].mean() == pytest.approx(D + D * a * a, rel=0.02)


def test_the_generators_are_repeatable_and_the_gallery_draws_the_same():
    for name in ("twonorm", "ringnorm"):
        gen = getattr(breiman, name)
        X1, y1 = gen(300, random_state=3)
        X2, y2 = gen(300, random_state=3)
        np.testing.assert_array_equal(X1, X2)
        np.testing.assert_array_equal(y1, y2)
    example = load("examples/plot_csi_figure2.py", "plot_csi_figure2_under_test")
    for name in ("twonorm", "ringnorm"):
        X1, y1 = getattr(breiman, name)(500, random_state=4)
        X2, y2 = getattr(example, name)(500, random_state=4)
        np.testing.assert_array_equal(X1, X2)
        np.testing.assert_array_equal(y1, y2)
