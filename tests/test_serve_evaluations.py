"""`agentcov serve --evaluations-otlp-endpoint` (docs/evaluations.md): a real `agentcov serve`
judges runs sent over OTLP/HTTP and posts their evaluation events, OTLP/HTTP logs protobuf, to a
local receiver (a tiny http.server decoding `ExportLogsServiceRequest`), with its bearer token;
the receiver refuses the first request with 503, so the events arrive only through a retry.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support import free_port, need_collector, poll
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from otel_agentcov.evaluations import Encoder, Evaluation, EvaluationQueue, otlp_json
from otel_agentcov.service.evaluation_sender import EvaluationSender

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - drives the real `agentcov serve` subprocess

CANARY = "CANARY-serve-e31"
TOKEN = "evaluations-token-31"
SPEC = {"version": 1, "agents": [{
    "name": "support", "tool_edges": {"restricted": ["delete_account"]},
    "contracts": [{"name": "privacy", "fail_on": "high", "must_not": [
        {"behavior": "leaks_account_ids", "output": {"regex": "ACCT-[0-9]{8}"},
         "severity": "critical"}]}],
}]}


class _Receiver(BaseHTTPRequestHandler):
    """POST /v1/logs: the first request gets 503 (retryable), then each is decoded and kept."""

    requests: list[tuple[str | None, ExportLogsServiceRequest]] = []
    refused = 0

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        cls = type(self)
        if cls.refused == 0:
            cls.refused += 1
            self.send_response(503)
            self.end_headers()
            return
        assert self.path == "/v1/logs"
        assert self.headers["Content-Type"] == "application/x-protobuf"
        cls.requests.append((self.headers["Authorization"],
                             ExportLogsServiceRequest.FromString(body)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()
        self.wfile.write(b"")

    def log_message(self, *args: Any) -> None:
        pass


def _send(port: int, rounds: int = 1) -> dict[int, tuple[int, bool]]:
    """Three runs a round: one leaks an account id, one calls the restricted tool, one is
    clean; every output and argument carries the canary. Returns trace id -> (span id,
    expected to pass)."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(
        OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")))
    tracer = provider.get_tracer("support")
    sent = {}
    for text, tool in rounds * ((f"ACCT-12345678 {CANARY}", "lookup"),
                                (CANARY, "delete_account"), (CANARY, "lookup")):
        with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]),
        }) as span:
            with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.arguments": json.dumps({"q": CANARY})}):
                pass
            ctx = span.get_span_context()
        sent[ctx.trace_id] = (ctx.span_id, tool == "lookup" and "ACCT" not in text)
    provider.shutdown()
    return sent


def test_serve_posts_evaluation_events_over_otlp_http(tmp_path: Path) -> None:
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(yaml.safe_dump(SPEC))
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    http, metrics = free_port(), free_port()
    server = fleet.ServeProcess([
        "--spec", str(spec), "--otlp-grpc", "0", "--otlp-http", str(http),
        "--metrics", str(metrics), "--idle-ttl", "3600", "--data-file", str(tmp_path / "s.json"),
        "--evaluations-otlp-endpoint", f"http://127.0.0.1:{receiver.server_port}",
        "--evaluations-otlp-token-file", str(token),
    ], metrics, stderr=tmp_path / "serve.stderr")  # fmt: skip
    server.start()
    try:
        sent = _send(http)

        def received() -> list[Any] | None:
            records = [(auth, r) for auth, req in _Receiver.requests for rl in req.resource_logs
                       for sl in rl.scope_logs for r in sl.log_records]
            return records if len(records) >= 9 else None

        records = poll(received, 30)
        assert _Receiver.refused == 1  # the first attempt failed: these came by the retry
        got: dict[int, dict[str, str]] = {}
        for auth, r in records:
            assert auth == f"Bearer {TOKEN}"
            assert r.event_name == "gen_ai.evaluation.result"
            trace_id = int.from_bytes(r.trace_id, "big")
            assert int.from_bytes(r.span_id, "big") == sent[trace_id][0]
            attrs = {a.key: a.value for a in r.attributes}
            got.setdefault(trace_id, {})[attrs["gen_ai.evaluation.name"].string_value] = (
                attrs["gen_ai.evaluation.score.label"].string_value)
            assert CANARY not in str(r)
        assert {t: names["agentcov.run"] for t, names in got.items()} == {
            t: "pass" if passes else "fail" for t, (_, passes) in sent.items()}
        assert sorted(len(n) for n in got.values()) == [3, 3, 3]  # restricted, contract, run
        metrics_now = server.scrape()
        assert metrics_now['agentcov_evaluation_events_total{"outcome": "emitted"}'] == 9
        assert metrics_now['agentcov_evaluation_events_total{"outcome": "export_failed"}'] == 0
        # a restart replays the journal (kill -9: never compacted): those runs' events were sent
        # already, none is sent again
        server.kill9()
        server.start()
        assert server.scrape()['agentcov_runs_total{"agent": "support"}'] == 3
        server.stop()  # its sender's last send is done when it exits
        assert len(received() or ()) == 9
    finally:
        server.stop()
        receiver.shutdown()


class _Silent(BaseHTTPRequestHandler):
    """A logs sink that takes the request and never answers (until the test ends)."""

    release = threading.Event()
    holding = threading.Event()

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).holding.set()
        type(self).release.wait(120)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.slow
def test_sigterm_is_bounded_with_a_sink_that_never_answers(tmp_path: Path) -> None:
    """Issue 37: with a sink that holds every request, SIGTERM took 16 s: the sender was
    joined for up to 15 s while it sent batch after batch, each waiting out the exporter's
    10 s timeout. Now the sender gets what is left of the 5 s shutdown budget, then its
    exporter is shut down (OTel's shutdown: retries end) and serve exits. 60 rounds of 3 runs
    queue 540 events, more than one 512-record batch, while the first send is held."""
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Silent)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(yaml.safe_dump(SPEC))
    http, metrics = free_port(), free_port()
    server = fleet.ServeProcess([
        "--spec", str(spec), "--otlp-grpc", "0", "--otlp-http", str(http),
        "--metrics", str(metrics), "--idle-ttl", "3600",
        "--evaluations-otlp-endpoint", f"http://127.0.0.1:{sink.server_port}",
    ], metrics, stderr=tmp_path / "serve.stderr")  # fmt: skip
    server.start()
    try:
        _send(http, rounds=60)
        assert _Silent.holding.wait(30)  # the sender is inside its export now
        assert server.proc is not None
        started = time.monotonic()
        server.proc.terminate()
        assert server.proc.wait(timeout=60) == 0
        took = time.monotonic() - started
        print(f"SIGTERM to exit with a silent logs sink: {took:.1f} s")
        assert took < 12.0  # budget 5 s + the process's own exit on a loaded machine; was 16 s
    finally:
        _Silent.release.set()
        server.stop()
        sink.shutdown()


@pytest.mark.collector
def test_the_collector_takes_them_over_protobuf_and_json(tmp_path: Path) -> None:
    """The real Collector (`make collector`) receives the events `serve` posts (protobuf) and
    the lines `coverage --evaluations-out` writes (OTLP/JSON), and passes them on unchanged."""
    port = free_port()
    out = tmp_path / "logs.jsonl"
    config = tmp_path / "collector.yaml"
    config.write_text(yaml.safe_dump({
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{port}"}}}},
        "exporters": {"file": {"path": str(out)}},
        "service": {"telemetry": {"metrics": {"level": "none"}},
                    "pipelines": {"logs": {"receivers": ["otlp"], "exporters": ["file"]}}},
    }))
    collector = subprocess.Popen([need_collector(), "--config", str(config)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        sent = [Evaluation("agentcov.run", False, "failed: errored", "support", 0xABC123, 0xDEF,
                           10**18),
                Evaluation("agentcov.contract.c.b", True, "before satisfied", "support",
                           1 << 100, 1 << 60, 10**18, "high")]
        queue = EvaluationQueue()
        queue.put(sent[:1])
        sender = EvaluationSender(queue, f"http://127.0.0.1:{port}", interval_s=0.2)
        poll(lambda: urllib.request.urlopen(  # noqa: S310 - a local test URL
            urllib.request.Request(f"http://127.0.0.1:{port}/v1/logs", method="POST",
                                   data=b"{}", headers={"Content-Type": "application/json"}),
            timeout=5).status == 200, 30)
        sender.start()
        sender.stop(30)
        assert queue.counts()["emitted"] == 1
        line = otlp_json(Encoder().readable(sent[1:]))
        with urllib.request.urlopen(urllib.request.Request(  # noqa: S310
                f"http://127.0.0.1:{port}/v1/logs", data=line.encode(),
                headers={"Content-Type": "application/json"}), timeout=10) as resp:
            assert resp.status == 200

        def passed_on() -> list[tuple[str, str, str, str]] | None:
            got = [(r["eventName"], r["traceId"], r["spanId"], r["attributes"][0]["value"][
                "stringValue"]) for text in out.read_text().splitlines()
                for rl in json.loads(text)["resourceLogs"] for sl in rl["scopeLogs"]
                for r in sl["logRecords"]] if out.exists() else []
            return got if len(got) >= 2 else None

        assert sorted(poll(passed_on, 30)) == sorted(
            ("gen_ai.evaluation.result", f"{e.trace_id:032x}", f"{e.span_id:016x}", e.name)
            for e in sent)
    finally:
        collector.terminate()
        collector.wait(timeout=30)
