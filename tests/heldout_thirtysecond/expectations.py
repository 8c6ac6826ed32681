"""What each scenario of the thirty-second held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_thirtysecond/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
thirtysecond` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, Scenario, without_models

FIXTURES = Path(__file__).parent / "fixtures"

# NVIDIA NeMo Agent Toolkit (record_nat.py): one NAT config per scenario, traced by NAT's own
# OpenTelemetry exporter (`otelcollector`). Each agent is a NAT function of the app's
# (`app_agent`, named after the agent), the app-written tool loop over its NAT `openai` LLM (its
# model the agent's scripted one) and its tools (NAT functions named after the tools); the agent
# a scenario runs is its workflow. A raising tool's error goes back to the model, which answers
# (two calls: the server's second orders request carried lookup_order's result); the tool
# failed. Billing's run is inside the orchestrator's ask_billing tool (a function invoking the
# billing agent's function); `handoff`'s workflow is the app's request (`serve`, no agent),
# running triage (its transfer_to_billing tool only answers), then billing. NAT's LangChain
# callbacks (its profiler) have no tool-error hook: the failed tool's step is never ended, so
# its tool span is never exported (the function span inside it is, unfailed), and the model call
# after it names that step as its parent. The HTTP 500 scenario is not recorded: NAT exports
# nothing of that run but its workflow function's span, unfailed (the run's own span and the
# failed model call's are never exported), which names neither the agent, nor its model, nor a
# failure (the recorder runs it and checks that, one gpt-500 request). The app-level scenarios
# of fixture_expectations.APP_LOOP, but for http_500.
NAT = {name: scenario for name, scenario in APP_LOOP.items() if name != "http_500"}

# Prefect 3 (record_prefect.py): Prefect's own spans of flow runs and task runs (orchestration
# telemetry on, the ephemeral local API server). Each agent run is a flow, its run named after
# the agent (`flow_run_name`); the model call is a task (`call_model`) over the `openai` client,
# each tool a task named after the tool; `handoff`'s request is a flow too (`serve`, no agent),
# triage and billing its subflows. A task that raises fails its run and raises to its caller:
# lookup_order failed and the app's loop handed its error back to the model, which answers (two
# calls: the server's second orders request carried lookup_order's result); billing's flow runs
# inside the orchestrator's ask_billing task; `handoff` runs triage (its transfer_to_billing
# tool only answers), then billing; the HTTP 500 fails the model task and then the weather flow
# (one gpt-500 request). Prefect records a task's parameters by their types only
# (`prefect.run.parameter.<name>`: `str`, `list`), so no span names the model a call was made
# with: no model is expected. fixture_expectations.APP_LOOP, without models.
PREFECT = without_models(APP_LOOP)

EXPECTED: dict[str, dict[str, Scenario]] = {
    "nat": NAT,
    "prefect": PREFECT,
}
