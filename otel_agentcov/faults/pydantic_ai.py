"""pydantic-ai under a fault plan with no change to the agent's code (docs/faults.md#pydantic-ai).

`install()` wraps `Agent.iter`, which every run method goes through: each run is armed under the
active plan, its input faults applied there (an empty prompt, a request limit of one), and a
capability added that injects the run's model faults inside the model request span and its tool
faults inside the tool span (pydantic-ai's Instrumentation capability is outermost, so both spans
are current when ours runs). With no plan in force the wrapper only calls through.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities.abstract import AbstractCapability, CapabilityOrdering
from pydantic_ai.exceptions import ModelHTTPError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelResponse
from pydantic_ai.usage import RequestUsage, UsageLimits

from ..fault_families import INPUT, MODEL, TOOL
from . import plan
from .plan import Armed
from .tools import outcome

TURN_LIMIT = 1  # turn_pressure: the run may make one model request
_original: list[Callable[..., Any]] = []


class FaultCapability(AbstractCapability[Any]):
    """One armed run's model and tool faults, innermost so the step's span is current."""

    def __init__(self, armed: Armed, input_faults: list[str]) -> None:
        self.armed = armed
        self.input_faults = input_faults

    def get_ordering(self) -> CapabilityOrdering:
        return CapabilityOrdering(position="innermost")

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        for family in self.input_faults:  # the agent span is current: mark it
            plan.mark_span(family, self.armed.plan)
        return await handler()

    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        family = self.armed.take(MODEL)
        if family is None:
            return await handler(request_context)
        name = request_context.model.model_name
        if family in ("http_5xx", "rate_limit"):
            status = 429 if family == "rate_limit" else self.armed.rng.choice((500, 503))
            raise ModelHTTPError(status, name, {"error": f"agentcov injected fault {family}"})
        if family == "timeout":
            raise TimeoutError(f"agentcov injected fault {family}")
        if family == "truncated_stream":
            raise UnexpectedModelBehavior(f"agentcov injected fault {family}: the answer was cut")
        if family == "empty_completion":
            return ModelResponse(parts=[], model_name=name)
        if family == "slow":
            await asyncio.sleep(self.armed.plan.slow_s)
        response = await handler(request_context)
        if family == "budget":
            usage = response.usage
            response.usage = RequestUsage(
                input_tokens=max(usage.input_tokens, self.armed.plan.budget_tokens),
                output_tokens=usage.output_tokens)
        return response

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any,
                                handler: Any) -> Any:
        family = self.armed.take(TOOL)
        if family is None:
            return await handler(args)
        return outcome(family)


def _input_faults(armed: Armed, kwargs: dict[str, Any]) -> list[str]:
    """Apply the run's input fault to its arguments; the families applied."""
    family = armed.take(INPUT, mark=False)  # the agent span is not open yet: wrap_run marks
    if family == "empty_input":
        kwargs["user_prompt"] = ""
    elif family == "turn_pressure":
        limits = kwargs.get("usage_limits") or UsageLimits()
        kwargs["usage_limits"] = dataclasses.replace(limits, request_limit=TURN_LIMIT)
    return [family] if family is not None else []


def install() -> None:
    """Wrap `Agent.iter` (once; `uninstall` restores it)."""
    if _original:
        return
    original = Agent.iter
    _original.append(original)

    @asynccontextmanager
    async def iter_with_faults(self: Agent[Any, Any], user_prompt: Any = None,
                               **kwargs: Any) -> AsyncIterator[Any]:
        with plan.run(self.name or "agent") as armed:
            if armed is None:
                async with original(self, user_prompt, **kwargs) as agent_run:
                    yield agent_run
                return
            kwargs["user_prompt"] = user_prompt
            applied = _input_faults(armed, kwargs)
            kwargs["capabilities"] = [*(kwargs.get("capabilities") or ()),
                                      FaultCapability(armed, applied)]
            async with original(self, **kwargs) as agent_run:
                yield agent_run

    Agent.iter = iter_with_faults  # type: ignore[method-assign]


def uninstall() -> None:
    if _original:
        Agent.iter = _original.pop()  # type: ignore[method-assign]


__all__ = ["FaultCapability", "install", "uninstall"]
