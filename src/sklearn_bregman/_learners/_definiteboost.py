"""DefiniteBoost: trace-one kernels by Bregman projections, and the MEG update.

Tsuda, Rätsch & Warmuth, "Matrix exponentiated gradient updates for on-line
learning and Bregman projection", JMLR 6, 2005 (Section 4 for DefiniteBoost,
eq. 4 and 7 for MEG), with the exact projections and dual corrections of
Kulis, Sustik & Dhillon (JMLR 2009, Section 6.3 and App. B).  The learner
starts, like the kernel learners, from a low-rank factor of an initial
kernel (:class:`~sklearn_bregman._learners._base.FactorLearner`), but it has no slack
and no constraint order: its steps choose the most violated constraint (or
sweep them), and its constraints are the trace-one ones of eq. 8.  The
compiled steps are in ``_engine/_definiteboost_steps.pyx``; the loop around them is
the engine's (:func:`sklearn_bregman._engine.definiteboost`).
"""

import copy
from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._constraints._containers import check_pairs
from .._constraints._resolve import check_similar_bounds, resolve_pair_constraints
from .._data._data import InMemoryRows, enter, output_dtype
from .._engine import (
    ProjectionResult,
    definiteboost,
    meg_steps,
    moderate_state,
    relative_gap,
    renormalise_log_trace,
    warn_zero_length,
    zero_length_pairs,
)
from .._factors._factors import orthonormal_basis
from .._utils._sklearn_compat import Interval, StrOptions
from .._utils._state import call_rng, fit_context
from .._utils._warnings import warn
from ._base import (
    FACTOR_PARAMETERS,
    FactorLearner,
    components_from_metric,
    metric_from_log,
    refuse_changed,
    run_attributes,
)

__all__ = ["DefiniteBoost"]

#: Largest n of ``init='identity'``: W is then the dense n x n kernel on the
#: training points, whose set-up holds several n x n arrays (U, Vt, the
#: normalised coordinates, log W_1, then the constraint rows and the fitted
#: metric_ and embedding_) and whose projections cost O(n^3) each (an
#: eigendecomposition of log W), as ``NearestCorrelation``'s von Neumann
#: path (``VONNEUMANN_MAX_N``, the same limit).  ``init='kernel'`` with a
#: rank works on an n x rank factor instead.
IDENTITY_MAX_N = 2000


class _Start(NamedTuple):
    """What DefiniteBoost's first call sets up: the initial factor (None with
    ``init='identity'``), the basis U of W and the thin SVD's ``s``, ``Vt``,
    the trace normalisation, the normalised initial coordinates and log W_1."""

    factor: object
    U: np.ndarray
    s: np.ndarray
    Vt: np.ndarray
    scale: float
    G_norm: np.ndarray
    log_w1: np.ndarray


#: The attributes of a run before any (a stream's first call, or nothing binds).
_NO_RUN = {"n_iter_": 0, "converged_": True, "max_violation_": 0.0, "n_projections_": 0,
           "n_evals_": 0, "dual_objective_": 0.0}


def _run_attributes(result):
    """A DefiniteBoost run's attributes: the shared ones and its own."""
    return {**run_attributes(result), "n_evals_": result.n_evals,
            "dual_objective_": result.dual_objective}


class DefiniteBoost(FactorLearner):
    r"""Trace-one kernel from pair constraints (Tsuda, Rätsch & Warmuth 2005, §4).

    Solves the Bregman projection problem of eq. 8,

    .. math::

        \min_W \Delta(W, W_1) \quad \text{s.t.} \quad \mathrm{tr}\,W = 1,\quad
        \mathrm{tr}(W C_j) \le 0,

    with :math:`\Delta` the von Neumann divergence and, for a pair
    :math:`(i, j)` with :math:`v = u_i - u_j`, :math:`C_j = vv^T - bI`
    (similar: :math:`d(i, j) \le b`) or :math:`C_j = bI - vv^T`
    (dissimilar: :math:`d(i, j) \ge b`).  The solution is
    :math:`W = \exp(\log W_1 - \sum_j \gamma_j C_j) / Z` with the duals
    :math:`\gamma \ge 0` of eq. 9, found one constraint at a time: each
    step picks a constraint (the most violated one with
    ``selection='greedy'``, as the paper), a step size :math:`\alpha` exact
    (eq. 11) or approximate (eq. 13), and updates
    :math:`\log W \leftarrow \log W - \alpha C_j - \log Z`: the von Neumann
    rank-one update plus a renormalisation, O(k r²) on a Lanczos
    tridiagonal (JMLR 2009, §6.3).

    Departures from the paper, both deliberate:

    - ``dual_correction=True`` (default) lets a step give dual weight back
      (:math:`\alpha \ge -\gamma_j`); the original only adds weight
      (:math:`\alpha \ge 0`) and can stop at a feasible but suboptimal W
      (JMLR 2009, App. B).  ``dual_correction=False`` reproduces it.
    - The approximate step is the minimiser of the bound of Theorem 4.1,
      :math:`\alpha = \frac{1}{\lambda_{max} - \lambda_{min}}
      \log\frac{1 - r/\lambda_{min}}{1 - r/\lambda_{max}}`; the printed
      eq. 13 swaps the signs inside the logarithm (the two agree for
      symmetric eigenvalues, the AdaBoost case of §4.3, but the printed
      form is undefined once :math:`r > -\lambda_{min}`).

    Starting points.  ``init='kernel'`` (default): :math:`W_1` is the
    initial kernel of the suite (``kernel``, ``rank``, ...) normalised to
    trace one, and the problem is posed in an orthonormal basis of its
    range, so ``transform`` maps new points through the initial factor like
    the other learners.  ``init='identity'``: :math:`W_1 = I/n` on the
    training points, as the paper; this is transductive (a new point has no
    kernel value against the training points), so ``transform`` raises and
    ``fit_transform`` / ``embedding_`` give the training embedding.

    Online learning.  :meth:`partial_fit` applies the Matrix Exponentiated
    Gradient update (eq. 4, in the stable form of eq. 7) to a batch of
    examples (pair, target squared distance).

    Parameters
    ----------
    kernel : str or callable, default='linear'
        One of 'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine',
        'precomputed', or a callable ``k(x, y) -> float``.
        Initial kernel, as for :class:`LogDetKernelLearner` (unused with
        ``init='identity'``, as are the kernel and factor parameters below).
    gamma : float, default=None
        Bandwidth of 'rbf', 'laplacian', 'poly', 'sigmoid' (``None``:
        1 / n_features, as scikit-learn).
    degree : float, default=3
        Degree of 'poly'.
    coef0 : float, default=1
        Constant of 'poly' and 'sigmoid'.
    kernel_params : dict, default=None
        Parameters of a callable kernel.
    rank : int, default=None
        Rank r of the initial factor: ``None`` gives min(n_samples,
        n_features) for the linear kernel and min(n_samples, 100) otherwise.
    factor_tol : float, default=1e-6
        Stopping tolerance of the initial factor, as for
        :class:`LogDetKernelLearner`.
    low_rank : {'cholesky', 'csi', 'rpcholesky'}, default='cholesky'
        Pivots of the initial factor, as for :class:`LogDetKernelLearner`:
        ``'csi'`` picks them with the labels (Cholesky with side
        information), ``'rpcholesky'`` at random (randomly pivoted
        Cholesky).
    n_constraints : int, default=None
        Pairs drawn from labels; ``None``: 40 c^2 for c classes.
    bounds : {'relative', 'percentile'} or (upper, lower), default='relative'
        As :class:`LogDetKernelLearner`, measured under the trace-one
        initial kernel :math:`W_1` (with ``init='identity'`` every pair
        starts at squared distance 2/n).  A similar pair whose bound is at
        least :math:`|v|^2` (or a dissimilar pair whose bound is at most 0)
        holds for every trace-one W and is left out; a dissimilar pair with
        bound :math:`\ge |v|^2` cannot be met and raises a ValueError.
    epsilon : float, default=0.25
        Margin of ``bounds='relative'``.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples (embedded, not constrained).
    selection : {'greedy', 'cyclic'}, default='greedy'
        Project on the most violated constraint at each step (the paper;
        each step evaluates every constraint: an eigendecomposition of the
        r x r state and O(c r^2)), or on every constraint in turn in a new
        random order each sweep (O(k r^2) per step).
    projection : {'exact', 'approximate'}, default='exact'
        Step size: the exact minimiser of eq. 11 (root of
        :math:`v^T W(\alpha) v = b`), or the closed form of eq. 13.
    dual_correction : bool, default=True
        Allow steps that give dual weight back (see above).
    init : {'kernel', 'identity'}, default='kernel'
        Starting point :math:`W_1` (see above).  ``'identity'`` works on
        dense n x n matrices and takes at most ``IDENTITY_MAX_N`` = 2000
        samples (more raise a ValueError before anything is allocated).
    learning_rate : float, default=0.5
        :math:`\eta` of the MEG update in :meth:`partial_fit`.  Our example
        matrix is :math:`vv^T` where the paper's is :math:`\frac12 vv^T`,
        so 0.5 here is the paper's :math:`\eta = 2`.
    tol : float, default=1e-3
        Stop when every constraint is within ``tol`` relative to its bound
        (and, with the dual correction, every constraint with a positive
        dual is within ``tol`` of equality: the KKT conditions).
    max_iter : int, default=1000
        Maximum number of sweeps (a greedy sweep is as many steps as there
        are constraints).
    random_state : int, RandomState instance or None, default=None
        Seeds the constraint draw, the 'percentile' bounds, the cyclic order and
        the pivots of ``low_rank='rpcholesky'``.
    verbose : int, default=0
        Print one line per sweep.
    memory : str, joblib.Memory or None, default=None
        Cache of the initial factor, as for
        :class:`~sklearn_bregman.LogDetKernelLearner` (used with
        ``init='kernel'``).

    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where identifiers of points lead: ``fit`` and ``transform`` take
        ``X`` as a 1-D array of identifiers, and ``pair_distance`` /
        ``pair_score`` pairs as ``(n_pairs, 2)`` identifiers.  An array:
        identifiers are indices into its rows; a callable: it takes a 1-D
        array of identifiers (integers, file names, keys) and returns their
        rows.  ``None``: points are given as points.

    Attributes
    ----------
    components_ : ndarray of shape (``rank_``, ``rank_``) or (``rank_``, ``n_features_in_``)
        The learned linear map of ``transform``: with ``kernel='linear'``,
        on the input features (``transform(X) = X @ components_.T``, shape
        (``rank_``, ``n_features_in_``), and ``get_mahalanobis_matrix()`` is
        ``components_.T @ components_``); with the other kernels, B on the
        initial factor's coordinates (``transform(X) = phi0(X) @
        components_.T``, ``metric_ = B.T @ B``).
    metric_ : ndarray of shape (``rank_``, ``rank_``)
        M with learned kernel :math:`K = G_0 M G_0^T` (trace one).
    embedding_ : ndarray of shape (n_samples, ``rank_``)
        Training points mapped; ``embedding_ @ embedding_.T`` is W.
    rank_ : int
        Rank of the initial factor (n_samples with ``init='identity'``).
    pivots_ : ndarray or None
        Training rows chosen by the initial factor (``None`` for 'linear'
        and with ``init='identity'``).
    factor_ : LowRankFactor or None
        The initial factor and its out-of-sample map; ``None`` with
        ``init='identity'``.
    constraints_ : PairConstraints
        The constraints used, with their bounds.
    dual_coef_ : ndarray of shape (n_constraints,)
        The :math:`\gamma_j` of eq. 9 (0 for constraints left out).
    dual_objective_ : float
        Eq. 9 at the end: :math:`\log\mathrm{tr}\exp(\log W_1 - \sum_j
        \gamma_j C_j)` (decreases from 0).
    n_iter_ : int
        Sweeps run.
    n_projections_ : int
        Steps (projections) that moved the state.
    n_evals_ : int
        Root-finder evaluations (exact steps).
    converged_ : bool
        Whether every relative KKT violation is at most ``tol`` (see
        ``tol``); ``False`` with a ConvergenceWarning when ``max_iter`` runs
        out or the constraints are proven infeasible.
    max_violation_ : float
        Largest relative violation of a constraint at the end,
        ``max_j max(0, s_j (d_j - b_j)) / b_j``.
    n_examples_seen_ : int
        Examples seen by :meth:`partial_fit` (0 after ``fit``).
    total_loss_ : float
        Sum over :meth:`partial_fit` examples of the squared error of the
        prediction made before each update (the paper's total loss).
    preprocessor_ : array-like, callable or None
        The ``preprocessor`` of the last fitting call: ``transform`` and the
        metric surface resolve identifiers through it (a ``set_params`` after
        ``fit`` changes nothing until the next fit).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during ``fit``, defined only when ``X`` has
        feature names that are all strings.

    References
    ----------
    K. Tsuda, G. Rätsch and M. K. Warmuth. Matrix exponentiated gradient
    updates for on-line learning and Bregman projection. JMLR 6, 2005.
    B. Kulis, M. A. Sustik and I. S. Dhillon. Low-rank kernel learning with
    Bregman matrix divergences. JMLR 10, 2009 (§6.3, App. B).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_bregman import DefiniteBoost
    >>> X, y = load_iris(return_X_y=True)
    >>> db = DefiniteBoost(kernel="rbf", rank=20, n_constraints=100,
    ...                    random_state=0).fit(X, y)
    >>> K = db.learned_kernel(X)
    >>> round(float(K.trace()), 6)
    1.0
    """

    _parameter_constraints = {
        **FactorLearner._parameter_constraints,
        "selection": [StrOptions({"greedy", "cyclic"})],
        "projection": [StrOptions({"exact", "approximate"})],
        "dual_correction": ["boolean"],
        "init": [StrOptions({"kernel", "identity"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
    }
    _learns_from = ("pairs",)

    def __init__(self, kernel="linear", *, gamma=None, degree=3, coef0=1,
                 kernel_params=None, rank=None, factor_tol=1e-6, low_rank="cholesky",
                 n_constraints=None, bounds="relative", epsilon=0.25, unlabeled=-1,
                 selection="greedy",
                 projection="exact", dual_correction=True, init="kernel",
                 learning_rate=0.5, tol=1e-3, max_iter=1000, random_state=None,
                 verbose=0, memory=None, preprocessor=None):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank = rank
        self.factor_tol = factor_tol
        self.low_rank = low_rank
        self.n_constraints = n_constraints
        self.bounds = bounds
        self.epsilon = epsilon
        self.unlabeled = unlabeled
        self.selection = selection
        self.projection = projection
        self.dual_correction = dual_correction
        self.init = init
        self.learning_rate = learning_rate
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.memory = memory
        self.preprocessor = preprocessor

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, constraints=None):
        """Learn the trace-one kernel from labels ``y`` or pair ``constraints``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the training kernel when ``kernel='precomputed'``.
        y : array-like of shape (n_samples,), default=None
            Class labels; pairs are drawn from them when ``constraints`` is None.
        constraints : PairConstraints or array-like of shape (n_constraints, 3 or 4), default=None
            Pairs ``i, j, sign[, bound]`` over the rows of ``X``; bounds are
            squared distances under the trace-one kernel.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, y, constraints, stream=False)

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, constraints=None):
        """Learn online from a batch of labels or pair constraints: one MEG pass.

        The contract of the other learners' ``partial_fit``: each call's pairs
        are drawn from its labels ``y`` or given as ``constraints`` over the
        rows of its ``X``; the first call (when the estimator is not fitted)
        sets up the initial kernel on its ``X`` and fixes the random stream
        of the draws; later calls (and a call after ``fit``) continue from
        the current W, their points entering through the initial factor's
        map as ``transform`` maps new points (``init='identity'`` is
        transductive: every call then takes the first call's points).  Each
        pair of the batch is one example of the Matrix Exponentiated Gradient
        update (Tsuda et al. eq. 4, in the stable form of eq. 7), in order:
        its target is its bound (given, or set by the ``bounds`` rule on the
        initial kernel normalised to trace one, as ``fit`` sets them), the
        squared loss of the paper.  Unlike the Bregman projections of ``fit``
        and of the other learners' streams, MEG keeps no duals and ends at no
        optimum of the constraints seen: ``converged_``, ``max_violation_``
        and ``n_iter_`` stay those of the last ``fit`` (True, 0.0 and 0 when
        the stream started the estimator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch's points (with ``init='identity'``: the first call's).
        y : array-like of shape (n_samples,), default=None
            The batch's class labels; pairs among its points are drawn from
            them when ``constraints`` is None.
        constraints : PairConstraints or array-like of shape (n_constraints, 3 or 4), default=None
            Pairs ``i, j, sign[, bound]`` over the rows of this batch's ``X``;
            a bound is the pair's target squared distance under the trace-one
            kernel, in [0, 2] (no trace-one kernel puts two points further
            apart).

        Returns
        -------
        self : object
            The fitted estimator.  ``constraints_`` are the batch's pairs with
            their targets; ``n_examples_seen_`` and ``total_loss_`` count the
            stream.
        """
        return self._fit(X, y, constraints, stream=True)

    def _fit(self, X, y, constraints, *, stream):
        """``fit`` (Bregman projections), or a ``partial_fit`` call (MEG
        steps): one body.  The data enter; the initial kernel is set up (a
        fit, or a stream's first call) or taken from the fitted model; the
        batch's pairs are resolved once, in the basis of W; the steps run;
        the fitted attributes are set in one place, at the end."""
        name = type(self).__name__
        continuing = stream and "_start_state" in vars(self)
        if continuing:
            refuse_changed(self, self._fixed)
        X = enter(self, X, reset=not continuing, fitting=True,
                  ensure_min_samples=2).in_memory(f"{name}.{'partial_fit' if stream else 'fit'}")
        if continuing:
            start, rng = self._start_state, copy.deepcopy(self._rng)
            U, G_norm = self._batch_coordinates(start, X)
            log_w, fitted = self._log_w, {}
        else:
            rng = call_rng(self.random_state)
            start = self._start(X, y)
            U, G_norm, log_w = start.U, start.G_norm, start.log_w1
            fitted = {"_start_state": start, "factor_": start.factor,
                      "pivots_": None if start.factor is None else start.factor.pivots_,
                      "rank_": start.U.shape[1] if start.factor is not None else X.shape[0],
                      **_NO_RUN, "n_examples_seen_": 0, "total_loss_": 0.0,
                      "_fixed": self._parameters_fixed()}
        n = X.shape[0]
        res = resolve_pair_constraints(self, y, constraints, InMemoryRows(G_norm), None, n,
                                       rng)
        pairs = res.pairs
        if stream:
            # a zero-length pair (a point joined to itself, or two identical
            # points) has no direction for a MEG step: skipped, with the one
            # warning that counts them (as the batch solver's)
            zero = zero_length_pairs(G_norm, pairs.i, pairs.j)
            warn_zero_length(zero, name)
            log_w, loss = self._meg(U, pairs[~zero] if zero.any() else pairs, log_w)
            seen = self.n_examples_seen_ if continuing else 0
            total = self.total_loss_ if continuing else 0.0
            fitted.update(constraints_=pairs, dual_coef_=np.zeros(len(pairs)),
                          n_examples_seen_=seen + len(pairs), total_loss_=total + loss,
                          _rng=rng)
        else:
            generated = (np.ones(len(pairs), bool) if constraints is None
                         else np.isnan(check_pairs(constraints, n).bound))
            V, active = self._constraint_vectors(U, G_norm, pairs, generated, res.source)
            dual = np.zeros(len(pairs))
            if active.size and U.shape[1] > 1:
                result = definiteboost(
                    V[active], pairs.sign[active], pairs.bound[active], log_w,
                    selection=self.selection, exact=self.projection == "exact",
                    dual_correction=self.dual_correction, tol=self.tol,
                    max_iter=self.max_iter, random_state=rng, verbose=self.verbose,
                    owner=name,
                )
                log_w = result.state
                dual[active] = result.dual
                fitted.update(_run_attributes(result))
            elif active.size:
                fitted.update(_run_attributes(self._rank_one_result(
                    V[active], pairs.sign[active], pairs.bound[active], log_w)))
            # (nothing binds: no run, the start's attributes)
            fitted.update(constraints_=pairs, dual_coef_=dual, _rng=rng)
        factor = fitted["factor_"] if "factor_" in fitted else self.factor_
        fitted.update(self._kernel_attributes(start, log_w, factor))
        for attribute, value in fitted.items():
            setattr(self, attribute, value)
        return self

    def _parameters_fixed(self):
        """What the first call fixes for the calls that continue it."""
        return {name: getattr(self, name) for name in (*FACTOR_PARAMETERS, "init",
                                                        "random_state")}

    def _batch_coordinates(self, start, X):
        """A later batch's points in the basis U of W, and normalised to the
        trace-one initial kernel (the bounds are measured on them)."""
        if start.factor is None:  # init='identity': transductive
            if X.shape[0] != start.U.shape[0]:
                raise ValueError(
                    f"{type(self).__name__}.partial_fit with init='identity' learns a kernel "
                    f"on the {start.U.shape[0]} points of the first call (the identity "
                    f"kernel gives new points no coordinates); X has {X.shape[0]} samples."
                )
            return start.U, start.G_norm
        G = start.factor.transform(X)
        return np.ascontiguousarray((G @ start.Vt.T) / start.s), G / start.scale

    def _meg(self, U, pairs, log_w):
        """One MEG pass (eq. 7) over the pairs, in order: the new log W and
        the total squared loss of the predictions made before each update."""
        target = np.ascontiguousarray(pairs.bound, dtype=np.float64)
        bad = np.flatnonzero(target > 2)
        if bad.size:
            raise ValueError(
                "constraints: bounds are the pairs' target squared distances under a "
                "trace-one kernel, which lie in [0, 2]; row "
                f"{bad[0]} has {float(target[bad[0]])!r}.")
        if U.shape[1] < 2 or not len(target):
            return log_w, 0.0
        V = np.ascontiguousarray(U[pairs.i] - U[pairs.j])
        log_w = log_w.copy()
        pred = meg_steps(V, target, float(self.learning_rate), log_w)
        if not (moderate_state(log_w, log=True) and np.isfinite(pred).all()):
            # the one guard of every engine's state (as the sweeps)
            raise ValueError(
                f"partial_fit: the MEG updates with learning_rate={self.learning_rate!r} "
                "drove the kernel beyond double precision; this call's updates are "
                "discarded. Use a smaller learning_rate."
            )
        renormalise_log_trace(log_w)
        return log_w, float(((pred - target) ** 2).sum())

    def _rank_one_result(self, V, sign, bound, log_w):
        """r = 1: the only trace-one W is [1], so nothing can move; the
        constraints hold as they are or cannot be met (a ConvergenceWarning
        then says how many)."""
        violation = np.maximum(relative_gap((V**2).sum(1), sign, bound), 0.0)
        n_violated = int(np.count_nonzero(violation > self.tol))
        if n_violated:
            k = int(np.argmax(violation))
            warn(f"{type(self).__name__}: the initial kernel has rank one, whose only "
                 f"trace-one kernel is fixed, and {n_violated} of {len(bound)} binding "
                 f"constraints are violated by more than tol={self.tol} (the largest by "
                 f"{violation[k]:.3g}). Use a kernel of higher rank (kernel, rank) or "
                 "looser bounds (epsilon, bounds).", ConvergenceWarning)
        return ProjectionResult(state=log_w, log_state=True, dual=np.zeros(len(bound)),
                                targets=bound.copy(), n_iter=0,
                                converged=not n_violated, skipped=np.zeros(len(bound), bool),
                                max_violation=float(violation.max()))

    def _start(self, X, y=None):
        """W_1: the basis ``U`` of the initial kernel's range (thin SVD
        ``G0 = U diag(s) Vt``), ``log W_1``, and the trace-one-normalised
        initial coordinates on which bounds are measured (a :class:`_Start`,
        assigned to nothing)."""
        if self.init == "identity":
            n = X.shape[0]
            if n > IDENTITY_MAX_N:  # (before any n x n array)
                raise ValueError(
                    f"{type(self).__name__}(init='identity') learns the dense n x n kernel "
                    f"of the training points (several n x n arrays, O(n^3) per projection) "
                    f"and is limited to n <= {IDENTITY_MAX_N} samples; got n={n} "
                    f"({n * n * 8 / 2**30:.3g} GB per n x n array). Use init='kernel' "
                    "with a rank, which works on an n x rank factor.")
            U = np.eye(n)
            s, Vt, scale, factor = np.ones(n), np.eye(n), np.sqrt(n), None
            G_norm = U / scale
        else:
            factor, G = self._initial_factor(InMemoryRows(X), y)
            G0 = G.all()
            U, s, Vt = orthonormal_basis(G0)
            scale = np.sqrt((s**2).sum())
            G_norm = G0 / scale
        log_w = np.ascontiguousarray(np.diag(2.0 * np.log(s) - np.log((s**2).sum())))
        return _Start(factor, U, s, Vt, scale, G_norm, log_w)

    def _constraint_vectors(self, U, G_norm, pairs, generated, source):
        """Rows ``u_i - u_j`` and the constraints that can bind.

        Zero-length pairs, similar pairs with bound >= |v|^2 and dissimilar
        pairs with bound <= 0 hold for every trace-one W and are left out.
        No trace-one W puts a pair further apart than |v|^2: a dissimilar
        pair with a bound that high raises if the bound was given, and is
        left out with a warning if the ``bounds`` rule set it.
        """
        V = U[pairs.i] - U[pairs.j]
        nv2 = np.einsum("ij,ij->i", V, V)
        # duplicates are equal rows of G0, not quite of U (rounding of the SVD)
        zero = zero_length_pairs(G_norm, pairs.i, pairs.j)
        warn_zero_length(zero, type(self).__name__)
        nv2[zero] = 0.0
        b, sign = pairs.bound, pairs.sign
        check_similar_bounds(pairs, np.flatnonzero(nv2 > 0), source=source)
        bad = (sign < 0) & (b >= nv2) & (b > 0)
        dropped = bad & generated
        if dropped.any():
            warn(f"{type(self).__name__}: {int(dropped.sum())} dissimilar pairs got a "
                 f"bound (bounds={self.bounds!r}, epsilon={self.epsilon}) above the "
                 "largest squared distance a trace-one kernel can give them; they are "
                 "left out.")
            bad &= ~generated
        if bad.any():
            k = np.flatnonzero(bad)[0]
            raise ValueError(
                f"constraints: row {k} asks the squared distance of points "
                f"({pairs.i[k]}, {pairs.j[k]}) to be >= {b[k]:g}, but no trace-one kernel "
                f"puts them further apart than {nv2[k]:g}; lower the bound (bounds are "
                "squared distances under the kernel normalised to trace one)."
            )
        binding = np.where(sign > 0, b < nv2, (b > 0) & ~dropped) & (nv2 > 0)
        return np.ascontiguousarray(V), np.flatnonzero(binding)

    def _kernel_attributes(self, start, log_w, factor):
        """metric_, components_, embedding_ of the state log W (with
        ``init='identity'`` the factor is I: U = Vt = I, s = 1), as a dict."""
        metric = metric_from_log(log_w, start.s, start.Vt)
        L = components_from_metric(metric)
        # G0 = U diag(s) Vt, without keeping G0 itself
        return {"_log_w": log_w, "metric_": metric,
                "embedding_": (start.U * start.s) @ (start.Vt @ L.T),
                "components_": self._components(factor, L),
                "preprocessor_": self.preprocessor}

    def transform(self, X):
        """Map points through the learned linear map (``init='kernel'`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points (or their kernel values against the training points
            when ``kernel='precomputed'``).

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``rank_``)
            Coordinates whose inner products are the learned kernel.
        """
        check_is_fitted(self)
        self._refuse_transductive()
        return super().transform(X)

    def _point_map(self):
        # get_metric's map: refused at once with init='identity' (the
        # function it would return could map no point)
        self._refuse_transductive()
        return super()._point_map()

    def _refuse_transductive(self):
        """A ValueError when the fitted model maps no new point (``init='identity'``:
        ``transform``, ``pair_distance``, ``pair_score``, ``learned_kernel``
        and ``get_metric`` all need the map)."""
        if self.factor_ is None:  # (fitted with init='identity')
            raise ValueError(
                "DefiniteBoost(init='identity') is transductive: the identity kernel gives "
                "new points no kernel values against the training points, so they cannot "
                "be mapped. Use embedding_ (or fit_transform) for the training points, or "
                "init='kernel' to map new points through the initial factor."
            )

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then return the training embedding ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, as for :meth:`fit`.
        y : array-like of shape (n_samples,), default=None
            Class labels, as for :meth:`fit`.
        **fit_params : dict
            ``constraints``, passed to :meth:`fit`.

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``rank_``)
            The training embedding ``embedding_``.
        """
        return self.fit(X, y, **fit_params).embedding_.astype(output_dtype(X), copy=False)
