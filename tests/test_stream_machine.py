"""A stateful property test of the streams (hypothesis' RuleBasedStateMachine).

Random sequences of ``partial_fit`` batches (labels, pairs as an array or a
PairConstraints; dense, every sparse format, float32, a DataFrame, a list),
interleaved with refused calls, ``set_params`` of a parameter the stream
fixed (refused, then set back), ``set_params`` of one it honours, pickling,
deep copies, ``clone`` and ``fit``.  After every step:

- sparse equals dense: a shadow stream fed the dense float64 copy of every
  batch learns the same kernel (on fixed probe points, to 1e-8 relative);
- ``converged_`` only when every kept constraint holds to ``tol`` (relative
  to its target, slack included), recomputed from the stream's own rows,
  state and targets;
- a refused call leaves the stream bitwise as it was (its pickle);

and whenever the machine asks: with nothing retired, the stream equals a
``fit`` on the union of its constraints (ITML; LogDet on the first call's
factor coordinates, invariant under congruence; von Neumann in the first
call's basis, through the engine) to 1e-6 at tight ``tol``.
"""

import copy
import pickle

import numpy as np
import pandas as pd
import scipy.sparse as sp
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import (
    ITMLTransformer,
    LogDetKernelLearner,
    PairConstraints,
    VonNeumannKernelLearner,
)
from sklearn_bregman._engine import pair_projections
from sklearn_bregman._learners._base import metric_from_log
from sklearn_bregman.constraints import pair_sqdist

X_ALL, Y_ALL = load_wine(return_X_y=True)
X_ALL = StandardScaler().fit_transform(X_ALL)
TIGHT = dict(tol=1e-10, max_iter=100_000)
PROBE = X_ALL[::6]

LEARNERS = {
    "ITML": lambda: ITMLTransformer(n_constraints=12, random_state=0, **TIGHT),
    "LogDet-linear": lambda: LogDetKernelLearner(n_constraints=12, random_state=0, **TIGHT),
    "LogDet-rbf": lambda: LogDetKernelLearner(kernel="rbf", gamma=0.05, rank=8,
                                              n_constraints=12, random_state=0, **TIGHT),
    "vonNeumann": lambda: VonNeumannKernelLearner(kernel="rbf", gamma=0.05, rank=8,
                                                  n_constraints=12, random_state=0, **TIGHT),
}

FORMS = {
    "dense": lambda A: A, "csr_matrix": sp.csr_matrix, "csc_array": sp.csc_array,
    "coo_matrix": sp.coo_matrix, "lil_array": sp.lil_array, "dok_matrix": sp.dok_matrix,
    "float32": lambda A: A.astype(np.float32), "DataFrame": pd.DataFrame,
    "list": lambda A: A.tolist(),
}


def _dense_copy(given):
    """What the package reads of a batch, as a float64 array."""
    if sp.issparse(given):
        return given.toarray().astype(np.float64)
    return np.asarray(given, dtype=np.float64)


def _sym_exp(L):
    w, Q = np.linalg.eigh((L + L.T) / 2)
    return (Q * np.exp(w)) @ Q.T


class StreamMachine(RuleBasedStateMachine):
    """One stream, its dense shadow, and the union of its constraints."""

    @initialize(kind=st.sampled_from(sorted(LEARNERS)), seed=st.integers(0, 2**16))
    def start(self, kind, seed):
        self.kind = kind
        self.est, self.shadow = LEARNERS[kind](), LEARNERS[kind]()
        self.rng = np.random.default_rng(seed)
        self.points = []  # the batches' points, in order (the union's X)
        self.union = []  # rows (i, j, sign, bound) over the stacked points
        self.exact = True  # nothing retired, no fit in between: the union holds
        self._batch(30, "dense", "labels")  # every stream has started

    # -- steps ---------------------------------------------------------------

    @rule(size=st.integers(15, 40), form=st.sampled_from(sorted(FORMS)))
    def batch_of_labels(self, size, form):
        self._batch(size, form, "labels")

    @rule(size=st.integers(15, 40), form=st.sampled_from(sorted(FORMS)),
          source=st.sampled_from(["array", "container"]))
    def batch_of_pairs(self, size, form, source):
        self._batch(size, form, source)

    def _batch(self, size, form, source):
        idx = self.rng.choice(len(X_ALL), size, replace=False)
        Xb, yb = X_ALL[idx], Y_ALL[idx]
        if np.unique(yb).size < 2:
            return
        given = FORMS[form](Xb)
        kwargs = {"y": yb}
        if source != "labels":
            i, j = self.rng.choice(size, (2, 6))
            keep = i != j
            pairs = np.c_[i[keep], j[keep], np.where(yb[i[keep]] == yb[j[keep]], 1, -1)]
            if not len(pairs):
                return
            kwargs = {"constraints": pairs if source == "array" else PairConstraints(*pairs.T)}
        self.est.partial_fit(given, **kwargs)
        self.shadow.partial_fit(_dense_copy(given), **kwargs)
        c = self.est.constraints_
        offset = sum(len(p) for p in self.points)
        self.points.append(_dense_copy(given))
        self.union.append(np.c_[offset + c.i, offset + c.j, c.sign, c.bound])

    @precondition(lambda self: hasattr(self.est, "_stream"))
    @rule(which=st.integers(0, 4))
    def refused(self, which):
        calls = [
            lambda e: e.partial_fit(np.full((10, X_ALL.shape[1]), np.nan), Y_ALL[:10]),
            lambda e: e.partial_fit(X_ALL[:10, :3], Y_ALL[:10]),
            lambda e: e.partial_fit(X_ALL[:10], np.zeros(10, int)),
            lambda e: e.partial_fit(X_ALL[:10], constraints=[[0, 99, 1]]),
            lambda e: e.partial_fit(X_ALL[:10], triplets=[[0, 1, 2]]),
        ]
        before = pickle.dumps(self.est)
        try:
            calls[which](self.est)
        except (ValueError, TypeError):  # (ITML takes no triplets= at all)
            pass
        else:
            raise AssertionError(f"refused call {which} was taken")
        assert pickle.dumps(self.est) == before

    @precondition(lambda self: hasattr(self.est, "_stream"))
    @rule()
    def a_fixed_parameter_changed_is_refused(self):
        before = pickle.dumps(self.est)
        slack = self.est.slack
        self.est.set_params(slack=2 * slack)
        try:
            self.est.partial_fit(X_ALL[::9], Y_ALL[::9])  # (a batch it would take)
        except ValueError as exc:
            assert "slack changed since the call" in str(exc)
        else:
            raise AssertionError("a changed slack was taken mid-stream")
        self.est.set_params(slack=slack)
        assert pickle.dumps(self.est) == before

    @rule(max_iter=st.sampled_from([100_000, 200_000]))
    def an_honoured_parameter(self, max_iter):
        # (honoured by the next call; the tight runs converge well before)
        self.est.set_params(max_iter=max_iter)
        self.shadow.set_params(max_iter=max_iter)

    @precondition(lambda self: hasattr(self.est, "_stream"))
    @rule(how=st.sampled_from(["pickle", "deepcopy", "copy"]))
    def a_copy_continues(self, how):
        self.est = {"pickle": lambda e: pickle.loads(pickle.dumps(e)),
                    "deepcopy": copy.deepcopy, "copy": copy.copy}[how](self.est)

    @rule()
    def clone_is_unfitted(self):
        assert not hasattr(clone(self.est), "metric_")

    @precondition(lambda self: self.points)
    @rule()
    def fit_in_between(self):
        X = np.vstack(self.points)
        rows = np.vstack(self.union)
        pairs = PairConstraints(rows[:, 0].astype(int), rows[:, 1].astype(int),
                                rows[:, 2].astype(int), rows[:, 3])
        self.est.fit(X, constraints=pairs)
        self.shadow.fit(X, constraints=pairs)
        # fit's constraints are retired by a later partial_fit: no union check
        self.exact = False

    # -- what holds after every step ------------------------------------------

    @invariant()
    def sparse_equals_dense(self):
        # the learned kernels on fixed points (metric_ is in the coordinates of
        # each stream's factor: a sparse X is factored from pivots)
        if hasattr(self.est, "metric_"):
            Za, Zb = self.est.transform(PROBE), self.shadow.transform(PROBE)
            a, b = Za @ Za.T, Zb @ Zb.T
            assert np.abs(a - b).max() <= 1e-8 * max(np.abs(b).max(), 1.0)

    @invariant()
    def converged_means_the_kept_constraints_hold(self):
        st_ = getattr(self.est, "_stream", None)
        if st_ is None or not self.est.converged_ or not len(st_):
            return
        M = (_sym_exp(st_.state) if st_.divergence.name == "vonneumann" else st_.state)
        d = pair_sqdist(st_.table, st_.i, st_.j, M)
        live = ~st_.skipped
        gap = st_.sign[live] * (d[live] - st_.xi[live]) / st_.xi[live]
        assert gap.max(initial=0.0) <= self.est.tol * (1 + 1e-6) + 1e-12

    @precondition(lambda self: self.exact and hasattr(self.est, "_stream"))
    @rule()
    def the_stream_is_the_union(self):
        est = self.est
        if est.n_constraints_kept_ != est.n_constraints_seen_:
            return
        X = np.vstack(self.points)
        rows = np.vstack(self.union)
        pairs = PairConstraints(rows[:, 0].astype(int), rows[:, 1].astype(int),
                                rows[:, 2].astype(int), rows[:, 3])
        if isinstance(est, ITMLTransformer):
            ref = ITMLTransformer(slack=est.slack, random_state=1, **TIGHT).fit(
                X, constraints=pairs)
            target, got = ref.metric_, est.metric_
        elif isinstance(est, VonNeumannKernelLearner):
            s, Vt = est._stream.basis
            U = est.factor_.transform(X) @ Vt.T / s
            res = pair_projections(U, pairs, np.diag(2 * np.log(s)), divergence="vonneumann",
                                   slack=est.slack, order="cyclic", **TIGHT)
            target, got = metric_from_log(res.state, s, Vt), est.metric_
        else:
            Phi = est.factor_.transform(X)
            ref = LogDetKernelLearner(kernel="linear", random_state=1, **TIGHT).fit(
                Phi, constraints=pairs)
            target, got = ref.learned_kernel(Phi), est.learned_kernel(X)
        assert np.abs(got - target).max() <= 1e-6 * np.abs(target).max()


#: 150 sequences of up to 20 steps: about 570 batches, 250 refused calls and
#: 115 comparisons with the union per run, 8-10 s on the CI machine.
TestStreamMachine = StreamMachine.TestCase
TestStreamMachine.settings = settings(
    max_examples=150, stateful_step_count=20, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
