"""The assembler stage: classified Steps in, finished AgentRuns out (see `tree.py`)."""

from .bounds import Bounds
from .run import AgentRun, RunContent
from .tree import END_OF_INPUT, RunAssembler, assemble, early_flushes

__all__ = [
    "END_OF_INPUT", "AgentRun", "Bounds", "RunAssembler", "RunContent", "assemble",
    "early_flushes",
]
