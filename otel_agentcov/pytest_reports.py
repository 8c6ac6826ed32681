"""The pytest plugin's reports, as pytest-cov users expect them (`--agentcov-report`).

`term` is a compact table with a TOTAL row, `term-missing` adds what no run exercised (tools,
delegation edges); `json:P`, `markdown:P`, `text:P` and `html:DIR` write files (parent
directories created). Several may be given; with none, `term`. A file is announced only once it
is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .reporting import FORMATS, render, write_html
from .reporting import _format as fmt
from .reporting.html import report_meta
from .snapshot.schema import DIMENSIONS, AgentReport, Report
from .spec import CoverageSpec
from .textsafe import line_safe, plain

TERMINAL = ("term", "term-missing")
FILE_FORMATS = (*FORMATS, "html")
# where `--agentcov-report=FORMAT` without a path writes (pytest-cov's htmlcov/, coverage.json)
DEFAULT_PATHS = {"html": Path("agentcov-html"), "json": Path("agentcov.json"),
                 "markdown": Path("agentcov.md"), "text": Path("agentcov.txt")}


class ReportOptionError(ValueError):
    """An `--agentcov-report` value that names no known report."""


@dataclass(frozen=True)
class ReportTarget:
    kind: str  # term | term-missing | text | json | markdown | html
    path: Path | None = None


def parse_targets(values: Sequence[str]) -> list[ReportTarget]:
    """`term`, `term-missing`, `FORMAT:PATH` or `FORMAT` (to its DEFAULT_PATHS entry); none
    given means `term`."""
    targets = []
    for value in values or ["term"]:
        if value in TERMINAL:
            targets.append(ReportTarget(value))
            continue
        kind, sep, path = value.partition(":")
        if kind not in FILE_FORMATS or (sep and not path):
            raise ReportOptionError(
                f"--agentcov-report={value}: expected term, term-missing, FORMAT or FORMAT:PATH "
                f"with FORMAT one of {', '.join(FILE_FORMATS)} (html takes a directory)"
            )
        targets.append(ReportTarget(kind, Path(path) if path else DEFAULT_PATHS[kind]))
    return targets


def write_target(
    target: ReportTarget, report: Report, spec_path: str | None, spec: CoverageSpec
) -> Path:
    """Write a file report; returns where (the index page for html). Raises OSError."""
    assert target.path is not None
    if target.kind == "html":
        return write_html(report, target.path, report_meta(["pytest session"], spec_path), spec)
    target.path.parent.mkdir(parents=True, exist_ok=True)
    target.path.write_text(render(report, target.kind, spec), encoding="utf-8")
    return target.path


def _missing(agent: AgentReport) -> str:
    """Tools no run called, then declared delegation edges no run made."""
    observed = {(d["from"], d["to"]) for d in agent["delegations"]}
    edges = [
        f"{d['from']}->{d['to']}"
        for d in agent["edges"].get("delegation_declared", ())
        if (d["from"], d["to"]) not in observed
    ]
    return ", ".join([*agent["tools"]["uncovered"], *edges])


def terminal_table(report: Report, missing: bool) -> str:
    """One row per agent and a TOTAL row (runs and attempts summed; overall = the lowest agent's,
    the figure `--agentcov-fail-under` checks)."""
    head = ["Agent", "Runs", *(d.capitalize() for d in DIMENSIONS), "Overall", "Restricted"]
    if missing:
        head.append("Missing")
    rows: list[list[str]] = []
    agents = report["agents"]
    for name, agent in agents.items():
        coverage = agent["coverage"]
        row = [
            plain(name), str(agent["runs"]["count"]),
            *(fmt.percent(coverage[d]) for d in DIMENSIONS),
            fmt.percent(coverage["overall"]), str(agent["edges"]["restricted_attempts"]),
        ]
        if missing:
            row.append(plain(_missing(agent)) or "-")
        rows.append(row)
    overalls = [a["coverage"]["overall"] or 0.0 for a in agents.values()]
    total = [
        "TOTAL", str(sum(a["runs"]["count"] for a in agents.values())),
        *([""] * len(DIMENSIONS)),
        fmt.percent(min(overalls)) if overalls else fmt.NA,
        str(sum(a["edges"]["restricted_attempts"] for a in agents.values())),
    ]
    if missing:
        total.append("")
    widths = [max(len(r[i]) for r in [head, *rows, total]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        if missing:  # the free-text column reads better left-aligned
            rest[-1] = cells[-1].ljust(widths[-1])
        return "   ".join([first, *rest]).rstrip()

    rule = "-" * len(line(head))
    body = [line(r) for r in rows] if rows else [fmt.NO_RUNS]
    lines = [line(head), rule, *body, rule, line(total)]
    return "\n".join(line_safe(text) for text in lines) + "\n"
