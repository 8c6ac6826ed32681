"""The schema walker (otel_agentcov/argschema.py): items of a schema corpus, counted by hand,
and which of them a call's arguments exercise (docs/report.md#argument-coverage)."""

from __future__ import annotations

from typing import Any

import pytest

from otel_agentcov.argschema import MAX_ITEMS, Item, seen_items, tool_items

# A tool schema with every construct the walker itemises: a required string, an optional enum,
# a boolean, a bounded integer, an array of enum strings, a nested object reached through
# `$ref` (into $defs) holding a required enum, and a oneOf of two object shapes.
SEARCH: dict[str, Any] = {
    "type": "object",
    "required": ["query", "filters"],
    "properties": {
        "query": {"type": "string"},
        "sort": {"enum": ["relevance", "date"]},
        "exact": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
        "filters": {"$ref": "#/$defs/Filters"},
        "target": {"oneOf": [
            {"type": "object", "required": ["url"], "properties": {"url": {"type": "string"}}},
            {"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}},
        ]},
    },
    "$defs": {
        "Filters": {"type": "object", "required": ["status"], "properties": {
            "status": {"enum": ["open", "closed"]},
            "owner": {"type": "string"},
        }},
    },
}

# By hand, in schema order:
#   query(required)                                      1
#   sort + sort="relevance", sort="date"                 3
#   exact + exact=true, exact=false                      3
#   limit + limit:minimum, limit:maximum                 3
#   tags + tags:empty, tags:non-empty, tags[]="a", "b"   5
#   filters(required) + filters.status(required)
#     + its 2 members + filters.owner                    5
#   target + oneOf[0] + target.url + oneOf[1] + .path    5
# total                                                 25
SEARCH_KEYS = [
    "query",
    "sort", 'sort="relevance"', 'sort="date"',
    "exact", "exact=true", "exact=false",
    "limit", "limit:minimum", "limit:maximum",
    "tags", "tags:empty", "tags:non-empty", 'tags[]="a"', 'tags[]="b"',
    "filters", "filters.status", 'filters.status="open"', 'filters.status="closed"',
    "filters.owner",
    "target", "target:oneOf[0]", "target.url", "target:oneOf[1]", "target.path",
]


def test_items_of_the_corpus_schema_in_order_counted_by_hand() -> None:
    found = tool_items(SEARCH)
    assert [i.key for i in found.items] == SEARCH_KEYS
    assert len(found.items) == 25 and found.overflow == 0
    required = {i.key for i in found.items if i.required}
    assert required == {"query", "filters", "filters.status"}


def test_a_call_exercises_the_items_its_arguments_hit() -> None:
    known = tool_items(SEARCH).keys
    args = {"query": "SECRET free text", "limit": 50, "exact": False, "tags": [],
            "filters": {"status": "closed", "owner": "SECRET owner"},
            "target": {"path": "/SECRET/path"}}
    seen = seen_items(SEARCH, args, known)
    # query; limit + at maximum; exact + false; tags + empty; filters, .status + "closed",
    # .owner; target + its second branch + target.path  -> 14 items
    assert seen == {
        "query", "limit", "limit:maximum", "exact", "exact=false", "tags", "tags:empty",
        "filters", "filters.status", 'filters.status="closed"', "filters.owner",
        "target", "target:oneOf[1]", "target.path",
    }
    assert not any("SECRET" in key for key in seen)


def test_values_outside_the_schema_leave_only_their_keys() -> None:
    known = tool_items(SEARCH).keys
    # an enum value not in the enum, a number between the bounds, an undeclared key, an
    # array element outside the element enum: only the parameters' own presence items remain
    args = {"sort": "SECRET-sort", "limit": 7, "SECRET_key": 1, "tags": ["SECRET"]}
    assert seen_items(SEARCH, args, known) == {"sort", "limit", "tags", "tags:non-empty"}


def test_anyof_records_every_branch_that_fits_and_oneof_the_first() -> None:
    # pydantic's Optional[int] with bounds: anyOf of [integer 0..9, null]
    schema = {"type": "object", "properties": {"n": {"anyOf": [
        {"type": "integer", "minimum": 0, "maximum": 9}, {"type": "null"}]}}}
    items = tool_items(schema)
    # n, n:anyOf[0], n:minimum, n:maximum, n:anyOf[1]  -> 5
    assert [i.key for i in items.items] == ["n", "n:anyOf[0]", "n:minimum", "n:maximum",
                                            "n:anyOf[1]"]
    assert seen_items(schema, {"n": None}, items.keys) == {"n", "n:anyOf[1]"}
    assert seen_items(schema, {"n": 0}, items.keys) == {"n", "n:anyOf[0]", "n:minimum"}
    # 12 is past the first branch's maximum and not null: no branch fits
    assert seen_items(schema, {"n": 12}, items.keys) == {"n"}


def test_booleans_are_not_numbers_and_numbers_are_not_booleans() -> None:
    schema = {"type": "object", "properties": {
        "flag": {"type": "boolean"}, "x": {"type": "number", "minimum": 1}}}
    known = tool_items(schema).keys
    assert seen_items(schema, {"flag": 1, "x": True}, known) == {"flag", "x"}
    assert seen_items(schema, {"flag": True, "x": 1.0}, known) == {
        "flag", "flag=true", "x", "x:minimum"}


def test_recursive_refs_and_arrays_of_objects_are_walked_to_a_bounded_depth() -> None:
    # a tree node refers to itself: the walk stops at MAX_DEPTH instead of looping
    schema = {"type": "object", "properties": {"root": {"$ref": "#/definitions/Node"}},
              "definitions": {"Node": {"type": "object", "properties": {
                  "name": {"type": "string"},
                  "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}}}}}
    keys = [i.key for i in tool_items(schema).items]
    assert keys[:6] == ["root", "root.name", "root.children", "root.children:empty",
                        "root.children:non-empty", "root.children[].name"]
    assert len(keys) < 40  # finite
    args = {"root": {"children": [{"name": "x"}]}}
    assert seen_items(schema, args, frozenset(keys)) == {
        "root", "root.children", "root.children:non-empty", "root.children[].name"}


def test_remote_refs_and_non_object_schemas_have_no_items() -> None:
    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
    assert [i.key for i in tool_items(remote).items] == ["a"]
    assert tool_items("not a schema").items == ()
    assert tool_items(None).items == ()
    assert seen_items(SEARCH, "not a mapping", tool_items(SEARCH).keys) == frozenset()


def test_items_past_the_cap_are_counted_not_kept() -> None:
    schema = {"type": "object",
              "properties": {f"p{i}": {"type": "boolean"} for i in range(100)}}
    found = tool_items(schema)
    # each boolean parameter is 3 items: 300 in all, MAX_ITEMS kept
    assert len(found.items) == MAX_ITEMS and found.overflow == 300 - MAX_ITEMS


@pytest.mark.parametrize("member", ["x" * 200, 12345, None])
def test_enum_members_are_clipped_json(member: Any) -> None:
    schema = {"type": "object", "properties": {"e": {"enum": [member]}}}
    key = tool_items(schema).items[1].key
    assert key.startswith("e=") and len(key) <= 2 + 64
    assert Item(key) in tool_items(schema).items
