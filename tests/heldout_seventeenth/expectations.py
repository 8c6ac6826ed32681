"""What each scenario of the seventeenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_seventeenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set seventeenth` scores
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

from fixture_expectations import APP_LOOP, Scenario, without_models

FIXTURES = Path(__file__).parent / "fixtures"



def with_tool_names(scenarios: dict[str, Scenario], names: dict[str, str]) -> dict[str, Scenario]:
    """`scenarios` with each tool named as the stack names it to the model (`names`): Semantic
    Kernel's `<plugin>-<function>`."""
    return {name: replace(s, agents={agent: replace(a, tools={
        names.get(tool, tool): n for tool, n in a.tools.items()}) for agent, a in s.agents.items()})
        for name, s in scenarios.items()}


# Galileo's Python SDK (record_galileo.py): the app-written tool loop (_app_loop.TracedApp), each
# agent run, tool call and model call traced through Galileo's own OpenTelemetry helper; a raising
# tool's error goes back to the model, which answers (two calls). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a workflow of Galileo's, no agent);
# the HTTP 500 fails the weather run on its one model call (one gpt-500 request). The app hands
# each model call's model to Galileo, but Galileo's helper writes no model on the span: no span
# tells the model a call was made with, so no model is expected anywhere.
GALILEO = without_models(APP_LOOP)

# Semantic Kernel for Java (java/src/main/java/fixture/record_semantic_kernel_java.java): each
# agent a kernel of its own with its model and a plugin of its tools, its run a prompt function
# named after the agent, every kernel function allowed and auto-invoked: Semantic Kernel runs the
# tool loop. Its tools are named to the model, and called, as `<plugin>-<function>` (the server got
# `WeatherTools-get_weather`, ...), the names expected here. lookup_order raised and Semantic
# Kernel handed its error back to the model (the server got it), which answers: two calls.
# Billing's run is inside the orchestrator's ask_billing function; `handoff` runs triage (its
# transfer_to_billing function only answers), then billing, in one request of the app (`serve`,
# a plain span, no agent); the HTTP 500 fails the weather run on its one model call (one
# gpt-500 request: no retry policy).
SEMANTIC_KERNEL_JAVA = with_tool_names(APP_LOOP, {
    "get_weather": "WeatherTools-get_weather", "get_time": "WeatherTools-get_time",
    "lookup_order": "OrderTools-lookup_order", "ask_billing": "SupportTools-ask_billing",
    "transfer_to_billing": "TriageTools-transfer_to_billing"})

EXPECTED: dict[str, dict[str, Scenario]] = {
    "galileo": GALILEO,
    "semantic_kernel_java": SEMANTIC_KERNEL_JAVA,
}
