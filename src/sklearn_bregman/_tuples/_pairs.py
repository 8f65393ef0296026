"""Pairs as samples: a classifier on pairs around any pair learner of the suite.

The papers' side information is pairs ("these two are similar / dissimilar").
:class:`PairClassifier` treats each pair as one sample, as metric-learn's pair
learners do, so that scikit-learn's model selection (``GridSearchCV``,
``cross_val_score``, any scorer such as ``'roc_auc'``) splits, fits and
scores pairs: the inner learner is fitted on the training pairs as
constraints, and a held-out pair is scored by its learned distance, in
metric-learn's units (``decision_function`` is minus the distance,
``threshold_`` a distance).
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._constraints._containers import PairConstraints
from .._data._inputs import tuple_form
from .._utils._sklearn_compat import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)
from .._utils._state import all_or_nothing, fit_context
from ._base import (
    TupleMetaEstimator,
    check_sample_weight,
    check_tuple_labels,
    inner_streams,
    unique_points,
)

__all__ = ["PairClassifier", "PairKFold"]


#: The threshold's parameters: the constructor's and those of
#: ``set_threshold`` / ``calibrate_threshold``, one set of rules for both.
THRESHOLD_PARAMETERS = {
    # a distance, finite (NaN and inf would predict one class for every pair)
    "threshold": [Interval(Real, None, None, closed="neither"), None],
    "strategy": [StrOptions({"accuracy", "f_beta", "max_tpr", "max_tnr"})],
    # (F_0 is the precision: metric-learn takes beta=0)
    "beta": [Interval(Real, 0, None, closed="left")],
    "min_rate": [Interval(Real, 0, 1, closed="both"), None],
}


def check_threshold_parameters(caller, **params):
    """``params`` checked against :data:`THRESHOLD_PARAMETERS` (scikit-learn's
    InvalidParameterError, a ValueError, naming ``caller``), and 'max_tpr' /
    'max_tnr' given a ``min_rate``."""
    validate_parameter_constraints(
        {k: THRESHOLD_PARAMETERS[k] for k in params}, params, caller_name=caller)
    # (scikit-learn's Interval refuses NaN and, open at both ends, +-inf; said
    # again here so that the rule does not rest on how an Interval treats them)
    threshold = params.get("threshold")
    if threshold is not None and not np.isfinite(threshold):
        raise InvalidParameterError(
            f"The 'threshold' parameter of {caller} must be a finite float or None. "
            f"Got {threshold!r} instead.")
    if params.get("strategy") in ("max_tpr", "max_tnr") and params.get(
            "min_rate", 0) is None:
        raise InvalidParameterError(
            f"{caller}: strategy={params['strategy']!r} needs min_rate, the rate it "
            "must keep (a float in [0, 1]).")


def check_pair_labels(y, n_pairs, *, return_classes=False):
    """``y`` of pairs: +1 (similar) / -1 (dissimilar), one per pair, or 1 / 0
    (0 for dissimilar: scikit-learn's ``LabelEncoder`` encoding, which
    ``cross_val_predict`` passes); as signs +1 / -1, and with
    ``return_classes`` the encoding (:func:`~._tuples.check_tuple_labels`)."""
    signs, classes = check_tuple_labels(y, n_pairs, "pairs",
                                        "+1 (similar) and -1 (dissimilar)")
    return (signs, classes) if return_classes else signs


class PairClassifier(TupleMetaEstimator):
    """Classify pairs as similar (+1) or dissimilar (-1) with a learned kernel.

    A meta-estimator around any pair learner of the suite
    (:class:`~sklearn_bregman.ITMLTransformer`,
    :class:`~sklearn_bregman.LogDetKernelLearner`,
    :class:`~sklearn_bregman.VonNeumannKernelLearner`,
    :class:`~sklearn_bregman.DefiniteBoost`): ``fit(pairs, y)`` fits a clone
    of ``estimator`` with the pairs as constraints, and a pair's score is
    minus its learned distance; a pair is similar when its distance is at
    most ``threshold_`` (metric-learn's units and rule).  Bounds come from the learner's
    ``bounds`` rule: ``'relative'`` scales each training pair's own initial
    distance; ``'percentile'`` takes percentiles of random pairs of the
    fitted points (with an array preprocessor, all of its rows; no label of
    a held-out pair is read either way).  Each pair is a sample, so ``GridSearchCV``
    tunes the inner learner's parameters (``estimator__gamma``,
    ``estimator__slack``) on pairs, with any scikit-learn scorer
    (``'roc_auc'``, ``'accuracy'``, ``'f1'``).

    Pairs come in two forms:

    - ``(n_pairs, 2, n_features)`` point pairs: identical points are
      recognised as one sample (``np.unique`` on the rows), so that pairs
      sharing a point share it in the learned kernel;
    - ``(n_pairs, 2)`` integer indices into ``preprocessor``: an array (the
      inner learner is then fitted on the whole array, so points in no pair
      still shape the initial factor: the papers' transductive setting), or
      a callable mapping an array of indices to the rows of those points.

    Parameters
    ----------
    estimator : estimator object
        A pair learner, whose ``fit`` takes the pairs as
        ``fit(X, constraints=...)`` (cloned in ``fit``):
        :class:`~sklearn_bregman.ITMLTransformer`,
        :class:`~sklearn_bregman.LogDetKernelLearner`,
        :class:`~sklearn_bregman.VonNeumannKernelLearner` or
        :class:`~sklearn_bregman.DefiniteBoost`.  Anything else (``PCA``,
        ``KMeans``, :class:`~sklearn_bregman.SKLRClusterer`) is refused at
        ``fit`` with an InvalidParameterError.
    preprocessor : array-like of shape (n_samples, n_features) or callable, default=None
        Where index pairs point to; ``None``: pairs are given as points.
    threshold : float, default=None
        Decision threshold, a learned distance: ``predict`` says +1
        (similar) where a pair's distance is at most it.  ``None``:
        calibrated on the training pairs with ``strategy``.
    strategy : {'accuracy', 'f_beta', 'max_tpr', 'max_tnr'}, default='accuracy'
        How the threshold is calibrated when ``threshold`` is None (see
        :meth:`calibrate_threshold`).
    beta : float, default=1.0
        Beta of ``strategy='f_beta'``.
    min_rate : float in [0, 1], default=None
        The true negative rate ``'max_tpr'`` must keep, or the true positive
        rate ``'max_tnr'`` must keep.

    Attributes
    ----------
    estimator_ : estimator
        The fitted inner learner.
    components_ : ndarray of shape (n_components, n_features)
        The inner learner's ``components_``, when its map is linear in the
        input (then ``transform(X) = X @ components_.T`` and
        ``get_mahalanobis_matrix`` exists): ITML, or a learner with
        ``kernel='linear'``.  Not set otherwise.
    threshold_ : float
        The decision threshold in use, a learned distance (pairs at most
        this far apart are similar).
    classes_ : ndarray of shape (2,)
        ``[-1, 1]``, or ``[0, 1]`` when fitted on labels 1 / 0 (the encoding
        scikit-learn's ``cross_val_predict`` passes with
        ``method='decision_function'``): dissimilar, then similar, so that
        ``decision_function`` scores ``classes_[1]`` as scikit-learn's
        binary classifiers do.
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

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_bregman import ITMLTransformer, PairClassifier
    >>> from sklearn_bregman.constraints import pairs_from_labels
    >>> X, y = load_iris(return_X_y=True)
    >>> pc = pairs_from_labels(y, 200, random_state=0)
    >>> pairs = np.column_stack([pc.i, pc.j])
    >>> clf = PairClassifier(ITMLTransformer(random_state=0), preprocessor=X)
    >>> clf = clf.fit(pairs[:150], pc.sign[:150])  # 150 pairs to learn from
    >>> clf.predict(pairs[150:153])  # three held-out pairs: similar or not
    array([ 1,  1, -1])
    >>> round(clf.score(pairs[150:], pc.sign[150:]), 2)  # held-out accuracy
    0.9
    >>> clf.threshold_ > 0  # a distance: similar pairs are at most this far apart
    True
    """

    _size, _name = 2, "pairs"

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "transform"])],
        "preprocessor": ["array-like", "sparse matrix", callable, None],
        **THRESHOLD_PARAMETERS,
    }

    def __init__(self, estimator, *, preprocessor=None, threshold=None, strategy="accuracy",
                 beta=1.0, min_rate=None):
        self.estimator = estimator
        self.preprocessor = preprocessor
        self.threshold = threshold
        self.strategy = strategy
        self.beta = beta
        self.min_rate = min_rate

    # -- fit -----------------------------------------------------------------

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, pairs, y):
        """Fit the inner learner with the pairs as constraints.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Point pairs, or index pairs into ``preprocessor``.
        y : array-like of shape (n_pairs,)
            +1 for a similar pair, -1 for a dissimilar one; or 1 and 0 (0
            for dissimilar), as scikit-learn's ``cross_val_predict`` encodes
            them.  ``classes_`` and ``predict`` follow the encoding.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(pairs, y, partial=False)

    @available_if(inner_streams)
    @fit_context(prefer_skip_nested_validation=False)
    def partial_fit(self, pairs, y):
        """Add a batch of labelled pairs to the inner learner's stream.

        The inner learner's ``partial_fit`` (ITML, the LogDet and von
        Neumann kernel learners) gets the batch's pairs as constraints: the
        first call starts it (a clone of ``estimator``, its initial factor
        built on this batch's points), later calls add constraints to those
        it keeps and learn from all of them (see its ``partial_fit``).  The
        threshold, unless given, is calibrated on this batch's pairs.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Point pairs, or index pairs into ``preprocessor``.
        y : array-like of shape (n_pairs,)
            +1 for a similar pair, -1 for a dissimilar one; or 1 and 0, as
            in :meth:`fit`.  The encoding of the first call's ``y`` (``[-1,
            1]`` unless it holds a 0) stays: later batches must use it.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(pairs, y, partial=True)

    def _fit(self, pairs, y, *, partial):
        """``fit``, or a ``partial_fit`` call (``partial``)."""
        check_threshold_parameters(type(self).__name__, strategy=self.strategy,
                                   min_rate=self.min_rate)
        self._check_fit_parameters()
        tuple_form(pairs, 2, "pairs", self.preprocessor)
        y, classes = check_pair_labels(y, len(pairs), return_classes=True)
        X, rows = self._training_set(pairs, partial)
        # (a pair joining a point to itself, i == j, reaches the learner, which
        # skips it as every zero-length pair, with one warning that counts them)
        i, j = rows[:, 0], rows[:, 1]
        est, classes = self._fit_inner(X, PairConstraints(i, j, y), y, classes,
                                       partial=partial)
        # (set together; a calibration that fails puts them back, with the
        # rest of the estimator: fit_context is all or nothing)
        self._set_fitted(self._fitted(est, X, pairs, classes))
        if self.threshold is None:
            self.calibrate_threshold(pairs, y, strategy=self.strategy, beta=self.beta,
                                     min_rate=self.min_rate)
        else:
            self.threshold_ = float(self.threshold)
        return self

    # -- scores --------------------------------------------------------------

    def decision_function(self, pairs):
        """Minus the learned distances (larger means more similar).

        metric-learn's ``decision_function``: ``pair_score(pairs)``, that is
        ``-pair_distance(pairs)`` (the distance, not its square).

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Point pairs, or index pairs into ``preprocessor``.

        Returns
        -------
        ndarray of shape (n_pairs,)
            Minus the learned distance of each pair.
        """
        return -np.sqrt(self._pair_sqdist(pairs))

    def _similar(self, pairs):
        """Whether each pair's learned distance is at most ``threshold_``."""
        check_is_fitted(self)
        return -self.decision_function(pairs) <= self.threshold_

    def predict(self, pairs):
        """Predict similar (+1) or dissimilar (-1) for each pair.

        A pair is similar where its learned distance is at most
        ``threshold_`` (``-decision_function(pairs) <= threshold_``, as in
        metric-learn).  The labels are those of ``classes_``: +1 / -1, or
        1 / 0 if the estimator was fitted on 1 / 0.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Point pairs, or index pairs into ``preprocessor``.

        Returns
        -------
        ndarray of shape (n_pairs,)
            ``classes_[1]`` (similar) or ``classes_[0]`` (dissimilar) for
            each pair.
        """
        return self._labels(self._similar(pairs))

    def score(self, pairs, y, sample_weight=None):
        """Accuracy of :meth:`predict` on labelled pairs.

        ``y`` is read as in :meth:`fit` (+1 / -1, or 1 / 0), whichever
        encoding the estimator was fitted on: a pair counts as correct where
        the prediction says similar and ``y`` says so too, or both say
        dissimilar.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Point pairs, or index pairs into ``preprocessor``.
        y : array-like of shape (n_pairs,)
            +1 (or 1) for a similar pair, -1 (or 0) for a dissimilar one.
        sample_weight : array-like of shape (n_pairs,), default=None
            Weights of the pairs in the accuracy.

        Returns
        -------
        float
            The fraction (weighted by ``sample_weight``) predicted correctly.
        """
        from sklearn.metrics import accuracy_score

        check_is_fitted(self)
        tuple_form(pairs, 2, "pairs", self.preprocessor_)
        signs = check_pair_labels(y, len(pairs))
        sample_weight = check_sample_weight(sample_weight, len(pairs), "pairs")
        pred = np.where(self._similar(pairs), 1, -1)
        return float(accuracy_score(signs, pred, sample_weight=sample_weight))

    @all_or_nothing
    def set_threshold(self, threshold):
        """Set ``threshold_``, the decision threshold, by hand.

        ``predict`` says +1 (similar) where a pair's learned distance is at
        most ``threshold`` (metric-learn's rule).  Checked by the rule of the
        constructor's ``threshold``: a finite real number.

        Parameters
        ----------
        threshold : float
            The largest learned distance of a similar pair.

        Returns
        -------
        self : object
            The estimator, with ``threshold_`` set.
        """
        check_is_fitted(self)  # (as metric-learn: a threshold of a fitted learner)
        check_threshold_parameters(f"{type(self).__name__}.set_threshold",
                                   threshold=threshold)
        if threshold is None:
            raise InvalidParameterError(
                f"The 'threshold' parameter of {type(self).__name__}.set_threshold must "
                "be a finite float (a distance). Got None instead.")
        self.threshold_ = float(threshold)
        return self

    @all_or_nothing
    def calibrate_threshold(self, pairs_valid, y_valid, strategy="accuracy", min_rate=None,
                            beta=1.0):
        """Set ``threshold_`` from labelled pairs, as metric-learn calibrates.

        The arguments and their order are metric-learn's.  The threshold is
        a learned distance, the distance of the farthest pair still
        predicted similar (or, where rejecting every pair is best, the
        smallest distance minus 1, or the float just below it where
        subtracting 1 would not change it):

        - ``'accuracy'`` maximises the accuracy over the cuts of the pairs
          sorted by distance (metric-learn's cumulative count; a cut never
          splits pairs at the same distance, which metric-learn's may);
        - ``'f_beta'`` maximises the F-beta score of the similar class
          (scikit-learn's ``precision_recall_curve``; ``beta=0`` is the
          precision);
        - ``'max_tpr'`` maximises the true positive rate among thresholds
          whose true negative rate is at least ``min_rate``, and
          ``'max_tnr'`` the true negative rate among those whose true
          positive rate is at least ``min_rate`` (scikit-learn's
          ``roc_curve``; where it rejects every pair, at an infinite score
          since scikit-learn 1.3, the threshold is the smallest distance
          minus 1, as it was with the scikit-learn metric-learn was written
          for).

        On the same scores the four give metric-learn's threshold.
        ``strategy``, ``min_rate`` and ``beta`` follow the rules of the
        constructor's parameters of the same names (an
        InvalidParameterError, a ValueError, otherwise).

        Which to choose: 'accuracy' when both errors cost the same; 'f_beta'
        when the similar pairs are what is searched for (retrieval, duplicate
        detection) and recall weighs ``beta`` times precision; 'max_tpr' to
        find as many similar pairs as possible while keeping at least
        ``min_rate`` of the dissimilar ones apart (a bound on false alarms);
        'max_tnr' to reject as many dissimilar pairs as possible while
        keeping at least ``min_rate`` of the similar ones (a bound on
        misses).

        Parameters
        ----------
        pairs_valid : array-like of shape (n_pairs, 2, n_features) or (n_pairs, 2)
            Point pairs, or index pairs into ``preprocessor``.
        y_valid : array-like of shape (n_pairs,)
            +1 (similar) / -1 (dissimilar), or 1 / 0, as in :meth:`fit`.
        strategy : {'accuracy', 'f_beta', 'max_tpr', 'max_tnr'}, default='accuracy'
            What the threshold maximises (above).
        min_rate : float in [0, 1], default=None
            Required for 'max_tpr' and 'max_tnr'.
        beta : float >= 0, default=1.0
            Beta of ``strategy='f_beta'``.

        Returns
        -------
        self : object
            The estimator, with ``threshold_`` set.
        """
        check_threshold_parameters(f"{type(self).__name__}.calibrate_threshold",
                                   strategy=strategy, beta=beta, min_rate=min_rate)
        check_is_fitted(self)
        tuple_form(pairs_valid, 2, "pairs_valid", self.preprocessor_)
        y = check_tuple_labels(y_valid, len(pairs_valid), "pairs",
                               "+1 (similar) and -1 (dissimilar)", label_name="y_valid")[0]
        scores = -np.sqrt(self._pair_sqdist(pairs_valid, "pairs_valid"))  # decision_function
        if not np.isfinite(scores).all():
            row = int(np.flatnonzero(~np.isfinite(scores))[0])
            raise ValueError(
                f"pairs_valid: the learned squared distance of pair {row} overflows "
                f"double precision; rescale the points (the model sees them at the "
                f"scale it was fitted on).")
        score = calibrated_score(scores, y, strategy, min_rate=min_rate, beta=beta)
        self.threshold_ = -score  # a score of -d: the threshold is the distance d
        return self


def _above(top):
    """A score above every score (``top`` the highest): ``top + 1``, the
    threshold of scikit-learn < 1.3's roc_curve, or the next float up where
    adding 1 does not change ``top`` (distances beyond 2**53), so that
    rejecting every pair still rejects the closest one."""
    top = float(top)
    return top + 1.0 if top + 1.0 > top else float(np.nextafter(top, np.inf))


def calibrated_score(s, y, strategy, *, min_rate=None, beta=1.0):
    """The lowest score ``s`` still predicted similar (+1) under ``strategy``
    (``calibrate_threshold``'s rules), for scores ``s`` and labels ``y`` of
    +1 / -1.  A ValueError if no threshold reaches ``min_rate``."""
    from sklearn.metrics import precision_recall_curve, roc_curve

    pos, neg = int((y == 1).sum()), int((y == -1).sum())
    if strategy == "accuracy":
        # metric-learn's cumulative accuracy, at the cuts between distinct scores
        order = np.argsort(-s, kind="stable")
        s_sorted, y_sorted = s[order], y[order]
        tp = np.concatenate([[0], np.cumsum(y_sorted == 1)])
        fp = np.concatenate([[0], np.cumsum(y_sorted == -1)])
        cuts = np.flatnonzero(np.concatenate([[True], s_sorted[1:] < s_sorted[:-1], [True]]))
        accuracy = (tp[cuts] + (neg - fp[cuts])) / len(y)
        k = int(cuts[int(np.argmax(accuracy))])
        # accept the first k: the k-th score is the lowest accepted; none: above all
        return _above(s_sorted[0]) if k == 0 else float(s_sorted[k - 1])
    with warnings.catch_warnings():
        # (one class only: scikit-learn warns and leaves its rate NaN; the rate
        # of an empty class is read as met, below)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if strategy == "f_beta":
            precision, recall, thresholds = precision_recall_curve(y, s, pos_label=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                f_beta = ((1 + beta**2) * precision * recall
                          / (beta**2 * precision + recall))
            f_beta[np.isnan(f_beta)] = 0.0
            return float(thresholds[int(np.argmax(f_beta))])
        fpr, tpr, thresholds = roc_curve(y, s, pos_label=1)
    # (rejecting every pair: scikit-learn >= 1.3 puts it at +inf, before at max + 1)
    thresholds = np.where(np.isinf(thresholds), _above(s.max()), thresholds)
    tpr = tpr if pos else np.ones_like(tpr)
    tnr = 1.0 - fpr if neg else np.ones_like(fpr)
    keep, gain = (tnr, tpr) if strategy == "max_tpr" else (tpr, tnr)
    feasible = np.flatnonzero(keep >= min_rate)
    if feasible.size == 0:
        raise ValueError(f"No threshold reaches min_rate={min_rate} on these pairs.")
    return float(thresholds[feasible[int(np.argmax(gain[feasible]))]])


class PairKFold(BaseCrossValidator):
    """K-fold cross-validation over points, for tuples: test tuples join new points.

    Splitting the pairs themselves (``KFold``) tests new pairs over points
    the learner has seen.  To test on points it has never seen, the points
    are dealt into ``n_splits`` folds; fold k's test pairs are the pairs
    with both points in fold k, its training pairs those with neither point
    in fold k, and pairs with one point on each side are left out of that
    split.  (``GroupKFold`` with the first point of each pair as its group
    is not enough: a test pair's second point may still sit in a training
    pair.)  Triplets and quadruplets split the same way, all their points
    in the fold or none: ``X`` may hold tuples of any size ``t >= 2``, as
    :class:`~sklearn_bregman.TripletClassifier` and
    :class:`~sklearn_bregman.QuadrupletClassifier` take them.

    Parameters
    ----------
    n_splits : int, default=3
        Number of folds, an integer of at least 2 (a ValueError otherwise,
        as scikit-learn's ``KFold``).
    shuffle : bool, default=True
        Deal the points into folds at random (``False``: in index order).
    random_state : int, RandomState instance or None, default=None
        Seeds the dealing when ``shuffle`` (with ``shuffle=False`` it must be
        left None, as in ``KFold``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_bregman import PairKFold
    >>> pairs = np.array([[0, 1], [2, 3], [0, 2], [1, 3], [4, 5], [4, 0]])
    >>> for train, test in PairKFold(2, random_state=0).split(pairs):
    ...     points = lambda rows: set(pairs[rows].ravel().tolist())
    ...     assert not points(train) & points(test)
    """

    def __init__(self, n_splits=3, *, shuffle=True, random_state=None):
        # KFold's checks, at construction, naming n_splits
        if not isinstance(n_splits, Integral) or isinstance(n_splits, bool):
            raise ValueError(
                "PairKFold: n_splits, the number of folds, must be an integer of at "
                f"least 2; got {n_splits!r} of type {type(n_splits).__name__}.")
        if n_splits < 2:
            raise ValueError(
                "PairKFold: n_splits, the number of folds, must be an integer of at "
                f"least 2 (one fold to test, one to train); got {n_splits}.")
        if not isinstance(shuffle, (bool, np.bool_)):
            raise TypeError(f"PairKFold: shuffle must be True or False; got {shuffle!r}.")
        if not shuffle and random_state is not None:
            raise ValueError(
                "PairKFold: setting a random_state has no effect since shuffle is "
                "False. Leave random_state to its default (None), or set shuffle=True.")
        self.n_splits = int(n_splits)
        self.shuffle = bool(shuffle)
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """Return the number of splits, ``n_splits``.

        Parameters
        ----------
        X : object
            Ignored; present for API consistency.
        y : object
            Ignored; present for API consistency.
        groups : object
            Ignored; present for API consistency.

        Returns
        -------
        int
            ``n_splits``.
        """
        return self.n_splits

    def _point_ids(self, pairs):
        """Each tuple's point identifiers, (n_tuples, t): the indices
        themselves, or for point tuples the rows' positions among the distinct
        points (``X`` named in every error)."""
        expected = ("PairKFold.split: X must be tuples of shape (n_tuples, t) (indices) or "
                    "(n_tuples, t, n_features) (points), t >= 2 points each (pairs: t = 2)")
        if sp.issparse(pairs):  # (n_pairs, 2) indices as a sparse matrix
            pairs = pairs.toarray()
        if pairs is None or isinstance(pairs, (dict, set, frozenset, str, bytes)):
            what = "None" if pairs is None else f"an object of type {type(pairs).__name__}"
            raise ValueError(f"{expected}; got {what}.")
        try:
            arr = np.asarray(pairs)
        except ValueError:  # numpy's "inhomogeneous shape"
            raise ValueError(f"{expected}; got rows of unequal lengths (a ragged "
                             "list).") from None
        shape = arr.shape
        if len(shape) not in (2, 3) or shape[1] < 2:
            raise ValueError(f"{expected}; got shape {shape}.")
        if shape[0] == 0:
            raise ValueError(f"{expected}; got an empty array (shape {shape}).")
        if len(shape) == 2:
            # (a 2-D array is identifiers; points of one tuple given as its
            # rows are the form's likeliest mistake)
            if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
                raise ValueError(
                    f"{expected}; got a 2-D array of shape {shape} holding non-integral "
                    "numbers, read as identifiers: give point tuples as (n_tuples, t, "
                    "n_features).")
            return arr
        if shape[2] == 0:
            raise ValueError(f"{expected}; got points with 0 features (shape {shape}).")
        return unique_points(arr.reshape(shape[0] * shape[1], -1), shape[1])[1]

    def split(self, X, y=None, groups=None):
        """Yield (train, test) indices of the tuples ``X``.

        Parameters
        ----------
        X : array-like of shape (n_tuples, t) or (n_tuples, t, n_features)
            Index tuples or point tuples (pairs: ``t = 2``; triplets,
            quadruplets); identical points are one point.
        y : object
            Ignored; present for API consistency.
        groups : object
            Ignored; present for API consistency.

        Yields
        ------
        train : ndarray
            Indices of the training tuples (none of their points in the fold).
        test : ndarray
            Indices of the test tuples (all their points in the fold).
        """
        ids = self._point_ids(X)
        points, inverse = np.unique(ids.reshape(-1), return_inverse=True)
        if points.shape[0] < self.n_splits:
            raise ValueError(f"PairKFold.split: X: {points.shape[0]} points cannot fill "
                             f"{self.n_splits} folds.")
        order = np.arange(points.shape[0])
        if self.shuffle:
            order = check_random_state(self.random_state).permutation(points.shape[0])
        fold_of_point = np.empty(points.shape[0], dtype=np.intp)
        fold_of_point[order] = np.arange(points.shape[0]) % self.n_splits
        fold = fold_of_point[inverse].reshape(ids.shape)
        for k in range(self.n_splits):
            inside = fold == k
            yield np.flatnonzero(~inside.any(1)), np.flatnonzero(inside.all(1))

