r"""The nearest correlation matrix in a weighted Frobenius norm.

The engine's set-up of ``NearestCorrelation(divergence='frobenius')``::

    min_X  1/2 |W^1/2 (X - C) W^1/2|_F^2   s.t.  X_ii = 1,  X >= eig_min I,

``W = diag(w)``, w > 0, ``0 <= eig_min < 1``.  With ``G = W^1/2 C W^1/2 -
eig_min W``, ``b = (1 - eig_min) w`` and ``Z = W^1/2 (X - eig_min I) W^1/2``
it is the problem of Qi & Sun (2006) with a general right-hand side b::

    min_Z  1/2 |Z - G|_F^2   s.t.  diag(Z) = b,  Z >= 0,

whose dual (Qi & Sun's dual problem; Malick 2004; Boyd & Xiao 2005) is the
unconstrained minimisation of the convex, once continuously differentiable

    theta(y) = 1/2 |Pi(G + diag y)|_F^2 - b'y,
    F(y) = grad theta(y) = diag(Pi(G + diag y)) - b,

Pi the projection onto the positive semidefinite cone.  At its minimiser
``Z = Pi(G + diag y)`` and ``X = eig_min I + W^-1/2 Z W^-1/2`` (with W = I:
``X = eig_min I + Pi(C - eig_min I + diag y)``).  Since ``X_ii - 1 = F_i /
w_i``, the largest diagonal error of X is read off the dual gradient.

Two solvers share this dual:

- :func:`_newton`: the semismooth Newton method of Qi & Sun (2006) with the
  preconditioned conjugate gradients of Borsdorf & Higham (2010).  F is
  strongly semismooth; an element of its generalised Jacobian at y, with
  ``G + diag y = P diag(lam) P'``, is (Qi & Sun, their Section 3)

      V h = diag(P (Omega o (P' diag(h) P)) P'),

  Omega the first divided differences of max(., 0) on lam: 1 on
  positive x positive, ``lam_i / (lam_i - lam_j)`` on positive x
  non-positive, 0 on non-positive x non-positive.  :class:`_Spectrum`
  applies V in O(n^2 min(r, n - r)) (r positive eigenvalues; the complement
  ``V h = h - diag(P ((E - Omega) o (P' diag(h) P)) P')`` when r > n / 2, as
  Qi & Sun do) and forms its diagonal, the Jacobi preconditioner of Borsdorf
  & Higham, in O(n r (n - r)) once per Newton iteration.
- :func:`_projections`: Higham's (2002) alternating projections with
  Dykstra's correction (his Section 3, the W-norm algorithm), here in the
  equivalent dual form ``y <- y - F(y)`` (see :func:`_projections`).

Scale.  The problem is not scale invariant: the solution for ``s C`` is not
that of C.  Only C's off-diagonal entries matter (the diagonal is absorbed by
y), and only relative to b: with ``rho = max_{i != j} |G_ij| / sqrt(b_i
b_j)`` (C's largest off-diagonal entry over ``1 - eig_min``), for large rho
the dual is a quadratic penalty of an SDP with penalty rho (in ``u = y /
rho``, ``theta / rho^2 = 1/2 |Pi(G / rho + diag u)|^2 - b'u / rho``): the
positive eigenvalues of ``G + diag y`` are O(1) next to negative ones of
O(rho), V's eigenvalues spread over [1 / rho, 1], and Newton's method from
Qi & Sun's start cycles.  :func:`_continued_newton` therefore solves the
problems of ``sigma G`` for sigma = 2^-k rho_0 / rho, ..., 1 (rho_0 =
``CONTINUATION_START``), each from the dual of the last one scaled by the
ratio of the sigmas (the dual of a large scale is nearly proportional to
it), which Newton's method then finishes in a few iterations; the
regularisation of V is scaled to its spectrum (by ``REGULARISATION_SPREAD
max lam_+ / max |lam_-|`` when that is below 1, never on the unit scale) so
as not to swamp the eigenvalues of order 1 / rho.  Rounding still bounds
what can be reached: the eigenvalues of ``G + diag y`` are computed to
about eps times its norm, O(rho), so the diagonal of X is resolved to about
``eps rho`` (with weights, times the ratio of the largest weight to w_i):
a tol below that is not met, and the run stops at that level and says so.
Weights are defined up to a common factor: they are divided by a power of
four near their largest (exactly, with their square roots), so that
neither ``W^1/2 C W^1/2`` nor theta overflows or underflows.

References (the two Newton papers are not in this project's shared/papers:
they are cited by their content, not by equation numbers):
H. Qi, D. Sun. A quadratically convergent Newton method for computing the
nearest correlation matrix. SIAM J. Matrix Anal. Appl. 28(2):360-385, 2006.
R. Borsdorf, N. J. Higham. A preconditioned Newton algorithm for the nearest
correlation matrix. IMA J. Numer. Anal. 30(1):94-107, 2010.
N. J. Higham. Computing the nearest correlation matrix - a problem from
finance. IMA J. Numer. Anal. 22(3):329-343, 2002.
"""

import time
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning

from .._utils._warnings import warn
from ._driver import UnitDiagonalResult

#: Armijo's constant of the line search on theta.
ARMIJO = 1e-4
#: Largest number of halvings of the Newton step before the gradient step.
MAX_BACKTRACK = 30
#: Upper bound of the forcing term: the conjugate gradients stop when the
#: residual is below ``min(CG_FORCING, |F| / |b|) |F|``.
CG_FORCING = 1e-2
#: Largest number of conjugate-gradient steps per Newton iteration.
CG_MAX_STEPS = 200
#: Upper bound of the regularisation ``mu = min(REGULARISATION, |F| / |b|)``
#: added to V (Qi & Sun's perturbed Newton system ``(V + mu I) d = -F``).
REGULARISATION = 1e-6
#: The regularisation is scaled down once the negative eigenvalues of
#: ``G + diag y`` exceed the positive ones this many times (see
#: :meth:`_Spectrum.regularisation_scale`): never on the unit scale.
REGULARISATION_SPREAD = 100.0
#: Iterations without a smaller diagonal error, at rounding level, after
#: which Newton's method stops short of tol.
STALL_ITERATIONS = 5
#: The rounding level of F = diag(Pi(G + diag y)) - b: ``ROUNDING_LEVEL
#: sqrt(n) eps |G + diag y|_2`` (the eigenvalues' absolute accuracy, with a
#: margin); a stalled run whose |F| is within it stops.
ROUNDING_LEVEL = 10.0
#: Continuation (:func:`_continued_newton`) when C's largest off-diagonal
#: entry, over ``1 - eig_min``, exceeds this; its first problem is that of
#: a scale near ``CONTINUATION_START``, each next one ``CONTINUATION_STEP``
#: times larger, each solved to a diagonal error of ``CONTINUATION_TOL`` (or
#: tol, if larger) before the last one, C's own, to tol.
CONTINUATION_FROM = 1e3
CONTINUATION_START = 64.0
CONTINUATION_STEP = 16.0
CONTINUATION_TOL = 1e-3


@dataclass
class FrobeniusResult(UnitDiagonalResult):
    """A :class:`UnitDiagonalResult` of the Frobenius-norm problem.

    ``correlation`` (and ``state``) is X, ``dual`` is y, ``divergence`` is
    ``1/2 |W^1/2 (X - C) W^1/2|_F^2``, ``diag`` the diagonal of X as
    returned, ``n_iter`` Newton iterations or projection iterations.

    Attributes
    ----------
    min_eigenvalue : float
        Smallest eigenvalue of X as returned, measured on it
        (``np.linalg.eigvalsh``).
    rank : int
        Number of eigenvalues of ``X - eig_min I`` above rounding level.
    scale : float
        The largest eigenvalue of X as returned, at least 1: the scale of
        the eigenvalue test of convergence.
    offdiagonal_scale : float
        C's largest off-diagonal entry in absolute value: with a run that
        stops at rounding level, the scale that sets that level.
    """

    min_eigenvalue: float = 0.0
    rank: int = 0
    scale: float = 1.0
    offdiagonal_scale: float = 0.0


def _eigh(G, y, sigma=1.0):
    """Eigenvalues (ascending) and eigenvectors of ``sigma G + diag(y)``:
    LAPACK's divide and conquer (``dsyevd``), then MRRR, then QR if one
    fails."""
    n = y.size
    # (SciPy 1.10's dsyevd wrapper asks a wrong workspace size for n = 1)
    for driver in ("evd", "evr", "ev") if n > 1 else ("ev",):
        M = G.copy() if sigma == 1.0 else G * sigma
        M.flat[::n + 1] += y
        try:
            # (M.T: the same symmetric matrix in Fortran order, overwritten in place)
            return linalg.eigh(M.T, driver=driver, overwrite_a=True, check_finite=False)
        except (linalg.LinAlgError, ValueError):
            continue
    raise linalg.LinAlgError("the eigendecomposition of G + diag(y) did not converge")


class _Spectrum:
    r"""``G + diag(y) = P diag(lam) P'`` and what both solvers read from it
    (``sigma G + diag(y)`` with ``sigma``: a stage of the continuation).

    Eigenvalues in ascending order: the first ``s`` are <= 0, the last
    ``r = n - s`` positive; ``P2 = P[:, :s]``, ``P1 = P[:, s:]``.

    Attributes
    ----------
    diag_z : ndarray of shape (n,)
        ``diag(Pi(G + diag y))``: ``(P1 o P1) lam_+`` in O(n r), or
        ``diag(G) + y - (P2 o P2) lam_-`` in O(n s) when s < r.
    theta : float
        The dual objective ``1/2 sum lam_+^2 - b'y``.
    size : float
        ``1/2 sum lam_+^2 + |b|'|y|``: the magnitude of the terms of theta,
        for its rounding error.
    norm : float
        ``max |lam|``, the 2-norm of ``G + diag y``: the scale of the
        eigenvalues' rounding errors.
    """

    def __init__(self, G, diag_g, b, y, sigma=1.0):
        n = y.size
        lam, P = _eigh(G, y, sigma)
        if sigma != 1.0:
            diag_g = sigma * diag_g
        self.y, self.lam, self.P = y, lam, P
        s = int(np.searchsorted(lam, 0.0, side="right"))
        self.s, self.r = s, n - s
        pos, neg = lam[s:], lam[:s]
        if self.r <= s:
            self.diag_z = (P[:, s:] ** 2) @ pos
        else:
            self.diag_z = diag_g + y - (P[:, :s] ** 2) @ neg
        half = 0.5 * float(pos @ pos)
        by = float(b @ y)
        self.theta = half - by
        self.size = half + float(np.abs(b) @ np.abs(y))
        self.norm = float(max(-lam[0], lam[-1])) if n else 0.0
        self._tau = None

    def regularisation_scale(self):
        """``min(1, REGULARISATION_SPREAD max lam_+ / max |lam_-|)``: the
        order of the smallest blocks of Omega (``lam_i / (lam_i - lam_j)``),
        to which the regularisation of V is scaled (1 on the unit scale;
        about 1 / rho for C's off-diagonal entries rho times the unit
        diagonal)."""
        if self.r == 0 or self.s == 0 or self.lam[0] >= 0.0:
            return 1.0
        return float(min(1.0, REGULARISATION_SPREAD * self.lam[-1] / -self.lam[0]))

    @property
    def tau(self):
        """The positive x non-positive block of Omega (r x s):
        ``lam_i / (lam_i - lam_j)``, in [0, 1]."""
        if self._tau is None:
            pos, neg = self.lam[self.s:], self.lam[:self.s]
            self._tau = pos[:, None] / (pos[:, None] - neg[None, :])
        return self._tau

    def hessian_product(self, h):
        """``V h = diag(P (Omega o (P' diag(h) P)) P')`` in O(n^2 min(r, s)).

        With ``K = P1' diag(h) P2`` (r x s), ``r <= s``::

            V h = rowsum(P1 o (P1 (P1' diag(h) P1) + 2 P2 (tau o K)'))

        and otherwise, from ``E - Omega`` (0, 1 - tau, 1 on the blocks)::

            V h = h - rowsum(P2 o (P2 (P2' diag(h) P2) + 2 P1 ((1 - tau) o K))).
        """
        s, r = self.s, self.r
        if r == 0:
            return np.zeros_like(h)
        if s == 0:
            return h.copy()
        P1, P2 = self.P[:, s:], self.P[:, :s]
        hP2 = P2 * h[:, None]
        K = P1.T @ hP2
        if r <= s:
            A = P1.T @ (P1 * h[:, None])
            T = P1 @ A
            T += 2.0 * (P2 @ (self.tau * K).T)
            return np.einsum("ij,ij->i", P1, T)
        A = P2.T @ hP2
        T = P2 @ A
        T += 2.0 * (P1 @ ((1.0 - self.tau) * K))
        return h - np.einsum("ij,ij->i", P2, T)

    def hessian_diagonal(self):
        """``diag(V)_i = sum_kl P_ik^2 Omega_kl P_il^2``, the Jacobi
        preconditioner (Borsdorf & Higham 2010): with ``Q = P o P``,
        ``(Q1 1)^2 + 2 rowsum(Q1 o (Q2 tau'))``, O(n r s) and no n x n x n
        work per conjugate-gradient step."""
        s, r = self.s, self.r
        Q1 = self.P[:, s:] ** 2
        d = Q1.sum(axis=1) ** 2
        if r and s:
            d += 2.0 * np.einsum("ij,ij->i", Q1, (self.P[:, :s] ** 2) @ self.tau.T)
        return d


def _pcg(spectrum, rhs, mu, atol, max_steps):
    """Jacobi-preconditioned conjugate gradients for ``(V + mu I) d = rhs``.

    Stops when the residual is at most ``atol``, after ``max_steps`` steps,
    or on a direction of non-positive curvature (V is only positive
    semidefinite).  Returns ``(d, steps)``.
    """
    dinv = 1.0 / np.maximum(spectrum.hessian_diagonal() + mu, 1e-12)
    d = np.zeros_like(rhs)
    res = rhs.copy()
    z = dinv * res
    p = z.copy()
    rz = float(res @ z)
    steps = 0
    while steps < max_steps and np.sqrt(float(res @ res)) > atol:
        Ap = spectrum.hessian_product(p)
        Ap += mu * p
        pAp = float(p @ Ap)
        if not pAp > 0.0:
            break
        steps += 1
        a = rz / pAp
        d += a * p
        res -= a * Ap
        z = dinv * res
        rz_new = float(res @ z)
        p *= rz_new / rz
        p += z
        rz = rz_new
    return d, steps


def _newton(G, diag_g, b, w, y, *, tol, max_iter, verbose, owner, sigma=1.0, t0=None,
            first=1):
    """Qi & Sun's Newton method on theta, from ``y`` (not modified), for
    ``sigma G`` (a stage of :func:`_continued_newton`; G itself by default).

    Each iteration solves ``(V + mu I) d = -F`` inexactly by
    :func:`_pcg` (``mu = min(REGULARISATION, |F| / |b|) min(1,
    REGULARISATION_SPREAD max lam_+ / max |lam_-|)``, forcing term
    ``min(CG_FORCING, |F| / |b|)``: Qi & Sun's choices up to the scaling by
    |b| and, for mu, by V's spectrum, see
    :meth:`_Spectrum.regularisation_scale`) and backtracks along d (Armijo
    on theta, halving).

    Departures from the paper: (i) the test is ``max_i |F_i / w_i| <= tol``,
    the largest diagonal error of X, not a bound on |F|; (ii) near the
    solution the decrease of theta falls below its rounding error: a step
    whose Armijo test cannot be decided at that level is taken when it does
    not increase |F|; (iii) when no halving is accepted (rounding, or a CG
    direction that is not one of descent) the gradient step ``d = -F``, which
    always decreases theta (F is 1-Lipschitz) and is one iteration of the
    alternating projections, is taken instead; (iv) it also stops when the
    error has not decreased for ``STALL_ITERATIONS`` iterations with |F| at
    the rounding level of the eigenvalues (``ROUNDING_LEVEL sqrt(n) eps
    |G + diag y|_2``), which the test on theta's decrease misses for C's
    entries far above the unit diagonal.

    Returns ``(spectrum, n_iter, history)``: the decomposition at the last
    iterate (after a stall, the best one met) and the largest diagonal error
    after each iteration.
    """
    n = y.size
    spec = _Spectrum(G, diag_g, b, y, sigma)
    F = spec.diag_z - b
    err = float(np.max(np.abs(F / w), initial=0.0))
    history = [err]
    if err <= tol:
        return spec, 0, history
    bnorm = float(np.linalg.norm(b))
    best, best_spec, stalled = err, spec, 0
    max_steps = min(n, CG_MAX_STEPS)
    level = ROUNDING_LEVEL * np.sqrt(n) * np.finfo(float).eps
    t0 = time.perf_counter() if t0 is None else t0
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        fnorm = float(np.linalg.norm(F))
        rel = fnorm / bnorm
        mu = min(REGULARISATION, rel) * spec.regularisation_scale()
        d, steps = _pcg(spec, -F, mu, min(CG_FORCING, rel) * fnorm, max_steps)
        slope = float(F @ d)
        gradient = not slope < 0.0
        if gradient:
            d, slope = -F, -fnorm * fnorm
        rounding = 1e2 * np.finfo(float).eps * spec.size
        step, new = 1.0, None
        for _ in range(MAX_BACKTRACK + 1):
            trial = _Spectrum(G, diag_g, b, spec.y + step * d, sigma)
            decrease = spec.theta - trial.theta
            if decrease >= -ARMIJO * step * slope:
                new = trial
                break
            if -ARMIJO * step * slope <= rounding:
                # the test cannot be decided at rounding level: |F| decides
                if np.linalg.norm(trial.diag_z - b) <= fnorm:
                    new = trial
                break
            step /= 2.0
        if new is None:
            # (no halving accepted: the gradient step, one projection iteration)
            gradient, step = True, 1.0
            new = _Spectrum(G, diag_g, b, spec.y - F, sigma)
        spec = new
        F = spec.diag_z - b
        err = float(np.max(np.abs(F / w), initial=0.0))
        history.append(err)
        if verbose:
            kind = "gradient step" if gradient else f"{steps} CG steps, step {step:.3g}"
            where = "" if sigma == 1.0 else f" (continuation: C's off-diagonal x {sigma:.3g})"
            print(f"[{owner}] Newton iteration {first + n_iter - 1}{where}: largest "
                  f"diagonal error {err:.3e}, {spec.r} positive eigenvalues, {kind}, "
                  f"{time.perf_counter() - t0:.2f}s")
        if err <= tol:
            break
        if err < best:
            best, best_spec, stalled = err, spec, 0
        else:
            stalled += 1
            at_rounding = float(np.max(np.abs(F), initial=0.0)) <= level * spec.norm
            if stalled >= STALL_ITERATIONS and (-slope <= 1e3 * rounding or at_rounding):
                # (stalled at rounding level: the best iterate met)
                return best_spec, n_iter, history
    return spec, n_iter, history


def _continuation(rho):
    """The sigmas of :func:`_continued_newton` before the last (1), for C's
    off-diagonal scale ``rho`` (over the unit diagonal): powers of two, the
    first near ``CONTINUATION_START / rho``, each ``CONTINUATION_STEP``
    times the last; none when ``rho <= CONTINUATION_FROM``."""
    if not rho > CONTINUATION_FROM:
        return []
    step = int(round(np.log2(CONTINUATION_STEP)))
    first = int(np.ceil(np.log2(rho / CONTINUATION_START)))
    return [float(np.ldexp(1.0, -e)) for e in range(first, 0, -step)]


def _continued_newton(G, diag_g, b, w, y, rho, *, tol, max_iter, verbose, owner):
    """:func:`_newton` on C's own problem, after a continuation from a small
    scale when C's off-diagonal entries are far above the unit diagonal
    (``rho``, see the module's docstring): the problems of ``sigma G`` for
    the sigmas of :func:`_continuation` (powers of two: G is scaled exactly,
    on the copy each eigendecomposition makes anyway), each from the last
    one's dual times the ratio of the sigmas, to ``max(tol,
    CONTINUATION_TOL)``, then G's own to tol.  The stages share ``max_iter``
    Newton iterations; when they use them up, C's problem is evaluated at
    the last dual, scaled, without an iteration (and reported unfinished).

    Returns ``(spectrum, n_iter, history)`` as :func:`_newton` (spectrum:
    of C's own problem; history: the stages' errors, in order).
    """
    sigmas = _continuation(rho)
    if not sigmas:
        return _newton(G, diag_g, b, w, y, tol=tol, max_iter=max_iter, verbose=verbose,
                       owner=owner)
    t0 = time.perf_counter()
    y = b - sigmas[0] * diag_g  # (Qi & Sun's start for the first problem)
    n_iter, history = 0, []
    for sigma, after in zip(sigmas, sigmas[1:] + [1.0]):
        spec, k, hist = _newton(G, diag_g, b, w, y, tol=max(tol, CONTINUATION_TOL),
                                max_iter=max_iter - n_iter, verbose=verbose, owner=owner,
                                sigma=sigma, t0=t0, first=n_iter + 1)
        n_iter += k
        history += hist
        y = spec.y * (after / sigma)
    spec, k, hist = _newton(G, diag_g, b, w, y, tol=tol, max_iter=max_iter - n_iter,
                            verbose=verbose, owner=owner, t0=t0, first=n_iter + 1)
    return spec, n_iter + k, history + hist


def _projections(G, diag_g, b, w, y, *, tol, max_iter, verbose, owner):
    """Higham's (2002) alternating projections with Dykstra's correction, in
    the coordinates ``Z = W^1/2 (X - eig_min I) W^1/2`` where both of his
    W-norm projections are the Frobenius ones (onto ``diag(Z) = b``: set the
    diagonal; onto ``Z >= 0``: Pi).

    His iteration ``R_k = Y_{k-1} - dS_{k-1}``, ``X_k = Pi(R_k)``,
    ``dS_k = X_k - R_k``, ``Y_k = X_k`` with its diagonal set to b, gives
    ``R_{k+1} = R_k + diag(b - diag(X_k))``: Dykstra's corrections only ever
    move the diagonal, so ``R_k = G + diag(y_k)`` and the iteration is
    ``y <- y - F(y)``, the gradient method with unit step on theta.  Written
    so, an iteration needs one eigendecomposition and ``diag(X_k)`` (O(n r)),
    not the n x n products of the matrix form.  Departure: it starts from
    ``y = b - diag(G)`` (Higham: ``R_1 = G``, i.e. y = 0), the same start when
    C has a unit diagonal.  The iterate returned is ``X_k`` (the PSD one),
    stopped when its diagonal is within tol of 1.

    Returns ``(spectrum, n_iter, history)``.
    """
    spec = _Spectrum(G, diag_g, b, y)
    F = spec.diag_z - b
    err = float(np.max(np.abs(F / w), initial=0.0))
    history = [err]
    n_iter = 0
    t0 = time.perf_counter()
    while err > tol and n_iter < max_iter:
        n_iter += 1
        spec = _Spectrum(G, diag_g, b, spec.y - F)
        F = spec.diag_z - b
        err = float(np.max(np.abs(F / w), initial=0.0))
        history.append(err)
        if verbose:
            print(f"[{owner}] projection iteration {n_iter}: largest diagonal error "
                  f"{err:.3e}, {spec.r} positive eigenvalues, "
                  f"{time.perf_counter() - t0:.2f}s")
    return spec, n_iter, history


def _correlation(C, G, diag_g, w, eig_min, spec, unit_weights):
    """X from the final decomposition: ``eig_min I + W^-1/2 Z W^-1/2`` with
    ``Z = B B'``, ``B = P1 diag(lam_+)^1/2`` (positive semidefinite by
    construction), or, when no eigenvalue is clipped (``Z = G + diag y``
    exactly), C itself with the diagonal ``(diag(G) + y) / w + eig_min``."""
    n = C.shape[0]
    if spec.s == 0:
        X = (C + C.T) / 2
        X[np.diag_indices(n)] = (diag_g + spec.y) / w + eig_min
        return X
    B = spec.P[:, spec.s:] * np.sqrt(spec.lam[spec.s:])
    if not unit_weights:
        B /= np.sqrt(w)[:, None]
    X = B @ B.T
    X = (X + X.T) / 2
    X[np.diag_indices(n)] += eig_min
    return X


def _offdiagonal_scale(G, b):
    """``max_{i != j} |G_ij| / sqrt(b_i b_j)``, in blocks of rows (no n x n
    temporary): C's largest off-diagonal entry over ``1 - eig_min``."""
    n = G.shape[0]
    sb = np.sqrt(b)
    rho = 0.0
    rows = max(1, (1 << 20) // max(n, 1))
    for i0 in range(0, n, rows):
        i1 = min(n, i0 + rows)
        block = np.abs(G[i0:i1])
        block /= sb[i0:i1, None]
        block /= sb[None, :]
        block[np.arange(i1 - i0), np.arange(i0, i1)] = 0.0
        rho = max(rho, float(block.max(initial=0.0)))
    return rho


def frobenius_nearest_correlation(C, *, weights=None, eig_min=0.0, tol, max_iter,
                                  solver="newton", verbose=0, owner="NearestCorrelation"):
    r"""The nearest correlation matrix to C in the W-weighted Frobenius norm,
    with its eigenvalues at least ``eig_min``.

    Parameters
    ----------
    C : ndarray of shape (n, n)
        Symmetric (checked by the caller).
    weights : ndarray of shape (n,) or None
        The positive diagonal of W (checked by the caller); None: W = I.
    eig_min : float
        Lower bound on the eigenvalues of X, in [0, 1).
    tol : float
        Stop when ``max_i |X_ii - 1| <= tol``.
    max_iter : int
        Newton iterations, or projection iterations.
    solver : {'newton', 'projections'}
        :func:`_newton` or :func:`_projections`.
    verbose : int
        Print one line per iteration.
    owner : str
        The estimator's name, for messages.

    Returns
    -------
    FrobeniusResult
        X (``correlation``), y (``dual``), the diagonal of X, the
        objective (``divergence``), ``min_eigenvalue``, ``rank``,
        ``n_iter``, ``converged``, ``method``.  ``converged`` is the verdict
        on X as returned: its own diagonal within tol of 1 and its own
        smallest eigenvalue (``np.linalg.eigvalsh``, one more O(n^3) step)
        at least ``eig_min - max(1e-12, n eps) scale``, scale its largest
        eigenvalue (at least 1); otherwise a ConvergenceWarning says what
        failed and what to change.
    """
    C = np.asarray(C, dtype=np.float64)
    n = C.shape[0]
    unit_weights = weights is None
    if unit_weights:
        w, unit = np.ones(n), 1.0
    else:
        w = np.asarray(weights, dtype=np.float64)
        # weights are defined up to a common factor: divided by a power of
        # four (exact, and so are their square roots) near the largest
        unit = float(np.ldexp(1.0, 2 * int(np.floor(np.log2(w.max()) / 2))))
        w = w / unit
    if unit_weights:
        G = C - eig_min * np.eye(n) if eig_min else C.copy()
    else:
        sw = np.sqrt(w)
        G = sw[:, None] * C * sw[None, :]
        G.flat[::n + 1] -= eig_min * w
    G = (G + G.T) / 2
    diag_g = np.diag(G).copy()
    b = (1.0 - eig_min) * w
    rho = _offdiagonal_scale(G, b)
    # Qi & Sun's start: diag(G + diag y0) = b, i.e. C with a unit diagonal
    y0 = b - diag_g
    if solver == "newton":
        spec, n_iter, history = _continued_newton(
            G, diag_g, b, w, y0, rho, tol=tol, max_iter=max_iter, verbose=verbose,
            owner=owner)
    else:
        spec, n_iter, history = _projections(G, diag_g, b, w, y0, tol=tol,
                                             max_iter=max_iter, verbose=verbose, owner=owner)
    X = _correlation(C, G, diag_g, w, eig_min, spec, unit_weights)
    del G
    # the verdict is X's own: its diagonal and its eigenvalues as returned
    diag = np.diag(X).copy()
    max_err = float(np.abs(diag - 1.0).max(initial=0.0))
    lam_x = np.linalg.eigvalsh(X) if n else np.array([eig_min])
    min_eig = float(lam_x[0])
    scale = max(1.0, float(lam_x[-1]))
    tiny = n * np.finfo(float).eps * max(float(np.abs(spec.lam).max(initial=0.0)), 1e-300)
    rank = int(np.count_nonzero(spec.lam > tiny))
    diag_ok = max_err <= tol
    eig_ok = min_eig >= eig_min - max(1e-12, n * np.finfo(float).eps) * scale
    converged = diag_ok and eig_ok
    offdiagonal = rho * (1.0 - eig_min)
    if not converged:
        what = "Newton iterations" if solver == "newton" else "projection iterations"
        problems = []
        if not diag_ok:
            problems.append(f"the largest diagonal error |X_ii - 1| is {max_err:.3g} "
                            f"(tol={tol:g})")
        if not eig_ok:
            problems.append(f"the smallest eigenvalue of X is {min_eig:.3g}, below "
                            f"eig_min={eig_min:g}")
        if n_iter >= max_iter:
            advice = (f"it stopped at max_iter={max_iter} {what}: increase max_iter"
                      + (", or use solver='newton'" if solver != "newton" else ""))
        else:
            spread = ("" if unit_weights else
                      f", weights spanning a ratio of {float(w.max() / w.min()):.3g}")
            reachable = float(10.0 ** np.ceil(np.log10(max(2.0 * max_err, 1e-300))))
            advice = (f"it stopped after {n_iter} {what} with the error at the rounding "
                      f"level of C's scale (off-diagonal entries up to {offdiagonal:.3g}"
                      f"{spread}: the eigendecompositions resolve the diagonal to about "
                      f"eps times that): use tol >= {reachable:.0e}, or a C of smaller "
                      "scale (but the nearest correlation matrix of s C is not that of "
                      "C; for a covariance matrix, that of its correlation matrix may be "
                      "what is wanted)")
        warn(f"{owner} (divergence='frobenius') did not converge: "
             f"{' and '.join(problems)}; {advice}.", ConvergenceWarning)
    E = X - C
    if not unit_weights:
        sw = np.sqrt(w)
        E *= sw[:, None]
        E *= sw[None, :]
    # (in the weights as given: times the common factor squared)
    objective = 0.5 * float(np.sum(E * E)) * unit * unit
    del E
    return FrobeniusResult(
        state=X, log_state=False, dual=spec.y * unit, targets=np.ones(n),
        n_iter=int(n_iter), converged=bool(converged), skipped=np.zeros(n, bool),
        history=history, n_projections=0, max_violation=max_err, diag=diag,
        divergence=objective, correlation=X, method=solver, min_eigenvalue=min_eig,
        rank=rank, scale=scale, offdiagonal_scale=offdiagonal)
