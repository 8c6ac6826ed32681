"""The model-endpoint injector with the real openai SDK and the python-contrib openai-v2
instrumentation, against the fake OpenAI-compatible server on 127.0.0.1 (docs/faults.md):
every model family is injected, marked on the chat span, and provokes its condition; the same
seed injects the same faults; nothing the model or the user said reaches state or report."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

from otel_agentcov import faults
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.faults.transport import FaultTransport
from otel_agentcov.records import from_readable_span
from otel_agentcov.spec import CoverageSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "record"))

from _common import Capture, FakeOpenAI, text  # noqa: E402

MODEL_FAMILIES = ("http_5xx", "rate_limit", "timeout", "slow", "truncated_stream",
                  "empty_completion", "budget")
PROMPT = "CANARY-PROMPT-5f1e where is order 42?"
ANSWER = "CANARY-ANSWER-9c2d it shipped"
SPEC = {"version": 1, "agents": [{"name": "support", "boundaries": {"timeout_s": 0.15}}]}


@pytest.fixture(scope="module")
def setup() -> Iterator[tuple[FakeOpenAI, Capture]]:
    capture = Capture(service="support-app")
    OpenAIInstrumentor().instrument(tracer_provider=capture.provider)
    try:
        with FakeOpenAI(lambda body: text(body["model"], ANSWER)) as server:
            yield server, capture
    finally:
        OpenAIInstrumentor().uninstrument()
        faults.disable()


def agent_runs(server: FakeOpenAI, capture: Capture, n: int) -> list[Any]:
    """`n` runs of a minimal agent: one model call under an `invoke_agent support` span; like
    real agents, it fails on an empty or unreadable answer."""
    client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=2,
                           http_client=httpx.Client(transport=FaultTransport()))
    tracer = capture.provider.get_tracer("app")
    for _ in range(n):
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}
        try:
            with tracer.start_as_current_span("invoke_agent support", attributes=attrs):
                reply = client.chat.completions.create(
                    model="gpt-4o", messages=[{"role": "user", "content": PROMPT}])
                if not reply.choices[0].message.content:
                    raise RuntimeError("empty answer")
        except (openai.OpenAIError, RuntimeError, ValueError):  # ValueError: unreadable JSON
            pass
    client.close()
    return list(capture.take())


def test_each_model_family_is_injected_marked_and_provokes(
        setup: tuple[FakeOpenAI, Capture]) -> None:
    server, capture = setup
    plan = faults.enable(",".join(MODEL_FAMILIES) + ":11")
    try:
        spans = agent_runs(server, capture, len(MODEL_FAMILIES) + 1)
    finally:
        faults.disable()
    chats = [s for s in spans if s.name.startswith("chat")]
    marked = [s.attributes.get("agentcov.fault.family") for s in chats]
    assert sorted(m for m in marked if m) == sorted(MODEL_FAMILIES)  # each once, on its chat
    assert marked[-1] is None  # the plan is spent: the last run is clean
    assert plan.injected == dict.fromkeys(MODEL_FAMILIES, 1)

    engine = CoverageEngine(CoverageSpec.from_dict(SPEC))
    engine.ingest_all(from_readable_span(s) for s in spans)
    engine.flush_all()
    report = engine.snapshot().to_dict()["agents"]["support"]
    families = report["faults"]["families"]
    assert {f: (r["injected"], r["hit"]) for f, r in families.items()} == dict.fromkeys(
        MODEL_FAMILIES, (1, 1))
    # slow and budget leave the run going; the other five end it in error
    assert {f for f, r in families.items() if r["recovered"]} == {"slow", "budget"}
    conditions = report["faults"]["conditions"]
    assert conditions["timeout"] == {"hits": 2, "provoked": 2, "natural": 0}  # timeout, slow
    assert conditions["cost_limit"] == {"hits": 1, "provoked": 1, "natural": 0}
    assert conditions["error_path"] == {"hits": 5, "provoked": 5, "natural": 0}

    dumped = json.dumps([engine.state.to_dict(), report, str(engine.snapshot())])
    assert "CANARY" not in dumped and "CANARY" not in repr(plan)


def test_the_same_seed_injects_the_same_faults(setup: tuple[FakeOpenAI, Capture]) -> None:
    server, capture = setup

    def sequence(seed: int) -> list[Any]:
        faults.enable(f"chaos:{seed}")
        try:
            spans = agent_runs(server, capture, 24)
        finally:
            faults.disable()
        return [s.attributes.get("agentcov.fault.family") for s in spans
                if s.name != "invoke_agent support"]

    first = sequence(3)
    assert first == sequence(3)
    assert any(first)


def test_a_rate_limit_says_when_to_retry(setup: tuple[FakeOpenAI, Capture]) -> None:
    server, _ = setup
    url, body = f"{server.base_url}/chat/completions", {"model": "gpt-4o", "messages": []}
    faults.enable("rate_limit:1")
    try:
        with httpx.Client(transport=FaultTransport()) as client:
            refused = client.post(url, json=body)
            passed = client.post(url, json=body)
    finally:
        faults.disable()
    assert (refused.status_code, refused.headers["retry-after"]) == (429, "1")
    assert passed.status_code == 200
