"""What each scenario of the nineteenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_nineteenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set nineteenth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off). Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import (
    APP_LOOP,
    APP_LOOP_TOOL_ERROR_FAILS,
    Scenario,
    without_models,
    without_tools,
)

FIXTURES = Path(__file__).parent / "fixtures"

# tRPC-Agent-Go (go/record_trpc_agent_go.go): each agent an llmagent named after it on the
# framework's OpenAI model of its model name (openai-go's retries off, no streaming), with its
# function tools, run by a runner; the framework runs the tool loop, tracing on the OTel SDK
# provider its own telemetry/trace package installed. lookup_order returned an error and the
# framework handed it back to the model as the tool's result (the server got it), which answers:
# two calls; the tool failed. When the model asks for two tools in one turn (two_tools) the
# framework runs them together and traces that batch as well as each tool: two tool calls
# happened, not three. Billing's run is inside the orchestrator's ask_billing tool; `handoff`
# runs triage (its transfer_to_billing tool only answers), then billing, in one request of the
# app (`serve`, a plain span, no agent). The HTTP 500 fails the weather run on its one model call
# (one gpt-500 request). The app-level scenarios of fixture_expectations.APP_LOOP.
TRPC_AGENT_GO = APP_LOOP

# LangGraph4j, Java (java/src/main/java/fixture/record_langgraph4j.java): each agent run one
# invocation of LangGraph4j's prebuilt ReAct agent graph (core's `Agent.builder()`: the `agent` node
# calls langchain4j's OpenAI model, the `action` node's edge runs the tools the model asked for
# through LangGraph4j's langchain4j tool service, until the model answers), traced by LangGraph4j's
# own OpenTelemetry hooks: a group span per run named after the agent, a span per node and edge it
# evaluated. Its tool service does not catch a tool's exception: lookup_order's fails the orders run
# after its first model call (one orders-model request, no result sent back), as
# APP_LOOP_TOOL_ERROR_FAILS says. Billing's run is inside the orchestrator's ask_billing tool;
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing, in one request of
# the app (`serve`, a plain span, no agent). The HTTP 500 fails the weather run on its one model
# call (one gpt-500 request: langchain4j's retries off). What the hooks leave out, nothing can
# count: no span names the model a call was made with (the spans carry the node or edge, the run's
# config and the graph's state, which holds no model), so no model is expected; the tools run inside
# the span of the `action` edge, with no span of a tool call of their own, so, as for the earlier
# shares' stacks that leave a call without a span (heldout_twelfth's fast_agent), no tool (nor
# lookup_order's tool_failure) is expected; the hand-off and the delegation stay, as runs and model
# calls tell them. The hooks mark no failure either (a node whose action failed is ended as a
# success, an edge whose action failed without a status; only the `end` event is missing): both
# failures are expected all the same, they are what happened.
LANGGRAPH4J = without_models(without_tools(APP_LOOP_TOOL_ERROR_FAILS))

EXPECTED: dict[str, dict[str, Scenario]] = {
    "trpc_agent_go": TRPC_AGENT_GO,
    "langgraph4j": LANGGRAPH4J,
}
