"""What each scenario of the thirtieth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_thirtieth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set thirtieth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, without_models

FIXTURES = Path(__file__).parent / "fixtures"

# The Sentry Python SDK 3.x (record_sentry.py): each agent an OpenAI Agents SDK `Agent` of its
# name on its model (`OpenAIChatCompletionsModel`, the `openai` client, no retries), its tools
# `function_tool`s, each run one `Runner.run`, traced by Sentry's own OpenAI Agents integration
# (and the OpenAI and HTTPX integrations Sentry enables by itself) as OpenTelemetry spans of the
# provider `sentry_sdk.init` set up. The weather model asked for get_weather and get_time in one
# turn: the agents SDK ran both and sent both results back (two calls). lookup_order raised and
# the agents SDK (`function_tool`'s default error function) handed its error back to the model as
# the tool's result, which answers: two calls; the tool failed. Billing's run is a `Runner.run`
# inside the orchestrator's ask_billing tool (the same process and event loop, under the tool's
# execution), and `handoff` runs triage (its transfer_to_billing tool only answers), then billing,
# in one request of the app (`serve`, a span of the same provider). The HTTP 500 fails the weather
# run on its one model call (one gpt-500 request; `Runner.run` raises). The app-level scenarios of
# fixture_expectations.APP_LOOP.
SENTRY = APP_LOOP

# DBOS Transact (record_dbos.py): each agent an OpenAI Agents SDK `Agent` of its name on its model
# (`OpenAIChatCompletionsModel`, the `openai` client, no retries), each run a DBOS workflow of the
# app's named after the agent, inside which `DBOSRunner.run` makes each model call a DBOS step of
# its own; the app's tools are DBOS steps named after the tools, under `function_tool`. DBOS traces
# only its workflows and steps, by their names and its own attributes (operation type, workflow
# id, application): no model name is on any span, so none is expected (`without_models`). The
# weather model asked for get_weather and get_time in one turn: both ran (two steps) and both
# results went back (two calls). lookup_order's step raised and the agents SDK handed the error
# back to the model as the tool's result, which answers: two calls; the tool failed. ask_billing
# is the one tool that is no DBOS step (DBOS runs no workflow from inside a step: the tool failed
# so, as a step), so it runs billing's workflow as a child of the orchestrator's, inside the
# orchestrator's run; no span of the stack's is that tool call, so none is expected of the
# orchestrator (its two model calls, and billing's run under it, are). `handoff` runs triage (its
# transfer_to_billing step only answers), then billing, in one request of the app (`serve`). The
# HTTP 500 fails the weather workflow on its one model call (one gpt-500 request; the model step
# allows no retries, `DBOSRunner.run` raises).
DBOS = without_models({
    **APP_LOOP,
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, delegations=("orchestrator->billing",)),
        "billing": A(),
    }),
})

EXPECTED: dict[str, dict[str, Scenario]] = {
    "sentry": SENTRY,
    "dbos": DBOS,
}
