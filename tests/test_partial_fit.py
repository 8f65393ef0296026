"""partial_fit: learning from a stream of labels and pair constraints.

The property that cannot be faked: with every constraint kept, a stream of
batches ends at the optimum of their union, which ``fit`` on the union
reaches from scratch (the optimum is unique); the KKT conditions hold on
everything seen after every call; ``max_constraints`` keeps the memory
fixed.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    PairClassifier,
    PairConstraints,
    VonNeumannKernelLearner,
)
from sklearn_bregman._engine import pair_projections
from sklearn_bregman._learners._base import metric_from_log
from sklearn_bregman.constraints import RelativeConstraints, pair_sqdist

TIGHT = dict(tol=1e-10, max_iter=100_000)


def wine_batches(n_batches=10, seed=0):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    p = np.random.RandomState(seed).permutation(len(X))
    return X[p], y[p], np.array_split(np.arange(len(X)), n_batches)


def stream(est, X, y, batches):
    """partial_fit over the batches; the union of their constraints, as
    rows i, j, sign, bound over X."""
    rows = []
    for b in batches:
        est.partial_fit(X[b], y[b])
        c = est.constraints_
        rows.append(np.c_[b[c.i], b[c.j], c.sign, c.bound])
    return np.vstack(rows)


def relative_error(A, B):
    return float(np.abs(A - B).max() / np.abs(B).max())


@pytest.mark.parametrize("bounds", ["percentile", "relative"])
@pytest.mark.parametrize("slack", [1.0, 10.0])
def test_itml_stream_equals_fit_on_the_union(bounds, slack):
    X, y, batches = wine_batches()
    est = ITMLTransformer(bounds=bounds, slack=slack, n_constraints=40, random_state=0,
                          **TIGHT)
    union = stream(est, X, y, batches)
    assert est.n_constraints_seen_ == est.n_constraints_kept_ == len(union)
    ref = ITMLTransformer(slack=slack, random_state=1, **TIGHT).fit(
        X, constraints=union)
    assert est.converged_ and ref.converged_
    assert relative_error(est.metric_, ref.metric_) < 1e-6
    # every bound was fixed by the first call: the percentiles drawn then
    if bounds == "percentile":
        upper = union[union[:, 2] > 0, 3]
        assert np.ptp(upper) == 0.0


@pytest.mark.parametrize("kernel", [dict(kernel="linear"),
                                    dict(kernel="rbf", gamma=0.05, rank=15)])
def test_logdet_stream_equals_fit_on_the_union(kernel):
    # the stream keeps the first call's factor; the union fit on its
    # coordinates (the linear kernel of phi0(X), at full rank) has the same
    # initial kernel, and LogDet is invariant under congruence
    X, y, batches = wine_batches()
    est = LogDetKernelLearner(n_constraints=40, random_state=0, **kernel, **TIGHT)
    union = stream(est, X, y, batches)
    Phi = est.factor_.transform(X)
    ref = LogDetKernelLearner(kernel="linear", random_state=1, **TIGHT).fit(
        Phi, constraints=union)
    assert est.converged_ and ref.converged_
    assert relative_error(est.learned_kernel(X), ref.learned_kernel(Phi)) < 1e-6
    # embedding_ maps the first call's points
    np.testing.assert_allclose(est.embedding_, est.transform(X[batches[0]]),
                               atol=1e-12)


def test_vonneumann_stream_is_the_union_in_the_first_calls_basis():
    # von Neumann is invariant under orthogonal changes of basis only: the
    # stream measures the divergence in the first call's basis U of range(G0)
    # (prior S^2), which the engine on the union's rows in that basis reaches
    X, y, batches = wine_batches()
    est = VonNeumannKernelLearner(kernel="rbf", gamma=0.05, rank=12, n_constraints=40,
                                  random_state=0, **TIGHT)
    union = stream(est, X, y, batches)
    s, Vt = est._stream.basis
    U = est.factor_.transform(X) @ Vt.T / s
    pairs = PairConstraints(union[:, 0].astype(int), union[:, 1].astype(int),
                            union[:, 2].astype(int), union[:, 3])
    res = pair_projections(U, pairs, np.diag(2 * np.log(s)), divergence="vonneumann",
                           slack=est.slack, order="cyclic", **TIGHT)
    assert est.converged_ and res.converged
    assert relative_error(est.metric_, metric_from_log(res.state, s, Vt)) < 1e-6


@pytest.mark.parametrize("make", [
    lambda: ITMLTransformer(random_state=0, n_constraints=30),
    lambda: LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=10, random_state=0,
                                n_constraints=30),
    lambda: VonNeumannKernelLearner(kernel="rbf", gamma=0.1, rank=10, random_state=0,
                                    n_constraints=30)])
def test_every_call_meets_the_kkt_conditions_on_everything_kept(make):
    X, y, batches = wine_batches(6)
    est = make()
    for b in batches:
        est.partial_fit(X[b], y[b])
        assert est.converged_ and est.max_violation_ <= est.tol
        # the kept constraints are met to tol relative to their slack targets
        st = est._stream
        M = st.state if st.divergence.name == "logdet" else np.asarray(
            _sym_exp(st.state))
        d = pair_sqdist(st.table, st.i, st.j, M)
        gap = st.sign * (d - st.xi) / st.xi
        assert gap.max() <= est.tol * (1 + 1e-9)


def _sym_exp(L):
    w, Q = np.linalg.eigh((L + L.T) / 2)
    return (Q * np.exp(w)) @ Q.T


def test_batch_duals_and_the_count_of_constraints():
    X, y, batches = wine_batches(4)
    est = ITMLTransformer(random_state=0, n_constraints=20)
    for k, b in enumerate(batches, 1):
        est.partial_fit(X[b], y[b])
        assert est.dual_coef_.shape == (len(est.constraints_),)
        assert est.n_constraints_seen_ == 20 * k
        np.testing.assert_array_equal(est.dual_coef_, est._stream.nu[-20:])
    # fit forgets the stream
    est.fit(X, y)
    assert not hasattr(est, "n_constraints_seen_") and not hasattr(est, "_stream")


def test_max_constraints_keeps_memory_fixed_and_the_last_constraints():
    rng = np.random.default_rng(0)
    centers = rng.normal(scale=2.0, size=(3, 5))
    est = ITMLTransformer(random_state=0, n_constraints=20, max_constraints=60,
                          bounds=(5.0, 20.0))
    sizes = []
    for _ in range(40):
        y = rng.integers(0, 3, 30)
        X = centers[y] + rng.normal(size=(30, 5))
        est.partial_fit(X, y)
        st = est._stream
        sizes.append(sum(a.nbytes for a in (st.i, st.j, st.sign, st.bound, st.nu,
                                            st.xi)))
        # the pairs' rows, once per batch: at most two per kept pair
        assert st.table.shape[0] <= 2 * len(st)
        assert len(st) <= 60 and est.n_constraints_kept_ <= 60
        assert est.converged_
    assert est.n_constraints_seen_ == 800
    assert st.n_retired == 800 - 60
    assert max(sizes[3:]) == min(sizes[3:])  # flat once the window is full
    # the kept ones are the last batch's (and the two before it)
    np.testing.assert_array_equal(est.dual_coef_, st.nu[-20:])


def test_partial_fit_after_fit_continues_from_the_fitted_metric():
    X, y, batches = wine_batches(2)
    for est in [ITMLTransformer(random_state=0, n_constraints=30),
                LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=10, random_state=0,
                                    n_constraints=30),
                VonNeumannKernelLearner(kernel="rbf", gamma=0.1, rank=10,
                                        random_state=0, n_constraints=30)]:
        est.fit(X[batches[0]], y[batches[0]])
        M, E = est.metric_.copy(), getattr(est, "embedding_", None)
        st = est.partial_fit(X[batches[1]], y[batches[1]])._stream
        # the stream's start is fit's metric: in the stream's coordinates
        # its state reproduces it before the new constraints moved it
        assert len(st) == est.n_constraints_kept_ == 30
        if E is not None:
            np.testing.assert_allclose(st.G0 @ components(M).T, E, atol=1e-9)
        assert est.converged_


def components(M):
    from sklearn_bregman._learners._base import components_from_metric
    return components_from_metric(M)


def test_repeatable_and_picklable_mid_stream():
    X, y, batches = wine_batches(4)
    a = LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=10, random_state=3)
    b = clone(a)
    for bb in batches[:2]:
        a.partial_fit(X[bb], y[bb])
        b.partial_fit(X[bb], y[bb])
    c = pickle.loads(pickle.dumps(a))
    for bb in batches[2:]:
        a.partial_fit(X[bb], y[bb])
        c.partial_fit(X[bb], y[bb])
        b.partial_fit(X[bb], y[bb])
    np.testing.assert_array_equal(a.metric_, b.metric_)
    np.testing.assert_array_equal(a.metric_, c.metric_)


def test_batches_of_given_pairs_and_new_points_through_the_factor():
    X, y, batches = wine_batches(3)
    est = LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=10, random_state=0)
    for b in batches:
        yb = y[b]
        i, j = np.triu_indices(len(b), 1)
        sign = np.where(yb[i] == yb[j], 1, -1)
        est.partial_fit(X[b], constraints=np.c_[i[:50], j[:50], sign[:50]])
        assert len(est.constraints_) == 50
    assert est.n_constraints_seen_ == 150 and est.converged_


def test_errors_name_what_a_stream_takes():
    X, y, batches = wine_batches(2)
    est = LogDetKernelLearner(random_state=0)
    rel = RelativeConstraints([0], [1], [0], [2], ratio=2.0)
    est.partial_fit(X[:20], y[:20])  # a stream of pairs
    with pytest.raises(ValueError, match="this stream learns from pair constraints"):
        est.partial_fit(X[20:40], constraints=rel)
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[20:40, :5], y[20:40])
    with pytest.raises(ValueError, match="max_constraints"):
        ITMLTransformer(max_constraints=0).partial_fit(X, y)


def _triplets_of(y, rng, m):
    """m triplets (a, b, c) with a, b of one class and c of another."""
    out = []
    while len(out) < m:
        a, b, c = rng.integers(0, len(y), 3)
        if y[a] == y[b] and y[a] != y[c] and len({a, b, c}) == 3:
            out.append((a, b, c))
    return np.array(out)


@pytest.mark.parametrize("slack", [1.0, 10.0])
def test_a_stream_of_triplets_equals_fit_on_the_union(slack):
    # the general rows (Section 6.2.2) stream as the pairs do: LogDet on the
    # first call's factor, against fit on the union in its coordinates
    X, y, batches = wine_batches(8)
    rng = np.random.default_rng(0)
    est = LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=15, slack=slack,
                              random_state=0, **TIGHT)
    union = []
    for b in batches:
        t = _triplets_of(y[b], rng, 15)
        est.partial_fit(X[b], triplets=t)
        assert est.converged_
        union.append(b[t])
    union = np.vstack(union)
    assert est.n_constraints_seen_ == 2 * len(union)  # two relative rows each
    Phi = est.factor_.transform(X)
    ref = LogDetKernelLearner(kernel="linear", slack=slack, random_state=1,
                              **TIGHT).fit(Phi, triplets=union)
    assert ref.converged_
    assert relative_error(est.learned_kernel(X), ref.learned_kernel(Phi)) < 1e-6


def test_relative_labels_and_mixed_kinds_stream_as_rows():
    X, y, batches = wine_batches(4)
    est = VonNeumannKernelLearner(kernel="rbf", gamma=0.05, rank=10, random_state=0,
                                  label_constraints="relative", n_constraints=30)
    for b in batches[:2]:
        est.partial_fit(X[b], y[b])
        assert est.converged_ and len(est.dual_coef_) == 30
    # pairs join a stream of rows as rows; a list of kinds too
    b = batches[2]
    est.partial_fit(X[b], constraints=PairConstraints([0, 1], [2, 3], [1, -1]))
    rel = RelativeConstraints([0], [1], [0], [2], ratio=1.5)
    est.partial_fit(X[batches[3]], constraints=[rel, PairConstraints([4], [5], [1])])
    assert est.n_constraints_seen_ == 30 + 30 + 2 + 2
    assert est.converged_


@pytest.mark.parametrize("first", ["triplets", "rows"])
def test_every_form_of_a_batch_joins_a_stream_of_rows(first):
    # Issue 34's reproductions: a stream of relative rows (from triplets or
    # a RelativeConstraints) takes pairs as an array as it takes the same
    # pairs as a PairConstraints, and a batch of labels is drawn as
    # label_constraints says, whatever the stream's kind.
    X, y, batches = wine_batches(3)

    def started(label_constraints):
        est = LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=10, n_constraints=30,
                                  label_constraints=label_constraints, random_state=0)
        if first == "triplets":
            est.partial_fit(X[batches[0]], triplets=np.array([[0, 1, 2], [3, 4, 5]]))
        else:
            est.partial_fit(X[batches[0]],
                            constraints=RelativeConstraints([0], [1], [0], [2], ratio=1.5))
        return est

    seen = started("pairs").n_constraints_seen_
    as_array = started("pairs").partial_fit(
        X[batches[1]], constraints=np.array([[0, 1, 1], [2, 9, -1]]))
    as_container = started("pairs").partial_fit(
        X[batches[1]], constraints=PairConstraints([0, 2], [1, 9], [1, -1]))
    assert as_array.n_constraints_seen_ == seen + 2
    np.testing.assert_array_equal(as_array.learned_kernel(X), as_container.learned_kernel(X))

    for kind, drawn in [("pairs", PairConstraints), ("relative", RelativeConstraints)]:
        est = started(kind).partial_fit(X[batches[1]], y[batches[1]])
        (batch,) = est.constraints_
        assert type(batch) is drawn
        assert len(batch) == 30 and est.n_constraints_seen_ == seen + 30
        assert est.converged_


def test_triplet_classifier_passes_the_stream_on():
    from sklearn_bregman import SKLRClusterer, TripletClassifier

    X, y, batches = wine_batches(3)
    rng = np.random.default_rng(1)
    clf = TripletClassifier(LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=10,
                                                random_state=0))
    for b in batches:
        t = _triplets_of(y[b], rng, 40)
        clf.partial_fit(X[b][t])
        assert clf.estimator_.converged_
    assert clf.estimator_.n_constraints_seen_ == 2 * 40 * 3
    assert clf.score(X[b][t]) > 0.9
    # SKLR has no stream to pass the triplets on to
    assert not hasattr(TripletClassifier(SKLRClusterer()), "partial_fit")


def test_dask_batches_are_refused():
    da = pytest.importorskip("dask.array")
    X, y, _ = wine_batches(2)
    with pytest.raises(ValueError, match="partial_fit"):
        ITMLTransformer().partial_fit(da.from_array(X, chunks=50), y)


def test_pair_classifier_passes_the_stream_on():
    X, y, batches = wine_batches(3)
    rng = np.random.default_rng(0)
    clf = PairClassifier(LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=10,
                                             random_state=0))
    for b in batches:
        i, j = rng.integers(0, len(b), (2, 60))
        keep = i != j
        pairs = np.stack([X[b][i[keep]], X[b][j[keep]]], axis=1)
        lab = np.where(y[b][i[keep]] == y[b][j[keep]], 1, -1)
        clf.partial_fit(pairs, lab)
        assert clf.estimator_.converged_
    assert clf.estimator_.n_constraints_seen_ == clf.estimator_.n_constraints_kept_
    assert clf.score(pairs, lab) > 0.7
    # DefiniteBoost's partial_fit takes pairs with the same contract (MEG steps)
    assert hasattr(PairClassifier(DefiniteBoost()), "partial_fit")


def test_zero_length_pairs_are_reported_once_and_held_to_their_bounds():
    X, y, batches = wine_batches(3)
    Xd = X.copy()
    b0 = batches[0]
    Xd[b0[1]] = Xd[b0[0]]
    est = ITMLTransformer(random_state=0)
    # a similar pair at distance 0 holds whatever the metric
    with pytest.warns(UserWarning, match="identical points"):
        est.partial_fit(Xd[b0], constraints=[[0, 1, 1], [0, 2, -1]])
    assert est.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.partial_fit(X[batches[1]], y[batches[1]])
    assert est.converged_ and est.n_constraints_kept_ == est.n_constraints_seen_
    # a dissimilar one (bound > 0) can never hold: the stream says so, call
    # after call
    with pytest.warns(UserWarning, match="identical points"), \
            pytest.warns(ConvergenceWarning, match="cannot be met"):
        est.partial_fit(Xd[b0], constraints=[[0, 1, -1, 1.0]])
    assert not est.converged_ and est.max_violation_ >= 1.0
    with pytest.warns(ConvergenceWarning, match="cannot be met"):
        est.partial_fit(X[batches[2]], y[batches[2]])
    assert not est.converged_


# --------------------------------------------------------------------------
# Every learner's partial_fit, through the classes of input and of call
# sequence users produce (shared/SURFACE.md)
# --------------------------------------------------------------------------

def _streamers():
    return {
        "ITML": lambda: ITMLTransformer(n_constraints=30, random_state=0),
        "LogDet": lambda: LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=8,
                                              n_constraints=30, random_state=0),
        "vonNeumann": lambda: VonNeumannKernelLearner(kernel="rbf", gamma=0.1, rank=8,
                                                      n_constraints=30, random_state=0),
        "LogDet rows": lambda: LogDetKernelLearner(
            kernel="rbf", gamma=0.1, rank=8, n_constraints=30, label_constraints="relative",
            random_state=0),
        "DefiniteBoost": lambda: DefiniteBoost(kernel="rbf", gamma=0.1, rank=8,
                                               n_constraints=30, random_state=0),
    }


def _forms():
    import pandas as pd
    import scipy.sparse as sp

    return {
        "csr_matrix": sp.csr_matrix, "csc_array": sp.csc_array, "coo_matrix": sp.coo_matrix,
        "lil_array": sp.lil_array, "dataframe": pd.DataFrame, "list": lambda A: A.tolist(),
        "float32": lambda A: A.astype(np.float32),
    }


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("form", sorted(_forms()))
@pytest.mark.parametrize("learner", sorted(_streamers()))
def test_every_streamer_takes_every_input_form_as_its_dense_copy(learner, form):
    """Batches as sparse matrices and arrays (every format), a DataFrame, a
    list, float32: the model of the dense stream (to float32's rounding),
    and the user's batch unchanged."""
    X, y, batches = wine_batches(3)
    dense, other = _streamers()[learner](), _streamers()[learner]()
    convert = _forms()[form]
    for b in batches:
        given = convert(X[b])
        before = pickle.dumps(given)
        dense.partial_fit(X[b], y[b])
        other.partial_fit(given, y[b])
        assert pickle.dumps(given) == before  # the user's object is untouched
    rtol = 1e-4 if form == "float32" else 1e-10
    assert relative_error(other.metric_, dense.metric_) <= rtol
    np.testing.assert_allclose(other.transform(X), dense.transform(X),
                               atol=rtol * np.abs(dense.transform(X)).max())


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("learner", sorted(_streamers()))
def test_every_streamer_refuses_bad_batches_and_continues_after_copies(learner):
    """NaN and inf in a later batch, one sample, features of another number:
    refused with a message naming the input; a clone is unfitted; a pickle,
    a deep copy and a shallow copy taken mid-stream continue exactly as the
    original (shallow copies share nothing a call changes in place)."""
    import copy

    X, y, batches = wine_batches(4)
    est = _streamers()[learner]()
    est.partial_fit(X[batches[0]], y[batches[0]])
    bad = X[batches[1]].copy()
    bad[0, 0] = np.nan
    for batch, match in ((bad, "NaN"), (np.where(bad == bad, bad, np.inf), "infinity"),
                         (X[:1], "sample"), (X[batches[1], :5], "features")):
        with pytest.raises(ValueError, match=match):
            est.partial_fit(batch, y[batches[1]][:len(batch)])
    assert not hasattr(clone(est), "metric_")
    copies = [pickle.loads(pickle.dumps(est)), copy.deepcopy(est), copy.copy(est)]
    for b in batches[1:]:
        for e in [est, *copies]:
            e.partial_fit(X[b], y[b])
    for c in copies:
        np.testing.assert_array_equal(c.metric_, est.metric_)
    # fit after partial_fit forgets the stream; partial_fit after fit continues
    est.fit(X, y)
    assert not hasattr(est, "n_constraints_seen_") or learner == "DefiniteBoost"
    est.partial_fit(X[batches[0]], y[batches[0]])
    assert np.isfinite(est.transform(X)).all()


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("start", ["partial_fit", "fit"])
@pytest.mark.parametrize("random_state", ["RandomState(0)", "None"])
@pytest.mark.parametrize("learner", sorted(_streamers()))
def test_a_stream_draws_from_its_own_copy_from_the_first_call(learner, random_state,
                                                              start):
    """A random_state given as a RandomState (or None, NumPy's global one) is
    copied by the call that fixes a stream's random stream (its first
    partial_fit, or the fit it continues), as every later call copies the
    stream's: the user drawing from their generator between calls changes
    nothing in how the stream continues, and a pickle taken after that call
    continues exactly as the original."""
    X, y, batches = wine_batches(4)
    rng = np.random.mtrand._rand  # (None draws from it)
    saved = rng.get_state()
    # the call that fixes the stream's random stream: a stream's first call;
    # after fit, the fit itself for DefiniteBoost (its partial_fit continues
    # fit's), the first partial_fit for the others (a fresh one then)
    first = 2 if start == "fit" and learner != "DefiniteBoost" else 1
    try:
        ends = []
        for user_draws in (False, True):
            rng.seed(0)
            rs = np.random.RandomState(0) if random_state != "None" else None
            est = _streamers()[learner]().set_params(random_state=rs)
            getattr(est, start)(X[batches[0]], y[batches[0]])
            if first == 2:
                est.partial_fit(X[batches[1]], y[batches[1]])
            kept = pickle.loads(pickle.dumps(est))
            if user_draws:
                (rs or rng).uniform(size=5)  # the user's own draw between calls
            for b in batches[first:]:
                est.partial_fit(X[b], y[b])
                kept.partial_fit(X[b], y[b])
            np.testing.assert_array_equal(kept.transform(X), est.transform(X))
            ends.append(est.transform(X))
        np.testing.assert_array_equal(ends[1], ends[0])
    finally:
        rng.set_state(saved)


@pytest.mark.parametrize("kind", ["pairs", "triplets"])
def test_tuple_classifiers_honour_or_refuse_set_params_between_calls(kind):
    # SURFACE.md: set_params between partial_fit calls is honoured or refused with a
    # message naming the parameter, never silently kept at its old value (the pair and
    # triplet classifiers kept the inner learner's old parameters)
    from sklearn_bregman import TripletClassifier

    X, y, batches = wine_batches(4)
    rng = np.random.default_rng(0)

    def batch(b):
        if kind == "triplets":
            return (X[b][_triplets_of(y[b], rng, 30)],)
        i, j = rng.integers(0, len(b), (2, 60))
        keep = i != j
        return (np.stack([X[b][i[keep]], X[b][j[keep]]], axis=1),
                np.where(y[b][i[keep]] == y[b][j[keep]], 1, -1))

    inner = LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=10, random_state=0)
    clf = (PairClassifier(inner) if kind == "pairs" else TripletClassifier(inner))
    clf.partial_fit(*batch(batches[0]))
    clf.set_params(estimator__tol=1e-8)  # honoured: a parameter of the sweeps
    clf.partial_fit(*batch(batches[1]))
    assert clf.estimator_.tol == 1e-8 and clf.estimator_.converged_
    clf.set_params(estimator__gamma=3.0)  # refused by name: the stream fixed the kernel
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match="gamma changed since the call that fixed it"):
        clf.partial_fit(*batch(batches[2]))
    assert pickle.dumps(clf) == before
    clf.set_params(estimator=VonNeumannKernelLearner())
    with pytest.raises(ValueError, match="partial_fit: estimator is now a VonNeumann"):
        clf.partial_fit(*batch(batches[2]))
    clf.set_params(estimator=LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=10,
                                                 random_state=0, max_iter=5000))
    clf.partial_fit(*batch(batches[3]))
    assert clf.estimator_.max_iter == 5000
