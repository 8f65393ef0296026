"""Issue 12 (reliability), item 5: regression tests.

- Item 5: the constraint containers (:class:`PairConstraints`,
  :class:`TripletConstraints`) and ``check_pairs`` / ``check_triplets``
  validate in one place and never coerce silently; ``SKLRClusterer.fit``
  accepts a ``TripletConstraints`` as ``triplets``.

Every test here failed before the fix.
"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from sklearn_bregman import ITMLTransformer, SKLRClusterer
from sklearn_bregman.constraints import (
    PairConstraints,
    TripletConstraints,
    check_pairs,
    check_triplets,
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
