"""What each scenario of the third held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_third/ (which agent ran which model and tools, what failed, who handed
over to whom), never from the product's output. `benchmarks/heldout.py --set third` scores
replays against these; the share is kept apart from tests/heldout/ and tests/heldout_fresh/,
which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and, for the app-level stacks, the same scenarios
(fixtures/record/_app_loop.py TracedApp: call the model, run the tools it asks for, send the
results back, until it answers; a tool's exception goes back to the model, which answers).
Step-level error types are left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# The app-level scenarios are fixture_expectations.APP_LOOP (TracedApp's, as record_trulens.py,
# record_traceai.py and node/record_langtrace.mjs run them): the weather agent calls get_weather
# and get_time, then answers (two model calls); the orders agent's lookup_order raises, its error
# goes back to the model, which answers (two calls); billing runs inside the orchestrator's
# ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only answers), then
# billing, in one request; the HTTP 500 fails the weather agent's run on its first model call.

# TruLens (record_trulens.py): each agent a TruApp named after it (the request of `handoff` is
# a TruApp of its own, `serve`, which is no agent: it only runs triage, then billing), tools and
# model calls `@instrument`ed functions. The app-level scenarios above.
TRULENS = APP_LOOP

# Langtrace (node/record_langtrace.mjs): each agent run and each tool call grouped by
# `withLangTraceRootSpan` named after it, the request of `handoff` by one named `serve` (no
# agent); the model calls by Langtrace's OpenAI instrumentation. The app-level scenarios above.
LANGTRACE = APP_LOOP

# traceAI (record_traceai.py): each agent a `@tracer.agent` function named after it, each tool a
# `@tracer.tool` named after it, the request of `handoff` a `@tracer.chain` named `serve` (no
# agent); the model calls by traceAI's OpenAI instrumentation. The app-level scenarios above.
TRACEAI = APP_LOOP

# Monocle (record_monocle.py): each agent an OpenAI Agents SDK Agent named after it, one
# Runner.run per scenario. A tool's exception goes back to the model (the SDK's default), which
# answers: the run completes. The looper runs with max_turns=2 (model, tool, model, tool) and
# the SDK then raises MaxTurnsExceeded: the run fails. The HTTP 500 fails the run on its first
# model call. Billing runs inside the orchestrator's ask_billing (billing.as_tool); triage hands
# off to billing through the SDK's hand-off (its transfer_to_billing call is the hand-off, not a
# tool the app wrote): one model call each.
MONOCLE = {
    "two_tools": APP_LOOP["two_tools"],
    "tool_error": APP_LOOP["tool_error"],
    "max_turns": Scenario(
        {"looper": A(errors=1, llm=2, tools={"get_weather": (2, 0)}, models={"loop-model": 2},
                     boundaries=b("max_steps", "error_path"))}),
    "http_500": APP_LOOP["http_500"],
    "agent_as_tool": APP_LOOP["agent_as_tool"],
    "handoff": Scenario({
        "triage": A(models={"triage-model": 1}, delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "langtrace": LANGTRACE,
    "monocle": MONOCLE,
    "traceai": TRACEAI,
    "trulens": TRULENS,
}
