"""Content capture (DESIGN §3a/§3b): read only when asked, from every convention family.

The recorded fixtures asked every agent "weather and time in Paris?" (pydantic-ai and Strands:
"weather and time?"), got get_weather/get_time called with {"city": "Paris"}, and answered
"Sunny at noon." (pydantic-ai's FunctionModel: "done") — see fixtures/record/*.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from otel_agentcov.assembler import AgentRun, assemble
from otel_agentcov.judge.content import MAX_TEXT
from otel_agentcov.readers.otlp import records_from_json
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import classify
from tests.fixture_expectations import FIXTURES

PARIS = {"city": "Paris"}


def _runs(library: str, content: bool = True) -> list[AgentRun]:
    path = FIXTURES / library / "two_tools.json"
    records = list(records_from_json(json.loads(path.read_text()), str(path)))
    steps = [classify(r, (), content) for r in records]
    return [run for tid in dict.fromkeys(s.trace_id for s in steps)
            for run in assemble(s for s in steps if s.trace_id == tid)]


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
    ],
)
def test_fixture_content_per_family(
    library: str, output: str | None, user_input: str, args: list[dict[str, Any]]
) -> None:
    (run,) = _runs(library)
    assert run.content is not None
    got = run.content.output
    assert (got.strip() if got is not None else None) == output
    assert run.content.input == user_input
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
