"""Judged verdicts as JSON rows: what the journal keeps so a replay restores them exactly.

A run's content (its output, arguments) is never journaled, so after a crash it is gone: the
verdicts judged on it while it was there are journaled instead, beside the steps, and a replay
folds them rather than judging again without the content (which would turn a violation into
`unknown` and a failed run into a passed one). A row holds names and outcomes only. Rows are
read back strictly: a wrong shape is a corrupt journal, reported as one.
"""

from __future__ import annotations

from typing import Any

from ..argschema import MAX_ITEMS, Item, ToolItems
from ..judge import Check, ToolArguments, Verdicts
from ..judge.contracts import RESULTS, SEVERITIES
from ..judge.narrative import KINDS, NarrativeVerdict
from ..judge.narrative import RESULTS as NARRATIVE_RESULTS


def to_row(agent: str, verdicts: Verdicts) -> list[Any]:
    """[agent, fails_run, checks, narrative, errors] with each check as its six fields, and the
    argument items (schema names only) as a sixth part when argument coverage judged any."""
    narrative = verdicts.narrative
    row = [
        agent, verdicts.fails_run,
        [[c.contract, c.behavior, c.kind, c.severity, c.result, c.fails_run]
         for c in verdicts.checks],
        None if narrative is None else
        [narrative.result, [list(d) for d in narrative.divergences], narrative.not_english,
         narrative.too_long],
        verdicts.errors,
    ]
    if verdicts.arguments:
        row.append([[a.tool, [[i.key, i.required] for i in a.items.items], a.items.overflow,
                     sorted(a.seen), a.calls, a.unread] for a in verdicts.arguments])
    return row


def _text(value: Any, what: str) -> str:
    if type(value) is not str:
        raise ValueError(f"verdict {what}: expected a string, got {str(value)[:40]!r}")
    return value


def _flag(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"verdict {what}: expected true or false, got {str(value)[:40]!r}")
    return value


def _one_of(value: Any, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"verdict {what}: {str(value)[:40]!r} is not one of {', '.join(allowed)}")
    return str(value)


def _check(row: Any) -> Check:
    if type(row) is not list or len(row) != 6:
        raise ValueError("a verdict check is [contract, behavior, kind, severity, result, fails]")
    return Check(_text(row[0], "contract"), _text(row[1], "behavior"), _text(row[2], "kind"),
                 _one_of(row[3], SEVERITIES, "severity"), _one_of(row[4], RESULTS, "result"),
                 _flag(row[5], "fails_run"))


def _narrative(row: Any) -> NarrativeVerdict | None:
    if row is None:
        return None
    if type(row) is not list or len(row) not in (3, 4) or type(row[1]) is not list:
        raise ValueError("a narrative verdict is [result, divergences, not_english, too_long]")
    divergences = []
    for item in row[1]:
        if type(item) is not list or len(item) != 2:
            raise ValueError("a divergence is [tool, kind]")
        divergences.append((_text(item[0], "divergence tool"),
                            _one_of(item[1], KINDS, "divergence kind")))
    return NarrativeVerdict(_one_of(row[0], NARRATIVE_RESULTS, "narrative result"),
                            tuple(divergences), _flag(row[2], "not_english"),
                            _flag(row[3], "too_long") if len(row) == 4 else False)


def _count(value: Any, what: str) -> int:
    if type(value) is not int or not 0 <= value < 1 << 31:
        raise ValueError(f"verdict {what}: expected a count, got {str(value)[:40]!r}")
    return value


def _arguments(row: Any) -> ToolArguments:
    if type(row) is not list or len(row) != 6 or type(row[1]) is not list \
            or type(row[3]) is not list or len(row[1]) > MAX_ITEMS:
        raise ValueError("verdict arguments are [tool, items, overflow, seen, calls, unread]")
    items = []
    for item in row[1]:
        if type(item) is not list or len(item) != 2:
            raise ValueError("an argument item is [key, required]")
        items.append(Item(_text(item[0], "argument item"), _flag(item[1], "required")))
    keys = frozenset(i.key for i in items)
    seen = frozenset(_text(k, "argument seen") for k in row[3])
    if not seen <= keys:
        raise ValueError("verdict arguments: a seen item the tool does not have")
    return ToolArguments(_text(row[0], "argument tool"),
                         ToolItems(tuple(items), _count(row[2], "overflow"), keys), seen,
                         _count(row[4], "calls"), _count(row[5], "unread"))


def from_row(row: Any) -> tuple[str, Verdicts]:
    """(agent, verdicts) a row holds; ValueError naming the first part that is wrong."""
    if type(row) is not list or len(row) not in (5, 6) or type(row[2]) is not list:
        raise ValueError("a verdict is [agent, fails_run, checks, narrative, errors]")
    arguments = row[5] if len(row) == 6 else []
    if type(arguments) is not list:
        raise ValueError("verdict arguments: expected a list")
    return _text(row[0], "agent"), Verdicts(
        fails_run=_flag(row[1], "fails_run"), checks=tuple(_check(c) for c in row[2]),
        narrative=_narrative(row[3]), errors=_count(row[4], "errors"),
        arguments=tuple(_arguments(a) for a in arguments))
