"""Port of metric-learn's test/test_pairs_classifiers.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's pair learners (``ITML(max_iter=2)``, ``MMC``, ``SDML``)
become ``PairClassifier`` around ``ITMLTransformer`` or
``LogDetKernelLearner(kernel='linear')``; ``fit(pairs, y,
calibration_params=...)`` becomes the constructor's ``strategy`` / ``beta`` /
``min_rate``; the mock ``IdentityPairsClassifier`` becomes ``PairClassifier``
around ``IdentityLearner`` below (a pair learner whose map is the identity);
``_validate_calibration_params`` becomes
``sklearn_bregman._tuples._pairs.check_threshold_parameters`` (and the constructor
and ``calibrate_threshold``, which apply it).  ``threshold_`` is metric-learn's:
a distance, ``predict`` saying +1 where ``-decision_function <= threshold_``.
metric-learn's ``build_pairs`` is ``build_pairs`` below (iris, labelled pairs
from ``pairs_from_labels``).

Not ported:

- the ``MMC`` and ``SDML`` cases: no counterpart here (ITML and the LogDet
  kernel learner on the linear kernel stand for the pair learners);
- the ``score_pairs`` call of test_raise_not_fitted_error_if_not_fitted:
  ``score_pairs`` (deprecated in metric-learn) does not exist here;
- the ``f_beta`` cases with ``beta < 0`` (metric-learn: the same as
  ``|beta|``) are ported as a refusal: our ``beta`` is a float in [0, inf),
  as scikit-learn's ``fbeta_score`` takes it (tests marked "differs on
  purpose"); ``beta=0``, the precision, is calibrated as in metric-learn.
"""

import re
import warnings
from functools import partial
from itertools import product

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.metrics import accuracy_score, f1_score, fbeta_score, precision_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import shuffle
from sklearn.utils.validation import check_is_fitted

from sklearn_bregman import ITMLTransformer, LogDetKernelLearner, PairClassifier, learner_tags
from sklearn_bregman._tuples._pairs import THRESHOLD_PARAMETERS, check_threshold_parameters
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels

# a few sweeps only (metric-learn: ITML(max_iter=2)): these tests are about the
# classifier around the learner, not about convergence
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SEED = 42


# -- builders (metric-learn's test_utils.build_pairs) --------------------------


def build_pairs(with_preprocessor=False):
    """Iris, shuffled, and 100 labelled pairs of it: (pairs, y, preprocessor, X).

    With a preprocessor, pairs are (n, 2) indices into X; without, (n, 2, 4)
    points."""
    X, labels = load_iris(return_X_y=True)
    X, labels = shuffle(X, labels, random_state=SEED)
    pc = pairs_from_labels(labels, 100, random_state=SEED)
    ids = np.column_stack([pc.i, pc.j])
    y = np.asarray(pc.sign, dtype=int)
    if with_preprocessor:
        return ids, y, X, X
    return X[ids], y, None, X


PAIR_LEARNERS = [
    PairClassifier(ITMLTransformer(max_iter=2, random_state=SEED)),
    PairClassifier(LogDetKernelLearner(kernel="linear", max_iter=2, random_state=SEED)),
]
PAIR_IDS = ["ITMLTransformer", "LogDetKernelLearner-linear"]


class IdentityLearner(TransformerMixin, BaseEstimator):
    """A pair learner that learns nothing: its map is the identity, so the
    learned squared distance is the Euclidean one (metric-learn's mock
    IdentityPairsClassifier, whose components_ is the identity)."""

    def fit(self, X, y=None, constraints=None, triplets=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self)
        return np.asarray(X, dtype=float)

    def __sklearn_tags__(self):  # (a learner declares the tuples it learns from)
        return learner_tags(super().__sklearn_tags__(), learns_from=("pairs", "triplets"))


class BreakingLearner(IdentityLearner):
    """A pair learner whose fit fails (metric-learn's breaking ``_fit``)."""

    def fit(self, X, y=None, constraints=None, triplets=None):
        raise RuntimeError("Game over.")


def identity_classifier(**params):
    return PairClassifier(IdentityLearner(), **params)


def random_pairs(n_samples):
    rng = np.random.RandomState(SEED)
    return rng.randn(n_samples, 2, 5), rng.choice([-1, 1], size=n_samples)


def fitted(estimator, with_preprocessor, split=True):
    pairs, y, preprocessor, _ = build_pairs(with_preprocessor)
    estimator = clone(estimator).set_params(preprocessor=preprocessor)
    if not split:
        return estimator.fit(pairs, y), pairs, y
    p_train, p_test, y_train, y_test = train_test_split(pairs, y, random_state=SEED)
    return estimator.fit(p_train, y_train), p_test, y_test


# -- predictions ---------------------------------------------------------------


# ports: test_predict_only_one_or_minus_one
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_predict_only_one_or_minus_one(estimator, with_preprocessor):
    estimator, pairs_test, _ = fitted(estimator, with_preprocessor)
    predictions = estimator.predict(pairs_test)
    assert set(np.unique(predictions)) <= {-1, 1}


# ports: test_predict_monotonous
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_predict_monotonous(estimator, with_preprocessor):
    # a threshold on the score separates the pairs predicted similar from the others
    estimator, pairs_test, _ = fitted(estimator, with_preprocessor)
    scores = estimator.pair_score(pairs_test)
    predictions = estimator.predict(pairs_test)
    max_dissimilar = np.max(scores[predictions == -1])
    min_similar = np.min(scores[predictions == 1])
    assert max_dissimilar <= min_similar
    separator = np.mean([max_dissimilar, min_similar])
    assert (predictions[scores < separator] == -1).all()
    assert (predictions[scores > separator] == 1).all()


# ports: test_raise_not_fitted_error_if_not_fitted
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_raise_not_fitted_error_if_not_fitted(estimator, with_preprocessor):
    pairs, y, preprocessor, _ = build_pairs(with_preprocessor)
    estimator = clone(estimator).set_params(preprocessor=preprocessor)
    with pytest.raises(NotFittedError):
        estimator.pair_score(pairs)
    with pytest.raises(NotFittedError):
        estimator.decision_function(pairs)
    with pytest.raises(NotFittedError):
        estimator.get_metric()
    with pytest.raises(NotFittedError):
        estimator.transform(pairs)
    with pytest.raises(NotFittedError):
        estimator.get_mahalanobis_matrix()
    with pytest.raises(NotFittedError):
        estimator.calibrate_threshold(pairs, y)
    with pytest.raises(NotFittedError):
        estimator.set_threshold(0.5)
    with pytest.raises(NotFittedError):
        estimator.predict(pairs)


# -- calibration at fit ----------------------------------------------------------

VALID_CALIBRATION = (
    [{"strategy": "accuracy"}]
    + [{"strategy": strategy, "min_rate": min_rate}
       for strategy, min_rate in product(["max_tpr", "max_tnr"], [0.0, 0.2, 0.8, 1.0])]
    + [{"strategy": "f_beta", "beta": beta} for beta in [0.0, 0.1, 0.2, 1.0, 5.0]]
)
# metric-learn's valid betas that ours refuses (see test_beta_must_not_be_negative)
NEGATIVE_BETAS = [-5.0, -1.0]


# ports: test_fit_with_valid_threshold_params
@pytest.mark.parametrize("calibration_params", [None, {}] + VALID_CALIBRATION)
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_fit_with_valid_threshold_params(estimator, with_preprocessor, calibration_params):
    # calibration parameters are the constructor's (None / {}: the defaults)
    estimator = clone(estimator).set_params(**(calibration_params or {}))
    estimator, pairs, _ = fitted(estimator, with_preprocessor, split=False)
    assert np.isfinite(estimator.threshold_)
    estimator.predict(pairs)


# ports: test_threshold_different_scores_is_finite
@pytest.mark.parametrize("kwargs", VALID_CALIBRATION)
@pytest.mark.parametrize("with_preprocessor", [True, False])
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_threshold_different_scores_is_finite(estimator, with_preprocessor, kwargs):
    estimator, pairs, y = fitted(estimator, with_preprocessor, split=False)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        estimator.calibrate_threshold(pairs, y, **kwargs)
    assert len(record) == 0
    assert np.isfinite(estimator.threshold_)


# -- set_threshold ---------------------------------------------------------------

TOY_PAIRS = np.array([[[0.0], [1.0]], [[1.0], [3.0]], [[2.0], [5.0]], [[3.0], [7.0]]])
TOY_Y = np.array([1, 1, -1, -1])


# ports: test_unset_threshold
def test_unset_threshold():
    # differs on purpose: fit always sets threshold_ (calibrated when threshold=None), so
    # predict never meets an unset threshold; metric-learn's mock left it unset
    clf = identity_classifier().fit(TOY_PAIRS, TOY_Y)
    assert np.isfinite(clf.threshold_)
    assert_array_equal(clf.predict(TOY_PAIRS), TOY_Y)
    # the constructor's threshold, when given, is the one used (a distance: the
    # pairs are 1, 2, 3 and 4 apart)
    clf = identity_classifier(threshold=2.5).fit(TOY_PAIRS, TOY_Y)
    assert clf.threshold_ == 2.5
    assert_array_equal(clf.predict(TOY_PAIRS), [1, 1, -1, -1])


# ports: test_set_threshold
def test_set_threshold():
    clf = identity_classifier().fit(TOY_PAIRS, TOY_Y)
    clf.set_threshold(0.5)
    assert clf.threshold_ == 0.5
    # booleans are real numbers (metric-learn: "permissive with True=1.0 and False=0.0")
    clf.set_threshold(True)
    assert clf.threshold_ == 1.0


# ports: test_set_wrong_type_threshold
@pytest.mark.parametrize("value", ["ABC", None, [1, 2, 3], {"key": None}, (1, 2), set(),
                                   np.array([[[0.0], [1.0]], [[1.0], [3.0]]]),
                                   np.nan, np.inf])
def test_set_wrong_type_threshold(value):
    # differs on purpose: scikit-learn's parameter-validation message (InvalidParameterError,
    # a ValueError) instead of "Parameter threshold must be a real number"; and NaN / inf
    # are refused too (they would predict one class for every pair)
    clf = identity_classifier().fit(TOY_PAIRS[:1], TOY_Y[:1])
    with pytest.raises(ValueError) as e:
        clf.set_threshold(value)
    assert isinstance(e.value, InvalidParameterError)
    assert str(e.value).startswith(
        "The 'threshold' parameter of PairClassifier.set_threshold must be")


# -- calibrate_threshold finds the best threshold ----------------------------------


def true_pos_true_neg_rates(y_true, y_pred):
    """True positive and true negative rates, 0 where undefined (0 / 0)."""
    tp = np.sum((y_pred == 1) & (y_true == 1))
    tn = np.sum((y_pred == -1) & (y_true == -1))
    fn = np.sum((y_pred == -1) & (y_true == 1))
    fp = np.sum((y_pred == 1) & (y_true == -1))
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    return tpr, tnr


def tpr_threshold(y_true, y_pred, tnr_threshold=0.0):
    """The true positive rate if the true negative rate reaches the threshold, else -1."""
    tpr, tnr = true_pos_true_neg_rates(y_true, y_pred)
    return -1 if tnr < tnr_threshold else tpr


def tnr_threshold(y_true, y_pred, tpr_threshold=0.0):
    """The true negative rate if the true positive rate reaches the threshold, else -1."""
    tpr, tnr = true_pos_true_neg_rates(y_true, y_pred)
    return -1 if tpr < tpr_threshold else tnr


# ports: test_f_beta_1_is_f_1
def test_f_beta_1_is_f_1():
    pairs, y = random_pairs(100)
    clf = identity_classifier().fit(pairs, y)
    clf.calibrate_threshold(pairs, y, strategy="f_beta", beta=1)
    best_f1_score = f1_score(y, clf.predict(pairs))
    for threshold in -clf.decision_function(pairs):
        clf.set_threshold(threshold)
        assert f1_score(y, clf.predict(pairs), zero_division=0) <= best_f1_score


SCORINGS = (
    [({"strategy": "accuracy"}, accuracy_score)]
    + [({"strategy": "f_beta", "beta": 0}, partial(precision_score, zero_division=0))]
    + [({"strategy": "f_beta", "beta": b}, partial(fbeta_score, beta=b, zero_division=0))
       for b in [0.1, 0.5, 1.0]]
    + [({"strategy": "max_tpr", "min_rate": t}, partial(tpr_threshold, tnr_threshold=t))
       for t in [0.0, 0.1, 0.5, 0.8, 1.0]]
    + [({"strategy": "max_tnr", "min_rate": t}, partial(tnr_threshold, tpr_threshold=t))
       for t in [0.0, 0.1, 0.5, 0.8, 1.0]]
)
SCORING_IDS = ["-".join(str(v) for v in kw.values()) for kw, _ in SCORINGS]


def check_found_score_is_best_score(pairs, y, kwargs, scoring):
    clf = identity_classifier().fit(pairs, y)
    clf.calibrate_threshold(pairs, y, **kwargs)
    best_score = scoring(y, clf.predict(pairs))
    d = -clf.decision_function(pairs)  # the distances: metric-learn's thresholds
    candidates = np.hstack([[np.min(d) - 1], d, [np.max(d) + 1]])
    scores = []
    for threshold in candidates:
        clf.set_threshold(threshold)
        score = scoring(y, clf.predict(pairs))
        assert score <= best_score
        scores.append(score)
    # not the same score at every threshold (a hint of a bug that would pass silently)
    assert len(set(scores)) > 1


# ports: test_found_score_is_best_score
@pytest.mark.parametrize("kwargs, scoring", SCORINGS, ids=SCORING_IDS)
def test_found_score_is_best_score(kwargs, scoring):
    pairs, y = random_pairs(50)
    check_found_score_is_best_score(pairs, y, kwargs, scoring)


# ports: test_found_score_is_best_score_duplicates
@pytest.mark.parametrize("kwargs, scoring", SCORINGS, ids=SCORING_IDS)
def test_found_score_is_best_score_duplicates(kwargs, scoring):
    # the same, with duplicated pairs (hence equal scores)
    pairs, y = random_pairs(50)
    pairs[6:10] = pairs[10:14]
    y[6:10] = y[10:14]
    check_found_score_is_best_score(pairs, y, kwargs, scoring)


# ports: test_calibrate_threshold_valid_parameters (its beta < 0 cases)
# ports: test_validate_calibration_params_valid_parameters (its beta < 0 cases)
@pytest.mark.parametrize("beta", NEGATIVE_BETAS)
def test_beta_must_not_be_negative(beta):
    # differs on purpose: beta is a float in [0, inf), as scikit-learn's fbeta_score
    # takes it (a negative beta would only mean |beta|): refused, not calibrated
    pairs, y = random_pairs(20)
    clf = identity_classifier().fit(pairs, y)
    with pytest.raises(InvalidParameterError, match="The 'beta' parameter of "
                       r"PairClassifier.calibrate_threshold must be a float in the range "
                       r"\[0.0, inf\)"):
        clf.calibrate_threshold(pairs, y, strategy="f_beta", beta=beta)
    with pytest.raises(InvalidParameterError, match="The 'beta' parameter of PairClassifier "):
        identity_classifier(strategy="f_beta", beta=beta).fit(pairs, y)


# -- calibrate_threshold's parameters ------------------------------------------------

# metric-learn's invalid calibration parameters, each with our message, CALLER standing for
# the caller it names (differs on purpose: scikit-learn's parameter-validation messages)
INVALID_CALIBRATION = (
    [({"strategy": "weird"},
      "The 'strategy' parameter of CALLER must be a str among "
      "{'accuracy', 'f_beta', 'max_tnr', 'max_tpr'}. Got 'weird' instead.")]
    + [({"strategy": strategy, "min_rate": None},
        f"CALLER: strategy={strategy!r} needs min_rate, the rate it must keep (a float in "
        "[0, 1]).") for strategy in ["max_tpr", "max_tnr"]]
    + [({"strategy": strategy, "min_rate": min_rate},
        "The 'min_rate' parameter of CALLER must be a float in the range [0.0, 1.0] or "
        f"None. Got {min_rate!r} instead.")
       for strategy, min_rate in product(["max_tpr", "max_tnr"],
                                         ["weird", -0.2, 1.2, 3 + 2j])]
    + [({"strategy": "f_beta", "beta": beta},
        "The 'beta' parameter of CALLER must be a float in the range [0.0, inf). "
        f"Got {beta!r} instead.") for beta in [None, "weird", 3 + 2j]]
)
INVALID_IDS = ["-".join(str(v) for v in kw.values()) for kw, _ in INVALID_CALIBRATION]


def assert_message(error, expected):
    """``str(error) == expected``, but for the order of the options in braces: scikit-learn
    lists a StrOptions' set in its iteration order, which varies between processes."""
    def options_sorted(msg):
        return re.sub(r"\{([^{}]*)\}",
                      lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", msg)
    assert options_sorted(str(error)) == options_sorted(expected)


# ports: test_calibrate_threshold_invalid_parameters_right_error
@pytest.mark.parametrize("invalid_args, expected_msg", INVALID_CALIBRATION, ids=INVALID_IDS)
def test_calibrate_threshold_invalid_parameters_right_error(invalid_args, expected_msg):
    pairs, y = random_pairs(20)
    clf = identity_classifier().fit(pairs, y)
    with pytest.raises(ValueError) as raised_error:
        clf.calibrate_threshold(pairs, y, **invalid_args)
    assert isinstance(raised_error.value, InvalidParameterError)
    assert_message(raised_error.value,
                   expected_msg.replace("CALLER", "PairClassifier.calibrate_threshold"))


# ports: test_calibrate_threshold_valid_parameters
@pytest.mark.parametrize("valid_args", VALID_CALIBRATION)
def test_calibrate_threshold_valid_parameters(valid_args):
    pairs, y = random_pairs(20)
    clf = identity_classifier().fit(pairs, y)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        clf.calibrate_threshold(pairs, y, **valid_args)
    assert len(record) == 0


# ports: test_calibrate_threshold_extreme
def test_calibrate_threshold_extreme():
    # where all pairs should be accepted or all rejected, they are.  metric-learn's
    # MockBadPairsClassifier returns decision_function = arange(n) (scores in the reverse
    # order of the labels); here the pairs are built so that the identity learner gives
    # decision_function = k - 7 for pair k (distance 7 - k), the same order
    pairs = np.array([[[0.0], [7.0 - k]] for k in range(7)])

    def calibrated(pairs, y, **params):
        clf = identity_classifier(**params).fit(pairs, y)
        np.testing.assert_allclose(clf.decision_function(pairs), np.arange(len(y)) - 7.0)
        return clf.predict(pairs)

    y = [1, 1, 1, -1, -1, -1, -1]
    # bad scores, more negatives than positives:
    # accuracy rejects all pairs
    assert_array_equal(calibrated(pairs, y, strategy="accuracy"), -np.ones(7))
    # max_tpr with min_rate=0 accepts all (then tnr = 0)
    assert_array_equal(calibrated(pairs, y, strategy="max_tpr", min_rate=0.0), np.ones(7))
    # max_tnr with min_rate=0 rejects all (then tpr = 0)
    assert_array_equal(calibrated(pairs, y, strategy="max_tnr", min_rate=0.0), -np.ones(7))

    y = [1, 1, 1, 1, -1, -1, -1]
    # bad scores, more positives than negatives:
    # accuracy accepts all pairs
    assert_array_equal(calibrated(pairs, y, strategy="accuracy"), np.ones(7))
    assert_array_equal(calibrated(pairs, y, strategy="max_tpr", min_rate=0.0), np.ones(7))
    assert_array_equal(calibrated(pairs, y, strategy="max_tnr", min_rate=0.0), -np.ones(7))

    # alternated labels: F1 is best accepting all pairs (recall 1, precision 0.5)
    y = [1, -1, 1, -1, 1, -1]
    assert_array_equal(calibrated(pairs[:6], y, strategy="f_beta", beta=1.0), np.ones(6))


# -- _validate_calibration_params -> check_threshold_parameters ----------------------

# metric-learn checks its learners, its mock and the mixin class; ours has one rule set,
# THRESHOLD_PARAMETERS, applied by check_threshold_parameters, by the constructor (at fit)
# and by calibrate_threshold: each route is checked
ROUTES = ["check_threshold_parameters", "constructor", "calibrate_threshold"]


def validate(route, params):
    """Apply the calibration parameters ``params`` through ``route``; the caller's name
    that the messages give."""
    if route == "check_threshold_parameters":
        check_threshold_parameters("PairClassifier", **params)
        return "PairClassifier"
    pairs, y = random_pairs(20)
    if route == "constructor":
        identity_classifier(**params).fit(pairs, y)
        return "PairClassifier"
    identity_classifier().fit(pairs, y).calibrate_threshold(pairs, y, **params)
    return "PairClassifier.calibrate_threshold"


def test_threshold_parameters_are_the_constructors():
    # the calibration parameters are the constructor's, with the same rules
    assert set(THRESHOLD_PARAMETERS) == {"threshold", "strategy", "beta", "min_rate"}
    for name, rule in THRESHOLD_PARAMETERS.items():
        assert PairClassifier._parameter_constraints[name] == rule


# ports: test_validate_calibration_params_invalid_parameters_right_error
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("invalid_args, expected_msg", INVALID_CALIBRATION, ids=INVALID_IDS)
def test_validate_calibration_params_invalid_parameters_right_error(
        route, invalid_args, expected_msg):
    caller = {"calibrate_threshold": "PairClassifier.calibrate_threshold"}.get(
        route, "PairClassifier")
    with pytest.raises(ValueError) as raised_error:
        validate(route, invalid_args)
    assert isinstance(raised_error.value, InvalidParameterError)
    assert_message(raised_error.value, expected_msg.replace("CALLER", caller))


# ports: test_validate_calibration_params_valid_parameters
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("valid_args", [{}] + VALID_CALIBRATION)
def test_validate_calibration_params_valid_parameters(route, valid_args):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        validate(route, valid_args)
    assert len(record) == 0


# ports: test_validate_calibration_params_invalid_parameters_error_before__fit
@pytest.mark.parametrize("invalid_args, expected_msg", INVALID_CALIBRATION, ids=INVALID_IDS)
def test_validate_calibration_params_invalid_parameters_error_before_fit(
        invalid_args, expected_msg):
    # the calibration parameters are checked before the inner learner is fitted: the
    # parameter error, not the learner's RuntimeError
    pairs, y, _, _ = build_pairs()
    clf = PairClassifier(BreakingLearner(), **invalid_args)
    with pytest.raises(ValueError) as raised_error:
        clf.fit(pairs, y)
    assert_message(raised_error.value, expected_msg.replace("CALLER", "PairClassifier"))
    with pytest.raises(RuntimeError, match="Game over."):  # the learner does break
        PairClassifier(BreakingLearner()).fit(pairs, y)


# -- accuracy ---------------------------------------------------------------------


# ports: test_accuracy_toy_example
@pytest.mark.parametrize("estimator", PAIR_LEARNERS, ids=PAIR_IDS)
def test_accuracy_toy_example(estimator):
    pairs, y, _, X = build_pairs(with_preprocessor=False)
    estimator = clone(estimator).fit(pairs, y)
    # force the map to be the identity so that we control what it does (metric-learn sets
    # components_; ours maps through estimator_, which is replaced by an identity)
    estimator.estimator_ = FunctionTransformer().fit(X)
    # the threshold between similar and dissimilar is half the distance from X[0] to X[1]
    estimator.set_threshold(np.linalg.norm(X[0] - X[1]) / 2)
    # four regularly spaced points on the line through X[0] and X[1]
    X_test = X[0] + np.arange(4)[:, np.newaxis] * (X[0] - X[1]) / 4
    pairs_test = np.array(
        [[X_test[0], X_test[1]],  # similar
         [X_test[0], X_test[3]],  # dissimilar
         [X_test[1], X_test[2]],  # similar
         [X_test[2], X_test[3]]])  # similar
    y = np.array([-1, 1, 1, -1])  # [F, F, T, F]
    assert accuracy_score(estimator.predict(pairs_test), y) == 0.25
    assert estimator.score(pairs_test, y) == 0.25
