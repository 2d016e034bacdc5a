# nesbot: `make play` runs the bot on the ROM from level 19, `make test` runs the test suite.
# Both create .venv with a Python >= 3.13 found by scripts/find_python.sh.

VENV := .venv
PY := $(VENV)/bin/python
SOURCES := pyproject.toml setup.py cython_core/features.py $(wildcard cython_core/*.pyx cython_core/*.pxd cython_core/*.h \
	nesbot/show/video/*.pyx)
PLAY_ARGS ?= --level 19
# make play keeps the game as $(PLAY_OUT).mp4 (H.264 video with the overlay), .fm2 (input
# log) and .png (the frame the score first shows 999,999, else the last).
PLAY_OUT ?= games/nesbot

.PHONY: play test test-fast lint bench clean

# The suite builds the compiled core twice from the same sources, as the venv's editable
# install and as tests/test_release.py's wheel from the sdist. With Cython's cache of the C
# it makes and Debian's ccache (.ci/run installs it; its compiler links go first on PATH),
# the second build reuses the first's C and objects: a third of the time. Without ccache
# the C compiler runs in full.
export NESBOT_CYTHON_CACHE := $(CURDIR)/build/cython-cache
ifneq ($(wildcard /usr/lib/ccache/gcc),)
export PATH := /usr/lib/ccache:$(PATH)
export CCACHE_NOHASHDIR := true
endif

$(VENV)/.created:
	@py=$$(scripts/find_python.sh) && "$$py" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@touch $@

# Installs are stamped so that a rebuild happens only when the build inputs change.
$(VENV)/.installed-demo: $(VENV)/.created $(SOURCES)
	$(PY) -m pip install --quiet -e ".[demo]"
	@touch $@

# The dependencies (pyproject.toml's, and its test extra's) install while the core compiles:
# pip installs on one core, the build uses every core, so a fresh clone's venv is ready
# sooner than with one `pip install -e ".[test]"` (67 s against 81 s here).
$(VENV)/.installed-test: $(VENV)/.created $(SOURCES)
	$(PY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
		print(*p["dependencies"], *p["optional-dependencies"]["test"], sep="\n")' \
		> $(VENV)/test-requirements.txt
	$(PY) -m pip install --quiet -r $(VENV)/test-requirements.txt & deps=$$!; \
	$(PY) -m pip install --quiet --no-deps -e .; built=$$?; wait $$deps && exit $$built
	@touch $@ $(VENV)/.installed-demo

play: $(VENV)/.installed-demo
	@mkdir -p $(dir $(PLAY_OUT))
	$(VENV)/bin/nesbot play --overlay --video $(PLAY_OUT).mp4 --log $(PLAY_OUT).fm2 \
		--still $(PLAY_OUT).png $(PLAY_ARGS)

# Tests run in parallel, one pytest-xdist worker per core (PYTEST_WORKERS=0: in one process);
# each worker boots its own emulator once. --durations lists where the time went. The lint
# runs beside them (a minute and a half of one core on a fresh clone, mostly mypy's), and
# either failing fails the target.
PYTEST_WORKERS ?= auto
test: $(VENV)/.installed-test
	@$(MAKE) --no-print-directory lint & lint=$$!; \
	$(VENV)/bin/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=15; \
	tests=$$?; wait $$lint || { echo "make test: the lint failed" >&2; exit 1; }; exit $$tests

# The tests that need neither the ROM nor much time, for the edit-test loop: those marked
# `rom` or `slow` (tests/conftest.py marks every test that uses the ROM or the booted
# emulator) are deselected, not skipped, so that CI=true (where a skip fails) runs it too.
test-fast: $(VENV)/.installed-test
	$(VENV)/bin/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup -m "not rom and not slow"

# cython-lint on the .pyx and .pxd files (it runs pycodestyle from PATH; its settings are in
# pyproject.toml); ruff; mypy on the package with its stubs for the compiled core
# (pyproject.toml); and stubtest, which checks those stubs against the compiled modules.
STUBBED := $(patsubst cython_core/%.pyi,nesbot._core.%,$(wildcard cython_core/*.pyi)) nesbot.show.video.h264
lint: $(VENV)/.installed-test
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" cython-lint cython_core nesbot/show/video
	$(VENV)/bin/ruff check nesbot tests scripts cython_core
	$(VENV)/bin/ruff format --check nesbot tests scripts cython_core
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest --mypy-config-file pyproject.toml --ignore-missing-stub \
		--allowlist tests/stubtest_allowlist.txt $(STUBBED)

bench: $(VENV)/.installed-test
	$(PY) scripts/bench_sim.py

clean:
	rm -rf build $(VENV) cython_core/*.c cython_core/*.so cython_core/*.html cython_core/features.pxi \
		nesbot/show/video/*.c nesbot/show/video/*.so nesbot/show/video/*.html
