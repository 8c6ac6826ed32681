"""The report's TypedDicts (snapshot/schema.py) match the reports the code writes: every key a
report holds is declared, every required key is there, every value has its declared type. mypy
checks the code against the schema; this checks the schema against real reports."""

from __future__ import annotations

import io
import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from otel_agentcov import demo
from otel_agentcov.snapshot.schema import Report

GOLDEN = Path(__file__).parent / "golden" / "reports.json"


def _problems(value: Any, kind: Any, where: str) -> list[str]:
    origin, args = get_origin(kind), get_args(kind)
    if origin is NotRequired:
        return _problems(value, args[0], where)
    if origin in (Union, types.UnionType):
        tried = [_problems(value, a, where) for a in args]
        return [] if any(not p for p in tried) else min(tried, key=len)
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} not one of {args}"]
    if kind is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if typing.is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{where}: expected an object"]
        hints = get_type_hints(kind, include_extras=True)
        out = [f"{where}.{k}: not declared" for k in value if k not in hints]
        out += [f"{where}.{k}: missing" for k in kind.__required_keys__ if k not in value]
        for key, sub in hints.items():
            if key in value:
                out += _problems(value[key], sub, f"{where}.{key}")
        return out
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected a list"]
        return [p for i, x in enumerate(value) for p in _problems(x, args[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected an object"]
        return [p for k, x in value.items() for p in _problems(x, args[1], f"{where}.{k}")]
    if kind is float:
        return [] if isinstance(value, int | float) and not isinstance(value, bool) else [
            f"{where}: {value!r} is not a number"]
    return [] if isinstance(value, kind) and not (kind is int and isinstance(value, bool)) else [
        f"{where}: {value!r} is not {kind.__name__}"]


def test_the_golden_and_demo_reports_match_the_schema() -> None:
    out = io.StringIO()
    demo.main(fmt="json", out=out)
    reports = {**json.loads(GOLDEN.read_text("utf-8")), "<demo>": json.loads(out.getvalue())}
    assert len(reports) > 20
    problems = [p for name, r in reports.items() for p in _problems(r, Report, name)]
    assert problems == []


def test_the_checker_finds_an_undeclared_key_a_missing_one_and_a_wrong_type() -> None:
    report: dict[str, Any] = {"version": 1, "agents": {}, "spans": {
        "processed": "3", "by_kind": {}, "dropped": {}, "extra": 1}}
    assert sorted(_problems(report, Report, "r")) == [
        "r.spans.extra: not declared", "r.spans.processed: '3' is not int"]
    del report["agents"]
    assert "r.agents: missing" in _problems(report, Report, "r")
