"""Model Context Protocol: what `tables/mcp.json` cannot say.

The server's `tools/call X` has a remote parent and is the other half of a traced client's call,
so it joins the caller's trace instead of being counted as a run of the server process.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SPAN_KIND_SERVER, SpanRecord
from .step import Step


def server_half(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    step.joins_caller = record.parent_remote and record.kind == SPAN_KIND_SERVER
    return step
