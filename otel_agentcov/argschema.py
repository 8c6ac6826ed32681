"""Argument items of a tool's input schema, and which of them a call's arguments exercised
(docs/report.md#argument-coverage).

A schema becomes a bounded list of items: each parameter (nested objects as `a.b`, array
elements as `a[]`), each enum member (`a="x"`), each boolean (`a=true`, `a=false`), each
`oneOf`/`anyOf` branch (`a:oneOf[1]`), each array empty or not (`a:empty`, `a:non-empty`) and
each numeric bound (`a:minimum`, `a:maximum`). Every item is written from the schema alone, and
`seen` returns a subset of the schema's items: no argument value a caller passed can ever come
out of this module, only which schema-named items it hit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 8  # nesting walked (objects, arrays, branches, $ref hops): deeper is not itemised
MAX_ITEMS = 256  # items kept per tool; the rest are counted as `overflow`, never silently lost
MAX_NAME = 64  # characters of a property name or enum member in an item, clipped past it
_BRANCHES = ("oneOf", "anyOf")
_BOUNDS = ("minimum", "maximum")


@dataclass(frozen=True, slots=True)
class Item:
    """One thing a call can exercise; `required` only for a parameter its object requires."""

    key: str
    required: bool = False


@dataclass(frozen=True, slots=True)
class ToolItems:
    """A tool's items in schema order, and how many were past MAX_ITEMS (not itemised)."""

    items: tuple[Item, ...]
    overflow: int = 0
    keys: frozenset[str] = frozenset()  # the items' keys, for matching calls against


def _tool_items(items: tuple[Item, ...], overflow: int = 0) -> ToolItems:
    return ToolItems(items, overflow, frozenset(i.key for i in items))


def _clip(text: str) -> str:
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1] + "…"


def _member(value: Any) -> str:
    """An enum member as written in an item: its JSON form, clipped."""
    try:
        return _clip(json.dumps(value, sort_keys=True, ensure_ascii=False))
    except (TypeError, ValueError):
        return "?"


class _Walker:
    """One schema's $defs / definitions, for resolving local `$ref`s."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root

    def resolve(self, schema: Any, depth: int) -> Mapping[str, Any] | None:
        """`schema` with local `$ref`s followed (a bounded number of hops); None if unreadable."""
        for _ in range(MAX_DEPTH - depth + 1):
            if not isinstance(schema, Mapping):
                return None
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                return schema
            schema = self._target(ref)
        return None

    def _target(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            return None  # a remote schema is never fetched
        node: Any = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, Mapping) else None
        return node

    def items(self, schema: Any, path: str, depth: int, needed: bool = True) -> Iterator[Item]:
        """The items of a value at `path` (presence is its parent's business); `needed`: every
        valid call passes this value, so its required properties are required too."""
        node = self.resolve(schema, depth)
        if node is None or depth > MAX_DEPTH:
            return
        for member in node.get("enum", ()) if isinstance(node.get("enum"), list) else ():
            yield Item(f"{path}={_member(member)}")
        types = _types(node)
        if "boolean" in types and "enum" not in node:
            yield Item(f"{path}=true")
            yield Item(f"{path}=false")
        for bound in _BOUNDS:
            if isinstance(node.get(bound), (int, float)) and not isinstance(node[bound], bool):
                yield Item(f"{path}:{bound}")
        if "array" in types or "items" in node:
            yield Item(f"{path}:empty")
            yield Item(f"{path}:non-empty")
            yield from self.items(node.get("items"), f"{path}[]", depth + 1, False)
        yield from self.properties(node, path, depth, needed)
        for word in _BRANCHES:
            branches = node.get(word)
            if isinstance(branches, list):
                for i, branch in enumerate(branches):
                    yield Item(f"{path}:{word}[{i}]")
                    yield from self.items(branch, path, depth + 1, False)  # a branch may not be
        for part in node.get("allOf", ()) if isinstance(node.get("allOf"), list) else ():
            yield from self.items(part, path, depth + 1, needed)

    def properties(self, node: Mapping[str, Any], path: str, depth: int, needed: bool
                   ) -> Iterator[Item]:
        props = node.get("properties")
        if not isinstance(props, Mapping):
            return
        required = node.get("required")
        names = set(required) if needed and isinstance(required, list) else set()
        for name, sub in props.items():
            if not isinstance(name, str):
                continue
            here = f"{path}.{_clip(name)}" if path else _clip(name)
            yield Item(here, required=name in names)
            yield from self.items(sub, here, depth + 1, name in names)

    def seen(self, schema: Any, value: Any, path: str, depth: int) -> Iterator[str]:
        """Keys of the items `value` (at `path`) exercises; may name items not in the list
        (a deeper walk than `items` did): the caller intersects."""
        node = self.resolve(schema, depth)
        if node is None or depth > MAX_DEPTH:
            return
        enum = node.get("enum")
        if isinstance(enum, list) and any(_same(value, m) for m in enum):
            yield f"{path}={_member(value)}"
        if isinstance(value, bool):
            yield f"{path}={'true' if value else 'false'}"
        elif isinstance(value, (int, float)):
            for bound in _BOUNDS:
                limit = node.get(bound)
                if isinstance(limit, (int, float)) and not isinstance(limit, bool) \
                        and value == limit:
                    yield f"{path}:{bound}"
        if isinstance(value, list):
            yield f"{path}:{'non-empty' if value else 'empty'}"
            for element in value:
                yield from self.seen(node.get("items"), element, f"{path}[]", depth + 1)
        if isinstance(value, Mapping):
            props = node.get("properties")
            if isinstance(props, Mapping):
                for name, sub in value.items():
                    if isinstance(name, str) and name in props:
                        here = f"{path}.{_clip(name)}" if path else _clip(name)
                        yield here
                        yield from self.seen(props[name], sub, here, depth + 1)
        for word in _BRANCHES:
            branches = node.get(word)
            if isinstance(branches, list):
                for i, branch in enumerate(branches):
                    if self.matches(branch, value, depth + 1):
                        yield f"{path}:{word}[{i}]"
                        yield from self.seen(branch, value, path, depth + 1)
                        if word == "oneOf":
                            break  # the first that fits is the branch taken
        for part in node.get("allOf", ()) if isinstance(node.get("allOf"), list) else ():
            yield from self.seen(part, value, path, depth + 1)

    def matches(self, schema: Any, value: Any, depth: int) -> bool:
        """Whether `value` fits `schema` by the keywords that tell branches apart: type, enum,
        const, required, properties, bounds, items. Enough to say which branch a value took."""
        node = self.resolve(schema, depth)
        if node is None or depth > MAX_DEPTH:
            return False
        types = _types(node)
        if types and not any(_is(value, t) for t in types):
            return False
        if "const" in node and not _same(value, node["const"]):
            return False
        enum = node.get("enum")
        if isinstance(enum, list) and not any(_same(value, m) for m in enum):
            return False
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            low, high = node.get("minimum"), node.get("maximum")
            if isinstance(low, (int, float)) and value < low:
                return False
            if isinstance(high, (int, float)) and value > high:
                return False
        if isinstance(value, Mapping):
            required = node.get("required")
            if isinstance(required, list) and not all(k in value for k in required):
                return False
            props = node.get("properties")
            if isinstance(props, Mapping) and not all(
                self.matches(props[k], v, depth + 1) for k, v in value.items() if k in props
            ):
                return False
            if node.get("additionalProperties") is False and isinstance(props, Mapping) \
                    and not set(value) <= set(props):
                return False
        if isinstance(value, list) and "items" in node:
            if not all(self.matches(node["items"], v, depth + 1) for v in value):
                return False
        for word in _BRANCHES:
            branches = node.get(word)
            if isinstance(branches, list) and branches and not any(
                self.matches(b, value, depth + 1) for b in branches
            ):
                return False
        return True


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "number": (int, float), "integer": (int,), "null": (type(None),),
}


def _types(node: Mapping[str, Any]) -> tuple[str, ...]:
    declared = node.get("type")
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list):
        return tuple(t for t in declared if isinstance(t, str))
    return ()


def _is(value: Any, kind: str) -> bool:
    if kind in ("number", "integer") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, (object,)))


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `true` is not `1`."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def tool_items(schema: Any) -> ToolItems:
    """The argument items of a tool's input schema (an object schema; anything else has none).
    Duplicate keys (a property in two branches) count once."""
    if not isinstance(schema, Mapping):
        return _tool_items(())
    try:
        walker = _Walker(schema)
        unique: dict[str, Item] = {}
        for item in walker.items(schema, "", 0):
            old = unique.get(item.key)
            if old is None or (item.required and not old.required):
                unique[item.key] = item
    except RecursionError:
        return _tool_items(())
    items = tuple(unique.values())
    return _tool_items(items[:MAX_ITEMS], max(len(items) - MAX_ITEMS, 0))


def seen_items(schema: Any, arguments: Any, known: frozenset[str]) -> frozenset[str]:
    """The keys of `known` (the schema's items) that `arguments` exercised: always a subset of
    `known`, so nothing of the arguments but schema-named items leaves this function."""
    if not isinstance(schema, Mapping) or not isinstance(arguments, Mapping):
        return frozenset()
    try:
        found = frozenset(_Walker(schema).seen(schema, arguments, "", 0))
    except RecursionError:
        return frozenset()
    return found & known
