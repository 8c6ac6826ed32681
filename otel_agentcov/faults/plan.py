"""A fault plan: which faults each agent run carries, decided from a seed, so the same plan and
seed inject the same faults in the same runs (docs/faults.md#plans).

A run is *armed* when it starts (a framework hook or `faults.run`): it is given the faults it
will carry, and each injector takes the first armed fault of its seam at its first chance. A
call made outside any run is a run of its own. Nothing of what the agent says passes through
here: a plan sees agent names, seams and families only.
"""

from __future__ import annotations

import random
import secrets
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from opentelemetry import trace

from ..fault_families import (
    FAMILIES,
    FAMILY_ATTRIBUTE,
    INPUT,
    MODEL,
    PLAN_ATTRIBUTE,
    SEED_ATTRIBUTE,
    TOOL,
)

# faults that leave the run going: armed alongside the one fault that may end it
NON_EXCLUSIVE = frozenset({"budget", "slow"})
# `boundaries`: one family per condition, the budget with the first run, then one a run
BOUNDARIES = ("budget", "tool_exception", "http_5xx", "timeout", "turn_pressure", "empty_input")
CHAOS = "chaos"  # each run, with probability CHAOS_RATE, one family drawn by the seed
CHAOS_RATE = 0.25
PLANS = {"boundaries": BOUNDARIES}
SEAMS = frozenset({MODEL, TOOL, INPUT})
DEFAULT_BUDGET_TOKENS = 200_000  # the spec's default `cost_limit_tokens`
DEFAULT_SLOW_S = 0.2


class PlanError(ValueError):
    """A plan that cannot be read; `str()` is one line naming what was wrong."""


@dataclass
class Plan:
    """A named, seeded schedule of faults; counts what it injected (families, never content)."""

    name: str
    seed: int
    families: tuple[str, ...]
    budget_tokens: int = DEFAULT_BUDGET_TOKENS
    slow_s: float = DEFAULT_SLOW_S
    injected: Counter[str] = field(default_factory=Counter)
    _pending: dict[str, list[str]] = field(default_factory=dict)
    _runs: Counter[str] = field(default_factory=Counter)

    @property
    def reproduce(self) -> str:
        """The plan as one flag value that injects the same faults again."""
        return f"{self.name}:{self.seed}"

    def arm(self, agent: str, seams: frozenset[str] = SEAMS) -> Armed:
        """The faults one run of `agent` carries, given the seams its caller can reach."""
        index = self._runs[agent]
        self._runs[agent] += 1
        armed = Armed(self, agent, [], f"{self.seed}:{self.name}:{agent}:{index}")
        reachable = [f for f in self.families if FAMILIES[f][0] in seams]
        if self.name == CHAOS:
            rng = armed.rng
            chosen = [rng.choice(reachable)] if reachable and rng.random() < CHAOS_RATE else []
        else:
            pending = [f for f in self._pending.setdefault(agent, list(self.families))
                       if FAMILIES[f][0] in seams]
            chosen = [f for f in pending if f in NON_EXCLUSIVE]
            chosen += [f for f in pending if f not in NON_EXCLUSIVE][:1]
        armed.families = chosen
        return armed

    def settle(self, armed: Armed) -> None:
        """After the run: what fired is done for this agent; an armed fault that never found
        its chance (a tool fault in a run that called no tool) waits behind the others."""
        pending = self._pending.get(armed.agent)
        if pending is None:
            return
        for family in armed.fired:
            if family in pending:
                pending.remove(family)
        for family in armed.families:
            if family in pending:
                pending.remove(family)
                pending.append(family)


@dataclass
class Armed:
    """One run's faults; `take` hands each out once, at its seam's first chance."""

    plan: Plan
    agent: str
    families: list[str]
    seed_text: str  # the run's own seed: plan seed, plan, agent and run index
    fired: list[str] = field(default_factory=list)
    _rng: random.Random | None = None

    @property
    def rng(self) -> random.Random:
        """The run's draws (chaos's choice, a status, a truncation point), made only when one
        is needed: seeding costs more than a call that draws nothing."""
        if self._rng is None:
            self._rng = random.Random(self.seed_text)
        return self._rng

    def take(self, seam: str, mark: bool = True) -> str | None:
        """The run's fault for this chance at `seam`, marked on the current span unless the
        caller marks it later (an input fault, before the agent's span exists)."""
        family = next((f for f in self.families if FAMILIES[f][0] == seam), None)
        if family is not None:
            self.families.remove(family)
            self.fired.append(family)
            self.plan.injected[family] += 1
            if mark:
                mark_span(family, self.plan)
        return family


def current_span() -> trace.Span:
    """The span a fault touches: the current one, or, where an instrumentation keeps its spans
    out of the context, its own idea of the current one (OpenInference's LangChain tracer,
    whose `get_current_span()` is the LangChain run in progress)."""
    span = trace.get_current_span()
    if span.is_recording():
        return span
    langchain = sys.modules.get("openinference.instrumentation.langchain")
    found = getattr(langchain, "get_current_span", lambda: None)()
    return found if isinstance(found, trace.Span) else span


def mark_span(family: str, plan: Plan) -> None:
    """Put the fault's family, plan and seed on the span it touches (`current_span`)."""
    span = current_span()
    if span.is_recording():
        span.set_attributes({FAMILY_ATTRIBUTE: family, PLAN_ATTRIBUTE: plan.name,
                             SEED_ATTRIBUTE: plan.seed})


def mark_line(family: str, plan: Plan) -> str:
    """The mark as one line, where a proxy tells its client (a header, an MCP `_meta`)."""
    return f"{family}; plan={plan.name}; seed={plan.seed}"


def parse(text: str, switch: str = "plan") -> Plan:
    """`boundaries`, `chaos`, or families (`http_5xx,tool_exception`), each with `:SEED`."""
    name, sep, seed_text = text.strip().partition(":")
    if sep:
        if not seed_text.isdigit() or len(seed_text) > 19:
            raise PlanError(f"{switch}: seed {seed_text[:40]!r} is not a non-negative integer")
        seed = int(seed_text)
    else:
        seed = secrets.randbelow(2**32)
    families: tuple[str, ...]
    if name in PLANS:
        families = PLANS[name]
    elif name == CHAOS:
        families = tuple(FAMILIES)
    else:
        families = tuple(f.strip() for f in name.split(","))
        unknown = next((f for f in families if f not in FAMILIES), None)
        if unknown is not None or not families:
            plans = ", ".join([*PLANS, CHAOS])
            raise PlanError(f"{switch}: {unknown or name!r:.60} is neither a plan ({plans}) nor "
                            f"a fault family ({', '.join(FAMILIES)})")
        name = ",".join(families)
    return Plan(name, seed, families)


_ARMED: ContextVar[Armed | None] = ContextVar("agentcov_fault_run", default=None)
_active: list[Plan] = []  # the plan in force (a test's marker stacks on the session's)


def active() -> Plan | None:
    return _active[-1] if _active else None


def push(plan: Plan) -> None:
    """Put `plan` in force (callers check the guard first: faults.enable)."""
    _active.append(plan)


def pop(plan: Plan) -> None:
    if plan in _active:
        _active.remove(plan)


@contextmanager
def activated(plan: Plan) -> Iterator[Plan]:
    """`plan` in force for the block only (a test's marker)."""
    push(plan)
    try:
        yield plan
    finally:
        pop(plan)


@contextmanager
def run(agent: str, seams: frozenset[str] = SEAMS) -> Iterator[Armed | None]:
    """One agent run under the active plan (None and no effect when none is in force)."""
    plan = active()
    if plan is None:
        yield None
        return
    armed = plan.arm(agent, seams)
    token = _ARMED.set(armed)
    try:
        yield armed
    finally:
        try:
            _ARMED.reset(token)
        except ValueError:  # closed from another context (a generator finalized elsewhere)
            _ARMED.set(None)
        plan.settle(armed)


def take(seam: str, agent: str = "*") -> tuple[str, Armed] | None:
    """The fault this call carries, if any: from the run it belongs to, else as a run of its
    own; None when no plan is in force (the cost of an injector then is this test)."""
    armed = _ARMED.get()
    if armed is None:
        plan = active()
        return None if plan is None else take_alone(plan, seam, agent)
    family = armed.take(seam)
    return (family, armed) if family is not None else None


def take_alone(plan: Plan, seam: str, agent: str = "*") -> tuple[str, Armed] | None:
    """The fault of a call that is a run of its own under `plan`."""
    armed = plan.arm(agent, frozenset({seam}))
    family = armed.take(seam)
    armed.families.clear()  # one chance only: what it did not take was never armed for it
    plan.settle(armed)
    return (family, armed) if family is not None else None
