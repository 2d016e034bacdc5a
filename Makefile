# nesbot: `make play` runs the bot on the ROM from level 19, `make test` runs the test suite.
# Both create .venv with a Python >= 3.13 found by scripts/find_python.sh.

VENV := .venv
PY := $(VENV)/bin/python
SOURCES := pyproject.toml setup.py $(wildcard cython_core/*.pyx cython_core/*.pxd cython_core/*.h)
PLAY_ARGS ?= --level 19

.PHONY: play test lint bench clean

$(VENV)/.created:
	@py=$$(scripts/find_python.sh) && "$$py" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@touch $@

# Installs are stamped so that a rebuild happens only when the build inputs change.
$(VENV)/.installed-demo: $(VENV)/.created $(SOURCES)
	$(PY) -m pip install --quiet -e ".[demo]"
	@touch $@

$(VENV)/.installed-test: $(VENV)/.created $(SOURCES)
	$(PY) -m pip install --quiet -e ".[test]"
	@touch $@ $(VENV)/.installed-demo

play: $(VENV)/.installed-demo
	$(VENV)/bin/nesbot play $(PLAY_ARGS)

test: $(VENV)/.installed-test
	$(VENV)/bin/ruff check nesbot tests scripts
	$(VENV)/bin/python -m pytest -q

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check nesbot tests scripts

bench: $(VENV)/.installed-test
	$(PY) scripts/bench_sim.py

clean:
	rm -rf build $(VENV) cython_core/*.c cython_core/*.so cython_core/*.html
