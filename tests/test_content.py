"""Content capture (docs/contracts.md, docs/narrative.md): read only when asked, from every
convention family.

The recorded fixtures asked every agent "weather and time in Paris?" (pydantic-ai and Strands:
"weather and time?"), got get_weather/get_time called with {"city": "Paris"}, and answered
"Sunny at noon." (pydantic-ai's FunctionModel: "done") — see fixtures/record/*.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _strategies import values
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov.assembler import AgentRun, assemble
from otel_agentcov.readers.otlp import records_from_json
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import classify
from otel_agentcov.semconv.content import MAX_TEXT
from tests.fixture_expectations import FIXTURES

PARIS = {"city": "Paris"}
# JSON text of message-like structures, so parsed content of every shape reaches the readers
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10),
              st.sampled_from(("text", "user", "assistant", "tool_call", "human", "ai"))),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(
        st.sampled_from(("role", "parts", "type", "content", "text", "data", "messages", "task",
                         "kwargs", "args", "inputs", "input_str")), inner, max_size=3)),
    max_leaves=10,
).map(json.dumps)


def _runs(library: str, content: bool = True) -> list[AgentRun]:
    path = FIXTURES / library / "two_tools.json"
    records = list(records_from_json(json.loads(path.read_text()), str(path)))
    steps = [classify(r, (), content) for r in records]
    return [run for tid in dict.fromkeys(s.trace_id for s in steps)
            for run in assemble((s for s in steps if s.trace_id == tid), content)]


@pytest.mark.parametrize(
    ("library", "output", "user_input", "args"),
    [
        ("openai_agents_contrib", "Sunny at noon.", "weather and time in Paris?", [PARIS, PARIS]),
        ("openai_agents_openinference", "Sunny at noon.", "weather and time in Paris?",
         [PARIS, PARIS]),
        ("openai_agents_traceloop", None, "weather and time in Paris?", [PARIS, PARIS]),
        ("langgraph_openinference", "Sunny at noon.", "weather and time in Paris?", []),
        ("langgraph_traceloop", "Sunny at noon.", "weather and time in Paris?", [PARIS, PARIS]),
        ("pydantic_ai", "done", "weather and time?", [PARIS, PARIS]),
        ("strands", "Sunny at noon.", "weather and time?", [PARIS, PARIS]),
        ("agent_framework_sensitive", "Sunny at noon.", "weather and time in Paris?",
         [PARIS, PARIS]),
        ("llama_index", "Sunny at noon.", "weather and time in Paris?", [PARIS, PARIS]),
        ("smolagents", "Sunny at noon.", "weather and time in Paris?", [PARIS, PARIS]),
        # CrewAI's agent span serializes the agent, not the task: no input captured
        ("crewai", "Sunny at noon.", None, [PARIS, PARIS]),
        # CrewAI (event bus) sends the task prompt it builds around the user's text
        ("crewai_events", "Sunny at noon.", "weather and time in Paris?\n\nThis is the",
         [PARIS, PARIS]),
    ],
)
def test_fixture_content_per_family(
    library: str, output: str | None, user_input: str | None, args: list[dict[str, Any]]
) -> None:
    (run,) = _runs(library)
    assert run.content is not None
    got = run.content.output
    assert (got.strip() if got is not None else None) == output
    if user_input is None:
        assert run.content.input is None
    else:  # the text the recorder sent, at the start of the captured input
        assert (run.content.input or "").startswith(user_input)
    assert list(run.content.tool_args.values()) == args
    tool_ids = {s.span_id for s in run.steps if s.kind == "tool"}
    assert set(run.content.tool_args) <= tool_ids


def test_no_content_unless_asked() -> None:
    (run,) = _runs("pydantic_ai", content=False)
    assert run.content is None
    assert all(s.content is None for s in run.steps)


def rec(name: str, attrs: dict[str, Any], events: tuple[Any, ...] = ()) -> SpanRecord:
    return SpanRecord(1, 2, None, name, attributes=attrs, events=events)


def test_traceloop_indexed_completions_and_prompts() -> None:
    step = classify(rec("openai.chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "be terse",
        "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "hi there",
        "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "hello",
    }), (), True)
    assert step.content is not None
    assert (step.content.output, step.content.input) == ("hello", "hi there")


def test_legacy_events_and_oversized_text_is_clipped() -> None:
    big = "x" * (MAX_TEXT + 10)
    step = classify(rec("chat m", {"gen_ai.operation.name": "chat"}, (
        ("gen_ai.user.message", {"content": "question"}),
        ("gen_ai.content.completion", {"gen_ai.completion": json.dumps(
            [{"role": "assistant", "content": big}])}),
    )), (), True)
    assert step.content is not None
    assert step.content.input == "question"
    assert step.content.output == "x" * MAX_TEXT


def test_arguments_that_are_not_an_object_are_not_captured() -> None:
    for raw in ("Paris", "[1, 2]", "{not json"):
        step = classify(rec("execute_tool t", {"gen_ai.operation.name": "execute_tool",
                                               "gen_ai.tool.name": "t",
                                               "gen_ai.tool.call.arguments": raw}), (), True)
        assert step.content is None


CONTENT_KEYS = (
    "gen_ai.output.messages", "gen_ai.input.messages", "gen_ai.tool.call.arguments",
    "tool_arguments", "final_result", "output.value", "input.value",
    "llm.output_messages.0.message.content", "llm.input_messages.0.message.role",
    "llm.input_messages.0.message.contents.0.message_content.text",
    "gen_ai.completion.0.content", "gen_ai.prompt.0.role", "gen_ai.prompt.0.content",
)  # fmt: skip
_KINDS = (
    {"gen_ai.operation.name": "chat"}, {"gen_ai.operation.name": "invoke_agent",
                                        "gen_ai.agent.name": "a"},
    {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"},
)  # fmt: skip


@settings(max_examples=300)
@given(st.sampled_from(_KINDS),
       st.dictionaries(st.sampled_from(CONTENT_KEYS), st.one_of(values, json_values), max_size=5),
       st.lists(st.tuples(st.sampled_from(("gen_ai.choice", "gen_ai.user.message",
                                           "gen_ai.tool.message", "gen_ai.content.completion")),
                          st.dictionaries(st.sampled_from(("message", "content",
                                                           "gen_ai.completion")),
                                          st.one_of(values, json_values), max_size=2)),
                max_size=3))
def test_content_extraction_never_raises_and_stays_bounded(
    kind: dict[str, Any], attrs: dict[str, Any], events: list[Any]
) -> None:
    """Hostile content (wrong types, odd JSON) is read or counted as not captured, never an
    error: a span classify cannot read would be dropped from coverage too."""
    step = classify(SpanRecord(1, 2, None, "x", attributes={**kind, **attrs},
                               events=tuple(events)), (), True)
    if step.content is not None:
        for text in (step.content.output, step.content.input):
            assert text is None or (isinstance(text, str) and len(text) <= MAX_TEXT)
        assert step.content.args is None or isinstance(step.content.args, dict)



def test_oversized_arguments_are_not_captured() -> None:
    big = json.dumps({"amount": 5, "note": "x" * MAX_TEXT})
    step = classify(rec("execute_tool t", {"gen_ai.operation.name": "execute_tool",
                                           "gen_ai.tool.name": "t",
                                           "gen_ai.tool.call.arguments": big}), (), True)
    assert step.content is None  # args selectors on this call say unknown
