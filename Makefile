# Two commands set up a fresh machine and do the work (see README):
#   make demo   — install nbayes alone into .venv, then run the main job on the bundled data
#   make test   — install nbayes and the test tools into .venv, then run the tests not marked slow
#                 (under 5 minutes on 2 cores) and ruff; .ci/run runs the slow ones after it
#   make docs   — install the docs extra, write the example report, build docs/ strictly
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One stamp per installed set, named by pyproject.toml's checksum: editing the dependencies
# reinstalls. `make demo` needs only nbayes itself (BASE); the test tools come on top (STAMP).
SUM := $(shell cksum pyproject.toml | cut -d' ' -f1)
BASE := $(VENV)/.installed-base-$(SUM)
STAMP := $(VENV)/.installed-test-$(SUM)

.PHONY: demo test bench lint docs clean

$(BASE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m nbayes.compile --quiet  # compile the kernels once, for every later process
	rm -f $(VENV)/.installed-*
	touch $(BASE)

$(STAMP): $(BASE)
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(BASE)
	$(BIN)/nbayes demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not slow"
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/vs_sklearn.py

# strict: a warning (a broken reference, a bad docstring) fails the build
docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	mkdir -p docs/_generated
	MPLBACKEND=Agg $(BIN)/python examples/report.py docs/_generated/mushroom-report.html
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis docs/_build docs/_generated
