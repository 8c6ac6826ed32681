"""OTLP/gRPC receiver: `opentelemetry.proto.collector.trace.v1.TraceService/Export`, and
`...logs.v1.LogsService/Export` for decision events (docs/service.md).

The method is registered with no request deserializer, so the handler gets the raw bytes: they
are decoded once by the shared intake and journaled as they came. grpcio itself handles gzip
and rejects messages over the decompressed limit with RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc

from .intake import Intake, RequestError
from .store import PROTOBUF

SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"
LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService"
GRPC_CODES = {  # reason -> status code; also the self-metrics' outcome labels
    "malformed": grpc.StatusCode.INVALID_ARGUMENT,
    "unauthenticated": grpc.StatusCode.UNAUTHENTICATED,
    "too_large": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "overloaded": grpc.StatusCode.UNAVAILABLE,  # retryable per the OTLP spec
    "unavailable": grpc.StatusCode.UNAVAILABLE,
}


def _serialize(message: Any) -> bytes:
    data: bytes = message.SerializeToString()
    return data


def make_grpc_server(
    intake: Intake,
    address: str,
    credentials: grpc.ServerCredentials | None = None,
) -> grpc.Server:
    """A server bound to `address` ("host:port"), ready for `start()`."""
    limits = intake.limits

    def exporter(apply: Callable[[str, bytes, bytes], Any]) -> Callable[..., Any]:
        def export(request: bytes, context: grpc.ServicerContext) -> Any:
            try:
                auth = dict(context.invocation_metadata()).get("authorization")
                intake.check_token(auth if isinstance(auth, str) else None)
                if len(request) > limits.max_decompressed_bytes:
                    raise RequestError("too_large",
                                       f"message exceeds {limits.max_decompressed_bytes}")
                with intake.hold(len(request)), intake.admitted():
                    return apply("grpc", PROTOBUF, request)
            except RequestError as exc:
                intake.count_failure("grpc", exc.reason)
                context.abort(GRPC_CODES[exc.reason], str(exc))
        return export

    handlers = [
        grpc.method_handlers_generic_handler(service, {
            "Export": grpc.unary_unary_rpc_method_handler(exporter(apply),
                                                          response_serializer=_serialize)})
        for service, apply in ((SERVICE, intake.export), (LOGS_SERVICE, intake.export_logs))
    ]
    server = grpc.server(
        # each worker holds one inflated message: the pool bounds what grpcio keeps in memory
        futures.ThreadPoolExecutor(max_workers=limits.max_concurrent + 4,
                                   thread_name_prefix="agentcov-grpc"),
        handlers=handlers,
        options=[
            ("grpc.max_receive_message_length", limits.max_decompressed_bytes),
            ("grpc.so_reuseport", 0),
            # idle connections are closed and dead peers found: a client that connects and
            # never sends holds no connection for ever
            ("grpc.max_connection_idle_ms", int(limits.grpc_idle_s * 1000)),
            ("grpc.keepalive_time_ms", int(limits.grpc_idle_s * 1000)),
            ("grpc.keepalive_timeout_ms", 20_000),
        ],
    )
    if credentials is None:
        server.add_insecure_port(address)
    else:
        server.add_secure_port(address, credentials)
    return server
