"""`agentcov faults mcp`: a plan's tool faults on the `tools/call` requests an MCP client sends
its server, whichever transport carries them (`mcp_stdio`, `mcp_http`; docs/faults.md#mcp).

The client's tool span belongs to its own instrumentation, in another process, so the proxy
does for a faulted call what the MCP server's instrumentation does for every call: a
`tools/call <tool>` SERVER span, joined to the client's trace through the W3C trace context the
client put in the request's `_meta`, here carrying the fault's mark (family, plan, seed). The
server never sees that call, so it is the call's only server span. Like the HTTP proxy's header,
the mark also rides in the answer (`_meta` or the error's `data`, key `agentcov/fault`) and in one
line per fault on stderr. Of a request only the method, id, tool name and trace context are read.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, TextIO

from opentelemetry import trace
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode

from ..exporters.otlp_file import OTLPFileSpanExporter
from ..fault_families import FAMILY_ATTRIBUTE, PLAN_ATTRIBUTE, SEED_ATTRIBUTE, TOOL
from . import plan
from .plan import Plan
from .tools import ERROR_RESULT, MALFORMED_RESULT

FAULT_META = "agentcov/fault"  # the `_meta` / error `data` key the mark rides in
RPC_INTERNAL_ERROR = -32603  # JSON-RPC's: what a server answers when the tool raised
RPC_REQUEST_TIMEOUT = -32001  # the MCP SDKs' code for a request that got no answer in time
DEFAULT_HOLD_S = 30.0  # how long a `tool_timeout` fault leaves a call unanswered
# a final result: required from protocol 2026-07-28 on, an extra key the older ones let pass
_RESULT = {"resultType": "complete"}
SERVICE = "agentcov-faults-mcp"  # the proxy's spans' service.name


def file_tracer(path: str | os.PathLike[str]) -> trace.Tracer:
    """A tracer whose spans are written to `path` (OTLP protobuf) as each ends: a stdio proxy
    is stopped by its client, with no chance to flush a batch."""
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPFileSpanExporter(path)))
    return provider.get_tracer("otel_agentcov.faults.mcp")


def parse_message(data: bytes) -> Any:
    """A JSON-RPC message as read off the wire; None when it is not JSON (relayed as it is:
    the server answers it)."""
    try:
        return json.loads(data)
    except ValueError:
        return None


@dataclass
class Fault:
    """One faulted `tools/call`: what it carries, and the span standing in for the server's."""

    family: str
    request_id: Any
    mark: str
    span: trace.Span | None


class McpFaults:
    """A plan's tool faults for one proxy: each `tools/call` is a run of its own (`take_alone`),
    so the same plan and seed fault the same calls, in the order they arrive."""

    def __init__(self, fault_plan: Plan, tracer: trace.Tracer | None = None,
                 hold_s: float = DEFAULT_HOLD_S, log: TextIO = sys.stderr) -> None:
        self.plan = fault_plan
        self.tracer = tracer
        self.hold_s = hold_s
        self.log = log
        self._lock = threading.Lock()  # the plan's schedule is one sequence across threads
        self._held: set[str] = set()  # ids of `tool_timeout` calls not answered yet
        self._cancelled: set[str] = set()

    def take(self, message: object) -> Fault | None:
        """The fault a client's message carries: only a `tools/call` request can carry one."""
        if not (isinstance(message, dict) and message.get("method") == "tools/call"
                and "id" in message):
            return None
        with self._lock:
            taken = plan.take_alone(self.plan, TOOL)
        if taken is None:
            return None
        family = taken[0]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        name = params.get("name") if isinstance(params.get("name"), str) else None
        fault = Fault(family, message["id"], plan.mark_line(family, self.plan),
                      self._span(message["id"], name, params.get("_meta")))
        if family == "tool_timeout":
            with self._lock:
                self._held.add(repr(fault.request_id))
        print(f"agentcov faults mcp: injected {family}", file=self.log, flush=True)
        return fault

    def _span(self, request_id: object, name: str | None, meta: object) -> trace.Span | None:
        """The server span of the faulted call, when the request carries a trace context to
        join (a span of a trace of its own would belong to no agent's run)."""
        if self.tracer is None or not isinstance(meta, dict):
            return None
        try:
            context = extract({k: v for k, v in meta.items() if isinstance(v, str)})
        except (ValueError, TypeError):
            return None
        if not trace.get_current_span(context).get_span_context().is_valid:
            return None
        attributes: dict[str, str] = {"mcp.method.name": "tools/call",
                                      "jsonrpc.request.id": str(request_id),
                                      "gen_ai.operation.name": "execute_tool"}
        if name is not None:
            attributes["gen_ai.tool.name"] = name
        return self.tracer.start_span(f"tools/call{f' {name}' if name else ''}", context=context,
                                      kind=SpanKind.SERVER, attributes=attributes)

    def drops(self, message: object) -> bool:
        """A client's cancellation of a call the proxy holds: the server never saw that call,
        so the notification stops here (and the call gets no answer)."""
        if not (isinstance(message, dict) and message.get("method") == "notifications/cancelled"
                and isinstance(message.get("params"), dict)):
            return False
        key = repr(message["params"].get("requestId"))
        with self._lock:
            if key not in self._held:
                return False
            self._cancelled.add(key)
        return True

    def answer(self, fault: Fault) -> dict[str, Any] | None:
        """The JSON-RPC response the fault gives in place of the server's, the span marked and
        ended; None for a held call the client cancelled meanwhile."""
        key = repr(fault.request_id)
        with self._lock:
            self._held.discard(key)
            cancelled = key in self._cancelled
            self._cancelled.discard(key)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": fault.request_id}
        error_type: str | None
        if fault.family in ("tool_exception", "tool_timeout"):
            code = RPC_INTERNAL_ERROR if fault.family == "tool_exception" else RPC_REQUEST_TIMEOUT
            message["error"] = {"code": code, "message": f"agentcov injected fault {fault.family}",
                                "data": {FAULT_META: fault.mark}}
            error_type = str(code)
        elif fault.family == "tool_error_result":
            message["result"] = {"content": [{"type": "text", "text": ERROR_RESULT}],
                                 "isError": True, **_RESULT, "_meta": {FAULT_META: fault.mark}}
            error_type = "tool_error"  # what the MCP SDK's server span says of an isError result
        else:  # tool_malformed: `content` is not a list of blocks; the client's to notice
            message["result"] = {"content": MALFORMED_RESULT, **_RESULT,
                                 "_meta": {FAULT_META: fault.mark}}
            error_type = None
        self._end(fault, error_type)
        return None if cancelled else message

    def _end(self, fault: Fault, error_type: str | None) -> None:
        span = fault.span
        if span is None:
            return
        span.set_attributes({FAMILY_ATTRIBUTE: fault.family, PLAN_ATTRIBUTE: self.plan.name,
                             SEED_ATTRIBUTE: self.plan.seed})
        if error_type is not None:
            span.set_attributes({"error.type": error_type})
            span.set_status(Status(StatusCode.ERROR))
        span.end()
