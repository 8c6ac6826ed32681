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
from collections.abc import Callable, Iterable, Iterator
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
from ..snapshot import Snapshot
from ..snapshot.schema import Report
from ..state import OVERFLOW
from .families import AGENT, BUILD_INFO, SERIES_OVERFLOW, SPANS, Family, Row, of

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


class SnapshotSource(Protocol):
    """Anything with `snapshot()`: an AgentCoverageProcessor or a CoverageEngine."""

    def snapshot(self) -> Snapshot: ...


class _Family:
    """One family's samples in one scrape, apart from how they are written (Metric objects or
    text); what the family is comes from the table (`families.py`)."""

    __slots__ = ("family", "name", "doc", "type", "labels", "rows", "exemplars")

    def __init__(self, family: Family) -> None:
        self.family = family
        self.name, self.doc, self.type = family.name, family.help, family.type
        self.labels = family.labels
        self.rows: list[tuple[tuple[str, ...], Any]] = []
        # a counter row's exemplar labels (OpenMetrics only; the text format has no exemplars)
        self.exemplars: dict[tuple[str, ...], dict[str, str]] = {}

    def add(self, labels: tuple[str, ...], value: Any) -> None:
        """Null values emit no sample (docs/metrics.md)."""
        if value is not None:
            self.rows.append((labels, value))


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


def _rows(family: Family) -> Callable[..., Iterable[Row]]:
    if family.rows is None:
        raise ValueError(f"{family.name}: no rows from a report")
    return family.rows


def _collect(data: Report, max_series: int = MAX_SERIES) -> list[_Family]:
    """Every family of the table with report rows, from one report dict (`Snapshot.to_dict()`);
    the per-agent ones within `max_series` series together."""
    per_agent = [_Family(f) for f in of(AGENT)]
    for agent, rep in data.get("agents", {}).items():
        for fam in per_agent:
            for labels, value in _rows(fam.family)(agent, rep):
                fam.add(labels, value)
            if fam.family.exemplars is not None:
                fam.exemplars.update(fam.family.exemplars(agent, rep))
    lost = _within_budget(per_agent, max_series)
    spans = data.get("spans", {})
    engine = [_Family(f) for f in of(SPANS)]
    for fam in engine:
        for labels, value in _rows(fam.family)(spans):
            fam.add(labels, value)
    cut = _Family(SERIES_OVERFLOW)
    for fam in per_agent:
        cut.add((fam.name,), lost.get(fam.name, 0))
    return [*per_agent, *engine, cut]


_go_float = cast(Callable[[float], str], floatToGoString)  # the library's own, untyped


def families(data: Report, max_series: int = MAX_SERIES) -> list[Metric]:
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


def exposition(data: Report, max_series: int = MAX_SERIES) -> bytes:
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
        info = GaugeMetricFamily(BUILD_INFO.name, BUILD_INFO.help, labels=list(BUILD_INFO.labels))
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
