"""The injectors' added cost per call when they inject nothing (docs/faults.md#safety).

A tool call through `@faults.tool` against the bare function, and a model call (a real HTTP
exchange with a local OpenAI-compatible server) through `FaultTransport` against httpx's own
transport: with no plan in force, and with a plan in force whose faults are spent (every call
consults it and takes nothing). Both configurations run interleaved in every round. And an MCP
`tools/call` over streamable HTTP to a real MCP server (tests/_mcp_server.py), direct and through
`agentcov faults mcp` with its plan spent.
"""

from __future__ import annotations

import asyncio
import io
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from fleet import free_port
from harness import Row, Section
from mcp import Client

from otel_agentcov import faults
from otel_agentcov.fault_families import TOOL
from otel_agentcov.faults.mcp import McpFaults
from otel_agentcov.faults.mcp_http import McpHttpProxy
from otel_agentcov.faults.transport import FaultTransport

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "record"))
from _common import FakeOpenAI, text  # noqa: E402

TOOL_CALLS = 20_000
MODEL_CALLS = 300
MCP_CALLS = 100
MCP_SERVER = Path(__file__).resolve().parents[1] / "tests" / "_mcp_server.py"


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


def mcp_calls(rounds: int) -> tuple[list[float], list[float]]:
    """ns per `tools/call` in one session each, direct and through the MCP fault proxy whose
    plan is spent, interleaved per round."""
    port = free_port()
    server = subprocess.Popen([sys.executable, str(MCP_SERVER), "http", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    plan = faults.parse("tool_exception:1")
    faults.plan.take_alone(plan, TOOL)
    proxy = McpHttpProxy(f"http://127.0.0.1:{port}", McpFaults(plan, log=io.StringIO()))
    threading.Thread(target=proxy.serve_forever, daemon=True).start()

    async def timed(client: Client) -> float:
        t0 = time.perf_counter_ns()
        for _ in range(MCP_CALLS):
            await client.call_tool("lookup_order", {"order_id": "42"})
        return (time.perf_counter_ns() - t0) / MCP_CALLS

    async def measure() -> tuple[list[float], list[float]]:
        direct: list[float] = []
        proxied: list[float] = []
        async with Client(f"http://127.0.0.1:{port}/mcp") as plain, \
                Client(f"{proxy.url}/mcp") as faulted:
            for client in (plain, faulted):  # warm: the session and the tool listing
                await client.call_tool("lookup_order", {"order_id": "42"})
            for _ in range(rounds):
                direct.append(await timed(plain))
                proxied.append(await timed(faulted))
        return direct, proxied

    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        return asyncio.run(measure())
    finally:
        proxy.shutdown()
        proxy.server_close()
        server.terminate()
        server.wait(timeout=10)


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
    mcp_direct, mcp_proxied = mcp_calls(rounds)

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
        Row("MCP tools/call, streamable HTTP, direct", mcp_direct, "ns/call"),
        Row("MCP tools/call, through agentcov faults mcp, plan spent", mcp_proxied, "ns/call"),
        Row("MCP tools/call with/without the proxy, plan spent", ratio(mcp_proxied, mcp_direct),
            "ratio"),
    ]
    notes = [
        f"{TOOL_CALLS} tool calls and {MODEL_CALLS} model calls (HTTP/1.1 keep-alive to a local "
        "fake OpenAI-compatible server) per configuration and round, all in one thread.",
        "`plan spent`: a plan in force whose faults were all taken, so each call arms a run of "
        "its own and finds nothing: the cost a suite pays on calls that draw no fault.",
        f"{MCP_CALLS} MCP `tools/call` per configuration and round, one session each, to a real "
        "MCP server (mcp's MCPServer) on 127.0.0.1; the proxy adds a loopback hop and reads "
        "each request's method.",
    ]
    return Section("Fault injectors (added cost per call, nothing injected)", rows, notes)
