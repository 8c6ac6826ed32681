"""What each scenario of the fourteenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_fourteenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set fourteenth` scores
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

# LlamaIndex.TS, TypeScript (node/record_llamaindex_ts.mjs): each agent a FunctionAgent named after
# it on @llamaindex/openai's OpenAI LLM of its model, with its FunctionTools, run by an
# AgentWorkflow of its own; the workflow runs the tool loop and hands a raising tool's error back
# to the model, which answers (two orders-model requests). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span). The HTTP 500 fails
# the weather run on its one model call (one gpt-500 request). What traces it is LlamaIndex's
# OpenTelemetry plugin for workflows, which spans each handler the workflow runs and nothing else:
# every span is named by the handler's function name, which the AgentWorkflow's handlers do not
# have (they are assigned to properties), and carries no attribute, and a handler that fails
# asynchronously (the failed model call) ends its span without an error. So no span tells an
# agent, a model call, a model, a tool call, a delegation or the failure: the app's service
# (`support-app`, the resource the app's tracer provider names) is the only name there, one run
# per scenario (one request of the app) with nothing counted for it.
APP = "support-app"
LLAMAINDEX_TS = {name: Scenario({APP: A(llm=0)}) for name in APP_LOOP}

# Keywords AI's tracing SDK, Python (record_keywordsai.py): its `@agent` decorator on each agent
# run of the app-written tool loop (fixtures/record/_app_loop.py TracedApp), named after the
# agent, its `@tool` on each tool call, named after the tool, its `@workflow` on the request of
# `handoff` (`serve`, no agent), and its own OpenAI instrument on the app's `openai` client (each
# model call, with its model). A raising tool's error goes back to the model, which answers (two
# calls); billing's run is inside the orchestrator's ask_billing tool; the HTTP 500 fails the
# weather run on its first model call. The app-level scenarios of fixture_expectations.APP_LOOP.
KEYWORDSAI = APP_LOOP

# HoneyHive's Python SDK (record_honeyhive.py): its `@trace` decorator around the app-written tool
# loop (fixtures/record/_app_loop.py TracedApp): each agent run a `chain` event named after the
# agent, each tool call a `tool` event named after the tool, the request of `handoff` a `chain`
# named `serve` (no agent: the app's request, though HoneyHive types it as it types an agent
# run), and the app's model call a `model` event (`chat_completion`) whose recorded inputs carry
# the model. A raising tool's error goes back to the model, which answers (two calls); billing's
# run is inside the orchestrator's ask_billing tool; the HTTP 500 fails the weather run on its
# first model call. On every failure HoneyHive ends the failed call's span in error and also
# emits a second, error-only span for it (named after the call; a failed agent run's one typed
# as a tool event, a root of its own): one failure each, not a second call, so the failed
# lookup_order is one failed tool call and the failed weather run ran no tool. The app-level
# scenarios of fixture_expectations.APP_LOOP.
HONEYHIVE = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "llamaindex_ts": LLAMAINDEX_TS,
    "keywordsai": KEYWORDSAI,
    "honeyhive": HONEYHIVE,
}
