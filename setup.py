"""Build the Cython extensions of cython_core; all metadata lives in pyproject.toml."""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent

extensions = [
    Extension(
        f"cython_core.{pyx.stem}",
        [f"cython_core/{pyx.name}"],
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
