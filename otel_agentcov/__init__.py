"""otel_agentcov: coverage of LLM agent behaviour, and restricted-tool attempts, from OTel spans."""

from .agentassay import AgentCoverageCollector
from .processor import AgentCoverageProcessor
from .snapshot import Snapshot
from .spec import CoverageSpec, SpecError
from .state import CoverageState

__all__ = [
    "AgentCoverageCollector",
    "AgentCoverageProcessor",
    "CoverageSpec",
    "CoverageState",
    "Snapshot",
    "SpecError",
]
__version__ = "0.1.0"
