"""Low-rank kernel learning with Bregman matrix divergences.

Kulis, Sustik & Dhillon, "Low-rank kernel learning with Bregman matrix
divergences", JMLR 10, 2009.  Given an initial kernel K0 = G0 G0' of rank r
(any kernel, through the low-rank factors of :mod:`sklearn_bregman._factors._factors`)
and distance constraints on pairs of points, the learners find

    min_K  D(K, K0)  s.t.  K_ii + K_jj - 2 K_ij <= u  (similar pairs)
                           K_ii + K_jj - 2 K_ij >= l  (dissimilar pairs)

By the range-space result (Section 4.2, Lemma 8) the solution is
K = G0 M G0' with M an r x r positive definite matrix, and a constraint on
points i, j reads (g_i - g_j)' M (g_i - g_j), so the whole problem lives in
r x r: memory O(n r), O(r^2) per projection.  New points are mapped by the
same linear map (Section 6.1): transform(x) = phi0(x) R with M = R R'.
"""

from numbers import Integral, Real

import numpy as np
from scipy import linalg

from .._constraints._containers import PairConstraints, RelativeConstraints
from .._constraints._labels import check_labels, outlier_triplets
from .._constraints._resolve import check_pair_bounds, resolve_pair_constraints, resolve_pairs
from .._constraints._rows import ROW_KINDS, build_rows, constraints_of_fit
from .._data._data import InMemoryRows, enter
from .._utils._sklearn_compat import Interval, StrOptions
from .._utils._state import call_rng, fit_context
from ._base import (
    FACTOR_PARAMETERS,
    SWEEP_PARAMETERS,
    FactorLearner,
    components_from_metric,
    refuse_changed,
    run_attributes,
)
from ._divergences import LogDet, VonNeumann
from ._stream import PairStream, RowStream

__all__ = ["LogDetKernelLearner", "VonNeumannKernelLearner"]


class _BaseKernelLearner(FactorLearner):
    """Everything the kernel learners share: all of it but the divergence.

    A subclass sets ``_divergence`` to a
    :class:`~sklearn_bregman._learners._divergences.Divergence` (the basis
    and state the engine works in, the conversions to and from M of the
    learned kernel ``G0 M G0'``, the sweeps on pairs and on general rows);
    ``fit`` and ``partial_fit``, on pairs and on the other kinds of JMLR
    2009, Section 6.2.2, in streams and after a fit, are this base's one
    ``_fit`` (ARCHITECTURE.md, "How to add a divergence").
    """

    _parameter_constraints = {
        **FactorLearner._parameter_constraints,
        **SWEEP_PARAMETERS,
        "label_constraints": [StrOptions({"pairs", "relative"})],
        "ratio": [Interval(Real, 0, None, closed="neither")],
        "max_constraints": [Interval(Integral, 1, None, closed="left"), None],
    }
    _learns_from = ("pairs", "triplets", "quadruplets")

    def __init__(self, kernel="linear", *, gamma=None, degree=3, coef0=1,
                 kernel_params=None, rank=None, factor_tol=1e-6, low_rank="cholesky",
                 slack=1.0,
                 n_constraints=None, bounds="relative", epsilon=0.25, unlabeled=-1,
                 label_constraints="pairs", ratio=2.0,
                 order="random", tol=1e-3, max_iter=1000, random_state=None, verbose=0,
                 memory=None, preprocessor=None, max_constraints=None):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.rank = rank
        self.factor_tol = factor_tol
        self.low_rank = low_rank
        self.slack = slack
        self.n_constraints = n_constraints
        self.bounds = bounds
        self.epsilon = epsilon
        self.unlabeled = unlabeled
        self.label_constraints = label_constraints
        self.ratio = ratio
        self.order = order
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.memory = memory
        self.preprocessor = preprocessor
        self.max_constraints = max_constraints

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, constraints=None, triplets=None, quadruplets=None):
        """Learn the kernel from labels ``y`` or from ``constraints``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the training kernel matrix when
            ``kernel='precomputed'``.  A dask array (rows in chunks) is
            factored on its chunks and only the rows the pairs touch are
            gathered (pair constraints only; ``low_rank`` 'cholesky' or
            'rpcholesky'; ``memory`` unused); ``embedding_`` is then lazy.
        y : array-like of shape (n_samples,), default=None
            Class labels (a dask array too); constraints are drawn from them
            (``label_constraints``) when none of ``constraints``,
            ``triplets`` and ``quadruplets`` is given.  Samples labelled
            ``unlabeled`` are embedded but take part in no constraint.
        constraints : constraint container, list of them, or array-like, default=None
            An array-like has shape (n_constraints, 3 or 4).
            Pairs ``i, j, sign[, bound]`` over the rows of ``X`` (sign +1:
            similar, -1: dissimilar) as a
            :class:`~sklearn_bregman.constraints.PairConstraints` or an
            array; or any of
            :class:`~sklearn_bregman.constraints.RelativeConstraints`,
            :class:`~sklearn_bregman.constraints.SimilarityConstraints`,
            :class:`~sklearn_bregman.constraints.LinearConstraints`,
            :class:`~sklearn_bregman.constraints.TripletConstraints`, or a
            list of several kinds at once.  When given, ``y`` is not used
            for constraints.  A container's indices are checked against
            ``X`` (a message prefixed by ``constraints`` or
            ``constraints[k]``); an empty container adds nothing, and a fit
            whose containers hold no constraint at all raises a ValueError
            ("constraints is empty").
        triplets : array-like of shape (n_triplets, 3) or TripletConstraints, default=None
            Outlier triplets ``(i, j | k)``: each gives the relative rows
            ``ratio d(i, j) <= d(i, k)`` and ``ratio d(j, i) <= d(j, k)``
            (added to ``constraints``; the interface of
            :class:`~sklearn_bregman.TripletClassifier`); a
            :class:`~sklearn_bregman.constraints.TripletConstraints` adds its
            equality triplets too.
        quadruplets : array-like of shape (n_quadruplets, 4), default=None
            Rows ``a, b, c, d`` of indices into the rows of ``X``, each
            saying the pair ``(a, b)`` is closer than the pair ``(c, d)``:
            the relative row ``ratio d(a, b) <= d(c, d)`` of JMLR 2009,
            Section 6.2.2 (learned as
            ``RelativeConstraints(a, b, c, d, ratio=ratio)``, added to
            ``constraints`` and ``triplets``; the interface of
            :class:`~sklearn_bregman.QuadrupletClassifier`).  Indices out of
            range are refused (a ValueError naming ``quadruplets`` and the
            row); a row whose verdict no kernel changes (``a == b``: holds;
            ``c == d``, or the pair compared with itself: never) is skipped,
            with one warning that counts them (and a ConvergenceWarning for
            those that never hold).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, y, constraints, triplets, quadruplets, stream=False)

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, constraints=None, triplets=None, quadruplets=None):
        """Add a batch of labels or pair constraints and learn from all seen.

        The first call (or the first after ``fit``) starts as ``fit`` does
        on pair constraints, and fixes what later calls share: the initial
        factor and its out-of-sample map (built on the first batch; later
        batches' points enter through it, as ``transform`` maps new points),
        the bounds (with ``bounds='percentile'``, the two percentiles
        measured on the first batch) and the random stream of pair draws and
        sweep orders.  Each later call adds the pairs of its batch (drawn
        from its labels, or given as indices into its ``X``) to those kept,
        and sweeps them all from the current kernel, duals and slack targets
        until the optimality conditions hold on every kept constraint
        (``tol``).  Bregman's method with dual corrections then ends where
        one ``fit`` on the union of the constraints, with the same initial
        factor, ends (the optimum is unique; LogDet is invariant under
        congruence, so any factor of the same initial kernel gives it, while
        the von Neumann learner measures its divergence in the first call's
        orthonormal basis of the factor's range, that of its points, where
        a ``fit`` on the union measures it in the union's).  With ``max_constraints=m``
        only the last m constraints are kept: older ones are retired with
        their duals, which stay frozen in the kernel, so memory stays
        O(m r) for an unbounded stream and each call finds the kernel
        nearest to that moving prior that meets the last m constraints.

        A stream of pairs alone (drawn from labels with
        ``label_constraints='pairs'``, or given) runs the pair sweep and
        eq. 22's slack, as ``fit`` on pairs does; a stream that starts with
        any other kind (relative, similarity, linear constraints, triplets,
        quadruplets, or ``label_constraints='relative'``) runs on the general
        rows of Section 6.2.2, as ``fit`` on them does, and every later batch joins
        its kind (pairs too).  A ``partial_fit`` after ``fit`` continues from
        the fitted kernel and factor, with ``fit``'s constraints retired
        (their duals frozen in it).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            The batch's points (kernel values against the first call's
            points when ``kernel='precomputed'``; a dask array is refused);
            with a ``preprocessor``, a 1-D array of their identifiers.
        y : array-like of shape (n_samples,), default=None
            The batch's class labels; pairs among its points are drawn from
            them when ``constraints`` is None.
        constraints : constraint container, list of them, or array-like, default=None
            Pairs ``i, j, sign[, bound]`` (an array of shape (n, 3 or 4) or a
            :class:`~sklearn_bregman.constraints.PairConstraints`), or any
            container of :meth:`fit`, over the rows of this batch's ``X``.
        triplets : array-like of shape (n_triplets, 3), default=None
            Outlier triplets ``(i, j | k)`` over this batch's rows (as in
            :meth:`fit`; the interface of
            :meth:`~sklearn_bregman.TripletClassifier.partial_fit`).
        quadruplets : array-like of shape (n_quadruplets, 4), default=None
            Rows ``a, b, c, d`` over this batch's rows, each the relative row
            ``ratio d(a, b) <= d(c, d)`` (as in :meth:`fit`; the interface
            of :meth:`~sklearn_bregman.QuadrupletClassifier.partial_fit`).

        Returns
        -------
        self : object
            The fitted estimator.  ``constraints_`` and ``dual_coef_`` are the
            batch's (with their bounds, and their duals at the end of the
            call); ``embedding_`` maps the first call's points;
            ``n_constraints_seen_`` counts the constraints of every call,
            ``n_constraints_kept_`` those swept.
        """
        return self._fit(X, y, constraints, triplets, quadruplets, stream=True)

    def _fit(self, X, y, constraints, triplets, quadruplets, *, stream):
        """``fit``, or a ``partial_fit`` call (``stream``): one body.

        The data enter; the constraints are resolved once (one decision: the
        pair sweep with eq. 22's slack, or the general rows of Section 6.2.2),
        drawn from the labels by ``label_constraints`` when none are given;
        they join a run of the engine (:mod:`._stream`): a new one for ``fit``
        and a stream's first call, the kept stream for a later call, or one
        that continues a fitted model; the run sweeps; and the fitted
        attributes are set in one place, at the end.
        """
        name = type(self).__name__
        kept = getattr(self, "_stream", None) if stream else None
        after_fit = stream and kept is None and hasattr(self, "metric_")
        if kept is not None or after_fit:
            self._check_fixed_parameters()
        rows = enter(self, X, reset=kept is None and not after_fit, fitting=True,
                     ensure_min_samples=2)
        if stream:
            rows.in_memory(f"{name}.partial_fit",
                           "pass each batch as a NumPy array or a sparse matrix")
        # the containers, their indices against X; empty ones left out (none
        # left: an error), before any work
        con_list = constraints_of_fit(constraints, triplets, rows.n, quadruplets=quadruplets,
                                      ratio=self.ratio)
        pairs_only = self._pairs_only(con_list, constraints is None, kept)
        if not pairs_only:  # refused before the factor is built, on a dask array
            rows.in_memory(
                f"{name}.fit with relative, similarity, linear or triplet constraints or "
                "quadruplets (or label_constraints='relative')",
                "on a dask array it takes pair constraints (drawn from y with "
                "label_constraints='pairs', or a PairConstraints)")
        if con_list is None and constraints is None and y is None:
            raise ValueError(
                f"{name} requires y to be passed, but the target y is None. Pass class "
                "labels y, or constraints with constraints=... (or triplets=..., "
                "quadruplets=...).")
        # the run this call continues, and the initial factor's rows of the batch
        fixed = self._fixed if kept is not None or after_fit else self._parameters(_FACTOR)
        if kept is not None:
            run, factor = kept.for_call(max_constraints=self.max_constraints), self.factor_
            G = InMemoryRows(factor.transform(rows.A))
        elif after_fit:
            run, factor = self._run_of_fitted_model(pairs_only), self.factor_
            G = InMemoryRows(factor.transform(rows.A))
        else:
            run = None  # started by the batch, which fixes the basis
            factor, G = self._initial_factor(rows, y)
        if stream and kept is None:  # a stream's first call fixes these too
            fixed = {**fixed, **self._parameters(_STREAM)}
        rng = call_rng(self.random_state) if run is None else run.rng
        if pairs_only:  # labels (None), pairs as an array, or one PairConstraints
            given = constraints if con_list is None else con_list[0]
            run, batch, n_batch = self._add_pairs(run, G, y, given, rng, stream)
        else:  # labels (None), or a list of containers (pairs as an array among them)
            given = con_list if con_list is not None or constraints is None else [constraints]
            run, batch, n_batch = self._add_rows(run, G, y, given, rng, stream)
        run, result = run.swept(self._sweep_parameters(pairs_only))
        # the fitted attributes, in one place
        metric = self._divergence.metric_of_state(result.state, run.basis)
        L = components_from_metric(metric)
        fitted = {
            "factor_": factor, "rank_": factor.rank_, "pivots_": factor.pivots_,
            "metric_": metric, "components_": self._components(factor, L),
            "embedding_": run.G0 @ L.T,
            "constraints_": batch, "dual_coef_": run.batch_duals(n_batch),
            **run_attributes(result), **self._divergence.counts(result), "_fixed": fixed,
            "preprocessor_": self.preprocessor,
        }
        if stream:
            fitted.update(_stream=run, n_constraints_seen_=run.n_seen,
                          n_constraints_kept_=len(run))
        else:
            for attribute in ("_stream", "n_constraints_seen_", "n_constraints_kept_"):
                self.__dict__.pop(attribute, None)
        for attribute, value in fitted.items():
            setattr(self, attribute, value)
        return self

    def _pairs_only(self, con_list, from_labels, kept):
        """The one decision: pairs alone take the pair sweep and eq. 22's
        slack; anything else (relative, similarity, linear rows, triplets,
        ``label_constraints='relative'``, or any batch of a stream of
        general rows) the general rows.  A stream of pairs refuses the
        other kinds."""
        if con_list is None:  # labels, or pairs given as an array or a tuple
            alone = not from_labels or self.label_constraints == "pairs"
        else:
            alone = len(con_list) == 1 and isinstance(con_list[0], PairConstraints)
        if isinstance(kept, RowStream):
            return False  # pairs join a stream of general rows as rows
        if isinstance(kept, PairStream) and not alone:
            raise ValueError(
                f"{type(self).__name__}.partial_fit: this stream learns from pair "
                "constraints (its first call's kind, with the pair sweep and eq. 22's "
                "slack); relative, similarity, linear constraints, triplets and "
                "quadruplets need a stream that starts with them (or fit).")
        return alone

    def _add_pairs(self, run, G, y, constraints, rng, stream):
        """The batch's pairs (drawn from ``y`` or given), their bounds and
        the rows they touch, added to ``run`` (a new PairStream when None):
        ``(run, the pairs with their bounds, their number)``."""
        res = resolve_pairs(self, y, constraints, G, rng,
                            bounds=None if run is None else run.bounds)
        skipped = check_pair_bounds(res.local, res.G_t, scale=G.max_squared_norm(),
                                    source=res.source)
        if run is None:
            run, C_t = self._new_run(PairStream, G, res.touched, res.G_t, rng, stream,
                                     bounds=res.bounds)
        else:  # (a run that continues a fitted model takes its first batch's rule)
            run = run.fixing_bounds(res.bounds)
            C_t = self._divergence.coordinates(run.basis, res.G_t)
        run = run.added(C_t, res.local, skipped, owner=type(self).__name__)
        return run, res.pairs, len(res.pairs)

    def _add_rows(self, run, G, y, constraints, rng, stream):
        """The batch's general rows (given, or drawn from ``y`` by
        ``label_constraints``; pairs among them get their bounds), in the
        run's coordinates, added to ``run`` (a new RowStream when None):
        ``(run, the containers, the number of rows)``."""
        n, G_b = G.n, G.all()
        if constraints is None:  # from the labels, as label_constraints says
            constraints = [self._relative_of_labels(y, n, rng)
                           if self.label_constraints == "relative" else None]
        # pairs among other kinds get their bounds as on their own
        con_list = [c if isinstance(c, ROW_KINDS) else
                    resolve_pair_constraints(self, y, c, InMemoryRows(G_b), None, n,
                                             rng).pairs
                    for c in constraints]
        if run is None:
            run, B = self._new_run(RowStream, G, np.arange(n), G_b, rng, stream)
        else:
            B = self._divergence.coordinates(run.basis, G_b)
        rank = run.state.shape[0]
        batch = build_rows(con_list, B, self._divergence.prior(run.basis, rank),
                           triplet_ratio=self.ratio)
        return run.added(batch, owner=type(self).__name__), con_list, len(batch)

    def _relative_of_labels(self, y, n, rng):
        """``n_constraints`` relative rows ``ratio d(i, j) <= d(i, k)`` drawn
        from the labels (JMLR 2009, Section 6.2.2)."""
        t = outlier_triplets(check_labels(y, n), self.n_constraints, unlabeled=self.unlabeled,
                             random_state=rng, param="n_constraints")
        return RelativeConstraints(t[:, 0], t[:, 1], t[:, 0], t[:, 2], ratio=self.ratio)

    def _new_run(self, Stream, G, touched, G_t, rng, stream, bounds=None):
        """A run from the initial kernel: the divergence's basis, fixed by
        this first batch, and the touched rows in it."""
        basis, C_t = self._divergence.basis(G, touched, G_t)
        state = self._divergence.initial_state(basis, G_t.shape[1])
        run = Stream(self._divergence, basis, state, rng=rng, bounds=bounds, G0=G.all(),
                     max_constraints=self.max_constraints if stream else None)
        return run, C_t

    def _run_of_fitted_model(self, pairs_only):
        """The run a ``partial_fit`` after ``fit`` continues: the fitted
        kernel as its state, ``fit``'s constraints retired (their duals
        frozen in it), a fresh random stream."""
        G0 = self._initial_rows_of_fit()
        basis, _ = self._divergence.basis(InMemoryRows(G0), np.empty(0, np.intp),
                                          G0[:0])
        state = self._divergence.state_of_metric(self.metric_, basis)
        Stream = PairStream if pairs_only else RowStream
        return Stream(self._divergence, basis, state,
                      rng=call_rng(self.random_state),
                      max_constraints=self.max_constraints, G0=G0)

    def _initial_rows_of_fit(self):
        """G0 of ``fit``'s training points, from ``embedding_ = G0 L'`` (L of
        ``metric_``, as ``fit`` computed it: upper triangular, or an
        eigen-root)."""
        E = self.embedding_
        if not isinstance(E, np.ndarray):
            raise ValueError(
                f"{type(self).__name__}.partial_fit after a fit on a dask array: the "
                "stream would gather the whole embedding; start the stream with "
                "partial_fit on batches in memory.")
        L = components_from_metric(self.metric_)
        if np.array_equal(L, np.triu(L)):
            return linalg.solve_triangular(L, E.T, lower=False).T
        return linalg.lstsq(L, E.T)[0].T

    def _sweep_parameters(self, pairs_only):
        """What the divergence's sweeps take from the estimator."""
        params = dict(slack=self.slack, order=self.order, tol=self.tol,
                      max_iter=self.max_iter, verbose=self.verbose,
                      owner=type(self).__name__)
        return params if pairs_only else {**params, "advice": _ROWS_ADVICE}

    def _parameters(self, names):
        """The current values of the parameters ``names``."""
        return {name: getattr(self, name) for name in names}

    def _check_fixed_parameters(self):
        """``set_params`` between a fit (or a stream's first call) and a
        ``partial_fit``: the parameters that call fixed (the initial kernel
        and its factor; for a stream also ``slack``, ``bounds`` and
        ``random_state``) are refused changed, naming them; the others (the
        sweeps', the draws', ``max_constraints``) are honoured by the call."""
        refuse_changed(self, self._fixed)


#: The parameters a fit fixes for a later partial_fit (the initial kernel and
#: its factor, which partial_fit reuses), and those a stream's first call
#: fixes besides (its slack targets, bound rule and random stream).
_FACTOR = tuple(FACTOR_PARAMETERS)
_STREAM = ("slack", "bounds", "random_state")

#: Advice of the warning when hard rows stay violated.
_ROWS_ADVICE = ("the hard constraints (slack=inf) may be infeasible together in the "
                "initial kernel's range. Use a finite slack, fewer constraints, or "
                "smaller margins and ratios")


class LogDetKernelLearner(_BaseKernelLearner):
    r"""Low-rank kernel learned with the LogDet divergence (JMLR 2009, Alg. 2).

    Minimises :math:`D_{ld}(K, K_0) = \mathrm{tr}(K K_0^+) - \log\det{}_r(K K_0^+) - r`
    over kernels of the range of :math:`K_0` subject to distance constraints
    on pairs, with slack (Section 6.2.1, eq. 22).  The problem is solved in
    r x r: with :math:`K_0 = G_0 G_0^T`, the LogDet divergence is invariant
    under congruence, so :math:`K = G_0 M G_0^T` where M minimises
    :math:`D_{ld}(M, I)` under the constraints
    :math:`(g_i - g_j)^T M (g_i - g_j) \le u` (or :math:`\ge l`).  Sweeps
    of rank-one Bregman projections with dual corrections (Section 5.1; the
    factored update of Algorithm 2 is replaced by an update of M itself,
    also O(r^2)) run in compiled code, over the constraints in an order
    reshuffled every sweep (``order='random'``, the default) or in the
    papers' fixed cyclic order (``order='cyclic'``).  The learned kernel keeps the rank
    and range of :math:`K_0` and is PSD (Section 4).

    With ``kernel='linear'`` at full rank this is ITML with the identity
    prior: :class:`~sklearn_bregman.ITMLTransformer` learns the same
    distances.

    Parameters
    ----------
    kernel : str or callable, default='linear'
        One of 'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine',
        'precomputed', or a callable ``k(x, y) -> float``.
        Initial kernel :math:`K_0`.  With 'precomputed', ``fit`` takes the
        n x n training kernel and ``transform`` the kernel between new and
        training points (scikit-learn's convention).
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
        Pivoted incomplete Cholesky may stop earlier (``factor_tol``).
    factor_tol : float, default=1e-6
        Incomplete Cholesky stops when the residual trace
        :math:`\mathrm{tr}(K_0 - G_0 G_0^T)` is below ``factor_tol`` times
        :math:`\mathrm{tr}(K_0)` (with ``low_rank='csi'``: when a step's
        gain falls below it).
    low_rank : {'cholesky', 'csi', 'rpcholesky'}, default='cholesky'
        Pivots of the initial factor: largest residual diagonal (pivoted
        incomplete Cholesky), or Cholesky with side information (Bach &
        Jordan 2005, :class:`~sklearn_bregman.CSIDecomposition`) driven by
        the labels ``y``, which then must be passed to ``fit`` (also with
        ``constraints``), or randomly pivoted Cholesky (Chen, Epperly, Tropp
        & Webber 2023; blocked with rejection, Epperly, Tropp & Webber 2024:
        pivots drawn from the residual diagonal with ``random_state``, about
        (r + 1) n kernel entries).  With 'csi' the linear kernel is factored
        from pivots too.
    slack : float, default=1.0
        Trade-off gamma of eq. 22 between the divergence to the initial
        kernel and the divergence of the slack targets to the bounds
        (``np.inf``: hard constraints; larger is harder).  Rows of the
        other kinds (relative, similarity, linear, triplets, and pairs mixed
        with them) are penalised by ``gamma / 2 (xi - b)^2`` instead, on
        rows scaled to unit size under the initial kernel (their bounds may
        be zero or negative, where the LogDet penalty is undefined).  Not the
        ``slack`` of :class:`~sklearn_bregman.SKLRClusterer`, which is the
        quadratic penalty lambda of the SKLR paper (``None``: hard).
    n_constraints : int, default=None
        Pairs drawn from labels; ``None``: 40 c^2 for c classes.
    bounds : {'relative', 'percentile'} or (upper, lower), default='relative'
        'relative': each pair's initial squared distance times
        ``1 - epsilon`` (similar) or ``1 + epsilon`` (dissimilar) (Section
        7.1); 'percentile': the 5th / 95th percentile of initial squared
        distances; or two numbers.
    epsilon : float, default=0.25
        Margin of ``bounds='relative'``.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples (embedded, not constrained).
    label_constraints : {'pairs', 'relative'}, default='pairs'
        What ``fit(X, y)`` draws from the labels: ``n_constraints`` pairs
        with bounds (above), or ``n_constraints`` relative comparisons
        ``ratio * d(i, j) <= d(i, k)`` with ``i, j`` of one class and ``k``
        of another (Section 6.2.2; no bound needed).
    ratio : float, default=2.0
        Multiplicative margin of the relative rows drawn from labels, of
        the rows of ``triplets`` (as SKLR's margin squared) and of those of
        ``quadruplets`` (``ratio d(a, b) <= d(c, d)``).
    order : {'random', 'cyclic'}, default='random'
        Constraint order of each sweep: reshuffled every sweep, or as given
        (the papers' cyclic order).  Both reach the same optimum; reshuffling
        converges in far fewer sweeps (the user guide's page "How it works,
        and how fast" gives the figures).
    tol : float, default=1e-3
        Stop when the relative L1 change of the duals over a sweep is below
        ``tol`` and the optimality conditions hold to ``tol``: every
        constraint within ``tol`` of its target, relative to it (the bound
        when hard, the slack target when soft), and every positive dual on
        an active constraint.
    max_iter : int, default=1000
        Maximum number of sweeps.
    random_state : int, RandomState instance or None, default=None
        Seeds the constraint draw, the 'percentile' bounds, the random order
        and the pivots of ``low_rank='rpcholesky'``.
    verbose : int, default=0
        Print one line per sweep.
    memory : str, joblib.Memory or None, default=None
        Cache of the initial factor (a joblib ``Memory`` or the path of its
        directory), keyed on the training data and the parameters of the
        initial kernel and factor (``kernel``, ``gamma``, ``degree``,
        ``coef0``, ``kernel_params``, ``rank``, ``factor_tol``, ``low_rank``;
        ``y`` for 'csi'): a grid search over ``slack`` or the constraint
        parameters then factors each training set once.  ``None``: no cache.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where identifiers of points lead: ``fit`` and ``transform`` take
        ``X`` as a 1-D array of identifiers, and ``pair_distance`` /
        ``pair_score`` pairs as ``(n_pairs, 2)`` identifiers.  An array:
        identifiers are indices into its rows; a callable: it takes a 1-D
        array of identifiers (integers, file names, keys) and returns their
        rows.  ``None``: points are given as points.
    max_constraints : int, default=None
        Most constraints a :meth:`partial_fit` stream keeps and sweeps:
        beyond it the oldest are retired with their duals, which stay frozen
        in the learned kernel (memory O(``max_constraints`` r) for any
        number of batches).  ``None``: every constraint seen is kept, and the
        stream ends at the optimum of their union.  Not used by ``fit``.

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
        M, with learned kernel :math:`K = G_0 M G_0^T`.
    embedding_ : ndarray of shape (n_samples, ``rank_``)
        The training points mapped (the learned kernel is
        ``K = embedding_ @ embedding_.T``);
        a lazy dask array when ``X`` is one.
    rank_ : int
        Rank of the initial factor (and of the learned kernel).
    pivots_ : ndarray or None
        Training rows chosen by incomplete Cholesky (``None`` for 'linear').
    factor_ : LowRankFactor or DaskFactor
        The initial factor and its out-of-sample map phi0 (built on the
        chunks, a ``DaskFactor``, when ``X`` is a dask array).
    constraints_ : PairConstraints or list
        The constraints used, with bounds: the pairs, or the list of
        containers when other kinds took part.
    dual_coef_ : ndarray of shape (n_constraints,)
        Dual variables at the end (for other kinds: one per row, in the
        order of ``constraints_``, in the user's units and sense; free in
        sign for equality rows).
    n_iter_ : int
        Sweeps run.
    n_projections_ : int
        Projections that moved the state.
    converged_ : bool
        Whether the optimality conditions held to ``tol`` before
        ``max_iter`` (see ``tol``; rows of the other kinds are measured
        relative to the larger of their target's magnitude and the row's
        own magnitude under the learned kernel, e.g. ``ratio d(i, j) +
        d(k, l)`` for a relative row, ``(K_ii + K_jj) / 2`` for an entry
        ``K_ij``).  Hard constraints (``slack=np.inf``)
        that no kernel of the initial kernel's range satisfies all at once
        end with ``converged_=False`` and a ConvergenceWarning that says
        how many are violated and by how much.  Constraints that are zero
        in the initial kernel's range (skipped: no learned kernel moves
        them) are held to their bounds at the value they keep; one that
        misses its bound makes ``converged_`` False, with a
        ConvergenceWarning naming it.
    max_violation_ : float
        Largest relative violation of a constraint at the end,
        ``max_c max(0, sign_c (d_c - t_c)) / t_c`` with ``t_c`` the bound
        (hard) or the slack target (soft), skipped constraints included
        (against their bounds); for the other kinds, as in ``converged_``;
        at most ``tol`` when ``converged_``.
    n_constraints_seen_ : int
        Constraints added by the :meth:`partial_fit` calls so far (set by
        :meth:`partial_fit` only).
    n_constraints_kept_ : int
        Constraints the stream keeps and sweeps (at most ``max_constraints``;
        zero-length pairs are kept unvisited, held to their bounds).
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
    B. Kulis, M. A. Sustik and I. S. Dhillon. Low-rank kernel learning with
    Bregman matrix divergences. JMLR 10:341-376, 2009.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_bregman import LogDetKernelLearner
    >>> X, y = load_iris(return_X_y=True)
    >>> learner = LogDetKernelLearner(kernel="rbf", rank=20, random_state=0).fit(X, y)
    >>> learner.transform(X[:2]).shape
    (2, 20)
    """

    _divergence = LogDet()


class VonNeumannKernelLearner(_BaseKernelLearner):
    r"""Low-rank kernel learned with the von Neumann divergence (JMLR 2009, Alg. 3).

    Minimises :math:`D_{vN}(K, K_0) = \mathrm{tr}(K \log K - K \log K_0 - K + K_0)`
    over kernels of the range of :math:`K_0` subject to distance constraints
    on pairs, with slack (Section 6.2.1).  Unlike LogDet, the von Neumann
    divergence is invariant under orthogonal changes of basis only, so the
    r x r problem is posed in an orthonormal basis U of range(K0): with the
    thin SVD :math:`G_0 = U S V^T`, :math:`K = U X U^T` where X minimises
    :math:`D_{vN}(X, S^2)` under :math:`(u_i - u_j)^T X (u_i - u_j) \le u`
    (or :math:`\ge l`).  Each rank-one projection updates
    :math:`\log X \leftarrow \log X + \alpha v v^T` with the projection
    parameter found by a root finder on the monotone
    :math:`f(\alpha) = v^T \exp(\log X + \alpha v v^T) v` (Section 5.2),
    evaluated on a Lanczos tridiagonal (see ``_engine/_vn_kernels.h``), with
    dual corrections.

    Parameters, attributes and methods are those of
    :class:`LogDetKernelLearner` (repeated below), plus ``n_evals_``;
    ``metric_`` is expressed in the coordinates of the initial factor, so
    that ``transform`` and ``learned_kernel`` work the same way.

    Parameters
    ----------
    kernel : str or callable, default='linear'
        One of 'linear', 'rbf', 'poly', 'laplacian', 'sigmoid', 'cosine',
        'precomputed', or a callable ``k(x, y) -> float``.
        Initial kernel :math:`K_0`.  With 'precomputed', ``fit`` takes the
        n x n training kernel and ``transform`` the kernel between new and
        training points (scikit-learn's convention).
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
        Pivoted incomplete Cholesky may stop earlier (``factor_tol``).
    factor_tol : float, default=1e-6
        Incomplete Cholesky stops when the residual trace
        :math:`\mathrm{tr}(K_0 - G_0 G_0^T)` is below ``factor_tol`` times
        :math:`\mathrm{tr}(K_0)` (with ``low_rank='csi'``: when a step's
        gain falls below it).
    low_rank : {'cholesky', 'csi', 'rpcholesky'}, default='cholesky'
        Pivots of the initial factor: largest residual diagonal (pivoted
        incomplete Cholesky), or Cholesky with side information (Bach &
        Jordan 2005, :class:`~sklearn_bregman.CSIDecomposition`) driven by
        the labels ``y``, which then must be passed to ``fit`` (also with
        ``constraints``), or randomly pivoted Cholesky (Chen, Epperly, Tropp
        & Webber 2023; blocked with rejection, Epperly, Tropp & Webber 2024:
        pivots drawn from the residual diagonal with ``random_state``, about
        (r + 1) n kernel entries).  With 'csi' the linear kernel is factored
        from pivots too.
    slack : float, default=1.0
        Trade-off gamma of eq. 22 between the divergence to the initial
        kernel and the divergence of the slack targets to the bounds
        (``np.inf``: hard constraints; larger is harder).  Rows of the
        other kinds (relative, similarity, linear, triplets, and pairs mixed
        with them) are penalised by ``gamma / 2 (xi - b)^2`` instead, on
        rows scaled to unit size under the initial kernel (their bounds may
        be zero or negative, where the LogDet penalty is undefined).  Not the
        ``slack`` of :class:`~sklearn_bregman.SKLRClusterer`, which is the
        quadratic penalty lambda of the SKLR paper (``None``: hard).
    n_constraints : int, default=None
        Pairs drawn from labels; ``None``: 40 c^2 for c classes.
    bounds : {'relative', 'percentile'} or (upper, lower), default='relative'
        'relative': each pair's initial squared distance times
        ``1 - epsilon`` (similar) or ``1 + epsilon`` (dissimilar) (Section
        7.1); 'percentile': the 5th / 95th percentile of initial squared
        distances; or two numbers.
    epsilon : float, default=0.25
        Margin of ``bounds='relative'``.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples (embedded, not constrained).
    label_constraints : {'pairs', 'relative'}, default='pairs'
        What ``fit(X, y)`` draws from the labels: ``n_constraints`` pairs
        with bounds (above), or ``n_constraints`` relative comparisons
        ``ratio * d(i, j) <= d(i, k)`` with ``i, j`` of one class and ``k``
        of another (Section 6.2.2; no bound needed).
    ratio : float, default=2.0
        Multiplicative margin of the relative rows drawn from labels, of
        the rows of ``triplets`` (as SKLR's margin squared) and of those of
        ``quadruplets`` (``ratio d(a, b) <= d(c, d)``).
    order : {'random', 'cyclic'}, default='random'
        Constraint order of each sweep: reshuffled every sweep, or as given
        (the papers' cyclic order).  Both reach the same optimum; reshuffling
        converges in far fewer sweeps (the user guide's page "How it works,
        and how fast" gives the figures).
    tol : float, default=1e-3
        Stop when the relative L1 change of the duals over a sweep is below
        ``tol`` and the optimality conditions hold to ``tol``: every
        constraint within ``tol`` of its target, relative to it (the bound
        when hard, the slack target when soft), and every positive dual on
        an active constraint.
    max_iter : int, default=1000
        Maximum number of sweeps.
    random_state : int, RandomState instance or None, default=None
        Seeds the constraint draw, the 'percentile' bounds, the random order
        and the pivots of ``low_rank='rpcholesky'``.
    verbose : int, default=0
        Print one line per sweep.
    memory : str, joblib.Memory or None, default=None
        Cache of the initial factor (a joblib ``Memory`` or the path of its
        directory), keyed on the training data and the parameters of the
        initial kernel and factor (``kernel``, ``gamma``, ``degree``,
        ``coef0``, ``kernel_params``, ``rank``, ``factor_tol``, ``low_rank``;
        ``y`` for 'csi'): a grid search over ``slack`` or the constraint
        parameters then factors each training set once.  ``None``: no cache.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where identifiers of points lead: ``fit`` and ``transform`` take
        ``X`` as a 1-D array of identifiers, and ``pair_distance`` /
        ``pair_score`` pairs as ``(n_pairs, 2)`` identifiers.  An array:
        identifiers are indices into its rows; a callable: it takes a 1-D
        array of identifiers (integers, file names, keys) and returns their
        rows.  ``None``: points are given as points.
    max_constraints : int, default=None
        Most constraints a :meth:`partial_fit` stream keeps and sweeps:
        beyond it the oldest are retired with their duals, which stay frozen
        in the learned kernel (memory O(``max_constraints`` r) for any
        number of batches).  ``None``: every constraint seen is kept, and the
        stream ends at the optimum of their union.  Not used by ``fit``.

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
        M, with learned kernel :math:`K = G_0 M G_0^T`: expressed in the
        coordinates of the initial factor (not in the basis U), so that
        ``transform`` and ``learned_kernel`` work as in
        :class:`LogDetKernelLearner`.
    embedding_ : ndarray of shape (n_samples, ``rank_``)
        The training points mapped (the learned kernel is
        ``K = embedding_ @ embedding_.T``);
        a lazy dask array when ``X`` is one.
    rank_ : int
        Rank of the initial factor (and of the learned kernel).
    pivots_ : ndarray or None
        Training rows chosen by incomplete Cholesky (``None`` for 'linear').
    factor_ : LowRankFactor or DaskFactor
        The initial factor and its out-of-sample map phi0 (built on the
        chunks, a ``DaskFactor``, when ``X`` is a dask array).
    constraints_ : PairConstraints or list
        The constraints used, with bounds: the pairs, or the list of
        containers when other kinds took part.
    dual_coef_ : ndarray of shape (n_constraints,)
        Dual variables at the end (for other kinds: one per row, in the
        order of ``constraints_``, in the user's units and sense; free in
        sign for equality rows).
    n_iter_ : int
        Sweeps run.
    n_projections_ : int
        Projections that moved the state.
    converged_ : bool
        Whether the optimality conditions held to ``tol`` before
        ``max_iter`` (see ``tol``; rows of the other kinds are measured
        relative to the larger of their target's magnitude and the row's
        own magnitude under the learned kernel, e.g. ``ratio d(i, j) +
        d(k, l)`` for a relative row, ``(K_ii + K_jj) / 2`` for an entry
        ``K_ij``).  Hard constraints (``slack=np.inf``)
        that no kernel of the initial kernel's range satisfies all at once
        end with ``converged_=False`` and a ConvergenceWarning that says
        how many are violated and by how much.  Constraints that are zero
        in the initial kernel's range (skipped: no learned kernel moves
        them) are held to their bounds at the value they keep; one that
        misses its bound makes ``converged_`` False, with a
        ConvergenceWarning naming it.
    max_violation_ : float
        Largest relative violation of a constraint at the end,
        ``max_c max(0, sign_c (d_c - t_c)) / t_c`` with ``t_c`` the bound
        (hard) or the slack target (soft), skipped constraints included
        (against their bounds); for the other kinds, as in ``converged_``;
        at most ``tol`` when ``converged_``.
    n_constraints_seen_ : int
        Constraints added by the :meth:`partial_fit` calls so far (set by
        :meth:`partial_fit` only).
    n_constraints_kept_ : int
        Constraints the stream keeps and sweeps (at most ``max_constraints``;
        zero-length pairs are kept unvisited, held to their bounds).
    n_evals_ : int
        Root-finder evaluations of f over the fit.
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
    B. Kulis, M. A. Sustik and I. S. Dhillon. Low-rank kernel learning with
    Bregman matrix divergences. JMLR 10:341-376, 2009.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_bregman import VonNeumannKernelLearner
    >>> X, y = load_iris(return_X_y=True)
    >>> learner = VonNeumannKernelLearner(kernel="rbf", rank=20, random_state=0).fit(X, y)
    >>> learner.transform(X[:2]).shape
    (2, 20)
    """

    _divergence = VonNeumann()
