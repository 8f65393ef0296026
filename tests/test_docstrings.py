"""The examples in the docstrings run as written (on the installed package)."""

import doctest
import importlib
import pkgutil
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

import sklearn_bregman

#: Every module of the package (the compiled engine's have no docstring examples).
MODULES = sorted(m.name for m in pkgutil.walk_packages(sklearn_bregman.__path__,
                                                       "sklearn_bregman.")
                 if not m.name.endswith(".demo"))


def test_the_examples_are_found():
    found = [name for name in MODULES if doctest.DocTestFinder().find(
        importlib.import_module(name)) and any(
        t.examples for t in doctest.DocTestFinder().find(importlib.import_module(name)))]
    assert len(found) >= 10, found


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # examples must run clean
        # (NearestCorrelation's example fits an indefinite C, as its text says)
        warnings.filterwarnings("ignore", "C is not positive semidefinite", UserWarning)
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
