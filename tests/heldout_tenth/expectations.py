"""What each scenario of the tenth held-out share did (issue 35): the scripted models and
app-level scenarios every share runs (tests/heldout/expectations.py), written as the ninth share's
are, from the recorders in fixtures/record/heldout_tenth/ and the requests the fake model server
received (printed per scenario by each recorder), never from the product's output. Scored by
`benchmarks/heldout.py --set tenth`, kept apart from the shares read while the rules were tuned.
Every model call here is one request (retries off or absent); step-level error types are not
scored, so they are left out.
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, APP_LOOP_TOOL_ERROR_FAILS, A, Scenario, with_models

FIXTURES = Path(__file__).parent / "fixtures"

# ragbits, Python (record_ragbits.py): each agent a ragbits Agent on its own model through ragbits'
# LiteLLM client, which the app names `openai/<model>` (LiteLLM's name for an OpenAI-compatible
# model), run inside ragbits' own `trace` named after the agent; ragbits runs the tool loop and
# raises a tool's exception out of the run: lookup_order fails the orders run after its first
# model call (one request). Billing runs inside the orchestrator's ask_billing tool (one
# billing-model request between the orchestrator's two); `handoff` runs triage (its
# transfer_to_billing tool only answers, then triage answers: two calls), then billing, in one
# request of the app (`serve`, a plain span, no agent); the HTTP 500 fails the weather run on its
# first model call (one request: LiteLLM's retries off).
RAGBITS = with_models(APP_LOOP_TOOL_ERROR_FAILS, "openai/{}")

# ADK for TypeScript (node/record_adk_js.mjs): each agent an ADK LlmAgent named after it on ADK's
# Gemini model of its model name with its FunctionTools, run by a runner of its own; ADK runs the
# tool loop and hands lookup_order's exception back to the model, which answers (two calls).
# Billing's run is inside the orchestrator's ask_billing tool; `handoff` runs triage (its
# transfer_to_billing tool only answers), then billing, in one request of the app (`serve`, a
# plain span, no agent). The app-level scenarios, except two things ADK's spans do not tell: the
# failed lookup_order call's span carries no status, attribute or event (its error reaches only
# the content of the next model request), so neither its outcome nor a tool failure is expected;
# and the HTTP 500 leaves no model-call span and ends the weather run's span without an error
# (the app sees the error event and stops), so that run is expected with no model call, model or
# error.
ADK_JS = {
    **APP_LOOP,
    "tool_error": Scenario({"orders": A(llm=2, models={"orders-model": 2})}),
    "http_500": Scenario({"weather": A(llm=0)}),
}

# rig, Rust (rig/src/bin/record_rig.rs): each agent a rig agent (rig-agent) named after it on its
# own model (rig-core's OpenAI Chat Completions wire) with its tools, rig running the tool loop and
# handing lookup_order's error back to the model, which answers (two calls). Billing's run is
# inside the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool
# only answers), then billing, in one request of the app (`serve`, a plain span, no agent). The
# app-level scenarios, except one thing rig's spans do not tell: nothing on any span says the
# HTTP 500 failed the weather run (no status, error attribute or exception event), so that run is
# expected with its one model call and no error.
RIG = {**APP_LOOP, "http_500": Scenario({"weather": A(models={"gpt-500": 1})})}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "ragbits": RAGBITS,
    "adk_js": ADK_JS,
    "rig": RIG,
}
