"""The package's boundaries (ARCHITECTURE.md): layers, private modules, one vocabulary."""

import ast
import importlib
from functools import partial
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


def _declared_layers():
    """The import layers that ARCHITECTURE.md declares (its code block that
    starts with ``# import layers``): module -> layer number, lowest first."""
    text = (Path(__file__).resolve().parents[1] / "ARCHITECTURE.md").read_text()
    block = text.split("```text\n# import layers", 1)[1].split("```", 1)[0]
    block = block.split("\n", 1)[1]  # (the rest of the comment line)
    layers = {}
    for number, line in enumerate(ln for ln in block.splitlines()
                                  if ln.strip() and not ln.startswith("#")):
        _, _, modules = line.partition(":")
        for module in modules.split():
            layers[module] = number
    return layers


def _top(dotted):
    """``sklearn_bregman.x.y`` -> ``x`` (the package itself: ``__init__``)."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_has_a_declared_layer():
    layers = _declared_layers()
    present = {_top(name) for name in _modules()}
    assert present == set(layers), (sorted(present - set(layers)),
                                    sorted(set(layers) - present))


def test_imports_follow_the_declared_layer_order():
    """A module imports only from its own layer or lower ones: the order
    ARCHITECTURE.md shows, not only the absence of cycles."""
    layers = _declared_layers()
    upward = []
    for name, path in _modules().items():
        here = _top(name)
        for target in _imports(name, path):
            there = _top(target)
            if there != here and layers[there] > layers[here]:
                upward.append(f"{name} (layer {layers[here]}) imports {target} "
                              f"(layer {layers[there]})")
    assert not upward


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
                 if name != "sklearn_bregman._utils._sklearn_compat"
                 and (found := _private_sklearn_imports(path))}
    assert not offenders
    # and the door itself does use them (the check above reads real imports)
    assert _private_sklearn_imports(PACKAGE / "_utils" / "_sklearn_compat.py")


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
    assert askers == {"sklearn_bregman._data._data", "sklearn_bregman._data._dask"}


def test_both_rows_implementations_have_the_whole_interface():
    """Every operation on the data has its in-memory and its dask
    implementation (ARCHITECTURE.md, "How to add an operation on the data"),
    and the architecture's table names each."""
    import dask.array as da

    from sklearn_bregman._data._dask import DaskFactorRows, DaskRows
    from sklearn_bregman._data._data import FACTOR_ROWS_INTERFACE, ROWS_INTERFACE, InMemoryRows

    X = np.random.default_rng(0).standard_normal((40, 3))
    in_memory = InMemoryRows(X)
    factor, G = in_memory.low_rank_factor(None, "rbf", 10, 1e-6, {"gamma": 0.5}, "cholesky")
    on_dask = DaskRows(da.from_array(X, chunks=(15, 3)))
    dfactor, dG = on_dask.low_rank_factor(None, "rbf", 10, 1e-6, {"gamma": 0.5},
                                          "cholesky")
    for rows in (in_memory, on_dask):
        assert all(hasattr(rows, m) for m in ROWS_INTERFACE), type(rows)
    for rows in (G, dG):
        assert all(hasattr(rows, m) for m in FACTOR_ROWS_INTERFACE), type(rows)
    assert isinstance(dG, DaskFactorRows)
    np.testing.assert_allclose(dG.take([0, 5, 39]), G.take([0, 5, 39]), atol=1e-10)
    table = (Path(__file__).resolve().parents[1] / "ARCHITECTURE.md").read_text()
    table = table[table.index("| method | in memory | on dask chunks |"):]
    table = table[:table.index("\n\n")]
    for method in set(ROWS_INTERFACE) | set(FACTOR_ROWS_INTERFACE):
        assert f"`{method}" in table, method


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_every_engine_run_returns_a_projection_result():
    """The engine's runs (every function of its door that runs projections)
    return the documented result type."""
    from sklearn_bregman import _engine
    from sklearn_bregman._constraints._rows import build_rows
    from sklearn_bregman._engine import ProjectionResult
    from sklearn_bregman.constraints import PairConstraints, RelativeConstraints

    runs = {name for name in _engine.__all__
            if name.endswith("_projections") or name == "definiteboost"
            or name.endswith("_nearest_correlation")}
    rng = np.random.default_rng(0)
    G = rng.standard_normal((12, 3))
    U = np.linalg.qr(G)[0]
    pairs = PairConstraints([0, 1, 2], [3, 4, 5], [1, -1, 1], [0.5, 4.0, 0.5])
    t = np.array([[0, 1, 6], [2, 3, 7]])
    rel = RelativeConstraints([0, 2], [1, 3], [0, 2], [6, 7], ratio=1.5)
    V = U[[0, 1, 2]] - U[[3, 4, 5]]
    results = {
        "pair_projections": [
            _engine.pair_projections(G, pairs, np.eye(3), max_iter=5),
            _engine.pair_projections(U, pairs, np.zeros((3, 3)), divergence="vonneumann",
                                     max_iter=5)],
        "triplet_projections": [
            _engine.triplet_projections(G, _triplet_container(t), np.eye(3), max_iter=5)],
        "definiteboost": [
            _engine.definiteboost(V, np.array([1, -1, 1], np.int8),
                                  np.array([0.05, 0.5, 0.05]),
                                  np.log(np.full(3, 1 / 3)) * np.eye(3) + 0.0, max_iter=5)],
        "linear_projections": [
            _engine.linear_projections(build_rows([rel], G, np.eye(3)), np.eye(3),
                                       max_iter=5),
            _engine.linear_projections(build_rows([rel], U, np.eye(3)), np.zeros((3, 3)),
                                       divergence="vonneumann", max_iter=5)],
        "logdet_nearest_correlation": [
            _engine.logdet_nearest_correlation(G * 0.3, np.full(12, 0.5), tol=1e-8,
                                               max_iter=50, verbose=0, owner="test")],
        "vonneumann_nearest_correlation": [
            _engine.vonneumann_nearest_correlation(np.eye(4) + 0.1, tol=1e-8, max_iter=50,
                                                   verbose=0, owner="test")],
        "frobenius_nearest_correlation": [
            _engine.frobenius_nearest_correlation(
                np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]), tol=1e-8,
                max_iter=50, solver=solver)
            for solver in ("newton", "projections")],
    }
    assert set(results) == runs
    for name, outs in results.items():
        for out in outs:
            assert isinstance(out, ProjectionResult), name
            assert out.n_iter >= 1 and out.dual.ndim == 1, name


def _triplet_container(outlier):
    from sklearn_bregman.constraints import TripletConstraints

    return TripletConstraints(outlier=outlier)


def test_every_registered_sweep_has_the_documented_signature():
    """A divergence's pair sweep takes ``(G, i, j, sign, bound, xi, nu,
    state, visit, slack, report_rtol, dual_correction)`` and returns
    ``(n_satisfied, n_skipped, n_moved[, n_evals, ...])``."""
    from sklearn_bregman._engine import _driver

    rng = np.random.default_rng(1)
    U = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((8, 3)))[0])
    i = np.array([0, 1, 2], np.intp)
    j = np.array([3, 4, 5], np.intp)
    sign = np.array([1, -1, 1], np.int8)
    for name, sweep in _driver.SWEEPS.items():
        bound = np.array([0.1, 2.0, 0.1])
        state = np.zeros((3, 3)) if _driver.LOG_STATE[name] else np.eye(3)
        out = sweep(U, i, j, sign, bound, bound.copy(), np.zeros(3), state,
                    np.arange(3, dtype=np.intp), 1.0, 1e-3, True)
        assert len(out) >= 3 and all(int(v) == v for v in out), name
        assert out[2] >= 1, name  # the bounds were chosen so that they move


def test_every_row_kind_has_its_part():
    """Every container kind a kernel learner takes besides pairs becomes
    engine rows (``_rows.build_rows``), and every public container is a
    pair set or one of those kinds."""
    from sklearn_bregman import constraints
    from sklearn_bregman._constraints._rows import ROW_KINDS, build_rows

    containers = {name for name in constraints.__all__ if name.endswith("Constraints")}
    assert containers == {"PairConstraints"} | {k.__name__ for k in ROW_KINDS}
    G = np.random.default_rng(2).standard_normal((10, 3))
    examples = {
        "RelativeConstraints": constraints.RelativeConstraints([0], [1], [0], [2]),
        "SimilarityConstraints": constraints.SimilarityConstraints([0], [1], [1], [0.5]),
        "LinearConstraints": constraints.LinearConstraints([np.eye(10)], [3.0]),
        "TripletConstraints": constraints.TripletConstraints(outlier=[[0, 1, 2]]),
    }
    assert set(examples) == {k.__name__ for k in ROW_KINDS}
    for name, con in examples.items():
        rows = build_rows([con], G, np.eye(3))
        assert rows.V.shape[0] >= 1 and rows.V.shape[2] == 3, name


def test_every_low_rank_option_builds_a_factor():
    """Every ``low_rank=`` option of the learners has its branch in
    ``LowRankFactor`` (and a factor on dask chunks, or a clear error)."""
    import dask.array as da

    from sklearn_bregman._data._dask import DaskFactor
    from sklearn_bregman._factors._factors import LowRankFactor
    from sklearn_bregman._learners._base import FACTOR_PARAMETERS

    options = next(c for c in FACTOR_PARAMETERS["low_rank"] if hasattr(c, "options")).options
    X, y = load_iris(return_X_y=True)
    for method in sorted(options):
        factor = LowRankFactor("rbf", 15, 1e-8, {"gamma": 0.5}, method=method,
                               random_state=0)
        G0 = factor.fit(X, y)
        assert G0.shape == (150, factor.rank_) and factor.rank_ >= 1, method
        np.testing.assert_allclose(factor.transform(X[:20]), G0[:20], atol=1e-8)
        dfactor = DaskFactor("rbf", 15, 1e-8, {"gamma": 0.5}, method, random_state=0)
        try:
            dfactor.fit(da.from_array(X, chunks=(50, 4)))
        except ValueError as exc:
            assert f"low_rank={method!r}" in str(exc), method
        else:
            assert dfactor.rank_ == factor.rank_, method


def test_the_top_holds_the_public_modules_and_the_role_folders():
    """``src/sklearn_bregman/`` shows the layers: the public modules, and one
    private folder per role (ARCHITECTURE.md's layer block), nothing else."""
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert modules == PUBLIC_MODULES
    folders = {p.name for p in PACKAGE.iterdir()
               if p.is_dir() and (p / "__init__.py").exists()}
    assert all(f.startswith("_") for f in folders)
    assert folders == set(_declared_layers()) - PUBLIC_MODULES
    assert len(modules | folders) <= 10
    for folder in folders:
        for path in (PACKAGE / folder).glob("*.py"):
            if path.stem != "__init__":
                assert path.stem.startswith("_"), path
                importlib.import_module(f"sklearn_bregman.{folder}.{path.stem}")


ESTIMATORS = sorted(n for n in sklearn_bregman.__all__
                    if hasattr(getattr(sklearn_bregman, n), "get_params"))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_parameter_constraints_match_the_parameters(name):
    obj = getattr(sklearn_bregman, name)
    est = (obj(ITMLTransformer()) if name in ("PairClassifier", "TripletClassifier",
                                              "QuadrupletClassifier")
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


def test_a_divergence_built_from_the_recipe_fits_and_streams():
    """ARCHITECTURE.md's recipe for a divergence, steps 3 and 4 alone: a
    strategy with the documented interface and a learner that holds it;
    ``fit`` and ``partial_fit`` (pairs and general rows, a stream, after a
    fit) come from the base.  The divergence here is LogDet posed in the
    orthonormal basis U of range(G0) (state X with K = U X U', prior S^2):
    LogDet is invariant under congruence, so it learns LogDetKernelLearner's
    kernel, which checks that every step went through the strategy."""
    from sklearn_bregman._engine import linear_projections, pair_projections
    from sklearn_bregman._learners._divergences import Divergence
    from sklearn_bregman._learners._kernel_learning import _BaseKernelLearner
    from sklearn_bregman.constraints import RelativeConstraints

    class LogDetOnU(Divergence):
        def basis(self, G, touched, G_t):
            U_t, s, Vt = G.orthonormal_rows(touched, G_t)
            return (s, Vt), U_t

        def coordinates(self, basis, G_rows):
            s, Vt = basis
            return (G_rows @ Vt.T) / s

        def initial_state(self, basis, rank):
            return np.diag(basis[0] ** 2)

        prior = initial_state

        def state_of_metric(self, M, basis):
            s, Vt = basis
            return s[:, None] * (Vt @ M @ Vt.T) * s

        def metric_of_state(self, state, basis):
            s, Vt = basis
            B = Vt.T / s
            return B @ state @ B.T

        def sweep_pairs(self, C, pairs, state, *, skipped, start, params, basis):
            return pair_projections(C, pairs, state, divergence="logdet", skip=skipped,
                                    start=start, warn_skipped=False, **params)

        def sweep_rows(self, rows, state, *, start, params, basis):
            return linear_projections(rows, state, divergence="logdet", start=start,
                                      warn_skipped=False, **params)

    class RecipeLearner(_BaseKernelLearner):
        _divergence = LogDetOnU()

    X, y = load_iris(return_X_y=True)
    kw = dict(kernel="rbf", rank=12, slack=1.0, tol=1e-8, max_iter=5000, random_state=0)

    def kernel(est):
        return est.embedding_ @ est.embedding_.T

    for fit_kw in ({}, {"label_constraints": "relative", "n_constraints": 60}):
        ours = RecipeLearner(**kw, **fit_kw).fit(X, y)
        ref = LogDetKernelLearner(**kw, **fit_kw).fit(X, y)
        assert ours.converged_ and ref.converged_
        np.testing.assert_allclose(kernel(ours), kernel(ref), atol=1e-6 * np.abs(
            kernel(ref)).max())
    rc = RelativeConstraints([0, 50], [1, 51], [0, 50], [100, 120], ratio=2.0)
    for start in (RecipeLearner(**kw), RecipeLearner(**kw).fit(X, y)):
        start.partial_fit(X[::2], y[::2]).partial_fit(X[1::2], y[1::2])
        assert start.converged_ and start.n_constraints_kept_ > 0
        assert start.transform(X[:3]).shape == (3, start.rank_)
    RecipeLearner(**kw).partial_fit(X, constraints=rc).partial_fit(X, y)


#: Private names of other libraries' protocols that the package uses by design:
#: scikit-learn's declarative parameter validation, and the stack walk of the
#: one warning helper.
FOREIGN_PROTOCOL = {"_parameter_constraints", "_getframe"}
#: What the data-entry functions set on the estimator passed to them, as
#: scikit-learn's validate_data does (its contract): nothing else.
DATA_ENTRY_ATTRIBUTES = {"n_features_in_", "feature_names_in_"}


def _defined_names(tree):
    """Names a module defines: functions, classes, their methods and class
    attributes, and attributes it sets on ``self``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif isinstance(target, ast.Attribute):
                    names.add(target.attr)
    return names


def test_no_module_reaches_into_another_modules_private_names():
    """No module imports an underscored name from another module of the
    package, or reads ``obj._name`` of a name that only another module
    defines (a private method or attribute of an object of another module):
    a module's private names are used where they are defined, on ``self``
    or on objects of its own classes."""
    offenders = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text())
        own = _defined_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (
                    node.level or (node.module or "").startswith("sklearn_bregman")):
                offenders += [f"{name}:{node.lineno} imports {a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.attr not in FOREIGN_PROTOCOL):
                base = node.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    continue
                if isinstance(base, ast.Call) and getattr(base.func, "id", None) == "super":
                    continue
                if node.attr not in own:
                    offenders.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not offenders


def test_no_module_sets_attributes_on_objects_it_was_given():
    """No function sets (or deletes) an attribute of an object passed to it,
    but ``self``: containers, streams, rows and results are never decorated
    from outside (the resolution of a fit's constraints is a new value).
    The one exception is scikit-learn's contract for where data enters:
    ``validate_data`` and its dask counterpart set ``n_features_in_`` and
    ``feature_names_in_`` on the estimator they validate for."""
    offenders = []
    for name, path in _modules().items():
        for f in ast.walk(ast.parse(path.read_text())):
            if not isinstance(f, (ast.FunctionDef, ast.Lambda)):
                continue
            args = f.args
            params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            params -= {"self", "cls"}
            for node in ast.walk(f):
                targets = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                elif isinstance(node, ast.Delete):
                    targets = node.targets
                for target in targets:
                    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id in params
                            and target.attr not in DATA_ENTRY_ATTRIBUTES):
                        offenders.append(f"{name}:{node.lineno} {ast.unparse(target)}")
                if (isinstance(node, ast.Call) and getattr(node.func, "id", None)
                        in ("setattr", "delattr") and node.args
                        and isinstance(node.args[0], ast.Name) and node.args[0].id in params):
                    offenders.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not offenders


def test_the_kernel_learners_branch_on_no_divergence_name():
    """Everything that depends on the divergence is the strategy's
    (``_learners/_divergences.py``): no module compares a kernel learner's
    divergence or its name, and the engine looks divergences up in its
    registries (``SWEEPS``, ``LOG_STATE``).  (NearestCorrelation's
    ``divergence`` is a parameter of its own, choosing among three solvers of
    another problem.)"""
    offenders = []
    for name, path in _modules().items():
        text = path.read_text()
        patterns = ["_divergence ==", "_divergence !="]
        if not name.endswith("_nearest_correlation"):
            patterns += ['== "vonneumann"', '== "logdet"', '!= "vonneumann"', '!= "logdet"']
        offenders += [f"{name}: {pattern}" for pattern in patterns if pattern in text]
    assert not offenders


def _calls_on_the_way(call, target="pair_projections"):
    """Run ``call`` and return (the functions called from the learner's
    ``_fit`` down to the engine's ``target``, the count of each validation
    function's calls)."""
    import sys

    path, counts = [], {}
    checks = {"constraints_of_fit", "check_pairs", "validate_pairs", "check_triplets",
              "validate_triplets", "check_triplet_constraints"}

    def profile(frame, event, arg):
        if event != "call":
            return
        name = frame.f_code.co_name
        if name in checks:
            counts[name] = counts.get(name, 0) + 1
        if name == target and not path:
            chain, f = [], frame
            while f is not None and f.f_code.co_name != "_fit":
                chain.append((f.f_code.co_name, f.f_globals["__name__"]))
                f = f.f_back
            path.extend(reversed(chain))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return path, counts


@pytest.mark.parametrize("constraints", ["array", "container"])
def test_fit_and_partial_fit_reach_the_engine_through_the_same_function(constraints):
    """The constraints of LogDetKernelLearner.fit and partial_fit take one
    path from the one body ``_fit`` to the engine (three calls: the run's
    ``swept``, the divergence's ``sweep_pairs``, the engine's
    ``pair_projections``), checked once on the way."""
    from sklearn_bregman.constraints import PairConstraints

    X, _ = load_iris(return_X_y=True)
    pairs = np.array([[0, 60, -1], [1, 2, 1], [50, 51, 1], [3, 120, -1]])
    given = pairs if constraints == "array" else PairConstraints(*pairs.T)
    seen = {}
    for method in ("fit", "partial_fit"):
        est = LogDetKernelLearner(kernel="rbf", rank=8, random_state=0)
        seen[method] = _calls_on_the_way(partial(getattr(est, method), X,
                                                 constraints=given))
    (fit_path, fit_counts), (stream_path, stream_counts) = seen["fit"], seen["partial_fit"]
    assert fit_path == stream_path
    assert [function for function, _ in fit_path] == ["swept", "sweep_pairs",
                                                      "pair_projections"]
    # one module after another, none left and come back to
    modules = [module for _, module in fit_path]
    assert modules == ["sklearn_bregman._learners._stream",
                       "sklearn_bregman._learners._divergences",
                       "sklearn_bregman._engine._driver"]
    assert fit_counts == stream_counts
    # checked once: an array by the pairs' rules, a container (validated when
    # built, read-only since) only against the data's size
    assert fit_counts.get("check_pairs") == 1 and fit_counts.get("constraints_of_fit") == 1
    assert fit_counts.get("validate_pairs", 0) == (1 if constraints == "array" else 0)
