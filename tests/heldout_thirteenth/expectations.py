"""What each scenario of the thirteenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_thirteenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set thirteenth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off or absent). Step-level error types are left out: they
are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP_TOOL_ERROR_FAILS, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# CloudWeGo Eino, Go (go/record_eino.go): each agent an ADK ChatModelAgent named after it on
# eino-ext's OpenAI chat model of its model name, with its tools, run by an ADK Runner; Eino runs
# the tool loop, its callbacks made spans by the OpenTelemetry handler the app registers (one per
# component run). lookup_order's error fails the orders run after its one model call (one
# orders-model request: Eino does not send a tool's error back to the model). Billing's run is
# inside the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool
# only answers), then billing, in one request of the app (`serve`, a plain span, no agent); the
# HTTP 500 fails the weather run on its one model call (one gpt-500 request), whose span names
# the model it was asked for.
EINO = APP_LOOP_TOOL_ERROR_FAILS

EXPECTED: dict[str, dict[str, Scenario]] = {
    "eino": EINO,
}
