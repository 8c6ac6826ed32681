"""What each scenario of the twelfth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_twelfth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set twelfth` scores replays
against these; the share is kept apart from the earlier held-out sets, which have been read while
the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off, or none on model calls). Step-level error types are
left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, Scenario, without_models, without_tools

FIXTURES = Path(__file__).parent / "fixtures"




# Google's ADK for Go (go/record_adk_go.go): each agent an ADK llmagent named after it on ADK's
# Gemini model of its model name, with its functiontools, run by a runner on an in-memory session
# service; ADK runs the tool loop, tracing on the provider its own telemetry package set up.
# lookup_order returned an error and ADK handed it back to the model as the tool's response (the
# server got it), which answers: two calls; the tool failed. Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span, no agent). The HTTP
# 500 fails the weather run on its one model call (one gpt-500 request: the genai client retries
# no model call). The app-level scenarios of fixture_expectations.APP_LOOP.
ADK_GO = APP_LOOP

# fast-agent, Python (record_fast_agent.py): each agent run one fast-agent application of that
# agent (`@fast.agent`, named after it) on the generic OpenAI-compatible provider, with its plain
# functions as function tools; fast-agent runs the tool loop and hands a raising tool's error back
# to the model, which answers (two calls). Billing's run (an application of its own) is inside
# the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span, no agent). The HTTP
# 500 ends fast-agent's turn with an error reply, not an exception (one gpt-500 request: its
# retries and the OpenAI client's off); the app fails the run on that reply, inside the
# application's run. fast-agent spans MCP tool calls but no function tool call of its own: the
# tool calls (and lookup_order's error) are told only by the model calls' recorded requests and
# replies (its OpenAI instrumentation's), never by a span of the tool. The app-level scenarios of
# fixture_expectations.APP_LOOP, what the app did, less the tool calls: as for the earlier shares'
# stacks that leave a call without a span (heldout_fourth's traceloop_node, openai_v2), nothing
# executed can count them, so no tool (nor lookup_order's tool_failure) is expected; the hand-off
# and the delegation stay, as runs and model calls tell them.
FAST_AGENT = without_tools(APP_LOOP)

# Patronus, Python (record_patronus.py): `@patronus.traced` around the app-written tool loop of
# fixtures/record/_app_loop.py TracedApp: each agent run a span named after the agent, each tool
# call one named after the tool, the request of `handoff` one named `serve` (no agent), each
# model call the app's `chat_completion` function traced the same way. A raising tool's error
# goes back to the model, which answers (two calls); the HTTP 500 fails the weather run on its
# first model call. Patronus puts a traced function's arguments and result in log records, not
# on its span (the spans carry the project and app only, the log records are not recorded): no
# span tells the model a call was made with, so no model is expected anywhere.
PATRONUS = without_models(APP_LOOP)

EXPECTED: dict[str, dict[str, Scenario]] = {
    "adk_go": ADK_GO,
    "fast_agent": FAST_AGENT,
    "patronus": PATRONUS,
}
