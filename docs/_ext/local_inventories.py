"""Intersphinx inventories written from the installed packages, so that the
documentation links to scikit-learn, NumPy, SciPy, joblib, dask and Python
without downloading their ``objects.inv`` (the build needs no network).

Each inventory lists the public classes and functions of a project's main
modules (found by importing them) with the address its documentation site
gives such an object; links to objects outside these lists are simply not
made (intersphinx leaves the text as it is).  The format is Sphinx's
inventory version 2 (a header, then zlib-compressed lines
``name domain:role priority uri dispname``).
"""

import importlib
import inspect
import zlib
from pathlib import Path

#: project -> (modules whose public members are listed, uri pattern of a member)
PROJECTS = {
    "sklearn": (
        ["sklearn.base", "sklearn.cluster", "sklearn.datasets", "sklearn.metrics",
         "sklearn.model_selection", "sklearn.neighbors", "sklearn.pipeline",
         "sklearn.preprocessing", "sklearn.decomposition", "sklearn.linear_model",
         "sklearn.svm", "sklearn.utils", "sklearn.utils.validation",
         "sklearn.exceptions", "sklearn.calibration"],
        "modules/generated/{name}.html#{name}",
    ),
    "numpy": (["numpy", "numpy.random", "numpy.linalg"],
              "reference/generated/{name}.html#{name}"),
    "scipy": (["scipy.linalg", "scipy.sparse", "scipy.optimize"],
              "reference/generated/{name}.html#{name}"),
    "joblib": (["joblib"], "generated/{name}.html#{name}"),
    "dask": (["dask.array", "dask"], "generated/{name}.html#{name}"),
}

#: Python's built-in types and exceptions, on their own pages.
PYTHON = {
    **{t: "library/stdtypes.html#{name}" for t in
       ("int", "float", "complex", "str", "bytes", "list", "tuple", "dict", "set",
        "frozenset", "bool", "range", "memoryview")},
    **{f: "library/functions.html#{name}" for f in
       ("callable", "len", "isinstance", "print", "object", "type", "iter")},
    **{e: "library/exceptions.html#{name}" for e in
       ("ValueError", "TypeError", "RuntimeError", "UserWarning", "Warning",
        "IndexError", "KeyError", "NotImplementedError")},
    "None": "library/constants.html#{name}",
}


#: Labels and glossary terms of scikit-learn's site that docstrings we
#: inherit from it refer to (``set_fit_request`` and the like).
SKLEARN_LABELS = {
    ("metadata_routing", "std:label"): "metadata_routing.html#metadata-routing",
    ("accuracy_score", "std:label"): "modules/model_evaluation.html#accuracy-score",
    ("meta-estimator", "std:term"): "glossary.html#term-meta-estimator",
}


def _members(module_name):
    """Public classes and functions of a module, as (full name, role)."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:  # an optional project that is not installed
        return []
    out = []
    for name in getattr(module, "__all__", None) or dir(module):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(module, name, None)
        except ImportError:  # names that need an explicit opt-in import
            continue
        if inspect.isclass(obj):
            out.append((f"{module_name}.{name}", "py:class"))
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and callable(value):
                    out.append((f"{module_name}.{name}.{attr}", "py:method"))
        elif callable(obj):
            out.append((f"{module_name}.{name}", "py:function"))
    return out


def _write(path, project, entries):
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: \n"
              "# The remainder of this file is compressed using zlib.\n")
    lines = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in sorted(set(entries)))
    path.write_bytes(header.encode() + zlib.compress(lines.encode()))


def write_inventories(directory):
    """Write ``<project>.inv`` for every project into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for project, (modules, pattern) in PROJECTS.items():
        entries = []
        for module in modules:
            for name, role in _members(module):
                page = name.rsplit(".", 1)[0] if role == "py:method" else name
                uri = pattern.format(name=page).replace(f"#{page}", f"#{name}")
                entries.append((name, role, uri))
        if project == "sklearn":
            entries += [(name, role, uri) for (name, role), uri in SKLEARN_LABELS.items()]
        _write(directory / f"{project}.inv", project, entries)
    _write(directory / "python.inv", "Python",
           [(name, "py:class" if "stdtypes" in uri or "exceptions" in uri else "py:function",
             uri.format(name=name)) for name, uri in PYTHON.items()])
