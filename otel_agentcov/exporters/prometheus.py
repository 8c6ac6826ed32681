"""Prometheus exposition of a Snapshot (metric contract: DESIGN §6).

`CoverageCollector` is a prometheus_client custom collector: every scrape takes ONE snapshot and
renders every family from it, so all series of a scrape agree with each other. It is registered on
the project's own `CollectorRegistry`, never on prometheus_client's global one.

Serving: `serve_metrics` uses prometheus_client's `start_http_server` (TLS and client-certificate
options pass through). prometheus_client has no basic auth; to require it, mount `wsgi_app(source)`
behind a server or reverse proxy that does it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, generate_latest, make_wsgi_app, start_http_server
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from ..snapshot import DIMENSIONS, Snapshot

__all__ = [
    "CoverageCollector",
    "SnapshotSource",
    "make_registry",
    "render",
    "serve_metrics",
    "wsgi_app",
]

DROP_REASONS = ("queue_full", "malformed", "invalid_ids", "end_before_start", "after_shutdown")
OVERFLOW_LABELS = ("agent", "tool", "model", "path", "state")


class SnapshotSource(Protocol):
    """Anything with `snapshot()`: an AgentCoverageProcessor or a CoverageEngine."""

    def snapshot(self) -> Snapshot: ...


def _gauge(name: str, doc: str, labels: Sequence[str] = ()) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, labels=list(labels))


def _counter(name: str, doc: str, labels: Sequence[str] = ()) -> CounterMetricFamily:
    return CounterMetricFamily(name, doc, labels=list(labels))


def _add(family: GaugeMetricFamily | CounterMetricFamily, labels: list[str], value: Any) -> None:
    """Null values emit no sample (DESIGN §6)."""
    if value is not None:
        family.add_metric(labels, float(value))


def families(data: Mapping[str, Any]) -> list[Metric]:
    """Every metric family of the contract, from one report dict (`Snapshot.to_dict()`)."""
    a = ["agent"]
    coverage = _gauge(
        "agentcov_coverage_ratio", "Coverage per agent and dimension.", [*a, "dimension"]
    )
    overall = _gauge("agentcov_coverage_overall_ratio", "Geometric mean of measured dimensions.", a)
    allowed = _gauge("agentcov_edges_allowed_ratio", "Share of allowed tools called.", a)
    delegation = _gauge("agentcov_edges_delegation_ratio", "Share of declared delegations seen.", a)
    gate = _gauge("agentcov_gate_passed", "1 when no restricted tool was attempted.", a)
    restricted = _counter(
        "agentcov_restricted_tool_attempts",
        "Attempts to call a restricted tool, by outcome.",
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
    duration = HistogramMetricFamily("agentcov_run_duration_seconds", "Run duration.", labels=a)
    pass_lower = _gauge("agentcov_pass_rate_lower_ratio", "Wilson 95% lower bound of pass rate.", a)
    pass_upper = _gauge("agentcov_pass_rate_upper_ratio", "Wilson 95% upper bound of pass rate.", a)
    consistency = _gauge(
        "agentcov_behavior_consistency_ratio", "Mean pairwise Jaccard of recent tool sets.", a
    )
    paths_obs = _gauge("agentcov_paths_observed", "Distinct paths observed.", a)
    paths_est = _gauge("agentcov_paths_estimated", "Chao1 estimate of distinct paths.", a)
    states_obs = _gauge("agentcov_states_observed", "Distinct states observed.", a)
    states_est = _gauge("agentcov_states_estimated", "Chao1 estimate of distinct states.", a)

    for agent, rep in data.get("agents", {}).items():
        cov = rep["coverage"]
        for dim in DIMENSIONS:
            _add(coverage, [agent, dim], cov.get(dim))
        _add(overall, [agent], cov.get("overall"))
        edges = rep["edges"]
        for family, key in ((allowed, "allowed_pct"), (delegation, "delegation_pct")):
            pct = edges.get(key)
            _add(family, [agent], None if pct is None else pct / 100.0)
        _add(gate, [agent], edges.get("gate_passed"))
        for r in edges.get("restricted", ()):
            _add(restricted, [agent, r["tool"], r["outcome"]], r["count"])
        tools = rep["tools"]
        for tool, counts in tools.get("called", {}).items():
            _add(tool_calls, [agent, tool, "ok"], counts.get("ok", 0))
            _add(tool_calls, [agent, tool, "error"], counts.get("error", 0))
        for tool in tools.get("known", ()):
            _add(tool_info, [agent, tool], 1)
        models = rep["models"]
        for model, n in models.get("used", {}).items():
            _add(model_calls, [agent, model], n)
        for model in models.get("known", ()):
            _add(model_info, [agent, model], 1)
        for d in rep.get("delegations", ()):
            _add(delegations, [agent, d["from"], d["to"]], d["count"])
        for d in rep["edges"].get("delegation_declared", ()):
            _add(delegation_info, [agent, d["from"], d["to"]], 1)
        for cond, n in rep.get("boundary_hits", {}).items():
            _add(boundary_hits, [agent, cond], n)
        for cond in rep.get("boundaries", {}):
            _add(boundary_info, [agent, cond], 1)
        rr = rep["runs"]
        _add(runs, [agent], rr.get("count"))
        _add(run_errors, [agent], rr.get("errors"))
        _add(runs_passed, [agent], rr.get("passed"))
        hist = rr.get("duration_histogram")
        if hist is not None:
            buckets = [
                (repr(float(b)), float(c))
                for b, c in zip(hist["bounds"], hist["cumulative"], strict=True)
            ]
            buckets.append(("+Inf", float(hist["count"])))
            duration.add_metric([agent], buckets, float(hist["sum"]))
        ci = rr.get("pass_rate_ci95")
        if ci is not None:
            _add(pass_lower, [agent], ci[0])
            _add(pass_upper, [agent], ci[1])
        _add(consistency, [agent], rr.get("behavior_consistency"))
        _add(paths_obs, [agent], rep["paths"].get("observed"))
        _add(paths_est, [agent], rep["paths"].get("estimated"))
        _add(states_obs, [agent], rep["states"].get("observed"))
        _add(states_est, [agent], rep["states"].get("estimated"))

    spans = data.get("spans", {})
    by_kind = _counter("agentcov_spans_processed", "Spans classified, by kind.", ["kind"])
    for kind, n in spans.get("by_kind", {}).items():
        _add(by_kind, [kind], n)
    dropped = _counter("agentcov_spans_dropped", "Spans dropped, by reason.", ["reason"])
    drops = {r: 0 for r in DROP_REASONS} | dict(spans.get("dropped", {}))
    for reason, n in sorted(drops.items()):
        _add(dropped, [reason], n)
    early = _counter(
        "agentcov_traces_flushed_early", "Traces finished before their root ended.", ["reason"]
    )
    for reason, n in spans.get("flushed_early", {}).items():
        _add(early, [reason], n)
    overflow = _counter(
        "agentcov_label_overflow", "Label values folded into __overflow__.", ["label"]
    )
    folds = {label: 0 for label in OVERFLOW_LABELS} | dict(spans.get("label_overflow", {}))
    for label, n in sorted(folds.items()):
        _add(overflow, [label], n)
    internal = _counter("agentcov_internal_errors", "Errors caught inside agentcov.")
    _add(internal, [], spans.get("internal_errors", 0))
    in_flight = _gauge("agentcov_traces_in_flight", "Traces buffered awaiting their root.")
    _add(in_flight, [], spans.get("traces_in_flight", 0))

    return [
        coverage, overall, allowed, delegation, gate, restricted, tool_calls, tool_info,
        model_calls, model_info, delegations, delegation_info, boundary_hits, boundary_info,
        runs, run_errors, runs_passed, duration, pass_lower, pass_upper, consistency,
        paths_obs, paths_est, states_obs, states_est,
        by_kind, dropped, early, overflow, internal, in_flight,
    ]  # fmt: skip


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


def render(source: SnapshotSource) -> bytes:
    """The Prometheus text exposition of one snapshot."""
    return generate_latest(make_registry(source))


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
    server, thread = start_http_server(
        port, addr=addr, registry=make_registry(source), certfile=certfile, keyfile=keyfile, **tls
    )
    return server, thread


def wsgi_app(source: SnapshotSource) -> Any:
    """A WSGI app serving the exposition, for mounting behind a server with auth/TLS."""
    return make_wsgi_app(make_registry(source))
