"""What each scenario of the thirty-fifth held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_thirtyfifth/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
thirtyfifth` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off, and the Workflow DevKit's step retries). Step-level error types are left
out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, Scenario, without_models

FIXTURES = Path(__file__).parent / "fixtures"

# Celery (record_celery.py): Celery's signals made spans by opentelemetry-instrumentation-celery,
# a span per message sent and per task run, over a real worker (a thread pool in the recorder's
# process) on kombu's in-memory broker. Each agent run is a task named after the agent, the model
# call a task (`call_model`) over the `openai` client, each tool a task named after the tool;
# `handoff`'s request is a task too (`serve`, no agent), sending triage's task, then billing's.
# Each caller sends its task and waits for the result. A task that raises fails its run and its
# error travels back to its caller: lookup_order failed and the app's loop handed its error back
# to the model, which answers (two calls: the server's second orders request carried
# lookup_order's result); billing's task runs inside the orchestrator's ask_billing task;
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing; the HTTP 500
# fails the model task, then the weather task (one gpt-500 request). The instrumentation records
# no task argument (only the messages' delivery fields), so no span names the model a call was
# made with: no model is expected. fixture_expectations.APP_LOOP, without models.
CELERY = without_models(APP_LOOP)

# The Workflow DevKit (record_workflow.py, node/workflows/agents.ts): its own spans of workflow
# starts, runs and replays, and steps (@workflow/core's tracer), the build served on 127.0.0.1
# over the local world. Each agent is a workflow named after the agent, running the app's tool
# loop; the model call is a step (`call_model`) over the `openai` client, each tool a step named
# after the tool. A workflow is replayed from its event log after each step it waits for, so one
# run is traced as several workflow spans (the DevKit's durable execution). lookup_order throws a
# FatalError (its step failed, not retried) and the loop handed its error back to the model,
# which answers (two calls: the server's second orders request carried lookup_order's result);
# the orchestrator's ask_billing step starts billing's workflow and waits for it; `handoff`'s
# request is the app's span `serve` (no agent) starting triage (its transfer_to_billing step only
# answers), then billing; the HTTP 500 fails the model step (no retry), then the weather
# workflow's run (one gpt-500 request). The DevKit records a step's arguments by their count only,
# so no span names the model a call was made with: no model is expected.
# fixture_expectations.APP_LOOP, without models.
WORKFLOW = without_models(APP_LOOP)

EXPECTED: dict[str, dict[str, Scenario]] = {
    "celery": CELERY,
    "workflow": WORKFLOW,
}
