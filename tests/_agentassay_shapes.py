"""AgentAssay's trace objects as plain classes with attributes (its StepTrace and
ExecutionTrace are pydantic models read by attribute), for the tests of the drop-in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class StepTrace:
    action: str
    tool_name: str | None = None
    model: str | None = None
    duration_ms: float = 100.0
    metadata: dict[str, Any] = field(default_factory=dict)
    step_index: int = 0


@dataclass
class ExecutionTrace:
    steps: list[StepTrace]
    success: bool = True
    error: str | None = None
    total_duration_ms: float = 0.0
    model: str | None = None  # the trace-level model AgentAssay always sets
    total_cost_usd: float = 0.0
    metadata: dict[str, Any] = field(default_factory=dict)
