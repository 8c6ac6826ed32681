"""No user regex can freeze the judge (issue 29, item 4).

`(?i)(\\w+\\s*)+refund` on a 60-character answer took 15.5 s with Python `re` (exponential
backtracking: every split of the word is tried before giving up); in-process that blocked a
host's `span.end()` for 18 s. Every user regex now runs on RE2, whose matching is linear in
the text: the same pattern in every place a spec can put one (contract `output`/`input`,
`args`, narrative `claims`, JSON Schema `pattern`) decides at once. The bound asserted is
generous (whole seconds for a few dozen judgements that take microseconds each), not a
timing: with `re` even one of them takes 15 s. Constructs RE2 cannot run are refused at load.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from _contract_runs import judged, make_run

from otel_agentcov.spec import CoverageSpec, SpecError
from otel_agentcov.user_regex import compile_user_regex

EVIL = r"(?i)(\w+\s*)+refund"
ANSWER = "x" * 60 + "!"  # no "refund": a backtracking engine tries 2**59 splits first


def test_the_catastrophic_pattern_completes_in_every_place_a_spec_puts_one() -> None:
    contract: dict[str, Any] = {"name": "c", "must_not": [
        {"behavior": "out", "output": {"regex": EVIL}},
        {"behavior": "inp", "input": {"regex": EVIL}},
        {"behavior": "arg", "called": {"tool": "pay", "args": {"note": EVIL}}},
        {"behavior": "shape", "output": {"schema": {"type": "string", "pattern": EVIL}}},
    ]}
    run = make_run(("pay", {"note": ANSWER}), output=json.dumps(ANSWER), user_input=ANSWER)
    started = time.monotonic()
    for _ in range(10):
        v = judged(run, contract, narrative={"claims": {"issue_refund": [EVIL]}})
        assert [c.result for c in v.checks] == ["satisfied"] * 4  # nothing says "refund"
        assert v.narrative is not None and v.errors == 0
    assert time.monotonic() - started < 10  # 50 evaluations; with `re`, each one took ~15 s
    assert compile_user_regex(EVIL).search("I have refunded it") is not None  # still matches


@pytest.mark.parametrize(("place", "where"), [
    ({"contracts": [{"name": "c", "must": [{"behavior": "b", "output": {"regex": r"(a)\1"}}]}]},
     "contracts[0].must[0].output.regex: invalid regex: invalid escape sequence: \\1"),
    ({"contracts": [{"name": "c", "must": [{"behavior": "b", "called": {
        "tool": "pay", "args": {"amount": "^(?=1)"}}}]}]},
     "contracts[0].must[0].called.args.amount: invalid regex: invalid perl operator: (?="),
    ({"narrative": {"claims": {"issue_refund": ["refund(?! failed)"]}}},
     "narrative.claims.issue_refund[0]: not a valid regular expression: invalid perl "
     "operator: (?!"),
    ({"contracts": [{"name": "c", "must": [{"behavior": "b", "output": {"schema": {
        "properties": {"id": {"type": "string", "pattern": r"(\w)\1"}}}}}]}]},
     "contracts[0].must[0].output.schema.properties.id.pattern: invalid regex"),
    ({"contracts": [{"name": "c", "must": [{"behavior": "b", "input": {"schema": {
        "patternProperties": {"^a": {}}}}}]}]},
     "contracts[0].must[0].input.schema.patternProperties: patternProperties is not supported"),
    ({"expect": [{"target": "runs.count", "matcher": {"schema": {"pattern": "(?<=a)b"}}}]},
     "expect[0].matcher.schema.pattern: invalid regex"),
])
def test_constructs_re2_cannot_run_are_refused_in_one_line_naming_the_key(
        place: dict[str, Any], where: str) -> None:
    with pytest.raises(SpecError) as caught:
        CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", **place}]},
                               source="agentcov.yaml")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"agentcov.yaml: agents[0].{where}"), message
