"""Formatting shared by the text and Markdown reporters.

Both reporters phrase numbers, statuses and per-dimension details the same way, so the wording
lives here once; the reporters only decide layout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from otel_agentcov.snapshot import schema
from otel_agentcov.snapshot.schema import (
    DIMENSIONS,
    AgentReport,
    AnyDimension,
    Concern,
    Contexts,
    Coverage,
    Edges,
    Narrative,
    Runs,
    SpanStats,
    ToolArgumentRow,
    Tools,
    Version,
)
from otel_agentcov.stats.verdicts import INCONCLUSIVE

if TYPE_CHECKING:
    from otel_agentcov.spec import CoverageSpec

BAR_WIDTH = 20
STRONG_AT = 0.80
MODERATE_AT = 0.50
NA = "n/a"
FILLED, EMPTY, ABSENT = "█", "░", "·"
INSUFFICIENT_NOTE = "fewer runs than min_runs: estimates are unreliable"
NO_RUNS = "no agent runs recorded"


def scaled(ratio: float, steps: int) -> int:
    """Round ``ratio * steps``, but never to full unless complete nor to zero unless nothing.

    A 99.6% dimension shown as "100%" or a full bar would hide a gap, so the ends are exact.
    """
    value = round(ratio * steps)
    if ratio < 1.0:
        value = min(value, steps - 1)
    if ratio > 0.0:
        value = max(value, 1)
    return value


def percent(ratio: float | None) -> str:
    """A 0..1 ratio as a whole percentage (``80%``), ``n/a`` when there is nothing to measure."""
    return NA if ratio is None else f"{scaled(ratio, 100)}%"


def percent_of_100(value: float | None) -> str:
    """A 0..100 value (the ``edges.*_pct`` fields) phrased like :func:`percent`."""
    return percent(None if value is None else value / 100.0)


def bar(ratio: float | None) -> str:
    """A fixed-width bar; a dotted bar for n/a so it cannot be mistaken for 0%."""
    if ratio is None:
        return ABSENT * BAR_WIDTH
    filled = scaled(ratio, BAR_WIDTH)
    return FILLED * filled + EMPTY * (BAR_WIDTH - filled)


def status(overall: float | None) -> str:
    """The AgentAssay verdict for an overall score (thresholds are inclusive)."""
    if overall is None:
        return NA
    if overall >= STRONG_AT:
        return "STRONG"
    if overall >= MODERATE_AT:
        return "MODERATE"
    return "WEAK"


def plural(count: int, noun: str) -> str:
    """``1 run`` / ``2 runs``: reports read as prose."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def number(value: float | int | None) -> str:
    """A measured value without float noise (``0.8``, ``12``), ``n/a`` for None."""
    if value is None:
        return NA
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def excluded_reason(agent: AgentReport, dimension: str) -> str:
    """Why a dimension is n/a, as the snapshot recorded it."""
    reason = agent["coverage"].get("excluded", {}).get(dimension)
    return str(reason) if reason else "nothing to measure"


def _estimate(observed: int, estimated: float | None, noun: str) -> str:
    if estimated is None:
        return f"{plural(observed, noun)} seen"
    return f"{plural(observed, noun)} seen of ~{round(estimated)} estimated"


def dimensions(agent: AgentReport) -> tuple[AnyDimension, ...]:
    """The dimensions an agent's report shows: the five, and skills for an agent with any
    (docs/semantics.md#skills), so reports of agents without skills are as they were."""
    return (*DIMENSIONS, "skill") if "skills" in agent else DIMENSIONS


def dimension_ratio(coverage: Coverage, dimension: AnyDimension) -> float | None:
    """A dimension's ratio, skill coverage included (a key only agents with skills have)."""
    return coverage.get("skill") if dimension == "skill" else coverage[dimension]


def dimension_detail(agent: AgentReport, dimension: AnyDimension) -> str:
    """What a dimension's ratio counts (``4/5 tools``), or why it is n/a."""
    value = dimension_ratio(agent["coverage"], dimension)
    if value is None:
        return excluded_reason(agent, dimension)
    if dimension == "tool":
        tools = agent["tools"]
        known: Sequence[str] = tools["known"]
        called = sum(1 for tool in known if _succeeded(tools, tool))
        kind = "discovered tools" if tools.get("discovered") else "tools"
        return f"{called}/{len(known)} {kind}"
    if dimension == "path":
        paths = agent["paths"]
        expected = paths.get("expected")
        if expected:
            return f"{round(value * expected)}/{expected} expected paths"
        return _estimate(paths["observed"], paths["estimated"], "path")
    if dimension == "state":
        states = agent["states"]
        told = ", from state-change events" if states.get("source") == "events" else ""
        return _estimate(states["observed"], states["estimated"], "state") + told
    if dimension == "boundary":
        hits: Mapping[str, bool] = agent["boundaries"]
        return f"{sum(1 for hit in hits.values() if hit)}/{len(hits)} conditions"
    if dimension == "skill":
        skills = agent["skills"]
        kind = "offered skills" if skills["discovered"] else "skills"
        loaded = f"{len(skills['known']) - len(skills['unloaded'])}/{len(skills['known'])} {kind}"
        unloaded = f", never loaded: {', '.join(skills['unloaded'])}" if skills["unloaded"] else ""
        return loaded + unloaded
    known_models = len(agent["models"]["known"])
    return f"{round(value * known_models)}/{known_models} models"


def restricted_totals(edges: Edges) -> dict[str, int]:
    """Restricted attempts summed per tool over outcomes, in first-seen order."""
    totals: dict[str, int] = {}
    for attempt in edges["restricted"]:
        totals[attempt["tool"]] = totals.get(attempt["tool"], 0) + attempt["count"]
    return totals


class ToolRow(NamedTuple):
    """One tool of an agent as every report lists it."""

    tool: str
    ok: int
    error: int
    status: str  # covered | errors-only | uncovered | restricted | undeclared | called
    arguments: str = ""  # `5/8 (62%)`, `no schema`; "" when argument coverage is off
    never: str = ""  # the argument items never exercised, named


def _succeeded(tools: Tools, tool: str) -> bool:
    """A tool counts as covered once a call of it succeeded (docs/report.md#tool-outcomes)."""
    return tools["called"].get(tool, {"ok": 0})["ok"] > 0


def _tool_status(tool: str, agent: AgentReport, restricted: Mapping[str, int]) -> str:
    tools = agent["tools"]
    if tool in restricted:
        return "restricted"
    if tool in tools["known"]:
        if tool not in tools["called"]:
            return "uncovered"
        return "covered" if _succeeded(tools, tool) else "errors-only"
    if tool in tools["undeclared"]:
        return "undeclared"
    return "called"  # declared elsewhere in the spec (e.g. only under tool_edges), outside K


def tool_rows(agent: AgentReport) -> list[ToolRow]:
    """Known, called, undeclared and restricted tools once each, with their call counts."""
    tools = agent["tools"]
    restricted = restricted_totals(agent["edges"])
    listed = [*tools["known"], *tools["called"], *tools["undeclared"], *restricted]
    arguments = agent.get("arguments")
    argument_rows = arguments["tools"] if arguments is not None else {}
    rows = []
    for tool in dict.fromkeys(listed):
        counts = tools["called"].get(tool, {"ok": 0, "error": 0})
        status = _tool_status(tool, agent, restricted)
        row = argument_rows.get(tool)
        shown = ("" if row is None else "no schema" if row["pct"] is None
                 else f"{row['seen']}/{row['items']} ({percent_of_100(row['pct'])})")
        rows.append(ToolRow(tool, counts["ok"], counts["error"], status, shown,
                            never_exercised(row) if row is not None else ""))
    return rows


def never_exercised(row: ToolArgumentRow) -> str:
    """``sort="date", limit:maximum and 3 more`` (required parameters marked); "" if none."""
    names = [f"{k} (required)" if k in row["required_never"] else k for k in row["never"]]
    more = f" and {row['never_more']} more" if row["never_more"] else ""
    return ", ".join(names) + more


def arguments_summary(agent: AgentReport) -> str | None:
    """``62% of 13 argument items over 2 tools with a schema (beside overall)``; None when
    argument coverage is off for the agent."""
    arguments = agent.get("arguments")
    if arguments is None:
        return None
    rows = [r for r in arguments["tools"].values() if r["items"]]
    if not rows:
        return "n/a (no tool schema discovered or declared)"
    items = sum(r["items"] for r in rows)
    where = "in overall" if arguments["overall"] else "beside overall"
    return (f"{percent_of_100(arguments['pct'])} of {plural(items, 'argument item')} over "
            f"{plural(len(rows), 'tool')} with a schema ({where})")


def edges_summary(edges: Edges) -> str:
    """The one-line tool-edge verdict: allowed and delegation coverage, attempts, and what the
    restricted check would make of the gate."""
    attempts = f"restricted attempts {edges['restricted_attempts']}"
    totals = restricted_totals(edges)
    if totals:
        attempts += " (" + ", ".join(f"{tool} ×{n}" for tool, n in totals.items()) + ")"
    # a report decides no exit code: it says what the gate would do (`agentcov gate` decides)
    gate = "restricted check passes" if edges["gate_passed"] == 1 else "would fail the gate"
    return " · ".join(
        (
            f"allowed {percent_of_100(edges['allowed_pct'])}",
            f"delegation {percent_of_100(edges['delegation_pct'])}",
            attempts,
            gate,
        )
    )


def decisions_summary(edges: Edges) -> str | None:
    """``issue_refund deny 2 · refund allow 5, require_approval 1 pending``; None when no
    decision was recorded (the line is left out, as for reports before decisions existed)."""
    rows = edges.get("decisions")
    if not rows:
        return None
    parts = []
    for d in rows:
        counts = [f"{o} {d[o]}" for o in ("allow", "deny") if d[o]]
        if d["require_approval"]:
            counts.append(f"require_approval {d['require_approval']} pending")
        parts.append(f"{d['tool']} {', '.join(counts) or 'none'}")
    return " · ".join(parts)


def cost_summary(runs: Runs) -> str | None:
    """``4.5 EUR over 1 run · 1.25 USD over 1 run``; None when no run recorded a cost."""
    costs = runs.get("cost")
    if not costs:
        return None
    return " · ".join(f"{c['total']:.6g} {currency} over {plural(c['runs'], 'run')}"
                      for currency, c in costs.items())


def narrative_summary(narrative: Narrative | None) -> str | None:
    """``consistent 40 · divergent 3 · unverifiable 2 · divergences: issue_refund
    claimed_not_called ×2``; None when the agent's story was never checked (no section), or
    for a report written before the check existed."""
    if narrative is None:
        return None
    runs: Mapping[str, int] = narrative["runs"]
    if not narrative["declared"] and not any(runs.values()):
        return None
    line = " · ".join(f"{result} {n}" for result, n in runs.items())
    if narrative.get("not_english"):
        line += f" ({narrative['not_english']} in a language not read)"
    if narrative.get("too_long"):
        line += f" ({narrative['too_long']} too long)"
    divergences = narrative["divergences"]
    if divergences:
        line += " · divergences: " + ", ".join(
            f"{d['tool']} {d['kind']} ×{d['count']}" for d in divergences
        )
    return line


def concern_text(concern: Concern) -> str:
    """``high: pass rate ... below 80%``."""
    return f"{concern['severity']}: {concern['message']}"


def weakest_summary(coverage: Coverage) -> str:
    """``boundary (40%)``, or n/a when no dimension was measured. At 0 % it says why the overall
    is 0 too (a geometric mean), and for boundaries the spec line that changes it."""
    weakest = coverage.get("weakest")
    if weakest is None:
        return NA
    line = f"{weakest} ({percent(coverage[weakest])})"
    if coverage[weakest] == 0:
        line += " makes the overall 0% (a geometric mean)"
        if weakest == "boundary":
            line += ("; boundaries are declared but none was hit: provoke them (next steps) or "
                     "list only the ones you test in `boundaries.conditions`")
    return line


def runs_header(agent_name: str, agent: AgentReport) -> str:
    """``agent coverage: triage_agent (50 runs)``."""
    return f"agent coverage: {agent_name} ({plural(agent['runs']['count'], 'run')})"


def unclassified_lines(spans: SpanStats) -> list[str]:
    """Why runs may be missing: the commonest shapes of spans no convention matched (attribute
    keys only), and where to go from there; no lines when the report has no such section."""
    section = spans.get("unclassified")
    if section is None:
        return []
    lines = [f"{plural(section['spans'], 'span')} matched no convention; the commonest shapes "
             "(`agentcov explain` suggests conventions: entries for them, agentcov docs "
             "conventions):"]
    for shape in section["shapes"]:
        keys = ", ".join(shape["attributes"]) or "no attributes"
        lines.append(f"  {shape['count']} × scope {shape['scope'] or '(none)'} · name "
                     f"{shape['name']} · {keys}")
    return lines


def inferred_line(spans: SpanStats) -> str | None:
    """How many spans inference classified, as what and from which evidence; None when none
    was (docs/conventions.md#inference)."""
    inferred = spans.get("inferred")
    if not inferred:
        return None
    kinds: dict[str, int] = {}
    evidence: dict[str, int] = {}
    for key, n in inferred.items():
        kind, _, how = key.partition(".")
        kinds[kind] = kinds.get(kind, 0) + n
        evidence[how] = evidence.get(how, 0) + n
    return (f"inferred: {plural(sum(kinds.values()), 'span')} matched no convention and were "
            "classified by inference (" + " · ".join(f"{k} {n}" for k, n in kinds.items())
            + "; from " + " · ".join(f"{k} {n}" for k, n in evidence.items())
            + "): `agentcov explain --write F` pins them (agentcov docs conventions)")


def spans_summary(spans: SpanStats) -> str:
    """Self-accounting of the input: what was processed by kind, and what was dropped why."""
    by_kind: Mapping[str, int] = spans.get("by_kind", {})
    line = f"spans: {spans['processed']} processed"
    if by_kind:
        line += " (" + " · ".join(f"{kind} {n}" for kind, n in by_kind.items()) + ")"
    dropped = {reason: n for reason, n in spans.get("dropped", {}).items() if n}
    line += f", dropped {sum(dropped.values())}"
    if dropped:
        line += " (" + " · ".join(f"{reason} {n}" for reason, n in dropped.items()) + ")"
    state_files = spans.get("state_files", 0)
    if state_files:  # their runs are in the report, their spans were counted elsewhere
        line += f"; {state_files} state file{'s' if state_files != 1 else ''} merged"
    overruled = overruled_line(spans)
    return line + (f"; {overruled}" if overruled else "")


def overruled_line(spans: SpanStats) -> str:
    """What every report and the gate say when a spec's `conventions:` entry or inference
    re-read spans that name a restricted tool ("" when none did)."""
    n = spans.get("conventions_overruled", 0)
    if not n:
        return ""
    return (f"{plural(n, 'span')} that a spec conventions: entry or inference re-read name a "
            "restricted tool: read as calls of it (a restricted tool cannot be hidden by "
            "configuration; agentcov docs conventions)")



class ContractRow(NamedTuple):
    """One contract behaviour as every report lists it (the snapshot already put violations
    first)."""

    contract: str
    behavior: str
    kind: str  # must | must not
    severity: str
    satisfied: int
    violated: int
    unknown: int
    not_exercised: int  # its trigger (or the contract's `when`) never occurred
    rate: str  # violation rate with its 95% interval, or n/a


def violation_rate(row: schema.ContractRow) -> str:
    """``6% [2%, 16%]`` over the runs where the behaviour could be decided."""
    rate, ci = row["violation_rate"], row["violation_rate_ci95"]
    if rate is None or ci is None:
        return NA
    return f"{percent(rate)} [{ci[0]:.0%}, {ci[1]:.0%}]"  # plain rounding: bounds may be 0


def versions_summary(versions: Sequence[Version]) -> str:
    """`1.0 95% (200 runs) · 1.1 75% (200 runs, FAIL vs 1.0)`: oldest first, each version's
    pass rate and its verdict against the one before it (docs/compare.md)."""
    parts = []
    for v in versions:
        verdict = v["verdict_vs_previous"]
        vs = f", {verdict} vs {v['baseline_version']}" if verdict is not None else ""
        parts.append(f"{v['version']} {percent(v['pass_rate'])} ({plural(v['runs'], 'run')}{vs})")
    return " · ".join(parts)


def contract_coverage(agent: AgentReport) -> str | None:
    """``75% of behaviours exercised`` (not part of the overall score), None without contracts."""
    ratio = agent["coverage"].get("contracts")
    return None if ratio is None else f"{percent(ratio)} of behaviours exercised"


def contract_rows(agent: AgentReport) -> list[ContractRow]:
    return [
        ContractRow(r["contract"], r["behavior"], r["kind"].replace("_", " "), r["severity"],
                    r["satisfied"], r["violated"], r["unknown"], r["not_exercised"],
                    violation_rate(r))
        for r in agent.get("contracts", ())
    ]


def context_rows(agent: AgentReport) -> list[tuple[str, list[str]]]:
    """(tool, the tests that exercise it) for every known or called tool, untested ones too."""
    contexts = agent["contexts"]
    tools = dict.fromkeys([*agent["tools"]["known"], *contexts["tests_by_tool"]])
    return [(tool, contexts["tests_by_tool"].get(tool, [])) for tool in tools]


def untested_summary(contexts: Contexts) -> str:
    """``untested tools: a, b · untested delegations: x -> y · single-test tools: c``."""
    untested = contexts["untested"]
    parts = [
        f"untested tools: {', '.join(untested['tools']) or 'none'}",
        "untested delegations: "
        + (", ".join(f"{d['from']} -> {d['to']}" for d in untested["delegations"]) or "none"),
        f"single-test tools: {', '.join(contexts['single_test']['tools']) or 'none'}",
    ]
    if untested["behaviors"]:
        parts.insert(2, f"untested behaviours: {', '.join(untested['behaviors'])}")
    return " · ".join(parts)


_BOUNDS = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}


def matcher_text(schema: Mapping[str, Any]) -> str:
    """``<= 0``, ``>= 0.8 and <= 1``: a matcher's bounds as comparisons, any other keyword as
    JSON Schema (``{"enum": [1, 2]}``)."""
    parts = [f"{op} {number(schema[key])}" for key, op in _BOUNDS.items() if key in schema]
    rest = {k: v for k, v in schema.items() if k not in _BOUNDS}
    if rest or not parts:
        parts.append(json.dumps(rest, sort_keys=True))
    return " and ".join(parts)


def expect_verdict(row: schema.ExpectResult) -> str:
    """`pass`, `FAIL`, or `INCONCLUSIVE` for a pass rate its runs cannot decide yet (the row's
    reason then starts with that word), as `agentcov gate` prints it."""
    if row["passed"]:
        return "pass"
    return INCONCLUSIVE if row.get("reason", "").startswith(f"{INCONCLUSIVE}:") else "FAIL"


def expect_matchers(name: str, agent: AgentReport, spec: CoverageSpec | None) -> list[str]:
    """Each of the agent's expect rows' matcher, from the spec the report was made with (the
    report's rows name only the target, and the golden reports keep that shape); "" for every
    row when there is no spec or its expect list does not line up with the report's."""
    results = agent["expect"]
    items = spec.for_agent(name).expect if spec is not None else ()
    if [item.target for item in items] != [e["target"] for e in results]:
        return [""] * len(results)
    return [matcher_text(item.schema) for item in items]


def faults_summary(agent: AgentReport) -> str | None:
    """`5 runs with faults · recovered 1 (20%, 95% CI 4%–62%)`; None when no run had one."""
    faults = agent.get("faults")
    if not faults or not faults["runs"]:
        return None
    ci = faults["resilience_ci95"]
    interval = f", 95% CI {percent(ci[0])}–{percent(ci[1])}" if ci else ""
    return (f"{plural(faults['runs'], 'run')} with faults · recovered {faults['recovered']} "
            f"({percent(faults['resilience'])}{interval}) · failed {faults['failed']}")


def fault_family_rows(agent: AgentReport) -> list[tuple[str, str, int, int, int, int]]:
    """(family, seam, injected, hit, recovered, failed) per injected family."""
    families = agent.get("faults", {}).get("families", {})
    return [(f, r["seam"], r["injected"], r["hit"], r["recovered"], r["failed"])
            for f, r in families.items()]


def boundary_origin_summary(agent: AgentReport) -> str:
    """`provoked: cost_limit 1, error_path 2 · natural: tool_failure 1`."""
    conditions = agent.get("faults", {}).get("conditions", {})
    parts = []
    for origin in ("provoked", "natural"):
        hits = [f"{c} {r[origin]}" for c, r in conditions.items() if r[origin]]
        parts.append(f"{origin}: {', '.join(hits) or 'none'}")
    return " · ".join(parts)


def failure_paths_summary(agent: AgentReport) -> str:
    """`lookup failed in 2 runs, recovered in 1 · 1 of the known tools recovered (50%)`."""
    faults = agent.get("faults", {})
    tools = "; ".join(f"{t} failed in {r['failed']}, recovered in {r['recovered']}"
                      for t, r in faults.get("tools", {}).items()) or "no tool failed"
    return f"{tools} · known tools seen failing and recovering: " + percent_of_100(
        faults.get("failure_paths_pct"))
