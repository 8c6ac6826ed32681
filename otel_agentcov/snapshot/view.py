"""AgentView: what every report section reads (one agent's state and spec) and writes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..spec import AgentSpec
from ..state import AgentState
from .schema import AgentReport

Target = float | int | None


@dataclass
class AgentView:
    """Sections run in order: each adds its report keys and the gate targets it defines."""

    name: str
    st: AgentState
    spec: AgentSpec
    observed_edges: set[tuple[str, str]]
    with_contexts: bool = False
    tested_edges: set[tuple[str, str]] = field(default_factory=set)
    unlisted_agents: int = 0  # agents that ran but no spec entry names (`spec.unmatched_agents`)
    report: AgentReport = field(default_factory=lambda: AgentReport())
    targets: dict[str, Target] = field(default_factory=dict)
