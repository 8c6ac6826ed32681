"""Coverage state: one record per concern, composed per agent; mergeable and serializable."""

from .caps import OVERFLOW, OVERFLOW_EDGE, Caps, Limits
from .coverage_state import (
    MAX_STATE_BYTES,
    STATE_FORMAT,
    STATE_VERSION,
    AgentState,
    CoverageState,
    StateError,
    TooLarge,
    read_capped,
)
from .facts import RunFacts, run_facts, stable_hash

__all__ = [
    "MAX_STATE_BYTES",
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
    "TooLarge",
    "read_capped",
    "run_facts",
    "stable_hash",
]
