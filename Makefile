# Two entry points on a fresh clone: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: demo test test-slow bench check venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0 -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/aesp simulate --scenario seed-experiment --scheduler kube-default,load-aware,best-fit,aesp $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow $(ARGS)

bench: $(STAMP)
	$(BIN)/python -m pytest benchmarks -m benchmark -s $(ARGS)

check: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy src
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
