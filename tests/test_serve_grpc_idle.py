"""Idle gRPC connections are closed (issue 29, low items): before, a client that connected and
went quiet held its connection for ever. A real grpcio channel against a real service whose
idle limit is 1 s: the server's GOAWAY turns the channel from READY back to IDLE."""

from __future__ import annotations

import time

import grpc
from _support import free_port

from otel_agentcov import CoverageSpec
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.service import ServeConfig, Service
from otel_agentcov.service.intake import RequestLimits

EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _idle_after_ready(states: list[grpc.ChannelConnectivity]) -> bool:
    """The connection was up, then the server closed it (the channel went back to IDLE)."""
    ready = grpc.ChannelConnectivity.READY
    return ready in states and grpc.ChannelConnectivity.IDLE in states[states.index(ready) + 1:]


def test_an_idle_grpc_connection_is_closed() -> None:
    port = free_port()
    svc = Service(ServeConfig(spec=CoverageSpec.from_dict(DEMO_SPEC), otlp_grpc=port,
                              otlp_http=0, metrics=free_port(),
                              limits=RequestLimits(grpc_idle_s=1.0)))
    svc.start()
    states: list[grpc.ChannelConnectivity] = []
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        channel.subscribe(states.append, try_to_connect=True)
        assert channel.unary_unary(EXPORT)(b"", timeout=10) == b""  # an empty export
        deadline = time.monotonic() + 20
        # the channel's states reach the callback on grpc's own thread, the first (IDLE, before
        # connecting) possibly after the call returned: wait for IDLE after READY itself
        while time.monotonic() < deadline and not _idle_after_ready(list(states)):
            time.sleep(0.1)
        assert _idle_after_ready(list(states)), states
    finally:
        channel.close()
        svc.stop()
    assert RequestLimits().grpc_idle_s == 300.0  # the default docs/guarantees.md states
