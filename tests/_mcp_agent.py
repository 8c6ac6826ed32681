"""An OpenAI Agents SDK agent whose tool lives on an MCP server, run as its own process for the
MCP fault proxy's tests:
`python _mcp_agent.py TRACES BASE_URL RUNS POLICY (stdio CMD... | http URL)`.

The agent side is traced by the OpenInference bridge, the MCP client by mcp 2.x itself (on the
global provider), both into TRACES (OTLP protobuf); the model is the scripted fake server at
BASE_URL. POLICY `lenient` is the SDK's default (a failed MCP call is told to the model, which
answers), `strict` lets it end the run (`failure_error_function=None`). One MCP session serves all
RUNS runs, so the proxy's plan goes on across them. Prints
each run's outcome ("ok" or the exception's class name) as a JSON list.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_trace_processors
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from openai import AsyncOpenAI
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from otel_agentcov.exporters.otlp_file import OTLPFileSpanExporter


async def main(traces: str, base_url: str, runs: int, policy: str, transport: str,
               target: list[str]) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "support-app"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPFileSpanExporter(traces)))
    trace.set_tracer_provider(provider)  # mcp traces its client requests on the global one
    set_trace_processors([])
    OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
    model = OpenAIChatCompletionsModel(
        model="gpt-4o-mini", openai_client=AsyncOpenAI(base_url=base_url, api_key="x"))
    options: dict[str, Any] = {"name": "orders", "client_session_timeout_seconds": 10}
    if policy == "strict":
        options["failure_error_function"] = None
    server: Any
    if transport == "stdio":
        server = MCPServerStdio(params={"command": target[0], "args": target[1:]}, **options)
    else:
        server = MCPServerStreamableHttp(params={"url": target[0]}, **options)
    outcomes = []
    async with server:
        agent = Agent(name="support", mcp_servers=[server], model=model)
        for _ in range(runs):
            try:
                await Runner.run(agent, "CANARY-PROMPT-3a1c where is order 42?")
                outcomes.append("ok")
            except Exception as exc:  # noqa: BLE001 - the injected faults are the point
                outcomes.append(type(exc).__name__)
    provider.shutdown()
    print(json.dumps(outcomes))


if __name__ == "__main__":
    traces, base_url, runs, policy, transport, *target = sys.argv[1:]
    asyncio.run(main(traces, base_url, int(runs), policy, transport, target))
