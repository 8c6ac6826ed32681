"""Hypothesis strategies for hostile spans, shared by the property and reliability tests.

Attribute keys are the ones the adapters read (so values of every wrong type reach real code
paths) plus random ones; values are every type an SDK, an OTLP decoder or a buggy caller emits.
"""

from __future__ import annotations

from hypothesis import strategies as st

from otel_agentcov.records import SpanRecord

# every key some adapter or field rule reads (the field rules: tests/_fields.py; the adapters)
KNOWN_KEYS = (
    "gen_ai.operation.name", "gen_ai.agent.name", "agent_name", "agent.name", "gen_ai.tool.name",
    "gen_ai.request.model", "gen_ai.response.model", "llm.model_name",
    "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.prompt_tokens",
    "gen_ai.usage.completion_tokens", "gen_ai.usage.cost", "gen_ai.response.finish_reasons",
    "gen_ai.response.finish_reason", "gen_ai.tool.definitions", "model_request_parameters",
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.result",
    "gen_ai.tool.call.decision", "gen_ai.tool.status", "tool_response", "output.value",
    "gen_ai.handoff.from_agent", "gen_ai.handoff.to_agent", "gen_ai.transfer.target.name",
    "error.type", "service.name", "exception.type", "gen_ai.evaluation.score.value",
    # the framework dialects (openinference, smolagents, llama_index, crewai, agent_framework)
    "openinference.span.kind", "tool.name", "graph.node.id", "input.value",
    "smolagents.max_steps", "message.source_id", "message.target_id",
    "agentcov.fault.family",  # docs/faults.md
)  # fmt: skip
SCOPES = (
    "pydantic-ai", "other", "", "openinference.instrumentation.smolagents",
    "openinference.instrumentation.llama_index", "openinference.instrumentation.crewai",
    "agent_framework", "semantic_kernel.functions.kernel_function",
)  # fmt: skip
OPERATIONS = (
    "chat", "generate_content", "text_completion", "execute_tool", "invoke_agent",
    "invoke_workflow", "agent_handoff", "handoff", "embeddings",
)  # fmt: skip
SPAN_NAMES = (
    "chat", "chat gpt-4o", "execute_tool", "execute_tool lookup", "invoke_agent",
    "invoke_agent planner", "invoke_workflow", "agent run", "running tool", "running tools",
    "execute_tool (merged tools)", "", "billing.run", "AgentWorkflow.setup_agent",
    "crew.kickoff", "workflow.run", "edge_group.process SingleEdgeGroup",
)  # fmt: skip

# any unicode, lone surrogates included: a Python str from an SDK or json.loads can hold them
text = st.text(st.characters(codec=None), max_size=40)
huge_text = st.integers(257, 5000).map(lambda n: "x" * n)
names = st.one_of(st.sampled_from((*OPERATIONS, *SPAN_NAMES, "lone\udc80surrogate")), text,
                  huge_text)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**18, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True), names, st.binary(max_size=40),
    st.just('[{"role":"user","parts":[{"type":"text","content":"hi"}]}]'),
    st.just('[{"role":"assistant","parts":[{"type":"tool_call","name":"t"}]}]'),
    st.just('[{"type":"function","function":{"name":"f"}}]'), st.just("[" * 5000),
    st.sampled_from(("tool_exception", "budget")),  # fault families (docs/faults.md)
    st.sampled_from(("AGENT", "TOOL", "LLM", "CHAIN", "current_agent_name='a'",
                     '{"coworker": "b"}')),
)  # fmt: skip


def _containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(
        st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(text, st.integers()), inner, max_size=4),
    )


values = st.recursive(scalars, _containers, max_leaves=12)
noise = st.dictionaries(st.one_of(st.sampled_from(KNOWN_KEYS), text), values, max_size=4)
# GenAI-shaped spans most of the time, so hostile values reach the name and count rules
shaped = st.fixed_dictionaries(
    {"gen_ai.operation.name": st.sampled_from(OPERATIONS)},
    optional={key: scalars for key in KNOWN_KEYS[1:]},
)
attributes = st.one_of(noise, st.tuples(shaped, noise).map(lambda p: {**p[1], **p[0]}))
events = st.lists(
    st.tuples(st.sampled_from(("exception", "gen_ai.evaluation.result", "other")), attributes),
    max_size=3,
).map(tuple)
ids = st.one_of(st.integers(0, 4), st.integers(0, 2**64 - 1))


@st.composite
def records(draw: st.DrawFn, trace_id: int | None = None) -> SpanRecord:
    """One span with hostile ids, times, names, attributes, events and resource."""
    start = draw(st.integers(0, 2**64 - 1))
    return SpanRecord(
        trace_id=draw(ids) if trace_id is None else trace_id,
        span_id=draw(ids),
        parent_id=draw(st.none() | ids),
        parent_remote=draw(st.booleans()),
        name=draw(names),
        kind=draw(st.integers(0, 5)),
        start_ns=start,
        end_ns=draw(st.one_of(st.just(start), st.integers(0, 2**64 - 1))),
        status_code=draw(st.integers(0, 2)),
        status_description=draw(st.none() | text),
        attributes=draw(attributes),
        events=draw(events),
        scope_name=draw(st.sampled_from(SCOPES)),
        resource_attributes=draw(st.dictionaries(st.sampled_from(("service.name",)), values)),
    )


@st.composite
def corrupted(draw: st.DrawFn, payloads: st.SearchStrategy[bytes]) -> bytes:
    """Bytes drawn from `payloads` with a few flipped, inserted, deleted or cut off: what a
    decoder must refuse (or read) without crashing."""
    data = bytearray(draw(payloads))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(("flip", "insert", "delete", "truncate")))
        i = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[i : i + draw(st.integers(1, 8))]
        else:
            del data[i:]
    return bytes(data)
