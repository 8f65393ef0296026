"""Quadruplets as samples: a classifier on relative comparisons of two pairs.

A quadruplet ``(a, b, c, d)`` says "the pair ``(a, b)`` is closer than the
pair ``(c, d)``": metric-learn's third kind of tuple (after pairs and
triplets), and the relative comparison constraint of JMLR 2009, Section
6.2.2.  :class:`QuadrupletClassifier` treats each quadruplet as one sample,
as metric-learn's quadruplet learners do, so that scikit-learn's model
selection (``GridSearchCV``, ``cross_val_score``) splits, fits and scores
quadruplets: the inner kernel learner is fitted on the training quadruplets
as relative rows, and a held-out quadruplet is scored by how much farther
apart ``c`` and ``d`` are than ``a`` and ``b`` under the learned distance.
"""


from sklearn.utils.metaestimators import available_if

from .._utils._sklearn_compat import HasMethods
from .._utils._state import fit_context
from ._base import (
    ComparisonMixin,
    TupleMetaEstimator,
    check_tuple_labels,
    inner_streams,
)

__all__ = ["QuadrupletClassifier"]



class QuadrupletClassifier(ComparisonMixin, TupleMetaEstimator):
    r"""Classify comparisons "the pair (a, b) is closer than (c, d)" with a learned kernel.

    A meta-estimator around a learner that takes quadruplets,
    ``estimator.fit(X, quadruplets=Q)`` with ``Q`` of shape ``(n, 4)``
    indices into the rows of X, and maps points with ``transform``
    (:class:`~sklearn_bregman.LogDetKernelLearner`,
    :class:`~sklearn_bregman.VonNeumannKernelLearner`; any estimator that
    declares it learns from quadruplets, :func:`~sklearn_bregman.learner_tags`,
    and has that ``fit`` and ``transform`` works the same way).
    ``fit(quadruplets)`` fits a clone of ``estimator`` with the training
    quadruplets as constraints, and a quadruplet's score is

    .. math::

        s(a, b, c, d) = d(c, d) - d(a, b),

    with :math:`d` the learned distance (not squared: metric-learn's
    ``decision_function``, the difference of its ``pair_score``).  Each
    quadruplet is a sample, so ``GridSearchCV`` tunes the inner learner's
    parameters (``estimator__gamma``, ``estimator__ratio``,
    ``estimator__slack``) on quadruplets, scored by the fraction ordered
    correctly.

    What is learned: a quadruplet is the relative comparison constraint of
    Kulis, Sustik & Dhillon (JMLR 2009, Section 6.2.2),
    :math:`\|a - b\|^2 \le \|c - d\|^2` in the learned kernel's feature
    space, which the kernel learners take with a multiplicative margin,
    their ``ratio`` :math:`\rho` (default 2):

    .. math::

        \rho \, d^2(a, b) \le d^2(c, d), \qquad
        d^2(i, j) = K_{ii} + K_{jj} - 2 K_{ij},

    a linear constraint :math:`\mathrm{tr}(K A) \le 0` with
    :math:`A = \rho (e_a - e_b)(e_a - e_b)^T - (e_c - e_d)(e_c - e_d)^T` of
    rank two, projected in :math:`O(r^2)`
    (:class:`~sklearn_bregman.constraints.RelativeConstraints` ``(a, b, c, d,
    ratio=ratio)``; with a finite ``slack``, softly).  The training
    quadruplets are learned in that stronger form; ``decision_function``,
    ``predict`` and ``score`` judge only the comparison itself,
    :math:`d(a, b) < d(c, d)`.  A quadruplet ``(a, b, a, c)`` is the triplet
    comparison "``a`` is closer to ``b`` than to ``c``" with one relative row
    (:class:`~sklearn_bregman.TripletClassifier` gives the kernel learners
    two).

    Quadruplets come in two forms:

    - ``(n_quadruplets, 4, n_features)`` point quadruplets: identical points
      are recognised as one sample (``np.unique`` on the rows), so that
      quadruplets sharing a point share it in the learned kernel;
    - ``(n_quadruplets, 4)`` identifiers through ``preprocessor``: integer
      indices into an array (the inner learner is then fitted on the whole
      array, so points in no quadruplet still shape the initial kernel), or
      any identifiers a callable maps to the rows of their points (fitted on
      the points the quadruplets use).

    Parameters
    ----------
    estimator : estimator object
        A learner with ``fit(X, quadruplets=...)`` and ``transform`` (cloned
        in ``fit``): :class:`~sklearn_bregman.LogDetKernelLearner` or
        :class:`~sklearn_bregman.VonNeumannKernelLearner`.  A learner that
        does not learn from quadruplets
        (:class:`~sklearn_bregman.ITMLTransformer`,
        :class:`~sklearn_bregman.SKLRClusterer`, ``PCA``) is refused at
        ``fit`` with an InvalidParameterError.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where identifier quadruplets point to; ``None``: quadruplets are
        given as points.

    Attributes
    ----------
    estimator_ : estimator
        The fitted inner learner.
    components_ : ndarray of shape (n_components, n_features)
        The inner learner's ``components_``, when its map is linear in the
        input (then ``transform(X) = X @ components_.T`` and
        ``get_mahalanobis_matrix`` exists): a learner with
        ``kernel='linear'``.  Not set otherwise.
    classes_ : ndarray of shape (2,)
        ``[-1, 1]``, or ``[0, 1]`` when fitted on labels 1 / 0 (the encoding
        scikit-learn's ``cross_val_predict`` passes with
        ``method='decision_function'``): reversed, then holds.
    preprocessor_ : array-like, callable or None
        The ``preprocessor`` of the last fitting call: ``transform`` and the
        metric surface resolve identifiers through it (a ``set_params`` after
        ``fit`` changes nothing until the next fit).
    n_features_in_ : int
        Features of a point.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        The column names of a DataFrame ``preprocessor`` (when they are all
        strings), the inner learner's: it was fitted on the frame, and
        checks them at ``transform``.  Not set otherwise (points as tuples
        carry no names).

    See Also
    --------
    TripletClassifier : Comparisons of three points, "a is closer to b than to c".
    PairClassifier : Pairs judged similar or dissimilar.
    PairKFold : Cross-validation that tests on new points (tuples of any size).

    Notes
    -----
    ``predict`` says +1 where ``decision_function`` is strictly positive
    (the pair ``(a, b)`` strictly closer than ``(c, d)``) and -1 elsewhere:
    a tie :math:`d(a, b) = d(c, d)` does not confirm the comparison and
    counts as -1 (metric-learn returns 0 there, and scores it as half
    right).  ``score`` is the accuracy of ``predict``.

    A quadruplet whose pairs join a point to itself (``a == b`` or
    ``c == d``), or whose two pairs are the same, is learned as every other
    and skipped by the learner, with one warning that counts them: ``a ==
    b`` holds under every kernel, the others under none (the learner then
    ends unconverged, with a ConvergenceWarning).

    References
    ----------
    B. Kulis, M. A. Sustik and I. S. Dhillon. Low-rank kernel learning with
    Bregman matrix divergences. JMLR 10:341-376, 2009 (Section 6.2.2).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_bregman import LogDetKernelLearner, QuadrupletClassifier
    >>> from sklearn_bregman.constraints import pairs_from_labels
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> pc = pairs_from_labels(y, 800, random_state=0)
    >>> pairs = np.column_stack([pc.i, pc.j])
    >>> similar, dissimilar = pairs[pc.sign > 0], pairs[pc.sign < 0]
    >>> q = np.hstack([similar[:300], dissimilar[:300]])  # d(a, b) < d(c, d)
    >>> learner = LogDetKernelLearner(kernel="rbf", gamma=0.5, rank=20, slack=np.inf,
    ...                               random_state=0)  # hard rows, ratio=2
    >>> clf = QuadrupletClassifier(learner, preprocessor=X).fit(q[:200])
    >>> clf.score(q[:200])  # every training comparison met with its margin
    1.0
    >>> clf.predict(q[200:203])  # three held-out ones: ordered correctly?
    array([1, 1, 1])
    >>> clf.score(q[200:])  # held-out fraction ordered correctly (Euclidean: 0.92)
    0.99
    """

    _size, _name = 4, "quadruplets"
    # (a, b) closer than (c, d); a reversed one is its pairs swapped
    _closer, _farther, _reversed = (0, 1), (2, 3), [2, 3, 0, 1]
    _fit_keyword = "quadruplets"
    _learners = "LogDetKernelLearner or VonNeumannKernelLearner"

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "transform"])],
        "preprocessor": ["array-like", "sparse matrix", callable, None],
    }

    def __init__(self, estimator, *, preprocessor=None):
        self.estimator = estimator
        self.preprocessor = preprocessor

    # -- fit -----------------------------------------------------------------

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, quadruplets, y=None):
        """Fit the inner learner with the quadruplets as constraints.

        Parameters
        ----------
        quadruplets : array-like of shape (n_quadruplets, 4, n_features) or (n_quadruplets, 4)
            Point quadruplets, or identifier quadruplets through
            ``preprocessor``: each row ``a, b, c, d`` says the pair
            ``(a, b)`` is closer than the pair ``(c, d)``.
        y : array-like of shape (n_quadruplets,), default=None
            ``None`` (every quadruplet holds, as +1), or +1 / -1 for each:
            -1 says the comparison is reversed (``(c, d)`` is the closer
            pair), and that quadruplet is learned as ``c, d, a, b``.  1 / 0
            (0 for reversed), as scikit-learn's ``cross_val_predict`` encodes
            them, are accepted too; ``classes_`` and ``predict`` follow the
            encoding.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(quadruplets, y, partial=False)

    @available_if(inner_streams)
    @fit_context(prefer_skip_nested_validation=False)
    def partial_fit(self, quadruplets, y=None):
        """Add a batch of quadruplets to the inner learner's stream.

        Available when the inner learner streams quadruplets (the kernel
        learners).  Its ``partial_fit`` gets the batch's quadruplets (as its
        ``quadruplets``, the relative rows of Section 6.2.2): the first call
        starts it (a clone of ``estimator``, its initial factor built on this
        batch's points), later calls add rows to those it keeps and learn
        from all of them (see
        :meth:`~sklearn_bregman.LogDetKernelLearner.partial_fit`).  The first
        call's label encoding is kept.  A ``set_params`` of the inner learner
        between calls (``estimator__tol=...``) is honoured by the next call,
        or refused with a ValueError naming the parameter when the stream
        fixed it (the initial kernel and its factor, ``slack``, ``bounds``,
        ``random_state``); ``estimator`` replaced by a learner of another
        class is refused.

        Parameters
        ----------
        quadruplets : array-like of shape (n_quadruplets, 4, n_features) or (n_quadruplets, 4)
            Point quadruplets, or identifier quadruplets through
            ``preprocessor``.
        y : array-like of shape (n_quadruplets,), default=None
            As in :meth:`fit`.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(quadruplets, y, partial=True)

    @staticmethod
    def _check_y(y, n):
        """Signs +1 / -1 of ``y`` (+1 / -1 or 1 / 0) and its encoding."""
        return check_tuple_labels(
            y, n, "quadruplets", "+1 (the comparison holds) or -1 (it is reversed)")

    # -- scores --------------------------------------------------------------

    def decision_function(self, quadruplets):
        """``d(c, d) - d(a, b)``, with d the learned distance.

        Positive where the pair ``(a, b)`` is closer than the pair
        ``(c, d)``: metric-learn's ``decision_function``,
        ``pair_score(ab) - pair_score(cd)``.

        Parameters
        ----------
        quadruplets : array-like of shape (n_quadruplets, 4, n_features) or (n_quadruplets, 4)
            Point quadruplets ``(a, b, c, d)``, or identifier quadruplets
            through ``preprocessor``.

        Returns
        -------
        ndarray of shape (n_quadruplets,)
            The score of each quadruplet.
        """
        return self._margins(quadruplets)

    def predict(self, quadruplets):
        """Predict whether the pair ``(a, b)`` is closer than ``(c, d)``.

        +1 where ``(a, b)`` is strictly closer than ``(c, d)`` under the
        learned distance (``decision_function > 0``), -1 elsewhere (ties
        too).

        Parameters
        ----------
        quadruplets : array-like of shape (n_quadruplets, 4, n_features) or (n_quadruplets, 4)
            Point quadruplets ``(a, b, c, d)``, or identifier quadruplets
            through ``preprocessor``.

        Returns
        -------
        ndarray of shape (n_quadruplets,)
            ``classes_[1]`` (+1, or 1) where the comparison holds,
            ``classes_[0]`` (-1, or 0) elsewhere.
        """
        return self._labels(self.decision_function(quadruplets) > 0)

    def score(self, quadruplets, y=None, sample_weight=None):
        """Fraction of the quadruplets ordered correctly.

        Parameters
        ----------
        quadruplets : array-like of shape (n_quadruplets, 4, n_features) or (n_quadruplets, 4)
            Point quadruplets ``(a, b, c, d)``, or identifier quadruplets
            through ``preprocessor``.
        y : array-like of shape (n_quadruplets,), default=None
            ``None``: every comparison is taken to hold (+1); else +1 / -1,
            or 1 / 0 (read as in :meth:`fit`, whichever encoding the
            estimator was fitted on).
        sample_weight : array-like of shape (n_quadruplets,), default=None
            Weights of the quadruplets in the accuracy.

        Returns
        -------
        float
            Accuracy of :meth:`predict` against ``y``.
        """
        return self._accuracy(quadruplets, y, sample_weight)
