"""Triplets as samples: a classifier on relative comparisons.

A relative comparison ``(a, b, c)`` says "``a`` is closer to ``b`` than to
``c``".  :class:`TripletClassifier` treats each comparison as one sample, as
metric-learn's triplet learners do, so that scikit-learn's model selection
(``GridSearchCV``, ``cross_val_score``) splits, fits and scores triplets: the
inner learner is fitted on the training triplets as constraints, and a
held-out triplet is scored by how much farther ``c`` is from ``a`` than ``b``
in the learned kernel (distances in metric-learn's units).
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

__all__ = ["TripletClassifier"]


class TripletClassifier(ComparisonMixin, TupleMetaEstimator):
    r"""Classify relative comparisons "a is closer to b than to c" with a learned kernel.

    A meta-estimator around a learner that takes triplets,
    ``estimator.fit(X, triplets=T)`` with ``T`` of shape ``(n, 3)`` indices
    into the rows of X, and maps points with ``transform``
    (:class:`~sklearn_bregman.SKLRClusterer`,
    :class:`~sklearn_bregman.LogDetKernelLearner`,
    :class:`~sklearn_bregman.VonNeumannKernelLearner`; any estimator with
    that ``fit`` and ``transform`` works the same way).  ``fit(triplets)`` fits a clone of
    ``estimator`` with the training triplets as constraints, and a triplet's
    score is :math:`d(a, c) - d(a, b)`, with :math:`d` the learned distance
    (not squared: metric-learn's ``decision_function``).  Each triplet is a
    sample, so ``GridSearchCV`` tunes the inner learner's parameters
    (``estimator__margin``, ``estimator__slack``) on triplets, scored by the
    fraction ordered correctly.

    How the forms relate: the comparison ``(a, b, c)`` here,
    :math:`d(a, b) < d(a, c)`, is given to SKLR as its outlier triplet
    ``(a, b | c)`` (``c`` the odd one out), which asks for *two*
    inequalities, :math:`\gamma^2 d(a, b) \le d(a, c)` and
    :math:`\gamma^2 d(b, a) \le d(b, c)`, with :math:`\gamma` = ``margin``
    (> 1).  SKLR's triplet is therefore a stronger statement than the
    relative comparison: a margin :math:`\gamma^2` and the same comparison
    seen from ``b`` (``b`` also closer to ``a`` than to ``c``).  Training
    triplets are learned in that stronger form; ``decision_function``,
    ``predict`` and ``score`` judge only the comparison itself,
    :math:`d(a, b) < d(a, c)`.

    Triplets come in two forms:

    - ``(n_triplets, 3, n_features)`` point triplets: identical points are
      recognised as one sample (``np.unique`` on the rows), so that
      triplets sharing a point share it in the learned kernel;
    - ``(n_triplets, 3)`` integer indices into ``preprocessor``: an array
      (the inner learner is then fitted on the whole array, so points in no
      triplet still shape the initial kernel: SKLR's semi-supervised
      setting), or a callable mapping an array of indices to the rows of
      those points (fitted on the points the triplets use).

    Parameters
    ----------
    estimator : estimator object
        A learner with ``fit(X, triplets=...)`` and ``transform`` (cloned in
        ``fit``): :class:`~sklearn_bregman.SKLRClusterer`,
        :class:`~sklearn_bregman.LogDetKernelLearner` or
        :class:`~sklearn_bregman.VonNeumannKernelLearner`.  A learner whose
        ``fit`` has no ``triplets`` parameter
        (:class:`~sklearn_bregman.ITMLTransformer`,
        :class:`~sklearn_bregman.DefiniteBoost`, ``PCA``) is refused at
        ``fit`` with an InvalidParameterError.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where index triplets point to; ``None``: triplets are given as points.

    Attributes
    ----------
    estimator_ : estimator
        The fitted inner learner.
    components_ : ndarray of shape (n_components, n_features)
        The inner learner's ``components_``, when its map is linear in the
        input (then ``transform(X) = X @ components_.T`` and
        ``get_mahalanobis_matrix`` exists): ITML, or a learner with
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

    Notes
    -----
    ``predict`` says +1 where ``decision_function`` is strictly positive
    (``a`` strictly closer to ``b`` than to ``c``) and -1 elsewhere: a tie
    :math:`d(a, b) = d(a, c)` does not confirm the comparison and counts as
    -1, as in metric-learn.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_bregman import SKLRClusterer, TripletClassifier
    >>> from sklearn_bregman.constraints import triplets_from_labels
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> t = triplets_from_labels(y, 400, random_state=0)  # (a, b | c): c the outlier
    >>> clf = TripletClassifier(SKLRClusterer(n_clusters=3, random_state=0),
    ...                         preprocessor=X)
    >>> clf = clf.fit(t[:200])  # 200 comparisons to learn from
    >>> clf.predict(t[200:203])  # three held-out ones: ordered correctly?
    array([1, 1, 1])
    >>> clf.score(t[200:])  # held-out fraction ordered correctly (Euclidean: 0.875)
    0.975
    """

    _size, _name = 3, "triplets"
    _fit_keyword = "triplets"
    _learners = "SKLRClusterer, LogDetKernelLearner or VonNeumannKernelLearner"

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "transform"])],
        "preprocessor": ["array-like", "sparse matrix", callable, None],
    }

    def __init__(self, estimator, *, preprocessor=None):
        self.estimator = estimator
        self.preprocessor = preprocessor

    # -- fit -----------------------------------------------------------------

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, triplets, y=None):
        """Fit the inner learner with the triplets as constraints.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
            Point triplets, or index triplets into ``preprocessor``: each row
            ``a, b, c`` says ``a`` is closer to ``b`` than to ``c``.
        y : array-like of shape (n_triplets,), default=None
            ``None`` (every triplet holds, as +1), or +1 / -1 for each: -1
            says the comparison is reversed (``a`` closer to ``c`` than to
            ``b``), and that triplet is learned as ``a, c, b``.  1 / 0 (0
            for reversed), as scikit-learn's ``cross_val_predict`` encodes
            them, are accepted too; ``classes_`` and ``predict`` follow the
            encoding.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(triplets, y, partial=False)

    @available_if(inner_streams)
    @fit_context(prefer_skip_nested_validation=False)
    def partial_fit(self, triplets, y=None):
        """Add a batch of triplets to the inner learner's stream.

        The inner kernel learner's ``partial_fit`` gets the batch's triplets
        (as its ``triplets``, the relative rows of Section 6.2.2): the first
        call starts it (a clone of ``estimator``, its initial factor built on
        this batch's points), later calls add rows to those it keeps and
        learn from all of them (see
        :meth:`~sklearn_bregman.LogDetKernelLearner.partial_fit`).  The
        first call's label encoding is kept.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
            Point triplets, or index triplets into ``preprocessor``.
        y : array-like of shape (n_triplets,), default=None
            As in :meth:`fit`.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(triplets, y, partial=True)

    @staticmethod
    def _check_y(y, n):
        """Signs +1 / -1 of ``y`` (+1 / -1 or 1 / 0) and its encoding."""
        return check_tuple_labels(
            y, n, "triplets", "+1 (the comparison holds) or -1 (it is reversed)")

    # -- scores --------------------------------------------------------------

    def decision_function(self, triplets):
        """``d(a, c) - d(a, b)``, with d the learned distance (metric-learn's).

        Positive where ``a`` is closer to ``b`` than to ``c``.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
            Point triplets ``(a, b, c)``, or index triplets into ``preprocessor``.

        Returns
        -------
        ndarray of shape (n_triplets,)
            The score of each triplet.
        """
        # ("a closer to b than to c" is the outlier triplet (a, b | c))
        return self._margins(triplets)

    def predict(self, triplets):
        """Predict whether ``a`` is closer to ``b`` than to ``c``.

        +1 where ``a`` is strictly closer to ``b`` than to ``c`` in the
        learned kernel (``decision_function > 0``), -1 elsewhere (ties too).

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
            Point triplets ``(a, b, c)``, or index triplets into ``preprocessor``.

        Returns
        -------
        ndarray of shape (n_triplets,)
            ``classes_[1]`` (+1, or 1) where the comparison holds,
            ``classes_[0]`` (-1, or 0) elsewhere.
        """
        return self._labels(self.decision_function(triplets) > 0)

    def score(self, triplets, y=None, sample_weight=None):
        """Fraction of the triplets ordered correctly.

        Parameters
        ----------
        triplets : array-like of shape (n_triplets, 3, n_features) or (n_triplets, 3)
            Point triplets ``(a, b, c)``, or index triplets into ``preprocessor``.
        y : array-like of shape (n_triplets,), default=None
            ``None``: every comparison is taken to hold (+1); else +1 / -1,
            or 1 / 0 (read as in :meth:`fit`, whichever encoding the
            estimator was fitted on).
        sample_weight : array-like of shape (n_triplets,), default=None
            Weights of the triplets in the accuracy.

        Returns
        -------
        float
            Accuracy of :meth:`predict` against ``y``.
        """
        return self._accuracy(triplets, y, sample_weight)
