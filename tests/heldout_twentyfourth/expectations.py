"""What each scenario of the twenty-fourth held-out share did (issue 35), written from the recorder
in fixtures/record/heldout_twentyfourth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (the recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set twentyfourth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
client's transport retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# LangSmith's JavaScript SDK in its OpenTelemetry mode (node/record_langsmith_js.mjs): the app runs
# the tool loop itself with the `openai` client wrapped by LangSmith's wrapOpenAI, each agent's run
# a LangSmith traceable named after the agent, each tool a traceable named after the tool; every
# run is an OpenTelemetry span. A raising tool's error goes back to the model, which answers (two
# orders-model requests); the tool failed. Billing's run is inside the orchestrator's ask_billing
# tool (one billing-model request between the orchestrator's two); `handoff` runs triage (its
# transfer_to_billing tool only answers, then triage answers: two calls), then billing, in one
# request of the app (`serve`, a plain span of the app, no agent): LangSmith's span processor
# exports only its own runs' spans, so `serve` is not in the file, but both runs were started
# inside it (one trace, the same parent). The HTTP 500 fails the weather run on its one model
# call (one gpt-500 request). By what the recordings hold, LangSmith's spans of a failed run or
# tool keep an OK status (its translator sets OK when the run starts, and OpenTelemetry keeps an
# OK status final); the failure is in the exception event it records on them. The failures are
# expected as they happened. The app-level scenarios of fixture_expectations.APP_LOOP.
LANGSMITH_JS = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "langsmith_js": LANGSMITH_JS,
}
