"""Coverage state: one record per concern, composed per agent; mergeable and serializable."""

from .caps import OVERFLOW, OVERFLOW_EDGE, Caps, Limits
from .coverage_state import STATE_FORMAT, STATE_VERSION, AgentState, CoverageState, StateError
from .facts import RunFacts, run_facts, stable_hash

__all__ = [
    "OVERFLOW",
    "OVERFLOW_EDGE",
    "STATE_FORMAT",
    "STATE_VERSION",
    "AgentState",
    "Caps",
    "CoverageState",
    "Limits",
    "RunFacts",
    "StateError",
    "run_facts",
    "stable_hash",
]
