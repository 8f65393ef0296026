"""The package's boundaries (ARCHITECTURE.md): layers, private modules, one vocabulary."""

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris

import sklearn_bregman
from sklearn_bregman import (
    DefiniteBoost,
    ITMLTransformer,
    LogDetKernelLearner,
    SKLRClusterer,
    VonNeumannKernelLearner,
)

PACKAGE = Path(sklearn_bregman.__file__).parent
#: The modules users are told to import (README); every other one is private.
PUBLIC_MODULES = {"__init__", "constraints", "demo"}


def _modules():
    """Dotted name -> path of every Python module of the package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(("sklearn_bregman",) + parts)] = path
    return out


def _imports(name, path):
    """Package modules (dotted names) that module ``name`` imports from."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.startswith("sklearn_bregman"):
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("sklearn_bregman"))
    return found


def test_no_import_cycle():
    modules = _modules()
    graph = {name: {t.removesuffix(".__init__") for t in _imports(name, path)} - {name}
             for name, path in modules.items()}
    graph = {name.removesuffix(".__init__"): deps for name, deps in graph.items()}
    # importing a submodule imports its package first: that edge is not a cycle
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if dep not in graph or node.startswith(dep + "."):
                continue
            if state.get(dep) == "open":
                raise AssertionError(" -> ".join(stack + [node, dep]))
            if dep not in state:
                visit(dep, stack + [node])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_engine_is_entered_through_its_package_only():
    offenders = []
    for name, path in _modules().items():
        if name.startswith("sklearn_bregman._engine"):
            continue
        offenders += [(name, t) for t in _imports(name, path)
                      if t.startswith("sklearn_bregman._engine.")]
    assert not offenders


def _private_sklearn_imports(path):
    """``(module, name)`` of every private scikit-learn name a file imports: a
    module with a component starting with ``_`` or a name starting with one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module and (
                node.module == "sklearn" or node.module.startswith("sklearn.")):
            private_module = any(part.startswith("_") for part in node.module.split("."))
            found += [(node.module, a.name) for a in node.names
                      if private_module or a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.startswith("sklearn.")
                      and any(part.startswith("_") for part in a.name.split("."))]
    return found


def test_private_scikit_learn_names_enter_through_one_module():
    offenders = {name: found for name, path in _modules().items()
                 if name != "sklearn_bregman._sklearn_compat"
                 and (found := _private_sklearn_imports(path))}
    assert not offenders
    # and the door itself does use them (the check above reads real imports)
    assert _private_sklearn_imports(PACKAGE / "_sklearn_compat.py")


def test_the_array_type_is_asked_once_where_data_enters():
    """One path per estimator: only ``_data.enter`` (and the dask
    implementation it hands the data to) asks whether an array is a dask
    array; estimators talk to the rows object it returns."""
    askers = set()
    for name, path in _modules().items():
        tree = ast.parse(path.read_text())
        if any(isinstance(node, ast.Name) and node.id == "is_dask_array"
               or isinstance(node, ast.Attribute) and node.attr == "is_dask_array"
               for node in ast.walk(tree)):
            askers.add(name)
    assert askers == {"sklearn_bregman._data", "sklearn_bregman._dask"}


def test_internal_modules_are_private():
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert {m for m in top if not m.startswith("_")} | {"__init__"} == PUBLIC_MODULES
    for stem in top - PUBLIC_MODULES:
        importlib.import_module(f"sklearn_bregman.{stem}")


ESTIMATORS = sorted(n for n in sklearn_bregman.__all__
                    if hasattr(getattr(sklearn_bregman, n), "get_params"))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_parameter_constraints_match_the_parameters(name):
    obj = getattr(sklearn_bregman, name)
    est = (obj(ITMLTransformer()) if name in ("PairClassifier", "TripletClassifier")
           else obj())
    # nothing inherited and deleted: every parameter is declared, nothing more
    assert set(obj._parameter_constraints) == set(est.get_params(deep=False))


@pytest.mark.parametrize("estimator", [
    ITMLTransformer(n_constraints=60, random_state=0),
    LogDetKernelLearner(kernel="rbf", rank=10, n_constraints=60, random_state=0),
    VonNeumannKernelLearner(kernel="rbf", rank=10, n_constraints=60, random_state=0),
    DefiniteBoost(kernel="rbf", rank=10, n_constraints=60, epsilon=0.05, random_state=0),
    SKLRClusterer(n_clusters=3, n_triplets=60, random_state=0),
], ids=lambda e: type(e).__name__)
def test_fitted_counts_mean_the_same_everywhere(estimator):
    X, y = load_iris(return_X_y=True)
    estimator.fit(X, y)
    # n_iter_: sweeps; n_projections_: projections that moved the state
    assert isinstance(estimator.n_iter_, (int, np.integer)) and estimator.n_iter_ >= 1
    assert isinstance(estimator.n_projections_, (int, np.integer))
    assert estimator.n_projections_ >= 1
    assert not hasattr(estimator, "n_steps_")
