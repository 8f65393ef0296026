"""The fallbacks of ``_sklearn_compat`` behave as the scikit-learn names they stand for.

Each private scikit-learn name the package uses enters through
``sklearn_bregman._utils._sklearn_compat``; where scikit-learn may drop one, a
fallback written there takes over.  They are checked here against the
scikit-learn in use, so that they are right on the day they are needed.
"""

from numbers import Real

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn import config_context
from sklearn.base import BaseEstimator
from sklearn.utils import validation

from sklearn_bregman._utils import _sklearn_compat as compat
from sklearn_bregman._utils._sklearn_compat import Interval, InvalidParameterError


@pytest.mark.parametrize("x", [
    [1, 2, 3], np.zeros((4, 2)), (1, 2), np.zeros(0), pd.DataFrame({"a": [1, 2]}),
    pd.Series([1.0, 2.0, 3.0]), sp.csr_matrix(np.eye(5)), np.array([[1]]),
])
def test_num_samples_fallback_counts_as_scikit_learn(x):
    assert compat._num_samples_fallback(x) == validation._num_samples(x)


@pytest.mark.parametrize("x", [np.float64(3.0), 5, object(), BaseEstimator()])
def test_num_samples_fallback_refuses_what_scikit_learn_refuses(x):
    with pytest.raises(TypeError):
        validation._num_samples(x)
    with pytest.raises(TypeError):
        compat._num_samples_fallback(x)


@pytest.mark.parametrize("x", [
    [1, 2], np.zeros(3), np.float64(1.0), 3, "abc", None, (1,), pd.Series([1]),
    sp.csr_matrix(np.eye(2)), {"a": 1},
])
def test_is_arraylike_not_scalar_fallback_agrees(x):
    assert (compat._is_arraylike_not_scalar_fallback(x)
            == validation._is_arraylike_not_scalar(x))


class _Toy(BaseEstimator):
    _parameter_constraints = {"alpha": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    @compat._fit_context_fallback(prefer_skip_nested_validation=True)
    def fit(self, X=None):
        from sklearn import get_config

        self.nested_skipped_ = get_config()["skip_parameter_validation"]
        return self


def test_fit_context_fallback_validates_and_skips_nested_validation():
    assert _Toy(alpha=2.0).fit().nested_skipped_
    with pytest.raises(InvalidParameterError, match="alpha"):
        _Toy(alpha=-1.0).fit()
    # the global switch turns the check off, as scikit-learn's own decorator
    with config_context(skip_parameter_validation=True):
        assert _Toy(alpha=-1.0).fit().nested_skipped_


def test_missing_private_name_raises_an_error_that_names_it():
    err = compat._missing("frobnicate", "sklearn.utils._gone")
    assert isinstance(err, ImportError)
    assert "frobnicate" in str(err) and "sklearn.utils._gone" in str(err)
    assert compat.TESTED in str(err)
