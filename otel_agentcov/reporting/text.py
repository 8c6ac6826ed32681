"""Terminal report: the AgentAssay bar layout (docs/report.md), one block per agent."""

from __future__ import annotations

from otel_agentcov.reporting import _format as fmt
from otel_agentcov.snapshot.schema import AgentReport, Report
from otel_agentcov.textsafe import line_safe, plain

LABEL_WIDTH = 20
RULE = "=" * 20


def _header(title: str) -> str:
    """The AgentAssay header as docs/report.md describes it: 20 `=` either side of the title."""
    return f"{RULE} {title} {RULE}"


def _row(label: str, value: str) -> str:
    return f"{label:<{LABEL_WIDTH}}{value}"


def _score_row(label: str, ratio: float | None, detail: str) -> str:
    return _row(label, f"{fmt.bar(ratio)} {fmt.percent(ratio):>5}  {detail}")


def _agent_block(name: str, agent: AgentReport) -> list[str]:
    coverage = agent["coverage"]
    lines = [_header(fmt.runs_header(name, agent))]
    for dimension in fmt.dimensions(agent):
        label = f"{dimension.capitalize()} coverage"
        detail = f"({fmt.dimension_detail(agent, dimension)})"
        lines.append(_score_row(label, fmt.dimension_ratio(coverage, dimension), detail))
    overall = coverage["overall"]
    overall_detail = (
        fmt.status(overall) if overall is not None else f"({fmt.excluded_reason(agent, 'overall')})"
    )
    lines.append(_score_row("Overall", overall, overall_detail))
    lines.append(_row("Weakest dimension", fmt.weakest_summary(coverage)))
    lines.append(_row("Tool edges", fmt.edges_summary(agent["edges"])))
    arguments = fmt.arguments_summary(agent)
    if arguments is not None:
        lines.append(_row("Arguments", arguments))
        lines.extend(_row(f"  {r.tool}", r.arguments + (f" · never: {r.never}" if r.never else ""))
                     for r in fmt.tool_rows(agent) if r.arguments)
    decisions = fmt.decisions_summary(agent["edges"])
    if decisions is not None:
        lines.append(_row("Decisions", decisions))
    cost = fmt.cost_summary(agent["runs"])
    if cost is not None:
        lines.append(_row("Cost", cost))
    narrative = fmt.narrative_summary(agent.get("narrative"))
    if narrative is not None:
        lines.append(_row("Narrative", narrative))
    faults = fmt.faults_summary(agent)
    if faults is not None:
        lines.append(_row("Faults", faults))
        lines.extend(
            _row(f"  {family}", f"{seam} · injected {injected} · hit {hit} · recovered "
                                f"{recovered} · failed {failed}")
            for family, seam, injected, hit, recovered, failed in fmt.fault_family_rows(agent))
        lines.append(_row("Boundary hits", fmt.boundary_origin_summary(agent)))
        lines.append(_row("Failure paths", fmt.failure_paths_summary(agent)))
    concerns = "; ".join(fmt.concern_text(c) for c in agent["concerns"]) or "none"
    lines.append(_row("Concerns", concerns))
    if agent.get("versions"):
        lines.append(_row("Versions", fmt.versions_summary(agent["versions"])))
    rows = fmt.contract_rows(agent)
    if rows:
        violated = sum(1 for r in rows if r.violated)
        lines.append(_row("Contracts", f"{violated}/{fmt.plural(len(rows), 'behaviour')} "
                                       "violated at least once"))
        lines.append(_row("Contract coverage", fmt.contract_coverage(agent) or fmt.NA))
        width = max(len(r.contract) + len(r.behavior) + 1 for r in rows)
        lines.extend(
            f"  {r.severity:<9}{r.kind:<9}{r.contract + '.' + r.behavior:<{width}}  violated "
            f"{r.violated} · satisfied {r.satisfied} · unknown {r.unknown} · not exercised "
            f"{r.not_exercised} · rate {r.rate}"
            for r in rows
        )
    if coverage["insufficient_data"]:
        lines.append(_row("Note", fmt.INSUFFICIENT_NOTE))
    if "contexts" in agent:
        tests = len(agent["contexts"]["by_test"])
        lines.append(_row("Tests", f"{fmt.plural(tests, 'test')} · "
                          + fmt.untested_summary(agent["contexts"])))
        for tool, names in fmt.context_rows(agent):
            lines.append(_row(f"  {tool}", ", ".join(names) or "(no test)"))
    for i, step in enumerate(agent.get("recommendations", ()), 1):
        lines.append(_row("Next steps" if i == 1 else "", f"{i}. {step['message']}"))
    return lines


def render_text(report: Report) -> str:
    """Render the report dict as the fixed-width terminal layout, ending with a newline. Names
    from traces are escaped line by line: none can start a line of its own."""
    blocks = [_agent_block(name, agent) for name, agent in report["agents"].items()]
    if not blocks:
        blocks = [[fmt.NO_RUNS]]
    blocks.append([fmt.spans_summary(report["spans"])])
    inferred = fmt.inferred_line(report["spans"])
    if inferred is not None:
        blocks[-1].append(inferred)
    unclassified = fmt.unclassified_lines(report["spans"])
    if unclassified:
        blocks.append(unclassified)
    return "\n\n".join("\n".join(line_safe(plain(line)) for line in block)
                       for block in blocks) + "\n"
