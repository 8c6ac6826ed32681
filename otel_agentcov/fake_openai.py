"""`agentcov fake-openai`: a scripted OpenAI-compatible Chat Completions server, so the
quickstarts (docs/quickstarts.md) and a first test suite run offline, without a key or a model.

It answers `POST /v1/chat/completions` (any POST path ending in `/chat/completions`) on
127.0.0.1: when the request offers tools and no tool result came back yet, the model asks for the
first offered tool, its arguments made from the tool's JSON Schema (every string `"42"`, every
number 42); otherwise it answers with a short text. `stream: true` gets server-sent events. It
reads no content beyond the tool definitions and never keeps a request.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "gpt-4o-mini"
ANSWER = "Done."
# a placeholder per JSON Schema type: what the scripted model passes for a tool argument
_PLACEHOLDERS: dict[str, Any] = {
    "string": "42", "integer": 42, "number": 42, "boolean": True, "array": [], "object": {},
}


def _completion(model: str, message: dict[str, Any], finish: str) -> dict[str, Any]:
    """A non-streaming chat.completion body (what every OpenAI-compatible client parses)."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27},
    }


def _arguments(tool: Mapping[str, Any]) -> dict[str, Any]:
    schema = tool.get("function", {}).get("parameters") or {}
    properties = schema.get("properties") or {}
    return {name: _PLACEHOLDERS.get(str(spec.get("type")), "42")
            for name, spec in properties.items() if isinstance(spec, Mapping)}


def reply(body: Mapping[str, Any]) -> dict[str, Any]:
    """The scripted model's answer to one request: the first offered tool once, then text."""
    model = str(body.get("model") or MODEL)
    tools = [t for t in body.get("tools") or [] if isinstance(t, Mapping)]
    answered = any(isinstance(m, Mapping) and m.get("role") == "tool"
                   for m in body.get("messages") or [])
    if tools and not answered:
        call = {
            "id": f"call_{uuid.uuid4().hex[:10]}",
            "type": "function",
            "function": {"name": str(tools[0].get("function", {}).get("name", "tool")),
                         "arguments": json.dumps(_arguments(tools[0]))},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return _completion(model, message, "tool_calls")
    return _completion(model, {"role": "assistant", "content": ANSWER}, "stop")


def stream_events(payload: Mapping[str, Any]) -> bytes:
    """A chat.completion body as the `stream: true` answer: one delta chunk per message part,
    the finish reason, a usage chunk, then `[DONE]`."""
    choice = payload["choices"][0]
    message = choice["message"]
    head = {k: payload[k] for k in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if message.get("content"):
        deltas.append({"content": message["content"]})
    for i, call in enumerate(message.get("tool_calls") or []):
        deltas.append({"tool_calls": [dict(call, index=i)]})
    chunks = [dict(head, choices=[{"index": 0, "delta": d, "finish_reason": None}])
              for d in deltas]
    chunks.append(dict(head, choices=[{"index": 0, "delta": {},
                                       "finish_reason": choice["finish_reason"]}]))
    chunks.append(dict(head, choices=[], usage=payload["usage"]))
    return "".join([f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]).encode()


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, *args: Any) -> None:
        """Quiet: a request line is no news here."""

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "only /v1/chat/completions"}}',
                       "application/json")
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        except (ValueError, UnicodeDecodeError):
            self._send(400, b'{"error": {"message": "the body is not JSON"}}', "application/json")
            return
        if not isinstance(body, dict):
            self._send(400, b'{"error": {"message": "the body is not an object"}}',
                       "application/json")
            return
        self.server.count()
        payload = reply(body)
        if body.get("stream"):
            self._send(200, stream_events(payload), "text/event-stream")
        else:
            self._send(200, json.dumps(payload).encode(), "application/json")

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeOpenAI(ThreadingHTTPServer):
    """The server on 127.0.0.1 (port 0: an ephemeral one); `base_url` is what `OPENAI_BASE_URL`
    takes, `requests` how many completions it answered. A `with` block serves in a thread."""

    daemon_threads = True

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.requests = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def count(self) -> None:
        with self._lock:
            self.requests += 1

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
