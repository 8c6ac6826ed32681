"""`pytest --agentcov --agentcov-faults=boundaries` on the pydantic-ai quickstart as a suite
(TestModel, offline), run in a subprocess by pytester (docs/faults.md#pytest): without the flag
the suite hits no boundary (overall 0 %); with it, every condition is provoked, the seed is in
the header and under each failed test, and the same flag value injects the same faults."""

from __future__ import annotations

import json
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "otel_agentcov.pytest_plugin"
SUITE = '''
import pytest
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

Agent.instrument_all()
agent = Agent(TestModel(), name="support")


@agent.tool_plain
def lookup_order(order_id: str) -> str:
    return f"order {order_id}: shipped"


@pytest.mark.parametrize("order", range(6))
def test_order(order):
    assert agent.run_sync(f"Where is order {order}?").output


@pytest.mark.agentcov_faults("tool_error_result", seed=5)
def test_a_failing_lookup_is_survived():
    assert agent.run_sync("Where is order 7?").output
'''


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str
         ) -> tuple[pytest.RunResult, dict[str, object]]:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_quickstart=SUITE)
    plugin = [] if any(ep.value == PLUGIN for ep in entry_points(group="pytest11")) else [
        "-p", PLUGIN]
    result = pytester.runpytest_subprocess(*plugin, "--agentcov", "-p", "no:randomly",
                                           "--agentcov-report=json:cov.json", *args)
    report = json.loads((pytester.path / "cov.json").read_text())
    return result, report["agents"]["support"]


def test_the_quickstart_goes_from_zero_to_its_provoked_boundaries(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _, before = _run(pytester, monkeypatch, "-k", "test_order")
    assert before["coverage"]["boundary"] == 0.0
    # no boundaries declared: reported, kept out of the overall (docs/semantics.md#overall)
    assert "boundary" not in before["coverage"]["counted"] and before["coverage"]["overall"] == 1.0
    assert any("--agentcov-faults=" in r["message"] for r in before["recommendations"])

    result, after = _run(pytester, monkeypatch, "--agentcov-faults=boundaries:7")
    out = result.stdout.str()
    assert "agentcov faults: plan boundaries, seed 7 (the same faults again: " \
           "--agentcov-faults=boundaries:7)" in out
    # the four runs the agent does not survive fail, each naming the flag that repeats them
    result.assert_outcomes(passed=3, failed=4)
    assert out.count("the same faults again with --agentcov-faults=boundaries:7") == 4
    assert after["coverage"]["boundary"] == 1.0 and after["coverage"]["overall"] > 0
    conditions = after["faults"]["conditions"]
    assert all(r["provoked"] >= 1 and r["natural"] == 0 for r in conditions.values())
    # the marked test's own plan: an error result the agent survives
    assert after["faults"]["families"]["tool_error_result"]["recovered"] == 1
    assert re.search(r"injected budget ×1, empty_input ×1, http_5xx ×1, timeout ×1, "
                     r"tool_exception ×1, turn_pressure ×1", out)

    _, repeated = _run(pytester, monkeypatch, "--agentcov-faults=boundaries:7")
    assert repeated["faults"] == after["faults"]


def test_a_plan_is_refused_under_the_production_flag(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("AGENTCOV_PRODUCTION", "1")
    pytester.makepyfile(test_quickstart=SUITE)
    result = pytester.runpytest_subprocess("--agentcov-faults=boundaries")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agentcov-faults: fault injection refused: "
                                 "AGENTCOV_PRODUCTION is set*"])
