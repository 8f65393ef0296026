"""Semi-supervised kernel learning from relative comparisons (SKLR).

Amid, Gionis & Ukkonen, "Semi-supervised kernel metric learning using
relative comparisons".  Side information comes as triplets: "which of these
three is the odd one out?" (an outlier triplet ``(i, j | k)``) or "don't
know" (an equality triplet).  The kernel closest to an initial one in LogDet
divergence that satisfies them is learned by rank-two Bregman projections,
and kernel k-means on it gives the clustering.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.cluster import KMeans
from sklearn.utils.validation import check_is_fitted

from .._constraints._containers import TripletConstraints, check_triplet_constraints
from .._constraints._labels import outlier_triplets
from .._constraints._validation import empty_error
from .._data._data import enter, output_dtype
from .._data._inputs import refuse_sparse_kernel
from .._engine import triplet_projections
from .._factors._factors import SpectralFactor
from .._factors._kernels import KernelParamsMixin, kernel_parameters
from .._utils._sklearn_compat import Interval, StrOptions
from .._utils._state import TransactionalMixin, call_rng, fit_context
from .._utils._warnings import column_or_1d, fit_kmeans
from ._base import (
    LearnedMapMixin,
    check_factor_scale,
    components_from_metric,
    learner_tags,
)

__all__ = ["SKLRClusterer"]


def _penalty(slack):
    """The penalty lam of eq. 16: ``None`` and ``inf`` mean hard constraints."""
    return np.inf if slack is None else float(slack)


class SKLRClusterer(TransactionalMixin, LearnedMapMixin, KernelParamsMixin,
                    ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin,
                    BaseEstimator):
    r"""Kernel k-means on a kernel learned from relative comparisons (SKLR).

    Amid, Gionis & Ukkonen (Algorithm 1).  From an initial kernel
    :math:`K_0` (by default the adaptive Gaussian of eq. 29), truncated to
    the top eigenpairs that keep ``energy`` of its Frobenius norm, it learns

    .. math:: \min_K D_{ld}(K, K_0) \;\; \text{s.t.} \;\;
              \gamma^2 d(i, j) \le d(i, k),\; \gamma^2 d(j, i) \le d(j, k)
              \;\text{for}\; (i, j \mid k),\qquad
              d(i, j) = d(i, k) = d(j, k) \;\text{for}\; (i, j, k)

    (Problem 6; with ``slack``, Problem 7: each constraint may be violated by
    :math:`\xi` at a cost :math:`\lambda \xi^2 / 2`), where :math:`d` is the
    squared distance in the learned kernel, then clusters the points by
    kernel k-means on it.  The learned kernel is :math:`K = G_0 M G_0^T` with
    M an r x r matrix (JMLR 2009 Lemma 8, Section 4.1 of the paper), so
    every projection is a rank-two update of M in O(r^2) (eq. 13-14, in
    compiled code, ``_engine/_rank2_kernels.h``), with dual corrections for
    the inequalities.  New points are mapped by eq. 28: ``transform(x)`` is
    :math:`\phi_0(x) R` with :math:`M = R R^T` and :math:`\phi_0` the
    Nystrom extension of the truncated start, and ``predict`` assigns them to
    the nearest cluster mean in the learned kernel's feature space.

    Parameters
    ----------
    n_clusters : int, default=8
        Clusters of the kernel k-means.
    kernel : str or callable, default='adaptive_rbf'
        One of 'adaptive_rbf', 'linear', 'rbf', 'poly', 'laplacian', 'sigmoid',
        'cosine', 'precomputed', or a callable ``k(x, y) -> float``.
        Initial kernel.  'adaptive_rbf' is eq. 29,
        :math:`\exp(-|x_i - x_j|^2 / (\sigma_i \sigma_j))` with
        :math:`\sigma_i` the distance to the ``n_neighbors``-th nearest
        training point (a training point counts itself first).
    gamma : float, default=None
        Bandwidth of 'rbf', 'laplacian', 'poly', 'sigmoid' (``None``:
        1 / n_features, as scikit-learn).
    degree : float, default=3
        Degree of 'poly'.
    coef0 : float, default=1
        Constant of 'poly' and 'sigmoid'.
    kernel_params : dict, default=None
        Parameters of a callable kernel.
    n_neighbors : int, default=7
        The k of the adaptive bandwidth.  The paper does not give it; the
        authors' code takes k = 100 on z-scored features.
    energy : float in (0, 1], default=0.99
        Share of the initial kernel's Frobenius norm kept by the low-rank
        start (``1.0`` keeps every positive eigenvalue).  The paper's
        Algorithm 1 keeps 0.9, but its Section 5.7 reports ranks of about
        n / 2, which 0.9 reaches only for k of 2 or 3 (the authors' code
        keeps 0.99 of the sum of the eigenvalues instead).  0.99 at k = 7
        gives ranks of about n / 3 and, on z-scored features, the ARI of
        the authors' setting to within 0.04 in every cell of Table 1's
        protocol (``benchmarks/bench_sklr_table1.py``).
    rank : int, default=None
        Upper bound on the rank of the start (``None``: n_samples).
    margin : float > 1, default=sqrt(2)
        The gamma of eq. 1-2: the outlier must be ``margin`` times farther
        (``margin**2`` in squared distance; the paper uses gamma^2 = 2).
    slack : float or None, default=None
        Penalty lambda of eq. 16 on the slack of the inequality constraints:
        ``None`` (or ``inf``) for hard constraints (SKLR), a positive number
        for the soft margin (sSKLR; larger is harder).  The slack is measured
        in squared distances, which are O(1) for the Gaussian start (unit
        diagonal): lambda of 10 and more (the paper's 1e5) behaves like hard
        constraints here, lambda around 0.3-1 tolerates wrong triplets (see
        ``examples/plot_sklr_noise.py``).  The paper's meaning is kept, so
        this is not the ``slack`` of ITML and the kernel learners (gamma of
        JMLR 2009 eq. 22, a weight of the slack's divergence, ``np.inf`` for
        hard): both make the constraints harder as they grow, but their
        scales differ.
    equality_slack : float or None, default=None
        The same for the equality ("don't know") constraints.
    n_triplets : int, default=None
        Outlier triplets drawn from the labels in ``fit(X, y)``; ``None``:
        40 c^2 for c classes.
    unlabeled : int, str or None, default=-1
        Label of unlabeled samples: clustered, but in no triplet.
    order : {'random', 'cyclic'}, default='random'
        Constraint order of each pass: reshuffled (the paper) or as given.
    n_init : int, default=10
        Restarts of the kernel k-means.
    max_iter : int, default=100
        Maximum passes over the constraints.
    tol : float, default=1e-3
        Stop when the relative L1 change of the duals over a pass is below
        ``tol`` and the optimality conditions hold to ``tol``: every
        constraint :math:`\gamma^2 d(i, j) \le d(i, k)` (or equality) within
        ``tol`` of its target relative to :math:`d(i, k)`, and every
        positive dual on an active constraint.
    random_state : int, RandomState instance or None, default=None
        Seeds the triplet draw, the randomized eigensolver, the order and
        the k-means.
    verbose : int, default=0
        Print one line per pass.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where identifiers of points lead: ``fit`` and ``transform`` take
        ``X`` as a 1-D array of identifiers, and ``pair_distance`` /
        ``pair_score`` pairs as ``(n_pairs, 2)`` identifiers.  An array:
        identifiers are indices into its rows; a callable: it takes a 1-D
        array of identifiers (integers, file names, keys) and returns their
        rows.  ``None``: points are given as points.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training point (kernel k-means on the learned kernel).
    cluster_centers_ : ndarray of shape (n_clusters, ``rank_``)
        Cluster means in the embedding's coordinates.
    inertia_ : float
        Sum of squared distances to the cluster means in the learned kernel.
    embedding_ : ndarray of shape (n_samples, ``rank_``)
        Training points mapped: the learned kernel is ``embedding_ @ embedding_.T``.
    components_ : ndarray of shape (``rank_``, ``rank_``) or (``rank_``, ``n_features_in_``)
        The learned linear map of ``transform``: with ``kernel='linear'``,
        on the input features (``transform(X) = X @ components_.T``, shape
        (``rank_``, ``n_features_in_``), and ``get_mahalanobis_matrix()`` is
        ``components_.T @ components_``); with the other kernels, B on the
        initial factor's coordinates (``transform(X) = phi0(X) @
        components_.T``, ``metric_ = B.T @ B``, eq. 28).
    metric_ : ndarray of shape (``rank_``, ``rank_``)
        M, with learned kernel :math:`G_0 M G_0^T`.
    rank_ : int
        Rank of the low-rank start.
    energy_ : float
        Share of the Frobenius norm it keeps.
    factor_ : SpectralFactor
        The start and its out-of-sample map.
    triplets_ : TripletConstraints
        The triplets used.
    dual_coef_ : ndarray of shape (n_rows,)
        Dual variable (alpha of eq. 17) of each scalar constraint, in the
        order of ``triplets_.rows``: two per outlier triplet, three per
        equality triplet.
    slack_ : ndarray of shape (n_rows,)
        Slack xi = alpha / lambda of each constraint (0 for hard ones).
    n_iter_ : int
        Passes (sweeps) over the constraints.
    n_projections_ : int
        Projections that moved the state.
    converged_ : bool
        Whether the optimality conditions hold to ``tol`` (see ``tol``).
        Hard triplets that contradict each other cannot all hold: the fit
        then ends with ``converged_=False`` and a ConvergenceWarning that
        says how many are violated.
    max_violation_ : float
        Largest relative violation of a constraint at the end, against its
        target (0 for hard constraints, the slack ``slack_`` for soft
        ones); at most ``tol`` when ``converged_``.
    kmeans_ : sklearn.cluster.KMeans
        The fitted k-means on ``embedding_`` (``predict`` uses it).
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
    E. Amid, A. Gionis and A. Ukkonen. Semi-supervised kernel metric learning
    using relative comparisons. arXiv:1612.00086 (2016); ECML-PKDD 2015.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_bregman import SKLRClusterer
    >>> X, y = load_iris(return_X_y=True)
    >>> sklr = SKLRClusterer(n_clusters=3, n_triplets=100, random_state=0).fit(X, y)
    >>> sklr.labels_.shape, sklr.predict(X[:2]).shape
    ((150,), (2,))
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        **kernel_parameters(extra=("adaptive_rbf",)),
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "energy": [Interval(Real, 0, 1, closed="right")],
        "rank": [Interval(Integral, 1, None, closed="left"), None],
        "margin": [Interval(Real, 1, None, closed="neither")],
        "slack": [Interval(Real, 0, np.inf, closed="right"), None],
        "equality_slack": [Interval(Real, 0, np.inf, closed="right"), None],
        "n_triplets": [Interval(Integral, 1, None, closed="left"), None],
        "unlabeled": [Integral, str, None],
        "order": [StrOptions({"cyclic", "random"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "preprocessor": ["array-like", "sparse matrix", callable, None],
    }

    def __init__(self, n_clusters=8, *, kernel="adaptive_rbf", gamma=None, degree=3,
                 coef0=1, kernel_params=None, n_neighbors=7, energy=0.99, rank=None,
                 margin=2.0 ** 0.5, slack=None, equality_slack=None, n_triplets=None,
                 unlabeled=-1, order="random", n_init=10, max_iter=100, tol=1e-3,
                 random_state=None, verbose=0, preprocessor=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_neighbors = n_neighbors
        self.energy = energy
        self.rank = rank
        self.margin = margin
        self.slack = slack
        self.equality_slack = equality_slack
        self.n_triplets = n_triplets
        self.unlabeled = unlabeled
        self.order = order
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose
        self.preprocessor = preprocessor

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, triplets=None, equal_triplets=None):
        """Learn the kernel from labels or triplets, and cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the training kernel matrix if
            ``kernel='precomputed'``.
        y : array-like of shape (n_samples,), default=None
            Class labels (``unlabeled`` for unlabeled samples); outlier
            triplets are drawn from them when no triplets are given.
            Without labels and triplets the kernel stays the initial one
            (plain kernel k-means).
        triplets : array-like of shape (n_outlier, 3) or TripletConstraints, default=None
            Outlier triplets ``i, j, k`` (``k`` is the odd one out) over the
            rows of X.  A :class:`~sklearn_bregman.TripletConstraints` brings
            both its outlier and its equality triplets (``equal_triplets``
            must then be None).  When given (or ``equal_triplets``), ``y`` is
            not used.  Validated by
            :func:`~sklearn_bregman.constraints.check_triplet_constraints`;
            triplets that hold no row at all (with ``equal_triplets``) are
            refused ("triplets is empty"), as every fit refuses empty
            constraints: pass None for kernel k-means on the initial kernel.
        equal_triplets : array-like of shape (n_equal, 3), default=None
            "Don't know" triplets ``i, j, k``: equidistant points.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.kernel == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        X = enter(self, X, reset=True, ensure_min_samples=2).in_memory("SKLRClusterer.fit")
        n = X.shape[0]
        if n < self.n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={self.n_clusters}.")
        rng = call_rng(self.random_state)
        tc = self._triplets(y, triplets, equal_triplets, n, rng)
        params = self._kernel_params()
        factor = SpectralFactor(self.kernel, self.energy, self.rank, params, rng)
        G0 = factor.fit(X)
        check_factor_scale(G0, type(self).__name__)
        self.factor_, self.rank_, self.energy_ = factor, factor.rank_, factor.energy_
        r = G0.shape[1]
        self.triplets_ = tc
        if len(tc):
            result = triplet_projections(
                G0, tc, np.eye(r), margin=self.margin, slack=_penalty(self.slack),
                equality_slack=_penalty(self.equality_slack), order=self.order,
                tol=self.tol, max_iter=self.max_iter, random_state=rng,
                verbose=self.verbose, owner=type(self).__name__,
            )
            self.metric_ = result.state
            self.dual_coef_, self.slack_ = result.dual, result.targets
            self.n_iter_, self.converged_ = result.n_iter, result.converged
            self.n_projections_ = result.n_projections
            self.max_violation_ = result.max_violation
        else:  # no side information: the initial kernel
            self.metric_ = np.eye(r)
            self.dual_coef_ = self.slack_ = np.zeros(0)
            self.n_iter_, self.converged_, self.max_violation_ = 0, True, 0.0
            self.n_projections_ = 0
        L = components_from_metric(self.metric_)
        self.embedding_ = G0 @ L.T
        self.components_ = self._components(self.factor_, L)
        # kernel k-means on K = E E' is k-means on the rows of E
        self.kmeans_ = fit_kmeans(KMeans(self.n_clusters, n_init=self.n_init,
                                         random_state=rng), self.embedding_)
        self.labels_ = self.kmeans_.labels_
        self.cluster_centers_ = self.kmeans_.cluster_centers_
        self.inertia_ = float(self.kmeans_.inertia_)
        self.preprocessor_ = self.preprocessor
        return self

    def _triplets(self, y, triplets, equal_triplets, n, rng):
        if triplets is not None or equal_triplets is not None:
            tc = check_triplet_constraints(triplets, equal_triplets, n)
            if not len(tc):  # the rule of every fit given constraints
                name = "triplets" if triplets is not None else "equal_triplets"
                what = ("the TripletConstraints" if isinstance(triplets, TripletConstraints)
                        else "it, with equal_triplets," if equal_triplets is not None
                        and triplets is not None else "the array")
                raise empty_error(
                    name, what,
                    " (or triplets=None and equal_triplets=None, with labels y to draw "
                    "triplets from, or without y for kernel k-means on the initial "
                    "kernel)")
            return tc
        if y is None:
            return TripletConstraints()
        y = column_or_1d(y)
        if y.shape[0] != n:
            raise ValueError(f"y has {y.shape[0]} entries but X has {n} samples.")
        if self.unlabeled is not None and np.all(y == self.unlabeled):
            return TripletConstraints()  # nothing labeled: unsupervised
        return TripletConstraints(outlier_triplets(
            y, self.n_triplets, unlabeled=self.unlabeled, random_state=rng))

    def fit_predict(self, X, y=None, triplets=None, equal_triplets=None):
        """Fit (see :meth:`fit`) and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the training kernel matrix if
            ``kernel='precomputed'``.
        y : array-like of shape (n_samples,), default=None
            Class labels, as for :meth:`fit`.
        triplets : array-like of shape (n_outlier, 3) or TripletConstraints, default=None
            Outlier triplets, as for :meth:`fit`.
        equal_triplets : array-like of shape (n_equal, 3), default=None
            "Don't know" triplets, as for :meth:`fit`.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster of each training point.
        """
        return self.fit(X, y, triplets=triplets, equal_triplets=equal_triplets).labels_

    def fit_transform(self, X, y=None, triplets=None, equal_triplets=None):
        """Fit (see :meth:`fit`) and return ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the training kernel matrix if
            ``kernel='precomputed'``.
        y : array-like of shape (n_samples,), default=None
            Class labels, as for :meth:`fit`.
        triplets : array-like of shape (n_outlier, 3) or TripletConstraints, default=None
            Outlier triplets, as for :meth:`fit`.
        equal_triplets : array-like of shape (n_equal, 3), default=None
            "Don't know" triplets, as for :meth:`fit`.

        Returns
        -------
        embedding : ndarray of shape (n_samples, ``rank_``)
            The training points in the learned kernel's coordinates.
        """
        Z = self.fit(X, y, triplets=triplets, equal_triplets=equal_triplets).embedding_
        return Z.astype(output_dtype(X), copy=False)

    def transform(self, X):
        """Coordinates of (new) points in the learned kernel's feature space.

        Eq. 28 with the truncated start: ``phi0(X) @ components_.T``, whose
        inner products are the learned kernel.

        Parameters
        ----------
        X : array-like of shape (n, n_features), or (n, n_train)
            Points, or their kernel values against the training points if
            ``kernel='precomputed'``.

        Returns
        -------
        ndarray of shape (n, ``rank_``)
            Coordinates whose inner products are the learned kernel.
        """
        check_is_fitted(self)
        Z, out_dtype = self._coordinates(X)
        return Z.astype(out_dtype, copy=False)

    def predict(self, X):
        """Nearest cluster mean in the learned kernel's feature space.

        Parameters
        ----------
        X : array-like of shape (n, n_features) (or (n, n_train) if precomputed)
            Points, or their kernel values against the training points.

        Returns
        -------
        labels : ndarray of shape (n,)
            Index of the nearest cluster mean of each point.
        """
        check_is_fitted(self)
        # (in float64, as kmeans_ was fitted, whatever the data's dtype)
        return self.kmeans_.predict(self._coordinates(X)[0])

    def _coordinates(self, X):
        """The learned coordinates of ``X`` in float64, and the dtype
        ``transform`` returns them in (float32 for float32 data)."""
        if self.factor_.kernel == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        rows = enter(self, X, reset=False)
        return self._map_function()(rows.in_memory("SKLRClusterer")), rows.out_dtype

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # sparse rows (CSR, CSC) of points; a kernel matrix must be dense
        tags.input_tags.sparse = self.kernel != "precomputed"
        # transform returns float32 for float32 data (_data.output_dtype)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return learner_tags(tags, learns_from=("triplets",))
