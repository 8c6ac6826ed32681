"""What each scenario of the tenth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_tenth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set tenth` scores replays
against these; the share is kept apart from the earlier held-out sets, which have been read while
the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (no transport retries reached the fake server). Step-level error types are left out: they
are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP_TOOL_ERROR_FAILS, Scenario, with_models

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

EXPECTED: dict[str, dict[str, Scenario]] = {
    "ragbits": RAGBITS,
}
