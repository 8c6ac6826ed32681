"""AgentAssay compatibility: its trace objects become SpanRecords and run through the same engine.

`AgentCoverageCollector(known_tools=..., known_models=...)` keeps AgentAssay's call shape
(`update`, `snapshot`, `compute`) so existing suites switch by changing one import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .engine import CoverageEngine
from .records import STATUS_ERROR, STATUS_UNSET, SpanRecord
from .spec import CoverageSpec

DEFAULT_AGENT = "agent"
_LLM_ACTIONS = frozenset({"llm_response", "llm_call", "llm", "generation", "chat"})
_TOOL_ACTIONS = frozenset({"tool_call", "tool", "tool_use"})


class TrialError(ValueError):
    """A trial that does not have the AgentAssay trace shape; the message says what is missing."""


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if type(obj) is dict:  # trial files: skip the (slow) ABC check below
        return obj.get(key, default)
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def trace_to_records(trace: Any, trace_id: int, agent: str | None = None) -> list[SpanRecord]:
    """One agent span plus one span per step, shaped like the GenAI conventions."""
    steps = _get(trace, "steps")
    if not isinstance(steps, Sequence) or isinstance(steps, str | bytes):
        raise TrialError("trace has no 'steps' list")
    meta = _get(trace, "metadata") or {}
    name = agent or _get(meta, "agent") or _get(meta, "agent_name") or DEFAULT_AGENT
    clock = 1
    records: list[SpanRecord] = []
    for index, step in enumerate(steps):
        action = str(_get(step, "action") or "").strip().lower()
        duration_ns = int(float(_get(step, "duration_ms") or 0.0) * 1e6)
        meta_step = _get(step, "metadata") or {}
        error = _get(meta_step, "error") if isinstance(meta_step, Mapping) else None
        attrs: dict[str, Any] = {}
        span_name = action or "step"
        if action in _TOOL_ACTIONS or (_get(step, "tool_name") and action not in _LLM_ACTIONS):
            tool = _get(step, "tool_name")
            if not isinstance(tool, str) or not tool:
                raise TrialError(f"step {index}: a tool_call step needs 'tool_name'")
            attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}
            span_name = f"execute_tool {tool}"
        elif action in _LLM_ACTIONS or _get(step, "model"):
            attrs = {"gen_ai.operation.name": "chat"}
            model = _get(step, "model")
            if isinstance(model, str) and model:
                attrs["gen_ai.request.model"] = model
            span_name = f"chat {model or ''}".strip()
        if error:
            attrs["error.type"] = str(error)
        records.append(
            SpanRecord(
                trace_id=trace_id,
                span_id=index + 2,
                parent_id=1,
                name=span_name,
                start_ns=clock,
                end_ns=clock + duration_ns,
                status_code=STATUS_ERROR if error else STATUS_UNSET,
                attributes=attrs,
            )
        )
        clock += duration_ns + 1
    total_ns = max(int(float(_get(trace, "total_duration_ms") or 0.0) * 1e6), clock)
    failed = bool(_get(trace, "error")) or _get(trace, "success") is False
    error_type = _get(trace, "error")
    agent_attrs: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": name,
    }
    version = _get(meta, "version") or _get(meta, "agent_version")
    if isinstance(version, str) and version:
        agent_attrs["gen_ai.agent.version"] = version
    if failed:
        agent_attrs["error.type"] = error_type if isinstance(error_type, str) else "TrialFailed"
    cost = _get(trace, "total_cost_usd")
    if isinstance(cost, int | float) and cost > 0:
        agent_attrs["gen_ai.usage.cost"] = float(cost)
    records.append(
        SpanRecord(
            trace_id=trace_id,
            span_id=1,
            parent_id=None,
            name=f"invoke_agent {name}",
            start_ns=0,
            end_ns=total_ns,
            status_code=STATUS_ERROR if failed else STATUS_UNSET,
            attributes=agent_attrs,
        )
    )
    return records


@dataclass(frozen=True)
class CoverageVector:
    """AgentAssay's snapshot shape: `.overall`, `.weakest` (name, value), `.dimensions`."""

    dimensions: dict[str, float | None]
    overall: float | None
    weakest: tuple[str, float] | None
    report: dict[str, Any]


class AgentCoverageCollector:
    """Drop-in for AgentAssay's collector, computing coverage with otel_agentcov's semantics."""

    def __init__(
        self,
        known_tools: Iterable[str] | None = None,
        known_models: Iterable[str] | None = None,
        *,
        agent: str = DEFAULT_AGENT,
        max_path_depth: int = 10,
        spec: CoverageSpec | None = None,
    ) -> None:
        tools = sorted(known_tools) if known_tools else None
        models = sorted(known_models) if known_models else None
        base = spec or CoverageSpec.from_dict(
            {"version": 1, "defaults": {"paths": {"max_depth": max_path_depth}}}
        )
        self.agent = agent
        self.engine = CoverageEngine(base.with_inventory(tools, models))
        self._next_trace = 1

    def update(self, trace: Any) -> None:
        for record in trace_to_records(trace, self._next_trace, self.agent):
            self.engine.ingest(record)
        self._next_trace += 1

    def snapshot(self) -> CoverageVector:
        report = self.engine.snapshot().to_dict()
        agent = report["agents"].get(self.agent)
        if agent is None:
            dims: dict[str, float | None] = dict.fromkeys(
                ("tool", "path", "state", "boundary", "model")
            )
            return CoverageVector(dims, None, None, report)
        cov = agent["coverage"]
        dims = {d: cov[d] for d in ("tool", "path", "state", "boundary", "model")}
        weakest = (cov["weakest"], cov[cov["weakest"]]) if cov["weakest"] else None
        return CoverageVector(dims, cov["overall"], weakest, report)

    def compute(self, traces: Iterable[Any]) -> CoverageVector:
        for trace in traces:
            self.update(trace)
        return self.snapshot()
