"""Judged verdicts survive `kill -9` (issue 29, item 1): a real `agentcov serve` judges runs on
their captured output (content the journal never keeps), is killed before it compacts, and on
restart reports exactly the verdicts it acknowledged, not a re-judging without the content
(which said 0 violated / N unknown, and counted failed runs as passed)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - drives the real `agentcov serve` subprocess
from _trace_files import protobuf_bytes  # noqa: E402

LEAKING = 5  # runs whose output leaks an account id: a critical violation that fails the run
CLEAN = 2
SPEC = {"version": 1, "agents": [{"name": "support", "contracts": [{
    "name": "privacy", "fail_on": "high",
    "must_not": [{"behavior": "leaks_account_ids", "output": {"regex": "ACCT-[0-9]{8}"},
                  "severity": "critical"}],
}]}]}


def _send(port: int) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "support-app"}))
    provider.add_span_processor(SimpleSpanProcessor(
        OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")))
    tracer = provider.get_tracer("support")
    for i in range(LEAKING + CLEAN):
        text = f"Refunded account ACCT-1234567{i}." if i < LEAKING else "Refund sent."
        with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]),
        }):
            pass
    provider.shutdown()


def _verdicts(server: fleet.ServeProcess) -> dict[str, float]:
    labels = {"agent": "support", "behavior": "leaks_account_ids", "contract": "privacy",
              "severity": "critical"}
    metrics = server.scrape()
    out: dict[str, float] = {}
    for result in ("satisfied", "violated", "unknown"):
        key = json.dumps(dict(sorted({**labels, "result": result}.items())))
        out[result] = metrics.get(f"agentcov_contract_checks_total{key}", 0.0)
    out["runs"] = metrics['agentcov_runs_total{"agent": "support"}']
    out["passed"] = metrics['agentcov_runs_passed_total{"agent": "support"}']
    return out


def test_kill9_replay_restores_the_acknowledged_verdicts(tmp_path: Path) -> None:
    server, http, state = fleet.state_server(tmp_path, SPEC)
    server.start()
    try:
        _send(http)
        before = _verdicts(server)
        # judged live, with the output there: the expected numbers follow from the runs sent
        assert before == {"satisfied": CLEAN, "violated": LEAKING, "unknown": 0,
                          "runs": LEAKING + CLEAN, "passed": CLEAN}
        server.kill9()  # acknowledged, in the journal only (never compacted)
        assert Path(f"{state}.journal").stat().st_size > 16
        server.start()
        assert _verdicts(server) == before
        server.kill9()  # the replay compacted: the snapshot holds them too
        server.start()
        assert _verdicts(server) == before
    finally:
        server.stop()
    log = (tmp_path / "serve.stderr").read_bytes()
    assert b"ACCT-1234567" not in log and b"Traceback" not in log
    for path in tmp_path.glob("state.json*"):
        assert b"ACCT-1234567" not in path.read_bytes(), path.name


class _Killed(BaseException):
    """The process dying right here: nothing after it runs (not an Exception: no handler)."""


def test_a_crash_after_the_first_journal_frame_never_turns_violations_into_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: the steps were journaled in one frame and their verdicts in the next, so a
    kill -9 between the two left steps that a restart judged again without their content:
    3 leaking runs came back as 3 passed. The crash is made deterministic: the first frame
    of the request reaches the file, then the process "dies" (its lock and journal
    descriptors closed, as the kernel would), and a new store recovers the file."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from otel_agentcov import CoverageSpec
    from otel_agentcov.service import journal
    from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-app"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    for i in range(3):
        with provider.get_tracer("support").start_as_current_span(
                "invoke_agent support", attributes={
                    "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                        {"type": "text", "content": f"Refunded account ACCT-7654321{i}."}]}])}):
            pass
    payload = protobuf_bytes(memory.get_finished_spans())
    spec = CoverageSpec.from_dict(SPEC, source="<test>")
    state = str(tmp_path / "state.json")
    store = CoverageStore(spec, state)
    store.open()
    real_append = journal.Journal.append

    def append_then_die(self: journal.Journal, body: bytes) -> int:
        real_append(self, body)
        raise _Killed

    monkeypatch.setattr(journal.Journal, "append", append_then_die)
    with pytest.raises(_Killed):
        store.submit(decode_records(PROTOBUF, payload, "test"))
    monkeypatch.undo()
    assert store._journal is not None and store._lock_fd is not None
    store._journal.close()
    os.close(store._lock_fd)  # the kernel drops a dead process's flock

    restarted = CoverageStore(spec, state)
    restarted.open()
    runs = restarted.snapshot().agents["support"]["runs"]
    restarted.close()
    # the frame on disk is the whole judged request: its 3 runs, none passed
    assert (runs["count"], runs["passed"]) == (3, 0), runs
