"""Argument coverage reads tool arguments: no free argument value may reach the state, the
metrics, a report, a log line or an evaluation event (docs/report.md#argument-coverage).

Real SDK spans through the real processor: a chat span offers a tool whose schema has free
strings, an enum, a boolean, a bounded number, an array and a oneOf; the tool span's arguments
put a canary in every place a value can hide (a free string, a value outside the enum, an
undeclared key, an array element, a nested object, a number between the bounds, the branch).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from _support import rendered_outputs
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

CANARY = "CANARY-args-5d1e-never-kept"
SCHEMA = {"type": "object", "required": ["query"], "properties": {
    "query": {"type": "string"},
    "sort": {"enum": ["relevance", "date"]},
    "exact": {"type": "boolean"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    "tags": {"type": "array", "items": {"type": "string"}},
    "where": {"type": "object", "properties": {"owner": {"type": "string"}}},
    "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
}}
ARGS = {"query": CANARY, "sort": CANARY, CANARY: CANARY, "tags": [CANARY], "exact": True,
        "where": {"owner": CANARY, CANARY: 1}, "limit": 17, "target": CANARY}


def test_no_argument_value_reaches_any_output(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    exporter = InMemoryLogRecordExporter()
    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "finder", "arguments": {}, "narrative": {}}]})  # narrative: events carry one
    processor = AgentCoverageProcessor(spec, logger_provider=logs, flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("arguments")
    definitions = json.dumps([{"type": "function", "name": "search", "parameters": SCHEMA}])
    with tracer.start_as_current_span("invoke_agent finder", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "finder"}):
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                "gen_ai.tool.definitions": definitions}):
            pass
        with tracer.start_as_current_span("execute_tool search", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search",
                "gen_ai.tool.call.arguments": json.dumps(ARGS)}):
            pass
    assert processor.force_flush()
    report = processor.snapshot().to_dict()
    row = report["agents"]["finder"]["arguments"]["tools"]["search"]
    # items (name order): exact, =false, =true; limit, :maximum, :minimum; query; sort,
    # ="date", ="relevance"; tags, :empty, :non-empty; target, :oneOf[0], :oneOf[1];
    # where, where.owner = 18. Seen: exact, exact=true, limit, query, sort, tags,
    # tags:non-empty, target, target:oneOf[0], where, where.owner = 11
    assert (row["items"], row["seen"]) == (18, 11)
    outputs = {
        **rendered_outputs(processor, tmp_path),
        "events": "\n".join(r.to_json() for r in exporter.get_finished_logs()),
        "logs": caplog.text,
    }
    # the search looks at real output: item names are there, values are not
    assert "where.owner" in outputs["state file"] and "tags:empty" in outputs["json report"]
    for where, text in outputs.items():
        assert CANARY not in text, f"an argument value leaked into the {where}"
        assert CANARY.encode().hex() not in text
    processor.shutdown()
    logs.shutdown()
