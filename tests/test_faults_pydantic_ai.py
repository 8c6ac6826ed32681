"""Real pydantic-ai agents (TestModel, offline) under fault plans, with no change to the agent's
code (docs/faults.md#pydantic-ai): the `boundaries` plan provokes each of the six conditions,
each fault is marked on the span it touched, recovered and failed runs are told apart, and the
prompt and the tool's answer reach no output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _fault_agents import run_all as fault_runs
from _fault_agents import support_agent
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent

from otel_agentcov import faults
from otel_agentcov.processor import AgentCoverageProcessor

PROMPT = "CANARY-PROMPT-7a1b where is order 42?"
TOOL_ANSWER = "CANARY-TOOL-3e8f shipped"


@pytest.fixture
def harness() -> Iterator[tuple[Agent[None, str], AgentCoverageProcessor, InMemorySpanExporter]]:
    agent, processor, exporter = support_agent(TOOL_ANSWER)
    yield agent, processor, exporter
    faults.disable()
    processor.shutdown()


def run_all(agent: Agent[None, str], n: int) -> list[str]:
    return fault_runs(agent, n, PROMPT)


def report(processor: AgentCoverageProcessor) -> dict[str, Any]:
    processor.force_flush()
    agents: dict[str, Any] = processor.snapshot().to_dict()["agents"]
    return dict(agents["support"])


def test_without_a_plan_no_boundary_is_hit(harness: Any) -> None:
    agent, processor, _ = harness
    assert run_all(agent, 3) == ["ok"] * 3
    rep = report(processor)
    assert rep["coverage"]["boundary"] == 0.0
    # the spec declares no boundaries: reported, not counted in the overall (docs/semantics.md)
    assert "boundary" not in rep["coverage"]["counted"] and rep["coverage"]["overall"] == 1.0
    assert rep["faults"]["runs"] == 0


def test_the_boundaries_plan_provokes_all_six_conditions(harness: Any) -> None:
    agent, processor, exporter = harness
    faults.enable("boundaries:7")
    outcomes = run_all(agent, 6)
    assert outcomes == ["InjectedToolError", "ModelHTTPError", "TimeoutError",
                        "UsageLimitExceeded", "ok", "ok"]
    rep = report(processor)
    assert rep["coverage"]["boundary"] == 1.0
    assert rep["coverage"]["overall"] is not None and rep["coverage"]["overall"] > 0
    conditions = rep["faults"]["conditions"]
    assert {c: (r["provoked"], r["natural"]) for c, r in conditions.items()} == {
        "max_steps": (1, 0), "timeout": (1, 0), "cost_limit": (1, 0), "empty_input": (1, 0),
        "error_path": (4, 0), "tool_failure": (1, 0)}
    families = rep["faults"]["families"]
    assert {f: (r["injected"], r["hit"], r["recovered"], r["failed"])
            for f, r in families.items()} == {
        "budget": (1, 1, 0, 1), "tool_exception": (1, 1, 0, 1), "http_5xx": (1, 1, 0, 1),
        "timeout": (1, 1, 0, 1), "turn_pressure": (1, 1, 0, 1), "empty_input": (1, 1, 1, 0)}
    assert (rep["faults"]["runs"], rep["faults"]["recovered"]) == (5, 1)

    marks = {(s.name.split(" ")[0], s.attributes.get("agentcov.fault.family"))
             for s in exporter.get_finished_spans() if s.attributes.get("agentcov.fault.family")}
    assert marks == {("chat", "budget"), ("execute_tool", "tool_exception"),
                     ("chat", "http_5xx"), ("chat", "timeout"), ("invoke_agent", "turn_pressure"),
                     ("invoke_agent", "empty_input")}
    assert {s.attributes.get("agentcov.fault.seed") for s in exporter.get_finished_spans()
            if s.attributes.get("agentcov.fault.family")} == {7}

    dumped = json.dumps([processor.engine.state.to_dict(), rep])
    assert "CANARY" not in dumped and "CANARY" not in str(processor.snapshot())


def test_a_tool_fault_the_agent_recovers_from(harness: Any) -> None:
    """A tool that returns an error result: the run goes on and ends well (recovered)."""
    agent, processor, _ = harness
    faults.enable("tool_error_result:1")
    assert run_all(agent, 2) == ["ok", "ok"]
    rep = report(processor)
    assert rep["faults"]["families"] == {"tool_error_result": {
        "seam": "tool", "injected": 1, "hit": 1, "recovered": 1, "failed": 0}}
    assert rep["faults"]["tools"] == {"lookup_order": {"failed": 1, "recovered": 1}}
    assert rep["faults"]["failure_paths_pct"] == 100.0
