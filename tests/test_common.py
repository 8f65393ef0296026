"""scikit-learn's conventions, checked on every public estimator and splitter.

``PUBLIC_ESTIMATORS`` below is the one list: every public estimator of
sklearn_bregman (a name of ``sklearn_bregman.__all__`` with ``get_params``),
with the instances it is checked on; ``CROSS_VALIDATORS`` the same for the
public splitters.  ``test_every_public_estimator_has_an_entry`` fails when a
public estimator or splitter has none.  Three kinds of entry:

- ``Features``: an estimator on feature matrices.  scikit-learn's whole
  battery runs on it (``parametrize_with_checks``, in
  ``test_sklearn_compatible``), under the entry's own warning filter and with
  its expected failures.
- ``Tuples``: a classifier whose samples are pairs, triplets or
  quadruplets of points (``PairClassifier``, ``TripletClassifier``,
  ``QuadrupletClassifier``).  scikit-learn's checks feed
  2-D feature matrices, which such a classifier cannot take: the checks that
  take no data run as they are (``test_data_free_sklearn_check``), and the
  data checks that apply to a classifier run in tuple versions below (one
  test each), on iris' pairs, triplets and quadruplets in both input forms, point tuples
  and identifier tuples into an array ``preprocessor``.
- a ``CROSS_VALIDATORS`` entry: scikit-learn's splitter conventions
  (``test_pair_kfold_*``).

A case already checked the same way elsewhere (the same check, on the same
classifier around the same learner, in the same input form) is not run here
twice: ``ELSEWHERE`` names the test that checks it, and
``test_cases_checked_elsewhere_exist`` keeps those references honest.
"""

import functools
import pickle
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import joblib
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    ShuffleSplit,
    check_cv,
    cross_val_score,
)
from sklearn.utils.estimator_checks import (
    check_do_not_raise_errors_in_init_or_set_params,
    check_estimator_cloneable,
    check_estimator_repr,
    check_estimator_tags_renamed,
    check_get_params_invariance,
    check_mixin_order,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
    check_valid_tag_types,
    parametrize_with_checks,
)
from sklearn.utils.validation import check_is_fitted

import sklearn_bregman
from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    NearestCorrelation,
    PairClassifier,
    PairKFold,
    QuadrupletClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

TESTS = Path(__file__).parent


# ---------------------------------------------------------------------------
# How the checks of an entry treat warnings
# ---------------------------------------------------------------------------

def default_warnings():
    """No filter of the entry's own: warnings as the test run sets them."""


def ignore_convergence():
    """A ConvergenceWarning is ignored: a fit of the checks may stop before
    it converges."""
    warnings.simplefilter("ignore", ConvergenceWarning)


def require_convergence():
    """A ConvergenceWarning is an error: every fit of the checks converges (a
    diverged run returns no correlation matrix, yet would pass them)."""
    warnings.simplefilter("error", ConvergenceWarning)


def require_convergence_allow_indefinite_c():
    """:func:`require_convergence`, and the UserWarning of an indefinite C is
    ignored: check_positive_only_tag_during_fit centres a kernel, an
    indefinite C, which is fitted with the documented UserWarning."""
    require_convergence()
    warnings.filterwarnings("ignore", "C is not positive semidefinite", UserWarning)


def kernel_kmeans_expected_failures(estimator):
    if estimator.kernel == "precomputed":
        # scikit-learn's check_clustering ignores the pairwise tag and fits on
        # a 50 x 2 feature matrix, which is not a kernel matrix.
        return {"check_clustering": "check_clustering passes features, not a kernel "
                                    "matrix, to a precomputed-kernel clusterer"}
    return {}


# ---------------------------------------------------------------------------
# The public estimators and splitters, and the instances they are checked on
# ---------------------------------------------------------------------------

class Features(NamedTuple):
    """An estimator on feature matrices: scikit-learn's whole battery."""

    estimator: object
    warnings: Callable[[], None] = default_warnings
    expected_failed_checks: Callable[[object], dict] | None = None


class Tuples(NamedTuple):
    """A classifier on pairs or triplets: the data-free checks of
    scikit-learn and the tuple versions of its data checks."""

    id: str
    estimator: object


PUBLIC_ESTIMATORS = {
    "CSIDecomposition": [
        Features(CSIDecomposition()),
        Features(CSIDecomposition(rank=5, random_state=0)),
        Features(CSIDecomposition(kernel="linear", kappa=0.5, delta=3, center=False,
                                  random_state=0)),
    ],
    "DefiniteBoost": [
        Features(DefiniteBoost(random_state=0), ignore_convergence),
        Features(DefiniteBoost(kernel="rbf", rank=10, selection="cyclic",
                               projection="approximate", random_state=0),
                 ignore_convergence),
        # CSI's factor as the initial one
        Features(DefiniteBoost(kernel="rbf", rank=5, low_rank="csi", n_constraints=20,
                               random_state=0), ignore_convergence),
    ],
    "ITMLTransformer": [
        # No expected failures: every scikit-learn check runs and must pass.
        Features(ITMLTransformer(random_state=0), ignore_convergence),
        Features(ITMLTransformer(slack=np.inf, order="cyclic", random_state=0),
                 ignore_convergence),
    ],
    "KernelKMeans": [
        Features(KernelKMeans(n_clusters=3, random_state=0),
                 expected_failed_checks=kernel_kmeans_expected_failures),
        Features(KernelKMeans(n_clusters=3, kernel="rbf", random_state=0),
                 expected_failed_checks=kernel_kmeans_expected_failures),
        Features(KernelKMeans(n_clusters=3, kernel="precomputed", random_state=0),
                 expected_failed_checks=kernel_kmeans_expected_failures),
    ],
    "LogDetKernelLearner": [
        Features(LogDetKernelLearner(random_state=0), ignore_convergence),
        Features(LogDetKernelLearner(kernel="rbf", rank=10, order="cyclic", random_state=0),
                 ignore_convergence),
        Features(LogDetKernelLearner(kernel="rbf", rank=10, low_rank="rpcholesky",
                                     random_state=0), ignore_convergence),
        Features(LogDetKernelLearner(kernel="precomputed", random_state=0),
                 ignore_convergence),
        # relative rows from the labels: the general-row engine (JMLR §6.2.2)
        Features(LogDetKernelLearner(kernel="rbf", rank=10, label_constraints="relative",
                                     random_state=0), ignore_convergence),
        # CSI's factor as the initial one
        Features(LogDetKernelLearner(kernel="rbf", rank=5, low_rank="csi", random_state=0),
                 ignore_convergence),
    ],
    # With input='matrix' fit takes one symmetric n x n matrix whose rows and
    # columns are the same variables: the pairwise tag says so, and the checks
    # then pass it square symmetric matrices (linear kernels of their data).
    # With input='factor' the rows of an n x r factor are the samples.  No
    # expected failures: every check runs and must pass.
    "NearestCorrelation": [
        Features(NearestCorrelation(), require_convergence_allow_indefinite_c),
        Features(NearestCorrelation(input="factor"), require_convergence_allow_indefinite_c),
        Features(NearestCorrelation("vonneumann"), require_convergence_allow_indefinite_c),
        Features(NearestCorrelation("vonneumann", input="factor", nugget=0.01),
                 require_convergence_allow_indefinite_c),
        # Qi & Sun's Newton method
        Features(NearestCorrelation("frobenius"), require_convergence),
        Features(NearestCorrelation("frobenius", eig_min=0.1), require_convergence),
    ],
    "PairClassifier": [
        Tuples("PairClassifier(ITMLTransformer)",
               PairClassifier(ITMLTransformer(random_state=0))),
        Tuples("PairClassifier(LogDetKernelLearner-rbf)",
               PairClassifier(LogDetKernelLearner(kernel="rbf", rank=5, random_state=0))),
    ],
    "QuadrupletClassifier": [
        Tuples("QuadrupletClassifier(LogDetKernelLearner-rbf)",
               QuadrupletClassifier(LogDetKernelLearner(kernel="rbf", rank=5,
                                                        random_state=0))),
        Tuples("QuadrupletClassifier(VonNeumannKernelLearner-linear)",
               QuadrupletClassifier(VonNeumannKernelLearner(random_state=0))),
    ],
    # random labels make contradicting triplets: hard SKLR warns and stops
    "SKLRClusterer": [
        Features(SKLRClusterer(n_clusters=3, random_state=0), ignore_convergence),
        Features(SKLRClusterer(n_clusters=3, kernel="rbf", slack=10.0, energy=0.9,
                               random_state=0), ignore_convergence),
    ],
    "TripletClassifier": [
        Tuples("TripletClassifier(SKLRClusterer)",
               TripletClassifier(SKLRClusterer(n_clusters=3, random_state=0))),
        Tuples("TripletClassifier(LogDetKernelLearner-rbf)",
               TripletClassifier(LogDetKernelLearner(kernel="rbf", rank=5, random_state=0))),
    ],
    "VonNeumannKernelLearner": [
        Features(VonNeumannKernelLearner(random_state=0), ignore_convergence),
        Features(VonNeumannKernelLearner(kernel="rbf", rank=10, order="cyclic",
                                         random_state=0), ignore_convergence),
    ],
}

CROSS_VALIDATORS = {
    "PairKFold": [
        PairKFold(2, random_state=0),
        PairKFold(3, random_state=0),
        PairKFold(5, shuffle=False),
    ],
}

FEATURE_CASES = [c for cases in PUBLIC_ESTIMATORS.values() for c in cases
                 if isinstance(c, Features)]
TUPLE_CASES = [c for cases in PUBLIC_ESTIMATORS.values() for c in cases
               if isinstance(c, Tuples)]
PAIR_CASES = [c for c in TUPLE_CASES if isinstance(c.estimator, PairClassifier)]
PAIR_KFOLDS = CROSS_VALIDATORS["PairKFold"]


def public_estimators():
    """The names of ``sklearn_bregman.__all__`` that are estimators."""
    return {name for name in sklearn_bregman.__all__
            if hasattr(getattr(sklearn_bregman, name), "get_params")}


def public_cross_validators():
    """The names of ``sklearn_bregman.__all__`` that are cross-validators
    (what scikit-learn's ``check_cv`` takes as one: ``split`` and
    ``get_n_splits``)."""
    return {name for name in sklearn_bregman.__all__
            if hasattr(getattr(sklearn_bregman, name), "split")
            and hasattr(getattr(sklearn_bregman, name), "get_n_splits")}


def test_every_public_estimator_has_an_entry():
    assert set(PUBLIC_ESTIMATORS) == public_estimators(), (
        "every public estimator needs an entry in PUBLIC_ESTIMATORS (and every entry "
        "a public estimator)")
    assert set(CROSS_VALIDATORS) == public_cross_validators(), (
        "every public cross-validator needs an entry in CROSS_VALIDATORS")
    for registry in (PUBLIC_ESTIMATORS, CROSS_VALIDATORS):
        for name, cases in registry.items():
            assert cases, f"{name} has no instance to check"
            for case in cases:
                est = getattr(case, "estimator", case)
                assert type(est) is getattr(sklearn_bregman, name), (name, est)
    # each estimator entry is of a kind some test below runs
    assert all(isinstance(c, (Features, Tuples))
               for cases in PUBLIC_ESTIMATORS.values() for c in cases)
    assert {type(c.estimator) for c in TUPLE_CASES} == {PairClassifier, TripletClassifier,
                                                        QuadrupletClassifier}


# ---------------------------------------------------------------------------
# Estimators on feature matrices: scikit-learn's whole battery
# ---------------------------------------------------------------------------

def feature_case(estimator):
    """The ``Features`` entry of ``estimator`` (parametrize_with_checks hands
    the checks the very instance it was given)."""
    for case in FEATURE_CASES:
        if case.estimator is estimator:
            return case
    raise LookupError(f"{estimator!r} is not an instance of FEATURE_CASES")


def expected_failed_checks(estimator):
    case = feature_case(estimator)
    return case.expected_failed_checks(estimator) if case.expected_failed_checks else {}


#: What the package says about the data of scikit-learn's checks (random
#: features with duplicate rows, random labels, a centred kernel): documented
#: UserWarnings, not failures of a check.
DATA_WARNINGS = (
    "constraints join two identical points",
    "constraints are zero in the initial kernel's range",
    "on one line through the anchor",
    "dissimilar pairs got a bound",
    "the kernel matrix has negative diagonal entries",
)


@parametrize_with_checks([case.estimator for case in FEATURE_CASES],
                         expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        for message in DATA_WARNINGS:
            warnings.filterwarnings("ignore", f".*{re.escape(message)}", UserWarning)
        feature_case(estimator).warnings()
        check(estimator)


# ---------------------------------------------------------------------------
# Classifiers on tuples
# ---------------------------------------------------------------------------

POINTS, IDENTIFIERS = "points", "identifiers"
FORMS = (POINTS, IDENTIFIERS)

# The checks of scikit-learn 1.9 that take no data (check(name, estimator)).
# PairClassifier, TripletClassifier and QuadrupletClassifier require ``estimator``:
# check_parameters_default_constructible builds them from it alone, and
# check_do_not_raise_errors_in_init_or_set_params passes junk for it, which
# init and set_params must store without complaint.
DATA_FREE_CHECKS = [
    check_estimator_cloneable,
    check_estimator_repr,
    check_no_attributes_set_in_init,
    check_get_params_invariance,
    check_set_params,
    check_do_not_raise_errors_in_init_or_set_params,
    check_parameters_default_constructible,
    check_mixin_order,
    check_valid_tag_types,
    check_estimator_tags_renamed,
]

# The cases run elsewhere, by test of this module: {test: {where: [case ids]}}.
# A case is "the same" when the same check runs on the same classifier around
# the same learner (class and kernel), in the same input form; the learners'
# iteration budgets, seeds and ranks may differ, which these checks do not
# depend on.  A test elsewhere that checks only part of what a test here does
# (another set of methods, one input form) is no reason to leave a case out.
ML = "metric_learn/test_sklearn_compat.py"
ELSEWHERE = {
    "test_data_free_sklearn_check": {
        # the same, and more: each parameter stored, under its own name, and nothing else
        f"{ML}::test_no_attributes_set_in_init": [
            "PairClassifier(ITMLTransformer)-check_no_attributes_set_in_init",
            "TripletClassifier(SKLRClusterer)-check_no_attributes_set_in_init",
        ],
    },
    "test_fit_returns_self": {
        f"{ML}::test_estimators_fit_returns_self": [
            "PairClassifier(ITMLTransformer)-points",
            "PairClassifier(ITMLTransformer)-identifiers",
            "TripletClassifier(SKLRClusterer)-points",
            "TripletClassifier(SKLRClusterer)-identifiers",
        ],
    },
    "test_unfitted_classifier_raises_not_fitted_error": {
        # (its pair version calls predict and decision_function, not score)
        "metric_learn/test_triplets_classifiers.py::test_raise_not_fitted_error_if_not_fitted": [
            "TripletClassifier(SKLRClusterer)-points",
            "TripletClassifier(SKLRClusterer)-identifiers",
        ],
    },
    "test_fit_is_idempotent": {
        "test_pairs.py::test_estimator_conventions_on_pairs": [
            "PairClassifier(LogDetKernelLearner-rbf)-identifiers",
        ],
    },
    "test_pickle_round_trip": {
        "test_pairs.py::test_every_pair_learner_fits_scores_and_pickles": [
            "PairClassifier(ITMLTransformer)-identifiers",
            "PairClassifier(LogDetKernelLearner-rbf)-identifiers",
        ],
        "test_triplets.py::test_pickle": [
            "TripletClassifier(SKLRClusterer)-points",
            "TripletClassifier(SKLRClusterer)-identifiers",
        ],
    },
    "test_decision_function_shape": {
        "test_pairs.py::test_every_pair_learner_fits_scores_and_pickles": [
            "PairClassifier(ITMLTransformer)-identifiers",
            "PairClassifier(LogDetKernelLearner-rbf)-identifiers",
        ],
    },
    "test_cross_val_score": {
        f"{ML}::test_cross_validation_is_finite": [
            "PairClassifier(ITMLTransformer)-points",
            "TripletClassifier(SKLRClusterer)-points",
        ],
        "test_tuple_classifier_inputs.py::test_cross_val_score_roc_auc_and_accuracy": [
            "PairClassifier(ITMLTransformer)-identifiers",
        ],
        "test_pairs.py::test_estimator_conventions_on_pairs": [
            "PairClassifier(LogDetKernelLearner-rbf)-identifiers",
        ],
    },
    "test_grid_search": {
        "test_pairs.py::test_grid_search_on_pairs_beats_the_euclidean_distance": [
            "PairClassifier(LogDetKernelLearner-rbf)-identifiers",
        ],
        "test_triplets.py::test_grid_search_over_an_sklr_parameter": [
            "TripletClassifier(SKLRClusterer)-identifiers",
        ],
    },
    "test_pair_kfold_in_grid_search": {
        "test_pairs.py::test_grid_search_on_new_points": [
            "PairClassifier(ITMLTransformer)-identifiers",
        ],
    },
}
# Checked elsewhere as a whole, for PairKFold: bad n_splits refused as KFold
# refuses them (tests/test_tuple_classifier_inputs.py::test_pair_kfold_n_splits),
# and a random_state with shuffle=False refused as KFold refuses it
# (test_tuple_classifier_inputs.py::test_pair_kfold_shuffle_and_random_state_as_kfold).
ELSEWHERE_AS_A_WHOLE = [
    "test_tuple_classifier_inputs.py::test_pair_kfold_n_splits",
    "test_tuple_classifier_inputs.py::test_pair_kfold_shuffle_and_random_state_as_kfold",
]


def all_params(test):
    """Every ``(case, form-or-check)`` param ``test`` is written for, by id."""
    if test == "test_data_free_sklearn_check":
        return {f"{c.id}-{check.__name__}": (c.estimator, check)
                for c in TUPLE_CASES for check in DATA_FREE_CHECKS}
    cases = PAIR_CASES if test.startswith("test_pair_kfold") else TUPLE_CASES
    return {f"{c.id}-{form}": (c.estimator, form) for c in cases for form in FORMS}


def params(test):
    """pytest params of ``test``: :func:`all_params` but those ``ELSEWHERE``
    lists for it."""
    skip = {i for ids in ELSEWHERE.get(test, {}).values() for i in ids}
    return [pytest.param(*values, id=i) for i, values in all_params(test).items()
            if i not in skip]


def defined_tests(path):
    return set(re.findall(r"^def (test_\w+)\(", path.read_text(), flags=re.MULTILINE))


def test_cases_checked_elsewhere_exist():
    here = defined_tests(Path(__file__))
    for test, places in ELSEWHERE.items():
        assert test in here, test
        known = all_params(test)
        for where, ids in places.items():
            path, name = where.split("::")
            assert name in defined_tests(TESTS / path), where
            assert set(ids) <= set(known), (test, set(ids) - set(known))
    for where in ELSEWHERE_AS_A_WHOLE:
        path, name = where.split("::")
        assert name in defined_tests(TESTS / path), where


@functools.cache
def _iris():
    return load_iris(return_X_y=True)


def tuple_data(estimator, form, n=120):
    """A clone of ``estimator`` set up for ``form``, iris' tuples in that form
    and their labels.

    Pairs: ``pairs_from_labels(y, n, random_state=0)``, labelled +1 / -1;
    triplets: ``triplets_from_labels(y, n, random_state=0)``, labels None
    (each comparison holds); quadruplets: a similar pair of those pairs
    beside a dissimilar one (``n`` of them, labels None).  Point tuples are
    ``(n, t, 4)`` arrays of iris' rows; identifier tuples ``(n, t)`` indices
    into iris, the ``preprocessor``.
    """
    X, labels = (a.copy() for a in _iris())
    if isinstance(estimator, PairClassifier):
        pc = pairs_from_labels(labels, n, random_state=0)
        ids, y = np.column_stack([pc.i, pc.j]), pc.sign
    elif isinstance(estimator, QuadrupletClassifier):
        pc = pairs_from_labels(labels, 4 * n, random_state=0)
        pairs = np.column_stack([pc.i, pc.j])
        ids, y = np.hstack([pairs[pc.sign > 0][:n], pairs[pc.sign < 0][:n]]), None
    else:
        ids, y = triplets_from_labels(labels, n, random_state=0), None
    if form == POINTS:
        return clone(estimator).set_params(preprocessor=None), X[ids], y
    return clone(estimator).set_params(preprocessor=X), ids, y


def points_data(form):
    """What ``transform`` of a fitted tuple classifier takes in ``form``:
    iris' rows, or (with the array preprocessor) their identifiers."""
    X, _ = _iris()
    return X.copy() if form == POINTS else np.arange(X.shape[0])


def subset(y, index):
    return None if y is None else y[index]


@pytest.mark.parametrize("estimator, check", params("test_data_free_sklearn_check"))
def test_data_free_sklearn_check(estimator, check):
    check(type(estimator).__name__, estimator)


# The tuple versions of scikit-learn's data checks that apply to a classifier
# (its name in brackets).  Not carried over: the checks of feature matrices
# as such (dtypes, sparse, NaN / inf, 1-D and one-feature X, pandas, memmaps),
# of sample weights, class weights, multi-output and multi-label targets
# (a tuple classifier has two classes and no sample_weight in fit), and
# check_classifiers_train's accuracy bar; bad tuples and labels are
# tests/test_tuple_classifier_inputs.py's, array-likes and pipelines
# tests/metric_learn/test_sklearn_compat.py's.

# [check_estimators_fit_returns_self]
@pytest.mark.parametrize("estimator, form", params("test_fit_returns_self"))
def test_fit_returns_self(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    assert est.fit(tuples, y) is est


# [check_estimators_unfitted]
@pytest.mark.parametrize("estimator, form",
                         params("test_unfitted_classifier_raises_not_fitted_error"))
def test_unfitted_classifier_raises_not_fitted_error(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    with pytest.raises(NotFittedError):
        est.predict(tuples)
    with pytest.raises(NotFittedError):
        est.decision_function(tuples)
    with pytest.raises(NotFittedError):
        est.score(tuples, y)


# [check_fit_idempotent]
@pytest.mark.parametrize("estimator, form", params("test_fit_is_idempotent"))
def test_fit_is_idempotent(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    train, test = next(ShuffleSplit(test_size=0.25, random_state=0).split(tuples))
    est.fit(tuples[train], subset(y, train))
    first = est.decision_function(tuples[test]), est.predict(tuples[test])
    est.fit(tuples[train], subset(y, train))
    # scikit-learn's tolerances
    assert_allclose(est.decision_function(tuples[test]), first[0], rtol=1e-7, atol=1e-9)
    assert_array_equal(est.predict(tuples[test]), first[1])


# [check_estimators_overwrite_params]
@pytest.mark.parametrize("estimator, form", params("test_fit_does_not_change_the_parameters"))
def test_fit_does_not_change_the_parameters(estimator, form):
    # joblib.hash looks into each value: the inner estimator, which fit must
    # clone rather than fit, and the preprocessor's array, which fit must not write
    est, tuples, y = tuple_data(estimator, form)
    before = {name: joblib.hash(value) for name, value in est.get_params().items()}
    est.fit(tuples, y)
    after = {name: joblib.hash(value) for name, value in est.get_params().items()}
    assert after == before


def same_value(a, b):
    """``a == b`` as a dict comparison takes it: the same object, or equal
    (two arrays are neither: their ``==`` has no truth value)."""
    return a is b or (not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray)
                      and bool(a == b))


# [check_dict_unchanged]
@pytest.mark.parametrize("estimator, form", params("test_methods_leave_the_estimator_unchanged"))
def test_methods_leave_the_estimator_unchanged(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    est.fit(tuples, y)
    calls = {"predict": lambda: est.predict(tuples),
             "decision_function": lambda: est.decision_function(tuples),
             "score": lambda: est.score(tuples, y)}
    for method, call in calls.items():
        before = est.__dict__.copy()
        call()
        after = est.__dict__
        # scikit-learn's comparison, ``after == before``: the same objects, or
        # equal ones (not the objects' contents: SKLR's nearest-neighbour tree
        # counts its queries)
        changed = [key for key in before.keys() | after.keys()
                   if key not in before or key not in after
                   or not same_value(after[key], before[key])]
        assert not changed, f"Estimator changes __dict__ during {method}: {sorted(changed)}"


# [check_estimators_pickle]
@pytest.mark.parametrize("estimator, form", params("test_pickle_round_trip"))
def test_pickle_round_trip(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    est.fit(tuples, y)
    again = pickle.loads(pickle.dumps(est))
    assert_allclose(again.decision_function(tuples), est.decision_function(tuples))
    assert_array_equal(again.predict(tuples), est.predict(tuples))


# [check_methods_subset_invariance]
@pytest.mark.parametrize("estimator, form", params("test_methods_subset_invariance"))
def test_methods_subset_invariance(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    est.fit(tuples, y)
    points = points_data(form)
    for method, data in [("predict", tuples), ("decision_function", tuples),
                         ("transform", points)]:
        func = getattr(est, method)
        by_one = np.concatenate([func(data[k:k + 1]) for k in range(len(data))])
        assert_allclose(by_one, func(data), atol=1e-7,
                        err_msg=f"{method} is not invariant when applied to a subset")


# [check_methods_sample_order_invariance]
@pytest.mark.parametrize("estimator, form",
                         params("test_methods_sample_order_invariance"))
def test_methods_sample_order_invariance(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    est.fit(tuples, y)
    points = points_data(form)
    rng = np.random.RandomState(0)
    for method, data in [("predict", tuples), ("decision_function", tuples),
                         ("transform", points)]:
        func, order = getattr(est, method), rng.permutation(len(data))
        assert_allclose(func(data)[order], func(data[order]), atol=1e-9,
                        err_msg=f"{method} depends on the order of the samples")


# [check_fit_check_is_fitted, and clone's contract]
@pytest.mark.parametrize("estimator, form", params("test_clone_of_a_fitted_classifier_is_unfitted"))
def test_clone_of_a_fitted_classifier_is_unfitted(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    est.fit(tuples, y)
    check_is_fitted(est)
    fresh = clone(est)
    with pytest.raises(NotFittedError):
        check_is_fitted(fresh)
    with pytest.raises(NotFittedError):
        check_is_fitted(fresh.estimator)  # nor is the learner it wraps
    with pytest.raises(NotFittedError):
        fresh.decision_function(tuples)
    assert joblib.hash(fresh.get_params()) == joblib.hash(est.get_params())


# [check_n_features_in]
@pytest.mark.parametrize("estimator, form", params("test_n_features_in_is_set_by_fit"))
def test_n_features_in_is_set_by_fit(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    assert not hasattr(est, "n_features_in_")
    est.fit(tuples, y)
    assert est.n_features_in_ == _iris()[0].shape[1]


# [check_classifiers_train: predictions among classes_]
@pytest.mark.parametrize("estimator, form", params("test_predictions_are_among_classes"))
def test_predictions_are_among_classes(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    est.fit(tuples, y)
    assert_array_equal(est.classes_, [-1, 1])
    pred = est.predict(tuples)
    assert pred.shape == (len(tuples),)
    assert set(np.unique(pred)) <= set(est.classes_)


# [check_classifiers_train: the shape of decision_function]
@pytest.mark.parametrize("estimator, form", params("test_decision_function_shape"))
def test_decision_function_shape(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    est.fit(tuples, y)
    scores = est.decision_function(tuples)
    assert scores.shape == (len(tuples),) and scores.dtype.kind == "f"
    assert np.isfinite(scores).all()


# [scikit-learn's model selection]
@pytest.mark.parametrize("estimator, form", params("test_cross_val_score"))
def test_cross_val_score(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    scores = cross_val_score(est, tuples, y, cv=3, error_score="raise")
    assert scores.shape == (3,) and ((scores >= 0) & (scores <= 1)).all()


@pytest.mark.parametrize("estimator, form", params("test_grid_search"))
def test_grid_search(estimator, form):
    est, tuples, y = tuple_data(estimator, form)
    grid = {"estimator__slack": [1.0, 10.0]}
    search = GridSearchCV(est, grid, cv=3, error_score="raise").fit(tuples, y)
    assert search.best_params_["estimator__slack"] in grid["estimator__slack"]
    assert type(search.best_estimator_) is type(est)
    assert search.best_estimator_.estimator_.slack == search.best_params_["estimator__slack"]
    assert search.predict(tuples).shape == (len(tuples),)


# ---------------------------------------------------------------------------
# PairKFold: scikit-learn's splitter conventions
# ---------------------------------------------------------------------------

# PairKFold deals the *points* into n_splits folds: fold k's test pairs are
# those with both points in fold k, its training pairs those with neither,
# and a pair with one point on each side is in neither set of that split.
# So KFold's "every sample in exactly one test fold" holds for the points,
# not for the pairs: a pair across two folds is tested in no split.  The
# splits are read against the folds of the points, which probes show: a
# pair (p, p) has both points in p's fold, and so lands in the test set of
# that fold and no other.

def split_data(form, n=120):
    """iris' labelled pairs, then one probe (p, p) for each of iris' rows,
    in ``form``; the index of the first probe, and each pair's row ids."""
    X, labels = _iris()
    pc = pairs_from_labels(labels, n, random_state=0)
    ids = np.vstack([np.column_stack([pc.i, pc.j]),
                     np.repeat(np.arange(len(X))[:, None], 2, axis=1)])
    return (X[ids] if form == POINTS else ids), n, ids


def splitter_id(cv):
    return repr(cv)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("cv", PAIR_KFOLDS, ids=splitter_id)
def test_pair_kfold_get_n_splits_counts_the_splits(cv, form):
    pairs, _, _ = split_data(form)
    assert cv.get_n_splits() == cv.get_n_splits(pairs) == len(list(cv.split(pairs)))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("cv", PAIR_KFOLDS, ids=splitter_id)
def test_pair_kfold_splits(cv, form):
    pairs, first_probe, ids = split_data(form)
    n = len(pairs)
    splits = list(cv.split(pairs))
    tested = np.zeros(n, int)
    for train, test in splits:
        for part in (train, test):
            assert part.ndim == 1 and part.dtype.kind == "i"
            assert np.unique(part).size == part.size and ((part >= 0) & (part < n)).all()
        assert not set(train) & set(test)
        tested[test] += 1
    # each point in exactly one fold (its probe tested once), each pair at most once
    assert (tested[first_probe:] == 1).all() and tested.max() == 1
    fold_of = np.empty(ids.max() + 1, int)  # the fold of each of iris' rows
    for k, (_, test) in enumerate(splits):
        probes = test[test >= first_probe]
        fold_of[ids[probes, 0]] = k
    folds = fold_of[ids]  # each pair's two folds
    for k, (train, test) in enumerate(splits):
        assert_array_equal(np.sort(test), np.flatnonzero((folds == k).all(1)))
        assert_array_equal(np.sort(train), np.flatnonzero((folds != k).all(1)))
        # no point of a test pair is in a training pair
        assert not set(ids[test].ravel()) & set(ids[train].ravel())
    across = folds[:, 0] != folds[:, 1]
    assert_array_equal(tested == 0, across)
    if form == POINTS:
        # identical rows are one point (iris repeats a few): in one fold
        _, point = np.unique(_iris()[0], axis=0, return_inverse=True)
        for p in np.unique(point):
            assert np.unique(fold_of[point == p]).size == 1


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("cv", PAIR_KFOLDS, ids=splitter_id)
def test_pair_kfold_is_repeatable(cv, form):
    pairs, first_probe, ids = split_data(form)

    def splits(cv):
        return [(train.tolist(), test.tolist()) for train, test in cv.split(pairs)]

    assert splits(cv) == splits(cv)
    rebuilt = PairKFold(cv.n_splits, shuffle=cv.shuffle, random_state=cv.random_state)
    assert splits(rebuilt) == splits(cv)
    if cv.shuffle:
        # an int random_state fixes the dealing; another seed deals otherwise
        assert splits(PairKFold(cv.n_splits, random_state=cv.random_state + 1)) != splits(cv)
    else:
        # in index order: the r-th point in fold r % n_splits (points are
        # numbered by identifier, or as point pairs by np.unique of the rows)
        X = _iris()[0]
        rank = (np.arange(len(X)) if form == IDENTIFIERS
                else np.unique(X, axis=0, return_inverse=True)[1])
        for k, (_, test) in enumerate(cv.split(pairs)):
            probed = ids[test[test >= first_probe], 0]
            assert probed.size and (rank[probed] % cv.n_splits == k).all()


@pytest.mark.parametrize("cv", PAIR_KFOLDS, ids=splitter_id)
def test_pair_kfold_repr_and_check_cv(cv):
    # KFold's repr, PairKFold's name: every parameter, by name, sorted
    expected = repr(KFold(cv.n_splits, shuffle=cv.shuffle, random_state=cv.random_state))
    assert repr(cv) == "Pair" + expected
    again = eval(repr(cv), {"PairKFold": PairKFold})
    pairs, _, _ = split_data(IDENTIFIERS)
    assert [t.tolist() for _, t in again.split(pairs)] == [t.tolist() for _, t in cv.split(pairs)]
    # scikit-learn's model selection takes it as it is
    assert check_cv(cv) is cv
    assert check_cv(cv, np.ones(10), classifier=True) is cv


def test_pair_kfold_refuses_more_folds_than_points():
    # as KFold refuses more folds than samples
    pairs = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError):
        next(KFold(4).split(np.arange(3)))
    with pytest.raises(ValueError, match="3 points cannot fill 4 folds"):
        next(PairKFold(4).split(pairs))
    with pytest.raises(ValueError):
        next(PairKFold(4).split(np.zeros((2, 2, 5)) + pairs[:, :, None]))


@pytest.mark.parametrize("estimator, form", params("test_pair_kfold_in_cross_val_score"))
def test_pair_kfold_in_cross_val_score(estimator, form):
    est, pairs, y = tuple_data(estimator, form)
    cv = PairKFold(3, random_state=0)
    scores = cross_val_score(est, pairs, y, cv=cv, error_score="raise")
    by_hand = [clone(est).fit(pairs[train], y[train]).score(pairs[test], y[test])
               for train, test in cv.split(pairs)]
    assert_allclose(scores, by_hand)


@pytest.mark.parametrize("estimator, form", params("test_pair_kfold_in_grid_search"))
def test_pair_kfold_in_grid_search(estimator, form):
    est, pairs, y = tuple_data(estimator, form)
    grid = {"estimator__slack": [1.0, 10.0]}
    search = GridSearchCV(est, grid, cv=PairKFold(3, random_state=0),
                          error_score="raise").fit(pairs, y)
    assert search.n_splits_ == 3
    assert search.best_params_["estimator__slack"] in grid["estimator__slack"]
    assert search.predict(pairs).shape == (len(pairs),)
