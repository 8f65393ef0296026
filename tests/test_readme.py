"""The README's Python examples run as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 3


def test_readme_examples_run():
    # run as a script would be (the dask example guards its cluster with it)
    namespace = {"__name__": "__main__"}
    for block in BLOCKS:  # later blocks reuse names from earlier ones, as a reader would
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["search"].best_score_ > 0.9
    assert namespace["on_cluster"].best_score_ > 0.9  # the dask example ran


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
