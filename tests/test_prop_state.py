"""Property tests: CoverageState merge laws, caps under merge, and serialize -> load identity.

States are built the real way (spans through a CoverageEngine). Merge must be commutative and
associative with the empty state as identity (exact for counters; float sums to rounding), equal
one process that saw everything, keep every cap, and conserve what it folds. A state file that
is damaged anywhere loads or fails with one StateError, never another exception.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from _builders import agent_attrs, chat_attrs, tool_attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import STATUS_ERROR, SpanRecord
from otel_agentcov.state import OVERFLOW, CoverageState, Limits, StateError

_ids = itertools.count(1)
_trace_ids: dict[int, int] = {}
AGENTS = ("a", "b", "c", "d")

step = st.one_of(
    st.tuples(st.just("tool"), st.sampled_from([f"t{i}" for i in range(8)]), st.booleans()),
    st.tuples(st.just("llm"), st.sampled_from(("m0", "m1", "m2")), st.booleans()),
    st.tuples(st.just("agent"), st.sampled_from(AGENTS), st.booleans()),
)
run = st.tuples(
    st.sampled_from(AGENTS),
    st.lists(step, max_size=6),
    st.integers(1, 10**11),  # duration in ns
    st.none() | st.floats(0, 1),  # evaluation score
)
runs = st.lists(run, max_size=12)


def _attrs(kind: str, name: str) -> dict[str, Any]:
    if kind == "tool":
        return tool_attrs(name)
    if kind == "llm":
        return chat_attrs(name, **{"gen_ai.usage.input_tokens": len(name) * 7})
    return agent_attrs(name)


def feed(engine: CoverageEngine, spec: list[tuple[Any, ...]]) -> None:
    """Each run is one trace: an agent span over its steps (nested agents are delegations).

    A run's trace id is fixed by the run object, so the same run fed anywhere is the same trace.
    """
    for entry in spec:
        agent, steps, duration, score = entry
        trace = _trace_ids.setdefault(id(entry), next(_ids))
        root = 1
        # four versions: below the default max_versions merge is exact; TIGHT keeps only two
        resource = {"service.version": f"v{duration % 4}"}
        for i, (kind, name, failed) in enumerate(steps):
            engine.ingest(SpanRecord(
                trace_id=trace, span_id=i + 2, parent_id=root, name=kind,
                start_ns=i + 1, end_ns=i + 2, status_code=STATUS_ERROR if failed else 0,
                attributes=_attrs(kind, name), resource_attributes=resource,
            ))
        events = () if score is None else (
            ("gen_ai.evaluation.result", {"gen_ai.evaluation.score.value": score}),)
        engine.ingest(SpanRecord(
            trace_id=trace, span_id=root, parent_id=None, name="agent", start_ns=0,
            end_ns=duration, attributes=_attrs("agent", agent), events=events,
            resource_attributes=resource,
        ))


def state_of(spec: list[tuple[Any, ...]], limits: Limits | None = None) -> CoverageState:
    """The state one engine builds from these runs."""
    engine = CoverageEngine(limits=limits)
    feed(engine, spec)
    return engine.state


def merged(*states: CoverageState, limits: Limits | None = None) -> CoverageState:
    out = CoverageState(limits)
    for s in states:
        out.merge(s)
    return out


def close(a: Any, b: Any) -> bool:
    """to_dict() equality, floats to 1e-12: float addition is not associative in the last ulp."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(
            a, b, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def same(a: CoverageState, b: CoverageState) -> bool:
    return close(a.to_dict(), b.to_dict())


@settings(max_examples=60)
@given(runs, runs, runs)
def test_merge_is_commutative_associative_with_identity(
    x: list[Any], y: list[Any], z: list[Any]
) -> None:
    a, b, c = state_of(x), state_of(y), state_of(z)
    assert same(merged(a, b), merged(b, a))
    assert same(merged(merged(a, b), c), merged(a, merged(b, c)))
    assert same(merged(a, CoverageState()), a) and same(merged(CoverageState(), a), a)


@settings(max_examples=60)
@given(runs, runs)
def test_merge_equals_one_process_that_saw_everything(x: list[Any], y: list[Any]) -> None:
    assert same(merged(state_of(x), state_of(y)), state_of(x + y))


TIGHT = Limits(max_agents=2, max_tools=3, max_models=1, max_paths=4, max_states=5,
               max_path_samples=2, max_versions=2)


def _check_caps_and_conservation(state: CoverageState, spec: list[Any]) -> None:
    lim = state.limits
    assert len(state.agents) <= lim.max_agents + 1
    for st_ in state.agents.values():
        assert len(st_.inventory.tools) <= lim.max_tools + 1
        assert len(st_.inventory.tool_definitions) <= lim.max_tools
        assert len(st_.inventory.models) <= lim.max_models + 1
        assert len(st_.diversity.paths) <= lim.max_paths
        assert len(st_.diversity.states) <= lim.max_states
        assert len(st_.diversity.path_tokens) <= lim.max_path_samples
        assert len(st_.edges.delegations) <= lim.max_agents + 1
        assert all(len(names) <= lim.max_tools + 1 for _, _, names in st_.outcomes.tool_sets)
    folds = state.overflow
    agents = state.agents.values()
    # an agent nested in a same-name agent is the same invocation, not a new run
    # (docs/semantics.md#detection-rules)
    delegations = sum(k == "agent" and n != a for a, steps, _, _ in spec for k, n, _ in steps)
    runs_seen = len(spec) + delegations
    assert sum(s.outcomes.runs for s in agents) == runs_seen  # folded runs land in __overflow__
    assert sum(sum(s.diversity.paths.values()) for s in agents) + folds.get("path", 0) == runs_seen
    tool_calls = sum(k == "tool" for _, steps, _, _ in spec for k, _, _ in steps)
    assert sum(ok + err for s in agents for ok, err in s.inventory.tools.values()) == tool_calls
    llm_calls = sum(k == "llm" for _, steps, _, _ in spec for k, _, _ in steps)
    assert sum(sum(s.inventory.models.values()) for s in agents) == llm_calls
    assert sum(sum(s.edges.delegations.values()) for s in agents) == delegations
    same_name = sum(k == "agent" and n == a for a, steps, _, _ in spec for k, n, _ in steps)
    states_seen = sum(len(steps) for _, steps, _, _ in spec) - same_name
    states_kept = sum(sum(s.diversity.states.values()) for s in agents)
    assert states_kept + folds.get("state", 0) == states_seen
    versioned = sum(c.runs for s in agents for c in s.versions.counts.values())
    assert versioned + folds.get("version", 0) == runs_seen  # every run has a version here
    assert all(len(s.versions.counts) <= lim.max_versions for s in agents)


@settings(max_examples=80)
@given(st.lists(runs, min_size=1, max_size=4))
def test_caps_hold_and_folds_are_conserved_in_update_and_merge(parts: list[list[Any]]) -> None:
    everything = [r for part in parts for r in part]
    _check_caps_and_conservation(state_of(everything, TIGHT), everything)
    states = [state_of(part, TIGHT) for part in parts]
    _check_caps_and_conservation(merged(*states, limits=TIGHT), everything)


def test_an_overflow_bucket_merged_in_is_not_folded_twice() -> None:
    full = state_of([(f"agent{i}", [("tool", "t0", False)], 5, None) for i in range(3)], TIGHT)
    assert set(full.agents) == {"agent0", "agent1", OVERFLOW} and full.overflow == {"agent": 1}
    again = merged(full, full, limits=TIGHT)
    assert again.overflow == {"agent": 2}
    assert again.agents[OVERFLOW].outcomes.runs == 2


# ---------------------------------------------------------------- serialize -> load


@settings(max_examples=60)
@given(runs)
def test_to_dict_json_from_dict_is_identity(spec: list[Any]) -> None:
    state = state_of(spec)
    data = state.to_dict()
    assert CoverageState.from_dict(json.loads(json.dumps(data))).to_dict() == data


def test_save_load_is_identity(tmp_path: Path) -> None:
    state = state_of([("a", [("tool", "t1", True), ("llm", "m0", False)], 7, 0.5)] * 3)
    state.save(tmp_path / "s.json")
    assert CoverageState.load(tmp_path / "s.json").to_dict() == state.to_dict()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                               max_size=3),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=300)
@given(st.data(), runs)
def test_a_damaged_state_loads_or_fails_with_one_state_error(data: st.DataObject,
                                                             spec: list[Any]) -> None:
    doc = state_of(spec).to_dict()
    for _ in range(data.draw(st.integers(1, 3))):
        # a place drawn as a number, not from the document's own list of places: a replay of
        # the example may build another document (its runs get fresh trace ids from a global
        # counter), and a strategy changing under Hypothesis fails the test as flaky
        # (FlakyStrategyDefinition, seen once in `make test`) where no damage was found
        paths = _paths(doc)
        path = paths[data.draw(st.integers(min_value=0)) % len(paths)]
        replacement = data.draw(json_values)
        if not path:
            doc = replacement
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = replacement
    try:
        if isinstance(doc, dict):
            CoverageState.from_dict(doc)
    except StateError:
        pass


@pytest.mark.parametrize("content", [
    b"", b"\xff\xfe\x00garbage", b"[" * 100_000, b"{}" , b"[]", b'{"format":"otel_agentcov.state",'
    b'"version":1,"overflow":[1],"agents":{}}', b'{"format":"otel_agentcov.state","version":1,'
    b'"overflow":{"tool":Infinity},"agents":{}}',
])
def test_a_broken_state_file_is_one_state_error_naming_the_file(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(StateError, match=r"broken\.json"):
        CoverageState.load(path)


def test_floats_survive_the_round_trip_exactly() -> None:
    state = state_of([("a", [], 123_456_789, 1 / 3)])
    back = CoverageState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert math.isclose(back.agents["a"].outcomes.score_sum, 1 / 3, rel_tol=0, abs_tol=0)
