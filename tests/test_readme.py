"""The README's layout section names the package's files as they are.

The README's and the user guide's code blocks are run by
tests/test_docs_blocks.py, each alone, as a user pastes it.
"""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


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
