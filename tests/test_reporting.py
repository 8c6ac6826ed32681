"""Reporters render a hand-built report dict; these pin the layouts, not the coverage maths."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import pytest

from otel_agentcov.reporting import FORMATS, render
from otel_agentcov.reporting.json_report import render_json
from otel_agentcov.reporting.markdown import escape, render_markdown
from otel_agentcov.reporting.text import render_text


def _merge(base: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge so a test overrides only the leaves it cares about."""
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
    return base


_AGENT: dict[str, Any] = {
    "runs": {
        "count": 50, "errors": 3, "passed": 36, "pass_rate": 0.72,
        "pass_rate_ci95": [0.594, 0.821], "duration_s": {"mean": 4.2, "p95": 9.8},
        "tokens": {"mean": 1800.0, "p95": 4100.0}, "behavior_consistency": 0.81,
    },
    "coverage": {
        "tool": 0.8, "path": 0.65, "state": 0.72, "boundary": 0.4, "model": 0.5,
        "overall": 0.6, "weakest": "boundary", "insufficient_data": False, "excluded": {},
    },
    "tools": {
        "known": ["search", "summarize", "read_file", "list_dir", "write_file"],
        "called": {
            "search": {"ok": 40, "error": 2}, "summarize": {"ok": 30, "error": 0},
            "read_file": {"ok": 12, "error": 1}, "list_dir": {"ok": 5, "error": 0},
            "delete_repo": {"ok": 1, "error": 0}, "shell": {"ok": 2, "error": 0},
        },
        "uncovered": ["write_file"], "undeclared": ["shell"], "discovered": False,
    },
    "models": {
        "known": ["claude-sonnet-4-5", "gpt-4o"], "used": {"claude-sonnet-4-5-20250929": 80},
    },
    "paths": {
        "observed": 13, "estimated": 20.0, "sample_coverage": 0.9, "expected": None,
        "top": [{"path": ["llm", "tool", "llm"], "count": 20}],
    },
    "states": {"observed": 18, "estimated": 25.0, "sample_coverage": 0.88},
    "boundaries": {
        "max_steps": True, "timeout": False, "cost_limit": False, "error_path": True,
        "tool_failure": False,
    },
    "delegations": [{"from": "triage_agent", "to": "worker", "count": 7}],
    "edges": {
        "allowed_pct": 80.0, "restricted_attempts": 1, "delegation_pct": 50.0, "gate_passed": 0,
        "restricted": [{"tool": "delete_repo", "outcome": "executed", "count": 1}],
    },
    "concerns": [{
        "type": "low_pass_rate", "severity": "high",
        "message": "pass rate 72.0% [59.4%, 82.1%] below 80%",
    }],
    "expect": [{"target": "edges.restricted_attempts", "value": 1, "passed": False}],
}


def agent(**overrides: Any) -> dict[str, Any]:
    """A full, valid agent entry (the numbers of the text-report example) with deep overrides."""
    return _merge(copy.deepcopy(_AGENT), overrides)


def report(agents: Mapping[str, Any] | None = None, **spans: Any) -> dict[str, Any]:
    """A full report dict; ``agents`` defaults to the example's triage_agent."""
    return {
        "version": 1,
        "agents": {"triage_agent": agent()} if agents is None else dict(agents),
        "spans": {
            "processed": 92, "by_kind": {"llm": 12, "tool": 30, "agent": 50}, "dropped": {},
            **spans,
        },
    }


def _lines(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


HEADER = "==================== agent coverage: triage_agent (50 runs) ===================="

SPANS_LINE = "spans: 92 processed (llm 12 · tool 30 · agent 50), dropped"
TEXT_EXAMPLE = "\n".join([
    HEADER,
    "Tool coverage       ████████████████░░░░   80%  (4/5 tools)",
    "Path coverage       █████████████░░░░░░░   65%  (13 paths seen of ~20 estimated)",
    "State coverage      ██████████████░░░░░░   72%  (18 states seen of ~25 estimated)",
    "Boundary coverage   ████████░░░░░░░░░░░░   40%  (2/5 conditions)",
    "Model coverage      ██████████░░░░░░░░░░   50%  (1/2 models)",
    "Overall             ████████████░░░░░░░░   60%  MODERATE",
    "Weakest dimension   boundary (40%)",
    "Tool edges          allowed 80% · delegation 50% · restricted attempts 1 (delete_repo ×1)"
    " · would fail the gate",
    "Concerns            high: pass rate 72.0% [59.4%, 82.1%] below 80%",
    "",
    f"{SPANS_LINE} 0",
    "",
])


def test_text_matches_design_example_exactly() -> None:
    assert render_text(report()) == TEXT_EXAMPLE


def test_text_null_dimensions_show_na_with_reason() -> None:
    a = agent(
        coverage={"model": None, "tool": None, "excluded": {"model": "no known models"}},
        edges={"allowed_pct": None, "delegation_pct": None},
    )
    out = render_text(report({"triage_agent": a}))
    assert "Model coverage      " + "·" * 20 + "   n/a  (no known models)\n" in out
    assert "Tool coverage       " + "·" * 20 + "   n/a  (nothing to measure)\n" in out
    assert "allowed n/a · delegation n/a ·" in out


def test_text_overall_null_and_no_weakest() -> None:
    dims = dict.fromkeys(("tool", "path", "state", "boundary", "model", "overall", "weakest"))
    a = agent(coverage={**dims, "excluded": {"overall": "no dimension measured"}})
    out = render_text(report({"a": a}))
    na_bar = "·" * 20
    assert _lines(out, "Overall") == [
        f"Overall             {na_bar}   n/a  (no dimension measured)"
    ]
    assert _lines(out, "Weakest") == ["Weakest dimension   n/a"]


@pytest.mark.parametrize(
    ("overall", "status"),
    [
        (0.80, "STRONG"), (0.7999, "MODERATE"), (0.50, "MODERATE"), (0.4999, "WEAK"),
        (1.0, "STRONG"), (0.0, "WEAK"),
    ],
)
def test_status_thresholds_are_inclusive(overall: float, status: str) -> None:
    out = render_text(report({"a": agent(coverage={"overall": overall})}))
    assert _lines(out, "Overall")[0].endswith(f"%  {status}")
    assert f"| {status} |" in render_markdown(report({"a": agent(coverage={"overall": overall})}))


@pytest.mark.parametrize(
    ("ratio", "bar", "pct"),
    [(1.0, "█" * 20, " 100%"), (0.999, "█" * 19 + "░", "  99%"), (0.001, "█" + "░" * 19, "   1%"),
     (0.0, "░" * 20, "   0%")],
)
def test_bar_and_percent_never_round_to_the_ends(ratio: float, bar: str, pct: str) -> None:
    out = render_text(report({"a": agent(coverage={"tool": ratio})}))
    assert _lines(out, "Tool coverage")[0].startswith(f"Tool coverage       {bar} {pct}  ")


def test_text_gate_passed_and_no_concerns_and_insufficient_note() -> None:
    a = agent(
        edges={"restricted_attempts": 0, "gate_passed": 1, "restricted": []},
        concerns=[],
        coverage={"insufficient_data": True},
    )
    out = render_text(report({"a": a}))
    assert _lines(out, "Tool edges") == [
        "Tool edges          allowed 80% · delegation 50% · restricted attempts 0 · "
        "restricted check passes"
    ]
    assert _lines(out, "Concerns") == ["Concerns            none"]
    assert _lines(out, "Note") == [
        "Note                fewer runs than min_runs: estimates are unreliable"
    ]


def test_text_restricted_totals_per_tool_and_concerns_joined() -> None:
    a = agent(
        edges={"restricted_attempts": 4, "restricted": [
            {"tool": "delete_repo", "outcome": "executed", "count": 1},
            {"tool": "force_push", "outcome": "denied", "count": 1},
            {"tool": "delete_repo", "outcome": "denied", "count": 2},
        ]},
        concerns=[
            {"type": "low_pass_rate", "severity": "critical", "message": "pass rate 40%"},
            {"type": "inconsistent_behavior", "severity": "medium", "message": "consistency 0.6"},
        ],
    )
    out = render_text(report({"a": a}))
    assert "restricted attempts 4 (delete_repo ×3, force_push ×1) · would fail the gate" in out
    assert _lines(out, "Concerns") == [
        "Concerns            critical: pass rate 40%; medium: consistency 0.6"
    ]


def test_text_expected_paths_and_discovered_tools() -> None:
    a = agent(
        paths={"expected": 8},
        coverage={"path": 0.375},
        tools={"discovered": True},
    )
    out = render_text(report({"a": a}))
    assert _lines(out, "Path coverage")[0].endswith("  (3/8 expected paths)")
    assert _lines(out, "Tool coverage")[0].endswith("  (4/5 discovered tools)")


def test_text_several_agents_one_run_and_dropped_spans() -> None:
    out = render_text(report(
        {"a": agent(runs={"count": 1}), "b": agent()},
        dropped={"trace_limit": 2, "span_limit": 0, "idle_ttl": 1},
    ))
    headers = [line for line in out.splitlines() if line.startswith("=")]
    assert [h.strip("= ") for h in headers] == [
        "agent coverage: a (1 run)", "agent coverage: b (50 runs)"
    ]
    assert all(h.startswith("=" * 20 + " ") and h.endswith(" " + "=" * 20) for h in headers)
    assert out.endswith(f"\n\n{SPANS_LINE} 3 (trace_limit 2 · idle_ttl 1)\n")


def test_text_empty_report() -> None:
    out = render_text(report({}, processed=0, by_kind={}))
    assert out == "no agent runs recorded\n\nspans: 0 processed, dropped 0\n"


def test_markdown_summary_and_sections() -> None:
    out = render_markdown(report())
    assert out.startswith("# Agent coverage\n\n")
    assert (
        "| agent | runs | overall | status | tool | path | state | boundary | model "
        "| restricted attempts | gate |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
        "| triage_agent | 50 | 60% | MODERATE | 80% | 65% | 72% | 40% | 50% | 1 | **FAILED** |\n"
    ) in out
    assert "## triage_agent\n" in out
    assert "| tool | 80% | 4/5 tools |" in out
    assert "| path | 65% | 13 paths seen of ~20 estimated |" in out
    assert "| **overall** | **60%** | MODERATE |" in out
    assert "Weakest dimension: boundary (40%)" in out
    assert "| search | 40 | 2 | covered |" in out
    assert "| write_file | 0 | 0 | uncovered |" in out
    assert "| shell | 2 | 0 | undeclared |" in out
    assert "| delete_repo | 1 | 0 | restricted |" in out
    assert "| delete_repo | executed | 1 |" in out
    assert "| triage_agent | worker | 7 |" in out
    assert "- high: pass rate 72.0% \\[59.4%, 82.1%\\] below 80%" in out
    assert "| edges.restricted_attempts | 1 | **FAIL** |" in out
    assert out.endswith(f"\n\n_{SPANS_LINE} 0_\n")


def test_markdown_escapes_pipes_and_markup_in_names() -> None:
    a = agent(
        tools={"known": ["a|b"], "called": {"a|b": {"ok": 1, "error": 0}}, "undeclared": []},
        delegations=[{"from": "x|y", "to": "<script>", "count": 1}],
    )
    out = render_markdown(report({"bad|agent_name": a}))
    assert "| bad\\|agent_name | 50 |" in out
    assert "## bad\\|agent_name\n" in out
    assert "| a\\|b | 1 | 0 | covered |" in out
    assert "| x\\|y | \\<script\\> | 1 |" in out
    assert escape("_lead *bold* `code` trail_") == "\\_lead \\*bold\\* \\`code\\` trail\\_"
    assert escape("two\nlines") == "two\\\\nlines"  # shown as `two\nlines`: one line


def test_markdown_empty_sections_and_empty_report() -> None:
    a = agent(
        edges={"restricted_attempts": 0, "gate_passed": 1, "restricted": []},
        delegations=[], concerns=[], expect=[], coverage={"insufficient_data": True},
    )
    out = render_markdown(report({"a": a}))
    assert "| 0 | passed |" in out
    assert "### Restricted attempts\n\n_none_\n" in out
    assert "### Delegations\n\n_none_\n" in out
    assert "### Concerns\n\n_none_\n" in out
    assert "### Expectations\n\n_none_\n" in out
    assert "> **Note:** fewer runs than min_runs: estimates are unreliable" in out
    empty = render_markdown(report({}))
    assert empty.startswith("# Agent coverage\n\nNo agent runs recorded.\n")


def test_markdown_null_dimension_detail_is_reason() -> None:
    a = agent(coverage={"model": None, "excluded": {"model": "no known models"}})
    assert "| model | n/a | no known models |" in render_markdown(report({"a": a}))


def test_json_round_trip_is_stable() -> None:
    r = report()
    out = render_json(r)
    assert out.endswith("}\n")
    assert json.loads(out) == r
    assert list(json.loads(out)["agents"]["triage_agent"]) == list(r["agents"]["triage_agent"])
    assert out.splitlines()[1] == '  "version": 1,'
    assert render_json(json.loads(out)) == out


def test_render_dispatches_every_format() -> None:
    r = report()
    assert FORMATS == ("text", "json", "markdown")
    assert render(r, "text") == render_text(r)
    assert render(r, "json") == render_json(r)
    assert render(r, "markdown") == render_markdown(r)


def test_render_unknown_format_is_one_line_error() -> None:
    expected = r"^unknown report format 'html' \(expected one of: text, json, markdown\)$"
    with pytest.raises(ValueError, match=expected):
        render(report(), "html")


def test_a_zero_dimension_headline_says_why_the_overall_is_zero() -> None:
    """A zero dimension says why the overall is 0; boundary is the weakest only where boundaries
    are declared (docs/semantics.md#overall), so it says how to raise it."""
    from otel_agentcov.reporting._format import weakest_summary

    line = weakest_summary({"weakest": "boundary", "boundary": 0.0})  # type: ignore[typeddict-item]
    assert line == ("boundary (0%) makes the overall 0% (a geometric mean); boundaries are "
                    "declared but none was hit: provoke them (next steps) or list only the ones "
                    "you test in `boundaries.conditions`")
    assert weakest_summary({"weakest": "tool", "tool": 0.0}) == (  # type: ignore[typeddict-item]
        "tool (0%) makes the overall 0% (a geometric mean)")
