"""Semantic Kernel's experimental GenAI diagnostics: GenAI spans with SK's own spellings.

Functions are `<plugin>-<function>` (kept: that is SK's name for them); a hand-off
orchestration's `Handoff-transfer_to_<agent>` is a hand-off tool; finish reasons arrive as the
enum's repr (`FinishReason.TOOL_CALLS`) and are normalised to the GenAI values.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from . import genai
from .step import TOOL, Step

SCOPE_PREFIX = "semantic_kernel."
_ENUM_PREFIX = "FinishReason."
_TRANSFER_PREFIX = "transfer_to_"


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    if not record.scope_name.startswith(SCOPE_PREFIX):
        return None
    step = genai.classify(record, state_attributes)
    if step is None:
        return None
    if step.finish_reason.startswith(_ENUM_PREFIX):
        step.finish_reason = step.finish_reason[len(_ENUM_PREFIX):].lower()
    if step.kind == TOOL and step.tool is not None and not step.handoff_tool:
        function = step.tool.rpartition("-")[2]
        if function.startswith(_TRANSFER_PREFIX):
            step.handoff_tool = True
            step.handoff_hint = function[len(_TRANSFER_PREFIX):] or None
    return step
