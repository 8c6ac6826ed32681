"""The pytest plugin as a pytest-cov user drives it: per-test contexts from a real pytest session
(pydantic-ai agents, TestModel, offline), `--agentcov-report` terminal and file reports,
`[tool.agentcov]` in pyproject.toml, and a warning for options given without --agentcov.
Each session runs in a subprocess (pytester); expectations are written from the suite below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]

SUITE = '''
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

Agent.instrument_all()
agent = Agent(TestModel(), name="support")


@agent.tool_plain
def search(query: str) -> str:
    return "found"


@agent.tool_plain
def summarize(text: str) -> str:
    return "short"


@agent.tool_plain
def lookup(key: str) -> str:
    return "value"


def test_search():
    agent.run_sync("hi", model=TestModel(call_tools=["search"]))


def test_both():
    agent.run_sync("hi", model=TestModel(call_tools=["search", "summarize"]))


def test_nothing():
    pass
'''
SPEC = {"version": 1, "agents": [{"name": "support",
                                  "tools": ["search", "summarize", "lookup", "fetch"]}]}
SEARCH, BOTH = "test_agent.py::test_search", "test_agent.py::test_both"


def _project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_agent=SUITE)
    (pytester.path / "agentcov.yaml").write_text(json.dumps(SPEC))


def test_contexts_from_a_real_session(pytester: pytest.Pytester,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    result = pytester.runpytest_subprocess(
        "--agentcov=agentcov.yaml", "--agentcov-report=json:out/nested/cov.json",
        "--agentcov-report=html:htmlcov-agents", "--agentcov-report=term-missing",
    )
    assert result.ret == 0, result.stdout.str()
    contexts = json.loads((pytester.path / "out/nested/cov.json").read_text())["agents"][
        "support"]["contexts"]
    assert contexts["by_test"] == {
        SEARCH: {"runs": 1, "passed": 1, "tools": {"search": 1}, "delegations": [],
                 "restricted": [], "behaviors": []},
        BOTH: {"runs": 1, "passed": 1, "tools": {"search": 1, "summarize": 1},
               "delegations": [], "restricted": [], "behaviors": []},
    }
    assert contexts["tests_by_tool"] == {"search": [BOTH, SEARCH], "summarize": [BOTH]}
    assert contexts["untested"] == {"tools": ["fetch", "lookup"], "delegations": [],
                                    "behaviors": []}
    assert contexts["single_test"] == {"tools": ["summarize"]}
    # term-missing: one row per agent, the uncovered tools, a TOTAL row
    result.stdout.fnmatch_lines([
        "Agent*Runs*Overall*Restricted*Missing",
        "support*2*fetch, lookup",
        "TOTAL*2*",
        "agentcov: json report written to out/nested/cov.json",
        "agentcov: html report written to htmlcov-agents/index.html",
    ])
    page = next((pytester.path / "htmlcov-agents").glob("agent-support-*.html")).read_text()
    assert SEARCH in page and BOTH in page  # the tests that exercise each tool


def test_pyproject_settings(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    pytester.makefile(".toml", pyproject='''
[tool.agentcov]
spec = "agentcov.yaml"
report = ["term-missing", "markdown:reports/agents.md"]
''')
    result = pytester.runpytest_subprocess("--agentcov")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["support*fetch, lookup"])  # the spec's tools were used
    assert "Who tests what" in (pytester.path / "reports/agents.md").read_text()


def test_a_bad_report_option_is_a_usage_error(pytester: pytest.Pytester,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    result = pytester.runpytest_subprocess("--agentcov", "--agentcov-report=pdf:x.pdf")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agentcov-report=pdf:x.pdf: expected term, term-missing*"])


def test_options_without_agentcov_warn(pytester: pytest.Pytester,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    result = pytester.runpytest_subprocess("--agentcov-report=term-missing",
                                           "--agentcov-report=json:cov.json")
    assert result.ret == 0
    assert "--agentcov-report given without --agentcov" in result.stdout.str()
    assert not (pytester.path / "cov.json").exists()  # nothing measured, nothing written
    assert "agent coverage (otel_agentcov)" not in result.stdout.str()


def test_collect_only_writes_no_report(pytester: pytest.Pytester,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    result = pytester.runpytest_subprocess("--agentcov=agentcov.yaml", "--collect-only",
                                           "--agentcov-report=json:cov.json")
    assert result.ret == 0
    assert not (pytester.path / "cov.json").exists()


def test_pyproject_spec_is_relative_to_the_project(pytester: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    pytester.makefile(".toml", pyproject='[tool.agentcov]\nspec = "agentcov.yaml"\n')
    sub = pytester.mkdir("sub")
    monkeypatch.chdir(sub)
    result = pytester.runpytest_subprocess("--agentcov", "--rootdir", str(pytester.path),
                                           str(pytester.path / "test_agent.py"))
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["support*2*50%*"])  # 2 of the spec's 4 tools
