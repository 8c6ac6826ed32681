"""AgentAssay compatibility: `AgentCoverageCollector(known_tools=..., known_models=...)` keeps
AgentAssay's call shape (`update`, `snapshot`, `compute`) so existing suites switch by changing
one import. Its trace objects become AgentRuns through the trial reader's conversion
(`readers/trial_runs.py`), folded by the same engine as every other front door.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .engine import CoverageEngine
from .offline import fold_trial
from .readers.trial_runs import DEFAULT_AGENT, TrialError, trace_to_records, trace_to_runs
from .spec import CoverageSpec

__all__ = ["AgentCoverageCollector", "CoverageVector", "TrialError"]


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
        engine, trace_id = self.engine, self._next_trace
        fold_trial(engine, trace_to_runs(
            trace, trace_id, self.agent, state_attributes=engine.spec.state_attribute_names,
            max_spans=engine.assembler.max_spans_per_trace,
        ) or trace_to_records(trace, trace_id, self.agent))
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
