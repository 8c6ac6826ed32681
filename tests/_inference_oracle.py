"""The Python reading of inference's string readers, the oracle the compiled core is held equal to
(tests/test_inference_core.py); the package reads them with the core alone
(core/src/inference.rs, docs/core.md#inference-readers). The vocabulary is the package's.
"""

from __future__ import annotations

import re
from typing import Any

from otel_agentcov.semconv.inference import (
    _KIND_KEY_ENDS,
    _KIND_QUALIFIERS,
    _MAX_TAGS,
    _NOT_KIND_KEYS,
    _PROVIDER_WORDS,
    _RAN_WORDS,
    _RECORD_WORDS,
    _RUNNING,
    _TAG_KEY_ENDS,
    _TOKEN_SIDES,
    _WEAK_WORDS,
    KIND_WORDS,
    RUN_WORDS,
    _short_cached,
)
from otel_agentcov.semconv.step import TOOL

# digits glued to letters stay in their word (`ag2`, `k8s`: a vendor, not an index `x.entity.1`)
_WORD = re.compile(r"[A-Z]?[a-z][a-z0-9]*|[A-Z][A-Z0-9]*(?![a-z])|\d+[a-z0-9]*")
_CALL = re.compile(r"^\s*([A-Za-z_]\w{0,80})\.([A-Za-z_]\w{0,80})\(\)\s*$")


@_short_cached
def words(text: str) -> tuple[str, ...]:
    """`mlflow.spanType` -> (mlflow, span, type); `genkit:metadata:subtype` -> (..., subtype)."""
    return tuple(w.lower() for w in _WORD.findall(text))


@_short_cached
def _kind_key(key: str) -> tuple[str, ...] | None:
    """A kind-like key's words before its kind word (its vendor prefix), else None."""
    found = words(key)
    if found[-2:-1] and found[-2] in _KIND_KEY_ENDS and found[-1] in _KIND_QUALIFIERS:
        found = found[:-1]  # `ag.type.node`: the node's type
    if len(found) < 1 or found[-1] not in _KIND_KEY_ENDS:
        return None
    if any(w.isdigit() for w in found) and not _first_entry(found):
        return None
    if not _NOT_KIND_KEYS.isdisjoint(found[:-1]) or "gen_ai" in key:
        return None
    prefix = found[:-1]
    return prefix[:-1] if prefix[-1:] == ("span",) else prefix


@_short_cached
def tag_key(key: str) -> tuple[str, ...] | None:
    """A key holding a list of tags (`logfire.tags`, `tags`): its vendor prefix, else None."""
    found = words(key)
    return found[:-1] if found[-1:] and found[-1] in _TAG_KEY_ENDS else None


def _tag_kind(value: Any) -> tuple[str, str] | None:
    """(kind, the tag) when a list of tags names one kind: a tag that is a kind word (`LLM`),
    or a method of a kind word's class (`Tool.run()`)."""
    if not isinstance(value, (tuple, list)) or len(value) > _MAX_TAGS:
        return None
    found: dict[str, str] = {}
    for tag in value:
        call = _CALL.match(tag) if isinstance(tag, str) else None
        kind = _kind_word(call.group(1) if call is not None else tag)
        if kind is not None and isinstance(tag, str):
            found.setdefault(kind, tag)
    return next(iter(found.items())) if len(found) == 1 else None


def _first_entry(found: tuple[str, ...]) -> bool:
    """A kind key of a numbered list's first entry (`entity.1.type`: the span's own entity, the
    later ones those it works with); never an item of a list of calls or messages
    (`x.tool_calls.0.type`: plural, or a call's)."""
    return len(found) >= 3 and found[-2] in ("0", "1") and not any(
        w.isdigit() for w in found[:-2]) and not found[-3].endswith("s") and (
        _NOT_KIND_KEYS.isdisjoint(found) and "call" not in found)


def _kind_word(value: Any) -> str | None:
    """The kind a kind-like attribute's value names (`"TOOL"`, `chat_model`, `Agent`): a kind
    word, a kind word and a word saying only that one ran (`AGENT_EXECUTION`, `llm_request`),
    or a kind of agent or tool (`ReActAgent`, `FunctionTool`) where no word says another kind;
    the record's own class name too (`AgentSpan`, `ToolCallSpanData`)."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    norm = _norm(value)
    kind = KIND_WORDS.get(norm)
    if kind is None and "." in value:  # a kind, then its provider (`agent.openai_agents`)
        kind = KIND_WORDS.get(_norm(value.split(".", 1)[0]))
    if kind is not None or "_" not in norm:
        return kind
    parts = norm.split("_")
    for record in _RECORD_WORDS:  # `AgentSpan`, `ToolSpanData`: the span's class names it
        if len(parts) > len(record) and tuple(parts[-len(record):]) == record:
            parts = parts[:-len(record)]
            break
    if len(parts) == 1 or "_".join(parts) in KIND_WORDS:
        return KIND_WORDS.get("_".join(parts))
    kinds = [KIND_WORDS.get(p) for p in parts]
    if len(parts) == 2 and kinds[0] is not None and parts[1] in _RAN_WORDS:
        return kinds[0]
    if len(parts) <= 3 and parts[-1] in ("agent", "tool") and {k for k in kinds if k} == {
            kinds[-1]}:
        return kinds[-1]
    return None


@_short_cached
def _norm(text: str) -> str:
    """`"CHAT_MODEL"` -> `chat_model`; `Tool Call` -> `tool_call`; `chatModel` -> `chat_model`."""
    return "_".join(words(text.strip().strip('"')))


def _affix_kind(word: str) -> str | None:
    """The kind a span name's affix says: a kind word, or `agent` or `tool` beside a verb saying
    only that it ran (`run_agent`, `call_tool`, `Running tool`)."""
    norm = _norm(word)
    kind = KIND_WORDS.get(norm)
    if kind is None and norm.count("_") == 1:
        first, second = norm.split("_")
        if (first in _RAN_WORDS or first in RUN_WORDS or first in _RUNNING) and second in (
                "agent", "tool", "llm", "model"):  # `call_llm`, `invoke_model`: a model call
            kind = KIND_WORDS[second]  # not `execute_task`: a framework's step of any kind
        elif first in _WEAK_WORDS and second in _RAN_WORDS:  # `function_invocation`: a
            kind = TOOL  # function ran (agent or tool alike: `infer` reads it as a function's)
    return kind


@_short_cached
def _usage_key(key: str) -> bool:
    """A token count of a model call under any vendor's key (`acme.tokens.prompt`); not one
    under an agent's key (`x.sub_agent.input_tokens`): an agent's totals, its calls' sum."""
    found = set(words(key))
    return bool(found & {"token", "tokens"}) and bool(found & _TOKEN_SIDES) and not any(
        w.isdigit() for w in found) and "agent" not in found


def _provider(value: Any) -> bool:
    """A model provider's name (`openai`, `aws.bedrock`, `gcp.vertex_ai`): what a model call's
    `gen_ai.system` says, not a tracer's own name put on every span (`galileo-otel`)."""
    return isinstance(value, str) and (_norm(value) in _PROVIDER_WORDS or not (
        _PROVIDER_WORDS.isdisjoint(words(value.lower()))))
