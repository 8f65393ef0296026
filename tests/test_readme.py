"""The README's Python examples run as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 3


def test_readme_examples_run():
    namespace = {}
    for block in BLOCKS:  # later blocks reuse names from earlier ones, as a reader would
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["search"].best_score_ > 0.9
