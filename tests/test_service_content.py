"""`agentcov serve` keeps no content on disk (issue 14, item 11): a canary string in every content
attribute, event and status message goes through a real SDK exporter into a real `agentcov serve`
subprocess with a state file. After a kill -9 (journal not yet folded), a damaged journal set
aside as `.corrupt-*`, a restart and a graceful stop, no file the service wrote, nor its log, nor
`/metrics`, contains the canary, while the coverage it gathered survived.
"""

from __future__ import annotations

import sys
from pathlib import Path

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from test_core_content import content_runs
from test_reliability_content import CANARY, CONTENT

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - the fleet proof's ServeProcess drives this test's server too


def _send(port: int) -> None:
    """Two finished runs and one whose root never ends, every span full of the canary."""
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    content_runs(provider)
    tracer = provider.get_tracer("content")
    root = tracer.start_span("invoke_agent planner", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner", **CONTENT})
    from opentelemetry.trace import set_span_in_context

    with tracer.start_as_current_span("chat gpt-4o", context=set_span_in_context(root),
                                      attributes={"gen_ai.operation.name": "chat", **CONTENT}):
        pass  # its root is never ended: the span stays buffered in an open trace
    provider.shutdown()


def test_no_file_serve_writes_holds_content(tmp_path: Path) -> None:
    server, http, state = fleet.state_server(
        tmp_path, {"version": 1, "agents": [{"name": "planner"}]})
    spec = tmp_path / "agentcov.yaml"
    server.start()
    try:
        _send(http)
        runs_before = server.scrape()['agentcov_runs_total{"agent": "planner"}']
        assert runs_before == 2
        server.kill9()  # the requests are in the journal only
        journal = Path(f"{state}.journal")
        assert journal.stat().st_size > 16
        server.start()  # replays the journal and folds it into the snapshot
        assert server.scrape()['agentcov_runs_total{"agent": "planner"}'] == runs_before
        _send(http)
        server.kill9()
        # damage the first record (header 16 bytes, frame 8): the journal is set aside whole
        data = bytearray(journal.read_bytes())
        data[16 + 8 + 20] ^= 0xFF
        journal.write_bytes(bytes(data))
        server.start()
        exposition = "\n".join(f"{k} {v}" for k, v in server.scrape().items())
        assert CANARY not in exposition
        server.stop()
    finally:
        server.stop()
    assert list(tmp_path.glob("state.json.journal.corrupt-*"))
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != spec]
    assert len(written) >= 4  # state, journal, the set-aside journal, the log
    for path in written:
        data = path.read_bytes()
        assert CANARY.encode() not in data, path.name
        assert b"Traceback" not in data, path.name
