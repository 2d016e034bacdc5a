"""Build the Cython extensions; all metadata lives in pyproject.toml.

The sources live in cython_core/; they are built and installed as the package nesbot._core
(nesbot/_core is a link to cython_core), so an installed nesbot adds only `nesbot` to a
user's environment and every cimport names the package the module is installed as.
"""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent

extensions = [
    Extension(
        f"nesbot._core.{pyx.stem}",
        [f"nesbot/_core/{pyx.name}"],
        include_dirs=["cython_core"],
        extra_compile_args=["-O3"],
    )
    for pyx in sorted((HERE / "cython_core").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
