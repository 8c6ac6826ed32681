"""GitHub-flavoured Markdown report, sized for a pull-request comment."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from otel_agentcov.reporting import _format as fmt
from otel_agentcov.snapshot.schema import DIMENSIONS, AgentReport, Edges, Report
from otel_agentcov.textsafe import plain

if TYPE_CHECKING:
    from otel_agentcov.spec import CoverageSpec

# Characters that start Markdown/HTML syntax anywhere; `_` only acts at a word boundary in GFM, so
# intraword underscores (snake_case names) are left alone to keep the source readable.
_SPECIAL = re.compile(r"([\\`*\[\]<>|])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# What GitHub turns into a notification or a link even in plain text: @mentions (and e-mail
# addresses), #123 references, URLs. A zero-width space after the trigger keeps the text as is.
_AUTOLINK = re.compile(r"(?<=@)(?=\w)|(?<=#)(?=\d)|(?<=:)(?=//)|(?i:(?<=www)(?=\.))")
_NONE = "_none_"
_SUMMARY_HEAD = (
    "agent", "runs", "overall", "status", "tool", "path", "state", "boundary", "model",
    "restricted attempts", "gate",
)


def escape(text: object) -> str:
    """Make a name or message from a trace safe inside a table cell or heading: one line,
    no Markdown or HTML syntax, no mention or link."""
    flat = _SPECIAL.sub(lambda m: "\\" + m.group(0), plain(str(text)))
    return _AUTOLINK.sub("\u200b", flat)


_TICKS = re.compile(r"`([^`]*)`")


def prose(text: object) -> str:
    """A message written with `backticked` names (next steps, concerns): escaped like `escape`,
    but each backticked name a code span, which GitHub shows as code and never as a mention or
    a link (its text still gets the zero-width breaks `escape` puts in links and mentions, and
    `|` stays escaped: GFM would end a table cell even there)."""
    parts = _TICKS.split(plain(str(text)))
    return "".join(
        escape(part) if i % 2 == 0
        else "`" + _AUTOLINK.sub("\u200b", part).replace("|", "\\|") + "`"
        for i, part in enumerate(parts))


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A GFM table; cells must already be escaped."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _gate(edges: Edges) -> str:
    return "passed" if edges["gate_passed"] == 1 else "**FAILED**"


def _summary_row(name: str, agent: AgentReport) -> list[str]:
    coverage = agent["coverage"]
    return [
        escape(name),
        str(agent["runs"]["count"]),
        fmt.percent(coverage["overall"]),
        fmt.status(coverage["overall"]),
        *(fmt.percent(coverage[d]) for d in DIMENSIONS),
        str(agent["edges"]["restricted_attempts"]),
        _gate(agent["edges"]),
    ]


def _runs_line(agent: AgentReport) -> str:
    runs = agent["runs"]
    parts = [f"**{fmt.plural(runs['count'], 'run')}**", fmt.plural(runs["errors"], "error")]
    if runs["pass_rate"] is not None:
        rate = f"pass rate {fmt.percent(runs['pass_rate'])}"
        ci = runs.get("pass_rate_ci95")
        if ci is not None:
            rate += f" (95% CI {fmt.percent(ci[0])}–{fmt.percent(ci[1])})"
        parts.append(rate)
    return " · ".join(parts)


def _tools_section(agent: AgentReport) -> list[str]:
    """The tool table; with argument coverage on, its share and never-exercised items too."""
    arguments = "arguments" in agent
    rows = [
        [escape(row.tool), str(row.ok), str(row.error), row.status,
         *((row.arguments, escape(row.never)) if arguments else ())]
        for row in fmt.tool_rows(agent)
    ]
    head = ("tool", "ok", "error", "status", *(("arguments", "never exercised") if arguments
                                                else ()))
    lines = _table_or_none(head, rows)
    summary = fmt.arguments_summary(agent)
    return lines if summary is None else [f"Arguments: {escape(summary)}", "", *lines]


def _or_none(lines: list[str]) -> list[str]:
    """An explicit "none" keeps every section present, so readers can tell empty from missing."""
    return lines if lines else [_NONE]


def _table_or_none(head: Sequence[str], rows: list[list[str]]) -> list[str]:
    return _table(head, rows) if rows else [_NONE]


def _agent_section(name: str, agent: AgentReport, spec: CoverageSpec | None) -> list[str]:
    coverage = agent["coverage"]
    edges = agent["edges"]
    lines = [f"## {escape(name)}", "", _runs_line(agent)]
    if coverage["insufficient_data"]:
        lines += ["", f"> **Note:** {fmt.INSUFFICIENT_NOTE}"]
    dimension_rows = [
        [d, fmt.percent(fmt.dimension_ratio(coverage, d)), escape(fmt.dimension_detail(agent, d))]
        for d in fmt.dimensions(agent)
    ]
    overall = coverage["overall"]
    overall_detail = (
        fmt.status(overall) if overall is not None else fmt.excluded_reason(agent, "overall")
    )
    dimension_rows.append(["**overall**", f"**{fmt.percent(overall)}**", escape(overall_detail)])
    lines += ["", *_table(("dimension", "coverage", "detail"), dimension_rows)]
    lines += ["", f"Weakest dimension: {prose(fmt.weakest_summary(coverage))}"]
    lines += ["", f"Tool edges: {escape(fmt.edges_summary(edges))}"]
    decisions = fmt.decisions_summary(edges)
    if decisions is not None:
        lines += ["", f"Decisions: {escape(decisions)}"]
    cost = fmt.cost_summary(agent["runs"])
    if cost is not None:
        lines += ["", f"Cost: {escape(cost)}"]
    if agent.get("versions"):
        lines += ["", f"Versions: {escape(fmt.versions_summary(agent['versions']))}"]
    lines += ["", "### Tools", "", *_tools_section(agent)]
    attempts = [
        [escape(a["tool"]), escape(a["outcome"]), str(a["count"])] for a in edges["restricted"]
    ]
    lines += ["", "### Restricted attempts", ""]
    lines += _table_or_none(("tool", "outcome", "count"), attempts)
    delegations = [
        [escape(d["from"]), escape(d["to"]), str(d["count"])] for d in agent["delegations"]
    ]
    lines += ["", "### Delegations", ""]
    lines += _table_or_none(("from", "to", "count"), delegations)
    narrative = fmt.narrative_summary(agent.get("narrative"))
    if narrative is not None:
        divergences = [
            [escape(d["tool"]), d["kind"], str(d["count"])]
            for d in agent["narrative"]["divergences"]
        ]
        lines += ["", "### Narrative vs trace", "", escape(narrative), ""]
        lines += _table_or_none(("tool", "divergence", "runs"), divergences)
    contracts = [
        [escape(r.contract), escape(r.behavior), r.kind, r.severity, str(r.satisfied),
         f"**{r.violated}**" if r.violated else "0", str(r.unknown), str(r.not_exercised), r.rate]
        for r in fmt.contract_rows(agent)
    ]
    if contracts:
        head = ("contract", "behavior", "kind", "severity", "satisfied", "violated", "unknown",
                "not exercised", "violation rate (95% CI)")
        lines += ["", "### Contracts", "", *_table(head, contracts)]
        lines += ["", f"Contract coverage: {fmt.contract_coverage(agent) or fmt.NA}"]
    faults = fmt.faults_summary(agent)
    if faults is not None:
        rows = [[escape(f), seam, *map(str, counts)]
                for f, seam, *counts in fmt.fault_family_rows(agent)]
        lines += ["", "### Faults", "", escape(faults), ""]
        lines += _table(("family", "seam", "injected", "hit", "recovered", "failed"), rows)
        lines += ["", f"Boundary hits: {escape(fmt.boundary_origin_summary(agent))}"]
        lines += ["", f"Failure paths: {escape(fmt.failure_paths_summary(agent))}"]
    lines += ["", "### Concerns", ""]
    lines += _or_none([f"- {prose(fmt.concern_text(c))}" for c in agent["concerns"]])
    matchers = fmt.expect_matchers(name, agent, spec)
    shown = any(matchers)  # known only from the spec the report was made with
    results = [
        [escape(e["target"]), *([escape(m)] if shown else []), fmt.number(e["value"]),
         "pass" if e["passed"] else f"**{fmt.expect_verdict(e)}**"]
        for e, m in zip(agent["expect"], matchers, strict=True)
    ]
    lines += ["", "### Expectations", ""]
    lines += _table_or_none(("target", *(["matcher"] if shown else []), "value", "result"),
                            results)
    if "contexts" in agent:
        rows = [[escape(tool), escape(", ".join(names)) or "**none**"]
                for tool, names in fmt.context_rows(agent)]
        lines += ["", "### Who tests what", "", *_table_or_none(("tool", "tests"), rows)]
        lines += ["", escape(fmt.untested_summary(agent["contexts"]))]
    lines += ["", "### Next steps", ""]
    lines += _or_none([
        f"{i}. {prose(step['message'])}"
        for i, step in enumerate(agent.get("recommendations", ()), 1)
    ])
    return lines


def render_markdown(report: Report, spec: CoverageSpec | None = None) -> str:
    """Render the report dict as Markdown: a fleet summary, then one section per agent (with
    `spec`, the one the report was made with, its Expectations tables show each matcher)."""
    agents = report["agents"]
    lines = ["# Agent coverage", ""]
    if agents:
        lines += _table(_SUMMARY_HEAD, (_summary_row(name, a) for name, a in agents.items()))
    else:
        lines.append(fmt.NO_RUNS.capitalize() + ".")
    for name, agent in agents.items():
        lines += ["", *_agent_section(name, agent, spec)]
    lines += ["", f"_{escape(fmt.spans_summary(report['spans']))}_"]
    inferred = fmt.inferred_line(report["spans"])
    if inferred is not None:
        lines += ["", escape(inferred)]
    unclassified = fmt.unclassified_lines(report["spans"])
    if unclassified:
        lines += ["", escape(unclassified[0]), ""]
        lines += [f"- {escape(line.strip())}" for line in unclassified[1:]]
    return "\n".join(lines) + "\n"
