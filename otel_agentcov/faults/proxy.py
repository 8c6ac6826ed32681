"""`agentcov faults proxy`: a reverse proxy on loopback that injects a plan's model-endpoint
faults into any client's traffic (a non-Python agent, a CLI, a service under test).

Each request is a run of its own under the plan (`plan.take`). The client's spans are out of
reach, so the fault is told to the client in the `agentcov-fault` response header (family,
plan, seed) and counted in one line per fault on stderr; bodies are forwarded, or rewritten in
memory by the fault, and never logged (docs/faults.md#the-proxy).
"""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TextIO

import httpx

from ..fault_families import MODEL
from . import http, plan
from .plan import Plan

FAULT_HEADER = "agentcov-fault"
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "te", "trailers", "transfer-encoding", "upgrade", "host",
                        "content-length"})
DEFAULT_HOLD_S = 30.0  # how long a `timeout` fault keeps the request unanswered


class FaultProxy(ThreadingHTTPServer):
    """Forwards every request to `upstream`, under `fault_plan`'s model faults."""

    daemon_threads = True

    def __init__(self, upstream: str, fault_plan: Plan, port: int = 0, host: str = "127.0.0.1",
                 hold_s: float = DEFAULT_HOLD_S, log: TextIO = sys.stderr,
                 handler: type[BaseHTTPRequestHandler] | None = None) -> None:
        super().__init__((host, port), handler or ProxyHandler)
        self.upstream = upstream.rstrip("/")
        self.plan = fault_plan
        self.hold_s = hold_s
        self.log = log
        self.client = httpx.Client(timeout=None, follow_redirects=False)
        self.lock = threading.Lock()  # the plan's schedule is one sequence across threads

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def server_close(self) -> None:
        super().server_close()
        self.client.close()


class ProxyHandler(BaseHTTPRequestHandler):
    """One exchange: forwarded, or answered by the fault it carries."""

    server: FaultProxy
    protocol_version = "HTTP/1.1"
    # an answer is several writes (headers, body, a stream's chunks): with Nagle's algorithm
    # each waits for the client's delayed ACK (40 ms an MCP call, benchmarks/fault_injectors.py)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        """Request lines stay off stderr: paths can carry identifiers."""

    def _forward(self) -> None:
        proxy = self.server
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        with proxy.lock:
            fault = plan.take_alone(proxy.plan, MODEL)
        if fault is not None:
            family, armed = fault
            mark = plan.mark_line(family, proxy.plan)
            print(f"agentcov faults proxy: injected {family}", file=proxy.log, flush=True)
            if family == "timeout":
                time.sleep(proxy.hold_s)
                self.close_connection = True
                return
            if family in http.REFUSING:
                status, refused, content = http.refusal(family, armed.rng)
                self._answer(status, list(refused.items()), content, mark)
                return
            if family == "slow":
                time.sleep(proxy.plan.slow_s)
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
        try:
            upstream = proxy.client.request(self.command, proxy.upstream + self.path,
                                            headers=headers, content=body)
        except httpx.HTTPError as exc:
            self._answer(502, [("content-type", "text/plain")],
                         f"upstream unreachable: {type(exc).__name__}".encode(), None)
            return
        content = upstream.content
        out = [(k, v) for k, v in upstream.headers.multi_items()
               if k.lower() not in HOP_BY_HOP]
        if fault is not None and fault[0] in http.ALTERING:
            content = http.rewrite(fault[0], content, upstream.headers.get("content-type", ""),
                                   proxy.plan.budget_tokens, fault[1].rng)
            out = http.kept_headers(out)
        else:
            out = [(k, v) for k, v in out if k.lower() != "content-encoding"]
        self._answer(upstream.status_code, out, content,
                     mark if fault is not None else None)

    def _answer(self, status: int, headers: list[tuple[str, str]], body: bytes,
                mark: str | None) -> None:
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        if mark is not None:
            self.send_header(FAULT_HEADER, mark)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward
