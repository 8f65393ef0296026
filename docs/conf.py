"""Sphinx configuration of sklearn_bregman's documentation site.

Build (from the repository root, after ``pip install ".[test,docs]"``)::

    python -m sphinx -W -b html docs docs/_build/html

That runs every gallery example (about 17 minutes on two cores);
``SKLEARN_BREGMAN_DOCS_FAST=1`` skips the slow ones (``SLOW_EXAMPLES``
below), ``-D plot_gallery=0`` runs none. docs/README.md has the details.

Extensions: autodoc + autosummary (the API reference from the docstrings),
numpydoc (their format), intersphinx (links to scikit-learn, NumPy, SciPy and
Python; from local inventories, so the build needs no network),
sphinx-gallery (``examples/`` rendered with code, output and figures), MyST
(the guide pages are Markdown), and MathJax served with the site
(``sphinx-mathjax-offline``), so formulas render without a CDN.
"""

import os
import sys
from pathlib import Path

import sklearn_bregman

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))

from local_inventories import write_inventories  # noqa: E402

INVENTORIES = HERE / "_build" / "inventories"
write_inventories(INVENTORIES)

project = "sklearn_bregman"
author = "the sklearn_bregman developers"
copyright = "2026, " + author
version = release = sklearn_bregman.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # (its module name has hyphens)
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    "bench_figures",  # docs/_ext: the benchmarks' figures from benchmarks/results/*.json
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext", "README.md", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]
templates_path = ["_templates"]

# -- API reference ----------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()  # validated by tests/test_numpydoc.py instead

# -- Markdown pages ---------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
# Formulas are MathJax ($...$ inline, $$...$$ displayed); a fence without a
# language (a benchmark's printout, a diagram) is plain text, not Python.
highlight_language = "text"

# -- Links to other projects, from local inventories -------------------------
intersphinx_mapping = {
    name: (url, str(INVENTORIES / f"{name}.inv"))
    for name, url in {
        "python": "https://docs.python.org/3/",
        "numpy": "https://numpy.org/doc/stable/",
        "scipy": "https://docs.scipy.org/doc/scipy/",
        "sklearn": "https://scikit-learn.org/stable/",
        "joblib": "https://joblib.readthedocs.io/en/stable/",
        "dask": "https://docs.dask.org/en/stable/",
    }.items()
}

# -- Gallery ------------------------------------------------------------------
# SKLEARN_BREGMAN_DOCS_FAST=1 (CI) executes only the quick examples; the slow
# ones, listed in SLOW_EXAMPLES just below, are shown as code without their
# output. `-D plot_gallery=0` executes none (docs/README.md says how to build).
SLOW_EXAMPLES = ("sklr_noise", "sklr_triplets")  # 189 s and 56 s
fast = os.environ.get("SKLEARN_BREGMAN_DOCS_FAST") == "1"
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": (r"/plot_(?!" + "|".join(SLOW_EXAMPLES) + r")"
                         if fast and SLOW_EXAMPLES else r"/plot_"),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
}

# -- HTML ---------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "sklearn_bregman"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": False,
    "header_links_before_dropdown": 6,
    # The guide's pages hold wide tables, printouts and a diagram: no
    # right-hand sidebar there (the page's contents move under the section
    # navigation, see html_sidebars), so the text column takes its width.
    # (named one by one: the theme warns of a page matched by two wildcards)
    "secondary_sidebar_items": {
        "**": ["page-toc", "edit-this-page", "sourcelink"],
        "index": [],
        "getting_started": [],
        **{f"user_guide/{page.stem}": [] for page in (HERE / "user_guide").glob("*.md")},
    },
}
html_sidebars = {
    "user_guide/*": ["sidebar-collapse", "sidebar-nav-bs", "page-toc"],
    "getting_started": ["sidebar-collapse", "sidebar-nav-bs", "page-toc"],
}
html_show_sourcelink = False

# The guide pages include sections of README.md, which start at its second
# heading level (the README's own title is the site's front page).
suppress_warnings = ["myst.header"]
html_css_files = ["custom.css"]
html_js_files = ["custom.js"]  # tables stacked on a phone
