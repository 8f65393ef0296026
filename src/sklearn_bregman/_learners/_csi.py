"""Cholesky with side information (CSI) as a scikit-learn transformer.

Bach & Jordan, "Predictive low-rank decomposition for kernel methods", ICML
2005.  The algorithm itself (greedy pivots by the estimated gain of
``lam tr(K - G G') + mu |Y - Q Q' Y|_F^2``, look-ahead, pivot moves) is
:func:`sklearn_bregman._factors._factors.cholesky_side_information`, in the factor
layer, where the kernel learners' ``low_rank='csi'`` start uses it too; its
compiled steps are in ``_engine/_csi_steps.pyx``.  This module holds the estimator.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._data._data import enter, output_dtype
from .._data._inputs import refuse_sparse_kernel
from .._factors._factors import OneHotTooLarge, targets
from .._factors._kernels import KERNEL_PARAMETERS, KernelParamsMixin, check_precomputed
from .._utils._sklearn_compat import Interval
from .._utils._state import TransactionalMixin, call_random_state, fit_context

__all__ = ["CSIDecomposition"]


class CSIDecomposition(TransactionalMixin, KernelParamsMixin, ClassNamePrefixFeaturesOutMixin,
                       TransformerMixin, BaseEstimator):
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
    kernel : str or callable, default='rbf'
        One of 'rbf', 'linear', 'poly', 'laplacian', 'sigmoid', 'cosine',
        'precomputed', or a callable ``k(x, y) -> float``.
        Kernel to factor.  With 'precomputed', ``fit`` takes the n x n
        training kernel and ``transform`` the kernel between new and
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
        Upper bound m on the rank (``None``: n_samples, the stopping rule
        decides).
    kappa : float in [0, 1], default=0.99
        Trade-off between predicting Y (``mu = kappa / tr(Y'Y)``) and
        approximating K (``lam = (1 - kappa) / tr K``), as in Section 3.2
        and kernlab's ``csi``; 0.99 is the paper's choice (Section 6.3): the
        pivots are chosen almost only to predict Y, the small K term keeping
        the factor a usable approximation.  (Earlier development versions
        had the two weights swapped, so that 0.99 meant nearly plain
        incomplete Cholesky.)
    delta : int, default=40
        Look-ahead steps (the paper's 40); 0 (or ``kappa=0``) is plain
        incomplete Cholesky, whatever y.
    tol : float, default=1e-4
        Stop when the true gain of a step falls below ``tol`` (J is
        normalised to 1 at G = 0); the paper's 1e-4 (kernlab's default is
        1e-5).  With ``kappa`` near 1 the gain falls below it soon after
        the factor stops helping to predict Y: set ``tol=0`` (and ``rank``)
        for a factor of a given rank.
    center : bool, default=True
        Centre Y and G before the QR decomposition: the least-squares fit has
        an intercept (Section 5.4); the paper's LS-SVM has one, and
        kernlab's ``centering`` defaults to TRUE too.
    random_state : int, RandomState instance or None, default=None
        Breaks ties between pivots of equal estimated gain.

    Attributes
    ----------
    pivots_ : ndarray of shape (``rank_``,)
        Training rows whose kernel columns make the factor, in order.
    embedding_ : ndarray of shape (n_samples, ``rank_``)
        The factor G of the training points (a lazy dask array when ``X``
        is one).
    Q_ : ndarray of shape (n_samples, ``rank_``)
        Orthonormal basis of the (centred) columns of G (a lazy dask array
        when ``X`` is one).
    R_ : ndarray of shape (``rank_``, ``rank_``)
        Upper triangular, ``Q_ @ R_`` = (centred) ``embedding_``.
    approximation_error_ : ndarray of shape (``rank_`` + 1,)
        ``tr(K - G_k G_k')`` after k = 0, ..., ``rank_`` steps.
    prediction_error_ : ndarray of shape (``rank_`` + 1,)
        ``|Y - Q_k Q_k' Y|_F^2`` after each step (Y centred if ``center``);
        zeros without y.
    gains_ : ndarray of shape (``rank_``,)
        True reduction of the normalised cost J at each step.
    rank_ : int
        Rank of the factor (number of pivots).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during ``fit``, defined only when ``X`` has
        feature names that are all strings.

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
        **KERNEL_PARAMETERS,
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

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the pivots and build the factor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the kernel matrix if ``kernel='precomputed'``;
            or a dask array of points (the factor is built on the chunks,
            with ``y=None`` only).
        y : array-like or sparse matrix of shape (n_samples,) or (n_samples, ntargets), default=None
            Floating-point responses (regression, one column per response),
            or class labels of any other dtype (one-hot encoded); ``None``
            gives plain pivoted incomplete Cholesky.  A scipy sparse matrix
            (responses, or one-hot labels as a 0 / 1 indicator matrix) is
            read as its dense copy, which the factor holds anyway (n x
            ntargets): the same model.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.kernel == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        rows, y = enter(self, X, _check_side_information(y), reset=True,
                        check_y=dict(multi_output=True, y_numeric=False))
        Y = None if y is None else _targets(y)
        n = rows.n
        if self.rank is not None and self.rank > n:
            raise ValueError(
                f"rank={self.rank} is larger than the data allows: at most n_samples = {n}."
            )
        params = self._kernel_params()
        if self.kernel == "precomputed":
            check_precomputed(rows.in_memory("CSIDecomposition with kernel='precomputed'"))
        # in memory, or (y=None only) on the chunks of a dask array: G, Q_
        # lazy there, Q_ and R_ from a tall-skinny QR
        res, self._map = rows.side_information_cholesky(
            Y, self.kernel, params, max_rank=n if self.rank is None else self.rank,
            kappa=self.kappa, delta=self.delta, tol=self.tol, center=self.center,
            random_state=call_random_state(self.random_state),
        )
        self.pivots_ = res.pivots
        # column-major, as built: no copy of the n x m arrays
        self.embedding_ = res.G
        self.Q_ = res.Q
        self.R_ = res.R
        self.approximation_error_ = res.approximation_error
        self.prediction_error_ = res.prediction_error
        self.gains_ = res.gains
        self.rank_ = res.G.shape[1]
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the factor of the training points (``embedding_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data, or the kernel matrix if ``kernel='precomputed'``.
        y : array-like of shape (n_samples,) or (n_samples, ntargets), default=None
            Responses or class labels (see :meth:`fit`); ``None`` gives plain
            pivoted incomplete Cholesky.

        Returns
        -------
        embedding : ndarray of shape (n_samples, ``rank_``)
            The factor G of the training points.
        """
        return self.fit(X, y).embedding_.astype(output_dtype(X), copy=False)

    def transform(self, X):
        """Rows of the factor for (new) points: ``k(X, X_pivots) L^-T``.

        Parameters
        ----------
        X : array-like of shape (n, n_features), or (n, n_train)
            Points, or their kernel values against the training points if
            ``kernel='precomputed'``; or a dask array of points.

        Returns
        -------
        ndarray of shape (n, ``rank_``)
            The factor's rows of the points (a lazy dask array for a dask
            array).
        """
        check_is_fitted(self)
        if getattr(self._map, "kernel", self.kernel) == "precomputed":
            refuse_sparse_kernel(X, type(self).__name__)
        return enter(self, X, reset=False).map(self._map, self.rank_)

    @property
    def _n_features_out(self):
        return self.rank_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # sparse rows (CSR, CSC) of points; a kernel matrix must be dense
        tags.input_tags.sparse = self.kernel != "precomputed"
        # transform returns float32 for float32 data (_data.output_dtype)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _check_side_information(y):
    """CSI's ``y`` as ``validate_data`` takes it, or the package's error
    naming ``y``.

    A scipy sparse ``y`` (responses, or one-hot labels as an indicator
    matrix) is densified: the factor holds the side information as an
    n x ntargets dense matrix whatever form it comes in, so the dense copy
    costs nothing more and gives the dense ``y``'s model.  ``None``, a dict,
    a set, a string, a scalar, more than two dimensions and complex values
    are refused here (scikit-learn's messages would not name ``y``); the
    length, NaN and inf are ``validate_data``'s ("Input y contains NaN").
    """
    owner = "CSIDecomposition"
    if y is None:
        return None
    if sp.issparse(y):
        if y.dtype.kind == "c":
            raise ValueError(f"{owner}: y: Complex data not supported; got a sparse "
                             f"matrix of dtype {y.dtype}.")
        if y.dtype.kind not in "biuf":
            raise TypeError(f"{owner}: y as a sparse matrix must hold numbers "
                            f"(responses, or a 0 / 1 indicator matrix of labels); got "
                            f"dtype {y.dtype}.")
        return y.toarray()
    try:
        arr = np.asarray(y)
    except ValueError:  # numpy's "inhomogeneous shape"
        raise ValueError(f"{owner}: y: the rows have unequal lengths (a ragged "
                         "list).") from None
    if isinstance(y, (dict, set, frozenset, str, bytes)) or arr.ndim == 0:
        raise TypeError(
            f"{owner}: y must be an array-like of shape (n_samples,) or (n_samples, "
            f"ntargets) (responses or class labels), a sparse matrix, or None; got "
            f"{type(y).__name__} {y!r:.60}.")
    if arr.ndim > 2:
        raise ValueError(f"{owner}: y must be 1-D or 2-D, (n_samples,) or (n_samples, "
                         f"ntargets); got {arr.ndim} dimensions, shape {arr.shape}.")
    if arr.dtype.kind == "c":
        raise ValueError(f"{owner}: y: Complex data not supported; got dtype "
                         f"{arr.dtype}.")
    return y


def _targets(y):
    """The side information of the validated ``y``
    (:func:`~sklearn_bregman._factors._factors.targets`), with a message naming
    ``y`` when it holds neither responses nor class labels."""
    try:
        return targets(y)
    except OneHotTooLarge:  # (its message names y and the limit)
        raise
    except ValueError as exc:
        raise ValueError(
            "CSIDecomposition: y must hold floating-point responses (one column per "
            "response) or class labels (integers or strings, one-hot encoded), or a "
            f"0 / 1 indicator matrix; {exc}") from None
