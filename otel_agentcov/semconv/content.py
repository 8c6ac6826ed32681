"""Content of one span, read only when a declared check needs it (docs/contracts.md,
docs/narrative.md).

Output text, user input text and tool-call arguments in every convention family classify
reads: GenAI messages and events, OpenInference flattened messages and `input.value`,
Traceloop indexed prompts/completions, pydantic-ai `final_result` / `tool_arguments`.
Nothing here is a label or a state key: it lives on the Step until the run is judged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..records import SpanRecord
from .common import parse_json, tool_definitions
from .step import AGENT, LLM, TOOL, StepContent

MAX_TEXT = 64 * 1024  # characters of a text kept and scanned (docs/contracts.md)
_CALL_KEYS = frozenset({"args", "kwargs", "sanitize_inputs_outputs"})
# a serialized attribute past this is not parsed at all: it counts as not captured (unknown)
MAX_RAW = 1024 * 1024
# the attributes an answer comes in: one past MAX_RAW is an answer too long to read, which a
# narrative check counts as `unverifiable (too long)`, never as not captured
_OUTPUT_KEYS = ("gen_ai.output.messages", "final_result", "output.value")
_DEFINITION_KEYS = ("gen_ai.tool.definitions", "model_request_parameters")
# where a definition holds its input schema: GenAI / OpenAI, Anthropic, Vercel AI, pydantic-ai
_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parameters_json_schema")

_OI_OUT = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.(role|content|contents\.\d+\.message_content\.text)$"
)
# OpenInference also splits a message into parts: `.message.contents.M.message_content.text`
_OI_IN = re.compile(
    r"^llm\.input_messages\.(\d+)\.message\.(role|content|contents\.\d+\.message_content\.text)$"
)
_TL_OUT = re.compile(r"^gen_ai\.completion\.(\d+)\.(role|content)$")
_TL_IN = re.compile(r"^gen_ai\.prompt\.(\d+)\.(role|content)$")


def step_content(record: SpanRecord, kind: str) -> StepContent | None:
    """The content of an LLM, agent or tool span; None when it carries none. Content too deeply
    nested to walk counts as not captured: it must never cost the span its coverage."""
    try:
        return _step_content(record, kind)
    except RecursionError:
        return None


def _step_content(record: SpanRecord, kind: str) -> StepContent | None:
    if kind == TOOL:
        args = tool_arguments(record)
        return None if args is None else StepContent(args=args)
    if kind != LLM and kind != AGENT:
        return None
    output, user_input = output_text(record, kind), input_text(record, kind)
    too_long = output is None and any(
        isinstance(v, str) and len(v) > MAX_RAW
        for v in map(record.attributes.get, _OUTPUT_KEYS))
    schemas = tool_schemas(record.attributes)
    if output is None and user_input is None and not too_long and not schemas:
        return None
    return StepContent(output=output, input=user_input, output_too_long=too_long,
                       schemas=schemas or None)


def tool_schemas(attrs: Mapping[str, Any]) -> dict[str, str]:
    """Tool -> input schema (canonical JSON) of the tools a span offered the model, for argument
    coverage (docs/report.md#argument-coverage); a definition without an object schema has none."""
    raw = tuple(attrs.get(k) for k in _DEFINITION_KEYS)
    if raw == (None, None) or any(isinstance(v, str) and len(v) > MAX_RAW for v in raw):
        return {}
    if sum(len(v) if isinstance(v, str) else 0 if v is None else _UNCACHED for v in raw
           ) <= _CACHED_CHARS:
        return _schemas_of(raw)  # every chat span of a run offers the same definitions
    return _schemas(attrs)


_CACHED_CHARS = 64 * 1024  # definitions up to this are cached (64 of them: at most 4 MiB)
_UNCACHED = _CACHED_CHARS + 1  # a value that is neither a string nor absent is never cached


@lru_cache(maxsize=64)
def _schemas_of(raw: tuple[Any, ...]) -> dict[str, str]:
    return _schemas(dict(zip(_DEFINITION_KEYS, raw, strict=True)))


def _schemas(attrs: Mapping[str, Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, body in tool_definitions(attrs):
        schema = next((body[k] for k in _SCHEMA_KEYS if isinstance(body.get(k), dict)), None)
        if schema is not None and name not in found:
            found[name] = json.dumps(schema, sort_keys=True)
    return found


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT]


def _join(texts: list[str]) -> str:
    return _clip("\n".join(texts))


def _loads(value: Any) -> Any:
    """A JSON attribute parsed, a plain-text one kept as text; too big counts as not captured."""
    if isinstance(value, str):
        if len(value) > MAX_RAW:
            return None
        parsed = parse_json(value)
        return value if parsed is None and value.strip() not in ("", "null") else parsed
    return value


def _texts(value: Any, out: list[str]) -> None:
    """Collect the text of a content value: a string, GenAI `parts`, content blocks
    (`{"text": ...}`), OpenAI-style `content`, LangChain `data.content`; tool calls are skipped."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            _texts(item, out)
    elif isinstance(value, Mapping):
        kind = value.get("type")
        if isinstance(kind, str) and kind not in ("text", "ai", "human", "AIMessage"):
            return  # tool_call, tool_call_response, image, ...
        for key in ("parts", "text", "content", "data"):
            if key in value:
                _texts(value[key], out)
                return


_ROLES = {"user": ("user", "human"), "assistant": ("assistant", "ai", "model")}


def _messages_text(value: Any, role: str | None) -> str | None:
    """Text of the messages (of `role`, if given) in a message list; None if unreadable."""
    parsed = _loads(value)
    if parsed is None:
        return None
    messages = parsed if isinstance(parsed, list) else [parsed]
    wanted = _ROLES.get(role, ()) if role is not None else None
    texts: list[str] = []
    for m in messages:
        if wanted is not None and isinstance(m, Mapping):
            said = m.get("role", m.get("type"))
            if said is not None and said not in wanted:
                continue
        _texts(m, texts)
    return _join(texts)


def _indexed_text(attrs: Mapping[str, Any], pattern: re.Pattern[str], role: str | None
                  ) -> str | None:
    """Flattened messages (`prefix.N.role`, `prefix.N.content`): their text, in index order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        match = pattern.match(key)
        if match:
            field = match.group(2)
            message = found.setdefault(int(match.group(1)), {"parts": []})
            if field == "role":
                message["role"] = value
            elif isinstance(value, str):
                message["parts"].append((key, value))
    if not found:
        return None
    texts = [
        text
        for _, m in sorted(found.items())
        if role is None or m.get("role") == role
        for _, text in sorted(m["parts"])
    ]
    return _join(texts)


def _graph_input(value: Any) -> str | None:
    """An OpenInference agent span's `input.value`: text, or a LangGraph state's user messages."""
    parsed = _loads(value)
    if isinstance(parsed, Mapping):
        if isinstance(parsed.get("messages"), list):
            return _messages_text(parsed["messages"], "user")
        if isinstance(parsed.get("task"), str):  # smolagents `run(task=...)`
            return _clip(parsed["task"])
    return _object_text(parsed)


def _object_text(parsed: Any) -> str | None:
    """The text in a JSON value; None when it holds none (an object of other fields, such as
    CrewAI's serialized agent, says nothing about the run's text: not captured)."""
    texts: list[str] = []
    if parsed is not None:
        _texts(parsed, texts)
    return _join(texts) if texts else None


def _event_text(record: SpanRecord, names: tuple[str, ...], keys: tuple[str, ...]
                ) -> str | None:
    """Content recorded as span events (GenAI v1.27–v1.36 `gen_ai.*` events)."""
    texts: list[str] = []
    seen = False
    for name, attrs in record.events:
        if name in names:
            for key in keys:
                if key in attrs:
                    text = _messages_text(attrs[key], None)
                    if text is not None:
                        seen = True
                        texts.append(text)
    return _join(texts) if seen else None


def _graph_output(value: Any) -> str | None:
    """An OpenInference agent span's `output.value`: text, or a LangGraph state whose last
    message is the answer."""
    parsed = _loads(value)
    if isinstance(parsed, Mapping) and isinstance(parsed.get("messages"), list):
        parsed = parsed["messages"][-1:]
    return _object_text(parsed)


def output_text(record: SpanRecord, kind: str) -> str | None:
    """The text a span produced, first convention that has it; None if not captured."""
    attrs = record.attributes
    if kind == AGENT:
        final = attrs.get("final_result")  # pydantic-ai: the run's result (text or JSON)
        if isinstance(final, str):
            return _clip(final)
    if "gen_ai.output.messages" in attrs:
        return _messages_text(attrs["gen_ai.output.messages"], None)
    for pattern in (_OI_OUT, _TL_OUT):
        text = _indexed_text(attrs, pattern, None)
        if text is not None:
            return text
    if kind == AGENT and "output.value" in attrs:  # OpenInference agent span: its answer
        return _graph_output(attrs["output.value"])
    if record.events:
        return _event_text(
            record, ("gen_ai.choice", "gen_ai.content.completion"), ("message", "gen_ai.completion")
        )
    return None


def input_text(record: SpanRecord, kind: str) -> str | None:
    """The user's text among a span's input messages; None if not captured."""
    attrs = record.attributes
    if "gen_ai.input.messages" in attrs:
        return _messages_text(attrs["gen_ai.input.messages"], "user")
    for pattern in (_OI_IN, _TL_IN):
        text = _indexed_text(attrs, pattern, "user")
        if text is not None:
            return text
    if kind == AGENT and "input.value" in attrs:  # OpenInference agent span: what it was asked
        return _graph_input(attrs["input.value"])
    if record.events:
        return _event_text(record, ("gen_ai.user.message",), ("content",)) or _event_text(
            record, ("gen_ai.content.prompt",), ("gen_ai.prompt",)
        )
    return None


def tool_arguments(record: SpanRecord) -> Mapping[str, Any] | None:
    """A tool call's arguments as a mapping: GenAI `gen_ai.tool.call.arguments` (Traceloop
    LangGraph puts its whole callback input there: its `inputs`), pydantic-ai v1/v2
    `tool_arguments`, OpenInference `input.value` on TOOL spans (keyword arguments of a wrapped
    call; its `tool.parameters` is the tool's JSON Schema, not the call's arguments), Strands'
    `gen_ai.tool.message` event.
    Anything but a JSON object is not captured."""
    attrs = record.attributes
    raw: Any = None
    for key in ("gen_ai.tool.call.arguments", "tool_arguments", "input.value"):
        if key in attrs:
            raw = attrs[key]
            break
    else:
        raw = next((a.get("content") for n, a in record.events if n == "gen_ai.tool.message"), None)
    if isinstance(raw, str) and len(raw) > MAX_TEXT:
        return None  # kept until judged like the texts, so bounded like them: not captured
    parsed = _loads(raw)
    if not isinstance(parsed, dict):
        return None
    inputs, kwargs = parsed.get("inputs"), parsed.get("kwargs")
    if "input_str" in parsed and isinstance(inputs, dict):
        return inputs
    # LlamaIndex / smolagents under OpenInference: {"args": [], "kwargs": {...}, ...}
    if isinstance(kwargs, dict) and not parsed.get("args") and set(parsed) <= _CALL_KEYS:
        return kwargs
    return parsed
