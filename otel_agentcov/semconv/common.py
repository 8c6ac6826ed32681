"""What the package reads of a span's fields beside the core: names bounded (`clip`), error
names and their limits, hand-off tools, tool definitions, placeholders (inference, trials, content
checks and recommendations use them).

The fields every convention entry shares are read by the core (core/src/classify/fields.rs,
the core `Classifier.build`); their Python reading is the tests' oracle (tests/_fields.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import compiled
from .limits import says_max_steps
from .step import MAX_STEPS, TIMEOUT, Step

PLACEHOLDER_AGENT_NAMES = frozenset({"OpenAI Agent", "Agent", ""})
# Traceloop with models that report no name; Spring AI's failed call answers with model "none"
PLACEHOLDER_MODELS = frozenset({"unknown", "", "none", "None", "null"})
# OpenAI Agents merges parallel tool calls into one `(merged tools)` span: no tool of its own
PLACEHOLDER_TOOLS = frozenset({"(merged tools)"})
_CLASS_REPR = re.compile(r"<class '([^'\s]+)(?:'>|$)")  # '>' may be past the clipped end
# finish reasons of a model turn that asked for tools (an agent run ending on one was cut short)
TOOL_CALL_FINISHES = frozenset({"tool-calls", "tool_calls", "tool_call", "tool_use"})
# tools that end their agent's run on purpose (Semantic Kernel's hand-off orchestration names
# them `<plugin>-complete_task`): a run ending on one was not cut short
FINISHING_TOOLS = frozenset({"complete_task"})


def finishes_run(tool: str | None) -> bool:
    return tool is not None and tool.rsplit("-", 1)[-1] in FINISHING_TOOLS


UNKNOWN_AGENT = "unknown_agent"
MAX_NAME_CHARS = 256  # names become state keys and metric labels: bound them at the source
MAX_COUNT = 2**63 - 1  # token counts are int64 on the wire; bigger values would overflow floats


def clip(name: str) -> str:
    """Bound a name and make it encodable: a lone surrogate in one label would fail every scrape."""
    if not name.isascii():
        name = name.encode("utf-8", "replace").decode("utf-8")
    return name if len(name) <= MAX_NAME_CHARS else name[:MAX_NAME_CHARS]


def is_handoff_tool(name: str) -> bool:
    """A tool whose call hands control to another agent (`transfer_to_agent`, `transfer_to_X`,
    also as a plugin's function): the core's reading (`compiled.handoff`)."""
    return compiled.handoff(name)[0]


def mark_handoff(step: Step, tool: str) -> None:
    """A hand-off tool's call hands control over; `transfer_to_X` says to whom, the hint the
    assembler follows to X's run (the core's reading, as a table's tool step gets it)."""
    handoff, hint = compiled.handoff(tool)
    if handoff:
        step.handoff_tool = True
        if hint is not None:
            step.handoff_hint = hint


def short_error_name(raw: str) -> str:
    """`"<class 'openai.RateLimitError'>"` and `openai.RateLimitError` become `RateLimitError`;
    a sentence (OpenLIT puts the message there) is no type: `_OTHER`, never a label; clipped,
    since it becomes a state key like any name."""
    text = raw.strip()
    match = _CLASS_REPR.fullmatch(text[: 4 * MAX_NAME_CHARS])
    if match:
        text = match.group(1)
    if any(c.isspace() for c in text):
        return "_OTHER"
    return clip(text.rsplit(".", 1)[-1] or "_OTHER")


def error_limit(error: str, texts: Sequence[str | None] = ()) -> str | None:
    """The limit a failure signals, from the error name and the failure's texts alone (trials
    have no span): the name first, then a timeout by name, then the texts (semconv/limits.py)."""
    if says_max_steps((error,), (error, *texts)):
        return MAX_STEPS
    if "timeout" in error.lower() or error == "DeadlineExceeded":
        return TIMEOUT
    return MAX_STEPS if says_max_steps(texts, (error, *texts)) else None


def as_str(value: Any) -> str | None:
    """A non-empty string attribute, clipped, else None (wrong types are ignored, not trusted)."""
    return clip(value) if isinstance(value, str) and value else None


def agent_name(
    attrs: Mapping[str, Any], span_name: str, prefix: str = "invoke_agent "
) -> str | None:
    """An agent span's name from its attributes, else its span name; placeholders are no name,
    and neither is a span name that only repeats the model (`invoke_agent gpt-4o`: the AI SDK
    names an agent span after its model when the call has no `functionId`)."""
    for key in ("gen_ai.agent.name", "agent_name", "agent.name"):
        name = as_str(attrs.get(key))
        if name:
            break
    else:
        name = clip(span_name[len(prefix) :].strip()) if span_name.startswith(prefix) else None
        if name is not None and name == attrs.get("gen_ai.request.model"):
            return None
    return None if name is None or name in PLACEHOLDER_AGENT_NAMES else name


def parse_json(value: Any) -> Any:
    """Parse captured JSON content; anything odd (bad, absurdly deep) counts as not captured."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def tool_definitions(attrs: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, definition) of each tool offered to the model: GenAI `gen_ai.tool.definitions`
    (flat, or OpenAI-style under `function`), else pydantic-ai `model_request_parameters`."""
    defs = parse_json(attrs.get("gen_ai.tool.definitions"))
    if defs is None:
        params = parse_json(attrs.get("model_request_parameters"))
        if isinstance(params, dict):
            defs = _list(params.get("function_tools")) + _list(params.get("output_tools"))
    if isinstance(defs, list):
        for item in defs:
            if isinstance(item, dict):
                fn = item.get("function")
                body = fn if isinstance(fn, dict) else item
                name = body.get("name")
                if isinstance(name, str) and name:
                    yield clip(name), body
