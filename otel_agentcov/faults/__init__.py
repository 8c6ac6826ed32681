"""Seeded fault injection for agents, under an explicit switch only (docs/faults.md).

`enable(plan)` (or `AGENTCOV_FAULTS=plan` read by `enable_from_env()`, or pytest's
`--agentcov-faults`) puts a plan in force once the guard allows it; the injectors then act:
`tool` (a decorator for Python tools), the httpx transports (`faults.transport`), pydantic-ai's
runs (`faults.pydantic_ai`, installed by `enable` when pydantic-ai is importable) and the proxy
(`agentcov faults proxy`). Every injected fault is marked on the span it touches, so coverage
tells the boundaries it provoked from the ones that happened.
"""

from __future__ import annotations

import importlib.util
import os

from .guard import ENV_PLAN, ENV_PRODUCTION, FaultsRefused, check, forbid
from .plan import Armed, Plan, PlanError, activated, active, parse, pop, push, run
from .tools import InjectedToolError, tool, wrap_function_tool

_enabled: list[Plan] = []


def install_hooks() -> None:
    """The framework hooks that need no change to the agent's code (pydantic-ai)."""
    if importlib.util.find_spec("pydantic_ai") is not None:
        from . import pydantic_ai

        pydantic_ai.install()


def enable(plan: str | Plan, switch: str = "faults.enable") -> Plan:
    """Put `plan` in force for the process (until `disable`); FaultsRefused where the guard
    forbids faults, PlanError for a plan that cannot be read."""
    check(switch)
    chosen = parse(plan, switch) if isinstance(plan, str) else plan
    install_hooks()
    _enabled.append(chosen)
    push(chosen)
    return chosen


def disable() -> None:
    """End every plan `enable` put in force."""
    while _enabled:
        pop(_enabled.pop())


def enable_from_env() -> Plan | None:
    """`enable(os.environ["AGENTCOV_FAULTS"])` when the variable is set, else None."""
    text = os.environ.get(ENV_PLAN, "").strip()
    return enable(text, ENV_PLAN) if text else None


__all__ = [
    "ENV_PLAN", "ENV_PRODUCTION", "Armed", "FaultsRefused", "check", "InjectedToolError", "Plan",
    "PlanError", "active", "activated", "disable", "enable", "enable_from_env", "forbid",
    "install_hooks", "parse", "run", "tool", "wrap_function_tool",
]
