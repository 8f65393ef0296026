"""Build script for the compiled projection sweeps.

Metadata lives in setup.cfg; this file only declares the Cython extension
modules, which setup.cfg cannot express.
"""
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

extensions = [
    Extension(
        "sklearn_bregman._engine._logdet",
        ["src/sklearn_bregman/_engine/_logdet.pyx"],
        depends=["src/sklearn_bregman/_engine/_dense_kernels.h"],
        include_dirs=[np.get_include(), "src/sklearn_bregman/_engine"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=extra_compile_args,
    ),
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
