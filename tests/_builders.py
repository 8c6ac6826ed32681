"""GenAI-shaped SpanRecords shared by the tests, so a test states the run it needs rather than
the attribute spelling (`gen_ai.operation.name`, `gen_ai.agent.name`, ...) each time."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanContext

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import SpanRecord


def agent_attrs(name: Any, **extra: Any) -> dict[str, Any]:
    return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name, **extra}


def tool_attrs(name: Any, **extra: Any) -> dict[str, Any]:
    return {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, **extra}


def chat_attrs(model: str, **extra: Any) -> dict[str, Any]:
    return {"gen_ai.operation.name": "chat", "gen_ai.request.model": model, **extra}


def agent_span(trace: int, span: int, parent: int | None, name: str, start: int = 0,
               end: int = 1, **extra: Any) -> SpanRecord:
    return SpanRecord(trace, span, parent, f"invoke_agent {name}", start_ns=start, end_ns=end,
                      attributes=agent_attrs(name, **extra))


def tool_span(trace: int, span: int, parent: int | None, name: str, start: int = 0,
              end: int = 1, **extra: Any) -> SpanRecord:
    return SpanRecord(trace, span, parent, f"execute_tool {name}", start_ns=start, end_ns=end,
                      attributes=tool_attrs(name, **extra))


def chat_span(trace: int, span: int, parent: int | None, model: str = "gpt-4o", start: int = 0,
              end: int = 1, **extra: Any) -> SpanRecord:
    return SpanRecord(trace, span, parent, f"chat {model}", start_ns=start, end_ns=end,
                      attributes=chat_attrs(model, **extra))


def agent_run(trace: int, agent: str, tools: Sequence[str] = (), **extra: Any) -> list[SpanRecord]:
    """One run: `agent`'s span (span id 1, the trace's root) calling `tools` one after another
    (span ids 2, 3, ...); the root comes last, as it ends last. `extra`: agent span attributes."""
    calls = [tool_span(trace, 2 + i, 1, tool, 1 + 2 * i, 2 + 2 * i) for i, tool in enumerate(tools)]
    return [*calls, agent_span(trace, 1, None, agent, 0, 2 + 2 * len(tools), **extra)]


def ingest(engine: CoverageEngine, records: Iterable[SpanRecord]) -> CoverageEngine:
    for record in records:
        engine.ingest(record)
    return engine


def renamed_sdk_span() -> ReadableSpan:
    """An SDK span of a subclass whose `name` property hides the name it was made with: a reader
    must go through the properties (or leave it to the path that does)."""

    class Renamed(ReadableSpan):
        @property
        def name(self) -> str:
            return "execute_tool renamed"

    return Renamed("original", context=SpanContext(1, 2, is_remote=False), start_time=1,
                   end_time=2)
