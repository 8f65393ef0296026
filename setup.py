"""Build script for the compiled projection sweeps.

Metadata (name, version, dependencies, package data) lives in pyproject.toml's
[project] and [tool.setuptools] tables; this file only declares the Cython
extension modules, which pyproject.toml cannot express.
"""
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

if sys.platform == "win32":
    extra_compile_args = ["/O2"]
else:
    # -O3 vectorises the row loops over the r x r state; -fopenmp-simd honours
    # the `omp simd reduction` pragmas of _dense_kernels.h (no OpenMP runtime).
    extra_compile_args = ["-O3", "-fopenmp-simd"]

ENGINE = "src/sklearn_bregman/_engine"


def engine_extension(name, headers):
    return Extension(
        f"sklearn_bregman._engine.{name}",
        [f"{ENGINE}/{name}.pyx"],
        depends=[f"{ENGINE}/{h}" for h in headers],
        include_dirs=[np.get_include(), ENGINE],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=extra_compile_args,
    )


extensions = [
    engine_extension("_logdet", ["_dense_kernels.h", "_dense_kernels.pxd"]),
    engine_extension(
        "_vonneumann",
        ["_dense_kernels.h", "_dense_kernels.pxd", "_vn_kernels.h", "_vn_kernels.pxd",
         "_tridiag_ql.h"],
    ),
    engine_extension(
        "_definiteboost_steps",
        ["_dense_kernels.h", "_dense_kernels.pxd", "_vn_kernels.h", "_vn_kernels.pxd",
         "_tridiag_ql.h", "_db_kernels.h"],
    ),
    engine_extension("_csi_steps", ["_csi_kernels.h"]),
    engine_extension("_linear", ["_dense_kernels.h", "_dense_kernels.pxd"]),
    engine_extension("_vn_linear", ["_dense_kernels.h", "_dense_kernels.pxd", "_vn_linear.h",
                                   "_tridiag_ql.h"]),
    engine_extension("_correlation", ["_dense_kernels.h", "_dense_kernels.pxd"]),
    engine_extension(
        "_triplet_sweep",
        ["_dense_kernels.h", "_dense_kernels.pxd", "_rank2_kernels.h", "_rank2_kernels.pxd"],
    ),
    # test hooks on the kernels above (imported by the tests, not the package)
    engine_extension(
        "_testing",
        ["_dense_kernels.h", "_dense_kernels.pxd", "_vn_kernels.h", "_vn_kernels.pxd",
         "_tridiag_ql.h"],
    ),
]

# Cython's translation and the C compiler on every core (nine modules; on a
# 2-core machine a build takes about half the time of a serial one).
JOBS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

setup(
    options={"build_ext": {"parallel": JOBS or 1}},
    ext_modules=cythonize(
        extensions,
        nthreads=JOBS or 0,
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
