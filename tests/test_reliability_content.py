"""Secrets and content: coverage keeps names, kinds and outcomes only (docs/guarantees.md, step.py).

Every attribute that can carry prompt text, messages, tool arguments or results, in every
convention family, carries a unique canary string; spans go through the real SDK processor.
The canary must not appear in /metrics, the saved state file, or any report format. Hostile
label values (quotes, backslashes, newlines, huge names) must still give an exposition
`promtool check metrics` accepts, with every value escaped and bounded.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from _support import need_binary
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode
from prometheus_client.parser import text_string_to_metric_families

from otel_agentcov.exporters.prometheus import render
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.reporting import FORMATS
from otel_agentcov.reporting import render as render_report
from otel_agentcov.semconv.common import MAX_NAME_CHARS
from otel_agentcov.state import CoverageState

CANARY = "CANARY-7f3a9c-do-not-store"
MESSAGES = json.dumps([
    {"role": "system", "parts": [{"type": "text", "content": CANARY}]},
    {"role": "user", "parts": [{"type": "text", "content": CANARY}]},
    {"role": "assistant", "parts": [
        {"type": "tool_call", "name": "lookup", "id": CANARY, "arguments": {"q": CANARY}},
        {"type": "tool_call_response", "id": CANARY, "response": CANARY}]},
])
# content attributes of every convention family we read (GenAI, OpenInference, Traceloop,
# pydantic-ai, vendor dialects): none of them may reach an output
CONTENT: dict[str, Any] = {
    "gen_ai.input.messages": MESSAGES, "gen_ai.output.messages": MESSAGES,
    "gen_ai.system_instructions": CANARY, "gen_ai.prompt": CANARY, "gen_ai.completion": CANARY,
    "gen_ai.prompt.0.content": CANARY, "gen_ai.completion.0.content": CANARY,
    "gen_ai.tool.call.arguments": json.dumps({"q": CANARY}), "gen_ai.tool.call.result": CANARY,
    "gen_ai.tool.definitions": json.dumps([{"type": "function", "name": "lookup",
                                            "description": CANARY, "parameters": {CANARY: 1}}]),
    "llm.input_messages.0.message.content": CANARY, "llm.output_messages.0.message.content":
    CANARY, "llm.input_messages.0.message.role": "user", "input.value": CANARY,
    "output.value": CANARY, "llm.prompts": (CANARY,), "tool.parameters": CANARY,
    "traceloop.entity.input": CANARY, "traceloop.entity.output": CANARY,
    "tool_arguments": CANARY, "tool_response": CANARY, "all_messages_events": MESSAGES,
    "final_result": CANARY, "gen_ai.request.messages": MESSAGES, "ai.prompt": CANARY,
    # Logfire, OpenLIT (the error message in error.type), Mastra, the AI SDK's ai.* spans
    "error": json.dumps({"message": CANARY}), "logfire.msg": CANARY, "request_data": CANARY,
    "error.type": f"Error running tool: {CANARY}", "error.message": CANARY,
    "mastra.agent_run.input": CANARY, "ai.response.text": CANARY, "ai.toolCall.args": CANARY,
    "ai.toolCall.result": CANARY,
}  # fmt: skip
HOSTILE = ['quote"d', "back\\slash", "new\nline", "tab\tand\r", "}{,=", "x" * 5000,
           'all"\\\n"', "\u00e9\u4e2d\U0001f600"]


def _content_sdk_run(tmp_path: Path) -> tuple[AgentCoverageProcessor, Path]:
    processor = AgentCoverageProcessor(flush_interval_s=3600.0)
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("content")
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner", **CONTENT}
    with tracer.start_as_current_span("invoke_agent planner", attributes=agent):
        chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", **CONTENT}
        with tracer.start_as_current_span("chat gpt-4o", attributes=chat):
            pass
        tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", **CONTENT}
        with tracer.start_as_current_span("execute_tool lookup", attributes=tool) as span:
            span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": CANARY})
            span.record_exception(RuntimeError(CANARY))
            span.set_status(Status(StatusCode.ERROR, CANARY))
        for name in HOSTILE:
            hostile = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                       **CONTENT}
            with tracer.start_as_current_span("execute_tool", attributes=hostile):
                pass
        with tracer.start_as_current_span("invoke_agent", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": HOSTILE[-3],
                **CONTENT}):
            pass
    processor.force_flush()
    state_file = tmp_path / "state.json"
    processor.engine.state.save(state_file)
    return processor, state_file


def test_no_captured_content_reaches_metrics_state_or_reports(tmp_path: Path) -> None:
    processor, state_file = _content_sdk_run(tmp_path)
    report = processor.snapshot().to_dict()
    assert report["agents"]["planner"]["tools"]["called"]["lookup"] == {"ok": 0, "error": 1}
    outputs = {
        "/metrics": render(processor).decode("utf-8"),
        "state file": state_file.read_text(encoding="utf-8"),
        "state reloaded": json.dumps(CoverageState.load(state_file).to_dict()),
        **{f"{fmt} report": render_report(report, fmt) for fmt in FORMATS},
    }
    for where, text in outputs.items():
        assert "planner" in text, where  # the names are there: the search looks at real output
        assert CANARY not in text, f"captured content leaked into the {where}"
        assert CANARY.encode().hex() not in text  # nor hex/escaped forms of it
    processor.shutdown()


def test_hostile_label_values_are_escaped_bounded_and_promtool_valid(tmp_path: Path) -> None:
    promtool = need_binary("promtool")
    processor, _ = _content_sdk_run(tmp_path)
    exposition = render(processor)
    proc = subprocess.run([promtool, "check", "metrics"], input=exposition,
                          capture_output=True, timeout=60, check=False)
    output = (proc.stdout + proc.stderr).decode().strip()
    assert proc.returncode == 0, output
    # parsed back, each value is the (clipped) name it came from: escaping round-trips
    tools = {s.labels["tool"] for f in text_string_to_metric_families(exposition.decode())
             if f.name == "agentcov_tool_calls" for s in f.samples}
    assert {n[:MAX_NAME_CHARS] for n in HOSTILE} <= tools
    assert all(len(v) <= MAX_NAME_CHARS for v in tools)
    processor.shutdown()
