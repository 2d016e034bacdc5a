"""Build the Cython extensions; all metadata lives in pyproject.toml.

The Tetris core's sources live in cython_core/; they are built and installed as the package
nesbot._core, so
an installed nesbot adds only `nesbot` to a user's environment and every cimport names the
package the module is installed as. In a checkout nesbot/_core is a link to cython_core; in the
sdist it is a plain directory (the sdist has no cython_core/), so the sources are found through
nesbot/_core in both. The sdist carries the .pyx, .pxd and .h sources only: the C that Cython
makes from them is made again by every build (MANIFEST.in keeps it out). The video code's
own extension, the .mp4's H.264 writer, lives beside it as nesbot/show/video/h264.pyx.

Cython and the C compiler work on every core: the 17 modules build in about half the time on
two. With NESBOT_CYTHON_CACHE set to a folder, Cython keeps the C it makes there and takes it
back for the same sources (`make test` sets it, so that tests/test_release.py's wheel
reuses the venv build's C). Cython runs when the extensions are built (build_ext), not
whenever setup.py runs: the sdist leaves the C out, so making it for `sdist` cost a quarter
of a minute of a core when a fresh build environment's Cython headers were newer than the
checkout's C (tests/test_release.py).

The evaluation's feature slots (features.pxi, which feature_slots.pxd includes) are written
first, from the table in the core's features.py: the one place the features are named.
"""

import importlib.util
import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = "nesbot/_core"  # relative: setuptools wants relative source paths
SOURCES = sorted((Path(__file__).parent / CORE).glob("*.pyx"))
if not SOURCES:
    # A wheel without its compiled core installs but cannot be imported: fail the build.
    raise SystemExit(f"setup.py: no Cython sources (*.pyx) in {CORE}")


def write_feature_slots() -> None:
    # features.py is plain Python: loaded by path, since nesbot is not importable yet.
    spec = importlib.util.spec_from_file_location("features", f"{CORE}/features.py")
    features = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(features)
    features.write_pxi(Path(CORE))


write_feature_slots()
extensions = [
    Extension(
        f"nesbot._core.{pyx.stem}",
        [f"{CORE}/{pyx.name}"],
        include_dirs=[CORE],
        extra_compile_args=["-O3"],
    )
    for pyx in SOURCES
]
extensions.append(
    Extension("nesbot.show.video.h264", ["nesbot/show/video/h264.pyx"], extra_compile_args=["-O3"])
)

CORES = os.cpu_count() or 1


class CythonizingBuildExt(build_ext):
    """build_ext that turns the .pyx sources into C first (cythonize skips a module whose C
    is newer than its sources and their includes)."""

    def finalize_options(self) -> None:
        self.distribution.ext_modules = cythonize(
            self.distribution.ext_modules,
            nthreads=CORES,
            cache=os.environ.get("NESBOT_CYTHON_CACHE") or False,
            language_level=3,
            compiler_directives={
                "boundscheck": False,
                "wraparound": False,
                "cdivision": True,
                "initializedcheck": False,
            },
        )
        super().finalize_options()


setup(
    options={"build_ext": {"parallel": CORES}},
    cmdclass={"build_ext": CythonizingBuildExt},
    ext_modules=extensions,
)
