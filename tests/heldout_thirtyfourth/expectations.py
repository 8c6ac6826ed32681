"""What each scenario of the thirty-fourth held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_thirtyfourth/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
thirtyfourth` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

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

# Restate (record_restate.py): the Restate server 1.7 (its npm distribution) tracing its own
# invocations (ingress, start, attempts, end; the commands an attempt's journal recorded are
# events of the attempt, not spans), exported by OTLP/gRPC; the app on its Python SDK. Each agent
# a Restate service named after it, its handler `run` the tool loop: each model call the durable
# side effect `call_model` (one request to the fake server, one attempt), each tool a side effect
# named after the tool (one attempt). The model is in the handler's input and the side effect's
# request, which the server does not trace: no model name is expected (`without_models`). The
# weather model asked for get_weather and get_time in one turn: both side effects ran and both
# results went back (two model calls). lookup_order's side effect failed (terminally, its one
# attempt) and the handler handed the error back to the model as the tool's result, which
# answered: two calls; the tool failed, the invocation did not. ask_billing is no side effect:
# the orchestrator's handler runs it as a durable call of the billing service (an invocation of
# its own, invoked by the orchestrator's), between its two model calls; nothing of the stack's
# is named after that tool, so none is expected of the orchestrator (its two model calls, and
# billing's run under it, are). `handoff` runs triage (its transfer_to_billing side effect only
# answers), then billing, both durable calls of the app's request (the service `support`'s
# handler `serve`, no agent). The HTTP 500 fails the weather invocation on its one model call
# (one gpt-500 request; the side effect's one attempt failed, terminally, and with it the
# invocation: the ingress answered 500).
RESTATE = without_models({
    **APP_LOOP,
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, delegations=("orchestrator->billing",)),
        "billing": A(),
    }),
})

# Ray Core (record_ray.py, _ray_app.py): Ray 2.60's own OpenTelemetry tracing (a span for each
# remote call made, task or actor method, and one for its execution in the worker), on the OTel
# SDK's provider its tracing startup hook sets up in the driver and every worker. Each agent an
# actor class named after it, a new actor per run, its method `run` the tool loop; each model call
# the remote task `call_model` (one request to the fake server, no retry), each tool a remote task
# named after it (no retry). Task arguments are not traced: no model name is expected
# (`without_models`). The weather model asked for get_weather and get_time in one turn: both tasks
# ran and both results went back (two model calls). lookup_order's task failed and the actor
# handed the error back to the model as the tool's result, which answered: two calls; the tool
# failed, the run did not. ask_billing is a remote task named after the tool that starts the
# billing actor and waits on its run, between the orchestrator's two model calls. `handoff` runs
# triage (its transfer_to_billing task only answers), then billing, in one request of the app
# (`serve`, the driver's plain span, no agent). The HTTP 500 fails `call_model` on its one request
# (one gpt-500 request), then the weather actor's `run`. The app-level scenarios of
# fixture_expectations.APP_LOOP.
RAY = without_models(APP_LOOP)

EXPECTED: dict[str, dict[str, Scenario]] = {
    "restate": RESTATE,
    "ray": RAY,
}
