"""What each scenario of the fifteenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_fifteenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set fifteenth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off). Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixture_expectations import APP_LOOP, Scenario

FIXTURES = Path(__file__).parent / "fixtures"


def without_models(scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    """`scenarios` with no model name expected for any agent: for a stack whose spans never
    name the model a call was made with in an attribute of its own."""
    return {name: replace(s, agents={agent: replace(a, models={})
                                     for agent, a in s.agents.items()})
            for name, s in scenarios.items()}


def without_tools(scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    """`scenarios` with no tool call (nor `tool_failure`) expected for any agent: for a stack
    that spans no tool call of its own (nothing executed can count them)."""
    return {name: replace(s, agents={agent: replace(a, tools={}, boundaries=a.boundaries - {
        "tool_failure"}) for agent, a in s.agents.items()}) for name, s in scenarios.items()}


# Guardrails AI, Python (record_guardrails.py): each agent one Guard named after it (with one
# validator of the app's), the app running the tool loop itself, each model call one guarded call
# of that guard, which Guardrails makes through LiteLLM's completion (`openai/<model>`) and traces
# itself; each scenario one request of the app (`serve`, a plain span). Guardrails accepts only
# text messages, so the app sends a tool-calling turn back as its calls' JSON and each result as a
# tool message (the fake server got the results, not the names: `?`). A raising tool's error goes
# back to the model, which answers (two orders-model requests). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing; the HTTP 500 fails the weather run on its one model call (one gpt-500
# request; Guardrails raises its own error around LiteLLM's, the guarded call's spans end in
# error). Each agent ran once per scenario (one guard, one loop), whatever number of guarded calls
# it made. Guardrails traces no tool call (the app's tools run between guarded calls; the model's
# requests for them are only in the model calls' recorded replies), so no tool nor tool failure
# is expected (as for the earlier shares' stacks that span none: fast_agent, traceloop_node);
# and its spans carry the model a call was made with only inside the serialized keyword arguments
# of the call (no attribute of its own names it), so no model is expected either (as patronus).
# The hand-off and the agent-as-tool delegation stay, as runs and model calls tell them.
GUARDRAILS = without_models(without_tools(APP_LOOP))

EXPECTED: dict[str, dict[str, Scenario]] = {
    "guardrails": GUARDRAILS,
}
