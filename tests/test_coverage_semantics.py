"""docs/semantics.md end to end through the engine: SpanRecord -> classify -> runs -> snapshot."""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _builders import chat_attrs, tool_attrs

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import STATUS_ERROR, SpanRecord
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState, Limits, StateError
from otel_agentcov.stats import wilson

_ids = itertools.count(1)
S = 1_000_000_000  # ns per second

Step = tuple[Any, ...]


def run(
    engine: CoverageEngine,
    agent: str,
    steps: Sequence[Step],
    *,
    error: str | None = None,
    duration_s: float = 1.0,
    agent_attrs: dict[str, Any] | None = None,
    trace_id: int | None = None,
) -> None:
    """One trace: an invoke_agent span with the given steps as children, in order.

    step forms: ("tool", name[, error][, extra attrs]), ("llm", model[, error][, extra attrs])
    """
    trace_id = trace_id if trace_id is not None else next(_ids)
    root = next(_ids)
    t = 0
    for step in steps:
        kind, name = step[0], step[1]
        err = next((x for x in step[2:] if isinstance(x, str)), None)
        extra = next((x for x in step[2:] if isinstance(x, dict)), {})
        if kind == "tool":
            attrs = tool_attrs(name)
            span_name = f"execute_tool {name}"
        else:
            attrs = chat_attrs(name)
            span_name = f"chat {name}"
        attrs.update(extra)
        if err:
            attrs["error.type"] = err
        engine.ingest(SpanRecord(
            trace_id=trace_id, span_id=next(_ids), parent_id=root, name=span_name,
            start_ns=t + 1, end_ns=t + 2, status_code=STATUS_ERROR if err else 0,
            attributes=attrs,
        ))
        t += 2
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
    attrs.update(agent_attrs or {})
    if error:
        attrs["error.type"] = error
    engine.ingest(SpanRecord(
        trace_id=trace_id, span_id=root, parent_id=None, name=f"invoke_agent {agent}",
        start_ns=0, end_ns=max(int(duration_s * S), t + 1),
        status_code=STATUS_ERROR if error else 0, attributes=attrs,
    ))


def report(engine: CoverageEngine, agent: str = "a") -> dict[str, Any]:
    data: dict[str, Any] = engine.snapshot().to_dict()["agents"][agent]
    return data


def spec(**entry: Any) -> CoverageSpec:
    return CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", **entry}]})


def test_tool_coverage_excludes_restricted_and_lists_undeclared() -> None:
    eng = CoverageEngine(spec(
        tools=["search", "read", "write", "delete_repo"],
        tool_edges={"restricted": ["delete_repo"]},
    ))
    run(eng, "a", [("llm", "m"), ("tool", "search"), ("tool", "mystery")])
    r = report(eng)
    assert r["tools"]["known"] == ["read", "search", "write"]  # K minus restricted
    assert r["coverage"]["tool"] == pytest.approx(1 / 3)
    assert r["tools"]["uncovered"] == ["read", "write"]
    assert r["tools"]["undeclared"] == ["mystery"]
    assert r["tools"]["discovered"] is False


def test_restricted_attempts_every_outcome_and_default_gate() -> None:
    eng = CoverageEngine(spec(tool_edges={"restricted": ["delete_repo", "force_push"]}))
    denied_in_output = json.dumps([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "c1", "name": "force_push", "arguments": {}}]}])
    run(eng, "a", [
        ("tool", "delete_repo"),
        ("tool", "delete_repo", "PermissionError"),
        ("tool", "delete_repo", {"gen_ai.tool.call.decision": "deny"}),
        ("llm", "m", {"gen_ai.output.messages": denied_in_output}),
    ], trace_id=0xABC)
    r = report(eng)
    assert r["edges"]["restricted_attempts"] == 4
    assert r["edges"]["restricted"] == [
        {"tool": "delete_repo", "outcome": "denied", "count": 1},
        {"tool": "delete_repo", "outcome": "executed", "count": 1},
        {"tool": "delete_repo", "outcome": "failed", "count": 1},
        {"tool": "force_push", "outcome": "denied", "count": 1},
    ]
    assert r["edges"]["gate_passed"] == 0
    trace = f"{0xABC:032x}"
    assert r["expect"] == [{
        "target": "edges.restricted_attempts", "value": 4, "passed": False,
        "reason": "4 is greater than the maximum of 0: restricted tool delete_repo denied ×1, "
                  f"executed ×1, failed ×1; traces {trace} | restricted tool force_push "
                  f"denied ×1; traces {trace}"}]
    assert r["runs"]["passed"] == 0  # a restricted attempt fails the run
    # the denied call was not executed: it is not a tool call
    assert r["tools"]["called"]["delete_repo"] == {"ok": 1, "error": 1}
    assert engine_gate(eng) is False


def engine_gate(eng: CoverageEngine) -> bool:
    return eng.snapshot().gate_passed


def test_tool_discovery_from_definitions_when_nothing_declared() -> None:
    eng = CoverageEngine()
    defs = json.dumps([{"type": "function", "name": "search"},
                       {"type": "function", "function": {"name": "fetch"}}])
    run(eng, "a", [("llm", "m", {"gen_ai.tool.definitions": defs}), ("tool", "search"),
                   ("tool", "calc")])
    r = report(eng)
    assert r["tools"]["discovered"] is True
    assert r["tools"]["known"] == ["calc", "fetch", "search"]
    assert r["coverage"]["tool"] == pytest.approx(2 / 3)
    assert r["tools"]["undeclared"] == []


def test_path_chao1_and_sample_coverage() -> None:
    eng = CoverageEngine()
    # paths: [llm,tool] x2, [llm] x1, [llm,tool,llm] x1 -> S=3, f1=2, f2=1, n=4
    for steps in ([("llm", "m"), ("tool", "t")], [("llm", "m"), ("tool", "t")], [("llm", "m")],
                  [("llm", "m"), ("tool", "t"), ("llm", "m")]):
        run(eng, "a", steps)
    r = report(eng)
    assert r["paths"]["observed"] == 3
    assert r["paths"]["estimated"] == pytest.approx(3.5)  # 3 + 2*1/(2*2)
    assert r["coverage"]["path"] == pytest.approx(3 / 3.5)
    assert r["paths"]["sample_coverage"] == pytest.approx(0.5)  # 1 - 2/4
    assert r["paths"]["top"][0] == {"path": ["llm", "tool"], "count": 2}


def test_top_and_rarest_paths_list_only_sampled_paths_without_overlap() -> None:
    eng = CoverageEngine(spec(paths={"max_depth": 12}), limits=Limits(max_path_samples=11))
    for n in range(1, 13):  # path of n tools, seen n times; the 12th distinct path keeps no tokens
        for _ in range(n):
            run(eng, "a", [("tool", "t")] * n)
    paths = report(eng)["paths"]
    assert paths["observed"] == 12
    assert [len(p["path"]) for p in paths["top"]] == [11, 10, 9, 8, 7]
    assert [p["count"] for p in paths["rarest"]] == [1, 2, 3, 4, 5]


def test_tool_granularity_and_max_depth() -> None:
    eng = CoverageEngine(spec(paths={"granularity": "tool", "max_depth": 2}))
    run(eng, "a", [("llm", "m"), ("tool", "search"), ("tool", "other")])
    assert report(eng)["paths"]["top"][0]["path"] == ["llm", "tool:search"]


def test_expected_paths() -> None:
    eng = CoverageEngine(spec(paths={"expected": [["llm", "tool"], ["llm"], ["tool"]]}))
    run(eng, "a", [("llm", "m"), ("tool", "t")])
    run(eng, "a", [("llm", "m")])
    r = report(eng)
    assert r["coverage"]["path"] == pytest.approx(2 / 3)
    assert r["paths"]["expected"] == 3


def test_state_uses_outcome_finish_reason_and_state_attributes() -> None:
    eng = CoverageEngine(spec(state_attributes=["app.mode"]))
    run(eng, "a", [("llm", "m", {"gen_ai.response.finish_reasons": ["stop"], "app.mode": "x"}),
                   ("llm", "m", {"gen_ai.response.finish_reasons": ["stop"], "app.mode": "y"}),
                   ("llm", "m", {"gen_ai.response.finish_reasons": ["tool_calls"]}),
                   ("tool", "t"), ("tool", "t", "RuntimeError")])
    assert report(eng)["states"]["observed"] == 5


def test_boundaries_each_condition() -> None:
    eng = CoverageEngine(spec(boundaries={"max_steps": 3, "timeout_s": 10, "cost_limit_tokens": 100,
                                          "min_input_chars": 3}))
    run(eng, "a", [("llm", "m")] * 3)  # max_steps by count
    r = report(eng)
    assert r["boundaries"] == {"max_steps": True, "timeout": False, "cost_limit": False,
                               "empty_input": False, "error_path": False, "tool_failure": False}
    assert r["coverage"]["boundary"] == pytest.approx(1 / 6)
    run(eng, "a", [("llm", "m")], duration_s=10.0)  # timeout by duration
    usage = {"gen_ai.usage.input_tokens": 60, "gen_ai.usage.output_tokens": 30}
    run(eng, "a", [("llm", "m", usage)])
    short = json.dumps([{"role": "user", "parts": [{"type": "text", "content": " hi "}]}])
    run(eng, "a", [("llm", "m", {"gen_ai.input.messages": short})])
    run(eng, "a", [("llm", "m", "RateLimitError")])
    run(eng, "a", [("tool", "t", "RuntimeError")])
    assert all(report(eng)["boundaries"].values())
    assert report(eng)["coverage"]["boundary"] == 1.0


def test_boundary_signals_from_errors() -> None:
    eng = CoverageEngine(spec(boundaries={"conditions": ["max_steps", "timeout"]}))
    run(eng, "a", [("llm", "m")], error="pydantic_ai.exceptions.UsageLimitExceeded")
    run(eng, "a", [("llm", "m", "<class 'openai.APITimeoutError'>")])
    r = report(eng)
    assert r["boundaries"] == {"max_steps": True, "timeout": True}
    # both runs failed: the first by its span, the second on its one call, which failed with
    # nothing after it and its span's status unset (docs/semantics.md#detection-rules)
    assert r["runs"]["errors"] == 2


def test_model_dimension_null_without_known_models_and_left_out_of_overall() -> None:
    # boundaries declared: boundary coverage counts in the overall (docs/semantics.md#overall)
    eng = CoverageEngine(spec(tools=["t", "u"], boundaries={"max_steps": 25}))
    run(eng, "a", [("llm", "gpt-4o-2024-08-06"), ("tool", "t")])
    r = report(eng)
    cov = r["coverage"]
    assert cov["model"] is None
    assert "model" in cov["excluded"]
    dims = [cov[d] for d in ("tool", "path", "state", "boundary")]
    assert cov["overall"] == pytest.approx(math.prod(dims) ** (1 / 4))
    assert cov["weakest"] == min(("tool", "path", "state", "boundary"), key=lambda d: cov[d])


def test_model_dated_match_and_zero_sinks_overall() -> None:
    eng = CoverageEngine(spec(models=["gpt-4o", "claude-sonnet-4-5"], tools=["t"]))
    run(eng, "a", [("llm", "gpt-4o-2024-08-06")])
    r = report(eng)
    assert r["coverage"]["model"] == 0.5
    assert r["coverage"]["tool"] == 0.0
    assert r["coverage"]["overall"] == 0.0
    assert r["coverage"]["weakest"] == "tool"


def test_runs_pass_rate_wilson_contract_and_concerns() -> None:
    eng = CoverageEngine(spec(contract={"must_call": ["search"]}))
    for i in range(10):
        steps: list[Step] = [("llm", "m")]
        if i < 6:
            steps.append(("tool", "search"))
        run(eng, "a", steps, duration_s=float(i + 1))
    r = report(eng)
    runs = r["runs"]
    assert (runs["count"], runs["passed"], runs["errors"]) == (10, 6, 0)
    assert runs["pass_rate"] == pytest.approx(0.6)
    assert runs["pass_rate_ci95"] == pytest.approx(list(wilson(6, 10) or ()))
    assert runs["duration_s"]["mean"] == pytest.approx(5.5)
    assert runs["duration_s"]["p95"] == pytest.approx(10.0, rel=0.01)
    # tool sets: 6 x {search}, 4 x {} -> pairs alike: C(6,2)+C(4,2)=21 of 45
    assert runs["behavior_consistency"] == pytest.approx(21 / 45)
    types = {c["type"]: c["severity"] for c in r["concerns"]}
    assert types == {"low_pass_rate": "high", "inconsistent_behavior": "medium",
                     "high_variance": "medium"}
    # Wilson by hand: centre (0.6 + 1.96²/20) / (1 + 1.96²/10) = 0.5723, half-width
    # 1.96 √(0.024 + 1.96²/400) / 1.3841 = 0.2596: the concern compares the point estimate
    low = next(c for c in r["concerns"] if c["type"] == "low_pass_rate")
    assert low["message"] == "pass rate 60.0% (point estimate; 95% interval [31.3%, 83.2%]) " \
                             "below 80%"
    assert r["coverage"]["insufficient_data"] is False


def test_a_one_run_agent_p95_is_its_duration() -> None:
    for duration in (0.137, 1.234, 7.7, 42.0):
        eng = CoverageEngine()
        run(eng, "a", [("llm", "m")], duration_s=duration)
        got = report(eng)["runs"]["duration_s"]
        assert got["p95"] == pytest.approx(duration, rel=1e-9)
        assert got["p95"] >= got["mean"]


def test_evaluation_scores_drive_variance_not_pass_fail() -> None:
    eng = CoverageEngine()
    for score in (0.9, 0.8, 0.85):
        trace_id = next(_ids)
        eng.ingest(SpanRecord(trace_id=trace_id, span_id=next(_ids), parent_id=None,
                              name="invoke_agent a", end_ns=5,
                              attributes={"gen_ai.operation.name": "invoke_agent",
                                          "gen_ai.agent.name": "a"},
                              events=[("gen_ai.evaluation.result",
                                       {"gen_ai.evaluation.score.value": score})]))
    assert [c["type"] for c in report(eng)["concerns"]] == []


def test_delegation_pct_and_edges() -> None:
    eng = CoverageEngine(CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "a", "tool_edges": {"allowed": ["x", "y"], "delegation": [
            {"from": "a", "to": "b"}, {"from": "a", "to": "c"}]}}]}))
    trace_id, root, tool, child = next(_ids), next(_ids), next(_ids), next(_ids)
    recs = [
        SpanRecord(trace_id, child, tool, "invoke_agent b", 0, 3, 4,
                   attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "b"}),
        SpanRecord(trace_id, tool, root, "execute_tool x", 0, 2, 5,
                   attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x"}),
        SpanRecord(trace_id, root, None, "invoke_agent a", 0, 1, 6,
                   attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}),
    ]
    for rec in recs:
        eng.ingest(rec)
    r = report(eng)
    assert r["delegations"] == [{"from": "a", "to": "b", "count": 1}]
    assert r["edges"]["delegation_pct"] == 50.0
    assert r["edges"]["delegation_declared"] == [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}]
    assert r["edges"]["allowed_pct"] == 50.0
    assert r["paths"]["top"][0]["path"] == ["tool", "delegate"]
    assert "x" not in report(eng, "b")["tools"]["called"]


def _fill(eng: CoverageEngine, seed: int) -> None:
    for i in range(seed, seed + 7):
        steps: list[Step] = [("llm", f"m{i % 2}")] + [("tool", f"t{j}") for j in range(i % 4)]
        run(eng, "a" if i % 3 else "b", steps, error="X" if i % 5 == 0 else None,
            duration_s=0.5 + i, trace_id=10_000 + i)


def test_merge_equals_one_process_seeing_everything() -> None:
    one, left, right = CoverageEngine(), CoverageEngine(), CoverageEngine()
    _fill(one, 0)
    _fill(one, 7)
    _fill(left, 0)
    _fill(right, 7)
    merged = CoverageState()
    merged.merge(left.state)
    merged.merge(right.state)
    other_order = CoverageState()
    other_order.merge(right.state)
    other_order.merge(left.state)
    assert merged.to_dict() == one.state.to_dict()
    assert other_order.to_dict() == one.state.to_dict()


def test_serialize_round_trip_and_file(tmp_path: Path) -> None:
    eng = CoverageEngine()
    _fill(eng, 0)
    data = eng.state.to_dict()
    assert CoverageState.from_dict(json.loads(json.dumps(data))).to_dict() == data
    path = tmp_path / "state.json"
    eng.state.save(path)
    assert CoverageState.load(path).to_dict() == data
    path.write_text("{not json")
    with pytest.raises(StateError, match=r"state\.json: cannot read state"):
        CoverageState.load(path)
    path.write_text(json.dumps({"format": "otel_agentcov.state", "version": 99, "agents": {}}))
    with pytest.raises(StateError, match="version 1"):
        CoverageState.load(path)


@pytest.mark.parametrize("where", ["missing/state.json", "."])
def test_a_failed_save_names_the_target_and_leaves_no_temp_file(tmp_path: Path,
                                                                 where: str) -> None:
    target = tmp_path / where
    with pytest.raises(OSError) as caught:
        CoverageState().save(target)
    assert caught.value.filename == os.fspath(target)  # what `agentcov` prints, not a temp name
    assert [p.name for p in tmp_path.iterdir()] == []


def test_undeclared_boundaries_are_reported_but_not_in_the_overall() -> None:
    """A suite that tried no boundary yet: boundary 0 % is shown, the overall is the other
    dimensions': tool 1/2; path 1/1 (one path seen once: Chao1 1 + 1·0/2 = 1); state 2/3 (two
    states seen once each: Chao1 2 + 2·1/2 = 3), so (1/2 · 1 · 2/3) ** (1/3) = (1/3) ** (1/3);
    declared, the same runs give 0."""
    steps: list[Step] = [("llm", "m"), ("tool", "t")]
    undeclared, declared = (CoverageEngine(spec(tools=["t", "u"], **extra))
                            for extra in ({}, {"boundaries": {"max_steps": 25}}))
    for eng in (undeclared, declared):
        run(eng, "a", steps)
    quiet, loud = report(undeclared)["coverage"], report(declared)["coverage"]
    assert quiet["boundary"] == loud["boundary"] == 0.0
    assert (quiet["tool"], quiet["path"]) == (0.5, 1.0)
    assert quiet["state"] == pytest.approx(2 / 3)
    assert quiet["overall"] == pytest.approx((1 / 3) ** (1 / 3))
    assert quiet["counted"] == ["tool", "path", "state"] and quiet["weakest"] == "tool"
    assert "no `boundaries:` declared" in quiet["excluded"]["boundary"]
    assert (loud["overall"], loud["weakest"]) == (0.0, "boundary")


@pytest.mark.parametrize(("content", "empty"), [("", True), (" hi ", True), ("refund 42", False)])
def test_a_user_message_as_one_string_is_measured_as_its_text(content: str, empty: bool) -> None:
    """The chat-completions message shape (`content` a string, no `parts`): its stripped
    length against min_input_chars 3, not 0 (every such input read as empty before)."""
    eng = CoverageEngine(spec(boundaries={"min_input_chars": 3}))
    messages = json.dumps([{"role": "system", "content": "be brief"},
                           {"role": "user", "content": content}])
    run(eng, "a", [("llm", "m", {"gen_ai.input.messages": messages})])
    assert report(eng)["boundaries"]["empty_input"] is empty


@pytest.mark.parametrize(("parts", "empty"), [
    ([{"type": "text", "content": " hi "}], True),  # the GenAI shape
    ([{"type": "text", "content": "refund 42"}], False),
    ([{"text": "refund 42"}], False),  # Gemini's own shape: `text`, no type
    ([{"text": ""}, {"text": " x "}], True),
    ([], True),  # no part at all: nothing was said
    ([{"type": "image", "uri": "x.png"}], None),  # no text part: not read, no empty input
    ([{"inline_data": {"mime_type": "image/png"}}], None),
])
def test_a_user_message_in_parts_is_measured_by_its_text_parts(
        parts: list[dict[str, object]], empty: bool | None) -> None:
    """A user message made of parts: the stripped text of its text parts, in the GenAI shape or
    Gemini's, against min_input_chars 3; a message none of whose parts is text (an image) is
    input it cannot measure: no run hits `empty_input` for it (it was read as 0 before, and
    Gemini's text parts too: every Gemini CLI run hit it)."""
    eng = CoverageEngine(spec(boundaries={"min_input_chars": 3}))
    messages = json.dumps([{"role": "user", "parts": parts}])
    run(eng, "a", [("llm", "m", {"gen_ai.input.messages": messages})])
    assert report(eng)["boundaries"]["empty_input"] is (empty is True)


def test_restricted_requests_beyond_the_calls_seen_are_denied_attempts() -> None:
    """The model asks for delete_repo three times in one run (two output messages, one asking
    twice); one call runs and one is denied by a decision: the third request, with no span, is
    a denied attempt too. Worked out by hand: executed 1, denied 1 (decision) + (3 requests - 2
    calls seen) = 2, 3 attempts; force_push asked once and run once is executed only."""
    eng = CoverageEngine(spec(tool_edges={"restricted": ["delete_repo", "force_push"]}))

    def asks(*names: str) -> str:
        return json.dumps([{"role": "assistant", "parts": [
            {"type": "tool_call", "id": f"c{i}", "name": n, "arguments": {}}
            for i, n in enumerate(names)]}])

    run(eng, "a", [
        ("llm", "m", {"gen_ai.output.messages": asks("delete_repo", "delete_repo")}),
        ("tool", "delete_repo"),
        ("tool", "delete_repo", {"gen_ai.tool.call.decision": "deny"}),
        ("llm", "m", {"gen_ai.output.messages": asks("delete_repo", "force_push")}),
        ("tool", "force_push"),
    ])
    r = report(eng)
    assert r["edges"]["restricted"] == [
        {"tool": "delete_repo", "outcome": "denied", "count": 2},
        {"tool": "delete_repo", "outcome": "executed", "count": 1},
        {"tool": "force_push", "outcome": "executed", "count": 1},
    ]
    assert r["edges"]["restricted_attempts"] == 4


def test_a_tool_whose_every_call_failed_was_called() -> None:
    """A tool seen only failing was called, so it is not uncovered (never called) but
    errors_only, and it does not count towards tool coverage either (docs/semantics.md: a tool
    counts once a call succeeded): coverage 1 of 4, uncovered t3 and t4."""
    eng = CoverageEngine(spec(tools=["t1", "t2", "t3", "t4"]))
    run(eng, "a", [("tool", "t1")])
    run(eng, "a", [("tool", "t2", "Timeout")])
    tools = report(eng)["tools"]
    assert tools["called"] == {"t1": {"ok": 1, "error": 0}, "t2": {"ok": 0, "error": 1}}
    assert (tools["uncovered"], tools["errors_only"]) == (["t3", "t4"], ["t2"])
    assert report(eng)["coverage"]["tool"] == 0.25


def test_the_step_that_lifts_the_overall_off_zero_comes_first() -> None:
    """Five counted dimensions, model at 0 (neither declared model used), so the overall is 0
    whatever else rises: only naming a model lifts it (docs/semantics.md: the steps that would
    raise the overall most first). Next the tool steps (1/4 each, tool 1/4 -> 2/4 rises the
    geometric mean more than a sixth boundary or a second model would), uncovered before
    errors-only."""
    eng = CoverageEngine(spec(tools=["t1", "t2", "t3", "t4"], models=["m-a", "m-b"],
                              boundaries={"max_steps": 2}))
    run(eng, "a", [("llm", "m-x"), ("tool", "t1")])
    run(eng, "a", [("tool", "t2", "Timeout")])
    r = report(eng)
    assert r["coverage"]["counted"] == ["tool", "path", "state", "boundary", "model"]
    assert (r["coverage"]["model"], r["coverage"]["overall"]) == (0.0, 0.0)
    steps = [(s["kind"], s["subject"]) for s in r["recommendations"]]
    assert steps[:5] == [("model", "m-a"), ("model", "m-b"), ("uncovered_tool", "t3"),
                         ("uncovered_tool", "t4"), ("errors_only_tool", "t2")]


def test_an_agent_without_a_recorded_run_observes_no_path_or_state() -> None:
    """An agent the state knows only from a late event (no run folded): 0 paths and 0 states
    observed, nothing estimated from nothing."""
    from otel_agentcov.snapshot import compute_snapshot

    state = CoverageState()
    state.agent("a", 0)
    r = compute_snapshot(state, spec()).to_dict()["agents"]["a"]
    assert (r["paths"]["observed"], r["paths"]["estimated"]) == (0, None)
    assert (r["states"]["observed"], r["states"]["estimated"]) == (0, None)
