"""What each scenario of the ninth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_ninth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set ninth` scores replays
against these; the share is kept apart from the earlier held-out sets, which have been read while
the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (no transport retries reached the fake server). Step-level error types are left out: they
are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixture_expectations import APP_LOOP, Scenario

FIXTURES = Path(__file__).parent / "fixtures"


def _untold(scenarios: dict[str, Scenario], *, linked: bool) -> dict[str, Scenario]:
    """`scenarios` without what no recorded span can tell: model names, and (unless the runs are
    `linked` in one trace) delegations between agent runs."""
    return {name: replace(s, agents={
        agent: replace(a, models={}, delegations=a.delegations if linked else ())
        for agent, a in s.agents.items()}) for name, s in scenarios.items()}

# LangWatch's TypeScript SDK (node/record_langwatch_js.mjs): the app runs the tool loop itself with
# the `openai` client, each agent's run, model call and tool call traced through LangWatch's
# tracer; a raising tool's error goes back to the model, which answers (two calls). Billing's run
# is inside the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing
# tool only answers), then billing, in one request of the app (`serve`, a plain span, no agent);
# the HTTP 500 fails the weather run on its first model call. The app-level scenarios of
# fixture_expectations.APP_LOOP.
LANGWATCH_JS = APP_LOOP

# AutoAgents, Rust (autoagents/src/bin/record_autoagents.rs): each agent a ReAct agent named after
# it on its own model with its tools, AutoAgents running the tool loop and handing a tool's error
# back to the model, which answers (two calls); the HTTP 500 fails the weather run on its first
# model call. AutoAgents' telemetry records each run (task), each turn (one model call per turn in
# the ReAct executor: the LLM counts below are the requests the fake server received) and each
# tool call, but no model name, and it starts every agent's run as a trace of its own: billing's
# run inside the orchestrator's ask_billing tool, and `handoff`'s triage then billing, share no
# trace with the agent before them. So no models and no delegations are expected.
AUTOAGENTS = _untold(APP_LOOP, linked=False)

# Swiftide, Rust (swiftide/src/bin/record_swiftide.rs): each agent a Swiftide agent on its own
# model with its tools, Swiftide running the tool loop and handing a tool's error back to the
# model, which answers (two calls); the HTTP 500 fails the weather run on its first model call
# (async-openai's retries turned off). Swiftide's spans carry no agent name (the app runs each
# agent inside a span named after it) and, at the INFO level the app exports, no model name: no
# models are expected. Billing's run is inside the orchestrator's ask_billing tool; `handoff` runs
# triage (its transfer_to_billing tool only answers), then billing, in one request of the app
# (`serve`, a plain span, no agent).
SWIFTIDE = _untold(APP_LOOP, linked=True)

EXPECTED: dict[str, dict[str, Scenario]] = {
    "autoagents": AUTOAGENTS,
    "swiftide": SWIFTIDE,
    "langwatch_js": LANGWATCH_JS,
}
