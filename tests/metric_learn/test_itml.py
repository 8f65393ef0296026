"""Port of the ITML parts of metric-learn's test/metric_learn_test.py
(https://github.com/scikit-learn-contrib/metric-learn, MIT licence,
Copyright (c) 2015 CJ Carey and Yuan Tang) to sklearn_bregman's names.

Names: metric-learn's ``ITML_Supervised`` (``fit(X, y)``) is
``ITMLTransformer``; its ``ITML`` (``fit(pairs, y_pairs)``) is
``PairClassifier(ITMLTransformer())``.  metric-learn's ``bounds`` is an
argument of ``fit`` (``None``: the 5th and 95th percentiles of the
distances; or any array-like of two elements, the upper bound of similar
pairs and the lower bound of dissimilar pairs); ours is the constructor's
``bounds`` ({'percentile', 'relative'} or ``(upper, lower)``, bounds on the
squared distance), the bounds used are ``constraints_.bound`` (metric-learn:
``bounds_``).  metric-learn's ``verbose=True`` output is ours one line per
sweep, ``[ITMLTransformer] sweep k: dual change ..., satisfied ...``;
metric-learn's failure to converge, a ``ConvergenceWarning``, is
scikit-learn's ``sklearn.exceptions.ConvergenceWarning`` here too.
``class_separation`` is metric-learn's.

metric-learn's test_verbose, test_no_verbose and test_convergence_warning
are parametrized with NCA and MLKR only (in every version of the file):
their ITML counterparts below apply the same checks to our ITML, on labels
and on pairs.

Not ported: nothing else of metric-learn's ITML tests (its other tests are
about learners without a counterpart here: Covariance, LSML, LMNN, SDML,
NCA, LFDA, RCA, MLKR, MMC, SCML).
"""

import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.utils import shuffle

from sklearn_bregman import ITMLTransformer, PairClassifier
from sklearn_bregman._utils._sklearn_compat import InvalidParameterError
from sklearn_bregman.constraints import pairs_from_labels

SEED = 42


def class_separation(X, labels):
    """Mean over the classes of (mean distance within the class) / (mean distance
    to the other classes): smaller is better separated."""
    unique_labels, label_inds = np.unique(labels, return_inverse=True)
    ratio = 0
    for li in range(len(unique_labels)):
        Xc = X[label_inds == li]
        Xnc = X[label_inds != li]
        ratio += pairwise_distances(Xc).mean() / pairwise_distances(Xc, Xnc).mean()
    return ratio / len(unique_labels)


# ports: TestITML.test_iris
def test_iris():
    X, y = load_iris(return_X_y=True)
    # Euclidean, the classes are not that well separated (this is what ITML improves)
    assert class_separation(X, y) > 0.29
    itml = ITMLTransformer(n_constraints=200, random_state=SEED).fit(X, y)
    assert itml.converged_
    csep = class_separation(itml.transform(X), y)
    assert csep < 0.2


# -- bounds ------------------------------------------------------------------------

# metric-learn's toy problems: two pairs, and four labelled points
PAIRS = np.array([[[-10.0, 0.0], [10.0, 0.0]], [[0.0, 50.0], [0.0, -60.0]]])
Y_PAIRS = [1, -1]
X_TOY = np.array([[0, 0], [0, 1], [2, 0], [2, 1]])
Y_TOY = np.array([1, 0, 1, 0])

def fitted_both_ways(bounds):
    """ITML fitted on the toy pairs and ITML_Supervised on the toy points with
    ``bounds``: the two fitted ITMLTransformer."""
    itml = PairClassifier(ITMLTransformer(bounds=bounds, random_state=SEED))
    itml_supervised = ITMLTransformer(bounds=bounds, random_state=SEED)
    return (itml.fit(PAIRS, Y_PAIRS).estimator_,
            itml_supervised.fit(X_TOY, Y_TOY))


# ports: test_bounds_parameters_valid
@pytest.mark.parametrize("bounds", [
    (20.0, 100.0), [20.0, 100.0], np.array([20.0, 100.0]),
    np.array([[20.0, 100.0]]), np.array([[20], [100]]),
], ids=["tuple", "list", "array", "array-1x2", "array-2x1"])
def test_bounds_parameters_valid(bounds):
    # any array-like of two elements is (upper, lower), and the bounds used are an array
    for itml in fitted_both_ways(bounds):
        bound = itml.constraints_.bound
        assert isinstance(bound, np.ndarray)
        sign = itml.constraints_.sign
        assert (sign == 1).any() and (sign == -1).any()
        assert (bound[sign == 1] == 20.0).all()
        assert (bound[sign == -1] == 100.0).all()


# ports: test_bounds_parameters_valid (its bounds=None case)
def test_bounds_percentile():
    # differs on purpose: metric-learn's bounds=None (the 5th / 95th percentiles) is
    # named here, bounds='percentile' (the default); None is refused
    assert ITMLTransformer().bounds == "percentile"
    for itml in fitted_both_ways("percentile"):
        bound, sign = itml.constraints_.bound, itml.constraints_.sign
        upper, lower = np.unique(bound[sign == 1]), np.unique(bound[sign == -1])
        assert len(upper) == len(lower) == 1
        assert 0 < upper[0] < lower[0]
    with pytest.raises(InvalidParameterError, match="The 'bounds' parameter of "
                       "ITMLTransformer must be a str among .* Got None instead."):
        ITMLTransformer(bounds=None).fit(X_TOY, Y_TOY)


# ports: test_bounds_parameters_invalid
@pytest.mark.parametrize("bounds, error, message", [
    ("weird", InvalidParameterError,
     "The 'bounds' parameter of ITMLTransformer must be a str among"),
    (["weird1", "weird2"], ValueError,
     "bounds must be 'percentile', 'relative' or two numbers (upper, lower); got "
     "['weird1', 'weird2']."),
    (np.array([1, 2, 3]), ValueError,
     "bounds must be 'percentile', 'relative' or two numbers (upper, lower); got "
     "array([1, 2, 3])."),
], ids=["str", "list-of-str", "three"])
def test_bounds_parameters_invalid(bounds, error, message):
    # a string that is no rule, or an array-like of other than two numbers, is refused
    # (metric-learn: any Exception; ours: a ValueError that says what bounds takes)
    itml = PairClassifier(ITMLTransformer(bounds=bounds))
    with pytest.raises(error, match=re.escape(message)):
        itml.fit(PAIRS, Y_PAIRS)
    itml_supervised = ITMLTransformer(bounds=bounds)
    with pytest.raises(error, match=re.escape(message)):
        itml_supervised.fit(X_TOY, Y_TOY)


# -- verbose and convergence --------------------------------------------------------


def iris_pairs():
    X, labels = shuffle(*load_iris(return_X_y=True), random_state=SEED)
    pc = pairs_from_labels(labels, 100, random_state=SEED)
    return X[np.column_stack([pc.i, pc.j])], np.asarray(pc.sign, dtype=int)


ITML_CASES = [
    (ITMLTransformer(random_state=SEED), lambda: load_iris(return_X_y=True)),
    (PairClassifier(ITMLTransformer(random_state=SEED)), iris_pairs),
]
ITML_IDS = ["ITMLTransformer", "PairClassifier-ITMLTransformer"]


def inner(model):
    return model.estimator_ if hasattr(model, "estimator_") else model


def set_inner(model, **params):
    prefix = "estimator__" if isinstance(model, PairClassifier) else ""
    return clone(model).set_params(**{prefix + k: v for k, v in params.items()})


# ports: test_verbose (its pattern; metric-learn parametrizes NCA and MLKR)
@pytest.mark.parametrize("model, dataset", ITML_CASES, ids=ITML_IDS)
def test_verbose(model, dataset, capsys):
    # assert there is proper output when verbose = True
    data, y = dataset()
    model = set_inner(model, verbose=True).fit(data, y)
    out, _ = capsys.readouterr()
    lines = out.split("\n")
    # differs on purpose: one line per sweep, no header table and no "Training took"
    # line (metric-learn's NCA / MLKR); the last line is empty
    assert lines[-1] == ""
    n_iter = inner(model).n_iter_
    assert len(lines) - 1 == n_iter > 1
    for k, line in enumerate(lines[:-1], start=1):
        # e.g. '[ITMLTransformer] sweep 3: dual change 1.193e-01, satisfied 31.1%
        # (112/360), 0.00s'
        assert re.fullmatch(
            rf"\[ITMLTransformer\] sweep {k}: dual change \d\.\d{{3}}e[+-]\d+, "
            r"satisfied \d+\.\d% \(\d+/\d+\), \d+\.\d{2}s", line), line


# ports: test_no_verbose (its pattern; metric-learn parametrizes NCA and MLKR)
@pytest.mark.parametrize("model, dataset", ITML_CASES, ids=ITML_IDS)
def test_no_verbose(model, dataset, capsys):
    # assert by default there is no output (verbose=False)
    data, y = dataset()
    model = clone(model).fit(data, y)
    out, _ = capsys.readouterr()
    assert out == ""
    assert inner(model).n_iter_ > 1  # (it did sweep)


# ports: test_convergence_warning (its pattern; metric-learn parametrizes NCA and MLKR)
@pytest.mark.parametrize("verbose", [True, False])
@pytest.mark.parametrize("model, dataset", ITML_CASES, ids=ITML_IDS)
def test_convergence_warning(model, dataset, verbose):
    data, y = dataset()
    model = set_inner(model, max_iter=2, verbose=verbose)
    # differs on purpose: the message starts "ITMLTransformer did not converge", without
    # metric-learn's verbose prefix "[NCA] " (it is a warning, verbose or not)
    msg = "ITMLTransformer did not converge in max_iter=2 sweeps"
    with pytest.warns(ConvergenceWarning) as raised_warning:
        model.fit(data, y)
    assert any(str(warn.message).startswith(msg) for warn in raised_warning)
    assert not inner(model).converged_
    assert inner(model).n_iter_ == 2


def test_bounds_checked_when_every_constraint_has_its_own():
    # (not in metric-learn) a bad bounds parameter is refused even when no
    # constraint needs it: every pair below carries its own bound
    constraints = [[0, 1, 1, 0.5], [0, 2, -1, 5.0]]
    with pytest.raises(ValueError, match="bounds must be"):
        ITMLTransformer(bounds=["weird1", "weird2"]).fit(X_TOY, constraints=constraints)
    with pytest.raises(ValueError, match="bounds must be"):
        ITMLTransformer(bounds=(1.0, 2.0, 3.0)).fit(X_TOY, constraints=constraints)
