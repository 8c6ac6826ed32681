"""Behaviour contracts end to end: real SDK spans through the processor, the offline gate, the
state file, every report format and /metrics; content read for the judge and kept nowhere.

The four runs of the refund scenario and their verdicts under the refund policy of docs/contracts.md
(worked out by hand):
  R1 verify, refund; "Sorry ..."         -> every behaviour satisfied, run passes
  R2 refund, refund; "... ACCT-12345678" -> verifies_identity (critical), one_refund (high),
                                            apologises (low), leaks_account_ids (critical)
                                            violated; exfiltration satisfied; run fails
  R3 search only                          -> `when` not shown: every behaviour not exercised,
                                            passes
  R4 verify, refund; no output captured   -> apologises, leaks_account_ids unknown; the rest
                                            satisfied; run passes
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _refund_policy import REFUND_POLICY
from _support import rendered_outputs
from _trace_files import json_text
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov.exporters.prometheus import render
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

CANARY = "CANARY-5b1e0d-never-kept"
SPEC: dict[str, Any] = {"version": 1, "agents": [{"name": "support", "contracts": [REFUND_POLICY]}]}
# (tool calls, final output or None, user input)
RUNS: list[tuple[list[str], str | None]] = [
    (["verify_customer", "issue_refund"], f"Sorry for the trouble, refund sent. {CANARY}"),
    (["issue_refund", "issue_refund"], f"Refunded account ACCT-12345678. {CANARY}"),
    (["search"], f"Here is what I found. {CANARY}"),
    (["verify_customer", "issue_refund"], None),
]


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def _run_agents(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("support-app")
    for calls, output in RUNS:
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
            "gen_ai.input.messages": _messages("user", f"refund me please {CANARY}"),
        }
        if output is not None:
            attrs["gen_ai.output.messages"] = _messages("assistant", output)
        with tracer.start_as_current_span("invoke_agent support", attributes=attrs):
            for tool in calls:
                with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.arguments": json.dumps({"note": CANARY, "amount": 20}),
                }):
                    pass


def _spans() -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-app"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _run_agents(provider)
    provider.shutdown()
    return list(exporter.get_finished_spans())


def _wilson(k: int, n: int) -> list[float]:
    """The Wilson score interval, written out here from its textbook formula."""
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [max(0.0, centre - half), min(1.0, centre + half)]


EXPECTED_ROWS = {  # behaviour -> (satisfied, violated, unknown, not exercised)
    "verifies_identity": (2, 1, 0, 1),
    "leaks_account_ids": (1, 1, 1, 1),
    "one_refund": (2, 1, 0, 1),
    "apologises": (1, 1, 1, 1),
    "exfiltration": (3, 0, 0, 1),
}
RESULTS = ("satisfied", "violated", "unknown", "not_exercised")


@pytest.fixture(scope="module")
def processed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[AgentCoverageProcessor, Path]]:
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC), flush_interval_s=3600.0)
    provider = TracerProvider(resource=Resource.create({"service.name": "support-app"}))
    provider.add_span_processor(processor)
    _run_agents(provider)
    assert processor.force_flush()
    state_file = tmp_path_factory.mktemp("state") / "state.json"
    processor.engine.state.save(state_file)
    yield processor, state_file
    provider.shutdown()


def test_processor_judges_every_run(processed: tuple[AgentCoverageProcessor, Path]) -> None:
    processor, _ = processed
    agent = processor.snapshot().to_dict()["agents"]["support"]
    rows = {r["behavior"]: r for r in agent["contracts"]}
    assert {b: tuple(r[k] for k in RESULTS) for b, r in rows.items()} == EXPECTED_ROWS
    assert agent["coverage"]["contracts"] == 1.0  # every behaviour decided in some run
    # violations first: the two critical ones, then high, then low; the clean one last
    assert [r["behavior"] for r in agent["contracts"]] == [
        "leaks_account_ids", "verifies_identity", "one_refund", "apologises", "exfiltration"
    ]
    assert rows["verifies_identity"]["kind"] == "must"
    assert rows["leaks_account_ids"]["kind"] == "must_not"
    assert rows["one_refund"]["severity"] == "high"  # the default
    assert rows["verifies_identity"]["violation_rate"] == pytest.approx(1 / 3)
    assert rows["verifies_identity"]["violation_rate_ci95"] == pytest.approx(_wilson(1, 3))
    assert rows["apologises"]["violation_rate"] == pytest.approx(1 / 2)  # unknown excluded
    assert rows["exfiltration"]["violation_rate"] == 0.0
    assert agent["runs"]["count"] == 4 and agent["runs"]["passed"] == 3  # only R2 fails
    expect = {e["target"]: e for e in agent["expect"]}
    # default gate, no expect: violations at or above fail_on (high), from EXPECTED_ROWS
    gating = sum(EXPECTED_ROWS[b][1] for b in ("verifies_identity", "leaks_account_ids",
                                                  "one_refund"))
    assert expect["contracts.violations_at_or_above_fail_on"]["value"] == gating
    assert not expect["contracts.violations_at_or_above_fail_on"]["passed"]


def test_canary_content_reaches_no_output(processed: tuple[AgentCoverageProcessor, Path],
                                          tmp_path: Path) -> None:
    """The canary was in the output, input and every tool argument the judge read."""
    processor, _ = processed
    outputs = rendered_outputs(processor, tmp_path)
    for where, text in outputs.items():
        assert "support" in text, where  # the names are there: the search sees real output
        assert CANARY not in text, f"captured content leaked into the {where}"
        assert CANARY.encode().hex() not in text, where
    assert "verifies_identity" in outputs["/metrics"]
    assert "verifies_identity" in outputs["state file"]


def test_metrics_series(processed: tuple[AgentCoverageProcessor, Path]) -> None:
    processor, _ = processed
    text = render(processor).decode("utf-8")
    head = ('agentcov_contract_checks_total{agent="support",behavior="verifies_identity",'
            'contract="refund_policy",result="%s",severity="critical"} %s')
    for result, n in zip(RESULTS, ("2.0", "1.0", "0.0", "1.0"), strict=True):
        assert head % (result, n) in text


def test_gate_over_trace_files(tmp_path: Path) -> None:
    traces = tmp_path / "traces.json"
    traces.write_text(json_text(_spans()), encoding="utf-8")
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "gate", "--spec", str(spec),
         "--traces", str(traces)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert "contracts.violations_at_or_above_fail_on" in out
    assert ("contract violated: support: refund_policy.verifies_identity (critical, must) "
            "in 1 run of 3 decided, rate 33% [6%, 79%]") in out
    assert "refund_policy.leaks_account_ids (critical, must not)" in out
    assert "refund_policy.exfiltration" not in out
    assert CANARY not in out + proc.stderr
    lo, hi = _wilson(1, 3)
    assert (round(lo * 100), round(hi * 100)) == (6, 79)  # the interval printed above


def test_service_store_judges_and_keeps_no_content(tmp_path: Path) -> None:
    """`agentcov serve`'s store: the same evaluator; neither its journal nor a trace still open
    when the state is snapshotted (its steps kept for the restart) keeps any content."""
    from _trace_files import protobuf_bytes

    from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records

    spans = _spans()
    roots = [s for s in spans if s.parent is None]
    open_trace = roots[1].context.trace_id  # R2: its root never arrives before the snapshot
    sent = [s for s in spans if s.context.trace_id != open_trace or s.parent is not None]
    state_file = tmp_path / "state.json"
    store = CoverageStore(CoverageSpec.from_dict(SPEC), str(state_file))
    store.open()
    store.submit(decode_records(PROTOBUF, protobuf_bytes(sent), "test"))
    journal = Path(f"{state_file}.journal").read_bytes()  # the request, as the journal keeps it
    assert b"issue_refund" in journal and CANARY.encode() not in journal
    store.compact()
    saved = state_file.read_text(encoding="utf-8")
    assert CANARY not in saved and CANARY.encode().hex() not in saved
    assert json.loads(saved)["serve"]["open_traces"]  # the open trace's steps are there
    rows = {r["behavior"]: tuple(r[k] for k in RESULTS)
            for r in store.snapshot().to_dict()["agents"]["support"]["contracts"]}
    # R1, R3 and R4 judged (R2 still open): by hand from the module docstring
    assert rows == {"verifies_identity": (2, 0, 0, 1), "one_refund": (2, 0, 0, 1),
                    "apologises": (1, 0, 1, 1), "exfiltration": (2, 0, 0, 1),
                    "leaks_account_ids": (1, 0, 1, 1)}
    store.close()


def test_content_lives_only_until_the_run_is_judged() -> None:
    """After every trace is judged, no captured content is reachable anywhere in the process:
    the steps and runs that held it are gone, only verdict counts remain."""
    import gc

    from otel_agentcov.assembler import RunContent
    from otel_agentcov.engine import CoverageEngine
    from otel_agentcov.records import from_readable_span
    from otel_agentcov.semconv.step import StepContent

    engine = CoverageEngine(CoverageSpec.from_dict(SPEC))
    records = [from_readable_span(s) for s in _spans()]
    for record in records[:-1]:  # every span but R4's root: R4's steps hold content still
        engine.ingest(record)

    def alive() -> int:
        gc.collect()
        return sum(isinstance(o, StepContent | RunContent) for o in gc.get_objects())

    assert alive() > 0  # the search below sees content while a run waits to be judged
    engine.ingest(records[-1])
    assert engine.assembler.traces_in_flight == 0
    assert alive() == 0
    assert engine.state.agents["support"].contracts.judged == 3
