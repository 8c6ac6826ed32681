"""Rewrite the generated parts of docs/*.md from the code (`make docs`), and link each page
into the package (otel_agentcov/docs/, what `agentcov docs` prints once installed).

A page keeps its hand-written prose; only the text between its `<!-- generated: NAME -->` and
`<!-- end generated: NAME -->` markers is replaced, so a reference that mirrors code (the CLI's
options) cannot drift from it. tests/test_docs.py fails when a committed page is stale.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import tomllib
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
if str(DOCS.parent) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(DOCS.parent))

from otel_agentcov.cli import build_parser  # noqa: E402
from otel_agentcov.exporters.families import FAMILIES  # noqa: E402
from otel_agentcov.snapshot import schema  # noqa: E402
from otel_agentcov.spec import SPEC_SCHEMA  # noqa: E402


def _cell(text: str) -> str:
    """Markdown table cell: pipes escaped, whitespace runs folded to one space."""
    return " ".join(text.split()).replace("|", "\\|")


def _value(action: argparse.Action) -> str:
    """What follows the option on the command line, as argparse's usage would name it."""
    if action.nargs == 0:
        return ""
    if action.choices is not None and action.metavar is None:
        name = "|".join(str(c) for c in action.choices)
    else:
        name = str(action.metavar or action.dest.upper())
    if action.nargs in ("+", "*"):
        return f"{name}…"
    if action.nargs == "?":
        return f"[{name}]"
    return name


def _default(action: argparse.Action) -> str:
    default = action.default
    if default is None or default is argparse.SUPPRESS or action.nargs == 0 or default == []:
        return ""
    if action.const is not None and action.nargs == "?":
        return f"off; {action.const} when given bare"
    return str(default)


def _rows(parser: argparse.ArgumentParser) -> Iterator[str]:
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]
        if not actions:
            continue
        if group.title not in ("positional arguments", "options", "optional arguments"):
            yield f"| **{_cell(group.title or '')}** | | |"
        for action in actions:
            names = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{_value(action)}`"
            value = f" `{_value(action)}`" if action.option_strings and _value(action) else ""
            required = " (required)" if action.required and action.option_strings else ""
            yield (f"| {_cell(names + value + required)} | {_cell(_default(action))} | "
                   f"{_cell(action.help or '')} |")


def cli_reference() -> str:
    """Every `agentcov` subcommand with its options, from the parser the CLI runs."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    out = ["`agentcov --version` prints the version; `agentcov COMMAND --help` prints the options "
           "below.", ""]
    for name, command in sub.choices.items():
        summary = helps.get(name, "")
        out += [f"### `agentcov {name}`", "", f"{summary[:1].upper()}{summary[1:]}."]
        if command.description:
            out += ["", " ".join(command.description.split())]
        out += ["", "| option | default | what it does |", "|---|---|---|", *_rows(command), ""]
    return "\n".join(out).rstrip("\n") + "\n"


# keys whose grammar has a page of its own: the reference stops there and links it
_OWN_PAGES = {"contracts": "contracts.md", "aliases": "contracts.md",
              "conventions": "conventions.md", "narrative": "narrative.md", "gate": "gate.md"}


_TYPE_WORDS = {"object": "a mapping", "array": "an array", "string": "a string",
               "integer": "a whole number", "number": "a number",
               "boolean": "`true` or `false`", "null": "`null`"}


def _accepts(schema: Mapping[str, Any]) -> str:
    """What a spec key accepts, in the words the spec's error messages use."""
    if "$ref" in schema:
        return "a tool selector (a name, a glob, an alias, or `{tool: …, args: {…}}`)"
    if "const" in schema:
        return f"`{schema['const']}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    types = schema.get("type", [])
    words = schema.get("description") or " or ".join(
        _TYPE_WORDS.get(t, t) for t in ([types] if isinstance(types, str) else types))
    if schema.get("minLength") == 1 and words == "a string":
        words = "a non-empty string"
    items = schema.get("items")
    if isinstance(items, Mapping) and "enum" in items:
        words += ", each one of " + ", ".join(f"`{v}`" for v in items["enum"])
    bounds = [f"{word} {schema[key]}" for key, word in (
        ("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("maxLength", "at most"))
        if key in schema]
    if "maxLength" in schema:
        bounds[-1] += " characters"
    return words + (f" ({', '.join(bounds)})" if bounds else "")


def _spec_rows(schema: Mapping[str, Any], path: str) -> Iterator[str]:
    required = set(schema.get("required", ()))
    for key, sub in schema.get("properties", {}).items():
        here = f"{path}.{key}" if path else key
        if key in _OWN_PAGES:
            page = _OWN_PAGES[key]
            yield f"| `{here}` | {_cell(_accepts(sub))}: see [{page}]({page}) |"
            continue
        note = " (required)" if key in required else ""
        yield f"| `{here}`{note} | {_cell(_accepts(sub))} |"
        items = sub.get("items") if sub.get("type") == "array" else None
        if isinstance(items, Mapping) and items.get("properties"):
            yield from _spec_rows(items, f"{here}[]")
        elif sub.get("properties") and key != "defaults":
            yield from _spec_rows(sub, here)


def spec_reference() -> str:
    """Every key `agentcov.yaml` accepts, from the JSON Schema the spec is validated against."""
    rows = "\n".join(_spec_rows(SPEC_SCHEMA, ""))
    return ("| key | accepts |\n|---|---|\n" + rows + "\n\n`defaults` takes every key an "
            "`agents[]` entry takes except `name`, and is merged into each entry.\n")


_SOURCES = {"agent": "per agent", "spans": "engine", "scrape": "scrape", "build": "endpoint",
            "service": "`agentcov serve`"}


def metrics_reference() -> str:
    """Every metric family, from the one table the exporters read."""
    rows = [
        f"| `{f.sample}` | {f.type} | `{f.unit}` | {', '.join(f'`{x}`' for x in f.labels)} | "
        f"{_SOURCES[f.source]} | {f'`{f.otlp}`' if f.otlp else ''} | {_cell(f.help)} |"
        for f in FAMILIES
    ]
    return ("| family | type | unit | labels | from | OTLP instrument | what it counts |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")


def _module(name: str) -> str:
    return f"`{name.removeprefix('otel_agentcov.')}`"


def layers_reference() -> str:
    """The import contracts `make lint` enforces (pyproject.toml), as a table per contract."""
    with open(DOCS.parent / "pyproject.toml", "rb") as fh:
        config = tomllib.load(fh)["tool"]["importlinter"]
    out: list[str] = []
    for contract in config["contracts"]:
        out += [f"**{contract['name']}** ({contract['type']})", ""]
        if contract["type"] == "layers":
            out += ["| layer, top first | modules |", "|---|---|"]
            for n, layer in enumerate(contract["layers"], 1):
                independent = "|" in layer or ":" not in layer
                parts = [m.strip() for m in layer.replace(":", "|").split("|")]
                note = "" if len(parts) == 1 else (
                    " (independent: none imports another)" if independent else
                    " (may import each other)")
                out.append(f"| {n} | {', '.join(_module(m) for m in parts)}{note} |")
        else:
            for key, value in contract.items():
                if key not in ("name", "type"):
                    shown = ", ".join(_module(v) for v in value) if isinstance(value, list) \
                        else f"`{value}`"
                    out.append(f"- {key.replace('_', ' ')}: {shown}")
        out.append("")
    return "\n".join(out)


_SCALARS = {int: "integer", float: "number", str: "string", bool: "boolean",
            type(None): "null"}


def _is_record(tp: Any) -> bool:
    return typing.is_typeddict(tp)


def _type_words(tp: Any) -> str:
    """A schema type in words: `list of string`, `number or null`, `one of tool, path, …`."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp in _SCALARS:
        return _SCALARS[tp]
    if _is_record(tp):
        return "object"
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_type_words(a) for a in args)
    if origin is list:
        return f"list of {_type_words(args[0])}"
    if origin is dict:
        return f"mapping of {_type_words(args[0])} to {_type_words(args[1])}"
    return str(tp)


def _comments(record: Any) -> dict[str, str]:
    """The trailing `# comment` of each field in the TypedDict's source, if any."""
    try:
        source = inspect.getsource(record)
    except (OSError, TypeError):  # functional-syntax TypedDicts have no class body
        return {}
    fields = re.finditer(r"^\s+(\w+): [^#\n]*#(.*)$", source, re.M)
    return {m.group(1): m.group(2).strip() for m in fields}


# what the keys of a mapping of records name, for the field paths
_KEY_NAMES = {"agents": "agent", "called": "tool", "by_test": "test"}


def _field_rows(record: Any, prefix: str) -> Iterator[str]:
    hints = typing.get_type_hints(record)
    notes = _comments(record)
    optional = record.__optional_keys__ if record.__total__ else frozenset()
    for key, tp in hints.items():
        path = f"{prefix}{key}"
        note = notes.get(key, "")
        if key in optional:
            note = "; ".join(n for n in ("not in every report", note) if n)
        yield f"| `{path}` | {_cell(_type_words(tp))} | {_cell(note)} |"
        inner = tp
        if typing.get_origin(tp) in (types.UnionType, typing.Union):  # X | None: X's fields
            inner = next(a for a in typing.get_args(tp) if a is not type(None))
        origin, args = typing.get_origin(inner), typing.get_args(inner)
        if _is_record(inner):
            yield from _field_rows(inner, f"{path}.")
        elif origin is list and _is_record(args[0]):
            yield from _field_rows(args[0], f"{path}[].")
        elif origin is dict and _is_record(args[1]):
            yield from _field_rows(args[1], f"{path}.<{_KEY_NAMES.get(key, 'key')}>.")


def report_reference() -> str:
    """Every field of the JSON report, from the TypedDicts the snapshot and its readers share."""
    head = ["| field | type | note |", "|---|---|---|"]
    agent = [*head, *_field_rows(schema.AgentReport, "")]
    report = [*head, *(r for r in _field_rows(schema.Report, "")
                       if not r.startswith("| `agents.<agent>."))]
    return ("Top level (`Report`):\n\n" + "\n".join(report) + "\n\nPer agent "
            "(`AgentReport`, under `agents.<agent>.`):\n\n" + "\n".join(agent) + "\n")


SECTIONS: dict[str, tuple[str, Callable[[], str]]] = {
    "report": ("report.md", report_reference),
    "layers": ("architecture.md", layers_reference),
    "cli": ("cli.md", cli_reference),
    "spec": ("spec.md", spec_reference),
    "metrics": ("metrics.md", metrics_reference),
}


def refreshed(text: str, name: str, body: str) -> str:
    """`text` with the block between NAME's markers replaced by `body`."""
    begin, end = f"<!-- generated: {name} -->\n", f"<!-- end generated: {name} -->"
    head, sep, rest = text.partition(begin)
    if not sep or end not in rest:
        raise SystemExit(f"docs: markers for {name!r} not found")
    return head + begin + body + end + rest.split(end, 1)[1]


def pages() -> dict[Path, str]:
    """Each page with generated sections, as it should read now."""
    out: dict[Path, str] = {}
    for name, (page, build) in SECTIONS.items():
        path = DOCS / page
        text = out.get(path, path.read_text(encoding="utf-8"))
        out[path] = refreshed(text, name, build())
    return out


PACKAGE_DOCS = DOCS.parent / "otel_agentcov" / "docs"


def package_links() -> dict[str, str]:
    """The package's link to each page (name -> target): the build copies each into the wheel
    as a file, and `agentcov docs TOPIC` reads it (otel_agentcov/manual.py)."""
    return {page.name: f"../../docs/{page.name}" for page in sorted(DOCS.glob("*.md"))}


def _link_pages() -> None:
    PACKAGE_DOCS.mkdir(exist_ok=True)
    links = package_links()
    for path in PACKAGE_DOCS.iterdir():
        if path.name not in links:
            path.unlink()
            print(f"removed {path.relative_to(DOCS.parent)}")
    for name, target in links.items():
        path = PACKAGE_DOCS / name
        if not (path.is_symlink() and str(path.readlink()) == target):
            path.unlink(missing_ok=True)
            path.symlink_to(target)
            print(f"linked {path.relative_to(DOCS.parent)}")


def main() -> int:
    for path, text in pages().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path.relative_to(DOCS.parent)}")
    _link_pages()
    return 0


if __name__ == "__main__":
    sys.exit(main())
