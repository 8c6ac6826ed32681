"""The built-in convention tables (`tables/<family>.json`), in the order they are tried.

Adding a family is one JSON table and one name in FAMILIES; code only for what its table cannot
say, in the family's module, named in HOOKS. Order: scope-keyed dialects before attribute-keyed
conventions before span-name patterns, so the most specific reading wins. Strands, Google ADK,
AutoGen, Mastra, python-contrib openai-v2 and openai-agents-v2 emit GenAI shapes and need no
table of their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

from . import (
    agent_framework,
    genai,
    haystack,
    llama_index,
    logfire,
    openinference,
    semantic_kernel,
    smolagents,
)
from .convention import Hook

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

HOOKS: Mapping[str, Hook] = {
    "genai.agent": genai.agent,
    "genai.guardrail": genai.guardrail,
    "openinference.agent": openinference.agent,
    "openinference.chain": openinference.chain,
    "llama_index.turn": llama_index.turn,
    "smolagents.run": smolagents.run,
    "semantic_kernel.finish_reason": semantic_kernel.finish_reason,
    "semantic_kernel.transfer": semantic_kernel.transfer,
    "logfire.max_turns": logfire.max_turns,
    "agent_framework.edge": agent_framework.edge,
    "haystack.budget": haystack.budget,
    "llama_index.traceloop_turn": llama_index.traceloop_turn,
}


def load(family: str) -> dict[str, Any]:
    """One family's table document: `{family, about, entries}`."""
    text = resources.files(__package__).joinpath("tables", f"{family}.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def entries() -> Iterator[dict[str, Any]]:
    """Every built-in entry, in the order they are tried."""
    for family in FAMILIES:
        yield from load(family)["entries"]

