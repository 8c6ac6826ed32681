"""The assembler stage: classified Steps in, finished AgentRuns out (see `tree.py`)."""

from .bounds import Bounds
from .events import Late, LateDecision, LateGuardrail, LateState
from .run import AgentRun, RunContent
from .tree import END_OF_INPUT, RunAssembler, assemble, early_flushes

__all__ = [
    "END_OF_INPUT", "AgentRun", "Bounds", "Late", "LateDecision", "LateGuardrail", "LateState",
    "RunAssembler", "RunContent", "assemble", "early_flushes",
]
