//! The attribute keys the field rules, the test-span rule and the hooks read (fields.rs,
//! errors.rs, captured.rs, testspans.rs, hooks.rs): a span converted from Python for the core
//! needs no other value but those its table's entries and the spec's state attributes read
//! (records_py::Reads), and converting only these is most of what conversion saves.
//!
//! A key missing here makes the core read the span as if the attribute were absent:
//! tests/test_core_fields.py converts spans through this list, so every field rule is checked
//! against it.

use std::collections::HashSet;
use std::sync::LazyLock;

const SPAN_KEYS: [&str; 56] = [
    // errors.rs
    "error.type",
    "gen_ai.tool.status",
    // fields.rs
    "gen_ai.agent.name",
    "gen_ai.handoff.from_agent",
    "gen_ai.handoff.to_agent",
    "gen_ai.transfer.target.name",
    "gen_ai.agent.version",
    "test.case.name",
    "gen_ai.response.model",
    "gen_ai.request.model",
    "llm.model_name",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "gen_ai.response.finish_reasons",
    "gen_ai.response.finish_reason",
    "gen_ai.usage.cost",
    "gen_ai.tool.call.decision",
    "gen_ai.tool.call.id",
    "gen_ai.usage.cost.amount",
    "gen_ai.usage.cost.currency",
    "gen_ai.agent.turn.count",
    "gen_ai.tool.call.result",
    "tool_response",
    "output.value",
    "gen_ai.caller.name",
    "gen_ai.caller.type",
    "gen_ai.agent.iteration_budget.limit",
    "gen_ai.agent.iteration_budget.consumed",
    "agentcov.fault.family",
    "gen_ai.skill.name",
    "gen_ai.skill.resource.name",
    // captured.rs
    "gen_ai.skill.definitions",
    "gen_ai.tool.definitions",
    "model_request_parameters",
    "gen_ai.output.messages",
    "gen_ai.input.messages",
    // testspans.rs
    "gen_ai.operation.name",
    "openinference.span.kind",
    "traceloop.span.kind",
    // hooks.rs
    "agent_name",
    "agent.name",
    "metadata",
    "graph.node.parent_id",
    "graph.node.id",
    "input.value",
    "traceloop.entity.output",
    "smolagents.max_steps",
    "error",
    "haystack.agent.max_steps",
    "haystack.agent.steps_taken",
    "gen_ai.guardrail.result.type",
    "gen_ai.guardrail.result.value",
];

static SPAN: LazyLock<HashSet<&'static str>> = LazyLock::new(|| SPAN_KEYS.into_iter().collect());

/// A span attribute the field rules read.
pub fn span_key(key: &str) -> bool {
    SPAN.contains(key)
}

/// A resource attribute the field rules read (fields.rs: the fallback agent, version, context).
pub fn resource_key(key: &str) -> bool {
    matches!(key, "service.name" | "service.version" | "test.case.name")
}

/// An event attribute the field rules read (errors.rs, fields.rs: scores).
pub fn event_key(key: &str) -> bool {
    matches!(
        key,
        "exception.type" | "exception.message" | "gen_ai.evaluation.score.value"
    )
}
