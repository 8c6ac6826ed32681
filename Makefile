# Two commands on a fresh machine: `make demo` and `make test` (each sets up .venv first).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck clean bench prometheus-tools node-tools chromium dashboards

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agentcov demo

lint: $(STAMP)
	$(BIN)/ruff check otel_agentcov tests benchmarks dashboards

typecheck: $(STAMP)
	$(BIN)/mypy otel_agentcov dashboards/grafana/generate.py

# The rules and end-to-end tests use a real Prometheus and promtool (Debian's `prometheus`).
prometheus-tools:
	@command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends prometheus; }

# The dashboard schema test generates a JSON Schema from @grafana/schema with npm (cached in build/).
node-tools:
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends nodejs npm; }

# The HTML report test renders the report in headless Chromium (Debian's `chromium`).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium; }

# Rewrite dashboards/grafana/*.json from their code (tests fail when the committed JSON is stale).
dashboards: $(STAMP)
	$(BIN)/python dashboards/grafana/generate.py

test: lint typecheck prometheus-tools node-tools chromium
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
