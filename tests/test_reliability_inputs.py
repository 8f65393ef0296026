"""Issue 12 (reliability), items 5, 8 and 9: regression tests.

- Item 5: the constraint containers (:class:`PairConstraints`,
  :class:`TripletConstraints`) and ``check_pairs`` / ``check_triplets``
  validate in one place and never coerce silently; ``SKLRClusterer.fit``
  accepts a ``TripletConstraints`` as ``triplets``.
- Item 8: ``equal_triplets_from_labels`` caps the request by the number of
  distinct triplets that exist (its work is bounded by that, not by the
  request).
- Item 9: the scorers reject missing (NaN / None) labels instead of counting
  them as a class.

Every test here failed before the fix.
"""

import itertools
import math

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.decomposition import PCA

from sklearn_bregman import ITMLTransformer, SKLRClusterer
from sklearn_bregman._metrics import kernel_kmeans_scorer, knn_scorer
from sklearn_bregman.constraints import (
    PairConstraints,
    TripletConstraints,
    check_pairs,
    check_triplets,
    equal_triplets_from_labels,
)


@pytest.fixture(scope="module")
def blobs():
    return make_blobs(30, 4, centers=3, random_state=0)


# ---------------------------------------------------------------------------
# Item 5: constraint containers validate, naming the field and the row
# ---------------------------------------------------------------------------

PAIR_CASES = [
    # (i, j, sign, bound), exception, message
    (([0, 1], [2, 3], [257, -1], None), ValueError,
     r"PairConstraints: sign must be \+1 \(similar\) or -1 \(dissimilar\); row 0 has 257"),
    (([0, 1], [2, 3], [1, 1.5], None), ValueError, r"sign .*row 1 has 1\.5"),
    (([0], [2], 1.5, None), ValueError, r"sign .*row 0 has 1\.5"),
    (([0, 0.7], [2, 3], [1, -1], None), ValueError,
     r"PairConstraints: i must be integers \(sample indices\); row 1 has 0\.7"),
    (([0, 1], [2, 3.5], [1, -1], None), ValueError, r"j must be integers.*row 1 has 3\.5"),
    (([[0, 1], [2, 3]], [4, 5, 6, 7], [1, 1, 1, 1], None), ValueError,
     r"i must be 1-D, one entry per constraint; got an array of shape \(2, 2\)"),
    (([2**63], [1], [1], None), ValueError,
     r"i: index out of range in row 0: 9223372036854775808 is too large"),
    (([0, 1], [2, 2**70], [1, 1], None), ValueError, r"j: index out of range in row 1"),
    (([0, -3], [2, 3], [1, 1], None), ValueError,
     r"i: index out of range in row 1: -3 is negative"),
    (([np.nan], [1], [1], None), ValueError, r"i must be integers.*row 0 has nan"),
    (({"a": 1}, [1], [1], None), TypeError, r"i must be an array-like of numbers; got a dict"),
    (([[0], [1, 2]], [1, 2], [1, 1], None), ValueError,
     r"i could not be read as an array: row 1 has 2 entries but row 0 has 1 entry"),
    (([True, False], [2, 3], [1, 1], None), TypeError,
     r"i must hold integer sample indices; got booleans"),
    ((["a"], [1], [1], None), TypeError, r"i must hold integer sample indices"),
    (([0, None], [2, 3], [1, 1], None), TypeError, r"i .*row 1 has None"),
    (([0], [2], [True], None), TypeError, r"sign .*got booleans"),
    (([0, 1], [2, 3], [1, -1], [1.0, np.inf]), ValueError,
     r"PairConstraints: bounds must be finite \(NaN for unset\); bound in row 1 is inf"),
    (([0, 1], [2, 3], [1, -1], [1.0, "x"]), TypeError, r"bound must hold"),
    (([0, 4], [2, 4], [1, 1], None), ValueError, r"row 1 joins point 4 to itself"),
]


@pytest.mark.parametrize("fields, exc, match", PAIR_CASES)
def test_pair_constraints_constructor_validates(fields, exc, match):
    with pytest.raises(exc, match=match):
        PairConstraints(*fields)


@pytest.mark.parametrize("constraints, exc, match", [
    ([[0, 1, 257]], ValueError, r"constraints: sign .*row 0 has 257"),
    (([0, 2], [1, 3], [1, 1.5]), ValueError, r"constraints: sign .*row 1 has 1\.5"),
    (([0, 2], [1, 3], [1, 257]), ValueError, r"constraints: sign .*row 1 has 257"),
    (([0, 0.7], [1, 3], [1, 1]), ValueError, r"constraints: i must be integers.*row 1"),
    ([[0, 2**63, 1]], ValueError, r"constraints: j: index out of range in row 0"),
    ([[0, 1, 1], [2, 3]], ValueError,
     r"constraints could not be read as an array: row 1 has 2 entries but row 0 has 3"),
    ({"a": 1}, TypeError, r"constraints must be an array-like of numbers; got a dict"),
    (([[0, 1]], [2, 3], [1, 1]), ValueError, r"constraints: i must be 1-D"),
])
def test_check_pairs_shares_the_validation(constraints, exc, match):
    with pytest.raises(exc, match=match):
        check_pairs(constraints, n_samples=10)


def test_estimator_reports_the_field_and_row(blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match=r"constraints: sign .*row 1 has 1\.5"):
        ITMLTransformer().fit(X, constraints=([0, 2], [1, 3], [1, 1.5]))


TRIPLET_CASES = [
    (dict(outlier=[0, 1, 2, 3]), ValueError,
     r"TripletConstraints: outlier must be an array of shape \(n_triplets, 3\).*"
     r"got shape \(4,\)"),
    (dict(outlier=[[0, 1, 2], [0, 1]]), ValueError,
     r"outlier could not be read as an array: row 1 has 2 entries but row 0 has 3"),
    (dict(outlier=[[0, 1, 2], [3, 4, 3]]), ValueError,
     r"outlier: row 1 \(\[3, 4, 3\]\) repeats a point"),
    (dict(equal=[[0, 1, 2], [0, 1, 2.5]]), ValueError,
     r"TripletConstraints: equal must be integers.*row 1 .*has 2\.5"),
    (dict(outlier=[[0, 1, np.nan]]), ValueError, r"outlier must be integers.*row 0"),
    (dict(outlier=[[0, 1, 2**63]]), ValueError, r"outlier: index out of range in row 0"),
    (dict(equal=[[0, 1, 2], [0, -1, 2]]), ValueError,
     r"equal: index out of range in row 1 .*-1 is negative"),
    (dict(outlier=[[True, False, True]]), TypeError, r"outlier .*booleans"),
]


@pytest.mark.parametrize("kwargs, exc, match", TRIPLET_CASES)
def test_triplet_constraints_constructor_validates(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        TripletConstraints(**kwargs)


def test_check_triplets_names_a_ragged_row():
    with pytest.raises(ValueError, match=r"triplets could not be read as an array: "
                                         r"row 2 has 4 entries but row 0 has 3"):
        check_triplets([[0, 1, 2], [1, 2, 3], [0, 1, 2, 3]], 5, name="triplets")


def test_sklr_fit_accepts_triplet_constraints(blobs):
    X, _ = blobs
    outlier, equal = np.array([[0, 1, 2], [3, 4, 5]]), np.array([[6, 7, 8]])
    a = SKLRClusterer(3, random_state=0).fit(X, triplets=TripletConstraints(outlier, equal))
    b = SKLRClusterer(3, random_state=0).fit(X, triplets=outlier, equal_triplets=equal)
    assert np.array_equal(a.triplets_.outlier, outlier)
    assert np.array_equal(a.triplets_.equal, equal)
    assert np.allclose(a.embedding_, b.embedding_)


def test_sklr_fit_triplet_constraints_with_equal_triplets_is_an_error(blobs):
    X, _ = blobs
    tc = TripletConstraints([[0, 1, 2]], [[3, 4, 5]])
    with pytest.raises(ValueError, match=r"triplets is a TripletConstraints.*"
                                         r"equal_triplets must then be None"):
        SKLRClusterer(3).fit(X, triplets=tc, equal_triplets=[[6, 7, 8]])


def test_sklr_fit_checks_the_range_of_triplet_constraints(blobs):
    X, _ = blobs
    tc = TripletConstraints([[0, 1, 2]], [[3, 4, 5], [0, 1, 30]])
    with pytest.raises(ValueError, match=r"triplets\.equal: index out of range in row 1"):
        SKLRClusterer(3).fit(X, triplets=tc)


# ---------------------------------------------------------------------------
# Item 8: equal triplets are capped by the number that exist
# ---------------------------------------------------------------------------

class BudgetRandomState(np.random.RandomState):
    """A RandomState that fails as soon as more than ``budget`` random values
    are asked for: the generator's work is bounded by counting, not timing."""

    def __init__(self, seed, budget):
        super().__init__(seed)
        self.budget, self.used = budget, 0

    def _spend(self, size):
        self.used += 1 if size is None else int(np.prod(size))
        assert self.used <= self.budget, f"drew {self.used} > {self.budget} random values"

    def choice(self, a, size=None, replace=True, p=None):
        population = a if isinstance(a, (int, np.integer)) else len(a)
        self._spend(size if replace else population)
        return super().choice(a, size, replace, p)

    def random_sample(self, size=None):
        self._spend(size)
        return super().random_sample(size)

    def randint(self, low, high=None, size=None, dtype=int):
        self._spend(size)
        return super().randint(low, high, size, dtype)

    def permutation(self, x):
        self._spend(x if isinstance(x, (int, np.integer)) else len(x))
        return super().permutation(x)


def brute_force_counts(y):
    same = diff = 0
    for t in itertools.combinations(range(len(y)), 3):
        c = {y[k] for k in t}
        same += len(c) == 1
        diff += len(c) == 3
    return same, diff


@pytest.mark.parametrize("y, mode, expected", [
    ([0, 0, 0, 1, 1, 1], "same", {(0, 1, 2), (3, 4, 5)}),
    ([0, 1, 2, 2], "different", {(0, 1, 2), (0, 1, 3)}),
    ([0, 0, 0, 1, 1, 1], "mixed", {(0, 1, 2), (3, 4, 5)}),
])
def test_equal_triplets_request_is_capped(y, mode, expected):
    rng = BudgetRandomState(0, budget=10_000)
    t = equal_triplets_from_labels(y, 10**6, mode=mode, random_state=rng)
    assert set(map(tuple, np.sort(t, axis=1).tolist())) == expected
    assert t.shape == (len(expected), 3)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["same", "different", "mixed"])
def test_equal_triplets_capped_at_exactly_the_number_available(seed, mode):
    y = np.random.default_rng(seed).integers(0, 4, 13)
    same, diff = brute_force_counts(y.tolist())
    available = {"same": same, "different": diff, "mixed": same + diff}[mode]
    rng = BudgetRandomState(seed, budget=100_000)
    t = equal_triplets_from_labels(y, 10**6, mode=mode, random_state=rng)
    assert t.shape == (available, 3)
    assert np.unique(np.sort(t, axis=1), axis=0).shape[0] == available
    c = y[t]
    one = (c[:, 0] == c[:, 1]) & (c[:, 1] == c[:, 2])
    three = (c[:, 0] != c[:, 1]) & (c[:, 0] != c[:, 2]) & (c[:, 1] != c[:, 2])
    assert one.sum() == (0 if mode == "different" else same)
    assert three.sum() == (0 if mode == "same" else diff)


def test_number_of_equal_triplets_is_exact_beyond_int64():
    from sklearn_bregman._labels import n_equal_triplets as _n_equal_triplets

    counts = np.full(50, 10**6, dtype=np.int64)
    same, diff = _n_equal_triplets(counts)
    assert same == 50 * math.comb(10**6, 3)
    assert diff == math.comb(50, 3) * 10**18  # > 2**63
    assert _n_equal_triplets(np.array([3, 1, 2, 5])) == (
        1 + 10, 3 * 1 * 2 + 3 * 1 * 5 + 3 * 2 * 5 + 1 * 2 * 5)


# ---------------------------------------------------------------------------
# Item 9: missing labels are not a class
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("scorer, name", [(knn_scorer(5), "knn_scorer"),
                                          (kernel_kmeans_scorer(), "kernel_kmeans_scorer")])
def test_scorers_reject_nan_labels(blobs, scorer, name):
    X, y = blobs
    y = y.astype(float)
    y[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=rf"{name}: y holds missing labels \(2 NaN or "
                                         r"None, the first at sample 3\)"):
        scorer(PCA(2).fit(X), X, y)


@pytest.mark.parametrize("scorer, name", [(knn_scorer(5), "knn_scorer"),
                                          (kernel_kmeans_scorer(), "kernel_kmeans_scorer")])
def test_scorers_reject_none_labels_and_mixed_types(blobs, scorer, name):
    X, y = blobs
    yo = y.astype(object)
    yo[5] = None
    with pytest.raises(ValueError, match=rf"{name}: y holds missing labels .*sample 5"):
        scorer(PCA(2).fit(X), X, yo)
    yo[5] = "a"
    with pytest.raises(TypeError, match=rf"{name}: y mixes label types .*int, str"):
        scorer(PCA(2).fit(X), X, yo)


@pytest.mark.parametrize("scorer", [knn_scorer(2), kernel_kmeans_scorer()], ids=repr)
def test_scorers_reject_distances_that_overflow(scorer):
    """Found by the property tests: an embedding whose squared distances
    overflow gave NumPy's reshape error or a score computed from inf/NaN."""
    from sklearn.preprocessing import FunctionTransformer
    X = np.array([[1e200], [2e200], [-1e200], [3.0], [4.0], [5.0], [6.0]])
    y = [0, 0, 1, 1, 0, 1, 0]
    t = FunctionTransformer().fit(X)
    with pytest.raises(ValueError, match="squared distances overflow double precision"):
        scorer(t, X, y)
    assert 0.0 <= scorer(t, X[3:], y[3:]) <= 1.0
