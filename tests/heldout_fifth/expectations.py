"""What each scenario of the fifth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_fifth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received, never from the product's output.
`benchmarks/heldout.py --set fifth` scores replays against these; the share is kept apart from
the four earlier held-out sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). Each recorder turns the stack's transport
retries off, so one model call is one request. Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, APP_LOOP_TOOL_ERROR_FAILS, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# Ax (node/record_ax.mjs, TypeScript): each agent an Ax program labelled with its name, on its own
# model, Ax running the tool loop. Ax does not hand a function's plain exception back to the
# model: lookup_order fails the orders run after one model call. Billing runs inside the
# orchestrator's ask_billing function; `handoff` runs triage (its transfer_to_billing function
# only answers, then triage answers: two calls), then billing, in one request of the app (`serve`,
# a plain span, no agent); the HTTP 500 fails the weather run on its first model call.
AX = APP_LOOP_TOOL_ERROR_FAILS

# Spring AI (java/src/main/java/fixture/Record.java): each agent run a ChatClient call on the
# agent's model with its @Tool methods, observed by the app under the agent's name; Spring AI hands
# a tool's exception back to the model (its default), which answers. Billing runs inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request (`serve`, an observation of the app, no agent); the HTTP
# 500 fails the weather run on its first model call. The app-level scenarios of
# fixture_expectations.APP_LOOP.
SPRING_AI = APP_LOOP

# LiveKit Agents (record_livekit.py): each agent an Agent subclass whose id is its name, in a
# text-only AgentSession, one user turn per session; LiveKit hands a tool's exception back to the
# model, which answers. Billing runs inside the orchestrator's ask_billing tool (a session of its
# own); in `handoff` triage's transfer_to_billing tool returns the billing agent, LiveKit's
# handoff: triage's model answers the tool's result (two calls) and billing, on entering, answers
# once; the HTTP 500 fails the weather run on its first model call. The app-level scenarios of
# fixture_expectations.APP_LOOP.
LIVEKIT = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "ax": AX,
    "livekit": LIVEKIT,
    "spring_ai": SPRING_AI,
}
