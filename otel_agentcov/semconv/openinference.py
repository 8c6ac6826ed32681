"""OpenInference (Arize): `openinference.span.kind` spans from every OI instrumentation.

Covers the OpenAI Agents bridge (`Agent workflow` wrappers, `handoff to X` spans,
`graph.node.parent_id`) and LangChain/LangGraph (graph spans, node spans that are not agents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..records import SpanRecord
from .common import PLACEHOLDER_AGENT_NAMES, as_str, build_step, clip, parse_json
from .step import AGENT, HANDOFF, LLM, OTHER, TOOL, Step

SCOPE_PREFIX = "openinference.instrumentation"
KIND = "openinference.span.kind"
HANDOFF_PREFIX = "handoff to "
WRAPPER_NAMES = frozenset({"Agent workflow"})  # OpenAI Agents trace roots: no agent of their own


def _langgraph(attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The LangGraph run metadata OI copies onto LangChain spans, or None outside LangGraph."""
    raw = attrs.get("metadata")
    if not isinstance(raw, str) or "langgraph" not in raw:
        return None
    meta = parse_json(raw)
    return meta if isinstance(meta, dict) and meta.get("ls_integration") == "langgraph" else None


def _agent(record: SpanRecord, state_attributes: Sequence[str]) -> Step:
    attrs = record.attributes
    graph = _langgraph(attrs)
    if graph is not None and graph.get("langgraph_node") == record.name:
        return build_step(record, OTHER, state_attributes)  # a graph node (`agent`), not an agent
    name = as_str(attrs.get("agent.name")) or as_str(attrs.get("graph.node.id"))
    if name is None and record.name not in WRAPPER_NAMES:
        name = clip(record.name) or None
    step = build_step(
        record, AGENT, state_attributes,
        agent=None if name in PLACEHOLDER_AGENT_NAMES else name,
    )
    parent = as_str(attrs.get("graph.node.parent_id"))
    if parent is not None and parent != name:
        step.handoff_from = parent
    return step


def _chain(record: SpanRecord, state_attributes: Sequence[str]) -> Step:
    """A LangGraph graph run is a CHAIN named after the graph; its inner runnables are too."""
    graph = _langgraph(record.attributes)
    if graph is None:
        return build_step(record, OTHER, state_attributes)
    node = graph.get("langgraph_node")
    if node is None:  # the top-level graph: the agent
        return build_step(record, AGENT, state_attributes, agent=clip(record.name) or None)
    if node == record.name:
        return build_step(record, OTHER, state_attributes)
    # a graph invoked inside a node inherits the node's metadata: an agent only under a tool
    step = build_step(record, AGENT, state_attributes, agent=clip(record.name) or None)
    step.graph_candidate = True
    return step


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    """OI spans by scope, else by `openinference.span.kind` when no GenAI operation is set."""
    attrs = record.attributes
    kind = as_str(attrs.get(KIND))
    if kind is None:
        return None
    if not record.scope_name.startswith(SCOPE_PREFIX) and "gen_ai.operation.name" in attrs:
        return None  # GenAI spans enriched with OI keys (openinference pydantic-ai processor)
    kind = kind.upper()
    if kind == "LLM":
        step = build_step(record, LLM, state_attributes)
        if step.model is None:  # a failed call has no response: the request's parameters do
            params = parse_json(attrs.get("llm.invocation_parameters"))
            step.model = as_str(params.get("model")) if isinstance(params, dict) else None
        return step
    if kind == "TOOL":
        if record.name.startswith(HANDOFF_PREFIX):
            step = build_step(record, HANDOFF, state_attributes)
            step.handoff_to = clip(record.name[len(HANDOFF_PREFIX) :].strip()) or None
            return step
        tool = as_str(attrs.get("tool.name")) or clip(record.name) or None
        return build_step(record, TOOL, state_attributes, tool=tool)
    if kind == "AGENT":
        return _agent(record, state_attributes)
    if kind == "CHAIN":
        return _chain(record, state_attributes)
    return build_step(record, OTHER, state_attributes)
