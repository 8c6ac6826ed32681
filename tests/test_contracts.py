"""Behaviour contracts (docs/contracts.md): every detector, both polarities, on hand-built runs.

Each expected verdict is worked out by hand from the detector's definition in docs/contracts.md; the
runs are built directly (tool calls in order, captured content or not), not recorded.
"""

from __future__ import annotations

from typing import Any

import pytest
from _contract_runs import NOT_CAPTURED, judged, make_run, shows
from _refund_policy import REFUND_POLICY

from otel_agentcov.judge import Verdicts, judge
from otel_agentcov.judge.matching import max_matching
from otel_agentcov.spec import CoverageSpec

# --- called ---


def test_called() -> None:
    run = make_run("search", "issue_refund")
    assert shows({"called": "issue_refund"}, run) == "yes"
    assert shows({"called": "delete_repo"}, run) == "no"
    assert shows({"called": "issue_*"}, run) == "yes"  # glob
    assert shows({"called": "delete_*"}, run) == "no"
    aliases = {"aliases": {"lookup": ["search", "search_web"]}}
    assert shows({"called": "lookup"}, run, **aliases) == "yes"
    assert shows({"called": "lookup"}, make_run("fetch"), **aliases) == "no"


def test_a_denied_request_is_not_a_call() -> None:
    assert shows({"called": "delete_repo"}, make_run("search", denied=["delete_repo"])) == "no"


# --- calls ---


def test_calls_counts_within_bounds() -> None:
    twice = make_run("issue_refund", "search", "issue_refund")
    assert shows({"calls": {"tool": "issue_refund", "max": 1}}, twice) == "no"
    assert shows({"calls": {"tool": "issue_refund", "max": 2}}, twice) == "yes"
    assert shows({"calls": {"tool": "issue_refund", "min": 3}}, twice) == "no"
    assert shows({"calls": {"tool": "issue_refund", "min": 2, "max": 2}}, twice) == "yes"
    # a cap alone holds vacuously on zero calls: not exercised, whatever the cap
    assert shows({"calls": {"tool": "issue_refund", "max": 0}}, make_run("search")) == "vacuous"
    assert shows({"calls": {"tool": "issue_refund", "max": 1}}, make_run("search")) == "vacuous"
    # with a minimum, zero calls is decided: within [0, 2] shown, below [1, 2] not
    assert shows({"calls": {"tool": "issue_refund", "min": 0, "max": 2}},
                 make_run("search")) == "vacuous"
    assert shows({"calls": {"tool": "issue_refund", "min": 1, "max": 2}},
                 make_run("search")) == "no"
    assert shows({"calls": {"tool": "issue_refund", "min": 1}}, make_run("search")) == "no"


# --- eventually ---


def test_eventually_within_the_first_n_calls() -> None:
    run = make_run("a", "b", "verify")
    assert shows({"eventually": {"tool": "verify", "within": 2}}, run) == "no"
    assert shows({"eventually": {"tool": "verify", "within": 3}}, run) == "yes"
    assert shows({"eventually": {"tool": "verify"}}, run) == "yes"
    assert shows({"eventually": {"tool": "verify"}}, make_run("a")) == "no"


# --- before ---


def test_before() -> None:
    rule = {"before": {"first": "verify_customer", "then": "issue_refund"}}
    assert shows(rule, make_run("verify_customer", "issue_refund")) == "yes"
    assert shows(rule, make_run("issue_refund", "verify_customer")) == "no"
    assert shows(rule, make_run("verify_customer", "issue_refund", "issue_refund")) == "yes"
    # the second refund has a verification before it, the first does not
    assert shows(rule, make_run("issue_refund", "verify_customer", "issue_refund")) == "no"
    # vacuous: `then` never called (`first` alone does not exercise it)
    assert shows(rule, make_run("search")) == "vacuous"
    assert shows(rule, make_run()) == "vacuous"
    assert shows(rule, make_run("verify_customer")) == "vacuous"


# --- after ---


def test_after_within() -> None:
    rule = {"after": {"trigger": "write_file", "then": "run_tests", "within": 1}}
    assert shows(rule, make_run("write_file", "run_tests")) == "yes"
    assert shows(rule, make_run("write_file", "lint", "run_tests")) == "no"
    wider = {"after": {"trigger": "write_file", "then": "run_tests", "within": 2}}
    assert shows(wider, make_run("write_file", "lint", "run_tests")) == "yes"
    # every trigger needs its own follow-up: the last write is never tested
    assert shows(wider, make_run("write_file", "run_tests", "write_file")) == "no"
    # vacuous: no trigger (`then` alone does not exercise it)
    assert shows(rule, make_run("lint")) == "vacuous"
    assert shows(rule, make_run("run_tests")) == "vacuous"
    # a `then` before the trigger does not count
    assert shows(rule, make_run("run_tests", "write_file")) == "no"


# --- sequence ---


def test_sequence_loose_and_strict() -> None:
    loose = {"sequence": {"tools": ["read_secrets", "http_*"]}}
    strict = {"sequence": {"tools": ["read_secrets", "http_*"], "strict": True}}
    run = make_run("read_secrets", "log", "http_post")
    assert shows(loose, run) == "yes"
    assert shows(strict, run) == "no"
    assert shows(strict, make_run("log", "read_secrets", "http_post")) == "yes"
    assert shows(loose, make_run("http_post", "read_secrets")) == "no"


# --- trajectory ---


@pytest.mark.parametrize(
    ("mode", "calls", "reference", "expected"),
    [
        ("exact", ["a", "b"], ["a", "b"], "yes"),
        ("exact", ["a", "b", "c"], ["a", "b"], "no"),
        ("exact", ["b", "a"], ["a", "b"], "no"),
        ("in_order", ["a", "x", "b"], ["a", "b"], "yes"),
        ("in_order", ["b", "a"], ["a", "b"], "no"),
        ("same_tools", ["b", "a"], ["a", "b"], "yes"),
        ("same_tools", ["a", "a", "b"], ["a", "b"], "no"),
        ("same_tools", ["a", "b"], ["a", "a"], "no"),
        ("contains", ["a", "b", "c"], ["c", "a"], "yes"),
        ("contains", ["a", "b"], ["a", "a"], "no"),  # two reference calls need two run calls
        ("only", ["a", "a"], ["a", "b", "a"], "yes"),
        ("only", ["a", "c"], ["a", "b"], "no"),
        ("only", ["a", "a", "a"], ["a", "a"], "no"),
    ],
)
def test_trajectory_modes(mode: str, calls: list[str], reference: list[str], expected: str
                          ) -> None:
    rule = {"trajectory": {"tools": reference, "mode": mode}}
    assert shows(rule, make_run(*calls)) == expected


def _greedy_first_fit(run: list[str], reference: list[str]) -> int:
    """What a greedy matcher does: each reference entry takes the first free call it fits."""
    import fnmatch

    used: set[int] = set()
    for pattern in reference:
        for i, call in enumerate(run):
            if i not in used and fnmatch.fnmatchcase(call, pattern):
                used.add(i)
                break
    return len(used)


@pytest.mark.parametrize("mode", ["same_tools", "contains", "only"])
def test_greedy_trap(mode: str) -> None:
    """`search_*` fits both calls, `search_web` only the first. Greedy pairs `search_*` with
    search_web and strands `search_web`; the optimal matching pairs search_* with search_kb."""
    calls, reference = ["search_web", "search_kb"], ["search_*", "search_web"]
    assert _greedy_first_fit(calls, reference) == 1  # the trap is real: greedy finds 1 of 2
    assert shows({"trajectory": {"tools": reference, "mode": mode}}, make_run(*calls)) == "yes"


def test_max_matching_by_enumeration() -> None:
    """The matcher against brute force over every injective assignment of small graphs."""
    import itertools
    import random

    rng = random.Random(5)
    for _ in range(300):
        left, right = rng.randint(0, 4), rng.randint(0, 4)
        adj = [[r for r in range(right) if rng.random() < 0.4] for _ in range(left)]
        best = 0
        for size in range(min(left, right), 0, -1):
            for lefts in itertools.combinations(range(left), size):
                if any(all(r in adj[lv] for lv, r in zip(lefts, perm, strict=True))
                       for perm in itertools.permutations(range(right), size)):
                    best = size
                    break
            if best:
                break
        assert max_matching(adj, right) == best


# --- delegated ---


def test_delegated() -> None:
    run = make_run(delegations=[("a", "billing_agent")])
    assert shows({"delegated": "billing_agent"}, run) == "yes"
    assert shows({"delegated": "fraud_agent"}, run) == "no"


# --- output / input ---


def test_output_contains_regex_schema() -> None:
    run = make_run(output="Sorry for the wait; your refund of 20 EUR is on its way.")
    assert shows({"output": {"contains": "refund"}}, run) == "yes"
    assert shows({"output": {"contains": "Refund"}}, run) == "no"  # case-sensitive
    assert shows({"output": {"regex": "(?i)sorry|apolog"}}, run) == "yes"
    assert shows({"output": {"regex": "ACCT-[0-9]{8}"}}, run) == "no"
    schema = {"output": {"schema": {"type": "object", "required": ["status"]}}}
    assert shows(schema, make_run(output='{"status": "ok"}')) == "yes"
    assert shows(schema, make_run(output='{"state": "ok"}')) == "no"
    assert shows(schema, run) == "no"  # not JSON at all


def test_input_detectors() -> None:
    run = make_run(user_input="please refund order 42")
    assert shows({"input": {"contains": "refund"}}, run) == "yes"
    assert shows({"input": {"regex": "^$"}}, run) == "no"
    assert shows({"input": {"regex": "^$"}}, make_run(user_input="")) == "yes"


def test_uncaptured_text_is_unknown_never_violated() -> None:
    for run in (make_run("a"), make_run("a", content=False)):  # no output / no content at all
        for rule in ({"output": {"contains": "x"}}, {"input": {"regex": "x"}},
                     {"output": {"schema": {"type": "object"}}}):
            v = judged(run, {"name": "c", "must": [{"behavior": "m", **rule}],
                             "must_not": [{"behavior": "n", **rule}]})
            assert [c.result for c in v.checks] == ["unknown", "unknown"]
            assert not v.fails_run


# --- argument selectors ---


def test_args_selector() -> None:
    rule = {"called": {"tool": "issue_refund", "args": {"amount": "^[0-9]{1,3}$"}}}
    assert shows(rule, make_run(("issue_refund", {"amount": 50}))) == "yes"
    # a number is matched in its JSON text form: 5000 -> "5000", four digits
    assert shows(rule, make_run(("issue_refund", {"amount": 5000}))) == "no"
    assert shows(rule, make_run(("issue_refund", {"amount": "75"}))) == "yes"
    assert shows(rule, make_run(("issue_refund", {"currency": "EUR"}))) == "no"  # missing arg
    assert shows(rule, make_run(("issue_refund", NOT_CAPTURED))) == "unknown"
    # one call decides it even though another's arguments were not captured
    both = make_run(("issue_refund", NOT_CAPTURED), ("issue_refund", {"amount": 5}))
    assert shows(rule, both) == "yes"
    # an alias inside an argument selector
    aliased = {"called": {"tool": "refund", "args": {"amount": "^5$"}}}
    assert shows(aliased, make_run(("issue_refund", {"amount": 5})),
                 aliases={"refund": ["issue_refund", "refund_order"]}) == "yes"


def test_unknown_arguments_in_counts_and_orderings() -> None:
    big = {"tool": "issue_refund", "args": {"amount": "^[0-9]{4,}$"}}
    runs = make_run(("issue_refund", NOT_CAPTURED), ("issue_refund", {"amount": 9000}))
    # one certain big refund, one that may be: the count is 1 or 2
    assert shows({"calls": {"tool": big, "max": 1}}, runs) == "unknown"
    assert shows({"calls": {"tool": big, "max": 2}}, runs) == "yes"
    assert shows({"calls": {"tool": big, "min": 3}}, runs) == "no"
    rule = {"before": {"first": "approve", "then": big}}
    assert shows(rule, make_run(("issue_refund", NOT_CAPTURED), "approve")) == "unknown"
    # satisfied if that refund was big, vacuous if not: which one cannot be told
    assert shows(rule, make_run("approve", ("issue_refund", NOT_CAPTURED))) == "unknown"
    assert shows(rule, make_run(("issue_refund", {"amount": 9000}), "approve")) == "no"
    assert shows(rule, make_run(("issue_refund", {"amount": 10}), "approve")) == "vacuous"
    assert shows(rule, make_run("approve", ("issue_refund", {"amount": 9000}))) == "yes"


# --- when, severities, no short-circuit, shorthand ---




def results(v: Verdicts) -> dict[str, str]:
    return {c.behavior: c.result for c in v.checks}


def test_when_not_shown_leaves_every_behaviour_not_exercised() -> None:
    v = judged(make_run("search"), REFUND_POLICY)
    assert len(v.checks) == 5 and not v.fails_run
    assert set(results(v).values()) == {"not_exercised"}


def test_refund_policy_every_behaviour_evaluated() -> None:
    run = make_run("issue_refund", "verify_customer", "issue_refund",
                   output="Done. Account ACCT-12345678 refunded.")
    v = judged(run, REFUND_POLICY)
    assert results(v) == {
        "verifies_identity": "violated",  # the first refund came before verification
        "one_refund": "violated",
        "apologises": "violated",
        "exfiltration": "satisfied",
        "leaks_account_ids": "violated",
    }
    assert v.fails_run
    failing = {c.behavior for c in v.checks if c.fails_run}
    assert failing == {"verifies_identity", "one_refund", "leaks_account_ids"}  # not low


def test_fail_on_threshold() -> None:
    low_only = dict(REFUND_POLICY, must=[REFUND_POLICY["must"][2]], must_not=[])
    run = make_run("issue_refund", output="Refund issued.")
    assert results(judged(run, low_only)) == {"apologises": "violated"}
    assert not judged(run, low_only).fails_run  # low < fail_on high
    assert judged(run, dict(low_only, fail_on="low")).fails_run


def test_when_unknown_records_every_behaviour_unknown() -> None:
    contract = dict(REFUND_POLICY, when={"called": {"tool": "issue_refund",
                                                    "args": {"amount": "."}}})
    v = judged(make_run(("issue_refund", NOT_CAPTURED)), contract)
    assert set(results(v).values()) == {"unknown"} and len(v.checks) == 5
    assert not v.fails_run


def test_must_call_shorthand_goes_through_the_same_evaluator() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "a", "contract": {"must_call": ["search", "summarize"]}}]})
    v = judge(make_run("search"), spec.for_agent("a").checks)
    assert v.fails_run
    assert [(c.contract, c.behavior, c.result) for c in v.checks] == [
        ("must_call", "called:search", "satisfied"),
        ("must_call", "called:summarize", "violated"),
    ]
    assert not judge(make_run("summarize", "search"), spec.for_agent("a").checks).fails_run


# --- spec validation: one line naming the file, the path inside it and what was expected ---


def _error(contract: dict[str, Any], **entry: Any) -> str:
    from otel_agentcov.spec import SpecError

    with pytest.raises(SpecError) as info:
        CoverageSpec.from_dict(
            {"version": 1, "agents": [{"name": "a", "contracts": [contract], **entry}]},
            "agentcov.yaml",
        )
    message = str(info.value)
    assert "\n" not in message
    return message


def test_spec_errors() -> None:
    at = "agentcov.yaml: agents[0].contracts[0]"
    assert _error({"name": "c", "must": [{"behavior": "x", "sometimes": "t"}]}) == (
        f"{at}.must[0].sometimes: unknown key; expected one of: behavior, severity, called, "
        "calls, eventually, before, after, sequence, trajectory, allowed_only, delegated, output, "
        "input")
    assert _error({"name": "c", "must_not": [
        {"behavior": "x", "called": "t", "calls": {"tool": "t", "max": 1}}]}) == (
        f"{at}.must_not[0]: expected exactly one detector (called, calls, eventually, before, "
        "after, sequence, trajectory, allowed_only, delegated, output, input); got called, calls")
    assert _error({"name": "c", "must": [{"behavior": "x", "output": {"regex": "(ACCT"}}]}) \
        .startswith(f"{at}.must[0].output.regex: invalid regex: missing )")
    assert _error({"name": "c", "must": [
        {"behavior": "x", "called": {"tool": "t", "args": {"amount": "[0-"}}}]}) \
        .startswith(f"{at}.must[0].called.args.amount: invalid regex:")
    assert _error({"name": "c", "must": [
        {"behavior": "x", "output": {"schema": {"type": "nope"}}}]}) \
        .startswith(f"{at}.must[0].output.schema: invalid JSON Schema:")
    assert _error({"name": "c", "must": [{"behavior": "x", "called": "t", "severity": "urgent"}]}
                  ) == (f"{at}.must[0].severity: expected one of: low, medium, high, critical; "
                        "got 'urgent'")
    assert _error({"name": "c", "fail_on": "urgent"}) == (
        f"{at}.fail_on: expected one of: low, medium, high, critical; got 'urgent'")
    assert _error({"name": "c", "must": [{"behavior": "x", "calls": {"tool": "t", "min": 2,
                                                                     "max": 1}}]}) == (
        f"{at}.must[0].calls.max: expected max >= min (2), got 1")
    assert _error({"name": "c", "must": [
        {"behavior": "x", "trajectory": {"tools": ["a"], "mode": "fuzzy"}}]}) == (
        f"{at}.must[0].trajectory.mode: expected one of: exact, in_order, same_tools, contains, "
        "only; got 'fuzzy'")
    assert _error({"name": "c", "must": [{"behavior": "x", "called": "t"},
                                         {"behavior": "x", "called": "u"}]}) == (
        f"{at}.must[1].behavior: duplicate behavior name 'x' (first at must[0])")


def test_needs_content_only_with_content_detectors() -> None:
    def spec(*behaviours: dict[str, Any]) -> CoverageSpec:
        return CoverageSpec.from_dict({"version": 1, "agents": [
            {"name": "a", "contracts": [{"name": "c", "must": list(behaviours)}]}]})

    assert not spec({"behavior": "x", "called": "t"}).needs_content
    assert not spec({"behavior": "x", "trajectory": {"tools": ["a", "b*"]}}).needs_content
    assert spec({"behavior": "x", "output": {"contains": "t"}}).needs_content
    assert spec({"behavior": "x", "input": {"contains": "t"}}).needs_content
    assert spec({"behavior": "x", "sequence": {"tools": [
        "a", {"tool": "b", "args": {"k": "v"}}]}}).needs_content
    assert not CoverageSpec.from_dict({"version": 1}).needs_content


def test_names_are_bounded_label_values() -> None:
    long = "x" * 257
    assert _error({"name": long}) == (
        "agentcov.yaml: agents[0].contracts[0].name: expected at most 256 characters, got 257")
    assert _error({"name": "c", "must": [{"behavior": long, "called": "t"}]}).endswith(
        ".must[0].behavior: expected at most 256 characters, got 257")


def test_documented_examples_are_valid_specs(tmp_path: Any) -> None:
    """docs/contracts.md's refund policy and examples load as they are written."""
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parent.parent
    docs = (root / "docs" / "contracts.md").read_text(encoding="utf-8")
    refund = docs.split("## An example: a refund policy", 1)[1]
    block = refund.split("```yaml\n", 1)[1].split("```")[0]
    path = tmp_path / "agentcov.yaml"
    path.write_text(block, encoding="utf-8")
    spec = CoverageSpec.from_yaml(path)
    assert [c.name for c in spec.for_agent("support").contracts] == ["refund_policy"]
    assert spec.needs_content
    example = docs.split("## Examples", 1)[1].split("```yaml\n", 1)[1].split("```")[0]
    entry = yaml.safe_load(example)
    loaded = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", **entry}]})
    assert [c.name for c in loaded.for_agent("a").contracts] == ["safety", "workflow", "answer"]


def test_output_schema_refs_must_be_local() -> None:
    assert _error({"name": "c", "must": [{"behavior": "x", "output": {"schema": {
        "$ref": "https://example.com/s.json"}}}]}).startswith(
        "agentcov.yaml: agents[0].contracts[0].must[0].output.schema.$ref: $ref "
        "'https://example.com/s.json' is not local to the schema")


def test_gate_violation_lines_escape_names_from_traces() -> None:
    """An agent name is whatever a span said: it cannot start a line (a CI command) of its own."""
    from otel_agentcov.gate import contract_violations

    row = {"contract": "c", "behavior": "b", "kind": "must", "severity": "high", "satisfied": 1,
           "violated": 1, "unknown": 0, "not_exercised": 0, "violation_rate": 0.5,
           "violation_rate_ci95": [0.0945, 0.9055]}
    text = contract_violations({"agents": {"evil\n::error::pwned": {"contracts": [row]}}})
    assert text == ("contract violated: evil\\n::error::pwned: c.b (high, must) in 1 run of 2 "
                    "decided, rate 50% [9%, 91%]\n")


def test_a_behaviour_never_decided_passes_no_violation_target() -> None:
    """0 violations of a check that only ever saw uncaptured content is no evidence: the
    `contracts.violations*` targets are n/a (which no gate passes) until one run decides it."""
    from otel_agentcov.snapshot import compute_snapshot
    from otel_agentcov.state import CoverageState

    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [{
        "name": "c", "must_not": [{"behavior": "leaks", "output": {"regex": "ACCT-[0-9]+"},
                                   "severity": "critical"}],
    }]}]})
    state = CoverageState()
    aspec = spec.for_agent("a")
    for _ in range(3):
        run = make_run("search", content=False)
        state.update(run, aspec, judge(run, aspec.checks))
    expect = {e["target"]: e for e in compute_snapshot(state, spec).agents["a"]["expect"]}
    gate = expect["contracts.violations_at_or_above_fail_on"]
    assert gate["value"] is None and not gate["passed"]
    decided = make_run("search", output="all done")
    state.update(decided, aspec, judge(decided, aspec.checks))
    expect = {e["target"]: e for e in compute_snapshot(state, spec).agents["a"]["expect"]}
    assert expect["contracts.violations_at_or_above_fail_on"]["value"] == 0
    assert expect["contracts.violations_at_or_above_fail_on"]["passed"]


# --- an uncaptured call: unknown exactly when it decides the rule, for every rule kind ---

EVIL = {"tool": "http_post", "args": {"url": "evil"}}  # searched in the argument's JSON text


@pytest.mark.parametrize(
    ("rule", "calls", "if_match", "if_not"),
    [
        ({"called": EVIL}, ["read_secrets", "HTTP"], "yes", "no"),
        ({"calls": {"tool": EVIL, "max": 0}}, ["HTTP"], "no", "vacuous"),
        ({"calls": {"tool": EVIL, "min": 1, "max": 1}}, ["HTTP", "log"], "yes", "no"),
        ({"eventually": {"tool": EVIL, "within": 1}}, ["HTTP", "log"], "yes", "no"),
        ({"before": {"first": "approve", "then": EVIL}}, ["HTTP", "approve"], "no", "vacuous"),
        ({"after": {"trigger": EVIL, "then": "audit"}}, ["HTTP"], "no", "vacuous"),
        # a later evil call with no audit after it fails the rule whatever the first one was
        ({"after": {"trigger": EVIL, "then": "audit"}},
         ["HTTP", ("http_post", {"url": "evil.example"})], "no", "no"),
        ({"sequence": {"tools": ["read_secrets", EVIL]}}, ["read_secrets", "log", "HTTP"],
         "yes", "no"),
        ({"sequence": {"tools": ["read_secrets", EVIL], "strict": True}},
         ["read_secrets", "HTTP"], "yes", "no"),
        # no completion of the unknown shows it: decided although an argument is missing
        ({"sequence": {"tools": ["read_secrets", EVIL]}}, ["HTTP", "read_secrets"], "no", "no"),
        ({"sequence": {"tools": [EVIL]}}, ["HTTP", ("http_post", {"url": "evil.example"})],
         "yes", "yes"),
        ({"trajectory": {"tools": ["read_secrets", EVIL]}}, ["read_secrets", "HTTP"],
         "yes", "no"),
        ({"trajectory": {"tools": [["read_secrets"], [EVIL]]}}, ["read_secrets", "HTTP"],
         "yes", "no"),
        ({"trajectory": {"tools": ["read_secrets", EVIL], "mode": "in_order"}},
         ["read_secrets", "log", "HTTP"], "yes", "no"),
        ({"trajectory": {"tools": ["read_secrets", EVIL], "mode": "same_tools"}},
         ["HTTP", "read_secrets"], "yes", "no"),
        ({"trajectory": {"tools": [EVIL], "mode": "contains"}}, ["read_secrets", "HTTP"],
         "yes", "no"),
        ({"trajectory": {"tools": ["read_secrets", EVIL], "mode": "only"}}, ["HTTP"],
         "yes", "no"),
        ({"trajectory": {"tools": ["read_secrets", EVIL]}}, ["HTTP", "read_secrets"],
         "no", "no"),
        ({"allowed_only": ["read_secrets", EVIL]}, ["read_secrets", "HTTP"], "yes", "no"),
    ],
)
def test_an_uncaptured_call_is_unknown_exactly_when_it_decides_the_rule(
    rule: dict[str, Any], calls: list[Any], if_match: str, if_not: str
) -> None:
    """docs/contracts.md: arguments not captured make a verdict unknown, never satisfied nor
    violated, unless every way the arguments could have been decides it the same."""

    def run(args: Any) -> Any:
        return make_run(*(("http_post", args) if c == "HTTP" else c for c in calls))

    assert shows(rule, run({"url": "https://evil.example"})) == if_match
    assert shows(rule, run({"url": "https://docs.example"})) == if_not
    assert shows(rule, run(NOT_CAPTURED)) == (if_match if if_match == if_not else "unknown")


def test_an_exact_trajectory_with_one_extra_turn_is_violated_without_an_error() -> None:
    for reference in (["a", "b"], [["a"], ["b"]]):
        contract = {"name": "c", "must": [{"behavior": "m", "trajectory": {"tools": reference}}]}
        for calls in (("a", "b", "c"), ("a",), ("a", "b", "a")):
            v = judged(make_run(*calls), contract)
            assert (results(v), v.errors) == ({"m": "violated"}, 0), (reference, calls)
        v = judged(make_run("a", "b"), contract)
        assert (results(v), v.errors) == ({"m": "satisfied"}, 0)


def test_compiled_contracts_are_immutable_values() -> None:
    """One compiled spec is shared by every thread that judges runs: no detector can be changed
    in place, and each is a value (equal when built equal, usable as a key)."""
    import dataclasses

    from otel_agentcov.contract_spec import build_contracts

    rules: list[dict[str, Any]] = [
        {"called": "a"}, {"calls": {"tool": "a", "max": 1}}, {"eventually": {"tool": "a"}},
        {"before": {"first": "a", "then": "b"}}, {"after": {"trigger": "a", "then": "b"}},
        {"sequence": {"tools": ["a", "b"]}}, {"trajectory": {"tools": ["a", ["b"]]}},
        {"allowed_only": ["a"]}, {"delegated": "sub"}, {"output": {"contains": "x"}},
    ]
    entry = {"contracts": [{"name": "c", "must": [
        {"behavior": f"r{i}", **rule} for i, rule in enumerate(rules)]}]}
    [contract] = build_contracts(entry)
    assert build_contracts(entry) == (contract,)
    objects = [contract, *contract.behaviours, *(b.detector for b in contract.behaviours)]
    assert len(objects) == 1 + 2 * len(rules)
    for obj in objects:
        field = dataclasses.fields(obj)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, None)
    assert len({b.detector for b in contract.behaviours}) == len(rules)
