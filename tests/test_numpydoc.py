"""numpydoc's validation of the public API, and the estimators' parameters and
fitted attributes documented on their own pages."""

import inspect
import warnings

import numpy as np
import pytest
from numpydoc.docscrape import ClassDoc
from numpydoc.validate import validate
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning

import sklearn_bregman
from sklearn_bregman import constraints

#: numpydoc's checks not enforced, with the reason for each.
IGNORED = {
    "GL01": "the summary starts on the opening-quotes line (PEP 257), not the line after",
    "GL02": "short docstrings may close their quotes on the last line of text",
    "ES01": "an extended summary is welcome, not required (short methods need none)",
    "SA01": "a 'See Also' section is not required",
    "EX01": "examples live on the classes and in the README, not on every method",
    "RT02": "a return value may be named, e.g. ``self : object`` (scikit-learn's style)",
    "SS05": "a summary may read 'Returns ...' / 'Maps ...' (third person)",
    "PR09": "a parameter's description may end in a code block or a list, not a period",
    "RT05": "a return value's description may end in a code block or a list, not a period",
}

PACKAGE = "sklearn_bregman"


def _public_objects():
    """(import path, object) of every documented public name."""
    found = {}
    for name in sklearn_bregman.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(sklearn_bregman, name)
        # the top-level re-exports of sklearn_bregman.constraints are
        # validated under their own module's path below
        if obj.__module__ == constraints.__name__:
            continue
        found[f"{PACKAGE}.{name}"] = obj
    for name in constraints.__all__:
        found[f"{constraints.__name__}.{name}"] = getattr(constraints, name)
    return found


def _own_members(cls):
    """Public methods and properties of ``cls`` defined in this package (not
    inherited from scikit-learn or object)."""
    names = []
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, property):
            func = attr.fget
        elif isinstance(attr, (staticmethod, classmethod)):
            func = attr.__func__
        elif inspect.isfunction(attr):
            func = attr
        elif inspect.isfunction(getattr(attr, "fn", None)):
            func = attr.fn  # scikit-learn's available_if
        else:
            continue
        func = inspect.unwrap(func)
        if getattr(func, "__module__", "").startswith(PACKAGE):
            names.append(name)
    return names


def _validated_paths():
    paths = []
    for path, obj in _public_objects().items():
        paths.append(path)
        if inspect.isclass(obj):
            paths.extend(f"{path}.{m}" for m in _own_members(obj))
    return paths


VALIDATED = _validated_paths()


def test_validated_count():
    # a guard against an empty parametrisation (e.g. a broken __all__)
    assert len(VALIDATED) > 50


@pytest.mark.parametrize("path", VALIDATED)
def test_numpydoc_validation(path):
    result = validate(path)
    errors = [(code, msg) for code, msg in result["errors"] if code not in IGNORED]
    assert not errors, f"{path}:\n" + "\n".join(f"  {c}: {m}" for c, m in errors)


# --------------------------------------------------------------------------
# Every __init__ parameter and every fitted attribute documented
# --------------------------------------------------------------------------

CLASSES = sorted(path for path, obj in _public_objects().items() if inspect.isclass(obj))
ESTIMATORS = [name for name in sklearn_bregman.__all__
              if inspect.isclass(getattr(sklearn_bregman, name))
              and hasattr(getattr(sklearn_bregman, name), "get_params")]


def _documented(cls, section):
    names = set()
    for param in ClassDoc(cls)[section]:
        names.update(n.strip() for n in param.name.split(","))
    return names


def _fits(name):
    """Estimators of class ``name`` fitted on a small dataset (several fits
    where attributes depend on the parameters)."""
    X, y = load_iris(return_X_y=True)
    cls = getattr(sklearn_bregman, name)
    rng = np.random.default_rng(0)
    if name == "PairClassifier":
        pairs = rng.choice(len(X), size=(200, 2))
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        labels = np.where(y[pairs[:, 0]] == y[pairs[:, 1]], 1, -1)
        return [cls(sklearn_bregman.ITMLTransformer()).fit(X[pairs], labels)]
    if name == "TripletClassifier":
        t = sklearn_bregman.triplets_from_labels(y, 100, random_state=0)
        inner = sklearn_bregman.SKLRClusterer(n_clusters=3, random_state=0)
        return [cls(inner, preprocessor=X).fit(t)]
    if name == "QuadrupletClassifier":
        pc = sklearn_bregman.pairs_from_labels(y, 200, random_state=0)
        pairs = np.column_stack([pc.i, pc.j])
        q = np.hstack([pairs[pc.sign > 0][:60], pairs[pc.sign < 0][:60]])
        return [cls(sklearn_bregman.LogDetKernelLearner(kernel=k, random_state=0),
                    preprocessor=X).fit(q) for k in ("linear", "rbf")]
    if name == "NearestCorrelation":
        C = np.corrcoef(X.T) + 0.1 * np.eye(X.shape[1])
        return [cls(divergence=d).fit(C) for d in ("logdet", "vonneumann", "frobenius")]
    if name == "KernelKMeans":
        return [cls(3, kernel=k, random_state=0).fit(X) for k in ("rbf", "linear")]
    if "random_state" in cls().get_params():
        return [cls(random_state=0).fit(X, y)]
    return [cls().fit(X, y)]


@pytest.mark.parametrize("path", CLASSES)
def test_init_parameters_documented(path):
    cls = _public_objects()[path]
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    missing = params - _documented(cls, "Parameters")
    assert not missing, f"{path}: parameters not in its 'Parameters': {sorted(missing)}"


@pytest.mark.parametrize("name", ESTIMATORS)
def test_fitted_attributes_documented(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fits = _fits(name)
    fitted = {a for est in fits for a in vars(est) if a.endswith("_") and not a.startswith("_")}
    missing = fitted - _documented(getattr(sklearn_bregman, name), "Attributes")
    assert not missing, f"{name}: fitted attributes not in its 'Attributes': {sorted(missing)}"


def test_von_neumann_parameters_as_logdet():
    # VonNeumannKernelLearner's page repeats LogDetKernelLearner's parameters
    # (same __init__): the two copies must not drift apart
    vn = ClassDoc(sklearn_bregman.VonNeumannKernelLearner)["Parameters"]
    ld = ClassDoc(sklearn_bregman.LogDetKernelLearner)["Parameters"]
    assert vn == ld
