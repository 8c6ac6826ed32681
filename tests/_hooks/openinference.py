"""OpenInference (Arize): what `tables/openinference.json` cannot say, LangGraph's graphs.

OpenInference copies LangGraph's run metadata onto LangChain spans: a graph run is a CHAIN named
after the graph, and so are its inner runnables and nodes; only the metadata tells them apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from _fields import as_agent, build_step

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.common import as_str, clip, parse_json
from otel_agentcov.semconv.step import OTHER, Step

KIND = "openinference.span.kind"


def _langgraph(attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The LangGraph run metadata OI copies onto LangChain spans, or None outside LangGraph."""
    raw = attrs.get("metadata")
    if not isinstance(raw, str) or "langgraph" not in raw:
        return None
    meta = parse_json(raw)
    return meta if isinstance(meta, dict) and meta.get("ls_integration") == "langgraph" else None


def agent(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """A LangGraph node span (`agent`) is no agent; `graph.node.parent_id` names the agent
    that handed over when node ids are names (the OpenAI Agents bridge)."""
    attrs = record.attributes
    graph = _langgraph(attrs)
    if graph is not None and graph.get("langgraph_node") == record.name:
        return build_step(record, OTHER, state_attributes)
    parent = as_str(attrs.get("graph.node.parent_id"))
    node = as_str(attrs.get("graph.node.id"))
    # node ids are agent names only where the span's own id is its name (the OpenAI Agents
    # bridge); Agno's are opaque ids, its parent an id too, never an agent's name
    if parent is not None and parent != step.agent and node in (None, step.agent):
        step.handoff_from = parent
    return step


def chain(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """A LangGraph graph run is the agent; its nodes are not; a graph invoked inside a node
    inherits the node's metadata and is an agent only when a tool started it."""
    graph = _langgraph(record.attributes)
    if graph is None:
        return step
    node = graph.get("langgraph_node")
    if node is not None and node == record.name:
        return step
    as_agent(step, record.attributes, clip(record.name) or None)
    step.graph_candidate = node is not None
    return step
