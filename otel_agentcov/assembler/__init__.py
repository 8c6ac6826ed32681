"""The assembler stage: classified Steps in, finished AgentRuns out (see `tree.py`)."""

from .run import AgentRun, RunContent
from .tree import END_OF_INPUT, RunAssembler, assemble

__all__ = ["END_OF_INPUT", "AgentRun", "RunAssembler", "RunContent", "assemble"]
