"""classify() across the published OTel GenAI shapes (v1.27 -> v1.41) and pydantic-ai's formats."""

from __future__ import annotations

import json
from typing import Any

import pytest

from otel_agentcov.records import STATUS_ERROR, SpanRecord
from otel_agentcov.semconv import Classifier, classify
from otel_agentcov.semconv.common import short_error_name


def rec(name: str, attrs: dict[str, Any] | None = None, **kw: Any) -> SpanRecord:
    return SpanRecord(trace_id=1, span_id=2, parent_id=None, name=name,
                      attributes=attrs or {}, **kw)


@pytest.mark.parametrize("op", ["chat", "generate_content", "text_completion"])
def test_inference_operations_are_llm(op: str) -> None:
    step = classify(rec(f"{op} m", {"gen_ai.operation.name": op, "gen_ai.request.model": "m",
                                    "gen_ai.response.model": "m-2024-01-01"}))
    assert (step.kind, step.model) == ("llm", "m-2024-01-01")


def test_legacy_v127_usage_and_system() -> None:
    step = classify(rec("chat gpt-4", {"gen_ai.operation.name": "chat", "gen_ai.system": "openai",
                                       "gen_ai.request.model": "gpt-4",
                                       "gen_ai.usage.prompt_tokens": 12,
                                       "gen_ai.usage.completion_tokens": 5}))
    assert (step.model, step.input_tokens, step.output_tokens) == ("gpt-4", 12, 5)


def test_names_only_without_operation_name() -> None:
    assert classify(rec("chat gpt-4o")).kind == "llm"
    tool = classify(rec("execute_tool search"))
    assert (tool.kind, tool.tool) == ("tool", "search")
    agent = classify(rec("invoke_agent planner"))
    assert (agent.kind, agent.agent) == ("agent", "planner")
    assert classify(rec("invoke_workflow flow")).kind == "workflow"
    assert classify(rec("HTTP GET")).kind == "other"


def test_agent_tool_workflow_create_agent() -> None:
    agent = classify(rec("invoke_agent x", {"gen_ai.operation.name": "invoke_agent",
                                            "gen_ai.agent.name": "planner"}))
    assert agent.agent == "planner"
    wrapper = classify(rec("Agent workflow", {"gen_ai.operation.name": "invoke_agent"}))
    assert (wrapper.kind, wrapper.agent) == ("agent", None)
    placeholder = classify(rec("invoke_agent", {"gen_ai.operation.name": "invoke_agent",
                                                "gen_ai.agent.name": "OpenAI Agent"}))
    assert placeholder.agent is None
    create = classify(rec("create_agent x", {"gen_ai.operation.name": "create_agent"}))
    assert create.kind == "other"
    wf = classify(rec("invoke_workflow f", {"gen_ai.operation.name": "invoke_workflow"}))
    assert wf.kind == "workflow"
    merged = classify(rec("execute_tool (merged)", {"gen_ai.operation.name": "execute_tool",
                                                    "gen_ai.tool.name": "(merged tools)"}))
    assert merged.kind == "other"


def test_pydantic_ai_v2_names() -> None:
    agent = classify(rec("agent run", {"agent_name": "support"}, scope_name="pydantic-ai"))
    assert (agent.kind, agent.agent) == ("agent", "support")
    tool = classify(rec("running tool", {"gen_ai.tool.name": "lookup"}, scope_name="pydantic-ai"))
    assert (tool.kind, tool.tool) == ("tool", "lookup")
    assert classify(rec("running tools", scope_name="pydantic-ai")).kind == "other"
    # the same name from another scope is not pydantic-ai's
    assert classify(rec("agent run", {"agent_name": "support"})).kind == "other"


def test_errors_normalized_and_limits() -> None:
    assert short_error_name("<class 'openai.RateLimitError'>") == "RateLimitError"
    assert short_error_name("pydantic_ai.exceptions.UsageLimitExceeded") == "UsageLimitExceeded"
    by_event = classify(rec("execute_tool t", {"gen_ai.operation.name": "execute_tool",
                                               "gen_ai.tool.name": "t"},
                            status_code=STATUS_ERROR,
                            status_description="Traceback (most recent call last): ...",
                            events=[("exception", {"exception.type": "builtins.ValueError"})]))
    assert by_event.error == "ValueError"
    other = classify(rec("chat m", {"gen_ai.operation.name": "chat"}, status_code=STATUS_ERROR))
    assert other.error == "_OTHER"
    turns = classify(rec("invoke_agent a", {"gen_ai.operation.name": "invoke_agent",
                                            "gen_ai.agent.name": "a"}, status_code=STATUS_ERROR,
                         status_description="Max turns exceeded: {'max_turns': 2}"))
    assert turns.limit == "max_steps"
    # the OpenAI Agents SDK's own text for MaxTurnsExceeded, the count in parentheses
    counted = classify(rec("invoke_agent a", {"gen_ai.operation.name": "invoke_agent",
                                              "gen_ai.agent.name": "a"}, status_code=STATUS_ERROR,
                           status_description="Max turns (2) exceeded"))
    assert (counted.error, counted.limit) == ("_OTHER", "max_steps")
    timeout = classify(rec("chat m", {"gen_ai.operation.name": "chat",
                                      "error.type": "openai.APITimeoutError"},
                           status_code=STATUS_ERROR))
    assert timeout.limit == "timeout"
    strands = classify(rec("execute_tool t", {"gen_ai.operation.name": "execute_tool",
                                              "gen_ai.tool.name": "t",
                                              "gen_ai.tool.status": "error"}))
    assert strands.error == "_OTHER"


def test_wrong_types_are_ignored_not_trusted() -> None:
    step = classify(rec("chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": 5,
                                   "gen_ai.usage.input_tokens": "x",
                                   "gen_ai.usage.output_tokens": -3,
                                   "gen_ai.response.finish_reasons": [1, 2],
                                   "gen_ai.tool.definitions": "{not json"}))
    assert (step.model, step.input_tokens, step.output_tokens) == (None, 0, 0)
    assert step.finish_reason == "" and step.tool_definitions == ()


def test_handoff_forms() -> None:
    explicit = classify(rec("agent_handoff", {"gen_ai.operation.name": "agent_handoff",
                                              "gen_ai.handoff.from_agent": "a",
                                              "gen_ai.handoff.to_agent": "b"}))
    assert (explicit.kind, explicit.handoff_from, explicit.handoff_to) == ("handoff", "a", "b")
    transfer = classify(rec("execute_tool transfer_to_billing", {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "transfer_to_billing"}))
    assert (transfer.kind, transfer.handoff_tool, transfer.handoff_hint) == (
        "tool", True, "billing")
    spec_transfer = classify(rec("execute_tool transfer", {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "transfer",
        "gen_ai.transfer.target.name": "weather"}))
    assert spec_transfer.handoff_to == "weather"


def test_unreleased_genai_attributes() -> None:
    caller = classify(rec("invoke_agent weather", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
        "gen_ai.caller.type": "agent", "gen_ai.caller.name": "planner"}))
    assert (caller.agent, caller.handoff_from) == ("weather", "planner")
    workflow_caller = classify(rec("invoke_agent weather", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
        "gen_ai.caller.type": "workflow", "gen_ai.caller.name": "nightly"}))
    assert workflow_caller.handoff_from is None
    budget = classify(rec("invoke_agent a", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a",
        "gen_ai.agent.iteration_budget.limit": 5, "gen_ai.agent.iteration_budget.consumed": 5}))
    assert budget.limit == "max_steps" and budget.error is None
    denied = classify(rec("execute_tool wipe", {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "wipe",
        "gen_ai.tool.call.decision": "deny"}))
    assert denied.decision == "deny"


def test_openinference_and_traceloop_dialects() -> None:
    oi = "openinference.instrumentation.openai_agents"
    wrapper = classify(rec("Agent workflow", {"openinference.span.kind": "AGENT"}, scope_name=oi))
    assert (wrapper.kind, wrapper.agent) == ("agent", None)
    agent = classify(rec("billing", {"openinference.span.kind": "AGENT", "agent.name": "billing",
                                     "graph.node.parent_id": "triage"}, scope_name=oi))
    assert (agent.agent, agent.handoff_from) == ("billing", "triage")
    handoff = classify(rec("handoff to billing", {"openinference.span.kind": "TOOL"},
                           scope_name=oi))
    assert (handoff.kind, handoff.handoff_to) == ("handoff", "billing")
    llm = classify(rec("generation", {"openinference.span.kind": "LLM", "llm.model_name": "m",
                                      "llm.token_count.prompt": 3,
                                      "llm.token_count.completion": 2}))
    assert (llm.kind, llm.model, llm.input_tokens, llm.output_tokens) == ("llm", "m", 3, 2)
    node = classify(rec("agent", {"openinference.span.kind": "AGENT",
                                  "metadata": '{"ls_integration": "langgraph", '
                                              '"langgraph_node": "agent"}'}))
    assert node.kind == "other"  # a LangGraph node, not an agent
    task = classify(rec("research.task", {"traceloop.span.kind": "task",
                                          "gen_ai.operation.name": "invoke_agent"}))
    assert task.kind == "other"  # Traceloop CrewAI tasks say invoke_agent too
    crew = classify(rec("crewai.workflow", {"traceloop.span.kind": "workflow",
                                            "gen_ai.operation.name": "invoke_agent"}))
    assert crew.kind == "workflow"
    unknown = classify(rec("FakeChat.chat", {"gen_ai.operation.name": "chat",
                                             "gen_ai.request.model": "unknown"}))
    assert unknown.model is None


def test_smolagents_names_from_span_names_and_answer_tool() -> None:
    scope = {"scope_name": "openinference.instrumentation.smolagents"}
    run = {"openinference.span.kind": "AGENT", "smolagents.max_steps": 3}
    named = classify(rec("billing.run", run, **scope))
    assert (named.kind, named.agent, named.step_limit) == ("agent", "billing", 3)
    assert classify(rec("ToolCallingAgent.run", run, **scope)).agent is None  # a class name
    answer = {"openinference.span.kind": "TOOL", "tool.name": "final_answer"}
    assert classify(rec("FinalAnswerTool", answer, **scope)).kind == "other"
    real = classify(rec("_Tool", {**answer, "tool.name": "get_weather"}, **scope))
    assert (real.kind, real.tool) == ("tool", "get_weather")
    # the same shapes from another OpenInference library keep the generic reading
    assert classify(rec("final_answer", answer)).kind == "tool"


def test_llama_index_reads_only_the_agent_name_from_a_turns_input() -> None:
    scope = {"scope_name": "openinference.instrumentation.llama_index"}
    chain = {"openinference.span.kind": "CHAIN"}
    secret = "CANARY-7f3a my card is 4111"
    event = f"AgentInput(input=[ChatMessage(text='{secret}')], current_agent_name='billing')"
    marker = classify(rec("AgentWorkflow.setup_agent", {**chain, "input.value": event}, **scope))
    assert (marker.kind, marker.agent, marker.turn) == ("other", "billing", True)
    assert secret not in repr(marker)  # the prompt beside the name is not kept
    hidden = classify(rec("BaseWorkflowAgent.setup_agent", chain, **scope))  # inputs hidden
    assert (hidden.agent, hidden.turn) == (None, False)
    assert classify(rec("AgentWorkflow.run", chain, **scope)).kind == "workflow"
    llm = {"openinference.span.kind": "LLM", "llm.model_name": "m"}
    assert classify(rec("OpenAILike._prepare_chat_with_tools", llm, **scope)).kind == "other"
    assert classify(rec("OpenAILike.achat", llm, **scope)).kind == "llm"
    handoff = classify(rec("FunctionTool.acall", {"openinference.span.kind": "TOOL",
                                                  "tool.name": "handoff"}, **scope))
    assert (handoff.tool, handoff.handoff_tool) == ("handoff", True)


def test_crewai_coworker_tools_name_only_their_coworker() -> None:
    scope = {"scope_name": "openinference.instrumentation.crewai"}
    secret = "CANARY-91bd refund card 4111"
    args = json.dumps({"task": secret, "context": secret, "coworker": "billing"})
    tool_attrs = {"openinference.span.kind": "TOOL", "tool.name": "Delegate work to coworker",
                  "input.value": args}
    step = classify(rec("Delegate work to coworker.run", tool_attrs, **scope))
    assert (step.kind, step.handoff_tool, step.handoff_hint) == ("tool", True, "billing")
    assert secret not in repr(step)
    plain = classify(rec("get_weather.run", {**tool_attrs, "tool.name": "get_weather"}, **scope))
    assert (plain.handoff_tool, plain.handoff_hint) == (False, None)
    listener = scope["scope_name"] + "._event_listener"
    kickoff = classify(rec("crew.kickoff", {"openinference.span.kind": "CHAIN"},
                           scope_name=listener))
    assert kickoff.kind == "workflow"
    agent = classify(rec("looper._execute_core", {"openinference.span.kind": "AGENT",
                                                  "graph.node.id": "looper"}, **scope))
    assert (agent.kind, agent.agent) == ("agent", "looper")


def test_agent_framework_workflow_edges() -> None:
    scope = {"scope_name": "agent_framework"}
    edge = classify(rec("edge_group.process SingleEdgeGroup",
                        {"message.source_id": "triage", "message.target_id": "billing"}, **scope))
    assert (edge.kind, edge.handoff_from, edge.handoff_to) == ("handoff", "triage", "billing")
    start = classify(rec("edge_group.process InternalEdgeGroup",
                         {"message.source_id": "internal:triage", "message.target_id": "triage"},
                         **scope))
    assert start.kind == "other"
    untargeted = classify(rec("edge_group.process SingleEdgeGroup",
                              {"message.source_id": "triage"}, **scope))
    assert untargeted.kind == "other"
    assert classify(rec("workflow.run", {}, **scope)).kind == "workflow"
    agent = classify(rec("invoke_agent triage", {"gen_ai.operation.name": "invoke_agent",
                                                 "gen_ai.agent.name": "triage"}, **scope))
    assert (agent.kind, agent.agent) == ("agent", "triage")


def test_semantic_kernel_finish_reasons_and_transfer_functions() -> None:
    scope = {"scope_name": "semantic_kernel.functions.kernel_function"}
    transfer = classify(rec("execute_tool Handoff-transfer_to_billing",
                            {"gen_ai.operation.name": "execute_tool",
                             "gen_ai.tool.name": "Handoff-transfer_to_billing"}, **scope))
    assert (transfer.tool, transfer.handoff_tool, transfer.handoff_hint) == (
        "Handoff-transfer_to_billing", True, "billing")
    plain = classify(rec("execute_tool Weather-get_weather",
                         {"gen_ai.operation.name": "execute_tool",
                          "gen_ai.tool.name": "Weather-get_weather"}, **scope))
    assert (plain.tool, plain.handoff_tool) == ("Weather-get_weather", False)
    chat = classify(rec("chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                                   "gen_ai.response.finish_reason": "FinishReason.TOOL_CALLS"},
                        scope_name="semantic_kernel.utils.telemetry.model_diagnostics.decorators"))
    assert (chat.kind, chat.finish_reason) == ("llm", "tool_calls")


def test_mcp_requests() -> None:
    """mcp 2.x: a tools/call is a tool call on either side (the server's half joins the
    caller's run by the root rule: tests/test_server_half.py); listings are not calls."""
    client = classify(rec("MCP send tools/call get_weather", {"mcp.method.name": "tools/call"},
                          kind=2))
    assert (client.kind, client.tool) == ("tool", "get_weather")
    server = classify(rec("tools/call lookup_order", {
        "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup_order", "error.type": "tool_error"},
        kind=1, parent_remote=True))
    assert (server.kind, server.tool, server.error) == ("tool", "lookup_order", "tool_error")
    listing = classify(rec("MCP send tools/list", {"mcp.method.name": "tools/list"}, kind=2))
    assert listing.kind == "other"


def test_langfuse_js_fails_by_level_and_leaves_untyped_spans_to_inference() -> None:
    """The Langfuse JavaScript SDK says a failure by `level: ERROR` alone (no ERROR status), and
    types its LangChain agent's run a plain `span`: the table reads the first, inference the
    second (the table claims no span it has no word for)."""
    scope = {"scope_name": "langfuse-sdk"}
    tool = classify(rec("lookup_order", {"langfuse.observation.type": "tool",
                                         "langfuse.observation.level": "ERROR"}, **scope))
    assert (tool.kind, tool.tool, tool.error) == ("tool", "lookup_order", "_OTHER")
    call = classify(rec("ChatOpenAI", {"langfuse.observation.type": "generation",
                                       "langfuse.observation.model.name": "gpt-500",
                                       "langfuse.observation.level": "ERROR"}, **scope))
    assert (call.kind, call.model, call.error) == ("llm", "gpt-500", "_OTHER")
    ok = classify(rec("get_time", {"langfuse.observation.type": "tool"}, **scope))
    assert (ok.kind, ok.error) == ("tool", None)
    run = Classifier().classify(rec("weather", {"langfuse.observation.type": "span",
                                   "langfuse.observation.metadata.lc_agent_name": "weather"},
                       **scope))
    assert (run.kind, run.inferred, run.agent) == ("other", "candidate", "weather")


@pytest.mark.parametrize("placeholder", ["none", "None", "null", "unknown", ""])
def test_a_failed_calls_placeholder_response_model_names_no_model(placeholder: str) -> None:
    """Spring AI sets `gen_ai.response.model` to "none" when the call failed: the model asked
    for names the step, as when no response model is there."""
    step = classify(rec("chat gpt-500", {"gen_ai.operation.name": "chat",
                                         "gen_ai.request.model": "gpt-500",
                                         "gen_ai.response.model": placeholder},
                        status_code=STATUS_ERROR))
    assert step.model == "gpt-500"


def test_openinference_failed_call_model_from_invocation_parameters() -> None:
    step = classify(rec("ChatCompletion", {"openinference.span.kind": "LLM",
                                           "llm.invocation_parameters": '{"model": "m"}'}))
    assert step.model == "m"


def test_logfire_log_records_and_agents_templates() -> None:
    """A Logfire log record never counts, even with a model call's GenAI attributes; the Agents
    SDK rendering is read from message templates and plain attributes."""
    log = classify(rec("streaming response from {request_data[model]!r}", {
        "logfire.span_type": "log", "gen_ai.operation.name": "chat"}, scope_name="logfire.openai"))
    assert log.kind == "other"
    scope = {"scope_name": "logfire.openai_agents"}
    looper = classify(rec("Agent run: {name!r}", {
        "logfire.msg_template": "Agent run: {name!r}", "name": "looper",
        "error": '{"message": "Max turns exceeded", "data": {"max_turns": 2}}'},
        status_code=2, **scope))
    assert (looper.kind, looper.agent, looper.error, looper.limit) == (
        "agent", "looper", "_OTHER", "max_steps")
    fn = classify(rec("Function: {name}", {"logfire.msg_template": "Function: {name}",
                                            "name": "get_weather"}, **scope))
    assert (fn.kind, fn.tool) == ("tool", "get_weather")
    handoff = classify(rec("Handoff: {from_agent} → {to_agent}", {
        "logfire.msg_template": "Handoff: {from_agent} → {to_agent}",
        "from_agent": "triage", "to_agent": "billing"}, **scope))
    assert (handoff.kind, handoff.handoff_from, handoff.handoff_to) == (
        "handoff", "triage", "billing")


def test_openlit_handoff_and_sentence_error_types() -> None:
    scope = {"scope_name": "openlit.instrumentation.openai_agents"}
    handoff = classify(rec("invoke_agent billing", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing",
        "gen_ai.agent.source": "triage"}, **scope))
    assert (handoff.kind, handoff.handoff_from, handoff.handoff_to) == (
        "handoff", "triage", "billing")
    run = classify(rec("invoke_agent billing", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing"}, **scope))
    assert (run.kind, run.agent) == ("agent", "billing")
    looper = classify(rec("invoke_agent looper", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "looper",
        "error.type": "Max turns exceeded"}, status_code=2,
        status_description="Max turns exceeded", **scope))
    assert (looper.error, looper.limit) == ("_OTHER", "max_steps")  # a message is no label


def test_vercel_ai_legacy_operations() -> None:
    run = classify(rec("ai.generateText", {"ai.operationId": "ai.generateText",
                                           "ai.telemetry.functionId": "looper"}))
    assert (run.kind, run.agent) == ("agent", "looper")
    anonymous = classify(rec("ai.streamText", {"ai.operationId": "ai.streamText"}))
    assert (anonymous.kind, anonymous.agent) == ("agent", None)  # no functionId: no agent
    call = classify(rec("ai.generateText.doGenerate", {
        "ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "m",
        "gen_ai.response.finish_reasons": ["tool-calls"]}))
    assert (call.kind, call.model, call.finish_reason) == ("llm", "m", "tool-calls")
    tool = classify(rec("ai.toolCall", {"ai.operationId": "ai.toolCall",
                                        "ai.toolCall.name": "get_weather"}))
    assert (tool.kind, tool.tool) == ("tool", "get_weather")


@pytest.mark.parametrize("flat", ['["tool-calls"]', "['tool_call']", "tool_calls"])
def test_finish_reasons_flattened_into_a_string(flat: str) -> None:
    step = classify(rec("chat m", {"gen_ai.operation.name": "chat",
                                   "gen_ai.response.finish_reasons": flat}))
    assert step.finish_reason == flat.strip("[]'\"")


def test_placeholder_error_type_defers_to_the_exception_event() -> None:
    step = classify(rec("execute_tool t", {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t",
        "error.type": "unknown"}, status_code=2,
        events=(("exception", {"exception.type": "TypeError"}),)))
    assert step.error == "TypeError"


@pytest.mark.parametrize(("name", "status", "events", "error"), [
    # a GenAI tool that raised fails whatever its status (Quarkus LangChain4j leaves it
    # unset when the agent hands the error back to the model), with the exception's type
    ("execute_tool t", 0, (("exception", {"exception.type": "java.lang.IllegalStateException"}),),
     "IllegalStateException"),
    # whatever its status: an OK one says nothing (LangSmith's JS SDK marks every span OK)
    ("execute_tool t", 1, (("exception", {"exception.type": "TypeError"}),), "TypeError"),
    ("execute_tool t", 0, (), None),
    # so does a model call or an agent's run (AgentScope Java leaves the status unset)
    ("chat m", 0, (("exception", {"exception.type": "TypeError"}),), "TypeError"),
    ("chat m", 1, (("exception", {"exception.type": "TypeError"}),), "TypeError"),
    ("invoke_agent a", 0, (("exception", {"exception.type": "TypeError"}),), "TypeError"),
])
def test_a_genai_span_that_raised_failed(name: str, status: int,
                                         events: tuple[tuple[str, dict[str, str]], ...],
                                         error: str | None) -> None:
    kind, subject = name.split()
    named = {"gen_ai.tool.name": subject} if kind == "execute_tool" else {}
    step = classify(rec(name, {"gen_ai.operation.name": kind, **named}, status_code=status,
                        events=events))
    assert step.error == error


def test_an_agent_span_named_only_after_its_model_names_no_agent() -> None:
    """The AI SDK without a functionId: `invoke_agent {modelId}` is no agent name."""
    anonymous = classify(rec("invoke_agent weather-model", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "weather-model"}))
    named = classify(rec("invoke_agent weather", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "weather-model"}))
    assert (anonymous.kind, anonymous.agent, named.agent) == ("agent", None, "weather")
