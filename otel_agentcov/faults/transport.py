"""The model-endpoint injector in process: httpx transports the OpenAI, Anthropic and other
httpx-based SDKs take unchanged (`http_client=httpx.Client(transport=FaultTransport())`).

Each request is a chance for the active plan's model faults (`plan.take`); with no plan in
force the transport only forwards. The fault is marked on the span current at the request,
the model call's span under the common instrumentations (docs/faults.md#model-endpoint).
"""

from __future__ import annotations

import asyncio
import time

import httpx

from ..fault_families import MODEL
from . import http, plan
from .plan import Armed


def _answered(family: str, armed: Armed, request: httpx.Request) -> httpx.Response | None:
    """The answer a refusing fault gives in place of the endpoint's (a timeout raises, as
    httpx's own transport does); None when the exchange goes on to the endpoint."""
    if family == "timeout":
        kind = armed.rng.choice((httpx.ConnectTimeout, httpx.ReadTimeout))
        raise kind(f"agentcov injected fault {family}", request=request)
    if family in http.REFUSING:
        status, headers, body = http.refusal(family, armed.rng)
        return httpx.Response(status, headers=headers, content=body, request=request)
    return None


def _altered(family: str, armed: Armed, request: httpx.Request, response: httpx.Response
             ) -> httpx.Response:
    body = http.rewrite(family, response.content, response.headers.get("content-type", ""),
                        armed.plan.budget_tokens, armed.rng)
    return httpx.Response(response.status_code, content=body, request=request,
                          headers=http.kept_headers(list(response.headers.multi_items())),
                          extensions=response.extensions)


class FaultTransport(httpx.BaseTransport):
    """Forwards to `wrapped` (a fresh HTTPTransport by default), injecting the plan's faults."""

    def __init__(self, wrapped: httpx.BaseTransport | None = None, agent: str = "*") -> None:
        self._wrapped = wrapped if wrapped is not None else httpx.HTTPTransport()
        self._agent = agent

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        fault = plan.take(MODEL, self._agent)
        if fault is None:
            return self._wrapped.handle_request(request)
        family, armed = fault
        answer = _answered(family, armed, request)
        if answer is not None:
            return answer
        if family == "slow":
            time.sleep(armed.plan.slow_s)
        response = self._wrapped.handle_request(request)
        if family in http.ALTERING:
            response.read()
            return _altered(family, armed, request, response)
        return response

    def close(self) -> None:
        self._wrapped.close()


class AsyncFaultTransport(httpx.AsyncBaseTransport):
    """FaultTransport for `httpx.AsyncClient` (the SDKs' async clients)."""

    def __init__(self, wrapped: httpx.AsyncBaseTransport | None = None, agent: str = "*") -> None:
        self._wrapped = wrapped if wrapped is not None else httpx.AsyncHTTPTransport()
        self._agent = agent

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        fault = plan.take(MODEL, self._agent)
        if fault is None:
            return await self._wrapped.handle_async_request(request)
        family, armed = fault
        answer = _answered(family, armed, request)
        if answer is not None:
            return answer
        if family == "slow":
            await asyncio.sleep(armed.plan.slow_s)
        response = await self._wrapped.handle_async_request(request)
        if family in http.ALTERING:
            await response.aread()
            return _altered(family, armed, request, response)
        return response

    async def aclose(self) -> None:
        await self._wrapped.aclose()
