"""What each scenario of the thirty-first held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_thirtyfirst/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
thirtyfirst` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, APP_LOOP_TOOL_ERROR_FAILS, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# Lilypad (record_lilypad.py): its `@trace` decorator on each agent run of the app-written tool
# loop (fixtures/record/_app_loop.py TracedApp), named after the agent, on each tool call, named
# after the tool, and on the request of `handoff` (`serve`, no agent); its own OpenAI instrumentor
# (`configure(auto_llm=True)`) on the app's `openai` client (each model call, with its model). A
# raising tool's error goes back to the model, which answers (two calls: the server's second
# orders request carried lookup_order's result); billing's run is inside the orchestrator's
# ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only answers), then
# billing, in one request of the app; the HTTP 500 fails the weather run on its one model call
# (one gpt-500 request). Lilypad's `@trace` records what a traced function raised as an event of
# its span and leaves the span's status unset (the failed lookup_order, the failed weather run):
# only its model-call span of the HTTP 500 ends in error. The app-level scenarios of
# fixture_expectations.APP_LOOP.
LILYPAD = APP_LOOP

# Humanloop's Python SDK (record_humanloop.py): its `@flow` on each agent run of the app-written
# tool loop (its path the agent's name) and on the request of `handoff` (`serve`, no agent), its
# `@tool` on each tool (its path the tool's name), its `@prompt` on the app's model call, which
# the OpenAI instrumentor Humanloop installs on the app's tracer provider spans (with its model).
# Humanloop's decorators catch what the function raises: a failed flow (agent run) answers None.
# lookup_order raised, and Humanloop's `@tool` (0.8.38) then fails itself on its way out (its
# wrapper returns a variable it never set for a raising function), raising an error of its own
# that is not the tool's, which the app's loop does not hand back to the model (it hands back a
# tool's own errors only): the orders run fails after its first model call (one orders request,
# carrying no tool result), the flow catching it. Billing's run is inside the orchestrator's
# ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only answers), then
# billing, in one request of the app; the HTTP 500 fails the weather run on its one model call
# (one gpt-500 request), the flow catching it. The app-level scenarios of
# fixture_expectations.APP_LOOP, but for tool_error: APP_LOOP_TOOL_ERROR_FAILS's.
HUMANLOOP = APP_LOOP_TOOL_ERROR_FAILS

EXPECTED: dict[str, dict[str, Scenario]] = {
    "lilypad": LILYPAD,
    "humanloop": HUMANLOOP,
}
