r"""Nearest correlation matrix by Bregman projections (JMLR 2009, Section 6.3).

Kulis, Sustik & Dhillon (JMLR 10, 2009, Section 6.3) note that the nearest
correlation matrix (Higham 2002: positive semidefinite, unit diagonal) is
their kernel learning problem with the n constraints ``K_ii = 1``, solved by
Bregman projections (Section 3.4) "linearly in n" on low-rank factors.

Departure from the paper.  Kept literally, in the range of a rank-r start
(``K = G0 M G0'``), the problem has n equations and r(r+1)/2 unknowns and is
infeasible in general once n > r(r+1)/2 (for r = 1, ``m g g'`` has a unit
diagonal only when every ``|g_i|`` is the same).  The problem solved here
starts instead from a diagonal-plus-low-rank matrix (a factor model)::

    min_K  D(K, K0)  s.t.  K_ii = 1 (i = 1..n),   K0 = Psi0 + G0 G0',

``Psi0 = diag(psi0) > 0``, which is positive definite, so the constraints
are feasible (``D K0 D`` with ``D = diag(K0)^-1/2`` meets them).  Under the
LogDet divergence each projection adds ``a_i e_i e_i'`` to ``K^-1``: the
solution has ``K^-1 = K0^-1 + diag(alpha)`` and, by Woodbury,
``K = Psi + F F'`` with Psi diagonal positive and F n x r.  The whole run
keeps O(n r) numbers; a projection costs O(r^2) (``_engine/_correlation.pyx``
gives the update).  Newton-CG on the dual, with the n row duals eliminated
in closed form, reaches the same solution in a few iterations of O(n r^2)
Hessian-vector products (``_engine/_unit_diagonal.py``).  Under the von
Neumann divergence the solution is
``exp(log K0 - diag(alpha))``, which keeps no such structure: that path is
dense.

``divergence='frobenius'`` is not a Bregman projection problem of the paper
but the classical nearest correlation matrix (Higham 2002) in a weighted
Frobenius norm with a floor on the eigenvalues, solved densely by Qi & Sun's
(2006) Newton method on its dual (``_engine/_frobenius.py``).
"""

from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array, validate_data

from .._data._inputs import check_rows
from .._engine import (
    frobenius_nearest_correlation,
    logdet_nearest_correlation,
    vonneumann_nearest_correlation,
)
from .._utils._sklearn_compat import Interval, StrOptions
from .._utils._state import TransactionalMixin, fit_context
from .._utils._warnings import warn

__all__ = ["NearestCorrelation"]

#: Largest n of ``divergence='vonneumann'``: its state is the dense n x n
#: log K and a sweep costs O(k n^3) (k Lanczos steps per projection).
VONNEUMANN_MAX_N = 2000

#: Largest n of ``divergence='frobenius'``: it holds several dense n x n
#: arrays (C, G, the eigenvectors, X: about 7 n^2 doubles at the peak, 5.6 GB
#: at n = 10,000) and an iteration costs an
#: O(n^3) eigendecomposition.
FROBENIUS_MAX_N = 10000

#: Fitted attributes of one divergence only, removed when a refit takes
#: another path (so that none is left over from an earlier fit).
_PATH_ATTRIBUTES = ("factor_", "uniqueness_", "correlation_", "negative_mass_",
                    "min_eigenvalue_")


#: Largest entry of C taken by each path: beyond it the computation leaves
#: double precision (the LogDet and von Neumann starts square C's entries,
#: a factor's squared norms are squared again; the Frobenius solution is
#: O(1) against entries whose rounding, eps |C|, would exceed 1).
MATRIX_MAX_ENTRY = 1e150
FACTOR_MAX_ENTRY = 1e100
FROBENIUS_MAX_ENTRY = 1.0 / np.finfo(np.float64).eps

#: Largest ratio of the largest to the smallest of 'frobenius' ``weights``
#: (which are defined up to a common factor only): beyond 1 / eps the
#: lightest variables' entries of W^1/2 C W^1/2 fall below the rounding of
#: the heaviest's, and their correlations are no longer determined in
#: double precision.
WEIGHTS_MAX_RATIO = 1.0 / np.finfo(np.float64).eps

#: Largest ratio of the start's diagonal to its smallest uniqueness for
#: 'vonneumann': K0 = Psi0 + G0 G0' has its eigenvalues between min(psi0) and
#: n max(diag K0), and its logarithm, the state of the projections, is
#: computed from a decomposition accurate to eps times the largest; near
#: 1e16 the smallest come out non-positive (log K0 NaN).
VONNEUMANN_MAX_START_RATIO = 1e14

#: Smallest eigenvalue, relative to the largest (at least 1), that an input
#: already on the unit diagonal may have and come back as it is
#: (``solver_='none'``): rounding level, as 'frobenius' accepts for its result.
KEEP_EIGENVALUE_RTOL = 1e-12


def _check_scale(C, limit, what, why):
    """A ValueError that names the scale of C when an entry exceeds ``limit``."""
    big = float(np.abs(C).max(initial=0.0))
    if big > limit:
        raise ValueError(
            f"C's entries reach {big:.3g}, beyond what {what} can take ({limit:.3g}): "
            f"{why}. Divide C by a scale first (for a covariance matrix, its "
            "correlation matrix D^-1/2 C D^-1/2 with D = diag(C)).")


class NearestCorrelation(TransactionalMixin, BaseEstimator):
    r"""Nearest correlation matrix under a Bregman divergence or a Frobenius norm.

    Finds the correlation matrix (positive semidefinite, unit diagonal)
    nearest to a start :math:`K_0` in the LogDet or von Neumann divergence,
    by cyclic Bregman projections onto the n constraints :math:`K_{ii} = 1`
    (Kulis, Sustik & Dhillon, JMLR 2009, Section 6.3; Bregman projections,
    Section 3.4)::

        min_K  D(K, K0)   s.t.  K_ii = 1 (i = 1..n),   K0 = Psi0 + G0 G0'

    with :math:`\Psi_0 = \mathrm{diag}(\psi_0) > 0` (the start's
    "uniquenesses", as in a factor model) and :math:`G_0` n x r: the top
    ``rank`` positive eigenpairs of the input matrix C,
    :math:`G_0 = V \Lambda^{1/2}`, and :math:`\psi_{0,i} = \max(C_{ii} -
    |g_i|^2, \text{nugget} \cdot \max(1, \overline{C_{jj}}))`; or, with
    ``input='factor'``, the given factor and :math:`\psi_{0,i} = \max(1 - |g_i|^2, \text{nugget})`.

    **LogDet** (default).  A projection adds :math:`a e_i e_i^T` to
    :math:`K^{-1}`, so the solution satisfies
    :math:`K^{-1} = K_0^{-1} + \mathrm{diag}(\alpha)` (the optimality
    condition; ``dual_coef_`` is :math:`\alpha`) and, by Woodbury, keeps the
    structure of the start: :math:`K = \Psi + F F^T` with :math:`\Psi`
    diagonal positive (``uniqueness_``) and F n x r (``factor_``); nothing
    of size n x n is formed with ``input='factor'`` (memory O(n r)).  Two
    solvers reach that optimum:

    - ``'newton'`` (the default): Newton-CG on the dual.  The dual
      :math:`g(\alpha) = \log\det(K_0^{-1} + \mathrm{diag}(\alpha)) -
      \sum_i \alpha_i` is maximised row by row in closed form for a given
      r x r matrix N (each row's unit diagonal is a quadratic equation), which
      leaves a smooth convex function of N alone (``_engine/_unit_diagonal.py``
      gives the derivation).  Newton's method on it, each system solved by
      conjugate gradients with a diagonal (Jacobi) preconditioner and
      Hessian-vector products through the factor in O(n r^2), converges in
      a handful of iterations whatever the start, as Qi & Sun's (2006)
      Newton-CG does for the Frobenius-norm problem.  Departure from Qi &
      Sun, who iterate on the n row duals: the row duals are eliminated
      first, since Newton on them needs many damped steps when many rows
      start capped (``benchmarks/bench_nearest_correlation_scale.py``).  If
      it stops short of ``tol`` the projections finish the run from where
      it stopped.  When r(r+1)/2 > n (a matrix input of full rank) the
      n-dimensional dual is the smaller one and the projections run.
    - ``'projections'``: the paper's cyclic Bregman projections, one per
      row, O(r^2) each in compiled code (a sweep O(n r^2)).  They are
      coordinate ascent on the dual and crawl when many rows pull against
      the shared factor; each sweep is therefore followed by a Newton step
      on the n-dimensional dual (Hessian :math:`-K \circ K`, solved by
      Woodbury in O(n r^4), or densely in O(n^3) when that is cheaper), with
      backtracking, when it costs at most 5e10 multiply-adds.

    **von Neumann**.  The solution is
    :math:`K = \exp(\log K_0 - \mathrm{diag}(\alpha))`, which keeps no
    diagonal-plus-low-rank structure: the state is the dense n x n
    :math:`\log K` (O(n^2) memory, O(k n^3) per sweep with k Lanczos steps
    per projection), for n up to 2000.

    **Frobenius** (``divergence='frobenius'``).  Higham's (2002) nearest
    correlation matrix to C itself (no start :math:`K_0`, no ``rank``), in a
    weighted Frobenius norm and with a floor on the eigenvalues::

        min_X  1/2 |W^1/2 (X - C) W^1/2|_F^2   s.t.  X_ii = 1,  X >= eig_min I

    with :math:`W = \mathrm{diag}(w)`, w = ``weights`` (default: W = I).
    With :math:`G = W^{1/2} C W^{1/2} - \epsilon W` (:math:`\epsilon` =
    ``eig_min``) and :math:`b = (1 - \epsilon) w`, its dual is the
    unconstrained minimisation of the convex, once differentiable
    :math:`\theta(y) = \frac12 \|\Pi_+(G + \mathrm{diag}\,y)\|_F^2 -
    b^T y` (:math:`\Pi_+` the projection onto the positive semidefinite
    cone), and the solution is
    :math:`X = \epsilon I + W^{-1/2} \Pi_+(G + \mathrm{diag}\,y) W^{-1/2}`
    (``dual_coef_`` is y; with W = I,
    :math:`X = \epsilon I + \Pi_+(C - \epsilon I + \mathrm{diag}\,y)`).
    Two solvers:

    - ``'newton'`` (the default): Qi & Sun's (2006) semismooth Newton
      method on :math:`\theta`, each Newton system solved by conjugate
      gradients with a diagonal (Jacobi) preconditioner (Borsdorf & Higham
      2010), Hessian-vector products in :math:`O(n^2 \min(r, n - r))` (r
      positive eigenvalues), an Armijo line search; quadratically convergent,
      typically 5 to 20 iterations.
    - ``'projections'``: Higham's (2002) alternating projections with
      Dykstra's correction (in the W-norm, onto :math:`X \succeq \epsilon
      I` and the unit diagonal), the slow reference: linear convergence,
      often hundreds of iterations.

    Each iteration (and each line-search trial) costs one dense
    eigendecomposition, :math:`O(n^3)` (the user guide's nearest-correlation
    page gives the times against n), and the run holds about seven n x n
    arrays of doubles at its peak (C, G, the eigenvectors, X ...): n is
    limited to ``FROBENIUS_MAX_N`` = 10,000 (about 5.6 GB), refused from
    C's shape before any :math:`O(n^2)` work.  The problem is not scale
    invariant (the solution for s C is not that of C): when C's
    off-diagonal entries reach far above the unit diagonal, Newton's method
    goes by continuation from a small scale (the user guide's page gives
    the details), and the diagonal can be resolved only to about eps times
    those entries: a ``tol`` below that is not met, and the
    ConvergenceWarning names the scale and a ``tol`` that is; entries
    beyond 1 / eps are refused.  The result lies on the boundary of the cone
    (:math:`X - \epsilon I` is singular, ``rank_`` < n, unless C with its
    diagonal set to 1 already met the constraints); the LogDet one is
    positive definite and keeps a factor structure.  Use Frobenius for the
    classical nearest correlation matrix (the same problem as
    ``statsmodels``' ``corr_nearest``, solved to ``tol``), LogDet for a
    positive definite result, large n or a factor input.

    Departure from the paper: the paper keeps the range of a rank-r start,
    :math:`K = G_0 M G_0^T`; the n constraints then have r(r+1)/2 unknowns
    and no solution in general once n > r(r+1)/2 (r = 1: :math:`m g g^T`
    has a unit diagonal only if every :math:`|g_i|` is equal).  The
    diagonal-plus-low-rank start above is positive definite, so the
    constraints are always feasible (:math:`D K_0 D` with
    :math:`D = \mathrm{diag}(K_0)^{-1/2}` meets them), and LogDet still
    works on O(n r) numbers.

    Higham (2002) and ``statsmodels.stats.correlation_tools.corr_nearest``
    solve the same constraints nearest in the Frobenius norm, whose solution
    is generally of lower rank (it lies on the boundary of the PSD cone);
    the LogDet solution is positive definite, the closest in the sense of
    Gaussian relative entropy (``D_ld(K, K0)`` is twice the Kullback-Leibler
    divergence between zero-mean Gaussians), and does not come closer in
    Frobenius norm.

    Parameters
    ----------
    divergence : {'logdet', 'vonneumann', 'frobenius'}, default='logdet'
        The Bregman matrix divergence D, or 'frobenius': the weighted
        Frobenius norm to C.
    rank : int, default=None
        Number r of leading eigenpairs of C kept in :math:`G_0` (only the
        positive ones are used); ``None``: every positive one.  With
        ``input='factor'`` it must be ``None`` or the factor's number of
        columns; with ``divergence='frobenius'``, ``None``.
    input : {'matrix', 'factor'}, default='matrix'
        What ``fit`` takes: a symmetric n x n matrix C (possibly indefinite,
        such as a pairwise-complete correlation estimate with missing
        values), or the factor :math:`G_0` (n x r) of the start itself
        (LogDet and von Neumann only).
    nugget : float, default=1e-3
        Floor of the start's uniquenesses :math:`\psi_0`: with
        ``input='matrix'``, times the mean diagonal of C when that is above 1
        (so that the start of ``s * C`` is ``s`` times the start of a C of
        large scale); absolute otherwise and with ``input='factor'`` (whose
        start is on the unit scale).  Larger values
        make :math:`K_0` and the result better conditioned and the
        projections converge in fewer sweeps; the projections' attainable
        diagonal error grows as it shrinks (about ``eps / nugget``; they stop
        with a ConvergenceWarning when it stalls above ``tol``).  Not used by
        'frobenius'.
    weights : array-like of shape (n,), default=None
        ``divergence='frobenius'`` only: the positive, finite diagonal w of
        the weight matrix :math:`W = \mathrm{diag}(w)`; a larger weight keeps
        that variable's correlations closer to C's.  ``None``: W = I.
        Defined up to a common factor (any magnitude works); weights
        spanning a ratio above 1 / eps (``WEIGHTS_MAX_RATIO``) are refused.
    eig_min : float, default=0.0
        ``divergence='frobenius'`` only: lower bound in [0, 1) on the
        eigenvalues of the result (``X >= eig_min I``); positive values
        give a positive definite X.
    tol : float, default=1e-10
        Stop when every :math:`|K_{ii} - 1|` is at most ``tol``: the largest
        error met in a sweep, then the diagonal recomputed from the result
        ('frobenius': read off the dual gradient at each iteration, then
        recomputed from X).
    max_iter : int, default=1000
        Maximum number of Newton iterations, and of sweeps (each projects
        once onto every row) when the projections run or finish the run;
        'frobenius': of Newton or projection iterations.
    solver : {'auto', 'newton', 'projections'}, default='auto'
        How the LogDet or Frobenius problem is solved (see above): 'auto'
        is 'newton' for LogDet and Frobenius, and 'projections' for von
        Neumann, whose only solver they are.
    verbose : int, default=0
        Print one line per Newton iteration or sweep.

    Attributes
    ----------
    factor_ : ndarray of shape (n, ``rank_``)
        F of :math:`K = \Psi + F F^T` (LogDet only).
    uniqueness_ : ndarray of shape (n,)
        The diagonal of :math:`\Psi` (LogDet only); positive (0 where C
        comes back as it is, ``solver_='none'``), and
        ``uniqueness_ + (factor_ ** 2).sum(1)`` is the unit diagonal.
    correlation_ : ndarray of shape (n, n)
        The correlation matrix K (with ``input='matrix'``, and always with
        von Neumann and Frobenius, where it is X).
    rank_ : int
        Number r of columns of :math:`G_0` (positive eigenpairs used);
        'frobenius': the rank of :math:`X - \epsilon I` (eigenvalues of the
        final :math:`G + \mathrm{diag}\,y` above rounding level).
    negative_mass_ : float
        LogDet and von Neumann with ``input='matrix'``: the sum of
        :math:`|\lambda|` over the negative eigenvalues of C, left out of
        the start (a UserWarning says so).  Not set by 'frobenius', which
        never decomposes C itself.
    dual_coef_ : ndarray of shape (n,)
        :math:`\alpha`: :math:`K^{-1} = K_0^{-1} + \mathrm{diag}(\alpha)`
        (LogDet) or :math:`\log K = \log K_0 - \mathrm{diag}(\alpha)` (von
        Neumann); 'frobenius': y of
        :math:`X = \epsilon I + W^{-1/2} \Pi_+(W^{1/2} C W^{1/2} - \epsilon W
        + \mathrm{diag}\,y) W^{-1/2}`.  Free in sign (equality constraints).
    divergence_ : float
        :math:`D(K, K_0)` reached (LogDet in O(n r^2) by the matrix
        determinant lemma); 'frobenius':
        :math:`\frac12 \|W^{1/2}(X - C) W^{1/2}\|_F^2`.
    max_diagonal_error_ : float
        :math:`\max_i |K_{ii} - 1|` of the result as returned, measured on
        it (``correlation_``, or ``uniqueness_`` and ``factor_``).
    min_eigenvalue_ : float
        'frobenius' only: the smallest eigenvalue of X as returned,
        measured on it (``numpy.linalg.eigvalsh(correlation_)``).
    n_iter_ : int
        Newton iterations and sweeps run; 'frobenius': Newton iterations or
        projection iterations (0: C with its diagonal set to 1 already met
        the constraints, and is returned).
    solver_ : str
        What solved it: 'newton', 'newton+projections' (the projections
        finished what Newton-CG started) or 'projections'; 'none' (LogDet,
        von Neumann) when C, with ``input='matrix'`` and ``rank=None``, is
        already a correlation matrix (its diagonal to ``tol``, its smallest
        eigenvalue at least -1e-12 times its largest): it comes back as it is, at
        no iteration (it is its own nearest correlation matrix; the nugget
        only makes a deficient start positive definite).
    converged_ : bool
        Whether ``max_diagonal_error_ <= tol`` ('frobenius': and
        ``min_eigenvalue_ >= eig_min - max(1e-12, n eps) scale``, scale the
        largest eigenvalue of X, at least 1): a verdict on the result as
        returned, never on the solver's own quantities; otherwise a
        ConvergenceWarning says what failed and what to change.
    n_features_in_ : int
        Number of columns of the input.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the columns of ``C`` (with ``input='matrix'``, the
        variables), defined only when ``C`` has column names that are all
        strings (a DataFrame).

    See Also
    --------
    LogDetKernelLearner : The same projections on pair constraints.

    References
    ----------
    B. Kulis, M. A. Sustik, I. S. Dhillon. Low-rank kernel learning with
    Bregman matrix divergences. JMLR 10:341-376, 2009 (Sections 3.4, 6.3).
    N. J. Higham. Computing the nearest correlation matrix - a problem from
    finance. IMA J. Numer. Anal. 22(3):329-343, 2002.
    H. Qi, D. Sun. A quadratically convergent Newton method for computing the
    nearest correlation matrix. SIAM J. Matrix Anal. Appl. 28(2):360-385,
    2006.
    R. Borsdorf, N. J. Higham. A preconditioned Newton algorithm for the
    nearest correlation matrix. IMA J. Numer. Anal. 30(1):94-107, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_bregman import NearestCorrelation
    >>> C = np.array([[1.0, 0.9, 0.7], [0.9, 1.0, 0.3], [0.7, 0.3, 1.0]])
    >>> float(np.linalg.eigvalsh(C).min()) < 0  # not a correlation matrix: fit warns so
    True
    >>> nc = NearestCorrelation(rank=1).fit(C)
    >>> nc.factor_.shape, nc.converged_
    ((3, 1), True)
    >>> bool(np.allclose(np.diag(nc.correlation_), 1.0, atol=1e-10))
    True
    >>> bool(np.linalg.eigvalsh(nc.correlation_).min() > 0)
    True

    Higham's (2002) example, in the Frobenius norm:

    >>> A = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    >>> fro = NearestCorrelation("frobenius").fit(A)
    >>> fro.converged_, fro.solver_, fro.rank_
    (True, 'newton', 2)
    >>> print(np.round(fro.correlation_, 4))
    [[1.     0.7607 0.1573]
     [0.7607 1.     0.7607]
     [0.1573 0.7607 1.    ]]
    >>> fro = NearestCorrelation("frobenius", eig_min=0.1, weights=[1, 2, 1]).fit(A)
    >>> bool(np.linalg.eigvalsh(fro.correlation_).min() >= 0.1 - 1e-12)
    True
    """

    _parameter_constraints = {
        "divergence": [StrOptions({"logdet", "vonneumann", "frobenius"})],
        "rank": [Interval(Integral, 1, None, closed="left"), None],
        "input": [StrOptions({"matrix", "factor"})],
        "nugget": [Interval(Real, 0, None, closed="neither")],
        "weights": ["array-like", None],
        "eig_min": [Interval(Real, 0, 1, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions({"auto", "newton", "projections"})],
        "verbose": ["verbose"],
    }

    def __init__(self, divergence="logdet", *, rank=None, input="matrix", nugget=1e-3,
                 weights=None, eig_min=0.0, tol=1e-10, max_iter=1000, solver="auto",
                 verbose=0):
        self.divergence = divergence
        self.rank = rank
        self.input = input
        self.nugget = nugget
        self.weights = weights
        self.eig_min = eig_min
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.verbose = verbose

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, C, y=None):
        """Find the nearest correlation matrix to the start built from ``C``.

        Parameters
        ----------
        C : array-like of shape (n, n) or (n, r)
            ``input='matrix'``: a symmetric matrix (indefinite allowed: for
            LogDet and von Neumann the negative eigenvalues are left out,
            with a UserWarning; 'frobenius' takes it as it is).
            ``input='factor'``: the factor :math:`G_0` of the start.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.divergence == "vonneumann" and self.solver == "newton":
            raise ValueError(
                "solver='newton' solves the LogDet and Frobenius problems only; "
                "divergence='vonneumann' takes solver='projections' (or 'auto').")
        if self.divergence == "frobenius":
            if self.input != "matrix":
                raise ValueError(
                    f"divergence='frobenius' takes input='matrix' (the n x n matrix C "
                    f"itself); got input={self.input!r}.")
            if self.rank is not None:
                raise ValueError(
                    f"rank={self.rank} does not apply to divergence='frobenius', which "
                    "solves for the whole n x n matrix; leave rank=None.")
        else:
            extra = (["weights"] if self.weights is not None else []) + (
                [f"eig_min={self.eig_min!r}"] if self.eig_min != 0 else [])
            if extra:
                raise ValueError(
                    f"{' and '.join(extra)}: weights and eig_min apply to "
                    f"divergence='frobenius' only; got divergence={self.divergence!r}.")
        # the size limits from the shape of C as given, before C is read or
        # converted (O(n^2) work and memory), then from the converted array
        # (an input without a shape, such as a list, is converted to find it)
        n_rows = _rows_of(C)
        if n_rows is not None:
            self._check_size(n_rows)
        check_rows(C, "C", type(self).__name__)  # (NumPy's conversion messages name nothing)
        X = check_array(C, dtype=np.float64, input_name="C")
        self._check_size(X.shape[0])
        # n_features_in_, and feature_names_in_ from the input as given (the
        # columns of a DataFrame, which the converted array has lost)
        validate_data(self, C, skip_check_array=True)
        C = X
        owner = type(self).__name__
        for name in _PATH_ATTRIBUTES:  # (none left over from a fit on another path)
            self.__dict__.pop(name, None)
        if self.divergence == "frobenius":
            return self._fit_frobenius(C, owner)
        n = C.shape[0]
        if self.input == "matrix":
            _check_scale(C, MATRIX_MAX_ENTRY, "input='matrix'",
                         "the start's factor and the projections square its entries "
                         "beyond double precision")
        else:
            _check_scale(C, FACTOR_MAX_ENTRY, "input='factor'",
                         "the squared row norms and their products leave double precision")
        if self.input == "matrix":
            G0, psi0, lam = self._start_from_matrix(C)
            if self._already_a_correlation(C, lam):
                return self._keep(C, G0)
        else:
            if self.rank is not None and self.rank != C.shape[1]:
                raise ValueError(
                    f"rank={self.rank} with input='factor': the factor C has "
                    f"{C.shape[1]} columns; rank must be None or {C.shape[1]}.")
            G0 = np.ascontiguousarray(C)
            psi0 = np.maximum(1.0 - np.einsum("ij,ij->i", G0, G0), self.nugget)
        if self.divergence == "vonneumann":
            self._check_vonneumann_start(G0, psi0)
        self.rank_ = int(G0.shape[1])
        if self.divergence == "vonneumann":
            K0 = G0 @ G0.T
            K0[np.diag_indices(n)] += psi0
            # exp(log K0 - diag(alpha)) is also the solution from K0 / s, any
            # s > 0 (log(K0 / s) = log K0 - log(s) I shifts alpha by log s):
            # the projections start from K0 / s, s the power of two nearest
            # its mean diagonal, since a start far from a unit diagonal (a
            # large C) asks for first steps that leave double precision.
            s = 2.0 ** round(np.log2(np.trace(K0) / n))
            out = vonneumann_nearest_correlation(
                K0 / s, tol=self.tol, max_iter=self.max_iter, verbose=self.verbose,
                owner=owner)
            self.correlation_ = out.correlation
            dual = out.dual + np.log(s)
            # D(K, K0) = D(K, K0 / s) - log(s) tr K + (1 - 1 / s) tr K0
            divergence = float(out.divergence - np.log(s) * np.trace(out.correlation)
                               + (1.0 - 1.0 / s) * np.trace(K0))
        else:
            try:
                out = logdet_nearest_correlation(
                    G0, psi0, tol=self.tol, max_iter=self.max_iter, verbose=self.verbose,
                    owner=owner, solver="projections" if self.solver == "projections"
                    else "newton")
            except linalg.LinAlgError:
                # the r x r capacitance I + W' diag(psi0 - t) W of the state
                # lost its Cholesky factor: K0 is singular at working precision
                top = float((psi0 + np.einsum("ij,ij->i", G0, G0)).max(initial=0.0))
                low = float(psi0.min(initial=np.inf))
                raise ValueError(
                    f"divergence='logdet': the start K0 = Psi0 + G0 G0' has diagonal "
                    f"entries up to {top:.3g} and a smallest uniqueness of {low:.3g} "
                    f"(from nugget={self.nugget:g}), a ratio of {top / low:.3g}: K0 is "
                    "singular in double precision and the projections lost its positive "
                    "definiteness. Raise nugget."
                ) from None
            self.factor_ = out.factor
            self.uniqueness_ = out.uniqueness
            if self.input == "matrix":
                K = self.factor_ @ self.factor_.T
                K[np.diag_indices(n)] += self.uniqueness_
                self.correlation_ = K
            dual, divergence = out.dual, out.divergence
        self.dual_coef_ = dual
        self.divergence_ = divergence
        # the diagonal of the result as returned: correlation_, or the
        # factor_ and uniqueness_ that stand for it (input='factor')
        if hasattr(self, "correlation_"):
            diag = np.diag(self.correlation_)
        else:
            diag = self.uniqueness_ + np.einsum("ij,ij->i", self.factor_, self.factor_)
        self.max_diagonal_error_ = float(np.abs(diag - 1.0).max(initial=0.0))
        self.n_iter_ = int(out.n_iter)
        self.solver_ = out.method
        self.converged_ = bool(out.converged and self.max_diagonal_error_ <= self.tol)
        if out.converged and not self.converged_:
            warn(f"{owner} did not converge: the largest diagonal error of the result "
                 f"as returned is {self.max_diagonal_error_:.3g} (tol={self.tol:g}), "
                 "above the solver's own; use a larger tol.", ConvergenceWarning)
        return self

    def _check_size(self, n_rows):
        """The size limits of 'frobenius' and 'vonneumann', from C's number
        of rows alone (n: the variables, or the factor's rows)."""
        if self.divergence == "frobenius":
            if n_rows > FROBENIUS_MAX_N:
                raise ValueError(
                    f"divergence='frobenius' works on dense n x n matrices (about 7 n^2 "
                    f"doubles, O(n^3) per iteration) and is limited to n <= "
                    f"{FROBENIUS_MAX_N}; got n={n_rows}. Use divergence='logdet' with a "
                    "rank, whose cost is linear in n.")
        elif self.divergence == "vonneumann" and n_rows > VONNEUMANN_MAX_N:
            raise ValueError(
                f"divergence='vonneumann' works on the dense n x n log K and is "
                f"limited to n <= {VONNEUMANN_MAX_N}; got n={n_rows}. Use "
                "divergence='logdet', whose cost is linear in n.")

    def _check_vonneumann_start(self, G0, psi0):
        """A ValueError naming the start's scale when ``K0 = Psi0 + G0 G0'``
        is numerically singular (its logarithm would leave double precision)."""
        top = float((psi0 + np.einsum("ij,ij->i", G0, G0)).max(initial=0.0))
        low = float(psi0.min(initial=np.inf))
        if not top / VONNEUMANN_MAX_START_RATIO <= low:
            fix = ("Scale the factor to the unit diagonal (rows of norm about 1 or less) "
                   "or raise nugget" if self.input == "factor" else "Raise nugget")
            raise ValueError(
                f"divergence='vonneumann': the start K0 = Psi0 + G0 G0' has diagonal "
                f"entries up to {top:.3g} and a smallest uniqueness of {low:.3g} (from "
                f"nugget={self.nugget:g}), a ratio of {top / low:.3g} beyond "
                f"{VONNEUMANN_MAX_START_RATIO:.0e}: K0 is singular in double precision "
                f"and its logarithm, the projections' state, is not defined. {fix}, "
                "or use divergence='logdet'.")

    def _fit_frobenius(self, C, owner):
        """``divergence='frobenius'``: checks (all before any O(n^3) work; the
        size before any O(n^2) work, in :meth:`fit`), then the engine's
        :func:`frobenius_nearest_correlation`, whose verdict is the returned
        matrix's own (its diagonal and its smallest eigenvalue, measured)."""
        C = _square_symmetric(C)
        weights = self._check_weights(C.shape[0])
        _check_scale(C, FROBENIUS_MAX_ENTRY, "divergence='frobenius'",
                     "the unit diagonal is resolved against C's entries, whose rounding "
                     "(eps times them) then exceeds 1")
        out = frobenius_nearest_correlation(
            C, weights=weights, eig_min=float(self.eig_min), tol=self.tol,
            max_iter=self.max_iter, solver="projections" if self.solver == "projections"
            else "newton", verbose=self.verbose, owner=owner)
        self.correlation_ = out.correlation
        self.dual_coef_ = out.dual
        self.divergence_ = float(out.divergence)
        self.max_diagonal_error_ = float(out.max_violation)
        self.min_eigenvalue_ = float(out.min_eigenvalue)
        self.rank_ = int(out.rank)
        self.n_iter_ = int(out.n_iter)
        self.solver_ = out.method
        self.converged_ = bool(out.converged)
        return self

    def _check_weights(self, n):
        """``weights`` as n positive finite floats, or None."""
        if self.weights is None:
            return None
        try:
            w = np.asarray(self.weights, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"weights must be an array of n={n} positive numbers: {exc}") from None
        if w.shape != (n,):
            raise ValueError(
                f"weights must have shape (n,) = ({n},), one weight per variable of C; "
                f"got shape {w.shape}.")
        if not np.isfinite(w).all():
            raise ValueError("weights must be finite; got NaN or inf.")
        if not (w > 0).all():
            raise ValueError(
                f"weights must be positive; got {int(np.count_nonzero(w <= 0))} "
                f"non-positive, the smallest {w.min():.4g}.")
        top, low = float(w.max()), float(w.min())
        if not top / WEIGHTS_MAX_RATIO <= low:
            raise ValueError(
                f"weights span a ratio of {top / low:.3g} (largest {top:.3g}, smallest "
                f"{low:.3g}), beyond {WEIGHTS_MAX_RATIO:.3g} = 1/eps: the lightest "
                "variables' entries of W^1/2 C W^1/2 fall below the rounding of the "
                "heaviest's, and their correlations are not determined in double "
                "precision. Weights count only relative to each other (a common "
                "factor changes nothing): bring them within that ratio, e.g. clip "
                "the smallest.")
        return w

    def _already_a_correlation(self, C, lam):
        """Whether ``C`` (after :meth:`_start_from_matrix`, ``lam`` its
        eigenvalues) is a correlation matrix to ``tol`` and to rounding (its
        smallest eigenvalue at least ``-KEEP_EIGENVALUE_RTOL`` times its
        largest, at least 1: the verdict 'frobenius' gives its results), and
        every eigenpair is kept (``rank=None``): its own nearest correlation
        matrix in every divergence."""
        n = C.shape[0]
        return ((self.rank is None or self.rank == n)
                and float(lam[0]) >= -KEEP_EIGENVALUE_RTOL * max(1.0, float(lam[-1]))
                and float(np.abs(np.diag(C) - 1.0).max(initial=0.0)) <= self.tol)

    def _keep(self, C, G0):
        """The fitted attributes of an input that is already a correlation
        matrix: ``C`` itself, at no iteration (the nugget exists only to make
        a deficient start positive definite; here there is nothing to mend)."""
        C = (C + C.T) / 2
        n = C.shape[0]
        self.rank_ = int(G0.shape[1])
        if self.divergence == "logdet":
            self.factor_ = G0
            self.uniqueness_ = np.clip(np.diag(C) - np.einsum("ij,ij->i", G0, G0), 0.0,
                                       None)
        self.correlation_ = C
        self.dual_coef_ = np.zeros(n)
        self.divergence_ = 0.0
        self.max_diagonal_error_ = float(np.abs(np.diag(C) - 1.0).max(initial=0.0))
        self.n_iter_ = 0
        self.solver_ = "none"
        self.converged_ = True
        return self

    def _start_from_matrix(self, C):
        """``G0`` (top positive eigenpairs) and ``psi0`` of a symmetric ``C``,
        and C's eigenvalues (ascending)."""
        C = _square_symmetric(C)
        n = C.shape[0]
        if self.rank is not None and self.rank > n:
            raise ValueError(f"rank={self.rank} exceeds n={n}, the size of C.")
        if self.rank is None or self.rank == n:
            w, V = linalg.eigh(C)
            w_all = w
        else:
            w_all = linalg.eigvalsh(C)
            w, V = linalg.eigh(C, subset_by_index=[n - self.rank, n - 1])
        negative = w_all[w_all < 0]
        self.negative_mass_ = float(-negative.sum())
        big = float(np.abs(w_all).max(initial=0.0))
        if self.negative_mass_ > 1e-10 * max(big, 1e-300) * n:
            warn(f"C is not positive semidefinite: {negative.size} negative eigenvalues "
                 f"of total mass {self.negative_mass_:.4g} (the largest eigenvalue is "
                 f"{w_all[-1]:.4g}) are left out of the start K0.")
        keep = w > n * np.finfo(float).eps * max(big, 1e-300)
        G0 = np.ascontiguousarray(V[:, keep] * np.sqrt(w[keep]))
        # the floor scales with a large C (its mean diagonal, when above 1),
        # so that the start of s C is s times the start of C and a large C
        # cannot leave it numerically singular against its factor; on the
        # unit scale and below it stays absolute (a tiny C then starts near
        # nugget * I, which the projections scale up at once)
        mean_diag = float(np.mean(np.diag(C)))
        scale = max(mean_diag, 1.0) if np.isfinite(mean_diag) else 1.0
        psi0 = np.maximum(np.diag(C) - np.einsum("ij,ij->i", G0, G0), self.nugget * scale)
        return G0, psi0, w_all

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # input='matrix': fit takes one symmetric n x n matrix, as a
        # precomputed kernel; 'factor': an n x r factor, rows as samples
        tags.input_tags.pairwise = self.input == "matrix"
        tags.target_tags.required = False
        return tags


def _rows_of(C):
    """C's number of rows as given, without reading or converting it, or
    None (no two-dimensional shape of integers: found after conversion)."""
    shape = getattr(C, "shape", None)
    try:
        rows, _ = (int(v) for v in shape)
    except (TypeError, ValueError):
        return None
    return rows


def _square_symmetric(C):
    """C, symmetrised, after checking that it is square and symmetric (in
    blocks of rows: no n x n temporary but the result)."""
    n = C.shape[0]
    if C.shape[1] != n:
        raise ValueError(
            f"C must be a square n x n matrix with input='matrix'; got shape "
            f"{C.shape}. Pass input='factor' for an n x r factor.")
    rows = max(1, (1 << 20) // max(n, 1))
    scale = 0.0
    for i0 in range(0, n, rows):
        scale = max(scale, float(np.abs(C[i0:i0 + rows]).max(initial=0.0)))
    atol = 1e-10 * max(scale, 1e-300)
    for i0 in range(0, n, rows):
        block = C[i0:i0 + rows] - C[:, i0:i0 + rows].T
        if not np.abs(block, out=block).max(initial=0.0) <= atol:
            raise ValueError("C must be a symmetric matrix (input='matrix'): C != C.T.")
    S = C + C.T
    S *= 0.5
    return S
