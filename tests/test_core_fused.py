"""The core's fused entry (`Classifier.otlp_steps`: protobuf bytes decoded and classified in one
call) against the two-step path it replaces for protobuf input: SpanRecords from the decoder,
each classified by the Python reference, dropped or kept as `CoverageEngine.to_step` says.

Every span of every recorded fixture, with and without a `--jobs` filter and a spec's
conventions; then whole `agentcov coverage` reports from the same spans as OTLP/JSON (read as
SpanRecords) and as protobuf (read by the fused entry), which must be identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _reference import ReferenceClassifier
from fixture_expectations import FIXTURES
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from test_core_classifier import DOC_SPECS
from test_otlp_decoder import FIXTURE_PAYLOADS

from otel_agentcov.offline import load, report
from otel_agentcov.readers.otlp import in_end_order, records_from_protobuf
from otel_agentcov.records import SPAN_KIND_SERVER
from otel_agentcov.spec import CoverageSpec

STATE = ("gen_ai.agent.name", "missing")


def _two_step(classifier: ReferenceClassifier, payload: bytes, keep: Any = None) -> list[Any]:
    """What the engine folded per span before the fused entry, with the reference classifier
    and the root rule written out here (docs/architecture.md#one-root-rule) as the oracle."""
    out: list[Any] = []
    for record in in_end_order(records_from_protobuf(payload, keep=keep)):
        if record.trace_id == 0 or record.span_id == 0:
            out.append("invalid_ids")
        elif record.end_ns < record.start_ns:
            out.append("end_before_start")
        else:
            step, matched = classifier.reference(record, STATE)
            root = record.parent_id is None or (record.parent_remote and not (
                record.kind == SPAN_KIND_SERVER and step.kind in ("tool", "agent")))
            out.append((step, root) if matched else (step, root, record))
    return out


def test_every_fixture_payload_is_folded_as_the_two_step_path_folds_it() -> None:
    # the engine infers from either path's records
    classifier = ReferenceClassifier(inference=False)
    spans = 0
    for name, payload in FIXTURE_PAYLOADS:
        fused = classifier.otlp_steps(payload, state_attributes=STATE, shapes=True)
        assert fused == _two_step(classifier, payload), name
        plain = classifier.otlp_steps(payload, state_attributes=STATE)
        assert plain == [item[:2] if isinstance(item, tuple) else item for item in fused], name
        spans += len(fused)
    assert spans > 2000


def test_the_jobs_filter_and_a_specs_conventions_apply_as_on_records() -> None:
    spec = next(CoverageSpec.from_dict(d) for d in DOC_SPECS if "Supervisor*" in json.dumps(d))
    classifier = ReferenceClassifier(spec.conventions)
    for name, payload in FIXTURE_PAYLOADS:
        for k in (0, 1):
            def keep(trace_id: int, k: int = k) -> bool:
                return trace_id % 2 == k

            fused = classifier.otlp_steps(payload, keep=keep, state_attributes=STATE,
                                          shapes=True)
            assert fused == _two_step(classifier, payload, keep), name


def test_invalid_spans_are_counted_drops() -> None:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    good = spans.add(trace_id=b"\1" * 16, span_id=b"\2" * 8, name="chat m",
                     start_time_unix_nano=5, end_time_unix_nano=9)
    good.attributes.add(key="gen_ai.operation.name").value.string_value = "chat"
    spans.add(trace_id=b"", span_id=b"\3" * 8, name="x", end_time_unix_nano=1)
    spans.add(trace_id=b"\1" * 16, span_id=b"\4" * 8, name="y", start_time_unix_nano=9,
              end_time_unix_nano=5)
    payload = request.SerializeToString()
    fused = ReferenceClassifier().otlp_steps(payload, state_attributes=STATE)
    assert sorted(item for item in fused if isinstance(item, str)) == [
        "end_before_start", "invalid_ids"]
    assert [item[0].kind for item in fused if not isinstance(item, str)] == ["llm"]
    assert fused == [item[:2] if isinstance(item, tuple) else item
                     for item in _two_step(ReferenceClassifier(), payload)]


def test_a_level_it_cannot_read_whole_is_refused() -> None:
    with pytest.raises(ValueError, match="whole resources"):
        ReferenceClassifier().otlp_steps(b"", "scope_spans")  # type: ignore[arg-type]


def _write(directory: Path, suffix: str, payloads: list[tuple[str, bytes | str]]) -> Path:
    directory.mkdir()
    for n, (_, data) in enumerate(payloads):
        path = directory / f"{n:03d}{suffix}"
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, "utf-8")
    return directory


@pytest.mark.parametrize("spec_doc", [
    {"version": 1},
    {"version": 1, "defaults": {"state_attributes": ["gen_ai.agent.name"]}},
    yaml.safe_load("version: 1\nconventions:\n  - match: {name: 'chat *'}\n    kind: tool\n"),
])
def test_coverage_of_protobuf_reports_what_the_same_spans_as_json_report(
    tmp_path: Path, spec_doc: dict[str, Any]
) -> None:
    """Protobuf files go through the fused entry, OTLP/JSON ones through SpanRecords: the same
    spans give byte-identical reports, the unmatched shapes included."""
    spec = CoverageSpec.from_dict(spec_doc)
    texts = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        if path.name != "versions.json":
            doc = json.loads(path.read_text("utf-8"))
            texts += [(path.stem, json.dumps(item)) for item in
                      (doc if isinstance(doc, list) else [doc])]
    as_json = _write(tmp_path / "json", ".json", texts)  # type: ignore[arg-type]
    as_pb = _write(tmp_path / "pb", ".pb", FIXTURE_PAYLOADS)  # type: ignore[arg-type]
    assert len(texts) == len(FIXTURE_PAYLOADS)
    from_json = report(load(spec, traces=[str(as_json)]))
    from_pb = report(load(spec, traces=[str(as_pb)]))
    assert from_pb["spans"]["processed"] > 2000
    assert from_pb["spans"].get("unclassified") == from_json["spans"].get("unclassified")
    assert json.dumps(from_pb, sort_keys=True) == json.dumps(from_json, sort_keys=True)
