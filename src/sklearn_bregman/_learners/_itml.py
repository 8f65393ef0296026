"""Information-theoretic metric learning (ITML).

Davis, Kulis, Jain, Sra & Dhillon, "Information-theoretic metric learning",
ICML 2007; in the notation of Kulis, Sustik & Dhillon, JMLR 2009, Section 5.1
(update) and 6.2.1 (slack).
"""

from functools import partial
from numbers import Integral

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.datasets import make_spd_matrix
from sklearn.utils.validation import check_array, check_is_fitted

from .._constraints._resolve import check_pair_bounds, resolve_pairs
from .._data._data import enter
from .._utils._sklearn_compat import Interval, StrOptions
from .._utils._state import TransactionalMixin, call_rng, fit_context
from ._base import (
    PAIR_CONSTRAINT_PARAMETERS,
    SWEEP_PARAMETERS,
    check_scale,
    components_from_metric,
    learner_tags,
    map_rows,
    refuse_changed,
    run_attributes,
)
from ._divergences import LogDet
from ._metric import MahalanobisMixin
from ._stream import PairStream

#: ITML's update is JMLR's rank-one LogDet projection, on the d x d metric.
_LOGDET = LogDet()

#: Most features ITML takes on sparse X: its metric is d x d (dense, 128 MB at
#: 4096) and each projection O(d^2); the pairs' rows are densified as gathered.
ITML_SPARSE_MAX_FEATURES = 4096

#: Most features ITML takes on dense X: a fit holds several dense d x d
#: arrays (the prior, the engine's metric, metric_ and components_: 512 MB
#: each at 8192, about 2 GB in all) and computes components_ by an O(d^3)
#: Cholesky factorisation; each projection is O(d^2).  The limit of
#: ``get_mahalanobis_matrix`` (``MAHALANOBIS_MAX_FEATURES``), the same size.
ITML_DENSE_MAX_FEATURES = 8192


class ITMLTransformer(TransactionalMixin, MahalanobisMixin, ClassNamePrefixFeaturesOutMixin,
                      TransformerMixin, BaseEstimator):
    r"""Mahalanobis metric learned by ITML from labels or pair constraints.

    Learns a d x d positive definite matrix :math:`A` closest to a prior
    :math:`A_0` in LogDet divergence under distance constraints
    (Davis et al. 2007, eq. 4; Kulis et al. 2009, eq. 22 with slack)::

        min_{A, xi}  D_ld(A, A0) + slack * D_ld(diag(xi), diag(b))
        s.t.         d_A(x_i, x_j) <= xi_c   for similar pairs c = (i, j)
                     d_A(x_i, x_j) >= xi_c   for dissimilar pairs

    where :math:`d_A(x, y) = (x - y)^T A (x - y)` and
    :math:`D_{ld}(A, A_0) = \mathrm{tr}(A A_0^{-1}) - \log\det(A A_0^{-1}) - d`.
    It is solved by rank-one Bregman projections with dual corrections
    (Kulis et al. 2009, Section 5.1; visited in an order reshuffled every
    sweep by default, the papers' cyclic order with ``order='cyclic'``), each
    costing O(d^2) in compiled code.
    ``transform`` maps ``X`` to ``X L^T`` with :math:`A = L^T L`, so Euclidean
    distances after the transform are the learned Mahalanobis distances.

    Parameters
    ----------
    slack : float, default=1.0
        Trade-off gamma between the divergence to the prior and the
        constraint violations (Kulis et al. 2009, eq. 22); larger values
        enforce the constraints more. ``np.inf`` makes them hard.  Not the
        ``slack`` of :class:`~sklearn_bregman.SKLRClusterer`, which is the
        quadratic penalty lambda of the SKLR paper (``None``: hard).
    prior : {'identity', 'covariance', 'random'} or array-like, default='identity'
        An array-like prior has shape (n_features, n_features).
        The prior metric :math:`A_0`: the identity (Euclidean distance), the
        inverse covariance of ``X`` (Mahalanobis distance), a random
        symmetric positive definite matrix drawn with ``random_state``
        (scikit-learn's ``make_spd_matrix``, as metric-learn), or a given
        symmetric positive definite matrix.  The LogDet divergence needs
        :math:`A_0^{-1}`: every prior must be positive definite and
        well-conditioned (smallest eigenvalue above ``1e-10`` times the
        largest), or ``fit`` raises a ValueError that names it.
    n_constraints : int, default=None
        Number of pairs drawn from the labels; ``None`` gives ITML's
        40 c^2 for c classes.  Half similar, half dissimilar, capped by the
        pairs that exist.
    bounds : {'percentile', 'relative'} or (upper, lower), default='percentile'
        Bounds of the pairs drawn from labels (and of user pairs given
        without one): 'percentile' uses the 5th / 95th percentile of squared
        distances under the prior (ITML); 'relative' each pair's own initial
        squared distance times ``1 - epsilon`` / ``1 + epsilon``; two numbers
        give the upper bound of similar and the lower bound of dissimilar
        pairs.
    epsilon : float, default=0.25
        Margin of ``bounds='relative'``.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples: they take part in no constraint.
        ``None`` if every label is a class.
    order : {'random', 'cyclic'}, default='random'
        Constraint order of each sweep: reshuffled every sweep, or as given
        (the papers' cyclic order).  Both reach the same optimum; reshuffling
        converges in far fewer sweeps (the user guide's page "How it works,
        and how fast" gives the figures).
    tol : float, default=1e-3
        Stop when the relative L1 change of the dual variables over a sweep,
        ``|nu - nu_old|_1 / (|nu|_1 + |nu_old|_1)``, falls below ``tol``
        (ITML's rule) and the optimality conditions hold to ``tol``: every
        constraint within ``tol`` of its target, relative to it (the bound
        when hard, the slack target when soft), and every positive dual on
        an active constraint.
    max_iter : int, default=1000
        Maximum number of sweeps over the constraints.
    random_state : int, RandomState instance or None, default=None
        Seeds the ``'random'`` prior, the constraint draw, the 'percentile'
        bounds and the random order.
    verbose : int, default=0
        Print one line per sweep: dual change and share of satisfied
        constraints.
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
        in the metric (memory O(``max_constraints`` d) for any number of
        batches).  ``None``: every constraint seen is kept, and the stream
        ends at the optimum of their union.  Not used by ``fit``.

    Attributes
    ----------
    components_ : ndarray of shape (n_features, n_features)
        The linear map L, with :math:`A = L^T L`.
    metric_ : ndarray of shape (n_features, n_features)
        The learned Mahalanobis matrix A.
    prior_ : ndarray of shape (n_features, n_features)
        The prior :math:`A_0` used.
    constraints_ : PairConstraints
        The constraints used, with their bounds.
    dual_coef_ : ndarray of shape (n_constraints,)
        Dual variable of each constraint at the end; at the optimum
        :math:`A^{-1} = A_0^{-1} + \sum_c \mathrm{sign}_c \nu_c v_c v_c^T`.
    n_iter_ : int
        Sweeps run.
    n_projections_ : int
        Projections that moved the state.
    converged_ : bool
        Whether the optimality conditions held to ``tol`` before
        ``max_iter`` (see ``tol``).  Hard constraints (``slack=np.inf``)
        that no metric satisfies all at once end with ``converged_=False``
        and a ConvergenceWarning that says how many are violated and by
        how much.
    max_violation_ : float
        Largest relative violation of a constraint at the end,
        ``max_c max(0, sign_c (d_c - t_c)) / t_c`` with ``t_c`` the bound
        (hard) or the slack target (soft); at most ``tol`` when
        ``converged_``.
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
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when ``X`` has string feature names.

    See Also
    --------
    sklearn_bregman.constraints.pairs_from_labels : The pairs drawn from ``y``.

    References
    ----------
    J. V. Davis, B. Kulis, P. Jain, S. Sra and I. S. Dhillon.
    Information-theoretic metric learning. ICML 2007.

    B. Kulis, M. A. Sustik and I. S. Dhillon. Low-rank kernel learning with
    Bregman matrix divergences. JMLR 10, 2009.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_bregman import ITMLTransformer
    >>> X, y = load_iris(return_X_y=True)
    >>> itml = ITMLTransformer(random_state=0).fit(X, y)
    >>> itml.transform(X).shape
    (150, 4)
    """

    _parameter_constraints = {
        **PAIR_CONSTRAINT_PARAMETERS,
        **SWEEP_PARAMETERS,
        "prior": [StrOptions({"identity", "covariance", "random"}), "array-like"],
        "max_constraints": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, slack=1.0, prior="identity", n_constraints=None,
                 bounds="percentile", epsilon=0.25, unlabeled=-1, order="random",
                 tol=1e-3, max_iter=1000, random_state=None, verbose=0,
                 preprocessor=None, max_constraints=None):
        self.slack = slack
        self.prior = prior
        self.n_constraints = n_constraints
        self.bounds = bounds
        self.epsilon = epsilon
        self.unlabeled = unlabeled
        self.order = order
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.preprocessor = preprocessor
        self.max_constraints = max_constraints

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, constraints=None):
        """Learn the metric from labels ``y`` or from pair ``constraints``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a dask array
            Training data.  A dask array (rows in chunks) stays on the
            workers: only the rows the pairs touch are gathered.  With a
            ``preprocessor``, a 1-D array of the points' identifiers.
            At most ``ITML_DENSE_MAX_FEATURES`` = 8192 features
            (``ITML_SPARSE_MAX_FEATURES`` = 4096 for sparse X): the metric
            is d x d.
        y : array-like of shape (n_samples,), default=None
            Class labels (a dask array too); pairs are drawn from them when
            ``constraints`` is None.  Samples labelled ``unlabeled`` get no
            constraint.
        constraints : PairConstraints or array-like of shape (n_constraints, 3 or 4), default=None
            Pairs ``i, j, sign[, bound]`` over the rows of ``X`` (sign +1:
            similar, -1: dissimilar).  When given, ``y`` is not used.

        Returns
        -------
        self : ITMLTransformer
            The fitted estimator.
        """
        return self._fit(X, y, constraints, stream=False)

    @fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, constraints=None):
        """Add a batch of labels or pair constraints and learn from all seen.

        The first call (or the first after ``fit``) starts as ``fit`` does,
        and fixes what later calls share: the prior, the bounds (with
        ``bounds='percentile'``, the two percentiles measured on the first
        batch) and the random stream of pair draws and sweep orders.  Each
        later call adds the constraints of its batch (drawn from its labels,
        indices into its ``X``, or given) to those kept, and sweeps them all
        from the current metric, duals and slack targets until the
        optimality conditions hold on every kept constraint (``tol``).
        Bregman's method with dual corrections then ends where one ``fit``
        on the union of the constraints from the same prior ends (the
        optimum is unique): each batch costs a few warm sweeps instead of a
        refit.  With ``max_constraints=m`` only the last m constraints are
        kept: older ones are retired with their duals, which stay frozen in
        the metric, so memory stays O(m d) for an unbounded stream and each
        call finds the metric nearest (in LogDet divergence) to that moving
        prior that meets the last m constraints.

        A ``partial_fit`` after ``fit`` continues from the fitted metric
        with ``fit``'s constraints retired (their duals frozen in it).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch's points (a dask array is refused); with a
            ``preprocessor``, a 1-D array of their identifiers.
        y : array-like of shape (n_samples,), default=None
            The batch's class labels; pairs among its points are drawn from
            them when ``constraints`` is None.
        constraints : PairConstraints or array-like of shape (n_constraints, 3 or 4), default=None
            Pairs ``i, j, sign[, bound]`` over the rows of this batch's ``X``.

        Returns
        -------
        self : ITMLTransformer
            The fitted estimator.  ``constraints_`` and ``dual_coef_`` are the
            batch's (with their bounds, and their duals at the end of the
            call); ``n_constraints_seen_`` counts the constraints of every
            call, ``n_constraints_kept_`` those swept.
        """
        return self._fit(X, y, constraints, stream=True)

    def _enter(self, X, *, reset, stream):
        """``X`` validated as rows (sparse X: at most
        ``ITML_SPARSE_MAX_FEATURES`` features, dense X at most
        ``ITML_DENSE_MAX_FEATURES``; ``stream``: in memory)."""
        rows = enter(self, X, reset=reset, fitting=True, ensure_min_samples=2)
        if stream:
            rows.in_memory(f"{type(self).__name__}.partial_fit",
                           "pass each batch as a NumPy array or a sparse matrix")
        if rows.sparse and rows.shape[1] > ITML_SPARSE_MAX_FEATURES:
            d = rows.shape[1]
            raise ValueError(
                f"ITMLTransformer learns a d x d Mahalanobis matrix: with X sparse of "
                f"d = {d} features that is {d * d * 8 / 2**30:.3g} GB and O(d^2) per "
                f"projection (at most {ITML_SPARSE_MAX_FEATURES} features are taken on "
                "sparse X). LogDetKernelLearner(kernel='cosine' or 'linear', rank=...) "
                "learns a low-rank kernel from the sparse rows without a d x d matrix.")
        if rows.shape[1] > ITML_DENSE_MAX_FEATURES:  # (before the d x d prior)
            d = rows.shape[1]
            raise ValueError(
                f"ITMLTransformer learns a d x d Mahalanobis matrix: with X of n_features "
                f"d = {d} that is {d * d * 8 / 2**30:.3g} GB per d x d array (a fit holds "
                f"several) and O(d^2) per projection; at most {ITML_DENSE_MAX_FEATURES} "
                "features are taken. Reduce the features first (e.g. PCA), or use "
                "LogDetKernelLearner(kernel='linear', rank=...), which learns a low-rank "
                "kernel without a d x d matrix.")
        return rows

    def _fit(self, X, y, constraints, *, stream):
        """``fit``, or a ``partial_fit`` call (``stream``): one body.  The
        first call starts a run of the engine from the prior, or from the
        fitted metric when a ``fit`` came first; later ones add to the kept
        run with its random stream and bound rule.  The fitted attributes are
        set in one place, at the end."""
        name = type(self).__name__
        kept = getattr(self, "_stream", None) if stream else None
        continuing = stream and (kept is not None or hasattr(self, "metric_"))
        if continuing:
            refuse_changed(self, self._fixed)
        rows = self._enter(X, reset=not continuing, stream=stream)
        run = None if kept is None else kept.for_call(max_constraints=self.max_constraints)
        rng = call_rng(self.random_state) if run is None else run.rng
        scale = rows.max_squared_norm()
        check_scale(scale, name)  # (before the covariance can overflow)
        A0 = self.prior_ if continuing else self._prior_metric(rows, rng)
        # the pairs' rows of X, gathered once (X never leaves the workers when
        # it is a dask array)
        res = resolve_pairs(self, y, constraints, rows, rng, A0,
                            bounds=None if run is None else run.bounds)
        skipped = check_pair_bounds(res.local, res.G_t, A0, scale=scale, source=res.source)
        fixed = self._fixed if continuing else {"prior": self.prior}
        if run is None:  # a new run: from the prior, or the fitted metric
            run = PairStream(_LOGDET, None, self.metric_ if continuing else A0, rng=rng,
                             bounds=res.bounds,
                             max_constraints=self.max_constraints if stream else None)
            if stream:
                fixed = {**fixed, "slack": self.slack, "bounds": self.bounds,
                         "random_state": self.random_state}
        run = run.added(res.G_t, res.local, skipped, owner=name)
        run, result = run.swept(dict(slack=self.slack, order=self.order, tol=self.tol,
                                     max_iter=self.max_iter, verbose=self.verbose,
                                     owner=name))
        # the fitted attributes, in one place
        fitted = {"prior_": A0, "metric_": result.state,
                  "components_": components_from_metric(result.state),
                  "constraints_": res.pairs, "dual_coef_": run.batch_duals(len(res.pairs)),
                  **run_attributes(result), "_fixed": fixed,
                  "preprocessor_": self.preprocessor}
        if stream:
            fitted.update(_stream=run, n_constraints_seen_=run.n_seen,
                          n_constraints_kept_=len(run))
        else:
            for attribute in ("_stream", "n_constraints_seen_", "n_constraints_kept_"):
                self.__dict__.pop(attribute, None)
        for attribute, value in fitted.items():
            setattr(self, attribute, value)
        return self

    def _prior_metric(self, rows, rng):
        """A0 from ``prior``: checked symmetric, positive definite and
        well-conditioned, whatever its source (the LogDet divergence and the
        projections need its inverse)."""
        d = rows.shape[1]
        if isinstance(self.prior, str):
            if self.prior == "identity":
                return np.eye(d)
            if self.prior == "random":
                return _check_prior(make_spd_matrix(d, random_state=rng), "prior='random'")
            cov = rows.covariance()
            w = linalg.eigvalsh(cov)
            if not _well_conditioned(w):
                raise ValueError(
                    "prior='covariance' needs an invertible covariance matrix of X, but "
                    f"its smallest eigenvalue is {w[0]:.3g} (constant or collinear "
                    "features, or fewer samples than features). Use prior='identity' "
                    "or reduce the features first."
                )
            A0 = linalg.inv(cov)
            return (A0 + A0.T) / 2
        A0 = check_array(self.prior, dtype=np.float64, input_name="prior")
        if A0.shape != (d, d):
            raise ValueError(
                f"prior must have shape (n_features, n_features) = ({d}, {d}); "
                f"got {A0.shape}."
            )
        return _check_prior(A0, "prior")

    def transform(self, X):
        """Map ``X`` to ``X L^T``, where Euclidean distance is the learned metric.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a dask array
            Points to map.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features)
            A lazy dask array, mapped block by block, for a dask array.
        """
        check_is_fitted(self)
        rows = enter(self, X, reset=False)
        return rows.map(partial(map_rows, self.components_, type(self).__name__),
                        self.components_.shape[0])

    def get_mahalanobis_matrix(self):
        """The learned Mahalanobis matrix A (d x d, positive definite).

        The learned squared distance is :math:`(x - y)^T A (x - y)`.

        Returns
        -------
        A : ndarray of shape (n_features, n_features)
            A copy of ``metric_`` (:math:`L^T L` with ``L = components_``).
        """
        check_is_fitted(self)
        return self.metric_.copy()

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True  # (up to ITML_SPARSE_MAX_FEATURES features)
        # transform returns float32 for float32 data (_data.output_dtype)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return learner_tags(tags, learns_from=("pairs",))


def _well_conditioned(w):
    """Eigenvalues ``w`` (ascending) of a positive definite matrix whose
    inverse is usable: the smallest above 1e-10 times the largest."""
    return w[0] > 1e-10 * max(w[-1], np.finfo(float).tiny)


def _check_prior(A0, name):
    """``A0`` symmetrised, after checking that it is symmetric, positive
    definite and well-conditioned (the test ``prior='covariance'`` passes);
    a ValueError that names the prior otherwise."""
    scale = np.abs(A0).max()
    if not np.allclose(A0, A0.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError(f"{name} must be a symmetric matrix; "
                         f"max |A0 - A0'| = {np.abs(A0 - A0.T).max():.3g}.")
    A0 = np.array((A0 + A0.T) / 2, order="C")
    w = linalg.eigvalsh(A0)
    if w[0] <= 0:
        raise ValueError(
            f"{name} must be positive definite: its smallest eigenvalue is {w[0]:.3g}. "
            "ITML's LogDet divergence needs the prior's inverse; use prior='identity', "
            "'covariance' or a positive definite matrix.")
    if not _well_conditioned(w):
        raise ValueError(
            f"{name} is numerically singular: its eigenvalues range from {w[0]:.3g} to "
            f"{w[-1]:.3g} (ratio below 1e-10), so its inverse, which ITML's LogDet "
            "divergence needs, is not reliable. Use a better-conditioned prior.")
    return A0
