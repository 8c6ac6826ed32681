"""Behaviour contracts (docs/contracts.md): the one evaluator every front door uses.

A pure function of a finished run (and the content captured with it): every behaviour of every
contract that applies is evaluated, none short-circuits another, and each verdict is
`satisfied`, `violated`, `unknown` (the detector needed arguments or text that were not
captured — never a violation) or `not_exercised` (the contract's `when`, or the rule's own
trigger, never occurred: a rule that held only vacuously is an untested rule, not a pass).

A tool-call selector with `args` is three-valued on a call whose arguments were not captured.
Every detector is exact under that: the ordering ones by the cases below, the rest because
they are monotone in which calls match (more matching calls can only make them show), so
deciding with unknown = no match and with unknown = match brackets every possibility.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from ..assembler import AgentRun
from ..semconv.content import MAX_TEXT
from ..semconv.step import TOOL
from ..user_regex import UserRegex
from .args import ArgsMatch
from .matching import max_matching
from .turns import call_groups

SEVERITIES = ("low", "medium", "high", "critical")  # ascending
SATISFIED, VIOLATED, UNKNOWN = "satisfied", "violated", "unknown"
NOT_EXERCISED = "not_exercised"
RESULTS = (SATISFIED, VIOLATED, UNKNOWN, NOT_EXERCISED)
MUST, MUST_NOT = "must", "must_not"
MODES = ("exact", "in_order", "same_tools", "contains", "only")
EVERY_RUN_MODES = ("in_order", "contains")  # an empty reference is shown by every run

Hit = bool | None  # a call matches / does not / cannot tell (arguments not captured)


_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Selector:
    """Tool names or shell globs (aliases already expanded), optionally with argument matches
    (one per nesting level of `{tool: {tool: ..., args: ...}, args: ...}`, all must hold)."""

    patterns: tuple[str, ...]
    args: tuple[ArgsMatch, ...] = ()
    # derived once: plain names are a set lookup, globs one compiled regex (runs are judged
    # on the hot path; fnmatch per call and pattern costs more than the rest of a check)
    _names: frozenset[str] = field(init=False, compare=False, repr=False)
    _glob: re.Pattern[str] | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        globs = [p for p in self.patterns if not _GLOB_CHARS.isdisjoint(p)]
        names = frozenset(p for p in self.patterns if _GLOB_CHARS.isdisjoint(p))
        object.__setattr__(self, "_names", names)
        regex = re.compile("|".join(fnmatch.translate(g) for g in globs)) if globs else None
        object.__setattr__(self, "_glob", regex)

    def hit(self, tool: str, args: Any) -> Hit:
        if tool not in self._names and (self._glob is None or self._glob.match(tool) is None):
            return False
        if not self.args:
            return True
        if args is None:
            return None
        return all(match.matches(args) for match in self.args)


class _Calls:
    """A run's tool calls (executed, in start order), with each selector's hits computed once."""

    def __init__(self, run: AgentRun) -> None:
        captured = run.content.tool_args if run.content is not None else {}
        self.steps = [
            s for s in run.steps if s.kind == TOOL and s.tool is not None and s.decision != "deny"
        ]
        self.calls = [(s.tool or "", captured.get(s.span_id)) for s in self.steps]
        self.run = run
        self._hits: dict[Selector, list[Hit]] = {}
        self._groups: list[list[int]] | None = None

    @property
    def groups(self) -> list[list[int]]:
        """The calls' indices per model response, in order (see judge/turns.py)."""
        if self._groups is None:
            self._groups = []
            for i, group in enumerate(call_groups(self.run.steps, self.steps)):
                if group == len(self._groups):
                    self._groups.append([])
                self._groups[group].append(i)
        return self._groups

    def hits(self, sel: Selector) -> list[Hit]:
        found = self._hits.get(sel)
        if found is None:
            found = self._hits[sel] = [sel.hit(tool, args) for tool, args in self.calls]
        return found


def _any(hits: list[Hit]) -> Hit:
    """Some call matches for sure / none does for sure / cannot tell."""
    return True if True in hits else None if None in hits else False


def _decide(unknowns: bool, shows: Callable[[bool], bool]) -> Hit:
    """A monotone detector: shows(unknown_as) with unknown matches read as False, then True."""
    low = shows(False)
    if not unknowns or low:
        return low
    return None if shows(True) else False


def _as(hits: list[Hit], unknown_as: bool) -> list[bool]:
    return [unknown_as if h is None else h for h in hits]


@dataclass(frozen=True)
class Called:
    tool: Selector

    def shows(self, c: _Calls) -> Hit:
        return _any(c.hits(self.tool))


@dataclass(frozen=True)
class Calls:
    tool: Selector
    min: int = 0
    max: int | None = None

    def shows(self, c: _Calls) -> Hit:
        hits = c.hits(self.tool)
        low, high = hits.count(True), hits.count(True) + hits.count(None)
        top = self.max if self.max is not None else high
        if self.min <= low and high <= top:
            return True  # every possible count is within [min, max]
        if high < self.min or (self.max is not None and low > self.max):
            return False  # no possible count is
        return None

    def exercised(self, c: _Calls) -> Hit:
        """A cap alone (`max`, no `min`) holds vacuously while no call matches."""
        return _any(c.hits(self.tool)) if self.min == 0 and self.max is not None else True


@dataclass(frozen=True)
class Eventually:
    tool: Selector
    within: int | None = None

    def shows(self, c: _Calls) -> Hit:
        return _any(c.hits(self.tool)[: self.within])


@dataclass(frozen=True)
class Before:
    first: Selector
    then: Selector

    def shows(self, c: _Calls) -> Hit:
        """Every `then` call has a `first` call before it (vacuously true without one)."""
        firsts, thens = c.hits(self.first), c.hits(self.then)
        sure_before = maybe_before = False
        result: Hit = True
        for f, t in zip(firsts, thens, strict=True):
            if t is True and not maybe_before:
                return False
            if t is not False and not sure_before:
                result = None
            sure_before = sure_before or f is True
            maybe_before = maybe_before or f is not False
        return result

    def exercised(self, c: _Calls) -> Hit:
        return _any(c.hits(self.then))


@dataclass(frozen=True)
class After:
    trigger: Selector
    then: Selector
    within: int | None = None

    def shows(self, c: _Calls) -> Hit:
        """Every `trigger` call is followed by a `then` call within its next `within` calls."""
        triggers, thens = c.hits(self.trigger), c.hits(self.then)
        result: Hit = True
        for i, t in enumerate(triggers):
            if t is False:
                continue
            end = len(thens) if self.within is None else i + 1 + self.within
            window = thens[i + 1 : end]
            if True in window:
                continue
            if t is True and None not in window:
                return False
            result = None
        return result

    def exercised(self, c: _Calls) -> Hit:
        return _any(c.hits(self.trigger))


def _subsequence(hits: list[list[bool]], strict: bool) -> bool:
    """Reference element k matched by a call after element k-1's (greedy earliest is optimal
    for an ordered embedding); strict: at consecutive calls."""
    k = len(hits)
    if k == 0:
        return True
    n = len(hits[0])
    if strict:
        return any(all(hits[j][i + j] for j in range(k)) for i in range(n - k + 1))
    j = 0
    for i in range(n):
        if hits[j][i]:
            j += 1
            if j == k:
                return True
    return False


@dataclass(frozen=True)
class CallSequence:
    tools: tuple[Selector, ...]
    strict: bool = False

    def shows(self, c: _Calls) -> Hit:
        hits = [c.hits(s) for s in self.tools]
        unknown = any(None in h for h in hits)
        return _decide(unknown, lambda u: _subsequence([_as(h, u) for h in hits], self.strict))


def _matches_all(hits: list[list[bool]], refs: range, calls: list[int]) -> bool:
    """Every reference in `refs` pairs with a distinct call of `calls` (a multiset match)."""
    adjacency = [[c for c, call in enumerate(calls) if hits[j][call]] for j in refs]
    return max_matching(adjacency, len(calls)) == len(refs)


def _in_turns(hits: list[list[bool]], groups: list[list[int]], exact: bool) -> bool:
    """The reference in order over the run's turns, each turn a multiset: `exact` splits the
    reference into consecutive chunks one per turn, each matching its turn's calls perfectly;
    otherwise (in_order) each turn takes the longest next chunk it can match (taking more now
    never hurts what later turns can take), and the reference must run out."""
    j, k = 0, len(hits)
    for calls in groups:
        if exact:
            if not _matches_all(hits, range(j, j + len(calls)), calls):
                return False
            j += len(calls)
            continue
        size = 0
        while j + size < k and size < len(calls) and _matches_all(
            hits, range(j, j + size + 1), calls
        ):
            size += 1
        j += size
    return j == k


def _by_turns(hits: list[list[bool]], groups: list[list[int]], turns: Sequence[range],
              exact: bool) -> bool:
    """The reference's own turns against the run's: `exact` pairs them one to one, each a
    perfect multiset match; in_order embeds each reference turn within one later run turn
    (the earliest that can hold it: later ones can only hold less of what remains)."""
    if exact:
        return len(turns) == len(groups) and all(
            len(refs) == len(calls) and _matches_all(hits, refs, calls)
            for refs, calls in zip(turns, groups, strict=True))
    i = 0
    for refs in turns:
        while i < len(groups) and not _matches_all(hits, refs, groups[i]):
            i += 1
        if i == len(groups):
            return False
        i += 1
    return True


def _trajectory(hits: list[list[bool]], groups: list[list[int]], n_calls: int,
                mode: str, turns: Sequence[range] | None = None) -> bool:
    k = len(hits)
    if mode in ("exact", "in_order") and turns is not None:
        return _by_turns(hits, groups, turns, exact=mode == "exact")
    if mode == "exact":
        return k == n_calls and _in_turns(hits, groups, exact=True)
    if mode == "in_order":
        return _in_turns(hits, groups, exact=False)
    if mode == "same_tools" and k != n_calls:
        return False
    if mode == "only" and n_calls > k:
        return False
    adjacency = [[i for i, ok in enumerate(row) if ok] for row in hits]
    matched = max_matching(adjacency, n_calls)
    return matched == (n_calls if mode == "only" else k)


@dataclass(frozen=True)
class Trajectory:
    """The reference calls in order; `turns` (positions in `tools`) when the spec grouped them
    into the model responses that should ask for them, else None (a flat reference)."""

    tools: tuple[Selector, ...]
    mode: str = "exact"
    turns: tuple[range, ...] | None = None

    def shows(self, c: _Calls) -> Hit:
        hits = [c.hits(s) for s in self.tools]
        unknown = any(None in h for h in hits)
        n, groups = len(c.calls), c.groups if self.mode in ("exact", "in_order") else []
        return _decide(unknown, lambda u: _trajectory([_as(h, u) for h in hits], groups, n,
                                                      self.mode, self.turns))


@dataclass(frozen=True)
class AllowedOnly:
    """Least privilege: every call matches one of the selectors (any number of times)."""

    tools: tuple[Selector, ...]

    def shows(self, c: _Calls) -> Hit:
        allowed = [_any(list(column)) for column in zip(*(c.hits(s) for s in self.tools),
                                                          strict=True)]
        return False if False in allowed else None if None in allowed else True


@dataclass(frozen=True)
class Delegated:
    agent: str

    def shows(self, c: _Calls) -> Hit:
        return any(fnmatch.fnmatchcase(to, self.agent) for _, to in c.run.delegations)


@dataclass(frozen=True)
class Text:
    """`output` / `input`: the run's final output or user input contains / matches / is JSON
    valid against a schema. Unknown when that text was not captured."""

    source: str  # "output" | "input"
    contains: str | None = None
    regex: UserRegex | None = None
    schema: Draft202012Validator | None = field(default=None, compare=False)

    def shows(self, c: _Calls) -> Hit:
        content = c.run.content
        text = None if content is None else getattr(content, self.source)
        if text is None:
            return None
        text = text[:MAX_TEXT]
        if self.contains is not None:
            return self.contains in text
        if self.regex is not None:
            return self.regex.search(text) is not None
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            return False
        return self.schema is not None and self.schema.is_valid(document)


Detector = (
    Called | Calls | Eventually | Before | After | CallSequence | Trajectory | AllowedOnly
    | Delegated | Text
)


def needs_content(detector: Detector) -> bool:
    """Does the detector read captured text or tool arguments?"""
    if isinstance(detector, Text):
        return True
    values = [v for value in vars(detector).values()
              for v in (value if isinstance(value, tuple) else (value,))]
    return any(isinstance(v, Selector) and v.args for v in values)


@dataclass(frozen=True)
class Behaviour:
    name: str
    kind: str  # must | must_not
    severity: str
    detector: Detector


@dataclass(frozen=True)
class Contract:
    name: str
    behaviours: tuple[Behaviour, ...]
    when: tuple[Detector, ...] = ()
    fail_on: str = "high"

    @property
    def needs_content(self) -> bool:
        return any(needs_content(d) for d in (*self.when, *(b.detector for b in self.behaviours)))


@dataclass(frozen=True, slots=True)
class Check:
    """One behaviour's verdict on one run (names only: it is what the state keeps)."""

    contract: str
    behavior: str
    kind: str
    severity: str
    result: str
    fails_run: bool = False  # violated at or above the contract's fail_on


_CAN_BE_VACUOUS = (Before, After, Calls)  # a tuple: isinstance on a union type is slower


def _exercised(detector: Detector, c: _Calls) -> Hit:
    """Did the rule's trigger occur? Only `before`, `after` and a `calls` cap can hold
    vacuously; every other detector is exercised by any run it is applied to."""
    if isinstance(detector, _CAN_BE_VACUOUS):
        return detector.exercised(c)
    return True


def _verdict(kind: str, detector: Detector, c: _Calls) -> str:
    exercised = _exercised(detector, c)
    if exercised is False:
        return NOT_EXERCISED
    shows = detector.shows(c)
    if shows is None or (exercised is None and shows):
        return UNKNOWN  # shown only if the trigger (arguments not captured) did not occur
    return VIOLATED if shows == (kind == MUST_NOT) else SATISFIED


def _applies(contract: Contract, calls: _Calls) -> Hit:
    applies: Hit = True
    for d in contract.when:
        shown = d.shows(calls)
        if shown is False:
            return False
        if shown is None:
            applies = None
    return applies


def _guarded(kind: str, detector: Detector, c: _Calls) -> tuple[str, int]:
    """A behaviour's result, or `unknown` and one error when it fails inside (a recursive
    schema on a deeply nested answer, say): one check's failure never drops the run."""
    try:
        return _verdict(kind, detector, c), 0
    except Exception:  # noqa: BLE001 - any failure of one check is that check's `unknown`
        return UNKNOWN, 1


def evaluate(
    run: AgentRun, contracts: Sequence[Contract]
) -> tuple[tuple[Check, ...], bool, int]:
    """Every behaviour of every contract that applies to the run, whether they fail it, and
    how many checks failed inside the judge (each recorded as `unknown`).

    A contract whose `when` does not show records every behaviour as not exercised; one whose
    `when` cannot be told records every behaviour as unknown."""
    calls = _Calls(run)
    checks: list[Check] = []
    fails = False
    errors = 0
    for contract in contracts:
        try:
            applies = _applies(contract, calls)
        except Exception:  # noqa: BLE001 - the `when` failed: every behaviour is unknown
            applies, errors = None, errors + len(contract.behaviours)
        bar = SEVERITIES.index(contract.fail_on)
        for b in contract.behaviours:
            if applies:
                result, failed = _guarded(b.kind, b.detector, calls)
                errors += failed
            else:
                result = NOT_EXERCISED if applies is False else UNKNOWN
            fails_run = result == VIOLATED and SEVERITIES.index(b.severity) >= bar
            checks.append(Check(contract.name, b.name, b.kind, b.severity, result, fails_run))
            fails = fails or fails_run
    return tuple(checks), fails, errors
