"""The core's per-span field rules equal the Python classifier's (docs/core.md).

`_core.Classifier.build`, `_core._hook`, `_core._as_test_span` and `_core.outcome` run the
core's field rules (and the library's-own-name rule), the families' hooks, the test-span rule and
inference's reading of a failure; the oracle's Python readings of the same (`tests/_fields.py`
`build_step` and `library_named`, `tests/_hooks/`, its
`testspans.as_test_span`, `tests/_errors.py` `outcome`) run on the same SpanRecords; every
Step field must be equal, on every span of every recorded fixture (each kind) and on hostile
generated spans, which hold every class of value a span can carry (big ints, lists, lone surrogates,
objects of other classes: docs/core.md#values).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _builders import renamed_sdk_span
from _errors import outcome
from _fields import HANDOFF_TOOLS, TRANSFER_PREFIX, build_step, library_named, mark_handoff
from _hooks import HOOKS, testspans
from _strategies import KNOWN_KEYS, SCOPES, attributes, names, records
from _trace_files import demo_spans
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
)

from otel_agentcov import _core
from otel_agentcov.readers.files import read_trace_file
from otel_agentcov.records import SpanRecord, from_readable_span
from otel_agentcov.semconv.step import AGENT, KINDS, TOOL, Step

FIXTURES = Path(__file__).parent / "fixtures"
I64 = 2**63
FIELDS = tuple(f.name for f in dataclasses.fields(Step))


FIXTURE_FILES = sorted(p for p in FIXTURES.glob("*/*.json") if p.stem != "versions")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _fields(step: Step | None) -> tuple[Any, ...] | None:
    """Every field of the step; floats also by repr (-0.0 and 0.0 print differently)."""
    if step is None:
        return None
    return (*(getattr(step, name) for name in FIELDS), repr(step.cost_usd), repr(step.scores))


def _copy(step: Step) -> Step:
    """The Python hooks change the step they get: each side gets its own."""
    return dataclasses.replace(step)


def _calls(record: SpanRecord) -> Iterator[tuple[str, str | None, str | None]]:
    """(kind, agent, tool) as the table entries call build_step: names only for agent and tool
    spans, and tool names that hand control over. A name is passed as the core reads one (a
    lone surrogate as `?`): in the product these come from the core's own reading of the span,
    never from Python, so a name no UTF-8 holds is not an argument either side is given."""
    name = record.name[:256].encode("utf-8", "replace").decode()
    for kind in KINDS:
        if kind == AGENT:
            yield kind, name or None, None
            yield kind, None, None
        elif kind == TOOL:
            for tool in (name or "t", "transfer_to_agent", "transfer_to_x",
                         "Handoff-transfer_to_y", "transfer_to_"):
                yield kind, None, tool
        else:
            yield kind, None, None


# a classifier of no entries and no declared agent: its `build` is the field rules alone
_FIELDS_ONLY = _core.Classifier([], True, Step)
# state attributes the field rules read nothing else from: the core converts a span's attributes
# only under the keys its rules read and these, so the rules' key list is checked too
STATE_ATTRIBUTES = ["missing", "tool.name", "message.source_id", "gen_ai.usage.input_tokens"]


def assert_same_fields(record: SpanRecord) -> None:
    state = STATE_ATTRIBUTES
    for kind, agent, tool in _calls(record):
        python = build_step(record, kind, state, agent=agent, tool=tool)
        core = _FIELDS_ONLY.build(record, kind, state, agent, tool)
        assert type(core) is Step
        assert _fields(core) == _fields(library_named(_copy(python), record)), (
            kind, agent, tool)
        assert _fields(_core._as_test_span(record, core, state)) == _fields(
            testspans.as_test_span(record, library_named(_copy(python), record), state))
        for name, hook in HOOKS.items():
            want = hook(record, _copy(python), state)
            got = _core._hook(name, record, python, state)
            assert _fields(got) == _fields(want), (name, kind)
    for flag in (None, "TimeoutError"):  # inference's reading of how the span failed
        assert _core.outcome(record, flag) == outcome(record, flag), flag


def _sdk_spans() -> list[ReadableSpan]:
    """Real SDK spans: the demo workload's, and one of every field the reader reads."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "svc", "n": 1.5}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("scope-x", "1.0")
    remote = SpanContext(2**127 + 1, 2**64 - 1, is_remote=True, trace_flags=TraceFlags(1))
    with tracer.start_as_current_span(
        "invoke_agent a", context=trace.set_span_in_context(NonRecordingSpan(remote)),
        kind=SpanKind.SERVER, attributes={"gen_ai.operation.name": "invoke_agent", "x": (1, 2)},
    ):  # fmt: skip
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attribute("gen_ai.response.finish_reasons", ["stop"])
            chat.add_event("gen_ai.evaluation.result", {"gen_ai.evaluation.score.value": 0.5})
            chat.add_event("exception", {"exception.type": "ValueError"})
            chat.add_event("bare")
            chat.set_status(Status(StatusCode.ERROR, "bad"))
        with tracer.start_as_current_span(""):
            pass
    provider.shutdown()
    return [*exporter.get_finished_spans(), *demo_spans(runs=5)]


def test_sdk_spans_are_read_in_place_as_their_span_records() -> None:
    spans = _sdk_spans()
    assert len(spans) > 10
    for span in spans:
        assert _core._reads_readable_as(span, from_readable_span(span)) is True, span.name


def test_a_subclass_of_the_sdk_span_is_read_through_its_properties() -> None:
    """It may override them (this one renames its span): the core reads what they say."""
    span = renamed_sdk_span()
    assert _core._reads_readable_as(span, from_readable_span(span)) is True


@settings(max_examples=100)
@given(st.builds(
    ReadableSpan, names, context=st.builds(SpanContext, st.integers(0, 2**128 - 1),
                                           st.integers(0, 2**64 - 1), st.booleans()),
    parent=st.none() | st.builds(SpanContext, st.integers(0, 3), st.integers(0, 3), st.booleans()),
    attributes=attributes, start_time=st.none() | st.integers(0, 2**64 - 1),
    end_time=st.none() | st.integers(0, 2**64 - 1),
    events=st.lists(st.builds(Event, names, attributes), max_size=2),
))  # fmt: skip
def test_hostile_sdk_spans_are_read_in_place_as_their_span_records(span: ReadableSpan) -> None:
    record = from_readable_span(span)
    assert _core._reads_readable_as(span, record) is True


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_fixture_span_has_the_same_fields_in_the_core(path: Path) -> None:
    spans = list(read_trace_file(str(path)))
    assert spans
    for record in spans:
        assert_same_fields(record)


# --- hostile spans ---

ODD_JSON = (
    '[{"role":"user","parts":[{"type":"text","content":" \\u001c hi\\u3000"}]}]',
    '[{"role":"user","parts":[{"type":"text","content":"\\ud800x"}]}]',
    '[{"role":"assistant","parts":[{"type":"tool_call","name":"\\udc00t"}]}]',
    '[{"type":"function","function":{"name":"f"}},{"name":"g"},{"function":null,"name":"h"}]',
    '{"function_tools":[{"name":"a"}],"output_tools":[{"name":"b"}],"x":NaN}',
    '{"message":"Max Turns Exceeded (10)","message":"max turns exceeded"}',
    '{"ls_integration":"langgraph","langgraph_node":"agent"}',
    '{"ls_integration":"langgraph","langgraph_node":1}', '{"ls_integration":"langgraph"}',
    "[1e400, -Infinity, 12345678901234567890123]", "[01]", "[1,]", '"\\ud834\\udd1e"',
    "[" * 150 + "]" * 150, "[" * 1200 + "]" * 1200, '{"a":' * 120 + "1" + "}" * 120,
    "\ufeff[]", '["\t"]', "1" * 5000, " [ ] ", "{}", "[]", "null",
)  # fmt: skip
json_texts = st.one_of(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(),
                  st.text(max_size=8)),
        lambda inner: st.one_of(st.lists(inner, max_size=3),
                                st.dictionaries(st.text(max_size=6), inner, max_size=3)),
        max_leaves=10,
    ).map(json.dumps),
    st.sampled_from(ODD_JSON),
)
# texts that Python reads unlike a naive port: its whitespace, case rules, slicing, JSON
ODD_TEXTS = (
    "<class 'openai.RateLimitError'>", "<class 'a.B", "<class 'a b'>", "openai.", "Timeout",
    "UNKNOWN", "unkno\u212an", "FinishReason.TOOL_CALLS", "FinishReason.\u0130X", "['stop', 'x']",
    '["length"]', "\x1c\x1d", "\x1fError\x1e", "  ", "current_agent_name='billing' x",
    "current_agent_name='' current_agent_name='b\\c' current_agent_name='ok'", "\u00df",
    "\u03a3\u03a3", '{"current_agent_name":\u3000"triage"}', "a" * 300, "\u00e9" * 300,
    "Handoff-transfer_to_z", "\u1680\u2028", "18446744073709551616", "0012", "\u0661\u0662",
    "max turns exceeded", "Max turns (2) exceeded", "Max Iterations of 3", "DeadlineExceeded",
    "GraphRecursionError",
    "transfer_to_", "OpenAI Agent", "unknown", "", "x::y", "error", "agent", "langgraph",
    '{"ls_integration":"langgraph","langgraph_node":"chat"}',
)  # fmt: skip
texts = st.one_of(
    names.filter(lambda name: _encodable(name)), json_texts, st.sampled_from(ODD_TEXTS))
exact_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-I64, I64 - 1), st.floats(), texts,
    st.binary(max_size=8),
)  # fmt: skip
exact_values = st.recursive(
    exact_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(texts, inner, max_size=3)),
    max_leaves=8,
)
ATTRIBUTE_KEYS = (
    *KNOWN_KEYS, "gen_ai.request.model", "metadata", "error", "input.value",
    "traceloop.entity.output", "haystack.agent.max_steps", "haystack.agent.steps_taken",
    "gen_ai.agent.iteration_budget.limit", "gen_ai.agent.iteration_budget.consumed",
    "gen_ai.caller.name", "gen_ai.caller.type", "graph.node.parent_id", "gen_ai.agent.version",
    "test.case.name", "exception.message", "llm.token_count.prompt", "llm.token_count.completion",
    "service.version", "traceloop.span.kind",
)  # fmt: skip
exact_attributes = st.dictionaries(st.sampled_from(ATTRIBUTE_KEYS), exact_values, max_size=8)


@st.composite
def exact_records(draw: st.DrawFn) -> SpanRecord:
    """Hostile spans the core takes: every value of a type it holds, odd in every other way."""
    start = draw(st.integers(0, 2**64 - 1))
    return SpanRecord(
        trace_id=draw(st.integers(0, 2**128 - 1)), span_id=draw(st.integers(0, 2**64 - 1)),
        parent_id=draw(st.none() | st.integers(0, 2**64 - 1)), parent_remote=draw(st.booleans()),
        name=draw(texts), kind=draw(st.integers(0, 5)), start_ns=start, end_ns=start,
        status_code=draw(st.integers(0, 2)), status_description=draw(st.none() | texts),
        attributes=draw(exact_attributes),
        events=draw(st.lists(st.tuples(
            st.sampled_from(("exception", "gen_ai.evaluation.result", "other")),
            st.fixed_dictionaries({}, optional={
                "exception.type": texts, "exception.message": texts,
                "gen_ai.evaluation.score.value": exact_scalars}),
        ), max_size=3).map(tuple)),
        scope_name=draw(st.sampled_from((*SCOPES, "pytest-opentelemetry.x"))),
        resource_attributes=draw(st.dictionaries(
            st.sampled_from(("service.name", "service.version", "test.case.name")),
            exact_values)),
    )  # fmt: skip


@pytest.mark.parametrize("text", [*ODD_TEXTS, *ODD_JSON])
def test_odd_texts_in_every_field_have_the_same_fields_in_the_core(text: str) -> None:
    """Each odd text in every attribute the rules read, in the events and the status text."""
    for key in ATTRIBUTE_KEYS:
        record = SpanRecord(
            1, 2, None, text, status_code=2, status_description=text,
            attributes={key: text, "gen_ai.operation.name": "chat"},
            events=(("exception", {"exception.type": text, "exception.message": text}),),
            scope_name="pytest-opentelemetry", resource_attributes={key: text},
        )  # fmt: skip
        assert_same_fields(record)


@settings(max_examples=200)
@given(exact_records())
def test_hostile_spans_have_the_same_fields_in_the_core(record: SpanRecord) -> None:
    assert_same_fields(record)


@settings(max_examples=100)
@given(records())
def test_every_value_a_span_can_carry_has_the_same_fields_in_the_core(record: SpanRecord) -> None:
    """The shared hostile spans: lists, big ints, lone surrogates, int-keyed dicts, which once
    sent their span to the Python classifier, are read by the core alike."""
    assert_same_fields(record)


def _nested(depth: int) -> tuple[Any, ...]:
    value: tuple[Any, ...] = (1,)
    for _ in range(depth):
        value = (value,)
    return value


class _Tag(str):
    """A str subclass (an instrumentation's StrEnum member)."""


@pytest.mark.parametrize("value", [
    [1], 2**63, -(2**63) - 1, 10**40, "lone\udc80", ("\ud800", [2**64]), {1: "a"}, {"a": [1]},
    (1, [2]), True.__class__, _nested(40), _Tag("x"), object,
])  # fmt: skip
def test_values_that_once_went_to_python_print_as_python_prints_them(value: Any) -> None:
    """Each class of value the core once refused is held and printed exactly (state values)."""
    assert _core._py_str(value) == str(value)


@given(exact_values)
def test_values_print_as_python_prints_them(value: Any) -> None:
    assert _core._py_str(value) == str(value)


def test_non_ascii_strings_in_containers_are_printed_by_python() -> None:
    value = ("\u00e9", {"k\u200b": b"\xff"}, 1e16, -0.0, float("nan"))
    assert _core._py_str(value) == str(value) == _core._python_str(value)


def _lossless(value: Any) -> Any:
    """Python's json value as the core reports it: lone-surrogate strings as (text with ?, True)."""
    if isinstance(value, str):
        return value if _encodable(value) else (value.encode("utf-8", "replace").decode(), True)
    if isinstance(value, list):
        return [_lossless(v) for v in value]
    if isinstance(value, dict):
        return {_lossless(k): _lossless(v) for k, v in value.items()}
    return value


def _loads(text: str) -> Any:
    try:
        return ("ok", json.loads(text))
    except (ValueError, RecursionError):
        return ("refused", None)


@settings(max_examples=200)
@given(json_texts)
def test_json_documents_parse_as_json_loads_does(text: str) -> None:
    outcome, value = _loads(text)
    core = _core._json_loads(text)
    assert (core is not None) == (outcome == "ok"), text[:80]
    if core is not None and "[" * 101 not in text and '{"a":' * 101 not in text:
        assert repr(core[0]) == repr(_lossless(value))  # repr: NaN equals NaN, 1 is not 1.0


def test_json_deeper_than_python_allows_is_refused() -> None:
    depth = sys.getrecursionlimit() + 10
    assert _core._json_loads("[" * depth + "]" * depth) is None
    assert _core._json_loads("[" * 150 + "]" * 150) is not None


_HANDOFF_NAMES = st.one_of(
    texts, st.sampled_from((*HANDOFF_TOOLS, "transfer_to_", "Plugin-transfer_to_billing",
                            "a-handoff_to_agent", "transfer_to_agent-x", "x-y-transfer_to_z")),
    st.builds("{}{}".format, st.sampled_from(("", "Plugin-", "-")), st.builds(
        "{}{}".format, st.just(TRANSFER_PREFIX), texts)))


@settings(max_examples=300)
@given(_HANDOFF_NAMES)
def test_a_tool_names_its_hand_off_as_the_oracle_reads_it(name: str) -> None:
    """`compiled.handoff` (what inference's re-kinded steps, trials and recommendations ask)
    reads a tool's name as the oracle's `mark_handoff` does."""
    step = Step(1, 2, None, TOOL, 0, 0, "a")
    mark_handoff(step, name)
    assert _core.handoff(name) == (step.handoff_tool, step.handoff_hint)
