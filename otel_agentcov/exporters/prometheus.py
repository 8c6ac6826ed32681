"""Prometheus exposition of a Snapshot (metric contract: docs/metrics.md).

`CoverageCollector` is a prometheus_client custom collector: every scrape takes ONE snapshot (the
source's `measures()`) and renders every family from it, so all series of a scrape agree with each
other. It is registered on the project's own `CollectorRegistry`, never on prometheus_client's
global one. `render()` writes the same bytes directly (`Exposition`), in the text format or in
OpenMetrics (what Prometheus asks for first), reusing the text of agents that did not change
since the source's last scrape; every served /metrics (`agentcov serve`, `serve_metrics`,
`wsgi_app`) answers a scrape with it (`negotiated`), ~10x quicker than the registry.

Serving: `serve_metrics` uses prometheus_client's `start_http_server` (TLS and client-certificate
options pass through). prometheus_client has no basic auth; to require it, mount `wsgi_app(source)`
behind a server or reverse proxy that does it.
"""

from __future__ import annotations

import gzip
import platform
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol, cast
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
    make_wsgi_app,
    start_http_server,
)
from prometheus_client.exposition import choose_encoder, gzip_accepted
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.openmetrics.exposition import generate_latest as _om_latest
from prometheus_client.registry import Collector
from prometheus_client.samples import Exemplar
from prometheus_client.utils import floatToGoString

from .. import __version__
from ..snapshot.schema import AgentReport, Report
from ..state import OVERFLOW
from .families import (
    AGENT,
    BUILD_INFO,
    FAMILIES,
    SERIES_OVERFLOW,
    SPANS,
    Each,
    Family,
    Labels,
    Listed,
    One,
    Row,
    of,
)

__all__ = [
    "BuildInfoCollector",
    "CoverageCollector",
    "Exposition",
    "MeasuresSource",
    "add_runtime_collectors",
    "exposition",
    "families",
    "make_registry",
    "render",
    "serve_metrics",
    "wsgi_app",
]

MAX_SERIES = 100_000  # per scrape, the per-agent families together (~8 MB of /metrics)
_EOF = "# EOF\n"  # ends an OpenMetrics exposition, once


class MeasuresSource(Protocol):
    """Anything with `measures()`: an AgentCoverageProcessor, a CoverageEngine or serve's store."""

    def measures(self) -> Report: ...


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


def _valued(rows: list[Row]) -> list[Row]:
    """Null values emit no sample (docs/metrics.md)."""
    return [row for row in rows if row[1] is not None]


def _collect(data: Report, max_series: int = MAX_SERIES) -> list[_Family]:
    """Every family of the table with report rows, from one report dict (`measures()` or
    `Snapshot.data`); the per-agent ones within `max_series` series together."""
    per_agent = [_Family(f) for f in of(AGENT)]
    fill = [(fam.rows.extend, _rows(fam.family)) for fam in per_agent]
    marked = [(fam.exemplars.update, fam.family.exemplars) for fam in per_agent
              if fam.family.exemplars is not None]
    for agent, rep in data.get("agents", {}).items():
        for extend, rows in fill:
            extend(rows(agent, rep))
        for update, exemplar in marked:
            update(exemplar(agent, rep))
    for fam in per_agent:
        fam.rows = _valued(fam.rows)
    lost = _within_budget(per_agent, max_series)
    return [*per_agent, *_scrape_families(data, [(f.name, lost.get(f.name, 0)) for f in per_agent])]


def _scrape_families(data: Report, lost: list[tuple[str, int]]) -> list[_Family]:
    """The engine's counters (`spans`), then what the series budget cut from each family."""
    spans = data.get("spans", {})
    engine = [_Family(f) for f in of(SPANS)]
    for fam in engine:
        fam.rows = _valued(list(_rows(fam.family)(spans)))
    cut = _Family(SERIES_OVERFLOW)
    cut.rows = [((name,), n) for name, n in lost]
    return [*engine, cut]


_go_float = cast(Callable[[float], str], floatToGoString)  # the library's own, untyped
_openmetrics = cast(Callable[[CollectorRegistry], bytes], _om_latest)  # likewise


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


def _escape(value: str) -> str:
    """A label value as both formats quote it (an exemplar's too)."""
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r'\"')


def _exemplar(labels: Mapping[str, str]) -> str:
    """A counter sample's exemplar as prometheus_client's OpenMetrics encoder writes it (labels
    sorted, value 1.0, no timestamp), between the sample's number and its newline."""
    pairs = ",".join(f'{name}="{_escape(value)}"' for name, value in sorted(labels.items()))
    return f" # {{{pairs}}} 1.0"


class _Escaped(dict[str, str]):
    """A label value as the text format quotes it, each distinct value escaped once a scrape."""

    def __missing__(self, value: str) -> str:
        text = self[value] = _escape(value)
        return text

    def rows(self, rows: Iterable[Row]) -> list[Row]:
        """`rows` with their label values escaped."""
        return [(tuple([self[value] for value in labels]), v) for labels, v in rows]


def _plain(values: str) -> bool:
    """Whether label values (joined) hold nothing the text format escapes."""
    return '"' not in values and "\\" not in values and "\n" not in values


def _unescaped(texts: list[str], lines: int, labels: int) -> bool:
    """Whether `lines` sample lines of `labels` label values each, written as they are, were
    right so: no backslash, and no quote or newline but the lines' own (a label value holding
    one of the three is what the text format escapes)."""
    text = "".join(texts)
    return ("\\" not in text and text.count('"') == 2 * labels * lines
            and text.count("\n") == lines)


class _Numbers(dict[Any, str]):
    """A sample value as generate_latest writes it (Go's float format), once per value a scrape."""

    def __missing__(self, value: Any) -> str:
        text = self[value] = _go_float(float(value))
        return text


class _Text:
    """A family's constant text, made once: HELP and TYPE of each format, and the sample line
    with the label names in the order generate_latest writes them (sorted): `pieces` are the
    text between the values, the label values' and then the number's. The two formats differ
    only in the header (and OpenMetrics' exemplars): the sample lines are the same bytes."""

    __slots__ = ("headers", "order", "pieces", "sample", "le_at")

    def __init__(self, family: Family) -> None:
        self.sample = family.sample
        doc = family.help.replace("\\", r"\\").replace("\n", r"\n")
        # OpenMetrics names the family itself (a counter without `_total`) and escapes quotes too
        om_doc, name = doc.replace('"', r'\"'), family.name
        self.headers = (f"# HELP {self.sample} {doc}\n# TYPE {self.sample} {family.type}\n",
                        f"# HELP {name} {om_doc}\n# TYPE {name} {family.type}\n")
        names = family.labels
        self.order = tuple(sorted(range(len(names)), key=names.__getitem__))
        first = [f'{self.sample}{{{names[i]}="' for i in self.order[:1]]
        # the text before each label value, then before the number and after it
        self.pieces = (*first, *[f'",{names[i]}="' for i in self.order[1:]],
                       '"} ' if names else f"{self.sample} ", "\n")
        # a histogram's bucket lines: how many (sorted) label names come before `le`
        self.le_at = sum(name < "le" for name in names)


_TEXT = {f.name: _Text(f) for f in FAMILIES}


class _Writer:
    """One scrape's text: each distinct label value escaped once, each distinct number
    formatted once, a series one f-string of its family's pieces (`_Text`). `openmetrics`: the
    OpenMetrics headers, and the restricted attempts' exemplars (the one thing only that
    format carries); every other sample line is the text format's, byte for byte."""

    def __init__(self, openmetrics: bool = False) -> None:
        self.esc = _Escaped()
        self.om = openmetrics
        # ints, and non-zero floats, by value: equal numbers of one kind write alike (but 0.0
        # and -0.0 are equal keys that write differently, so a float zero is formatted each time)
        self._ints, self._floats = _Numbers(), _Numbers()

    def number(self, value: Any) -> str:
        """A sample value as text (not None)."""
        if value.__class__ is int:
            return self._ints[value]
        return self._floats[value] if value else _go_float(value)

    def lines(self, family: Family, groups: Iterable[Iterable[Row]]) -> list[list[str]]:
        """Each group's sample lines (a null value has none): the rows of many agents written
        in one call, each agent's apart. Label values are written as they are, but for a
        histogram's (`texts` and `family` check and escape). A row is dropped once written, so
        a scrape holds no more rows than it writes at once (the collector would otherwise keep
        scanning them)."""
        text = _TEXT[family.name]
        if family.type == "histogram":
            hist, names = self._histogram, family.labels
            return [[hist(text, names, labels, v) for labels, v in rows if v is not None]
                    for rows in groups]
        # unrolled for up to 3 labels, the number written inline (what `number` does): a series
        # is then a few subscripts and one f-string (a `%` parses its format every time)
        order, ints, floats, zero = text.order, self._ints, self._floats, _go_float
        if len(order) == 0:
            a, z = text.pieces
            return [[f"{a}{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                     for _, v in rows if v is not None] for rows in groups]
        if len(order) == 1:
            a, b, z = text.pieces
            return [[f"{a}{labels[0]}{b}"
                     f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                     for labels, v in rows if v is not None] for rows in groups]
        if len(order) == 2:
            (i, j), (a, b, c, z) = order, text.pieces
            return [[f"{a}{labels[i]}{b}{labels[j]}{c}"
                     f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                     for labels, v in rows if v is not None] for rows in groups]
        if len(order) == 3:
            (i, j, k), (a, b, c, d, z) = order, text.pieces
            return [[f"{a}{labels[i]}{b}{labels[j]}{c}{labels[k]}{d}"
                     f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                     for labels, v in rows if v is not None] for rows in groups]
        line = self.line
        return [[line(text, labels, v) for labels, v in rows if v is not None] for rows in groups]

    def texts(self, family: Family, agents: list[str], reports: list[AgentReport],
              plain: bool) -> tuple[list[str], list[int]]:
        """Each agent's text in a per-agent family and its series count (`plain`: no agent's
        name has a character to escape). Rows the table declares as data (`One`, `Listed`,
        `Each`) are written from it, without building them, their names checked as they are."""
        rows, order = _rows(family), _TEXT[family.name].order
        written: tuple[list[str], list[int]] | None = None
        if self.om and family.exemplars is not None:
            marks = family.exemplars
            lines = [self.marked(family, rows(agent, rep), marks(agent, rep))
                     for agent, rep in zip(agents, reports, strict=True)]
            return ["".join(mine) for mine in lines], [len(mine) for mine in lines]
        if isinstance(rows, One) and plain:
            texts = self._one(family, rows, agents, reports)
            written = texts, [1 if text else 0 for text in texts]
        elif isinstance(rows, Listed) and order == (0, 1) and plain:
            written = self._listed(family, rows, agents, reports)
        elif isinstance(rows, Each) and order in ((0, 1, 2), (0, 2, 1)) and plain:
            written = self._each(family, rows, agents, reports)
        else:
            lines = self.lines(family, map(rows, agents, reports))
            texts, counts = ["".join(mine) for mine in lines], [len(mine) for mine in lines]
            if family.type == "histogram" or _unescaped(texts, sum(counts), len(family.labels)):
                written = texts, counts
        if written is not None:
            return written
        # a label value to escape (rare): the rows again, their values escaped
        lines = self.lines(family, map(self.esc.rows, map(rows, agents, reports)))
        return ["".join(mine) for mine in lines], [len(mine) for mine in lines]

    def _one(self, family: Family, rows: One, agents: list[str], reports: list[AgentReport]
             ) -> list[str]:
        """A line or nothing (a null value) per agent."""
        ints, floats, zero = self._ints, self._floats, _go_float
        a, b, z = _TEXT[family.name].pieces
        values = map(rows.value, reports)
        return [f"{a}{agent}{b}"
                f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                if v is not None else "" for agent, v in zip(agents, values, strict=True)]

    def _listed(self, family: Family, rows: Listed, agents: list[str],
                reports: list[AgentReport]) -> tuple[list[str], list[int]] | None:
        """An agent's lines are its names joined by the text between two of them; None when a
        name has a character to escape."""
        a, b, c, z = _TEXT[family.name].pieces
        tail = f"{c}{self.number(1)}{z}"
        texts, counts = [], []
        for agent, rep in zip(agents, reports, strict=True):
            names, head = list(rows.names(rep)), f"{a}{agent}{b}"
            if not _plain("".join(names)):
                return None
            texts.append(f"{head}{(tail + head).join(names)}{tail}" if names else "")
            counts.append(len(names))
        return texts, counts

    def _each(self, family: Family, rows: Each, agents: list[str],
              reports: list[AgentReport]) -> tuple[list[str], list[int]] | None:
        """A line per name and outcome: the outcome's label sorts after the name's or before,
        so each outcome has its text before the name and after it. None when a name has a
        character to escape (the outcomes are the table's plain words), or a value of a
        two-outcome family is null: the rows then write them."""
        text, outcomes = _TEXT[family.name], rows.outcomes
        a, b, c, d, z = text.pieces
        outs = ([(o, b, f"{c}{o}{d}") for o in outcomes] if text.order == (0, 1, 2)
                else [(o, f"{b}{o}{c}", d) for o in outcomes])
        ints, floats, zero = self._ints, self._floats, _go_float
        texts, counts = [], []
        for agent, rep in zip(agents, reports, strict=True):
            items = rows.items(rep)
            if not _plain("".join(items)):
                return None
            # the text up to the name, once per agent and outcome, not once per line
            heads = [(o, f"{a}{agent}{head}", tail) for o, head, tail in outs]
            if len(heads) == 2:
                # two outcomes (agentcov_tool_calls: half a busy scrape's series): a name's two
                # lines in one f-string, half the loop's steps; a null value writes no line, so
                # one sends the agents back to their rows
                (o, h, t), (p, i, u) = heads
                two = [f"{h}{name}{t}"
                       f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                       f"{i}{name}{u}"
                       f"{ints[w] if w.__class__ is int else floats[w] if w else zero(w)}{z}"
                       for name, row in items.items()
                       if (v := row.get(o, 0)) is not None and (w := row.get(p, 0)) is not None]
                if len(two) < len(items):
                    return None
                texts.append("".join(two))
                counts.append(2 * len(two))
                continue
            mine = [f"{head}{name}{tail}"
                    f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}{z}"
                    for name, row in items.items() for o, head, tail in heads
                    if (v := row.get(o, 0)) is not None]
            texts.append("".join(mine))
            counts.append(len(mine))
        return texts, counts

    def marked(self, family: Family, rows: Iterable[Row],
               exemplars: Mapping[Labels, Mapping[str, str]]) -> list[str]:
        """A counter's lines with their rows' exemplars (OpenMetrics), each row written apart
        and its label values escaped: the family has a few series an agent (its restricted
        tools), so the fast paths would buy nothing. `exemplars` is keyed by raw label values."""
        text, esc, out = _TEXT[family.name], self.esc, []
        for labels, value in rows:
            if value is None:
                continue
            line = self.line(text, tuple([esc[v] for v in labels]), value)
            mark = exemplars.get(labels)
            out.append(line if mark is None else f"{line[:-1]}{_exemplar(mark)}\n")
        return out

    def line(self, text: _Text, labels: Labels, value: Any) -> str:
        """One series' line, whatever its number of labels (not for a null value)."""
        pieces = text.pieces
        written = [piece + labels[i] for piece, i in zip(pieces, text.order, strict=False)]
        return "".join([*written, pieces[-2], self.number(value), pieces[-1]])

    def _histogram(self, text: _Text, names: tuple[str, ...], labels: tuple[str, ...],
                   value: Any) -> str:
        """`_bucket` lines with `le` among the sorted labels, then `_count` and `_sum`."""
        buckets, total = value
        esc, sample, number, where = self.esc, text.sample, self.number, text.le_at
        parts = [f'{names[i]}="{esc[labels[i]]}"' for i in text.order]
        base = ",".join(parts)
        # the bucket line around `le`'s value: the labels before it and after it
        head = f"{sample}_bucket{{{''.join(p + ',' for p in parts[:where])}le=\""
        tail = f"\"{''.join(',' + p for p in parts[where:])}}} "
        ints, floats, zero = self._ints, self._floats, _go_float
        out = [f"{head}{esc[le]}{tail}"
               f"{ints[v] if v.__class__ is int else floats[v] if v else zero(v)}\n"
               for le, v in buckets]
        if float(buckets[0][0]) >= 0:
            out.append(f"{sample}_count{{{base}}} {number(buckets[-1][1])}\n"
                       f"{sample}_sum{{{base}}} {number(total)}\n")
        return "".join(out)

    def family(self, family: Family, rows: list[Row],
               exemplars: Mapping[Labels, Mapping[str, str]] | None = None) -> str:
        """A family's HELP, TYPE and sample lines (`exemplars`: its rows', OpenMetrics only)."""
        header = _TEXT[family.name].headers[self.om]
        if self.om and exemplars:
            return header + "".join(self.marked(family, rows, exemplars))
        lines = self.lines(family, [rows])[0]
        if family.type != "histogram" and not _unescaped(lines, len(lines), len(family.labels)):
            lines = self.lines(family, [self.esc.rows(rows)])[0]  # a label value to escape
        return header + "".join(lines)


_PER_AGENT = of(AGENT)
# the report, its text in each per-agent family, how many series that text holds
_AgentText = tuple[AgentReport, list[str], int]


class Exposition:
    """A source's exposition, scrape after scrape: `families(data)` written directly, byte for
    byte what prometheus_client's `generate_latest` writes for them (tested), without a Metric
    and a Sample per series (100 agents x 50 tools is ~20 k series). `openmetrics`: what its
    OpenMetrics encoder writes instead (Prometheus asks for that format first), exemplars and
    the final `# EOF` included; one writer, as the two formats differ only in a few lines.

    An agent whose report is the very object of the last scrape (`measures()` keeps an agent's
    report until its state changes) reuses that scrape's text; the others are written together,
    family by family. Scrapes may run concurrently: each reads the last scrape's text and leaves
    its own; reuse is by identity, so either is exact.
    """

    def __init__(self, openmetrics: bool = False) -> None:
        self._last: dict[str, _AgentText] = {}
        self._om = openmetrics

    def __call__(self, data: Report, max_series: int = MAX_SERIES, then: str = "") -> bytes:
        """The exposition of `data`; `then` is more families' text in the same format (a
        server's runtime ones), written after these and, in OpenMetrics, before the `# EOF`
        that ends the whole exposition."""
        om = self._om
        writer, last, end = _Writer(om), self._last, [then, _EOF] if om else [then]
        agents = data.get("agents", {})
        texts: dict[str, _AgentText] = {}
        changed: list[tuple[str, AgentReport]] = []
        for agent, rep in agents.items():
            old = last.get(agent)
            if old is not None and old[0] is rep:
                texts[agent] = old
            else:
                changed.append((agent, rep))
        for (agent, rep), (parts, n) in zip(changed, self._write(writer, changed), strict=True):
            texts[agent] = (rep, parts, n)
        if sum(n for _, _, n in texts.values()) > max_series:
            # the budget cuts (from rows, as the registry path does); nothing kept for later
            self._last = {}
            return "".join([*[writer.family(f.family, f.rows, f.exemplars)
                              for f in _collect(data, max_series)], *end]).encode("utf-8")
        self._last = texts
        # each family's header, then its text of every agent: one join, so the scrape's ~MB is
        # copied once (and once more to bytes), not family by family first
        ordered = [texts[agent][1] for agent in agents]
        body = [piece for i, f in enumerate(_PER_AGENT)
                for piece in (_TEXT[f.name].headers[om], *[parts[i] for parts in ordered])]
        body += [writer.family(f.family, f.rows)
                 for f in _scrape_families(data, [(f.name, 0) for f in _PER_AGENT])]
        return "".join([*body, *end]).encode("utf-8")

    @staticmethod
    def _write(writer: _Writer, agents: list[tuple[str, AgentReport]]
               ) -> list[tuple[list[str], int]]:
        """Each agent's text in each per-agent family and its series count: a family's rows of
        all `agents` are written in one call (one pass per family, not per agent)."""
        names, reports = [agent for agent, _ in agents], [rep for _, rep in agents]
        plain = _plain("".join(names))
        written = [writer.texts(family, names, reports, plain) for family in _PER_AGENT]
        parts = zip(*[texts for texts, _ in written], strict=True)
        counts = map(sum, zip(*[counts for _, counts in written], strict=True))
        return [(list(texts), n) for texts, n in zip(parts, counts, strict=True)]


def exposition(data: Report, max_series: int = MAX_SERIES, openmetrics: bool = False) -> bytes:
    """The exposition of one report (`measures()` or `Snapshot.data`), nothing reused: the text
    format, or `openmetrics`."""
    return Exposition(openmetrics)(data, max_series)


class CoverageCollector(Collector):
    """prometheus_client collector: one snapshot per scrape, every family of the contract."""

    def __init__(self, source: MeasuresSource, max_series: int = MAX_SERIES) -> None:
        self._source = source
        self._max_series = max_series

    def collect(self) -> Iterable[Metric]:
        return iter(families(self._source.measures(), self._max_series))

    def describe(self) -> Iterator[Metric]:
        """Nothing up front: registering must not take a snapshot."""
        return iter(())


def make_registry(source: MeasuresSource, max_series: int = MAX_SERIES) -> CollectorRegistry:
    """A registry of its own holding only the coverage collector (never the global registry)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(CoverageCollector(source, max_series))
    return registry


def negotiated(
    accept: str | None, source: MeasuresSource, max_series: int = MAX_SERIES,
    runtime: CollectorRegistry | None = None,
) -> tuple[bytes, str]:
    """(body, content type) for a scrape's Accept header, both formats by the direct writer
    (`render`): OpenMetrics, which alone carries the restricted attempts' trace-id exemplars,
    when the scraper asks for it (as Prometheus does first), else the text format.

    Every name agentcov and prometheus_client write is a legacy Prometheus name, which the
    `underscores`, `allow-utf-8` and `values` escapings leave as it is; `dots` alone would
    rewrite it, so that one is answered as `underscores` (a server chooses; the content type
    says which)."""
    _, content_type = choose_encoder(accept or "")
    if content_type.startswith("application/openmetrics-text"):
        content_type = content_type.replace("escaping=dots", "escaping=underscores")
        return render(source, max_series, runtime, openmetrics=True), content_type
    return render(source, max_series, runtime), CONTENT_TYPE_LATEST


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


# a source's writer of each format (text, OpenMetrics): each keeps its own agents' text
_EXPOSITIONS: tuple[weakref.WeakKeyDictionary[MeasuresSource, Exposition], ...] = (
    weakref.WeakKeyDictionary(), weakref.WeakKeyDictionary())


def _runtime_text(registry: CollectorRegistry | None, openmetrics: bool) -> str:
    """`registry`'s few families (process, Python, build, a server's own) in the format, by
    prometheus_client's encoder, without OpenMetrics' `# EOF`: the exposition ends once."""
    if registry is None:
        return ""
    if openmetrics:
        return _openmetrics(registry).decode("utf-8").removesuffix(_EOF)
    return generate_latest(registry).decode("utf-8")


def render(source: MeasuresSource, max_series: int = MAX_SERIES,
           runtime: CollectorRegistry | None = None, openmetrics: bool = False) -> bytes:
    """The exposition of one snapshot, then `runtime`'s families: what prometheus_client's
    `generate_latest` (or, `openmetrics`, its OpenMetrics encoder) would write for a registry
    of the coverage collector and `runtime`'s collectors. The text of agents that did not
    change since `source`'s last render in the format is reused (`Exposition`)."""
    data = source.measures()
    writers = _EXPOSITIONS[openmetrics]
    try:
        writer = writers.get(source)
        if writer is None:
            writer = writers[source] = Exposition(openmetrics)
    except TypeError:  # a source without weak references: nothing to reuse
        writer = Exposition(openmetrics)
    return writer(data, max_series, _runtime_text(runtime, openmetrics))


def serve_metrics(
    source: MeasuresSource,
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
    # prometheus_client's server (its TLS, threads and quiet handler) with the direct writer's
    # app: the server asks for its app at each request, so a scrape before this line got the
    # registry's answer, the same families, only slower
    server.set_app(_direct_app(source, make_wsgi_app(registry)))
    return server, thread


def wsgi_app(source: MeasuresSource) -> Any:
    """A WSGI app serving the exposition, for mounting behind a server with auth/TLS."""
    return _direct_app(source, make_wsgi_app(add_runtime_collectors(make_registry(source))))


def _direct_app(source: MeasuresSource, registry_app: Any) -> Any:
    """The WSGI app of `serve_metrics` and `wsgi_app`: a scrape (a GET) answered by the direct
    writer in the format asked for (`negotiated`), gzipped when accepted, as prometheus_client's
    app does; what else its app answers (OPTIONS, another method, /favicon.ico, a `name[]`
    filter of families) goes to `registry_app`, prometheus_client's app of the same families."""
    runtime = add_runtime_collectors(CollectorRegistry(auto_describe=False))

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        if (environ.get("REQUEST_METHOD") != "GET" or environ.get("PATH_INFO") == "/favicon.ico"
                or "name[]" in parse_qs(environ.get("QUERY_STRING", ""))):
            return cast(list[bytes], registry_app(environ, start_response))
        body, content_type = negotiated(environ.get("HTTP_ACCEPT"), source, MAX_SERIES, runtime)
        headers = [("Content-Type", content_type)]
        if gzip_accepted(environ.get("HTTP_ACCEPT_ENCODING") or ""):
            body = gzip.compress(body)  # as prometheus_client's app compresses
            headers.append(("Content-Encoding", "gzip"))
        start_response("200 OK", headers)
        return [body]

    return app
