"""Port of metric-learn's test/test_base_metric.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's ``ITML(gamma=...)`` (on pairs) is
``PairClassifier(ITMLTransformer(slack=...))``, its ``ITML_Supervised`` is
``ITMLTransformer`` (ITML's ``gamma``, the slack trade-off, is our
``slack``; ``convergence_threshold`` / ``tol``, ``max_iter``, ``prior``,
``preprocessor``, ``random_state``, ``verbose`` keep their names).  The
string representations are scikit-learn's (only the parameters that differ
from the defaults; all of them with ``print_changed_only=False``).  The
metric learners of metric-learn's ``metric_learners`` list become ours:
``METRIC_LEARNERS`` below, every learner of the suite (linear, through
``kernel='linear'``, and not) and both classifiers on tuples.
``get_metric`` is ``MetricMixin.get_metric`` (``sklearn_bregman._learners._metric``).
metric-learn's ``n_components`` (the number of rows of ``components_``) is
our ``rank`` (the rank of the initial factor, hence of ``components_``),
on the learners that have it.  metric-learn's ``build_classification``,
``build_pairs`` and ``build_triplets`` are the ``build_*`` below (iris,
with ``pairs_from_labels`` / ``triplets_from_labels``); ``remove_y`` is
``fit_on`` below.

Not ported:

- TestStringRepr's test_covariance, test_lmnn, test_nca, test_lfda,
  test_lsml, test_sdml, test_rca, test_mlkr, test_mmc: those learners have
  no counterpart here (test_repr_of_our_learners checks the same on ours);
- test_score_pairs_warning: ``score_pairs`` (deprecated in metric-learn)
  does not exist here; ``pair_distance`` and ``pair_score`` are the names.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.utils import shuffle

from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

# a few sweeps only: these tests are about the metric surface, not about convergence
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SEED = 42


def remove_spaces(s):
    return re.sub(r"\s+", "", s)


# -- string representation and parameters (TestStringRepr) ------------------------


# ports: TestStringRepr.test_itml
def test_itml():
    # scikit-learn's repr shows the parameters that differ from the defaults
    # (metric-learn's sk_repr_kwargs for scikit-learn >= 0.22)
    assert (remove_spaces(str(PairClassifier(ITMLTransformer(slack=0.5))))
            == "PairClassifier(estimator=ITMLTransformer(slack=0.5))")
    assert remove_spaces(str(ITMLTransformer(n_constraints=7))) == (
        "ITMLTransformer(n_constraints=7)")
    # metric-learn's ITML defaults (def_kwargs) in ours: gamma=1.0 is slack=1.0, and
    # tol, max_iter, preprocessor, prior, random_state, verbose are the same; ours
    # adds what metric-learn's fit took (bounds) and the pair draw's parameters
    defaults = {"slack": 1.0, "tol": 0.001, "max_iter": 1000, "preprocessor": None,
                "prior": "identity", "random_state": None,
                # differs on purpose: verbose is a level (an int; True works as 1)
                "verbose": 0,
                # metric-learn: ITML_Supervised's n_constraints=None too
                "n_constraints": None,
                # metric-learn: fit(..., bounds=None), the 5th / 95th percentiles
                "bounds": "percentile", "epsilon": 0.25, "unlabeled": -1,
                "order": "random",
                # ours: the window of a partial_fit stream (metric-learn has no
                # partial_fit)
                "max_constraints": None}
    assert ITMLTransformer().get_params() == defaults
    with sklearn.config_context(print_changed_only=False):
        args = ",".join(f"{key}={value!r}" for key, value in sorted(defaults.items()))
        assert remove_spaces(str(ITMLTransformer())) == f"ITMLTransformer({args})"
    # the inner learner's parameters are the classifier's, prefixed estimator__ (so
    # that metric-learn's ITML(gamma=0.5) is also this set_params)
    clf = PairClassifier(ITMLTransformer()).set_params(estimator__slack=0.5)
    assert clf.get_params()["estimator__slack"] == 0.5
    assert remove_spaces(str(clf)) == "PairClassifier(estimator=ITMLTransformer(slack=0.5))"
    # and the parameters are checked at fit (scikit-learn's parameter validation)
    X, y = load_iris(return_X_y=True)
    with pytest.raises(InvalidParameterError, match="The 'slack' parameter of "
                       "ITMLTransformer must be a float in the range"):
        ITMLTransformer(slack=-0.5).fit(X, y)


REPR_CASES = [
    (LogDetKernelLearner, {"slack": 0.5}, "LogDetKernelLearner(slack=0.5)"),
    (VonNeumannKernelLearner, {"max_iter": 7}, "VonNeumannKernelLearner(max_iter=7)"),
    (DefiniteBoost, {"verbose": True}, "DefiniteBoost(verbose=True)"),
    (SKLRClusterer, {"n_clusters": 3}, "SKLRClusterer(n_clusters=3)"),
    (TripletClassifier, {"estimator": SKLRClusterer(tol=0.1)},
     "TripletClassifier(estimator=SKLRClusterer(tol=0.1))"),
    (PairClassifier, {"estimator": LogDetKernelLearner(), "threshold": -1.5},
     "PairClassifier(estimator=LogDetKernelLearner(),threshold=-1.5)"),
]


# ports: TestStringRepr (the pattern of the other learners' cases, on ours)
@pytest.mark.parametrize("cls, kwargs, expected", REPR_CASES,
                         ids=[cls.__name__ for cls, _, _ in REPR_CASES])
def test_repr_of_our_learners(cls, kwargs, expected):
    estimator = cls(**kwargs)
    assert remove_spaces(str(estimator)) == expected
    # every parameter is the constructor's argument, unchanged, or its default
    # (scikit-learn's contract, which get_params, set_params, clone and repr rely on)
    defaults = {name: p.default for name, p in inspect.signature(cls).parameters.items()}
    params = estimator.get_params(deep=False)
    assert params.keys() == defaults.keys()
    for name, value in params.items():
        assert value is kwargs.get(name, defaults[name]), name
    # with print_changed_only=False the repr shows them all
    with sklearn.config_context(print_changed_only=False):
        shown = remove_spaces(str(estimator))
    for name, value in params.items():
        if name != "estimator":
            assert remove_spaces(f"{name}={value!r}") in shown
    # and set_params / clone keep them
    again = clone(estimator).set_params(**kwargs)
    assert remove_spaces(str(again)) == expected


# -- the learners and their data (metric-learn's test_utils) -------------------------


def iris():
    return shuffle(*load_iris(return_X_y=True), random_state=SEED)


def build_classification(X=None, labels=None):
    """Iris (or ``X, labels``), shuffled: (X, y, X)."""
    X, labels = iris() if X is None else (X, labels)
    return X, labels, X


def build_pairs(X=None, labels=None):
    """Iris (or ``X, labels``) and 100 labelled pairs of it as points: (pairs, y, X)."""
    X, labels = iris() if X is None else (X, labels)
    pc = pairs_from_labels(labels, 100, random_state=SEED)
    return X[np.column_stack([pc.i, pc.j])], np.asarray(pc.sign, dtype=int), X


def build_triplets(X=None, labels=None):
    """Iris (or ``X, labels``) and 100 triplets (a closer to b than to c) as points:
    (triplets, None, X)."""
    X, labels = iris() if X is None else (X, labels)
    return X[triplets_from_labels(labels, 100, random_state=SEED)], None, X


def fit_on(model, data, labels):
    """metric-learn's remove_y: triplets are fitted without labels."""
    return model.fit(data) if labels is None else model.fit(data, labels)


METRIC_LEARNERS = [
    (ITMLTransformer(max_iter=5, random_state=SEED), build_classification),
    (LogDetKernelLearner(kernel="linear", max_iter=5, random_state=SEED),
     build_classification),
    (LogDetKernelLearner(kernel="rbf", max_iter=5, random_state=SEED), build_classification),
    (VonNeumannKernelLearner(kernel="linear", max_iter=5, random_state=SEED),
     build_classification),
    (VonNeumannKernelLearner(kernel="rbf", max_iter=5, random_state=SEED),
     build_classification),
    (DefiniteBoost(max_iter=5, random_state=SEED), build_classification),
    (SKLRClusterer(n_clusters=3, n_init=2, max_iter=5, random_state=SEED),
     build_classification),
    (PairClassifier(ITMLTransformer(max_iter=2, random_state=SEED)), build_pairs),
    (PairClassifier(LogDetKernelLearner(kernel="rbf", max_iter=2, random_state=SEED)),
     build_pairs),
    (TripletClassifier(SKLRClusterer(n_clusters=3, n_init=2, max_iter=5,
                                     random_state=SEED)), build_triplets),
    (TripletClassifier(LogDetKernelLearner(kernel="linear", max_iter=5, random_state=SEED)),
     build_triplets),
]


def learner_id(estimator):
    inner = getattr(estimator, "estimator", None)
    name = type(estimator).__name__
    if inner is not None:
        name += "-" + type(inner).__name__
        estimator = inner
    kernel = estimator.get_params().get("kernel")
    return name if kernel is None else f"{name}-{kernel}"


METRIC_IDS = [learner_id(e) for e, _ in METRIC_LEARNERS]
# the learners whose map is linear in the input: components_, get_mahalanobis_matrix
LINEAR_LEARNERS = [(e, b) for e, b in METRIC_LEARNERS
                   if hasattr(e.estimator if hasattr(e, "estimator") else e,
                              "get_mahalanobis_matrix")]
LINEAR_IDS = [learner_id(e) for e, _ in LINEAR_LEARNERS]


def test_linear_learners_are_the_expected_ones():
    # (the linear cases below are not silently empty)
    assert LINEAR_IDS == ["ITMLTransformer", "LogDetKernelLearner-linear",
                          "VonNeumannKernelLearner-linear", "DefiniteBoost-linear",
                          "PairClassifier-ITMLTransformer",
                          "TripletClassifier-LogDetKernelLearner-linear"]


# -- get_metric ---------------------------------------------------------------------


# ports: test_get_metric_is_independent_from_metric_learner
@pytest.mark.parametrize("estimator, build_dataset", METRIC_LEARNERS, ids=METRIC_IDS)
def test_get_metric_is_independent_from_metric_learner(estimator, build_dataset):
    data, labels, X = build_dataset()
    model = fit_on(clone(estimator), data, labels)
    metric = model.get_metric()
    score = metric(X[0], X[1])
    # refitted on other data, the model's distance changes, the function's does not
    fit_on(model, np.sin(data), labels)
    assert model.get_metric()(X[0], X[1]) != score
    assert metric(X[0], X[1]) == score


# ports: test_get_metric_raises_error
@pytest.mark.parametrize("estimator, build_dataset", METRIC_LEARNERS, ids=METRIC_IDS)
def test_get_metric_raises_error(estimator, build_dataset):
    # the function refuses what scipy.spatial.distance's functions refuse
    data, labels, X = build_dataset()
    metric = fit_on(clone(estimator), data, labels).get_metric()
    cases = [
        ((X[0].tolist() + [5.2], X[1]), "u has 5 features, but the estimator was fitted on 4"),
        ((X[0:4], X[1:5]), r"the metric takes two 1-D points; u has shape \(4, 4\)"),
        # (metric-learn's X[1] + [7.2] broadcasts to 4 values: the case meant two points
        # of the same, wrong, length)
        ((X[0].tolist() + [5.2], X[1].tolist() + [7.2]), "u has 5 features"),
        ((X[0], X[1].tolist() + [7.2]), "v has 5 features"),
    ]
    for (u, v), message in cases:
        with pytest.raises(ValueError, match=message):
            metric(u, v)


# ports: test_get_metric_works_does_not_raise
@pytest.mark.parametrize("estimator, build_dataset", METRIC_LEARNERS, ids=METRIC_IDS)
def test_get_metric_works_does_not_raise(estimator, build_dataset):
    data, labels, X = build_dataset()
    model = fit_on(clone(estimator), data, labels)
    metric = model.get_metric()
    expected = model.pair_distance(X[[[0, 1]]])[0]
    for u, v in [(X[0], X[1]), (X[0].tolist(), X[1].tolist()), (tuple(X[0]), tuple(X[1]))]:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            distance = metric(u, v)
            squared = metric(u, v, squared=True)
        assert len(record) == 0
        np.testing.assert_allclose(distance, expected, rtol=1e-12)
        np.testing.assert_allclose(squared, expected ** 2, rtol=1e-12)
    # differs on purpose: (1, n_features) rows are refused, as scipy.spatial.distance's
    # functions refuse them today (metric-learn's own validate_vector squeezed them)
    with pytest.raises(ValueError, match="the metric takes two 1-D points"):
        metric(X[0][None], X[1][None])


def one_feature(model):
    """The fitted learner whose map is ``components_`` (the inner one of a classifier)."""
    return model.estimator_ if hasattr(model, "estimator_") else model


# ports: test_get_metric_works_does_not_raise (its scalar case)
@pytest.mark.filterwarnings("ignore:.*above the largest squared distance:UserWarning")
@pytest.mark.parametrize("estimator, build_dataset", LINEAR_LEARNERS, ids=LINEAR_IDS)
def test_get_metric_one_feature(estimator, build_dataset):
    # metric-learn sets components_ = [3.1] on a learner fitted in 4 dimensions; ours
    # checks the points against n_features_in_, so the learner is fitted on one feature
    # (distinct values: three classes of 20 points)
    X = np.random.RandomState(SEED).permutation(60)[:, np.newaxis] / 10.0
    data, labels, _ = build_dataset(X, (X[:, 0] // 2).astype(int))
    model = fit_on(clone(estimator), data, labels)
    one_feature(model).components_ = np.array([[3.1]])
    metric = model.get_metric()
    for u, v in [([5], [6.7]), (np.array([5]), np.array([6.7])), ((5,), (6.7,))]:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            distance = metric(u, v)
        assert len(record) == 0
        assert distance == pytest.approx(3.1 * 1.7)
    # differs on purpose: scalars and (1, 1) arrays are refused, as
    # scipy.spatial.distance's functions refuse them today (metric-learn squeezed them)
    for u, v in [(5, 6.7), ([[5]], [[6.7]])]:
        with pytest.raises(ValueError, match="the metric takes two 1-D points"):
            metric(u, v)


# -- n_components -> rank -------------------------------------------------------------

RANK_LEARNERS = [
    LogDetKernelLearner(kernel="linear", max_iter=5, random_state=SEED),
    VonNeumannKernelLearner(kernel="linear", max_iter=5, random_state=SEED),
    DefiniteBoost(max_iter=5, random_state=SEED),
    PairClassifier(LogDetKernelLearner(kernel="linear", max_iter=2, random_state=SEED)),
]
RANK_IDS = [learner_id(e) for e in RANK_LEARNERS]


# ports: test_n_components
@pytest.mark.parametrize("estimator", RANK_LEARNERS, ids=RANK_IDS)
def test_n_components(estimator):
    # metric-learn's n_components is our rank: components_ has rank rows
    pairs = isinstance(estimator, PairClassifier)
    data, labels, X = build_pairs() if pairs else build_classification()
    prefix = "estimator__" if pairs else ""
    owner = type(estimator.estimator if pairs else estimator).__name__
    d = X.shape[1]

    def fitted(rank):
        model = clone(estimator).set_params(**{prefix + "rank": rank})
        return model.fit(data, labels)

    assert fitted(None).components_.shape == (d, d)
    model = fitted(d - 1)
    assert model.components_.shape == (d - 1, d)
    assert np.linalg.matrix_rank(model.get_mahalanobis_matrix()) == d - 1
    # differs on purpose: our messages (metric-learn: "Invalid n_components, must be in
    # [1, 4]" for both); rank=0 is refused by scikit-learn's parameter validation
    with pytest.raises(ValueError, match=re.escape(
            f"rank={d + 1} is larger than the data allows: at most min(n_samples, "
            f"n_features) = {d}.")):
        fitted(d + 1)
    with pytest.raises(InvalidParameterError, match=re.escape(
            f"The 'rank' parameter of {owner} must be an int in the range [1, inf) or "
            "None. Got 0 instead.")):
        fitted(0)
