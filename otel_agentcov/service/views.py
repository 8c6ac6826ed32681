"""What a running `agentcov serve` shows people: a landing page listing its endpoints, the live
coverage report (`GET /report`), and the one-line summary it logs now and then.

All of it renders the store's Snapshot with the offline renderers, so the live report reads
like `agentcov coverage` over the same spans (agents appear once a run of theirs is seen: a GET
never adds entries to the service's state).
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs

from ..reporting import FORMATS, render
from ..reporting.html import html_pages, report_meta
from .intake import Intake, RequestError

REPORT_PATH = "/report"
HTML_INDEX = f"{REPORT_PATH}/index.html"
_TEXT = "text/plain; charset=utf-8"
_CONTENT_TYPES = {"json": "application/json", "markdown": "text/markdown; charset=utf-8",
                  "text": _TEXT}
_REPORT_FORMATS = (*FORMATS, "html")


@dataclass(frozen=True)
class Page:
    """One HTTP answer: status, body, content type and any extra headers."""

    status: int
    body: bytes
    content_type: str = _TEXT
    headers: tuple[tuple[str, str], ...] = ()


def _text(status: int, message: str) -> Page:
    return Page(status, f"{message}\n".encode())


_RETRY = (("Retry-After", "1"),)
_BUSY = Page(503, b"report rendering busy, retry shortly\n", _TEXT, _RETRY)


class Views:
    """Pages for GET requests; `endpoints` is the service's (filled in as listeners bind).

    A rendering of the report costs memory in proportion to the agents (32 concurrent HTML GETs
    over 1,500 agents once took the service from 77 MiB to 1.45 GiB): each is cached per state
    version (one rendering per format, HTML as all its pages), at most `max_renders` run at
    once (a GET past that is a retryable 503, never a wait), and a body being sent holds its
    bytes of the in-flight budget OTLP requests share (docs/guarantees.md)."""

    def __init__(self, intake: Intake, endpoints: Mapping[str, str], guarded: bool,
                 max_renders: int = 1) -> None:
        self._intake = intake
        self._endpoints = endpoints
        self._guarded = guarded  # a token is configured: every view asks for one
        self._slots = threading.BoundedSemaphore(max_renders)
        self._lock = threading.Lock()
        self._cache: tuple[int, dict[str, bytes | dict[str, bytes]]] = (-1, {})
        self.renders = 0  # renderings made (the rest were served from the cache)

    @staticmethod
    def serves(path: str) -> bool:
        """Is `path` one of these views (each behind the port's token: docs/service.md)?"""
        return path in ("/", REPORT_PATH) or path.startswith(REPORT_PATH + "/")

    def serve(self, path: str, query: str, send: Callable[[Page], None]) -> None:
        """Send the page at `path` (one that `serves`; the caller has checked the token),
        holding its bytes of the in-flight budget while it is written."""
        page = self._page(path, query)
        try:
            hold = self._intake.hold(len(page.body))
        except RequestError as exc:
            send(Page(503, f"{exc}\n".encode(), _TEXT, _RETRY))
            return
        with hold:
            send(page)

    def _page(self, path: str, query: str) -> Page:
        if path == "/":
            return Page(200, self._landing().encode(), "text/html; charset=utf-8")
        if path == REPORT_PATH:
            fmt = parse_qs(query).get("format", ["json"])[-1]
            if fmt == "html":  # the pages link to each other relatively: serve them under /report/
                return Page(303, b"", _TEXT, (("Location", HTML_INDEX),))
            if fmt not in FORMATS:
                return _text(400, f"format {fmt!r}: expected one of {', '.join(_REPORT_FORMATS)}")
            body = self._rendered(fmt)
            if body is None:
                return _BUSY
            assert isinstance(body, bytes)
            return Page(200, body, _CONTENT_TYPES[fmt])
        pages = self._rendered("html")
        if pages is None:
            return _BUSY
        assert isinstance(pages, dict)
        page = pages.get(path[len(REPORT_PATH) + 1:] or "index.html")
        if page is None:
            return _text(404, "not found")
        return Page(200, page, "text/html; charset=utf-8")

    def _rendered(self, kind: str) -> bytes | dict[str, bytes] | None:
        """The report in `kind` (a format, or "html" for its pages) at the current state
        version: cached, else rendered now if a render slot is free, else None (busy)."""
        store = self._intake.store
        version = store.version
        with self._lock:
            cached_version, cached = self._cache
            if cached_version == version and kind in cached:
                return cached[kind]
        if not self._slots.acquire(blocking=False):
            return None
        try:
            version = store.version  # what the snapshot below holds at least
            report = store.snapshot().data
            body: bytes | dict[str, bytes] = (
                {name: text.encode() for name, text in html_pages(report, report_meta(
                    ["live OTLP (agentcov serve)"], store.engine.spec.source),
                    store.engine.spec).items()}
                if kind == "html" else render(report, kind, store.engine.spec).encode())
            with self._lock:
                self.renders += 1
                if self._cache[0] != version:
                    self._cache = (version, {})  # the old version's renderings are let go
                self._cache[1][kind] = body
            return body
        finally:
            self._slots.release()

    def _landing(self) -> str:
        rows = [(self._endpoints[key], what) for key, what in (
            ("otlp_http", "POST OTLP/HTTP traces (protobuf or JSON)"),
            ("otlp_grpc", "OTLP/gRPC traces"),
            ("metrics", "GET Prometheus exposition"),
        ) if key in self._endpoints]
        rows.append(("/healthz", "GET 200 while serving, 503 while shutting down"))
        token = ", bearer token required" if self._guarded else ""
        rows += [(f"{REPORT_PATH}?format={f}", f"GET live coverage report ({f}{token})")
                 for f in _REPORT_FORMATS]
        items = "\n".join(f"<tr><td>{_link(url)}</td><td>{html.escape(what)}</td></tr>"
                           for url, what in rows)
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            "<title>agentcov serve</title></head><body>\n<h1>agentcov serve</h1>\n"
            "<p>Agent behaviour coverage from OpenTelemetry traces.</p>\n"
            f"<table>\n{items}\n</table>\n</body></html>\n"
        )


def _link(url: str) -> str:
    """A link for what a browser can open; a gRPC address is shown as text."""
    text = html.escape(url)
    return f'<a href="{text}">{text}</a>' if url.startswith(("/", "http")) else text


def summary_line(intake: Intake) -> str:
    """One line for the log: what arrived, what was refused, what it amounts to so far."""
    report = intake.store.snapshot().data
    agents = report["agents"].values()
    runs = sum(a["runs"]["count"] for a in agents)
    restricted = sum(a["edges"]["restricted_attempts"] for a in agents)
    spans, requests = dict(intake.spans), dict(intake.requests)  # copies: receivers count on
    accepted = sum(n for (_, outcome), n in spans.items() if outcome == "accepted")
    rejected = sum(n for (_, outcome), n in spans.items() if outcome == "rejected")
    refused = sum(n for (_, outcome), n in requests.items() if outcome != "accepted")
    return (
        f"agentcov serve: {accepted} spans accepted, {rejected} rejected, {refused} requests "
        f"refused; {runs} runs of {len(report['agents'])} agents, {restricted} restricted "
        f"attempts, {report['spans'].get('traces_in_flight', 0)} traces in flight"
    )
