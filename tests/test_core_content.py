"""Content never kept on the compiled core's paths (docs/core.md): a canary string in every
content attribute, event and status message of real SDK spans, read by the core's fused
decode-and-classify of protobuf (`agentcov coverage` on a protobuf file) and by its in-place
reading of SDK spans (the processor), must not reach the reports, the data file, stdout/stderr,
the logs or `/metrics`. Each test first proves the core path was the one taken.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from _trace_files import protobuf_bytes
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode
from test_reliability_content import CANARY, CONTENT

from otel_agentcov import cli, compiled, semconv
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.reporting import FORMATS

SPEC = {"version": 1, "agents": [{"name": "planner"}]}


def content_runs(provider: TracerProvider) -> None:
    """Two runs of planner, every span full of the canary."""
    tracer = provider.get_tracer("content")
    for _ in range(2):
        with tracer.start_as_current_span("invoke_agent planner", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner",
                **CONTENT}):
            with tracer.start_as_current_span("chat gpt-4o", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                    **CONTENT}) as chat:
                chat.add_event("gen_ai.user.message", {"content": CANARY})
            with tracer.start_as_current_span("execute_tool lookup", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup",
                    **CONTENT}) as tool:
                tool.record_exception(RuntimeError(CANARY))
                tool.set_status(Status(StatusCode.ERROR, CANARY))


def _spans() -> tuple[ReadableSpan, ...]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": CANARY}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    content_runs(provider)
    return exporter.get_finished_spans()


def _no_canary(outputs: dict[str, str]) -> None:
    for where, text in outputs.items():
        assert "planner" in text or where in ("stderr", "logs"), where  # real output searched
        assert CANARY not in text, f"content leaked into the {where}"
        assert CANARY.encode().hex() not in text, where


def test_the_fused_protobuf_path_keeps_no_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    real, fused = semconv.Classifier.otlp_steps, []

    def otlp_steps(self: semconv.Classifier, *args: Any, **kwargs: Any) -> Any:
        found = real(self, *args, **kwargs)
        fused.extend(found)
        return found

    monkeypatch.setattr(semconv.Classifier, "otlp_steps", otlp_steps)
    traces = tmp_path / "traces.pb"
    traces.write_bytes(protobuf_bytes(_spans()))
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    outputs: dict[str, str] = {}
    for fmt in FORMATS:
        data = tmp_path / f"{fmt}.agentcov"
        code = cli.main(["coverage", "--spec", str(spec), "--format", fmt,
                         "--data-file", str(data), str(traces)])
        assert code in (0, 1, 3)
        out, err = capsys.readouterr()
        outputs |= {f"{fmt} report": out, "stderr": outputs.get("stderr", "") + err,
                    f"{fmt} data file": data.read_text(encoding="utf-8")}
    assert len(fused) == 6 * len(FORMATS)  # every span took the core's fused path
    _no_canary({**outputs, "logs": caplog.text})


@pytest.mark.timeout(30)
def test_the_sdk_core_path_keeps_no_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    real, read = compiled.sdk_step, []

    def sdk_step(*args: Any) -> Any:
        found = real(*args)
        read.append(found)
        return found

    monkeypatch.setattr(compiled, "sdk_step", sdk_step)
    processor = AgentCoverageProcessor(flush_interval_s=3600.0)
    provider = TracerProvider(resource=Resource.create({"service.name": CANARY}))
    provider.add_span_processor(processor)
    content_runs(provider)
    assert processor.force_flush() is True
    assert len(read) == 6 and None not in read  # the core read every span in place
    state = tmp_path / "state.json"
    processor.engine.state.save(state)
    report = processor.snapshot().to_dict()
    assert report["agents"]["planner"]["runs"]["count"] == 2
    _no_canary({
        "/metrics": render(processor).decode("utf-8"),
        "state file": state.read_text(encoding="utf-8"),
        "report": json.dumps(report),
        "logs": caplog.text,
    })
    provider.shutdown()
