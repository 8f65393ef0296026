"""Pieces shared by the learners of the suite.

- parameter constraints shared by the learners driven by pair constraints
  (:data:`PAIR_CONSTRAINT_PARAMETERS`), by those that sweep Bregman
  projections with slack (:data:`SWEEP_PARAMETERS`) and by those that start
  from a low-rank factor of an initial kernel (:data:`FACTOR_PARAMETERS`);
- :class:`FactorLearner`, the base of the learners that work on a low-rank
  factor (the kernel learners and DefiniteBoost): the initial factor,
  ``transform``, ``learned_kernel`` and the tags;
- the fitted attributes every pair learner shares, and the checks of the
  data's scale and of ``transform``'s output (the constraint set of a
  ``fit`` call is :mod:`sklearn_bregman._constraints._resolve`'s).
"""

from dataclasses import dataclass, fields
from functools import partial
from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import Tags, get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._data._data import enter
from .._data._inputs import refuse_sparse_kernel
from .._engine import max_squared_norm
from .._factors._kernels import KERNEL_PARAMETERS, KernelParamsMixin
from .._utils._sklearn_compat import HasMethods, Interval, StrOptions
from .._utils._state import TransactionalMixin, call_random_state
from ._metric import MetricMixin, linear_point_map, mahalanobis_matrix

#: Parameter constraints common to every learner driven by pair constraints
#: (scikit-learn's declarative validation, checked once at the top of fit).
PAIR_CONSTRAINT_PARAMETERS = {
    "n_constraints": [Interval(Integral, 1, None, closed="left"), None],
    "bounds": [StrOptions({"percentile", "relative"}), tuple, list, np.ndarray],
    "epsilon": [Interval(Real, 0, 1, closed="left")],
    "unlabeled": [Integral, str, None],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    # identifiers of points (X as a 1-D array, tuples as (n, 2)) to their rows
    "preprocessor": ["array-like", "sparse matrix", callable, None],
}

#: Parameters of the learners that sweep rank-one projections with slack
#: (ITML, the LogDet and von Neumann kernel learners).
SWEEP_PARAMETERS = {
    # (0, inf]: inf means hard constraints.
    "slack": [Interval(Real, 0, np.inf, closed="right")],
    "order": [StrOptions({"cyclic", "random"})],
}

#: Parameters of the initial kernel and its low-rank factor.
FACTOR_PARAMETERS = {
    **KERNEL_PARAMETERS,
    "rank": [Interval(Integral, 1, None, closed="left"), None],
    "factor_tol": [Interval(Real, 0, 1, closed="left")],
    "low_rank": [StrOptions({"cholesky", "rpcholesky", "csi"})],
}


@dataclass
class LearnerTags(Tags):
    """scikit-learn's estimator tags, and the tuples a learner learns from
    (:func:`learner_tags` makes them)."""

    learns_from: tuple = ()


def learner_tags(tags, learns_from):
    """Declare the tuples a learner learns from, in its estimator tags.

    :class:`~sklearn_bregman.PairClassifier` and
    :class:`~sklearn_bregman.TripletClassifier` wrap a learner that declares
    it learns from their tuples in the tags its ``__sklearn_tags__``
    returns; they do not read its signature.  Every learner of the package
    declares them; a learner of your own does so as in the example.

    Parameters
    ----------
    tags : sklearn.utils.Tags
        What ``super().__sklearn_tags__()`` returns.
    learns_from : tuple of str
        ``'pairs'``: ``fit(X, constraints=...)`` takes pairs as a
        :class:`~sklearn_bregman.constraints.PairConstraints` over the rows of
        ``X``; ``'triplets'``: ``fit(X, triplets=...)`` takes outlier triplets
        ``(i, j | k)`` as an array of shape (n, 3).  A ``partial_fit``, if the
        learner has one, takes them with the same contract, batch by batch.

    Returns
    -------
    tags : sklearn.utils.Tags
        The same tags, with ``learns_from``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator, TransformerMixin
    >>> from sklearn_bregman import PairClassifier, learner_tags
    >>> class Identity(TransformerMixin, BaseEstimator):
    ...     def fit(self, X, y=None, constraints=None):
    ...         self.n_features_in_ = np.shape(X)[1]
    ...         return self
    ...     def transform(self, X):
    ...         return np.asarray(X, dtype=float)
    ...     def __sklearn_tags__(self):
    ...         return learner_tags(super().__sklearn_tags__(), learns_from=("pairs",))
    >>> pairs = np.array([[[0.0, 0.0], [0.1, 0.0]], [[0.0, 0.0], [3.0, 4.0]]])
    >>> PairClassifier(Identity()).fit(pairs, [1, -1]).predict(pairs)
    array([ 1, -1])
    """
    kept = {f.name: getattr(tags, f.name) for f in fields(tags) if f.init}
    return LearnerTags(**kept, learns_from=tuple(learns_from))


def learns_from(estimator):
    """The tuples ``estimator`` declares it learns from (none, for an
    estimator that is not a learner of the suite)."""
    try:
        tags = get_tags(estimator)
    except (TypeError, AttributeError, ValueError):
        return ()
    return getattr(tags, "learns_from", ())


def _linear_in_input(estimator):
    """Whether the learned map is linear in the input features: what ``fit``
    decided (its initial factor's kernel is the linear one) once fitted, what
    it would decide from the parameters before (the linear kernel, with a
    factor of the data, not DefiniteBoost's transductive
    ``init='identity'``)."""
    if "components_" in vars(estimator):  # fitted: the factor fit built
        return getattr(getattr(estimator, "factor_", None), "kernel", None) == "linear"
    return (estimator.kernel == "linear"
            and getattr(estimator, "init", "kernel") == "kernel")


class LearnedMapMixin(MetricMixin):
    """The learned map of a learner on an initial factor, and its metric surface.

    The learner fits ``factor_`` (phi0, the initial factor's out-of-sample
    map) and a map B on its coordinates, and sets ``components_`` to
    :meth:`_components` of B; ``transform(X) = phi0(X) B'``.  When phi0 is
    linear in the input (``kernel='linear'``), ``components_`` is the
    input-space map, so that ``transform(X) = X @ components_.T`` and
    ``get_mahalanobis_matrix`` exists, as for ITML and metric-learn's
    Mahalanobis learners.  Everything after ``fit`` reads the fitted
    attributes (the factor's kernel), never the parameters, which
    ``set_params`` may have changed since.
    """

    def _components(self, factor, B):
        """``components_`` of the learned map ``B`` on the coordinates of the
        initial ``factor`` (``transform(X) = phi0(X) B'``): ``B`` itself, or,
        when phi0 is linear in the input (the linear kernel), the input-space
        map ``B P'`` with ``phi0(X) = X P``, so that ``transform(X) = X
        components_'`` as for any linear map of scikit-learn and
        metric-learn.  ``P`` comes from the factor itself (the pivots' rows,
        the top singular directions, or nothing for ``phi0(x) = x``): O(d r),
        never a d x d array, so a linear kernel on wide sparse data costs
        what its factor does."""
        if getattr(factor, "kernel", None) == "linear":
            P = factor.input_map()
            return B if P is None else B @ P.T
        return B

    def _point_map(self):
        if _linear_in_input(self):
            return linear_point_map(self.components_)
        return partial(_map_through, self.factor_, self.components_.copy(),
                       type(self).__name__)


    @available_if(_linear_in_input)
    def get_mahalanobis_matrix(self):
        """The learned Mahalanobis matrix (``kernel='linear'`` only).

        With the linear initial kernel the learned map is linear in the
        input, ``transform(X) = X @ components_.T``, and the learned squared
        distance is :math:`(x - y)^T M (x - y)` with
        :math:`M = L^T L`, ``L = components_``.

        Returns
        -------
        M : ndarray of shape (n_features, n_features)
            Symmetric positive semi-definite, of rank at most ``rank_``.

        Raises
        ------
        ValueError
            With more than 8192 features (the d x d matrix would exceed
            512 MB): the learned map is ``components_``, and
            ``pair_distance`` / ``get_metric`` compute distances without M.
        """
        check_is_fitted(self)
        return mahalanobis_matrix(self.components_, type(self).__name__)

    def _map_function(self):
        """``transform``'s map of a block of validated rows."""
        if _linear_in_input(self):
            return partial(map_rows, self.components_, type(self).__name__)
        return partial(_map_through, self.factor_, self.components_, type(self).__name__)


class FactorLearner(TransactionalMixin, LearnedMapMixin, KernelParamsMixin,
                    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of the learners that work on a low-rank factor of an initial kernel.

    The learned kernel is ``G0 M G0'`` with ``G0`` the initial factor
    (:class:`~sklearn_bregman._factors._factors.LowRankFactor`) and ``M`` an r x r
    matrix (JMLR 2009, Section 4.2).  A subclass builds the factor with
    :meth:`_initial_factor` and sets ``factor_``, ``rank_``, ``pivots_`` and
    ``components_`` (:meth:`_components` of the map B on the factor's
    coordinates, ``M = B' B``) when its fit succeeds; this base gives
    ``transform``, ``learned_kernel``, the metric surface
    (:class:`~sklearn_bregman._learners._metric.MetricMixin`:
    ``pair_distance``, ``pair_score``, ``get_metric``; and
    ``get_mahalanobis_matrix`` with ``kernel='linear'``), the output
    feature names and the tags.  Subclasses: the pair kernel learners
    (:mod:`sklearn_bregman._learners._kernel_learning`) and DefiniteBoost
    (:mod:`sklearn_bregman._learners._definiteboost`).
    """

    _parameter_constraints = {
        **FACTOR_PARAMETERS,
        **PAIR_CONSTRAINT_PARAMETERS,
        "memory": [None, str, HasMethods(["cache"])],
    }
    #: the tuples a subclass learns from (its tags' ``learns_from``)
    _learns_from = ()

    def _initial_factor(self, rows, y=None):
        """The initial factor of the training rows (a rows object of
        :mod:`sklearn_bregman._data._data`) and its G0 as rows, assigned to
        nothing; ``low_rank='csi'`` chooses its pivots with the labels
        ``y``; raises if its squared distances leave double precision
        (:func:`~sklearn_bregman._learners._base.check_scale`).

        With ``memory`` (a joblib ``Memory`` or a cache directory) the
        factor of data in memory is cached on the data and on what the
        initial kernel depends on, so that a grid search over parameters
        that leave the kernel alone (``slack``, the constraints) factors each
        training set once.
        """
        factor, G = rows.low_rank_factor(
            y, self.kernel, self.rank, self.factor_tol, self._kernel_params(),
            self.low_rank, self.unlabeled,
            random_state=call_random_state(self.random_state),
            memory=self.memory)
        check_scale(G.max_squared_norm(), type(self).__name__)
        return factor, G

    def transform(self, X):
        """Map points through the learned linear map: ``phi0(X) R``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_train)
            New points, or their kernel values against the training points
            when ``kernel='precomputed'``; or a dask array of points; or, with
            a ``preprocessor``, a 1-D array of the points' identifiers.

        Returns
        -------
        X_new : ndarray of shape (n_samples, ``rank_``)
            Coordinates whose inner products are the learned kernel (a lazy
            dask array, mapped block by block, for a dask array).
        """
        check_is_fitted(self)
        if self.factor_.kernel == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        rows = enter(self, X, reset=False)
        return rows.map(self._map_function(), self.components_.shape[0])

    def learned_kernel(self, X, Y=None):
        """The learned kernel between two sets of points.

        ``K(X, Y) = phi0(X) M phi0(Y)'`` (JMLR 2009, Section 6.1); on the
        training points it is ``G0 M G0'``.

        Parameters
        ----------
        X : array-like of shape (n_X, n_features) (or (n_X, n_train) if precomputed)
            First set of points, or their kernel values against the training
            points when ``kernel='precomputed'``.
        Y : array-like of shape (n_Y, n_features), default=None
            Second set of points (as ``X``); ``None`` means ``Y = X``.

        Returns
        -------
        K : ndarray of shape (n_X, n_Y)
            The learned kernel values ``K(X, Y)``.
        """
        ZX = self.transform(X)
        if Y is None:
            return ZX @ ZX.T
        try:
            ZY = self.transform(Y)
        except (TypeError, ValueError) as exc:  # (its messages name X)
            raise type(exc)(f"{type(self).__name__}.learned_kernel: in Y, the second set "
                            f"of points: {exc}") from exc
        return ZX @ ZY.T

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # sparse rows (CSR, CSC) of points; a kernel matrix must be dense
        tags.input_tags.sparse = self.kernel != "precomputed"
        # transform returns float32 for float32 data (_data.output_dtype)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return learner_tags(tags, learns_from=self._learns_from)


def _map_through(factor, components, owner, X):
    """``phi0(X) R`` through a fitted factor and learned map (``owner``: the
    estimator or its name, for the error message)."""
    with np.errstate(over="ignore", invalid="ignore"):  # reported by mapped
        return mapped(factor.transform(X) @ components.T, owner, X)


def map_rows(components, owner, X):
    """``X L'``, or a ValueError if it overflows (``owner``: the estimator or
    its name)."""
    with np.errstate(over="ignore", invalid="ignore"):  # reported by mapped
        return mapped(X @ components.T, owner, X)


def check_factor_scale(G, owner):
    """Squared distances of the rows of ``G`` neither overflow nor underflow.

    The engine works with squared distances ``|g_i - g_j|^2 <= 4 max |g|^2``
    and their reciprocals; data so large (or so small) that these leave
    double precision would come back as non-finite bounds or as every pair
    "coinciding", far from the data the user passed.  Raises a ValueError
    that says so and names the remedy (rescale X).
    """
    check_scale(max_squared_norm(G), owner)


def check_scale(scale, owner):
    """:func:`check_factor_scale` on the largest squared norm ``scale`` of a
    row of the factor."""
    big = np.finfo(np.float64).max / 4
    small = np.sqrt(np.finfo(np.float64).tiny)  # ~1.5e-154
    if np.isfinite(scale) and small <= scale <= big:
        return
    what = ("are not finite in" if np.isnan(scale) else
            "overflow" if scale > big else "underflow")
    raise ValueError(
        f"{owner}: the squared distances between the training points {what} double "
        f"precision (largest squared norm of a training point in the initial kernel's "
        f"feature space: {scale:.3g}); rescale X (e.g. with StandardScaler) or the "
        "kernel."
    )


def mapped(Z, estimator, X):
    """``transform``'s result ``Z`` for the points ``X``, or a ValueError if
    finite coordinates overflowed through the learned map (no output of the
    suite is silently non-finite).  ``estimator``: the estimator or its name."""
    if not np.isfinite(Z).all():
        name = estimator if isinstance(estimator, str) else type(estimator).__name__
        raise ValueError(
            f"{name}.transform: the learned map sends these points "
            "beyond double precision (largest |X| = "
            f"{float(abs(X).max()) if X.size else 0.0:.3g}); rescale X as the training "
            "data."
        )
    return Z


def components_from_metric(A):
    """L with A = L^T L: the upper Cholesky factor, or a clipped eigen-root
    if rounding left A numerically singular."""
    try:
        return linalg.cholesky(A, lower=False)
    except linalg.LinAlgError:
        w, V = linalg.eigh(A)
        return np.sqrt(np.clip(w, 0.0, None))[:, None] * V.T


def run_attributes(result):
    """The fitted attributes of an engine's run that every learner shares,
    from a :class:`~sklearn_bregman._engine.ProjectionResult`: ``n_iter_``
    (sweeps), ``n_projections_`` (projections that moved the state),
    ``converged_`` and ``max_violation_`` (a dict, for the learner to set
    with the rest of its fitted attributes when its fit succeeds)."""
    return {"n_iter_": result.n_iter, "n_projections_": result.n_projections,
            "converged_": result.converged, "max_violation_": result.max_violation}


def refuse_changed(estimator, fixed):
    """A ValueError naming the parameters whose values differ from ``fixed``
    (those a ``fit``, or a stream's first call, fixed: ``partial_fit`` after
    ``set_params`` of one of them would otherwise keep the old value
    silently)."""
    changed = sorted(name for name, value in fixed.items()
                     if not same_value(getattr(estimator, name), value))
    if changed:
        them = "it" if len(changed) == 1 else "them"
        raise ValueError(
            f"{type(estimator).__name__}.partial_fit: {', '.join(changed)} changed since "
            f"the call that fixed {them} (the fit, or the stream's first call: the "
            "initial kernel and its factor, and the stream's slack, bounds and random "
            f"stream, cannot change mid-stream); set {them} back, or call fit to start "
            "again.")


def same_value(a, b):
    """Whether two values of a parameter are the same (arrays by value)."""
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(np.all(np.asarray(a == b)))
    except (TypeError, ValueError):
        return False


def metric_from_log(log_x, s, Vt):
    """M in the initial factor's coordinates from ``log X`` on the basis U.

    ``K = U X U' = G0 (V S^-1 X S^-1 V') G0'``.
    """
    w, Q = linalg.eigh(log_x)
    B = (Vt.T / s) @ Q
    return (B * np.exp(w)) @ B.T
