"""`agentcov faults mcp` between the real MCP SDK's client and a small real server (mcp 2.x's
MCPServer, tests/_mcp_server.py), over stdio and streamable HTTP, offline (docs/faults.md#mcp).

Each tool family gets its answer in place of the server's; the faulted call's span, written by
the proxy and joined to the client's trace through `_meta`, carries the mark, so coverage over
the client's spans and the proxy's counts the hits as provoked, and tells the runs the agent
recovered from those it did not. Nothing of the arguments or results reaches the proxy's output.
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _support import free_port
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from opentelemetry import trace
from opentelemetry.propagate import inject
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from otel_agentcov import faults
from otel_agentcov.cli import main
from otel_agentcov.fake_openai import FakeOpenAI
from otel_agentcov.faults.mcp import FAULT_META, McpFaults, file_tracer
from otel_agentcov.faults.mcp_http import McpHttpProxy

HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, str(HERE / "_mcp_server.py")]
AGENT = [sys.executable, str(HERE / "_mcp_agent.py")]
PROXY = [sys.executable, "-m", "otel_agentcov.cli", "faults", "mcp"]
TOOL_FAMILIES = "tool_exception,tool_error_result,tool_malformed,tool_timeout"
PLAN = f"{TOOL_FAMILIES}:5"
ARGS = {"order_id": "CANARY-ARG-8d21"}


def _call(request_id: int, meta: dict[str, str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "lookup_order", "arguments": ARGS}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def _five_calls(client: Client) -> list[Any]:
    out: list[Any] = []
    for _ in range(5):
        try:
            result = await client.call_tool("lookup_order", ARGS)
        except Exception as exc:  # noqa: BLE001 - what each fault makes of the call is the point
            code = getattr(getattr(exc, "error", None), "code", None)
            out.append((type(exc).__name__, code))
        else:
            text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
            out.append((result.is_error, "CANARY-RESULT" in text,
                        (result.meta or {}).get(FAULT_META)))
    return out


def test_stdio_each_tool_family_answers_in_place_of_the_server() -> None:
    """The client starts the proxy as its server command; the proxy starts the real server."""
    params = StdioServerParameters(command=PROXY[0], args=[
        *PROXY[1:], "--plan", PLAN, "--hold", "0.3", "--", *SERVER])

    async def run() -> list[Any]:
        async with Client(params) as client:
            return await _five_calls(client)

    outcomes = asyncio.run(run())
    assert outcomes == [
        ("MCPError", -32603),  # tool_exception: JSON-RPC's internal error
        (True, False, f"tool_error_result; plan={TOOL_FAMILIES}; seed=5"),  # isError, marked
        ("ValidationError", None),  # tool_malformed: `content` is no list of blocks
        ("MCPError", -32001),  # tool_timeout: held 0.3 s, then answered as timed out
        (False, True, None),  # the plan is spent: the server's own answer
    ]


def test_faulted_calls_join_the_callers_trace_marked_with_no_content() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    log = io.StringIO()
    mcp_faults = McpFaults(faults.parse("tool_error_result,tool_exception:2"),
                           provider.get_tracer("t"), log=log)
    caller = provider.get_tracer("client").start_span("MCP send tools/call lookup_order")
    meta: dict[str, str] = {}
    inject(meta, context=trace.set_span_in_context(caller))
    answers = [mcp_faults.answer(f) for f in (mcp_faults.take(_call(1, meta)),
                                              mcp_faults.take(_call(2))) if f is not None]
    assert mcp_faults.take(_call(3, meta)) is None  # spent
    assert mcp_faults.take({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}) is None
    assert [a["id"] for a in answers] == [1, 2]  # type: ignore[index]
    assert answers[1]["error"]["code"] == -32603  # type: ignore[index]
    # only the call that carried a trace context has a span (no phantom run of its own)
    [span] = exporter.get_finished_spans()
    assert span.name == "tools/call lookup_order"
    assert span.parent is not None and span.parent.span_id == caller.get_span_context().span_id
    assert span.parent.is_remote and span.kind == trace.SpanKind.SERVER
    assert dict(span.attributes or {}) == {
        "mcp.method.name": "tools/call", "jsonrpc.request.id": "1",
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup_order",
        "agentcov.fault.family": "tool_error_result",
        "agentcov.fault.plan": "tool_error_result,tool_exception", "agentcov.fault.seed": 2,
        "error.type": "tool_error"}
    assert span.status.status_code == StatusCode.ERROR
    assert log.getvalue() == ("agentcov faults mcp: injected tool_error_result\n"
                              "agentcov faults mcp: injected tool_exception\n")
    assert "CANARY" not in log.getvalue() + repr(span.to_json())


def test_a_cancelled_held_call_stops_at_the_proxy_and_gets_no_answer() -> None:
    mcp_faults = McpFaults(faults.parse("tool_timeout:1"), hold_s=0)
    fault = mcp_faults.take(_call(7))
    assert fault is not None and fault.family == "tool_timeout"
    other = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8}}
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    assert not mcp_faults.drops(other)  # a call the server has: the server hears of it
    assert mcp_faults.drops(cancel)
    assert mcp_faults.answer(fault) is None


def test_the_same_seed_faults_the_same_calls() -> None:
    def sequence(seed: int) -> list[str | None]:
        mcp_faults = McpFaults(faults.parse(f"chaos:{seed}"), log=io.StringIO())
        taken = [mcp_faults.take(_call(i)) for i in range(40)]
        return [f.family if f is not None else None for f in taken]

    first = sequence(9)
    assert first == sequence(9) and any(first)
    assert set(first) - {None} <= set(TOOL_FAMILIES.split(","))  # chaos at the tool seam only


@pytest.mark.parametrize("argv, problem", [
    (["faults", "mcp"], "give the MCP server as --upstream URL or as `-- COMMAND...`, one of "
     "the two"),
    (["faults", "mcp", "--upstream", "http://127.0.0.1:9", "--", "server"],
     "give the MCP server as --upstream URL or as `-- COMMAND...`, one of the two"),
    (["faults", "proxy", "--upstream", "http://127.0.0.1:9", "--", "server"],
     "a server command and --traces-out are for `agentcov faults mcp`"),
    (["faults", "proxy"], "--upstream URL is required"),
])
def test_the_mcp_command_line_is_checked(argv: list[str], problem: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    command = " ".join(argv[:2])
    assert capsys.readouterr().err == f"agentcov: agentcov {command}: {problem}\n"


def test_the_mcp_proxy_refuses_under_the_production_flag(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("AGENTCOV_PRODUCTION", "1")
    assert main(["faults", "mcp", "--", "true"]) == 2
    assert capsys.readouterr().err == (
        "agentcov: agentcov faults mcp: fault injection refused: AGENTCOV_PRODUCTION is set\n")


@pytest.fixture(scope="module")
def model() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _wait_for(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture
def http_server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([*SERVER, "http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        _wait_for(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _agent(tmp_path: Path, model: FakeOpenAI, *target: str) -> list[str]:
    done = subprocess.run([*AGENT, str(tmp_path / "client.pb"), model.base_url, "5", "strict",
                           *target], capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "CANARY" not in done.stderr  # the proxy's lines, over stdio, land here
    return list(json.loads(done.stdout))


def _coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The proxy's file first: its spans end before the client's run does, as they reach
    `agentcov serve`."""
    capsys.readouterr()
    assert main(["coverage", "--format", "json", str(tmp_path / "proxy.pb"),
                 str(tmp_path / "client.pb")]) == 0
    out = capsys.readouterr().out
    assert "CANARY" not in out and b"CANARY" not in (tmp_path / "proxy.pb").read_bytes()
    return dict(json.loads(out)["agents"])


def _assert_provoked_and_recovered(agents: dict[str, Any]) -> None:
    """By hand: one call a run, faulted in plan order; the strict agent ends the run on a
    raised call (exception, malformed, timeout) and tells the model of an isError result."""
    assert set(agents) == {"support"}  # the proxy's spans joined the runs: no agent of theirs
    report = agents["support"]["faults"]
    assert (report["runs"], report["recovered"], report["failed"]) == (4, 1, 3)
    assert {f: (r["injected"], r["hit"], r["recovered"], r["failed"])
            for f, r in report["families"].items()} == {
        "tool_exception": (1, 1, 0, 1), "tool_error_result": (1, 1, 1, 0),
        "tool_malformed": (1, 1, 0, 1), "tool_timeout": (1, 1, 0, 1)}
    assert report["conditions"]["tool_failure"] == {"hits": 4, "provoked": 4, "natural": 0}
    assert report["conditions"]["error_path"] == {"hits": 3, "provoked": 3, "natural": 0}
    assert report["tools"] == {"lookup_order": {"failed": 4, "recovered": 1}}


@pytest.mark.slow
def test_an_agent_over_stdio_through_the_proxy(
        tmp_path: Path, model: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    proxy = [*PROXY, "--plan", PLAN, "--hold", "0.3", "--traces-out",
             str(tmp_path / "proxy.pb"), "--", *SERVER]
    outcomes = _agent(tmp_path, model, "stdio", *proxy)
    assert outcomes == ["UserError", "ok", "AgentsException", "UserError", "ok"]
    _assert_provoked_and_recovered(_coverage(tmp_path, capsys))


@pytest.mark.slow
def test_an_agent_over_streamable_http_through_the_proxy(
        tmp_path: Path, model: FakeOpenAI, http_server: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    log = io.StringIO()
    mcp_faults = McpFaults(faults.parse(PLAN), file_tracer(tmp_path / "proxy.pb"), hold_s=0.3,
                           log=log)
    proxy = McpHttpProxy(http_server, mcp_faults)
    assert proxy.server_address[0] == "127.0.0.1"
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        outcomes = _agent(tmp_path, model, "http", f"{proxy.url}/mcp")
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert outcomes == ["UserError", "ok", "AgentsException", "UserError", "ok"]
    assert log.getvalue().count("injected") == 4 and "CANARY" not in log.getvalue()
    _assert_provoked_and_recovered(_coverage(tmp_path, capsys))
