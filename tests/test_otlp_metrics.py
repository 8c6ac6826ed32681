"""OpenTelemetry metrics export of a Snapshot over real OTLP/HTTP.

The OpenTelemetry Collector binary cannot run here (no usable build offline), so the receiver is a
stand-in: a stdlib `http.server` on 127.0.0.1 that parses the protobuf `ExportMetricsServiceRequest`
the real `OTLPMetricExporter` posts to `/v1/metrics`. The data points must equal the snapshot.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import demo
from otel_agentcov.exporters.otlp_metrics import install_otlp_metrics
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

Points = dict[tuple[str, tuple[tuple[str, str], ...]], float]


class _Receiver(ThreadingHTTPServer):
    requests: list[ExportMetricsServiceRequest]


class _Handler(BaseHTTPRequestHandler):
    server: _Receiver

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/metrics":
            req = ExportMetricsServiceRequest()
            req.ParseFromString(body)
            self.server.requests.append(req)
        payload = ExportMetricsServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[_Receiver]:
    server = _Receiver(("127.0.0.1", 0), _Handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def _points(requests: list[ExportMetricsServiceRequest]) -> tuple[Points, dict[str, Any]]:
    """Latest value per (metric, attributes), and each metric's proto for type checks."""
    points: Points = {}
    metrics: dict[str, Any] = {}
    for req in requests:
        for rm in req.resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    metrics[m.name] = m
                    data = m.gauge if m.HasField("gauge") else m.sum
                    for dp in data.data_points:
                        attrs = tuple(sorted((a.key, a.value.string_value) for a in dp.attributes))
                        value = dp.as_double if dp.HasField("as_double") else dp.as_int
                        points[(m.name, attrs)] = value
    return points, metrics


def test_otlp_http_export_equals_snapshot(receiver: _Receiver) -> None:
    tracer_provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(demo.DEMO_SPEC, source="<demo>"))
    tracer_provider.add_span_processor(processor)
    demo.run_workload(tracer_provider)
    tracer_provider.force_flush()

    port = receiver.server_address[1]
    exporter = OTLPMetricExporter(endpoint=f"http://127.0.0.1:{port}/v1/metrics")
    reader = PeriodicExportingMetricReader(exporter, export_interval_millis=3_600_000)
    meter_provider = MeterProvider(metric_readers=[reader])
    try:
        install_otlp_metrics(processor, meter_provider)
        assert meter_provider.force_flush(timeout_millis=10_000)
    finally:
        meter_provider.shutdown()
        tracer_provider.shutdown()

    assert receiver.requests, "no OTLP export received"
    points, metrics = _points(receiver.requests)
    report = processor.snapshot().to_dict()
    triage = report["agents"]["triage_agent"]

    restricted = metrics["agentcov.restricted_tool.attempts"]
    assert restricted.HasField("sum") and restricted.sum.is_monotonic
    delete_repo = [r for r in triage["edges"]["restricted"] if r["tool"] == "delete_repo"]
    assert delete_repo
    for r in delete_repo:
        attrs = (("agent", "triage_agent"), ("outcome", r["outcome"]), ("tool", "delete_repo"))
        assert points[("agentcov.restricted_tool.attempts", attrs)] == r["count"]

    assert metrics["agentcov.coverage.ratio"].unit == "1"
    for dim in ("tool", "path", "boundary"):
        attrs = (("agent", "triage_agent"), ("dimension", dim))
        assert points[("agentcov.coverage.ratio", attrs)] == pytest.approx(triage["coverage"][dim])
    overall = points[("agentcov.coverage.overall", (("agent", "triage_agent"),))]
    assert overall == pytest.approx(triage["coverage"]["overall"])

    for agent, rep in report["agents"].items():
        key = (("agent", agent),)
        assert points[("agentcov.runs", key)] == rep["runs"]["count"]
        assert points[("agentcov.gate.passed", key)] == rep["edges"]["gate_passed"]
        for tool, c in rep["tools"]["called"].items():
            for outcome in ("ok", "error"):
                attrs = (("agent", agent), ("outcome", outcome), ("tool", tool))
                assert points[("agentcov.tool.calls", attrs)] == c[outcome]
    # the demo's `contract: {must_call: [search]}` is judged on every triage run
    (row,) = triage["contracts"]
    assert row["satisfied"] + row["violated"] == triage["runs"]["count"]
    for result in ("satisfied", "violated", "unknown"):
        attrs = (("agent", "triage_agent"), ("behavior", row["behavior"]),
                 ("contract", "must_call"), ("result", result), ("severity", "high"))
        assert points[("agentcov.contract.checks", attrs)] == row[result]


def test_one_snapshot_per_collection_cycle() -> None:
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from otel_agentcov.engine import CoverageEngine
    from otel_agentcov.snapshot.schema import Report

    class Counting:
        def __init__(self) -> None:
            self.engine = CoverageEngine()
            self.calls = 0

        def measures(self) -> Report:
            self.calls += 1
            return self.engine.measures()

    source = Counting()
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    try:
        install_otlp_metrics(source, provider)
        reader.get_metrics_data()
        assert source.calls == 1
        reader.get_metrics_data()
        assert source.calls == 2
    finally:
        provider.shutdown()
