"""Property tests of the newer surface: random tuples through every input
form, and random dask chunkings.

- The same pairs given as points, as indices into an array preprocessor and
  as identifiers through a callable preprocessor fit the same model and
  score held-out pairs alike (or every form raises the same kind of error).
- On a real ``LocalCluster``, a learner fitted on a dask array of random
  chunk sizes learns the M of the in-memory fit (same pivots, pairs, bounds).
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from sklearn_bregman import ITMLTransformer, LogDetKernelLearner, PairClassifier

X_POOL = np.random.default_rng(0).normal(size=(40, 3))
Y_POOL = np.arange(40) % 3


@st.composite
def pair_sets(draw):
    m = draw(st.integers(4, 30))
    i = draw(st.lists(st.integers(0, 39), min_size=m, max_size=m))
    j = draw(st.lists(st.integers(0, 39), min_size=m, max_size=m))
    pairs = np.array([(a, b) for a, b in zip(i, j) if a != b])
    if len(pairs) < 2:
        pairs = np.array([[0, 1], [2, 3]])
    y = np.where(Y_POOL[pairs[:, 0]] == Y_POOL[pairs[:, 1]], 1, -1)
    if np.unique(y).size == 1:  # one class of pairs: flip one label
        y[0] = -y[0]
    return pairs, y


@settings(max_examples=25, deadline=None)
@given(data=pair_sets(), learner=st.sampled_from(["itml", "logdet"]))
def test_every_input_form_of_the_same_pairs_fits_the_same_model(data, learner):
    pairs, y = data
    make = {"itml": lambda: ITMLTransformer(random_state=0, bounds="relative"),
            "logdet": lambda: LogDetKernelLearner(random_state=0)}[learner]
    names = np.array([f"p{k:02d}" for k in range(40)])
    lookup = dict(zip(names, X_POOL))
    forms = [
        (PairClassifier(make(), threshold=-1.0), X_POOL[pairs]),
        (PairClassifier(make(), threshold=-1.0,
                        preprocessor=lambda ids: np.array([lookup[k] for k in ids])),
         names[pairs]),
    ]
    outcomes = []
    for clf, tuples in forms:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", UserWarning)
            try:
                clf.fit(tuples, y)
            except ValueError as err:
                outcomes.append(("error", type(err)))
                continue
        test = X_POOL[np.array([[0, 5], [7, 9], [11, 30]])]
        outcomes.append(("fit", clf.decision_function(test)))
    kinds = {o[0] for o in outcomes}
    assert len(kinds) == 1, outcomes
    if kinds == {"fit"}:
        np.testing.assert_allclose(outcomes[0][1], outcomes[1][1], rtol=1e-9, atol=1e-12)


@st.composite
def chunkings(draw, n=600):
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), min_size=0, max_size=6))))
    sizes = np.diff([0, *cuts, n])
    return tuple(int(s) for s in sizes)


@pytest.mark.filterwarnings("ignore::UserWarning")
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks=chunkings())
def test_random_dask_chunkings_learn_the_in_memory_metric(client, chunks):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 4))
    y = rng.integers(0, 3, 600)
    kw = dict(kernel="rbf", gamma=0.2, rank=12, n_constraints=60, random_state=0)
    a = LogDetKernelLearner(**kw).fit(X, y)
    b = LogDetKernelLearner(**kw).fit(da.from_array(X, chunks=(chunks, 4)),
                                      da.from_array(y, chunks=chunks))
    np.testing.assert_array_equal(a.factor_.pivots_, b.factor_.pivots_)
    np.testing.assert_allclose(b.metric_, a.metric_, rtol=1e-10,
                               atol=1e-10 * np.abs(a.metric_).max())
