"""An agent name that only repeats the tracing library's name is the tool the agent runs in, not
the agent (docs/semantics.md#detection-rules): Gemini CLI and Qwen Code put their own name in
`gen_ai.agent.name` on every span, under a scope of that name, and each agent a team runs in them
is told apart by its service.name.

The workload (real SDK spans, worked out by hand): one invoke_agent span naming the agent
`kit-cli`, a chat span and a tool span under it, traced by a tracer named `kit-cli`. With the
service named `weather`, the run is weather's; with an SDK's default service name, or a tracer
named otherwise, the name stays `kit-cli`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _trace_files import protobuf_bytes, write_jsonl
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.cli import main
from otel_agentcov.offline import load

AGENT = "kit-cli"


def _workload(provider: TracerProvider, scope: str) -> None:
    tracer = provider.get_tracer(scope)
    named = {"gen_ai.agent.name": AGENT}
    with tracer.start_as_current_span(f"invoke_agent {AGENT}", attributes={
            "gen_ai.operation.name": "invoke_agent", **named}):
        with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", **named}):
            pass
        with tracer.start_as_current_span("execute_tool get_weather", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                **named}):
            pass


def _spans(service: str | None, scope: str) -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create(
        {"service.name": service} if service is not None else {}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    _workload(provider, scope)
    return list(memory.get_finished_spans())


def _runs(report: dict[str, Any]) -> dict[str, tuple[int, dict[str, Any]]]:
    return {name: (a["runs"]["count"], a["tools"]["called"])
            for name, a in report["agents"].items()}


CASES = [  # (service.name, the tracer's name, the agent the run is counted for)
    ("weather", AGENT, "weather"),
    (None, AGENT, AGENT),  # the SDK's `unknown_service:...`: no name of the service's own
    ("weather", "acme.agents", AGENT),  # a scope of another name: the name is the agent's
    (AGENT, AGENT, AGENT),  # the service named as the agent too
]


@pytest.mark.parametrize(("service", "scope", "agent"), CASES)
def test_in_process(service: str | None, scope: str, agent: str) -> None:
    processor = AgentCoverageProcessor()
    provider = TracerProvider(resource=Resource.create(
        {"service.name": service} if service is not None else {}))
    provider.add_span_processor(processor)
    _workload(provider, scope)
    processor.force_flush()
    report = processor.snapshot().to_dict()
    processor.shutdown()
    assert _runs(report) == {agent: (1, {"get_weather": {"ok": 1, "error": 0}})}


@pytest.mark.parametrize(("service", "scope", "agent"), CASES)
def test_offline(tmp_path: Path, service: str | None, scope: str, agent: str) -> None:
    traces = tmp_path / "traces.pb"
    traces.write_bytes(protobuf_bytes(_spans(service, scope)))
    report = load(CoverageSpec.empty(), traces=[str(traces)]).snapshot().to_dict()
    assert _runs(report) == {agent: (1, {"get_weather": {"ok": 1, "error": 0}})}


def _refunds(provider: TracerProvider) -> None:
    """An app's own tracer named after its one agent, `refunds` (`trace.get_tracer("refunds")`),
    in the service `acme-backend`: the agent refunds before verifying the customer."""
    tracer = provider.get_tracer("refunds")
    named = {"gen_ai.agent.name": "refunds"}
    with tracer.start_as_current_span("invoke_agent refunds", attributes={
            "gen_ai.operation.name": "invoke_agent", **named}):
        with tracer.start_as_current_span("execute_tool issue_refund", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "issue_refund",
                **named}):
            pass


def test_a_spec_agent_named_as_its_tracer_keeps_its_contracts(tmp_path: Path) -> None:
    """A name the spec declares is an agent's, whatever traced it (red team s12: counted for
    the service acme-backend, the refunds entry matched no run and its violated contract was
    never judged: `--allow-inconclusive` passed the gate)."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "acme-backend"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    _refunds(provider)
    traces = tmp_path / "traces.pb"
    traces.write_bytes(protobuf_bytes(list(memory.get_finished_spans())))
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(json.dumps({"version": 1, "agents": [{"name": "refunds", "contracts": [{
        "name": "refund_policy", "must": [{"behavior": "verifies_identity", "before": {
            "first": "verify_customer", "then": "issue_refund"}}]}]}]}))
    assert main(["gate", str(traces), "--spec", str(spec), "--allow-inconclusive"]) == 1


@pytest.mark.parametrize("route", ["processor", "protobuf", "jsonl"])
def test_a_declared_name_stays_the_agents_on_every_route(tmp_path: Path, route: str) -> None:
    """A spec declaring `kit-cli` keeps the runs the library's name names, in process and in
    files alike (core classifier, fused protobuf reader, SpanRecord path)."""
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": AGENT}]})
    if route == "processor":
        processor = AgentCoverageProcessor(spec)
        provider = TracerProvider(resource=Resource.create({"service.name": "weather"}))
        provider.add_span_processor(processor)
        _workload(provider, AGENT)
        processor.force_flush()
        report = processor.snapshot().to_dict()
        processor.shutdown()
    else:
        spans = _spans("weather", AGENT)
        traces = tmp_path / f"traces.{'pb' if route == 'protobuf' else 'jsonl'}"
        if route == "protobuf":
            traces.write_bytes(protobuf_bytes(spans))
        else:
            write_jsonl(traces, spans)
        report = load(spec, traces=[str(traces)]).snapshot().to_dict()
    assert _runs(report) == {AGENT: (1, {"get_weather": {"ok": 1, "error": 0}})}
