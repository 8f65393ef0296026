"""A release a user can cite: one version everywhere it is written.

The version is pyproject.toml's (``sklearn_bregman.__version__`` reads it
from the installed metadata); CITATION.cff cites the same version, and
CHANGELOG.md's newest section is that release.
"""

import pathlib
import re

import sklearn_bregman

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _pyproject_version():
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(r'^version = "([^"]+)"$', text, re.M).group(1)


def test_the_installed_version_is_pyprojects():
    assert sklearn_bregman.__version__ == _pyproject_version()


def test_citation_cites_this_version():
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    assert re.search(r"^version: (\S+)$", text, re.M).group(1) == _pyproject_version()
    assert re.search(r'^date-released: "\d{4}-\d{2}-\d{2}"$', text, re.M)
    # the papers of the algorithms, one reference each
    assert len(re.findall(r"^  - type: ", text, re.M)) == 6


def test_the_changelog_starts_with_this_release():
    text = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## (\S+) \(", text, re.M)
    assert releases[0] == _pyproject_version()
    # newest first, every release once
    key = [tuple(int(p) for p in r.split(".")) for r in releases]
    assert key == sorted(key, reverse=True) and len(set(key)) == len(key)
