"""The Python examples of the README and of the user guide run as written."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The user guide's pages in the order a reader meets them (the order the
#: README held them in before they moved to docs/): later pages reuse names
#: that earlier ones define.
GUIDE = [ROOT / "docs" / "user_guide" / f"{name}.md" for name in (
    "estimators", "factors", "model_selection", "pairs_triplets", "migration",
    "general_constraints",
    "nearest_correlation", "constraints", "parameters", "dask", "convergence",
    "performance", "streams")]


def _blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_readme_and_guide_have_examples():
    assert len(_blocks(README)) >= 1
    assert sum(len(_blocks(page)) for page in GUIDE) >= 10
    pages = {p.stem for p in (ROOT / "docs" / "user_guide").glob("*.md")}
    assert {p.stem for p in GUIDE} <= pages


# the nearest-correlation page fits an indefinite matrix, as its text says
@pytest.mark.filterwarnings("ignore:C is not positive semidefinite:UserWarning")
def test_readme_and_guide_examples_run():
    # run as a script would be (the dask examples guard their cluster with it)
    namespace = {"__name__": "__main__"}
    for path in [README, *GUIDE]:
        for block in _blocks(path):  # later blocks reuse earlier names, as a reader would
            exec(compile(block, str(path), "exec"), namespace)
    assert namespace["logdet"].embedding_.shape[1] == 30  # the README's examples ran
    assert namespace["search"].best_score_ > 0.9
    assert namespace["on_cluster"].best_score_ > 0.9  # the dask examples ran
    assert namespace["chunked"][0] == (1000, 50)


def test_readme_layout_matches_the_tree():
    """Every source file of the package is in the README's layout, and every
    file the layout names exists."""
    text = README.read_text()
    layout = text[text.index("## Layout"):]
    block = layout[layout.index("src/sklearn_bregman/"):layout.index("tests/ ")]
    named = set(re.findall(r"\b(_?\w+\.(?:py|pyx|h))\b", block))
    src = README.parent / "src" / "sklearn_bregman"
    present = {p.name for p in src.rglob("*") if p.suffix in (".py", ".pyx", ".h")}
    assert named == present
