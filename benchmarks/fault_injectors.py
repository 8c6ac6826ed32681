"""The injectors' added cost per call when they inject nothing (docs/faults.md#safety).

A tool call through `@faults.tool` against the bare function, and a model call (a real HTTP
exchange with a local OpenAI-compatible server) through `FaultTransport` against httpx's own
transport: with no plan in force, and with a plan in force whose faults are spent (every call
consults it and takes nothing). Both configurations run interleaved in every round.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from harness import Row, Section

from otel_agentcov import faults
from otel_agentcov.fault_families import TOOL
from otel_agentcov.faults.transport import FaultTransport

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "record"))
from _common import FakeOpenAI, text  # noqa: E402

TOOL_CALLS = 20_000
MODEL_CALLS = 300


def lookup(order_id: str) -> str:
    """A small tool: formats a JSON answer (about a microsecond)."""
    return json.dumps({"order": order_id, "status": "shipped"})


def per_call(call: Callable[[], object], n: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(n):
        call()
    return (time.perf_counter_ns() - t0) / n


def spent_plan() -> faults.Plan:
    """A plan in force whose one fault is already taken: every call consults it for nothing."""
    plan = faults.enable("tool_exception:1")
    faults.plan.take_alone(plan, TOOL)
    return plan


def section(rounds: int) -> Section:
    wrapped = faults.tool(lookup)
    bare_tool: list[float] = []
    off_tool: list[float] = []
    on_tool: list[float] = []
    bare_model: list[float] = []
    off_model: list[float] = []
    on_model: list[float] = []
    with FakeOpenAI(lambda body: text(body["model"], "ok")) as server:
        url = f"{server.base_url}/chat/completions"
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
        plain = httpx.Client(transport=httpx.HTTPTransport())
        injected = httpx.Client(transport=FaultTransport())
        for client in (plain, injected):  # warm connections
            client.post(url, json=body)
        for _ in range(rounds):
            bare_tool.append(per_call(lambda: lookup("42"), TOOL_CALLS))
            off_tool.append(per_call(lambda: wrapped("42"), TOOL_CALLS))
            bare_model.append(per_call(lambda: plain.post(url, json=body), MODEL_CALLS))
            off_model.append(per_call(lambda: injected.post(url, json=body), MODEL_CALLS))
            spent_plan()
            on_tool.append(per_call(lambda: wrapped("42"), TOOL_CALLS))
            on_model.append(per_call(lambda: injected.post(url, json=body), MODEL_CALLS))
            faults.disable()
        plain.close()
        injected.close()

    def ratio(a: list[float], b: list[float]) -> list[float]:
        return [x / y for x, y in zip(a, b, strict=True)]

    rows = [
        Row("tool call, bare", bare_tool, "ns/call"),
        Row("tool call, @faults.tool, no plan", off_tool, "ns/call"),
        Row("tool call, @faults.tool, plan spent", on_tool, "ns/call"),
        Row("tool call with/without wrapper, no plan", ratio(off_tool, bare_tool), "ratio"),
        Row("tool call with/without wrapper, plan spent", ratio(on_tool, bare_tool), "ratio"),
        Row("model call, httpx transport", bare_model, "ns/call"),
        Row("model call, FaultTransport, no plan", off_model, "ns/call"),
        Row("model call, FaultTransport, plan spent", on_model, "ns/call"),
        Row("model call with/without FaultTransport, no plan", ratio(off_model, bare_model),
            "ratio"),
        Row("model call with/without FaultTransport, plan spent", ratio(on_model, bare_model),
            "ratio"),
    ]
    notes = [
        f"{TOOL_CALLS} tool calls and {MODEL_CALLS} model calls (HTTP/1.1 keep-alive to a local "
        "fake OpenAI-compatible server) per configuration and round, all in one thread.",
        "`plan spent`: a plan in force whose faults were all taken, so each call arms a run of "
        "its own and finds nothing: the cost a suite pays on calls that draw no fault.",
    ]
    return Section("Fault injectors (added cost per call, nothing injected)", rows, notes)
