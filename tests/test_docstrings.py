"""The examples in the docstrings run as written (on the installed package)."""

import doctest
import importlib
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

MODULES = ["constraints", "_base", "_cluster", "_csi", "_definiteboost", "_factors", "_itml",
           "_kernel_learning", "_kernels", "_metrics", "_pairs", "_tuples", "_sklr",
           "_triplets"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"sklearn_bregman.{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # examples must run clean
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
