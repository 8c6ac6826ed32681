"""Semantic Kernel's GenAI diagnostics: what `tables/semantic_kernel.json` cannot say.

Functions are `<plugin>-<function>`: a hand-off orchestration's `Handoff-transfer_to_<agent>` is
a hand-off tool; finish reasons arrive as the enum's repr (`FinishReason.TOOL_CALLS`) and are
normalised to the GenAI values.
"""

from __future__ import annotations

from collections.abc import Sequence

from _fields import TRANSFER_PREFIX

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import Step

_ENUM_PREFIX = "FinishReason."


def finish_reason(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    if step.finish_reason.startswith(_ENUM_PREFIX):
        step.finish_reason = step.finish_reason[len(_ENUM_PREFIX):].lower()
    return step


def transfer(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    if step.tool is not None and not step.handoff_tool:
        function = step.tool.rpartition("-")[2]
        if function.startswith(TRANSFER_PREFIX):
            step.handoff_tool = True
            step.handoff_hint = function[len(TRANSFER_PREFIX):] or None
    return step
