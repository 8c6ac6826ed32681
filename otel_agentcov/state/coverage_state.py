"""CoverageState: per-agent records of names, counts and hashes; mergeable and serializable.

Ratios are not stored: the Snapshot derives them, so two merged states give exactly the
coverage of one process that saw everything. Each concern is a record of its own (its own
add, merge and serialization); an agent's state is their composition.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..assembler import AgentRun, Late, LateGuardrail, LateState
from ..judge import Verdicts
from ..regular_files import open_regular
from ..semconv.events import DENY
from ..spec import AgentSpec
from . import fields, losses
from .arguments import Arguments
from .caps import OVERFLOW, Caps, Limits
from .contexts import Contexts
from .contracts import Contracts
from .costs import Costs
from .decisions import Decisions
from .diversity import Diversity
from .edges import Edges
from .facts import RunFacts, blocked, guardrail_state, run_facts, stable_hash
from .faults import Faults
from .inventory import Inventory
from .narrative import Narrative
from .outcomes import Outcomes
from .skills import Skills
from .versions import Versions

STATE_FORMAT = "otel_agentcov.state"
# 2 added contract verdicts, 3 their not-exercised counts, 4 the recorded spec and the
# incomplete mark (an older reader refuses a file it would read as complete), 5 fault counts,
# 6 what was dropped before it was judged (an older reader would pass a file that has drops);
# 7 the states runtimes reported (an older reader would measure the inferred states instead);
# 8 skills offered and loaded (an older reader would drop them, and a declared skill inventory
# with them); older files load
STATE_VERSION = 8
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)
MAX_INCOMPLETE = 100  # reasons a file keeps for being incomplete (more are counted in one)
# A state file is one JSON document, parsed whole: past this it is refused before it is read,
# as every offline JSON input is (readers.files.MAX_JSON_BYTES; docs/guarantees.md).
MAX_STATE_BYTES = 80 << 20


class StateError(ValueError):
    """A state file that cannot be read; the message is one line naming the file."""


@dataclass
class AgentState:
    """One agent's records; the file layout is the union of their keys (one flat object)."""

    outcomes: Outcomes = field(default_factory=Outcomes)
    inventory: Inventory = field(default_factory=Inventory)
    diversity: Diversity = field(default_factory=Diversity)
    edges: Edges = field(default_factory=Edges)
    narrative: Narrative = field(default_factory=Narrative)
    contracts: Contracts = field(default_factory=Contracts)
    versions: Versions = field(default_factory=Versions)
    contexts: Contexts = field(default_factory=Contexts)
    decisions: Decisions = field(default_factory=Decisions)
    costs: Costs = field(default_factory=Costs)
    faults: Faults = field(default_factory=Faults)
    arguments: Arguments = field(default_factory=Arguments)
    skills: Skills = field(default_factory=Skills)
    # +1 on every fold and merge: a scrape rebuilds only the agents whose revision moved
    revision: int = field(default=0, compare=False, repr=False)

    def merge(self, other: AgentState, caps: Caps) -> None:
        self.revision += 1
        self.outcomes.merge(other.outcomes)
        self.inventory.merge(other.inventory, caps)
        self.diversity.merge(other.diversity, caps)
        self.edges.merge(other.edges, caps)
        self.narrative.merge(other.narrative, caps)
        self.contracts.merge(other.contracts, caps)
        self.versions.merge(other.versions, caps)
        self.contexts.merge(other.contexts, caps)
        self.decisions.merge(other.decisions, caps)
        self.costs.merge(other.costs, caps)
        self.faults.merge(other.faults, caps)
        self.arguments.merge(other.arguments, caps)
        self.skills.merge(other.skills, caps)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.outcomes.to_dict(),
            **self.inventory.to_dict(),
            **self.diversity.to_dict(),
            **self.edges.to_dict(),
            **self.narrative.to_dict(),
            **self.contracts.to_dict(),
            **self.versions.to_dict(),
            **self.contexts.to_dict(),
            **self.decisions.to_dict(),
            **self.costs.to_dict(),
            **self.faults.to_dict(),
            **self.arguments.to_dict(),
            **self.skills.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AgentState:
        return cls(
            outcomes=Outcomes.from_dict(d),
            inventory=Inventory.from_dict(d),
            diversity=Diversity.from_dict(d),
            edges=Edges.from_dict(d),
            narrative=Narrative.from_dict(d),
            contracts=Contracts.from_dict(d),
            versions=Versions.from_dict(d),
            contexts=Contexts.from_dict(d),
            decisions=Decisions.from_dict(d),
            costs=Costs.from_dict(d),
            faults=Faults.from_dict(d),
            arguments=Arguments.from_dict(d),
            skills=Skills.from_dict(d),
        )


def _recorded_spec(value: Any) -> dict[str, Any] | None:
    """The `spec` key: {"source": str, "document": mapping} or absent (older files, `serve`);
    the document is validated as a spec when it is used, not here."""
    if value is None:
        return None
    if (not isinstance(value, dict) or not isinstance(value.get("source"), str)
            or not isinstance(value.get("document"), dict)):
        raise ValueError("spec: expected {source: string, document: mapping}")
    return {"source": value["source"][:1000], "document": value["document"]}


class TooLarge(StateError):
    """A state file over MAX_STATE_BYTES: refused unread."""


def read_capped(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a state file, refused (TooLarge) past MAX_STATE_BYTES without reading them:
    the size is checked first and the read stops one byte past the cap (a file still growing)."""
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        data = b"" if size > MAX_STATE_BYTES else fh.read(MAX_STATE_BYTES + 1)
    if size > MAX_STATE_BYTES or len(data) > MAX_STATE_BYTES:
        raise TooLarge(f"{os.fspath(path)}: larger than {MAX_STATE_BYTES >> 20} MiB, the most "
                       "a state file may hold; refused unread (agentcov docs guarantees)")
    return data


class CoverageState:
    """All agents' state; callers serialize access (the processor holds one lock)."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.caps = Caps(limits or Limits())
        self.agents: dict[str, AgentState] = {}
        # the spec the runs were judged under, {"source", "document"}, when the writer said
        self.recorded_spec: dict[str, Any] | None = None
        # why runs are missing (a worker that sent nothing, a session that never finished):
        # a gate on an incomplete file fails (docs/ci.md)
        self.incomplete: list[str] = []
        # spans and decision events dropped before they were judged (`losses.py`), as the
        # state files merged into this one recorded them: a gate on it cannot pass
        self.dropped: dict[str, int] = {}

    def mark_incomplete(self, reasons: list[str]) -> None:
        """Add why runs are missing, each once, at most MAX_INCOMPLETE kept."""
        for reason in reasons:
            if reason not in self.incomplete:
                self.incomplete.append(reason)
        if len(self.incomplete) > MAX_INCOMPLETE:
            more = len(self.incomplete) - MAX_INCOMPLETE + 1
            self.incomplete[MAX_INCOMPLETE - 1:] = [f"and {more} more reasons"]

    @property
    def limits(self) -> Limits:
        return self.caps.limits

    @property
    def overflow(self) -> dict[str, int]:
        """Folds per dimension: what the caps turned away, for the self-metrics."""
        return self.caps.overflow

    def agent(self, name: str, runs: int = 1) -> AgentState:
        """The agent's state; past the cap the `runs` it is asked for fold into __overflow__."""
        key = self.caps.key(self.agents, name, self.limits.max_agents, "agent", OVERFLOW, runs)
        st = self.agents.get(key)
        if st is None:
            st = self.agents[key] = AgentState()
        return st

    def update(self, run: AgentRun, spec: AgentSpec, verdicts: Verdicts) -> RunFacts:
        """Fold one finished, judged run into its agent's state under that agent's spec; returns
        what the run contributed (its evaluation events are built from it)."""
        st = self.agent(run.agent)
        st.revision += 1
        facts = run_facts(run, spec, verdicts)
        called = st.inventory.add(facts, self.caps)
        st.diversity.add(facts, self.caps)
        st.edges.add(facts, self.caps)
        st.contracts.add(facts, self.caps)
        st.outcomes.add(facts, called, spec.consistency_window)
        st.narrative.add(verdicts.narrative, self.caps)
        st.versions.add(run.version, facts, self.caps)
        st.contexts.add(facts, called, self.caps)
        st.decisions.add(facts, self.caps)
        st.costs.add(facts, self.caps)
        st.faults.add(facts, self.caps)
        st.skills.add(facts, self.caps)
        if verdicts.arguments:
            st.arguments.add(verdicts.arguments, self.caps)
        return facts

    def add_late(self, late: Late, spec: AgentSpec) -> None:
        """Fold an event joined after its run was folded (assembler/events.py): a state change
        is a state of the agent's; a guardrail result a guardrail state, and the boundary
        `guardrail_blocked` when the spec names it; of a decision its count, and a denial of a
        restricted tool no span of which ran is a restricted attempt `denied`. The run's pass
        was counted when it was folded and stays as it is (docs/semantics.md#decisions)."""
        st = self.agent(late.agent, 0)
        st.revision += 1
        if isinstance(late, LateState):
            st.diversity.add_event_states([stable_hash(late.tokens)], self.caps)
            return
        if isinstance(late, LateGuardrail):
            key = stable_hash(guardrail_state(late.result))
            self.caps.count(st.diversity.states, key, self.limits.max_states, "state", 1)
            if blocked(spec.boundaries, late.result):
                st.edges.boundaries["guardrail_blocked"] = (
                    st.edges.boundaries.get("guardrail_blocked", 0) + 1)
            return
        st.decisions.add_late(late.tool, late.outcome, late.replaces, self.caps)
        if late.outcome == DENY and not late.executed and spec.restricted_tools.matches(late.tool):
            st.edges.add_attempt(late.tool, "denied", late.time_ns, late.trace_id)

    def merge(self, other: CoverageState) -> None:
        """Union of sets, sum of counters: merged coverage equals one process seeing all.

        The caps hold for the merged state too; what does not fit folds and is counted, as in
        `update` (below the caps, merge is associative and commutative).
        """
        for name, o in other.agents.items():
            self.agent(name, o.outcomes.runs).merge(o, self.caps)
        for k, v in other.overflow.items():
            self.caps.fold(k, v)
        self.mark_incomplete(other.incomplete)
        losses.add(self.dropped, other.dropped)
        if self.recorded_spec is None:  # whether specs agree is the reader's check (offline)
            self.recorded_spec = other.recorded_spec

    def to_dict(self, lost: Mapping[str, int] | None = None) -> dict[str, Any]:
        """The file's document; `lost`: the drops to record instead of `self.dropped` (the
        engine's own added to the merged files', `CoverageEngine.dropped`)."""
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            **({"spec": self.recorded_spec} if self.recorded_spec is not None else {}),
            "incomplete": list(self.incomplete),
            "dropped": dict(self.dropped if lost is None else lost),
            "overflow": dict(sorted(self.overflow.items())),
            "agents": {name: st.to_dict() for name, st in sorted(self.agents.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], limits: Limits | None = None) -> CoverageState:
        if data.get("format") != STATE_FORMAT or data.get("version") not in READABLE_VERSIONS:
            versions = " or ".join(map(str, READABLE_VERSIONS))
            raise StateError(f"not an {STATE_FORMAT} version {versions} document")
        state = cls(limits)
        try:
            state.caps.overflow = fields.counts(data.get("overflow", {}), "overflow")
            agents = fields.table(data.get("agents"), "agents")
            state.mark_incomplete([fields.name(r, "incomplete")[:1000]
                                   for r in fields.items(data.get("incomplete", []), "incomplete")])
            state.recorded_spec = _recorded_spec(data.get("spec"))
            state.dropped = losses.from_file(data.get("dropped", {}))
        except ValueError as exc:
            raise StateError(str(exc)) from None
        for name, d in agents.items():
            try:
                st = state.agents[name] = AgentState.from_dict(fields.table(d, "agent"))
            except KeyError as exc:
                raise StateError(f"agents.{name[:80]}: missing field {exc}") from None
            except ValueError as exc:
                raise StateError(f"agents.{name[:80]}: {exc}") from None
            tallies, items = st.contexts.held()
            state.caps.context_tallies += tallies
            state.caps.context_items += items
        return state

    def save(self, path: str | os.PathLike[str], extra: Mapping[str, Any] | None = None,
             lost: Mapping[str, int] | None = None) -> None:
        """Atomic write (temp file, fsync, rename): a crash leaves the old file or the new one.

        `extra` adds top-level keys (`agentcov serve` keeps its journal generation there);
        readers of the state ignore them; `lost` as `to_dict`. A symlinked path is written
        through to its target (the link stays); the temporary file is created exclusively
        (never a planted link)."""
        target = os.path.realpath(os.fspath(path))
        directory = os.path.dirname(os.path.abspath(target))
        tmp: str | None = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".agentcov-", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({**self.to_dict(lost), **(extra or {})}, fh, separators=(",", ":"))
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
            data = json.loads(read_capped(path))
        except TooLarge:
            raise
        except OSError as exc:  # worded as every command words an unreadable file
            raise StateError(f"{os.fspath(path)}: cannot read: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise StateError(f"{os.fspath(path)}: cannot read state: {exc}") from None
        if not isinstance(data, dict):
            raise StateError(f"{os.fspath(path)}: not a state file (expected a JSON object)")
        try:
            return cls.from_dict(data, limits)
        except StateError as exc:
            raise StateError(f"{os.fspath(path)}: {exc}") from None
