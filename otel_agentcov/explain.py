"""`agentcov explain FILE…`: why spans gave no agent runs, and the `conventions:` entries that
would map them (docs/conventions.md).

Reads the files like `coverage`, then prints the spans by kind and, for the commonest shapes of
spans no convention entry matched (scope, span-name glob, attribute keys; never values), a
suggested entry each, as YAML a user can check and paste into the spec. The suggested kind and
field sources are guesses from the words in the span names and attribute keys, and say so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from . import pins
from .engine import CoverageEngine
from .semconv.inference import go_function
from .semconv.shapes import Shape

# words in a span name or attribute key -> the kind they suggest, most telling first
_KIND_WORDS = (
    ("handoff", frozenset({"handoff", "transfer", "route", "delegate", "delegation"})),
    ("tool", frozenset({"tool", "tools", "function"})),
    ("llm", frozenset({"llm", "chat", "model", "completion", "completions", "generation",
                       "generate", "prompt", "tokens"})),
    ("agent", frozenset({"agent", "agents", "crew", "assistant"})),
    ("workflow", frozenset({"workflow", "chain", "pipeline", "graph"})),
)
_DISCRIMINATORS = ("type", "kind", "spantype", "span_type")
# namespaces of OpenTelemetry's semantic conventions for other domains than GenAI
_OTHER_DOMAINS = frozenset({
    "http", "url", "server", "client", "network", "net", "db", "rpc", "messaging", "user_agent",
    "code", "thread", "process", "host", "os", "k8s", "cloud", "container", "faas", "peer",
    "exception", "service", "telemetry", "otel", "enduser", "deployment", "browser", "aws", "gcp",
    "azure", "graphql", "tls", "dns", "file", "log", "system", "jvm", "go", "nodejs", "v8js",
})
_ERROR_WORDS = frozenset({"error", "exception", "failure", "failed"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_STANDARD_KEYS = frozenset({"error.type"})  # read anyway: no entry needs to name them
_STEM = re.compile(r"^[A-Za-z_][\w.-]*[:/]")  # `tool:` in `tool:search`, `tools/` in `tools/x`


def _words(text: str) -> set[str]:
    """`mlflow.spanType` -> {mlflow, span, type}; `ChatOpenAI` -> {chat, open, ai}."""
    return {w.lower() for w in _WORD.findall(text)}


def guess_kind(shape: Shape) -> str | None:
    """The kind the span name's words suggest, else the attribute keys' words; None if none.
    Keys of OpenTelemetry's other domains say what they say there (`http.route` is a request's
    route, no hand-off): their words suggest nothing."""
    name = go_function(shape["name"]) or shape["name"]  # a Go name: its import path says nothing
    keys = [k for k in shape["attributes"] if k.split(".", 1)[0] not in _OTHER_DOMAINS]
    for words in (_words(name), set().union(*map(_words, keys))):
        for kind, hints in _KIND_WORDS:
            if words & hints:
                return kind
    return None


def _key(keys: Sequence[str], *required: frozenset[str]) -> str | None:
    """The first key whose words include one word of each set in `required`."""
    for key in keys:
        words = _words(key)
        if all(words & need for need in required):
            return key
    return None


def _fields(kind: str, shape: Shape) -> dict[str, Any]:
    keys = [k for k in shape["attributes"] if k not in _STANDARD_KEYS]
    fields: dict[str, Any] = {}
    if kind == "agent":
        name = _key(keys, frozenset({"agent", "assistant"}))
        if name is not None:
            fields["name"] = name
    elif kind == "tool":
        name = _key(keys, frozenset({"tool", "function"}), frozenset({"name"}))
        stem = _STEM.match(shape["name"])
        if name is not None:
            fields["tool"] = name
        elif stem is not None:  # `tool:search`: the tool is named after the stem
            fields["tool"] = {"span_name": re.escape(stem.group()) + "(.+)"}
    elif kind == "llm":
        for field, words in (("model", frozenset({"model"})),
                             ("tokens_in", frozenset({"input", "prompt"})),
                             ("tokens_out", frozenset({"output", "completion", "reply"}))):
            needs = (words,) if field == "model" else (frozenset({"token", "tokens"}), words)
            key = _key(keys, *needs)
            if key is not None:
                fields[field] = key
    elif kind == "handoff":
        target = _key(keys, frozenset({"to", "target", "destination"}))
        if target is not None:
            fields["handoff_to"] = target
    error = _key(keys, _ERROR_WORDS)
    if error is not None and kind in ("tool", "llm", "agent"):
        fields["error"] = error
    return fields


def suggest(shape: Shape) -> dict[str, Any]:
    """A `conventions:` entry for the shape: its scope and name glob (and a discriminating key
    when the name tells nothing), a guessed kind, and field sources guessed from the keys."""
    kind = guess_kind(shape)
    match: dict[str, Any] = {}
    if shape["scope"]:
        match["scope"] = shape["scope"]
    stem = _STEM.match(shape["name"])
    if kind == "tool" and stem is not None:
        match["name"] = stem.group() + "*"  # every tool of the stem
    elif shape["name"] != "*":
        match["name"] = shape["name"]
    discriminator = next((k for k in shape["attributes"]
                          if k.lower().rsplit(".", 1)[-1] in _DISCRIMINATORS), None)
    if discriminator is None and not match and shape["attributes"]:
        discriminator = shape["attributes"][0]
    if discriminator is not None:
        match["attributes"] = {discriminator: {"present": True}}
    entry: dict[str, Any] = {"match": match or {"name": "*"}, "kind": kind or "other"}
    if kind is not None:
        entry.update(_fields(kind, shape))
    return entry


def _comment(shapes: Sequence[Shape], kind: str | None) -> list[str]:
    lines = []
    for shape in shapes:
        keys = ", ".join(shape["attributes"]) or "(none)"
        lines.append(f"  # {shape['count']} × scope {shape['scope'] or '(none)'} · name "
                     f"{shape['name']} · attribute keys: {keys}")
    guess = f"kind guessed from their words: {kind}" if kind else \
        "no kind guessed: set agent, llm, tool, handoff or workflow"
    return [*lines, f"  # {guess}"]


def _suggestions(shapes: Sequence[Shape]) -> list[tuple[list[Shape], dict[str, Any]]]:
    """One entry per distinct match, in order of first appearance; shapes that get the same
    match share it (their field sources merged, the first shape's winning)."""
    out: dict[str, tuple[list[Shape], dict[str, Any]]] = {}
    for shape in shapes:
        entry = suggest(shape)
        key = repr(entry["match"])
        if key in out:
            out[key][0].append(shape)
            out[key][1].update({k: v for k, v in entry.items() if k not in out[key][1]})
        else:
            out[key] = ([shape], entry)
    return list(out.values())


def _dump(entry: dict[str, Any]) -> list[str]:
    import yaml  # PyYAML's import (~15 ms): only for what explain writes, not every command

    body = yaml.safe_dump([entry], sort_keys=False, default_flow_style=None,
                          allow_unicode=True, width=96)
    return ["  " + line for line in body.splitlines()]


def pinned_spec(engine: CoverageEngine) -> str:
    """`version: 1` and the entries pinning what inference read (`explain --write F`): a spec
    that loads as it is and reads the spans as inference did (docs/conventions.md#inference)."""
    log = engine.inferred_log
    lines = ["# written by `agentcov explain --write`: what inference read, pinned "
             "(agentcov docs conventions)", "version: 1"]
    entries = pins.pinned(log) if log is not None else []
    if entries:
        lines.append("conventions:")
    for comment, entry in entries:
        lines += [f"  # {comment}", *_dump(entry)]
    return "\n".join(lines) + "\n"


def _inferred_lines(engine: CoverageEngine) -> list[str]:
    """What inference classified, its conflicts, and the entries that pin it."""
    log = engine.inferred_log
    inferred = engine.counters.inferred
    if log is None or not (inferred or log.conflicts):
        return []
    kinds: dict[str, int] = {}
    for key, n in inferred.items():
        kind = key.partition(".")[0]
        kinds[kind] = kinds.get(kind, 0) + n
    lines = [f"# inference classified {sum(kinds.values())} spans no convention entry matched "
             f"({' · '.join(f'{k} {n}' for k, n in kinds.items()) or 'none'}); the entries",
             "# below pin that reading: `agentcov explain --write agentcov.yaml` writes them as",
             "# a spec that loads as it is (agentcov docs conventions)."]
    for (scope, why), n in sorted(log.conflicts.items(), key=lambda p: -p[1])[:10]:
        lines.append(f"# left unclassified: {n} × scope {scope or '(none)'} · {why}")
    entries = pins.pinned(log)
    if entries:
        lines += ["version: 1", "conventions:"]
    for comment, entry in entries:
        lines += [f"  # {comment}", *_dump(entry)]
    return lines


def render(engine: CoverageEngine, inputs: Sequence[str], top: int) -> str:
    """The explanation of `inputs` as YAML: comments, what inference read and the entries that
    pin it, then a `conventions:` list to adapt for what is still unmatched."""
    stats = engine.span_stats()
    runs = sum(a.outcomes.runs for a in engine.state.agents.values())
    kinds = " · ".join(f"{k} {n}" for k, n in stats["by_kind"].items())
    unmatched = engine.unmatched
    shapes = unmatched.top(top) if unmatched is not None else []
    lines = [f"# {', '.join(inputs)}: {stats['processed']} spans ({kinds}), "
             f"{runs} agent run{'s' if runs != 1 else ''}"]
    inferred = _inferred_lines(engine)
    lines += inferred
    if unmatched is None or not shapes:
        if not inferred:
            lines.append("# every span matched a convention entry: nothing to map" if
                         stats["processed"] else "# no spans in these files")
        return "\n".join(lines) + "\n"
    lines += [f"# {unmatched.total} spans matched no convention entry and no inference; their "
              "commonest shapes",
              "# follow, with entries that would map them. Check each kind and field, narrow a",
              "# match by an attribute's value where one key tells kinds apart, then add the",
              "# entries to your spec's conventions: (agentcov docs conventions)."]
    if not any(line == "conventions:" for line in inferred):
        lines.append("conventions:")
    for group, entry in _suggestions(shapes):
        lines += _comment(group, guess_kind(group[0]))
        lines += _dump(entry)
    return "\n".join(lines) + "\n"


def hint(engine: CoverageEngine, traces: Sequence[str]) -> str:
    """What to add to "no agent runs found" when spans matched no convention, else ""."""
    unmatched = engine.unmatched
    if unmatched is None or not unmatched.total or not traces:
        return ""
    read = engine.span_stats()["processed"]
    return (f"; {unmatched.total} of {read} spans matched no convention: `agentcov explain "
            f"{' '.join(traces)}` shows their shapes and the conventions: entries that would "
            "map them (agentcov docs conventions)")
