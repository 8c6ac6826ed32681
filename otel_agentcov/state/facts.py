"""RunFacts: what one finished run contributes to the state, derived once from run and spec.

Every record folds the same facts, so the run's steps are walked once however many records
there are, and the pass decision is made in one place (docs/semantics.md#runs-and-statistics).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..assembler import AgentRun
from ..fault_families import provokes
from ..judge import Check, Verdicts
from ..semconv.events import DENY, OUTCOMES
from ..semconv.step import (
    DELEGATE,
    GUARDRAIL,
    HANDOFF,
    LLM,
    MAX_STEPS,
    PLAN,
    TIMEOUT,
    TOOL,
    Step,
)
from ..spec import AgentSpec, BoundarySpec

UNKNOWN_CURRENCY = "unknown"  # a cost amount recorded without its currency


def stable_hash(tokens: Iterable[str]) -> int:
    """64-bit hash that is the same in every process (unlike hash()), so states merge."""
    digest = hashlib.blake2b("\x1f".join(tokens).encode("utf-8", "replace"), digest_size=8)
    return int.from_bytes(digest.digest(), "big")


_HASH_CACHE_LIMIT = 8192
_hash_cache: dict[tuple[str, ...], int] = {}


def _cached_hash(tokens: tuple[str, ...]) -> int:
    """stable_hash of the state and path keys runs keep repeating (a dict hit, not a blake2b)."""
    value = _hash_cache.get(tokens)
    if value is None:
        if len(_hash_cache) >= _HASH_CACHE_LIMIT:
            _hash_cache.clear()
        value = _hash_cache[tokens] = stable_hash(tokens)
    return value


def _path_token(step: Step, by_tool: bool) -> str:
    if step.kind in (DELEGATE, HANDOFF):
        target = step.agent if step.kind == DELEGATE else step.handoff_to
        return f"delegate:{target}" if by_tool else "delegate"
    if step.kind == TOOL:
        return f"tool:{step.tool}" if by_tool else "tool"
    if step.kind == PLAN or step.kind == GUARDRAIL:
        return step.kind
    return "llm"


_STATE_KINDS = frozenset({LLM, TOOL, DELEGATE, HANDOFF, PLAN, GUARDRAIL})


def guardrail_state(result: str) -> tuple[str, ...]:
    """The state of a guardrail step that succeeded with `result` (`_state_key`'s)."""
    return (GUARDRAIL, "", "ok", result)


def blocked(b: BoundarySpec, result: str) -> bool:
    """Whether a guardrail's result is one the spec says means blocked (`guardrail_blocked`
    enabled; compared exactly: docs/semantics.md#plans-and-guardrails)."""
    return "guardrail_blocked" in b.conditions and result in b.guardrail_blocked


def _state_key(step: Step) -> tuple[str, ...]:
    subject = step.model if step.kind == LLM else step.tool if step.kind == TOOL else step.agent
    outcome = "error" if step.error else "empty" if step.empty else "ok"
    kind = DELEGATE if step.kind == HANDOFF else step.kind
    return (kind, subject or "", outcome, step.finish_reason, *step.state_extra)


@dataclass(slots=True)
class RunFacts:
    """Names, counts and hashes of one run; never content."""

    tool_calls: Counter[tuple[str, bool]]  # (tool, failed) of executed calls, first-seen order
    called: set[str]
    handoff_tools: set[str]  # tools the instrumentation marks as hand-offs (not actions)
    models: Counter[str]
    restricted: Counter[tuple[str, str]]  # (tool, outcome) of restricted attempts
    decisions: Counter[tuple[str, str]]  # (tool, outcome) of tool-call decisions
    tool_definitions: frozenset[str]
    path: tuple[str, ...]
    path_key: int
    state_keys: list[int]
    event_state_keys: list[int]  # the states the runtime reported (state-change events)
    boundary_hits: list[str]  # enabled conditions the run hit
    delegations: list[tuple[str, str]]
    duration_s: float
    tokens: int
    costs: dict[str, float]  # gen_ai.usage.cost.amount summed per currency
    errored: bool
    passed: bool
    score: float
    end_ns: int
    trace_id: int
    context: str | None
    checks: tuple[Check, ...] = ()  # contract verdicts (names and results, never content)
    contract_failed: bool = False
    faults: frozenset[str] = frozenset()  # families injected in the run (docs/faults.md)
    provoked: tuple[str, ...] = ()  # the boundary hits a matching fault provoked
    failed_tools: frozenset[str] = frozenset()  # tools with a failed call in the run
    skill_definitions: frozenset[str] = frozenset()  # skills offered to the agent
    # (skill, a resource read rather than a load) of its skill tool calls (docs/semantics.md#skills)
    skill_loads: Counter[tuple[str, bool]] = field(default_factory=Counter)

    @property
    def attempts(self) -> int:
        return sum(self.restricted.values())


def cost_limit_hit(b: BoundarySpec, tokens: int, cost: float,
                   costs: Mapping[str, float] | None = None) -> bool:
    """The cost_limit condition: 90 % of the token, the USD or the declared currency's budget
    used (`costs`: the run's cost per currency)."""
    return (b.cost_limit_tokens is not None and tokens >= 0.9 * b.cost_limit_tokens) or (
        b.cost_limit_usd is not None and cost >= 0.9 * b.cost_limit_usd) or (
        b.cost_limit_amount is not None and costs is not None
        and costs.get(b.cost_limit_currency, 0.0) >= 0.9 * b.cost_limit_amount)


def run_facts(run: AgentRun, spec: AgentSpec, verdicts: Verdicts) -> RunFacts:
    """Walk the run's steps once; a run passes unless an error, an attempt or a verdict fails it."""
    restricted = spec.restricted_tools.matches  # names, globs, aliases; normalised
    tool_calls: Counter[tuple[str, bool]] = Counter()
    called: set[str] = set()
    handoff_tools: set[str] = set()
    seen_tools: Counter[str] = Counter()
    requested: Counter[str] = Counter()
    models: Counter[str] = Counter()
    attempts: Counter[tuple[str, str]] = Counter()
    decisions: Counter[tuple[str, str]] = Counter()
    llm_calls = tokens = 0
    cost = 0.0
    costs: dict[str, float] = {}
    tool_failed = llm_failed = False
    skill_loads: Counter[tuple[str, bool]] = Counter()
    by_tool = spec.granularity == "tool"
    depth = spec.max_depth
    path: list[str] = []
    state_keys: list[int] = []
    for step in run.steps:  # path and state keys in this one pass over the steps
        kind = step.kind
        if depth > len(path):
            path.append(_path_token(step, by_tool))
        if kind in _STATE_KINDS:
            state_keys.append(_cached_hash(_state_key(step)))
        if step.cost_amount:  # a model or tool call's own cost, in its currency
            currency = step.cost_currency or UNKNOWN_CURRENCY
            costs[currency] = costs.get(currency, 0.0) + step.cost_amount
            if currency == "USD" and not step.cost_usd:
                cost += step.cost_amount
        if kind == TOOL and step.tool is not None:
            name = step.tool
            if step.decision is not None and step.decision in OUTCOMES:
                decisions[(name, step.decision)] += 1
            if step.decision == DENY:
                seen_tools[name] += 1  # the attempt a request below would count
                if restricted(name):
                    attempts[(name, "denied")] += 1
                continue
            if step.event:  # a decision with no span of the call: nothing ran that we saw,
                continue  # and no request is answered by it (an `allow` is never a call)
            seen_tools[name] += 1
            called.add(name)
            if step.handoff_tool:
                handoff_tools.add(name)
            failed = step.error is not None
            tool_calls[(name, failed)] += 1
            if step.skill is not None and not failed:  # a tool call that loaded a skill
                skill_loads[(step.skill, step.skill_resource)] += 1
            tool_failed = tool_failed or failed
            if restricted(name):
                attempts[(name, "failed" if failed else "executed")] += 1
        elif kind == LLM:
            llm_calls += 1
            tokens += step.input_tokens + step.output_tokens
            cost += step.cost_usd
            llm_failed = llm_failed or step.error is not None
            if step.requested_tools:  # rarely set; Counter.update costs even when empty
                requested.update(step.requested_tools)
            if step.model:
                models[step.model] += 1
    models.update(run.models)  # named by no step (a trial's trace-level model): once per run
    for name, count in requested.items():
        if restricted(name) and count > seen_tools[name]:
            attempts[(name, "denied")] += count - seen_tools[name]

    b = spec.boundaries
    hits = {
        "max_steps": MAX_STEPS in run.limits
        or (b.max_steps is not None and max(llm_calls, run.turns) >= b.max_steps),
        "timeout": TIMEOUT in run.limits
        or (b.timeout_s is not None and run.duration_s >= b.timeout_s),
        "cost_limit": cost_limit_hit(b, tokens, cost, costs),
        "empty_input": run.input_chars is not None and run.input_chars < b.min_input_chars,
        "error_path": run.error is not None or llm_failed,
        "tool_failure": tool_failed,
        "guardrail_blocked": bool(b.guardrail_blocked) and any(
            s.kind == GUARDRAIL and s.finish_reason in b.guardrail_blocked for s in run.steps),
    }
    passed = run.error is None and not attempts and not verdicts.fails_run
    boundary_hits = [c for c in b.conditions if hits[c]]
    score = sum(run.scores) / len(run.scores) if run.scores else float(passed)
    return RunFacts(
        tool_calls=tool_calls,
        called=called,
        handoff_tools=handoff_tools,
        models=models,
        restricted=attempts,
        decisions=decisions,
        tool_definitions=run.tool_definitions,
        path=tuple(path),
        path_key=_cached_hash(tuple(path)),
        state_keys=state_keys,
        event_state_keys=[_cached_hash(t) for t in run.state_changes],
        boundary_hits=boundary_hits,
        delegations=run.delegations,
        duration_s=run.duration_s,
        tokens=tokens,
        costs=costs,
        errored=run.error is not None,
        passed=passed,
        score=score,
        end_ns=run.end_ns,
        trace_id=run.trace_id,
        context=run.context,
        checks=verdicts.checks,
        contract_failed=any(c.fails_run for c in verdicts.checks) if verdicts.checks else False,
        faults=run.faults,
        provoked=tuple(c for c in boundary_hits if provokes(run.faults, c)) if run.faults else (),
        failed_tools=frozenset(t for t, failed in tool_calls if failed) if tool_failed
        else frozenset(),
        skill_definitions=run.skill_definitions,
        skill_loads=skill_loads,
    )
