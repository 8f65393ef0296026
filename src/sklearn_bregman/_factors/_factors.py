"""The factor layer: initial low-rank factors of a kernel and their out-of-sample maps.

A factor is a pair (G0, phi0): G0 (n x r) with K0 ~= G0 G0' on the training
points, and a map phi0 with phi0(X_train) = G0 that takes new points to the
same r coordinates (ARCHITECTURE.md, layer 2).  The learners work on G0
only, so nothing of size n x n is ever formed, except for
``kernel='precomputed'`` where the user hands the n x n matrix in.  Kernel
values come from :mod:`sklearn_bregman._factors._kernels`.

- linear kernel: the data itself (phi0(x) = x), or its top right singular
  directions (phi0(x) = x V) when fewer than ``n_features`` columns are
  asked for or there are more features than samples;
- any other kernel, from pivot columns: pivoted incomplete Cholesky
  (:func:`pivoted_cholesky`; Fine & Scheinberg 2001; Bach & Jordan 2005,
  Section 2), greedy on the largest residual diagonal, randomly pivoted
  Cholesky (:func:`randomly_pivoted_cholesky`; Chen, Epperly, Tropp &
  Webber 2024, accelerated as Epperly, Tropp & Webber 2024), pivots drawn in
  proportion to the residual diagonal in blocks, or Cholesky with side
  information (:func:`cholesky_side_information`; Bach & Jordan 2005,
  Sections 3-5), greedy on a gain that also rewards predicting the labels;
  all with the Nystrom-form out-of-sample map of :class:`PivotMap`,
  phi0(x) = k0(x, X_pivots) L^-T, L = G0[pivots] (lower triangular);
- the spectral start of SKLR (:class:`SpectralFactor`): top eigenpairs from a
  randomized subspace iteration, with the Nystrom extension of the
  eigenvectors as the map.

:class:`LowRankFactor` chooses among the first two for the kernel learners.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.linalg import lapack
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target

from .._engine import (
    cholesky_append,
    complete_pending,
    estimated_gains,
    lookahead_added,
    lookahead_step,
    qr_step,
)
from .._utils._sklearn_compat import num_samples
from .._utils._warnings import warn
from ._kernels import (
    AdaptiveGaussian,
    check_finite_coordinates,
    check_precomputed,
    kernel_columns,
    kernel_diagonal,
    kernel_source,
    not_finite_message,
    pivot_columns,
    singular_pivots_message,
)

__all__ = ["FLOOR", "RPCHOLESKY_BLOCK", "CSIResult", "LowRankFactor", "PivotMap",
           "orthonormal_basis",
           "SpectralFactor", "check_rank", "cholesky_side_information", "cholesky_step",
           "dense_pivoted_cholesky", "input_map",
           "pivoted_cholesky", "power_of_four_below", "power_of_two_below",
           "randomly_pivoted_cholesky", "rejection_cholesky", "rpcholesky_columns",
           "side_information", "targets"]


def power_of_two_below(x):
    """A power of two in (x / 2, x] (1 for x = 0), always finite: dividing by
    it is exact (barring underflow), so results computed on scaled values are
    the same as on the values themselves."""
    if x == 0:
        return 1.0
    mantissa, exponent = np.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return float(np.ldexp(1.0, int(exponent) - 1))


def power_of_four_below(x):
    """``(k_scale, g_scale)``: ``k_scale = g_scale ** 2`` a power of four in
    (x / 4, x] (1 for x = 0) and ``g_scale`` its square root, a power of two.
    A kernel divided by ``k_scale`` (exact, barring underflow) has its
    largest diagonal entry in [1, 4), and its factor G is that of the
    kernel itself divided by ``g_scale``, exactly."""
    if x == 0:
        return 1.0, 1.0
    mantissa, exponent = np.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= mantissa < 1
    half = (int(exponent) - 1) // 2   # 4**half <= 2**(exponent - 1) <= x
    return float(np.ldexp(1.0, 2 * half)), float(np.ldexp(1.0, half))


def cholesky_step(values, G, g_p, d_p, d, earlier):
    """One step of greedy pivoted incomplete Cholesky on a block of rows.

    The new column ``(K[:, p] - G G[p]') / sqrt(d_p)`` from the pivot's
    kernel values ``values`` (overwritten and returned), with exact zeros at
    the rows of the earlier pivots ``earlier`` (an index or a mask, so that
    ``G[pivots]`` stays lower triangular), and the residual diagonal ``d``
    of the block updated in place, ``d <- max(d - col^2, 0)``.  The one
    step of :func:`pivoted_cholesky`, which runs it on all the rows, and of
    the factor built on dask chunks, which runs it on each chunk.

    In NumPy, not the compiled ``cholesky_append`` of CSI: its product runs
    on SciPy's BLAS, and alternating it with the kernel column's products
    on NumPy's BLAS made two thread pools spin against each other (slower
    than a NumPy loop with two threads: benchmarks/bench_rpcholesky.py
    measures both).

    Parameters
    ----------
    values : ndarray of shape (m,)
        Kernel values ``K[rows, p]`` of the block's rows against the pivot.
    G : ndarray of shape (m, k)
        The block's rows of the k columns before.
    g_p : ndarray of shape (k,)
        The pivot's row of those columns.
    d_p : float
        The pivot's residual diagonal (> 0).
    d : ndarray of shape (m,)
        The block's residual diagonal, updated in place.
    earlier : array-like of int or bool
        The block's rows that are earlier pivots.

    Returns
    -------
    ndarray of shape (m,)
        The new column on the block (``values``, overwritten).
    """
    if G.shape[1]:
        values -= G @ g_p
    values[earlier] = 0.0
    values *= 1.0 / np.sqrt(d_p)
    d -= values * values
    np.maximum(d, 0.0, out=d)
    return values


def pivoted_cholesky(column, diag, max_rank, tol, *, stop="residual"):
    """Pivoted incomplete Cholesky from kernel columns.

    At step k the pivot p is the point of largest residual diagonal
    ``d_p = K_pp - |G[p, :k]|^2`` and the new column is
    ``G[:, k] = (K[:, p] - G[:, :k] G[p, :k]') / sqrt(d_p)``
    (Bach & Jordan 2005, Section 2.1; :func:`cholesky_step`).  Memory
    O(n r) for the r columns made: the buffer grows by doubling, so a large
    ``max_rank`` (n, for CSIDecomposition's default) costs nothing until used.

    Parameters
    ----------
    column : callable
        ``column(p)`` returns the kernel column K[:, p] as an ndarray (n,).
    diag : ndarray of shape (n,)
        The kernel's diagonal.
    max_rank : int
        Largest number of columns.
    tol : float
        ``stop='residual'``: stop once the residual trace ``tr(K - G G')``
        is at most ``tol * tr(K)``.  ``stop='gain'``: stop after a column
        whose squared norm is below ``tol * tr(K)`` (kept), CSI's rule
        without side information (its gain, Bach & Jordan Section 2.2).
    stop : {'residual', 'gain'}, default='residual'

    Returns
    -------
    G : ndarray of shape (n, r), Fortran-ordered
    pivots : ndarray of shape (r,), intp
    residual_trace : ndarray of shape (r + 1,)
        ``tr(K - G G')`` before the first and after each step.
    norms : ndarray of shape (r,)
        The squared norm of each column (its reduction of the trace).
    """
    n = diag.shape[0]
    d = np.array(diag, dtype=np.float64)
    if not np.isfinite(d).all():
        raise ValueError("The kernel's diagonal is not finite (NaN or inf): nothing to factor.")
    np.maximum(d, 0.0, out=d)
    trace0 = d.sum()
    cap = min(max_rank, 128)
    G = np.zeros((n, cap), order="F")  # columns contiguous for the step
    pivots = np.zeros(max_rank, dtype=np.intp)
    residual = [trace0]
    norms = []
    # pivots whose residual is below this are numerically dependent on the others
    floor = 1e-12 * max(d.max(), np.finfo(float).tiny) if n else 0.0
    k = 0
    while k < max_rank and (stop == "gain" or residual[-1] > tol * trace0):
        p = int(np.argmax(d))
        if d[p] <= floor:
            break
        values = np.array(column(p), dtype=np.float64).reshape(-1)
        if not np.isfinite(values).all():
            raise ValueError(f"Kernel column {p} is not finite (NaN or inf): nothing to factor.")
        if k == cap:
            cap = min(max_rank, 2 * cap)
            grown = np.zeros((n, cap), order="F")
            grown[:, :k] = G
            G = grown
        G[:, k] = cholesky_step(values, G[:, :k], G[p, :k], d[p], d, pivots[:k])
        d[p] = 0.0
        pivots[k] = p
        k += 1
        residual.append(max(float(d.sum()), 0.0))
        norms.append(float(G[:, k - 1] @ G[:, k - 1]))
        if stop == "gain" and norms[-1] / trace0 < tol:
            break
    # column-major as built (no copy when the buffer is full)
    G = G if k == cap else np.asfortranarray(G[:, :k])
    return G, pivots[:k], np.array(residual), np.array(norms)



def dense_pivoted_cholesky(K, max_rank, tol):
    """:func:`pivoted_cholesky`'s greedy rule on a kernel matrix held whole.

    The same pivots (the largest residual diagonal at each step, to
    rounding and ties) computed by LAPACK's blocked pivoted Cholesky
    (``dpstrf``, BLAS-3: it defers the update of the trailing matrix to
    blocks of columns, which a factor built column by column from kernel
    columns cannot), run to the numerical rank (residual diagonal at most
    1e-12 of the largest) and then cut to ``max_rank`` columns and to the
    first residual trace at most ``tol * tr(K)``.  It pays when most of the
    n columns are wanted (KernelKMeans on a precomputed kernel): the run
    costs O(n r_num^2) whatever ``max_rank`` is.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The symmetric kernel matrix (not modified).
    max_rank : int
    tol : float

    Returns
    -------
    As :func:`pivoted_cholesky` (G column-major, ``G[pivots]`` lower
    triangular; the residual traces are ``tr(K) - sum_k |g_k|^2``).
    """
    n = K.shape[0]
    d = np.maximum(np.diag(K).astype(np.float64), 0.0)
    if not np.isfinite(d).all():
        raise ValueError("The kernel's diagonal is not finite (NaN or inf): nothing to factor.")
    trace0 = float(d.sum())
    floor = FLOOR * max(d.max(initial=0.0), np.finfo(float).tiny)
    if d.max(initial=0.0) <= floor:
        return np.zeros((n, 0), order="F"), np.zeros(0, np.intp), np.array([trace0]), \
            np.zeros(0)
    c, piv, rank, info = lapack.dpstrf(np.array(K, dtype=np.float64, order="F"), lower=1,
                                       tol=floor)
    if info < 0:  # pragma: no cover - an argument error of ours
        raise ValueError(f"LAPACK dpstrf: illegal argument {-info}.")
    pivots = (piv[:rank] - 1).astype(np.intp)
    G = np.zeros((n, rank), order="F")
    G[piv - 1] = np.tril(c[:, :rank])  # rows back in the data's order
    del c
    norms = np.einsum("ij,ij->j", G, G)
    with np.errstate(invalid="ignore"):  # (a trace that overflows: every column kept)
        residual = np.maximum(trace0 - np.cumsum(norms), 0.0)
    below = np.flatnonzero(residual <= tol * trace0)
    k = min(max_rank, rank, int(below[0]) + 1 if below.size else rank)
    G = G if k == rank else np.asfortranarray(G[:, :k])
    return G, pivots[:k], np.concatenate([[trace0], residual[:k]]), norms[:k]


#: Proposals per round of :func:`randomly_pivoted_cholesky` (see there).
RPCHOLESKY_BLOCK = 100


def randomly_pivoted_cholesky(columns, submatrix, diag, max_rank, tol, *, block_size=None,
                              random_state=None):
    """Randomly pivoted incomplete Cholesky, blocked, with rejection sampling.

    RPCholesky (Chen, Epperly, Tropp & Webber, "Randomly pivoted Cholesky:
    practical approximation of a kernel matrix with few entry evaluations",
    CPAM 2024, arXiv:2207.06503, Alg. 2.1) picks each pivot at random with
    probability proportional to the residual diagonal ``d``, instead of
    its largest entry.  This is the accelerated variant of Epperly, Tropp &
    Webber ("Embrace rejection: kernel matrix approximation by accelerated
    randomly pivoted Cholesky", arXiv:2410.03969), which draws the same
    pivots in the same distribution as pivot-at-a-time RPCholesky but with
    block (BLAS-3) arithmetic.  Written from the papers; the authors' MIT
    code (github.com/eepperly/Randomly-Pivoted-Cholesky) was read, not copied.
    Each round:

    1. propose ``b = block_size`` points i.i.d. from ``d / sum(d)``;
    2. form the b x b residual ``H = K[S, S] - G[S] G[S]'`` (one call of
       ``submatrix``, b^2 kernel entries) and run through the proposals in
       order, accepting proposal j with probability ``H_jj / d_j``, where
       ``H_jj`` is its residual after the pivots accepted before it in
       this round (a Cholesky step on H per acceptance).  A duplicate,
       an earlier pivot, or a point whose residual is numerically zero
       (at most 1e-12 of the largest diagonal) is never accepted, so no
       pivot is numerically dependent on the others;
    3. for the accepted set A (with ``L`` the lower-triangular Cholesky
       factor of ``H[A, A]`` from step 2), one call of ``columns`` and two
       BLAS-3 products:
       ``G[:, new] = (K[:, A] - G G[A]') L^-T``, then
       ``d <- max(d - rowsum(G[:, new]^2), 0)``.

    ``G[pivots]`` is lower triangular (zeros set exactly at the earlier
    pivots' rows, ``L`` itself at the new ones), so :class:`PivotMap` is the
    out-of-sample map, as for :func:`pivoted_cholesky`.  Kernel entries:
    n (the diagonal) + n per pivot + b^2 per round, about (r + 1) n.

    Why b = 100 by default: the rejection keeps every accepted pivot an
    exact RPCholesky sample whatever b, so b only trades work.  The
    proposals cost b^2 kernel entries and O(b^2 r + b^3) flops per round,
    nothing of size n, while each round's n-sized work is a product with
    as many columns as were accepted; acceptance falls as the round's
    pivots explain the proposals' residual, so much larger b adds
    rejected proposals rather than columns, and much smaller b means
    thin, slow products and more rounds (the accelerated paper's
    experiments use blocks of about this size).

    Parameters
    ----------
    columns : callable
        ``columns(S)`` returns K[:, S] as a new ndarray (n, len(S)), which
        is overwritten.
    submatrix : callable
        ``submatrix(S)`` returns K[S, S] (len(S), len(S)).
    diag : ndarray of shape (n,)
        The kernel's diagonal.
    max_rank : int
        Largest number of columns.
    tol : float
        Stop once the residual trace ``tr(K - G G')`` is at most
        ``tol * tr(K)`` (checked after every column).
    block_size : int, default=None
        Proposals per round; ``None``: ``min(max_rank, 100)``.
    random_state : int, RandomState instance or None
        Draws the proposals and the acceptances.

    Returns
    -------
    G : ndarray of shape (n, r), C-contiguous
    pivots : ndarray of shape (r,), intp
    residual_trace : ndarray of shape (r + 1,)
        ``tr(K - G G')`` before the first and after each column.
    """
    rng = check_random_state(random_state)
    n = diag.shape[0]
    d = np.array(diag, dtype=np.float64)
    if not np.isfinite(d).all():
        raise ValueError("The kernel's diagonal is not finite (NaN or inf): nothing to factor.")
    np.maximum(d, 0.0, out=d)
    b = min(max_rank, RPCHOLESKY_BLOCK) if block_size is None else int(block_size)
    if b < 1:
        raise ValueError(f"block_size={block_size} must be at least 1.")
    trace0 = float(d.sum())
    G = np.zeros((n, max_rank))
    pivots = np.zeros(max_rank, dtype=np.intp)
    residual = [trace0]
    floor = FLOOR * max(d.max(), np.finfo(float).tiny) if n else 0.0
    k = 0
    while k < max_rank and residual[-1] > tol * trace0:
        total = float(d.sum())
        if not total > 0.0 or d.max() <= floor:
            break
        S = rng.choice(n, size=b, p=d / total)
        u = rng.uniform(size=b)
        dS = d[S]
        H = np.array(submatrix(S), dtype=np.float64).reshape(b, b)
        if not np.isfinite(H).all():
            raise ValueError("Kernel values are not finite (NaN or inf): nothing to factor.")
        if k:
            H -= G[S, :k] @ G[S, :k].T
        accepted, C = rejection_cholesky(H, dS, u, floor, max_rank - k)
        if not accepted.size:
            # every proposal rejected: their residuals are exact in H, so
            # d there becomes H's diagonal (numerically zero ones to 0);
            # the next round draws from the corrected weights
            h = np.diag(H).copy()
            h[h <= floor] = 0.0
            d[S] = np.minimum(d[S], np.maximum(h, 0.0))
            continue
        A = S[accepted]
        L = C[accepted]  # lower triangular, the Cholesky factor of H[A, A]
        # (overwritten in place: ``columns`` returns a fresh array)
        values = np.asarray(columns(A), dtype=np.float64).reshape(n, A.shape[0])
        if not np.isfinite(values).all():
            raise ValueError("Kernel columns are not finite (NaN or inf): nothing to factor.")
        new = rpcholesky_columns(values, G[:, :k], G[A, :k], L, pivots[:k], A,
                                 slice(None))
        # residual trace after each new column; stop at the first below tol
        norms = np.einsum("ij,ij->j", new, new)
        after = total - np.cumsum(norms)
        below = np.flatnonzero(after <= tol * trace0)
        m = int(below[0]) + 1 if below.size else A.shape[0]
        new = new[:, :m]
        G[:, k:k + m] = new
        pivots[k:k + m] = A[:m]
        d -= np.einsum("ij,ij->i", new, new)
        np.maximum(d, 0.0, out=d)
        d[A[:m]] = 0.0
        k += m
        residual.extend(np.maximum(after[:m - 1], 0.0).tolist())
        residual.append(max(float(d.sum()), 0.0))
    return np.ascontiguousarray(G[:, :k]), pivots[:k], np.array(residual)


def rpcholesky_columns(values, G, GA, L, earlier, own, own_rows):
    """A round of randomly pivoted Cholesky on a block of rows: its new columns.

    ``(K[:, A] - G G[A]') L^-T`` from the kernel values ``values`` of the
    block's rows against the round's pivots A (overwritten), with exact
    zeros at the rows of earlier pivots and ``L`` itself at the rows of the
    round's own pivots (so that ``G[pivots]`` is lower triangular).  The one
    round of :func:`randomly_pivoted_cholesky` (all rows at once) and of the
    factor built on dask chunks (each chunk, replaying the rounds).

    Parameters
    ----------
    values : ndarray of shape (m, a)
        Kernel values of the block's rows against the a pivots.
    G : ndarray of shape (m, k)
        The block's rows of the k columns before.
    GA : ndarray of shape (a, k)
        The pivots' rows of those columns.
    L : ndarray of shape (a, a)
        Lower triangular, the Cholesky factor of the pivots' residual block.
    earlier : array-like of int or bool
        The block's rows that are earlier pivots.
    own : array-like of int or bool
        The block's rows that are this round's pivots ...
    own_rows : array-like of int or slice
        ... and which pivots they are (rows of ``L``).

    Returns
    -------
    ndarray of shape (m, a)
    """
    if G.shape[1]:
        values -= G @ GA.T
    new = linalg.solve_triangular(L, values.T, lower=True, overwrite_b=True,
                                  check_finite=False).T
    new[earlier] = 0.0
    new[own] = L[own_rows]
    return new


def rejection_cholesky(H, dS, u, floor, limit):
    """Rejection sampling on the proposals' residual block H (in place).

    Proposal j (drawn with weight ``dS[j]``) is accepted when
    ``u[j] * dS[j] < H_jj``, H_jj its residual after the proposals accepted
    before it, and when H_jj is above ``floor``; each acceptance is a
    Cholesky step on H.  Returns the accepted positions and C (b x b): the
    accepted Cholesky columns, so that ``C[accepted]`` is lower triangular
    with ``C[accepted] C[accepted]' = H[accepted, accepted]`` (Epperly,
    Tropp & Webber 2024, the rejection step of accelerated RPCholesky).
    """
    b = H.shape[0]
    C = np.zeros((b, b))
    accepted = []
    for j in range(b):
        h = H[j, j]
        if h <= floor or u[j] * dS[j] >= h:
            continue
        m = len(accepted)
        col = H[:, j] / np.sqrt(h)
        col[accepted] = 0.0  # exact zeros at the earlier pivots: C[accepted] triangular
        C[:, m] = col
        H -= np.outer(col, col)
        H[j, :] = 0.0
        H[:, j] = 0.0
        accepted.append(j)
        if len(accepted) == limit:
            break
    return np.array(accepted, dtype=np.intp), C[:, :len(accepted)]


#: A residual diagonal below this share of the largest one is numerically zero.
FLOOR = 1e-12


@dataclass
class CSIResult:
    """What :func:`cholesky_side_information` returns.

    Attributes
    ----------
    G : ndarray of shape (n, m), Fortran order
        The factor: K ~= G G', ``G[pivots]`` lower triangular.
    pivots : ndarray of shape (m,)
    Q, R : ndarrays of shape (n, m) and (m, m)
        ``Pi G = Q R`` (Pi: centring, or the identity).
    approximation_error : ndarray of shape (m + 1,)
        ``tr(K - G_k G_k')`` for k = 0, ..., m.
    prediction_error : ndarray of shape (m + 1,)
        ``|Y - Q_k Q_k' Y|_F^2`` (Y centred if asked) for k = 0, ..., m.
    gains : ndarray of shape (m,)
        The true reduction of J at each step.
    predicted_gains : ndarray of shape (m,) or None
        The estimated reduction (eq. 9-10) that chose each pivot: the
        largest over the candidates; without side information the lower
        bound of Section 2.2, ``lam D(i_k)``.  None on dask chunks.
    """

    G: np.ndarray
    pivots: np.ndarray
    Q: np.ndarray
    R: np.ndarray
    approximation_error: np.ndarray
    prediction_error: np.ndarray
    gains: np.ndarray
    predicted_gains: np.ndarray = None


def cholesky_side_information(column, diag, Y, *, max_rank, kappa=0.99, delta=40,
                              tol=1e-4, center=True, random_state=None):
    """CSI (Bach & Jordan 2005, Figure 1) from kernel columns.

    Parameters
    ----------
    column : callable
        ``column(p)`` returns the kernel column K[:, p].
    diag : ndarray of shape (n,)
        The kernel's diagonal.
    Y : ndarray of shape (n, d) or None
        Side information (one-hot classes, or responses).  ``None`` (or
        ``kappa = 0``, or ``delta = 0``: with no look-ahead no column is
        known in advance and the estimated gain reduces to the lower bound of
        Section 2.2) gives plain pivoted incomplete Cholesky.
    max_rank : int
        m, the largest number of columns.
    kappa : float in [0, 1]
        Trade-off between predicting Y (1) and approximating K (0), as in
        Section 3.2 and kernlab's ``csi``: ``lam = (1 - kappa) / tr K``,
        ``mu = kappa / tr(Y'Y)``; the paper runs 0.99.
    delta : int
        Look-ahead steps.
    tol : float
        Stop once the true gain of a step (of the normalised J, which is 1
        at G = 0) falls below ``tol``.
    center : bool
        Centre Y and the columns of G before the QR (an intercept, §5.4).
    random_state : int, RandomState instance or None
        Breaks ties between pivots of equal estimated gain.

    Returns
    -------
    CSIResult
    """
    rng = check_random_state(random_state)
    diag = np.asarray(diag, dtype=np.float64)
    if not np.isfinite(diag).all():
        raise ValueError("The kernel's diagonal is not finite (NaN or inf): nothing to factor.")
    diag = np.maximum(diag, 0.0)
    n = diag.shape[0]
    d_max = float(diag.max()) if n else 0.0
    with np.errstate(over="ignore"):
        trace = float(diag.sum())
    if not np.isfinite(trace):
        raise ValueError(
            f"The kernel's trace overflows float64 (largest diagonal entry {d_max:.3g}, "
            f"n = {n}): rescale X or the kernel (CSI's pivots do not depend on the "
            f"kernel's scale).")
    # J depends on K only up to scale too (lam = (1 - kappa) / tr K, residuals
    # compared with FLOOR * max diag): the run works on K / k_scale, a power of
    # four that puts the largest diagonal entry in [1, 4) (exact, so the pivots
    # are those of K itself), and G, R and the approximation errors are scaled
    # back at the end (by powers of two: exact).  Otherwise the estimated gains'
    # nu = dadv (2 dk - dadv), of the order of diag^2, overflow for a kernel
    # above ~1e154 (and underflow below ~1e-162): a finite kernel called zero.
    k_scale, g_scale = power_of_four_below(d_max)
    if k_scale != 1.0:
        diag = diag / k_scale
        trace = float(diag.sum())
        kernel_column = column

        def column(p):
            return np.asarray(kernel_column(p), dtype=np.float64) / k_scale
    if Y is None:
        Y = np.zeros((n, 0))
    Y = np.asfortranarray(Y, dtype=np.float64)
    # J depends on Y only up to scale (mu = kappa / tr(Y'Y)): the run
    # works on Y / y_scale, a power of two (exact, so the pivots are those of
    # Y itself), and the prediction errors are scaled back at the end.  A
    # huge y then neither overflows tr(Y'Y) nor silently drops the side
    # information.
    y_max = float(np.abs(Y).max()) if Y.size else 0.0
    y_scale = power_of_two_below(y_max)
    Y = np.asfortranarray(Y / y_scale)
    if center and Y.shape[1]:
        Y = np.asfortranarray(Y - Y.mean(0))
    y_norm = float((Y ** 2).sum())
    if trace <= 0:
        raise ValueError("The kernel is zero on the training data: nothing to factor.")
    # Section 3.2: lam = (1 - kappa) / tr K, mu = kappa / tr(Y'Y) (the paper's
    # kappa = 0.99 puts nearly all the weight on predicting Y)
    mu = kappa / y_norm if y_norm > 0 else 0.0
    plain = mu == 0.0 or delta == 0  # plain pivoted incomplete Cholesky
    lam = (1.0 - kappa) / trace if mu > 0 else 1.0 / trace
    if plain:
        # greedy pivoted incomplete Cholesky, the factor kind of that name:
        # its step, stopped by the gain lam |g_k|^2 = |g_k|^2 / tr(K)
        G, pivots, approx, norms = pivoted_cholesky(column, diag, max_rank, tol,
                                                    stop="gain")
        if k_scale != 1.0:
            G *= g_scale
            approx = approx * k_scale
        return _plain_result(G, pivots, approx, norms / trace, Y, y_norm, y_scale, y_max,
                             center)
    floor = FLOOR * diag.max()
    d = Y.shape[1]
    buf = _Buffers(n, d, min(n, max_rank + delta), delta)
    acc = np.zeros((n, max(d, 1)), order="F")
    work = np.empty(3 * n + 3 * buf.limit + delta + 2)
    dadv = diag.copy()  # residual after all t columns
    dk = diag.copy()    # residual after the chosen k0 columns
    A = np.zeros(n)
    used = np.zeros(n, dtype=bool)      # among the t columns
    chosen = np.zeros(n, dtype=bool)    # among the first k0
    gains_est = np.empty(n)
    # Q is held as Q_s U, its columns formed one step late (qr_step)
    prev = np.empty(n)
    qstate = np.zeros(3 + buf.limit)
    qwork = np.empty(n + 2 * (buf.limit + 1) + d)
    t = k0 = 0

    def append(p, lookahead=True):
        """Column t from pivot p (``lookahead``: its look-ahead update too;
        a step's own append leaves it to ``lookahead_step``)."""
        nonlocal t
        buf.ensure(t)
        values = np.ascontiguousarray(column(p), dtype=np.float64).reshape(-1)
        if not np.isfinite(values).all():
            raise ValueError(f"Kernel column {p} is not finite (NaN or inf): nothing to factor.")
        cholesky_append(buf.G, dadv, values, t, buf.pivots, p)
        qr_step(buf.Q, buf.R, buf.E, buf.Es, buf.U, Y, buf.G, t, center, prev, qstate, qwork)
        if lookahead:
            lookahead_added(A, buf.W, buf.G, buf.R, k0, t, work, buf.M)
        buf.pivots[t] = p
        used[p] = True
        t += 1

    def classical():
        """The largest residual diagonal among unused points (Section 2.2)."""
        masked = np.where(used, -1.0, dadv)
        p = int(np.argmax(masked))
        return p if masked[p] > floor else None

    approx = [trace]
    pred = [y_norm]
    gains = []
    predicted = []
    while t < delta and t < buf.limit:  # the first look-ahead steps
        p = classical()
        if p is None:
            break
        append(p)
    while k0 < max_rank:
        if k0 == t:
            break
        # a point outside the look-ahead with no residual left after it is
        # numerically in its span: it cannot be appended as a new column
        candidate = (~chosen & (dk > floor) & (used | (dadv > floor))).view(np.uint8)
        estimated_gains(gains_est, A, dk, dadv, buf.W, buf.E, k0, t, lam, mu, candidate,
                        acc, work)
        best = gains_est.max()
        if best == -np.inf:  # no candidate left: every residual is numerically zero
            break
        if not np.isfinite(best):
            raise ValueError(
                f"The estimated gains of CSI are not finite (NaN or inf) at step {k0 + 1}: "
                f"the kernel (largest diagonal entry {d_max:.3g}) or y (largest |y| "
                f"{y_max:.3g}) is out of float64's range, or the kernel is far from positive "
                f"semi-definite; rescale X or y, or check the kernel.")
        ties = np.flatnonzero(gains_est >= best - 1e-12 * abs(best))
        p = int(ties[0] if ties.size == 1 else rng.choice(ties))
        appended = not used[p]
        if appended:
            if t == buf.limit:
                break
            append(p, lookahead=False)
        elif t < buf.limit:  # keep delta columns ahead: the classical pivot
            extra = classical()
            if extra is not None:
                append(extra, lookahead=False)
                appended = True
        predicted.append(float(best))
        pos = k0 + int(np.flatnonzero(buf.pivots[k0:t] == p)[0])
        # the appended column's look-ahead update, the move of p to position k0
        # (App. A) and p chosen
        gg = lookahead_step(A, dk, buf.G, buf.U, buf.R, buf.E, buf.W, buf.M, buf.pivots, k0,
                            t, appended, pos, work)
        chosen[buf.pivots[k0]] = True
        qy = float((buf.E[:, k0] ** 2).sum()) if d else 0.0
        k0 += 1
        approx.append(max(float(dk.sum()), 0.0))
        pred.append(max(pred[-1] - qy, 0.0))
        gain = lam * gg + mu * qy
        gains.append(gain)
        if gain < tol:
            break
    m = k0
    G, pivots = buf.G[:, :m], buf.pivots
    complete_pending(buf.Q, prev, qstate, t)
    # Q = Q_s U, into W's buffer (no longer needed): no third n x cap array
    Q = (linalg.blas.dgemm(1.0, buf.Q[:, :t], buf.U[:t, :m], c=buf.W[:, :m], overwrite_c=True)
         if m else np.zeros((n, 0)))
    R = np.triu(buf.R[:m, :m])
    approx = np.array(approx)
    if k_scale != 1.0:  # back to K's units (Q and the gains do not scale)
        G *= g_scale
        R *= g_scale
        approx *= k_scale
    return CSIResult(G=G, pivots=pivots[:m].copy(), Q=Q, R=R,
                     approximation_error=approx,
                     prediction_error=_prediction_error(pred, y_scale, y_max),
                     gains=np.array(gains), predicted_gains=np.array(predicted))


def _prediction_error(pred, y_scale, y_max):
    """The prediction errors back in the units of y (exact: ``y_scale`` is a
    power of two), or a ValueError if they overflow."""
    with np.errstate(over="ignore"):
        prediction_error = np.maximum(np.array(pred), 0.0) * y_scale * y_scale
    if not np.isfinite(prediction_error).all():
        raise ValueError(
            f"y is too large: its squared norm |y - mean(y)|^2, the prediction error at "
            f"rank 0, overflows float64 (largest |y| = {y_max:.3g}); "
            f"rescale y (CSI's pivots do not depend on the scale of y)."
        )
    return prediction_error


def _plain_result(G, pivots, approx, gains, Y, y_norm, y_scale, y_max, center):
    """CSI's result without side information: the greedy factor ``G`` and the
    QR of its (centred) columns, done once at the end; ``Y`` (scaled by
    ``y_scale``, centred if ``center``) gives prediction errors only."""
    Gc = G - G.mean(0) if center else G.copy(order="F")
    norms = np.sqrt(np.einsum("ij,ij->j", Gc, Gc))  # (no n x m temporary)
    Q, R = linalg.qr(Gc, mode="economic", overwrite_a=True, check_finite=False)
    del Gc
    # a column already in the span of the earlier ones (e.g. constant once
    # centred, as the one column of a single sample) adds no direction:
    # Q[:, k] = 0 and R[k, k] = 0, as qr_append does, rather than the
    # arbitrary unit vector of the Householder QR
    flat = np.abs(np.diag(R)) <= 1e-12 * norms
    Q[:, flat] = 0.0
    R[flat, flat] = 0.0
    pred = np.full(G.shape[1] + 1, y_norm)
    if y_norm > 0:  # y given but not used for the pivots: its prediction errors
        pred = y_norm - np.concatenate([[0.0], np.cumsum(((Y.T @ Q) ** 2).sum(0))])
    # the lower bound of Section 2.2 that chose each pivot: its residual
    # diagonal before the step, G[i_k, k]^2, over tr K
    predicted = G[pivots, np.arange(G.shape[1])] ** 2 / approx[0]
    return CSIResult(G=G, pivots=pivots, Q=Q, R=R, approximation_error=approx,
                     prediction_error=_prediction_error(pred, y_scale, y_max),
                     gains=gains, predicted_gains=predicted)


class _Buffers:
    """The column-major arrays of a CSI run, grown by doubling as columns come.

    G, Q, W are n x cap, R, U and M cap x cap, E and Es d x cap, pivots cap
    (Q is ``Q_s`` of ``qr_step``, U the identity beyond the columns in use, M
    the Gram matrix of the look-ahead columns of G); ``limit`` is
    the most columns a run may use (min(n, max_rank + delta)).  Starting
    small and doubling keeps the memory at O(n (m + delta)) for a run that
    stops at rank m, whatever ``max_rank`` (n by default) allows.
    """

    def __init__(self, n, d, limit, delta):
        self.n, self.d, self.limit = n, d, limit
        self.cap = 0
        cap = delta + 64
        cap = limit if limit <= 2 * cap else cap  # one growth saved is worth it
        self.G = np.zeros((n, 0), order="F")
        self.Q = np.zeros((n, 0), order="F")
        self.W = np.zeros((n, 0), order="F")
        self.R = np.zeros((0, 0), order="F")
        self.U = np.zeros((0, 0), order="F")
        self.M = np.zeros((0, 0), order="F")
        self.E = np.zeros((d, 0), order="F")
        self.Es = np.zeros((d, 0), order="F")
        self.pivots = np.zeros(0, dtype=np.intp)
        self._resize(cap)

    def ensure(self, t):
        """Room for column t."""
        if t >= self.cap:
            self._resize(min(self.limit, max(2 * self.cap, t + 1)))

    def _resize(self, cap):
        def grow(a, rows, square=False):
            out = np.zeros((cap if square else rows, cap), order="F")
            out[:a.shape[0], :a.shape[1]] = a
            return out

        old = self.cap
        self.G = grow(self.G, self.n)
        self.Q = grow(self.Q, self.n)
        self.W = grow(self.W, self.n)
        self.R = grow(self.R, cap, square=True)
        U = np.asfortranarray(np.eye(cap))
        U[:old, :old] = self.U
        self.U = U
        self.M = grow(self.M, cap, square=True)
        self.E = grow(self.E, self.d)
        self.Es = grow(self.Es, self.d)
        pivots = np.zeros(cap, dtype=np.intp)
        pivots[:old] = self.pivots
        self.pivots = pivots
        self.cap = cap


#: Most cells (n_samples x n_classes) of the one-hot side information that
#: class labels become for CSI: the run holds several dense arrays of that
#: shape (Y, its scaled and centred copies, the predictions' accumulator),
#: 512 MB each at the limit (e.g. 100,000 samples of up to 671 classes).
ONE_HOT_MAX_CELLS = 2**26


class OneHotTooLarge(ValueError):
    """The one-hot side information of ``y`` would exceed ``ONE_HOT_MAX_CELLS``
    (a ValueError raised before it is formed, passed on as it is)."""


def check_one_hot_size(n, n_classes):
    """Refuse class labels whose one-hot encoding (n x n_classes) would
    exceed ``ONE_HOT_MAX_CELLS``, before it is formed."""
    if n * n_classes > ONE_HOT_MAX_CELLS:
        raise OneHotTooLarge(
            f"y holds class labels with {n_classes} classes for {n} samples: their "
            f"one-hot side information (n_samples x n_classes = {n * n_classes} cells, "
            f"{n * n_classes * 8 / 2**30:.3g} GB per array) exceeds the limit of "
            f"{ONE_HOT_MAX_CELLS} cells. If y is a regression target (counts, "
            "measurements), pass it as floating-point responses (y.astype(float)); "
            "otherwise merge classes, or factor without side information "
            "(CSIDecomposition without y, low_rank='cholesky' in the kernel learners).")


def targets(y):
    """Side information as an (n, d) float matrix.

    Floating-point y are responses (one column or several: regression, as
    the paper's d response variables); any other y holds class labels,
    one-hot encoded (d = number of classes).
    """
    y = np.asarray(y)
    if y.dtype.kind == "f":
        return y.reshape(y.shape[0], -1).astype(np.float64)
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind in ("binary", "multiclass"):
        check_one_hot_size(y.shape[0], max(np.unique(y.reshape(-1)).shape[0], 2))
        Y = LabelBinarizer().fit_transform(y.reshape(-1)).astype(np.float64)
        if Y.shape[1] == 1:  # LabelBinarizer gives one column for two classes
            Y = np.hstack([1.0 - Y, Y])
        return Y
    if kind == "multilabel-indicator":
        return y.astype(np.float64)
    raise ValueError(
        f"Unknown label type: y must be class labels (integers or strings) or "
        f"floating-point responses (one or more columns); got target type {kind!r}."
    )


def side_information(y, unlabeled=-1):
    """One-hot class indicators with zero rows for unlabeled samples.

    The side information of CSI when it starts a kernel learner from labels
    (``low_rank='csi'``): samples labelled ``unlabeled`` carry none.
    """
    y = np.asarray(y)
    labeled = np.ones(y.shape[0], bool) if unlabeled is None else y != unlabeled
    Y = np.zeros((y.shape[0], 0))
    if labeled.any():
        classes, codes = np.unique(y[labeled], return_inverse=True)
        check_one_hot_size(y.shape[0], classes.shape[0])
        Y = np.zeros((y.shape[0], classes.shape[0]))
        Y[np.flatnonzero(labeled), codes] = 1.0
    return Y



def orthonormal_basis(G0):
    """Thin SVD ``G0 = U diag(s) Vt`` restricted to the non-negligible part.

    The von Neumann divergence is invariant under orthogonal changes of
    basis only (ARCHITECTURE.md), so its r x r problems are posed on ``U``;
    directions with singular values below ``1e-10 s_max`` carry no kernel
    and are left out (K0 has that lower rank).
    """
    U, s, Vt = linalg.svd(G0, full_matrices=False)
    keep = s > s[0] * 1e-10 if s.size and s[0] > 0 else np.zeros(s.shape, bool)
    if not keep.any():
        raise ValueError("The initial kernel is zero: nothing to learn from.")
    return np.ascontiguousarray(U[:, keep]), s[keep], Vt[keep]


class PivotMap:
    """The out-of-sample map of a factor built from pivot columns.

    ``phi0(x) = k0(x, X_pivots) L^-T`` with ``L = G[pivots]`` lower
    triangular (the Nystrom form; Bach & Jordan 2005, Section 6.2): on a
    training point it gives that point's row of G.  Only the pivots' rows
    are kept (for ``kernel='precomputed'``, ``phi0`` reads the columns of
    the pivots in rows of kernel values against all training points).

    Parameters
    ----------
    G : ndarray of shape (n, r)
        The factor, ``G[pivots]`` lower triangular.
    pivots : ndarray of shape (r,)
    X : ndarray of shape (n, n_features), or the kernel matrix if precomputed
        The training points.
    kernel : str or callable
    params : dict
        Kernel parameters.
    adaptive : AdaptiveGaussian, default=None
        The fitted adaptive Gaussian when ``kernel='adaptive_rbf'``.
    """

    def __init__(self, G, pivots, X, kernel, params, adaptive=None):
        self.kernel = kernel
        self.params = params
        self.pivots = pivots
        self.adaptive = adaptive
        self.L = np.ascontiguousarray(G[pivots])  # lower triangular, r x r
        self.X_pivots = None if kernel == "precomputed" else X[pivots].copy()
        self.sigma_pivots = None if adaptive is None else adaptive.sigma_[pivots].copy()

    @classmethod
    def from_pivot_rows(cls, L, pivots, X_pivots, kernel, params):
        """The map from the pivots' rows ``L = G[pivots]`` and points alone
        (the factor built on chunks, :class:`sklearn_bregman._data._dask.DaskFactor`)."""
        self = cls.__new__(cls)
        self.kernel, self.params, self.pivots, self.adaptive = kernel, params, pivots, None
        self.L = np.ascontiguousarray(L)
        self.X_pivots = np.array(X_pivots)
        self.sigma_pivots = None
        return self

    def __call__(self, X):
        """phi0(X): the factor's coordinates of (new) points."""
        if self.adaptive is not None:
            Kc = self.adaptive(X, self.X_pivots, self.adaptive.bandwidth(X),
                               self.sigma_pivots)
        else:
            Kc = pivot_columns(X, self.kernel, self.params, self.X_pivots, self.pivots)
        # phi0(x) = k(x, pivots) L^-T  <=>  L phi0(x)' = k(pivots, x)
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            Z = self._solve(Kc.T, X).T
        return check_finite_coordinates(Z, self.kernel, self.params, X)

    def _solve(self, B, X):
        """``L^-1 B``; a zero on L's diagonal (kernel columns that disagreed
        with the diagonal when the factor was built) is the package's
        ValueError naming the kernel and the scale of X, not SciPy's
        LinAlgError."""
        try:
            return linalg.solve_triangular(self.L, B, lower=True, check_finite=False)
        except linalg.LinAlgError:
            X_p = self.X_pivots if self.X_pivots is not None else np.zeros(0)
            raise ValueError(singular_pivots_message(
                self.kernel, self.params, (X, X_p))) from None

    def input_map(self):
        """P of ``phi0(x) = x P`` for the linear kernel, (n_features, r):
        ``k0(x, X_pivots) = x X_pivots'``, so ``P = X_pivots' L^-T``, from the
        pivots' r rows (dense or sparse) alone: O(r n_features), never the
        identity of the input space."""
        if self.kernel != "linear":
            raise ValueError(f"phi0 of kernel={self.kernel!r} is not linear in the input.")
        X_p = self.X_pivots.toarray() if sp.issparse(self.X_pivots) else self.X_pivots
        return self._solve(np.asarray(X_p, dtype=np.float64), X_p).T


def input_map(kernel, map_):
    """P of ``phi0(x) = x P`` (``None``: the identity) of a linear kernel's
    factor whose map is ``map_``: ``None`` (phi0(x) = x), a matrix V
    (phi0(x) = x V) or a :class:`PivotMap`."""
    if kernel != "linear":
        raise ValueError(f"phi0 of kernel={kernel!r} is not linear in the input.")
    return map_.input_map() if isinstance(map_, PivotMap) else map_


def check_rank(rank, limit, what):
    """A ValueError if ``rank`` exceeds what the data allows (``limit``,
    which is ``what``)."""
    if rank > limit:
        raise ValueError(
            f"rank={rank} is larger than the data allows: at most {what} = {limit}."
        )


class LowRankFactor:
    """Initial factor G0 of a kernel and its out-of-sample map phi0.

    Parameters
    ----------
    kernel : str or callable
        'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine', a callable
        ``k(x, y) -> float``, 'precomputed' (``fit`` gets the n x n kernel
        matrix, ``transform`` rows of kernel values against the training
        points), or 'adaptive_rbf' (:class:`AdaptiveGaussian`, parameter
        ``n_neighbors`` in ``params``).
    rank : int or None
        Number of columns; ``None``: ``min(n_samples, n_features)`` for the
        linear kernel on dense X, ``min(n_samples, 100)`` otherwise (a
        sparse X is factored from pivots whatever the kernel: its rows, not
        a dense copy or an SVD of it).  Pivoted Cholesky
        stops earlier when the residual trace is below ``tol`` times the
        trace, or at the kernel's numerical rank.
    tol : float
        Relative residual trace at which pivoted Cholesky stops.
    params : dict
        Kernel parameters (gamma, degree, coef0, or the callable's own).
    method : {'cholesky', 'rpcholesky', 'csi'}, default='cholesky'
        How the pivots are chosen: the largest residual diagonal, at random
        in proportion to it (:func:`randomly_pivoted_cholesky`, blocked;
        for the linear kernel 'rpcholesky' gives the linear factor, as
        'cholesky'), or Cholesky with side information (Bach & Jordan 2005,
        :func:`cholesky_side_information`) with the class labels passed to ``fit``
        (``tol`` is then CSI's: stop when a step's gain falls below).  With
        'csi' every kernel, the linear one too, is factored from pivots.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples for 'csi' (no side information).
    random_state : int, RandomState instance or None, default=None
        Draws the pivots of 'rpcholesky' (read by no other method).

    Attributes (after ``fit``)
    --------------------------
    rank_ : int
    pivots_ : ndarray or None
        Training rows used as pivots (incomplete Cholesky only).
    residual_trace_ : ndarray or None
        tr(K - G G') before the first and after each Cholesky step.
    """

    def __init__(self, kernel, rank, tol, params, method="cholesky", unlabeled=-1,
                 random_state=None):
        self.kernel = kernel
        self.rank = rank
        self.tol = tol
        self.params = params
        self.method = method
        self.unlabeled = unlabeled
        self.random_state = random_state

    def fit(self, X, y=None):
        """Return G0 (n x rank_, C-contiguous) for the training points X.

        ``y`` (class labels) is only read by ``method='csi'``, which needs it.
        """
        n, d = X.shape
        self.pivots_ = None
        self.residual_trace_ = None
        self._map = None
        if self.kernel == "precomputed":
            check_precomputed(X)
        if self.method == "csi" and y is None:
            raise ValueError(
                "low_rank='csi' requires y to be passed, but the target y is None: CSI "
                "chooses the pivots with the class labels (with constraints=..., pass "
                "the labels as y as well)."
            )
        if self.method == "csi" and num_samples(y) != n:
            raise ValueError(
                f"low_rank='csi' chooses the pivots with the labels y, but y has "
                f"{num_samples(y)} entries and X has {n} samples."
            )
        if self.kernel == "linear" and self.method != "csi" and not sp.issparse(X):
            # G0 is X (or X V): finite, but the kernel X X' may not be; its
            # diagonal bounds every entry (|x . y| <= max(|x|^2, |y|^2))
            kernel_diagonal(X, "linear", self.params)
            limit = min(n, d)
            rank = limit if self.rank is None else self.rank
            check_rank(rank, limit, "min(n_samples, n_features)")
            if rank == d:
                self.rank_ = d
                return np.ascontiguousarray(X)
            # top right singular directions: phi0(x) = x V
            _, _, Vt = linalg.svd(X, full_matrices=False)
            self._map = np.ascontiguousarray(Vt[:rank].T)
            self.rank_ = rank
            return np.ascontiguousarray(X @ self._map)

        limit = n
        rank = min(n, 100) if self.rank is None else self.rank
        check_rank(rank, limit, "n_samples")
        if self.kernel == "adaptive_rbf":
            k0 = AdaptiveGaussian(self.params["n_neighbors"]).fit(X)
            sigma = k0.sigma_
            G, piv, res = self._pivots(
                lambda p: k0(X, X[p:p + 1], sigma, sigma[p:p + 1])[:, 0],
                np.ones(n), rank, y,
                block=(lambda S: k0(X, X[S], sigma, sigma[S]),
                       lambda S: k0(X[S], X[S], sigma[S], sigma[S])),
            )
        else:
            k0 = None
            column, diag = kernel_source(X, self.kernel, self.params)
            if self.kernel == "precomputed" and np.any(diag < 0):
                warn("kernel='precomputed': the kernel matrix has negative diagonal "
                     "entries, so it is not positive semi-definite; incomplete Cholesky "
                     "factors only its positive part.")
            if self.kernel == "precomputed":
                block = (lambda S: X[:, S], lambda S: X[np.ix_(S, S)])
            else:
                block = (lambda S: kernel_columns(X, X[S], self.kernel, self.params),
                         lambda S: kernel_columns(X[S], X[S], self.kernel, self.params))
            G, piv, res = self._pivots(column, diag, rank, y, block=block,
                                       dense=X if self.kernel == "precomputed" else None)
        if G.shape[1] == 0:
            raise ValueError(
                "The initial kernel is zero on the training data (no pivot with a "
                "positive residual): nothing to learn from."
            )
        self.pivots_ = piv
        self.residual_trace_ = res
        self._map = PivotMap(G, piv, X, self.kernel, self.params, adaptive=k0)
        self.rank_ = G.shape[1]
        return G

    def _pivots(self, column, diag, rank, y, block, dense=None):
        """G, pivots and residual traces by the chosen pivot rule (``block``:
        the ``columns`` and ``submatrix`` callables of RPCholesky; ``dense``:
        the kernel matrix when it is held whole, 'precomputed')."""
        if self.method == "rpcholesky":
            return randomly_pivoted_cholesky(*block, diag, rank, self.tol,
                                             random_state=self.random_state)
        if self.method != "csi":
            if dense is not None and 2 * rank >= dense.shape[0]:
                # most of a matrix held whole: LAPACK's blocked form of the rule
                G, pivots, residual, _ = dense_pivoted_cholesky(dense, rank, self.tol)
            else:
                G, pivots, residual, _ = pivoted_cholesky(column, diag, rank, self.tol)
            return np.ascontiguousarray(G), pivots, residual
        res = cholesky_side_information(column, diag, side_information(y, self.unlabeled),
                                        max_rank=rank, tol=self.tol)
        return np.ascontiguousarray(res.G), res.pivots, res.approximation_error


    def transform(self, X):
        """phi0(X): the factor's coordinates of (new) points."""
        if isinstance(self._map, PivotMap):
            return self._map(X)
        return X if self._map is None else X @ self._map

    def input_map(self):
        """P of ``phi0(x) = x P`` for the linear kernel, (n_features, r), or
        ``None`` when phi0 is the identity (G0 = X): O(n_features r)."""
        return input_map(self.kernel, self._map)


class SpectralFactor:
    """Eigen-truncated initial factor without the n x n kernel matrix.

    SKLR's low-rank start (Amid et al., Algorithm 1): the top eigenpairs
    ``K0 ~= U L U'`` of the kernel matrix, as many as it takes for
    ``|K0_r|_F >= energy * |K0|_F``, and ``G0 = U L^(1/2)``.  The eigenpairs
    come from a randomized subspace iteration (Halko, Martinsson & Tropp
    2011, Alg. 4.4 with Rayleigh-Ritz): every product ``K0 @ Omega`` is
    accumulated over row blocks of kernel values, so memory stays
    O(n (r + p) + block * n).  The sketch doubles until the Ritz values
    reach the energy share (they are lower bounds, so the rank chosen is
    never too small).  |K0|_F is summed over the same blocks.

    The out-of-sample map is the Nystrom extension of the eigenvectors,
    ``phi0(x) = k0(x, X) U L^(-1/2)``; on the training points it gives
    ``K0 U L^(-1/2)``, which is G0 (exactly so when the eigenpairs are).
    This is eq. 28 of the paper with ``K0`` the truncated start.

    Parameters
    ----------
    kernel : str or callable
        As :class:`LowRankFactor`, including 'adaptive_rbf' and 'precomputed'.
    energy : float in (0, 1]
        Share of the Frobenius norm kept.
    rank : int or None
        Upper bound on the rank (``None``: n_samples).
    params : dict
        Kernel parameters (``n_neighbors`` for 'adaptive_rbf').
    random_state : RandomState
        Draws the sketch.
    n_power : int, default=2
        Power iterations per sketch.
    """

    #: Rows of kernel values held at a time.
    BLOCK = 512
    #: Columns of the first sketch, and the extra columns of every sketch.
    START, OVERSAMPLE = 64, 16

    def __init__(self, kernel, energy, rank, params, random_state, n_power=2):
        self.kernel = kernel
        self.energy = energy
        self.rank = rank
        self.params = params
        self.random_state = random_state
        self.n_power = n_power

    def _rows(self, X, sl):
        """Kernel values between the rows ``sl`` of X and the training points."""
        if self.kernel == "precomputed":
            return X[sl]
        if self.kernel == "adaptive_rbf":
            return self._adaptive(X[sl], self._X, self._adaptive.bandwidth(X[sl])
                                  if X is not self._X else self._adaptive.sigma_[sl],
                                  self._adaptive.sigma_)
        return kernel_columns(X[sl], self._X, self.kernel, self.params)

    def _times(self, X, Omega, frobenius=False):
        """k0(X, X_train) @ Omega over row blocks (and |k0(X, X_train)|_F^2).

        The kernel values are checked as they are computed (a ValueError
        names the kernel if some are not finite), and so are the products:
        finite values can still overflow once summed."""
        out = np.empty((X.shape[0], Omega.shape[1]))
        fro2 = 0.0
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            for start in range(0, X.shape[0], self.BLOCK):
                sl = slice(start, start + self.BLOCK)
                Kb = self._rows(X, sl)
                out[sl] = Kb @ Omega
                if frobenius:
                    fro2 += float(np.einsum("ij,ij->", Kb, Kb))
        if not (np.isfinite(out).all() and np.isfinite(fro2)):
            raise ValueError(not_finite_message(
                "Sums of the kernel values (finite, but too large to add up)",
                self.kernel, self.params, (X,)))
        return (out, fro2) if frobenius else out

    def fit(self, X):
        """Return G0 (n x rank_, C-contiguous) for the training points X."""
        n = X.shape[0]
        if self.kernel == "precomputed":
            check_precomputed(X)
        else:
            # transform reads the training points: own them, so that a caller
            # who changes their array after fit does not change the map
            X = X.copy()
        self._X = X
        if self.kernel == "adaptive_rbf":
            self._adaptive = AdaptiveGaussian(self.params["n_neighbors"]).fit(X)
        max_rank = n if self.rank is None else min(self.rank, n)
        rng = self.random_state
        ell = min(n, max(self.START, 1))
        fro2 = None
        while True:
            Omega = rng.standard_normal((n, ell))
            if fro2 is None:
                Y, fro2 = self._times(X, Omega, frobenius=True)
            else:
                Y = self._times(X, Omega)
            for _ in range(self.n_power):
                Y = self._times(X, linalg.qr(Y, mode="economic")[0])
            Q = linalg.qr(Y, mode="economic")[0]
            KQ = self._times(X, Q)
            lam, V = linalg.eigh(Q.T @ KQ)
            lam, V = lam[::-1], V[:, ::-1]
            pos = int(np.count_nonzero(lam > 1e-12 * max(lam[0], 0.0)))
            if fro2 <= 0.0 or pos == 0:
                raise ValueError(
                    "The initial kernel is zero on the training data: nothing to learn "
                    "from."
                )
            share = np.sqrt(np.cumsum(lam[:pos] ** 2) / fro2)
            reached = np.flatnonzero(share >= self.energy * (1 - 1e-12))
            usable = pos if ell >= n else max(ell - self.OVERSAMPLE, 1)
            if reached.size and reached[0] < usable:
                r = int(reached[0]) + 1
                break
            if ell >= n or usable >= max_rank:
                r = min(pos, usable)
                break
            ell = min(n, 2 * ell)
        r = min(r, max_rank)
        self.rank_ = r
        self.energy_ = float(share[r - 1])
        self.eigenvalues_ = lam[:r].copy()
        # phi0(x) = k0(x, X) U L^-1/2 with U = Q V; on X: (K Q) V L^-1/2
        scale = 1.0 / np.sqrt(lam[:r])
        self._map = np.ascontiguousarray((Q @ V[:, :r]) * scale)
        self.pivots_ = None
        return np.ascontiguousarray((KQ @ V[:, :r]) * scale)

    def transform(self, X):
        """phi0(X): the factor's coordinates of (new) points.

        Far from every training point the adaptive Gaussian vanishes and the
        coordinates are 0; kernel values that are not finite are an error.
        """
        return self._times(X, self._map)

    def input_map(self):
        """P of ``phi0(x) = x P`` for the linear kernel, (n_features, r):
        ``k0(x, X) = x X'``, so ``P = X' U L^(-1/2)`` (X dense or sparse):
        O(nnz(X) r + n_features r)."""
        if self.kernel != "linear":
            raise ValueError(f"phi0 of kernel={self.kernel!r} is not linear in the input.")
        return np.asarray(self._X.T @ self._map)
