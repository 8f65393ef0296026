"""Port of metric-learn's test/test_sklearn_compat.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's pair learner ``ITML(max_iter=2)`` becomes
``PairClassifier`` around ``ITMLTransformer`` or
``LogDetKernelLearner(kernel='linear')``, its triplet learner
``SCML(n_basis=320)`` ``TripletClassifier`` around ``SKLRClusterer`` or
``LogDetKernelLearner(kernel='linear')`` (the "tuple learners"); its
supervised learners (``ITML_Supervised`` and the others, ``fit(X, y)``)
become ``ITMLTransformer``, ``LogDetKernelLearner``,
``VonNeumannKernelLearner``, ``DefiniteBoost`` and ``SKLRClusterer``, which
with a ``preprocessor`` take ``X`` as a 1-D array of identifiers.
metric-learn's ``build_pairs``, ``build_triplets`` and
``build_classification`` (test_utils) are the builders below, returning the
same ``Dataset(data, target, preprocessor, to_transform)``; pairs come from
``pairs_from_labels`` (labels +1 / -1) and triplets from
``triplets_from_labels``; its ``remove_y`` is ``remove_y`` below (triplets
are fitted without labels); its ``set_random_state`` is the
``random_state=SEED`` every learner below is built with.  From its
sklearn_shims: ``_get_args(type(est).__init__)`` is ``_get_param_names()``,
``is_public_parameter`` is ``is_public`` below, ``get_scorer`` is
scikit-learn's.

Not ported:

- TestSklearnCompat (``check_estimator`` on the supervised learners): ours
  already run scikit-learn's checks with ``parametrize_with_checks`` (in
  tests/test_common.py, with every public estimator); Covariance, LFDA, LMNN, MLKR, NCA,
  LSML, MMC, RCA, SDML and SCML_Supervised have no counterpart here;
- the supervised learners *without* a preprocessor in
  test_estimators_fit_returns_self, test_pipeline_consistency,
  test_dict_unchanged, test_dont_overwrite_parameters and
  test_no_attributes_set_in_init: scikit-learn's checks of the same names
  (``check_estimators_fit_returns_self``, ``check_pipeline_consistency``,
  ``check_dict_unchanged``, ``check_dont_overwrite_parameters``,
  ``check_no_attributes_set_in_init``) already run on them; those tests run
  here on the tuple learners and on the supervised learners with a
  preprocessor (identifiers as ``X``), which scikit-learn's checks do not
  reach;
- the quadruplet learner (LSML), the pair learners MMC and SDML, and the
  regressor MLKR (``build_regression``): no counterpart;
- the ``predict_proba`` branches (``neg_log_loss``, ``brier_score``): no
  learner of ours has ``predict_proba`` (metric-learn's have none either);
- the ``n_components = 1`` of test_dict_unchanged and
  test_dont_overwrite_parameters: no learner of ours has ``n_components``
  (metric-learn's branch is skipped the same way by its ``hasattr``).
"""

from collections import namedtuple

import joblib
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import TransformerMixin, clone
from sklearn.datasets import load_iris, make_blobs
from sklearn.metrics import get_scorer
from sklearn.model_selection import (
    KFold,
    cross_val_predict,
    cross_val_score,
    train_test_split,
)
from sklearn.pipeline import make_pipeline
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
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

# a few sweeps only: these tests are about the scikit-learn API, not convergence
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SEED = 42

Dataset = namedtuple("Dataset", "data target preprocessor to_transform")


# -- builders (metric-learn's test_utils) ---------------------------------------


def iris():
    X, labels = load_iris(return_X_y=True)
    return shuffle(X, labels, random_state=SEED)


def build_pairs(with_preprocessor=False):
    """100 labelled pairs of iris (50 similar, 50 dissimilar); ``to_transform``
    is the first point of each pair."""
    X, labels = iris()
    pc = pairs_from_labels(labels, 100, random_state=SEED)
    ids = np.column_stack([pc.i, pc.j])
    y = np.asarray(pc.sign, dtype=int)
    if with_preprocessor:
        return Dataset(ids, y, X, ids[:, 0])
    return Dataset(X[ids], y, None, X[ids[:, 0]])


def build_triplets(with_preprocessor=False):
    """100 triplets of iris, ``a`` closer to ``b`` than to ``c``; ``target``
    is all ones (every comparison holds), ``to_transform`` all the points."""
    X, labels = iris()
    triplets = triplets_from_labels(labels, 100, random_state=SEED)
    y = np.ones(len(triplets))
    if with_preprocessor:
        return Dataset(triplets, y, X, np.arange(len(X)))
    return Dataset(X[triplets], y, None, X)


def build_classification(with_preprocessor=False):
    """Three blobs, 100 points; with a preprocessor, ``data`` is their
    identifiers (a 1-D array of row indices)."""
    X, y = shuffle(*make_blobs(random_state=SEED), random_state=SEED)
    indices = shuffle(np.arange(X.shape[0]), random_state=SEED)
    if with_preprocessor:
        return Dataset(indices, y[indices], X, indices)
    return Dataset(X[indices], y[indices], None, X[indices])


def mock_preprocessor(indices):
    """A preprocessor for testing purposes that returns an all ones 2-D array."""
    return np.ones((np.shape(indices)[0], 3))


PAIR_LEARNERS = [
    (PairClassifier(ITMLTransformer(max_iter=2, random_state=SEED)), build_pairs),
    (PairClassifier(LogDetKernelLearner(kernel="linear", max_iter=2, random_state=SEED)),
     build_pairs),
]
PAIR_IDS = ["Pair-ITMLTransformer", "Pair-LogDetKernelLearner-linear"]

TRIPLET_LEARNERS = [
    (TripletClassifier(SKLRClusterer(n_clusters=3, max_iter=10, n_init=1,
                                     random_state=SEED)), build_triplets),
    (TripletClassifier(LogDetKernelLearner(kernel="linear", max_iter=5, random_state=SEED)),
     build_triplets),
]
TRIPLET_IDS = ["Triplet-SKLRClusterer", "Triplet-LogDetKernelLearner-linear"]

TUPLE_LEARNERS = PAIR_LEARNERS + TRIPLET_LEARNERS
TUPLE_IDS = PAIR_IDS + TRIPLET_IDS

SUPERVISED_LEARNERS = [
    (ITMLTransformer(max_iter=5, random_state=SEED), build_classification),
    (LogDetKernelLearner(kernel="linear", max_iter=5, random_state=SEED),
     build_classification),
    (VonNeumannKernelLearner(max_iter=5, random_state=SEED), build_classification),
    (DefiniteBoost(max_iter=5, random_state=SEED), build_classification),
    (SKLRClusterer(n_clusters=3, max_iter=5, n_init=1, random_state=SEED),
     build_classification),
]
SUPERVISED_IDS = [type(est).__name__ for est, _ in SUPERVISED_LEARNERS]

METRIC_LEARNERS = TUPLE_LEARNERS + SUPERVISED_LEARNERS
METRIC_IDS = TUPLE_IDS + SUPERVISED_IDS


def cases(learners, ids, preprocessor_values=(True, False)):
    """pytest params ``(estimator, build_dataset, with_preprocessor)``."""
    return [pytest.param(est, build, wp, id=f"{name}-{'prep' if wp else 'points'}")
            for (est, build), name in zip(learners, ids) for wp in preprocessor_values]


# the tuple learners with and without a preprocessor; the supervised ones only with one
# (scikit-learn's own checks, run by parametrize_with_checks, cover them on points)
BEYOND_SKLEARN_CHECKS = (cases(TUPLE_LEARNERS, TUPLE_IDS)
                         + cases(SUPERVISED_LEARNERS, SUPERVISED_IDS, (True,)))


def remove_y(estimator, X, y):
    """``(X, y)``, or ``(X,)`` for the triplet learners (fitted without labels)."""
    if isinstance(estimator, TripletClassifier):
        return (X,)
    return (X, y)


def prepared(estimator, build_dataset, with_preprocessor):
    """The dataset, and a clone of ``estimator`` with its preprocessor."""
    dataset = build_dataset(with_preprocessor)
    estimator = clone(estimator).set_params(preprocessor=dataset.preprocessor)
    return estimator, dataset


def is_public(name):
    """scikit-learn's ``_is_public_parameter``: not a private nor a fitted attribute."""
    return not (name.startswith("_") or name.endswith("_"))


# -- array-likes -------------------------------------------------------------------


def generate_array_like(input_data, labels=None):
    """Array-like variants of ``input_data`` (list, tuple, nested tuples, a
    DataFrame for 2-D data) and of ``labels`` (list, tuple)."""
    list_data = input_data.tolist()
    input_data_changed = [input_data, list_data, tuple(list_data)]
    if input_data.ndim >= 2:
        input_data_changed.append(tuple(tuple(x) for x in list_data))
    if input_data.ndim >= 3:
        input_data_changed.append(tuple(tuple(tuple(x) for x in y) for y in list_data))
    if input_data.ndim == 2:
        input_data_changed.append(pd.DataFrame(input_data))
    if labels is not None:
        labels_changed = [labels, list(labels), tuple(labels)]
    else:
        labels_changed = [labels]
    return input_data_changed, labels_changed


# ports: test_array_like_inputs
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         cases(METRIC_LEARNERS, METRIC_IDS))
def test_array_like_inputs(estimator, build_dataset, with_preprocessor):
    """Every method that takes data takes any array-like: lists, tuples, nested
    tuples, DataFrames, and gives what the array gives."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    # a subsample, for speed
    input_data, _, labels, _ = train_test_split(dataset.data, dataset.target,
                                                train_size=40, random_state=SEED)
    X = dataset.to_transform[:10]

    input_variants, label_variants = generate_array_like(input_data, labels)
    reference = None
    for input_variant in input_variants:
        for label_variant in label_variants:
            estimator.fit(*remove_y(estimator, input_variant, label_variant))
        outputs = {}
        for method in ["predict", "predict_proba", "decision_function"]:
            if hasattr(estimator, method):
                outputs[method] = getattr(estimator, method)(input_variant)
        if hasattr(estimator, "score"):
            outputs["score"] = [estimator.score(*remove_y(estimator, input_variant, lv))
                                for lv in label_variants]
        # (beyond metric-learn, which only calls them: the same outputs as the array's)
        if reference is None:
            reference = outputs
        for method, output in outputs.items():
            assert_allclose(output, reference[method], err_msg=method)

    X_variants, _ = generate_array_like(X)
    expected = estimator.transform(X)
    for X_variant in X_variants:
        assert_allclose(estimator.transform(X_variant), expected)

    pairs = np.array([[X[0], X[1]], [X[0], X[2]]])
    pairs_variants, _ = generate_array_like(pairs)
    # every learner has both (metric-learn: pair_distance may be missing)
    expected = estimator.pair_distance(pairs)
    assert expected.shape == (2,) and (expected > 0).all()
    for pairs_variant in pairs_variants:
        assert_allclose(estimator.pair_score(pairs_variant), -expected)
        assert_allclose(estimator.pair_distance(pairs_variant), expected)


# -- scoring and cross-validation ----------------------------------------------------


def check_score_is_finite(scoring, estimator, input_data, labels):
    estimator = clone(estimator)
    assert np.isfinite(cross_val_score(estimator, input_data, labels, scoring=scoring)).all()
    estimator.fit(input_data, labels)
    assert np.isfinite(get_scorer(scoring)(estimator, input_data, labels))


# ports: test_various_scoring_on_tuples_learners
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         cases(PAIR_LEARNERS, PAIR_IDS))
def test_various_scoring_on_tuples_learners(estimator, build_dataset, with_preprocessor):
    """scikit-learn's scorers other than the default give finite scores, in
    cross-validation and on a fitted learner (pairs only: triplets have no y)."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    # scores that use predict (+1 similar / -1 dissimilar; pos_label=1 is "similar")
    for scoring in ["accuracy", "f1", "precision", "recall"]:
        check_score_is_finite(scoring, estimator, dataset.data, dataset.target)
    # scores that use decision_function (minus the learned squared distance)
    assert not hasattr(estimator, "predict_proba")
    for scoring in ["roc_auc", "average_precision"]:
        check_score_is_finite(scoring, estimator, dataset.data, dataset.target)


# ports: test_cross_validation_is_finite
@pytest.mark.parametrize("estimator, build_dataset", TUPLE_LEARNERS, ids=TUPLE_IDS)
def test_cross_validation_is_finite(estimator, build_dataset):
    estimator, dataset = prepared(estimator, build_dataset, False)
    args = remove_y(estimator, dataset.data, dataset.target)
    scores = cross_val_score(estimator, *args)
    assert scores.shape == (5,) and np.isfinite(scores).all()
    predictions = cross_val_predict(estimator, *args)
    assert predictions.shape == (len(dataset.data),)
    assert set(np.unique(predictions)) <= {-1, 1}


# the learners with predict or score: the tuple learners, and SKLRClusterer (predict)
PREDICTORS = [(est, build) for est, build in METRIC_LEARNERS
              if hasattr(est, "predict") or hasattr(est, "score")]
PREDICTOR_IDS = [name for (est, _), name in zip(METRIC_LEARNERS, METRIC_IDS)
                 if hasattr(est, "predict") or hasattr(est, "score")]


def test_predictors_are_the_expected_ones():
    # the filter above keeps what it should (metric-learn: its hasattr in each test)
    assert PREDICTOR_IDS == TUPLE_IDS + ["SKLRClusterer"]


# ports: test_cross_validation_manual_vs_scikit
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         cases(PREDICTORS, PREDICTOR_IDS))
def test_cross_validation_manual_vs_scikit(estimator, build_dataset, with_preprocessor):
    """A cross-validation by hand gives scikit-learn's (folds as KFold's)."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    input_data, labels = dataset.data, dataset.target
    n_splits = 3
    kfold = KFold(shuffle=False, n_splits=n_splits)
    n_samples = input_data.shape[0]
    fold_sizes = (n_samples // n_splits) * np.ones(n_splits, dtype=np.int64)
    fold_sizes[:n_samples % n_splits] += 1
    current = 0
    scores, predictions = [], np.zeros(n_samples)
    for fold_size in fold_sizes:
        start, stop = current, current + fold_size
        current = stop
        test_slice = slice(start, stop)
        train_mask = np.ones(n_samples, bool)
        train_mask[test_slice] = False
        y_train, y_test = labels[train_mask], labels[test_slice]
        estimator.fit(*remove_y(estimator, input_data[train_mask], y_train))
        if hasattr(estimator, "score"):
            scores.append(estimator.score(
                *remove_y(estimator, input_data[test_slice], y_test)))
        if hasattr(estimator, "predict"):
            predictions[test_slice] = estimator.predict(input_data[test_slice])
    if hasattr(estimator, "score"):
        assert_array_equal(scores, cross_val_score(
            estimator, *remove_y(estimator, input_data, labels), cv=kfold))
    if hasattr(estimator, "predict"):
        assert_array_equal(predictions, cross_val_predict(
            estimator, *remove_y(estimator, input_data, labels), cv=kfold))


# ports: test_simple_estimator
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         cases(PREDICTORS, PREDICTOR_IDS))
def test_simple_estimator(estimator, build_dataset, with_preprocessor):
    """fit, predict and score work."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    tuples_train, tuples_test, y_train, y_test = train_test_split(
        dataset.data, dataset.target, random_state=SEED)
    estimator.fit(*remove_y(estimator, tuples_train, y_train))
    if hasattr(estimator, "score"):
        assert np.isfinite(estimator.score(*remove_y(estimator, tuples_test, y_test)))
    if hasattr(estimator, "predict"):
        # (metric-learn's ``assert len(y_predicted), len(tuples)`` compared nothing)
        assert len(estimator.predict(tuples_test)) == len(tuples_test)


# -- scikit-learn's estimator rules ---------------------------------------------------


# ports: test_no_attributes_set_in_init
@pytest.mark.parametrize("preprocessor", [None, mock_preprocessor], ids=["None", "mock"])
@pytest.mark.parametrize("estimator", [est for est, _ in TUPLE_LEARNERS], ids=TUPLE_IDS)
def test_no_attributes_set_in_init(estimator, preprocessor):
    """__init__ stores its parameters, each under its own name, and nothing else."""
    # the preprocessor is given to __init__ (metric-learn's set_params after clone
    # would not reach __init__)
    params = {**estimator.get_params(deep=False), "preprocessor": preprocessor}
    estimator = type(estimator)(**params)
    init_params = set(type(estimator)._get_param_names())
    assert "preprocessor" in init_params
    invalid_attr = set(vars(estimator)) - init_params
    assert not invalid_attr, (
        f"Estimator {type(estimator).__name__} should not set any attribute apart from "
        f"parameters during init. Found attributes {sorted(invalid_attr)}.")
    invalid_attr = init_params - set(vars(estimator))
    assert not invalid_attr, (
        f"Estimator {type(estimator).__name__} should store all parameters as an "
        f"attribute during init. Did not find attributes {sorted(invalid_attr)}.")
    for name, value in params.items():
        assert vars(estimator)[name] is value


# ports: test_no_attributes_set_in_init (the supervised learners, with a preprocessor)
@pytest.mark.parametrize("estimator", [est for est, _ in SUPERVISED_LEARNERS],
                         ids=SUPERVISED_IDS)
def test_no_attributes_set_in_init_with_preprocessor(estimator):
    params = {**estimator.get_params(deep=False), "preprocessor": mock_preprocessor}
    estimator = type(estimator)(**params)
    assert set(vars(estimator)) == set(type(estimator)._get_param_names())
    assert estimator.preprocessor is mock_preprocessor


# ports: test_estimators_fit_returns_self
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         BEYOND_SKLEARN_CHECKS)
def test_estimators_fit_returns_self(estimator, build_dataset, with_preprocessor):
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    assert estimator.fit(*remove_y(estimator, dataset.data, dataset.target)) is estimator


# ports: test_pipeline_consistency
@pytest.mark.parametrize(
    "estimator, build_dataset, with_preprocessor",
    # metric-learn leaves its triplet learner out (its fit takes no y, which Pipeline
    # passes); ours takes y (+1 / -1, or None), so triplets are checked too
    cases(TUPLE_LEARNERS, TUPLE_IDS) + cases(SUPERVISED_LEARNERS, SUPERVISED_IDS, (True,)))
def test_pipeline_consistency(estimator, build_dataset, with_preprocessor):
    """make_pipeline(est) gives the same results as est."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    input_data, y = dataset.data, dataset.target
    # (metric-learn's pipeline held the very estimator it is compared with, refitted:
    # a clone, so that the two fits are independent)
    pipeline = make_pipeline(clone(estimator))
    estimator.fit(input_data, y)
    pipeline.fit(input_data, y)
    assert pipeline[-1] is not estimator

    checked = []
    if hasattr(estimator, "score"):
        assert_allclose(estimator.score(input_data, y), pipeline.score(input_data, y))
        checked.append("score")
    if hasattr(estimator, "predict"):
        assert_allclose(estimator.predict(input_data), pipeline.predict(input_data))
        checked.append("predict")
    if isinstance(estimator, TransformerMixin):
        # (points only: the supervised learners; with a preprocessor, identifiers)
        assert_allclose(estimator.transform(input_data), pipeline.transform(input_data))
        checked.append("transform")
    assert checked  # every learner here has at least one of them


def dict_fingerprint(estimator):
    """Each attribute's object, and for an array a hash of its contents (an
    in-place change counts, not only a new object).  Nested estimators by
    identity only, as scikit-learn's check_dict_unchanged (a KDTree inside
    keeps counters of its queries)."""
    return {key: (id(value), joblib.hash(value) if isinstance(value, np.ndarray) else None)
            for key, value in vars(estimator).items()}


# ports: test_dict_unchanged
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         BEYOND_SKLEARN_CHECKS)
def test_dict_unchanged(estimator, build_dataset, with_preprocessor):
    """predict, decision_function and transform leave the estimator as it is."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    estimator.fit(*remove_y(estimator, dataset.data, dataset.target))
    called = []
    for method in ["predict", "decision_function", "predict_proba"]:
        if hasattr(estimator, method):
            before = dict_fingerprint(estimator)
            getattr(estimator, method)(dataset.data)
            assert dict_fingerprint(estimator) == before, (
                f"Estimator changes __dict__ during {method}")
            called.append(method)
    if hasattr(estimator, "transform"):
        before = dict_fingerprint(estimator)
        # we transform only points (or their identifiers)
        estimator.transform(dataset.to_transform)
        assert dict_fingerprint(estimator) == before, (
            "Estimator changes __dict__ during transform")
        called.append("transform")
    assert "transform" in called


# ports: test_dont_overwrite_parameters
@pytest.mark.parametrize("estimator, build_dataset, with_preprocessor",
                         BEYOND_SKLEARN_CHECKS)
def test_dont_overwrite_parameters(estimator, build_dataset, with_preprocessor):
    """fit only adds or changes private or fitted attributes (``_x``, ``x_``)."""
    estimator, dataset = prepared(estimator, build_dataset, with_preprocessor)
    dict_before_fit = estimator.__dict__.copy()
    estimator.fit(*remove_y(estimator, dataset.data, dataset.target))
    dict_after_fit = estimator.__dict__

    public_keys_after_fit = [key for key in dict_after_fit if is_public(key)]
    attrs_added_by_fit = [key for key in public_keys_after_fit
                          if key not in dict_before_fit]
    assert not attrs_added_by_fit, (
        "Estimator adds public attribute(s) during the fit method. Estimators are only "
        "allowed to add private attributes either started with _ or ended with _ but "
        f"{', '.join(attrs_added_by_fit)} added")
    attrs_changed_by_fit = [key for key in public_keys_after_fit
                            if dict_before_fit[key] is not dict_after_fit[key]]
    assert not attrs_changed_by_fit, (
        "Estimator changes public attribute(s) during the fit method. Estimators are "
        "only allowed to change attributes started or ended with _, but "
        f"{', '.join(attrs_changed_by_fit)} changed")
    # fit did set fitted attributes (the check above is not vacuous)
    assert any(key.endswith("_") and not key.startswith("_") for key in dict_after_fit)
