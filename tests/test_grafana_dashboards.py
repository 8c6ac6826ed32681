"""Grafana dashboards, validated without Grafana (it cannot run here).

1. The committed JSON is exactly what `dashboards/grafana/generate.py` builds.
2. It validates against a JSON Schema generated (npm, at test time, cached in build/) from
   `@grafana/schema`'s own TypeScript dashboard types.
3. Every panel query parses with promtool (as recording rules in a throwaway rules file).
4. Against a real Prometheus scraping `agentcov demo --metrics` with the shipped recording rules,
   every panel query returns data.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import re
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
import yaml
from _support import free_port, get_json, need_binary, poll, prometheus

ROOT = Path(__file__).resolve().parent.parent
GRAFANA = ROOT / "dashboards" / "grafana"
RULES = ROOT / "dashboards" / "prometheus" / "agentcov-rules.yaml"
SCHEMA_DIR = ROOT / "build" / "grafana-schema"
# Grafana 11.6 types, matching the grafana-foundation-sdk epoch pinned in pyproject.
SCHEMA_PACKAGES = ("@grafana/schema@11.6.16", "ts-json-schema-generator@2.4.0")
TYPES = "node_modules/@grafana/schema/dist/esm/raw/dashboard/x/dashboard_types.gen.d.ts"
# Concrete values for the template variables, as Grafana would substitute them.
VARIABLES = {
    "$__rate_interval": "15s",
    "$__range": "5m",
    "$job": "agentcov",
    "$agent": "triage_agent",
}


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agentcov_dashboards", GRAFANA / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _dashboards() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text()) for p in sorted(GRAFANA.glob("*.json"))}


def _panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            yield panel


def _queries() -> list[tuple[str, str]]:
    """(where, PromQL with variables substituted) for every target of every panel."""
    found = []
    for name, dashboard in _dashboards().items():
        for panel in _panels(dashboard):
            for target in panel["targets"]:
                expr = target["expr"]
                for var, value in VARIABLES.items():
                    expr = expr.replace(var, value)
                assert "$" not in expr, f"unsubstituted variable in {expr!r}"
                found.append((f"{name} / {panel['title']} / {target['refId']}", expr))
    return found


def test_committed_json_is_what_the_code_generates() -> None:
    generated = _generator().rendered()
    assert set(generated) == set(_dashboards())
    for name, text in generated.items():
        assert (GRAFANA / name).read_text() == text, f"{name} is stale: run generate.py"


def test_dashboards_follow_the_lint_rules() -> None:
    """The dashboard-linter rules that matter here: datasource variable everywhere, every panel
    titled, described and with a unit, distinct refIds, the job and agent variables used."""
    for name, dashboard in _dashboards().items():
        variables = {v["name"]: v for v in dashboard["templating"]["list"]}
        assert variables["datasource"]["type"] == "datasource", name
        assert {"job", "agent"} <= variables.keys(), name
        for panel in _panels(dashboard):
            where = f"{name} / {panel.get('title')}"
            assert panel["title"] and panel["description"], where
            assert panel["datasource"]["uid"] == "${datasource}", where
            assert panel["fieldConfig"]["defaults"].get("unit"), where
            refs = [t["refId"] for t in panel["targets"]]
            assert refs and len(set(refs)) == len(refs), where
            for target in panel["targets"]:
                assert target["datasource"]["uid"] == "${datasource}", where
                if "_total" in target["expr"] and "[$__rate_interval]" in target["expr"]:
                    assert re.search(r"\b(rate|increase)\(", target["expr"]), where


@pytest.fixture(scope="session")
def grafana_schema() -> dict[str, Any]:
    """JSON Schema of Grafana's dashboard model, generated from `@grafana/schema`'s TypeScript
    types (cached in build/grafana-schema; rebuilt when the pinned versions change)."""
    schema = SCHEMA_DIR / "dashboard.schema.json"
    stamp = SCHEMA_DIR / "versions"
    if not (schema.is_file() and stamp.is_file() and stamp.read_text() == str(SCHEMA_PACKAGES)):
        npm = need_binary("npm")
        need_binary("node")
        SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--prefix", str(SCHEMA_DIR), "--no-audit", "--no-fund",
             "--loglevel=error", *SCHEMA_PACKAGES],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        subprocess.run(
            [str(SCHEMA_DIR / "node_modules/.bin/ts-json-schema-generator"),
             "--path", str(SCHEMA_DIR / TYPES), "--type", "Dashboard", "--no-type-check",
             # Loose: the SDK and Grafana itself emit fields the types do not list.
             "--additional-properties", "-o", str(schema)],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        stamp.write_text(str(SCHEMA_PACKAGES))
    loaded: dict[str, Any] = json.loads(schema.read_text())
    return loaded


@pytest.mark.slow
def test_dashboards_validate_against_grafanas_schema(grafana_schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft7Validator(grafana_schema)
    dashboards = _dashboards()
    assert len(dashboards) == 2
    for name, dashboard in dashboards.items():
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(dashboard)]
        assert errors == [], name
    # The schema has teeth: the mistakes a hand edit makes are caught.
    broken = copy.deepcopy(next(iter(dashboards.values())))
    broken["refresh"] = 30
    broken["panels"][1]["gridPos"]["h"] = "tall"
    broken["templating"]["list"][1]["type"] = "bogus"
    assert len(list(validator.iter_errors(broken))) == 3


def test_every_panel_query_parses_with_promtool(tmp_path: Path) -> None:
    promtool = need_binary("promtool")
    rules = [
        {"record": f"agentcov_dashboard:query_{i}", "expr": expr}
        for i, (_, expr) in enumerate(_queries())
    ]
    path = tmp_path / "dashboard-queries.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    result = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(rules)} rules found" in result.stdout


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_every_panel_query_returns_data_from_a_real_prometheus(tmp_path: Path) -> None:
    need_binary("prometheus")
    # The shipped recording rules, evaluated every second instead of every minute.
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        group["interval"] = "1s"
    fast_rules = tmp_path / "agentcov-rules.yaml"
    fast_rules.write_text(yaml.safe_dump(rules))
    port = free_port()
    demo = subprocess.Popen(
        [sys.executable, "-m", "otel_agentcov.cli", "demo", "--runs", "20",
         "--metrics", str(port), "--duration", "150"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    queries = _queries()
    try:
        with prometheus(tmp_path, [f"127.0.0.1:{port}"], [fast_rules]) as api:

            def empty() -> list[str]:
                missing = []
                for where, expr in queries:
                    url = f"{api}/query?query={urllib.parse.quote(expr)}"
                    result = get_json(url)["data"]["result"]
                    if not any(math.isfinite(float(r["value"][1])) for r in result):
                        missing.append(where)
                return missing

            poll(lambda: not empty(), 90)  # rules need a few evaluations, rates two scrapes
            assert empty() == [], "panel queries without data"
    finally:
        demo.terminate()
        demo.wait(timeout=10)
