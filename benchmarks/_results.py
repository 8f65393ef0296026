"""The machine-readable record of a benchmark run (``--json PATH``).

The benchmarks that measure this package beside a peer (metric-learn,
statsmodels, kernlab, dask-ml, scikit-learn's Nystroem) or a published
figure (the JMLR paper's 11.3 minutes), and the scaling benchmarks, take
``--json PATH`` and write there, next to their printout, one JSON object:

- ``benchmark``: the script's name; ``command``: how it was run;
- ``date``: when the run ended (UTC, ISO 8601);
- ``machine``: platform, CPU model (``/proc/cpuinfo``), cores, memory,
  Python, the versions of NumPy, SciPy, scikit-learn, this package and the
  peers, the BLAS libraries with their default thread counts
  (threadpoolctl), and the load average at the start and at the end (the
  machine may be shared: ratios measured in one run are what to read);
- ``params``: the run's parameters (sizes, tolerances, BLAS threads used);
- ``results``: the measured series, this package's and the peers' of the
  same run.

The committed records are in ``benchmarks/results/``; the documentation
draws its figures from them at build time (``docs/_ext/bench_figures.py``).
"""

import datetime
import json
import os
import platform
import sys
from importlib import metadata

_LOAD_AT_START = os.getloadavg() if hasattr(os, "getloadavg") else None

BASE_PACKAGES = ("numpy", "scipy", "scikit-learn", "sklearn_bregman", "threadpoolctl")


def add_json_argument(parser):
    parser.add_argument("--json", metavar="PATH", default=None,
                        help="also write the results as JSON to PATH (the committed "
                             "records are benchmarks/results/<name>.json)")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gb():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def machine(peers=()):
    """What ran the benchmark: hardware, versions, BLAS, load."""
    packages = {name: _version(name) for name in (*BASE_PACKAGES, *peers)}
    blas = []
    try:
        from threadpoolctl import threadpool_info

        for info in threadpool_info():
            blas.append({key: info.get(key) for key in
                         ("user_api", "internal_api", "version", "num_threads")})
    except ImportError:
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": memory_gb(),
        "python": platform.python_version(),
        "packages": packages,
        "thread_pools": blas,
        "load_average_start": _LOAD_AT_START,
        "load_average_end": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def command():
    script = os.path.relpath(os.path.abspath(sys.argv[0]))
    if not script.startswith(".."):
        script = script.replace(os.sep, "/")
    return " ".join(["python", script, *sys.argv[1:]])


def write(path, benchmark, params, results, peers=(), notes=None):
    """Write the record of this run to ``path`` (nothing when ``path`` is None)."""
    if path is None:
        return None
    record = {
        "benchmark": benchmark,
        "command": command(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(peers),
        "params": params,
        "results": results,
    }
    if notes:
        record["notes"] = notes
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as f:
        json.dump(record, f, indent=1, default=_plain)
        f.write("\n")
    print(f"\nresults written to {path}")
    return record


def _plain(value):
    """NumPy scalars and arrays as JSON numbers and lists."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
