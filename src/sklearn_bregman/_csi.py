"""Cholesky with side information (CSI): a low-rank kernel factor that predicts.

Bach & Jordan, "Predictive low-rank decomposition for kernel methods", ICML
2005.  Pivoted incomplete Cholesky picks the pivot that most reduces
tr(K - G G'); CSI picks the one that most reduces

    J(G) = lam * tr(K - G G') + mu * |Y - Q Q' Y|_F^2        (eq. 2, 5-7)

with Q an orthonormal basis of the columns of G (QR decomposition grown
alongside the Cholesky one, Section 4), lam = kappa / tr K and
mu = (1 - kappa) / tr(Y'Y).  The gain of a pivot needs its whole kernel
column; delta look-ahead Cholesky steps give an approximation of every
column (Section 5), and a chosen pivot is moved to its place by O(n)
transpositions (App. A).  Memory O(n (m + delta)), time O((m + delta)^2 n);
only kernel columns of the pivots are evaluated.
"""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._engine._csi import (
    cholesky_append,
    estimated_gains,
    lookahead_added,
    lookahead_chosen,
    move_pivot,
    qr_append,
)
from ._factors import (
    KERNELS,
    _kernel_params,
    _power_of_two_below,
    check_finite_coordinates,
    check_precomputed,
    kernel_source,
    pivot_columns,
)

__all__ = ["CSIDecomposition", "cholesky_side_information", "side_information"]

#: A residual diagonal below this share of the largest one is numerically zero.
_FLOOR = 1e-12


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
    """

    G: np.ndarray
    pivots: np.ndarray
    Q: np.ndarray
    R: np.ndarray
    approximation_error: np.ndarray
    prediction_error: np.ndarray
    gains: np.ndarray


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
        ``kappa = 1``, or ``delta = 0``: with no look-ahead no column is
        known in advance and the estimated gain reduces to the lower bound of
        Section 2.2) gives plain pivoted incomplete Cholesky.
    max_rank : int
        m, the largest number of columns.
    kappa : float in [0, 1]
        Trade-off between approximating K (1) and predicting Y (0).
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
    trace = float(diag.sum())
    if Y is None:
        Y = np.zeros((n, 0))
    Y = np.asfortranarray(Y, dtype=np.float64)
    # J depends on Y only up to scale (mu = (1 - kappa) / tr(Y'Y)): the run
    # works on Y / y_scale, a power of two (exact, so the pivots are those of
    # Y itself), and the prediction errors are scaled back at the end.  A
    # huge y then neither overflows tr(Y'Y) nor silently drops the side
    # information.
    y_max = float(np.abs(Y).max()) if Y.size else 0.0
    y_scale = _power_of_two_below(y_max)
    Y = np.asfortranarray(Y / y_scale)
    if center and Y.shape[1]:
        Y = np.asfortranarray(Y - Y.mean(0))
    y_norm = float((Y ** 2).sum())
    if trace <= 0:
        raise ValueError("The kernel is zero on the training data: nothing to factor.")
    mu = (1.0 - kappa) / y_norm if y_norm > 0 else 0.0
    plain = mu == 0.0 or delta == 0  # plain pivoted incomplete Cholesky
    lam = kappa / trace if mu > 0 else 1.0 / trace
    if plain:
        delta = 0
    floor = _FLOOR * diag.max()
    d = Y.shape[1]
    buf = _Buffers(n, d, min(n, max_rank + delta), delta, plain)
    acc = np.zeros((n, max(d, 1)), order="F")
    work = np.empty(2 * n + delta + 2)
    dadv = diag.copy()  # residual after all t columns
    dk = diag.copy()    # residual after the chosen k0 columns
    A = np.zeros(n)
    used = np.zeros(n, dtype=bool)      # among the t columns
    chosen = np.zeros(n, dtype=bool)    # among the first k0
    gains_est = np.empty(n)
    t = k0 = 0

    def append(p):
        nonlocal t
        buf.ensure(t)
        values = np.ascontiguousarray(column(p), dtype=np.float64).reshape(-1)
        if not np.isfinite(values).all():
            raise ValueError(f"Kernel column {p} is not finite (NaN or inf): nothing to factor.")
        cholesky_append(buf.G, dadv, values, t, buf.pivots, p)
        if not plain:  # (plain: the QR is done once at the end)
            qr_append(buf.Q, buf.R, buf.E, Y, buf.G, t, center)
            lookahead_added(A, buf.W, buf.G, buf.R, k0, t, work)
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
    while t < delta and t < buf.limit:  # the first look-ahead steps
        p = classical()
        if p is None:
            break
        append(p)
    while k0 < max_rank:
        if delta == 0:
            p = classical()
            if p is None:
                break
            append(p)
        else:
            if k0 == t:
                break
            # a point outside the look-ahead with no residual left after it is
            # numerically in its span: it cannot be appended as a new column
            candidate = (~chosen & (dk > floor) & (used | (dadv > floor))).view(np.uint8)
            estimated_gains(gains_est, A, dk, dadv, buf.W, buf.E, k0, t, lam, mu, candidate,
                            acc, work)
            best = gains_est.max()
            if not np.isfinite(best):
                break
            ties = np.flatnonzero(gains_est >= best - 1e-12 * abs(best))
            p = int(ties[0] if ties.size == 1 else rng.choice(ties))
            if not used[p]:
                if t == buf.limit:
                    break
                append(p)
            elif t < buf.limit:  # keep delta columns ahead: the classical pivot
                extra = classical()
                if extra is not None:
                    append(extra)
            pos = k0 + int(np.flatnonzero(buf.pivots[k0:t] == p)[0])
            if pos > k0:  # move p to position k0 (App. A)
                move_pivot(buf.G, buf.Q, buf.R, buf.E, buf.W, buf.pivots, pos, k0, t)
        if plain:
            gg = float(buf.G[:, k0] @ buf.G[:, k0])
            dk = dadv
        else:
            gg = lookahead_chosen(A, dk, buf.G, k0, t, work)
        chosen[buf.pivots[k0]] = True
        # (plain: no QR yet; the prediction errors are computed at the end)
        qy = float((buf.E[:, k0] ** 2).sum()) if d and not plain else 0.0
        k0 += 1
        approx.append(max(float(dk.sum()), 0.0))
        pred.append(max(pred[-1] - qy, 0.0))
        gain = lam * gg + mu * qy
        gains.append(gain)
        if gain < tol:
            break
    m = k0
    G, Q, R, pivots = buf.G[:, :m], buf.Q, buf.R, buf.pivots
    if plain:
        Gc = G - G.mean(0) if center else G.copy(order="F")
        norms = np.sqrt((Gc ** 2).sum(0))
        Q, R = linalg.qr(Gc, mode="economic", overwrite_a=True, check_finite=False)
        del Gc
        # a column already in the span of the earlier ones (e.g. constant once
        # centred, as the one column of a single sample) adds no direction:
        # Q[:, k] = 0 and R[k, k] = 0, as qr_append does, rather than the
        # arbitrary unit vector of the Householder QR
        flat = np.abs(np.diag(R)) <= 1e-12 * norms
        Q[:, flat] = 0.0
        R[flat, flat] = 0.0
        if y_norm > 0:  # y given but not used for the pivots: its prediction errors
            pred = list(y_norm - np.concatenate([[0.0], np.cumsum(((Y.T @ Q) ** 2).sum(0))]))
    else:
        Q, R = Q[:, :m], np.triu(R[:m, :m])
    # back to the units of y (exact: y_scale is a power of two)
    with np.errstate(over="ignore"):
        prediction_error = np.maximum(np.array(pred), 0.0) * y_scale * y_scale
    if not np.isfinite(prediction_error).all():
        raise ValueError(
            f"y is too large: its squared norm |y - mean(y)|^2, the prediction error at "
            f"rank 0, overflows float64 (largest |y| = {y_max:.3g}); "
            f"rescale y (CSI's pivots do not depend on the scale of y)."
        )
    return CSIResult(G=G, pivots=pivots[:m].copy(), Q=Q, R=R,
                     approximation_error=np.array(approx),
                     prediction_error=prediction_error,
                     gains=np.array(gains))


class _Buffers:
    """The column-major arrays of a CSI run, grown by doubling as columns come.

    G, Q, W are n x cap, R cap x cap, E d x cap, pivots cap; ``limit`` is
    the most columns a run may use (min(n, max_rank + delta)).  Starting
    small and doubling keeps the memory at O(n (m + delta)) for a run that
    stops at rank m, whatever ``max_rank`` (n by default) allows.  Plain
    incomplete Cholesky only needs G.
    """

    def __init__(self, n, d, limit, delta, plain):
        self.n, self.d, self.limit, self.plain = n, d, limit, plain
        self.cap = 0
        cap = delta + 64
        cap = limit if limit <= 2 * cap else cap  # one growth saved is worth it
        self.G = np.zeros((n, 0), order="F")
        self.Q = np.zeros((n, 0), order="F")
        self.W = np.zeros((n, 0), order="F")
        self.R = np.zeros((0, 0), order="F")
        self.E = np.zeros((d, 0), order="F")
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
        if not self.plain:
            self.Q = grow(self.Q, self.n)
            self.W = grow(self.W, self.n)
            self.R = grow(self.R, cap, square=True)
            self.E = grow(self.E, self.d)
        pivots = np.zeros(cap, dtype=np.intp)
        pivots[:old] = self.pivots
        self.pivots = pivots
        self.cap = cap


def _targets(y):
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
        Y = np.zeros((y.shape[0], classes.shape[0]))
        Y[np.flatnonzero(labeled), codes] = 1.0
    return Y


class CSIDecomposition(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    r"""Cholesky decomposition with side information (Bach & Jordan 2005).

    A low-rank factor :math:`K \approx G G^T` of the kernel matrix built from
    m of its columns (the pivots), chosen greedily to reduce

    .. math:: J(G) = \lambda\, \mathrm{tr}(K - G G^T)
              + \mu \min_\alpha \| Y - G \alpha \|_F^2

    (eq. 2): approximating K and predicting the targets Y by least squares on
    G.  Kernel columns are only evaluated for the pivots and ``delta``
    look-ahead ones, never the n x n matrix; time O((m + delta)^2 n).  With
    ``y=None`` it is plain pivoted incomplete Cholesky (Section 2).

    ``transform`` gives the factor's rows of new points from their kernel
    values against the pivots only, :math:`k(x, X_I) L^{-T}` with
    :math:`L = G[I]` lower triangular (Section 6.2): ridge regression or an
    LS-SVM on these rows is the kernel method on the low-rank kernel.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly', 'laplacian', 'sigmoid', 'cosine', \
            'precomputed'} or callable, default='rbf'
    gamma, degree, coef0, kernel_params
        Kernel parameters, as in scikit-learn (``gamma=None``: 1 / n_features).
    rank : int, default=None
        Upper bound m on the rank (``None``: n_samples, the stopping rule
        decides).
    kappa : float in [0, 1], default=0.99
        Trade-off between approximating K (``lam = kappa / tr K``) and
        predicting Y (``mu = (1 - kappa) / tr(Y'Y)``); the paper's 0.99.
    delta : int, default=40
        Look-ahead steps (the paper's 40); 0 (or ``kappa=1``) is plain
        incomplete Cholesky, whatever y.
    tol : float, default=1e-4
        Stop when the true gain of a step falls below (J is normalised to 1
        at G = 0).
    center : bool, default=True
        Centre Y and G before the QR decomposition: the least-squares fit has
        an intercept (Section 5.4).
    random_state : int, RandomState instance or None, default=None
        Breaks ties between pivots of equal estimated gain.

    Attributes
    ----------
    pivots_ : ndarray of shape (rank_,)
        Training rows whose kernel columns make the factor, in order.
    embedding_ : ndarray of shape (n_samples, rank_)
        The factor G of the training points.
    Q_ : ndarray of shape (n_samples, rank_)
        Orthonormal basis of the (centred) columns of G.
    R_ : ndarray of shape (rank_, rank_)
        Upper triangular, ``Q_ @ R_`` = (centred) ``embedding_``.
    approximation_error_ : ndarray of shape (rank_ + 1,)
        ``tr(K - G_k G_k')`` after k = 0, ..., rank_ steps.
    prediction_error_ : ndarray of shape (rank_ + 1,)
        ``|Y - Q_k Q_k' Y|_F^2`` after each step (Y centred if ``center``);
        zeros without y.
    gains_ : ndarray of shape (rank_,)
        True reduction of the normalised cost J at each step.
    rank_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    References
    ----------
    F. R. Bach and M. I. Jordan. Predictive low-rank decomposition for kernel
    methods. ICML 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import RidgeClassifier
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_bregman import CSIDecomposition
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> pipe = make_pipeline(StandardScaler(), CSIDecomposition(gamma=0.02, rank=20),
    ...                      RidgeClassifier(alpha=1e-3)).fit(X, y)
    >>> pipe[1].rank_
    20
    """

    _parameter_constraints = {
        "kernel": [StrOptions(set(KERNELS)), callable],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Real],
        "kernel_params": [dict, None],
        "rank": [Interval(Integral, 1, None, closed="left"), None],
        "kappa": [Interval(Real, 0, 1, closed="both")],
        "delta": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "center": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel="rbf", *, gamma=None, degree=3, coef0=1, kernel_params=None,
                 rank=None, kappa=0.99, delta=40, tol=1e-4, center=True,
                 random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank = rank
        self.kappa = kappa
        self.delta = delta
        self.tol = tol
        self.center = center
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the pivots and build the factor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the kernel matrix if ``kernel='precomputed'``.
        y : array-like of shape (n_samples,) or (n_samples, n_targets), default=None
            Floating-point responses (regression, one column per response),
            or class labels of any other dtype (one-hot encoded); ``None``
            gives plain pivoted incomplete Cholesky.

        Returns
        -------
        self
        """
        if y is None:
            X = validate_data(self, X, dtype=np.float64)
            Y = None
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, multi_output=True,
                                 y_numeric=False)
            Y = _targets(y)
        n = X.shape[0]
        if self.rank is not None and self.rank > n:
            raise ValueError(
                f"rank={self.rank} is larger than the data allows: at most n_samples = {n}."
            )
        params = _kernel_params(self.kernel, self.gamma, self.degree, self.coef0,
                                self.kernel_params)
        if self.kernel == "precomputed":
            check_precomputed(X)
        column, diag = kernel_source(X, self.kernel, params)
        res = cholesky_side_information(
            column, diag, Y, max_rank=n if self.rank is None else self.rank,
            kappa=self.kappa, delta=self.delta, tol=self.tol, center=self.center,
            random_state=self.random_state,
        )
        if res.G.shape[1] == 0:
            raise ValueError("The kernel is zero on the training data: nothing to factor.")
        self.pivots_ = res.pivots
        # column-major, as built: no copy of the n x m arrays
        self.embedding_ = res.G
        self.Q_ = res.Q
        self.R_ = res.R
        self.approximation_error_ = res.approximation_error
        self.prediction_error_ = res.prediction_error
        self.gains_ = res.gains
        self.rank_ = res.G.shape[1]
        self._params = params
        self._X_pivots = None if self.kernel == "precomputed" else X[res.pivots].copy()
        self._L = np.ascontiguousarray(res.G[res.pivots])  # lower triangular
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the factor of the training points (``embedding_``)."""
        return self.fit(X, y).embedding_

    def transform(self, X):
        """Rows of the factor for (new) points: ``k(X, X_pivots) L^-T``.

        Parameters
        ----------
        X : array-like of shape (n, n_features), or (n, n_train) kernel values
            against the training points if ``kernel='precomputed'``.

        Returns
        -------
        ndarray of shape (n, rank_)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Kc = pivot_columns(X, self.kernel, self._params, self._X_pivots, self.pivots_)
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            Z = linalg.solve_triangular(self._L, Kc.T, lower=True, check_finite=False).T
        return check_finite_coordinates(Z, self.kernel, self._params, X)

    @property
    def _n_features_out(self):
        return self.rank_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags
