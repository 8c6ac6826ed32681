"""The live report is bounded (issue 29, item 3): renderings are cached per state version, at
most one runs at a time (a GET past that is a retryable 503, never a queue), and OTLP intake
never waits behind one. Before, 32 concurrent HTML GETs over 1,500 agents each rendered the
whole report at once (77 MiB -> 1.45 GiB) and OTLP exports slowed to 5.6 s.

The real renderer runs; the test wraps it to count calls and to hold the first one open, so
"at once" is observable without timing (a spy, not a mock: the pages are the real ones)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from _trace_files import protobuf_bytes
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from test_serve_views import PROTOBUF, request, start

import otel_agentcov.service.views as views_module

GETS = 16


def _agents_spans(n: int, offset: int = 0) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "fleet"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("fleet")
    for i in range(offset, offset + n):
        with tracer.start_as_current_span(f"invoke_agent agent{i}", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"agent{i}"}):
            with tracer.start_as_current_span("execute_tool lookup", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}):
                pass
    provider.shutdown()
    return list(exporter.get_finished_spans())


def test_concurrent_report_gets_render_once_and_never_block_intake(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real: Callable[..., dict[str, str]] = views_module.html_pages
    calls, running, peak = [0], [0], [0]
    lock, entered, release = threading.Lock(), threading.Event(), threading.Event()

    def spy(*args: Any, **kw: Any) -> dict[str, str]:
        with lock:
            calls[0] += 1
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        entered.set()
        release.wait(30)
        try:
            return real(*args, **kw)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(views_module, "html_pages", spy)
    svc = start()
    try:
        port = svc.config.metrics
        otlp = svc.config.otlp_http
        assert request(otlp, "/v1/traces", protobuf_bytes(_agents_spans(60)), "POST",
                       PROTOBUF)[0] == 200
        with ThreadPoolExecutor(GETS) as pool:
            first = pool.submit(request, port, "/report/index.html")
            assert entered.wait(30)  # one rendering is in progress, held open
            others = [pool.submit(request, port, "/report/index.html") for _ in range(GETS - 1)]
            busy = [f.result() for f in others]
            # intake does not wait for the rendering: an export is accepted while it is held
            assert request(otlp, "/v1/traces", protobuf_bytes(_agents_spans(5, 60)), "POST",
                           PROTOBUF)[0] == 200
            release.set()
            assert first.result()[0] == 200
        assert all(s == 503 and h["Retry-After"] == "1" for s, h, _ in busy), \
            [s for s, _, _ in busy]
        assert peak[0] == 1 and calls[0] == 1
        # a new state version (the export above) renders once more, then serves the cache
        with ThreadPoolExecutor(4) as pool:
            pages = [pool.submit(request, port, "/report/index.html") for _ in range(GETS)]
            statuses = [f.result()[0] for f in pages]
        assert 200 in statuses and set(statuses) <= {200, 503}
        served = [request(port, "/report/index.html") for _ in range(4)]
        assert all(s == 200 and b"agent64" in body for s, _, body in served)
        assert calls[0] == 2 and peak[0] == 1
    finally:
        release.set()
        svc.stop()
