"""Pair constraints: generation from labels, bounds, validation."""

import inspect
import itertools
import math

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_bregman import ITMLTransformer, SKLRClusterer
from sklearn_bregman._learners._scorers import kernel_kmeans_scorer, knn_scorer
from sklearn_bregman.constraints import (
    PairConstraints,
    TripletConstraints,
    check_pairs,
    check_triplets,
    equal_triplets_from_labels,
    pair_sqdist,
    pairs_from_labels,
    relative_from_labels,
    set_pair_bounds,
    triplets_from_labels,
)


def labels(n_per_class=(20, 30, 25)):
    return np.repeat(np.arange(len(n_per_class)), n_per_class)


def keys(pc):
    lo, hi = np.minimum(pc.i, pc.j), np.maximum(pc.i, pc.j)
    return set(zip(lo.tolist(), hi.tolist()))


def test_default_count_is_itml_40_c_squared_half_each_kind():
    y = labels()
    pc = pairs_from_labels(y, random_state=0)
    assert len(pc) == 40 * 3**2
    assert pc.n_similar == pc.n_dissimilar == 180
    assert np.all((y[pc.i] == y[pc.j]) == (pc.sign > 0))
    assert len(keys(pc)) == len(pc)  # distinct pairs
    assert np.all(pc.i != pc.j)
    assert np.isnan(pc.bound).all()


def test_capped_by_what_exists_and_other_kind_takes_over():
    y = labels((3, 3))  # 6 same-class pairs, 9 different-class pairs
    pc = pairs_from_labels(y, n_constraints=12, random_state=0)
    assert pc.n_similar == 6 and pc.n_dissimilar == 6
    pc = pairs_from_labels(y, n_constraints=100, random_state=0)
    assert pc.n_similar == 6 and pc.n_dissimilar == 9
    assert len(keys(pc)) == 15


def test_large_draw_uses_rejection_sampling_and_stays_distinct():
    y = np.random.default_rng(0).integers(0, 10, 5000)
    pc = pairs_from_labels(y, n_constraints=20000, random_state=1)
    assert len(pc) == 20000 and len(keys(pc)) == 20000
    assert np.all((y[pc.i] == y[pc.j]) == (pc.sign > 0))


def test_repeatable_under_random_state():
    y = labels()
    a = pairs_from_labels(y, 100, random_state=42)
    b = pairs_from_labels(y, 100, random_state=42)
    c = pairs_from_labels(y, 100, random_state=43)
    assert np.array_equal(a.to_array(), b.to_array(), equal_nan=True)
    assert not np.array_equal(a.i, c.i)


def test_unlabeled_points_get_no_constraint():
    y = labels()
    y[::3] = -1
    pc = pairs_from_labels(y, 500, random_state=0)
    assert np.all(y[pc.i] != -1) and np.all(y[pc.j] != -1)


def test_plus_minus_one_labels_warn_and_unlabeled_none_keeps_them():
    y = np.array([-1, 1] * 10)
    with pytest.warns(UserWarning, match="unlabeled=None"):
        with pytest.raises(ValueError, match="one class"):
            pairs_from_labels(y, random_state=0)
    pc = pairs_from_labels(y, unlabeled=None, random_state=0)
    assert pc.n_similar > 0 and pc.n_dissimilar > 0
    assert np.any(y[pc.i] == -1)


@pytest.mark.parametrize("draw", [pairs_from_labels, triplets_from_labels,
                                  equal_triplets_from_labels, relative_from_labels])
def test_plus_minus_one_warning_points_at_the_caller(draw):
    y = np.array([-1, 1] * 10)
    with pytest.warns(UserWarning, match="unlabeled=None") as record:
        try:
            draw(y, 5, random_state=0)
        except ValueError:  # one class left: pairs and outlier triplets need two
            pass
    assert [w.filename for w in record] == [__file__]


def test_string_labels_and_custom_marker():
    y = np.array(["a", "b", "?"] * 10)
    pc = pairs_from_labels(y, 50, unlabeled="?", random_state=0)
    assert not np.any(y[pc.i] == "?") and not np.any(y[pc.j] == "?")


@pytest.mark.parametrize("y", [np.zeros(10), np.full(10, -1)])
def test_one_class_is_an_error(y):
    with pytest.raises(ValueError, match="at least two classes"):
        pairs_from_labels(y)


def test_continuous_labels_are_an_error():
    with pytest.raises(ValueError, match="Unknown label type"):
        pairs_from_labels(np.linspace(0, 1, 10))


@pytest.mark.parametrize("func", [pairs_from_labels, triplets_from_labels,
                                  equal_triplets_from_labels, knn_scorer,
                                  kernel_kmeans_scorer])
def test_every_parameter_of_the_public_functions_is_validated(func):
    # validate_params skips a parameter without constraints silently
    assert set(func._skl_parameter_constraints) == set(inspect.signature(func).parameters)


@pytest.mark.parametrize("draw, kwargs, name", [
    (pairs_from_labels, {"n_constraints": 0}, "n_constraints"),
    (pairs_from_labels, {"n_constraints": 2.5}, "n_constraints"),
    (pairs_from_labels, {"unlabeled": [-1]}, "unlabeled"),
    (pairs_from_labels, {"random_state": "seed"}, "random_state"),
    (triplets_from_labels, {"n_triplets": 0}, "n_triplets"),
    (triplets_from_labels, {"coarse": "even"}, "coarse"),
    (triplets_from_labels, {"unlabeled": 1.5}, "unlabeled"),
    (equal_triplets_from_labels, {"n_triplets": -3}, "n_triplets"),
    (equal_triplets_from_labels, {"n_triplets": 10, "mode": "all"}, "mode"),
    (equal_triplets_from_labels, {"n_triplets": 10, "random_state": 1.0},
     "random_state"),
])
def test_generators_validate_their_parameters(draw, kwargs, name):
    """scikit-learn's InvalidParameterError (a ValueError and a TypeError),
    naming the parameter and the function."""
    with pytest.raises(InvalidParameterError,
                       match=rf"The '{name}' parameter of {draw.__name__} must be"):
        draw(labels(), **kwargs)
    with pytest.raises(InvalidParameterError, match=r"The 'y' parameter"):
        draw(None, **{"n_triplets": 10} if draw is equal_triplets_from_labels else {})


def test_percentile_bounds_follow_itml():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    pc = set_pair_bounds(pairs_from_labels(labels((100, 100)), 50, random_state=0), X,
                         bounds="percentile", random_state=0)
    i, j = np.triu_indices(200, 1)
    d = pair_sqdist(X, i, j)
    upper, lower = np.percentile(d, [5, 95])
    assert np.allclose(pc.bound[pc.sign > 0], pc.bound[pc.sign > 0][0])
    assert pc.bound[pc.sign > 0][0] == pytest.approx(upper, rel=0.1)
    assert pc.bound[pc.sign < 0][0] == pytest.approx(lower, rel=0.1)


def test_relative_bounds_use_each_pairs_own_distance_under_the_prior():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 4))
    M = np.diag([1.0, 2.0, 3.0, 4.0])
    pc = set_pair_bounds(pairs_from_labels(labels((15, 15)), 40, random_state=0), X, M,
                         bounds="relative", epsilon=0.2)
    d0 = np.array([(X[a] - X[b]) @ M @ (X[a] - X[b]) for a, b in zip(pc.i, pc.j)])
    assert np.allclose(pc.bound, np.where(pc.sign > 0, 0.8, 1.2) * d0)


def test_explicit_bounds_and_user_bounds_are_kept():
    X = np.random.default_rng(2).standard_normal((10, 2))
    pc = PairConstraints([0, 1, 2], [3, 4, 5], [1, -1, 1], [np.nan, np.nan, 7.0])
    out = set_pair_bounds(pc, X, bounds=(1.5, 9.0))
    assert out.bound.tolist() == [1.5, 9.0, 7.0]
    assert np.isnan(pc.bound[0])  # the input is not modified


@pytest.mark.parametrize(
    "bounds, match",
    [("median", "bounds must be"), ((1.0,), "bounds must be"), ((0.0, 1.0), "upper > 0"),
     ((1.0, -1.0), "lower >= 0"), ((np.inf, 1.0), "finite")],
)
def test_bad_bounds_rule(bounds, match):
    X = np.random.default_rng(2).standard_normal((10, 2))
    pc = PairConstraints([0, 1], [3, 4], [1, -1])
    with pytest.raises(ValueError, match=match):
        set_pair_bounds(pc, X, bounds=bounds)


@pytest.mark.parametrize(
    "constraints, match",
    [
        ([[0, 10, 1]], "out of range"),
        ([[-1, 2, 1]], "out of range"),
        ([[0, 1, 0]], "sign must be"),
        ([[0, 1, 1, -2.0]], "non-negative"),
        ([[0, 1, 1, np.inf]], "finite"),
        ([[0.5, 1, 1]], "integers"),
        (np.zeros((2, 5)), "shape"),
        (np.zeros((0, 3)), "empty"),
    ],
)
def test_check_pairs_rejects_bad_constraints(constraints, match):
    with pytest.raises(ValueError, match="constraints") as exc:
        check_pairs(constraints, n_samples=10)
    assert exc.match(match)


def test_check_pairs_accepts_arrays_tuples_and_objects():
    a = check_pairs([[0, 1, 1], [2, 3, -1]], 5)
    b = check_pairs(([0, 2], [1, 3], [1, -1]), 5)
    c = check_pairs(PairConstraints([0, 2], [1, 3], [1, -1], [1.0, 2.0]), 5)
    assert a.i.tolist() == b.i.tolist() == c.i.tolist() == [0, 2]
    assert c.bound.tolist() == [1.0, 2.0]
    d = check_pairs(c.to_array(), 5)
    assert np.array_equal(d.bound, c.bound)


def test_pair_constraints_accept_integral_floats_and_nan_bounds():
    pc = PairConstraints(np.array([0.0, 1.0]), [2, np.int64(3)], [1.0, -1.0],
                         [np.nan, 2])
    assert pc.i.dtype == np.intp and pc.sign.dtype == np.int8
    assert pc.i.tolist() == [0, 1] and pc.sign.tolist() == [1, -1]
    assert np.isnan(pc.bound[0]) and pc.bound[1] == 2.0


@pytest.mark.parametrize("fields, match", [
    (([0, 1], [2, 3], [1, -1], [1.0, 2.0, 3.0]),
     r"i, j, sign and bound must have the same length.*got 2, 2, 2 and 3"),
    (([0, 1], [2, 3], [1]), r"i, j and sign must have the same length.*got 2, 2 and 1"),
])
def test_pair_constraints_fields_of_unequal_length(fields, match):
    with pytest.raises(ValueError, match=match):
        PairConstraints(*fields)


def test_indexing_and_copy_keep_validated_arrays():
    pc = PairConstraints([0, 1, 2], [3, 4, 5], [1, -1, 1], [1.0, np.nan, 2.0])
    one = pc[1]
    assert len(one) == 1 and one.i.tolist() == [1] and one.sign.dtype == np.int8
    assert pc[::2].i.tolist() == [0, 2] and pc[::2].i.flags.c_contiguous
    assert pc[pc.sign > 0].bound.tolist() == [1.0, 2.0]
    c = pc.copy()
    assert c.i is not pc.i and np.array_equal(c.i, pc.i)
    with pytest.raises(IndexError, match="1-D selection"):
        pc[None]
    # with_bound: a new container, checked as the constructor checks bounds
    new = pc.with_bound([0.5, 0.5, 0.5])
    assert new.bound.tolist() == [0.5] * 3 and np.isnan(pc.bound[1])
    with pytest.raises(ValueError, match="PairConstraints: bounds are squared distances"):
        pc.with_bound([0.5, -1.0, 0.5])


def test_a_pair_container_cannot_be_changed_after_construction():
    pc = PairConstraints([0, 1], [2, 3], [1, -1])
    with pytest.raises(ValueError, match="read-only"):
        pc.sign[1] = 3
    with pytest.raises(AttributeError, match="PairConstraints is read-only"):
        pc.sign = np.array([1, 3])
    assert pc.sign.tolist() == [1, -1]
    assert check_pairs(pc, 5) is pc  # validated once: only the range is checked here


# ---------------------------------------------------------------------------
# Containers validate, naming the field and the row
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def blobs():
    return make_blobs(30, 4, centers=3, random_state=0)



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
# Equal triplets are capped by the number that exist
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
    from sklearn_bregman._constraints._labels import n_equal_triplets as _n_equal_triplets

    counts = np.full(50, 10**6, dtype=np.int64)
    same, diff = _n_equal_triplets(counts)
    assert same == 50 * math.comb(10**6, 3)
    assert diff == math.comb(50, 3) * 10**18  # > 2**63
    assert _n_equal_triplets(np.array([3, 1, 2, 5])) == (
        1 + 10, 3 * 1 * 2 + 3 * 1 * 5 + 3 * 2 * 5 + 1 * 2 * 5)


def _fast_and_small(call, match):
    """``call`` raises a ValueError matching ``match`` in < 2 s and < 100 MB."""
    import time
    import tracemalloc
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(ValueError, match=match):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - t0 < 2.0 and peak < 100 * 2**20


@pytest.mark.parametrize("case", ["pairs", "triplets", "equal", "relative"])
def test_oversized_label_draws_are_refused_before_any_work(case):
    from sklearn_bregman.constraints import (
        equal_triplets_from_labels,
        relative_from_labels,
        triplets_from_labels,
    )
    y = np.arange(100_000) % 2
    call, param = {
        "pairs": (lambda: pairs_from_labels(y, 10**12, random_state=0), "n_constraints"),
        "triplets": (lambda: triplets_from_labels(y, 10**9, random_state=0), "n_triplets"),
        "equal": (lambda: equal_triplets_from_labels(np.arange(3000) % 3, 10**12,
                                                     random_state=0), "n_triplets"),
        "relative": (lambda: relative_from_labels(y, 10**9, random_state=0),
                     "n_constraints"),
    }[case]
    _fast_and_small(call, rf"{param}=\d+ asks for \d+ .*10000000")


def test_default_count_with_many_classes_is_refused_naming_the_classes():
    from sklearn_bregman import LogDetKernelLearner
    y = np.arange(20_000) // 2  # 10,000 classes: 40 c^2 = 4e9 pairs
    _fast_and_small(lambda: pairs_from_labels(y, random_state=0),
                    r"n_constraints=None .*c=10000 classes of y.*pass n_constraints")
    X = np.random.RandomState(0).randn(20_000, 2)
    est = LogDetKernelLearner(rank=2, max_iter=1)
    _fast_and_small(lambda: est.fit(X, y), r"n_constraints=None .*c=10000 classes")
    assert not hasattr(est, "components_") and not hasattr(est, "n_features_in_")
    # an explicit count from the same labels is drawn
    pc = pairs_from_labels(y, 1000, random_state=0)
    assert len(pc) == 1000 and len(keys(pc)) == 1000
    assert np.all((y[pc.i] == y[pc.j]) == (pc.sign > 0))


def test_listing_different_class_pairs_needs_no_square_of_the_labels():
    # 6000 points, all but two of one class: asking every different-class
    # pair lists them (12,000 - 2 pairs), in O(pairs), not 18e6 index pairs
    y = np.zeros(6000, int)
    y[[10, 4000]] = [1, 2]
    import tracemalloc
    tracemalloc.start()
    try:
        pc = pairs_from_labels(y, 24_000, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20
    diff = pc.sign < 0
    assert diff.sum() == 2 * 5998 + 1 and len(keys(pc)) == len(pc) == 24_000
    assert np.all(y[pc.i[diff]] != y[pc.j[diff]]) and np.all(y[pc.i[~diff]] == y[pc.j[~diff]])
