"""Turns: which of a run's tool calls one model response requested (docs/contracts.md#turns).

Calls requested together may run in either order (or in parallel), so the trajectory modes that
look at order compare such a group as a multiset. A call belongs to the model step that is its
parent span, else to the run's latest model step started before it (its calls run before the
next model call); a model step inside a tool (a tool that calls a model itself) is no turn of
the agent. Without any model step in the run, calls whose spans overlap in time form a group.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from ..semconv.step import LLM, TOOL, Step


def call_groups(steps: Sequence[Step], calls: Sequence[Step]) -> list[int]:
    """A group number per call (calls in start order; equal numbers are one model response's,
    numbers ascending in call order)."""
    tools = {s.span_id for s in steps if s.kind == TOOL}
    turns = [s for s in steps if s.kind == LLM and s.parent_id not in tools]
    if turns:
        by_id = {s.span_id: i for i, s in enumerate(turns)}
        starts = [s.start_ns for s in turns]
        keys = []
        for call in calls:
            parent = by_id.get(call.parent_id) if call.parent_id is not None else None
            if parent is None:  # the latest model step started before the call, -1 for none
                parent = bisect_right(starts, call.start_ns) - 1
            keys.append(parent)
        return _renumber(keys)
    keys, group, end = [], -1, None
    for call in calls:
        if end is None or call.start_ns >= end:
            group += 1
            end = call.end_ns
        else:
            end = max(end, call.end_ns)
        keys.append(group)
    return keys


def _renumber(keys: list[int]) -> list[int]:
    """Consecutive equal keys are one group; a key seen again after another is a new group (a
    parent span's calls interleaved with others' keep their order)."""
    out: list[int] = []
    for i, key in enumerate(keys):
        out.append(0 if i == 0 else out[-1] + (key != keys[i - 1]))
    return out
