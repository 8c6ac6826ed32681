"""The built-in convention tables (`tables/<family>.json`), in the order they are tried.

Adding a family is one JSON table and one name in FAMILIES; code only for what its table cannot
say, named by the entry's `code` and written in the core (core/src/classify/hooks.rs). Order:
scope-keyed dialects before attribute-keyed conventions before span-name patterns, so the most
specific reading wins. Strands, Google ADK, AutoGen, Mastra, python-contrib openai-v2 and
openai-agents-v2 emit GenAI shapes and need no table of their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

FAMILIES = (
    "smolagents", "llama_index", "agent_framework", "crewai",  # OpenInference scopes / dialects
    "dspy", "beeai",  # OpenInference scopes whose modules or answers are not agents or tools
    "agno",  # a Traceloop scope whose team span its kinds misread
    "mlflow", "langfuse", "langsmith", "haystack",  # tracers with vocabularies of their own
    "semantic_kernel", "logfire", "openlit",  # GenAI dialects, by scope prefix
    "pydantic_ai",  # scope `pydantic-ai`, legacy names
    "openinference",  # `openinference.span.kind`
    "traceloop",  # `traceloop.span.kind` (its scopes are shared with python-contrib)
    "a2a",  # `a2a.method.name`: a message to a remote agent is a run of that agent
    "mcp",  # `mcp.method.name` (server tool calls also say `execute_tool`)
    "vercel_ai",  # `ai.operationId` (the AI SDK's own spans, no GenAI operation names)
    "genai",  # `gen_ai.operation.name`, then span names
)  # fmt: skip



def load(family: str) -> dict[str, Any]:
    """One family's table document: `{family, about, entries}`."""
    text = resources.files(__package__).joinpath("tables", f"{family}.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def entries() -> Iterator[dict[str, Any]]:
    """Every built-in entry, in the order they are tried."""
    for family in FAMILIES:
        yield from load(family)["entries"]

