"""Every warning the package raises points at the user's line.

One helper (``_utils/_warnings.warn``) places them: the first frame outside
the package and outside the scikit-learn and joblib wrappers that call it on
the user's behalf.  Each case below triggers one warning of the package from
a line of this file (directly, through a ``Pipeline``, a ``GridSearchCV``, a
meta-estimator, a generator wrapped by ``validate_params``) and checks the
file the warning names.
"""

import ast
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

import sklearn_bregman
from sklearn_bregman import (
    CSIDecomposition,
    DefiniteBoost,
    ITMLTransformer,
    KernelKMeans,
    LogDetKernelLearner,
    NearestCorrelation,
    PairClassifier,
    QuadrupletClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman._utils._warnings import SklearnBregmanWarning, find_stack_level, warn
from sklearn_bregman.constraints import (
    PairConstraints,
    RelativeConstraints,
    pairs_from_labels,
    triplets_from_labels,
)

X, Y = load_iris(return_X_y=True)
PACKAGE = Path(sklearn_bregman.__file__).parent


def _duplicated(j=None):
    """X with row 1 a copy of row 0 (and row ``j`` one of row ``j - 1``)."""
    Xd = X.copy()
    Xd[1] = Xd[0]
    if j is not None:
        Xd[j] = Xd[j - 1]
    return Xd


def _indefinite():
    C = np.array([[1.0, 0.9, 0.7], [0.9, 1.0, 0.3], [0.7, 0.3, 1.0]])
    return C


def _quadruplets():
    """A similar pair of iris beside a dissimilar one, 30 times."""
    pc = pairs_from_labels(Y, 200, random_state=0)
    pairs = np.column_stack([pc.i, pc.j])
    return np.hstack([pairs[pc.sign > 0][:30], pairs[pc.sign < 0][:30]])


def _binary_pm1():
    return np.where(Y[:100] == 0, -1, 1)


def _one_class_left(call):
    """``call`` warns, then refuses the one class left (-1 is unlabeled)."""
    def run():
        with pytest.raises(ValueError, match="one class"):
            call()
    return run


#: name -> (a call from this file that warns, the category, a part of the message)
CASES = {
    "labels -1 / +1 in a generator": (
        _one_class_left(lambda: pairs_from_labels(_binary_pm1(), 20, random_state=0)),
        UserWarning, "unlabeled=None"),
    "labels -1 / +1 in fit": (
        _one_class_left(lambda: ITMLTransformer(random_state=0).fit(X[:100], _binary_pm1())),
        UserWarning, "unlabeled=None"),
    "labels -1 / +1 in a relative draw": (
        _one_class_left(lambda: LogDetKernelLearner(
            label_constraints="relative", n_constraints=20, random_state=0).fit(
            X[:100], _binary_pm1())),
        UserWarning, "unlabeled=None"),
    "labels -1 / +1 in triplets_from_labels": (
        _one_class_left(lambda: triplets_from_labels(_binary_pm1(), 20, random_state=0)),
        UserWarning, "unlabeled=None"),
    "a column vector y": (
        lambda: ITMLTransformer(random_state=0).fit(X, Y.reshape(-1, 1)),
        DataConversionWarning, "column-vector y"),
    "zero-length pairs, ITML": (
        lambda: ITMLTransformer(random_state=0).fit(
            _duplicated(), constraints=PairConstraints([0, 2], [1, 3], [1, 1])),
        UserWarning, "join two identical points"),
    "zero-length pairs, von Neumann": (
        lambda: VonNeumannKernelLearner(random_state=0).fit(
            _duplicated(), constraints=PairConstraints([0, 2], [1, 3], [1, 1])),
        UserWarning, "join two identical points"),
    "zero-length pairs, DefiniteBoost": (
        lambda: DefiniteBoost(random_state=0).fit(
            _duplicated(), constraints=PairConstraints([0, 2], [1, 60], [1, -1])),
        UserWarning, "join two identical points"),
    "rows zero in the range": (
        lambda: LogDetKernelLearner(random_state=0).fit(
            _duplicated(3), constraints=RelativeConstraints([0, 5], [1, 6], [2, 5], [3, 70])),
        UserWarning, "zero in the initial kernel's range"),
    "quadruplets zero in the range": (
        # rows 0 and 1 are one point: d(0, 2) <= d(1, 2) is no constraint
        lambda: LogDetKernelLearner(ratio=1.0, random_state=0).fit(
            _duplicated(), quadruplets=[[0, 2, 1, 2], [3, 4, 5, 60]]),
        UserWarning, "zero in the initial kernel's range"),
    "max_iter reached through QuadrupletClassifier": (
        lambda: QuadrupletClassifier(LogDetKernelLearner(slack=np.inf, max_iter=1,
                                                         random_state=0),
                                     preprocessor=X).fit(_quadruplets()),
        ConvergenceWarning, "did not converge in max_iter=1"),
    "degenerate SKLR triplets": (
        lambda: SKLRClusterer(3, random_state=0).fit(_duplicated(),
                                                     triplets=[[0, 1, 60], [2, 3, 70]]),
        UserWarning, "on one line through the anchor"),
    "max_iter reached": (
        lambda: ITMLTransformer(slack=np.inf, max_iter=1, random_state=0).fit(X, Y),
        ConvergenceWarning, "did not converge in max_iter=1"),
    "a fixed row out of reach": (
        lambda: ITMLTransformer(slack=np.inf, random_state=0).fit(
            _duplicated(), constraints=PairConstraints([0, 2], [1, 3], [-1, 1], [4.0, 9.0])),
        ConvergenceWarning, "cannot be met by any kernel"),
    "an indefinite C": (
        lambda: NearestCorrelation().fit(_indefinite()),
        UserWarning, "C is not positive semidefinite"),
    "Frobenius max_iter": (
        lambda: NearestCorrelation("frobenius", max_iter=1, tol=1e-15).fit(
            np.corrcoef(X.T) * 2 - np.eye(4)),
        ConvergenceWarning, "did not converge"),
    "a precomputed kernel with a negative diagonal": (
        lambda: KernelKMeans(2, kernel="precomputed", random_state=0).fit(
            np.diag([1.0, 1.0, -1.0, 2.0, 3.0])),
        UserWarning, "negative diagonal"),
    "k-means on duplicate points": (
        lambda: KernelKMeans(3, random_state=0).fit(np.repeat([[0.0, 1.0], [1.0, 0.0]], 5, 0)),
        ConvergenceWarning, "Number of distinct clusters (2) found smaller"),
    "DefiniteBoost of rank one": (
        lambda: DefiniteBoost(random_state=0).fit(
            np.array([[0.0], [1.0], [2.0], [3.0]]),
            constraints=PairConstraints([0], [3], [1], [1e-4])),
        ConvergenceWarning, "rank one"),
}


def _record(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_warning_points_at_the_users_line(case):
    call, category, text = CASES[case]
    caught = [w for w in _record(call) if issubclass(w.category, SklearnBregmanWarning)]
    mine = [w for w in caught if text in str(w.message)]
    assert mine, [str(w.message) for w in caught]
    for w in caught:
        assert w.filename == __file__, (str(w.message), w.filename, w.lineno)
    assert any(issubclass(w.category, category) for w in mine)


def test_through_a_pipeline_a_grid_search_and_a_meta_estimator():
    pipe = Pipeline([("itml", ITMLTransformer(slack=np.inf, max_iter=1, random_state=0))])
    search = GridSearchCV(pipe, {"itml__tol": [1e-3]}, cv=2, n_jobs=1, scoring=None,
                          error_score="raise")
    pc = pairs_from_labels(Y, 60, random_state=0)
    pairs = np.column_stack([pc.i, pc.j])
    clf = PairClassifier(ITMLTransformer(slack=np.inf, max_iter=1, random_state=0),
                         preprocessor=X)
    for call in (lambda: pipe.fit(X, Y),
                 lambda: clf.fit(pairs, pc.sign),
                 lambda: clf.partial_fit(pairs, pc.sign)):
        caught = [w for w in _record(call) if issubclass(w.category, ConvergenceWarning)]
        assert caught and all(w.filename == __file__ for w in caught)
    # GridSearchCV scores with the transformer's last step: none here; fit the
    # search on a scorer-free refit instead
    search = GridSearchCV(pipe, {"itml__tol": [1e-3]}, cv=2, n_jobs=1,
                          scoring=lambda est, X_, y_: 0.0, error_score="raise")
    caught = [w for w in _record(lambda: search.fit(X, Y))
              if issubclass(w.category, ConvergenceWarning)]
    assert caught and all(w.filename == __file__ for w in caught)


def test_the_package_warnings_are_of_their_category_and_of_the_package_class():
    with pytest.warns(ConvergenceWarning) as record:
        warn("message", ConvergenceWarning)
    (w,) = record
    assert issubclass(w.category, ConvergenceWarning)
    assert issubclass(w.category, SklearnBregmanWarning)
    assert w.filename == __file__
    # one class per category: warnings' registries key on it
    with pytest.warns(ConvergenceWarning) as again:
        warn("message", ConvergenceWarning)
    assert again[0].category is w.category
    with pytest.warns(UserWarning) as record:
        warn("plain")
    assert issubclass(record[0].category, SklearnBregmanWarning)


def test_find_stack_level_counts_to_the_first_outside_frame():
    # called from this file (outside the package), the caller is the user
    assert find_stack_level() == 1


def _calls(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if called == name:
                yield node


def test_no_stacklevel_is_counted_by_hand():
    """Only the helper passes ``stacklevel`` or calls ``warnings.warn``."""
    helper = PACKAGE / "_utils" / "_warnings.py"
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path == helper:
            continue
        text = path.read_text()
        tree = ast.parse(text)
        offenders += [f"{path.relative_to(PACKAGE)}:{n.lineno} warnings.warn"
                      for n in _calls(tree, "warn")
                      if isinstance(n.func, ast.Attribute)
                      and getattr(n.func.value, "id", None) == "warnings"]
        offenders += [f"{path.relative_to(PACKAGE)}:{n.lineno} stacklevel"
                      for n in ast.walk(tree) if isinstance(n, ast.keyword)
                      and n.arg == "stacklevel"]
        offenders += [f"{path.relative_to(PACKAGE)}: a parameter named stacklevel"
                      for n in ast.walk(tree) if isinstance(n, ast.arg)
                      and n.arg == "stacklevel"]
    assert not offenders


# -- scikit-learn's feature-name check ------------------------------------------------


def _frame(A, columns=("a", "b", "c", "d")):
    import pandas as pd

    return pd.DataFrame(A, columns=list(columns))


def _sklearn_message(fit_on, call_on, name):
    """scikit-learn's own message for the mismatch (the oracle), from its
    StandardScaler, with ``name`` in place of the class."""
    from sklearn.preprocessing import StandardScaler

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        StandardScaler().fit(fit_on).transform(call_on)
    (w,) = caught
    return str(w.message).replace("StandardScaler", name)


def _name_warnings(caught):
    return [w for w in caught if "feature names" in str(w.message)]


NAMED = {
    "ITMLTransformer": lambda: ITMLTransformer(n_constraints=40, random_state=0),
    "LogDetKernelLearner": lambda: LogDetKernelLearner(kernel="rbf", rank=6,
                                                       n_constraints=40, random_state=0),
    "VonNeumannKernelLearner": lambda: VonNeumannKernelLearner(kernel="rbf", rank=6,
                                                               n_constraints=40,
                                                               random_state=0),
    "DefiniteBoost": lambda: DefiniteBoost(kernel="rbf", rank=6, n_constraints=40,
                                           random_state=0),
    "SKLRClusterer": lambda: SKLRClusterer(3, n_triplets=30, n_init=1, random_state=0),
    "CSIDecomposition": lambda: CSIDecomposition(rank=3, random_state=0),
    "KernelKMeans": lambda: KernelKMeans(3, n_init=1, random_state=0),
}


def _fitted_quietly(name, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NAMED[name]().fit(data, Y)


@pytest.mark.parametrize("name", sorted(NAMED))
def test_the_feature_name_warnings_point_at_the_users_line(name):
    """scikit-learn's "X does not have valid feature names, but ... was fitted
    with feature names" (and the reverse) came from
    sklearn/utils/validation.py: now from the user's line, in scikit-learn's
    words (the oracle: its StandardScaler's), a UserWarning that a filter on
    the message still catches."""
    pytest.importorskip("pandas")
    df = _frame(X)
    for fit_on, call_on in ((df, X[:5]), (X, df[:5])):
        est = _fitted_quietly(name, fit_on)
        method = est.transform if hasattr(est, "transform") else est.predict
        caught = _name_warnings(_record(lambda m=method, c=call_on: m(c)))
        assert len(caught) == 1, [str(w.message) for w in caught]
        (w,) = caught
        assert str(w.message) == _sklearn_message(fit_on, call_on, name)
        assert w.filename == __file__, (w.filename, w.lineno)
        assert issubclass(w.category, UserWarning)
        with warnings.catch_warnings(record=True) as quiet:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", message="X (does not have valid|has) feature "
                                    "names", category=UserWarning)
            method(call_on)
        assert not _name_warnings(quiet)
    # matching names, and no names on either side: no warning
    est = _fitted_quietly(name, df)
    method = est.transform if hasattr(est, "transform") else est.predict
    assert not _name_warnings(_record(lambda: method(df[:5])))


@pytest.mark.parametrize("name", ["ITMLTransformer", "LogDetKernelLearner",
                                  "VonNeumannKernelLearner", "DefiniteBoost",
                                  "SKLRClusterer"])
def test_the_metric_surface_checks_no_names_on_rows_it_forms(name):
    """``pair_distance`` on a 3-D array of point pairs warned "X does not have
    valid feature names" about an X the user never passed (the pairs
    reshaped to rows), which no 3-D array can avoid: the names check is for
    the user's own X."""
    pytest.importorskip("pandas")
    est = _fitted_quietly(name, _frame(X))
    P = np.stack([X[:6], X[6:12]], axis=1)
    for call in (lambda: est.pair_distance(P), lambda: est.pair_score(P),
                 lambda: est.get_metric()(X[0], X[1])):
        assert not _name_warnings(_record(call))
    # the user's own X is still checked, after a tuple call as before it
    caught = _name_warnings(_record(lambda: est.transform(X[:3])))
    assert len(caught) == 1 and caught[0].filename == __file__


def _tuple_classifiers():
    pc = pairs_from_labels(Y, 60, random_state=0)
    pairs, signs = np.column_stack([pc.i, pc.j]), pc.sign
    triplets = np.asarray(triplets_from_labels(Y, 40, random_state=0))
    return [
        (PairClassifier, lambda: ITMLTransformer(random_state=0), pairs, signs),
        (TripletClassifier, lambda: LogDetKernelLearner(kernel="linear", random_state=0),
         triplets, None),
        (QuadrupletClassifier, lambda: LogDetKernelLearner(kernel="linear", random_state=0),
         _quadruplets(), None),
    ]


@pytest.mark.parametrize("index", [0, 1, 2], ids=["pairs", "triplets", "quadruplets"])
def test_a_dataframe_preprocessor_gives_its_feature_names(index):
    """PairClassifier(..., preprocessor=DataFrame) then transform(df) warned
    "X has feature names, but ITMLTransformer was fitted without feature
    names" from validation.py: the frame's rows were fitted as an array.
    Now, as scikit-learn sets ``feature_names_in_`` from the data that
    carries the features at fit (here the preprocessor, the tuples being
    identifiers into it), the learner is fitted on the frame: it and the
    classifier have its names, ``transform`` of the frame (or of
    identifiers) is quiet, an ndarray warns at the user's line, other names
    are scikit-learn's ValueError. The model is the array preprocessor's,
    bitwise. Tuple methods (point tuples or identifiers) never warn."""
    pytest.importorskip("pandas")
    cls, learner, tuples, labels = _tuple_classifiers()[index]
    df = _frame(X)

    def fit(preprocessor):
        clf = cls(learner(), preprocessor=preprocessor)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return clf.fit(tuples, labels) if labels is not None else clf.fit(tuples)

    clf, ref = fit(df), fit(X)
    assert list(clf.feature_names_in_) == list("abcd")
    assert list(clf.estimator_.feature_names_in_) == list("abcd")
    np.testing.assert_array_equal(clf.components_, ref.components_)
    for call in (lambda: clf.transform(df), lambda: clf.transform(np.arange(5)),
                 lambda: clf.predict(tuples), lambda: clf.decision_function(tuples),
                 lambda: clf.predict(X[tuples]), lambda: clf.pair_distance(X[tuples[:, :2]])):
        assert not _name_warnings(_record(call))
    np.testing.assert_array_equal(clf.transform(df), ref.transform(X))
    caught = _name_warnings(_record(lambda: clf.transform(X[:4])))
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message) == _sklearn_message(df, X[:4],
                                                      type(clf.estimator_).__name__)
    with pytest.raises(ValueError, match="feature names should match"):
        clf.transform(df.rename(columns={"a": "z"}))
    # a refit through an array forgets the names
    clf.set_params(preprocessor=X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(tuples, labels) if labels is not None else clf.fit(tuples)
    assert not hasattr(clf, "feature_names_in_")


def test_a_learner_fitted_through_a_dataframe_preprocessor_has_its_names():
    """The same for a learner's own ``preprocessor`` (``fit`` on identifiers)."""
    pytest.importorskip("pandas")
    df = _frame(X)
    est = ITMLTransformer(n_constraints=40, random_state=0, preprocessor=df)
    est.fit(np.arange(len(X)), Y)
    ref = ITMLTransformer(n_constraints=40, random_state=0, preprocessor=X)
    ref.fit(np.arange(len(X)), Y)
    assert list(est.feature_names_in_) == list("abcd")
    np.testing.assert_array_equal(est.components_, ref.components_)
    for call in (lambda: est.transform(df), lambda: est.transform(np.arange(3)),
                 lambda: est.pair_distance(np.array([[0, 1], [2, 3]]))):
        assert not _name_warnings(_record(call))
    caught = _name_warnings(_record(lambda: est.transform(X)))
    assert len(caught) == 1 and caught[0].filename == __file__
