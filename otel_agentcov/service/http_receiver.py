"""OTLP/HTTP receiver (`POST /v1/traces`) plus `/metrics` and `/healthz`, on the stdlib server.

The stdlib ThreadingHTTPServer is enough here: requests are few and large (batches), the work
is CPU-bound under one lock, and every limit the spec asks for (size before reading, gunzip cap,
per-read timeouts and a whole-body deadline, concurrency cap) is a few lines on top of it.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from google.rpc.status_pb2 import Status
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from .intake import HTTP_STATUS, Intake, RequestError, gunzip
from .store import JSON, PROTOBUF

TRACES_PATH = "/v1/traces"
_MEDIA_TYPES = {"application/x-protobuf": PROTOBUF, "application/json": JSON}
_READ_CHUNK = 64 << 10


class ServiceHTTPServer(ThreadingHTTPServer):
    """One listener; `intake` set for OTLP, `registry` set for `/metrics` (either or both)."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        *,
        intake: Intake | None,
        registry: CollectorRegistry | None,
        healthy: threading.Event,
        tls: ssl.SSLContext | None = None,
        request_timeout_s: float = 10.0,
    ) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, _Handler)
        self.intake = intake
        self.registry = registry
        self.healthy = healthy
        self.request_timeout_s = request_timeout_s
        if tls is not None:
            # handshake in the handler thread, so a slow client never stalls accept()
            self.socket = tls.wrap_socket(
                self.socket, server_side=True, do_handshake_on_connect=False
            )


class _Handler(BaseHTTPRequestHandler):
    server: ServiceHTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "agentcov"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout_s)  # every read, headers too

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: outcomes are counted in the self-metrics instead of logged per request."""

    # ------------------------------------------------------------------ routing

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/healthz":
            ok = self.server.healthy.is_set()
            self._send(200 if ok else 503, b"ok\n" if ok else b"shutting down\n", "text/plain")
        elif path == "/metrics" and self.server.registry is not None:
            self._send(200, generate_latest(self.server.registry), CONTENT_TYPE_LATEST)
        else:
            self._other_method()

    def do_POST(self) -> None:
        if self.path.split("?", 1)[0] != TRACES_PATH or self.server.intake is None:
            self._send_text(404, "not found")
            return
        intake = self.server.intake
        kind = _MEDIA_TYPES.get(
            (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        )
        try:
            try:
                response = self._export(intake, kind)
            except (TimeoutError, ssl.SSLError, ConnectionError):
                raise RequestError("timeout", "request body not received in time") from None
        except RequestError as exc:
            intake.count_failure("http", exc.reason)
            self._send_status(HTTP_STATUS[exc.reason], str(exc), kind)
            return
        self._send_message(200, response, kind)

    def _other_method(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == TRACES_PATH and self.server.intake is not None:
            self.server.intake.count_failure("http", "method_not_allowed")
            self.send_response(405)
            self.send_header("Allow", "POST")
            self._end(b"method not allowed\n", "text/plain")
        else:
            self._send_text(404, "not found")

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _other_method

    # ------------------------------------------------------------------ OTLP

    def _export(self, intake: Intake, kind: bytes | None) -> Message:
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
        length_header = self.headers.get("Content-Length")
        if length_header is None or not length_header.strip().isdigit():
            raise RequestError("length_required", "Content-Length is required")
        length = int(length_header)
        limits = intake.limits
        if length > limits.max_body_bytes:
            self.close_connection = True  # the body stays unread
            raise RequestError(
                "too_large", f"body of {length} bytes exceeds {limits.max_body_bytes}"
            )
        with intake.admitted():
            body = self._read_body(length, time.monotonic() + limits.request_timeout_s)
            if encoding == "gzip":
                body = gunzip(body, limits.max_decompressed_bytes, "http request")
            elif len(body) > limits.max_decompressed_bytes:
                raise RequestError("too_large", f"body exceeds {limits.max_decompressed_bytes}")
            return intake.export("http", kind, body)

    def _read_body(self, length: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        remaining = length
        while remaining:
            if time.monotonic() > deadline:
                raise TimeoutError
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

    def _send_text(self, status: int, text: str) -> None:
        self.send_response(status)
        self._end(f"{text}\n".encode(), "text/plain")

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self._end(body, ctype)

    def _end(self, body: bytes, ctype: str) -> None:
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


def _rpc_code(status: int) -> int:
    """google.rpc.Code for the Status body (OTLP/HTTP error responses carry one)."""
    return {400: 3, 401: 16, 408: 4, 411: 3, 413: 8, 415: 3, 503: 14}.get(status, 2)
