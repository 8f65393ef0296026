"""The benchmarks' figures, drawn at build time from ``benchmarks/results/*.json``.

Each benchmark that measures this package beside a peer (or a published
figure) writes the record of its run with ``--json`` (``benchmarks/_results.py``:
the machine, the date, the command and the measured series, ours and the
peer's from the same run).  This extension gives the guide the directive ::

    ```{bench-figure} itml_metric_learn
    :alt: ...

    What the figure shows (the caption's first sentences).
    ```

which draws ``benchmarks/results/itml_metric_learn.json`` with matplotlib
(Agg) into ``docs/generated/benchmarks/itml_metric_learn.png`` and shows it
as a figure whose caption ends with the machine, the date, the versions and
the command of the run.  The page is read again when the record changes.

Run on its own, ``python docs/_ext/bench_figures.py [OUTDIR]`` draws every
figure into OUTDIR (default ``docs/generated/benchmarks``).
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent.parent / "benchmarks" / "results"
OUT = "generated/benchmarks"  # under the documentation's source directory

OURS, PEER, PEER2, OTHER = "#1f5fa8", "#d9641c", "#7a7a7a", "#2f9e5f"
PEER_NAMES = {"metric-learn": "metric-learn", "statsmodels": "statsmodels",
              "dask-ml": "dask-ml", "dask": "dask", "distributed": "distributed"}


# -- the record ---------------------------------------------------------------

def load(name):
    with open(RESULTS / f"{name}.json") as f:
        return json.load(f)


def _date(record):
    return record["date"][:10]


def _blas_threads(record):
    threads = record.get("params", {}).get("blas_threads")
    if threads in (None, "default"):
        pools = [p for p in record["machine"].get("thread_pools", [])
                 if p.get("user_api") == "blas"]
        threads = max((p["num_threads"] for p in pools), default=None)
    if isinstance(threads, int):
        return f"BLAS on {threads} thread{'s' if threads > 1 else ''}"
    return f"BLAS threads: {threads}"


def _versions(record, peers=True):
    pk = record["machine"]["packages"]
    out = [f"NumPy {pk.get('numpy')}", f"SciPy {pk.get('scipy')}",
           f"scikit-learn {pk.get('scikit-learn')}"]
    if peers:
        out += [f"{PEER_NAMES[k]} {v}" for k, v in pk.items() if k in PEER_NAMES and v]
    return out


def footer(record):
    """One line for the bottom of the figure: machine, date, load."""
    m = record["machine"]
    load = m.get("load_average_start")
    load = f", load {load[0]:.1f}" if load else ""
    return (f"{m['cpu']}, {m['cores']} cores, {m['memory_gb']:g} GiB RAM{load} | "
            f"{_date(record)} | {_blas_threads(record)} | "
            + ", ".join(_versions(record)))


def caption(record, name):
    """The caption's closing sentences (MyST markdown)."""
    m = record["machine"]
    load = m.get("load_average_start")
    load_text = (f"; load average {load[0]:.1f} at the start (the machine is shared: "
                 f"read the ratios, measured in the same run)" if load else "")
    return (f"Measured on {_date(record)}: {m['cpu']}, {m['cores']} cores, "
            f"{m['memory_gb']:g} GiB RAM, {m['platform']}, Python {m['python']}, "
            + ", ".join(_versions(record)) + f"; {_blas_threads(record)}{load_text}. "
            f"Run: `{record['command']}`"
            + ("" if f"benchmarks/results/{name}.json" in record["command"]
               else f"; the numbers: `benchmarks/results/{name}.json`") + ".")


# -- helpers ----------------------------------------------------------------------

def _new(ncols=1, width=8.0, height=3.6):
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def _finish(fig, record, path, title, bottom=0.045):
    fig.suptitle(title, fontsize=11, fontweight="bold")
    fig.text(0.5, 0.005, footer(record), ha="center", va="bottom", fontsize=6.5,
             color="#555555", wrap=True)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.savefig(path, dpi=150)
    plt.close(fig)


def _ratio(ax, x, y, text, offset=(5, 5), **kw):
    kw.setdefault("ha", "left")
    ax.annotate(text, (x, y), textcoords="offset points", xytext=offset, fontsize=7.5,
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85),
                **kw)


def _seconds_label(s):
    if s < 1:
        return f"{s * 1000:.0f} ms" if s >= 0.01 else f"{s * 1000:.1f} ms"
    if s < 120:
        return f"{s:.1f} s"
    return f"{s / 60:.1f} min"


def _log_axis(ax, which="y"):
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_locator(LogLocator(base=10))
    axis.set_minor_formatter(NullFormatter())


def _mb(values_mib):
    """Memory recorded in MiB (2^20 bytes) as decimal MB (10^6 bytes)."""
    return [v * 2**20 / 1e6 for v in values_mib]


def _memory_axis(ax):
    """Log axis in decimal MB: ticks 10 MB, 100 MB, 1 GB, 10 GB, ..."""
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(
        lambda v, _: f"{v / 1000:,.0f} GB" if v >= 1000 else f"{v:,.0f} MB"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _plain_ticks(ax, values, which="x"):
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_ticks(values)
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    axis.set_minor_formatter(NullFormatter())


# -- one function per figure ---------------------------------------------------------

def draw_logdet_projection(record, path):
    s = record["results"]
    r, ours, numpy = s["r"], s["compiled_us"], s["numpy_us"]
    fig, (ax,) = _new(width=7.0, height=3.8)
    ax.loglog(r, numpy, "s-", color=PEER2, label="NumPy loop, one projection per "
              "Python iteration (tests/oracles.py)")
    ax.loglog(r, ours, "o-", color=OURS, label="sklearn_bregman, compiled sweep")
    for x, a, b in zip(r, ours, numpy):
        _ratio(ax, x, a, f"{a:.2g} µs: {b / a:.0f}x faster", color=OURS)
    _plain_ticks(ax, r)
    ax.set_xlim(r[0] / 1.3, r[-1] * 1.9)
    ax.set_xlabel("rank r (state M is r x r)")
    ax.set_ylabel("time per projection [µs]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    p = record["params"]
    _finish(fig, record, path, f"One rank-one LogDet projection: {p['constraints']:,} "
            f"pairs over n = {p['n']:,} points")


def draw_itml_metric_learn(record, path):
    per, conv = record["results"]["per_projection"], record["results"]["to_convergence"]
    fig, (a1, a2) = _new(2, width=9.0, height=4.4)
    d = [row["d"] for row in per]
    ours = [row["ours_us"] for row in per]
    ml = [row["metric_learn_us"] for row in per]
    a1.loglog(d, ml, "s-", color=PEER, label="metric-learn ITML")
    a1.loglog(d, ours, "o-", color=OURS, label="ITMLTransformer")
    for x, a, b in zip(d, ours, ml):
        _ratio(a1, x, a, f"{b / a:.0f}x", color=OURS)
    _plain_ticks(a1, d)
    a1.set_xlabel("dimension d")
    a1.set_ylabel("time per projection [µs]")
    a1.set_title("per projection (the same cyclic order,\nthe same iterates)", fontsize=9)
    a1.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    d = [row["d"] for row in conv]
    for key, label, style, color in (
            ("metric_learn", "metric-learn ITML (cyclic)", "s-", PEER),
            ("ours_cyclic", "ITMLTransformer, order='cyclic'", "^--", OTHER),
            ("ours", "ITMLTransformer (reshuffled, default)", "o-", OURS)):
        t = [row[key]["seconds"] for row in conv]
        a2.loglog(d, t, style, color=color, label=label)
    max_iter = 1000
    for row in conv:
        a, b = row["ours"]["seconds"], row["metric_learn"]["seconds"]
        _ratio(a2, row["d"], a, f"{b / a:.0f}x", offset=(-8, 7), ha="center", color=OURS)
        for key in ("metric_learn", "ours_cyclic"):
            if row[key]["sweeps"] >= max_iter:
                a2.loglog([row["d"]], [row[key]["seconds"]], "o", ms=13, mfc="none",
                          mec="#aa0000", mew=1.2)
    a2.plot([], [], "o", ms=10, mfc="none", mec="#aa0000",
            label=f"stopped at max_iter = {max_iter} sweeps")
    _plain_ticks(a2, d)
    a2.set_xlabel("dimension d")
    a2.set_ylabel("fit to tol = 1e-3 [s]")
    a2.set_title("to convergence (each its own stopping rule)", fontsize=9)
    a2.grid(True, which="both", alpha=0.3)
    a2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    p = record["params"]
    _finish(fig, record, path, f"ITML against metric-learn: {p['pairs']:,} pairs, "
            f"n = {p['n']:,}, slack 1, identity prior")


def draw_kernel_learning_scale(record, path):
    res = record["results"]
    fig, (ax,) = _new(width=8.0, height=3.4)
    labels, values, colors, notes = [], [], [], []
    for run in res["runs"]:
        tag = "reshuffled (default)" if run["order"] == "random" else "cyclic order"
        labels.append(f"sklearn_bregman,\n{tag}")
        values.append(run["seconds"])
        colors.append(OURS if run["order"] == "random" else OTHER)
        verdict = "converged" if run["converged"] else "not converged"
        notes.append(f"{_seconds_label(run['seconds'])}: {run['sweeps']} sweeps, {verdict}\n"
                     f"the paper's time / this: "
                     f"{res['paper']['seconds'] / run['seconds']:.0f}x")
    labels.append("JMLR 2009 paper\n(its machine)")
    values.append(res["paper"]["seconds"])
    colors.append(PEER)
    notes.append("11.3 min, as reported")
    y = list(range(len(values)))[::-1]
    ax.barh(y, values, color=colors, height=0.6)
    ax.set_xscale("log")
    ax.axvline(res["paper"]["seconds"], color=PEER, ls="--", lw=1)
    for yi, v, note in zip(y, values, notes):
        ax.text(v * 1.15, yi, note, va="center", fontsize=8,
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85))
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8.5)
    ax.set_xlim(1, max(values) * 100)
    ax.set_xlabel("fit time [s] (log scale)")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    p = record["params"]
    _finish(fig, record, path, f"The paper's largest run: n = {p['n']:,}, d = {p['d']}, "
            f"{p['constraints']:,} constraints,\nlinear kernel at rank {p['rank']}, "
            f"tol = {p['tol']:g}")


def draw_kernel_learning_memory(record, path):
    runs = record["results"]["runs"]
    n = [r["n"] for r in runs]
    fig, (a1, a2) = _new(2, width=9.0, height=4.4)
    a1.loglog(n, _mb([r["kernel_nxn_mb"] for r in runs]), "x--", color=PEER2,
              label="one n x n float64 kernel (never formed)")
    a1.loglog(n, _mb([r["peak_rss_mb"] for r in runs]), "o-", color=OURS,
              label="peak resident memory of the process")
    a1.loglog(n, _mb([r["factor_mb"] for r in runs]), "^-", color=OTHER,
              label="one n x r factor")
    a1.loglog(n, _mb([r["data_mb"] for r in runs]), "v:", color="#999999", label="the data X")
    for r, mb in zip(runs, _mb([r["peak_rss_mb"] for r in runs])):
        _ratio(a1, r["n"], mb, f"{mb:.0f} MB", color=OURS)
    for r, mb in zip(runs, _mb([r["kernel_nxn_mb"] for r in runs])):
        _ratio(a1, r["n"], mb, f"{mb / 1000:.0f} GB", offset=(4, -13), color=PEER2)
    _plain_ticks(a1, n)
    _memory_axis(a1)
    a1.set_xlabel("points n")
    a1.set_ylabel("memory")
    a1.set_title("memory against n", fontsize=9)
    a1.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    a2.plot(n, [r["fit_s"] for r in runs], "o-", color=OURS, label="fit")
    for r in runs:
        _ratio(a2, r["n"], r["fit_s"], f"{r['fit_s']:.1f} s", color=OURS)
    a2.set_xscale("log")
    _plain_ticks(a2, n)
    a2.set_ylim(0, max(r["fit_s"] for r in runs) * 1.2)
    a2.set_xlabel("points n")
    a2.set_ylabel("fit time [s]")
    a2.set_title(f"fit time against n ({runs[-1]['sweeps']} sweeps at the largest)",
                 fontsize=9)
    a2.grid(True, which="both", alpha=0.3)
    p = record["params"]
    _finish(fig, record, path, f"LogDetKernelLearner, rbf kernel, rank {p['rank']}, "
            f"d = {p['d']}: time and memory against n")


def _time_against_n(ax, rows, methods, budget=None):
    for method, label, style, color in methods:
        pts = [(r["n"], r["seconds"], r.get("interrupted", False)) for r in rows
               if r["method"] == method and r["seconds"] is not None]
        done = [(n, s) for n, s, cut in pts if not cut]
        if done:
            ax.loglog(*zip(*done), style, color=color, label=label)
        for n, s, cut in pts:
            if cut:
                ax.loglog([n], [s], "x", color=color, ms=9, mew=2)
    if budget:
        ax.set_ylim(top=budget * 4)
        ax.axhline(budget, color="#aa0000", ls=":", lw=1)
        ax.annotate(f"budget {budget:.0f} s: a fit past it (x) ends that method's curve",
                    (1.0, budget), xycoords=("axes fraction", "data"),
                    textcoords="offset points", xytext=(-4, -11), ha="right", fontsize=7,
                    color="#aa0000")


def draw_nearest_correlation(record, path):
    res, p = record["results"], record["params"]
    rows = res["time_against_n"]
    fig, (ax,) = _new(width=7.5, height=4.6)
    ours = "NearestCorrelation (LogDet, rank=5)"
    methods = ((ours, "NearestCorrelation, LogDet, rank = 5", "o-", OURS),
               ("statsmodels corr_nearest", "statsmodels corr_nearest (at most 20 "
                "iterations)", "s-", PEER),
               ("statsmodels corr_nearest_factor (k=5)", "statsmodels "
                "corr_nearest_factor, k = 5", "D-", PEER2))
    _time_against_n(ax, rows, methods, p["budget_s"])
    by = {(r["n"], r["method"]): r["seconds"] for r in rows}
    for n in sorted({r["n"] for r in rows}):
        a = by.get((n, ours))
        b = by.get((n, "statsmodels corr_nearest"))
        if a and b and b <= p["budget_s"]:
            _ratio(ax, n, a, f"{b / a:.0f}x", color=OURS)
    ns = sorted({r["n"] for r in rows})
    _plain_ticks(ax, ns)
    ax.set_xlabel("variables n (C is n x n)")
    ax.set_ylabel("fit time [s]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    _finish(fig, record, path, "Nearest correlation to an indefinite pairwise estimate: "
            "fit time against n")


def draw_nearest_correlation_frobenius(record, path):
    fits = record["results"]["fits"]
    fig, (ax,) = _new(width=7.5, height=4.6)
    uni = [f for f in fits if f["input"] == "uniform"]
    methods = (("Newton (ours)", "NearestCorrelation('frobenius'), Newton", "o-", OURS),
               ("projections (ours)", "NearestCorrelation('frobenius', "
                "solver='projections')", "^-", OTHER),
               ("statsmodels corr_nearest", "statsmodels corr_nearest (the same "
                "iterations)", "s-", PEER))
    _time_against_n(ax, uni, methods)
    for f in fits:
        if f["input"] == "pairwise" and f["seconds"] is not None:
            color = {m: c for m, _, _, c in methods}[f["method"]]
            ax.loglog([f["n"]], [f["seconds"]], "*", color=color, ms=10)
    budget = record["params"]["budget_s"]
    by = {(f["n"], f["input"], f["method"]): f["seconds"] for f in fits}
    for (n, inp, method), s in by.items():
        if method == "Newton (ours)" and inp == "uniform" and s:
            b = by.get((n, inp, "statsmodels corr_nearest"))
            text = f"{b / s:.0f}x" if b else f"others > {budget:.0f} s"
            _ratio(ax, n, s, text, color=OURS)
    ns = sorted({f["n"] for f in fits})
    _plain_ticks(ax, ns)
    ax.set_ylim(top=max(f["seconds"] for f in fits if f["seconds"]) * 3)
    ax.set_xlabel("variables n (C is n x n)")
    ax.set_ylabel("fit time to tol = 1e-8 [s]")
    ax.grid(True, which="both", alpha=0.3)
    ax.plot([], [], "*", color="#444444", ms=9, label="pairwise-complete input (stars)")
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    _finish(fig, record, path, "Frobenius-nearest correlation matrix: Newton against "
            "alternating projections")


def draw_nearest_correlation_scale(record, path):
    fits = record["results"]["fits"]
    fig, (a1, a2) = _new(2, width=9.0, height=4.4)
    styles = {("easy", "newton"): ("o-", OURS, "Newton-CG, easy start"),
              ("hard", "newton"): ("o--", OURS, "Newton-CG, hard start"),
              ("easy", "projections"): ("^-", OTHER, "projections, easy start"),
              ("hard", "projections"): ("^--", OTHER, "projections, hard start")}
    for (start, solver), (style, color, label) in styles.items():
        rows = [f for f in fits if f["start"] == start and f["solver"].startswith(solver)]
        if rows:
            a1.loglog([f["n"] for f in rows], [f["seconds"] for f in rows], style,
                      color=color, label=label)
            a2.loglog([f["n"] for f in rows], _mb([f["peak_traced_mb"] for f in rows]),
                      style, color=color, label=label)
    ns = sorted({f["n"] for f in fits})
    nxn = {f["n"]: f["nxn_float64_mb"] for f in fits}
    a2.loglog(ns, _mb([nxn[n] for n in ns]), "x--", color=PEER2,
              label="one n x n float64 array (never formed)")
    for a in (a1, a2):
        _plain_ticks(a, ns)
        a.set_xlabel("variables n (factor n x r)")
        a.grid(True, which="both", alpha=0.3)
    a1.set_ylabel("fit time [s]")
    a1.set_title("time against n", fontsize=9)
    _memory_axis(a2)
    a2.set_ylabel("peak traced memory of the fit")
    a2.set_title("memory against n", fontsize=9)
    fig.legend(*a2.get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=7.5,
               bbox_to_anchor=(0.5, 0.04))
    r = fits[0]["rank"]
    _finish(fig, record, path, f"NearestCorrelation(input='factor'), rank {r}: "
            "time and memory against n", bottom=0.16)


def draw_rpcholesky(record, path):
    runs = record["results"]["runs"]
    p = record["params"]
    look = (("rpcholesky (blocked)", OURS, "low_rank='rpcholesky'\n(sklearn_bregman)"),
            ("greedy (pivoted_cholesky)", OTHER, "low_rank='cholesky'\n(greedy, ours)"),
            ("numpy loop", PEER2, "greedy,\nplain NumPy loop"),
            ("scikit-learn Nystroem", PEER, "scikit-learn\nNystroem"))
    by = {(r["method"], r["blas_threads"]): r for r in runs}
    fig, (a1, a2) = _new(2, width=9.0, height=4.0)
    y = list(range(len(look)))[::-1]
    base = by[look[0][0], 1]["seconds"]
    for yi, (method, color, _) in zip(y, look):
        one, two = by[method, 1], by.get((method, 2))
        a1.barh(yi + 0.18, one["seconds"], 0.34, color=color)
        a1.text(one["seconds"] * 1.03, yi + 0.18,
                f"{one['seconds']:.2f} s ({one['seconds'] / base:.1f}x)", va="center",
                fontsize=7.5)
        if two:
            a1.barh(yi - 0.18, two["seconds"], 0.34, color="white", edgecolor=color,
                    hatch="//")
            a1.text(two["seconds"] * 1.03, yi - 0.18, f"{two['seconds']:.2f} s", va="center",
                    fontsize=7.5)
        a2.barh(yi, one["trace_error"], 0.5, color=color)
        a2.text(one["trace_error"] * 1.01, yi, f"{one['trace_error']:.4f}", va="center",
                fontsize=7.5)
    for a in (a1, a2):
        a.set_yticks(y)
        a.set_yticklabels([label for _, _, label in look], fontsize=8)
        a.grid(True, axis="x", alpha=0.3)
    a2.set_yticklabels([])
    a1.set_xlim(0, max(r["seconds"] for r in runs) * 1.45)
    a1.set_xlabel(f"time to a rank-{p['rank']} factor of all n points [s]")
    a1.set_title("time: filled 1 BLAS thread, hatched 2\n(ratio to rpcholesky, 1 thread)",
                 fontsize=9)
    a2.set_xlim(0, max(r["trace_error"] for r in runs) * 1.25)
    a2.set_xlabel("trace error tr(K - F F') / tr K")
    a2.set_title("error of the approximation K ~ F F'\n(mean over the seeds)", fontsize=9)
    _finish(fig, record, path, f"A rank-{p['rank']} factor of an rbf kernel: n = "
            f"{p['n']:,} points, d = {p['d']}")


def draw_compare_kernlab(record, path):
    cases = record["results"]["cases"]
    fig, (ax,) = _new(width=8.5, height=4.5)
    width = 0.2
    x = list(range(len(cases)))
    bars = (("csi_ours_s", "CSIDecomposition", OURS, ""),
            ("csi_kernlab_s", "kernlab csi", PEER, ""),
            ("inchol_ours_s", "pivoted Cholesky (ours)", OURS, "//"),
            ("inchol_kernlab_s", "kernlab inchol", PEER, "//"))
    for k, (key, label, color, hatch) in enumerate(bars):
        xs = [xi + (k - 1.5) * width for xi in x]
        ax.bar(xs, [c[key] for c in cases], width, color=color if not hatch else "white",
               edgecolor=color, hatch=hatch, label=label)
    for xi, c in zip(x, cases):
        ax.text(xi - width, c["csi_kernlab_s"] * 1.1,
                f"{c['csi_kernlab_s'] / c['csi_ours_s']:.0f}x", ha="center", fontsize=7.5,
                color=OURS)
        ax.text(xi + width, c["inchol_kernlab_s"] * 1.1,
                f"{c['inchol_kernlab_s'] / c['inchol_ours_s']:.0f}x", ha="center",
                fontsize=7.5, color=OURS)
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{c['case'].replace('_', ' ')}\nn = {c['n']:,}" for c in cases],
                       fontsize=7.5)
    ax.set_ylabel("time, best of the runs [s]")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7.5, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    p = record["params"]
    _finish(fig, record, path, f"Rank-{p['rank']} factors against kernlab "
            f"({p['r_and_kernlab'].split(' on ')[0]}, R): the same pivots, one thread each")


def draw_dask_out_of_core(record, path):
    res, p = record["results"], record["params"]
    fig, (a1, a2) = _new(2, width=9.0, height=3.6)
    names = ["KernelKMeans\n(sklearn_bregman)"]
    times = [res["kernel_kmeans"]["seconds"]]
    colors = [OURS]
    quality = [res["kernel_kmeans"]]
    if "dask_ml_kmeans" in res:
        names.append("dask_ml.cluster\n.KMeans")
        times.append(res["dask_ml_kmeans"]["seconds"])
        colors.append(PEER)
        quality.append(res["dask_ml_kmeans"])
    a1.bar(names, times, color=colors, width=0.55)
    for i, (t, q) in enumerate(zip(times, quality)):
        a1.text(i, t * 1.02, f"{t:.0f} s\n{q['iterations']} iterations", ha="center",
                va="bottom", fontsize=8)
    a1.set_ylim(0, max(times) * 1.3)
    a1.set_ylabel("clustering time [s]")
    a1.set_title(f"5 clusters of the lazy embedding (n x 100),\nworkers of "
                 f"{p['memory_limit']}", fontsize=9)
    a1.grid(True, axis="y", alpha=0.3)
    a2.bar(names, [q["ari"] for q in quality], color=colors, width=0.55)
    for i, q in enumerate(quality):
        a2.text(i, q["ari"] + 0.01, f"ARI {q['ari']:.4f}\ninertia {q['inertia']:,.0f}",
                ha="center", va="bottom", fontsize=8)
    a2.set_ylim(0, 1.25)
    a2.set_ylabel("adjusted Rand index vs the classes")
    a2.set_title("agreement with the generating classes", fontsize=9)
    a2.grid(True, axis="y", alpha=0.3)
    _finish(fig, record, path, f"k-means out of core: n = {p['n']:,} x {p['d']}, "
            f"{p['workers']} (fit {res['fit']['seconds']:.0f} s before)")


SKLR_DATA = {"vehicle": "Vehicle\n(Statlog)", "segment": "segment\n(for MIT Scene)",
             "digits": "digits\n(for USPS)"}


def draw_sklr_table1(record, path):
    res, p = record["results"], record["params"]
    published = res["published"]
    methods = [m for m in ("Kkm", "ITML", "SKLR", "sSKLR")
               if any(k.endswith("/" + m) for k in res["table"])]
    colors = {"Kkm": PEER2, "ITML": PEER, "SKLR": OURS, "sSKLR": OTHER}
    labels = {"Kkm": "kernel k-means", "ITML": "ITML + k-means", "SKLR": "SKLR",
              "sSKLR": "sSKLR"}
    fig, axes = _new(2, width=9.5, height=4.2)
    width = 0.8 / len(methods)
    for ax, setting in zip(axes, ("binary", "multiclass")):
        data = [d for d in p["datasets"] if f"{d}/{setting}/{methods[0]}" in res["table"]]
        for k, m in enumerate(methods):
            xs = [i + (k - (len(methods) - 1) / 2) * width for i in range(len(data))]
            mean = [res["table"][f"{d}/{setting}/{m}"][0] for d in data]
            sd = [res["table"][f"{d}/{setting}/{m}"][1] for d in data]
            ax.bar(xs, mean, width * 0.92, yerr=sd, color=colors[m], label=f"{labels[m]}",
                   error_kw=dict(lw=0.8, capsize=2, ecolor="#333333"))
            ax.scatter(xs, [published[d][setting][m] for d in data], marker="_", s=140,
                       color="black", zorder=3, linewidths=2,
                       label="published (Table 1)" if k == 0 else None)
        ax.axhline(0, color="#333333", lw=0.6)
        ax.set_xticks(range(len(data)))
        ax.set_xticklabels([SKLR_DATA.get(d, d) for d in data], fontsize=7.5)
        ax.set_ylim(-0.2, 1.05)
        ax.set_ylabel("adjusted Rand index")
        ax.set_title(f"{setting} clustering", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, fontsize=7.5, ncol=5, loc="lower center",
               bbox_to_anchor=(0.5, 0.04), frameon=False)
    _finish(fig, record, path, f"SKLR's Table 1 protocol, {p['runs']} runs: mean ARI "
            "(bars, ± one standard deviation) and the published mean (black)",
            bottom=0.13)


def draw_vonneumann_fit(record, path):
    res, p = record["results"], record["params"]
    fig, (a1, a2) = _new(2, width=9.5, height=4.0)
    x = list(range(len(res["data"])))
    labels = [f"{d.replace('_', ' ')}\n{k}, r = {r}"
              for d, k, r in zip(res["data"], res["kernel"], res["r"])]
    width = 0.38
    a1.bar([xi - width / 2 for xi in x], res["logdet_s"], width, color=PEER2,
           label="LogDetKernelLearner")
    a1.bar([xi + width / 2 for xi in x], res["vn_s"], width, color=OURS,
           label="VonNeumannKernelLearner")
    a1.set_yscale("log")
    a1.set_ylabel("CPU time per fit [s]")
    a1.set_xticks(x)
    a1.set_xticklabels(labels, fontsize=6.5, rotation=45, ha="right")
    a1.grid(True, axis="y", which="both", alpha=0.3)
    a1.legend(fontsize=7.5, loc="upper left")
    a1.set_title("one fit, mean over 5 folds (best of the repeats)", fontsize=9)
    a2.bar(x, res["ratio"], 0.6, color=OURS)
    for xi, ratio, s1, s2 in zip(x, res["ratio"], res["logdet_sweeps"], res["vn_sweeps"]):
        a2.text(xi, ratio + 0.15, f"{ratio:.1f}x\n{s2:.0f} / {s1:.0f}", ha="center",
                va="bottom", fontsize=6.5)
    a2.axhline(p["target_ratio"], color="black", ls="--", lw=0.9,
               label=f"target {p['target_ratio']:.0f}x")
    a2.legend(fontsize=7.5, loc="upper left")
    a2.set_ylim(0, max(res["ratio"]) * 1.35)
    a2.set_ylabel("von Neumann / LogDet")
    a2.set_xticks(x)
    a2.set_xticklabels(labels, fontsize=6.5, rotation=45, ha="right")
    a2.grid(True, axis="y", alpha=0.3)
    a2.set_title(f"ratio (overall {res['overall_ratio']:.1f}x), and sweeps vN / LogDet",
                 fontsize=9)
    _finish(fig, record, path, "Von Neumann and LogDet kernel learning on the same "
            "constraints", bottom=0.03)


def draw_csi_speed(record, path):
    res, p = record["results"], record["params"]
    fig, (a1, a2) = _new(2, width=9.0, height=3.6)
    names = ["CSI\n(labels, delta = 40)", "incomplete Cholesky\n(y=None, with Q, R)",
             "Cholesky loop\n(factor only)"]
    keys = ["csi", "cholesky", "bare"]
    colors = [OURS, PEER2, OTHER]
    x = list(range(3))
    width = 0.38
    a1.bar([xi - width / 2 for xi in x], [res["wall_s"][k] for k in keys], width,
           color=colors, label="wall")
    a1.bar([xi + width / 2 for xi in x], [res["cpu_s"][k] for k in keys], width,
           color="white", edgecolor=colors, hatch="//", label="CPU")
    for xi, k in zip(x, keys):
        a1.text(xi, max(res["wall_s"][k], res["cpu_s"][k]) * 1.03,
                _seconds_label(res["wall_s"][k]), ha="center", va="bottom", fontsize=7.5)
    a1.set_xticks(x)
    a1.set_xticklabels(names, fontsize=7.5)
    a1.set_ylabel("time per fit, best of the repeats [s]")
    a1.set_ylim(0, max(res["wall_s"]["csi"], res["cpu_s"]["csi"]) * 1.25)
    a1.legend(fontsize=7.5, loc="upper right")
    a1.grid(True, axis="y", alpha=0.3)
    a1.set_title(f"rank {res['rank']} of an rbf kernel, n = {res['n']:,}", fontsize=9)
    a2.bar(["wall", "CPU"], [res["ratio_wall"], res["ratio_cpu"]], 0.5, color=OURS)
    for xi, r in enumerate([res["ratio_wall"], res["ratio_cpu"]]):
        a2.text(xi, r + 0.05, f"{r:.1f}x", ha="center", va="bottom", fontsize=8)
    a2.axhline(p["target_ratio"], color="black", ls="--", lw=0.9,
               label=f"target {p['target_ratio']:.0f}x")
    a2.set_ylim(0, max(res["ratio_wall"], res["ratio_cpu"], p["target_ratio"]) * 1.3)
    a2.set_ylabel("CSI / incomplete Cholesky")
    a2.legend(fontsize=7.5, loc="upper left")
    a2.grid(True, axis="y", alpha=0.3)
    a2.set_title("what the labels cost", fontsize=9)
    _finish(fig, record, path, "Cholesky with side information against plain incomplete "
            "Cholesky, the same rank")


DRAW = {name[len("draw_"):]: fn for name, fn in globals().items()
        if name.startswith("draw_")}


def draw(name, outdir):
    """Draw the figure ``name`` into ``outdir``; return (png path, record)."""
    record = load(name)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    png = outdir / f"{name}.png"
    DRAW[name](record, png)
    return png, record


# -- Sphinx -----------------------------------------------------------------------------

def setup(app):
    from docutils.parsers.rst import directives
    from docutils.statemachine import StringList
    from sphinx.directives.patches import Figure
    from sphinx.util import logging

    logger = logging.getLogger(__name__)

    class BenchFigure(Figure):
        """``bench-figure NAME``: the figure of benchmarks/results/NAME.json."""

        required_arguments = 1
        option_spec = dict(Figure.option_spec, alt=directives.unchanged)

        def run(self):
            env = self.state.document.settings.env
            name = self.arguments[0]
            if name not in DRAW:
                logger.warning(f"bench-figure: no drawing for {name!r} "
                               f"(known: {', '.join(sorted(DRAW))})",
                               location=(env.docname, self.lineno))
                return []
            json_path = RESULTS / f"{name}.json"
            if not json_path.exists():
                logger.warning(f"bench-figure: {json_path} does not exist; run "
                               f"benchmarks/run_results.sh {name}",
                               location=(env.docname, self.lineno))
                return []
            env.note_dependency(str(json_path))
            env.note_dependency(__file__)
            _, record = draw(name, Path(env.srcdir) / OUT)
            self.arguments = [f"/{OUT}/{name}.png"]
            text = " ".join(line.strip() for line in self.content if line.strip())
            self.content = StringList([f"{text} {caption(record, name)}".strip()],
                                      source=self.content.source(0) if self.content
                                      else env.docname)
            self.options.setdefault("alt", f"figure of benchmarks/results/{name}.json")
            return super().run()

    app.add_directive("bench-figure", BenchFigure)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / OUT
    for name in sorted(DRAW):
        if (RESULTS / f"{name}.json").exists():
            png, _ = draw(name, out)
            print(png)
        else:
            print(f"(no {name}.json)")
