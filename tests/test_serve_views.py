"""What a person sees of a running `agentcov serve`: the landing page, the live report in every
format (behind the OTLP token when one is set), the periodic log line, the hint when a port is
taken, and an empty OTLP request being accepted. Real service, real sockets, real SDK spans."""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
from collections.abc import Iterator, Sequence
from html import escape as html_escape
from typing import Any

import grpc
import pytest
from _support import free_port
from _trace_files import demo_spans, protobuf_bytes
from opentelemetry.sdk.trace import ReadableSpan

from otel_agentcov import CoverageSpec
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import from_readable_span
from otel_agentcov.reporting import render
from otel_agentcov.service import ServeConfig, Service

SPEC = CoverageSpec.from_dict(DEMO_SPEC, source="<demo>")
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
PROTOBUF = {"Content-Type": "application/x-protobuf"}


def start(**kw: Any) -> Service:
    service = Service(ServeConfig(spec=SPEC, otlp_grpc=free_port(), otlp_http=free_port(),
                                  metrics=free_port(), **kw))
    service.start()
    return service


@pytest.fixture()
def service() -> Iterator[Service]:
    svc = start()
    yield svc
    svc.stop()


def request(port: int, path: str, body: bytes | None = None, method: str = "GET",
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def reference_report(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The in-process engine's report of the same SDK spans, read without OTLP in between."""
    engine = CoverageEngine(SPEC)
    for span in spans:
        engine.ingest(from_readable_span(span))
    engine.flush_all()
    return engine.snapshot().to_dict()


def test_live_report_in_every_format(service: Service) -> None:
    spans = demo_spans(runs=12, seed=3)
    body = protobuf_bytes(spans)
    assert request(service.config.otlp_http, "/v1/traces", body, "POST", PROTOBUF)[0] == 200
    expected = reference_report(spans)
    for port in (service.config.otlp_http, service.config.metrics):  # both listeners serve it
        status, headers, body = request(port, "/report?format=json")
        assert status == 200 and headers["Content-Type"] == "application/json"
        live = json.loads(body)
        assert live["agents"] == expected["agents"]
        assert live["spans"]["processed"] == len(spans)
        assert request(port, "/report")[2] == body  # json is the default
        status, headers, body = request(port, "/report?format=markdown")
        assert status == 200 and headers["Content-Type"].startswith("text/markdown")
        assert body.decode() == render(live, "markdown", SPEC)  # matchers from serve's spec
        status, headers, _ = request(port, "/report?format=html")
        assert status == 303 and headers["Location"] == "/report/index.html"
        status, headers, index = request(port, "/report/index.html")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        # the header names the spec serve loaded (it said "spec none (defaults)")
        assert f"spec {html_escape(SPEC.source)} · inputs: live OTLP" in index.decode()
        pages = set(re.findall(r'href="(agent-[^"]+\.html)"', index.decode()))
        assert len(pages) == len(expected["agents"]) == 3
        for page in pages:
            status, _, html = request(port, f"/report/{page}")
            assert status == 200 and b"</html>" in html
        assert request(port, "/report/agent-nobody.html")[0] == 404
        status, _, body = request(port, "/report?format=pdf")
        assert status == 400 and b"expected one of text, json, markdown, html" in body


def test_report_needs_the_otlp_token_and_the_landing_page_lists_endpoints() -> None:
    svc = start(token="s3cret")
    try:
        for port in (svc.config.otlp_http, svc.config.metrics):
            status, headers, _ = request(port, "/report?format=json")
            assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
            assert request(port, "/report/index.html")[0] == 401
            wrong = {"Authorization": "Bearer nope"}
            assert request(port, "/report", headers=wrong)[0] == 401
            ok = {"Authorization": "Bearer s3cret"}
            assert request(port, "/report", headers=ok)[0] == 200
            assert request(port, "/")[0] == 401  # /healthz alone is open (test_serve_auth.py)
            status, headers, body = request(port, "/", headers=ok)
            assert status == 200 and headers["Content-Type"].startswith("text/html")
            page = body.decode()
            cfg = svc.config
            for endpoint in (f"http://127.0.0.1:{cfg.otlp_http}/v1/traces",
                             f"http://127.0.0.1:{cfg.metrics}/metrics",
                             f"127.0.0.1:{cfg.otlp_grpc}", "/healthz",
                             "/report?format=json", "/report?format=html"):
                assert endpoint in page, endpoint
            assert "bearer token required" in page
    finally:
        svc.stop()


def test_periodic_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    svc = start(summary_interval_s=0.2, sweep_interval_s=0.05)
    try:
        spans = demo_spans(runs=4, seed=3)
        request(svc.config.otlp_http, "/v1/traces", protobuf_bytes(spans), "POST", PROTOBUF)
        request(svc.config.otlp_http, "/v1/traces", b"junk", "POST", PROTOBUF)  # refused
        expected = reference_report(spans)["agents"]
        runs = sum(a["runs"]["count"] for a in expected.values())
        restricted = sum(a["edges"]["restricted_attempts"] for a in expected.values())
        want = (f"agentcov serve: {len(spans)} spans accepted, 0 rejected, 1 requests refused; "
                f"{runs} runs of {len(expected)} agents, {restricted} restricted attempts, "
                "0 traces in flight")
        seen = ""
        deadline = time.monotonic() + 30
        while want not in seen and time.monotonic() < deadline:  # polling for the next line
            time.sleep(0.1)
            seen += capsys.readouterr().err
        assert want in seen.splitlines(), seen[-500:]
    finally:
        svc.stop()


@pytest.mark.parametrize("flag", ["--otlp-http", "--otlp-grpc", "--metrics"])
def test_a_taken_port_names_the_flag_that_moves_it(flag: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ports = {"--otlp-http": "otlp_http", "--otlp-grpc": "otlp_grpc", "--metrics": "metrics"}
        config = {key: free_port() for key in ports.values()} | {ports[flag]: port}
        svc = Service(ServeConfig(spec=SPEC, **config))
        try:
            with pytest.raises(OSError) as err:
                svc.start()
        finally:
            svc.stop()
    assert str(err.value) == (f"cannot listen on 127.0.0.1:{port}: Address already in use; "
                              f"choose another port with {flag} PORT (0 disables it)")


def test_an_empty_otlp_request_is_accepted(service: Service) -> None:
    """Every field of ExportTraceServiceRequest is optional: nothing to export is not an error."""
    port = service.config.otlp_http
    json_type = {"Content-Type": "application/json"}
    for body, headers in ((b"", PROTOBUF), (b"", json_type), (b"{}", json_type),
                          (b'{"resourceSpans": []}', json_type)):
        status, _, reply = request(port, "/v1/traces", body, "POST", headers)
        assert status == 200, (body, headers, reply)
    with grpc.insecure_channel(f"127.0.0.1:{service.config.otlp_grpc}") as channel:
        assert channel.unary_unary(EXPORT)(b"", timeout=10) == b""
    assert service.intake.requests["http", "accepted"] == 4
    assert service.intake.requests["grpc", "accepted"] == 1
