"""The 2026 GenAI convention shapes end to end (docs/instrumentations.md, "GenAI conventions,
2026"): one workload recorded through the real OpenTelemetry SDK — spans from a TracerProvider,
a `gen_ai.tool.call.decision` event from a LoggerProvider — read in-process by the processor
pair and offline from the files the SDK's own OTLP/JSON encoders write.

The workload, and what each shape should give (worked out by hand from docs/instrumentations.md
and docs/semantics.md, not from a run):

- trace 1, `handle_conversation_turn` (a runner root: no agent) over `invoke_agent triage`
  (`gen_ai.agent.turn.count` 3, one chat of 0.25 USD, a `plan` span, the transfer tool
  `transfer_to_billing` naming `gen_ai.transfer.target.name` billing: a call of triage's that
  ran, and a hand-off) and then `invoke_agent billing` (a chat of 0.5 USD, an MCP
  `tools/call refund` span failing with `error.type=tool_error`, an `apply_guardrail` span).
  So: triage 1 run, max_steps hit (3 turns reach `max_steps: 3`), `transfer_to_billing` 1 ok,
  cost 0.25 USD; billing 1 run, `refund` 0 ok / 1 failed (a tool failure), cost 0.5 USD; one
  hand-off triage → billing; `plan` and `apply_guardrail` are neither tools nor agents.
- trace 2, a remote `invoke_agent kb` (CLIENT) naming `gen_ai.caller.type=agent`,
  `gen_ai.caller.name=triage`, over a chat, and in it a `deny` of the restricted tool
  `delete_account` as a log record with no tool span: kb 1 run, a delegation triage → kb, a
  restricted attempt `denied` (the gate fails), one deny.
- trace 3, an `invoke_agent` span naming no agent but `gen_ai.agent.id=asst_faq`, over an MCP
  `tools/call lookup` failing with the JSON-RPC code `-32602`: asst_faq 1 run, `lookup` 0 ok /
  1 failed (a tool failure).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _otel_events import measured_in_process, recorded
from opentelemetry import trace
from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource

from otel_agentcov import CoverageSpec
from otel_agentcov.gate import evaluate
from otel_agentcov.offline import load
from otel_agentcov.stats.verdicts import FAIL

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [
    {"name": "triage", "boundaries": {"max_steps": 3}},
    {"name": "kb", "tool_edges": {"restricted": ["delete_account"]}},
]}, source="<test>")
RESOURCE = Resource.create({"service.name": "shop"})


def _op(name: str, **attributes: Any) -> dict[str, Any]:
    return {"gen_ai.operation.name": name, **attributes}


def _chat(tracer: trace.Tracer, usd: float) -> None:
    with tracer.start_as_current_span("chat m", attributes=_op(
            "chat", **{"gen_ai.request.model": "m", "gen_ai.usage.cost.amount": usd,
                       "gen_ai.usage.cost.currency": "USD"})):
        pass


def _mcp_call(tracer: trace.Tracer, tool: str, error: str) -> None:
    with tracer.start_as_current_span(f"tools/call {tool}", attributes=_op(
            "execute_tool", **{"mcp.method.name": "tools/call", "gen_ai.tool.name": tool,
                               "error.type": error})) as span:
        span.set_status(trace.StatusCode.ERROR)


def workload(tracer: trace.Tracer, logger: Any) -> None:
    """The three traces of the module docstring."""
    with tracer.start_as_current_span("handle_conversation_turn",
                                      attributes=_op("handle_conversation_turn")):
        with tracer.start_as_current_span("invoke_agent triage", attributes=_op(
                "invoke_agent", **{"gen_ai.agent.name": "triage",
                                   "gen_ai.agent.turn.count": 3})):
            _chat(tracer, 0.25)
            with tracer.start_as_current_span("plan triage", attributes=_op(
                    "plan", **{"gen_ai.agent.name": "triage"})):
                pass
            with tracer.start_as_current_span("execute_tool transfer_to_billing", attributes=_op(
                    "execute_tool", **{"gen_ai.tool.name": "transfer_to_billing",
                                       "gen_ai.transfer.target.name": "billing"})):
                pass
        with tracer.start_as_current_span("invoke_agent billing", attributes=_op(
                "invoke_agent", **{"gen_ai.agent.name": "billing"})):
            _chat(tracer, 0.5)
            _mcp_call(tracer, "refund", "tool_error")
            with tracer.start_as_current_span("apply_guardrail Bedrock", attributes=_op(
                    "apply_guardrail", **{"gen_ai.guardrail.component.name": "Bedrock"})):
                pass
    with tracer.start_as_current_span("invoke_agent kb", kind=trace.SpanKind.CLIENT,
                                      attributes=_op("invoke_agent", **{
                                          "gen_ai.agent.name": "kb", "gen_ai.caller.type": "agent",
                                          "gen_ai.caller.name": "triage"})):
        _chat(tracer, 0.1)
        logger.emit(LogRecord(
            severity_number=SeverityNumber.INFO, event_name="gen_ai.tool.call.decision",
            attributes={"gen_ai.tool.call.decision.outcome": "deny",
                        "gen_ai.tool.name": "delete_account", "gen_ai.tool.call.id": "c1"}))
    with tracer.start_as_current_span("invoke_agent", attributes=_op(
            "invoke_agent", **{"gen_ai.agent.id": "asst_faq"})):
        _mcp_call(tracer, "lookup", "-32602")


def in_process() -> dict[str, Any]:
    return measured_in_process(SPEC, RESOURCE, workload)[0]


def offline(tmp_path: Path) -> dict[str, Any]:
    """The same workload as OTLP/JSON files written by the SDK's encoders, read offline."""
    spans, logs = recorded(RESOURCE, workload)
    traces, events = tmp_path / "traces.json", tmp_path / "logs.json"
    traces.write_text(encode_spans(spans.get_finished_spans()).to_json(), encoding="utf-8")
    events.write_text(encode_logs(logs.get_finished_logs()).to_json(), encoding="utf-8")
    return load(SPEC, traces=[str(traces), str(events)]).snapshot().to_dict()


@pytest.fixture(params=["in_process", "offline"])
def report(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    got: dict[str, Any] = in_process() if request.param == "in_process" else offline(tmp_path)
    return got


def test_agents_and_their_runs(report: dict[str, Any]) -> None:
    """No agent for the runner root, the plan or the guardrail; asst_faq by its id."""
    assert {a: r["runs"]["count"] for a, r in report["agents"].items()} == {
        "triage": 1, "billing": 1, "kb": 1, "asst_faq": 1}


def test_tools_and_mcp_failures(report: dict[str, Any]) -> None:
    """The MCP calls fail (`tool_error`, `-32602`); plan and guardrail are no tools."""
    tools = {a: {t: (c["ok"], c["error"]) for t, c in r["tools"]["called"].items()}
             for a, r in report["agents"].items()}
    assert tools == {"triage": {"transfer_to_billing": (1, 0)}, "billing": {"refund": (0, 1)},
                     "kb": {}, "asst_faq": {"lookup": (0, 1)}}
    failures = {a: r["boundary_hits"]["tool_failure"] for a, r in report["agents"].items()}
    assert failures == {"triage": 0, "billing": 1, "kb": 0, "asst_faq": 1}


def test_hand_offs_and_delegations(report: dict[str, Any]) -> None:
    """triage → billing by the transfer tool, triage → kb by the remote call's caller."""
    edges = sorted((d["from"], d["to"]) for r in report["agents"].values()
                   for d in r["delegations"])
    assert edges == [("triage", "billing"), ("triage", "kb")]


def test_turns_cost_and_decisions(report: dict[str, Any]) -> None:
    agents = report["agents"]
    assert agents["triage"]["boundary_hits"].get("max_steps") == 1
    assert {a: r["runs"]["cost"]["USD"]["total"] for a, r in agents.items()
            if "cost" in r["runs"]} == {"triage": 0.25, "billing": 0.5, "kb": 0.1}
    assert agents["kb"]["edges"]["restricted"] == [
        {"tool": "delete_account", "outcome": "denied", "count": 1}]
    checks = [c for c in evaluate(report, SPEC) if c.target == "edges.restricted_attempts"]
    assert [c.verdict for c in checks if c.agent == "kb"] == [FAIL]
