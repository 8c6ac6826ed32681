"""The fake OpenAI-compatible server the package ships (`agentcov fake-openai`), driven by the real
`openai` client: the first offered tool once with arguments from its schema, then text; streamed
when asked; a bad request is a 4xx, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from openai import OpenAI

from otel_agentcov.fake_openai import ANSWER, FakeOpenAI

TOOL = {"type": "function", "function": {
    "name": "lookup_order", "description": "Where an order is.",
    "parameters": {"type": "object", "properties": {
        "order_id": {"type": "string"}, "quantity": {"type": "integer"},
        "gift": {"type": "boolean"}}, "required": ["order_id"]}}}
OTHER = {"type": "function", "function": {"name": "refund", "parameters": {"type": "object"}}}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def client(server: FakeOpenAI) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="fake")


def test_the_first_tool_is_called_once_then_the_model_answers(server: FakeOpenAI) -> None:
    messages: list[dict[str, object]] = [{"role": "user", "content": "Where is order 42?"}]
    first = client(server).chat.completions.create(
        model="gpt-4o-mini", messages=messages, tools=[TOOL, OTHER])  # type: ignore[arg-type,list-item]
    (call,) = first.choices[0].message.tool_calls or []
    assert first.choices[0].finish_reason == "tool_calls"
    assert call.function.name == "lookup_order"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {  # type: ignore[union-attr]
        "order_id": "42", "quantity": 42, "gift": True}
    messages += [first.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "shipped"}]
    second = client(server).chat.completions.create(
        model="gpt-4o-mini", messages=messages, tools=[TOOL, OTHER])  # type: ignore[arg-type,list-item]
    assert (second.choices[0].message.content, second.choices[0].finish_reason) == (ANSWER, "stop")
    assert second.model == "gpt-4o-mini" and second.usage is not None


def test_without_tools_it_answers_and_it_streams_when_asked(server: FakeOpenAI) -> None:
    chunks = list(client(server).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == ANSWER
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"


def test_bad_requests_get_an_error_status(server: FakeOpenAI) -> None:
    for path, body in (("/v1/chat/completions", b"{not json"), ("/v1/embeddings", b"{}")):
        request = urllib.request.Request(server.base_url.removesuffix("/v1") + path, data=body,
                                         headers={"content-type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(request, timeout=10)
        assert failed.value.code in (400, 404)


def test_the_command_prints_what_to_export() -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "otel_agentcov.cli", "fake-openai", "--port",
                             "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("export OPENAI_BASE_URL=http://127.0.0.1:") and line.endswith(
            "/v1 OPENAI_API_KEY=fake\n")
        base = line.split()[1].split("=", 1)[1]
        answer = OpenAI(base_url=base, api_key="fake").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}])
        assert answer.choices[0].message.content == ANSWER
    finally:
        proc.terminate()
        proc.wait(timeout=10)
