"""Intake: what both receivers share — auth, memory and admission, size-capped gunzip, element
caps, decode, submit.

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

from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from ..readers.errors import TraceFormatError
from ..readers.otlp_logs import events_from_json, events_from_protobuf, span_events_from_protobuf
from ..readers.otlp_size import ElementCaps, TooLarge, json_elements
from ..semconv.events import EVENT_TYPES
from .store import PROTOBUF, CoverageStore, Unavailable, decode_records, json_document

BUDGET_FULL = "requests in flight hold the memory budget; retry later"
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
    """Per-request limits: `max_body_bytes` on the wire, `max_decompressed_bytes` after gunzip,
    `max_spans` and `max_attributes` decoded; `max_inflight_bytes` for the bodies of all
    requests in flight together (wire + inflated); `max_connections` open HTTP connections per
    listener (each holds a thread)."""

    max_body_bytes: int = 20 << 20
    max_decompressed_bytes: int = 80 << 20
    max_concurrent: int = 32
    request_timeout_s: float = 10.0
    max_connections: int = 256
    max_spans: int = 50_000
    max_attributes: int = 1_000_000
    max_inflight_bytes: int = 256 << 20
    grpc_idle_s: float = 300.0  # a gRPC connection idle this long is closed (GOAWAY)


def bearer_matches(authorization: str | None, token: bytes) -> bool:
    """`Authorization: Bearer <token>`, the scheme in any case (RFC 9110 §11.1), the token
    compared in constant time."""
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip(" ").encode("utf-8", "replace"), token)


def gunzip(data: bytes, cap: int, where: str, limit: int | None = None) -> bytes:
    """Decompress incrementally, never producing more than `cap` bytes (gzip-bomb safe); past
    `limit` (<= cap: what the in-flight budget has left) the service is overloaded, not the
    request too large."""
    bound = cap if limit is None else min(cap, limit)
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, bound + 1)
    except zlib.error as exc:
        raise RequestError("malformed", f"{where}: bad gzip body ({exc})") from None
    if len(out) > bound:
        if bound < cap:
            raise RequestError("overloaded", BUDGET_FULL)
        raise RequestError("too_large", f"{where}: body inflates past {cap} bytes")
    if not inflater.eof:
        raise RequestError("malformed", f"{where}: gzip body is truncated")
    return out


class Hold:
    """Bytes one request holds of the shared in-flight budget; all returned when it ends."""

    def __init__(self, intake: Intake) -> None:
        self._intake = intake
        self.held = 0

    def __enter__(self) -> Hold:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @property
    def available(self) -> int:
        return self._intake.limits.max_inflight_bytes - self._intake.inflight_bytes

    def reserve(self, n: int) -> None:
        """Hold `n` more bytes, or `overloaded` (retryable) when the budget has no room."""
        intake = self._intake
        if n > intake.limits.max_inflight_bytes:  # never servable: final, not retryable
            raise RequestError("too_large", f"body of {n} bytes exceeds the in-flight budget "
                               f"of {intake.limits.max_inflight_bytes}")
        with intake._lock:
            if intake.inflight_bytes + n > intake.limits.max_inflight_bytes:
                raise RequestError("overloaded", BUDGET_FULL)
            intake.inflight_bytes += n
        self.held += n

    def give_back(self, n: int) -> None:
        """Return `n` of the bytes held (a reservation larger than what was used)."""
        with self._intake._lock:
            self._intake.inflight_bytes -= n
        self.held -= n

    def release(self) -> None:
        with self._intake._lock:
            self._intake.inflight_bytes -= self.held
        self.held = 0


class Intake:
    """Shared front half of both receivers; thread-safe."""

    def __init__(
        self, store: CoverageStore, limits: RequestLimits, token: str | None = None
    ) -> None:
        self.store = store
        self.limits = limits
        self._token = token.encode() if token else None
        self._slots = threading.BoundedSemaphore(limits.max_concurrent)
        self._caps = ElementCaps(limits.max_spans, limits.max_attributes)
        self._steps = store.engine.steps()  # protobuf decoded and classified in one core call
        self._lock = threading.Lock()
        self.inflight_bytes = 0
        self.requests: Counter[tuple[str, str]] = Counter()  # (transport, outcome)
        self.spans: Counter[tuple[str, str]] = Counter()  # (transport, accepted|rejected)

    def check_token(self, authorization: str | None) -> None:
        if self._token is not None and not bearer_matches(authorization, self._token):
            raise RequestError("unauthenticated", "missing or wrong bearer token")

    def hold(self, n: int) -> Hold:
        """`n` bytes of the in-flight budget (more can be reserved), or `overloaded`; use it
        as a context manager so every byte is returned."""
        hold = Hold(self)
        hold.reserve(n)
        return hold

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
            if kind != PROTOBUF:  # the protobuf decoder counts against the caps itself
                json_elements(payload, self._caps)
            records = decode_records(kind, payload, where, self._caps, self._steps)
            # the core classifies protobuf spans without their events: ours are read here
            # (SpanRecords, when a check reads content, carry theirs: read once, by the engine)
            span_events = span_events_from_protobuf(payload, where) if (
                kind == PROTOBUF and self._steps is not None) else []
        except TooLarge as exc:
            raise RequestError("too_large", f"{where}: {exc}") from None
        except TraceFormatError as exc:
            raise RequestError("malformed", str(exc)) from None
        try:
            rejected = self.store.submit(records, span_events)
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

    def export_logs(self, transport: str, kind: bytes, payload: bytes) -> Message:
        """`export` of an OTLP logs request: its decision events, durably; every other log
        record is read no further than its event name. Raises RequestError."""
        where = f"{transport} logs request"
        try:
            if kind == PROTOBUF:
                items = events_from_protobuf(payload, where, caps=self._caps)
            else:
                json_elements(payload, self._caps)
                items = list(events_from_json(json_document(payload, where), where)) if (
                    payload.strip()) else []
        except TooLarge as exc:
            raise RequestError("too_large", f"{where}: {exc}") from None
        except TraceFormatError as exc:
            raise RequestError("malformed", str(exc)) from None
        events = [e for e in items if isinstance(e, EVENT_TYPES)]
        try:
            self.store.submit_events(events, len(items) - len(events))
        except Unavailable as exc:
            raise RequestError("unavailable", str(exc)) from None
        with self._lock:
            self.requests[transport, "accepted"] += 1
        return ExportLogsServiceResponse()

    def count_failure(self, transport: str, reason: str) -> None:
        with self._lock:
            self.requests[transport, reason] += 1
