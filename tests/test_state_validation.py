"""Malformed state and journal files (issue 14, item 10). Every variant that once crash-looped
`agentcov serve` with a traceback is set aside with one line and the service starts; `merge`
and `coverage --state` check every field, so a value `int()` would have coerced (or a bucket key
whose quantile overflows) is refused in one line instead of crashing a later report; merging
many agents past the cap keeps the overflow agent bounded.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support import free_port
from _trace_files import demo_spans, protobuf_bytes

from otel_agentcov import CoverageSpec
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.service.journal import MAGIC
from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records
from otel_agentcov.state import OVERFLOW, CoverageState, Limits, StateError
from otel_agentcov.state.outcomes import MERGED_TOOL_SETS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - the fleet proof's ServeProcess drives this test's server too

SPEC = CoverageSpec.from_dict(DEMO_SPEC, source="<demo>")


def _store_with_data(state: Path) -> dict[str, Any]:
    """A store that saw real spans, stopped cleanly; returns the snapshot document."""
    store = CoverageStore(SPEC, str(state))
    store.open()
    payload = protobuf_bytes(list(demo_spans(runs=3, seed=4)))
    store.submit(decode_records(PROTOBUF, payload, "test"))
    store.close()
    doc: dict[str, Any] = json.loads(state.read_text())
    assert doc["agents"]
    return doc


def _first_agent(doc: dict[str, Any]) -> dict[str, Any]:
    agent: dict[str, Any] = next(iter(doc["agents"].values()))
    return agent


SNAPSHOT_DAMAGE: dict[str, Callable[[dict[str, Any]], None]] = {
    "by_kind is a list": lambda d: d["serve"].__setitem__("by_kind", [1, 2]),
    "by_kind counts are strings": lambda d: d["serve"]["by_kind"].__setitem__("llm", "7"),
    "by_kind has an unknown kind": lambda d: d["serve"]["by_kind"].__setitem__("bogus", 1),
    "huge generation": lambda d: d["serve"].__setitem__("generation", 2**70),
    "negative drop count": lambda d: d["serve"]["dropped"].__setitem__("malformed", -1),
    "open trace of the wrong shape": lambda d: d["serve"].__setitem__("open_traces", [[1, 2]]),
    "bucket key that overflows": lambda d: _first_agent(d)["durations"]["buckets"].__setitem__(
        "99999999999", 1),
    "runs as a float": lambda d: _first_agent(d).__setitem__("runs", 3.5),
    "passed above runs": lambda d: _first_agent(d).__setitem__("passed", 10**6),
    "path key not hex": lambda d: _first_agent(d)["paths"].__setitem__("zz", 1),
    "tool counts of three": lambda d: _first_agent(d)["tools"].__setitem__("t", [1, 2, 3]),
}


@pytest.mark.parametrize("damage", sorted(SNAPSHOT_DAMAGE))
def test_malformed_snapshot_is_set_aside_and_the_store_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    state = tmp_path / "state.json"
    doc = _store_with_data(state)
    SNAPSHOT_DAMAGE[damage](doc)
    state.write_text(json.dumps(doc))
    capsys.readouterr()
    store = CoverageStore(SPEC, str(state))
    store.open()  # raised (KeyError, AttributeError, OverflowError ...) before
    assert store.recoveries == {"snapshot_unreadable": 1}
    assert store.snapshot().to_dict()["agents"] == {}
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "moved to" in lines[0] and str(state) in lines[0]
    assert len(list(tmp_path.glob("state.json.corrupt-*"))) == 1
    store.close()


def _frame(body: bytes) -> bytes:
    return struct.pack(">II", len(body), zlib.crc32(body)) + body


@pytest.mark.parametrize("record", [b"R", b"X" + bytes(8), b"R" + struct.pack(">d", 1.0) + b"{",
                                    b"R" + struct.pack(">d", 1.0) + b'{"dropped":{},"steps":[[1]]}',
                                    b"S" + struct.pack(">d", float("nan"))])
def test_crc_valid_but_malformed_journal_record_sets_the_journal_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: bytes
) -> None:
    state = tmp_path / "state.json"
    _store_with_data(state)
    journal = Path(f"{state}.journal")
    header = journal.read_bytes()[:16]
    assert header.startswith(MAGIC)
    journal.write_bytes(header + _frame(record) + _frame(record))
    capsys.readouterr()
    store = CoverageStore(SPEC, str(state))
    store.open()
    assert store.recoveries == {"journal_corrupt": 1}
    assert store.snapshot().to_dict()["agents"]  # the snapshot before it is kept
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "record 0 is malformed" in lines[0]
    store.close()


def test_serve_starts_on_a_crc_valid_one_byte_record_without_a_traceback(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    _store_with_data(state)
    journal = Path(f"{state}.journal")
    journal.write_bytes(journal.read_bytes()[:16] + _frame(b"R") + _frame(b"R"))
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(yaml.safe_dump(DEMO_SPEC))
    metrics = free_port()
    server = fleet.ServeProcess([
        "--spec", str(spec), "--otlp-grpc", "0", "--otlp-http", "0", "--metrics", str(metrics),
        "--data-file", str(state)], metrics, stderr=tmp_path / "serve.stderr")  # fmt: skip
    server.start()
    try:
        recovered = server.scrape()['agentcov_state_recoveries_total{"reason": "journal_corrupt"}']
        assert recovered == 1
    finally:
        server.stop()
    log = (tmp_path / "serve.stderr").read_text()
    assert "Traceback" not in log and "record 0 is malformed" in log


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "otel_agentcov.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_merge_and_coverage_refuse_a_state_a_report_would_crash_on(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    doc = _store_with_data(good)
    del doc["serve"]
    _first_agent(doc)["durations"]["buckets"]["99999999999"] = 1
    _first_agent(doc)["durations"]["count"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    for args in (("merge", str(good), str(bad), "-o", str(tmp_path / "out.json")),
                 ("coverage", "--state", str(bad))):
        proc = _cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and str(bad) in lines[0] and "99999999999" in lines[0], lines
    assert not (tmp_path / "out.json").exists()
    with pytest.raises(StateError, match="agents"):
        CoverageState.from_dict({**doc, "agents": {"a": {"runs": True}}})
    agent = _first_agent(doc)
    agent["durations"]["buckets"].pop("99999999999")
    agent["durations"]["count"] -= 1
    assert CoverageState.from_dict(doc).agents  # repaired: it loads
    for key, wrong in (("contexts", {"test_x": {"runs": "1", "passed": 0, "tools": {},
                                                "delegations": [], "restricted": {}}}),
                       ("restricted_traces", {"t": [[1.5, 2]]})):
        with pytest.raises(StateError, match=key):
            CoverageState.from_dict({**doc, "agents": {"a": {**agent, key: wrong}}})


def test_merging_many_agents_past_the_cap_keeps_the_overflow_agent_bounded() -> None:
    agents, sets_each = 400, 100
    other = CoverageState.from_dict({"format": "otel_agentcov.state", "version": 1,
                                     "agents": {}})
    empty = {"count": 0, "sum": 0.0, "zeros": 0, "buckets": {}}
    for a in range(agents):
        other.agents[f"agent-{a}"] = CoverageState.from_dict({
            "format": "otel_agentcov.state", "version": 1, "agents": {"x": {
                "runs": sets_each, "errors": 0, "passed": 0, "durations": empty,
                "tokens": empty, "scores": [0, 0.0, 0.0], "tools": {}, "models": {},
                "tool_definitions": [], "paths": {}, "path_tokens": {}, "states": {},
                "boundaries": {}, "delegations": [], "restricted": [],
                "tool_sets": [[a * sets_each + i, a, ["t"]] for i in range(sets_each)],
            }}}).agents["x"]
    merged = CoverageState(Limits(max_agents=10))
    merged.merge(other)
    overflow = merged.agents[OVERFLOW]
    assert overflow.outcomes.runs == (agents - 10) * sets_each
    # without a bound this list held every folded run (40 000 here, re-sorted per agent)
    assert len(overflow.outcomes.tool_sets) == min(MERGED_TOOL_SETS, (agents - 10) * sets_each)
    assert overflow.outcomes.tool_sets[-1][0] == agents * sets_each - 1  # the most recent kept


def test_step_rows_round_trip_and_refuse_wrong_types() -> None:
    from otel_agentcov.semconv.step import Step
    from otel_agentcov.service.steps import FIELDS, from_row, to_row

    full = Step(trace_id=2**127, span_id=2**63, parent_id=None, kind="llm", start_ns=1, end_ns=2,
                fallback_agent="svc", agent="a", tool="t", model="m", error="E", limit="timeout",
                finish_reason="stop", input_tokens=3, output_tokens=4, cost_usd=0.5, empty=True,
                handoff_from="x", handoff_to="y", handoff_tool=True, handoff_hint="h",
                graph_candidate=True, decision="deny", tool_definitions=("d",),
                requested_tools=("r",), input_chars=9, scores=(0.5, 1), state_extra=("s",))
    bare = Step(trace_id=1, span_id=2, parent_id=1, kind="tool", start_ns=1, end_ns=2,
                fallback_agent="svc")
    for step in (full, bare):
        row = json.loads(json.dumps(to_row(step)))
        assert from_row(row) == step
    assert len(to_row(bare)) == 7 < len(FIELDS)  # trailing defaults are left out
    good = json.loads(json.dumps(to_row(full)))
    for i, wrong in [(0, "1"), (0, True), (0, 2**130), (3, 5), (15, "0.5"), (16, 1),
                     (23, ["d", 1]), (26, [None])]:
        row = list(good)
        row[i] = wrong
        with pytest.raises(ValueError, match=FIELDS[i]):
            from_row(row)
    with pytest.raises(ValueError, match="kind"):
        from_row([1, 2, None, "bogus", 1, 2, "svc"])


def test_a_step_row_journaled_with_the_retired_joins_caller_reads_back() -> None:
    """Rows keep the place of `joins_caller` (retired when the core's root rule took it over):
    a row written before, with it set and the version after it, reads back as that step; a
    row written now holds False there."""
    from otel_agentcov.service.steps import FIELDS, from_row, to_row

    old = [1, 2, 3, "tool", 1, 2, "svc", None, "t", None, None, None, "", 0, 0, 0.0, False,
           None, None, False, None, False, None, [], [], None, [], [], None, None, 0, False,
           True, "1.2"]  # 32 fields, joins_caller True, then the version
    step = from_row(old)
    assert (step.tool, step.version, FIELDS[32]) == ("t", "1.2", "joins_caller")
    assert to_row(step)[32:] == (False, "1.2")
    with pytest.raises(ValueError, match="joins_caller"):
        from_row([*old[:32], 1, "1.2"])
