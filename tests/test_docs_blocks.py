"""Every Python block of the README and of the user guide runs as a user
pastes it and prints what its page says it prints; the figures the pages and
the gallery quote are the figures the code prints.

The pages' conventions, which this module checks:

- **Self-contained.** Each ```python block of the pages in :data:`PAGES` runs
  alone, in a fresh namespace named ``__main__`` (as a pasted script: the
  dask examples guard their cluster with ``if __name__ == "__main__"``),
  with its own imports and data. A shared set-up is repeated, not assumed.
- **Printed output.** A block that prints is followed (blank lines aside) by
  a ```text block holding exactly what it prints, and a ```text block right
  after a Python block is that block's output: a block that prints without
  one, or one that does not print what follows it, fails. ``...`` in the
  text matches any text (a long message, say). Numbers are compared to the
  precision the page shows: a printed number, rounded to the decimals
  shown, must lie within one unit of the last decimal of the page's figure
  (another platform's rounding); integers and the words between the
  numbers must be equal, whitespace aside.
- **Quoted figures.** The paragraph right after a block's output quotes it
  when it has figures with a decimal point: each of them must be a number
  printed by that block or by an earlier block of the page, equal when
  rounded to the decimals the paragraph gives. A paragraph that cites
  another source (``benchmarks/``, ``examples/``, ``tests/``) is not a quote.
- **Warnings.** The package's own warnings are errors in the suite
  (pyproject.toml). A block whose run warns says so in a comment,
  ``warns "<start of the message>"``; the test then requires that warning.
- **Slow blocks** (over about 10 s on a loaded 2-core machine) carry the
  ``slow`` marker: ``python -m pytest -m "not slow"`` is the quick run,
  ``python -m pytest`` runs everything (CI).

The README's printout of ``python -m sklearn_bregman.demo`` is checked
against the demo's output, its timings aside.

The gallery (``examples/plot_*.py``): every figure with a decimal point in a
script's docstring, and in the pages' paragraphs that name the script (with
the ```text block right after such a paragraph), must be among the numbers
the script prints (equal when rounded as quoted), unless
:data:`NOT_PRINTED` lists it as not the script's output (a parameter, a
section number, the paper's or a benchmark's figure, a timing, a difference
of printed figures). The scripts run in a temporary directory, so their
figures are not written over the committed ones; the two that take minutes
(:data:`VERY_SLOW_EXAMPLES`) run only with SKLEARN_BREGMAN_SLOW_EXAMPLES=1.
"""

import ast
import contextlib
import io
import math
import os
import pathlib
import re
import runpy

import pytest

from sklearn_bregman._utils._warnings import SklearnBregmanWarning

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "docs" / "getting_started.md", ROOT / "docs" / "index.md",
         *sorted((ROOT / "docs" / "user_guide").glob("*.md"))]

#: Blocks over about 10 s on a loaded 2-core machine, by page and a line of
#: the block: the dask examples, which start a cluster of worker processes.
SLOW = {
    ("docs/user_guide/dask.md", "joblib.parallel_backend(\"dask\")"),
    ("docs/user_guide/dask.md", "make_classification(20000"),
}


# ---------------------------------------------------------------------------
# The pages' blocks


class Block:
    """A ```python block of a page: its code, its printed output as the page
    shows it (None: it prints nothing), and the paragraph that follows."""

    def __init__(self, page, line, code, output, prose, earlier):
        self.page, self.line, self.code = page, line, code
        self.output, self.prose = output, prose
        self.earlier = earlier  # the page's earlier blocks

    @property
    def id(self):
        return f"{self.page.relative_to(ROOT).as_posix()}:{self.line}"


def _fence_close(lines, start):
    """The index of the line that closes the fence opened at ``start`` (or
    ``len(lines)`` if it is never closed)."""
    i = start + 1
    while i < len(lines) and lines[i].rstrip() != "```":
        i += 1
    return i


def _fences(lines):
    """(info string, first line index, content lines, index after the fence)
    of each fence that opens at column 0."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start, i = i, _fence_close(lines, i)
            yield lines[start][3:].strip(), start, lines[start + 1:i], i + 1
        i += 1


def _blocks(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    fences = list(_fences(lines))
    blocks = []
    for k, (info, start, content, after) in enumerate(fences):
        if info != "python":
            continue
        output = None
        j = after
        while j < len(lines) and not lines[j].strip():
            j += 1
        if k + 1 < len(fences) and fences[k + 1][1] == j and fences[k + 1][0] == "text":
            output = "\n".join(fences[k + 1][2])
            j = fences[k + 1][3]
            while j < len(lines) and not lines[j].strip():
                j += 1
        prose = []
        while output is not None and j < len(lines) and lines[j].strip() \
                and not lines[j].startswith(("```", "#")):
            prose.append(lines[j])
            j += 1
        blocks.append(Block(page, start + 1, "\n".join(content) + "\n", output,
                            " ".join(prose), list(blocks)))
    return blocks


BLOCKS = [block for page in PAGES for block in _blocks(page)]


def _is_slow(block):
    page = block.page.relative_to(ROOT).as_posix()
    return any(page == p and snippet in block.code for p, snippet in SLOW)


def _param(block):
    marks = [pytest.mark.slow] if _is_slow(block) else []
    return pytest.param(block, id=block.id, marks=marks)


# ---------------------------------------------------------------------------
# Comparing printed text with the text a page shows

#: A number as written; the minus of "+-0.01" (plus-minus) is not its sign.
_NUMBER = r"(?<![\w.])(?:(?<!\+)-)?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?!\w|\.\d)"


def _decimals(shown):
    """The decimals of a number as written, and its exponent (0 without)."""
    mantissa, _, exponent = shown.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return decimals, int(exponent or 0)


def _agrees(printed, shown, slack=1):
    """Whether a printed number is the figure ``shown`` to its precision:
    rounded to the decimals shown, within ``slack`` units of the last one."""
    if "." not in shown and "e" not in shown.lower():
        return "." not in printed and "e" not in printed.lower() and int(printed) == int(shown)
    decimals, exponent = _decimals(shown)
    unit = 10.0 ** (exponent - decimals)
    value = float(printed)
    if not math.isfinite(value):
        return False
    rounded = round(value / unit) * unit
    return abs(rounded - float(shown)) <= unit * (slack + 1e-6)


def _pattern(expected, timings=False):
    """A regular expression for the text a page shows: numbers captured,
    ``...`` any text, whitespace any whitespace. With ``timings``, a number
    of seconds ("0.03 s") is any number."""
    parts, shown = [], []
    expected = expected.strip()
    for m in re.finditer(rf"\.\.\.|{_NUMBER}|\s+|[^\s.\d-]+|.", expected):
        token = m.group()
        if token == "...":
            parts.append(r"[\s\S]*?")
        elif re.fullmatch(_NUMBER, token):
            parts.append(r"(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|-?inf|nan)")
            seconds = timings and re.match(r"\s?s\b", expected[m.end():])
            shown.append(None if seconds else token)
        elif token.isspace():
            parts.append(r"\s+")
        else:
            parts.append(re.escape(token))
    return "".join(parts), shown


def _compare(printed, expected, where, timings=False):
    pattern, shown = _pattern(expected, timings)
    match = re.fullmatch(pattern, printed.strip())
    assert match is not None, (
        f"{where} prints\n{printed.rstrip()}\n\nwhere the page shows\n{expected.rstrip()}")
    wrong = [(s, p) for s, p in zip(shown, match.groups())
             if s is not None and not _agrees(p, s)]
    assert not wrong, (
        f"{where}: numbers differ (page -> printed): "
        + ", ".join(f"{s} -> {p}" for s, p in wrong)
        + f"\n\nprinted:\n{printed.rstrip()}\n\npage:\n{expected.rstrip()}")


def _quoted(prose):
    """The figures with a decimal point of a paragraph."""
    return [n for n in re.findall(_NUMBER, prose) if "." in n]


def _check_quotes(prose, printed, where):
    numbers = re.findall(_NUMBER, printed)
    missing = [q for q in _quoted(prose) if not any(_agrees(n, q, slack=0) for n in numbers)]
    assert not missing, (f"{where}: the prose quotes {', '.join(missing)}, which the "
                         f"blocks do not print:\n{prose}\n\nprinted:\n{printed}")


def _cites_another_source(prose):
    return re.search(r"\b(benchmarks|examples|tests)/", prose) is not None


# ---------------------------------------------------------------------------
# Running a block

def _run(code, filename, first_line):
    """Run ``code`` as a pasted script; return what it prints. Tracebacks and
    warnings name the page's own lines."""
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("\n" * first_line + code, filename, "exec"), namespace)
    return out.getvalue()


def _warned(code):
    return re.findall(r'#.*\bwarns "([^"]+)"', code)


def _run_block(block):
    with contextlib.ExitStack() as stack:
        for message in _warned(block.code):
            stack.enter_context(pytest.warns(SklearnBregmanWarning, match=re.escape(message)))
        return _run(block.code, str(block.page), block.line)


# distributed's scheduler serves HTTP on port 8787 even without a dashboard:
# another cluster on the machine moves it elsewhere, with this warning
@pytest.mark.filterwarnings("ignore:Port 8787 is already in use:UserWarning")
@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_block_runs_alone_and_prints_what_the_page_shows(block):
    printed = _run_block(block)
    if block.output is None:
        assert not printed.strip(), (
            f"{block.id} prints\n{printed}\nbut no ```text block after it shows it")
        return
    assert printed.strip(), f"{block.id} prints nothing; the page shows\n{block.output}"
    _compare(printed, block.output, block.id)
    if _quoted(block.prose) and not _cites_another_source(block.prose):
        # the quoted figures come from this block's output or an earlier one's
        earlier = "\n".join(b.output or "" for b in block.earlier)
        _check_quotes(block.prose, printed + "\n" + earlier, block.id)


def test_the_pages_have_blocks():
    pages = {b.page.name for b in BLOCKS}
    assert {"README.md", "getting_started.md", "estimators.md", "dask.md"} <= pages
    assert len(BLOCKS) >= 29
    for page, snippet in SLOW:  # every slow entry names one block
        assert sum(b.page.relative_to(ROOT).as_posix() == page and snippet in b.code
                   for b in BLOCKS) == 1, (page, snippet)


@pytest.mark.parametrize("expected, printed, ok", [
    ("True 0.0010", "True 0.001", True),
    ("True 0.0010", "True 0.0012", False),
    ("0.965 against 0.928", "0.9648967 against 0.928", True),
    ("0.965", "0.963", False),
    ("24 -0.1009", "24 -0.10093", True),
    ("24 -0.1009", "25 -0.10093", False),
    ("(300, 60) 37.6", "(300, 60) 37.6", True),
    ("did not converge ... Use a finite", "did not converge in 200 sweeps\nUse a finite", True),
    ("1e+300", "1e+300", True),
    ("float32", "float64", False),
])
def test_the_comparison(expected, printed, ok):
    if ok:
        _compare(printed, expected, "example")
    else:
        with pytest.raises(AssertionError):
            _compare(printed, expected, "example")


def test_the_demo_prints_what_the_readme_shows():
    """The README's printout of ``python -m sklearn_bregman.demo`` (the text
    block after the paragraph that names it; its timings aside)."""
    units = list(_units(ROOT / "README.md"))
    shown = next(units[k + 1][1] for k, (kind, text) in enumerate(units[:-1])
                 if kind == "paragraph" and "python -m sklearn_bregman.demo" in text
                 and units[k + 1][0] == "text")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_module("sklearn_bregman.demo", run_name="__main__")
    _compare(out.getvalue(), shown, "python -m sklearn_bregman.demo", timings=True)


# ---------------------------------------------------------------------------
# The gallery: what its docstrings, and the guide's paragraphs that name a
# script, quote of the script's output

EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))

#: Scripts of a few seconds, run in the quick run too.
QUICK_EXAMPLES = {"plot_pair_roc", "plot_partial_fit_stream", "plot_relative_constraints"}

#: Scripts of several minutes (docs/conf.py's SLOW_EXAMPLES, which the docs
#: build skips in its fast mode): run only with SKLEARN_BREGMAN_SLOW_EXAMPLES=1
#: in the environment, as the suite runs twice within CI's time.
VERY_SLOW_EXAMPLES = {"plot_sklr_noise", "plot_sklr_triplets"}

#: Figures with a decimal point that the docstring or the guide quotes next
#: to a script's but that are not its output (parameters, section numbers,
#: the paper's, a benchmark's or a test's figures, timings), and paragraphs
#: of a docstring that are not about its output: by their first words, or a
#: (first, next) pair for the paragraphs from the first up to the next.
NOT_PRINTED = {
    "plot_csi_figure2": {"0.99"},  # kappa
    "plot_csi_rank": {"0.99"},  # kappa
    "plot_definiteboost_exact_vs_approximate": {"6.3"},  # a section
    "plot_itml_learning_curve": {"0.75", "0.95"},  # tests/test_itml.py's
    "plot_kernel_kmeans_constraints": {"0.25"},  # epsilon
    "plot_knn_vs_constraints": {"1.0", "3.0"},  # bounds=(1.0, 3.0)
    "plot_nearest_correlation": {"6.3"},  # a section
    "plot_pair_roc": {"4.99", "4.68", "6.7", "7.4"},  # bench_pair_grid_search.py's
    "plot_partial_fit_stream": {"0.06", "0.08"},  # timings
    "plot_relative_constraints": {"0.02", "7.1"},  # gamma, a section
    "plot_sklr_noise": {"5.5", "3.5", "1.5",  # a section, run times
                        "0.05", "0.20",  # differences of the table's
                        "0.03",  # a run with max_iter=10, not printed
                        ("Picking lambda.", "This script (nested corruption")},  # exploratory
    "plot_sklr_triplets": {"5.3", "0.3", "3.5",  # a section, lambda, run time
                           "0.7", "0.10", "0.1"},  # bounds and differences of the table's
}


def _docstring(example):
    return ast.get_docstring(ast.parse(example.read_text(encoding="utf-8"))) or ""


def _units(page):
    """The paragraphs and fences of a Markdown page, as (kind, text)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start, i = i, _fence_close(lines, i)
            yield lines[start][3:].strip() or "fence", "\n".join(lines[start + 1:i])
            i += 1
        elif lines[i].strip():
            start = i
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("```"):
                i += 1
            yield "paragraph", " ".join(lines[start:i])
        else:
            i += 1


def _quotes_of(example):
    """(where, text) of each passage that quotes the script's output: its
    docstring's paragraphs, and the pages' paragraphs that name it (with the
    ```text block right after one)."""
    name = example.stem
    skip = NOT_PRINTED.get(name, set())
    quotes, until = [], None
    for paragraph in re.split(r"\n\s*\n", _docstring(example)):
        head = paragraph.lstrip()
        if until is not None and not head.startswith(until):
            continue
        until = next((s[1] for s in skip if isinstance(s, tuple) and head.startswith(s[0])),
                     None)
        if until is None and not any(head.startswith(s) for s in skip
                                     if isinstance(s, str) and not _is_figure(s)):
            quotes.append((f"examples/{name}.py docstring", paragraph))
    for page in PAGES:
        units = list(_units(page))
        for k, (kind, text) in enumerate(units):
            if kind == "paragraph" and (f"examples/{name}.py" in text
                                        or f"auto_examples_{name}.py" in text):
                where = page.relative_to(ROOT).as_posix()
                quotes.append((where, text))
                if k + 1 < len(units) and units[k + 1][0] == "text":
                    quotes.append((where, units[k + 1][1]))
    return [(where, text, [q for q in _quoted(text) if q not in skip])
            for where, text in quotes]


def _is_figure(s):
    return isinstance(s, str) and re.fullmatch(r"[\d.]+", s) is not None


def _example_param(example):
    name = example.stem
    marks = [] if name in QUICK_EXAMPLES else [pytest.mark.slow]
    if name in VERY_SLOW_EXAMPLES:
        marks.append(pytest.mark.skipif(
            os.environ.get("SKLEARN_BREGMAN_SLOW_EXAMPLES") != "1",
            reason="minutes long: SKLEARN_BREGMAN_SLOW_EXAMPLES=1 runs it"))
    return pytest.param(example, id=name, marks=marks)


def _run_example(example, tmp_path):
    """Run a copy of the script as ``__main__`` in ``tmp_path`` (its figure is
    saved there, not over the committed one); return what it prints."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    copy = tmp_path / example.name
    copy.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(copy), run_name="__main__")
    finally:
        plt.close("all")
    return out.getvalue()


@pytest.mark.parametrize("example", [_example_param(e) for e in EXAMPLES])
def test_gallery_quotes_what_the_script_prints(example, tmp_path):
    quotes = [q for q in _quotes_of(example) if q[2]]
    # every script runs here, quoting or not: CI's docs build does not run the
    # gallery (-D plot_gallery=0), the suite does, once
    printed = _run_example(example, tmp_path)
    for where, _text, figures in quotes:
        _check_quotes(" ".join(figures), printed, f"{where} on {example.name}")


def test_the_gallerys_exemptions_are_used():
    for name, skip in NOT_PRINTED.items():
        example = ROOT / "examples" / f"{name}.py"
        assert example.exists(), name
        text = _docstring(example) + " ".join(
            t for page in PAGES for _, t in _units(page))
        for s in skip:
            found = s in _quoted(text) if _is_figure(s) else all(
                part in text for part in (s if isinstance(s, tuple) else (s,)))
            assert found, (name, s)
