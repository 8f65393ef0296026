"""Plain NumPy oracles for the compiled kernels.

Each function here is the textbook form of an update, one constraint at a
time in Python, written for clarity and nothing else.  The tests check the
compiled sweeps against them; the benchmarks time them as the reference.
"""
import numpy as np
from scipy import linalg, optimize


def logdet_pair_sweep_reference(G, idx_i, idx_j, sign, bound, xi, nu, M, order,
                                slack, rtol, correction=True):
    """One sweep of rank-one LogDet projections (JMLR 2009 §5.1, §6.2.1).

    Same signature and in-place semantics as
    ``sklearn_bregman._engine._logdet.logdet_pair_sweep``.
    """
    hard = np.isinf(slack)
    gproj = 1.0 if hard else slack / (slack + 1.0)
    n_satisfied = n_skipped = n_moved = 0
    for c in order:
        v = G[idx_i[c]] - G[idx_j[c]]
        w = M @ v
        p = v @ w
        if p <= 0.0:
            n_skipped += 1
            continue
        delta = float(sign[c])
        if delta * (p - bound[c]) <= rtol * bound[c]:
            n_satisfied += 1
        alpha = delta * gproj * (1.0 / p - 1.0 / xi[c])
        if correction:
            alpha = min(nu[c], alpha)
        if alpha == 0.0:
            continue
        nu[c] -= alpha
        beta = delta * alpha / (1.0 - delta * alpha * p)
        if not hard:
            xi[c] = slack * xi[c] / (slack + delta * alpha * xi[c])
        M += beta * np.outer(w, w)
        n_moved += 1
    return n_satisfied, n_skipped, n_moved


def vonneumann_pair_sweep_reference(U, idx_i, idx_j, sign, bound, xi, nu, L, order,
                                    slack, rtol, correction=True):
    """One sweep of rank-one von Neumann projections, dense (JMLR 2009 §5.2, §6.2.1).

    Every evaluation forms ``exp(L + x v v')`` with ``scipy.linalg.expm``;
    the root of ``log v' exp(L + x v v') v + x / gamma - log xi`` comes from
    ``scipy.optimize.brentq``.  Same in-place semantics as the compiled
    ``vonneumann_pair_sweep`` (state ``L = log X``).
    """
    from scipy.linalg import expm
    from scipy.optimize import brentq

    hard = np.isinf(slack)
    inv_gamma = 0.0 if hard else 1.0 / slack
    n_satisfied = n_skipped = n_moved = 0
    for c in order:
        v = U[idx_i[c]] - U[idx_j[c]]
        if v @ v <= 0.0:
            n_skipped += 1
            continue
        delta = float(sign[c])
        p = v @ expm(L) @ v
        if delta * (p - bound[c]) <= rtol * bound[c]:
            n_satisfied += 1
        log_xi = np.log(xi[c])
        g0 = np.log(p) - log_xi
        if g0 == 0.0 or (correction and nu[c] <= 0.0 and delta * g0 <= 0.0):
            continue

        def g(x, v=v, L=L, log_xi=log_xi):
            return np.log(v @ expm(L + x * np.outer(v, v)) @ v) + x * inv_gamma - log_xi

        step = -g0 / (v @ v + inv_gamma)
        lo, hi = sorted([0.0, step])
        while g(lo) > 0:
            lo -= 2 * abs(step)
        while g(hi) < 0:
            hi += 2 * abs(step)
        x = brentq(g, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=500)
        alpha = min(nu[c], delta * x) if correction else delta * x
        if alpha == 0.0:
            continue
        nu[c] -= alpha
        x = delta * alpha
        if not hard:
            xi[c] *= np.exp(-x * inv_gamma)
        L += x * np.outer(v, v)
        n_moved += 1
    return n_satisfied, n_skipped, n_moved


def definiteboost_step_reference(L, v, s, b, gamma, exact, correction):
    """One DefiniteBoost step, dense (Tsuda et al. 2005 eq. 11-13).

    ``W = expm(L)`` (trace one), ``C = s (v v' - b I)``.  Exact: ``alpha``
    minimises ``tr expm(L - alpha C)`` (``brentq`` on its derivative);
    approximate: the minimiser of the bound of Theorem 4.1.  Returns the new
    ``L`` (renormalised) and the new dual.
    """
    from scipy.linalg import expm
    from scipy.optimize import brentq

    r = L.shape[0]
    C = s * (np.outer(v, v) - b * np.eye(r))
    rv = np.trace(expm(L) @ C)
    if exact:
        def dz(a):
            return -np.trace(expm(L - a * C) @ C)

        step = 1.0
        lo, hi = -step, step
        while dz(lo) > 0:
            lo -= step
            step *= 2
        step = 1.0
        while dz(hi) < 0:
            hi += step
            step *= 2
        alpha = brentq(dz, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=500)
    else:
        nv2 = v @ v
        lmax, lmin = (nv2 - b, -b) if s > 0 else (b, b - nv2)
        alpha = np.log((1 - rv / lmin) / (1 - rv / lmax)) / (lmax - lmin)
    alpha = max(alpha, -gamma if correction else 0.0)
    E = expm(L - alpha * C)
    return L - alpha * C - np.log(np.trace(E)) * np.eye(r), gamma + alpha


def meg_step_reference(L, v, y, eta):
    """One MEG update (Tsuda et al. 2005 eq. 4), dense; returns (L, yhat)."""
    from scipy.linalg import expm

    yhat = v @ expm(L) @ v
    Ln = L - 2 * eta * (yhat - y) * np.outer(v, v)
    return Ln - np.log(np.trace(expm(Ln))) * np.eye(L.shape[0]), yhat


def sklr_step_reference(K, C, nu=0.0, lam=np.inf, inequality=True, correction=True):
    """One rank-two LogDet projection of a kernel K on tr(K C) <= 0 (or = 0).

    Amid, Gionis & Ukkonen: the eigenvalues eta1 >= 0 >= eta2 of K C give
    the hard step eq. 13, or with slack the root of eq. 21 (written with the
    whole dual nu + alpha, xi = (nu + alpha) / lam) found by brentq; the
    update is eq. 10, K+ = (K^-1 + alpha C)^-1, with dense inverses.

    Returns ``(K_plus, alpha)``.
    """
    from scipy.optimize import brentq

    eta = np.linalg.eigvals(K @ C).real
    eta1, eta2 = eta.max(), eta.min()
    alpha = -(eta1 + eta2) / (2.0 * eta1 * eta2)
    if not np.isinf(lam):
        def phi(a):
            return eta1 / (1 + a * eta1) + eta2 / (1 + a * eta2) - (nu + a) / lam

        lo, hi = -1.0 / eta1, -1.0 / eta2
        pad = 1e-14 * (hi - lo)
        alpha = brentq(phi, lo + pad, hi - pad, xtol=1e-300, rtol=1e-15, maxiter=500)
    if inequality and correction:
        alpha = max(alpha, -nu)
    K_plus = np.linalg.inv(np.linalg.inv(K) + alpha * C)
    return (K_plus + K_plus.T) / 2, alpha


def sklr_sweep_reference(G, idx_a, idx_b, idx_c, kind, gamma2, nu, M, order,
                         lam_neq, lam_eq, correction=True):
    """One sweep of rank-two LogDet projections, one row at a time in NumPy.

    Same in-place semantics as
    ``sklearn_bregman._engine._triplet_sweep.logdet_triplet_sweep``; each step is
    :func:`sklr_step_reference` on the r x r state with the constraint
    matrix ``gamma2 u u' - w w'``.
    """
    for t in order:
        u = G[idx_a[t]] - G[idx_b[t]]
        w = G[idx_a[t]] - G[idx_c[t]]
        C = gamma2[t] * np.outer(u, u) - np.outer(w, w)
        ineq = kind[t] != 0
        M_new, alpha = sklr_step_reference(M, C, nu[t], lam_neq if ineq else lam_eq,
                                           ineq, correction)
        nu[t] += alpha
        M[...] = M_new


def csi_reference(K, Y, m, kappa=0.99, delta=5, tol=0.0, center=True):
    """CSI (Bach & Jordan 2005, Figure 1) from its definitions, with dense n x n
    matrices: for every step the approximations L_k (chosen pivots) and
    L_adv (chosen + look-ahead) of Proposition 1, and the estimated gains
    eq. 9-10 computed from them column by column.

    Returns ``(pivots, estimated_gains_of_each_step)``.
    """
    n = K.shape[0]
    Yc = Y - Y.mean(0) if center else Y
    Pi = np.eye(n) - np.ones((n, n)) / n if center else np.eye(n)
    lam = (1 - kappa) / np.trace(K)  # Section 3.2: kappa weighs predicting Y
    mu = kappa / (Yc ** 2).sum()

    def approx(piv):
        if not piv:
            return np.zeros_like(K)
        piv = list(piv)
        return K[:, piv] @ np.linalg.pinv(K[np.ix_(piv, piv)]) @ K[piv, :]

    def classical(piv):
        d = np.diag(K - approx(piv)).copy()
        d[list(piv)] = -1
        return int(np.argmax(d))

    chosen, look = [], []
    while len(look) < delta:
        look.append(classical(look))
    history = []
    while len(chosen) < m:
        Lk, La = approx(chosen), approx(chosen + look)
        Dk, Da = np.diag(K - Lk), np.diag(K - La)
        if chosen:
            Qk = np.linalg.qr(Pi @ K[:, chosen])[0]
            Pperp = np.eye(n) - Qk @ Qk.T
        else:
            Pperp = np.eye(n)
        gains = np.full(n, -np.inf)
        for i in range(n):
            if i in chosen or Dk[i] <= 1e-12 * np.diag(K).max():
                continue
            col = (La - Lk)[:, i]
            nu = Dk[i] ** 2 - (Dk[i] - Da[i]) ** 2
            gains[i] = lam * (col @ col + nu) / Dk[i]
            proj = Pperp @ (Pi @ col)
            b = proj @ proj
            if b > 0:
                gains[i] += mu * ((Yc.T @ proj) ** 2).sum() / b
        p = int(np.argmax(gains))
        history.append(gains)
        if p in look:
            look.remove(p)
            look.append(classical(chosen + [p] + look))
        chosen.append(p)
        # exact gain of the step, for the stopping rule
        g = (K - Lk)[:, p] / np.sqrt(Dk[p])
        q = Pperp @ (Pi @ g)
        exact = lam * g @ g + (mu * ((Yc.T @ q) ** 2).sum() / (q @ q) if q @ q > 0 else 0)
        if exact < tol:
            break
    return chosen, history


def csi_greedy_reference(K, Y, m, kappa=0.99, center=True):
    """Greedy minimisation of Bach & Jordan's cost (eq. 2, normalised as in
    Section 3.2) over pivot sets, by brute force with dense matrices:

        J(I) = (1 - kappa) tr(K - L_I) / tr K
               + kappa |Pi Y - P_I Pi Y|_F^2 / |Pi Y|_F^2,

    L_I = K[:, I] K[I, I]^+ K[I, :] (Proposition 1), P_I the orthogonal
    projector onto the span of Pi K[:, I] (the columns of Pi G), Pi the
    centring (or the identity).  Each step adds the pivot of smallest J.
    CSI whose look-ahead covers every point estimates these reductions
    exactly (Section 5.1), so it must make the same choices.

    Returns ``(pivots, J after each step)``.
    """
    n = K.shape[0]
    Pi = np.eye(n) - np.ones((n, n)) / n if center else np.eye(n)
    PY = Pi @ Y
    lam = (1 - kappa) / np.trace(K)
    mu = kappa / (PY ** 2).sum()

    def cost(piv):
        KI = K[:, piv]
        L = KI @ np.linalg.pinv(K[np.ix_(piv, piv)]) @ KI.T
        U, s, _ = np.linalg.svd(Pi @ KI, full_matrices=False)
        B = U[:, s > 1e-10 * s.max()]
        return lam * np.trace(K - L) + mu * ((PY - B @ (B.T @ PY)) ** 2).sum()

    chosen, costs = [], []
    for _ in range(m):
        trial = [(cost(chosen + [i]), i) for i in range(n) if i not in chosen]
        c, i = min(trial)
        chosen.append(i)
        costs.append(c)
    return chosen, costs


def logdet_linear_sweep_reference(V, S, kind, bound, xi, nu, M, order, slack, rtol,
                                  correction=True):
    """One sweep of LogDet projections on general linear rows, dense (JMLR 2009
    §6.2.2 with the quadratic slack penalty of SKLR eq. 20).

    Row c is ``tr(M C) <= xi_c`` (``kind`` +1) or ``= xi_c`` (0) with
    ``C = sum_k S[c, k] V[c, k] V[c, k]'``.  Every evaluation forms
    ``(M^-1 + a C)^-1`` with ``numpy.linalg.inv``; the root of
    ``tr(M(a) C) - a / gamma - xi_c`` comes from ``scipy.optimize.brentq`` on
    the interval where ``M^-1 + a C`` stays positive definite.  Same
    in-place semantics as the compiled ``logdet_linear_sweep``.
    """
    from scipy.optimize import brentq

    inv_gamma = 0.0 if np.isinf(slack) else 1.0 / slack
    n_satisfied = n_skipped = n_moved = 0
    for c in order:
        C = np.einsum("k,ki,kj->ij", S[c].astype(float), V[c], V[c])
        if not np.any(C):
            n_skipped += 1
            continue
        Minv = np.linalg.inv(M)
        f0 = np.trace(M @ C)
        ineq = kind[c] != 0
        if (f0 - bound[c] <= rtol) if ineq else (abs(f0 - bound[c]) <= rtol):
            n_satisfied += 1
        if ineq and correction and nu[c] <= 0 and f0 <= xi[c]:
            continue
        # the domain of a: M^-1 + a C positive definite
        eta = np.linalg.eigvals(M @ C).real
        eta = eta[np.abs(eta) > 1e-13 * np.abs(eta).max()]
        lo = -1.0 / eta.max() if eta.max() > 0 else -np.inf
        hi = -1.0 / eta.min() if eta.min() < 0 else np.inf

        def g(a, C=C, Minv=Minv, c=c):
            return np.trace(np.linalg.solve(Minv + a * C, C)) - a * inv_gamma - xi[c]

        def bracket(start, end):
            # a finite point of the half-line/interval where g changes sign
            if np.isfinite(end):
                # approach the pole of f at `end` until g changes sign
                k = 1
                while np.sign(g(end - (end - start) * 0.5 ** k)) == np.sign(g(start)):
                    k += 1
                return end - (end - start) * 0.5 ** k
            step = np.sign(end)
            while np.sign(g(start + step)) == np.sign(g(start)):
                step *= 2.0
            return start + step

        g0 = g(0.0)
        if g0 > 0:
            a = brentq(g, 0.0, bracket(0.0, hi), xtol=1e-300, rtol=1e-15, maxiter=500)
        elif g0 < 0:
            if ineq and correction and -nu[c] > lo and g(-nu[c]) <= 0:
                a = -nu[c]
            else:
                a = brentq(g, bracket(0.0, lo), 0.0, xtol=1e-300, rtol=1e-15,
                           maxiter=500)
        else:
            a = 0.0
        if ineq and correction:
            a = max(a, -nu[c])
        if a == 0.0:
            continue
        M[...] = np.linalg.inv(Minv + a * C)
        M[...] = 0.5 * (M + M.T)
        nu[c] += a
        xi[c] += a * inv_gamma
        n_moved += 1
    return n_satisfied, n_skipped, n_moved


def row_matrix(V, S):
    """C = sum_k s_k v_k v_k' of one row."""
    return np.einsum("k,ki,kj->ij", S.astype(float), V, V)


def row_abs_matrix(V, S):
    """sum_k |s_k| v_k v_k': the row's scale (tr(X |C|) bounds |tr(X C)|)."""
    return np.einsum("k,ki,kj->ij", np.abs(S).astype(float), V, V)


def vonneumann_linear_sweep_reference(V, S, kind, bound, xi, nu, L, order, slack, rtol,
                           correction=True):
    """One sweep of von Neumann projections on general rows, dense (JMLR 2009
    §5.2 and §6.2.2): f(a) = tr(expm(L - a C) C), a* by brentq on
    g(a) = f(a) - a / gamma - xi, then the same dual / slack / state updates
    as the compiled sweep (in place).  Returns (n_satisfied, n_skipped,
    n_moved)."""
    inv_gamma = 0.0 if np.isinf(slack) else 1.0 / slack
    n_satisfied = n_skipped = n_moved = 0
    for c in order:
        active = (S[c] != 0) & np.any(V[c] != 0, axis=1)
        C = row_matrix(V[c], S[c])
        if not active.any() or np.abs(C).max() <= 1e-13 * np.trace(row_abs_matrix(V[c], S[c])):
            n_skipped += 1  # a null row: no signed vector, or C = 0
            continue

        def f(a, C=C, L=L):
            return np.trace(linalg.expm(L - a * C) @ C)

        f0 = f(0.0)
        if kind[c] > 0:
            n_satisfied += f0 <= bound[c] + rtol
        else:
            n_satisfied += abs(f0 - bound[c]) <= rtol
        x = xi[c]
        g0 = f0 - x
        scale = np.trace(linalg.expm(L) @ row_abs_matrix(V[c], S[c]))
        if abs(g0) <= 1e-13 * (scale + abs(x)) or (
                kind[c] > 0 and correction and nu[c] <= 0.0 and g0 <= 0.0):
            continue

        def g(a, f=f, x=x):
            return f(a) - a * inv_gamma - x

        step = 1.0 if g0 > 0 else -1.0  # g decreases: the root is on the side of g0's sign
        lo, hi = sorted([0.0, step])
        while g(lo) < 0:
            lo -= 2 * (hi - lo)
        while g(hi) > 0:
            hi += 2 * (hi - lo)
        a = optimize.brentq(g, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps,
                            maxiter=500)
        if kind[c] > 0 and correction:
            a = max(a, -nu[c])
        if a == 0.0:
            continue
        nu[c] += a
        xi[c] += a * inv_gamma
        L -= a * C
        n_moved += 1
    return n_satisfied, n_skipped, n_moved


def higham_dykstra_reference(C, weights=None, eig_min=0.0, tol=1e-12, max_iter=100000):
    """Higham's (2002) alternating projections with Dykstra's correction for
    the nearest correlation matrix in the W-norm ``|W^1/2 A W^1/2|_F``,
    ``W = diag(weights)``, with the eigenvalues at least ``eig_min``, in
    its matrix form (independent of the package's dual form).

    For a diagonal W the W-norm projection onto the unit diagonal sets the
    diagonal, and onto ``{X >= eig_min I}`` it is
    ``eig_min I + W^-1/2 Pi(W^1/2 (A - eig_min I) W^1/2) W^-1/2``.  Stops when
    the positive semidefinite iterate X has ``max |X_ii - 1| <= tol``.
    Returns ``(X, iterates)``: the last X and every X met (each PSD).
    """
    n = C.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    sw = np.sqrt(w)
    eye = np.eye(n)

    def onto_psd(A):
        B = sw[:, None] * (A - eig_min * eye) * sw[None, :]
        lam, P = np.linalg.eigh((B + B.T) / 2)
        B = (P * np.maximum(lam, 0.0)) @ P.T
        return eig_min * eye + B / sw[:, None] / sw[None, :]

    def onto_unit_diagonal(A):
        A = A.copy()
        np.fill_diagonal(A, 1.0)
        return A

    Y = C.copy()
    dS = np.zeros_like(C)
    iterates = []
    for _ in range(max_iter):
        R = Y - dS
        X = onto_psd(R)
        iterates.append(X)
        dS = X - R
        Y = onto_unit_diagonal(X)
        if np.abs(np.diag(X) - 1.0).max() <= tol:
            break
    return X, iterates


def frobenius_jacobian_reference(G, y):
    """The element V of the generalised Jacobian of ``F(y) = diag(Pi(G +
    diag y))`` used by Qi & Sun's Newton method, as a dense n x n matrix, by
    its definition: column j is ``diag(P (Omega o (P' diag(e_j) P)) P')``
    with ``G + diag y = P diag(lam) P'`` and Omega the first divided
    differences of max(., 0) (1 on positive x positive, lam_i / (lam_i -
    lam_j) on positive x non-positive, 0 on non-positive x non-positive)."""
    n = y.size
    lam, P = np.linalg.eigh(G + np.diag(y))
    Omega = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if lam[i] > 0 and lam[j] > 0:
                Omega[i, j] = 1.0
            elif lam[i] > 0:
                Omega[i, j] = lam[i] / (lam[i] - lam[j])
            elif lam[j] > 0:
                Omega[i, j] = lam[j] / (lam[j] - lam[i])
    V = np.empty((n, n))
    for j in range(n):
        H = np.zeros((n, n))
        H[j, j] = 1.0
        V[:, j] = np.diag(P @ (Omega * (P.T @ H @ P)) @ P.T)
    return V
