"""Grafana dashboards for otel_agentcov, as code (grafana-foundation-sdk, Grafana 11.6 schema).

Run `python dashboards/grafana/generate.py` to rewrite the committed JSON next to this file;
`--check` exits 1 when the committed JSON differs from what this code builds. Every query names
its metric families from the exporter's table (`otel_agentcov.exporters.families`,
docs/metrics.md), never as strings; fleet-wide set unions come from
`dashboards/prometheus/agentcov-rules.yaml`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grafana_foundation_sdk.builders import bargauge, stat, table, timeseries
from grafana_foundation_sdk.builders import common as common_b
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import prometheus as prom
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model
from grafana_foundation_sdk.models import prometheus as prom_model

from otel_agentcov.exporters import families as F

HERE = Path(__file__).resolve().parent
FLEET_UID = "agentcov-fleet"
AGENT_UID = "agentcov-agent"
DS = model.DataSourceRef(type_val="prometheus", uid="${datasource}")
# Every per-agent series is filtered by the two template variables. The exporter's series carry no
# `service` label: the service is the Prometheus scrape job, so the variable is `job`.
SEL = 'job=~"$job", agent=~"$agent"'
JOB = 'job=~"$job"'
RATIO_STEPS = [
    model.Threshold(value=None, color="red"),
    model.Threshold(value=0.5, color="yellow"),  # MODERATE at 0.50, as in the text report
    model.Threshold(value=0.8, color="green"),  # STRONG at 0.80
]


@dataclass(frozen=True)
class Query:
    """One panel target: PromQL plus how Grafana should name and run it."""

    expr: str
    legend: str = ""
    instant: bool = False
    table: bool = False


def m(family: F.Family, selector: str, suffix: str = "", **match: str) -> str:
    """A family's samples (`suffix`: a histogram's `_bucket`) under `selector` and `match`."""
    extra = "".join(f', {label}="{value}"' for label, value in match.items())
    return f"{family.sample}{suffix}{{{selector}{extra}}}"


def _targets(queries: Sequence[Query]) -> Iterator[prom.Dataquery]:
    for ref, q in zip("ABCDEFGH", queries, strict=False):
        target = prom.Dataquery().expr(q.expr).ref_id(ref).datasource(DS)
        target = target.instant() if q.instant else target.range()
        if q.legend:
            target = target.legend_format(q.legend)
        if q.table:
            target = target.format(prom_model.PromQueryFormat.TABLE)
        yield target


def _ratio_thresholds() -> dash.ThresholdsConfig:
    return dash.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps(RATIO_STEPS)


def _mapping(values: dict[str, tuple[str, str]]) -> list[model.ValueMapping]:
    """Value -> (text, colour) mappings, e.g. gate 1 -> PASSED green."""
    return [
        model.ValueMap(
            options={
                k: model.ValueMappingResult(text=text, color=color, index=i)
                for i, (k, (text, color)) in enumerate(values.items())
            }
        )
    ]


def _with(panel: Any, title: str, desc: str, queries: Sequence[Query], w: int, h: int) -> Any:
    """Title, description, datasource, size and targets: what every panel has."""
    panel = panel.title(title).description(desc).datasource(DS).span(w).height(h)
    for target in _targets(queries):
        panel = panel.with_target(target)
    return panel


def ratio_bars(title: str, desc: str, queries: Sequence[Query], w: int = 8, h: int = 8) -> Any:
    """Horizontal bar gauge of 0-1 ratios, coloured WEAK / MODERATE / STRONG."""
    panel = (
        bargauge.Panel()
        .unit("percentunit").min(0).max(1).thresholds(_ratio_thresholds())
        .orientation(common.VizOrientation.HORIZONTAL)
        .display_mode(common.BarGaugeDisplayMode.GRADIENT)
        .reduce_options(common_b.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
    )  # fmt: skip
    return _with(panel, title, desc, queries, w, h)


def series(
    title: str, desc: str, queries: Sequence[Query], unit: str, w: int = 12, h: int = 8,
    bars: bool = False,
) -> Any:  # fmt: skip
    """A time series panel; counters are always wrapped in increase/rate by the caller."""
    panel = timeseries.Panel().unit(unit).fill_opacity(10).span_nulls(True)
    if bars:
        panel = panel.draw_style(common.GraphDrawStyle.BARS).fill_opacity(80).stacking(
            common_b.StackingConfig().mode(common.StackingMode.NORMAL)
        )
    return _with(panel, title, desc, queries, w, h)


def tabular(
    title: str, desc: str, queries: Sequence[Query], w: int = 12, h: int = 8,
    transformations: Sequence[model.DataTransformerConfig] = (),
    mappings: dict[str, tuple[str, str]] | None = None, unit: str = "none",
    sort_by: str | None = None, descending: bool = False,
) -> Any:  # fmt: skip
    """A table of instant queries, labels as columns; `Time` hidden."""
    panel = table.Panel().unit(unit).with_transformation(
        model.DataTransformerConfig(
            id_val="organize", options={"excludeByName": {"Time": True, "__name__": True}}
        )
    )
    for t in transformations:
        panel = panel.with_transformation(t)
    if mappings is not None:
        panel = panel.mappings(_mapping(mappings)).cell_options(
            common.TableColoredBackgroundCellOptions()
        )
    if sort_by is not None:
        sort = common_b.TableSortByFieldState().display_name(sort_by)
        panel = panel.sort_by([sort.desc(True) if descending else sort])
    return _with(panel, title, desc, queries, w, h)


def single_stat(
    title: str, desc: str, queries: Sequence[Query], unit: str, w: int = 6, h: int = 4,
    mappings: dict[str, tuple[str, str]] | None = None, ratio: bool = False,
) -> Any:  # fmt: skip
    """A stat panel showing the last value per series."""
    panel = (
        stat.Panel().unit(unit)
        .reduce_options(common_b.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
        .color_mode(common.BigValueColorMode.BACKGROUND)
        .graph_mode(common.BigValueGraphMode.NONE)
    )  # fmt: skip
    if ratio:
        panel = panel.min(0).max(1).thresholds(_ratio_thresholds())
    if mappings is not None:
        panel = panel.mappings(_mapping(mappings))
    return _with(panel, title, desc, queries, w, h)


def _datasource_var() -> dash.DatasourceVariable:
    return dash.DatasourceVariable("datasource").label("Data source").type("prometheus")


def _job_var() -> dash.QueryVariable:
    """The service: the Prometheus scrape job of the exporter (no `service` label is exported)."""
    return (
        dash.QueryVariable("job").label("Service (job)").datasource(DS)
        .query(f"label_values({F.RUNS.sample}, job)")
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.ALPHABETICAL_ASC)
        .multi(True).include_all(True).all_value(".+")
    )  # fmt: skip


def _agent_var(multi: bool) -> dash.QueryVariable:
    var = (
        dash.QueryVariable("agent").label("Agent").datasource(DS)
        .query(f"label_values({m(F.RUNS, JOB)}, agent)")
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.ALPHABETICAL_ASC)
    )  # fmt: skip
    if multi:
        var = var.multi(True).include_all(True).all_value(".+")
    return var


def _base(title: str, uid: str, desc: str, multi_agent: bool) -> dash.Dashboard:
    return (
        dash.Dashboard(title).uid(uid).description(desc)
        .tags(["agentcov", "opentelemetry", "genai"])
        .editable().time("now-1h", "now").refresh("30s").timezone("browser")
        .tooltip(model.DashboardCursorSync.CROSSHAIR)
        .with_variable(_datasource_var()).with_variable(_job_var())
        .with_variable(_agent_var(multi_agent))
        .link(
            dash.DashboardLink("agentcov dashboards").type(model.DashboardLinkType.DASHBOARDS)
            .tags(["agentcov"]).as_dropdown(True).include_vars(True).keep_time(True)
        )
    )  # fmt: skip


GATE = {"1": ("PASSED", "green"), "0": ("FAILED", "red")}
SEEN = {"1": ("covered", "green"), "0": ("UNCOVERED", "red")}


def fleet() -> dash.Dashboard:
    """Fleet overview: every agent's coverage, security signal, runs and exporter health."""
    d = _base(
        "agentcov / Fleet overview", FLEET_UID,
        "Behaviour coverage and restricted-tool attempts of every agent (otel_agentcov).",
        multi_agent=True,
    )  # fmt: skip
    drill = (
        f"/d/{AGENT_UID}/?var-agent=${{__field.labels.agent}}"
        "&${datasource:queryparam}&${job:queryparam}&${__url_time_range}"
    )
    overall = ratio_bars(
        "Overall coverage per agent",
        "Geometric mean of the measured dimensions (docs/semantics.md), as each exporter "
        "computes it; with several replicas, the best replica's. Red < 50% (WEAK), yellow < 80% "
        "(MODERATE), green STRONG. Click an agent for its drill-down.",
        [Query(f"max by (agent) ({m(F.COVERAGE_OVERALL, SEL)})", "{{agent}}", True)],
    ).data_links([dash.DashboardLink("Agent drill-down").url(drill)])
    d = d.with_row(dash.Row("Coverage")).with_panel(overall)
    d = d.with_panel(
        tabular(
            "Coverage by dimension",
            "The five dimensions per agent (tool, path, state, boundary, model). An empty cell "
            "is n/a: nothing to measure (e.g. no models declared), not 0.",
            [Query(f"max by (agent, dimension) ({m(F.COVERAGE, SEL)})", "", True,
                   True)],
            w=10, unit="percentunit",
            transformations=[model.DataTransformerConfig(
                id_val="groupingToMatrix",
                options={"columnField": "dimension", "rowField": "agent", "valueField": "Value"},
            )],
        ).thresholds(_ratio_thresholds()).cell_options(common.TableColoredBackgroundCellOptions())
    )  # fmt: skip
    d = d.with_panel(
        tabular(
            "Weakest dimension",
            "The lowest measured dimension of each agent: where to add tests or traffic first.",
            [Query(f"bottomk by (agent) (1, max by (agent, dimension) "
                   f"({m(F.COVERAGE, SEL)}))", "", True, True)],
            w=6, unit="percentunit",
        ).thresholds(_ratio_thresholds()).cell_options(common.TableColoredBackgroundCellOptions())
    )  # fmt: skip

    d = d.with_row(dash.Row("Tool edges and restricted tools"))
    d = d.with_panel(
        series(
            "Restricted-tool attempts",
            "Attempts to call a tool the spec restricts, per agent, tool and outcome (executed, "
            "failed, denied). Any bar is a security event (alert AgentCovRestrictedToolAttempt).",
            [Query(f"sum by (agent, tool, outcome) (increase({m(F.RESTRICTED_ATTEMPTS, SEL)}"
                   f"[$__rate_interval]))", "{{agent}} → {{tool}} ({{outcome}})")],
            unit="short", w=12, bars=True,
        )
    )  # fmt: skip
    d = d.with_panel(
        tabular(
            "Restricted attempts in range",
            "Total attempts per offending agent and tool over the dashboard's time range.",
            [Query(f"sum by (agent, tool, outcome) (increase({m(F.RESTRICTED_ATTEMPTS, SEL)}"
                   f"[$__range])) > 0 or sum by (agent, tool, outcome) "
                   f"({m(F.RESTRICTED_ATTEMPTS, SEL)})", "", True, True)],
            w=6, sort_by="Value",
        )
    )  # fmt: skip
    d = d.with_panel(
        single_stat(
            "Gate", "The gate per agent, as `agentcov gate` judges it (agentcov_gate_passed): "
            "FAILED once a check of its expect list fails or cannot be decided (a restricted "
            "tool attempted always fails it).",
            [Query(f"min by (agent) ({m(F.GATE_PASSED, SEL)})", "{{agent}}", True)],
            unit="none", w=6, h=8, mappings=GATE,
        ).thresholds(dash.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps([
            model.Threshold(value=None, color="red"), model.Threshold(value=1, color="green"),
        ]))
    )  # fmt: skip
    d = d.with_panel(
        ratio_bars(
            "Allowed-tool and delegation edge coverage",
            "Allowed tools exercised (per exporter, best replica), declared tools called and "
            "declared delegation edges observed as a union over every replica in the last hour "
            "(recording rules agentcov:tool_coverage:ratio, agentcov:delegation_coverage:ratio).",
            [
                Query(f"max by (agent) ({m(F.EDGES_ALLOWED, SEL)})",
                      "{{agent}} · allowed tools", True),
                Query('agentcov:tool_coverage:ratio{agent=~"$agent"}',
                      "{{agent}} · declared tools (fleet)", True),
                Query('agentcov:delegation_coverage:ratio{agent=~"$agent"}',
                      "{{agent}} · delegation edges (fleet)", True),
            ],
            w=12, h=9,
        )
    )  # fmt: skip
    d = d.with_panel(
        tabular(
            "Declared tools, uncovered first",
            "Every declared tool of every agent: UNCOVERED when no replica saw a call in the "
            "last hour (recording rules agentcov:tool_seen:max and agentcov:tool_declared:max).",
            [Query('max by (agent, tool) (agentcov:tool_seen:max{agent=~"$agent"} and on '
                   '(agent, tool) agentcov:tool_declared:max) or max by (agent, tool) '
                   '(agentcov:tool_declared:max{agent=~"$agent"}) * 0', "", True, True)],
            w=12, h=9, mappings=SEEN, sort_by="Value",
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Narrative vs trace"))
    d = d.with_panel(
        series(
            "Hallucinated actions",
            "Runs whose final answer claimed a tool's action that no call in the trace (or in a "
            "delegated agent's run) performed, per agent and tool; only agents whose spec "
            "declares narrative: are checked (alert AgentCovHallucinatedAction). Failed or denied "
            "calls claimed as done, and must_report calls left out of the answer, are the other "
            f"divergences in {F.NARRATIVE_DIVERGENCES.sample}.",
            [Query(f"sum by (agent, tool) (increase("
                   f"{m(F.NARRATIVE_DIVERGENCES, SEL, kind='claimed_not_called')}"
                   "[$__rate_interval])) or vector(0)",
                   "{{agent}} → {{tool}}")],
            unit="short", w=24, bars=True,
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Behaviour contracts"))
    d = d.with_panel(
        series(
            "Contract violations",
            "Runs that violated a behaviour contract, per agent, contract, behaviour and "
            "severity (alert AgentCovContractViolation: critical pages, others ticket).",
            [Query(f"sum by (agent, contract, behavior, severity) (increase("
                   f"{m(F.CONTRACT_CHECKS, SEL, result='violated')}"
                   "[$__rate_interval]))",
                   "{{agent}} · {{contract}}.{{behavior}} ({{severity}})")],
            unit="short", w=12, bars=True,
        )
    )  # fmt: skip
    d = d.with_panel(
        tabular(
            "Violation rate per behaviour, worst first",
            "Violated / decided runs in the last hour over every replica (recording rule "
            "agentcov:contract_violation:ratio); runs whose content was not captured are "
            "unknown and counted in neither.",
            [Query('agentcov:contract_violation:ratio{agent=~"$agent"}', "", True, True)],
            w=12, unit="percentunit", sort_by="Value", descending=True,
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Runs"))
    d = d.with_panel(
        series(
            "Pass rate with its 95% interval",
            "Share of runs that passed (no error, no restricted attempt, contract met) and the "
            "Wilson 95% interval the exporter reports. A low upper bound is a credible drop "
            "(alert AgentCovPassRateLow).",
            [
                Query(f"sum by (agent) ({m(F.RUNS_PASSED, SEL)}) / sum by (agent) "
                      f"({m(F.RUNS, SEL)})", "{{agent}} pass rate"),
                Query(f"min by (agent) ({m(F.PASS_RATE_LOWER, SEL)})",
                      "{{agent}} lower 95%"),
                Query(f"max by (agent) ({m(F.PASS_RATE_UPPER, SEL)})",
                      "{{agent}} upper 95%"),
            ],
            unit="percentunit", w=12,
        ).min(0).max(1)
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Run duration p95",
            "95th percentile of agent run duration, from the run-duration histogram.",
            [Query("histogram_quantile(0.95, sum by (agent, le) "
                   f"(rate({m(F.RUN_DURATION, SEL, '_bucket')}[$__rate_interval])))",
                   "{{agent}}")],
            unit="s", w=6,
        )
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Runs",
            "Completed agent runs per second, and runs ending in error.",
            [
                Query(f"sum by (agent) (rate({m(F.RUNS, SEL)}[$__rate_interval]))",
                      "{{agent}} runs"),
                Query(f"sum by (agent) (rate({m(F.RUN_ERRORS, SEL)}"
                      "[$__rate_interval]))", "{{agent}} errors"),
            ],
            unit="ops", w=6,
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Exporter health"))
    d = d.with_panel(
        single_stat(
            "Exporters up", "Scrape targets of the selected jobs that answered the last scrape.",
            [Query(f"sum(up{{{JOB}}})", "up", True)], unit="none", w=4, h=8,
        )
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Spans processed",
            "Spans classified per second by kind (llm, tool, agent, handoff, workflow, other).",
            [Query(f"sum by (kind) (rate({m(F.SPANS_PROCESSED, JOB)}"
                   "[$__rate_interval]))", "{{kind}}")],
            unit="ops", w=7,
        )
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Drops, overflow and internal errors",
            "Spans dropped by reason, label values folded into __overflow__ and errors caught "
            "inside agentcov. Anything above zero means coverage under-counts.",
            [
                Query(f"sum by (reason) (increase({m(F.SPANS_DROPPED, JOB)}"
                      "[$__rate_interval]))", "dropped: {{reason}}"),
                Query(f"sum by (label) (increase({m(F.LABEL_OVERFLOW, JOB)}"
                      "[$__rate_interval]))", "overflow: {{label}}"),
                Query(f"sum(increase({m(F.INTERNAL_ERRORS, JOB)}"
                      "[$__rate_interval]))", "internal errors"),
            ],
            unit="short", w=7,
        )
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Traces in flight",
            "Traces buffered awaiting their root span, per exporter instance.",
            [Query(f"sum by (instance) ({m(F.TRACES_IN_FLIGHT, JOB)})", "{{instance}}")],
            unit="short", w=6,
        )
    )  # fmt: skip
    return d


def agent() -> dash.Dashboard:
    """Drill-down into one agent: tools, boundaries, path/state growth, delegation edges."""
    a = 'job=~"$job", agent="$agent"'
    d = _base(
        "agentcov / Agent drill-down", AGENT_UID,
        "One agent's behaviour coverage in detail (otel_agentcov).", multi_agent=False,
    )  # fmt: skip
    d = d.with_row(dash.Row("Summary"))
    d = d.with_panel(
        single_stat(
            "Overall coverage", "Geometric mean of the measured dimensions; status thresholds "
            "at 50% (MODERATE) and 80% (STRONG).",
            [Query(f"max({m(F.COVERAGE_OVERALL, a)})", "overall", True)],
            unit="percentunit", ratio=True,
        )
    )  # fmt: skip
    d = d.with_panel(
        single_stat(
            "Runs", "Completed runs of this agent (all replicas).",
            [Query(f"sum({m(F.RUNS, a)})", "runs", True)], unit="short",
        )
    )  # fmt: skip
    d = d.with_panel(
        single_stat(
            "Pass rate", "Runs that passed / runs, over all replicas.",
            [Query(f"sum({m(F.RUNS_PASSED, a)}) / sum({m(F.RUNS, a)})",
                   "pass rate", True)],
            unit="percentunit", ratio=True,
        )
    )  # fmt: skip
    d = d.with_panel(
        single_stat(
            "Restricted attempts", "Attempts to call a restricted tool (all outcomes, replicas).",
            [Query(f"sum({m(F.RESTRICTED_ATTEMPTS, a)}) or vector(0)",
                   "attempts", True)],
            unit="short",
        ).thresholds(dash.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps([
            model.Threshold(value=None, color="green"), model.Threshold(value=1, color="red"),
        ]))
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Coverage by dimension over time",
            "The five dimensions of this agent. A missing line is n/a (nothing to measure).",
            [Query(f"max by (dimension) ({m(F.COVERAGE, a)})", "{{dimension}}")],
            unit="percentunit", w=24,
        ).min(0).max(1)
    )  # fmt: skip

    d = d.with_row(dash.Row("Tools"))
    d = d.with_panel(
        tabular(
            "Tools called vs declared",
            "Each tool this agent declared or called: calls (0 = uncovered), declared (1) or "
            "undeclared (0), and restricted attempts. Restricted tools are not declared tools.",
            [
                Query(f"sum by (tool) ({m(F.TOOL_CALLS, a)}) or max by (tool) "
                      f"({m(F.TOOL_DECLARED, a)}) * 0", "", True, True),
                Query(f"max by (tool) ({m(F.TOOL_DECLARED, a)}) or sum by (tool) "
                      f"({m(F.TOOL_CALLS, a)}) * 0", "", True, True),
                Query(f"sum by (tool) ({m(F.RESTRICTED_ATTEMPTS, a)}) or "
                      f"sum by (tool) ({m(F.TOOL_CALLS, a)}) * 0", "", True, True),
            ],
            w=12, h=9,
            transformations=[
                model.DataTransformerConfig(id_val="merge", options={}),
                model.DataTransformerConfig(id_val="organize", options={"renameByName": {
                    "Value #A": "calls", "Value #B": "declared", "Value #C": "restricted attempts",
                }}),
            ],
            sort_by="calls",
        )
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Tool calls by outcome",
            "Tool calls per second by tool and outcome (ok, error).",
            [Query(f"sum by (tool, outcome) (rate({m(F.TOOL_CALLS, a)}"
                   "[$__rate_interval]))", "{{tool}} {{outcome}}")],
            unit="ops", w=12, h=9,
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Boundaries, paths and states"))
    d = d.with_panel(
        tabular(
            "Boundary conditions hit",
            "Runs that hit each enabled boundary condition (max_steps, timeout, cost_limit, "
            "empty_input, error_path, tool_failure); 0 = never exercised.",
            [Query(f"sum by (condition) ({m(F.BOUNDARY_HITS, a)}) or max by "
                   f"(condition) ({m(F.BOUNDARY_DECLARED, a)}) * 0", "", True, True)],
            w=8, h=9, sort_by="Value",
        ).thresholds(dash.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps([
            model.Threshold(value=None, color="red"), model.Threshold(value=1, color="green"),
        ])).cell_options(common.TableColoredBackgroundCellOptions())
    )  # fmt: skip
    d = d.with_panel(
        series(
            "Paths: observed vs estimated",
            "Distinct step sequences seen, against the bias-corrected Chao1 estimate of how "
            "many exist. The gap is unexplored behaviour; lines meeting = saturation.",
            [
                Query(f"max({m(F.PATHS_OBSERVED, a)})", "observed"),
                Query(f"max({m(F.PATHS_ESTIMATED, a)})", "estimated (Chao1)"),
            ],
            unit="short", w=8, h=9,
        )
    )  # fmt: skip
    d = d.with_panel(
        series(
            "States: observed vs estimated",
            "Distinct (step kind, tool or model, outcome, finish reason) states seen, against "
            "their Chao1 estimate.",
            [
                Query(f"max({m(F.STATES_OBSERVED, a)})", "observed"),
                Query(f"max({m(F.STATES_ESTIMATED, a)})", "estimated (Chao1)"),
            ],
            unit="short", w=8, h=9,
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Versions"))
    d = d.with_panel(
        series(
            "Pass rate by version",
            "Runs that passed / runs, per agent version (gen_ai.agent.version, else the "
            "resource's service.version), over all replicas: a canary next to its baseline.",
            [Query(f"sum by (version) ({m(F.VERSION_PASSED, a)}) / sum by "
                   f"(version) ({m(F.VERSION_RUNS, a)})", "{{version}}")],
            unit="percentunit", w=12, h=8,
        ).min(0).max(1)
    )  # fmt: skip
    d = d.with_panel(
        tabular(
            "Version verdicts",
            "Each version against the one before it (as agentcov compare): PASS = a drop over 5 "
            "points ruled out, FAIL = a drop shown (alert AgentCovVersionRegression), INCONCLUSIVE "
            "= not enough runs yet. The worst replica's verdict.",
            [Query(f"min by (version, baseline_version) ({m(F.VERSION_VERDICT, a)})", "",
                   True, True)],
            w=12, h=8,
            mappings={"1": ("PASS", "green"), "0": ("INCONCLUSIVE", "yellow"),
                      "-1": ("FAIL", "red")},
        )
    )  # fmt: skip
    d = d.with_row(dash.Row("Behaviour contracts"))
    d = d.with_panel(
        tabular(
            "Contract verdicts by behaviour",
            "Runs per contract behaviour and verdict (satisfied, violated, unknown: the content "
            "it needs was not captured), over all replicas.",
            [Query(f"sum by (contract, behavior, severity, result) "
                   f"({m(F.CONTRACT_CHECKS, a)})", "", True, True)],
            w=24, h=8, sort_by="Value",
        )
    )  # fmt: skip

    d = d.with_row(dash.Row("Delegation and models"))
    d = d.with_panel(
        tabular(
            "Delegation edges",
            "Delegations from -> to recorded for this agent (observed count) and the edges its "
            "spec declares (declared 1); a declared edge with 0 calls is uncovered.",
            [
                Query(f"sum by (from_agent, to_agent) ({m(F.DELEGATIONS, a)}) or max "
                      f"by (from_agent, to_agent) ({m(F.DELEGATION_DECLARED, a)}) * 0",
                      "", True, True),
                Query(f"max by (from_agent, to_agent) ({m(F.DELEGATION_DECLARED, a)}) "
                      f"or sum by (from_agent, to_agent) ({m(F.DELEGATIONS, a)}) * 0",
                      "", True, True),
            ],
            w=12, h=8,
            transformations=[
                model.DataTransformerConfig(id_val="merge", options={}),
                model.DataTransformerConfig(id_val="organize", options={"renameByName": {
                    "Value #A": "calls", "Value #B": "declared",
                }}),
            ],
        )
    )  # fmt: skip
    d = d.with_panel(
        ratio_bars(
            "Model and fleet-wide coverage",
            "Declared models used, and tools and boundary conditions covered as a union over "
            "every replica in the last hour (recording rules).",
            [
                Query(f"max by (dimension) ({m(F.COVERAGE, a, dimension='model')})",
                      "models", True),
                Query('agentcov:tool_coverage:ratio{agent="$agent"}', "tools (fleet)", True),
                Query('agentcov:boundary_coverage:ratio{agent="$agent"}', "boundaries (fleet)",
                      True),
            ],
            w=12, h=8,
        )
    )  # fmt: skip
    return d


DASHBOARDS = {"agentcov-fleet.json": fleet, "agentcov-agent.json": agent}


def render(build: Callable[[], dash.Dashboard]) -> str:
    """Stable JSON text of one dashboard (sorted keys, trailing newline) for diff-friendly files."""
    data = json.loads(json.dumps(build().build(), cls=JSONEncoder))
    for number, panel in enumerate(data["panels"], start=1):
        panel["id"] = number  # the SDK leaves ids to Grafana; fixed ids keep links and diffs stable
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def rendered() -> dict[str, str]:
    """File name -> JSON text of every dashboard."""
    return {name: render(build) for name, build in DASHBOARDS.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if committed JSON is stale")
    args = parser.parse_args(argv)
    stale = []
    for name, text in rendered().items():
        path = HERE / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)} (run python dashboards/grafana/generate.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
