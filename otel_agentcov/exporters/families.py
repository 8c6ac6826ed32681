"""Every metric family agentcov exports, declared once: name, type, unit, labels, help, and how
its rows come from a report (`Snapshot.to_dict()`).

The Prometheus exposition (`prometheus.py`), the OpenTelemetry instruments (`otlp_metrics.py`),
`agentcov serve`'s self-metrics, the metric reference in docs/metrics.md and the Grafana
dashboards all read this table, so a family cannot be named, typed or described two ways.
A new family is one `Family(...)` here, listed in `FAMILIES`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ..snapshot.schema import DIMENSIONS, AgentReport, Narrative, SpanStats, Version

Labels = tuple[str, ...]
Row = tuple[Labels, Any]  # label values, sample value (None emits no sample)

# Where a family's rows come from.
AGENT = "agent"  # `rows(agent, agent_report)` for every agent of the report (series budgeted)
SPANS = "spans"  # `rows(report["spans"])`: the engine's own counters
SCRAPE = "scrape"  # filled by the exposition itself (what the series budget cut)
SERVICE = "service"  # `agentcov serve` only: filled from its intake and store at scrape time
BUILD = "build"  # every served endpoint: which build answers

DROP_REASONS = (
    "queue_full", "queue_bytes", "malformed", "invalid_ids", "end_before_start", "after_shutdown"
)
OVERFLOW_LABELS = (
    "agent", "tool", "model", "path", "state", "context", "context_item", "contract", "version"
)
CheckResult = Literal["satisfied", "violated", "unknown", "not_exercised"]
CHECK_RESULTS: tuple[CheckResult, ...] = ("satisfied", "violated", "unknown", "not_exercised")
# agentcov_version_verdict: a version against the one before it (docs/compare.md)
VERDICT_VALUES = {"PASS": 1, "INCONCLUSIVE": 0, "FAIL": -1}


@dataclass(frozen=True)
class Family:
    """One metric family. `name` is the Prometheus family name (a counter's samples are
    `name_total`: `sample`); `otlp` names its OpenTelemetry instrument when it has one."""

    name: str
    type: str  # gauge | counter | histogram
    unit: str  # UCUM, as OpenTelemetry carries it
    labels: Labels
    help: str
    source: str
    rows: Callable[..., Iterable[Row]] | None = None  # AGENT and SPANS families
    otlp: str | None = None
    integer: bool = False  # OTLP observes whole numbers (counters always do)
    # a counter row's exemplar labels (OpenMetrics only): (agent, agent_report) -> row -> labels
    exemplars: Callable[[str, Mapping[str, Any]], Mapping[Labels, dict[str, str]]] | None = None

    @property
    def sample(self) -> str:
        """The name a query uses for its samples."""
        return f"{self.name}_total" if self.type == "counter" else self.name


def _gauge(name: str, help: str, labels: Labels = ("agent",), **kw: Any) -> Family:
    return Family(name, "gauge", kw.pop("unit", "1"), labels, help, kw.pop("source", AGENT),
                  **kw)


def _counter(name: str, help: str, unit: str, labels: Labels = ("agent",), **kw: Any) -> Family:
    return Family(name, "counter", unit, labels, help, kw.pop("source", AGENT), integer=True,
                  **kw)


AgentRows = Callable[[str, AgentReport], Iterator[Row]]
SpanRows = Callable[[SpanStats], Iterator[Row]]


class One:
    """Rows of a family with one series per agent, `value(report)`: a writer of many agents
    reads `value` directly, without a generator and a row per agent (prometheus.py)."""

    __slots__ = ("value",)

    def __init__(self, value: Callable[[AgentReport], Any]) -> None:
        self.value = value

    def __call__(self, agent: str, rep: AgentReport) -> Iterator[Row]:
        yield (agent,), self.value(rep)


def _ratio(pct: float | None) -> float | None:
    return None if pct is None else pct / 100.0


def _coverage(agent: str, rep: AgentReport) -> Iterator[Row]:
    cov = rep["coverage"]
    for dim in DIMENSIONS:
        yield (agent, dim), cov.get(dim)
    if "skills" in rep:  # an agent with skills only (docs/semantics.md#skills)
        yield (agent, "skill"), cov.get("skill")


def _skill_loads(agent: str, rep: AgentReport) -> Iterator[Row]:
    for skill, counts in rep.get("skills", {}).get("loaded", {}).items():
        yield (agent, skill, "load"), counts["loads"]
        yield (agent, skill, "resource"), counts["resources"]


def _restricted(agent: str, rep: AgentReport) -> Iterator[Row]:
    for r in rep["edges"].get("restricted", ()):
        yield (agent, r["tool"], r["outcome"]), r["count"]


def _gate_passed(rep: AgentReport) -> int:
    """The agent's gate, as its report's expect rows decide it (an undecided check fails)."""
    return int(all(row["passed"] for row in rep["expect"]))


def _restricted_exemplars(agent: str, rep: AgentReport) -> dict[Labels, dict[str, str]]:
    """The newest attempt's trace id for each restricted tool's rows."""
    traces = rep["edges"].get("restricted_traces", {})
    return {
        (agent, r["tool"], r["outcome"]): {"trace_id": traces[r["tool"]][0]}
        for r in rep["edges"].get("restricted", ())
        if traces.get(r["tool"])  # newest first
    }


def _decisions(agent: str, rep: AgentReport) -> Iterator[Row]:
    for d in rep["edges"].get("decisions", ()):
        for outcome in ("allow", "deny", "require_approval"):
            yield (agent, d["tool"], outcome), d[outcome]


def _costs(agent: str, rep: AgentReport) -> Iterator[Row]:
    for currency, cost in rep["runs"].get("cost", {}).items():
        yield (agent, currency), cost["total"]


class Each:
    """Rows of an `(agent, name, outcome)` family: for each `name: counts` of `items(report)`,
    a series per outcome (plain words, the label's values as they are written), valued
    `counts[outcome]` (0 when absent). A writer of many agents reads `items` and `outcomes`
    directly, without building the rows (prometheus.py)."""

    __slots__ = ("items", "outcomes")

    def __init__(self, items: Callable[[AgentReport], Mapping[str, Mapping[str, Any]]],
                 outcomes: tuple[str, ...]) -> None:
        self.items, self.outcomes = items, outcomes

    def __call__(self, agent: str, rep: AgentReport) -> Iterator[Row]:
        for name, counts in self.items(rep).items():
            for outcome in self.outcomes:
                yield (agent, name, outcome), counts.get(outcome, 0)


def _tool_arguments(agent: str, rep: AgentReport) -> Iterator[Row]:
    """One series per tool with a schema (argument coverage on): bounded by tools, not items."""
    arguments = rep.get("arguments")
    for tool, row in arguments["tools"].items() if arguments is not None else ():
        yield (agent, tool), _ratio(row["pct"])


class Listed:
    """Rows of an info family: `(agent, name)` valued 1 for each name `names(report)` lists; a
    writer of many agents reads `names` directly (prometheus.py)."""

    __slots__ = ("names",)

    def __init__(self, names: Callable[[AgentReport], Iterable[str]]) -> None:
        self.names = names

    def __call__(self, agent: str, rep: AgentReport) -> Iterator[Row]:
        for name in self.names(rep):
            yield (agent, name), 1


def _counted(counts: Callable[[AgentReport], Mapping[str, int]]) -> AgentRows:
    """A per-item counter from a `{name: count}` mapping."""

    def rows(agent: str, rep: AgentReport) -> Iterator[Row]:
        for name, n in counts(rep).items():
            yield (agent, name), n

    return rows


def _resilience_bound(i: int) -> One:
    def bound(rep: AgentReport) -> Any:
        ci = rep.get("faults", {}).get("resilience_ci95")
        return ci[i] if ci else None

    return One(bound)


def _delegations(agent: str, rep: AgentReport) -> Iterator[Row]:
    for d in rep.get("delegations", ()):
        yield (agent, d["from"], d["to"]), d["count"]


def _delegations_declared(agent: str, rep: AgentReport) -> Iterator[Row]:
    for d in rep["edges"].get("delegation_declared", ()):
        yield (agent, d["from"], d["to"]), 1


@lru_cache(maxsize=16)
def _le(bounds: tuple[float, ...]) -> tuple[str, ...]:
    """Each bound as its bucket's `le` value, once per bounds: every agent's report has the
    same ones, and a scrape writes every agent's histogram."""
    return tuple(repr(float(b)) for b in bounds)


def _duration(agent: str, rep: AgentReport) -> Iterator[Row]:
    """(cumulative buckets as (le, count), sum): a histogram row."""
    hist = rep["runs"].get("duration_histogram")
    if hist is not None:
        bounds = tuple(hist["bounds"])
        # 0.0 and -0.0 are one key but not one text: a zero bound is written each time
        les = _le(bounds) if 0 not in bounds else _le.__wrapped__(bounds)
        buckets = list(zip(les, map(float, hist["cumulative"]), strict=True))
        buckets.append(("+Inf", float(hist["count"])))
        yield (agent,), (buckets, float(hist["sum"]))


def _pass_bound(side: int) -> One:
    def bound(rep: AgentReport) -> Any:
        ci = rep["runs"].get("pass_rate_ci95")
        return None if ci is None else ci[side]  # null: no sample

    return One(bound)


def _story(rep: AgentReport) -> Narrative | None:
    """The narrative section when a narrative check is declared or has judged runs."""
    story = rep.get("narrative")
    if story is not None and (story["declared"] or any(story["runs"].values())):
        return story
    return None


def _narrative_runs(agent: str, rep: AgentReport) -> Iterator[Row]:
    story = _story(rep)
    for result, n in story["runs"].items() if story is not None else ():
        yield (agent, result), n


def _narrative_divergences(agent: str, rep: AgentReport) -> Iterator[Row]:
    story = _story(rep)
    for d in story["divergences"] if story is not None else ():
        yield (agent, d["tool"], d["kind"]), d["count"]


def _contract_checks(agent: str, rep: AgentReport) -> Iterator[Row]:
    for c in rep.get("contracts", ()):
        for result in CHECK_RESULTS:
            yield (agent, c["contract"], c["behavior"], c["severity"], result), c[result]


def _per_version(value: Callable[[Version], Any]) -> AgentRows:
    def rows(agent: str, rep: AgentReport) -> Iterator[Row]:
        for ver in rep.get("versions", ()):
            yield (agent, ver["version"]), value(ver)

    return rows


def _version_tools(agent: str, rep: AgentReport) -> Iterator[Row]:
    for ver in rep.get("versions", ()):
        for tool, n in ver["tool_calls"].items():
            yield (agent, ver["version"], tool), n


def _version_verdict(agent: str, rep: AgentReport) -> Iterator[Row]:
    for ver in rep.get("versions", ()):
        verdict, baseline = ver["verdict_vs_previous"], ver["baseline_version"]
        if verdict is not None and baseline is not None:  # the first version has neither
            yield (agent, ver["version"], baseline), VERDICT_VALUES[verdict]


def _by(counts: Callable[[SpanStats], Mapping[str, int]], every: tuple[str, ...] = ()
        ) -> SpanRows:
    """A self-metric by one label; `every` value has a series (0 if unseen), and then the
    series are sorted."""

    def rows(spans: SpanStats) -> Iterator[Row]:
        seen = dict(counts(spans))
        if every:
            seen = dict(sorted(({v: 0 for v in every} | seen).items()))
        for value, n in seen.items():
            yield (value,), n

    return rows


def _total(count: Callable[[SpanStats], int]) -> SpanRows:
    def rows(spans: SpanStats) -> Iterator[Row]:
        yield (), count(spans)

    return rows


A = ("agent",)
AV = ("agent", "version")
EDGE = ("agent", "from_agent", "to_agent")

COVERAGE = _gauge("agentcov_coverage_ratio", "Coverage per agent and dimension.",
                  ("agent", "dimension"), rows=_coverage, otlp="agentcov.coverage.ratio")
COVERAGE_OVERALL = _gauge(
    "agentcov_coverage_overall_ratio", "Geometric mean of measured dimensions.",
    rows=One(lambda r: r["coverage"].get("overall")), otlp="agentcov.coverage.overall")
EDGES_ALLOWED = _gauge("agentcov_edges_allowed_ratio", "Share of allowed tools called.",
                       rows=One(lambda r: _ratio(r["edges"].get("allowed_pct"))))
EDGES_DELEGATION = _gauge("agentcov_edges_delegation_ratio", "Share of declared delegations seen.",
                          rows=One(lambda r: _ratio(r["edges"].get("delegation_pct"))))
GATE_PASSED = _gauge(
    "agentcov_gate_passed",
    "1 when every check of the agent's gate passes as `agentcov gate` judges it (its expect "
    "list, declared-means-gated checks included), 0 when one fails or is undecided.",
    rows=One(_gate_passed), otlp="agentcov.gate.passed", integer=True)
RESTRICTED_ATTEMPTS = _counter(
    "agentcov_restricted_tool_attempts",
    "Attempts to call a restricted tool, by outcome; in OpenMetrics each carries the trace "
    "id of the newest attempt at that tool as an exemplar.", "{attempt}",
    ("agent", "tool", "outcome"), rows=_restricted, exemplars=_restricted_exemplars,
    otlp="agentcov.restricted_tool.attempts")
TOOL_DECISIONS = _counter(
    "agentcov_tool_call_decisions",
    "Tool-call decisions (gen_ai.tool.call.decision events) by outcome: allow, deny, and "
    "require_approval still pending.", "{decision}", ("agent", "tool", "outcome"),
    rows=_decisions, otlp="agentcov.tool_call.decisions")
SKILL_LOADS = _counter(
    "agentcov_skill_loads",
    "Skills loaded (an execute_tool span naming gen_ai.skill.name), by kind: load, or resource "
    "for a read of one of its resources; each is a tool call too.", "{load}",
    ("agent", "skill", "kind"), rows=_skill_loads, otlp="agentcov.skill.loads")
TOOL_CALLS = _counter("agentcov_tool_calls", "Tool calls by outcome.", "{call}",
                      ("agent", "tool", "outcome"),
                      rows=Each(lambda r: r["tools"].get("called", {}), ("ok", "error")),
                      otlp="agentcov.tool.calls")
TOOL_DECLARED = _gauge("agentcov_tool_declared_info", "Declared or discovered tools.",
                       ("agent", "tool"), rows=Listed(lambda r: r["tools"].get("known", ())))
TOOLS_ERRORS_ONLY = _gauge(
    "agentcov_tools_errors_only", "Tools called but never successfully (tools.errors_only).",
    rows=One(lambda r: len(r["tools"].get("errors_only", ()))),
    integer=True)
TOOL_ARGUMENTS = _gauge(
    "agentcov_tool_arguments_ratio",
    "Share of a tool's input-schema argument items (parameters, enum values, booleans, "
    "branches, bounds, empty/non-empty arrays) calls exercised; tools with a schema, argument "
    "coverage on.", ("agent", "tool"), rows=_tool_arguments)
ARGUMENTS = _gauge(
    "agentcov_arguments_ratio",
    "Share of argument items exercised over every tool with a schema (tools.arguments_pct); "
    "beside the overall ratio unless the spec's arguments.overall joins it.",
    rows=One(lambda r: _ratio(r["arguments"]["pct"]) if "arguments" in r else None))
MODEL_CALLS = _counter("agentcov_model_calls", "Model calls by model.", "{call}",
                       ("agent", "model"), rows=_counted(lambda r: r["models"].get("used", {})))
MODEL_DECLARED = _gauge("agentcov_model_declared_info", "Declared models.", ("agent", "model"),
                        rows=Listed(lambda r: r["models"].get("known", ())))
DELEGATIONS = _counter("agentcov_delegations", "Observed delegations.", "{delegation}", EDGE,
                       rows=_delegations)
DELEGATION_DECLARED = _gauge("agentcov_delegation_declared_info", "Declared delegations.", EDGE,
                             rows=_delegations_declared)
BOUNDARY_HITS = _counter("agentcov_boundary_hits", "Runs that hit a boundary condition.",
                         "{run}", ("agent", "condition"),
                         rows=_counted(lambda r: r.get("boundary_hits", {})))
BOUNDARY_DECLARED = _gauge(
    "agentcov_boundary_declared_info",
    "Enabled boundary conditions of an agent that declares boundaries (its boundary coverage "
    "counts in the overall).", ("agent", "condition"),
    rows=Listed(lambda r: r.get("boundaries", {}) if "boundary" in r["coverage"]["counted"]
                 else {}))
BOUNDARY_ORIGIN = _counter(
    "agentcov_boundary_origin_hits", "Boundary hits by origin: provoked by an injected fault of a "
    "matching family, or natural (agentcov docs faults).", "{run}",
    ("agent", "condition", "origin"),
    rows=Each(lambda r: r.get("faults", {}).get("conditions", {}), ("provoked", "natural")))
FAULT_RUNS = _counter(
    "agentcov_fault_runs", "Runs with an injected fault of the family: injected, hit a condition "
    "it provokes, recovered, failed (agentcov docs faults).", "{run}",
    ("agent", "family", "outcome"),
    rows=Each(lambda r: r.get("faults", {}).get("families", {}),
              ("injected", "hit", "recovered", "failed")))
RESILIENCE_LOWER = _gauge("agentcov_resilience_lower_ratio",
                          "Wilson 95% lower bound of the share of runs with faults that recovered.",
                          rows=_resilience_bound(0))
RESILIENCE_UPPER = _gauge("agentcov_resilience_upper_ratio",
                          "Wilson 95% upper bound of the share of runs with faults that recovered.",
                          rows=_resilience_bound(1))
RUNS = _counter("agentcov_runs", "Completed runs.", "{run}",
                rows=One(lambda r: r["runs"].get("count")), otlp="agentcov.runs")
RUN_ERRORS = _counter("agentcov_run_errors", "Runs that ended in error.", "{run}",
                      rows=One(lambda r: r["runs"].get("errors")))
RUNS_PASSED = _counter("agentcov_runs_passed", "Runs that passed.", "{run}",
                       rows=One(lambda r: r["runs"].get("passed")))
RUN_COST = Family(
    "agentcov_run_cost", "counter", "{currency}", ("agent", "currency"),
    "gen_ai.usage.cost.amount summed over runs, per currency (at most 16 currencies, then "
    "__overflow__).", AGENT, rows=_costs, otlp="agentcov.run.cost")
RUN_DURATION = Family("agentcov_run_duration_seconds", "histogram", "s", A, "Run duration.",
                      AGENT, rows=_duration)
PASS_RATE_LOWER = _gauge("agentcov_pass_rate_lower_ratio", "Wilson 95% lower bound of pass rate.",
                         rows=_pass_bound(0))
PASS_RATE_UPPER = _gauge("agentcov_pass_rate_upper_ratio", "Wilson 95% upper bound of pass rate.",
                         rows=_pass_bound(1))
CONSISTENCY = _gauge("agentcov_behavior_consistency_ratio",
                     "Mean pairwise Jaccard of recent tool sets.",
                     rows=One(lambda r: r["runs"].get("behavior_consistency")))
PATHS_OBSERVED = _gauge("agentcov_paths_observed", "Distinct paths observed.", unit="{path}",
                        rows=One(lambda r: r["paths"].get("observed")))
PATHS_ESTIMATED = _gauge("agentcov_paths_estimated", "Chao1 estimate of distinct paths.",
                         unit="{path}", rows=One(lambda r: r["paths"].get("estimated")))
STATES_OBSERVED = _gauge("agentcov_states_observed", "Distinct states observed.", unit="{state}",
                         rows=One(lambda r: r["states"].get("observed")))
STATES_ESTIMATED = _gauge("agentcov_states_estimated", "Chao1 estimate of distinct states.",
                          unit="{state}", rows=One(lambda r: r["states"].get("estimated")))
NARRATIVE_RUNS = _counter("agentcov_narrative_runs", "Runs whose story was checked, by result.",
                          "{run}", ("agent", "result"), rows=_narrative_runs,
                          otlp="agentcov.narrative.runs")
NARRATIVE_DIVERGENCES = _counter(
    "agentcov_narrative_divergences", "Runs whose story diverged from the trace, by tool and kind.",
    "{run}", ("agent", "tool", "kind"), rows=_narrative_divergences,
    otlp="agentcov.narrative.divergences")
CONTRACT_CHECKS = _counter(
    "agentcov_contract_checks", "Contract behaviour verdicts on runs, by result.", "{check}",
    ("agent", "contract", "behavior", "severity", "result"), rows=_contract_checks,
    otlp="agentcov.contract.checks")
CONTRACT_COVERAGE = _gauge(
    "agentcov_contract_coverage_ratio",
    "Contract behaviours decided (satisfied or violated) in at least one run / declared; not "
    "part of the overall coverage.",
    rows=One(lambda r: r["coverage"].get("contracts")))
VERSION_RUNS = _counter("agentcov_version_runs", "Completed runs per agent version.", "{run}", AV,
                        rows=_per_version(lambda v: v["runs"]), otlp="agentcov.version.runs")
VERSION_PASSED = _counter("agentcov_version_runs_passed", "Passed runs per agent version.",
                          "{run}", AV, rows=_per_version(lambda v: v["passed"]))
VERSION_PASS_RATE = _gauge("agentcov_version_pass_rate_ratio", "Pass rate per agent version.", AV,
                           rows=_per_version(lambda v: v["pass_rate"]))
VERSION_TOOL_CALLS = _counter("agentcov_version_tool_calls",
                              "Executed tool calls per agent version.", "{call}",
                              (*AV, "tool"), rows=_version_tools)
VERSION_VERDICT = _gauge(
    "agentcov_version_verdict",
    "Pass-rate verdict of a version against the one before it: 1 pass, 0 inconclusive, -1 fail.",
    (*AV, "baseline_version"), rows=_version_verdict, otlp="agentcov.version.verdict",
    integer=True)

SERIES_OVERFLOW = _gauge(
    "agentcov_series_overflow",
    "Series cut from a family by the per-scrape series budget (counters keep their sum in "
    "__overflow__).", ("family",), unit="{series}", source=SCRAPE)

SPANS_PROCESSED = _counter("agentcov_spans_processed", "Spans classified, by kind.", "{span}",
                           ("kind",), source=SPANS, rows=_by(lambda s: s.get("by_kind", {})))
SPANS_DROPPED = _counter("agentcov_spans_dropped", "Spans dropped, by reason.", "{span}",
                         ("reason",), source=SPANS,
                         rows=_by(lambda s: s.get("dropped", {}), DROP_REASONS))
TRACES_FLUSHED_EARLY = _counter(
    "agentcov_traces_flushed_early", "Traces finished before their root ended.", "{trace}",
    ("reason",), source=SPANS, rows=_by(lambda s: s.get("flushed_early", {})))
LABEL_OVERFLOW = _counter("agentcov_label_overflow", "Label values folded into __overflow__.",
                          "{value}", ("label",), source=SPANS,
                          rows=_by(lambda s: s.get("label_overflow", {}), OVERFLOW_LABELS))
INTERNAL_ERRORS = _counter("agentcov_internal_errors", "Errors caught inside agentcov.",
                           "{error}", (), source=SPANS,
                           rows=_total(lambda s: s.get("internal_errors", 0)))
TRACES_IN_FLIGHT = _gauge("agentcov_traces_in_flight", "Traces buffered awaiting their root.",
                          (), unit="{trace}", source=SPANS,
                          rows=_total(lambda s: s.get("traces_in_flight", 0)))
SPANS_BUFFERED = _gauge("agentcov_spans_buffered", "Spans buffered in traces awaiting their root.",
                        (), unit="{span}", source=SPANS,
                        rows=_total(lambda s: s.get("spans_buffered", 0)))
DECISION_EVENTS = _counter(
    "agentcov_decision_events",
    "Decision events received, by what became of them: joined to a buffered span, late (to a "
    "folded run), or dropped (duplicate, unjoined, buffer_full, invalid); `received` counts "
    "them all.", "{event}", ("outcome",), source=SPANS,
    rows=_by(lambda s: {k: v for k, v in s.get("events", {}).items() if k != "buffered"}))
EVALUATION_EVENTS = _counter(
    "agentcov_evaluation_events",
    "Evaluation events (gen_ai.evaluation.result) emitted, or dropped by reason; only when they "
    "are turned on.", "{event}", ("outcome",), source=SPANS,
    rows=_by(lambda s: s.get("evaluations", {})))

BUILD_INFO = _gauge("agentcov_build_info",
                    "The otel_agentcov build serving these metrics (always 1).",
                    ("version", "python"), source=BUILD)

RECEIVER_REQUESTS = _counter(
    "agentcov_receiver_requests", "OTLP export requests by transport and outcome.", "{request}",
    ("transport", "outcome"), source=SERVICE)
RECEIVER_SPANS = _counter(
    "agentcov_receiver_spans", "Spans received, accepted or rejected (partial success).",
    "{span}", ("transport", "outcome"), source=SERVICE)
STATE_RECOVERIES = _counter(
    "agentcov_state_recoveries", "State files set aside or repaired at start, by reason.",
    "{recovery}", ("reason",), source=SERVICE)
STATE_COMPACTIONS = _counter("agentcov_state_compactions", "Snapshots written (journal folded in).",
                             "{snapshot}", (), source=SERVICE)
JOURNAL_FSYNCS = _counter("agentcov_journal_fsyncs", "Journal fsyncs (group commits).", "{fsync}",
                          (), source=SERVICE)
JOURNAL_BYTES = _gauge("agentcov_journal_bytes", "Size of the journal since the last snapshot.",
                       (), unit="By", source=SERVICE)
STATE_RECOVERY_SECONDS = _gauge("agentcov_state_recovery_seconds",
                                "Time the last start took to restore state.", (), unit="s",
                                source=SERVICE)
RECEIVER_INFLIGHT_BYTES = _gauge(
    "agentcov_receiver_inflight_bytes",
    "Request bytes held in memory now (wire + inflated), against --max-inflight-bytes.", (),
    unit="By", source=SERVICE)

# Exposition order: the per-agent families, the engine's counters, the budget's cuts.
FAMILIES: tuple[Family, ...] = (
    COVERAGE, COVERAGE_OVERALL, EDGES_ALLOWED, EDGES_DELEGATION, GATE_PASSED, RESTRICTED_ATTEMPTS,
    TOOL_DECISIONS, SKILL_LOADS, TOOL_CALLS, TOOL_DECLARED, TOOLS_ERRORS_ONLY, TOOL_ARGUMENTS,
    ARGUMENTS,
    MODEL_CALLS, MODEL_DECLARED, DELEGATIONS, DELEGATION_DECLARED, BOUNDARY_HITS,
    BOUNDARY_DECLARED, BOUNDARY_ORIGIN, FAULT_RUNS, RESILIENCE_LOWER, RESILIENCE_UPPER, RUNS,
    RUN_ERRORS, RUNS_PASSED, RUN_COST, RUN_DURATION,
    PASS_RATE_LOWER, PASS_RATE_UPPER, CONSISTENCY, PATHS_OBSERVED, PATHS_ESTIMATED,
    STATES_OBSERVED, STATES_ESTIMATED, NARRATIVE_RUNS, NARRATIVE_DIVERGENCES, CONTRACT_CHECKS,
    CONTRACT_COVERAGE, VERSION_RUNS, VERSION_PASSED, VERSION_PASS_RATE, VERSION_TOOL_CALLS,
    VERSION_VERDICT,
    SPANS_PROCESSED, SPANS_DROPPED, TRACES_FLUSHED_EARLY, LABEL_OVERFLOW, INTERNAL_ERRORS,
    TRACES_IN_FLIGHT, SPANS_BUFFERED, DECISION_EVENTS, EVALUATION_EVENTS, SERIES_OVERFLOW,
    BUILD_INFO,
    RECEIVER_REQUESTS, RECEIVER_SPANS, STATE_RECOVERIES, STATE_COMPACTIONS, JOURNAL_FSYNCS,
    JOURNAL_BYTES, STATE_RECOVERY_SECONDS, RECEIVER_INFLIGHT_BYTES,
)  # fmt: skip


def of(source: str) -> tuple[Family, ...]:
    """The families whose rows come from `source`, in exposition order."""
    return tuple(f for f in FAMILIES if f.source == source)
