"""Tuples that join a point to itself (issue 35).

metric-learn's documentation draws pairs with ``randint``, which gives pairs
``(i, i)``; a triplet or quadruplet may repeat a point the same way.  They
are accepted wherever tuples are accepted, with one warning that counts
them, and skipped as zero-length pairs drawn from labels are: what holds
under every kernel (a similar pair of length zero, ``d(a, a) < d(c, d)``)
holds, what holds under none (a dissimilar pair of length zero with a
positive bound, ``d(a, b) < d(c, c)``) leaves the fit unconverged with a
ConvergenceWarning.  The properties that cannot be faked: a tuple that
holds under every kernel changes nothing (the model is the one fitted
without it), and one that holds under none is reported, whatever the slack.
"""

import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    QuadrupletClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman.constraints import RelativeConstraints

X, Y = load_iris(return_X_y=True)
X = StandardScaler().fit_transform(X)
# iris has duplicate rows (e.g. 101 and 142): keep to distinct points, so
# that only the tuples made to repeat a point do
X = X[np.sort(np.unique(X, axis=0, return_index=True)[1])]
N = len(X)


def _fit(make, *args, **kwargs):
    """``make().fit(*args, **kwargs)`` and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = make().fit(*args, **kwargs)
    return est, caught


def _counted(caught, category, pattern):
    """The messages of ``category`` matching ``pattern`` (a regex)."""
    return [str(w.message) for w in caught
            if issubclass(w.category, category) and re.search(pattern, str(w.message))]


# -- pairs ---------------------------------------------------------------------------

PAIRS = np.array([[0, 1, 1, 0.5], [2, 60, -1, 20.0], [3, 4, 1, 0.5], [70, 140, -1, 20.0]])
PAIR_LEARNERS = {
    "ITML": lambda: ITMLTransformer(random_state=0, tol=1e-9, max_iter=10_000),
    "LogDet": lambda: LogDetKernelLearner(kernel="rbf", gamma=0.2, rank=10, random_state=0,
                                          tol=1e-9, max_iter=10_000),
    "vonNeumann": lambda: VonNeumannKernelLearner(kernel="rbf", gamma=0.2, rank=10,
                                                  random_state=0, tol=1e-9, max_iter=10_000),
}


@pytest.mark.parametrize("name", sorted(PAIR_LEARNERS))
def test_a_similar_self_pair_is_skipped_and_changes_nothing(name):
    make = PAIR_LEARNERS[name]
    ref, caught = _fit(make, X, constraints=PAIRS)
    assert not caught and ref.converged_
    # appended last, so that the sweep visits the others in the same order
    est, caught = _fit(make, X, constraints=np.r_[PAIRS, [[5, 5, 1, 0.5], [9, 9, 1, 0.1]]])
    assert len(caught) == 1
    assert _counted(caught, UserWarning, r"2 of 6 constraints join two identical points")
    assert est.converged_
    np.testing.assert_array_equal(est.transform(X), ref.transform(X))


@pytest.mark.parametrize("name", sorted(PAIR_LEARNERS))
@pytest.mark.parametrize("slack", [1.0, np.inf])
def test_a_dissimilar_self_pair_cannot_be_met(name, slack):
    make = lambda: PAIR_LEARNERS[name]().set_params(slack=slack)  # noqa: E731
    est, caught = _fit(make, X, constraints=np.r_[PAIRS, [[5, 5, -1, 1.0]]])
    assert _counted(caught, UserWarning, r"1 of 5 constraints join two identical points")
    assert _counted(caught, ConvergenceWarning, r"1 of 5 constraints cannot be met")
    assert not est.converged_ and est.max_violation_ >= 1.0


@pytest.mark.parametrize("name", sorted(PAIR_LEARNERS))
def test_a_self_pair_in_a_stream_is_reported_once_and_kept(name):
    make = PAIR_LEARNERS[name]
    est = make()
    with pytest.warns(UserWarning, match="1 of 3 constraints join two identical points"), \
            pytest.warns(ConvergenceWarning, match="1 of 3 constraints cannot be met"):
        est.partial_fit(X, constraints=np.r_[PAIRS[:2], [[5, 5, -1, 1.0]]])
    assert not est.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # not reported again
        warnings.simplefilter("ignore", ConvergenceWarning)  # (a UserWarning: first)
        est.partial_fit(X, constraints=PAIRS[2:])
    assert not est.converged_  # the kept dissimilar self-pair still misses


def test_definiteboost_skips_self_pairs_in_fit_and_in_its_meg_stream():
    pairs = np.array([[0, 1, 1, 0.001], [2, 60, -1, 0.05], [5, 5, 1, 0.001]])
    make = lambda: DefiniteBoost(kernel="rbf", gamma=0.2, rank=10, random_state=0)  # noqa: E731
    est, caught = _fit(make, X, constraints=pairs)
    assert _counted(caught, UserWarning, r"1 of 3 constraints join two identical points")
    ref, _ = _fit(make, X, constraints=pairs[:2])
    np.testing.assert_allclose(est.transform(X), ref.transform(X), rtol=1e-10, atol=1e-12)
    # the MEG stream (Tsuda et al. eq. 7) had no step for a pair of no
    # direction: a self-pair used to drive it "beyond double precision"
    stream = make()
    with pytest.warns(UserWarning, match="1 of 3 constraints join two identical points"):
        stream.partial_fit(X, constraints=pairs)
    ref = make().partial_fit(X, constraints=pairs[:2])
    np.testing.assert_array_equal(stream.transform(X), ref.transform(X))
    assert stream.n_examples_seen_ == 3


@pytest.mark.parametrize("form", ["points", "array", "callable"])
def test_pair_classifier_takes_self_pairs_in_every_form(form):
    rng = np.random.RandomState(0)
    ij = rng.randint(0, N, (150, 2))  # as metric-learn's documentation draws them
    ij[:4, 1] = ij[:4, 0]
    sign = np.where(Y[ij[:, 0]] == Y[ij[:, 1]], 1, -1)
    sign[:4] = 1
    pre = {"points": None, "array": X, "callable": lambda ids: X[ids]}[form]
    given = X[ij] if form == "points" else ij
    clf, caught = _fit(lambda: PairClassifier(ITMLTransformer(random_state=0),
                                              preprocessor=pre), given, sign)
    n_self = int((ij[:, 0] == ij[:, 1]).sum())
    assert _counted(caught, UserWarning,
                    rf"{n_self} of 150 constraints join two identical points")
    assert len(caught) == 1
    assert clf.estimator_.converged_
    np.testing.assert_array_equal(clf.pair_distance(given[:4]), 0.0)
    assert (clf.predict(given[:4]) == 1).all()  # distance 0 <= any threshold >= 0
    assert clf.score(given, sign) > 0.85


# -- triplets and quadruplets ----------------------------------------------------------

TRIPLETS = np.array([[0, 1, 60], [50, 51, 120], [100, 101, 10], [20, 21, 80]])
QUADRUPLETS = np.array([[0, 1, 0, 60], [50, 51, 50, 120], [100, 101, 100, 10]])
ROW_LEARNERS = {
    "LogDet": lambda slack: LogDetKernelLearner(kernel="rbf", gamma=0.2, rank=10, slack=slack,
                                                random_state=0, tol=1e-9, max_iter=10_000),
    "vonNeumann": lambda slack: VonNeumannKernelLearner(kernel="rbf", gamma=0.2, rank=10,
                                                        slack=slack, random_state=0,
                                                        tol=1e-9, max_iter=10_000),
}


@pytest.mark.parametrize("name", sorted(ROW_LEARNERS))
@pytest.mark.parametrize("kind, tuples, extra", [
    ("triplets", TRIPLETS, [[7, 7, 90]]),                # d(a, a) <= d(a, c)
    ("quadruplets", QUADRUPLETS, [[7, 7, 8, 90]]),       # d(a, a) <= d(c, d)
    ("constraints", RelativeConstraints(TRIPLETS[:, 0], TRIPLETS[:, 1], TRIPLETS[:, 0],
                                        TRIPLETS[:, 2], ratio=2.0), None),
])
def test_a_comparison_that_always_holds_is_skipped_and_changes_nothing(name, kind, tuples,
                                                                         extra):
    make = lambda: ROW_LEARNERS[name](1.0)  # noqa: E731
    ref, caught = _fit(make, X, **{kind: tuples})
    assert not caught and ref.converged_
    if extra is None:  # a RelativeConstraints row with i == j, appended
        rc = tuples
        more = RelativeConstraints(np.r_[rc.i, 7], np.r_[rc.j, 7], np.r_[rc.k, 8],
                                   np.r_[rc.l, 90], ratio=2.0)
        n_rows, n_fixed = len(rc) + 1, 1
    else:
        more = np.r_[tuples, extra]
        n_rows = 2 * len(more) if kind == "triplets" else len(more)
        n_fixed = 2 if kind == "triplets" else 1  # a triplet is two rows
    est, caught = _fit(make, X, **{kind: more})
    assert len(caught) == 1
    assert _counted(caught, UserWarning, rf"{n_fixed} of {n_rows} constraints compare a pair "
                    "that joins a point to itself")
    assert est.converged_
    np.testing.assert_array_equal(est.transform(X), ref.transform(X))


@pytest.mark.parametrize("name", sorted(ROW_LEARNERS))
@pytest.mark.parametrize("slack", [1.0, np.inf])
@pytest.mark.parametrize("kind, tuples, extra", [
    ("triplets", TRIPLETS, [[7, 8, 7]]),           # d(a, b) < d(a, a)
    ("triplets", TRIPLETS, [[7, 8, 8]]),           # d(a, b) < d(a, b)
    ("quadruplets", QUADRUPLETS, [[7, 8, 9, 9]]),  # d(a, b) < d(c, c)
    ("quadruplets", QUADRUPLETS, [[7, 8, 8, 7]]),  # a pair compared with itself
])
def test_a_comparison_that_never_holds_is_reported_whatever_the_slack(name, slack, kind,
                                                                       tuples, extra):
    est, caught = _fit(lambda: ROW_LEARNERS[name](slack), X, **{kind: np.r_[tuples, extra]})
    assert _counted(caught, UserWarning, "compare a pair that joins a point to itself")
    assert _counted(caught, ConvergenceWarning, "cannot be met by any kernel")
    # (a pair compared with itself misses by (ratio - 1) / (ratio + 1) = 1/3)
    assert not est.converged_ and est.max_violation_ >= 0.3
    # and the sweeps did not spin on it: the others settle as they do alone
    assert est.n_iter_ < 1000


@pytest.mark.parametrize("form", ["points", "array", "callable"])
def test_triplet_and_quadruplet_classifiers_take_repeated_points(form):
    pre = {"points": None, "array": X, "callable": lambda ids: X[ids]}[form]
    for Classifier, good, holds, fails in [
            (TripletClassifier, TRIPLETS, [7, 7, 90], [7, 8, 7]),
            (QuadrupletClassifier, QUADRUPLETS, [7, 7, 8, 90], [7, 8, 9, 9])]:
        inner = LogDetKernelLearner(kernel="rbf", gamma=0.2, rank=10, random_state=0)
        for extra, converged in ((holds, True), (fails, False)):
            tuples = np.r_[good, [extra]]
            given = X[tuples] if form == "points" else tuples
            clf, caught = _fit(lambda C=Classifier, e=inner: C(e, preprocessor=pre), given)
            assert _counted(caught, UserWarning, "compare a pair that joins a point to itself")
            assert clf.estimator_.converged_ is converged
            assert bool(_counted(caught, ConvergenceWarning, "cannot be met")) is not converged
            # the repeated point's own distance is 0: a tie in the tuple
            assert clf.predict(given[-1:])[0] == (1 if converged else -1)


def test_sklr_skips_triplets_that_repeat_a_point():
    make = lambda: SKLRClusterer(3, kernel="rbf", gamma=0.2, random_state=0)  # noqa: E731
    est, caught = _fit(make, X, triplets=np.r_[TRIPLETS, [[7, 7, 90]]])
    assert _counted(caught, UserWarning, r"2 of 10 triplet constraints")
    assert est.converged_
    est, caught = _fit(make, X, triplets=np.r_[TRIPLETS, [[7, 8, 7]]])
    assert _counted(caught, ConvergenceWarning, "cannot be met")
    assert not est.converged_


@pytest.mark.parametrize("name", sorted(ROW_LEARNERS))
def test_a_stream_keeps_a_comparison_that_never_holds(name):
    est = ROW_LEARNERS[name](1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(UserWarning, match="compare a pair that joins a point to itself"):
            est.partial_fit(X, quadruplets=np.r_[QUADRUPLETS[:2], [[7, 8, 9, 9]]])
        assert not est.converged_
        est.partial_fit(X, quadruplets=QUADRUPLETS[2:])
    assert not est.converged_ and est.n_constraints_kept_ == 4
