"""Static HTML report: an index of agents and one page per agent, viewable offline.

Like coverage.py's HTML report: plain files, inline CSS, no scripts, no network at view time (a
Content-Security-Policy forbids any fetch). Agent and tool names come from traces and are
untrusted, so rendering goes through Jinja2 with autoescaping on for every template.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from otel_agentcov.reporting import _format as fmt
from otel_agentcov.snapshot.schema import DIMENSIONS, AgentReport, Narrative, Report

if TYPE_CHECKING:
    from otel_agentcov.spec import CoverageSpec

__all__ = ["report_meta", "write_html"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# Delegation graph geometry (px): row pitch, top/bottom margin, width, node half-width, room
# beside the outer columns for the edge counts.
_NODE_GAP, _MARGIN, _GRAPH_WIDTH, _HALF, _COUNTS = 48, 24, 880, 85, 60
_LABEL_MAX = 22  # characters that fit a node at 12px


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("otel_agentcov.reporting", "templates"),
        autoescape=True,  # every template, whatever its name: names in traces are untrusted
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(
        percent=fmt.percent,
        percent_of_100=fmt.percent_of_100,
        number=fmt.number,
        expect_verdict=fmt.expect_verdict,
        plural=fmt.plural,
        status=fmt.status,
        width=_width,
        anchor=anchor,
        status_class=_status_class,
        code=_code,
    )
    return env


_TICKS = re.compile(r"`([^`]+)`")


def _code(text: str) -> Markup:
    """Text with its `backticked` names as <code>: recommendations are written for the terminal
    and Markdown; escaped first, so names from traces stay inert."""
    return Markup(_TICKS.sub(r"<code>\1</code>", str(escape(text))))


def _width(ratio: float | None) -> float:
    """CSS width in percent for a 0..1 ratio, rounded like the text bars (no full bar unless 1)."""
    return 0.0 if ratio is None else fmt.scaled(ratio, 1000) / 10


def _status_class(overall: float | None) -> str:
    return fmt.status(overall).lower().replace("/", "")


def page_name(agent: str) -> str:
    """A file name for an agent's page that is safe whatever the name, and unique per name."""
    digest = hashlib.sha256(agent.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    slug = _UNSAFE.sub("_", agent)[:40].strip("._") or "agent"
    return f"agent-{slug}-{digest}.html"


class Node(NamedTuple):
    x: float
    y: float
    label: str  # shortened for display; `name` is the full one
    name: str
    own: bool
    tool: bool = False  # a tool node links to the tests that exercise it
    anchor: str = ""


class Edge(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    calls: int
    style: str  # covered | never | undeclared | restricted
    note: str  # the edge's tooltip: counts, declaration, last restricted attempts' trace ids
    label: tuple[float, float, str]  # where its count goes: x, y, text-anchor


def _label(x1: float, y1: float, x2: float, y2: float, at_start: bool) -> tuple[float, float, str]:
    """Where an edge's count goes: beside the outer side of its node in the left or right column
    (`at_start`: the edge starts there), where no edge runs and no other count sits (counts on
    the edges overlapped where edges fan out of the agent's node, and edges crossed them)."""
    if at_start:
        return x1 - 2 * _HALF - 6, y1 + 4, "end"
    return x2 + 2 * _HALF + 6, y2 + 4, "start"


class Graph(NamedTuple):
    width: int
    height: int
    half: int  # node half-width
    nodes: list[Node]
    edges: list[Edge]


def _short(name: str) -> str:
    return name if len(name) <= _LABEL_MAX else name[: _LABEL_MAX - 1] + "…"


def anchor(tool: str) -> str:
    """An element id for a tool's row that is safe and unique whatever the name."""
    return "tool-" + hashlib.sha256(tool.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _edge_style(calls: int, declared: bool) -> str:
    return "never" if calls == 0 else "covered" if declared else "undeclared"


def _tool_edges(agent: AgentReport) -> list[tuple[str, int, str, str]]:
    """(tool, calls, style, note) for every tool row of the agent, from its explicit calls."""
    traces = agent["edges"].get("restricted_traces", {})
    out = []
    for row in fmt.tool_rows(agent):
        calls = row.ok + row.error
        if row.status == "restricted":
            attempts = fmt.restricted_totals(agent["edges"]).get(row.tool, 0)
            ids = ", ".join(traces.get(row.tool, []))
            note = f"restricted: {attempts} attempts" + (f"; last traces {ids}" if ids else "")
            out.append((row.tool, attempts, "restricted", note))
            continue
        declared = row.status in ("covered", "errors-only", "uncovered", "called")
        note = f"{calls} calls ({row.ok} ok, {row.error} error)" + (
            "" if declared else ", not declared"
        )
        out.append((row.tool, calls, _edge_style(calls, declared), note))
    return out


def agent_graph(name: str, report: Report) -> Graph | None:
    """Callers on the left, the agent in the middle, callee agents and tools on the right.

    Built from explicit edges (delegations, tool calls, restricted attempts), not span timing:
    covered solid with counts, declared but never seen dashed, undeclared amber, restricted red."""
    observed: dict[tuple[str, str], int] = {}
    declared: set[tuple[str, str]] = set()
    for agent in report["agents"].values():
        for d in agent["delegations"]:
            key = (d["from"], d["to"])
            observed[key] = observed.get(key, 0) + d["count"]
        declared.update((d["from"], d["to"]) for d in agent["edges"].get("delegation_declared", ()))
    edges = sorted(e for e in observed.keys() | declared if name in e)
    tools = _tool_edges(report["agents"][name]) if name in report["agents"] else []
    if not edges and not tools:
        return None
    callers = sorted({a for a, b in edges if b == name})
    callees = sorted({b for a, b in edges if a == name})
    tool_names = [f"\0{t}" for t, *_ in tools]  # kept apart from agent names in the column
    rows = max(len(callers), len(callees) + len(tools), 1)
    height = rows * _NODE_GAP + 2 * _MARGIN
    middle = height / 2

    def column(names: Sequence[str], x: float) -> dict[str, tuple[float, float]]:
        top = middle - (len(names) - 1) * _NODE_GAP / 2
        return {n: (x, top + i * _NODE_GAP) for i, n in enumerate(names)}

    left = column(callers, _COUNTS + _HALF + 10)
    right = column([*callees, *tool_names], _GRAPH_WIDTH - _COUNTS - _HALF - 10)
    own = (_GRAPH_WIDTH / 2, middle)
    nodes = [Node(*own, _short(name), name, True)]
    nodes += [Node(x, y, _short(n), n, False) for n, (x, y) in left.items()]
    nodes += [Node(*right[n], _short(n), n, False) for n in callees]
    nodes += [
        Node(*right[key], _short(t), t, False, True, anchor(t))
        for key, (t, *_) in zip(tool_names, tools, strict=True)
    ]
    lines = []
    for a, b in edges:
        (x1, y1), (x2, y2) = (left[a], own) if b == name else (own, right[b])
        count = observed.get((a, b), 0)
        known = (a, b) in declared
        note = f"{count} observed" + (", declared" if known else ", not declared")
        style = _edge_style(count, known)
        ends = (x1 + _HALF, y1, x2 - _HALF, y2)
        lines.append(Edge(*ends, count, style, note, _label(*ends, at_start=b == name)))
    for slot, (_, calls, style, note) in zip(tool_names, tools, strict=True):
        tx, ty = right[slot]
        ends = (own[0] + _HALF, own[1], tx - _HALF, ty)
        lines.append(Edge(*ends, calls, style, note, _label(*ends, at_start=False)))
    return Graph(_GRAPH_WIDTH, int(height), _HALF, nodes, lines)


def _agent_view(
    name: str, agent: AgentReport, report: Report, spec: CoverageSpec | None
) -> dict[str, Any]:
    """What a page shows about one agent, phrased by the shared formatting helpers."""
    coverage = agent["coverage"]
    overall = coverage["overall"]
    contracts = fmt.contract_rows(agent)
    return {
        "name": name,
        "page": page_name(name),
        "agent": agent,
        "dimensions": [
            (d, fmt.dimension_ratio(coverage, d), fmt.dimension_detail(agent, d))
            for d in fmt.dimensions(agent)
        ],
        "overall": overall,
        "overall_detail": fmt.status(overall)
        if overall is not None
        else fmt.excluded_reason(agent, "overall"),
        "weakest": fmt.weakest_summary(coverage),
        "edges_summary": fmt.edges_summary(agent["edges"]),
        "tools": fmt.tool_rows(agent),
        "arguments": fmt.arguments_summary(agent),
        "concerns": [fmt.concern_text(c) for c in agent["concerns"]],
        "narrative": fmt.narrative_summary(agent.get("narrative")),
        "contracts": contracts,
        "contract_coverage": fmt.contract_coverage(agent),
        "violations": sum(r.violated for r in contracts),
        "divergences": _divergences(agent.get("narrative")),
        "graph": agent_graph(name, report),
        "tests": fmt.context_rows(agent) if "contexts" in agent else None,
        "untested": fmt.untested_summary(agent["contexts"]) if "contexts" in agent else None,
        "expect": list(zip(agent["expect"], fmt.expect_matchers(name, agent, spec),
                           strict=True)),
        "steps": [step["message"] for step in agent.get("recommendations", ())],
        # the gate as `agentcov gate` judges the agent: its failing checks, each with its reason
        "gate_failures": [e for e in agent["expect"] if not e["passed"]],
        "insufficient": fmt.INSUFFICIENT_NOTE if coverage["insufficient_data"] else None,
        "fault_summary": fmt.faults_summary(agent),
        "failure_paths": fmt.failure_paths_summary(agent),
    }


def _divergences(narrative: Narrative | None) -> dict[str, int]:
    """Runs per divergence kind (claimed_not_called, ...) over all tools, for the index."""
    kinds: dict[str, int] = {}
    for d in narrative["divergences"] if narrative else ():
        kinds[d["kind"]] = kinds.get(d["kind"], 0) + d["count"]
    return dict(sorted(kinds.items()))


def _orders(views: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The index's sort orders (weakest, busiest, most attempts, most gaps first)."""
    def overall(v: dict[str, Any]) -> float:
        return -1.0 if v["overall"] is None else float(v["overall"])

    return [
        ("agent", sorted(views, key=lambda v: v["name"])),
        ("runs", sorted(views, key=lambda v: -v["agent"]["runs"]["count"])),
        ("overall", sorted(views, key=overall)),
        ("restricted", sorted(views, key=lambda v: -v["agent"]["edges"]["restricted_attempts"])),
        ("uncovered", sorted(views, key=lambda v: -len(v["agent"]["tools"]["uncovered"]))),
    ]


def report_meta(inputs: Sequence[str] = (), spec: str | None = None) -> dict[str, Any]:
    """What the index says about how the report was made: when, by which version, from what."""
    try:
        version = metadata.version("otel_agentcov")
    except metadata.PackageNotFoundError:  # running from a source tree
        version = "unknown"
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return {"generated": generated, "version": version, "inputs": list(inputs), "spec": spec}


def html_pages(
    report: Report, meta: Mapping[str, Any] | None = None, spec: CoverageSpec | None = None
) -> dict[str, str]:
    """The report dict (docs/report.md) as pages by file name: `index.html` plus one per agent
    (relative links between them), for a directory or for `agentcov serve`'s `/report/`.
    `meta` (see `report_meta`) heads the index; `spec`, the one the report was made with,
    gives the Expectations tables their matchers."""
    env = _environment()
    views = [_agent_view(name, agent, report, spec) for name, agent in report["agents"].items()]
    inferred = fmt.inferred_line(report["spans"])
    spans = fmt.spans_summary(report["spans"]) + (f"; {inferred}" if inferred else "")
    pages = {
        view["page"]: env.get_template("agent.html").render(view=view, spans=spans)
        for view in views
    }
    pages["index.html"] = env.get_template("index.html").render(
        views=views, spans=spans, dimensions=DIMENSIONS, no_runs=fmt.NO_RUNS,
        orders=_orders(views), meta=meta if meta is not None else report_meta(),
    )
    return pages


def write_html(
    report: Report, out_dir: Path, meta: Mapping[str, Any] | None = None,
    spec: CoverageSpec | None = None,
) -> Path:
    """Write the report's pages into `out_dir` (created if missing); returns the index path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, html in html_pages(report, meta, spec).items():
        (out_dir / name).write_text(html, encoding="utf-8")
    return out_dir / "index.html"
