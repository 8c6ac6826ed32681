"""Tempo, Jaeger and Zipkin trace JSON give the same report as the OTLP file of the same spans
(docs/cli.md#trace-files); before, each was refused ("got an object with keys batches").

The spans are the demo's multi-agent workload from the real SDK, their times rounded to whole
microseconds (what Jaeger and Zipkin keep). Zipkin v2 JSON is written by the OpenTelemetry
Zipkin exporter's own encoder (`opentelemetry-exporter-zipkin-json`); Tempo's trace JSON is OTLP
under `batches` (Tempo's `/api/traces/<id>`); Jaeger's JSON is written below from its documented
model (the UI's "Download JSON", `/api/traces`): typed tags, `references`, `processes`, times in
microseconds, OTel status and scope as the Collector's Jaeger translator tags them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _trace_files import demo_spans, json_text, write_spec
from opentelemetry.exporter.zipkin.json.v2 import JsonV2Encoder
from opentelemetry.exporter.zipkin.node_endpoint import NodeEndpoint
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from otel_agentcov import OTLPFileSpanExporter, offline
from otel_agentcov.spec import CoverageSpec


def _micro(span: ReadableSpan) -> ReadableSpan:
    start_us = (span.start_time + 500) // 1000
    duration_us = (span.end_time - span.start_time + 500) // 1000
    return ReadableSpan(
        name=span.name, context=span.context, parent=span.parent, resource=span.resource,
        attributes=span.attributes, events=span.events, links=span.links, kind=span.kind,
        status=span.status, start_time=start_us * 1000,
        end_time=(start_us + duration_us) * 1000,
        instrumentation_scope=span.instrumentation_scope,
    )


@pytest.fixture(scope="module")
def spans() -> list[ReadableSpan]:
    return [_micro(s) for s in demo_spans(30)]


def _tag(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "type": "bool", "value": value}
    if isinstance(value, int):
        return {"key": key, "type": "int64", "value": value}
    if isinstance(value, float):
        return {"key": key, "type": "float64", "value": value}
    if isinstance(value, tuple | list):
        return {"key": key, "type": "string", "value": json.dumps(list(value))}
    return {"key": key, "type": "string", "value": str(value)}


_JAEGER_KIND = {SpanKind.SERVER: "server", SpanKind.CLIENT: "client",
                SpanKind.PRODUCER: "producer", SpanKind.CONSUMER: "consumer"}


def jaeger_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    by_trace: dict[int, list[ReadableSpan]] = {}
    for s in spans:
        by_trace.setdefault(s.context.trace_id, []).append(s)
    data = []
    for trace_id, group in by_trace.items():
        resource = group[0].resource.attributes
        process = {"serviceName": resource["service.name"],
                   "tags": [_tag(k, v) for k, v in resource.items() if k != "service.name"]}
        out = []
        for s in group:
            tags = [_tag(k, v) for k, v in s.attributes.items()]
            tags.append(_tag("otel.scope.name", s.instrumentation_scope.name))
            if s.kind in _JAEGER_KIND:
                tags.append(_tag("span.kind", _JAEGER_KIND[s.kind]))
            if s.status.status_code is not StatusCode.UNSET:
                tags.append(_tag("otel.status_code", s.status.status_code.name))
            if s.status.status_code is StatusCode.ERROR:
                tags.append(_tag("error", True))
                if s.status.description:
                    tags.append(_tag("otel.status_description", s.status.description))
            out.append({
                "traceID": f"{trace_id:032x}", "spanID": f"{s.context.span_id:016x}",
                "operationName": s.name, "flags": 1,
                "references": [{"refType": "CHILD_OF", "traceID": f"{trace_id:032x}",
                                "spanID": f"{s.parent.span_id:016x}"}] if s.parent else [],
                "startTime": s.start_time // 1000, "duration": (s.end_time - s.start_time) // 1000,
                "tags": tags, "processID": "p1", "warnings": None,
                "logs": [{"timestamp": e.timestamp // 1000,
                          "fields": [_tag("event", e.name),
                                     *(_tag(k, v) for k, v in e.attributes.items())]}
                         for e in s.events],
            })
        data.append({"traceID": f"{trace_id:032x}", "spans": out,
                     "processes": {"p1": process}, "warnings": None})
    return {"data": data, "total": 0, "limit": 0, "offset": 0, "errors": None}


def zipkin_json(spans: Sequence[ReadableSpan]) -> str:
    endpoint = NodeEndpoint()
    endpoint.service_name = spans[0].resource.attributes["service.name"]
    return JsonV2Encoder(max_tag_value_length=None).serialize(spans, endpoint)


def report(path: Path, spec: CoverageSpec) -> dict[str, Any]:
    engine = offline.load(spec, traces=[str(path)])
    out = offline.report(engine)
    out["spans"].pop("state_files", None)
    return dict(out)


@pytest.fixture(scope="module")
def written(spans: list[ReadableSpan], tmp_path_factory: pytest.TempPathFactory
            ) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("foreign")
    otlp = json.loads(json_text(spans))
    files = {
        "otlp": json.dumps(otlp),
        "tempo": json.dumps({"batches": otlp["resourceSpans"]}),
        "jaeger": json.dumps(jaeger_json(spans)),
        "zipkin": zipkin_json(spans),
    }
    for name, text in files.items():
        (d / f"{name}.json").write_text(text, encoding="utf-8")
    write_spec(d / "agentcov.yaml")
    return {name: d / f"{name}.json" for name in files} | {"spec": d / "agentcov.yaml"}


@pytest.mark.parametrize("fmt", ["tempo", "jaeger", "zipkin"])
def test_the_same_report_as_the_otlp_file(fmt: str, written: dict[str, Path]) -> None:
    spec = CoverageSpec.from_yaml(written["spec"])
    want = report(written["otlp"], spec)
    assert sum(a["runs"]["count"] for a in want["agents"].values()) > 0
    assert report(written[fmt], spec) == want


def test_the_cli_reads_them_positionally(written: dict[str, Path]) -> None:
    from otel_agentcov import cli

    for fmt in ("tempo", "jaeger", "zipkin"):  # the kind is read from the content
        assert offline.input_kind(str(written[fmt])) == "traces"
        assert cli.main(["coverage", str(written[fmt]), "--spec", str(written["spec"]),
                         "--format", "json", "--output", str(written[fmt]) + ".out"]) == 0


def test_otlp_file_span_exporter_writes_what_the_cli_reads(
        spans: list[ReadableSpan], tmp_path: Path, written: dict[str, Path]) -> None:
    path = tmp_path / "exported.pb"
    exporter = OTLPFileSpanExporter(path)
    half = len(spans) // 2
    exporter.export(spans[:half])  # two batches: the file is still one request
    exporter.export(spans[half:])
    exporter.shutdown()
    spec = CoverageSpec.from_yaml(written["spec"])
    assert report(path, spec) == report(written["otlp"], spec)


_J = {"traceID": "1", "spanID": "2", "startTime": 1, "duration": 1}  # a Jaeger span
_Z = {"traceId": "1", "id": "2", "name": "x", "timestamp": 1}  # a Zipkin span
# Issue 37: each wrong-typed field below was a TypeError or AttributeError traceback (exit 1),
# and ids with a `0x`, a sign or spaces read as other ids (`int(_, 16)` takes all three)
_WRONG_TYPES = [
    ({"data": [{"spans": [_J], "processes": [1]}]},
     "data[0].processes: expected an object, got list"),
    ({"data": [{"spans": 5}]}, "data[0].spans: expected a list, got int"),
    ({"data": [{"spans": [{**_J, "references": 3}]}]},
     "data[0].spans[0].references: expected a list, got int"),
    ({"data": [{"spans": [{**_J, "processID": "p"}], "processes": {"p": 7}}]},
     "data[0].spans[0].process: expected an object, got int"),
    ({"data": [{"spans": [{**_J, "process": {"tags": 3}}]}]},
     "data[0].spans[0].process.tags: expected a list, got int"),
    ({"data": [{"spans": [{**_J, "tags": {"a": 1}}]}]},
     "data[0].spans[0].tags: expected a list, got dict"),
    ({"data": [{"spans": [{**_J, "logs": 3}]}]}, "data[0].spans[0].logs: expected a list, got int"),
    ({"data": [{"spans": [{**_J, "logs": [{"fields": 3}]}]}]},
     "data[0].spans[0].logs.fields: expected a list, got int"),
    ([{**_Z, "localEndpoint": "svc"}], "[0].localEndpoint: expected an object, got str"),
    ([{**_Z, "annotations": 3}], "[0].annotations: expected a list, got int"),
]
_BAD_IDS = [
    ({"data": [{"spans": [{**_J, "traceID": "0x1"}]}]},
     "data[0].spans[0].traceID: expected a hex id of at most 32 digits, got '0x1'"),
    ([{**_Z, "id": "-2"}], "[0].id: expected a hex id of at most 16 digits, got '-2'"),
    ([{**_Z, "traceId": " 1 "}], "[0].traceId: expected a hex id of at most 32 digits, got ' 1 '"),
    ([{**_Z, "id": "1_0"}], "[0].id: expected a hex id of at most 16 digits, got '1_0'"),
    ([{**_Z, "id": "1" * 17}],
     "[0].id: expected a hex id of at most 16 digits, got '11111111111111111'"),
]


@pytest.mark.parametrize(("doc", "problem"), [
    ({"data": [{"traceID": "1", "spans": [{"traceID": "zz", "spanID": "2"}]}]},
     "data[0].spans[0].traceID: expected a hex id of at most 32 digits, got 'zz'"),
    ([{"traceId": "1", "id": "2", "name": "x", "timestamp": "q"}],
     "[0].timestamp: expected microseconds (a whole number), got 'q'"),
    ({"batches": [{"resource": {}, "scopeSpans": "x"}]},
     "resourceSpans[0].scopeSpans: expected a list, got str"),
    *_WRONG_TYPES, *_BAD_IDS,
], ids=["jaeger", "zipkin", "tempo", *(f"type{i}" for i in range(len(_WRONG_TYPES))),
        *(f"id{i}" for i in range(len(_BAD_IDS)))])
def test_a_bad_foreign_file_is_one_line_naming_the_file_once(
        doc: Any, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file and line prefix was written twice (`f.json: line 1: f.json: line 1: …`)."""
    from otel_agentcov import cli

    path = tmp_path / "traces.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["coverage", str(path)]) == 2
    assert capsys.readouterr().err == f"agentcov: {path}: line 1: {problem}\n"
