"""What was dropped before it could be judged and may have held a run, a restricted attempt or a
denial: every dropped span (whatever the reason, the call it recorded is unknown) and the decision
events dropped for room or as unusable. A gate over inputs with any cannot pass
(docs/gate.md#dropped-spans-and-events); a data file carries them, so a later gate sees them too.

Keys are `spans.<reason>` and `events.<reason>`; counts add up on merge, as every counter does.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import fields

# decision-event fates that lose the decision (a deny among them is unknown); `unjoined` denials
# are folded on their own, `duplicate`s repeat a decision already counted
LOST_EVENTS = ("buffer_full", "invalid")
SPANS, EVENTS = "spans.", "events."
MAX_KEYS = 64  # reasons a state file may list (the processor, the core and serve have ~10)


def of_counters(spans: Mapping[str, int], events: Mapping[str, int]) -> dict[str, int]:
    """The drops among an engine's span and event counters that may have lost a run."""
    out = {SPANS + reason: n for reason, n in sorted(spans.items()) if n}
    out.update((EVENTS + fate, events[fate]) for fate in LOST_EVENTS if events.get(fate))
    return out


def add(into: dict[str, int], more: Mapping[str, int]) -> None:
    """Sum `more` into `into`, each count held at the counters' ceiling."""
    for key, n in more.items():
        into[key] = min(into.get(key, 0) + n, fields.MAX_COUNT)


def from_file(value: object) -> dict[str, int]:
    """A state file's `dropped` object, validated (ValueError naming the field)."""
    counts = fields.counts(value, "dropped")
    if len(counts) > MAX_KEYS:
        raise ValueError(f"dropped: more than {MAX_KEYS} reasons")
    for key in counts:
        kind, _, reason = key.partition(".")
        if not (kind + "." == SPANS and reason) and not (
                kind + "." == EVENTS and reason in LOST_EVENTS):
            raise ValueError(f"dropped: unknown key {key[:80]!r} (spans.<reason> or "
                             f"events.<{'|'.join(LOST_EVENTS)}>)")
    return {k: n for k, n in counts.items() if n}


def describe(counts: Mapping[str, int]) -> str:
    """`3 spans (queue_full 2, after_shutdown 1) and 1 decision event (buffer_full 1)`."""
    parts = []
    for prefix, noun in ((SPANS, "span"), (EVENTS, "decision event")):
        by = {k[len(prefix):]: n for k, n in counts.items() if k.startswith(prefix) and n}
        if by:
            total = sum(by.values())
            parts.append(f"{total} {noun}{'' if total == 1 else 's'} ("
                         + ", ".join(f"{reason} {n}" for reason, n in by.items()) + ")")
    return " and ".join(parts)


def message(counts: Mapping[str, int]) -> str:
    """The one line a gate says about drops (empty when there were none)."""
    if not any(counts.values()):
        return ""
    return (f"{describe(counts)} dropped before they were judged: runs, restricted attempts or "
            "denials among them are unknown, so the gate cannot pass, with --allow-inconclusive "
            "or without (agentcov docs gate)")
