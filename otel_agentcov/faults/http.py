"""What a model-endpoint fault does to one HTTP exchange, whoever carries it (the httpx
transports, the reverse proxy): refuse it (5xx, 429, a timeout) or alter the answer (a
truncated stream, an empty completion, usage inflated to the budget).

Bodies are rewritten in memory and passed on; nothing of them is kept or logged.
"""

from __future__ import annotations

import json
import random
from typing import Any

REFUSING = frozenset({"http_5xx", "rate_limit", "timeout"})
ALTERING = frozenset({"truncated_stream", "empty_completion", "budget"})
RETRY_AFTER_S = "1"
_USAGE_IN = ("prompt_tokens", "input_tokens")
_DROPPED_HEADERS = frozenset({"content-length", "content-encoding", "transfer-encoding"})


def refusal(family: str, rng: random.Random) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of an exchange the fault answers itself (http_5xx, rate_limit)."""
    if family == "rate_limit":
        status, headers = 429, {"retry-after": RETRY_AFTER_S}
    else:
        status, headers = rng.choice((500, 503)), {}
    body = {"error": {"message": f"agentcov injected fault {family}", "type": family,
                      "code": status}}
    return status, {**headers, "content-type": "application/json"}, json.dumps(body).encode()


def kept_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """An answer's headers once its body is rewritten (the length and encoding no longer hold)."""
    return [(k, v) for k, v in headers if k.lower() not in _DROPPED_HEADERS]


def rewrite(family: str, body: bytes, content_type: str, budget_tokens: int,
            rng: random.Random) -> bytes:
    """The answer's body as the fault leaves it."""
    stream = content_type.startswith("text/event-stream")
    if family == "truncated_stream":
        if not stream:
            return body[: len(body) // 2]
        events = [e for e in body.split(b"\n\n") if e.strip() and b"[DONE]" not in e]
        keep = rng.randint(0, max(len(events) // 2, 0)) if events else 0
        return b"".join(e + b"\n\n" for e in events[:keep])
    if family == "empty_completion":
        if stream:
            return b"data: [DONE]\n\n"
        return _json_edit(body, _empty)
    if stream:
        return b"\n\n".join(_sse_edit(e, budget_tokens) for e in body.split(b"\n\n"))
    return _json_edit(body, lambda doc: _inflate(doc, budget_tokens))


def _json_edit(body: bytes, edit: Any) -> bytes:
    try:
        doc = json.loads(body)
    except ValueError:
        return body  # not JSON: nothing this fault knows how to change
    edit(doc)
    return json.dumps(doc).encode()


def _sse_edit(event: bytes, budget_tokens: int) -> bytes:
    lines = event.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"data:") and b"usage" in line:
            payload = line[5:].strip()
            edited = _json_edit(payload, lambda doc: _inflate(doc, budget_tokens))
            lines[i] = b"data: " + edited
    return b"\n".join(lines)


def _inflate(doc: Any, budget_tokens: int) -> None:
    """Every `usage` object's input tokens raised to the budget (totals follow)."""
    if isinstance(doc, dict):
        usage = doc.get("usage")
        if isinstance(usage, dict):
            for key in _USAGE_IN:
                if key in usage:
                    usage[key] = max(int(usage.get(key) or 0), budget_tokens)
            if isinstance(usage.get("total_tokens"), int):
                usage["total_tokens"] = sum(
                    int(usage.get(k) or 0) for k in
                    ("prompt_tokens", "completion_tokens", "input_tokens", "output_tokens")
                    if k in usage)
        for value in doc.values():
            _inflate(value, budget_tokens)
    elif isinstance(doc, list):
        for value in doc:
            _inflate(value, budget_tokens)


def _empty(doc: Any) -> None:
    """No answer: OpenAI chat choices with no text and no tool call, Responses and Anthropic
    outputs with no item."""
    if not isinstance(doc, dict):
        return
    for choice in doc.get("choices") or []:
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            choice["message"]["content"] = ""
            choice["message"].pop("tool_calls", None)
            choice["finish_reason"] = "stop"
    for key in ("output", "content"):
        if isinstance(doc.get(key), list):
            doc[key] = []
