"""The JSON report's shape (docs/report.md), as TypedDicts: what the snapshot sections write and
what every reader (exporters, gate, compare, reporters, views) reads, so mypy --strict catches a
key one side renamed. A key listed here is in every report unless marked NotRequired.

A value the report cannot decide is null (`None`), never a guess; ratios are in [0, 1] except
the `edges.*_pct` percentages.
"""

# no `from __future__ import annotations`: NotRequired must be seen when the classes are made,
# so __required_keys__ is right for the runtime check in tests/test_report_schema.py
from typing import Literal, NotRequired, TypedDict

from ..semconv.shapes import Unclassified

Dimension = Literal["tool", "path", "state", "boundary", "model"]
DIMENSIONS: tuple[Dimension, ...] = ("tool", "path", "state", "boundary", "model")
# skill coverage is reported for agents with skills only, and in the overall when declared
# (docs/semantics.md#skills)
AnyDimension = Literal["tool", "path", "state", "boundary", "model", "skill"]


class Summary(TypedDict):
    mean: float | None
    p95: float | None


class Histogram(TypedDict):
    """Cumulative counts at each upper bound (seconds), as Prometheus histograms carry them."""

    bounds: list[float]
    cumulative: list[int]
    count: int
    sum: float


class CostTotal(TypedDict):
    total: float
    runs: int  # runs that recorded a cost in this currency
    mean: float | None  # per such run


class Runs(TypedDict):
    count: int
    errors: int
    passed: int
    pass_rate: float | None
    pass_rate_ci95: list[float] | None  # [lower, upper], Wilson 95%
    duration_s: Summary
    tokens: Summary
    behavior_consistency: float | None
    duration_histogram: Histogram
    cost: NotRequired[dict[str, CostTotal]]  # per currency, when any cost was recorded



class Coverage(TypedDict):
    tool: float | None
    path: float | None
    state: float | None
    boundary: float | None
    model: float | None
    overall: float | None
    weakest: AnyDimension | None
    counted: list[AnyDimension]  # the dimensions the overall is the geometric mean of
    insufficient_data: bool
    excluded: dict[str, str]  # dimension -> why it is n/a, or why it is not in the overall
    contracts: NotRequired[float | None]  # declared behaviours some run decided
    skill: NotRequired[float | None]  # only for an agent with skills (docs/semantics.md#skills)


class ToolCalls(TypedDict):
    ok: int
    error: int


ToolOutcome = Literal["ok", "errors_only", "not_called", "restricted"]


class Tools(TypedDict):
    known: list[str]
    called: dict[str, ToolCalls]
    uncovered: list[str]
    undeclared: list[str]
    discovered: bool
    outcomes: dict[str, ToolOutcome]  # known and called tools: docs/report.md#tool-outcomes
    errors_only: list[str]  # called, never successfully: a concern


class SkillLoads(TypedDict):
    loads: int
    resources: int  # reads of its resources (and runs of its scripts)


class Skills(TypedDict):
    """Skills beside tools (docs/semantics.md#skills): names and counts, never a description."""

    known: list[str]  # declared in the spec, else offered (gen_ai.skill.definitions) or loaded
    discovered: bool  # known from telemetry: no `skills:` declared
    loaded: dict[str, SkillLoads]
    unloaded: list[str]  # known, never loaded
    undeclared: list[str]  # loaded, not declared (empty when nothing is declared)
    coverage: float | None  # known skills loaded


class Models(TypedDict):
    known: list[str]
    used: dict[str, int]


class PathCount(TypedDict):
    path: list[str]
    count: int


class Paths(TypedDict):
    observed: int
    estimated: float | None
    sample_coverage: float | None
    expected: int | None
    top: list[PathCount]
    rarest: list[PathCount]


class States(TypedDict):
    observed: int
    estimated: float | None
    sample_coverage: float | None
    # "events" when the runtime's state-change events are the states (docs/semantics.md#state-
    # from-events); absent when they are inferred from the steps
    source: NotRequired[Literal["events"]]


Edge = TypedDict("Edge", {"from": str, "to": str})
Delegation = TypedDict("Delegation", {"from": str, "to": str, "count": int})


class Restricted(TypedDict):
    tool: str
    outcome: str
    count: int


class Decision(TypedDict):
    """One tool's tool-call decisions; `require_approval` is the approvals still pending."""

    tool: str
    allow: int
    deny: int
    require_approval: int


class Edges(TypedDict):
    allowed_pct: float | None
    restricted_attempts: int
    delegation_pct: float | None
    gate_passed: int  # 1 when no restricted tool was attempted
    delegation_declared: list[Edge]
    restricted: list[Restricted]
    restricted_traces: dict[str, list[str]]  # tool -> trace ids of its newest attempts
    decisions: NotRequired[list[Decision]]  # tool-call decisions per tool, when there were any


class Divergence(TypedDict):
    tool: str
    kind: str
    count: int


class Narrative(TypedDict):
    declared: bool
    runs: dict[str, int]  # by result
    divergences: list[Divergence]
    not_english: NotRequired[int]  # unverifiable runs: answer in a language not read
    too_long: NotRequired[int]  # unverifiable runs whose answer was past the size cap


class Concern(TypedDict):
    type: str
    severity: str
    message: str


class ContractRow(TypedDict):
    contract: str
    behavior: str
    kind: str
    severity: str
    satisfied: int
    violated: int
    unknown: int
    not_exercised: int
    violation_rate: float | None
    violation_rate_ci95: list[float] | None


class ExpectResult(TypedDict):
    target: str
    value: float | int | None
    passed: bool
    reason: str  # why it failed; "" when it passed


class Version(TypedDict):
    version: str
    runs: int
    passed: int
    pass_rate: float
    verdict_vs_previous: str | None  # PASS | FAIL | INCONCLUSIVE; None for the first
    baseline_version: str | None
    tool_calls: dict[str, int]


class Recommendation(TypedDict):
    kind: str
    subject: str
    message: str
    runs: NotRequired[int]  # more_runs: how many, and what each goal needs
    runs_for_paths: NotRequired[int]
    runs_for_pass_rate: NotRequired[int]


class TestTally(TypedDict):
    runs: int
    passed: int
    tools: dict[str, int]
    delegations: list[Edge]
    restricted: list[str]
    behaviors: list[str]


class Untested(TypedDict):
    tools: list[str]
    delegations: list[Edge]
    behaviors: list[str]


class SingleTest(TypedDict):
    tools: list[str]


class Contexts(TypedDict):
    by_test: dict[str, TestTally]
    tests_by_tool: dict[str, list[str]]
    untested: Untested
    single_test: SingleTest


class FaultFamily(TypedDict):
    seam: str  # model, tool or input
    injected: int  # runs it was injected in
    hit: int  # ... that hit a boundary condition it provokes
    recovered: int  # ... that still ended without error
    failed: int


class ConditionHits(TypedDict):
    hits: int  # runs that hit the condition
    provoked: int  # ... with a fault of a matching family
    natural: int  # ... without one


class ToolFailures(TypedDict):
    failed: int  # runs in which a call of the tool failed
    recovered: int  # ... that still ended without error


class Faults(TypedDict):
    """docs/faults.md: what injected faults did; runs without faults count only in `conditions`
    (natural hits) and `tools`."""

    runs: int  # runs with at least one injected fault
    recovered: int
    failed: int
    resilience: float | None  # recovered / runs; null without fault runs
    resilience_ci95: list[float] | None  # [lower, upper], Wilson 95%
    families: dict[str, FaultFamily]
    conditions: dict[str, ConditionHits]  # per enabled condition
    tools: dict[str, ToolFailures]  # tools seen failing
    failure_paths_pct: float | None  # 100 × known tools seen failing in a run that recovered
class ToolArgumentRow(TypedDict):
    schema: Literal["declared", "discovered", "none"]
    items: int  # schema items (parameters, enum members, booleans, branches, bounds, arrays)
    seen: int  # of them, exercised by some call
    pct: float | None  # 0-100; None without a schema
    calls: int  # calls read against the schema
    unread: int  # calls with no schema or no captured arguments
    never: list[str]  # items never exercised, schema order, the first 20
    never_more: int  # never-exercised items past those named
    required_never: list[str]  # required parameters never passed (a call without them failed)
    overflow: int  # schema items past the per-tool cap, never itemised


class ArgumentsReport(TypedDict):
    pct: float | None  # 0-100 over every tool with a schema (`tools.arguments_pct`)
    overall: bool  # joins the overall geometric mean (spec `arguments.overall`)
    tools: dict[str, ToolArgumentRow]


class AgentReport(TypedDict, total=False):
    """One agent's sections; built section by section, so a reader may see it part-filled
    while the snapshot is computed. A finished report holds every key but `contexts`,
    `arguments` and `skills`."""

    runs: Runs
    coverage: Coverage
    tools: Tools
    skills: Skills  # only for an agent with skills
    models: Models
    paths: Paths
    states: States
    boundaries: dict[str, bool]  # enabled condition -> hit
    boundary_hits: dict[str, int]
    faults: Faults
    delegations: list[Delegation]
    edges: Edges
    narrative: Narrative
    concerns: list[Concern]
    contracts: list[ContractRow]
    expect: list[ExpectResult]
    contexts: Contexts  # only when asked for (--contexts, the pytest plugin)
    arguments: ArgumentsReport  # only when the spec enables argument coverage
    versions: list[Version]
    recommendations: list[Recommendation]


class SpanStats(TypedDict):
    processed: int
    by_kind: dict[str, int]
    dropped: dict[str, int]
    flushed_early: NotRequired[dict[str, int]]
    traces_in_flight: NotRequired[int]
    spans_buffered: NotRequired[int]
    label_overflow: NotRequired[dict[str, int]]
    internal_errors: NotRequired[int]
    state_files: NotRequired[int]
    unclassified: NotRequired[Unclassified]  # only when it explains missing runs
    inferred: NotRequired[dict[str, int]]  # `<kind>.<evidence>` -> spans, only when any
    evaluations: NotRequired[dict[str, int]]  # evaluation events emitted / dropped by reason
    events: NotRequired[dict[str, int]]  # decision events by fate, and buffered now
    conventions_overruled: NotRequired[int]  # re-readings of a restricted tool's span, overruled


class Report(TypedDict):
    version: int
    agents: dict[str, AgentReport]
    spans: SpanStats


REPORT_VERSION = 1


def empty_report() -> Report:
    """The report of nothing: no agents, no spans."""
    return {"version": REPORT_VERSION, "agents": {},
            "spans": {"processed": 0, "by_kind": {}, "dropped": {}}}
