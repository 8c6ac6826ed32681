"""What each scenario of the eighteenth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_eighteenth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set eighteenth` scores
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

from fixture_expectations import APP_LOOP, A, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# Strands Agents for TypeScript (node/record_strands_js.mjs): each agent a Strands Agent named after
# it on Strands' OpenAIModel (chat completions, always streamed) of its model name, with its
# FunctionTools; Strands runs the tool loop and hands a raising tool's error back to the model,
# which answers (two calls). Billing's run is inside the orchestrator's ask_billing tool;
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing, in one request
# of the app (`serve`, a plain span, no agent); the HTTP 500 fails the weather run on its one
# model call. Odd: in `two_tools` the weather model asks for get_weather and get_time at once
# (two tool calls streamed in chunks of their own), and Strands' chat stream adapter keeps only
# the last of them (a second tool-use block starts before the first is stopped): only get_time
# ran, and the second request carried its result alone (what the server received).
STRANDS_JS = {**APP_LOOP, "two_tools": Scenario({"weather": A(
    llm=2, tools={"get_time": (1, 0)}, models={"weather-model": 2})})}

# OpenLIT for TypeScript (node/record_openlit_js.mjs): the app runs the tool loop itself with the
# `openai` client (each model call traced by OpenLIT's OpenAI instrumentation), each agent run and
# tool call wrapped in OpenLIT's manual `trace` named after the agent or tool; a raising tool's
# error goes back to the model, which answers (two calls). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span, no agent); the HTTP
# 500 fails the weather run on its first model call. The app-level scenarios of
# fixture_expectations.APP_LOOP.
OPENLIT_JS = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "strands_js": STRANDS_JS,
    "openlit_js": OPENLIT_JS,
}
