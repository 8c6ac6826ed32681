"""otel_agentcov: coverage of LLM agent behaviour, and restricted-tool attempts, from OTel spans.

The public names load on first use (PEP 562), so `agentcov` and the pytest plugin start without
importing the OpenTelemetry SDK, protobuf or jsonschema when a command does not need them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agentassay import AgentCoverageCollector
    from .exporters.otlp_file import OTLPFileSpanExporter
    from .processor import AgentCoverageProcessor
    from .snapshot import Snapshot
    from .spec import CoverageSpec, SpecError
    from .state import CoverageState

_WHERE = {
    "AgentCoverageCollector": ".agentassay",
    "AgentCoverageProcessor": ".processor",
    "CoverageSpec": ".spec",
    "CoverageState": ".state",
    "OTLPFileSpanExporter": ".exporters.otlp_file",
    "Snapshot": ".snapshot",
    "SpecError": ".spec",
}
__all__ = [
    "AgentCoverageCollector",
    "AgentCoverageProcessor",
    "CoverageSpec",
    "CoverageState",
    "OTLPFileSpanExporter",
    "Snapshot",
    "SpecError",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value
