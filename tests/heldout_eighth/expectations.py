"""What each scenario of the eighth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_eighth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set eighth` scores replays
against these; the share is kept apart from the earlier held-out sets, which have been read while
the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). Step-level error types are left out: they are
not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, APP_LOOP_TOOL_ERROR_FAILS, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# Upsonic, Python (record_upsonic.py): each agent an Upsonic Agent named after it, on its own model,
# given a Task with its tools; Upsonic runs the tool loop and hands a tool's exception back to the
# model (its tool retries off: lookup_order ran once, and the server got its result), which
# answers: two calls. Billing runs inside the orchestrator's ask_billing tool (one billing-model
# request between the orchestrator's two); `handoff` runs triage (its transfer_to_billing tool
# only answers, then triage answers: two calls), then billing, in one request of the app (`serve`,
# a plain span, no agent); the HTTP 500 fails the weather run on its first model call (one
# request: the client's retries off). The app-level scenarios of fixture_expectations.APP_LOOP.
UPSONIC = APP_LOOP

# mcp-agent, Python (record_mcp_agent.py): each agent an mcp-agent Agent named after it with local
# function tools and an OpenAI augmented LLM asked once on its model; mcp-agent runs the tool loop
# and hands a tool's exception back to the model, which answers (two calls). Billing's agent runs
# inside the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool
# only answers), then billing, in one request of the app (`serve`, a plain span, no agent). The
# HTTP 500 fails the weather run on its one model call: mcp-agent ends the run there, marking its
# generation failed, and returns no answer (the app sees no exception); its OpenAI client's own
# retries sent that one call three times. The app-level scenarios of fixture_expectations.APP_LOOP.
MCP_AGENT = APP_LOOP

# llm-agent, TypeScript (node/record_llm_agent.mjs): each agent an llm-agent Agent named after it,
# on an llm-sdk OpenAI chat model of its model name, with its tools; llm-agent runs the tool loop.
# A tool that throws interrupts the run (llm-agent does not hand the error back): lookup_order fails
# the orders run after its one model call (the server got one orders-model request). Billing's
# agent runs inside the orchestrator's ask_billing tool; `handoff` runs triage (its
# transfer_to_billing tool only answers, then triage answers: two calls), then billing, in one
# request of the app (`serve`, a plain span, no agent); the HTTP 500 fails the weather run on its
# one model call, which the OpenAI client's own retries sent three times.
LLM_AGENT = APP_LOOP_TOOL_ERROR_FAILS

EXPECTED: dict[str, dict[str, Scenario]] = {
    "llm_agent": LLM_AGENT,
    "mcp_agent": MCP_AGENT,
    "upsonic": UPSONIC,
}
