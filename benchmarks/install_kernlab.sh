#!/usr/bin/env bash
# R and kernlab (Debian packages r-base-core, r-cran-kernlab) for
# benchmarks/compare_kernlab.py: a benchmark-time dependency only, never a
# runtime or test one (the package and its tests do not need R).
#
#   sudo bash benchmarks/install_kernlab.sh     (as root: bash ...)
#
# Does nothing when Rscript already loads kernlab.
set -euo pipefail

if command -v Rscript >/dev/null 2>&1 \
        && Rscript -e 'suppressMessages(library(kernlab))' >/dev/null 2>&1; then
    echo "kernlab $(Rscript -e 'cat(format(packageVersion("kernlab")))') is installed"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends r-base-core r-cran-kernlab
Rscript -e 'cat("kernlab", format(packageVersion("kernlab")), "installed\n")'
