"""Compatibility suite: what AgentAssay's own public coverage tests
(qualixar/agentassay, tests/test_coverage/test_coverage.py) check of its collector and snapshot,
restated in our words against `otel_agentcov.agentassay`, plus one test per difference that
docs/agentassay.md lists.

Traces are built like AgentAssay's test factory builds them: `steps` tool-call steps cycling
through `tools`, a trace-level `model` ("test-model" unless said otherwise), successful. Objects
with attributes, as AgentAssay's pydantic models are. Expected values follow from AgentAssay's
definitions and, for the differences, from docs/semantics.md, by hand.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _agentassay_shapes import ExecutionTrace as Trace
from _agentassay_shapes import StepTrace

from otel_agentcov.agentassay import AgentCoverageCollector, CoverageTuple


def trial(steps: int = 3, tools: tuple[str, ...] = ("search", "calculate"),
          model: str = "test-model") -> Trace:
    """AgentAssay's test factory in short: tool calls cycling through `tools`."""
    built = [StepTrace("tool_call", tools[i % len(tools)], duration_ms=20.0 + 5 * i, step_index=i)
             for i in range(steps)]
    return Trace(built, model=model, total_duration_ms=sum(s.duration_ms for s in built))


def _agent(snap: CoverageTuple) -> dict[str, Any]:
    return dict(snap.report["agents"]["agent"])


# --- the collector ---


def test_a_fresh_collector_reports_zero_for_declared_tools_and_models() -> None:
    snap = AgentCoverageCollector(known_tools={"search"}, known_models={"gpt-4o"}).snapshot()
    assert snap.tool == 0.0
    assert snap.model == 0.0


def test_calling_every_declared_tool_with_the_declared_model_covers_both() -> None:
    collector = AgentCoverageCollector(known_tools={"search", "calculate"},
                                       known_models={"test-model"})
    collector.update(trial(steps=2))
    snap = collector.snapshot()
    assert snap.tool == 1.0
    assert snap.model == 1.0


def test_reset_forgets_the_traces() -> None:
    collector = AgentCoverageCollector(known_tools={"search"}, known_models={"test-model"})
    collector.update(trial(steps=1, tools=("search",)))
    assert collector.snapshot().tool == 1.0
    collector.reset()
    assert collector.snapshot().tool == 0.0
    assert _agent(collector.snapshot())["runs"]["count"] == 0


# --- tool dimension ---


def test_two_of_three_tools_called() -> None:
    collector = AgentCoverageCollector(known_tools={"search", "calculate", "write"})
    collector.update(trial(steps=2))
    assert collector.snapshot().tool == pytest.approx(2 / 3)


def test_the_tools_never_called_are_listed() -> None:
    collector = AgentCoverageCollector(known_tools={"search", "calculate", "write"})
    collector.update(trial(steps=1, tools=("search",)))
    assert set(_agent(collector.snapshot())["tools"]["uncovered"]) == {"calculate", "write"}


# --- model dimension ---


def test_one_of_two_models_used() -> None:
    collector = AgentCoverageCollector(known_tools={"search"},
                                       known_models={"gpt-4o", "claude-opus"})
    collector.update(trial(model="gpt-4o"))
    snap = collector.snapshot()
    assert snap.model == 0.5
    untested = [r["subject"] for r in _agent(snap)["recommendations"] if r["kind"] == "model"]
    assert untested == ["claude-opus"]


def test_both_models_used_across_traces() -> None:
    collector = AgentCoverageCollector(known_tools={"search"}, known_models={"gpt-4o", "claude"})
    collector.update(trial(model="gpt-4o"))
    collector.update(trial(model="claude"))
    assert collector.snapshot().model == 1.0


def test_reset_keeps_the_declared_models() -> None:
    collector = AgentCoverageCollector(known_tools={"search"}, known_models={"gpt-4o"})
    collector.update(trial(model="gpt-4o"))
    collector.reset()
    assert collector.snapshot().model == 0.0  # still declared: 0 of 1, not n/a


# --- paths ---


def test_identical_traces_are_one_path_and_different_lengths_two() -> None:
    collector = AgentCoverageCollector(known_tools={"search", "calculate"}, max_path_depth=5)
    collector.update(trial(steps=2))
    collector.update(trial(steps=2))
    assert _agent(collector.snapshot())["paths"]["observed"] == 1
    collector.update(trial(steps=3))
    assert _agent(collector.snapshot())["paths"]["observed"] == 2


def test_paths_are_cut_at_max_path_depth() -> None:
    collector = AgentCoverageCollector(known_tools={"search"}, max_path_depth=2)
    collector.update(trial(steps=5, tools=("search",)))
    paths = _agent(collector.snapshot())["paths"]["top"]
    assert paths and all(len(p["path"]) <= 2 for p in paths)


def test_a_path_depth_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        AgentCoverageCollector(known_tools={"search"}, max_path_depth=0)


# --- states ---


def test_states_start_at_none_are_seen_from_tool_steps_and_reset() -> None:
    collector = AgentCoverageCollector(known_tools={"search", "calculate"})
    assert _agent(collector.snapshot())["states"]["observed"] == 0
    collector.update(trial(steps=3))
    assert _agent(collector.snapshot())["states"]["observed"] > 0
    collector.reset()
    assert _agent(collector.snapshot())["states"]["observed"] == 0


# --- the snapshot (AgentAssay's CoverageTuple) ---


def test_snapshot_overall_is_the_geometric_mean() -> None:
    assert CoverageTuple(tool=1.0, path=1.0, state=1.0, boundary=1.0, model=1.0).overall == 1.0
    assert CoverageTuple(tool=0.0, path=1.0, state=1.0, boundary=1.0, model=1.0).overall == 0.0
    halves = CoverageTuple(tool=0.5, path=0.5, state=0.5, boundary=0.5, model=0.5)
    assert halves.overall == pytest.approx(0.5)


def test_snapshot_weakest_dimensions_and_vector() -> None:
    snap = CoverageTuple(tool=0.9, path=0.3, state=0.8, boundary=0.7, model=0.6)
    assert snap.weakest == ("path", 0.3)
    assert snap.dimensions == {"tool": 0.9, "path": 0.3, "state": 0.8, "boundary": 0.7,
                               "model": 0.6}
    ordered = CoverageTuple(tool=0.1, path=0.2, state=0.3, boundary=0.4, model=0.5)
    assert ordered.to_vector() == [0.1, 0.2, 0.3, 0.4, 0.5]
    # a tie goes to the first in vector order
    assert CoverageTuple(tool=0.5, path=0.5, state=0.5, boundary=0.5, model=0.5).weakest == (
        "tool", 0.5)


def test_snapshot_is_frozen_and_bounded() -> None:
    snap = CoverageTuple(tool=0.5, path=0.5, state=0.5, boundary=0.5, model=0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.tool = 0.9  # type: ignore[misc]
    with pytest.raises(ValueError, match="tool"):
        CoverageTuple(tool=1.5, path=0.5, state=0.5, boundary=0.5, model=0.5)


def test_collector_snapshot_is_the_report_it_came_from() -> None:
    collector = AgentCoverageCollector(known_tools={"search", "calculate", "write"},
                                       known_models={"test-model"})
    collector.update(trial())
    snap = collector.snapshot()
    coverage = _agent(snap)["coverage"]
    assert snap.overall == coverage["overall"]
    assert snap.weakest == (coverage["weakest"], coverage[coverage["weakest"]])


# --- the differences docs/agentassay.md lists, one test each ---


def test_difference_no_known_models_leaves_the_model_dimension_out() -> None:
    """AgentAssay: 1.0 (discovery mode). Here: n/a, and not in the overall."""
    collector = AgentCoverageCollector(known_tools={"search", "calculate"})
    collector.update(trial())
    snap = collector.snapshot()
    assert snap.model is None
    measured = [v for v in snap.to_vector() if v is not None]
    assert len(measured) == 4 and snap.overall == CoverageTuple(
        tool=snap.tool, path=snap.path, state=snap.state, boundary=snap.boundary).overall


def test_difference_boundaries_are_conditions_not_numeric_ranges() -> None:
    """AgentAssay: `boundaries={"latency": (0, 5000)}` ranges, 1.0 without any. Here: the share
    of the enabled boundary conditions hit (six by default); ranges are refused."""
    with pytest.raises(ValueError, match="boundaries"):
        AgentCoverageCollector({"search"}, None, {"latency": (0.0, 5000.0)})
    collector = AgentCoverageCollector(known_tools={"search", "calculate"})
    collector.update(trial())  # a clean trial hits none of the six
    assert collector.snapshot().boundary == 0.0
    failing = StepTrace("tool_call", "search", metadata={"error": "TimeoutError"})
    collector.update(Trace([failing], success=False, error="TimeoutError"))
    # the failing tool step is tool_failure and the failed run error_path; a timeout error
    # type is the timeout condition: 3 of 6
    assert collector.snapshot().boundary == pytest.approx(3 / 6)


def test_difference_no_known_tools_discovers_them() -> None:
    """AgentAssay: an empty tool set is a ValueError. Here: the tools called are the
    inventory (docs/semantics.md, tool coverage)."""
    collector = AgentCoverageCollector(known_tools=set())
    collector.update(trial(steps=2))
    snap = collector.snapshot()
    assert snap.tool == 1.0 and _agent(snap)["tools"]["discovered"] is True


def test_difference_path_and_state_are_estimates_of_what_is_left_unseen() -> None:
    """AgentAssay: paths / |actions|^depth and 1 − 1/(1 + states). Here: observed / Chao1.
    Four identical 3-step traces: one path seen four times, Chao1 = 1 (nothing seen once), so
    1.0; AgentAssay's formula would give 1/2^3 = 0.125 (two actions). States: (tool, search,
    ok) and (tool, calculate, ok), f1 = 0, Chao1 = 2, so 1.0 (AgentAssay 1 − 1/3)."""
    collector = AgentCoverageCollector(known_tools={"search", "calculate"})
    for _ in range(4):
        collector.update(trial(steps=3))
    snap = collector.snapshot()
    assert snap.path == 1.0 and snap.state == 1.0


def test_difference_nothing_to_measure_is_none_not_a_number() -> None:
    """AgentAssay's fresh collector gives path 0.0, state 0.0, boundary 1.0. Here they are n/a
    until a run is seen, so `to_vector()` can hold None."""
    snap = AgentCoverageCollector(known_tools={"search"}, known_models={"m"}).snapshot()
    assert snap.to_vector() == [0.0, None, None, None, 0.0]


def test_difference_a_dated_model_covers_its_base_name() -> None:
    """AgentAssay matches model names exactly; here `gpt-4o-2024-08-06` covers `gpt-4o`."""
    collector = AgentCoverageCollector(known_tools={"search"}, known_models={"gpt-4o"})
    collector.update(trial(model="gpt-4o-2024-08-06"))
    assert collector.snapshot().model == 1.0


def test_difference_a_tool_name_on_a_model_step_is_not_a_call() -> None:
    """AgentAssay counts every step's `tool_name`; here an `llm_response` step is a model call
    whatever tool it names (its request is not an execution)."""
    collector = AgentCoverageCollector(known_tools={"search", "write"})
    collector.update(Trace([StepTrace("tool_call", "search"), StepTrace("llm_response", "write")]))
    assert collector.snapshot().tool == 0.5


def test_difference_no_timestamp_and_no_tracker_attributes() -> None:
    """AgentAssay's snapshot has a `timestamp` and its collector `tool_tracker` etc.; here the
    snapshot's `report` holds what those trackers answered (uncovered tools, paths, ...)."""
    collector = AgentCoverageCollector(known_tools={"search"})
    snap = collector.snapshot()
    assert not hasattr(snap, "timestamp") and not hasattr(collector, "tool_tracker")
    assert _agent(snap)["tools"]["uncovered"] == ["search"]
