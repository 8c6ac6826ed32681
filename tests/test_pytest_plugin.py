"""`pytest --agentcov` on a tiny suite that drives a real pydantic-ai agent (TestModel, offline),
run in a subprocess by pytester: the report in the terminal summary, report files, and exit codes
from the gate and --agentcov-fail-under."""

from __future__ import annotations

import json
import re
import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

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


@pytest.mark.parametrize("path", ["test_agent.py", "test_agent.py::test_answers", "."])
def test_a_test_path_after_agentcov_is_refused_not_read_as_the_spec(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """Issue 36: `pytest --agentcov tests/test_support.py` read the test file as the spec and
    blamed its "YAML" (pytest-cov's `--cov` trap); now one line says what happened."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_agent=SUITE.format(extra_tool=""))
    result = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov", path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([
        f"*--agentcov: {path} is a test path, not a spec file: --agentcov takes an optional "
        f"spec, so it took the path; write --agentcov=SPEC (--agentcov= for none) or put the "
        f"test paths first (pytest {path} --agentcov)"])
    assert "YAML" not in result.stderr.str() and "Traceback" not in result.stderr.str()
    first = pytester.runpytest_subprocess(*_plugin_args(), path, "--agentcov")
    assert first.ret == 0, first.stdout.str()  # the order the message suggests works


def test_fail_under_out_of_range_is_a_usage_error(pytester: pytest.Pytester,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """As for `agentcov coverage --fail-under`: 150 or nan could never pass, so say so."""
    result = _run(pytester, monkeypatch, {"version": 1}, "--agentcov-fail-under=150")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agentcov-fail-under: expected a percentage from 0 to 100*"])


AGENTS = '''
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

Agent.instrument_all()
agent = Agent(TestModel(), name="support")


@agent.tool_plain
def search(query: str) -> str:
    return "found " + query


@agent.tool_plain
def lookup(order: str) -> str:
    return "order " + order


@agent.tool_plain
def delete_repo(name: str) -> str:
    return "deleted"


def run(tools: list[str], times: int) -> None:
    for _ in range(times):
        assert agent.run_sync("hello", model=TestModel(call_tools=tools)).output
'''
XDIST_SPEC = {"version": 1, "agents": [{"name": "support", "tools": ["search", "lookup"],
                                        "tool_edges": {"restricted": ["delete_repo"]}}]}


def _project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
             files: dict[str, str], spec: dict[str, object]) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(agents=AGENTS, **files)
    (pytester.path / "agentcov.yaml").write_text(json.dumps(spec))


def _without_timings(report: dict[str, Any]) -> dict[str, Any]:
    """Wall-clock durations and the SDK's random trace ids differ between any two sessions;
    everything else must not."""
    for agent in report["agents"].values():
        agent["runs"].pop("duration_s")
        agent["runs"].pop("duration_histogram")
        traces = agent["edges"].pop("restricted_traces")
        agent["edges"]["restricted_trace_count"] = {t: len(ids) for t, ids in traces.items()}
        for item in agent["expect"]:  # a failed check names its (random) trace ids
            item["reason"] = re.sub(r"; traces [0-9a-f, ]+", "; traces …", item["reason"])
    return report


def test_xdist_gives_the_serial_report_and_gate(pytester: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """`-n 2`: each worker sends its state, the controller merges; before, the controller saw
    no spans and the gate passed although a restricted tool was called."""
    _project(pytester, monkeypatch, {
        "test_search": "from agents import run\n\ndef test_search():\n    run(['search'], 2)\n",
        "test_lookup": "from agents import run\n\ndef test_lookup():\n    run(['lookup'], 3)\n"
                       "\n\ndef test_delete():\n    run(['delete_repo', 'search'], 1)\n",
    }, XDIST_SPEC)
    serial = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                           "--agentcov-report=json:serial.json", "-p", "no:xdist")
    parallel = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                             "--agentcov-report=json:xdist.json", "-n", "2",
                                             "--dist", "loadfile")
    for result in (serial, parallel):
        assert result.ret == 1, result.stdout.str()
        result.stdout.fnmatch_lines(["*edges.restricted_attempts*1*FAIL*",
                                     "*agentcov gate FAILED*", "*3 passed*"])
    reports = [json.loads((pytester.path / f).read_text()) for f in ("serial.json", "xdist.json")]
    assert _without_timings(reports[1]) == _without_timings(reports[0])
    support = reports[1]["agents"]["support"]
    assert support["runs"]["count"] == 6  # 2 + 3 + 1 runs, from both workers
    assert support["tools"]["called"] == {"search": {"ok": 3, "error": 0},
                                          "lookup": {"ok": 3, "error": 0},
                                          "delete_repo": {"ok": 1, "error": 0}}
    assert reports[1]["spans"]["processed"] == reports[0]["spans"]["processed"] > 0

    def gate_table(result: pytest.RunResult) -> list[str]:
        return [re.sub(r"; traces [0-9a-f, ]+", "; traces …", line)
                for line in result.stdout.lines if line.startswith(("support ", "gate "))]
    assert gate_table(parallel) == gate_table(serial)


def test_xdist_worker_without_data_fails_the_session(pytester: pytest.Pytester,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker whose coverage never arrives (simulated: a conftest drops gw1's payload just
    before the worker sends it, as a crash would lose it) must fail a green, clean session."""
    _project(pytester, monkeypatch, {
        "test_a": "from agents import run\n\ndef test_a():\n    run(['search'], 1)\n",
        "test_b": "from agents import run\n\ndef test_b():\n    run(['lookup'], 1)\n",
    }, XDIST_SPEC)
    pytester.makeconftest('''
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    output = getattr(session.config, "workeroutput", None)
    if output is not None and session.config.workerinput["workerid"] == "gw1":
        output.pop("agentcov", None)
''')
    args = (*_plugin_args(), "--agentcov=agentcov.yaml", "-n", "2", "--dist", "loadfile")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*agentcov: worker gw1 sent no coverage data (it crashed or was stopped); its agent "
        "runs are missing, so the gate cannot pass*",
        "*2 passed*",
    ])
    assert "worker gw0" not in result.stdout.str()


def test_xdist_crashed_worker_is_named(pytester: pytest.Pytester,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A real crash (os._exit in a test): the worker never reports, and the summary says whose
    runs are missing, besides pytest's own crash report."""
    _project(pytester, monkeypatch, {
        "test_a": "from agents import run\n\ndef test_a():\n    run(['search'], 1)\n",
        "test_b": "import os\nfrom agents import run\n\ndef test_b():\n"
                  "    run(['lookup'], 1)\n    os._exit(1)\n",
    }, XDIST_SPEC)
    result = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml", "-n", "2",
                                           "--dist", "loadfile", "--max-worker-restart", "0")
    assert result.ret == 1, result.stdout.str()
    result.stdout.re_match_lines([r".*agentcov: worker gw[01] sent no coverage data \(it crashed "
                                  r"or was stopped\); its agent runs are missing.*"])


def test_no_agent_run_fails_the_session_unless_allowed(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A suite whose agents are not instrumented (or not run) must not pass the gate."""
    _project(pytester, monkeypatch, {"test_none": "def test_nothing():\n    pass\n"}, XDIST_SPEC)
    result = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["*agentcov: no agent runs found in this test session "
                                 "(give --agentcov-allow-empty to accept this)*", "*1 passed*"])
    allowed = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                            "--agentcov-allow-empty")
    assert allowed.ret == 0, allowed.stdout.str()


def test_inconclusive_gate_fails_the_session_unless_allowed(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """3 runs, all passing, against pass_rate >= 0.8 with min_runs 10: undecidable, not a pass."""
    spec = {"version": 1, "agents": [{"name": "support", "expect": [
        {"target": "runs.pass_rate", "matcher": {"schema": {"minimum": 0.8}}}]}]}
    result = _run(pytester, monkeypatch, spec)
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["*runs.pass_rate*INCONCLUSIVE*", "*agentcov gate INCONCLUSIVE*"])
    assert _run(pytester, monkeypatch, spec, "--agentcov-allow-inconclusive").ret == 0
