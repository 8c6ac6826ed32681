"""The processor's front door through the core: SDK spans read in place and classified by
`_core.sdk_step` fold into the same coverage as their SpanRecords through the Python path
(docs/processor.md); content checks and shape counting keep the SpanRecord path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from _reference import ReferenceClassifier
from _trace_files import demo_spans
from opentelemetry.sdk.trace import ReadableSpan

from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.records import from_readable_span
from otel_agentcov.spec import CoverageSpec


def _report(engine: CoverageEngine) -> dict[str, Any]:
    engine.flush_all("shutdown")
    return engine.snapshot().to_dict()


def _through_records(spans: Sequence[ReadableSpan], spec: CoverageSpec) -> dict[str, Any]:
    engine = CoverageEngine(spec)
    for span in spans:
        engine.ingest(from_readable_span(span))
    return _report(engine)


def test_sdk_spans_read_by_the_core_fold_as_their_span_records() -> None:
    spans = demo_spans(runs=30)
    spec = CoverageSpec.from_dict(DEMO_SPEC)
    engine = CoverageEngine(spec)
    read = engine.sdk_steps()
    assert read is not None
    found = [read(span) for span in spans]
    assert all(f is not None for f in found)  # every real SDK span is read by the core
    for item in found:
        engine.ingest(item)  # type: ignore[arg-type]
    assert _report(engine) == _through_records(spans, spec)


def test_each_sdk_step_is_the_python_classifiers() -> None:
    classifier = ReferenceClassifier()
    for span in demo_spans(runs=5):
        found = classifier.sdk_step(span, ("gen_ai.operation.name",))
        assert isinstance(found, tuple)
        step, local_root = found
        record = from_readable_span(span)
        want, _ = classifier.reference(record, ("gen_ai.operation.name",))
        assert step == want
        assert local_root == (record.parent_id is None)


def test_content_checks_and_shape_counting_keep_the_span_record_path() -> None:
    content = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
        {"name": "c", "must": [{"behavior": "x", "output": {"contains": "t"}}]}]}]})
    assert content.needs_content
    assert CoverageEngine(content).sdk_steps() is None
    assert CoverageEngine(shapes=True).sdk_steps() is None


def test_the_processor_folds_through_the_core() -> None:
    spans = demo_spans(runs=10)
    processor = AgentCoverageProcessor(flush_interval_s=3600.0)
    try:
        for span in spans:
            processor.on_end(span)
        assert processor.force_flush()
        got = processor.snapshot().to_dict()
    finally:
        processor.shutdown()
    want = _through_records(spans, processor.spec)
    assert got["agents"] == want["agents"]
