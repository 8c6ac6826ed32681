"""EngineCounters: the span counters every engine keeps, merged and serialized one way for
`--jobs` workers, pytest-xdist workers and `agentcov serve`'s snapshots."""

from __future__ import annotations

import json

import pytest
from _builders import agent_run, ingest

from otel_agentcov.assembler import Bounds
from otel_agentcov.engine import CoverageEngine, EngineCounters
from otel_agentcov.records import SpanRecord


def _spans(trace: int) -> list[SpanRecord]:
    """An agent run with one tool call, a span ending before it starts, a span without ids."""
    return [
        *agent_run(trace, "a", ["lookup"]),
        SpanRecord(trace, 3, 1, "chat", start_ns=5, end_ns=4),
        SpanRecord(0, 0, None, "no ids"),
        SpanRecord(trace + 1000, 9, 8, "orphan", start_ns=0, end_ns=1),  # root never comes
    ]


def _engine(traces: range) -> CoverageEngine:
    engine = CoverageEngine(bounds=Bounds(max_traces=20))  # never reached: merges are exact
    for trace in traces:
        ingest(engine, _spans(trace))
    engine.flush_all("end_of_input")
    return engine


def test_merged_counters_equal_one_engine_seeing_every_span() -> None:
    whole = _engine(range(1, 9))
    merged = CoverageEngine()
    for part in (range(1, 4), range(4, 9)):
        engine = _engine(part)
        merged.merge(engine.state, engine.counted())
    expected = whole.counters.to_dict()
    assert expected["by_kind"]["tool"] == 8 and expected["by_kind"]["agent"] == 8
    assert expected["dropped"] == {"end_before_start": 8, "invalid_ids": 8}
    assert expected["flushed_early"]["end_of_input"] == 8  # the orphans' traces
    assert merged.counters.to_dict() == expected


def test_counters_round_trip_through_json_and_name_a_bad_field() -> None:
    counters = _engine(range(1, 5)).counted()
    again = EngineCounters.from_dict(json.loads(json.dumps(counters.to_dict())), "serve")
    assert again == counters
    bad = counters.to_dict() | {"by_kind": {"tool": 1, "gizmo": 2}}
    with pytest.raises(ValueError, match=r"serve\.by_kind: unknown kind"):
        EngineCounters.from_dict(bad, "serve")
    with pytest.raises(ValueError, match=r"serve\.dropped"):
        EngineCounters.from_dict(counters.to_dict() | {"dropped": {"x": -1}}, "serve")
