"""State that changes only when a call succeeds, and fitted state read from
fitted attributes, for every public estimator and method.

- A call that raises leaves the estimator exactly as it was: its pickle (the
  ``__dict__`` with its arrays by value, a stream and its random state) is
  byte for byte the same; an unfitted estimator stays unfitted
  (``NotFittedError``, not an ``AttributeError`` on a half-set attribute).
- A stream continues as if a refused call had not been made: random
  sequences of batches with failing calls among them end where the same
  sequence without them ends, bit for bit.
- ``set_params`` after ``fit`` changes nothing that a fitted estimator
  answers until the next fit, for every parameter of every estimator; a
  ``partial_fit`` after ``set_params`` of a parameter the stream fixed is
  refused naming it, and one of the others is honoured.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import StandardScaler
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
    QuadrupletClassifier,
    SKLRClusterer,
    TripletClassifier,
    VonNeumannKernelLearner,
)
from sklearn_bregman.constraints import pairs_from_labels, triplets_from_labels

X, Y = load_iris(return_X_y=True)
X = StandardScaler().fit_transform(X)
IDX = np.random.RandomState(0).permutation(150)
BATCHES = [IDX[k::3] for k in range(3)]
PC = pairs_from_labels(Y, 80, random_state=0)
PAIRS = np.column_stack([PC.i, PC.j])
TRIPLETS = triplets_from_labels(Y, 80, random_state=0)
#: a similar pair beside a dissimilar one: d(a, b) < d(c, d)
QUADRUPLETS = np.hstack([PAIRS[PC.sign > 0][:20], PAIRS[PC.sign < 0][:20]])
C = np.corrcoef(X.T) + 0.1 * np.eye(4)

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")


def _snapshot(est):
    return pickle.dumps(est)


# --------------------------------------------------------------------------
# Calls that raise change nothing
# --------------------------------------------------------------------------

def _unfitted(make):
    return make, lambda est: est


def _fitted(make, fit):
    return make, lambda est: fit(est) or est


def _streamed(make, *calls):
    def prepare(est):
        for call in calls:
            call(est)
        return est
    return make, prepare


def _itml():
    return ITMLTransformer(n_constraints=40, random_state=0)


def _logdet():
    return LogDetKernelLearner(kernel="rbf", rank=8, n_constraints=40, random_state=0)


def _vn():
    return VonNeumannKernelLearner(kernel="rbf", rank=8, n_constraints=40, random_state=0)


def _batch(k):
    return lambda est: est.partial_fit(X[BATCHES[k]], Y[BATCHES[k]])


def _set(params):
    return lambda est: est.set_params(**params)


ONE_CLASS = np.zeros(150, dtype=int)
OUT_OF_RANGE = np.array([[0, 999, 1]])

#: id -> (make, prepare, the call that raises)
FAILURES = {
    # fit
    "ITML fit without y": (*_unfitted(_itml), lambda e: e.fit(X)),
    "ITML fit, one class": (*_unfitted(_itml), lambda e: e.fit(X, ONE_CLASS)),
    "ITML refit, pairs out of range": (*_fitted(_itml, lambda e: e.fit(X, Y)),
                                       lambda e: e.fit(X, constraints=OUT_OF_RANGE)),
    "LogDet fit without y": (*_unfitted(_logdet), lambda e: e.fit(X)),
    "LogDet refit, relative rows of one class": (
        *_streamed(_logdet, lambda e: e.fit(X, Y), _set({"label_constraints": "relative"})),
        lambda e: e.fit(X, ONE_CLASS)),
    "von Neumann fit, triplets out of range": (
        *_unfitted(_vn), lambda e: e.fit(X, triplets=[[0, 1, 999]])),
    "DefiniteBoost fit without y": (
        *_unfitted(lambda: DefiniteBoost(kernel="rbf", rank=6, random_state=0)),
        lambda e: e.fit(X)),
    "SKLR fit, triplets with a negative index": (
        *_unfitted(lambda: SKLRClusterer(3, random_state=0)),
        lambda e: e.fit(X, triplets=[[0, 1, -1]])),
    "SKLR refit, triplets out of range": (
        *_fitted(lambda: SKLRClusterer(3, n_triplets=40, random_state=0),
                 lambda e: e.fit(X, Y)),
        lambda e: e.fit(X, triplets=[[0, 1, 999]])),
    "CSI fit, y of another length": (*_unfitted(lambda: CSIDecomposition(rank=4)),
                                     lambda e: e.fit(X, Y[:10])),
    "KernelKMeans refit on NaN": (
        *_fitted(lambda: KernelKMeans(3, random_state=0), lambda e: e.fit(X)),
        lambda e: e.fit(np.where(X > 2, np.nan, X))),
    "NearestCorrelation fit, not square": (*_unfitted(NearestCorrelation),
                                           lambda e: e.fit(C[:3])),
    # partial_fit
    "ITML first batch, one class": (*_unfitted(_itml),
                                    lambda e: e.partial_fit(X, ONE_CLASS)),
    "ITML mid-stream, pairs out of range": (
        *_streamed(_itml, _batch(0)),
        lambda e: e.partial_fit(X[BATCHES[1]], constraints=OUT_OF_RANGE)),
    "ITML mid-stream, slack changed": (
        *_streamed(_itml, _batch(0), _set({"slack": 0.5})), _batch(1)),
    "LogDet mid-stream, triplets into a stream of pairs": (
        *_streamed(_logdet, _batch(0)),
        lambda e: e.partial_fit(X[BATCHES[1]], triplets=[[0, 1, 2]])),
    "LogDet mid-stream, kernel changed": (
        *_streamed(_logdet, _batch(0), _set({"kernel": "linear"})), _batch(1)),
    "LogDet after fit, features of another number": (
        *_fitted(_logdet, lambda e: e.fit(X, Y)),
        lambda e: e.partial_fit(X[:, :3], Y)),
    "von Neumann mid-stream, one class": (
        *_streamed(_vn, _batch(0)), lambda e: e.partial_fit(X[:50], Y[:50])),
    "von Neumann stream of rows, pairs out of range": (
        *_streamed(_vn, lambda e: e.partial_fit(X, triplets=TRIPLETS[:20])),
        lambda e: e.partial_fit(X, constraints=OUT_OF_RANGE)),
    "DefiniteBoost MEG, bad distances": (
        *_streamed(lambda: DefiniteBoost(kernel="rbf", rank=6, random_state=0),
                   lambda e: e.partial_fit(X, Y)),
        lambda e: e.partial_fit(X, constraints=[[0, 1, 1, 5.0]])),
    # the classifiers
    "PairClassifier fit, y of another length": (
        *_unfitted(lambda: PairClassifier(_itml(), preprocessor=X)),
        lambda e: e.fit(PAIRS, PC.sign[:5])),
    "PairClassifier mid-stream, the other encoding": (
        *_streamed(lambda: PairClassifier(_logdet(), preprocessor=X),
                   lambda e: e.partial_fit(PAIRS[:40], PC.sign[:40])),
        lambda e: e.partial_fit(PAIRS[40:], np.where(PC.sign[40:] > 0, 1, 0))),
    "PairClassifier mid-stream, the inner learner refuses": (
        *_streamed(lambda: PairClassifier(_logdet(), preprocessor=X),
                   lambda e: e.partial_fit(PAIRS[:40], PC.sign[:40]),
                   lambda e: e.estimator_.set_params(rank=3)),
        lambda e: e.partial_fit(PAIRS[40:], PC.sign[40:])),
    "PairClassifier calibrate_threshold, bad y": (
        *_fitted(lambda: PairClassifier(_itml(), preprocessor=X),
                 lambda e: e.fit(PAIRS, PC.sign)),
        lambda e: e.calibrate_threshold(PAIRS, PC.sign[:3])),
    "PairClassifier set_threshold, NaN": (
        *_fitted(lambda: PairClassifier(_itml(), preprocessor=X),
                 lambda e: e.fit(PAIRS, PC.sign)),
        lambda e: e.set_threshold(np.nan)),
    "TripletClassifier fit, an index out of range": (
        *_unfitted(lambda: TripletClassifier(_logdet(), preprocessor=X)),
        lambda e: e.fit(np.array([[0, 1, 2], [3, 3, 999]]))),
    "TripletClassifier mid-stream, the other encoding": (
        *_streamed(lambda: TripletClassifier(_logdet(), preprocessor=X),
                   lambda e: e.partial_fit(TRIPLETS[:40], np.ones(40, int))),
        lambda e: e.partial_fit(TRIPLETS[40:], np.zeros(40, int))),
    "QuadrupletClassifier fit, an index out of range": (
        *_unfitted(lambda: QuadrupletClassifier(_logdet(), preprocessor=X)),
        lambda e: e.fit(np.array([[0, 1, 2, 3], [4, 4, 5, 999]]))),
    "QuadrupletClassifier mid-stream, the other encoding": (
        *_streamed(lambda: QuadrupletClassifier(_logdet(), preprocessor=X),
                   lambda e: e.partial_fit(QUADRUPLETS[:20], np.ones(20, int))),
        lambda e: e.partial_fit(QUADRUPLETS[20:], np.zeros(20, int))),
    "QuadrupletClassifier mid-stream, a parameter the stream fixed": (
        *_streamed(lambda: QuadrupletClassifier(_logdet(), preprocessor=X),
                   lambda e: e.partial_fit(QUADRUPLETS[:20]),
                   lambda e: e.set_params(estimator__gamma=3.0)),
        lambda e: e.partial_fit(QUADRUPLETS[20:])),
    # set_params
    "set_params with an invalid key": (
        *_fitted(_itml, lambda e: e.fit(X, Y)),
        lambda e: e.set_params(slack=0.5, no_such_parameter=1)),
    "nested set_params with an invalid key": (
        *_fitted(lambda: PairClassifier(_itml(), preprocessor=X),
                 lambda e: e.fit(PAIRS, PC.sign)),
        lambda e: e.set_params(threshold=1.0, estimator__no_such_parameter=1)),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_a_call_that_raises_changes_nothing(case):
    make, prepare, fail = FAILURES[case]
    est = prepare(make())
    fitted = "n_features_in_" in vars(est) or "estimator_" in vars(est)
    before = _snapshot(est)
    params = est.get_params(deep=True)
    with pytest.raises((ValueError, TypeError)):
        fail(est)
    assert _snapshot(est) == before, case
    if not fitted:
        with pytest.raises(NotFittedError):
            check_is_fitted(est)
        for method in ("transform", "predict", "decision_function"):
            if hasattr(est, method):
                with pytest.raises(NotFittedError):
                    getattr(est, method)(X[:3] if not isinstance(est, (
                        PairClassifier, TripletClassifier, QuadrupletClassifier))
                        else PAIRS[:3])
    # (a set_params that raised changed no parameter either)
    if "set_params" in case:
        assert est.get_params(deep=True).keys() == params.keys()
        assert all(est.get_params(deep=True)[k] is v for k, v in params.items()
                   if not hasattr(v, "get_params"))


def test_every_public_estimator_has_a_failing_call():
    names = {n for n in sklearn_bregman.__all__
             if hasattr(getattr(sklearn_bregman, n), "get_params")}
    covered = {type(FAILURES[c][0]()).__name__ for c in FAILURES}
    assert names <= covered, sorted(names - covered)


# --------------------------------------------------------------------------
# A call that raises draws nothing from the user's random state
# --------------------------------------------------------------------------

def _picky_rbf(a, b):
    """An rbf kernel that refuses to pair the marked point (first coordinate
    100) with another: met only once pivots are drawn (the diagonal, a point
    with itself, comes first)."""
    if (a[0] == 100.0 or b[0] == 100.0) and not np.array_equal(a, b):
        raise ValueError("the marked point")
    return float(np.exp(-((a - b) ** 2).sum()))


class _CSIRefusingAfterFit(CSIDecomposition):
    """A fit_transform that raises after its fit succeeded (and drew): CSI's
    own fit fails before its draws or not at all.  The class's fit_transform
    is all or nothing (TransactionalMixin), as a transform that raises would
    make it."""

    def fit_transform(self, X, y=None):
        self.fit(X, y)
        raise ValueError("refused after fit")


#: the marked point among iris's first 30
X_MARKED = np.vstack([X[:30], [[100.0, 0.0, 0.0, 0.0]]])
#: points whose CSI gains tie (CSI draws among the ties)
X_TIES, Y_TIES = np.repeat(2 * np.eye(4), 5, axis=0), np.repeat([0, 1, 0, 1], 5)


def _rpcholesky(cls, **params):
    return lambda rs: cls(kernel="rbf", rank=8, low_rank="rpcholesky", n_constraints=40,
                          random_state=rs, **params)


def _fit(*args):
    return lambda est: est.fit(*args)


def _first_batch(*args):
    return lambda est: est.partial_fit(*args)


#: id -> (make(random_state), a call that raises after drawing, a call that succeeds)
DRAWING_FAILURES = {
    "LogDet fit, one class": (_rpcholesky(LogDetKernelLearner), _fit(X, ONE_CLASS),
                              _fit(X, Y)),
    "LogDet stream's first call, one class": (
        _rpcholesky(LogDetKernelLearner), _first_batch(X, ONE_CLASS), _batch(0)),
    "LogDet relative rows, one class": (
        _rpcholesky(LogDetKernelLearner, label_constraints="relative"),
        _fit(X, ONE_CLASS), _fit(X, Y)),
    "von Neumann fit, one class": (_rpcholesky(VonNeumannKernelLearner),
                                   _fit(X, ONE_CLASS), _fit(X, Y)),
    "von Neumann stream's first call, one class": (
        _rpcholesky(VonNeumannKernelLearner), _first_batch(X, ONE_CLASS), _batch(0)),
    "DefiniteBoost fit, one class": (_rpcholesky(DefiniteBoost), _fit(X, ONE_CLASS),
                                     _fit(X, Y)),
    "DefiniteBoost stream's first call, one class": (
        _rpcholesky(DefiniteBoost), _first_batch(X, ONE_CLASS), _batch(0)),
    "ITML fit, random prior, one class": (
        lambda rs: ITMLTransformer(prior="random", n_constraints=40, random_state=rs),
        _fit(X, ONE_CLASS), _fit(X, Y)),
    "ITML stream's first call, random prior, one class": (
        lambda rs: ITMLTransformer(prior="random", n_constraints=40, random_state=rs),
        _first_batch(X, ONE_CLASS), _batch(0)),
    "SKLR fit, kernel values overflow": (
        lambda rs: SKLRClusterer(3, kernel="linear", n_triplets=40, random_state=rs),
        _fit(X * 1e160, Y), _fit(X, Y)),
    "KernelKMeans fit, the kernel raises": (
        lambda rs: KernelKMeans(3, kernel=_picky_rbf, rank=8, low_rank="rpcholesky",
                                random_state=rs),
        _fit(X_MARKED), _fit(X[:30])),
    "CSI fit_transform, raises after fit": (
        lambda rs: _CSIRefusingAfterFit(kernel="rbf", rank=4, random_state=rs),
        lambda est: est.fit_transform(X_TIES, Y_TIES), _fit(X_TIES, Y_TIES)),
}


#: NumPy's global RandomState, which random_state=None draws from
GLOBAL = np.random.mtrand._rand


def _generator_state(random_state):
    """The state of the generator ``random_state`` draws from (NumPy's global
    one for None), comparable with ``==``."""
    state = (random_state or GLOBAL).get_state()
    return (state[0], state[1].tobytes(), *state[2:])


@pytest.mark.parametrize("random_state", ["RandomState(0)", "None"])
@pytest.mark.parametrize("case", sorted(DRAWING_FAILURES))
def test_a_call_that_raises_draws_nothing_from_the_users_random_state(case, random_state):
    """A call that raises after drawing (pivots, pairs, a prior, triplets,
    a sketch) leaves the user's RandomState (or NumPy's global one) where it
    was, so that the estimator's pickle, the generator's state and the next
    call's result are those of an estimator that never made the failed
    call; the call that succeeds consumes the generator, as scikit-learn's
    estimators do."""
    make, fail, succeed = DRAWING_FAILURES[case]
    saved = GLOBAL.get_state()
    try:
        ends = []
        for failed_first in (True, False):
            GLOBAL.seed(0)
            rs = np.random.RandomState(0) if random_state != "None" else None
            est, start = make(rs), _generator_state(rs)
            if failed_first:
                before = _snapshot(est)
                with pytest.raises(ValueError):
                    fail(est)
                assert _snapshot(est) == before, case
                assert _generator_state(rs) == start, case
            succeed(est)
            assert _generator_state(rs) != start  # (consumed on success)
            ends.append((_snapshot(est), _generator_state(rs), _answers(est)))
        (pickled, state, answers), (pickled_clean, state_clean, answers_clean) = ends
        assert state == state_clean
        assert pickled == pickled_clean
        for a, b in zip(answers, answers_clean, strict=True):
            np.testing.assert_array_equal(a, b)
    finally:
        GLOBAL.set_state(saved)


def test_every_estimator_with_a_random_state_has_a_drawing_failure():
    names = {n for n in sklearn_bregman.__all__
             if "random_state" in getattr(getattr(sklearn_bregman, n), "_get_param_names",
                                          lambda: ())()}
    covered = {type(make(None)).__name__.replace("_CSIRefusingAfterFit", "CSIDecomposition")
               for make, _, _ in DRAWING_FAILURES.values()}
    assert names and names <= covered, sorted(names - covered)


# --------------------------------------------------------------------------
# A stream continues as if a refused call had not been made
# --------------------------------------------------------------------------

#: calls that a stream refuses, whatever its state
REFUSED = [
    lambda e: e.partial_fit(X[:10], ONE_CLASS[:10]),
    lambda e: e.partial_fit(X[:10], constraints=OUT_OF_RANGE),
    lambda e: e.partial_fit(X[:10, :2], Y[:10]),
    lambda e: e.partial_fit(np.full((10, 4), np.nan), Y[:10]),
]


@settings(max_examples=15, deadline=None)
@given(make=st.sampled_from([_itml, _logdet, _vn]),
       n_batches=st.integers(2, 4),
       refused=st.lists(st.tuples(st.integers(0, 4), st.integers(0, len(REFUSED) - 1)),
                        max_size=4))
def test_a_stream_continues_as_if_the_refused_calls_had_not_been_made(make, n_batches,
                                                                     refused):
    rng = np.random.RandomState(n_batches)
    batches = [rng.choice(150, 40, replace=False) for _ in range(n_batches)]
    clean, noisy = make(), make()
    for k, b in enumerate(batches):
        for at, which in refused:
            if at == k:
                with pytest.raises(ValueError):
                    REFUSED[which](noisy)
        clean.partial_fit(X[b], Y[b])
        noisy.partial_fit(X[b], Y[b])
    np.testing.assert_array_equal(noisy.metric_, clean.metric_)
    np.testing.assert_array_equal(noisy.transform(X), clean.transform(X))
    assert noisy.n_constraints_seen_ == clean.n_constraints_seen_


# --------------------------------------------------------------------------
# set_params after fit changes nothing until the next fit
# --------------------------------------------------------------------------

#: parameter -> another valid value (every parameter of every estimator)
OTHER = {
    "kernel": lambda v: "linear" if v != "linear" else "rbf",
    "gamma": lambda v: 0.37, "degree": lambda v: 2, "coef0": lambda v: 0.5,
    "kernel_params": lambda v: {"gamma": 0.1}, "rank": lambda v: 3,
    "factor_tol": lambda v: 0.1, "low_rank": lambda v: "rpcholesky",
    "slack": lambda v: 0.123, "n_constraints": lambda v: 7,
    "bounds": lambda v: (1.0, 3.0), "epsilon": lambda v: 0.5, "unlabeled": lambda v: 2,
    "label_constraints": lambda v: "relative", "ratio": lambda v: 5.0,
    "order": lambda v: "cyclic", "tol": lambda v: 0.5, "max_iter": lambda v: 1,
    "random_state": lambda v: 12345, "verbose": lambda v: 0, "memory": lambda v: None,
    "preprocessor": lambda v: X[::-1].copy(), "max_constraints": lambda v: 3,
    "prior": lambda v: "covariance", "selection": lambda v: "cyclic",
    "projection": lambda v: "approximate", "dual_correction": lambda v: False,
    "init": lambda v: "identity", "learning_rate": lambda v: 0.01,
    "n_clusters": lambda v: 2, "n_triplets": lambda v: 9, "margin": lambda v: 3.0,
    "energy": lambda v: 0.5, "n_neighbors": lambda v: 3, "n_init": lambda v: 1,
    "equal_fraction": lambda v: 0.5, "kappa": lambda v: 0.1, "delta": lambda v: 1,
    "center": lambda v: not v, "divergence": lambda v: "frobenius",
    "input": lambda v: "factor", "nugget": lambda v: 0.5, "weights": lambda v: [1, 2, 3, 4],
    "eig_min": lambda v: 0.2, "equality_slack": lambda v: 0.5, "solver": lambda v: "projections",
    "threshold": lambda v: 5.0, "strategy": lambda v: "f_beta", "beta": lambda v: 3.0,
    "min_rate": lambda v: 0.5, "low_rank_tol": lambda v: 0.5, "init_kmeans": lambda v: 1,
    "estimator": lambda v: SKLRClusterer(2),
}

#: estimator -> (fitted estimator, what it answers after fit)
def _answers(est):
    if isinstance(est, (PairClassifier,)):
        return [est.decision_function(PAIRS), est.predict(PAIRS), est.transform(X),
                est.pair_distance(PAIRS[:5])]
    if isinstance(est, TripletClassifier):
        return [est.decision_function(TRIPLETS), est.transform(X)]
    if isinstance(est, QuadrupletClassifier):
        return [est.decision_function(QUADRUPLETS), est.predict(QUADRUPLETS), est.transform(X),
                est.pair_distance(PAIRS[:5])]
    if isinstance(est, NearestCorrelation):
        return [est.correlation_]
    out = []
    for method in ("transform", "predict"):
        if hasattr(est, method):
            out.append(getattr(est, method)(X))
    if hasattr(est, "pair_distance"):
        out.append(est.pair_distance(np.stack([X[:5], X[5:10]], axis=1)))
    if hasattr(est, "get_mahalanobis_matrix"):
        out.append(est.get_mahalanobis_matrix())
    return out


FITTED = {
    "ITMLTransformer": lambda: _itml().fit(X, Y),
    "LogDetKernelLearner": lambda: _logdet().fit(X, Y),
    "LogDetKernelLearner(linear)": lambda: LogDetKernelLearner(random_state=0).fit(X, Y),
    "LogDetKernelLearner(preprocessor)": lambda: LogDetKernelLearner(
        preprocessor=X, random_state=0).fit(np.arange(150), Y),
    "VonNeumannKernelLearner": lambda: _vn().fit(X, Y),
    "DefiniteBoost": lambda: DefiniteBoost(kernel="rbf", rank=6, random_state=0).fit(X, Y),
    "SKLRClusterer": lambda: SKLRClusterer(3, n_triplets=60, random_state=0).fit(X, Y),
    "CSIDecomposition": lambda: CSIDecomposition(rank=4, random_state=0).fit(X, Y),
    "KernelKMeans": lambda: KernelKMeans(3, kernel="rbf", random_state=0).fit(X),
    "NearestCorrelation": lambda: NearestCorrelation().fit(C),
    "PairClassifier": lambda: PairClassifier(_itml(), preprocessor=X).fit(PAIRS, PC.sign),
    "TripletClassifier": lambda: TripletClassifier(_logdet(), preprocessor=X).fit(TRIPLETS),
    "QuadrupletClassifier": lambda: QuadrupletClassifier(_logdet(), preprocessor=X).fit(
        QUADRUPLETS),
}


@pytest.mark.parametrize("name", sorted(FITTED))
def test_set_params_after_fit_changes_nothing_until_the_next_fit(name):
    est = FITTED[name]()
    before = _answers(est)
    for param, value in est.get_params(deep=False).items():
        assert param in OTHER, f"{name}: no other value for {param!r} in OTHER"
        est.set_params(**{param: OTHER[param](value)})
        for a, b in zip(_answers(est), before):
            np.testing.assert_array_equal(a, b, err_msg=f"{name}: set_params({param}=...)")
        est.set_params(**{param: value})


def test_every_public_estimator_is_checked_after_set_params():
    names = {n for n in sklearn_bregman.__all__
             if hasattr(getattr(sklearn_bregman, n), "get_params")}
    assert names <= {k.split("(")[0] for k in FITTED}


# --------------------------------------------------------------------------
# partial_fit after set_params: refused naming the parameter, or honoured
# --------------------------------------------------------------------------

@pytest.mark.parametrize("make", [_itml, _logdet, _vn])
@pytest.mark.parametrize("param", ["slack", "bounds", "random_state", "kernel", "rank",
                                   "gamma", "prior"])
def test_partial_fit_refuses_a_parameter_the_stream_fixed(make, param):
    est = make()
    if param not in est.get_params():
        pytest.skip(f"{type(est).__name__} has no {param}")
    est.partial_fit(X[BATCHES[0]], Y[BATCHES[0]])
    est.set_params(**{param: OTHER[param](getattr(est, param))})
    with pytest.raises(ValueError, match=rf"partial_fit: {param} changed since the call"):
        est.partial_fit(X[BATCHES[1]], Y[BATCHES[1]])


@pytest.mark.parametrize("make", [_itml, _logdet, _vn])
def test_partial_fit_honours_the_other_parameters(make):
    est = make().set_params(n_constraints=60)
    est.partial_fit(X[BATCHES[0]], Y[BATCHES[0]])
    est.set_params(max_constraints=30, n_constraints=20, tol=1e-4)
    est.partial_fit(X[BATCHES[1]], Y[BATCHES[1]])
    # the smaller window retired the oldest at once; the new draw size held
    assert est.n_constraints_kept_ == 30 and est.n_constraints_seen_ == 80
    assert len(est.constraints_) == 20 and est.tol == 1e-4


def test_partial_fit_after_fit_refuses_another_kernel():
    est = _logdet().fit(X, Y).set_params(gamma=3.0)
    with pytest.raises(ValueError, match="gamma changed since the call that fixed it"):
        est.partial_fit(X[BATCHES[0]], Y[BATCHES[0]])
    est.set_params(gamma=None).partial_fit(X[BATCHES[0]], Y[BATCHES[0]])
