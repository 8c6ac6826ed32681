"""The fault vocabulary every layer shares: families, the seam each acts at, the boundary
conditions each can provoke, and the span attributes an injected fault leaves (docs/faults.md).

It sits at the bottom of the layers because classification reads the marks, the state counts
them and the injectors (`otel_agentcov.faults`) write them: one list, so they cannot drift.
"""

from __future__ import annotations

FAMILY_ATTRIBUTE = "agentcov.fault.family"
PLAN_ATTRIBUTE = "agentcov.fault.plan"
SEED_ATTRIBUTE = "agentcov.fault.seed"

MODEL, TOOL, INPUT = "model", "tool", "input"

# family -> (seam, the boundary conditions a fault of it provokes when the run hits them); every
# family provokes error_path: a run that carried a fault and failed was made to fail by it
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "http_5xx": (MODEL, ("error_path",)),
    "rate_limit": (MODEL, ("error_path",)),
    "timeout": (MODEL, ("timeout", "error_path")),
    "slow": (MODEL, ("timeout", "error_path")),
    "truncated_stream": (MODEL, ("error_path",)),
    "empty_completion": (MODEL, ("error_path",)),
    "budget": (MODEL, ("cost_limit", "error_path")),
    "tool_exception": (TOOL, ("tool_failure", "error_path")),
    "tool_timeout": (TOOL, ("tool_failure", "timeout", "error_path")),
    "tool_error_result": (TOOL, ("tool_failure", "error_path")),
    "tool_malformed": (TOOL, ("tool_failure", "error_path")),
    "empty_input": (INPUT, ("empty_input", "error_path")),
    "turn_pressure": (INPUT, ("max_steps", "error_path")),
}

# the family the built-in `boundaries` plan provokes each condition with
PROVOKING = {
    "max_steps": "turn_pressure",
    "timeout": "timeout",
    "cost_limit": "budget",
    "empty_input": "empty_input",
    "error_path": "http_5xx",
    "tool_failure": "tool_exception",
}


def family_of(value: object) -> str | None:
    """The family a span's mark names, or None: an unknown name is not a fault (the set of
    families a state can hold stays this list, however many names the input invents)."""
    return value if isinstance(value, str) and value in FAMILIES else None


def provokes(families: frozenset[str], condition: str) -> bool:
    """A condition hit in a run with these faults was provoked by one of them."""
    return any(condition in FAMILIES[f][1] for f in families)
