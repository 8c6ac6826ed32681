"""`agentcov serve` bounds the work and memory of requests, not only their bytes (issue 14,
items 5 and 15): a real subprocess on real sockets is sent a decompression-amplification bomb
(a few KiB of gzip that is millions of empty spans), a span with a flood of attributes, a JSON
bomb, bodies past the in-flight memory budget, slow bodies, and HTTP framing tricks. Each gets
its status, the process's peak RSS stays near its baseline, and a good export still succeeds.
"""

from __future__ import annotations

import gzip
import http.client
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import yaml
from _support import free_port, poll
from _trace_files import demo_spans, ld, protobuf_bytes

from otel_agentcov.demo import DEMO_SPEC

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - the fleet proof's ServeProcess drives this test's server too

EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
TOKEN = "bounds-test-token"
MAX_SPANS, MAX_ATTRIBUTES = 5_000, 50_000
INFLIGHT = 8 << 20
PROTO = {"Content-Type": "application/x-protobuf", "Authorization": f"Bearer {TOKEN}"}
HEAD = (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
        b"Authorization: Bearer " + TOKEN.encode() + b"\r\n")  # Content-Length to follow


def empty_spans(n: int) -> bytes:
    """An ExportTraceServiceRequest of `n` empty spans: 2 bytes each on the wire."""
    return ld(1, ld(2, ld(2, b"") * n))


def one_span_with_attributes(n: int) -> bytes:
    kv = ld(1, b"k")  # KeyValue{key: "k"}, no value
    return ld(1, ld(2, ld(2, ld(9, kv) * n)))


class Server(fleet.ServeProcess):
    def __init__(self, workdir: Path) -> None:
        spec = workdir / "agentcov.yaml"
        spec.write_text(yaml.safe_dump(DEMO_SPEC))
        (workdir / "token").write_text(TOKEN)
        self.grpc, self.http, metrics = free_port(), free_port(), free_port()
        super().__init__([
            "--spec", str(spec), "--otlp-grpc", str(self.grpc), "--otlp-http", str(self.http),
            "--metrics", str(metrics), "--token-file", str(workdir / "token"),
            "--max-concurrent", "2", "--request-timeout", "20",
            "--max-spans-per-request", str(MAX_SPANS),
            "--max-attributes-per-request", str(MAX_ATTRIBUTES),
            "--max-inflight-bytes", str(INFLIGHT),
        ], metrics, stderr=workdir / "serve.stderr")  # fmt: skip
        self.good = protobuf_bytes(list(demo_spans(runs=2, seed=5)))

    def peak_rss_kib(self) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise AssertionError("no VmHWM")

    def post(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.http, timeout=30)
        try:
            conn.request("POST", "/v1/traces", body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def wait_inflight(self, n: int) -> None:
        """Until the server holds `n` bytes of request bodies (its own gauge says so)."""
        assert poll(lambda: self.scrape()["agentcov_receiver_inflight_bytes{}"] >= n, 30)

    def still_serving(self) -> None:
        assert self.proc is not None and self.proc.poll() is None, "agentcov serve died"
        status, body = self.post(self.good, PROTO)
        assert status == 200, body


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("bounds"))
    srv.start()
    srv.still_serving()
    yield srv
    srv.stop()
    assert "Traceback" not in (srv.stderr.read_text() if srv.stderr else "")


def test_amplification_bomb_is_413_on_both_transports_and_memory_stays_flat(
    server: Server,
) -> None:
    payload = empty_spans(3_000_000)  # 6 MB of spans, under every byte limit
    bomb = gzip.compress(payload, 9)
    assert len(bomb) < 16 << 10  # what the client pays
    baseline = server.peak_rss_kib()
    status, body = server.post(bomb, PROTO | {"Content-Encoding": "gzip"})
    assert status == 413, body
    assert f"more than {MAX_SPANS} spans".encode() in body
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc}") as channel:
        with pytest.raises(grpc.RpcError) as err:
            channel.unary_unary(EXPORT)(payload, timeout=60,
                                        compression=grpc.Compression.Gzip,
                                        metadata=[("authorization", f"Bearer {TOKEN}")])
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    attrs = one_span_with_attributes(1_000_000)
    status, body = server.post(gzip.compress(attrs), PROTO | {"Content-Encoding": "gzip"})
    assert status == 413 and f"more than {MAX_ATTRIBUTES} attributes".encode() in body
    json_bomb = b'{"resourceSpans":[' + b",".join([b"{}"] * 1_000_000) + b"]}"
    status, body = server.post(gzip.compress(json_bomb), {
        "Content-Type": "application/json", "Content-Encoding": "gzip",
        "Authorization": f"Bearer {TOKEN}"})
    assert status == 413, body
    # decoded, 3 M spans would have been ~1 GB (upb ~175 B + a Python record each)
    grown_mib = (server.peak_rss_kib() - baseline) / 1024
    assert grown_mib < 64, grown_mib
    server.still_serving()
    within = empty_spans(MAX_SPANS)  # exactly the cap is allowed (invalid ids: dropped)
    status, _ = server.post(within, PROTO)
    assert status == 200


def test_a_group_field_does_not_switch_the_caps_off(server: Server) -> None:
    """Issue 37: the caps were counted by a walk of their own that stopped at a group-typed
    field, which the decoder skips and decodes on past: 4 bytes in front of the spans took a
    request from 413 to 200 (and `serve` to GBs). The decoder now counts what it decodes."""
    group = b"\x7b\x08\x01\x7c"  # field 15 as a group holding a varint: an unknown field
    payload = ld(1, ld(2, group + ld(2, b"") * 300_000))
    baseline = server.peak_rss_kib()
    status, body = server.post(gzip.compress(payload, 9), PROTO | {"Content-Encoding": "gzip"})
    assert status == 413, body
    assert f"more than {MAX_SPANS} spans".encode() in body
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc}") as channel:
        with pytest.raises(grpc.RpcError) as err:
            channel.unary_unary(EXPORT)(payload, timeout=60,
                                        metadata=[("authorization", f"Bearer {TOKEN}")])
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    attrs = ld(1, ld(2, ld(2, group + ld(9, ld(1, b"k")) * 100_000)))
    status, body = server.post(attrs, PROTO)
    assert status == 413 and f"more than {MAX_ATTRIBUTES} attributes".encode() in body
    assert (server.peak_rss_kib() - baseline) / 1024 < 64
    status, _ = server.post(ld(1, ld(2, group + ld(2, b"") * MAX_SPANS)), PROTO)
    assert status == 200  # exactly the cap, group and all
    server.still_serving()


def test_bodies_past_the_inflight_budget_are_refused(server: Server) -> None:
    # alone larger than the whole budget: never servable, so final (413), body left unread
    reply = _raw(server.http, HEAD + f"Content-Length: {INFLIGHT + 1}\r\n\r\n".encode())
    assert reply.startswith(b"HTTP/1.1 413"), reply[:80]
    # inflating past what the whole budget could hold: final too (not a 503 forever)
    status, _ = server.post(gzip.compress(empty_spans(INFLIGHT // 2 + 1)),
                            PROTO | {"Content-Encoding": "gzip"})
    assert status == 413
    # inflating past what the budget has left while another body holds most of it: 503
    holder = socket.create_connection(("127.0.0.1", server.http), timeout=10)
    try:
        held = INFLIGHT - (1 << 20)
        holder.sendall(HEAD + f"Content-Length: {held}\r\n\r\n".encode() + b"\0" * 100)
        server.wait_inflight(held)
        inflates = gzip.compress(empty_spans(1_000_000))  # 2 MB inflated > 1 MiB left
        status, body = server.post(inflates, PROTO | {"Content-Encoding": "gzip"})
        assert status == 503, body
    finally:
        holder.close()
    server.still_serving()


def _slow_body(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(HEAD + b"Content-Length: 1000\r\n\r\n" + b"\0" * 10)
    return sock


def test_slow_bodies_do_not_hold_admission_slots(server: Server) -> None:
    """--max-concurrent is 2: two clients dribbling their bodies once took both slots, and
    every other request got 503 until their deadline."""
    slow = [_slow_body(server.http) for _ in range(4)]
    try:
        server.wait_inflight(4 * 1000)  # all four are reading their bodies
        server.still_serving()
    finally:
        for sock in slow:
            sock.close()


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
        return got


def test_http_framing_tricks_get_their_status(server: Server) -> None:
    # non-ASCII digits: "\xb2" is "²" in the Latin-1 that headers are read as, a digit to
    # str.isdigit() that int() refuses; "\u0663" (Arabic-Indic three) int() would take
    for digit in (b"\xb2", "\u0663".encode()):
        reply = _raw(server.http, HEAD + b"Content-Length: " + digit + b"\r\n\r\nabc")
        assert reply.startswith(b"HTTP/1.1 400"), (digit, reply[:80])
    # Content-Length together with Transfer-Encoding: a request smuggling vector, refused
    body = server.good
    reply = _raw(server.http, HEAD + f"Content-Length: {len(body)}\r\n".encode()
                 + b"Transfer-Encoding: chunked\r\n\r\n" + body)
    assert reply.startswith(b"HTTP/1.1 400"), reply[:80]
    # the bearer scheme is case-insensitive (RFC 7235); the token itself is not
    for scheme in ("bearer", "BEARER", "Bearer"):
        status, _ = server.post(body, {"Content-Type": "application/x-protobuf",
                                       "Authorization": f"{scheme} {TOKEN}"})
        assert status == 200, scheme
    status, _ = server.post(body, {"Content-Type": "application/x-protobuf",
                                   "Authorization": f"Bearer {TOKEN.upper()}"})
    assert status == 401
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc}") as channel:
        channel.unary_unary(EXPORT)(body, timeout=30,
                                    metadata=[("authorization", f"bearer {TOKEN}")])


def test_metrics_token_protects_metrics_but_not_healthz(tmp_path: Path) -> None:
    from otel_agentcov import CoverageSpec
    from otel_agentcov.service import ServeConfig, Service

    port = free_port()
    service = Service(ServeConfig(spec=CoverageSpec.from_dict(DEMO_SPEC, source="<demo>"),
                                  otlp_grpc=0, otlp_http=0, metrics=port,
                                  metrics_token="scrape-secret"))
    service.start()
    try:
        def get(path: str, auth: str | None) -> tuple[int, dict[str, str], bytes]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                conn.request("GET", path, headers={"Authorization": auth} if auth else {})
                resp = conn.getresponse()
                return resp.status, dict(resp.getheaders()), resp.read()
            finally:
                conn.close()

        for auth in (None, "Bearer wrong", "Basic scrape-secret", "scrape-secret"):
            status, headers, body = get("/metrics", auth)
            assert status == 401 and headers["WWW-Authenticate"] == "Bearer", auth
            assert b"agentcov_" not in body
        for auth in ("Bearer scrape-secret", "bearer scrape-secret"):
            status, _, body = get("/metrics", auth)
            assert status == 200 and b"agentcov_spans_processed_total" in body
        assert get("/healthz", None)[0] == 200
    finally:
        service.stop()


def test_error_types_and_finish_reasons_are_clipped_to_256_chars() -> None:
    from otel_agentcov.records import STATUS_ERROR, SpanRecord
    from otel_agentcov.semconv import classify

    long = "E" * 100_000
    for attributes in (
        {"gen_ai.operation.name": "chat", "error.type": long,
         "gen_ai.response.finish_reasons": (long,)},
        {"gen_ai.operation.name": "chat", "error.type": f"pkg.{long}",
         "gen_ai.response.finish_reasons": long},
    ):
        step = classify(SpanRecord(1, 2, None, "chat", start_ns=1, end_ns=2,
                                   status_code=STATUS_ERROR, attributes=attributes))
        assert step.error == "E" * 256
        assert step.finish_reason == "E" * 256
    events = (("exception", {"exception.type": f"<class 'x.{long}'>"}),)
    step = classify(SpanRecord(1, 2, None, "chat", start_ns=1, end_ns=2, status_code=STATUS_ERROR,
                               attributes={"gen_ai.operation.name": "chat"}, events=events))
    assert step.error is not None and len(step.error) == 256
