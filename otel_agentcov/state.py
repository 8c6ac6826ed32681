"""CoverageState: per-agent sets and counters coverage needs; mergeable and serializable.

It holds names, counts and hashes only. Ratios are not stored: the Snapshot derives them,
so two merged states give exactly the coverage of one process that saw everything.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .assembler import AgentRun
from .semconv.step import DELEGATE, HANDOFF, LLM, MAX_STEPS, TIMEOUT, TOOL, Step
from .spec import AgentSpec
from .stats import LogHistogram

STATE_FORMAT = "otel_agentcov.state"
STATE_VERSION = 1
OVERFLOW = "__overflow__"
OVERFLOW_EDGE = (OVERFLOW, OVERFLOW)
K = TypeVar("K")


class StateError(ValueError):
    """A state file that cannot be read; the message is one line naming the file."""


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


@dataclass
class Limits:
    """Caps that keep memory bounded whatever the input; folds are counted."""

    max_agents: int = 1000
    max_tools: int = 1000
    max_models: int = 200
    max_paths: int = 100_000
    max_states: int = 100_000
    max_path_samples: int = 1000


@dataclass
class AgentState:
    runs: int = 0
    errors: int = 0
    passed: int = 0
    tools: dict[str, list[int]] = field(default_factory=dict)
    tool_definitions: set[str] = field(default_factory=set)
    models: dict[str, int] = field(default_factory=dict)
    paths: dict[int, int] = field(default_factory=dict)
    path_tokens: dict[int, tuple[str, ...]] = field(default_factory=dict)
    states: dict[int, int] = field(default_factory=dict)
    boundaries: dict[str, int] = field(default_factory=dict)
    delegations: dict[tuple[str, str], int] = field(default_factory=dict)
    restricted: dict[tuple[str, str], int] = field(default_factory=dict)
    durations: LogHistogram = field(default_factory=LogHistogram)
    tokens: LogHistogram = field(default_factory=LogHistogram)
    tool_sets: list[tuple[int, int, tuple[str, ...]]] = field(default_factory=list)
    score_n: int = 0
    score_sum: float = 0.0
    score_sq: float = 0.0


def _bump(counter: dict[Any, int], key: Any, n: int = 1) -> None:
    counter[key] = counter.get(key, 0) + n


def _path_token(step: Step, by_tool: bool) -> str:
    if step.kind in (DELEGATE, HANDOFF):
        target = step.agent if step.kind == DELEGATE else step.handoff_to
        return f"delegate:{target}" if by_tool else "delegate"
    if step.kind == TOOL:
        return f"tool:{step.tool}" if by_tool else "tool"
    return "llm"


def _state_key(step: Step) -> tuple[str, ...]:
    subject = step.model if step.kind == LLM else step.tool if step.kind == TOOL else step.agent
    outcome = "error" if step.error else "empty" if step.empty else "ok"
    kind = DELEGATE if step.kind == HANDOFF else step.kind
    return (kind, subject or "", outcome, step.finish_reason, *step.state_extra)


class CoverageState:
    """All agents' state; callers serialize access (the processor holds one lock)."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.agents: dict[str, AgentState] = {}
        self.overflow: dict[str, int] = {}

    def _fold(self, dimension: str, n: int = 1) -> None:
        _bump(self.overflow, dimension, n)

    def agent(self, name: str, runs: int = 1) -> AgentState:
        """The agent's state; past the cap the `runs` it is asked for fold into __overflow__."""
        key = self._capped(self.agents, name, self.limits.max_agents, "agent", OVERFLOW, runs)
        st = self.agents.get(key)
        if st is None:
            st = self.agents[key] = AgentState()
        return st

    def _capped(
        self, table: Mapping[K, Any], key: K, cap: int, dimension: str, overflow: K, n: int = 1
    ) -> K:
        """`key` while the table has room (or holds it), else the overflow key, counting n folds.

        An overflow key arriving from a merged state was counted where it was folded.
        """
        if key in table or key == overflow or len(table) < cap:
            return key
        self._fold(dimension, n)
        return overflow

    def update(self, run: AgentRun, spec: AgentSpec) -> None:
        """Fold one finished run into its agent's state under that agent's spec."""
        st = self.agent(run.agent)
        lim = self.limits
        restricted = set(spec.restricted)
        called: set[str] = set()
        called_keys: set[str] = set()  # capped names: what tool_sets keep, so entries stay bounded
        seen_tools: Counter[str] = Counter()
        requested: Counter[str] = Counter()
        attempts = llm_calls = tokens = 0
        cost = 0.0
        tool_failed = llm_failed = False
        for step in run.steps:
            if step.kind == TOOL and step.tool is not None:
                name = step.tool
                seen_tools[name] += 1
                if step.decision == "deny":
                    if name in restricted:
                        attempts += 1
                        _bump(st.restricted, (name, "denied"))
                    continue
                called.add(name)
                key = self._capped(st.tools, name, lim.max_tools, "tool", OVERFLOW)
                called_keys.add(key)
                st.tools.setdefault(key, [0, 0])[1 if step.error else 0] += 1
                tool_failed = tool_failed or step.error is not None
                if name in restricted:
                    attempts += 1
                    _bump(st.restricted, (name, "failed" if step.error else "executed"))
            elif step.kind == LLM:
                llm_calls += 1
                tokens += step.input_tokens + step.output_tokens
                cost += step.cost_usd
                llm_failed = llm_failed or step.error is not None
                requested.update(step.requested_tools)
                if step.model:
                    model = self._capped(st.models, step.model, lim.max_models, "model", OVERFLOW)
                    _bump(st.models, model)
        for model in run.models:
            _bump(st.models, self._capped(st.models, model, lim.max_models, "model", OVERFLOW))
        for name, count in requested.items():
            if name in restricted and count > seen_tools[name]:
                attempts += count - seen_tools[name]
                _bump(st.restricted, (name, "denied"), count - seen_tools[name])
        for name in run.tool_definitions - st.tool_definitions:
            if len(st.tool_definitions) < lim.max_tools:
                st.tool_definitions.add(name)
            else:
                self._fold("tool")

        by_tool = spec.granularity == "tool"
        path = tuple(_path_token(s, by_tool) for s in run.steps[: spec.max_depth])
        path_key = _cached_hash(path)
        if self._counted(st.paths, path_key, lim.max_paths, "path", 1):
            if path_key in st.path_tokens or len(st.path_tokens) < lim.max_path_samples:
                st.path_tokens[path_key] = path
        for step in run.steps:
            if step.kind in (LLM, TOOL, DELEGATE, HANDOFF):
                self._counted(st.states, _cached_hash(_state_key(step)), lim.max_states, "state", 1)

        b = spec.boundaries
        hits = {
            "max_steps": MAX_STEPS in run.limits
            or (b.max_steps is not None and llm_calls >= b.max_steps),
            "timeout": TIMEOUT in run.limits
            or (b.timeout_s is not None and run.duration_s >= b.timeout_s),
            "cost_limit": (b.cost_limit_tokens is not None and tokens >= 0.9 * b.cost_limit_tokens)
            or (b.cost_limit_usd is not None and cost >= 0.9 * b.cost_limit_usd),
            "empty_input": run.input_chars is not None and run.input_chars < b.min_input_chars,
            "error_path": run.error is not None or llm_failed,
            "tool_failure": tool_failed,
        }
        for condition in b.conditions:
            if hits[condition]:
                _bump(st.boundaries, condition)
        for edge in run.delegations:
            _bump(st.delegations, self._edge(st, edge))

        passed = run.error is None and attempts == 0 and set(spec.must_call) <= called
        st.runs += 1
        st.errors += run.error is not None
        st.passed += passed
        st.durations.add(run.duration_s)
        st.tokens.add(float(tokens))
        score = sum(run.scores) / len(run.scores) if run.scores else float(passed)
        st.score_n += 1
        st.score_sum += score
        st.score_sq += score * score
        st.tool_sets.append((run.end_ns, run.trace_id, tuple(sorted(called_keys))))
        if len(st.tool_sets) > 2 * spec.consistency_window:
            st.tool_sets = sorted(st.tool_sets)[-spec.consistency_window :]

    def _edge(self, st: AgentState, edge: tuple[str, str], n: int = 1) -> tuple[str, str]:
        """Delegation edges are agent names: capped like agents, per agent."""
        return self._capped(st.delegations, edge, self.limits.max_agents, "agent", OVERFLOW_EDGE, n)

    def _counted(self, table: dict[int, int], key: int, cap: int, dimension: str, n: int) -> bool:
        """Count a path/state hash while there is room; otherwise only the fold is counted."""
        if key in table or len(table) < cap:
            _bump(table, key, n)
            return True
        self._fold(dimension, n)
        return False

    def merge(self, other: CoverageState) -> None:
        """Union of sets, sum of counters: merged coverage equals one process seeing all.

        The caps hold for the merged state too; what does not fit folds and is counted, as in
        `update` (below the caps, merge is associative and commutative).
        """
        lim = self.limits
        for name, o in other.agents.items():
            st = self.agent(name, o.runs)
            st.runs += o.runs
            st.errors += o.errors
            st.passed += o.passed
            for tool, (ok, err) in o.tools.items():
                key = self._capped(st.tools, tool, lim.max_tools, "tool", OVERFLOW, ok + err)
                counts = st.tools.setdefault(key, [0, 0])
                counts[0] += ok
                counts[1] += err
            for tool in sorted(o.tool_definitions - st.tool_definitions):
                if len(st.tool_definitions) < lim.max_tools:
                    st.tool_definitions.add(tool)
                else:
                    self._fold("tool")
            for model, n in o.models.items():
                _bump(st.models, self._capped(st.models, model, lim.max_models, "model",
                                              OVERFLOW, n), n)
            for path, n in o.paths.items():
                if self._counted(st.paths, path, lim.max_paths, "path", n):
                    tokens = o.path_tokens.get(path)
                    if tokens is not None and (
                        path in st.path_tokens or len(st.path_tokens) < lim.max_path_samples
                    ):
                        st.path_tokens[path] = tokens
            for state_key, n in o.states.items():
                self._counted(st.states, state_key, lim.max_states, "state", n)
            for edge, n in o.delegations.items():
                _bump(st.delegations, self._edge(st, edge, n), n)
            for table, theirs in ((st.boundaries, o.boundaries), (st.restricted, o.restricted)):
                for k, v in theirs.items():
                    _bump(table, k, v)
            st.durations.merge(o.durations)
            st.tokens.merge(o.tokens)
            st.tool_sets = sorted(st.tool_sets + o.tool_sets)
            st.score_n += o.score_n
            st.score_sum += o.score_sum
            st.score_sq += o.score_sq
        for k, v in other.overflow.items():
            _bump(self.overflow, k, v)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "overflow": dict(sorted(self.overflow.items())),
            "agents": {name: _agent_to_dict(st) for name, st in sorted(self.agents.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], limits: Limits | None = None) -> CoverageState:
        if data.get("format") != STATE_FORMAT or data.get("version") != STATE_VERSION:
            raise StateError(f"not an {STATE_FORMAT} version {STATE_VERSION} document")
        state = cls(limits)
        try:
            state.overflow = {str(k): int(v) for k, v in data.get("overflow", {}).items()}
            for name, d in data["agents"].items():
                state.agents[str(name)] = _agent_from_dict(d)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise StateError(f"malformed agent state: {exc!r}") from None
        return state

    def save(self, path: str | os.PathLike[str], extra: Mapping[str, Any] | None = None) -> None:
        """Atomic write (temp file, fsync, rename): a crash leaves the old file or the new one.

        `extra` adds top-level keys (`agentcov serve` keeps its journal generation there);
        readers of the state ignore them."""
        target = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(target))
        tmp: str | None = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".agentcov-", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({**self.to_dict(), **(extra or {})}, fh, separators=(",", ":"))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException as exc:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(exc, OSError):  # name the file asked for, not the temporary one
                raise OSError(exc.errno, exc.strerror, target) from exc
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str], limits: Limits | None = None) -> CoverageState:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise StateError(f"{os.fspath(path)}: cannot read state: {exc}") from None
        if not isinstance(data, dict):
            raise StateError(f"{os.fspath(path)}: not a state file (expected a JSON object)")
        try:
            return cls.from_dict(data, limits)
        except StateError as exc:
            raise StateError(f"{os.fspath(path)}: {exc}") from None


def _pairs(table: Mapping[tuple[str, str], int]) -> list[list[Any]]:
    return [[a, b, n] for (a, b), n in sorted(table.items())]


def _agent_to_dict(st: AgentState) -> dict[str, Any]:
    return {
        "runs": st.runs,
        "errors": st.errors,
        "passed": st.passed,
        "tools": {k: list(v) for k, v in sorted(st.tools.items())},
        "tool_definitions": sorted(st.tool_definitions),
        "models": dict(sorted(st.models.items())),
        "paths": {f"{k:016x}": v for k, v in sorted(st.paths.items())},
        "path_tokens": {f"{k:016x}": list(v) for k, v in sorted(st.path_tokens.items())},
        "states": {f"{k:016x}": v for k, v in sorted(st.states.items())},
        "boundaries": dict(sorted(st.boundaries.items())),
        "delegations": _pairs(st.delegations),
        "restricted": _pairs(st.restricted),
        "durations": st.durations.to_dict(),
        "tokens": st.tokens.to_dict(),
        "tool_sets": [[e, t, list(s)] for e, t, s in sorted(st.tool_sets)],
        "scores": [st.score_n, st.score_sum, st.score_sq],
    }


def _agent_from_dict(d: Mapping[str, Any]) -> AgentState:
    n, s, sq = d["scores"]
    return AgentState(
        runs=int(d["runs"]),
        errors=int(d["errors"]),
        passed=int(d["passed"]),
        tools={str(k): [int(v[0]), int(v[1])] for k, v in d["tools"].items()},
        tool_definitions={str(x) for x in d["tool_definitions"]},
        models={str(k): int(v) for k, v in d["models"].items()},
        paths={int(k, 16): int(v) for k, v in d["paths"].items()},
        path_tokens={int(k, 16): tuple(str(t) for t in v) for k, v in d["path_tokens"].items()},
        states={int(k, 16): int(v) for k, v in d["states"].items()},
        boundaries={str(k): int(v) for k, v in d["boundaries"].items()},
        delegations={(str(a), str(b)): int(c) for a, b, c in d["delegations"]},
        restricted={(str(a), str(b)): int(c) for a, b, c in d["restricted"]},
        durations=LogHistogram.from_dict(d["durations"]),
        tokens=LogHistogram.from_dict(d["tokens"]),
        tool_sets=[(int(e), int(t), tuple(str(x) for x in s)) for e, t, s in d["tool_sets"]],
        score_n=int(n),
        score_sum=float(s),
        score_sq=float(sq),
    )
