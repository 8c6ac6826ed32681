"""Property tests: classification and the engine's span accounting on hostile spans
(docs/guarantees.md).

Whatever a span carries (wrong types, bytes, huge or non-UTF-8-encodable strings, nested
sequences, absurd numbers), classify never raises, names stay bounded label values, and the
engine counts every span exactly once: processed = classified (by kind) + dropped.
"""

from __future__ import annotations

import json

import pytest
from _strategies import attributes, names, records
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanContext, TraceFlags

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.records import SpanRecord
from otel_agentcov.reporting import FORMATS
from otel_agentcov.reporting import render as render_report
from otel_agentcov.semconv import KINDS, classify
from otel_agentcov.semconv.common import MAX_NAME_CHARS

NAME_FIELDS = ("agent", "tool", "model", "handoff_from", "handoff_to", "handoff_hint", "decision")


def _bounded_label(value: str) -> bool:
    value.encode("utf-8")  # a label value must be encodable, or every scrape fails
    return len(value) <= MAX_NAME_CHARS


@given(records())
def test_classify_never_raises_and_names_are_bounded_encodable_labels(record: SpanRecord) -> None:
    step = classify(record, ("gen_ai.agent.name", "missing"))
    assert step.kind in KINDS
    for field in NAME_FIELDS:
        value = getattr(step, field)
        assert value is None or _bounded_label(value), field
    assert _bounded_label(step.fallback_agent)
    assert all(_bounded_label(n) for n in step.tool_definitions + step.requested_tools)
    assert step.input_tokens >= 0 and step.output_tokens >= 0


def _check_accounting(engine: CoverageEngine, sent: int) -> None:
    stats = engine.span_stats()
    classified = sum(stats["by_kind"].values())
    assert stats["processed"] == classified + sum(stats["dropped"].values()) == sent
    assert stats["internal_errors"] == 0


@pytest.mark.slow
@settings(max_examples=60)
@given(st.lists(records(), max_size=12), st.lists(records(trace_id=7), max_size=12))
def test_engine_counts_every_span_once_and_every_output_renders(
    scattered: list[SpanRecord], one_trace: list[SpanRecord]
) -> None:
    engine = CoverageEngine()
    for record in scattered + one_trace:
        engine.ingest(record)  # never raises
    engine.flush_all("shutdown")
    _check_accounting(engine, len(scattered) + len(one_trace))
    exposition = render(engine).decode("utf-8")
    assert "agentcov_spans_processed" in exposition
    report = engine.snapshot().to_dict()
    json.dumps(report).encode("utf-8")
    for fmt in FORMATS:
        render_report(report, fmt).encode("utf-8")


def _ctx(trace_id: int, span_id: int) -> SpanContext:
    return SpanContext(trace_id, span_id, is_remote=False, trace_flags=TraceFlags(1))


@st.composite
def readable_spans(draw: st.DrawFn) -> ReadableSpan:
    """SDK spans built directly, so nothing validates the attributes on the way to on_end."""
    trace_id = draw(st.integers(1, 3))
    return ReadableSpan(
        draw(names),
        context=_ctx(trace_id, draw(st.integers(1, 6))),
        parent=draw(st.none() | st.integers(1, 6).map(lambda s: _ctx(trace_id, s))),
        attributes=draw(attributes),  # type: ignore[arg-type]  # hostile on purpose
        events=(),
        start_time=draw(st.integers(0, 100)),
        end_time=draw(st.integers(0, 100)),
    )


@settings(max_examples=40)
@given(st.lists(readable_spans() | st.sampled_from([None, object(), 42]), max_size=25))
def test_processor_on_end_never_raises_and_counts_every_span(spans: list[object]) -> None:
    processor = AgentCoverageProcessor(flush_interval_s=3600.0)
    try:
        for span in spans:
            processor.on_end(span)  # type: ignore[arg-type]  # broken objects on purpose
        assert processor.force_flush() is True
        stats = processor.span_stats()
        assert stats["processed"] == len(spans)
        assert stats["dropped"].get("malformed", 0) == sum(
            not isinstance(s, ReadableSpan) for s in spans
        )
    finally:
        processor.shutdown()


# ---------------------------------------------------------------- regressions hypothesis found

_HUGE = 10**400  # an int no float can hold


def _span(span_id: int, parent: int | None, attrs: dict[str, object], **kw: object) -> SpanRecord:
    return SpanRecord(trace_id=9, span_id=span_id, parent_id=parent, name="", start_ns=1,
                      end_ns=2, attributes=attrs, **kw)  # type: ignore[arg-type]


def test_absurd_numbers_are_read_as_no_value_not_an_overflow() -> None:
    engine = CoverageEngine()
    chat = {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": _HUGE,
            "gen_ai.usage.output_tokens": 1e308, "gen_ai.usage.cost": _HUGE}
    scored = (("gen_ai.evaluation.result", {"gen_ai.evaluation.score.value": _HUGE}),)
    engine.ingest(_span(2, 1, chat, events=scored))
    engine.ingest(_span(3, 1, chat))
    engine.ingest(_span(1, None, {"gen_ai.operation.name": "invoke_agent",
                                  "gen_ai.agent.name": "a"}))
    _check_accounting(engine, 3)
    assert engine.snapshot().to_dict()["agents"]["a"]["runs"]["count"] == 1


def test_a_lone_surrogate_in_a_name_does_not_break_the_scrape_or_reports() -> None:
    engine = CoverageEngine()
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bad\ud800name"}
    engine.ingest(_span(1, None, tool))
    exposition = render(engine).decode("utf-8")
    assert 'tool="bad?name"' in exposition
    for fmt in FORMATS:
        render_report(engine.snapshot().to_dict(), fmt).encode("utf-8")
