"""AgentAssay compatibility: `AgentCoverageCollector` computes docs/semantics.md coverage from
trial traces.

Expected values are worked out by hand from the traces below, not copied from the output.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest
from _agentassay_shapes import ExecutionTrace, StepTrace

from otel_agentcov.agentassay import AgentCoverageCollector, TrialError

KNOWN_TOOLS = ["search", "calc", "email"]
KNOWN_MODELS = ["gpt-4o", "claude-3-opus"]
DATED = "gpt-4o-2024-08-06"  # a dated snapshot of a known model


def _step(action: str, *, tool: str | None = None, model: str | None = None,
          error: str | None = None, duration_ms: float = 100.0) -> dict[str, Any]:
    return {
        "step_index": 0,
        "action": action,
        "tool_name": tool,
        "model": model,
        "duration_ms": duration_ms,
        "metadata": {"error": error} if error else {},
    }


def dict_traces() -> list[dict[str, Any]]:
    """Three trials shaped like AgentAssay's ExecutionTrace.

    t1: llm(gpt-4o dated) -> search -> llm(no model)          success
    t2: llm(llama-3)      -> calc                             success
    t3: llm(gpt-4o dated) -> search (fails) -> calc           failed with an error
    """
    return [
        {
            "trace_id": "t1",
            "steps": [
                _step("llm_response", model=DATED),
                _step("tool_call", tool="search"),
                _step("llm_response"),
            ],
            "success": True,
            "error": None,
            "total_duration_ms": 1000.0,
        },
        {
            "trace_id": "t2",
            "steps": [_step("llm_response", model="llama-3"), _step("tool_call", tool="calc")],
            "success": True,
            "error": None,
            "total_duration_ms": 800.0,
        },
        {
            "trace_id": "t3",
            "steps": [
                _step("llm_response", model=DATED),
                _step("tool_call", tool="search", error="ConnectionError"),
                _step("tool_call", tool="calc"),
            ],
            "success": False,
            "error": "AssertionError",
            "total_duration_ms": 1500.0,
        },
    ]


def object_traces() -> list[ExecutionTrace]:
    out = []
    for d in dict_traces():
        steps = [
            StepTrace(s["action"], s["tool_name"], s["model"], s["duration_ms"], s["metadata"])
            for s in d["steps"]
        ]
        out.append(ExecutionTrace(steps, d["success"], d["error"], d["total_duration_ms"]))
    return out


# Hand computation (docs/semantics.md):
# tool:     called {search, calc} of K = {search, calc, email}                       -> 2/3
# model:    gpt-4o matched by its dated snapshot, claude-3-opus unused (llama unknown) -> 1/2
# path:     (llm,tool,llm), (llm,tool), (llm,tool,tool): S=3, f1=3, f2=0,
#           Chao1 = 3 + 3*2/(2*1) = 6                                                -> 3/6
# state:    (llm,DATED,ok)x2 (tool,search,ok)x1 (llm,'',ok)x1 (llm,llama-3,ok)x1
#           (tool,calc,ok)x2 (tool,search,error)x1: S=6, f1=4, f2=2,
#           Chao1 = 6 + 4*3/(2*3) = 8                                                -> 6/8
# boundary: of the 6 default conditions only error_path and tool_failure (t3) hit     -> 2/6
TOOL, MODEL, PATH, STATE, BOUNDARY = 2 / 3, 1 / 2, 3 / 6, 6 / 8, 2 / 6
EXPECTED = {"tool": TOOL, "path": PATH, "state": STATE, "boundary": BOUNDARY, "model": MODEL}


def _geomean(values: list[float]) -> float:
    return math.prod(values) ** (1 / len(values))


def _assert_vector(vector: Any, expected: dict[str, float | None]) -> None:
    assert set(vector.dimensions) == set(expected)
    for dim, value in expected.items():
        if value is None:
            assert vector.dimensions[dim] is None, dim
        else:
            assert vector.dimensions[dim] == pytest.approx(value), dim


def test_update_then_snapshot_gives_the_hand_computed_vector() -> None:
    collector = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS)
    for trace in dict_traces():
        collector.update(trace)
    vector = collector.snapshot()

    _assert_vector(vector, EXPECTED)
    assert vector.overall == pytest.approx(_geomean(list(EXPECTED.values())))
    assert vector.overall == pytest.approx((1 / 24) ** (1 / 5))
    assert vector.weakest is not None
    assert vector.weakest[0] == "boundary"
    assert vector.weakest[1] == pytest.approx(BOUNDARY)

    agent = vector.report["agents"]["agent"]
    assert agent["runs"]["count"] == 3
    assert agent["runs"]["errors"] == 1
    assert agent["runs"]["passed"] == 2
    assert agent["tools"]["called"] == {
        "calc": {"ok": 2, "error": 0},
        "search": {"ok": 1, "error": 1},
    }
    assert agent["tools"]["uncovered"] == ["email"]
    assert agent["models"]["used"] == {DATED: 2, "llama-3": 1}
    assert agent["boundaries"] == {
        "max_steps": False, "timeout": False, "cost_limit": False,
        "empty_input": False, "error_path": True, "tool_failure": True,
    }


def test_objects_with_attributes_give_the_same_vector_as_dicts() -> None:
    from_dicts = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS)
    from_objects = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS)
    a = from_dicts.compute(dict_traces())
    b = from_objects.compute(object_traces())
    _assert_vector(b, EXPECTED)
    assert b.dimensions == a.dimensions
    assert b.overall == a.overall
    assert b.weakest == a.weakest


def test_compute_equals_update_then_snapshot() -> None:
    computed = AgentCoverageCollector(
        known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS
    ).compute(dict_traces())
    stepwise = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS)
    for trace in dict_traces():
        stepwise.update(trace)
    snap = stepwise.snapshot()
    assert computed.dimensions == snap.dimensions
    assert computed.overall == snap.overall
    assert computed.weakest == snap.weakest
    assert computed.report["agents"] == snap.report["agents"]


def test_compute_accumulates_across_calls() -> None:
    collector = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS)
    traces = dict_traces()
    first = collector.compute(traces[:1])
    # one run: t1 alone calls search only, one path seen once, model gpt-4o via DATED
    assert first.dimensions["tool"] == pytest.approx(1 / 3)
    assert first.report["agents"]["agent"]["runs"]["count"] == 1
    second = collector.compute(traces[1:])
    _assert_vector(second, EXPECTED)
    assert second.report["agents"]["agent"]["runs"]["count"] == 3


def test_dated_model_is_what_covers_the_known_base_name() -> None:
    only_dated = AgentCoverageCollector(known_tools=["search"], known_models=["gpt-4o"])
    only_dated.update({"steps": [_step("llm_response", model=DATED)], "success": True})
    assert only_dated.snapshot().dimensions["model"] == 1.0

    prefix_only = AgentCoverageCollector(known_tools=["search"], known_models=["gpt-4o"])
    prefix_only.update({"steps": [_step("llm_response", model="gpt-4omni")], "success": True})
    vector = prefix_only.snapshot()
    assert vector.dimensions["model"] == 0.0
    assert vector.overall == 0.0  # one dimension at 0 sinks the geometric mean


def test_without_known_models_the_model_dimension_is_left_out() -> None:
    vector = AgentCoverageCollector(known_tools=KNOWN_TOOLS).compute(dict_traces())
    expected = {**EXPECTED, "model": None}
    _assert_vector(vector, expected)
    assert vector.overall == pytest.approx(_geomean([TOOL, PATH, STATE, BOUNDARY]))
    assert "model" in vector.report["agents"]["agent"]["coverage"]["excluded"]


def test_without_known_tools_the_tools_called_are_the_inventory() -> None:
    vector = AgentCoverageCollector(known_models=KNOWN_MODELS).compute(dict_traces())
    assert vector.dimensions["tool"] == 1.0  # discovered {search, calc}, both called
    tools = vector.report["agents"]["agent"]["tools"]
    assert tools["discovered"] is True
    assert tools["known"] == ["calc", "search"]


def test_a_fresh_collector_reports_its_declared_inventory_uncovered() -> None:
    """Nothing called of three declared tools is 0/3; nothing to measure (no runs, no
    boundaries hit or missed, no model declared) stays n/a."""
    vector = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS).snapshot()
    assert vector.to_vector() == [0.0, None, None, None, 0.0]
    assert vector.overall == 0.0 and vector.weakest == ("tool", 0.0)
    bare = AgentCoverageCollector().snapshot()
    assert bare.to_vector() == [None] * 5
    assert bare.overall is None and bare.weakest is None


@pytest.mark.parametrize(
    "bad",
    [
        {"success": True},
        {"steps": None, "success": True},
        {"steps": "tool_call", "success": True},
        {"steps": [{"action": "tool_call", "duration_ms": 1.0}], "success": True},
        ExecutionTrace.__new__(ExecutionTrace),  # an object without a steps attribute
    ],
    ids=["no-steps", "steps-none", "steps-string", "tool-call-without-name", "object-no-steps"],
)
def test_a_trace_without_usable_steps_raises_trial_error(bad: Any) -> None:
    collector = AgentCoverageCollector(known_tools=KNOWN_TOOLS, known_models=KNOWN_MODELS)
    collector.update(dict_traces()[0])
    before = collector.snapshot().report
    with pytest.raises(TrialError):
        collector.update(bad)
    assert issubclass(TrialError, ValueError)
    # nothing of the bad trial was folded in
    assert collector.snapshot().report == before


def _odd_trials() -> list[dict[str, Any]]:
    """Trials the direct route hands to classify/assemble: steps whose span names classify
    (`execute_tool x`, a nested `invoke_agent`), hand-off tools, the merged-tools name, a
    placeholder agent name, a timeout and a max-turns error."""
    llm = _step("llm_response", model="gpt-4o")
    return [
        {"steps": [llm, _step("execute_tool lookup")]},
        {"steps": [llm, _step("invoke_agent helper"), _step("tool_call", tool="calc")]},
        {"steps": [llm, _step("tool_call", tool="transfer_to_booker")]},
        {"steps": [llm, _step("tool_call", tool="transfer_to_agent")]},
        {"steps": [_step("tool_call", tool="(merged tools)"), llm]},
        {"steps": [llm, _step("tool_call", tool="calc")], "metadata": {"agent": "Agent"}},
        {"steps": [_step("tool_call", tool="calc", error="httpx.ReadTimeout")],
         "error": "MaxTurnsExceeded", "success": False},
        {"steps": [llm], "error": "", "success": False, "metadata": {"agent_name": 7}},
    ]


@pytest.mark.parametrize("state_attributes", [(), ("gen_ai.tool.name", "error.type")])
def test_trials_become_the_runs_the_span_route_builds(state_attributes: tuple[str, ...]) -> None:
    """docs/architecture.md#data-flow: trials skip SpanRecord/classify/assembler; the runs must be
    the ones the span route (classify every span, assemble the trace) builds from the same trial."""
    from test_report_golden import trials_doc

    from otel_agentcov.assembler import assemble
    from otel_agentcov.readers.trial_runs import trace_to_records, trace_to_runs
    from otel_agentcov.semconv import classify

    traces = [t["trace"] for t in trials_doc(seed=5, n=400)["results"]] + _odd_trials()
    for n, trace in enumerate(traces, start=1):
        trial = trace_to_runs(trace, n, state_attributes=state_attributes)
        assert trial is not None
        steps = [classify(r, state_attributes) for r in trace_to_records(trace, n)]
        for run in trial.runs:
            run.models = frozenset()  # the trace-level model, which no span carries
            run.span_id = 0  # where evaluation events attach: a trial file has no span
        spans = assemble(steps)
        for run in spans:
            run.span_id = 0
        assert trial.runs == spans, trace
        assert trial.kinds == Counter(s.kind for s in steps), trace


def test_trials_the_engine_must_check_take_the_span_route() -> None:
    from otel_agentcov.readers.trial_runs import trace_to_runs

    negative = {"steps": [_step("tool_call", tool="calc", duration_ms=-5.0)]}
    assert trace_to_runs(negative, 1) is None  # its span is dropped as ending before it starts
    long = {"steps": [_step("llm_response")] * 3}
    assert trace_to_runs(long, 1, max_spans=3) is None  # would be flushed early (span limit)
    assert trace_to_runs(long, 1, max_spans=4) is not None


def test_a_trials_trace_level_model_counts_as_used() -> None:
    """AgentAssay counts `trace.model` beside the steps' models. Trial 1 names gpt-4o only at
    trace level, trial 2 names claude-3-opus on a step and at trace level: both known models are
    used (model coverage 2/2, where counting steps alone gave 1/2); claude-3-opus was used by
    one run (its step), not two, and gpt-4o by one run."""
    collector = AgentCoverageCollector(KNOWN_TOOLS, KNOWN_MODELS)
    collector.update({"steps": [_step("llm_response"), _step("tool_call", tool="calc")],
                      "model": "gpt-4o"})
    collector.update({"steps": [_step("llm_response", model="claude-3-opus")],
                      "model": "claude-3-opus"})
    vector = collector.snapshot()
    assert vector.dimensions["model"] == 1.0
    models = vector.report["agents"]["agent"]["models"]
    assert models["used"] == {"claude-3-opus": 1, "gpt-4o": 1}
