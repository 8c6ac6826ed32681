"""Two recorded stacks mapped by a spec's `conventions:` section alone (docs/conventions.md):
MLflow's `@mlflow.trace` export and the Langfuse SDK's `@observe`. The sections below are what a
user of those stacks would write; replaying the real fixtures with them must give the same
coverage as the hand-written expectations, and every agent, model and tool span must be one the
section's own entries match (so the result owes nothing to the built-in tables, which map these
stacks too).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from _rule import Rule
from _table import Table
from fixture_expectations import EXPECTED, FIXTURES, replay

from otel_agentcov.readers.otlp import records_from_json

SECTIONS = {
    "mlflow_trace": """
conventions:
  - match: {attributes: {mlflow.spanType: AGENT}}
    decode: json
    kind: agent
  - match: {attributes: {mlflow.spanType: [CHAT_MODEL, LLM]}}
    decode: json
    kind: llm
    model: [mlflow.llm.model, model]     # a failed call has only the request's model
    tokens_in: {attribute: mlflow.chat.tokenUsage, json_key: input_tokens}
    tokens_out: {attribute: mlflow.chat.tokenUsage, json_key: output_tokens}
  - match: {attributes: {mlflow.spanType: TOOL}}
    decode: json
    kind: tool
""",
    "langfuse_observe": """
conventions:
  - match: {scope: langfuse-sdk, attributes: {langfuse.observation.type: agent}}
    kind: agent
  - match: {scope: langfuse-sdk, attributes: {langfuse.observation.type: generation}}
    kind: llm
    model: langfuse.observation.model.name
    tokens_in: {attribute: langfuse.observation.usage_details, json_key: prompt_tokens}
    tokens_out: {attribute: langfuse.observation.usage_details, json_key: completion_tokens}
  - match: {scope: langfuse-sdk, attributes: {langfuse.observation.type: tool}}
    kind: tool
""",
}
# what marks the spans the section must map, per stack
KIND_KEYS = {"mlflow_trace": "mlflow.spanType", "langfuse_observe": "langfuse.observation.type"}
MAPPED = {'"AGENT"': "agent", '"CHAT_MODEL"': "llm", '"TOOL"': "tool",
          "agent": "agent", "generation": "llm", "tool": "tool"}
CASES = [(lib, name) for lib in SECTIONS for name in EXPECTED[lib]]


def _spec(library: str, scenario: str) -> dict[str, Any]:
    section = yaml.safe_load(SECTIONS[library])
    return {"version": 1, **section, **(EXPECTED[library][scenario].spec or {})}


@pytest.mark.parametrize(("library", "scenario"), CASES, ids=[f"{a}/{b}" for a, b in CASES])
def test_a_conventions_section_alone_maps_the_stack(library: str, scenario: str) -> None:
    expected = EXPECTED[library][scenario]
    agents, errors, in_flight = replay(library, scenario, _spec(library, scenario))
    assert in_flight == expected.open_traces
    assert agents == expected.agents
    assert errors == expected.error_types


@pytest.mark.parametrize("library", list(SECTIONS))
def test_the_section_is_what_matched_every_agent_model_and_tool_span(library: str) -> None:
    table = Table([Rule(e) for e in yaml.safe_load(SECTIONS[library])["conventions"]])
    kinds: set[str] = set()
    for path in sorted((FIXTURES / library).glob("*.json")):
        if path.name == "versions.json":
            continue
        for record in records_from_json(json.loads(path.read_text()), str(path)):
            kind = MAPPED.get(str(record.attributes.get(KIND_KEYS[library])))
            if kind is not None:
                step = table.classify(record, ())
                assert step is not None and step.kind == kind, (path.name, record.name)
                kinds.add(kind)
    assert kinds == {"agent", "llm", "tool"}  # every entry of the section was needed
