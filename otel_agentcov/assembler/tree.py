"""RunAssembler: buffers steps per trace, builds the span tree and cuts it into AgentRuns.

A trace's subtree is assembled when its local root ends (children end before parents), or
early when it sits idle past the TTL or hits a bound (traces, spans per trace, or spans buffered
across all traces: roots that never end cannot grow memory without limit); every early flush is
counted.
"""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_left, bisect_right
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from itertools import accumulate

from ..semconv.common import TOOL_CALL_FINISHES, finishes_run
from ..semconv.events import Event
from ..semconv.step import (
    AGENT,
    DELEGATE,
    GUARDRAIL,
    HANDOFF,
    LLM,
    MAX_STEPS,
    OTHER,
    PLAN,
    STATE,
    TOOL,
    WORKFLOW,
    Step,
)
from .bounds import Bounds
from .events import Closed, Late, LateDecision, event_counts, join, unjoined_denials
from .infer import Reclassified, infer_structure, names_its_agent
from .run import AgentRun, run_content

_RUN_STEP_KINDS = frozenset({LLM, TOOL, HANDOFF, PLAN, GUARDRAIL})
# The hand-off and hosting heuristics compare agent runs pairwise; past this many in one trace
# (no real workflow, a hostile or runaway one) they are skipped so assembly stays near-linear.
MAX_PAIRED_AGENTS = 256
END_OF_INPUT = "end_of_input"  # the flush reason when an offline input ends
FLUSH_REASONS = ("idle_ttl", "trace_limit", "span_limit", "span_budget", "shutdown")


def early_flushes() -> dict[str, int]:
    """An early-flush table: every reason a bound can flush for, at 0."""
    return dict.fromkeys(FLUSH_REASONS, 0)


class _Builder:
    """A run under construction while the tree is walked."""

    __slots__ = (
        "agent", "span", "parent_span_id", "steps", "delegations", "extra_spans", "called",
        "callees", "context", "faults", "states",
    )

    def __init__(self, agent: str, span: Step | None, context: str | None = None) -> None:
        self.agent = agent
        self.context = context
        self.span = span
        self.parent_span_id = span.parent_id if span is not None else None
        self.steps: list[Step] = []
        self.delegations: list[tuple[str, str]] = []
        self.extra_spans: list[Step] = []
        self.called = False  # another agent's run delegated to this one
        self.callees: list[_Builder] = []  # runs of this trace this one delegated to
        # families marked on any span of the run, counted or not (a graph node around the model
        # call, the MCP server's half of a tool call folded into the client's)
        self.faults: set[str] = set()
        self.states: list[Step] = []  # state-change events recorded in its spans

    def add(self, step: Step) -> None:
        self.steps.append(step)
        if step.handoff_to is not None:
            self.delegations.append((step.handoff_from or self.agent, step.handoff_to))

    def own_calls(self) -> dict[str, bool]:
        """tool -> had a successful call (not failed, not denied), over this run's own steps."""
        calls: dict[str, bool] = {}
        for s in self.steps:
            if s.kind == TOOL and s.tool is not None:
                ok = s.error is None and s.decision != "deny"
                calls[s.tool] = calls.get(s.tool, False) or ok
        return calls

    def delegated_calls(self, own: dict[int, dict[str, bool]]) -> dict[str, bool]:
        """The calls of the runs this one delegated to, transitively (at most MAX_PAIRED_AGENTS
        runs are walked, so a hostile chain of nested agents stays near-linear)."""
        calls: dict[str, bool] = {}
        seen = {id(self)}
        stack = list(self.callees)
        while stack and len(seen) <= MAX_PAIRED_AGENTS:
            callee = stack.pop()
            if id(callee) in seen:
                continue
            seen.add(id(callee))
            for tool, ok in own[id(callee)].items():
                calls[tool] = calls.get(tool, False) or ok
            stack.extend(callee.callees)
        return calls

    def build(
        self, trace_id: int, content: bool, delegated_calls: dict[str, bool]
    ) -> AgentRun:
        steps = sorted(self.steps, key=lambda s: (s.start_ns, s.end_ns))
        spans = ([self.span] if self.span is not None else []) + self.extra_spans
        if self.span is not None:
            start, end = self.span.start_ns, self.span.end_ns
            if self.span.turn:  # a turn marker opens the run; its work follows the marker
                end = max((s.end_ns for s in steps), default=end)
            if self.span.kind == LLM:  # model calls naming their agent: as runs without a span
                llm = [s for s in steps if s.kind == LLM]
                error = llm[-1].error if llm else None
            else:
                error = next((s.error for s in spans if s.error), None)
                if error is None and not self.span.settled:  # a run that ended on a failed
                    # model call, nothing after it, its span not saying it handled that: failed
                    last = max((s for s in steps if s.kind in (LLM, TOOL)),
                               key=lambda s: s.end_ns, default=None)
                    error = last.error if last is not None and last.kind == LLM else None
        else:
            start = min((s.start_ns for s in steps), default=0)
            end = max((s.end_ns for s in steps), default=0)
            llm = [s for s in steps if s.kind == LLM]
            error = llm[-1].error if llm else None
        every = (*spans, *steps)  # one tuple for the reads below, not one per read
        limits = frozenset(s.limit for s in every if s.limit is not None)
        own = self.span if self.span is not None and self.span.kind != LLM else None  # not a
        # call's: a run of calls naming their agent has no budget or ending of its own
        if own is not None and 0 < own.step_limit < sum(s.kind == LLM for s in steps):
            limits |= {MAX_STEPS}  # more model calls than the agent's own budget allows
        if own is not None and error is None and _cut_short(steps):
            limits |= {MAX_STEPS}
        input_chars = next((s.input_chars for s in spans if s.input_chars is not None), None)
        if input_chars is None:
            input_chars = next(
                (s.input_chars for s in steps if s.kind == LLM and s.input_chars is not None), None
            )
        return AgentRun(
            agent=self.agent,
            trace_id=trace_id,
            start_ns=start,
            end_ns=end,
            error=error,
            limits=limits,
            steps=steps,
            delegations=self.delegations,
            input_chars=input_chars,
            scores=tuple(x for s in every for x in s.scores),
            tool_definitions=frozenset(n for s in steps for n in s.tool_definitions),
            # the agent span's own version first: a child span may come from another service
            version=next((s.version for s in every if s.version), None),
            context=self.context,
            content=run_content(spans, steps) if content else None,
            delegated_calls=delegated_calls,
            span_id=self.span.span_id if self.span is not None
            else steps[0].span_id if steps else 0,
            faults=frozenset(self.faults).union(
                s.fault for s in every if s.fault is not None),
            turns=max((s.turn_count for s in spans), default=0),
            state_changes=tuple(s.state_extra for s in sorted(self.states,
                                                              key=lambda s: s.start_ns)),
            skill_definitions=frozenset(n for s in spans for n in s.skill_definitions),
        )


def _cut_short(steps: list[Step]) -> bool:
    """An agent run whose last model turn asked for tools, and that neither handed over nor
    called a tool that finishes the run, ended because its step limit did (the AI SDK's
    `stopWhen`, Mastra's `maxSteps` end it silently)."""
    last = next((s for s in reversed(steps) if s.kind == LLM), None)
    if last is None or last.finish_reason not in TOOL_CALL_FINISHES:
        return False
    return not any(s.kind == HANDOFF or s.handoff_tool or finishes_run(s.tool) for s in steps)


def _norm(name: str) -> str:
    return name.lower().replace(" ", "_").replace("-", "_")


def _resolve_sibling_handoffs(builders: list[_Builder]) -> None:
    """A hand-off tool in A followed by a sibling invocation of B is the edge A -> B."""
    pending: list[tuple[_Builder, Step]] = [
        (b, s)
        for b in builders
        for s in b.steps
        if (s.handoff_tool or s.kind == HANDOFF) and s.handoff_to is None
    ]
    if not pending or len(builders) > MAX_PAIRED_AGENTS:
        return
    used: set[int] = set()
    targets = [(b.span.start_ns, b) for b in builders if b.span is not None]
    targets.sort(key=lambda t: t[0])
    for started, target in targets:
        candidates = [
            (src, step)
            for src, step in pending
            if step.span_id not in used
            and src is not target
            and src.agent != target.agent
            and src.parent_span_id == target.parent_span_id
            and step.start_ns <= started
        ]
        if not candidates:
            continue
        wanted = _norm(target.agent)
        named = [c for c in candidates if c[1].handoff_hint and _norm(c[1].handoff_hint) == wanted]
        src, step = max(named or candidates, key=lambda c: c[1].start_ns)
        used.add(step.span_id)
        src.delegations.append((src.agent, target.agent))
        src.callees.append(target)
    nested = {(b.span.parent_id, _norm(b.agent)) for b in builders if b.span is not None}
    for src, step in pending:
        if step.span_id in used or not step.handoff_hint:
            continue
        if (step.span_id, _norm(step.handoff_hint)) not in nested:  # else: agent-as-tool's edge
            src.delegations.append((src.agent, step.handoff_hint))


def _wraps_llm(step: Step, children: dict[int, list[Step]]) -> bool:
    """An LLM span around another LLM span is one model call (LlamaIndex `achat` calling its
    base class's `achat`): only the innermost, which carries usage and errors, is counted."""
    return step.kind == LLM and any(k.kind == LLM for k in children.get(step.span_id, ()))


def _opens_run(step: Step, parent_is_tool: bool) -> bool:
    """Agent spans open runs; a LangGraph graph inside a node only when a tool started it."""
    return step.kind == AGENT and bool(step.agent) and (not step.graph_candidate or parent_is_tool)


def _hosts(kids: list[Step]) -> dict[int, int]:
    """Spans that ran inside a sibling agent span's time but were not parented to it.

    Traceloop LangGraph puts a nested graph's work beside its `invoke_agent` span instead of
    under it; that work belongs to the sibling agent, not to the caller.
    """
    agents = [k for k in kids if k.kind == AGENT and _opens_run(k, False)]
    if not agents or len(agents) > MAX_PAIRED_AGENTS:
        return {}
    hosts: dict[int, int] = {}
    for kid in kids:
        if kid.kind == AGENT:
            continue
        for agent in agents:
            if agent.start_ns <= kid.start_ns and kid.end_ns <= agent.end_ns:
                hosts[kid.span_id] = agent.span_id
                break
    return hosts


def _between_runs(kids: list[Step], hosted: dict[int, int]) -> dict[int, int]:
    """Tool calls under no run that ran between two runs of one agent (siblings: the app
    running the tools an agent's output named, then that agent again with their results) are
    the earlier run's: its agent asked for them."""
    runs = sorted((k for k in kids if k.kind == AGENT and _opens_run(k, False)),
                  key=lambda k: k.start_ns)
    if len(runs) < 2 or len(runs) > MAX_PAIRED_AGENTS:
        return {}
    starts = [r.start_ns for r in runs]
    last_end = list(accumulate((r.end_ns for r in runs), max))  # of the runs started so far
    hosts: dict[int, int] = {}
    for kid in kids:
        if kid.kind != TOOL or kid.span_id in hosted:
            continue
        after = bisect_left(starts, kid.end_ns)  # the first run starting once it ended
        if 0 < after < len(runs) and last_end[after - 1] <= kid.start_ns and (
                runs[after - 1].agent == runs[after].agent):
            hosts[kid.span_id] = runs[after - 1].span_id
    return hosts


def _turns(kids: list[Step], current: _Builder | None, builders: list[_Builder],
           context: str | None) -> dict[int, _Builder]:
    """Siblings after a turn marker (LlamaIndex `setup_agent`) are the marked agent's work, up
    to the next marker naming another agent; a marker under another agent's run is a call."""
    owners: dict[int, _Builder] = {}
    turn: _Builder | None = None
    for kid in sorted(kids, key=lambda k: k.start_ns):
        if kid.turn and kid.agent is not None:
            if turn is not None and turn.agent == kid.agent:
                turn.extra_spans.append(kid)
            elif current is not None and current.agent == kid.agent:
                turn = current
            else:
                turn = _Builder(kid.agent, kid, context or kid.context or kid.resource_context)
                builders.append(turn)
                if current is not None:
                    _delegate(current, turn)
        if turn is not None:
            owners[kid.span_id] = turn
    return owners


def _adopt_failed_workflows(workflows: list[Step], builders: list[_Builder]) -> None:
    """A workflow span that failed (an error or a limit raised past its agents) fails the last
    agent run that ran directly under it."""
    if not workflows:
        return
    last: dict[int, _Builder] = {}  # parent span -> the latest run directly under it
    for b in builders:
        if b.span is not None and b.parent_span_id is not None:
            seen = last.get(b.parent_span_id)
            if seen is None or (seen.span is not None and seen.span.start_ns <= b.span.start_ns):
                last[b.parent_span_id] = b
    for workflow in workflows:
        run = last.get(workflow.span_id)
        if run is not None:
            run.extra_spans.append(workflow)


def _place_workflow_handoffs(handoffs: list[Step], builders: list[_Builder]) -> None:
    """A hand-off a workflow records outside any agent (Agent Framework's edge from executor A
    to executor B) is A's step when both ran as agents in the trace; an edge from or to an
    orchestrator that is no agent is routing, not a hand-off."""
    if not handoffs:
        return
    runs: dict[str, list[_Builder]] = defaultdict(list)
    for b in sorted(builders, key=lambda b: b.span.start_ns if b.span is not None else 0):
        runs[b.agent].append(b)
    starts = {agent: [b.span.start_ns if b.span is not None else 0 for b in bs]
              for agent, bs in runs.items()}
    for step in handoffs:
        sources = runs.get(step.handoff_from or "")
        if not sources or step.handoff_to not in runs:
            continue
        # the source's latest run that started by the hand-off (bisect: traces can be huge)
        at = bisect_right(starts[sources[0].agent], step.start_ns)
        source = sources[max(at - 1, 0)]
        source.add(step)
        # ... handing over to the target's first run that started after it
        targets = runs[step.handoff_to]
        first = bisect_right(starts[step.handoff_to], step.start_ns)
        if first < len(targets) and targets[first] is not source:
            source.callees.append(targets[first])


def _delegate(caller: _Builder, callee: _Builder) -> None:
    assert callee.span is not None
    caller.steps.append(_delegate_step(callee.span))
    caller.delegations.append((caller.agent, callee.agent))
    caller.callees.append(callee)
    callee.called = True


def _resolve_timed_agent_tools(builders: list[_Builder]) -> None:
    """Agent-as-tool where the callee's span is not under the tool span (Traceloop OpenAI
    Agents): a top-level agent run inside another agent's tool call was called by it."""
    if len(builders) > MAX_PAIRED_AGENTS:
        return
    for callee in builders:
        if callee.called or callee.span is None:
            continue
        start, end = callee.span.start_ns, callee.span.end_ns
        best: tuple[int, _Builder] | None = None
        for caller in builders:
            if caller is callee or caller.agent == callee.agent:
                continue
            for s in caller.steps:
                if s.kind == TOOL and s.start_ns <= start and end <= s.end_ns:
                    if best is None or s.start_ns > best[0]:
                        best = (s.start_ns, caller)
        if best is not None:
            _delegate(best[1], callee)


def _resolve_declared_callers(builders: list[_Builder]) -> None:
    """An agent span that names who handed over to it (`graph.node.parent_id`,
    `gen_ai.caller.name`) adds that edge unless another form already recorded it."""
    seen = {edge for b in builders for edge in b.delegations}
    by_agent = {b.agent: b for b in reversed(builders)}
    for b in builders:
        source = b.span.handoff_from if b.span is not None else None
        if source is None or source == b.agent or (source, b.agent) in seen:
            continue
        seen.add((source, b.agent))
        caller = by_agent.get(source, b)
        caller.delegations.append((source, b.agent))
        if caller is not b:
            caller.callees.append(b)


def is_test_span(step: Step) -> bool:
    """A span standing for a test case (docs/semantics.md#test-contexts): it names a context
    and is no GenAI span."""
    return step.kind == OTHER and step.context is not None


def _test_groups(by_id: dict[int, Step]) -> dict[int | None, tuple[list[Step], str | None]]:
    """Steps grouped by the child of their nearest test span (None: under no test), with that
    test's context. Each group is assembled alone, as it would be were it a trace of its own:
    two agents run side by side in one test are no hand-off, three bare model calls three runs."""
    key_of: dict[int, tuple[int | None, str | None]] = {}
    groups: dict[int | None, tuple[list[Step], str | None]] = {}
    for step in by_id.values():
        if is_test_span(step):
            continue
        chain: list[int] = []
        found: tuple[int | None, str | None] = (None, None)
        node = step
        while node.span_id not in key_of:
            chain.append(node.span_id)
            parent = by_id.get(node.parent_id) if node.parent_id is not None else None
            if parent is None or parent.span_id in chain:  # a root, or a parent-id cycle
                break
            if is_test_span(parent):
                found = (node.span_id, parent.context)
                break
            node = parent
        else:
            found = key_of[node.span_id]
        for span_id in chain:
            key_of[span_id] = found
        groups.setdefault(found[0], ([], found[1]))[0].append(step)
    return groups


def assemble(steps: Iterable[Step], content: bool = False) -> list[AgentRun]:
    """Cut one trace's steps into runs (agents and delegation: docs/semantics.md#detection-rules),
    the work under each test span on its own (docs/semantics.md#test-contexts); `content`: also
    gather the content classify captured into each run's `content`."""
    by_id: dict[int, Step] = {}
    for s in steps:
        by_id.setdefault(s.span_id, s)
    return _assemble_trace(by_id, content)


def _assemble_trace(by_id: dict[int, Step], content: bool,
                    told: Reclassified | None = None,
                    restricted: Callable[[str], bool] | None = None) -> list[AgentRun]:
    """`assemble` of steps already keyed by span id (a trace buffer's, taken whole); `told`:
    structural inference runs, and says what it reclassified (None: inference is off);
    `restricted`: is a tool name restricted (infer_structure)."""
    for s in by_id.values():
        if s.context is not None and s.kind == OTHER:  # is_test_span, inline: once per span
            break
    else:
        return _assemble_group(by_id, None, content, told, restricted)
    return [
        run
        for group, context in _test_groups(by_id).values()
        for run in _assemble_group({s.span_id: s for s in group}, context, content, told,
                                   restricted)
    ]


def _failed_requests(calls: list[Step], children: dict[int, list[Step]]) -> None:
    """A model call (of `calls`) its span does not fail whose last request under it failed (an
    HTTP client's span ending in error, nothing after it) failed with it: a client that turns a
    failed request into an error reply, not an exception."""
    for s in calls:
        kids = children.get(s.span_id) if s.error is None else None
        if kids:
            last = max(kids, key=lambda k: k.end_ns)
            if last.kind == OTHER and last.error is not None:
                s.error = last.error


def _named_turns(by_id: dict[int, Step], calls: list[Step]) -> None:
    """A model call (of `calls`: those naming the agent they ran for), under no agent's run or
    inside a tool call of another agent's run, starts a turn of that agent (`Step.turn`):
    tracers that record an agent's calls and tools, no span of its run
    (docs/semantics.md#detection-rules)."""
    if not calls:
        return
    named: dict[int | None, set[str]] = defaultdict(set)  # parent -> agents its calls name
    for call in calls:
        named[call.parent_id].add(call.agent or "")
    # span id -> (the agent whose run it is in, a tool call on the way up to that run's span)
    runs: dict[int, tuple[str | None, bool]] = {}
    for call in calls:
        path: list[Step] = []
        seen: set[int] = set()  # this walk's spans: a parent-id cycle ends it
        at, found = call.parent_id, (None, False)  # type: int | None, tuple[str | None, bool]
        while at is not None and at in by_id and at not in seen:
            above = by_id[at]
            if at in runs or (above.kind == AGENT and above.agent):
                found = runs.get(at, (above.agent, False))
                break
            seen.add(at)
            path.append(above)
            at = above.parent_id
        agent, tool = found
        for node in reversed(path):
            tool = tool or node.kind == TOOL
            runs[node.span_id] = (agent, tool)
        agent, tool = runs[path[0].span_id] if path else found
        if agent is None:  # calls of two agents or more side by side: each one's turns
            call.turn = len(named[call.parent_id]) > 1
        elif tool and agent != call.agent:  # the agent called as a tool: its run
            call.turn = True


def _assemble_group(by_id: dict[int, Step], test: str | None, content: bool,
                    told: Reclassified | None = None,
                    restricted: Callable[[str], bool] | None = None) -> list[AgentRun]:
    """Assemble steps as one trace; `test` is the context they ran under, if any."""
    if not by_id:
        return []
    trace_id = next(iter(by_id.values())).trace_id
    children: dict[int, list[Step]] = defaultdict(list)
    roots: list[Step] = []
    for s in by_id.values():
        if s.parent_id is not None and s.parent_id != s.span_id and s.parent_id in by_id:
            children[s.parent_id].append(s)
        else:
            roots.append(s)
    if told is not None and any(s.inferred for s in by_id.values()):
        infer_structure(by_id, children, roots, told, restricted)
    calls = [s for s in by_id.values() if s.kind == LLM]  # one pass for both rules below
    if calls:
        _named_turns(by_id, [s for s in calls if names_its_agent(s) and not s.turn])
        _failed_requests(calls, children)
    builders: list[_Builder] = []
    by_span: dict[int, _Builder] = {}
    orphans: dict[str, _Builder] = {}
    visited: set[int] = set()
    failed_workflows: list[Step] = []
    declared: list[Step] = []

    def walk(root: Step) -> None:
        # (step, run it belongs to, parent is a tool, sibling agent span that hosts it,
        # the nearest ancestor's test context, the nearest LLM or tool step of the same run)
        stack: list[
            tuple[Step, _Builder | None, bool, int | None, str | None, Step | None]
        ] = [(root, None, False, None, test, None)]
        while stack:
            step, current, parent_is_tool, host, context, outer = stack.pop()
            if step.span_id in visited:
                continue
            visited.add(step.span_id)
            if host is not None:
                hosted = by_span.get(host, current)
                if hosted is not current:
                    current, outer = hosted, None
            here = current
            if step.context is not None:
                context = step.context
            kind = step.kind
            if kind == AGENT and _opens_run(step, parent_is_tool):
                assert step.agent is not None
                if current is not None and current.agent == step.agent:
                    current.extra_spans.append(step)  # one invocation, two spans
                else:
                    here = _Builder(step.agent, step, context or step.resource_context)
                    builders.append(here)
                    by_span[step.span_id] = here
                    outer = None
                    if current is not None:
                        _delegate(current, here)
            elif kind == STATE:
                if current is not None:  # a change no agent's run observed counts nowhere
                    current.states.append(step)
            elif kind == WORKFLOW and step.error is not None:
                failed_workflows.append(step)
            elif kind == AGENT and current is not None and step.limit is not None:
                # an agent span that names no agent (Haystack's `haystack.agent.run` under its
                # named component) still tells the run around it that its budget ran out
                current.extra_spans.append(step)
            elif current is None and kind == HANDOFF and step.handoff_from is not None:
                declared.append(step)  # a workflow's edge: placed once the agents' runs exist
            elif kind in _RUN_STEP_KINDS and not (kind == LLM and _wraps_llm(step, children)):
                if outer is not None and _repeats(outer, step) and (
                    current is not None or outer.fallback_agent == step.fallback_agent
                ):
                    _absorb(outer, step)
                else:
                    owner = current
                    if owner is None:
                        owner = orphans.get(step.fallback_agent)
                        if owner is None:
                            owner = orphans[step.fallback_agent] = _Builder(
                                step.fallback_agent, None, context or step.resource_context
                            )
                    owner.add(step)
                    if kind == LLM or kind == TOOL:  # what a span inside it may repeat
                        outer = step
            if step.fault is not None and here is not None:
                here.faults.add(step.fault)
            kids = children.get(step.span_id)
            if kids:
                # popped in start order; at a tie agent spans first, so a host's run exists
                # before the work it hosts is placed
                kids.sort(key=lambda k: (k.start_ns, k.kind != AGENT), reverse=True)
                hosts = _hosts(kids)
                if here is None:
                    hosts.update(_between_runs(kids, hosts))
                owners = (_turns(kids, here, builders, context)
                          if any(k.turn for k in kids) else {})
                is_tool = kind == TOOL
                for k in kids:
                    run = owners.get(k.span_id, here)
                    stack.append((k, run, is_tool, hosts.get(k.span_id), context,
                                  outer if run is here else None))

    for root in sorted(roots, key=lambda r: r.start_ns):
        walk(root)
    if len(visited) < len(by_id):  # parent-id cycles leave no root: start anywhere
        for s in sorted(by_id.values(), key=lambda r: r.start_ns):
            if s.span_id not in visited:
                walk(s)
    all_builders = builders + list(orphans.values())
    _adopt_failed_workflows(failed_workflows, builders)
    _place_workflow_handoffs(declared, builders)
    _resolve_timed_agent_tools(builders)
    _resolve_sibling_handoffs(builders)
    _resolve_declared_callers(builders)
    delegating = any(b.callees for b in builders)
    own = {id(b): b.own_calls() for b in builders} if delegating else {}
    return [
        b.build(trace_id, content, b.delegated_calls(own) if b.callees else {})
        for b in all_builders
    ]


def _repeats(outer: Step, inner: Step) -> bool:
    """A tool span inside the same tool's span (an MCP request inside the agent's tool span,
    the MCP server's span inside that), or a model span inside a counted model span (further
    down than `_wraps_llm` looks), is one call recorded twice: counted once; a call of
    another model there is a call of its own (an agent the model's turn ran)."""
    if inner.kind != outer.kind:
        return False
    if inner.kind == LLM:
        return inner.model is None or outer.model is None or _one_model(inner.model, outer.model)
    return inner.tool is None or inner.tool == outer.tool


# what a provider appends to a model's name to pin one snapshot of it: a date or a version
# number (`-2024-08-06`, `-0613`, `@20241022`, `:1`) or `latest`; any other suffix is another
# model (`gpt-4o-mini` is not `gpt-4o`)
_SNAPSHOT = re.compile(r"[-@:](?:\d[\d.-]*|latest)")


def _one_model(a: str, b: str) -> bool:
    """Two names of one model: the same, or one a snapshot of the other (`gpt-4o`,
    `gpt-4o-2024-08-06`)."""
    short, long = sorted((a, b), key=len)
    return long.startswith(short) and (
        len(long) == len(short) or _SNAPSHOT.fullmatch(long, len(short)) is not None)


def _absorb(outer: Step, inner: Step) -> None:
    """Keep the outer step; take from the inner one what the outer span did not record."""
    outer.model = outer.model or inner.model
    outer.error = outer.error or inner.error
    outer.limit = outer.limit or inner.limit
    outer.finish_reason = outer.finish_reason or inner.finish_reason
    outer.input_tokens = outer.input_tokens or inner.input_tokens
    outer.output_tokens = outer.output_tokens or inner.output_tokens
    outer.cost_usd = outer.cost_usd or inner.cost_usd
    outer.tool_definitions = outer.tool_definitions or inner.tool_definitions
    outer.requested_tools = outer.requested_tools or inner.requested_tools


def _delegate_step(agent_span: Step) -> Step:
    return Step(
        trace_id=agent_span.trace_id,
        span_id=agent_span.span_id,
        parent_id=agent_span.parent_id,
        kind=DELEGATE,
        start_ns=agent_span.start_ns,
        end_ns=agent_span.end_ns,
        fallback_agent=agent_span.fallback_agent,
        agent=agent_span.agent,
        error=agent_span.error,
    )


class _TraceBuffer:
    """A trace's buffered steps, indexed by parent so taking a subtree never scans the buffer."""

    __slots__ = ("steps", "children", "last_seen", "events")

    def __init__(self, now: float) -> None:
        self.steps: dict[int, Step] = {}
        self.children: dict[int, list[int]] = {}
        self.last_seen = now
        self.events: list[Event] = []  # decision and state events not joined yet (events.py)


class RunAssembler:
    """Bounded per-trace buffering; thread-safe; returns the runs each call completes."""

    def __init__(
        self,
        bounds: Bounds | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        content: bool = False,
        flushed_early: dict[str, int] | None = None,
        events: dict[str, int] | None = None,
    ) -> None:
        self.bounds = bounds if bounds is not None else Bounds()
        self.content = content  # the spec judges content: runs carry what classify captured
        self.buffered_spans = 0
        self._clock = clock
        self._traces: OrderedDict[int, _TraceBuffer] = OrderedDict()
        self._lock = threading.Lock()
        # early flushes by reason, counted into the table given (the engine's counters)
        self.flushed_early = flushed_early if flushed_early is not None else early_flushes()
        # most traces and spans buffered at once (`--jobs` checks the bounds with them)
        self.peak_traces = self.peak_spans = 0
        # told of what structural inference reclassifies; None: inference is off
        self.reclassified: Reclassified | None = None
        # is a tool name restricted (the spec's lists): structural inference must not miss one
        self.restricted: Callable[[str], bool] | None = None
        # decision events: counted by what became of them; waiting ones bounded like spans
        self.events = events if events is not None else event_counts()
        self.pending_events = 0
        # denials no span of their trace joined, to fold on their own (`unjoined_denials`);
        # the engine takes them after every call that can assemble (at most the events pending)
        self.denials: list[LateDecision] = []
        # folded traces a late event can still join; kept only once events come in (`expect_events`)
        self._closed: Closed | None = None

    def expect_events(self) -> None:
        """Remember folded traces from now on, so an event arriving after its run still joins
        it (the front doors that take events call this; spans alone never pay for it)."""
        with self._lock:
            if self._closed is None:
                self._closed = Closed(self.bounds.max_buffered_spans)

    def add_event(self, event: Event, restored: bool = False) -> Late | None:
        """Buffer a decision or state event with its trace, or join it to a run already folded
        (returned to be folded on its own); counted by what became of it (`restored`: an event
        a durable snapshot kept waiting, counted as received already)."""
        now = self._clock()
        with self._lock:
            counts = self.events
            counts["received"] += not restored
            closed = self._closed
            if closed is not None and closed.knows(event):
                late = closed.late_event(event)
                counts["late" if late is not None else "duplicate"] += 1
                return late
            if self.pending_events >= self.bounds.max_buffered_spans:
                counts["buffer_full"] += 1
                return None
            traces = self._traces
            buf = traces.get(event.trace_id)
            if buf is None:
                if len(traces) >= self.bounds.max_traces:
                    counts["buffer_full"] += 1
                    return None
                buf = traces[event.trace_id] = _TraceBuffer(now)
            else:
                traces.move_to_end(event.trace_id)
                buf.last_seen = now
            buf.events.append(event)
            self.pending_events += 1
        return None

    def _assemble(self, buf: _TraceBuffer, subtree: dict[int, Step], final: bool
                  ) -> list[AgentRun]:
        """Assemble a subtree with the buffered events that belong to it; `final`: the trace
        is gone from the buffer, so the events left over are counted unjoined."""
        events = buf.events
        unjoined: list[Event] = []
        if events:
            left, duplicates = join(subtree, events)
            counts = self.events
            counts["duplicate"] += duplicates
            counts["joined"] += len(events) - len(left) - duplicates
            if final:
                counts["unjoined"] += len(left)
                unjoined, left = left, []
            self.pending_events -= len(events) - len(left)
            buf.events = left
        runs = _assemble_trace(subtree, self.content, self.reclassified, self.restricted)
        if self._closed is not None and runs:
            self._closed.remember(runs, self._clock())
        if unjoined:
            known = runs[0].agent if runs else (
                self._closed.agent_of(unjoined[0].trace_id) if self._closed else None)
            self.denials.extend(unjoined_denials(unjoined, known))
        return runs

    @property
    def traces_in_flight(self) -> int:
        return len(self._traces)

    def add(self, step: Step, local_root: bool) -> list[AgentRun]:
        """Buffer a step; when it is a local root, assemble its finished subtree."""
        now = self._clock()
        runs: list[AgentRun] = []
        trace_id, span_id, bounds, traces = step.trace_id, step.span_id, self.bounds, self._traces
        with self._lock:  # (once per span: attributes read once into locals)
            buf = traces.get(trace_id)
            if buf is None:
                if len(traces) >= bounds.max_traces:
                    runs.extend(self._flush_oldest("trace_limit"))
                buf = traces[trace_id] = _TraceBuffer(now)
                self.peak_traces = max(self.peak_traces, len(traces))
            else:
                traces.move_to_end(trace_id)
                buf.last_seen = now
            steps = buf.steps
            if span_id in steps:
                return runs  # a re-sent span (exporter retry): the first copy is kept
            steps[span_id] = step
            buffered = self.buffered_spans = self.buffered_spans + 1
            if buffered > self.peak_spans:
                self.peak_spans = buffered
            # a test is assembled when it ends
            if local_root or (step.context is not None and is_test_span(step)):
                subtree = _take_subtree(buf, span_id)
                self.buffered_spans = buffered - len(subtree)
                runs.extend(self._assemble(buf, subtree, False))
                if not steps and not buf.events:
                    del traces[trace_id]
                return runs
            if step.parent_id is not None:
                buf.children.setdefault(step.parent_id, []).append(span_id)
            if len(steps) >= bounds.max_spans_per_trace:
                del traces[trace_id]
                self.buffered_spans = buffered - len(steps)
                self.flushed_early["span_limit"] += 1
                runs.extend(self._assemble(buf, steps, True))
            while self.buffered_spans > bounds.max_buffered_spans:
                runs.extend(self._flush_oldest("span_budget"))
        return runs

    def _flush_oldest(self, reason: str) -> list[AgentRun]:
        """Assemble the least recently seen trace now (a bound was reached); counted."""
        _, oldest = self._traces.popitem(last=False)
        self.buffered_spans -= len(oldest.steps)
        if oldest.steps:  # a trace of events only (its spans never came) flushes nothing early
            self.flushed_early[reason] += 1
        return self._assemble(oldest, oldest.steps, True)

    def open_events(self) -> list[Event]:
        """The decision events waiting for their spans (a durable snapshot keeps them)."""
        with self._lock:
            return [e for buf in self._traces.values() for e in buf.events]

    def open_traces(self) -> list[tuple[int, float, list[Step]]]:
        """(trace id, last seen, buffered steps), least recently used first: what a durable
        snapshot keeps so traces still open survive a restart (re-`add` them in this order)."""
        with self._lock:
            return [(tid, buf.last_seen, list(buf.steps.values()))
                    for tid, buf in self._traces.items()]

    def sweep(self) -> list[AgentRun]:
        """Assemble traces idle past the TTL (stragglers whose root never ends here)."""
        deadline = self._clock() - self.bounds.idle_ttl_s
        runs: list[AgentRun] = []
        with self._lock:
            while self._traces and next(iter(self._traces.values())).last_seen <= deadline:
                runs.extend(self._flush_oldest("idle_ttl"))
            if self._closed is not None:
                self._closed.expire(deadline)
        return runs

    def flush_all(self, reason: str | None = None) -> list[AgentRun]:
        """Assemble everything still buffered (shutdown, end of an offline file)."""
        with self._lock:
            buffers = list(self._traces.values())
            self._traces.clear()
            self.buffered_spans = 0
            if reason is not None:
                self.flushed_early[reason] = self.flushed_early.get(reason, 0) + sum(
                    1 for buf in buffers if buf.steps)
            return [run for buf in buffers for run in self._assemble(buf, buf.steps, True)]


def _take_subtree(buf: _TraceBuffer, root_id: int) -> dict[int, Step]:
    """Remove and return the root and its buffered descendants by span id; other subtrees stay.

    Walks the parent index, so the cost is the subtree's size, not the buffer's (a trace of many
    local roots next to many orphans would otherwise be quadratic). A span taken is gone from
    the buffer, so a parent-id cycle ends there.
    """
    steps, children = buf.steps, buf.children
    taken: dict[int, Step] = {}
    stack = [root_id]
    while stack:
        sid = stack.pop()
        step = steps.pop(sid, None)
        if step is not None:
            taken[sid] = step
            stack.extend(children.pop(sid, ()))
    return taken
