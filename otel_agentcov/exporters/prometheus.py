"""Prometheus exposition of a Snapshot (metric contract: docs/metrics.md).

`CoverageCollector` is a prometheus_client custom collector: every scrape takes ONE snapshot and
renders every family from it, so all series of a scrape agree with each other. It is registered on
the project's own `CollectorRegistry`, never on prometheus_client's global one.

Serving: `serve_metrics` uses prometheus_client's `start_http_server` (TLS and client-certificate
options pass through). prometheus_client has no basic auth; to require it, mount `wsgi_app(source)`
behind a server or reverse proxy that does it.
"""

from __future__ import annotations

import platform
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    make_wsgi_app,
    start_http_server,
)
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.samples import Exemplar
from prometheus_client.utils import floatToGoString

from .. import __version__
from ..snapshot import DIMENSIONS, Snapshot
from ..state import OVERFLOW

__all__ = [
    "BuildInfoCollector",
    "CoverageCollector",
    "SnapshotSource",
    "add_runtime_collectors",
    "exposition",
    "families",
    "make_registry",
    "render",
    "serve_metrics",
    "wsgi_app",
]

MAX_SERIES = 100_000  # per scrape, the per-agent families together (~8 MB of /metrics)
DROP_REASONS = (
    "queue_full", "queue_bytes", "malformed", "invalid_ids", "end_before_start", "after_shutdown"
)
OVERFLOW_LABELS = (
    "agent", "tool", "model", "path", "state", "context", "context_item", "contract", "version"
)
CHECK_RESULTS = ("satisfied", "violated", "unknown", "not_exercised")
# agentcov_version_verdict: a version against the one before it (docs/compare.md)
VERDICT_VALUES = {"PASS": 1, "INCONCLUSIVE": 0, "FAIL": -1}


class SnapshotSource(Protocol):
    """Anything with `snapshot()`: an AgentCoverageProcessor or a CoverageEngine."""

    def snapshot(self) -> Snapshot: ...


class _Family:
    """One metric family's samples, apart from how they are written (Metric objects or text)."""

    __slots__ = ("name", "doc", "type", "labels", "rows", "exemplars")

    def __init__(self, name: str, doc: str, type_: str, labels: Sequence[str] = ()) -> None:
        self.name = name
        self.doc = doc
        self.type = type_
        self.labels = tuple(labels)
        self.rows: list[tuple[tuple[str, ...], Any]] = []
        # a counter row's exemplar labels (OpenMetrics only; the text format has no exemplars)
        self.exemplars: dict[tuple[str, ...], dict[str, str]] = {}

    def add(self, labels: tuple[str, ...], value: Any) -> None:
        """Null values emit no sample (docs/metrics.md)."""
        if value is not None:
            self.rows.append((labels, value))


def _gauge(name: str, doc: str, labels: Sequence[str] = ()) -> _Family:
    return _Family(name, doc, "gauge", labels)


def _counter(name: str, doc: str, labels: Sequence[str] = ()) -> _Family:
    return _Family(name, doc, "counter", labels)


def _within_budget(families: list[_Family], max_series: int) -> dict[str, int]:
    """Cut the per-agent families to `max_series` series together; returns what each lost.

    Labels multiply (1 000 agents x 200 tools is 400 k tool series), so the caps on names alone
    do not bound a scrape. Water-filling: small families keep every series, the large ones share
    what is left equally. A counter's cut series fold into one `__overflow__` series holding
    their sum (totals stay right); gauges and histograms just lose theirs.
    """
    lost: dict[str, int] = {}
    left, pending = max_series, len(families)
    for fam in sorted(families, key=lambda f: len(f.rows)):
        share = max(left // pending, 1)
        pending -= 1
        rows = fam.rows
        if len(rows) > share:
            kept = rows[: share - 1] if fam.type == "counter" else rows[:share]
            if fam.type == "counter":
                total = sum(value for _, value in rows[len(kept):])
                kept.append(((OVERFLOW,) * len(fam.labels), total))
            lost[fam.name] = len(rows) - len(kept)
            fam.rows = kept
        left -= len(fam.rows)
    return lost


def _collect(data: Mapping[str, Any], max_series: int = MAX_SERIES) -> list[_Family]:
    """Every metric family of the contract, from one report dict (`Snapshot.to_dict()`); the
    per-agent ones within `max_series` series together."""
    a = ["agent"]
    coverage = _gauge(
        "agentcov_coverage_ratio", "Coverage per agent and dimension.", [*a, "dimension"]
    )
    overall = _gauge("agentcov_coverage_overall_ratio", "Geometric mean of measured dimensions.", a)
    allowed = _gauge("agentcov_edges_allowed_ratio", "Share of allowed tools called.", a)
    delegation = _gauge("agentcov_edges_delegation_ratio", "Share of declared delegations seen.", a)
    gate = _gauge(
        "agentcov_gate_passed",
        "1 when the agent made no restricted-tool attempt (edges.gate_passed); independent of "
        "the spec's expect list, which the gate command evaluates.",
        a,
    )
    restricted = _counter(
        "agentcov_restricted_tool_attempts",
        "Attempts to call a restricted tool, by outcome; in OpenMetrics each carries the trace "
        "id of the newest attempt at that tool as an exemplar.",
        [*a, "tool", "outcome"],
    )
    tool_calls = _counter("agentcov_tool_calls", "Tool calls by outcome.", [*a, "tool", "outcome"])
    tool_info = _gauge("agentcov_tool_declared_info", "Declared or discovered tools.", [*a, "tool"])
    model_calls = _counter("agentcov_model_calls", "Model calls by model.", [*a, "model"])
    model_info = _gauge("agentcov_model_declared_info", "Declared models.", [*a, "model"])
    edge = [*a, "from_agent", "to_agent"]
    delegations = _counter("agentcov_delegations", "Observed delegations.", edge)
    delegation_info = _gauge("agentcov_delegation_declared_info", "Declared delegations.", edge)
    boundary_hits = _counter(
        "agentcov_boundary_hits", "Runs that hit a boundary condition.", [*a, "condition"]
    )
    boundary_info = _gauge(
        "agentcov_boundary_declared_info", "Enabled boundary conditions.", [*a, "condition"]
    )
    runs = _counter("agentcov_runs", "Completed runs.", a)
    run_errors = _counter("agentcov_run_errors", "Runs that ended in error.", a)
    runs_passed = _counter("agentcov_runs_passed", "Runs that passed.", a)
    duration = _Family("agentcov_run_duration_seconds", "Run duration.", "histogram", a)
    pass_lower = _gauge("agentcov_pass_rate_lower_ratio", "Wilson 95% lower bound of pass rate.", a)
    pass_upper = _gauge("agentcov_pass_rate_upper_ratio", "Wilson 95% upper bound of pass rate.", a)
    consistency = _gauge(
        "agentcov_behavior_consistency_ratio", "Mean pairwise Jaccard of recent tool sets.", a
    )
    paths_obs = _gauge("agentcov_paths_observed", "Distinct paths observed.", a)
    paths_est = _gauge("agentcov_paths_estimated", "Chao1 estimate of distinct paths.", a)
    states_obs = _gauge("agentcov_states_observed", "Distinct states observed.", a)
    states_est = _gauge("agentcov_states_estimated", "Chao1 estimate of distinct states.", a)
    narrative_runs = _counter(
        "agentcov_narrative_runs", "Runs whose story was checked, by result.", [*a, "result"]
    )
    narrative_div = _counter(
        "agentcov_narrative_divergences",
        "Runs whose story diverged from the trace, by tool and kind.",
        [*a, "tool", "kind"],
    )
    checks = _counter(
        "agentcov_contract_checks",
        "Contract behaviour verdicts on runs, by result.",
        [*a, "contract", "behavior", "severity", "result"],
    )
    av = [*a, "version"]
    version_runs = _counter("agentcov_version_runs", "Completed runs per agent version.", av)
    version_passed = _counter("agentcov_version_runs_passed", "Passed runs per agent version.", av)
    version_rate = _gauge("agentcov_version_pass_rate_ratio", "Pass rate per agent version.", av)
    version_tools = _counter(
        "agentcov_version_tool_calls", "Executed tool calls per agent version.", [*av, "tool"]
    )
    version_verdict = _gauge(
        "agentcov_version_verdict",
        "Pass-rate verdict of a version against the one before it: 1 pass, 0 inconclusive, "
        "-1 fail.",
        [*av, "baseline_version"],
    )

    for agent, rep in data.get("agents", {}).items():
        cov = rep["coverage"]
        for dim in DIMENSIONS:
            coverage.add((agent, dim), cov.get(dim))
        overall.add((agent,), cov.get("overall"))
        edges = rep["edges"]
        for family, key in ((allowed, "allowed_pct"), (delegation, "delegation_pct")):
            pct = edges.get(key)
            family.add((agent,), None if pct is None else pct / 100.0)
        gate.add((agent,), edges.get("gate_passed"))
        traces = edges.get("restricted_traces", {})
        for r in edges.get("restricted", ()):
            row = (agent, r["tool"], r["outcome"])
            restricted.add(row, r["count"])
            if traces.get(r["tool"]):  # newest first
                restricted.exemplars[row] = {"trace_id": traces[r["tool"]][0]}
        tools = rep["tools"]
        for tool, counts in tools.get("called", {}).items():
            tool_calls.add((agent, tool, "ok"), counts.get("ok", 0))
            tool_calls.add((agent, tool, "error"), counts.get("error", 0))
        for tool in tools.get("known", ()):
            tool_info.add((agent, tool), 1)
        models = rep["models"]
        for model, n in models.get("used", {}).items():
            model_calls.add((agent, model), n)
        for model in models.get("known", ()):
            model_info.add((agent, model), 1)
        for d in rep.get("delegations", ()):
            delegations.add((agent, d["from"], d["to"]), d["count"])
        for d in rep["edges"].get("delegation_declared", ()):
            delegation_info.add((agent, d["from"], d["to"]), 1)
        for cond, n in rep.get("boundary_hits", {}).items():
            boundary_hits.add((agent, cond), n)
        for cond in rep.get("boundaries", {}):
            boundary_info.add((agent, cond), 1)
        rr = rep["runs"]
        runs.add((agent,), rr.get("count"))
        run_errors.add((agent,), rr.get("errors"))
        runs_passed.add((agent,), rr.get("passed"))
        hist = rr.get("duration_histogram")
        if hist is not None:
            buckets = [
                (repr(float(b)), float(c))
                for b, c in zip(hist["bounds"], hist["cumulative"], strict=True)
            ]
            buckets.append(("+Inf", float(hist["count"])))
            duration.add((agent,), (buckets, float(hist["sum"])))
        ci = rr.get("pass_rate_ci95")
        if ci is not None:
            pass_lower.add((agent,), ci[0])
            pass_upper.add((agent,), ci[1])
        consistency.add((agent,), rr.get("behavior_consistency"))
        paths_obs.add((agent,), rep["paths"].get("observed"))
        paths_est.add((agent,), rep["paths"].get("estimated"))
        states_obs.add((agent,), rep["states"].get("observed"))
        states_est.add((agent,), rep["states"].get("estimated"))
        story = rep.get("narrative")
        if story is not None and (story["declared"] or any(story["runs"].values())):
            for result, n in story["runs"].items():
                narrative_runs.add((agent, result), n)
            for d in story["divergences"]:
                narrative_div.add((agent, d["tool"], d["kind"]), d["count"])
        for c in rep.get("contracts", ()):
            for result in CHECK_RESULTS:
                checks.add((agent, c["contract"], c["behavior"], c["severity"], result), c[result])
        for ver in rep.get("versions", ()):
            agent_version = (agent, ver["version"])
            version_runs.add(agent_version, ver["runs"])
            version_passed.add(agent_version, ver["passed"])
            version_rate.add(agent_version, ver["pass_rate"])
            for tool, n in ver["tool_calls"].items():
                version_tools.add((*agent_version, tool), n)
            verdict = ver["verdict_vs_previous"]
            if verdict is not None:
                version_verdict.add((*agent_version, ver["baseline_version"]),
                                    VERDICT_VALUES[verdict])

    per_agent = [
        coverage, overall, allowed, delegation, gate, restricted, tool_calls, tool_info,
        model_calls, model_info, delegations, delegation_info, boundary_hits, boundary_info,
        runs, run_errors, runs_passed, duration, pass_lower, pass_upper, consistency,
        paths_obs, paths_est, states_obs, states_est, narrative_runs, narrative_div, checks,
        version_runs, version_passed, version_rate, version_tools, version_verdict,
    ]  # fmt: skip
    lost = _within_budget(per_agent, max_series)
    cut = _gauge("agentcov_series_overflow", "Series cut from a family by the per-scrape series "
                 "budget (counters keep their sum in __overflow__).", ["family"])
    for fam in per_agent:
        cut.add((fam.name,), lost.get(fam.name, 0))

    spans = data.get("spans", {})
    by_kind = _counter("agentcov_spans_processed", "Spans classified, by kind.", ["kind"])
    for kind, n in spans.get("by_kind", {}).items():
        by_kind.add((kind,), n)
    dropped = _counter("agentcov_spans_dropped", "Spans dropped, by reason.", ["reason"])
    drops = {r: 0 for r in DROP_REASONS} | dict(spans.get("dropped", {}))
    for reason, n in sorted(drops.items()):
        dropped.add((reason,), n)
    early = _counter(
        "agentcov_traces_flushed_early", "Traces finished before their root ended.", ["reason"]
    )
    for reason, n in spans.get("flushed_early", {}).items():
        early.add((reason,), n)
    overflow = _counter(
        "agentcov_label_overflow", "Label values folded into __overflow__.", ["label"]
    )
    folds = {label: 0 for label in OVERFLOW_LABELS} | dict(spans.get("label_overflow", {}))
    for label, n in sorted(folds.items()):
        overflow.add((label,), n)
    internal = _counter("agentcov_internal_errors", "Errors caught inside agentcov.")
    internal.add((), spans.get("internal_errors", 0))
    in_flight = _gauge("agentcov_traces_in_flight", "Traces buffered awaiting their root.")
    in_flight.add((), spans.get("traces_in_flight", 0))
    buffered = _gauge("agentcov_spans_buffered", "Spans buffered in traces awaiting their root.")
    buffered.add((), spans.get("spans_buffered", 0))

    return [*per_agent, by_kind, dropped, early, overflow, internal, in_flight, buffered, cut]


_go_float = cast(Callable[[float], str], floatToGoString)  # the library's own, untyped


def families(data: Mapping[str, Any], max_series: int = MAX_SERIES) -> list[Metric]:
    """Every family as prometheus_client Metric objects (what `CoverageCollector` yields)."""
    out: list[Metric] = []
    for fam in _collect(data, max_series):
        if fam.type == "histogram":
            hist = HistogramMetricFamily(fam.name, fam.doc, labels=list(fam.labels))
            for labels, (buckets, total) in fam.rows:
                hist.add_metric(list(labels), buckets, total)
            out.append(hist)
            continue
        if fam.type == "counter":
            counter = CounterMetricFamily(fam.name, fam.doc, labels=list(fam.labels))
            for labels, value in fam.rows:
                ex = fam.exemplars.get(labels)
                counter.add_metric(list(labels), float(value),
                                   exemplar=Exemplar(ex, 1.0) if ex is not None else None)
            out.append(counter)
            continue
        gauge = GaugeMetricFamily(fam.name, fam.doc, labels=list(fam.labels))
        for labels, value in fam.rows:
            gauge.add_metric(list(labels), float(value))
        out.append(gauge)
    return out


def exposition(data: Mapping[str, Any], max_series: int = MAX_SERIES) -> bytes:
    """The text exposition of `families(data)` written directly, byte for byte what
    prometheus_client's `generate_latest` writes for them (tested), without building a Metric
    and a Sample per series: a scrape of 100 agents x 50 tools is ~20 k series."""
    out: list[str] = []
    escaped: dict[str, str] = {}
    numbers: dict[Any, str] = {}

    def esc(value: str) -> str:
        text = escaped.get(value)
        if text is None:
            text = escaped[value] = (
                value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r'\"')
            )
        return text

    def num(value: Any) -> str:
        text = numbers.get(value)
        if text is None:
            text = numbers[value] = _go_float(float(value))
        return text

    for fam in _collect(data, max_series):
        sample = f"{fam.name}_total" if fam.type == "counter" else fam.name
        doc = fam.doc.replace("\\", r"\\").replace("\n", r"\n")
        out.append(f"# HELP {sample} {doc}\n# TYPE {sample} {fam.type}\n")
        names = fam.labels
        order = sorted(range(len(names)), key=names.__getitem__)  # generate_latest sorts labels
        if fam.type == "histogram":
            for labels, (buckets, total) in fam.rows:
                pairs = sorted([*zip(names, labels, strict=True), ("le", "")])
                where = [p[0] for p in pairs].index("le")
                parts = [f'{k}="{esc(v)}"' for k, v in pairs]
                base = ",".join(p for i, p in enumerate(parts) if i != where)
                for le, count in buckets:
                    parts[where] = f'le="{esc(le)}"'
                    out.append(f"{sample}_bucket{{{','.join(parts)}}} {num(count)}\n")
                if float(buckets[0][0]) >= 0:
                    out.append(f"{sample}_count{{{base}}} {num(buckets[-1][1])}\n")
                    out.append(f"{sample}_sum{{{base}}} {num(total)}\n")
            continue
        if not names:
            out.extend(f"{sample} {num(value)}\n" for _, value in fam.rows)
            continue
        head = f"{sample}{{" + ",".join(f'{names[i]}="%s"' for i in order) + "} %s\n"
        for labels, value in fam.rows:
            out.append(head % (*[esc(labels[i]) for i in order], num(value)))
    return "".join(out).encode("utf-8")


class CoverageCollector(Collector):
    """prometheus_client collector: one snapshot per scrape, every family of the contract."""

    def __init__(self, source: SnapshotSource) -> None:
        self._source = source

    def collect(self) -> Iterable[Metric]:
        data = self._source.snapshot().data
        return iter(families(data))

    def describe(self) -> Iterator[Metric]:
        """Nothing up front: registering must not take a snapshot."""
        return iter(())


def make_registry(source: SnapshotSource) -> CollectorRegistry:
    """A registry of its own holding only the coverage collector (never the global registry)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(CoverageCollector(source))
    return registry


class BuildInfoCollector(Collector):
    """`agentcov_build_info{version,python} 1`: which build a scrape came from."""

    def collect(self) -> Iterable[Metric]:
        info = GaugeMetricFamily("agentcov_build_info", "The otel_agentcov build serving these "
                                 "metrics (always 1).", labels=["version", "python"])
        info.add_metric([__version__, platform.python_version()], 1.0)
        return [info]

    def describe(self) -> Iterator[Metric]:
        return iter(())


def add_runtime_collectors(registry: CollectorRegistry) -> CollectorRegistry:
    """The process (`process_*`), Python (`python_info`, `python_gc_*`) and build-info families
    every served endpoint has, on `registry` (never the global one)."""
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    registry.register(BuildInfoCollector())
    return registry


def render(source: SnapshotSource, max_series: int = MAX_SERIES) -> bytes:
    """The Prometheus text exposition of one snapshot (what `generate_latest` would write)."""
    return exposition(source.snapshot().data, max_series)


def serve_metrics(
    source: SnapshotSource,
    port: int = 9464,
    addr: str = "127.0.0.1",
    certfile: str | None = None,
    keyfile: str | None = None,
    **tls: Any,
) -> tuple[WSGIServer, threading.Thread]:
    """Serve `/metrics` on a daemon thread; binds loopback unless told otherwise.

    `certfile`/`keyfile` enable TLS; other keyword arguments (`client_cafile`, `client_capath`,
    `client_auth_required`, `protocol`, `tls_min_version`, `tls_max_version`) pass through to
    `prometheus_client.start_http_server`. No basic auth there: use `wsgi_app` behind a server
    that provides it. Stop with `server.shutdown(); server.server_close()`.
    """
    registry = add_runtime_collectors(make_registry(source))
    server, thread = start_http_server(
        port, addr=addr, registry=registry, certfile=certfile, keyfile=keyfile, **tls
    )
    return server, thread


def wsgi_app(source: SnapshotSource) -> Any:
    """A WSGI app serving the exposition, for mounting behind a server with auth/TLS."""
    return make_wsgi_app(add_runtime_collectors(make_registry(source)))
