"""Intake: what both receivers share — auth, admission, size-capped gunzip, decode, submit.

Each failure is a RequestError carrying a reason; the receivers map the reason to an HTTP status
or a gRPC code (OTLP spec: 400/INVALID_ARGUMENT is final, 503/UNAVAILABLE is retryable).
Every outcome is counted by transport and reason for the service's self-metrics.
"""

from __future__ import annotations

import hmac
import threading
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from ..readers.errors import TraceFormatError
from .store import CoverageStore, Unavailable, decode_records

# reason -> HTTP status (503 is the retryable one); grpc_receiver maps reasons to gRPC codes
HTTP_STATUS = {
    "malformed": 400,
    "unauthenticated": 401,
    "method_not_allowed": 405,
    "timeout": 408,
    "length_required": 411,
    "too_large": 413,
    "unsupported_media_type": 415,
    "overloaded": 503,
    "unavailable": 503,
}


class RequestError(Exception):
    """A request the service refuses; `reason` is the self-metric label, str() the message."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class RequestLimits:
    """Per-request limits: `max_body_bytes` on the wire, `max_decompressed_bytes` after gunzip;
    `max_connections` open HTTP connections per listener (each holds a thread)."""

    max_body_bytes: int = 20 << 20
    max_decompressed_bytes: int = 80 << 20
    max_concurrent: int = 32
    request_timeout_s: float = 10.0
    max_connections: int = 256


def gunzip(data: bytes, cap: int, where: str) -> bytes:
    """Decompress incrementally, never producing more than `cap` bytes (gzip-bomb safe)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, cap + 1)
    except zlib.error as exc:
        raise RequestError("malformed", f"{where}: bad gzip body ({exc})") from None
    if len(out) > cap:
        raise RequestError("too_large", f"{where}: body inflates past {cap} bytes")
    if not inflater.eof:
        raise RequestError("malformed", f"{where}: gzip body is truncated")
    return out


class Intake:
    """Shared front half of both receivers; thread-safe."""

    def __init__(
        self, store: CoverageStore, limits: RequestLimits, token: str | None = None
    ) -> None:
        self.store = store
        self.limits = limits
        self._token = f"Bearer {token}".encode() if token else None
        self._slots = threading.BoundedSemaphore(limits.max_concurrent)
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, str]] = Counter()  # (transport, outcome)
        self.spans: Counter[tuple[str, str]] = Counter()  # (transport, accepted|rejected)

    def check_token(self, authorization: str | None) -> None:
        if self._token is None:
            return
        given = (authorization or "").encode()
        if not hmac.compare_digest(given, self._token):
            raise RequestError("unauthenticated", "missing or wrong bearer token")

    @contextmanager
    def admitted(self) -> Iterator[None]:
        """A slot among `max_concurrent` requests, or `overloaded` at once (never queue)."""
        if not self._slots.acquire(blocking=False):
            raise RequestError("overloaded", "too many concurrent requests; retry later")
        try:
            yield
        finally:
            self._slots.release()

    def export(self, transport: str, kind: bytes, payload: bytes) -> ExportTraceServiceResponse:
        """Decode, apply durably, and build the OTLP response (partial success if any span
        was rejected). Raises RequestError; the caller counts it with `count_failure`."""
        where = f"{transport} request"
        try:
            records = decode_records(kind, payload, where)
        except TraceFormatError as exc:
            raise RequestError("malformed", str(exc)) from None
        try:
            rejected = self.store.submit(kind, payload, records)
        except Unavailable as exc:
            raise RequestError("unavailable", str(exc)) from None
        response = ExportTraceServiceResponse()
        n_rejected = sum(rejected.values())
        if n_rejected:
            response.partial_success.rejected_spans = n_rejected
            response.partial_success.error_message = "rejected " + ", ".join(
                f"{n} span(s): {reason}" for reason, n in sorted(rejected.items())
            )
        with self._lock:
            self.requests[transport, "accepted"] += 1
            self.spans[transport, "accepted"] += len(records) - n_rejected
            self.spans[transport, "rejected"] += n_rejected
        return response

    def count_failure(self, transport: str, reason: str) -> None:
        with self._lock:
            self.requests[transport, reason] += 1
