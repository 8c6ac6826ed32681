"""What each scenario of the twentieth held-out share did (issue 35), written from the recorder in
fixtures/record/heldout_twentieth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (the recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set twentieth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). Step-level error types are left out: they are
not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b, with_models, without_tools

FIXTURES = Path(__file__).parent / "fixtures"

# Llama Stack 0.3, Python, as a library (record_llama_stack.py, run.yaml): each agent a Llama Stack
# agent of the meta-reference agents API named after it (its config's `name`), on its model as
# the app names it, `openai/<model>` (the remote OpenAI provider's name for the scripted model;
# the model a call was made with is expected as the app named it), one turn per run. Its tools are
# client tools: a turn stops awaiting the tool calls the model asked for, the app runs them and
# resumes the turn with their results, until the model answers; Llama Stack spans no client tool
# (they run in the app between two of its API calls; their names are only in the recorded
# requests and turns), so no tool is expected (`without_tools`, as the earlier shares' stacks that
# span none). lookup_order raised and the app sent its error back as the tool's result (the server
# got it), which answers: two orders-model requests, the run ends well; as Llama Stack only saw a
# tool result, no tool failure is expected either. Llama Stack's library client traces every API
# call as a trace of its own (its telemetry starts each request's trace itself, on a thread of its
# own, with no parent: the app's context is not carried into it), so an agent's run is spread
# over the traces of its turn's calls (turn create, then one resume per round of tool results),
# and nothing links one agent's calls to another's: billing's run inside the orchestrator's
# ask_billing tool (one billing-model request between the orchestrator's two) happens between
# the orchestrator's turn and its resume, in traces of its own, and `handoff`'s triage (its
# transfer_to_billing tool only answers, then triage answers: two calls) and billing, in one
# request of the app (`serve`, a plain span of the app, no agent), are not inside it; so no
# delegation is expected in either. The HTTP 500 fails the weather run on its one model call;
# Llama Stack's OpenAI client keeps the OpenAI SDK's retries (Llama Stack sets none and the app
# cannot), so the server got three gpt-500 requests of that one call; the turn's stream ends in
# the error and the app's run fails. By Llama Stack's code, its tracing ends every span it makes
# with an OK status whatever happened (its span context managers pop spans OK, its library client
# ends each trace OK): what tells the failed call is the `error` attribute its traced inference
# methods (trace_protocol) set on their spans; the failure is expected as it happened.
LLAMA_STACK = with_models(without_tools({
    **APP_LOOP,
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, models={"orchestrator-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(llm=2, models={"triage-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))}),
}), "openai/{}")

EXPECTED: dict[str, dict[str, Scenario]] = {
    "llama_stack": LLAMA_STACK,
}
