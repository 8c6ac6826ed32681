"""What each scenario of the twenty-third held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_twentythird/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set twentythird` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b, without_models

FIXTURES = Path(__file__).parent / "fixtures"

# OpenAI's Codex CLI (record_codex.py): each agent run one `codex exec` process on the agent's
# model (the Responses API), its tools a stdio MCP server of the app's (offered to the model in
# the namespace `mcp__app`), Codex running the tool loop and tracing it itself. Codex names no
# agent: the app runs each agent in a Codex home of its own whose telemetry `environment` is the
# agent's name, so the agents are expected by those names. lookup_order raised and Codex handed
# its error back to the model (the server got the tool result), which answers: two calls; the
# tool failed. Billing's run is inside the orchestrator's ask_billing tool, run by the tool
# server: Codex hands the trace context to its MCP calls, the `mcp` library's span of the
# server's side is a child of Codex's call, and billing's process starts under it (TRACEPARENT),
# so billing's run sits inside the orchestrator's tool call. `handoff` runs triage (its
# transfer_to_billing tool only answers), then billing, in one request of the app (`serve`, a
# plain span, handed to each process as TRACEPARENT). The HTTP 500 scenario is not recorded:
# Codex exits on the failed turn without flushing its exporters, so it exports no span of that
# run (the recorder runs it and checks that, one gpt-500 request).
CODEX = {name: scenario for name, scenario in APP_LOOP.items() if name != "http_500"}

# Apache Camel's LangChain4j agent component (java/src/main/java/fixture/
# record_camel_langchain4j_agent.java): each agent a `langchain4j-agent` endpoint named after it on
# an AgentWithoutMemory over LangChain4j's OpenAI chat model (its retries off), its tools Camel
# routes (`langchain4j-tools` consumers found by the endpoint's tags); LangChain4j runs the tool
# loop, Camel traces the exchanges (camel-opentelemetry2). Each scenario is one request of the app,
# a direct route named after it (no agent). Camel spans its endpoints and routes only: no span
# tells a model call or its model (LangChain4j's calls are not Camel exchanges), so neither LLM
# calls nor models are expected; the tool calls are route exchanges, spanned. lookup_order's
# route raised: LangChain4j still handed a result back to the model, which answered (two
# orders-model requests), but the route's exception stayed on the exchange Camel shares with the
# agent's endpoint, so the orders run, and the app's request, failed (the app caught it): the
# tool failed and the run failed. Billing's run is inside the orchestrator's ask_billing tool (a
# route that calls billing's endpoint); `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request. The HTTP 500 fails the weather run on its one model
# call (one gpt-500 request).
CAMEL_LANGCHAIN4J_AGENT = {
    name: replace(scenario, agents={agent: replace(a, llm=0)
                                    for agent, a in scenario.agents.items()})
    for name, scenario in without_models({**APP_LOOP, "tool_error": Scenario(
        {"orders": A(errors=1, tools={"lookup_order": (0, 1)},
                     boundaries=b("tool_failure", "error_path"))})}).items()}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "codex": CODEX,
    "camel_langchain4j_agent": CAMEL_LANGCHAIN4J_AGENT,
}
