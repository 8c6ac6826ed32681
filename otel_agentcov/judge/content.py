"""RunContent: the captured text of one run, kept only until the run is judged (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class RunContent:
    """Final output, user input and tool-call arguments (by tool span id), as captured."""

    output: str | None = None
    input: str | None = None
    tool_args: dict[int, Mapping[str, Any]] = field(default_factory=dict)
