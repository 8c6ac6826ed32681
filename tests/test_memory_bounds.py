"""Memory bounded in bytes, spans and series (issue 14, items 5-8), in-process.

A request's spans and attributes are counted by the decoder as it decodes; the processor's queue
is capped in bytes as well as spans (captured content makes a span 100 KB), the assembler's
buffer across all traces in spans, and a scrape in series whatever the labels multiply to.
Expected figures are computed here from the inputs and the documented rules (a queued span
counts max(its string attribute bytes, 2 KiB), measured once the queue is long), not read back.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import _upb_oracle as oracle
import pytest
from _reference import BUILTIN
from _table import Table
from _trace_files import demo_spans, ld
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_pb
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.sdk.trace import TracerProvider
from prometheus_client.parser import text_string_to_metric_families

from otel_agentcov import AgentCoverageProcessor, _core
from otel_agentcov.assembler import Bounds, RunAssembler
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.readers.otlp import records_from_protobuf
from otel_agentcov.readers.otlp_size import ElementCaps, TooLarge
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import builtin
from otel_agentcov.semconv.step import TOOL, Step

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from memory_bounds import many_labels  # noqa: E402  (the benchmark's own workload)

CONTENT = 100_000


def test_queue_is_bounded_in_bytes_when_content_is_captured() -> None:
    budget, max_queue = 1 << 20, 40
    processor = AgentCoverageProcessor(bounds=Bounds(max_queue=max_queue, max_queue_bytes=budget),
                                       flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("test")
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": "x" * CONTENT}
    per_span = CONTENT + len("chat")  # the string values a measured span is accounted for
    # the documented rule: the first max_queue // 4 (at most 128) queued spans count the flat
    # 2 KiB unmeasured; from there each counts its string bytes, up to the budget
    unmeasured = max_queue // 4
    queued = unmeasured + (budget - unmeasured * 2048) // per_span
    sent = 30  # 3 MB of content against a 1 MiB budget, under the count cap of 40

    def emit(n: int) -> None:
        # the worker is held (a worker that is behind: when bytes pile up)
        with processor._drain_lock:
            for _ in range(n):
                with tracer.start_as_current_span("chat", attributes=attributes):
                    pass

    emit(sent)
    assert processor.span_stats()["dropped"] == {"queue_bytes": sent - queued}
    processor.force_flush()
    stats = processor.span_stats()
    assert stats["processed"] == sent and stats["by_kind"]["llm"] == queued
    emit(queued)  # the budget is free again once the worker has drained the queue
    assert processor.span_stats()["dropped"] == {"queue_bytes": sent - queued}
    provider.shutdown()


def test_spans_without_content_are_bounded_by_the_flat_estimate() -> None:
    processor = AgentCoverageProcessor(bounds=Bounds(max_queue_bytes=64 * 2048),
                                       flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("test")
    for _ in range(100):
        with tracer.start_as_current_span("execute_tool", attributes={"gen_ai.tool.name": "t"}):
            pass
    assert processor.span_stats()["dropped"] == {"queue_full": 100 - 64}
    provider.shutdown()


def _orphan(trace: int, span: int) -> Step:
    return Step(trace_id=trace, span_id=span, parent_id=1, kind=TOOL, start_ns=span,
                end_ns=span + 1, fallback_agent="svc", tool="t")


def test_buffered_spans_across_traces_are_capped_and_the_oldest_flush_early() -> None:
    budget, traces, per_trace = 100, 30, 10
    assembler = RunAssembler(Bounds(max_buffered_spans=budget, idle_ttl_s=3600.0))
    runs = []
    for t in range(traces):  # roots that never end: only the budget bounds the buffer
        for s in range(per_trace):
            runs += assembler.add(_orphan(1000 + t, 2 + s), False)
            assert assembler.buffered_spans <= budget
    # each trace past the tenth pushed the least recently seen one out, whole
    flushed = traces - budget // per_trace
    assert assembler.flushed_early["span_budget"] == flushed
    assert assembler.buffered_spans == budget
    assert sorted({r.trace_id for r in runs}) == [1000 + t for t in range(flushed)]
    assert sum(len(r.steps) for r in runs) == flushed * per_trace
    assert sum(len(steps) for _, _, steps in assembler.open_traces()) == budget


def test_buffered_spans_are_visible_in_self_metrics() -> None:
    engine = CoverageEngine(bounds=Bounds(max_buffered_spans=5, idle_ttl_s=3600.0))
    for t in range(3):
        for s in range(3):
            engine.ingest(SpanRecord(10 + t, 2 + s, 1, "execute_tool", start_ns=1, end_ns=2,
                                     attributes={"gen_ai.operation.name": "execute_tool",
                                                 "gen_ai.tool.name": "t"}))
    samples = {s.name + str(sorted(s.labels.items())): s.value
               for f in text_string_to_metric_families(render(engine).decode())
               for s in f.samples}
    # 9 spans in traces of 3 against a budget of 5: two whole traces flushed, 3 spans left
    assert samples["agentcov_spans_buffered[]"] == 3
    assert samples["agentcov_traces_flushed_early_total[('reason', 'span_budget')]"] == 2


def _families(text: bytes) -> dict[str, list[tuple[dict[str, str], float]]]:
    return {f.name: [(s.labels, s.value) for s in f.samples]
            for f in text_string_to_metric_families(text.decode())}


def test_a_scrape_stays_within_the_series_budget_and_counts_what_it_cut() -> None:
    agents, tools, budget = 120, 25, 5000
    engine = many_labels(agents, tools)
    full = _families(render(engine, max_series=10**9))
    cut = _families(render(engine, max_series=budget))
    # unbudgeted, the tool families alone exceed the budget: 2 outcomes x agents x tools
    assert len(full["agentcov_tool_calls"]) == 2 * agents * tools > budget
    overflow = {labels["family"]: v for labels, v in cut["agentcov_series_overflow"]}
    per_agent = [name for name in full if name in overflow]
    assert len(per_agent) == len(overflow) >= 20
    label_sets = sum(len({tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
                          for labels, _ in cut[name]}) for name in per_agent)
    assert label_sets <= budget
    for name in per_agent:
        kept = len(cut[name])
        lost = len(full[name]) - kept
        if name == "agentcov_run_duration_seconds":  # a histogram: samples per label set
            continue
        assert overflow[name] == lost, name
    assert overflow["agentcov_tool_calls"] > 0
    # a counter's cut series fold into __overflow__: its total is unchanged
    assert sum(v for _, v in cut["agentcov_tool_calls"]) == agents * tools
    assert ({"agent": "__overflow__", "tool": "__overflow__", "outcome": "__overflow__"}
            in [labels for labels, _ in cut["agentcov_tool_calls"]])
    # one-series-per-agent families are small enough to be kept whole
    assert len(cut["agentcov_runs"]) == agents


def test_the_decoders_count_is_exact_on_a_real_request() -> None:
    request = encode_pb(list(demo_spans(runs=40, seed=3)))
    request.resource_spans[0].scope_spans[0].spans[0].attributes.add(
        key="nested", value=AnyValue(array_value=ArrayValue(values=[
            AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key="k")])), AnyValue()])))
    payload = request.SerializeToString()
    spans, attributes = oracle.elements(request)
    assert len(payload) > 2 * attributes  # long enough to be walked, not bounded by its size
    # exactly at the caps: allowed, and decoded
    assert len(records_from_protobuf(payload, caps=ElementCaps(spans, attributes))) == spans
    with pytest.raises(TooLarge, match=f"more than {spans - 1} spans"):
        records_from_protobuf(payload, caps=ElementCaps(spans - 1, attributes))
    with pytest.raises(TooLarge, match=f"more than {attributes - 1} attributes"):
        records_from_protobuf(payload, caps=ElementCaps(spans, attributes - 1))


def test_a_group_field_cannot_hide_spans_or_attributes_from_the_caps() -> None:
    """Issue 37: the caps were counted by a walk of their own that stopped at a group-typed
    field, which the decoder skips and decodes on past: 300,000 spans behind a 4-byte group
    were decoded under a 5,000-span cap. Now the decoder counts what it decodes."""
    group = b"\x7b\x08\x01\x7c"  # field 15 as a group holding a varint: an unknown field
    spans = ld(1, ld(2, group + ld(2, b"") * 300_000))
    with pytest.raises(TooLarge, match="more than 5000 spans"):
        records_from_protobuf(spans, caps=ElementCaps(5_000, 50_000))
    attributes = ld(1, ld(2, ld(2, group + ld(9, ld(1, b"k")) * 60_000)))
    with pytest.raises(TooLarge, match="more than 50000 attributes"):
        records_from_protobuf(attributes, caps=ElementCaps(5_000, 50_000))
    exactly = ld(1, ld(2, group + ld(2, b"") * 5_000))
    assert len(records_from_protobuf(exactly, caps=ElementCaps(5_000, 50_000))) == 5_000


def _rss() -> int:
    """This process's resident bytes now (not the peak: earlier tests may have raised that)."""
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc/self/statm")
def test_long_scope_names_are_not_kept_by_the_classifiers() -> None:
    """Scope names come from telemetry and each classifier caches its rules per scope name:
    1024 distinct 256 KiB names (a serve body holds 80 MiB) would keep 256 MiB in the core's
    cache and as much in the Python table's. Their classification is the same uncached."""
    core, table = _core.Classifier(list(builtin.entries()), True, Step), Table(BUILTIN.rules)
    n, size = 1024, 256 << 10

    def record(i: int) -> SpanRecord:
        return SpanRecord(1, i + 1, None, "execute_tool lookup", scope_name=f"{i:08d}" + "s" * size,
                          attributes={"gen_ai.operation.name": "execute_tool",
                                      "gen_ai.tool.name": "lookup"})

    before = _rss()
    for i in range(n):
        found = core.classify(record(i), [])
        assert found is not None and found[0].kind == TOOL and found[0].tool == "lookup"
    grown = _rss() - before
    assert grown < n * size // 4, f"{grown >> 20} MiB kept for {n * size >> 20} MiB of names"
    for i in range(64):
        step = table.classify(record(i), ())
        assert step is not None and step.tool == "lookup"
    assert table._by_scope == {}
    table.classify(SpanRecord(1, 1, None, "x", scope_name="openai"), ())
    assert list(table._by_scope) == ["openai"]  # short names are still cached
