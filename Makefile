# Two commands on a fresh machine: `make demo` and `make test` (each sets up .venv first).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck clean bench

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agentcov demo

lint: $(STAMP)
	$(BIN)/ruff check otel_agentcov tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy otel_agentcov

test: lint typecheck
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

bench: $(STAMP)
	$(BIN)/python benchmarks/on_end_cost.py
