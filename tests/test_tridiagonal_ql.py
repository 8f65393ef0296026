"""The engine's one QL (``_engine/_tridiag_ql.h``, after LAPACK's DSTEQR)
against NumPy's ``eigh`` of the same tridiagonal.

Both von Neumann projections use it: the rank-one one for the first row
of the eigenvectors (``vn_tridiag_eig``), the general rows for p rows of a
matrix times them (``vn_tridiag_eig_rows``, after the Householder
reduction of ``_vn_linear.h``).
"""

import numpy as np
import pytest
from sklearn_bregman._engine._testing import _tridiagonal_eig


def _dense(a, b):
    return np.diag(a) + np.diag(b, 1) + np.diag(b, -1)


def _check(a, b, Z=None):
    """Eigenvalues, and the rows Z Q (or Q's first row), against eigh: the
    same up to the order of the eigenvalues and the sign of each column (a
    cluster of equal eigenvalues spans a subspace: there only what does not
    depend on the basis is compared)."""
    n = len(a)
    T = _dense(a, b)
    w, Q = np.linalg.eigh(T)
    d, rows = _tridiagonal_eig(a, b, Z)
    order = np.argsort(d, kind="stable")
    d, got = d[order], np.atleast_2d(rows)[:, order]
    Zm = np.eye(n)[:1] if Z is None else np.asarray(Z, dtype=float).reshape(-1, n)
    ref = Zm @ Q
    scale = max(np.abs(w).max(initial=0.0), np.finfo(float).tiny)
    zscale = max(1.0, np.abs(Zm).max())
    np.testing.assert_allclose(d, w, rtol=0, atol=1e-13 * n * scale)
    alone = np.ones(n, bool)
    tight = np.flatnonzero(np.diff(w) <= 1e-8 * scale)
    alone[tight] = alone[tight + 1] = False
    for j in np.flatnonzero(alone):
        sign = 1.0 if got[:, j] @ ref[:, j] >= 0 else -1.0
        np.testing.assert_allclose(sign * got[:, j], ref[:, j], rtol=0,
                                   atol=1e-10 * zscale)
    # in any basis: (Z Q)(Z Q)' = Z Z' and (Z Q) diag(d) (Z Q)' = Z T Z'
    np.testing.assert_allclose(got @ got.T, Zm @ Zm.T, rtol=0, atol=1e-12 * n * zscale**2)
    np.testing.assert_allclose((got * d) @ got.T, Zm @ T @ Zm.T, rtol=0,
                               atol=1e-12 * n * scale * zscale**2)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("p", [None, 1, 3])
def test_random_tridiagonals(n, p):
    rng = np.random.default_rng(n * 10 + (p or 0))
    a, b = rng.standard_normal(n), rng.standard_normal(n - 1)
    Z = None if p is None else rng.standard_normal((p, n))
    _check(a, b, Z)


@pytest.mark.parametrize("p", [None, 4])
def test_clustered_and_equal_eigenvalues(p):
    # the Wilkinson matrix W21+ (pairs of nearly equal eigenvalues) and a
    # tridiagonal with a repeated eigenvalue (a zero coupling in the middle)
    a = np.abs(np.arange(-10, 11)).astype(float)
    b = np.ones(20)
    Z = None if p is None else np.random.default_rng(0).standard_normal((p, 21))
    _check(a, b, Z)
    a2 = np.array([1.0, 2.0, 1.0, 2.0])
    b2 = np.array([0.5, 0.0, 0.5])
    _check(a2, b2, None if p is None else np.eye(4)[:p])


def test_split_and_diagonal_matrices():
    _check(np.array([3.0, -1.0, 2.0]), np.zeros(2))
    _check(np.array([3.0, -1.0, 2.0]), np.zeros(2), np.eye(3))
    _check(np.array([5.0]), np.zeros(0), np.array([[2.0]]))


@pytest.mark.parametrize("scale", [1e-100, 1e-20, 1e20, 1e100, 1e150])
def test_tiny_and_huge_entries(scale):
    # (DSTEQR's scaling of a block whose norm is within sqrt of underflow is
    # left out, _tridiag_ql.h says why: entries near 1e-150 lose digits to
    # the deflation test's safmin; the engine's are logs of eigenvalues)
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(12) * scale, rng.standard_normal(11) * scale
    _check(a, b)
    _check(a, b, rng.standard_normal((2, 12)))


def test_graded_entries():
    # entries over many orders of magnitude, where the deflation test matters
    a = 10.0 ** np.arange(-6, 6)
    b = 10.0 ** (np.arange(-6, 5) + 0.5)
    _check(a, b)
    _check(a[::-1].copy(), b[::-1].copy(), np.eye(12)[:3])


def test_rows_of_the_identity_are_the_eigenvectors():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(9), rng.standard_normal(8)
    d, Q = _tridiagonal_eig(a, b, np.eye(9))
    np.testing.assert_allclose(Q.T @ Q, np.eye(9), atol=1e-13)
    np.testing.assert_allclose(Q @ np.diag(d) @ Q.T, _dense(a, b), atol=1e-12)
    d1, z1 = _tridiagonal_eig(a, b)
    np.testing.assert_array_equal(d1, d)  # the same rotations, p = 1 or 9
    np.testing.assert_allclose(z1, Q[0], atol=1e-15)
