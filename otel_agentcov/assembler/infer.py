"""Structural inference: agents and tools a trace's shape shows, for spans no entry claimed.

Run on a trace's steps before they are cut into runs, only when inference left candidates
(`other` spans with no evidence of their own: semconv/inference.py). The rules
(docs/conventions.md#inference):

- an inferred tool span inside a model call is the model asking for that tool, no execution,
  when a span outside every model call runs that tool;
- a candidate named like a tool the model asked for in an earlier model call of the trace is
  that tool's execution, and so is one between two model calls of its parent (the loop's
  tool, by timing: no content read);
- the nearest candidate above model calls that also owns tool executions, under no agent span,
  is an agent run (a candidate right under a tool span that owns model calls too: an agent
  called as a tool), named as the candidate is, unless that name says it is a workflow,
  session or runner root, or is the name of a tool or a model of the trace.

An agent whose name is a tool's or a model's of the same trace is no agent, whatever said so.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import accumulate, islice

from ..compiled import code_path
from ..semconv.common import mark_handoff
from ..semconv.inference import (
    BY_ATTRIBUTE,
    BY_FUNCTION,
    BY_NAME,
    BY_STRUCTURE,
    CANDIDATE,
    KIND_WORDS,
    OPERATION_VERBS,
    RUN_WORDS,
    agent_name_ok,
    name_affix,
    words,
)
from ..semconv.step import AGENT, HANDOFF, LLM, OTHER, TOOL, WORKFLOW, Step

# a name a model can call a tool by: one word of letters, digits and `_-.:`, not too long
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.:-]{0,63}")

# (the step, its kind and its `inferred` evidence before): told whenever a kind changes here
Reclassified = Callable[[Step, str, str], None]

# words of a name that make a root a workflow, session or runner, never an agent run
_NOT_AGENT_WORDS = frozenset({
    "workflow", "session", "runner", "main", "request", "handle", "handler", "turn",
    "conversation", "pipeline", "graph", "chain", "flow", "trace", "root", "app", "server", "serve",
    "get", "post", "put", "delete", "patch", "http", "https", "test", "task", "job", "batch",
    "crew", "team", "orchestrate", "orchestration", "activity",
})


def _agent_name_ok(name: str | None, taken: set[str]) -> bool:
    """Not a tool's or a model's name, nor one saying only that something ran (`run`,
    `Step 1`, `Agent.run`), nor a workflow's, session's or runner's."""
    if name is None or not agent_name_ok(name) or name in taken:
        return False
    found = words(name)
    return _NOT_AGENT_WORDS.isdisjoint(found) and not all(
        w in RUN_WORDS or w in KIND_WORDS or w.isdigit() for w in found)


def _may_be_agent(step: Step) -> bool:
    """A candidate, a workflow span inference typed (a `chain` around an agent's calls), or a
    span typed only as a function (agents and tools alike are functions)."""
    return step.inferred in (CANDIDATE, BY_FUNCTION) or (step.kind == WORKFLOW and (
        step.inferred in (BY_ATTRIBUTE, BY_NAME)))


def infer_structure(by_id: Mapping[int, Step], children: Mapping[int, Sequence[Step]],
                    roots: Sequence[Step], told: Reclassified | None,
                    restricted: Callable[[str], bool] | None = None) -> None:
    """Reclassify candidates of one trace in place (see the module's docstring); `restricted`:
    is a tool name restricted (timing still reads such a tool where it reads no other)."""
    steps = list(by_id.values())
    _lifecycles(steps, children, told)
    _phases(steps, by_id, told)
    _turn_calls(steps, children, told)
    _requests_in_calls(steps, by_id, told)
    requested: dict[str, int] = {}  # tool name -> earliest start of a model call asking for it
    taken: set[str] = set()  # names that are tools or models here: never an agent's
    for s in steps:
        if s.kind == LLM:
            if s.model:
                taken.add(s.model)
            for name in s.requested_tools:
                requested[name] = min(requested.get(name, s.start_ns), s.start_ns)
        elif s.kind == TOOL and s.tool and s.inferred != BY_FUNCTION:
            taken.add(s.tool)
    calls: dict[int, _Calls] = {}
    # timing is the last evidence: where the trace shows tool executions by their own, a span
    # between two calls is the loop's other work (a step's bookkeeping, a message saved), unless
    # it is named like a restricted tool (a restricted list must not miss a call)
    timed = not any(s.kind == TOOL for s in steps)
    for s in steps:
        if s.inferred != CANDIDATE or not s.tool:
            continue
        # a code path's tool is its function (`_common.get_weather`), unless a restricted list
        # or a model's request names the path as the span does
        listed = restricted is not None and restricted(s.tool)
        called = s.tool if listed or s.tool in requested else _function_of(s.tool)
        if (
                (called in requested and requested[called] <= s.start_ns)
                or ((timed or listed or (restricted is not None and restricted(called)))
                    and _between_calls(s, called, by_id, children, calls))):
            s.tool = called
            _become(s, TOOL, told)
            taken.add(s.tool)
    for s in steps:  # an inferred agent named like a tool or a model is no agent, unless
        # that tool's execution runs it (an agent called as a tool of its own name)
        if s.kind == AGENT and s.inferred and s.agent in taken and (
                _caller(s, by_id, TOOL) or s).tool != s.agent:
            _become(s, OTHER, told, "")
    _inherited_names(steps, by_id)
    _service_runs(steps, by_id, children, taken, told)
    _sessions(steps, by_id, children, taken, told)
    named_calls = [s for s in steps if s.kind == LLM and s.inferred and s.agent is not None]
    for s in sorted(named_calls, key=lambda s: (s.start_ns, -s.end_ns)):  # outermost first: a
        # model call around model calls naming what it ran for is that run
        if _names_its_calls(s, children, taken) and _caller(s, by_id, AGENT) is None:
            _become(s, AGENT, told)
    chains = {s.span_id for s in steps if s.kind == WORKFLOW}
    owned = _agents(roots, children, taken, told,
                    _named_runs(steps, by_id) | _child_flows(steps, by_id, children, calls))
    _wrapped([s for s in steps if s.span_id in chains], by_id, children, taken, told)
    _peers(steps, by_id, children, roots, owned, taken, told)
    if not any(s.kind == AGENT for s in steps):  # model calls and no agent: the root runs them
        for root in roots:
            if _may_be_agent(root) and owned.get(root.span_id, (0, 0))[0] and _agent_name_ok(
                    root.agent or root.tool, taken):
                _become(root, AGENT, told)
            elif (not root.inferred or root.inferred == CANDIDATE) and not any(
                    k.kind in (LLM, TOOL) for k in children.get(root.span_id, ())):
                for kid in children.get(root.span_id, ()):  # a request calling nothing itself:
                    # each span it runs that owns model calls is a run
                    if _may_be_agent(kid) and owned.get(kid.span_id, (0, 0))[0] and (
                            _agent_name_ok(kid.agent or kid.tool, taken)):
                        _become(kid, AGENT, told)
    _runners(steps, by_id, told)
    for s in steps:  # an agent span inside a run of its own name, no tool between: that run
        outer = _caller(s, by_id, AGENT) if s.kind == AGENT and s.inferred else None
        if outer is not None and outer.agent == s.agent:
            _become(s, OTHER, told, "")
    for s in steps:  # an inferred model call around two or more model calls: their loop
        if s.kind == LLM and s.inferred and _loops(s, children):
            _become(s, OTHER, told, "")
    _idle_twins(steps, children, told)
    _bare_calls(steps, by_id, told)
    if not any(s.kind == AGENT for s in steps):  # a hand-off goes from an agent to an agent:
        for s in steps:  # with no agent in the trace, one inference read is a word of the app's
            if s.kind == HANDOFF and s.inferred:  # (`ticket.handoff` between people)
                _become(s, OTHER, told, "")
    for s in steps:  # a function no agent ran (directly) is no tool execution: the app's code
        if s.kind == TOOL and s.inferred == BY_FUNCTION and not _caller(s, by_id, AGENT):
            _become(s, OTHER, told, "")


def _child_flows(steps: Sequence[Step], by_id: Mapping[int, Step],
                 children: Mapping[int, Sequence[Step]], calls: dict[int, _Calls]) -> set[int]:
    """Workflows a kind attribute or a span name typed that call a model themselves, right under
    another such workflow or an agent (or under the span starting them there:
    `StartChildWorkflow:billing` around `RunWorkflow:billing`, a workflow of the same name
    running nothing else) and between two of its own model calls: runs the outer one delegates
    to from its loop, as it would call a tool (a durable engine's child workflow per agent), as
    `_named_runs` are, and so is the outer one, tools or not; not a loop a module runs before its
    own call (`Weather` > `ReAct`, then Weather's summary call: the loop is the run). `calls`:
    each parent's model calls, indexed once (shared with `_between_calls`)."""
    def calling(s: Step | None, agent: bool = False) -> bool:
        return s is not None and (s.kind == WORKFLOW and s.inferred in (
            BY_ATTRIBUTE, BY_NAME) or agent and s.kind == AGENT) and any(
            k.kind == LLM for k in children.get(s.span_id, ()))

    def started(s: Step) -> Step:
        parent = by_id.get(s.parent_id) if s.parent_id is not None else None
        return parent if parent is not None and parent.kind == WORKFLOW and (
            parent.agent == s.agent) and len(children.get(parent.span_id, ())) == 1 else s

    found: set[int] = set()
    for s in steps:
        start = started(s) if calling(s) else None
        outer = start.parent_id if start is not None else None
        if start is not None and outer is not None and calling(by_id.get(outer), agent=True) and (
                _calls_of(outer, children, calls).between(start.start_ns, start.end_ns)):
            found.update((s.span_id, outer))
    return found


def _calls_of(parent: int, children: Mapping[int, Sequence[Step]],
              calls: dict[int, _Calls]) -> _Calls:
    """`parent`'s model calls indexed (`_Calls`), once per trace: kept in `calls`."""
    index = calls.get(parent)
    if index is None:
        index = calls[parent] = _Calls(children.get(parent, ()))
    return index


def _service_runs(steps: Sequence[Step], by_id: Mapping[int, Step],
                  children: Mapping[int, Sequence[Step]], taken: set[str],
                  told: Reclassified | None) -> None:
    """A nameless agent span (its span name says agent and only that it ran: `agent.Run`) where
    a service's work starts in the trace, under another service's span, is that service's run,
    named by its `service.name`, the name its steps would count for anyway; the trace's root
    too once such a run is under it: the run that holds the other (an agent called as a tool,
    a hand-off between services). Only a span owning a model call is a run."""
    nameless = [s for s in steps if s.inferred == CANDIDATE and s.agent is not None and (
        affix := name_affix(s.agent)) is not None and affix[0] == AGENT and not affix[1]
        and _agent_name_ok(s.fallback_agent, taken)]
    inner = [s for s in nameless if s.parent_id is not None and s.parent_id in by_id and (
        by_id[s.parent_id].fallback_agent != s.fallback_agent)]
    if not inner:
        return
    roots = [s for s in nameless if s.parent_id not in by_id]
    above = _above_models(steps, by_id)
    for s in inner + roots:
        if s.span_id in above:
            s.agent = s.fallback_agent
            _become(s, AGENT, told)


def _above_models(steps: Sequence[Step], by_id: Mapping[int, Step]) -> set[int]:
    """The spans a model call is under: each call's ancestors, each span marked once."""
    above: set[int] = set()
    for s in steps:
        at = s.parent_id if s.kind == LLM else None
        while at is not None and at not in above and at in by_id:
            above.add(at)
            at = by_id[at].parent_id
    return above


def _ran(name: str) -> str | None:
    """What an operation a span name gives ran (`StartActivity:get_weather`, a durable engine's
    activity; `run/weather`, `apply_async/get_weather`, a task queue's): a verb saying it ran or
    started it, `:` or `/`, then the name; None for any other name."""
    operation, ran = re.split("[:/]", name, maxsplit=1) if ":" in name or "/" in name else ("", "")
    return ran if ran.isidentifier() and operation.isidentifier() and (
        words(operation)[:1] and words(operation)[0] in OPERATION_VERBS) else None


def _function_of(name: str) -> str:
    """The function a code path names (`_common.get_weather` → `get_weather`, a tool traced by
    its module's path), or what an operation ran (`_ran`): the name a model calls it by; any
    other name as it is (`github.search`: a namespaced tool's own name)."""
    function = name.rsplit(".", 1)[-1]
    return _ran(name) or (
        function if "." in name and code_path(name) and function.isidentifier() else name)


# words after `agent` in an app's own agent class saying only which part of it runs
# (`WeatherAgentExecutor`): the words before still name the agent
_CLASS_ROLES = frozenset({"executor", "runner", "handler", "impl", "worker"})


def _class_agent(name: str | None) -> str | None:
    """The agent an app's own agent class names, where the span is named by its code path
    (`__main__.WeatherAgentExecutor.execute` → `weather`): the class's words before `agent`,
    none a kind or run word, after it only words of `_CLASS_ROLES`; None for any other name
    (`__main__._Agent`, `ToolCallingAgent`: a framework's class, no agent's name)."""
    if name is None or "." not in name or not code_path(name):
        return None
    said = words(name.rsplit(".", 1)[-1])
    at = len(said) - 1 - said[::-1].index("agent") if "agent" in said else -1
    own = said[:at] if at > 0 else ()
    if not own or any(w in KIND_WORDS or w in RUN_WORDS or w in _NOT_AGENT_WORDS for w in own) or (
            not _CLASS_ROLES.issuperset(said[at + 1:])):
        return None
    return "_".join(own)


def _between_calls(step: Step, called: str, by_id: Mapping[int, Step],
                   children: Mapping[int, Sequence[Step]], calls: dict[int, _Calls]) -> bool:
    """A candidate that runs between two model calls of its parent and makes none of its own
    is the tool the first asked for and the second read: an agent's loop, known from timing
    alone, no content read. Between: the first call starts and ends before the candidate does,
    the second after (both ends: clocks that round a start to the millisecond put a tool's
    start just inside the call it follows). Its name (`called`) must be one a model can call a
    tool by (an identifier: a runtime's `autogen publish topic_1` between two calls is no tool).
    `calls`: each parent's model calls, indexed once (a flat run of thousands of calls)."""
    parent = by_id.get(step.parent_id) if step.parent_id is not None else None
    if not _IDENTIFIER.fullmatch(called) or parent is None or parent.kind not in (
            AGENT, OTHER, WORKFLOW) or any(k.kind == LLM for k in children.get(step.span_id, ())):
        return False
    return _calls_of(parent.span_id, children, calls).between(step.start_ns, step.end_ns)


class _Calls:
    """One parent's model calls by start: the earliest end of those started before a time,
    the latest end of those started after it, each a binary search."""

    def __init__(self, kids: Sequence[Step]) -> None:
        calls = sorted((k.start_ns, k.end_ns) for k in kids if k.kind == LLM)
        self.starts = [start for start, _ in calls]
        self.first_end = list(accumulate((end for _, end in calls), min))
        self.last_end = list(accumulate((end for _, end in reversed(calls)), max))[::-1]

    def between(self, start: int, end: int) -> bool:
        before = bisect_left(self.starts, start)  # calls[:before] started before `start`
        after = bisect_right(self.starts, start)  # calls[after:] started after it
        return (before > 0 and self.first_end[before - 1] <= end) and (
            after < len(self.starts) and self.last_end[after] > end)


def _lifecycles(steps: Sequence[Step], children: Mapping[int, Sequence[Step]],
                told: Reclassified | None) -> None:
    """A span with no evidence whose children are the lifecycle events of one call (an
    emitter's `x.chat.start-1`, `x.chat.finish-1` recorded as spans: their common stem in
    `own_name`) is that call, of the kind the stem says; a tool is named by its last part
    (`tool.dynamic.lookup` → `lookup`). It keeps its own status: its failure is the call's."""
    for s in steps:
        if s.inferred != CANDIDATE:
            continue
        stems = {k.own_name for k in children.get(s.span_id, ())
                 if k.kind == OTHER and not k.inferred and k.own_name}
        stem = stems.pop() if len(stems) == 1 else ""
        affix = name_affix(stem) if stem else None
        if affix is not None and affix[0] == TOOL and affix[1]:
            s.tool = stem.rsplit(".", 1)[-1]
            _become(s, TOOL, told)
        elif affix is not None and affix[0] == LLM:
            _become(s, LLM, told)


def _phases(steps: Sequence[Step], by_id: Mapping[int, Step], told: Reclassified | None
            ) -> None:
    """An inferred tool span inside a tool call, named as a part of a tool call (the kind word,
    then the part: `x.tool.execution`, `x.tool.blocked_on_user`), is a phase of that call, no
    call of its own; where it failed, the call failed (a tracer recording a call's phases)."""
    for s in steps:
        parent = by_id.get(s.parent_id) if s.parent_id is not None else None
        if parent is not None and parent.kind == TOOL and s.kind == TOOL and s.inferred and (
                _names_a_part(s.tool)):
            if parent.error is None:
                parent.error, parent.limit = s.error, s.limit
            _become(s, OTHER, told, "")


# the words a part of a tool call is named by (`execution`, `blocked_on_user`, `permission`):
# the last part of any other name is a tool's own (`github.tool.delete_repo` is a tool, run
# inside another: a restricted one stays the call it is)
_PHASE_WORDS = frozenset({
    "execution", "exec", "execute", "run", "invoke", "invocation", "call", "start", "end",
    "finish", "permission", "permissions", "approval", "approve", "confirm", "confirmation",
    "validation", "validate", "input", "output", "result", "wait", "waiting", "blocked", "on",
    "user", "queued", "pending", "retry", "attempt", "prepare", "preparation", "parse", "hook",
    "hooks", "pre", "post", "decision"})


def _names_a_part(name: str | None) -> bool:
    """A dotted name with a tool's kind word before its last part, a phase of a call
    (`x.tool.execution`, `x.tool.blocked_on_user`)."""
    parts = (name or "").split(".")
    return len(parts) > 1 and _PHASE_WORDS.issuperset(words(parts[-1]) or ("",)) and any(
        KIND_WORDS.get(p.casefold()) == TOOL for p in parts[:-1])


def _turn_calls(steps: Sequence[Step], children: Mapping[int, Sequence[Step]],
           told: Reclassified | None) -> None:
    """Where a trace has no model call, a span with no evidence named as a turn of a loop
    (`x.turn`), with nothing under it, is that turn's model call: a tracer recording an agent's
    turns, not its calls (one call per turn)."""
    if any(s.kind == LLM for s in steps):
        return
    for s in steps:
        if s.inferred == CANDIDATE and "turn" in words(s.tool or s.agent or "") and not (
                children.get(s.span_id)):
            _become(s, LLM, told)


def _runners(steps: Sequence[Step], by_id: Mapping[int, Step],
             told: Reclassified | None) -> None:
    """An inferred agent running two or more agents in turn, one of its own name, is their
    runner named after the one that answered (`Runner.run` as `billing` around `triage`, then
    `billing`): no run of its own, so no delegation to the agents it ran."""
    inner: dict[int, list[Step]] = {}
    for s in steps:
        outer = _caller(s, by_id, AGENT) if s.kind == AGENT else None
        if outer is not None and outer.inferred:
            inner.setdefault(outer.span_id, []).append(s)
    for span_id, ran in inner.items():
        outer = by_id[span_id]
        if len({s.agent for s in ran}) >= 2 and any(s.agent == outer.agent for s in ran):
            _become(outer, OTHER, told, "")


def _peers(steps: Sequence[Step], by_id: Mapping[int, Step],
           children: Mapping[int, Sequence[Step]], roots: Sequence[Step],
           owned: Mapping[int, tuple[int, int]], taken: set[str],
           told: Reclassified | None) -> None:
    """A candidate beside an agent the structure found, or an entry pinned as the structure
    found it (one parent running agents in turn: `triage`, then `billing`; the parent exported
    or not), that owns model calls is an agent too, tools or not."""
    parents: set[int] = {
        s.parent_id for s in steps if s.kind == AGENT and s.inferred in (BY_STRUCTURE, "")
        and s.parent_id is not None and _caller(s, by_id, AGENT) is None}
    unexported: dict[int, list[Step]] = {}  # a parent never exported -> its children, roots here
    for r in roots:
        if r.parent_id is not None and r.parent_id in parents and r.parent_id not in children:
            unexported.setdefault(r.parent_id, []).append(r)
    for parent in parents:
        for peer in children.get(parent) or unexported.get(parent) or ():
            if peer.kind != AGENT and _may_be_agent(peer) and owned.get(
                    peer.span_id, (0, 0))[0] and _agent_name_ok(peer.agent or peer.tool, taken):
                _become(peer, AGENT, told)


def _idle_twins(steps: Sequence[Step], children: Mapping[int, Sequence[Step]],
                told: Reclassified | None) -> None:
    """An inferred agent span under which nothing happens (no model call, tool, agent or
    error), while another span of the same agent in the trace does work, is context: a method
    of the agent's object (`Agent.weather.initialize`, `.shutdown`) or a span its name is put
    on, no run of its own. Alone, an idle span stays a run (an agent that did nothing)."""
    agents = [s for s in steps if s.kind == AGENT]
    busy = {s.agent for s in agents if _acts(s, children)}
    for s in agents:
        if s.inferred and s.agent in busy and not _acts(s, children):
            _become(s, OTHER, told, "")


def _bare_calls(steps: Sequence[Step], by_id: Mapping[int, Step],
                told: Reclassified | None) -> None:
    """A model call only its span name says (`generate system prompt`: no model, no tokens, no
    tool asked for) beside model calls a convention entry classified, in the same run (under
    the same agent or tool span), is no call: the entry's spans are the run's calls, the name
    a phase of the run. One that failed stays a call: as a phase its failure would fail no
    run, and a failing run must not pass on a guess."""
    bare = [s for s in steps if s.kind == LLM and s.inferred == BY_NAME and s.model is None
            and s.error is None
            and not (s.input_tokens or s.output_tokens or s.requested_tools)]
    if not bare:
        return
    said = {_run_of(s, by_id) for s in steps if s.kind == LLM and not s.inferred}
    for s in bare:
        if _run_of(s, by_id) in said:
            _become(s, OTHER, told, "")


def _run_of(step: Step, by_id: Mapping[int, Step]) -> int | None:
    """The span id of the nearest agent or tool span above `step`; None at the trace's top."""
    above = _above(step, by_id)
    return above.span_id if above is not None else None


def _acts(step: Step, children: Mapping[int, Sequence[Step]]) -> bool:
    """Something happens at `step` or under it: a model call, a tool, an agent, an error."""
    return step.error is not None or any(
        s.kind in (LLM, TOOL, AGENT) or s.error is not None for s in _below(step, children))


def _loops(step: Step, children: Mapping[int, Sequence[Step]]) -> bool:
    """Two or more model calls under `step`, outside the agents under it (the walk stops at the
    second: a chain of wrappers is not walked once per wrapper)."""
    calls = (s for s in _below(step, children, AGENT) if s.kind == LLM)
    return next(islice(calls, 1, None), None) is not None


def _below(step: Step, children: Mapping[int, Sequence[Step]],
           stop: str | None = None) -> Iterator[Step]:
    """The spans under `step`, not under one of kind `stop`."""
    stack, seen = list(children.get(step.span_id, ())), {step.span_id}
    while stack:
        s = stack.pop()
        if s.span_id not in seen:
            seen.add(s.span_id)
            yield s
            if s.kind != stop:
                stack.extend(children.get(s.span_id, ()))


def _names_its_calls(step: Step, children: Mapping[int, Sequence[Step]],
                     taken: set[str]) -> bool:
    """An inferred model call around model calls (`ai.generateText` > `doGenerate`) that
    names what it ran for (`agent` set by inference): no call of its own, the run."""
    return step.kind == LLM and bool(step.inferred) and step.agent is not None and any(
        k.kind == LLM for k in children.get(step.span_id, ())) and _agent_name_ok(
        step.agent, taken)


def _wrapped(steps: Sequence[Step], by_id: Mapping[int, Step],
             children: Mapping[int, Sequence[Step]], taken: set[str],
             told: Reclassified | None) -> None:
    """An agent the structure found in a span typed a chain (`steps`: those) whose span is
    the only child doing anything of a span with a name of its own (the user's module around a
    framework's loop: `Weather.forward` > `ReAct.forward`) is that span's run: the outermost
    such wrapper takes it, unless its span name says it is a workflow or task
    (`agents.task`)."""
    acting: dict[int, bool] = {}  # span id -> something happens under it (`_acts`, once each)
    for s in steps:
        if s.kind != AGENT or s.inferred != BY_STRUCTURE:
            continue
        outer = s
        parent = by_id.get(outer.parent_id) if outer.parent_id is not None else None
        while parent is not None and _may_be_agent(parent) and (
                parent.inferred != BY_NAME) and _only_actor(outer, parent, children, acting) and (
                _agent_name_ok(parent.agent or parent.tool, taken)):
            outer = parent
            parent = by_id.get(outer.parent_id) if outer.parent_id is not None else None
        if outer is not s:
            _become(s, OTHER, told, "")
            _become(outer, AGENT, told)


def _only_actor(step: Step, parent: Step, children: Mapping[int, Sequence[Step]],
                acting: dict[int, bool]) -> bool:
    """`step` is the one child of `parent` under which anything happens (its siblings, if any,
    are idle: the app's input mapping beside the framework's loop); `acting` memoises `_acts`,
    so a wide trace's idle subtrees are walked once, not once per chain beside them."""
    for k in children.get(parent.span_id, ()):
        if k is step:
            continue
        if k.span_id not in acting:
            acting[k.span_id] = k.kind in (LLM, TOOL, AGENT) or _acts(k, children)
        if acting[k.span_id]:
            return False
    return True


def _requests_in_calls(steps: Sequence[Step], by_id: Mapping[int, Step],
                       told: Reclassified | None) -> None:
    """An inferred tool span inside a model call, when a span outside every model call runs
    that tool too, is the model asking for it (some tracers record requests as spans): no
    second execution. Without that twin it is an execution (a client running tools in its
    model call)."""
    inside: list[tuple[Step, Step]] = []
    outside: set[str] = set()
    for s in steps:
        if s.kind != TOOL or not s.tool:
            continue
        model = by_id.get(s.parent_id) if s.parent_id is not None else None
        if s.inferred and model is not None and model.kind == LLM:
            inside.append((s, model))
        else:
            outside.add(s.tool)
    for s, model in inside:
        if s.tool in outside:
            if s.tool not in model.requested_tools:
                model.requested_tools = (*model.requested_tools, s.tool)
            _become(s, OTHER, told, "")


def _sessions(steps: Sequence[Step], by_id: Mapping[int, Step],
              children: Mapping[int, Sequence[Step]], taken: set[str],
              told: Reclassified | None) -> None:
    """A model call only its span name says (`x.aiservices.weather.chat`) that runs model calls
    of its own is no call but an agent's chat session: that agent's run, named by the name
    without its affix (a dotted code path's last part: `weather`)."""
    for s in steps:
        if s.kind != LLM or s.inferred != BY_NAME or not s.own_name or s.agent or _caller(
                s, by_id, AGENT) is not None:
            continue  # one naming what it ran for is that run (`_names_its_calls`)
        kids = children.get(s.span_id, ())
        name = s.own_name.rsplit(".", 1)[-1].strip()
        if any(k.kind == LLM for k in kids) and _agent_name_ok(name, taken):
            s.agent = name
            _become(s, AGENT, told)


def _inherited_names(steps: Sequence[Step], by_id: Mapping[int, Step]) -> None:
    """A candidate inside a tool call whose agent-name key gives the name a span above that
    tool carries too (metadata its context puts on every span: LangChain's `lc_agent_name`)
    is named by its own span name: the agent called as a tool is not its caller."""
    for s in steps:
        if s.inferred != CANDIDATE or s.own_name is None or s.agent is None:
            continue
        in_tool, seen = False, {s.span_id}
        parent = by_id.get(s.parent_id) if s.parent_id is not None else None
        while parent is not None and parent.span_id not in seen:
            if in_tool and parent.agent == s.agent:
                s.agent = s.own_name
                break
            in_tool = in_tool or parent.kind == TOOL
            seen.add(parent.span_id)
            parent = by_id.get(parent.parent_id) if parent.parent_id is not None else None


def _named_runs(steps: Sequence[Step], by_id: Mapping[int, Step]) -> set[int]:
    """Candidates that may run an agent without tool calls of their own: those an agent-name
    key names (`x.turn.agent_name`, no tool name), or, where a span of that agent's name
    encloses them (its turns), that span instead: one run, not one per turn."""
    named: set[int] = set()
    for s in steps:
        if s.inferred != CANDIDATE or s.tool is not None or s.agent is None:
            continue
        outer, seen = s, {s.span_id}
        parent = by_id.get(s.parent_id) if s.parent_id is not None else None
        while parent is not None and parent.span_id not in seen:
            if _may_be_agent(parent) and (parent.agent or parent.tool) == s.agent:
                outer = parent
            seen.add(parent.span_id)
            parent = by_id.get(parent.parent_id) if parent.parent_id is not None else None
        named.add(outer.span_id)
    return named


def names_its_agent(step: Step) -> bool:
    """A model call a table typed that names the agent it ran for: that agent's call, not the
    run of the span around it (assembler/tree.py `_named_turns`)."""
    return step.kind == LLM and not step.inferred and step.agent is not None


def _caller(step: Step, by_id: Mapping[int, Step], kind: str) -> Step | None:
    """The nearest agent or tool above `step`, if it is of `kind`."""
    above = _above(step, by_id)
    return above if above is not None and above.kind == kind else None


def _above(step: Step, by_id: Mapping[int, Step]) -> Step | None:
    """The nearest agent or tool span above `step` (a parent-id cycle ends the walk)."""
    seen = {step.span_id}
    parent = by_id.get(step.parent_id) if step.parent_id is not None else None
    while parent is not None and parent.span_id not in seen:
        if parent.kind in (AGENT, TOOL):
            return parent
        seen.add(parent.span_id)
        parent = by_id.get(parent.parent_id) if parent.parent_id is not None else None
    return None


def _become(step: Step, kind: str, told: Reclassified | None, how: str = BY_STRUCTURE) -> None:
    was, evidence = step.kind, step.inferred
    step.kind, step.inferred = kind, how
    if kind == TOOL:
        step.agent = None
        if step.tool:
            mark_handoff(step, step.tool)
    elif kind == AGENT:
        step.agent, step.tool = step.agent or step.tool, None
    elif kind == LLM:  # a call names no agent or tool
        step.agent = step.tool = None
    if told is not None:
        told(step, was, evidence)


def _agents(roots: Sequence[Step], children: Mapping[int, Sequence[Step]], taken: set[str],
            told: Reclassified | None, lone: set[int]) -> dict[int, tuple[int, int]]:
    """Candidates under no agent that own model calls and tool executions become agents, the
    nearest one to the calls winning (post-order: children are decided first); so does a
    candidate right under a tool span that owns model calls (an agent called as a tool), and
    one of `lone` (`_named_runs`) that owns model calls. Returns the (model calls, tool calls)
    each span owns outside the agents found."""
    owned: dict[int, tuple[int, int]] = {}  # span id -> (model calls, tool calls) it owns
    # (step, under an agent, its parent is a tool, children done)
    stack: list[tuple[Step, bool, bool, bool]] = [(r, False, False, False) for r in roots]
    seen: set[int] = set()
    while stack:
        step, under_agent, in_tool, done = stack.pop()
        kids = children.get(step.span_id, ())
        if not done:
            if step.span_id in seen:
                continue  # met again: a guard, a tree of one parent per span never is
            seen.add(step.span_id)
            stack.append((step, under_agent, in_tool, True))
            below = under_agent or step.kind == AGENT
            stack.extend((k, below, step.kind == TOOL, False) for k in kids)
            continue
        llm = int(step.kind == LLM and not names_its_agent(step))
        tool = int(step.kind == TOOL)
        for k in kids:
            if k.kind == AGENT:
                continue  # an agent's calls are its own
            got = owned.get(k.span_id, (0, 0))
            llm, tool = llm + got[0], tool + got[1]
        owned[step.span_id] = (llm, tool)
        named = step.agent or step.tool  # a function-typed span's name is its tool name
        # a candidate's code path's agent class names the agent it runs (a run, as one of
        # `lone`), or what the operation its name gives ran names it (`run/weather`)
        classed = _class_agent(named) if step.inferred == CANDIDATE else None
        renamed = classed or (_ran(named) if step.inferred == CANDIDATE and named else None)
        if renamed:
            step.agent = named = renamed
        agent_named = classed is not None or step.span_id in lone
        if _may_be_agent(step) and llm and (
                ((tool or agent_named) and not under_agent) or in_tool or (  # a child flow
                    under_agent and step.span_id in lone and step.kind == WORKFLOW)) and (
                _agent_name_ok(named, taken)):
            _become(step, AGENT, told)
            owned[step.span_id] = (0, 0)
    return owned
