"""What each scenario of the twenty-second held-out share did (issue 35): the scripted models and
app-level scenarios every share runs (tests/heldout/expectations.py), written as the earlier
shares' are, from the recorder in fixtures/record/heldout_twentysecond/ and the requests the fake
model server received (printed per scenario by the recorder), never from the product's output.
Scored by `benchmarks/heldout.py --set twentysecond`, kept apart from the shares read while the
rules were tuned. Every model call here is one request (ADK-Rust's retries off); step-level error
types are not scored, so they are left out.
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# ADK for Rust (adk_rust/src/bin/record_adk_rust.rs): each agent an ADK-Rust LlmAgent named after
# it on its own model (ADK-Rust's OpenAIClient, streaming, its default) with its FunctionTools, run
# by a Runner of its own; ADK-Rust runs the tool loop and hands lookup_order's error back to the
# model, which answers (two calls; the failure is told by a warning event of the orders run, not
# by the tool call's own spans). Billing's run is inside the orchestrator's ask_billing tool (one
# billing-model request between the orchestrator's two); `handoff` runs triage (its
# transfer_to_billing tool only answers, then triage answers: two calls), then billing, in one
# request of the app (`serve`, a plain span, no agent). The app-level scenarios, except one thing
# ADK-Rust's spans do not tell: nothing on any span says the HTTP 500 failed the weather run (no
# status, error attribute or exception event; the error reaches only the app), so that run is
# expected with its one model call and no error.
ADK_RUST = {**APP_LOOP, "http_500": Scenario({"weather": A(models={"gpt-500": 1})})}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "adk_rust": ADK_RUST,
}
