"""Provoked, natural and recovered (docs/faults.md): a boundary hit in a run carrying a fault of a
matching family is provoked, any other is natural; a run with faults recovers when it ends
without error. Expected values are worked out by hand from the runs each test builds."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from _builders import agent_span, chat_span, ingest, tool_span
from _fields import build_step

from otel_agentcov import _core
from otel_agentcov.assembler import AgentRun
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.fault_families import FAMILIES, PROVOKING
from otel_agentcov.judge import judge
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.service.steps import from_row, to_row
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState, Limits, StateError
from otel_agentcov.state.caps import OVERFLOW, Caps
from otel_agentcov.state.facts import run_facts
from otel_agentcov.state.faults import Faults

MARK = "agentcov.fault.family"
SPEC = {"version": 1, "agents": [{"name": "support", "tools": ["lookup", "refund"]}]}


def four_runs() -> list[list[SpanRecord]]:
    """1: a tool_exception fails the run; 2: the same failure with no fault, recovered;
    3: a budget fault on the model call, recovered; 4: an HTTP 500 on the first model call,
    recovered by the second."""
    failed = {"error.type": "InjectedToolError"}
    return [
        [tool_span(1, 2, 1, "lookup", 1, 2, **failed, **{MARK: "tool_exception"}),
         agent_span(1, 1, None, "support", 0, 3, **failed)],
        [tool_span(2, 2, 1, "lookup", 1, 2, **failed), agent_span(2, 1, None, "support", 0, 3)],
        [chat_span(3, 2, 1, start=1, end=2, **{MARK: "budget",
                                               "gen_ai.usage.input_tokens": 200_000}),
         agent_span(3, 1, None, "support", 0, 3)],
        [chat_span(4, 2, 1, start=1, end=2, **{MARK: "http_5xx", "error.type": "500"}),
         chat_span(4, 3, 1, start=2, end=3),
         agent_span(4, 1, None, "support", 0, 4)],
    ]


def engine_of(runs: list[list[SpanRecord]], spec: dict[str, Any] = SPEC) -> CoverageEngine:
    engine = CoverageEngine(CoverageSpec.from_dict(spec))
    for run in runs:
        ingest(engine, run)
    engine.flush_all()
    return engine


def report(engine: CoverageEngine) -> dict[str, Any]:
    agents: dict[str, Any] = engine.snapshot().to_dict()["agents"]
    return dict(agents["support"])


def test_provoked_natural_recovered_per_condition_family_and_tool() -> None:
    faults = report(engine_of(four_runs()))["faults"]
    assert (faults["runs"], faults["recovered"], faults["failed"]) == (3, 2, 1)
    assert faults["resilience"] == pytest.approx(2 / 3)
    # Wilson 95 % for 2 of 3, by hand: centre 0.5731, half-width 0.3654
    assert faults["resilience_ci95"] == pytest.approx([0.2077, 0.9385], abs=1e-3)
    assert faults["families"] == {
        "budget": {"seam": "model", "injected": 1, "hit": 1, "recovered": 1, "failed": 0},
        "http_5xx": {"seam": "model", "injected": 1, "hit": 1, "recovered": 1, "failed": 0},
        "tool_exception": {"seam": "tool", "injected": 1, "hit": 1, "recovered": 0, "failed": 1},
    }
    conditions = faults["conditions"]
    assert conditions["tool_failure"] == {"hits": 2, "provoked": 1, "natural": 1}
    assert conditions["error_path"] == {"hits": 2, "provoked": 2, "natural": 0}
    assert conditions["cost_limit"] == {"hits": 1, "provoked": 1, "natural": 0}
    assert conditions["max_steps"] == {"hits": 0, "provoked": 0, "natural": 0}
    # lookup failed in runs 1 and 2; run 2 recovered; refund never failed: 1 of 2 known tools
    assert faults["tools"] == {"lookup": {"failed": 2, "recovered": 1}}
    assert faults["failure_paths_pct"] == 50.0


def test_failure_paths_count_the_known_tools_that_recovered_from_a_failure() -> None:
    """The same runs with a third known tool: lookup is still the only tool that failed and
    recovered (run 2); refund and cancel never failed, so they have no failure path covered
    either: 1 of 3."""
    spec = {"version": 1, "agents": [{"name": "support",
                                      "tools": ["lookup", "refund", "cancel"]}]}
    faults = report(engine_of(four_runs(), spec))["faults"]
    assert faults["failure_paths_pct"] == pytest.approx(100 / 3)


def test_gate_targets_for_faults() -> None:
    spec = {"version": 1, "agents": [{"name": "support", "tools": ["lookup", "refund"], "expect": [
        {"target": "faults.recovered_pct", "matcher": {"schema": {"minimum": 60}}},
        {"target": "boundary.provoked", "matcher": {"schema": {"minimum": 4}}},
        {"target": "boundary.natural", "matcher": {"schema": {"maximum": 1}}},
    ]}]}
    engine = CoverageEngine(CoverageSpec.from_dict(spec))
    for run in four_runs():
        ingest(engine, run)
    engine.flush_all()
    rows = engine.snapshot().to_dict()["agents"]["support"]["expect"]
    # 2 of 3 recovered = 66.7 % >= 60; provoked: tool_failure, error_path, cost_limit = 3 < 4
    assert [(r["target"], r["value"], r["passed"]) for r in rows] == [
        ("faults.recovered_pct", pytest.approx(200 / 3), True),
        ("boundary.provoked", 3, False),
        ("boundary.natural", 1, True),
        ("edges.restricted_attempts", 0, True),  # declared means gated: kept (docs/gate.md)
    ]


def test_an_unknown_family_is_no_fault() -> None:
    runs = [[tool_span(1, 2, 1, "lookup", 1, 2, **{"error.type": "X", MARK: "made_up"}),
             agent_span(1, 1, None, "support", 0, 3)]]
    faults = report(engine_of(runs))["faults"]
    assert faults["runs"] == 0 and faults["families"] == {}
    assert faults["conditions"]["tool_failure"] == {"hits": 1, "provoked": 0, "natural": 1}


def test_a_fault_of_another_condition_does_not_provoke() -> None:
    """A budget fault in a run whose tool failed: cost_limit is not hit (no tokens), and the
    tool failure is natural, since budget provokes only cost_limit."""
    runs = [[chat_span(1, 2, 1, start=1, end=2, **{MARK: "budget"}),
             tool_span(1, 3, 1, "lookup", 2, 3, **{"error.type": "X"}),
             agent_span(1, 1, None, "support", 0, 4)]]
    faults = report(engine_of(runs))["faults"]
    assert faults["families"]["budget"] == {
        "seam": "model", "injected": 1, "hit": 0, "recovered": 1, "failed": 0}
    assert faults["conditions"]["tool_failure"] == {"hits": 1, "provoked": 0, "natural": 1}


def test_a_mark_on_a_span_the_run_does_not_count_is_the_runs() -> None:
    """LangGraph's `model` node (a chain span, no step of its own) is the span current around
    the model call, so the transport marks it; the MCP fault proxy marks the server's half of a
    tool call, which is folded into the client's tool step. Either way the fault is the run's:
    before, both hits counted as natural."""
    node = SpanRecord(1, 2, 1, "model", start_ns=1, end_ns=3,
                      attributes={MARK: "http_5xx", "openinference.span.kind": "CHAIN"})
    server_half = SpanRecord(2, 4, 3, "tools/call lookup", start_ns=2, end_ns=3, kind=1,
                             parent_remote=True,
                             attributes={"mcp.method.name": "tools/call",
                                         "gen_ai.operation.name": "execute_tool",
                                         "gen_ai.tool.name": "lookup",
                                         "error.type": "tool_error", MARK: "tool_error_result"})
    runs = [[chat_span(1, 3, 2, start=1, end=2, **{"error.type": "500"}), node,
             agent_span(1, 1, None, "support", 0, 4, **{"error.type": "500"})],
            [server_half, tool_span(2, 3, 1, "lookup", 1, 3),
             agent_span(2, 1, None, "support", 0, 4)]]
    faults = report(engine_of(runs))["faults"]
    assert (faults["runs"], faults["recovered"], faults["failed"]) == (2, 1, 1)
    assert faults["conditions"]["error_path"] == {"hits": 1, "provoked": 1, "natural": 0}
    assert faults["conditions"]["tool_failure"] == {"hits": 1, "provoked": 1, "natural": 0}
    assert faults["tools"] == {"lookup": {"failed": 1, "recovered": 1}}


def test_merged_states_count_exactly_what_one_process_counts() -> None:
    runs = four_runs()
    whole = engine_of(runs).state.to_dict()
    merged = CoverageState()
    for half in (runs[:2], runs[2:]):
        part = engine_of(half).state
        merged.merge(CoverageState.from_dict(json.loads(json.dumps(part.to_dict()))))
    assert merged.to_dict()["agents"]["support"]["faults"] == whole["agents"]["support"]["faults"]
    assert whole["agents"]["support"]["faults"] == {
        "runs": 3, "recovered": 2,
        "families": {"budget": [1, 1, 1, 0], "http_5xx": [1, 1, 1, 0],
                     "tool_exception": [1, 1, 0, 1]},
        "provoked": {"cost_limit": 1, "error_path": 2, "tool_failure": 1},
        "tools": {"lookup": [2, 1]},
    }


@pytest.mark.parametrize(("faults", "problem"), [
    ({"runs": 1, "recovered": 2, "families": {}, "provoked": {}, "tools": {}}, "contradict"),
    ({"runs": 1, "recovered": 0, "families": {"nope": [1, 0, 0, 1]}, "provoked": {},
      "tools": {}}, "unknown family"),
    ({"runs": 1, "recovered": 0, "families": {}, "provoked": {"nope": 1}, "tools": {}},
     "unknown condition"),
    ({"runs": 1, "recovered": 0, "families": {"budget": [1, 0, 1, 1]}, "provoked": {},
      "tools": {}}, "contradict"),
    ({"runs": -1, "recovered": 0, "families": {}, "provoked": {}, "tools": {}}, "faults.runs"),
    # a malformed row is named by its family, cut to 40 characters (a name is untrusted input)
    ({"runs": 1, "recovered": 0, "families": {"x" * 50: [1, 0, 1]}, "provoked": {},
      "tools": {}}, r"faults\.families\.x{40}: expected"),
    ({"runs": 1, "recovered": 0, "families": {"y" * 50: [1, 0, 0, 1]}, "provoked": {},
      "tools": {}}, "unknown family 'y{40}'"),
    ({"runs": 1, "recovered": 0, "families": {}, "provoked": {"z" * 50: 1}, "tools": {}},
     "unknown condition 'z{40}'"),
])
def test_a_state_file_with_bad_fault_counts_is_refused(faults: dict[str, Any],
                                                        problem: str) -> None:
    document = engine_of(four_runs()).state.to_dict()
    document["agents"]["support"]["faults"] = faults
    with pytest.raises(StateError, match=problem):
        CoverageState.from_dict(document)


def test_a_state_written_before_faults_loads_with_none() -> None:
    document = engine_of(four_runs()[1:2]).state.to_dict()
    del document["agents"]["support"]["faults"]
    document["version"] = 3
    state = CoverageState.from_dict(document)
    assert state.agents["support"].faults.runs == 0


def test_the_mark_survives_the_service_step_row() -> None:
    record = tool_span(1, 2, 1, "lookup", **{MARK: "tool_timeout"})
    step = build_step(record, TOOL, (), tool="lookup")
    assert step.fault == "tool_timeout"
    assert from_row(json.loads(json.dumps(to_row(step)))).fault == "tool_timeout"


@pytest.mark.parametrize("value", [*FAMILIES, "nope", 3, None, "TOOL_EXCEPTION"])
def test_the_core_reads_the_mark_as_python_does(value: Any) -> None:
    record = tool_span(1, 2, 1, "lookup", **{MARK: value})
    python = build_step(record, TOOL, (), tool="lookup").fault
    assert python == (value if value in FAMILIES else None)
    core = _core.Classifier([], True, Step).build(record, TOOL, [], None, "lookup")
    assert core.fault == python


def test_every_condition_has_a_provoking_family_of_its_own() -> None:
    assert sorted(PROVOKING) == sorted(
        ("max_steps", "timeout", "cost_limit", "empty_input", "error_path", "tool_failure"))
    for condition, family in PROVOKING.items():
        assert condition in FAMILIES[family][1]


def test_failed_tools_past_the_cap_fold_into_one_row_each_fold_counted_once() -> None:
    """max_tools 1: `lookup` takes the one row; `refund` and `cancel` (failed in the next two runs,
    the last one recovered) share the overflow row, and each run's fold is one fold."""
    run = AgentRun(agent="a", trace_id=1, start_ns=0, end_ns=1)
    spec = CoverageSpec.empty().for_agent("a")
    facts = run_facts(run, spec, judge(run, spec.checks))
    caps, faults = Caps(Limits(max_tools=1)), Faults()
    for tool, errored in (("lookup", True), ("refund", True), ("cancel", False)):
        faults.add(replace(facts, failed_tools=frozenset({tool}), errored=errored), caps)
    assert faults.tools == {"lookup": [1, 0], OVERFLOW: [2, 1]}
    assert caps.overflow == {"tool": 2}
    assert faults.runs == 0  # failed tools, but no injected fault: no run with faults


def test_a_state_with_counts_past_small_integers_loads_as_written() -> None:
    """Counts are compared by value: 700 + 300 injected runs recovered or failed is 1000."""
    document = engine_of(four_runs()).state.to_dict()
    large = {"runs": 1000, "recovered": 700, "families": {"budget": [1000, 400, 700, 300]},
             "provoked": {"cost_limit": 400}, "tools": {"lookup": [500, 200]}}
    document["agents"]["support"]["faults"] = large
    state = CoverageState.from_dict(json.loads(json.dumps(document)))
    assert state.to_dict()["agents"]["support"]["faults"] == large
