"""`pytest --agentcov` on a tiny suite that drives a real pydantic-ai agent (TestModel, offline),
run in a subprocess by pytester: the report in the terminal summary, report files, and exit codes
from the gate and --agentcov-fail-under."""

from __future__ import annotations

import json
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "otel_agentcov.pytest_plugin"

SUITE = '''
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

Agent.instrument_all()  # default settings: the global tracer provider
agent = Agent(TestModel(), name="support")


@agent.tool_plain
def search(query: str) -> str:
    return "found " + query
{extra_tool}

def test_answers():
    for _ in range(3):
        assert agent.run_sync("hello").output
'''
DELETE_TOOL = '''
@agent.tool_plain
def delete_repo(name: str) -> str:
    return "deleted"
'''


def _plugin_args() -> list[str]:
    """The installed pytest11 entry point when present (a fresh `make test`); a venv installed
    before the entry point existed loads the same module with -p."""
    if any(ep.value == PLUGIN for ep in entry_points(group="pytest11")):
        return []
    return ["-p", PLUGIN]


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, spec: dict[str, object],
         *args: str, extra_tool: str = "") -> pytest.RunResult:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # this checkout's otel_agentcov
    pytester.makepyfile(test_agent=SUITE.format(extra_tool=extra_tool))
    (pytester.path / "agentcov.yaml").write_text(json.dumps(spec))
    return pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml", *args)


def test_entry_point_is_declared() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["pytest11"]["agentcov"] == PLUGIN


def test_report_in_summary_and_files(pytester: pytest.Pytester,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {"version": 1, "agents": [{"name": "support", "tools": ["search"],
                                      "tool_edges": {"restricted": ["delete_repo"]}}]}
    result = _run(pytester, monkeypatch, spec, "--agentcov-report=json:cov.json",
                  "--agentcov-report=markdown:cov.md", "--agentcov-report=term")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*agent coverage (otel_agentcov)*",
        "Agent*Runs*Tool*Path*State*Boundary*Model*Overall*Restricted",
        "support*3*100%*",
        "TOTAL*3*",
        "*edges.restricted_attempts*PASS*",
        "gate PASSED*",
        "*1 passed*",
    ])
    report = json.loads((pytester.path / "cov.json").read_text())
    support = report["agents"]["support"]
    assert support["runs"]["count"] == 3 and support["tools"]["called"]["search"]["ok"] == 3
    assert "support" in (pytester.path / "cov.md").read_text()


def test_gate_failure_fails_a_green_session(pytester: pytest.Pytester,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {"version": 1, "agents": [{"name": "support", "tools": ["search"],
                                      "tool_edges": {"restricted": ["delete_repo"]}}]}
    result = _run(pytester, monkeypatch, spec, extra_tool=DELETE_TOOL)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*edges.restricted_attempts*3*FAIL*", "*agentcov gate FAILED*",
                                 "*1 passed*"])


def test_fail_under(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # overall = geometric mean of tool 1/3, path 1, state 1 = 69 % (boundaries switched off)
    spec = {"version": 1, "agents": [{"name": "support", "boundaries": {"conditions": []},
                                      "tools": ["search", "summarize", "read_file"]}]}
    result = _run(pytester, monkeypatch, spec, "--agentcov-fail-under=95")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*FAIL Required agent coverage not reached: coverage 69.3%*"])
    assert _run(pytester, monkeypatch, spec, "--agentcov-fail-under=60").ret == 0


def test_bad_spec_is_a_usage_error(pytester: pytest.Pytester,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(pytester, monkeypatch, {"version": 2})
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agentcov: agentcov.yaml: version: expected 1, got 2*"])


def test_fail_under_out_of_range_is_a_usage_error(pytester: pytest.Pytester,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """As for `agentcov coverage --fail-under`: 150 or nan could never pass, so say so."""
    result = _run(pytester, monkeypatch, {"version": 1}, "--agentcov-fail-under=150")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agentcov-fail-under: expected a percentage from 0 to 100*"])
