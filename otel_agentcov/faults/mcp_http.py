"""`agentcov faults mcp --upstream URL`: the MCP streamable HTTP transport with tool faults in
between, on loopback.

Every request goes on to the upstream server at the path the client used, and every answer
comes back as it is sent, streamed (a POST's event stream, the GET stream of server messages),
except for the `tools/call` requests a fault takes: those never reach the server and get the
fault's answer as JSON, with the mark in the `agentcov-fault` header as well (`mcp.McpFaults`).
"""

from __future__ import annotations

import json
import time

import httpx

from .mcp import McpFaults, parse_message
from .proxy import HOP_BY_HOP, FaultProxy, ProxyHandler

_NO_BODY = frozenset({204, 304})


class McpHttpProxy(FaultProxy):
    """Forwards every request to `upstream`, under `faults`' tool faults."""

    def __init__(self, upstream: str, faults: McpFaults, port: int = 0,
                 host: str = "127.0.0.1") -> None:
        super().__init__(upstream, faults.plan, port, host, faults.hold_s, faults.log,
                         handler=_McpHandler)
        self.faults = faults


class _McpHandler(ProxyHandler):
    server: McpHttpProxy

    def _forward(self) -> None:
        proxy = self.server
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        message = parse_message(body) if self.command == "POST" else None
        fault = proxy.faults.take(message)
        if fault is not None:
            if fault.family == "tool_timeout":
                time.sleep(proxy.faults.hold_s)
            answer = proxy.faults.answer(fault)
            if answer is None:  # cancelled while held: the call ends unanswered
                self.close_connection = True
                return
            self._answer(200, [("content-type", "application/json")],
                         json.dumps(answer).encode(), fault.mark)
            return
        if proxy.faults.drops(message):
            self._answer(202, [], b"", None)
            return
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
        request = proxy.client.build_request(self.command, proxy.upstream + self.path,
                                             headers=headers, content=body)
        try:
            upstream = proxy.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            self._answer(502, [("content-type", "text/plain")],
                         f"upstream unreachable: {type(exc).__name__}".encode(), None)
            return
        try:
            self._stream(upstream)
        except (httpx.HTTPError, OSError):  # either side hung up mid-stream
            self.close_connection = True
        finally:
            upstream.close()

    def _stream(self, upstream: httpx.Response) -> None:
        """The upstream's answer as it comes, chunk by chunk (its encoding kept)."""
        self.send_response(upstream.status_code)
        for key, value in upstream.headers.multi_items():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        if upstream.status_code in _NO_BODY or self.command == "HEAD":
            self.end_headers()
            return
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for chunk in upstream.iter_raw():
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward
