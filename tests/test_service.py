"""`agentcov serve` receivers: real OTel SDK exporters in, spec-correct OTLP errors out."""

from __future__ import annotations

import gzip
import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from _support import free_port, start_service
from _trace_files import demo_spans, protobuf_bytes
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.demo import DEMO_SPEC, run_workload
from otel_agentcov.service import ServeConfig, Service
from otel_agentcov.service.intake import RequestLimits

SPEC = CoverageSpec.from_dict(DEMO_SPEC, source="<demo>")
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def start(tmp_path: Path, **kw: Any) -> Service:
    """A service on free ports (`_support.start_service`)."""
    service: Service = start_service(kw.pop("spec", SPEC), **kw)
    return service


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[Service]:
    svc = start(tmp_path, limits=RequestLimits(max_body_bytes=64 << 10,
                                               max_decompressed_bytes=256 << 10,
                                               request_timeout_s=0.5))
    yield svc
    svc.stop()


def post(svc: Service, body: bytes, headers: dict[str, str], path: str = "/v1/traces",
         method: str = "POST") -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", svc.config.otlp_http, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def without_trace_ids(state: dict[str, Any]) -> dict[str, Any]:
    """The SDK draws random trace ids, so two runs of the same workload differ only there."""
    for agent in state["agents"].values():
        agent["tool_sets"] = [[end, 0, tools] for end, _, tools in agent["tool_sets"]]
        agent["path_first"] = {
            path: [end, 0] for path, (end, _) in agent["path_first"].items()
        }
        agent["restricted_traces"] = {
            tool: [[end, 0] for end, _ in attempts]
            for tool, attempts in agent["restricted_traces"].items()
        }
    return state


def reference_state(runs: int = 20) -> dict[str, Any]:
    """What the in-process processor computes over the same workload."""
    provider = TracerProvider()
    processor = AgentCoverageProcessor(SPEC)
    provider.add_span_processor(processor)
    run_workload(provider, seed=3, runs=runs)
    processor.force_flush()
    state = without_trace_ids(processor.engine.state.to_dict())
    provider.shutdown()
    return state


def request_bytes(runs: int = 3) -> bytes:
    """An ExportTraceServiceRequest of real SDK spans, encoded by the OTLP exporter's encoder."""
    return protobuf_bytes(demo_spans(runs=runs, seed=3))


@pytest.mark.parametrize("transport", ["http", "http-gzip", "grpc"])
def test_sdk_exporters_give_the_in_process_state(service: Service, transport: str) -> None:
    if transport == "grpc":
        exporter: Any = GrpcExporter(endpoint=f"127.0.0.1:{service.config.otlp_grpc}",
                                     insecure=True)
    else:
        exporter = HttpExporter(
            endpoint=f"http://127.0.0.1:{service.config.otlp_http}/v1/traces",
            compression=Compression.Gzip if transport == "http-gzip" else Compression.NoCompression,
        )
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    run_workload(provider, seed=3, runs=20)
    provider.shutdown()
    assert without_trace_ids(service.store.engine.state.to_dict()) == reference_state()
    assert service.intake.requests[transport[:4], "accepted"] > 0


def test_json_partial_success_names_the_rejected_spans(service: Service) -> None:
    good = {"traceId": "0" * 31 + "1", "spanId": "0" * 15 + "1", "name": "chat",
            "startTimeUnixNano": "1", "endTimeUnixNano": "2"}
    no_ids = dict(good, traceId="", spanId="")
    backwards = dict(good, spanId="0" * 15 + "2", startTimeUnixNano="5", endTimeUnixNano="4")
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [good, no_ids, backwards]}]}]}
    status, headers, body = post(service, json.dumps(doc).encode(),
                                 {"Content-Type": "application/json"})
    assert status == 200 and headers["Content-Type"] == "application/json"
    partial = json.loads(body)["partialSuccess"]
    assert partial["rejectedSpans"] == "2"
    assert "end_before_start" in partial["errorMessage"]
    assert "invalid_ids" in partial["errorMessage"]
    assert service.intake.spans["http", "rejected"] == 2


def test_protobuf_response_is_an_export_response(service: Service) -> None:
    status, headers, body = post(service, request_bytes(),
                                 {"Content-Type": "application/x-protobuf"})
    assert status == 200 and headers["Content-Type"] == "application/x-protobuf"
    response = ExportTraceServiceResponse.FromString(body)
    assert response.partial_success.rejected_spans == 0


@pytest.mark.parametrize(
    ("body", "headers", "status", "reason"),
    [
        (b"\xff\xff\xff", {"Content-Type": "application/x-protobuf"}, 400, "malformed"),
        (b"{not json", {"Content-Type": "application/json"}, 400, "malformed"),
        (b"[]", {"Content-Type": "application/json"}, 400, "malformed"),  # {} is an empty request
        (b"x", {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        (b"x", {"Content-Type": "application/json", "Content-Encoding": "br"}, 415,
         "unsupported_media_type"),
        (b"x" * (65 << 10), {"Content-Type": "application/x-protobuf"}, 413, "too_large"),
        # 1 KiB on the wire, 1 MiB inflated: a small bomb (no timestamp: xdist workers must
        # collect the same test ids)
        (gzip.compress(b"\0" * (1 << 20), mtime=0),
         {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}, 413,
         "too_large"),
        (gzip.compress(b"abc", mtime=0)[:-4],
         {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}, 400,
         "malformed"),
    ],
)
def test_bad_requests_get_the_otlp_status(
    service: Service, body: bytes, headers: dict[str, str], status: int, reason: str
) -> None:
    got, resp_headers, resp_body = post(service, body, headers)
    assert got == status
    if resp_headers["Content-Type"] == "application/x-protobuf":
        assert Status.FromString(resp_body).message
    assert service.intake.requests["http", reason] == 1
    # the server keeps serving after every refusal
    assert post(service, request_bytes(1), {"Content-Type": "application/x-protobuf"})[0] == 200


def test_wrong_method_and_path(service: Service) -> None:
    status, headers, _ = post(service, b"", {}, method="GET")
    assert status == 405 and headers["Allow"] == "POST"
    assert post(service, b"", {}, method="PUT")[0] == 405
    assert post(service, b"{}", {"Content-Type": "application/json"}, path="/v1/metrics")[0] == 404
    assert post(service, b"", {}, path="/metrics", method="GET")[0] == 404  # separate port


def test_slow_client_gets_408_and_the_server_stays_up(service: Service) -> None:
    with socket.create_connection(("127.0.0.1", service.config.otlp_http), timeout=10) as sock:
        sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{")
        reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 408")
    assert service.intake.requests["http", "timeout"] == 1
    assert post(service, request_bytes(1), {"Content-Type": "application/x-protobuf"})[0] == 200


def test_overload_is_retryable_on_both_transports(service: Service) -> None:
    held = [service.intake.admitted() for _ in range(service.config.limits.max_concurrent)]
    for slot in held:
        slot.__enter__()
    try:
        status, headers, _ = post(service, request_bytes(1),
                                  {"Content-Type": "application/x-protobuf"})
        assert status == 503 and headers["Retry-After"] == "1"
        with grpc.insecure_channel(f"127.0.0.1:{service.config.otlp_grpc}") as channel:
            export = channel.unary_unary(EXPORT)
            with pytest.raises(grpc.RpcError) as err:
                export(request_bytes(1), timeout=10)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    assert post(service, request_bytes(1), {"Content-Type": "application/x-protobuf"})[0] == 200


def test_grpc_malformed_and_too_large(service: Service) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{service.config.otlp_grpc}") as channel:
        export = channel.unary_unary(EXPORT)
        with pytest.raises(grpc.RpcError) as err:
            export(b"\xff\xff\xff", timeout=10)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as err:
            export(ExportTraceServiceRequest().SerializeToString() + b"\x0a\x00" * (200 << 10),
                   timeout=10)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        ok = ExportTraceServiceResponse.FromString(export(request_bytes(1), timeout=10))
        assert ok.partial_success.rejected_spans == 0


def test_bearer_token_on_both_transports(tmp_path: Path) -> None:
    svc = start(tmp_path, token="s3cret")
    try:
        body = request_bytes(1)
        ctype = {"Content-Type": "application/x-protobuf"}
        status, headers, _ = post(svc, body, ctype)
        assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
        assert post(svc, body, ctype | {"Authorization": "Bearer wrong"})[0] == 401
        assert post(svc, body, ctype | {"Authorization": "Bearer s3cret"})[0] == 200
        with grpc.insecure_channel(f"127.0.0.1:{svc.config.otlp_grpc}") as channel:
            export = channel.unary_unary(EXPORT)
            with pytest.raises(grpc.RpcError) as err:
                export(body, timeout=10)
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
            export(body, timeout=10, metadata=[("authorization", "Bearer s3cret")])
        exporter = GrpcExporter(endpoint=f"127.0.0.1:{svc.config.otlp_grpc}", insecure=True,
                                headers={"authorization": "Bearer s3cret"})
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        run_workload(provider, seed=3, runs=1)
        provider.shutdown()
        assert svc.intake.requests["grpc", "accepted"] > 1
    finally:
        svc.stop()


def test_metrics_and_healthz_from_the_same_process(service: Service) -> None:
    post(service, request_bytes(2), {"Content-Type": "application/x-protobuf"})
    conn = http.client.HTTPConnection("127.0.0.1", service.config.metrics, timeout=10)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.request("GET", "/healthz")
    health = conn.getresponse()
    assert health.status == 200 and health.read() == b"ok\n"
    conn.close()
    assert 'agentcov_receiver_requests_total{outcome="accepted",transport="http"} 1.0' in text
    assert "agentcov_coverage_ratio{" in text
    assert 'agentcov_state_recoveries_total{reason="journal_torn_tail"} 0.0' in text


def test_one_port_for_otlp_and_metrics(tmp_path: Path) -> None:
    port = free_port()
    svc = Service(ServeConfig(spec=SPEC, otlp_grpc=0, otlp_http=port, metrics=port))
    svc.start()
    try:
        assert post(svc, request_bytes(1), {"Content-Type": "application/x-protobuf"})[0] == 200
        status, _, body = post(svc, b"", {}, path="/metrics", method="GET")
        assert status == 200 and b"agentcov_runs_total" in body
    finally:
        svc.stop()


def test_serve_with_every_listener_off_is_a_configuration_error(tmp_path: Path) -> None:
    """With --otlp-grpc, --otlp-http and --metrics all 0 it once started listening on nothing
    and ran until killed; now it is one line, exit 2."""
    import subprocess
    import sys

    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "serve", "--spec", str(spec),
         "--otlp-grpc", "0", "--otlp-http", "0", "--metrics", "0"],
        capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2
    assert proc.stderr == ("agentcov: --otlp-grpc, --otlp-http and --metrics are all 0: "
                           "nothing to listen on\n")
