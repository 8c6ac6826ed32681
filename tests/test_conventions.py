"""Spec `conventions:` map a vocabulary no built-in convention knows (docs/conventions.md).

The spans come from the real OpenTelemetry SDK, named and attributed the way an in-house tracer
would: without the spec's entries they are all `other` and no agent run comes out; with them the
report has the agents, tools (ok and error), models, tokens and hand-offs the spans carry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from _acme import SCOPE, acme_traffic
from _hooks import HOOKS
from _rule import Rule
from _table import Table
from jsonschema import Draft202012Validator
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import Classifier, classify
from otel_agentcov.semconv.builtin import FAMILIES, load
from otel_agentcov.semconv.convention import BUILTIN_ENTRY_SCHEMA, problems
from otel_agentcov.spec import CoverageSpec, SpecError

DOC = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"
DOC_SPECS = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```",
                                                            DOC.read_text("utf-8"), re.S)]
# The doc's in-house example: `acme.step` says what a span is, names live in its own keys.
CONVENTIONS: list[dict[str, Any]] = next(
    d["conventions"] for d in DOC_SPECS if "acme.route.to" in json.dumps(d)
)


def _spec(conventions: list[dict[str, Any]] | None) -> CoverageSpec:
    doc: dict[str, Any] = {"version": 1}
    if conventions is not None:
        doc["conventions"] = conventions
    return CoverageSpec.from_dict(doc)


def _report(spec: CoverageSpec) -> dict[str, Any]:
    processor = AgentCoverageProcessor(spec, flush_interval_s=3600.0)
    provider = TracerProvider(resource=Resource.create({"service.name": "acme-svc"}))
    provider.add_span_processor(processor)
    try:
        acme_traffic(provider.get_tracer(SCOPE))
        processor.force_flush()
        return processor.snapshot().to_dict()
    finally:
        provider.shutdown()


@pytest.fixture(scope="module")
def mapped() -> dict[str, Any]:
    return _report(_spec(CONVENTIONS))


def test_without_conventions_the_vocabulary_yields_no_agent_run() -> None:
    """With inference off: inference reads it (tests/test_inference.py)."""
    report = _report(_spec(None).without_inference())
    assert set(report["agents"]) <= {"acme-svc"}  # only the service-name fallback, if anything
    assert report["spans"]["by_kind"]["agent"] == 0 and report["spans"]["by_kind"]["tool"] == 0


def test_agents_tools_with_errors_models_and_tokens_come_from_the_spec(
    mapped: Mapping[str, Any],
) -> None:
    agents = mapped["agents"]
    assert set(agents) == {"triage", "billing"}
    triage = agents["triage"]
    assert triage["runs"]["count"] == 2
    assert triage["tools"]["called"] == {"lookup_order": {"ok": 1, "error": 1}}
    assert agents["billing"]["tools"]["called"] == {"refund": {"ok": 1, "error": 0}}
    assert triage["models"]["used"] == {"acme-large": 2}
    assert triage["boundaries"]["tool_failure"] is True
    assert triage["runs"]["tokens"]["mean"] == 17.0  # 12 in + 5 out per run


def test_handoff_target_comes_from_the_spec(mapped: Mapping[str, Any]) -> None:
    assert mapped["agents"]["triage"]["delegations"] == [
        {"from": "triage", "to": "billing", "count": 1}
    ]


def test_the_error_source_names_the_error_type() -> None:
    record = SpanRecord(1, 2, None, "tool:lookup_order", scope_name=SCOPE,
                        attributes={"acme.failure": "<class 'acme.errors.OrderMissing'>"})
    step = Classifier(CONVENTIONS).classify(record)
    assert (step.kind, step.tool, step.error) == ("tool", "lookup_order", "OrderMissing")


def test_spec_entries_are_tried_before_the_built_in_conventions() -> None:
    record = SpanRecord(1, 2, None, "chat gpt-4o", scope_name="acme.gateway",
                        attributes={"gen_ai.operation.name": "chat"})
    assert classify(record).kind == "llm"
    mine = [{"match": {"scope": "acme.gateway", "name": "chat *"}, "kind": "other"}]
    assert Classifier(mine).classify(record).kind == "other"
    # spans the spec's entries do not match still get the built-in conventions
    other = SpanRecord(1, 3, None, "chat gpt-4o", attributes={"gen_ai.operation.name": "chat"})
    assert Classifier(mine).classify(other).kind == "llm"


def test_json_quoted_values_are_decoded() -> None:
    """MLflow writes every attribute as JSON: `mlflow.spanType` is `"AGENT"` with the quotes."""
    entries = [
        {"match": {"attributes": {"mlflow.spanType": "AGENT"}}, "kind": "agent",
         "decode": "json", "name": {"span_name": r"(.+)"}},
        {"match": {"attributes": {"mlflow.spanType": "CHAT_MODEL"}}, "kind": "llm",
         "decode": "json", "model": "model_name",
         "tokens_in": {"attribute": "mlflow.chat.tokenUsage", "json_key": "input_tokens"}},
    ]
    agent = SpanRecord(1, 2, None, "planner", attributes={"mlflow.spanType": json.dumps("AGENT")})
    llm = SpanRecord(1, 3, 2, "ChatOpenAI", attributes={
        "mlflow.spanType": json.dumps("CHAT_MODEL"), "model_name": json.dumps("gpt-4o-mini"),
        "mlflow.chat.tokenUsage": json.dumps({"input_tokens": 31, "output_tokens": 4}),
    })
    classifier = Classifier(entries)
    assert (classifier.classify(agent).kind, classifier.classify(agent).agent) == (
        "agent", "planner")
    step = classifier.classify(llm)
    assert (step.kind, step.model, step.input_tokens) == ("llm", "gpt-4o-mini", 31)
    plain = [{**entries[0], "decode": None}]
    del plain[0]["decode"]
    # quoted: no match without decoding (the built-in MLflow table maps the span regardless)
    assert Table([Rule(plain[0])]).classify(agent, ()) is None


def test_conditions_present_absent_and_unless() -> None:
    entries = [{"match": {"attributes": {"x.kind": {"present": True}, "x.skip": {"absent": True}}},
                "unless": {"name": "internal*"}, "kind": "workflow"}]
    classifier = Classifier(entries)

    def kind(name: str, **attrs: Any) -> str:
        return classifier.classify(SpanRecord(1, 2, None, name, attributes=attrs)).kind

    assert kind("w", **{"x.kind": 1}) == "workflow"
    assert kind("w", **{"x.kind": 1, "x.skip": True}) == "other"
    assert kind("internal.step", **{"x.kind": 1}) == "other"
    assert kind("w") == "other"


@pytest.mark.parametrize(
    ("conventions", "where", "what"),
    [
        ([{"kind": "agent"}], "conventions[0].match", "required key is missing"),
        ([{"match": {"scope": "a"}, "kind": "robot"}], "conventions[0].kind", "expected one of"),
        ([{"match": {"scope": "a"}, "kind": "tool", "tool": {"span_name": "tool"}}],
         "conventions[0].tool.span_name", "exactly one capture group, got 0"),
        ([{"match": {"scope": "a"}, "kind": "tool", "tool": [{"span_name": "(a"}]}],
         "conventions[0].tool[0].span_name", "not a valid regular expression"),
        ([{"match": {"scope": "a"}, "kind": "agent", "nmae": "x"}],
         "conventions[0].nmae", "unknown key"),
        ([{"match": {}, "kind": "agent"}], "conventions[0].match", "expected a mapping with"),
        ([{"match": {"scope": "a"}, "kind": "tool", "tool": {"span_name": r"(\w)\1"}}],
         "conventions[0].tool.span_name", "RE2 runs no backreference"),
    ],
)
def test_bad_entries_are_refused_in_one_line(conventions: Any, where: str, what: str) -> None:
    with pytest.raises(SpecError) as refused:
        CoverageSpec.from_dict({"version": 1, "conventions": conventions}, "agentcov.yaml")
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"agentcov.yaml: {where}: "), message
    assert what in message, message


def test_classifying_with_many_scopes_keeps_the_scope_cache_bounded() -> None:
    """The reference table (the oracle the compiled core mirrors, same cap) keeps the first
    4096 scopes it sees and works out any later one each time. (Through `Classifier` the core
    classifies these spans, and the reference table's cache stays empty.)"""
    table = Table([Rule(e) for e in CONVENTIONS])
    for i in range(5000):
        assert table.classify(SpanRecord(1, 2, None, "x", scope_name=f"scope.{i}"), ()) is None
    assert len(table._by_scope) == 4096
    assert "scope.4095" in table._by_scope and "scope.4096" not in table._by_scope


@pytest.mark.parametrize("doc", DOC_SPECS, ids=range(len(DOC_SPECS)))
def test_every_example_in_the_docs_is_a_valid_spec(doc: dict[str, Any]) -> None:
    spec = CoverageSpec.from_dict(doc, "docs/conventions.md")
    assert len(spec.conventions) == len(doc["conventions"]) > 0  # every entry kept
    # a bare span (no scope, no attributes) is nothing any documented entry describes
    assert Classifier(spec.conventions).classify(SpanRecord(1, 2, None, "x")).kind == "other"


TABLES = Path(__file__).resolve().parents[1] / "otel_agentcov" / "semconv" / "tables"


def test_every_built_in_table_is_valid_data_with_known_code() -> None:
    """The tables are data a compiled core reads too: one schema, no unknown hooks."""
    assert sorted(FAMILIES) == sorted(p.stem for p in TABLES.glob("*.json"))
    validator = Draft202012Validator(BUILTIN_ENTRY_SCHEMA)
    used: set[str] = set()
    for family in FAMILIES:
        doc = load(family)
        assert set(doc) == {"family", "about", "entries"} and doc["family"] == family
        for i, entry in enumerate(doc["entries"]):
            errors = [e.message for e in validator.iter_errors(entry)]
            assert errors == [], (family, i, errors)
            assert list(problems(entry, [family, i])) == []
            if "code" in entry:
                assert entry["code"] in HOOKS, (family, i)
                assert entry["code"].split(".")[0] == family  # code is named after its family
                used.add(entry["code"])
    assert used == set(HOOKS)


def test_a_spec_entry_may_not_name_built_in_code() -> None:
    with pytest.raises(SpecError, match=r"conventions\[0\]\.code: unknown key"):
        CoverageSpec.from_dict({"version": 1, "conventions": [
            {"match": {"scope": "a"}, "kind": "agent", "code": "genai.agent"}]})


def test_a_spec_span_name_pattern_cannot_stall_classification() -> None:
    """Spec patterns run on RE2: `((?:a+)+)b` against a long name of `a`s backtracks for ages on
    Python's `re`; here it is linear, and simply does not match."""
    entries = [{"match": {"name": "a*"}, "kind": "tool", "tool": {"span_name": "((?:a+)+)b"}}]
    step = Classifier(entries).classify(SpanRecord(1, 2, None, "a" * 5000 + "c"))
    assert (step.kind, step.tool) == ("other", None)
    named = Classifier(entries).classify(SpanRecord(1, 2, None, "aab"))
    assert (named.kind, named.tool) == ("tool", "aa")
