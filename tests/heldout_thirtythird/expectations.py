"""What each scenario of the thirty-third held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_thirtythird/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
thirtythird` scores replays against these; the share is kept apart from the earlier held-out sets,
which have been read while the rules were tuned.

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

# The Temporal Go SDK (go/record_temporal.go): each agent a workflow type named after it (the
# app's one agent-loop function registered under each agent's name), run in the SDK's in-memory
# test environment on a worker carrying the SDK's OpenTelemetry tracing interceptor; each model
# call the activity `chat_completion` (one request to the fake server, the activity's retries
# off), each tool an activity named after the tool (retries off). The interceptor spans workflow
# runs, activities (started, on the workflow's side, and run, on the worker's) and child workflows
# started, by their type names and its own attributes (workflow, run and activity ids): the model
# a call was made with is only in the activity's input, on no span, so no model name is expected
# (`without_models`). The weather model asked for get_weather and get_time in one turn: both
# activities ran and both results went back (two model calls). lookup_order's activity failed (its
# one attempt) and the workflow handed the error back to the model as the tool's result, which
# answered: two calls; the tool failed, the run did not. ask_billing is no activity: the
# orchestrator's workflow runs it as a child workflow of the billing agent (its type `billing`),
# between its two model calls; no span of the stack's is named after that tool, so none is
# expected of the orchestrator (its two model calls, and billing's run under it, are). `handoff`
# runs triage (its transfer_to_billing activity only answers), then billing, in one request of the
# app (`serve`, a plain span, no agent, handed to both workflows in their Temporal header). The
# HTTP 500 fails the weather workflow on its one model call (one gpt-500 request; the activity's
# one attempt failed, a non-retryable application error, and with it the workflow).
TEMPORAL = without_models({
    **APP_LOOP,
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, delegations=("orchestrator->billing",)),
        "billing": A(),
    }),
})

# Effect AI (node/record_effect_ai.mjs): `@effect/ai` 0.37 and `@effect/ai-openai` 0.41 on
# `effect` 3, traced by Effect's own tracer (the language model's, chat's, toolkit's and HTTP
# client's spans) bridged to OpenTelemetry by `@effect/opentelemetry`'s NodeSdk layer. Effect AI
# has no agent: each run is the app's Effect span named after the agent, over a `Chat` on the
# agent's model (`OpenAiLanguageModel.model`, the Responses API; the fake server answers the same
# scripted turns in it), the app calling `generateText` with the agent's toolkit until the model
# answers with no tool call, Effect AI running each tool asked for through the toolkit's handlers.
# The weather model asked for get_weather and get_time in one turn: both handlers ran and both
# results went back (two calls). lookup_order's handler failed and its tool's `failureMode:
# "return"` handed the failure back to the model as the tool's result (Effect AI then ends the
# toolkit's handling normally, the failure only in the result it hands back), which answered: two
# calls; the tool failed, the run did not. ask_billing's handler runs billing's run (its span,
# its chat) inside the toolkit's handling of that call, between the orchestrator's two calls.
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing, in one request
# of the app (`serve`, an Effect span, no agent). The HTTP 500 fails the weather run on its one
# model call (one gpt-500 request, no retry; `generateText` fails, and with it the run). The
# app-level scenarios of fixture_expectations.APP_LOOP.
EFFECT_AI = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "temporal": TEMPORAL,
    "effect_ai": EFFECT_AI,
}
