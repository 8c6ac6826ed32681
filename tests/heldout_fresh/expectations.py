"""What each scenario of the fresh held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_fresh/ (which agent ran which model and tools, what failed, who handed
over to whom), never from the product's output. `benchmarks/heldout.py --set fresh` scores
replays against these; the share is kept apart from tests/heldout/, which has been scored often.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and, for the Python stacks, the same app-level scenarios
(fixtures/record/_app_loop.py TracedApp) with each library's own agent loop and decorators.
Step-level error types are left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b, with_models

FIXTURES = Path(__file__).parent / "fixtures"


# Mirascope (record_mirascope.py): each agent an `@ops.trace`d function named after it, running
# Mirascope's loop (call, execute_tools, resume); tools are `@ops.trace`d functions named after
# the tool. `execute_tools` hands a tool's exception back to the model, which answers (two model
# calls); the HTTP 500 fails the run on its first call; billing runs inside ask_billing; `handoff`
# runs triage (its transfer_to_billing tool only answers), then billing, in one traced request.
# Models are named as the app names them: `openai/<model>:completions`.
MIRASCOPE = with_models(APP_LOOP, "openai/{}:completions")

# VoltAgent (node/record_voltagent.mjs): each agent a VoltAgent Agent named after it, one
# `generateText` per run. VoltAgent records one model operation per `generateText` (the AI SDK's
# steps inside it are not operations of their own), so a run counts one LLM call whatever its
# steps. A tool's exception goes back to the model, which answers: the run completes. The looper
# runs with maxSteps 2 (model, tool, model, tool) and VoltAgent stops it there; the HTTP 500 fails
# the run. Billing runs inside the orchestrator's ask_billing tool; triage is a supervisor with
# billing as its sub-agent and delegates through VoltAgent's `delegate_task` tool.
VOLTAGENT = {
    "two_tools": Scenario({"weather": A(
        tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 1})}),
    "tool_error": Scenario(
        {"orders": A(tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                     boundaries=b("tool_failure"))}),
    "max_steps": Scenario(
        {"looper": A(tools={"get_weather": (2, 0)}, models={"loop-model": 1},
                     boundaries=b("max_steps"))}),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))}),
    "agent_as_tool": Scenario({
        "orchestrator": A(tools={"ask_billing": (1, 0)}, models={"orchestrator-model": 1},
                          delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(tools={"delegate_task": (1, 0)}, models={"triage-model": 1},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
}

# Griptape (record_griptape.py): an Agent per run, under an observability driver whose service
# is the agent's name; tools are classes (GetWeather, ...). Griptape's spans name no model: no
# models. A tool's exception goes back to the model as an error artifact, and it answers (two
# model calls); the HTTP 500 fails the Agent's task (its output is the error, nothing raised).
GRIPTAPE = {
    "two_tools": Scenario({"weather": A(
        llm=2, tools={"GetWeather": (1, 0), "GetTime": (1, 0)})}),
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"LookupOrder": (0, 1)}, boundaries=b("tool_failure"))}),
    "http_500": Scenario({"weather": A(errors=1, boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "griptape": GRIPTAPE,
    "mirascope": MIRASCOPE,
    "voltagent": VOLTAGENT,
}
