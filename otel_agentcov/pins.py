"""The `conventions:` entries that pin what inference read (`agentcov explain --write F`).

One entry per vocabulary: per kind attribute and kind (its kind words as a list), per
span-name affix, per GenAI key; then one per name the trace structure made an agent or a tool
(docs/conventions.md#inference). Entries are written in inference's own order of precedence,
so loading them reads every span as inference did.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from .semconv.convention import unquote
from .semconv.inference import (
    BY_ATTRIBUTE,
    BY_FUNCTION,
    BY_GENAI,
    BY_NAME,
    ENDPOINT_QUERY,
    ENDPOINT_SCHEME,
    ENDPOINT_SENDS,
    ENDPOINT_TOOL_OPTION,
    GENAI_OPERATION,
    MANAGE_VERBS,
    MODEL_IN_NAME,
    MODEL_IN_NAME_REGEX,
    MODEL_MEMBER,
    glob_literal,
    model_key_rank,
    tag_key,
    words,
)
from .semconv.inferred_log import MESSAGE, THROWN, Group, InferredLog
from .semconv.shapes import name_pattern
from .semconv.step import AGENT, HANDOFF, TOOL

_ORDER = {BY_ATTRIBUTE: 0, BY_FUNCTION: 0, BY_NAME: 1, BY_GENAI: 2}
_NAME_FIELD = {"agent": "name", "tool": "tool"}


def _names(group: Group) -> dict[str, Any]:
    field = _NAME_FIELD.get(group.kind)
    if field is None:
        return {}
    if group.name_key is not None:
        return {field: group.name_key}
    if group.regex is not None:
        return {field: {"span_name": group.regex}}
    return {}  # omitted: the span name


def _fields(group: Group) -> dict[str, Any]:
    fields = _names(group)
    for name, key in group.sources.items():
        if name not in ("model_parameters", THROWN):
            fields[name] = {"span_name": MODEL_IN_NAME_REGEX} if key == MODEL_IN_NAME else key
    fields.update(_error(group.sources))
    if group.models and isinstance(fields.get("model"), str):  # spans named theirs otherwise
        fields["model"] = sorted((fields["model"], *group.models), key=model_key_rank)
    asked = group.sources.get("model_parameters")
    if asked is not None:  # the model a call asked for: where no other key names it
        source = {"attribute": asked, "json_key": MODEL_MEMBER}
        said = fields.get("model")
        fields["model"] = source if said is None else [
            *(said if isinstance(said, list) else [said]), source]
    return fields


def _error(sources: dict[str, str]) -> dict[str, Any]:
    """The `error` field reading what failed the spans where no status did: the failure flag,
    then an exception event (`{exception: true}`), the order inference reads them in."""
    said: list[Any] = [sources["error"]] if "error" in sources else []
    if THROWN in sources:
        said.append({"exception": True})
    return {"error": said[0] if len(said) == 1 else said} if said else {}


def _comment(group: Group) -> str:
    if group.evidence in (BY_ATTRIBUTE, BY_FUNCTION):
        said = f"{group.key} = {', '.join(group.values)}"
    elif group.evidence == BY_NAME:
        said = f"span name {group.glob}"
    else:
        said = f"GenAI key {group.key}"
    return (f"{group.count} × scope {group.scope or '(none)'} · {said} → {group.kind}"
            f" (inferred from {group.evidence})")


def _own_type(group: Group) -> bool:
    """A kind key of the span's own (`span.type`): tried before a type its context carries on
    every span (`entity.type`), as inference prefers it."""
    return group.key is not None and "span" in words(group.key)


def _entry(group: Group, declined: list[str]) -> dict[str, Any] | None:
    """The group's entry; `declined`: the names its span-name glob would claim that inference
    read as no call (`_declined`), left out of it by name."""
    match: dict[str, Any] = {}
    if group.scope:
        match["scope"] = group.scope
    if group.evidence in (BY_ATTRIBUTE, BY_FUNCTION) and group.key is not None:
        values = [unquote(v) if group.decode else v for v in dict.fromkeys(group.values)]
        said: Any = values[0] if len(values) == 1 else values
        tagged = tag_key(group.key) is not None  # a list of tags: the one naming the kind
        match["attributes"] = {group.key: {"contains": said} if tagged else said}
    elif group.evidence == BY_NAME and group.glob is not None:
        match["name"] = group.glob
    elif group.evidence == BY_GENAI and group.key is not None:
        values = list(group.values)  # an operation name's values; other GenAI keys: presence
        match["attributes"] = {group.key: (values[0] if len(values) == 1 else values)
                               if values else {"present": True}}
        if group.key != GENAI_OPERATION:  # a span naming its operation was read by that
            # (`create_agent` beside the model it defines: no call), never by this key
            match["attributes"][GENAI_OPERATION] = {"absent": True}
    else:
        return None  # an event or a `<provider>/<model>` name: inference reads it as it is
    if group.kind in _NAME_FIELD and group.name_key is not None:
        # an agent or tool span without its name key is read otherwise (by the span name, as
        # no agent when that name is a kind word, as a hand-off when the name says so): the
        # entry claims only spans carrying it, the others go on to inference
        match["attributes"] = {**match.get("attributes", {}), group.name_key: {"present": True}}
    managed = [*_managed_names(group), *declined]
    unless = {"unless": {"name": managed}} if managed else {}
    return {"match": match, **unless, "kind": group.kind, **_fields(group),
            **_decode(group.decode)}


def _managed_names(group: Group) -> list[str]:
    """The names of agents managed through an API (`create_agent`, `Agent.get`: inference reads
    no run) an agent entry's span-name glob would claim (`*_agent`, `Agent.*`): its `unless`,
    so the entry reads them as inference did; each casing spelled out, a name glob being
    case-sensitive."""
    if group.kind != AGENT or group.evidence != BY_NAME or group.glob is None:
        return []
    pairs = [(verb, word) for v in MANAGE_VERBS for verb in (v, v.capitalize(), v.upper())
             for w in ("agent", "agents") for word in (w, w.capitalize(), w.upper())]
    names = [*(f"{verb}{sep}{word}" for verb, word in pairs
               for sep in ("", "_", " ", "-", ".", ":")),
             *(f"{word}{sep}{verb}" for verb, word in pairs for sep in (".", ":", "::"))]
    return [name for name in names if fnmatchcase(name, group.glob)]


def _declined(log: InferredLog, group: Group) -> list[str]:
    """The span names of the group's scope its span-name glob matches that inference read as
    nothing (candidates of no vocabulary: `ReportGenerator.generate` beside `ChatOpenAI.generate`
    under `*.generate`, `model.train` beside `model.generate_content` under `model.*`), each as
    an exact glob: the entry's `unless`, so the pinned file reads them as inference did."""
    if group.evidence != BY_NAME or group.glob is None:
        return []
    return [glob_literal(c.span_name) for c in log.candidates.values()
            if c.group is None and c.scope == group.scope and fnmatchcase(c.span_name, group.glob)]


def _decode(decode: bool) -> dict[str, Any]:
    return {"decode": "json"} if decode else {}


def _structure(log: InferredLog) -> tuple[list[tuple[str, dict[str, Any]]], set[Any]]:
    """The exact-name entries pinning what the trace structure decided, and the vocabulary
    groups it decided inconsistently (a name read one way in one trace and another way in
    another): neither such a name nor its group is pinned, inference goes on reading them."""
    decided: dict[str, list[tuple[str, int]]] = {}
    for (kind, name), count in log.structure.items():
        decided.setdefault(name, []).append((kind, count))
    out: list[tuple[str, dict[str, Any]]] = []
    unsure: set[Any] = set()
    for name, candidate in log.candidates.items():
        kinds = decided.get(name, [])
        if not kinds:
            continue
        kind, count = max(kinds, key=lambda k: k[1])
        every = log.spans.get((candidate.scope, candidate.span_name))
        if len(kinds) > 1 or candidate.mixed or not count == candidate.count == every:
            unsure.add(candidate.group)
            continue
        # the exact name: a glob of ids (`*`) could claim spans inference read otherwise
        match: dict[str, Any] = {"name": glob_literal(candidate.span_name)}
        if candidate.scope:
            match = {"scope": candidate.scope, **match}
        entry: dict[str, Any] = {"match": match, "kind": kind}
        field = _NAME_FIELD.get(kind)
        if field is None:
            pass
        elif candidate.name_key is not None:
            entry[field] = candidate.name_key
            entry.update(_decode(candidate.decode))
        elif candidate.regex is not None:
            entry[field] = {"span_name": candidate.regex}
        elif name != candidate.span_name.strip():
            entry[field] = {"value": name}
        if field is not None:  # a run or a tool execution fails as inference read it
            entry.update(_error(candidate.sources))
        span = name_pattern(candidate.span_name)
        out.extend(_failing(entry, candidate.flags, candidate.decode))
        out.append((f"{count} × scope {candidate.scope or '(none)'} · span {span} → {kind} "
                    f"{name} (inferred from the trace's structure)", entry))
    return out, unsure


def _rivals(log: InferredLog) -> dict[tuple[str | None, ...], dict[str, Any]]:
    """Per attribute group, what its entry must leave to others: spans carrying its kind word
    that inference read by another kind key (a span's own `span.type` over its context's
    `entity.type`). That key absent, where the group's spans never carry it; else `unless` it
    says the other group's words, where the group's spans never say them (one such only)."""
    typed = {k: g for k, g in log.groups.items()
             if g.evidence in (BY_ATTRIBUTE, BY_FUNCTION) and g.key is not None}
    out: dict[tuple[str | None, ...], dict[str, Any]] = {}
    for k, g in typed.items():
        absent: set[str] = set()
        unless: dict[str, set[str]] = {}
        for o in typed.values():
            if o.scope != g.scope or o.key == g.key or o.key is None or (
                    g.values.keys().isdisjoint(o.beside.get(g.key or "", {}))):
                continue
            if o.key not in g.beside:
                absent.add(o.key)
            elif g.beside[o.key].keys().isdisjoint(o.values):
                unless.setdefault(o.key, set()).update(o.values)
        out[k] = {"absent": sorted(absent)}
        if len(unless) == 1:
            (key, words_), = unless.items()
            said = sorted(words_)
            out[k]["unless"] = {"attributes": {key: said[0] if len(said) == 1 else said}}
    return out


def pinned(log: InferredLog) -> list[tuple[str, dict[str, Any]]]:
    """(comment, entry) pairs: what structure decided by exact name first (it overrides the
    vocabulary's reading of those spans), then the vocabularies in inference's order."""
    out, unsure = _structure(log)
    rivals = _rivals(log)
    # hand-offs first: a span whose words say both tool and hand-off is the hand-off
    for key, group in sorted(log.groups.items(), key=lambda p: (
            p[1].kind != HANDOFF, _ORDER[p[1].evidence], not _own_type(p[1]), -p[1].count)):
        entry = _entry(group, _declined(log, group)) if (
            key not in unsure and not group.unpinned) else None
        if entry is not None and key in rivals:
            entry["match"]["attributes"].update(
                {k: {"absent": True} for k in rivals[key]["absent"]})
            if "unless" in rivals[key]:
                entry = {"match": entry["match"], "unless": rivals[key]["unless"],
                         **{f: v for f, v in entry.items() if f != "match"}}
        sends = _endpoint_sends(group, entry) if entry is not None else None
        if entry is not None and sends is not None:
            out.extend(sends)
            out.extend(_failing(entry, group.flags, group.decode))
            out.append((_comment(group), entry))
    return out


def _endpoint_sends(group: Group, entry: dict[str, Any]
                    ) -> list[tuple[str, dict[str, Any]]] | None:
    """The entries before an endpoint's, and its own narrowed to the spans inference read as it
    (None: it cannot be; it is not pinned). It claims only spans named by the scheme; a tool
    endpoint's only spans its URI gives no tool name (no field source reads a URI's option:
    those are left to inference), and its sending side (`ENDPOINT_SENDS`: the chat offering
    the tools) comes first, as no tool (`other`)."""
    if group.key != ENDPOINT_SCHEME or group.evidence != BY_ATTRIBUTE:
        return []
    entry["match"]["name"] = list(group.values)
    if group.kind != TOOL:
        return []
    if "unless" in entry:  # another vocabulary's words to leave it: one `unless` says one
        return None
    option = f"{ENDPOINT_TOOL_OPTION}="
    unless = {"attributes": {ENDPOINT_QUERY: {"glob": [f"{option}*", f"*&{option}*"]}}}
    match, rest = entry["match"], {f: v for f, v in entry.items() if f != "match"}
    entry.clear()  # in place, `unless` after `match` as written by hand
    entry.update({"match": match, "unless": unless, **rest})
    key, value = ENDPOINT_SENDS
    sends = {**match, "attributes": {**match["attributes"], key: value}}
    return [(f"… sending to the endpoint ({key} = {value}): no tool",
             {"match": sends, "kind": "other"})]


def _failing(entry: dict[str, Any], flags: dict[str, dict[str, None]],
             decode: bool) -> list[tuple[str, dict[str, Any]]]:
    """Before an entry, one for its spans a failure flag no field can read says failed
    (`x.level: ERROR`, where others say `INFO`): failed as its status or exception says, as
    inference read them."""
    out = []
    for key, values in flags.items():
        flagged = [unquote(v) if decode else v for v in values]
        said: str | list[str] | dict[str, bool]
        if MESSAGE in values:  # an error's message, never written here: any value of the key
            said, shown = {"present": True}, "an error's message"
        else:
            said, shown = flagged[0] if len(flagged) == 1 else flagged, ", ".join(flagged)
        match = {**entry["match"], "attributes": {**entry["match"].get("attributes", {}),
                                                  key: said}}
        out.append((f"… failed where {key} = {shown} (a failure flag)",
                    {**entry, "match": match, "error": {"value": ""}}))
    return out
