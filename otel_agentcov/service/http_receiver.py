"""OTLP/HTTP receiver (`POST /v1/traces`) plus `/metrics` and `/healthz`, on the stdlib server.

The stdlib ThreadingHTTPServer is enough here: requests are few and large (batches), the work
is CPU-bound under one lock, and every limit the spec asks for (size before reading, gunzip cap,
one deadline per request covering headers and body, connection and concurrency caps) is a few
lines on top of it.
"""

from __future__ import annotations

import io
import json
import math
import re
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from google.rpc.status_pb2 import Status

from .intake import HTTP_STATUS, Intake, RequestError, bearer_matches, gunzip
from .store import JSON, PROTOBUF
from .views import Page, Views

TRACES_PATH = "/v1/traces"
LOGS_PATH = "/v1/logs"  # log records: their decision events (docs/service.md)
_EXPORT_PATHS = (TRACES_PATH, LOGS_PATH)
_MEDIA_TYPES = {"application/x-protobuf": PROTOBUF, "application/json": JSON}
_READ_CHUNK = 64 << 10
_ASCII_DIGITS = re.compile(r"[0-9]+")
_REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
            b"Connection: close\r\n\r\n")


class ServiceHTTPServer(ThreadingHTTPServer):
    """One listener; `intake` set for OTLP, `metrics` (the exposition's renderer: Accept header
    in, body and content type out) set for `/metrics` (either or both)."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        *,
        intake: Intake | None,
        metrics: Callable[[str | None], tuple[bytes, str]] | None,
        healthy: threading.Event,
        degraded: Callable[[], str | None] = lambda: None,
        tls: ssl.SSLContext | None = None,
        metrics_token: str | None = None,
        view_tokens: tuple[str, ...] = (),
        request_timeout_s: float = 10.0,
        max_connections: int = 256,
        views: Views | None = None,
    ) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, _Handler)
        self.intake = intake
        self.metrics = metrics
        self.healthy = healthy
        self.degraded = degraded
        self.views = views
        self.metrics_token = metrics_token.encode() if metrics_token else None
        # the report and the landing page: any one of these bearer tokens (none: open)
        self.view_tokens = tuple(t.encode() for t in view_tokens)
        self.request_timeout_s = request_timeout_s
        self.tls = tls is not None
        # one thread per connection: the cap bounds threads however many clients hold sockets open
        self._connections = threading.BoundedSemaphore(max_connections)
        if tls is not None:
            # handshake in the handler thread, so a slow client never stalls accept()
            self.socket = tls.wrap_socket(
                self.socket, server_side=True, do_handshake_on_connect=False
            )

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection, or (past `max_connections`) 503 and close at once."""
        if not self._connections.acquire(blocking=False):
            if self.intake is not None:
                self.intake.count_failure("http", "overloaded")
            if not self.tls:  # a TLS client would not read a plaintext reply: just close
                request.setblocking(False)
                try:
                    request.send(_REFUSED)
                except OSError:
                    pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._connections.release()
            raise

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up mid-request is routine; anything else is one line, no traceback
        (socketserver would print one per connection), naming the error's type only: its
        message may quote the request's content."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            print(f"agentcov serve: request from {client_address[0]}: internal error: "
                  f"{type(exc).__name__}", file=sys.stderr)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()


class _DeadlineReader(io.RawIOBase):
    """Socket reads that share one deadline per request, so a client sending its headers (or
    body) a byte at a time cannot hold a connection past `--request-timeout`."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self._sock = sock
        self.deadline = math.inf

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("request not received in time")
        self._sock.settimeout(remaining)
        return self._sock.recv_into(buffer)


class _Handler(BaseHTTPRequestHandler):
    server: ServiceHTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "agentcov"

    def setup(self) -> None:
        super().setup()
        self.rfile.close()
        self._reader = _DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        """Each request (and the keep-alive wait before it) must arrive within the timeout."""
        self._reader.deadline = time.monotonic() + self.server.request_timeout_s
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: outcomes are counted in the self-metrics instead of logged per request."""

    # ------------------------------------------------------------------ routing

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        views = self.server.views
        if path == "/healthz":
            degraded = self.server.degraded()
            if not self.server.healthy.is_set():
                self._send(503, b"shutting down\n", "text/plain")
            elif degraded:
                self._send(503, f"degraded: {degraded}\n".encode(), "text/plain")
            else:
                self._send(200, b"ok\n", "text/plain")
        elif path == "/metrics" and self.server.metrics is not None:
            token = self.server.metrics_token
            if not self._authorized(() if token is None else (token,)):
                self._unauthorized()
                return
            self._send(200, *self.server.metrics(self.headers.get("Accept")))
        elif views is not None and views.serves(path):
            if not self._authorized(self.server.view_tokens):
                self._unauthorized()
                return
            views.serve(path, query, self._send_page)
        else:
            self._other_method()

    def _authorized(self, tokens: tuple[bytes, ...]) -> bool:
        """No token guards it, or the request carries one of them."""
        authorization = self.headers.get("Authorization")
        return not tokens or any(bearer_matches(authorization, t) for t in tokens)

    def _unauthorized(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", "Bearer")
        self._end(b"missing or wrong bearer token\n", "text/plain")

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path not in _EXPORT_PATHS or self.server.intake is None:
            self._send_text(404, "not found")
            return
        intake = self.server.intake
        kind = _MEDIA_TYPES.get(
            (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        )
        try:
            try:
                response = self._export(intake, kind, path == LOGS_PATH)
            except (TimeoutError, ssl.SSLError, ConnectionError):
                raise RequestError("timeout", "request body not received in time") from None
        except RequestError as exc:
            intake.count_failure("http", exc.reason)
            self._send_status(HTTP_STATUS[exc.reason], str(exc), kind)
            return
        self._send_message(200, response, kind)

    def _other_method(self) -> None:
        path = self.path.split("?", 1)[0]
        if path in _EXPORT_PATHS and self.server.intake is not None:
            self.server.intake.count_failure("http", "method_not_allowed")
            self.send_response(405)
            self.send_header("Allow", "POST")
            self._end(b"method not allowed\n", "text/plain")
        else:
            self._send_text(404, "not found")

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _other_method

    # ------------------------------------------------------------------ OTLP

    def _export(self, intake: Intake, kind: bytes | None, logs: bool) -> Message:
        intake.check_token(self.headers.get("Authorization"))
        if kind is None:
            raise RequestError(
                "unsupported_media_type",
                f"Content-Type {self.headers.get('Content-Type')!r}: expected "
                "application/x-protobuf or application/json",
            )
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding not in ("identity", "gzip"):
            raise RequestError("unsupported_media_type",
                               f"Content-Encoding {encoding!r}: expected gzip or none")
        length = self._content_length()
        limits = intake.limits
        if length > limits.max_body_bytes:
            self.close_connection = True  # the body stays unread
            raise RequestError(
                "too_large", f"body of {length} bytes exceeds {limits.max_body_bytes}"
            )
        try:
            held = intake.hold(length)
        except RequestError:
            self.close_connection = True  # the body stays unread
            raise
        with held:
            # read before admission: a slow body holds bytes of the budget, never a slot
            body = self._read_body(length)
            if encoding == "gzip":
                # past the cap (or what the whole budget could ever hold beside this body) the
                # request is too large; past what the budget has left now, retry later
                cap = min(limits.max_decompressed_bytes, limits.max_inflight_bytes - length)
                room = min(cap, held.available)
                held.reserve(room)
                body = gunzip(body, cap, "http request", room)
                held.give_back(room - len(body))
            elif len(body) > limits.max_decompressed_bytes:
                raise RequestError("too_large", f"body exceeds {limits.max_decompressed_bytes}")
            with intake.admitted():
                if logs:
                    return intake.export_logs("http", kind, body)
                return intake.export("http", kind, body)

    def _content_length(self) -> int:
        """The body's length: required (411), ASCII digits only (`int()` would take "٣" and
        "+3"), one value, and never beside Transfer-Encoding, which two parsers could read
        differently (request smuggling): 400, and the connection is closed."""
        values = self.headers.get_all("Content-Length") or []
        chunked = self.headers.get("Transfer-Encoding") is not None
        if not values:
            raise RequestError("length_required", "Content-Length is required")
        text = {v.strip() for v in values}
        if chunked or len(text) != 1 or not _ASCII_DIGITS.fullmatch(next(iter(text))):
            self.close_connection = True  # where the body ends is unknown
            if chunked:
                raise RequestError("malformed", "Content-Length with Transfer-Encoding")
            raise RequestError("malformed", f"bad Content-Length {', '.join(values)[:40]!r}")
        return int(next(iter(text)))

    def _read_body(self, length: int) -> bytes:
        """`length` bytes in chunks (the reader enforces the request's deadline)."""
        chunks: list[bytes] = []
        remaining = length
        while remaining:
            chunk = self.rfile.read1(min(remaining, _READ_CHUNK))
            if not chunk:
                self.close_connection = True
                raise RequestError("malformed", f"body ended after {length - remaining} bytes "
                                   f"of {length}")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    # ------------------------------------------------------------------ responses

    def _send_status(self, status: int, message: str, kind: bytes | None) -> None:
        if status in (408, 413, 411):
            self.close_connection = True
        self._send_message(status, Status(code=_rpc_code(status), message=message), kind)

    def _send_message(self, status: int, message: Message, kind: bytes | None) -> None:
        if kind == JSON:
            body = json.dumps(MessageToDict(message)).encode()
            ctype = "application/json"
        else:
            body, ctype = message.SerializeToString(), "application/x-protobuf"
        self.send_response(status)
        if status == 503:
            self.send_header("Retry-After", "1")
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        self._end(body, ctype)

    def _send_page(self, page: Page) -> None:
        self.send_response(page.status)
        for name, value in page.headers:
            self.send_header(name, value)
        self._end(page.body, page.content_type)

    def _send_text(self, status: int, text: str) -> None:
        self.send_response(status)
        self._end(f"{text}\n".encode(), "text/plain")

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self._end(body, ctype)

    def _end(self, body: bytes, ctype: str) -> None:
        self.connection.settimeout(self.server.request_timeout_s)  # a client that never reads
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


def _rpc_code(status: int) -> int:
    """google.rpc.Code for the Status body (OTLP/HTTP error responses carry one)."""
    return {400: 3, 401: 16, 408: 4, 411: 3, 413: 8, 415: 3, 503: 14}.get(status, 2)
