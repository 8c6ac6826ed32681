"""Tests for the spec loader: what a user writes in agentcov.yaml and what the engine gets."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from otel_agentcov.judge.contracts import Behaviour, Called, Contract, Selector
from otel_agentcov.spec import (
    DEFAULT_CONDITIONS,
    DEFAULT_GATE_TARGET,
    AgentSpec,
    BoundarySpec,
    CoverageSpec,
    ExpectItem,
    ExpectResult,
    SpecError,
    evaluate_expect,
)

SPEC_EXAMPLE = """\
version: 1
defaults:                       # merged into every agent entry
  paths: {granularity: action, max_depth: 10}
  boundaries: {max_steps: 25, timeout_s: 120, cost_limit_tokens: 200000}
  min_runs: 10
agents:
  - name: triage_agent
    tools: [search, summarize, read_file]
    models: [claude-sonnet-4-5, gpt-4o]
    tool_edges:
      allowed: [search, summarize]
      restricted: [delete_repo, force_push]
      delegation: [{from: triage_agent, to: worker}]
    contract: {must_call: [search]}
    expect:
      - target: edges.restricted_attempts
        matcher: {schema: {maximum: 0}}
      - target: edges.allowed_pct
        matcher: {schema: {minimum: 80}}
"""


def write(tmp_path: Path, text: str, name: str = "agentcov.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def spec_error(data: Any, source: str = "agentcov.yaml") -> str:
    with pytest.raises(SpecError) as info:
        CoverageSpec.from_dict(data, source)
    return str(info.value)


def with_agent(**entry: Any) -> dict[str, Any]:
    return {"version": 1, "agents": [{"name": "a", **entry}]}


# --- loading ---


def test_design_example_loads_from_yaml(tmp_path: Path) -> None:
    path = write(tmp_path, SPEC_EXAMPLE)
    spec = CoverageSpec.from_yaml(path)
    assert spec.source == str(path)
    assert list(spec.agents) == ["triage_agent"]
    agent = spec.agents["triage_agent"]
    assert agent == AgentSpec(
        name="triage_agent",
        tools=("search", "summarize", "read_file"),
        models=("claude-sonnet-4-5", "gpt-4o"),
        allowed=("search", "summarize"),
        restricted=("delete_repo", "force_push"),
        delegation=(("triage_agent", "worker"),),
        contracts=(
            Contract("must_call", (
                Behaviour("called:search", "must", "high", Called(Selector(("search",)))),
            )),
        ),
        expect=(
            ExpectItem("edges.restricted_attempts", {"maximum": 0}),
            ExpectItem("edges.allowed_pct", {"minimum": 80}),
            # the must_call contract is declared, so it gates (at its fail_on, high)
            ExpectItem("contracts.violations_at_or_above_fail_on", {"maximum": 0}),
        ),
        granularity="action",
        max_depth=10,
        boundaries=BoundarySpec(max_steps=25, timeout_s=120.0, cost_limit_tokens=200_000,
                                declared=True),
        min_runs=10,
    )
    assert isinstance(agent.boundaries.timeout_s, float)


def test_from_dict_reads_every_entry_key() -> None:
    spec = CoverageSpec.from_dict(
        with_agent(
            paths={"granularity": "tool", "max_depth": 4, "expected": [["llm", "tool:search"]]},
            state_attributes=["http.status_code"],
            boundaries={
                "max_steps": None,
                "timeout_s": 30,
                "cost_limit_tokens": 1000,
                "cost_limit_usd": 2,
                "min_input_chars": 5,
                "conditions": ["tool_failure", "max_steps"],
            },
            min_runs=3,
            consistency_window=20,
        )
    )
    agent = spec.agents["a"]
    assert spec.source == "<dict>"
    assert agent.granularity == "tool"
    assert agent.max_depth == 4
    assert agent.expected_paths == (("llm", "tool:search"),)
    assert agent.state_attributes == ("http.status_code",)
    assert agent.boundaries == BoundarySpec(
        max_steps=None,
        timeout_s=30.0,
        cost_limit_tokens=1000,
        cost_limit_usd=2.0,
        min_input_chars=5,
        conditions=("max_steps", "tool_failure"),  # canonical order
        declared=True,
    )
    assert (agent.min_runs, agent.consistency_window) == (3, 20)
    assert agent.tools is None and agent.allowed is None  # not declared


def test_from_dict_accepts_tuples_and_does_not_alias_input() -> None:
    schema = {"maximum": 3}
    data = {"version": 1, "agents": ({"name": "a", "tools": ("x",), "expect": [
        {"target": "runs.count", "matcher": {"schema": schema}}]},)}  # fmt: skip
    spec = CoverageSpec.from_dict(data)
    schema["maximum"] = 99
    assert spec.agents["a"].tools == ("x",)
    assert spec.agents["a"].expect[0].schema == {"maximum": 3}


def test_empty_spec_gives_defaults_and_default_gate() -> None:
    spec = CoverageSpec.empty()
    assert spec.agents == {}
    agent = spec.for_agent("anyone")
    assert agent == AgentSpec(name="anyone")
    assert agent.expect == (ExpectItem(DEFAULT_GATE_TARGET, {"maximum": 0}),)
    assert agent.boundaries.conditions == DEFAULT_CONDITIONS


# --- defaults, "*", fallback, default gate ---

MERGE_SPEC = {
    "version": 1,
    "defaults": {
        "tools": ["search"],
        "tool_edges": {"restricted": ["delete_repo"]},
        "boundaries": {"max_steps": 7, "timeout_s": 60},
        "paths": {"granularity": "tool"},
        "state_attributes": ["tenant"],
        "expect": [{"target": "coverage.overall", "matcher": {"schema": {"minimum": 0.5}}}],
    },
    "agents": [
        {
            "name": "own",
            "tools": ["read_file"],
            "tool_edges": {"allowed": ["read_file"]},
            "boundaries": {"timeout_s": 10},
            "state_attributes": ["region"],
            "expect": [],
        },
        {"name": "inherits"},
        {"name": "*", "models": ["gpt-4o"]},
    ],
}


def test_defaults_are_deep_merged_and_entry_wins() -> None:
    spec = CoverageSpec.from_dict(MERGE_SPEC)
    own = spec.agents["own"]
    assert own.tools == ("read_file",)  # entry wins (lists are replaced, not joined)
    assert own.allowed == ("read_file",)
    assert own.restricted == ("delete_repo",)  # sibling key under tool_edges kept
    assert own.boundaries.max_steps == 7  # from defaults
    assert own.boundaries.timeout_s == 10.0  # from the entry
    assert own.granularity == "tool"
    assert own.state_attributes == ("region",)
    # declared empty, but restricted tools are declared: the restricted check stays
    assert own.expect == (RESTRICTED_CHECK,)
    inherits = spec.agents["inherits"]
    assert inherits.tools == ("search",)
    assert inherits.boundaries.max_steps == 7
    assert inherits.expect == (ExpectItem("coverage.overall", {"minimum": 0.5}), RESTRICTED_CHECK)


def test_star_entry_serves_undeclared_agents_with_defaults_merged() -> None:
    spec = CoverageSpec.from_dict(MERGE_SPEC)
    other = spec.for_agent("stranger")
    assert other.name == "stranger"
    assert other.models == ("gpt-4o",)  # from "*"
    assert other.tools == ("search",)  # from defaults, merged into "*"
    assert other.boundaries.max_steps == 7
    assert spec.for_agent("own") is spec.agents["own"]
    assert spec.for_agent("*") is spec.agents["*"]


def test_fallback_without_star_is_built_from_defaults() -> None:
    data = {**MERGE_SPEC, "agents": [{"name": "own"}]}
    spec = CoverageSpec.from_dict(data)
    other = spec.for_agent("stranger")
    assert other.name == "stranger"
    assert other.tools == ("search",)
    assert other.restricted == ("delete_repo",)
    assert other.models == ()
    assert other.boundaries == BoundarySpec(max_steps=7, timeout_s=60.0, declared=True)
    assert other.expect == (ExpectItem("coverage.overall", {"minimum": 0.5}), RESTRICTED_CHECK)


RESTRICTED_CHECK = ExpectItem("edges.restricted_attempts", {"maximum": 0})


def test_expect_list_without_a_restricted_target_keeps_the_restricted_check() -> None:
    """An expect list written for other targets must not switch off the restricted check, even
    where no tool is restricted yet (a top-level or later restriction must gate)."""
    overall = {"target": "coverage.overall", "matcher": {"schema": {"minimum": 0.5}}}
    own_threshold = {"target": "edges.restricted_attempts", "matcher": {"schema": {"maximum": 3}}}
    gate_passed = {"target": "edges.gate_passed", "matcher": {"schema": {"const": 1}}}
    cases = [  # (tool_edges, expect) -> the checks the agent gets
        ({"restricted": ["rm"]}, [overall], [overall, "restricted"]),
        ({"restricted": ["rm"]}, [], ["restricted"]),
        ({"restricted": ["rm"]}, [overall, own_threshold], [overall, own_threshold]),
        ({"restricted": ["rm"]}, [gate_passed], [gate_passed]),
        ({"allowed": ["ls"]}, [overall], [overall, "restricted"]),  # kept though none declared
        ({}, [], ["restricted"]),  # an empty expect list keeps it too
    ]
    for edges, expect, want in cases:
        spec = CoverageSpec.from_dict(
            {"version": 1, "agents": [{"name": "a", "tool_edges": edges, "expect": expect}]})
        got = spec.agents["a"].expect
        assert got == tuple(
            RESTRICTED_CHECK if w == "restricted"
            else ExpectItem(w["target"], w["matcher"]["schema"])  # type: ignore[index]
            for w in want
        ), (edges, expect)


def test_entry_without_expect_gets_default_gate() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a"}, {"name": "b"}]})
    gate = (ExpectItem(DEFAULT_GATE_TARGET, {"maximum": 0}),)
    assert spec.agents["a"].expect == gate
    assert spec.for_agent("undeclared").expect == gate
    # each spec owns its gate schema: mutating one must not leak into another
    assert spec.agents["a"].expect[0].schema is not spec.agents["b"].expect[0].schema


def test_for_agent_is_cached_and_safe_under_threads() -> None:
    spec = CoverageSpec.from_dict(MERGE_SPEC)
    seen: list[AgentSpec] = []

    def look() -> None:
        for _ in range(200):
            seen.append(spec.for_agent("stranger"))

    threads = [threading.Thread(target=look) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 1600
    assert all(s == seen[0] and s.name == "stranger" for s in seen)
    assert spec.for_agent("stranger") is spec.for_agent("stranger")


def test_state_attribute_names_union_over_entries_and_defaults() -> None:
    spec = CoverageSpec.from_dict(MERGE_SPEC)
    assert set(spec.state_attribute_names) == {"tenant", "region"}
    assert len(spec.state_attribute_names) == 2


# --- with_inventory ---


def test_with_inventory_sets_defaults_but_keeps_declared_lists() -> None:
    spec = CoverageSpec.from_dict(
        {
            "version": 1,
            "agents": [{"name": "own", "tools": ["mine"], "models": ["m1"]}, {"name": "bare"}],
        },
        source="agentcov.yaml",
    )
    updated = spec.with_inventory(["t1", "t2"], ["gpt-4o"])
    assert updated.source == "agentcov.yaml"
    assert updated.agents["own"].tools == ("mine",)
    assert updated.agents["own"].models == ("m1",)
    assert updated.agents["bare"].tools == ("t1", "t2")
    assert updated.agents["bare"].models == ("gpt-4o",)
    assert updated.for_agent("stranger").tools == ("t1", "t2")
    assert spec.agents["bare"].tools is None  # the original is unchanged


def test_with_inventory_none_leaves_that_list_alone() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "defaults": {"models": ["x"]}})
    updated = spec.with_inventory(["t"], None)
    assert updated.for_agent("a").tools == ("t",)
    assert updated.for_agent("a").models == ("x",)


# --- invalid specs: one line, file name, path inside, what was expected ---


@pytest.mark.parametrize(
    ("data", "path", "expected"),
    [
        ({"agents": []}, "version", "required key is missing"),
        ({"version": 2}, "version", "expected 1, got 2"),
        ({"version": 1, "agentz": []}, "agentz", "unknown key"),
        (
            {"version": 1, "agents": [{"name": "a"}, {"name": "b", "tools": "search"}]},
            "agents[1].tools",
            "expected an array of strings, got 'search'",
        ),
        (with_agent(tools=["x", 3]), "agents[0].tools[1]", "expected a string, got 3"),
        ({"version": 1, "agents": [{"tools": []}]}, "agents[0].name", "required key is missing"),
        (with_agent(toolz=["x"]), "agents[0].toolz", "unknown key"),
        (
            with_agent(tool_edges={"allowed": "search"}),
            "agents[0].tool_edges.allowed",
            "expected an array of strings",
        ),
        (
            with_agent(tool_edges={"delegation": [{"from": "a"}]}),
            "agents[0].tool_edges.delegation[0].to",
            "required key is missing",
        ),
        (
            with_agent(expect=[{"target": "edges.nope", "matcher": {"schema": {}}}]),
            "agents[0].expect[0].target",
            "got 'edges.nope'",
        ),
        (
            with_agent(expect=[{"target": "runs.count", "matcher": {}}]),
            "agents[0].expect[0].matcher.schema",
            "required key is missing",
        ),
        (
            with_agent(expect=[{"target": "runs.count", "matcher": {"schema": 5}}]),
            "agents[0].expect[0].matcher.schema",
            "expected a JSON Schema mapping, got 5",
        ),
        (
            with_agent(paths={"granularity": "step"}),
            "agents[0].paths.granularity",
            "expected one of: action, tool; got 'step'",
        ),
        (with_agent(paths={"max_depth": 0}), "agents[0].paths.max_depth", ">= 1, got 0"),
        (
            with_agent(paths={"expected": [["llm", "tol"]]}),
            "agents[0].paths.expected[0][1]",
            "expected a path token",
        ),
        (
            {"version": 1, "defaults": {"boundaries": {"timeout_s": 0}}},
            "defaults.boundaries.timeout_s",
            "> 0, got 0",
        ),
        (
            {"version": 1, "defaults": {"boundaries": {"conditions": ["timeout", "oops"]}}},
            "defaults.boundaries.conditions[1]",
            "got 'oops'",
        ),
        ({"version": 1, "defaults": {"name": "x"}}, "defaults.name", "unknown key"),
        ({"version": 1, "defaults": {"min_runs": True}}, "defaults.min_runs", "got true"),
        (with_agent(name=""), "agents[0].name", "expected a non-empty string"),
        (
            {"version": 1, "agents": [{"name": "a"}, {"name": "b"}, {"name": "a"}]},
            "agents[2].name",
            "duplicate agent name 'a'",
        ),
        ([1, 2], "(top level)", "expected a spec mapping"),
    ],
)
def test_invalid_spec_names_file_and_path(data: Any, path: str, expected: str) -> None:
    message = spec_error(data)
    assert "\n" not in message
    source, where, what = message.split(": ", 2)
    assert source == "agentcov.yaml"
    assert where == path
    assert expected in what


@pytest.mark.parametrize(
    ("schema", "path", "expected"),
    [
        ({"maximum": "zero"}, "maximum", "expected a number, got 'zero'"),
        ({"type": "numbr"}, "type", "got 'numbr'"),
        ({"maximun": 0}, "maximun", "unknown JSON Schema keyword"),
    ],
)
def test_invalid_matcher_schema_is_reported_with_its_path(
    schema: dict[str, Any], path: str, expected: str
) -> None:
    data = {
        "version": 1,
        "defaults": {"expect": [{"target": "runs.count", "matcher": {"schema": {"minimum": 1}}}]},
        "agents": [
            {"name": "a"},
            {"name": "b", "expect": [{"target": "runs.count", "matcher": {"schema": schema}}]},
        ],
    }
    source, where, what = spec_error(data).split(": ", 2)
    assert source == "agentcov.yaml"
    assert where == f"agents[1].expect[0].matcher.schema.{path}"
    assert expected in what


def test_invalid_matcher_schema_in_defaults() -> None:
    data = {"version": 1, "defaults": {"expect": [
        {"target": "runs.count", "matcher": {"schema": {"minimum": "x"}}}]}}  # fmt: skip
    assert spec_error(data).startswith("agentcov.yaml: defaults.expect[0].matcher.schema.minimum: ")


def test_invalid_yaml_file_message_names_file_and_path(tmp_path: Path) -> None:
    path = write(tmp_path, "version: 1\nagents:\n  - name: a\n  - name: b\n    tools: search\n")
    with pytest.raises(SpecError) as info:
        CoverageSpec.from_yaml(path)
    assert str(info.value) == (
        f"{path}: agents[1].tools: expected an array of strings, got 'search'"
    )


def test_unparseable_yaml_reports_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "version: 1\nagents:\n  - name: a\n    tools: [a, b\n", "broken.yaml")
    with pytest.raises(SpecError) as info:
        CoverageSpec.from_yaml(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: line 5, column 1: not valid YAML: ")


def test_tab_indented_yaml_reports_line(tmp_path: Path) -> None:
    path = write(tmp_path, "version: 1\nagents:\n  - name: a\n\ttools: [x]\n")
    with pytest.raises(SpecError, match=r"agentcov\.yaml: line 4, column 1: not valid YAML"):
        CoverageSpec.from_yaml(path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the file is empty"),
        (b"version: 1\n\xff\xfe\n", "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"version: 1\ndefaults: {expect: [{target: runs.count, matcher: {schema: "
         + b'{"not": ' * 180 + b"{}" + b"}" * 180 + b"}}]}", "nested too deeply"),
    ],
)
def test_unusable_file_contents(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(content)
    with pytest.raises(SpecError) as info:
        CoverageSpec.from_yaml(path)
    assert str(info.value).startswith(f"{path}: ")
    assert expected in str(info.value)


def test_missing_and_directory_paths(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"nope\.yaml: cannot read: No such file"):
        CoverageSpec.from_yaml(tmp_path / "nope.yaml")
    with pytest.raises(SpecError, match="cannot read"):
        CoverageSpec.from_yaml(tmp_path)


# --- expect evaluation ---


def test_evaluate_expect_pass_fail_none_and_unknown() -> None:
    items = [
        ExpectItem("edges.restricted_attempts", {"maximum": 0}),
        ExpectItem("edges.allowed_pct", {"minimum": 80}),
        ExpectItem("coverage.tool", {"minimum": 0.8}),
        ExpectItem("coverage.model", {"minimum": 0.5}),
        ExpectItem("no.such.target", {}),
    ]
    values: dict[str, float | int | None] = {
        "edges.restricted_attempts": 1,
        "edges.allowed_pct": 66.666666666,
        "coverage.tool": 0.9,
        "coverage.model": None,
    }
    assert evaluate_expect(items, values) == [
        ExpectResult("edges.restricted_attempts", 1, False, "1 is greater than the maximum of 0"),
        ExpectResult(
            "edges.allowed_pct", 66.666666666, False, "66.6667 is less than the minimum of 80"
        ),
        ExpectResult("coverage.tool", 0.9, True, ""),
        ExpectResult("coverage.model", None, False, "n/a: no value"),
        ExpectResult("no.such.target", None, False, "unknown target"),
    ]


def test_evaluate_expect_none_fails_even_an_empty_schema() -> None:
    [result] = evaluate_expect([ExpectItem("runs.count", {})], {"runs.count": None})
    assert not result.passed


def test_evaluate_expect_other_keywords_use_jsonschema_wording() -> None:
    items = [ExpectItem("runs.count", {"type": "integer", "multipleOf": 2})]
    assert evaluate_expect(items, {"runs.count": 4})[0].passed
    [result] = evaluate_expect(items, {"runs.count": 3})
    assert not result.passed
    assert result.reason == "3 is not a multiple of 2"


def test_evaluate_expect_with_spec_gate(tmp_path: Path) -> None:
    agent = CoverageSpec.from_yaml(write(tmp_path, SPEC_EXAMPLE)).for_agent("triage_agent")
    values = {"edges.restricted_attempts": 0, "edges.allowed_pct": 100.0,
              "contracts.violations_at_or_above_fail_on": 0}
    assert [r.passed for r in evaluate_expect(agent.expect, values)] == [True, True, True]
