"""What each scenario of the eleventh held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_eleventh/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set eleventh` scores replays
against these; the share is kept apart from the earlier held-out sets, which have been read while
the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off). Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# any-agent, Python (record_any_agent.py): each agent any-agent's own `tinyagent` named after it,
# on its own model through any-llm's OpenAI provider, with its tools; TinyAgent runs the tool loop
# and hands a raising tool's error back to the model, which answers (two calls). Billing's run is
# inside the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool
# only answers), then billing, in one request of the app (`serve`, a plain span, no agent). The
# HTTP 500 fails the weather run on its one model call (one gpt-500 request); any-agent never
# ends, so never exports, what it started for that call: no span tells that call, so neither an
# LLM call nor a model is expected there.
ANY_AGENT = {**APP_LOOP, "http_500": Scenario(
    {"weather": A(errors=1, llm=0, boundaries=b("error_path"))})}

# Microsoft Agent 365's observability SDK for TypeScript (node/record_a365_js.mjs): the app runs the
# tool loop itself with the `openai` client, each agent's run, model call and tool call traced
# through the SDK's scopes; a raising tool's error goes back to the model, which answers (two
# calls). Billing's run is inside the orchestrator's ask_billing tool; `handoff` runs triage (its
# transfer_to_billing tool only answers), then billing, in one request of the app (`serve`, a
# plain span, no agent); the HTTP 500 fails the weather run on its first model call. The
# app-level scenarios of fixture_expectations.APP_LOOP.
A365_JS = APP_LOOP

# Google's ADK for Java (java/src/main/java/fixture/Record.java): each agent an ADK LlmAgent named
# after it on ADK's Gemini model of its model name, with its FunctionTools, run by an
# InMemoryRunner; ADK runs the tool loop. lookup_order raised and ADK handed its error back to
# the model as the tool's response (the server got it), which answers: two calls; the tool
# failed (what happened, however the stack marks it). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span, no agent). The HTTP
# 500 fails the weather run on its one model call (one gpt-500 request: google-genai's retries
# off); no span tells that failed call's model, so no model is expected there.
ADK_JAVA = {**APP_LOOP, "http_500": Scenario(
    {"weather": A(errors=1, boundaries=b("error_path"))})}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "any_agent": ANY_AGENT,
    "a365_js": A365_JS,
    "adk_java": ADK_JAVA,
}
