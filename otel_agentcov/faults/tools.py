"""The tool injector: a decorator for Python tools, sync or async, that the frameworks register
unchanged (`@agent.tool_plain` over `@faults.tool` in pydantic-ai, `@function_tool` over it in the
OpenAI Agents SDK), and `wrap_function_tool` for an Agents SDK `FunctionTool` already built.

Under a plan's tool fault the call raises, times out, returns an error result or a malformed
one; the fault is marked on the span current at the call, the tool's span under the common
instrumentations (docs/faults.md#tools). With no plan in force the call passes straight through.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from opentelemetry.trace import Status, StatusCode

from ..fault_families import TOOL
from . import plan

F = TypeVar("F", bound=Callable[..., Any])
ERROR_RESULT = "ERROR: agentcov injected fault tool_error_result"
MALFORMED_RESULT = '{"result": '  # JSON cut short


class InjectedToolError(RuntimeError):
    """What a tool raises under `tool_exception`; its name is the span's error type."""


def outcome(family: str) -> Any:
    """Raise, or return the result the fault replaces the tool's with."""
    if family == "tool_exception":
        raise InjectedToolError("agentcov injected fault tool_exception")
    if family == "tool_timeout":
        raise TimeoutError("agentcov injected fault tool_timeout")
    if family == "tool_error_result":
        span = plan.current_span()
        if span.is_recording():  # an error result is a failed call, as MCP's isError is
            span.set_attribute("error.type", "ToolErrorResult")
            span.set_status(Status(StatusCode.ERROR))
        return ERROR_RESULT
    return MALFORMED_RESULT


def tool(fn: F) -> F:
    """`fn`, with the active plan's tool faults injected into its calls."""
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            fault = plan.take(TOOL)
            if fault is not None:
                return outcome(fault[0])
            return await fn(*args, **kwargs)
        return cast(F, call_async)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        fault = plan.take(TOOL)
        if fault is not None:
            return outcome(fault[0])
        return fn(*args, **kwargs)
    return cast(F, call)


def wrap_function_tool(function_tool: Any) -> Any:
    """An OpenAI Agents SDK `FunctionTool` whose invocations carry the plan's tool faults (its
    `on_invoke_tool` wrapped in place; the tool is returned)."""
    function_tool.on_invoke_tool = tool(function_tool.on_invoke_tool)
    return function_tool
