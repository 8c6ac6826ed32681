"""AgentAssay compatibility: `AgentCoverageCollector(known_tools=..., known_models=...)` keeps
AgentAssay's call shape (`update`, `snapshot`, `compute`, `reset`) and its snapshot's (`snap.tool`,
`to_vector()`, ...), so existing suites switch by changing one import. Its trace objects become
AgentRuns through the trial reader's conversion (`readers/trial_runs.py`), folded by the same
engine as every other front door.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .engine import CoverageEngine
from .offline import fold_trial
from .readers.trial_runs import DEFAULT_AGENT, TrialError, trace_to_records, trace_to_runs
from .snapshot.schema import DIMENSIONS, Report, empty_report  # DIMENSIONS: AgentAssay's order
from .spec import CoverageSpec
from .stats import geometric_mean

__all__ = ["AgentCoverageCollector", "CoverageTuple", "CoverageVector", "TrialError"]




@dataclass(frozen=True)
class CoverageVector:
    """AgentAssay's snapshot (its `CoverageTuple`): the five dimensions by name, `.dimensions`,
    `.overall` (geometric mean), `.weakest` (name, value) and `to_vector()`. A dimension with
    nothing to measure is None and is left out of the mean (docs/agentassay.md lists where that
    differs from AgentAssay); `report` is the full agentcov report it was taken from."""

    tool: float | None = None
    path: float | None = None
    state: float | None = None
    boundary: float | None = None
    model: float | None = None
    report: Report = field(default_factory=lambda: empty_report(), compare=False, repr=False)
    # the dimensions the overall counts (the report's `coverage.counted`, docs/semantics.md
    # #overall); None: every measured one
    counted: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name, value in self.dimensions.items():
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}: a coverage ratio is in [0, 1], got {value!r}")

    @property
    def dimensions(self) -> dict[str, float | None]:
        return {d: getattr(self, d) for d in DIMENSIONS}

    def _counted(self) -> list[tuple[str, float]]:
        return [(d, v) for d, v in self.dimensions.items()
                if v is not None and (self.counted is None or d in self.counted)]

    @property
    def overall(self) -> float | None:
        """The report's overall: the geometric mean of the dimensions it counts, 0 if one is 0."""
        return geometric_mean([v for _, v in self._counted()])

    @property
    def weakest(self) -> tuple[str, float] | None:
        """The lowest counted dimension, the first in vector order on a tie."""
        counted = self._counted()
        return min(counted, key=lambda dv: dv[1]) if counted else None

    def to_vector(self) -> list[float | None]:
        """The five dimensions in AgentAssay's order: tool, path, state, boundary, model."""
        return [getattr(self, d) for d in DIMENSIONS]


CoverageTuple = CoverageVector  # AgentAssay's name, so its imports keep working


class AgentCoverageCollector:
    """Drop-in for AgentAssay's collector, computing coverage with otel_agentcov's semantics.

    The agent is registered before its first trace, so a fresh (or reset) collector reports the
    declared tools and models as 0.0 covered, as AgentAssay (and `agentcov` for a declared
    agent) does, rather than nothing at all."""

    def __init__(
        self,
        known_tools: Iterable[str] | None = None,
        known_models: Iterable[str] | None = None,
        boundaries: Mapping[str, Any] | None = None,
        max_path_depth: int = 10,
        *,
        agent: str = DEFAULT_AGENT,
        spec: CoverageSpec | None = None,
    ) -> None:
        if boundaries:
            raise ValueError(
                "boundaries: AgentAssay's numeric ranges are not supported; declare boundary "
                "conditions in a spec instead (agentcov docs agentassay)")
        tools = sorted(known_tools) if known_tools else None
        models = sorted(known_models) if known_models else None
        # boundaries declared (empty: the default conditions): AgentAssay's overall always counts
        # its boundary dimension (docs/semantics.md#overall)
        base = spec or CoverageSpec.from_dict(
            {"version": 1, "defaults": {"paths": {"max_depth": max_path_depth}, "boundaries": {}}}
        )
        self.agent = agent
        self._spec = base.with_inventory(tools, models)
        self.reset()

    def reset(self) -> None:
        """Forget every trace; the tools, models and spec stay (as AgentAssay's reset)."""
        self.engine = CoverageEngine(self._spec)
        self.engine.state.agent(self.agent)
        self._next_trace = 1

    def update(self, trace: Any) -> None:
        engine, trace_id = self.engine, self._next_trace
        fold_trial(engine, trace_to_runs(
            trace, trace_id, self.agent, state_attributes=engine.spec.state_attribute_names,
            max_spans=engine.bounds.max_spans_per_trace,
        ) or trace_to_records(trace, trace_id, self.agent))
        self._next_trace += 1

    def snapshot(self) -> CoverageVector:
        report = self.engine.snapshot().to_dict()
        cov = report["agents"][self.agent]["coverage"]
        return CoverageVector(**{d: cov[d] for d in DIMENSIONS}, report=report,
                              counted=tuple(cov["counted"]))

    def compute(self, traces: Iterable[Any]) -> CoverageVector:
        for trace in traces:
            self.update(trace)
        return self.snapshot()
