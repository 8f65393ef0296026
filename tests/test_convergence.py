"""What every fit promises, and the inputs that test the promise.

Infeasible hard constraints are not reported as converged; duplicate rows
are skipped with one warning; a fitted estimator owns what it needs (changing
the caller's training array afterwards changes nothing); states that leave
double precision are rolled back; every public path validates indices
before the compiled sweeps, which trust them; errors name what the user
passed (labels, not "constraints", when only labels were given).

``converged_`` promises the optimality (KKT) conditions to ``tol``: every
constraint within ``tol`` of its target relative to it (the bound when hard,
the slack target when soft) and every positive dual on an active constraint.
The tests check that promise from the fitted model itself.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairConstraints,
    SKLRClusterer,
    VonNeumannKernelLearner,
)
from sklearn_bregman._engine import moderate_state, pair_projections, triplet_projections
from sklearn_bregman.constraints import TripletConstraints, pairs_from_labels, set_pair_bounds

PAIR_LEARNERS = [ITMLTransformer, LogDetKernelLearner, VonNeumannKernelLearner]


@pytest.fixture(scope="module")
def blobs():
    return make_blobs(30, 4, centers=3, random_state=0)


def learned_sqdist(est, X, pairs):
    """Squared distances of the constraint pairs under the fitted model."""
    Z = est.embedding_ if hasattr(est, "embedding_") else est.transform(X)
    return ((Z[pairs.i] - Z[pairs.j]) ** 2).sum(1)


def relative_violation(est, X):
    pc = est.constraints_
    d = learned_sqdist(est, X, pc)
    with np.errstate(divide="ignore", invalid="ignore"):  # (a bound 0: inf or nan)
        return np.maximum(pc.sign * (d - pc.bound), 0.0) / pc.bound


# --------------------------------------------------------------------------
# Infeasible hard constraints are not "converged"
# --------------------------------------------------------------------------

def test_contradictory_hard_pair_is_not_converged(blobs):
    """d(0, 1) <= 1 and d(0, 1) >= 2 cannot both hold: the fit says so."""
    X, _ = blobs
    pc = PairConstraints([0, 0], [1, 1], [1, -1], [1.0, 2.0])
    with pytest.warns(ConvergenceWarning,
                      match=r"1 of 2 constraints are violated .* largest by .*finite slack"):
        itml = ITMLTransformer(slack=np.inf).fit(X, constraints=pc)
    assert not itml.converged_
    # wherever the pair ends, d - 1 or (2 - d) / 2 is at least 1/3
    np.testing.assert_allclose(itml.max_violation_, relative_violation(itml, X).max())
    assert itml.max_violation_ >= 1 / 3 - 1e-9


@pytest.mark.parametrize("Learner", [LogDetKernelLearner, VonNeumannKernelLearner])
def test_infeasible_hard_constraints_from_labels_are_reported(Learner, blobs):
    """A linear kernel on 4 features cannot meet 360 hard label pairs at 0.75 / 1.25
    of their own initial distances: converged_ is False, the warning counts the
    violated constraints and the attribute holds the largest violation."""
    X, y = blobs
    with pytest.warns(ConvergenceWarning, match=r"\d+ of 360 constraints are violated"):
        est = Learner(slack=np.inf, random_state=0).fit(X, y)
    assert not est.converged_
    viol = relative_violation(est, X)
    assert viol.max() > 0.1
    np.testing.assert_allclose(est.max_violation_, viol.max(), rtol=1e-6)


def test_contradictory_hard_triplets_are_not_converged(blobs):
    X, _ = blobs
    t = [[0, 1, 2], [0, 2, 1], [1, 2, 0]]  # each point is the outlier once
    with pytest.warns(ConvergenceWarning, match="constraints are violated.*finite slack"):
        sklr = SKLRClusterer(3, random_state=0).fit(X, triplets=t)
    assert not sklr.converged_ and sklr.max_violation_ > 0.1
    assert np.isfinite(sklr.embedding_).all()
    # the points did not collapse: the learned kernel keeps its rank on them
    E = sklr.embedding_[:3]
    assert np.linalg.matrix_rank(E - E.mean(0), tol=1e-8 * np.abs(E).max()) == 2


def test_state_guard_refuses_a_numerically_singular_metric():
    """A LogDet state whose weakest direction fell below 1e-12 of its
    strongest has lost the distances along it (the points collapse): the
    guard rolls such a sweep back, whatever its diagonal says."""
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]
    for smallest, ok in [(1e-11, True), (1e-13, False), (-1e-16, False)]:
        M = (Q * [1.0, 0.5, 0.3, smallest]) @ Q.T
        assert np.diag(M).min() > 0.05  # the diagonal alone sees nothing wrong
        assert moderate_state(M) is ok


def test_state_guard_shortcut_agrees_with_the_eigenvalue_rule():
    """The guard's Cholesky shortcut only accepts states the exact rule
    (lambda_min > 1e-12 lambda_max) accepts, and the rule decides the rest:
    the same verdict on spectra spread across the threshold."""
    from scipy import linalg

    rng = np.random.default_rng(0)
    for r in (1, 2, 5, 40, 150):
        for ratio in np.logspace(-15, -9, 19):
            Q = np.linalg.qr(rng.standard_normal((r, r)))[0]
            w = np.geomspace(1.0, ratio, r) * 10.0 ** rng.uniform(-3, 3)
            M = (Q * w) @ Q.T
            M = (M + M.T) / 2
            e = linalg.eigvalsh(M)
            assert moderate_state(M.copy()) is bool(e[0] > 1e-12 * e[-1])


@pytest.mark.parametrize("Learner", PAIR_LEARNERS)
def test_converged_hard_fit_meets_every_constraint(Learner, blobs):
    """Feasible hard constraints (bounds met by a known metric): converged_ and
    every constraint within tol of its bound, read off the fitted model."""
    X, y = blobs
    rng = np.random.default_rng(0)
    pc = pairs_from_labels(y, 60, random_state=0)
    B = rng.standard_normal((4, 4))
    A_star = B @ B.T / 4 + 0.5 * np.eye(4)
    V = X[pc.i] - X[pc.j]
    d_star = np.einsum("ij,jk,ik->i", V, A_star, V)
    pc = pc.with_bound(np.where(pc.sign > 0, 1.1, 0.9) * d_star)
    if Learner is VonNeumannKernelLearner:
        pc = pc.with_bound(np.where(pc.sign > 0, 1.02, 0.98) * (V**2).sum(1))
    est = Learner(slack=np.inf, tol=1e-4, random_state=0).fit(X, constraints=pc)
    assert est.converged_
    assert relative_violation(est, X).max() <= 1e-4
    assert est.max_violation_ <= 1e-4


@pytest.mark.parametrize("divergence", ["logdet", "vonneumann"])
@pytest.mark.parametrize("slack", [0.1, 1.0, 10.0])
def test_converged_soft_fit_meets_the_kkt_conditions(divergence, slack, blobs):
    """With slack, converged means: each constraint holds against its slack
    target to tol, and a positive dual sits on an active one (to tol)."""
    X, y = blobs
    G = np.linalg.qr(X - X.mean(0))[0] if divergence == "vonneumann" else X
    pc = set_pair_bounds(pairs_from_labels(y, random_state=0), G, bounds="percentile",
                         random_state=0)
    tol = 1e-3
    res = pair_projections(G, pc, np.zeros((4, 4)) if divergence == "vonneumann"
                           else np.eye(4), divergence=divergence, slack=slack, tol=tol,
                           order="random", random_state=0)
    assert res.converged
    X_state = res.state if divergence == "logdet" else _expm(res.state)
    V = G[pc.i] - G[pc.j]
    d = np.einsum("ij,jk,ik->i", V, X_state, V)
    xi = res.targets
    gap = pc.sign * (d - xi) / xi
    assert gap.max() <= tol
    w = d if divergence == "logdet" else (V**2).sum(1)
    active = res.dual > 0
    assert np.all(np.minimum(np.abs(gap[active]), res.dual[active] * w[active]) <= tol)


def _expm(L):
    w, Q = np.linalg.eigh(L)
    return (Q * np.exp(w)) @ Q.T


def test_soft_triplets_meet_their_kkt_conditions(blobs):
    X, y = blobs
    from sklearn_bregman.constraints import triplets_from_labels
    t = TripletConstraints(triplets_from_labels(y, 60, random_state=0))
    res = triplet_projections(X, t, np.eye(4), slack=1.0, tol=1e-4, max_iter=2000,
                              random_state=0)
    assert res.converged and res.max_violation <= 1e-4
    a, b, c, kind, g2, _ = t.rows(np.sqrt(2.0))
    E = X @ np.linalg.cholesky(res.state)
    g = g2 * ((E[a] - E[b]) ** 2).sum(1) - ((E[a] - E[c]) ** 2).sum(1)
    s = g2 * ((E[a] - E[b]) ** 2).sum(1) + ((E[a] - E[c]) ** 2).sum(1)
    assert np.max((g - res.targets) / s) <= 1e-4


# --------------------------------------------------------------------------
# Duplicate rows
# --------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda X: np.repeat(X[:15], 2, 0),
    lambda X: np.repeat(X[:15], 2, 0) > 0,  # boolean X: many coinciding rows
], ids=["duplicates", "boolean"])
@pytest.mark.parametrize("est", [
    VonNeumannKernelLearner(random_state=0),
    LogDetKernelLearner(random_state=0),
    DefiniteBoost(kernel="rbf", random_state=0),
    DefiniteBoost(random_state=0),
    ITMLTransformer(random_state=0),
], ids=lambda e: repr(e))
def test_duplicate_rows_are_skipped_with_one_warning(est, make, blobs):
    X, y = blobs
    Xd, yd = make(X), np.repeat(y[:15], 2)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est.fit(Xd, yd)
    msgs = [str(w.message) for w in rec if "join two identical points" in str(w.message)]
    assert len(msgs) == 1
    n_skipped = int(msgs[0].split(": ")[1].split(" of ")[0])
    pc = est.constraints_
    Xf = np.asarray(Xd, dtype=float)
    same = (Xf[pc.i] == Xf[pc.j]).all(1)
    assert n_skipped == same.sum() > 0
    Z = est.embedding_ if hasattr(est, "embedding_") else est.transform(Xf)
    assert np.isfinite(Z).all()
    assert np.isfinite(est.max_violation_)
    if isinstance(est, DefiniteBoost) and est.converged_:  # hard: the others hold
        assert relative_violation(est, Xf)[~same].max() <= est.tol


def test_zero_length_is_relative_to_the_data_scale():
    """Points that differ by rounding in an orthonormal basis coincide; points a
    millionth of the data's scale apart do not."""
    from sklearn_bregman._engine._driver import zero_length_pairs
    G = np.array([[1.0, 0.0], [1.0, 1e-17], [1.0, 1e-3], [0.0, 1.0]]) * 1e-30
    np.testing.assert_array_equal(zero_length_pairs(G, np.array([0, 0, 0]),
                                                    np.array([1, 2, 3])),
                                  [True, False, False])


# --------------------------------------------------------------------------
# A fitted estimator owns what it needs
# --------------------------------------------------------------------------

@pytest.mark.parametrize("est", [
    SKLRClusterer(3, random_state=0),
    SKLRClusterer(3, kernel="rbf", random_state=0),
    ITMLTransformer(random_state=0),
    LogDetKernelLearner(random_state=0),
    LogDetKernelLearner(kernel="rbf", rank=10, random_state=0),
    VonNeumannKernelLearner(kernel="rbf", rank=10, random_state=0),
    DefiniteBoost(kernel="rbf", rank=10, n_constraints=50, random_state=0),
], ids=lambda e: repr(e))
# (DefiniteBoost's 50 constraints on the blobs are infeasible together: it warns)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_changing_the_training_array_after_fit_changes_nothing(est, blobs):
    X, y = blobs
    Xc = X.copy()
    est.fit(Xc, y)
    before = est.transform(X)
    snapshot = pickle.dumps(est)  # (a query moves the counters of a KD-tree)
    Xc[:] = 0.0
    assert pickle.dumps(est) == snapshot
    np.testing.assert_array_equal(est.transform(X), before)


# --------------------------------------------------------------------------
# Non-finite states
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, pairs, match", [
    ({"learning_rate": 1e300}, [[0, 1, 1, 0.1], [2, 3, 1, 0.5]], r"learning_rate=1e\+300"),
    ({}, [[0, 1, 1, 1e300]], r"lie in \[0, 2\]; row 0 has 1e\+300"),
    ({}, [[0, 1, 1, np.inf]], r"bounds must be finite"),
])
def test_meg_partial_fit_never_goes_non_finite(kwargs, pairs, match, blobs):
    X, _ = blobs
    db = DefiniteBoost(kernel="rbf", rank=10, **kwargs)
    with pytest.raises(ValueError, match=match):
        db.partial_fit(X, constraints=pairs)


def test_meg_partial_fit_discards_an_overflowing_batch(blobs):
    X, _ = blobs
    db = DefiniteBoost(kernel="rbf", rank=10, learning_rate=0.5)
    db.partial_fit(X, constraints=[[0, 1, 1, 0.01]])
    state = db.metric_.copy()
    db.set_params(learning_rate=1e300)
    with pytest.raises(ValueError, match="discarded"):
        db.partial_fit(X, constraints=[[2, 3, 1, 0.5]])
    np.testing.assert_array_equal(db.metric_, state)
    assert np.isfinite(db.transform(X)).all()


def test_diverging_von_neumann_state_is_rolled_back(blobs):
    """Hard constraints that pull log X past double precision stop at the last
    moderate state with a warning, instead of a FloatingPointError."""
    X, y = blobs
    with pytest.warns(ConvergenceWarning):
        vn = VonNeumannKernelLearner(slack=np.inf, random_state=0).fit(X, y)
    assert not vn.converged_
    assert np.isfinite(vn.embedding_).all() and np.isfinite(vn.metric_).all()
    w = np.linalg.eigvalsh(vn.metric_)
    assert w.min() >= -1e-12 * w.max()


# --------------------------------------------------------------------------
# Every public entry point validates the indices of its side information
# --------------------------------------------------------------------------

BAD_PAIRS = [
    ([[0, 30, 1, 1.0]], r"index out of range in row 0"),
    ([[-1, 2, 1, 1.0]], r"index out of range in row 0"),
    ([[0, 1, 2, 1.0]], r"sign"),
]


@pytest.mark.parametrize("Learner", PAIR_LEARNERS + [DefiniteBoost])
@pytest.mark.parametrize("pairs, match", BAD_PAIRS)
def test_pair_learners_validate_indices_before_the_sweeps(Learner, pairs, match, blobs):
    X, y = blobs
    with pytest.raises(ValueError, match=match):
        Learner().fit(X, constraints=np.array(pairs, dtype=float))


@pytest.mark.parametrize("kw, match", [
    ({"triplets": [[0, 1, 30]]}, r"triplets: index out of range in row 0"),
    ({"triplets": [[0, 1, -31]]}, r"triplets: index out of range in row 0"),
    ({"triplets": [[0, 1]]}, r"triplets.*shape"),
])
def test_sklr_validates_triplet_indices_before_the_sweeps(kw, match, blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match=match):
        SKLRClusterer(3).fit(X, **kw)


@pytest.mark.parametrize("est, param", [
    (ITMLTransformer(order="backwards"), "order"),
    (LogDetKernelLearner(order=1), "order"),
    (VonNeumannKernelLearner(order=None), "order"),
    (DefiniteBoost(selection="random"), "selection"),
    (SKLRClusterer(3, order="sorted"), "order"),
])
def test_visit_orders_are_validated(est, param, blobs):
    X, y = blobs
    with pytest.raises(ValueError, match=f"'{param}' parameter"):
        est.fit(X, y)


@pytest.mark.parametrize("pairs, match", [
    ([[0, 30, 1, 0.1]], r"constraints: index out of range in row 0"),
    ([[-1, 2, 1, 0.1]], r"constraints: i: index out of range in row 0: -1(\.0)? is negative"),
    ([[0.5, 2, 1, 0.1]], r"constraints: i must be integers"),
    ([[np.nan, 2, 1, 0.1]], r"constraints: i must be integers")])
def test_meg_partial_fit_validates_indices(pairs, match, blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match=match):
        DefiniteBoost(kernel="rbf", rank=5).partial_fit(X, constraints=pairs)


# --------------------------------------------------------------------------
# Errors name what the user passed
# --------------------------------------------------------------------------

@pytest.mark.parametrize("Learner", PAIR_LEARNERS + [DefiniteBoost])
@pytest.mark.parametrize("factor, what", [(1e200, "overflow"), (1e-200, "underflow")])
def test_labels_on_data_out_of_range_blame_the_data(Learner, factor, what, blobs):
    """Labels only: the error is about X (its scale), not about "constraints"
    (it used to be "constraints: every bound must be set; bound in row 0 is NaN")."""
    X, y = blobs
    with pytest.raises(ValueError) as err:
        Learner().fit(X * factor, y)
    msg = str(err.value)
    assert not msg.startswith("constraints")
    assert ("rescale X" in msg and what in msg) or "scale of X" in msg


def test_bounds_drawn_from_labels_are_named_as_such(blobs):
    from sklearn_bregman._constraints._resolve import resolve_pair_constraints
    from sklearn_bregman._data._data import InMemoryRows
    X, y = blobs
    itml = ITMLTransformer(bounds="relative", n_constraints=500)
    # two far points of different classes: their squared distance (1.6e308)
    # is finite, 1.25 times it is not
    G = np.zeros((4, 1))
    G[0], G[1], G[2], G[3] = 6.3e153, -6.3e153, 6.3e153, 1.0
    with pytest.raises(ValueError, match=r"^the \d+ pairs drawn from y \(bounds='relative'"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            resolve_pair_constraints(itml, [0, 1, 0, 1], None, InMemoryRows(G), None, 4,
                                     np.random.RandomState(0))


def test_transform_is_never_silently_non_finite(blobs):
    """A learned map that stretches (a far dissimilar bound) sends finite but
    huge points beyond double precision: transform says so instead of
    returning inf: no output is silently non-finite."""
    X, _ = blobs
    itml = ITMLTransformer(slack=np.inf).fit(X, constraints=[[0, 1, -1, 1e8]])
    assert itml.converged_ and np.abs(itml.components_).max() > 10
    assert np.isfinite(itml.transform(np.full((1, 4), 1e300))).all()
    with pytest.raises(ValueError, match=r"beyond double precision \(largest \|X\| = 1e\+306\)"):
        itml.transform(np.full((1, 4), 1e306))


def test_definiteboost_of_rank_one_checks_its_constraints():
    """Found by the property tests: with a rank-one initial kernel the only
    trace-one kernel is fixed, and the fit used to say converged without
    looking at the constraints (16 of 45 violated here)."""
    X = np.array([[0.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [0.0]])
    with pytest.warns(UserWarning, match="join two identical points"), \
            pytest.warns(UserWarning, match="dissimilar pairs got a bound .* left out"), \
            pytest.warns(ConvergenceWarning, match=r"rank one.* of \d+ binding constraints are"):
        db = DefiniteBoost(random_state=0).fit(X, [0] * 9 + [1])
    assert db.rank_ == 1 and not db.converged_
    with np.errstate(invalid="ignore"):  # (zero-length pairs have bound 0)
        viol = relative_violation(db, X)
    similar = db.constraints_.sign > 0  # (the dissimilar ones out of reach are left out)
    assert db.max_violation_ == pytest.approx(np.nanmax(viol[similar]))
    assert db.max_violation_ > 0.3
    # a binding constraint that the fixed kernel meets: converged, no warning
    pc = PairConstraints([0], [1], [-1], [0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ok = DefiniteBoost(random_state=0).fit(X, constraints=pc)
    assert ok.converged_ and ok.max_violation_ == 0.0


@pytest.mark.parametrize("Learner", PAIR_LEARNERS)
def test_similar_bound_beyond_double_precision_is_refused(Learner):
    """Found by the property tests: d(0, 1) <= 1e-300 from d0 = 2 asks a shrink
    by 1e300; the fit said converged while the learned distance was rounding
    noise (1e-16), or returned a metric with negative eigenvalues."""
    X = np.array([[1.0, 1.0], [0.0, 0.0], [5.0, 0.0], [0.0, 3.0]])
    pc = PairConstraints([0, 2], [1, 3], [1, -1], [1e-300, 1.0])
    with pytest.raises(ValueError, match=r"row 0 asks .* to shrink from 2 to <= 1e-300"):
        Learner(slack=np.inf).fit(X, constraints=pc)
