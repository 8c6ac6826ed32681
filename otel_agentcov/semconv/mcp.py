"""Model Context Protocol: the spans mcp 2.x makes for its own requests (`mcp.method.name`).

A client's `MCP send tools/call X` is a tool call (inside a framework's own tool span it is the
same call, merged by the assembler); the server's `tools/call X` has a remote parent and is the
other half of a traced client's call, so it joins the caller's trace instead of being counted as
a run of the server process. Listings, initialisation and discovery are plumbing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import as_str, build_step, clip
from .step import OTHER, TOOL, Step

METHOD = "mcp.method.name"
SPAN_KIND_SERVER = 1  # SpanRecord.kind follows the SDK's SpanKind values


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    attrs = record.attributes
    if METHOD not in attrs:  # the hot path: most spans are not MCP's
        return None
    method = as_str(attrs.get(METHOD))
    if method is None:
        return None
    if method != "tools/call":
        return build_step(record, OTHER, state_attributes)
    tool = as_str(attrs.get("gen_ai.tool.name"))
    if tool is None:  # `MCP send tools/call X` (client) or `tools/call X` (server)
        _, _, tail = record.name.partition("tools/call ")
        tool = clip(tail.strip()) or None
    step = build_step(record, TOOL if tool else OTHER, state_attributes, tool=tool)
    step.joins_caller = record.parent_remote and record.kind == SPAN_KIND_SERVER
    return step
