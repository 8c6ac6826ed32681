//! `build_step`: the fields every convention entry shares (semconv/common.py), so that a new
//! family is a table, not an edit of every field rule. The entry decides the kind and names;
//! errors, models, tokens, tool lists, hand-off hints, contexts and versions are read here.

use super::captured::{
    requested_tool_names, skill_definition_names, skill_name, tool_definition_names,
    user_input_chars,
};
use super::errors::{error_type, limit_signal};
use super::step::{Kind, Limit, Step};
use super::values::{
    as_float, as_int, as_str, clip, names_its_library, truthy, PLACEHOLDER_AGENT_NAMES,
    PLACEHOLDER_MODELS,
};
use crate::pyrepr::py_str;
use crate::pystr;
use crate::span::{Attributes, Span, Value, STATUS_OK};
use std::collections::HashSet;

/// Tools whose call hands control to another agent, naming no target in their name.
pub const HANDOFF_TOOLS: [&str; 2] = ["transfer_to_agent", "handoff_to_agent"];
pub const TRANSFER_PREFIX: &str = "transfer_to_";
pub const UNKNOWN_AGENT: &str = "unknown_agent";
pub const TEST_CASE: &str = "test.case.name";
const PYTEST_OTEL_SCOPE: &str = "pytest-opentelemetry";
const OUTPUT_TOKEN_KEYS: [&str; 3] = [
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
];
const HANDOFF_KEYS: [&str; 3] = [
    "gen_ai.handoff.from_agent",
    "gen_ai.handoff.to_agent",
    "gen_ai.transfer.target.name",
];
const CONTENT_KEYS: [&str; 4] = [
    "gen_ai.tool.definitions",
    "model_request_parameters",
    "gen_ai.output.messages",
    "gen_ai.input.messages",
];
/// `agentcov.fault.family`: the mark an injected fault leaves (fault_families.py, docs/faults.md).
pub const FAULT_FAMILY: &str = "agentcov.fault.family";
/// `fault_families.FAMILIES`, in its order: any other name is not a fault.
pub const FAULT_FAMILIES: [&str; 13] = [
    "http_5xx",
    "rate_limit",
    "timeout",
    "slow",
    "truncated_stream",
    "empty_completion",
    "budget",
    "tool_exception",
    "tool_timeout",
    "tool_error_result",
    "tool_malformed",
    "empty_input",
    "turn_pressure",
];
const MODEL_KEYS: [&str; 3] = [
    "gen_ai.response.model",
    "gen_ai.request.model",
    "llm.model_name",
];

/// A tool whose call hands control to another agent (`transfer_to_agent`, `transfer_to_X`,
/// also as a plugin's function).
pub fn is_handoff_tool(name: &str) -> bool {
    handoff_name(name).is_some()
}

/// Whether a tool's call hands control over, and to whom where its name says
/// (`transfer_to_X`: `X`): None for any other tool.
pub fn handoff(name: &str) -> Option<Option<&str>> {
    handoff_name(name).map(|tool| {
        if HANDOFF_TOOLS.contains(&tool) {
            None // `transfer_to_agent`: the target is in its arguments, never read
        } else {
            tool.strip_prefix(TRANSFER_PREFIX)
        }
    })
}

/// The hand-off tool's own name: the whole name, else a plugin's function's
/// (`<plugin>-transfer_to_X`, Semantic Kernel); None for any other tool.
fn handoff_name(name: &str) -> Option<&str> {
    let function = name.rsplit('-').next().unwrap_or(name);
    [name, function]
        .into_iter()
        .find(|tool| HANDOFF_TOOLS.contains(tool) || tool.starts_with(TRANSFER_PREFIX))
}

/// The agent a span says it ran for (`gen_ai.agent.name`), placeholders aside.
fn own_agent(span: &Span) -> Option<String> {
    as_str(span.attributes.get("gen_ai.agent.name"))
        .filter(|own| !PLACEHOLDER_AGENT_NAMES.contains(&own.as_str()))
}

/// An agent name that only repeats the name of the library that traced the span (`values.rs`
/// `names_its_library`) is no agent's, unless the spec declares an agent of that name
/// (`declared`): the step names no agent, and under no agent span it counts for the service.
pub fn library_named(step: &mut Step, span: &Span, declared: &HashSet<String>) {
    let scope = &*span.scope_name;
    let named = step.agent.as_deref() == Some(scope) || step.fallback_agent == scope;
    if !named || declared.contains(scope) || !names_its_library(scope, span) {
        return;
    }
    if step.agent.as_deref() == Some(scope) {
        step.agent = None;
    }
    if step.fallback_agent == scope {
        step.fallback_agent = fallback_agent(span, None);
    }
}

/// Where a step under no agent span is counted: its own agent name (`own_agent`, read once by
/// the caller), else the service's.
fn fallback_agent(span: &Span, own: Option<String>) -> String {
    own.or_else(|| as_str(span.resource_attributes.get("service.name")))
        .unwrap_or_else(|| UNKNOWN_AGENT.to_owned())
}

/// The first finish reason; a list flattened into one string (Mastra's JSON, Traceloop's
/// Python repr) is unwrapped.
pub fn finish_reason(attrs: &Attributes) -> String {
    match attrs.get("gen_ai.response.finish_reasons") {
        Some(Value::Str(reasons)) if reasons.starts_with('[') => {
            let inner = reasons.trim_matches(|c| c == '[' || c == ']');
            let first = inner.split_once(',').map_or(inner, |(first, _)| first);
            clip(first.trim_matches(|c| c == ' ' || c == '\'' || c == '"'))
        }
        Some(Value::Str(reasons)) => clip(reasons),
        Some(Value::Array(items) | Value::List(items))
            if matches!(items.first(), Some(Value::Str(_))) =>
        {
            match &items[0] {
                Value::Str(first) => clip(first),
                _ => String::new(),
            }
        }
        _ => as_str(attrs.get("gen_ai.response.finish_reason")).unwrap_or_default(),
    }
}

/// GenAI evaluation results attached to the span (the run score).
pub fn evaluation_scores(span: &Span) -> Vec<f64> {
    span.events
        .iter()
        .filter(|e| e.name == "gen_ai.evaluation.result")
        .filter_map(|e| as_float(e.attributes.get("gen_ai.evaluation.score.value")))
        .collect()
}

/// A tool result that is there and empty (the first result key present decides).
fn is_empty_result(attrs: &Attributes) -> bool {
    for key in ["gen_ai.tool.call.result", "tool_response", "output.value"] {
        if let Some(value) = attrs.get(key) {
            return match value {
                Value::None => true,
                Value::Str(s) => pystr::strip(s).is_empty(),
                _ => false,
            };
        }
    }
    false
}

/// The test a span stands for: `test.case.name`, or pytest-opentelemetry's node id.
pub fn test_context(span: &Span) -> Option<String> {
    match span.attributes.get(TEST_CASE) {
        Some(Value::None) | None => {}
        name => return as_str(name),
    }
    (span.scope_name.starts_with(PYTEST_OTEL_SCOPE) && span.name.contains("::"))
        .then(|| clip(&span.name))
}

/// Unreleased GenAI `gen_ai.agent.iteration_budget.*`: the run used all its iterations.
pub fn budget_exhausted(attrs: &Attributes) -> bool {
    let limit = as_int(attrs.get("gen_ai.agent.iteration_budget.limit"));
    limit > 0 && as_int(attrs.get("gen_ai.agent.iteration_budget.consumed")) >= limit
}

/// Fill the fields every convention shares; `kind` and the names come from the entry.
pub fn build_step(
    span: &Span,
    kind: Kind,
    state_attributes: &[String],
    agent: Option<String>,
    tool: Option<String>,
) -> Step {
    let attrs = &span.attributes;
    // read once: the fallback, and a model call's agent
    let own = own_agent(span);
    // a model call names the agent it ran for, if it says (docs/semantics.md#detection-rules)
    let agent = match (kind, agent) {
        (Kind::Llm, None) => own.clone(),
        (_, agent) => agent,
    };
    let mut step = Step::new(span, kind, fallback_agent(span, own));
    step.agent = agent;
    step.error = error_type(span);
    step.limit = limit_signal(span, step.error.as_deref());
    if HANDOFF_KEYS.iter().any(|k| attrs.contains(k)) {
        step.handoff_from = as_str(attrs.get("gen_ai.handoff.from_agent"));
        step.handoff_to = as_str(attrs.get("gen_ai.handoff.to_agent"))
            .or_else(|| as_str(attrs.get("gen_ai.transfer.target.name")));
    }
    step.version = as_str(attrs.get("gen_ai.agent.version"))
        .or_else(|| as_str(span.resource_attributes.get("service.version")));
    step.scores = evaluation_scores(span);
    step.fault = match attrs.get(FAULT_FAMILY) {
        Some(Value::Str(family)) if FAULT_FAMILIES.iter().any(|f| family == f) => {
            Some(family.as_str().to_owned())
        }
        _ => None,
    };
    step.context = test_context(span);
    step.resource_context = match span.resource_attributes.get(TEST_CASE) {
        Some(Value::None) | None => None,
        name => as_str(name),
    };
    step.state_extra = state_attributes
        .iter()
        .map(|name| attrs.get(name).map(py_str).unwrap_or_default())
        .collect();
    if matches!(kind, Kind::Llm | Kind::Tool) {
        cost_fields(&mut step, attrs);
    }
    match kind {
        Kind::Llm => llm_fields(&mut step, attrs),
        Kind::Tool => tool_fields(&mut step, attrs, tool.as_deref()),
        _ => {
            step.input_chars = user_input_chars(attrs);
            if kind == Kind::Agent {
                let agent = step.agent.take();
                as_agent(&mut step, attrs, agent);
            }
        }
    }
    step.tool = tool;
    // a run's span that ends OK handled what failed under it (calls' spans: their own error)
    step.settled = span.status_code == STATUS_OK && !matches!(kind, Kind::Llm | Kind::Tool);
    step
}

fn llm_fields(step: &mut Step, attrs: &Attributes) {
    step.model = MODEL_KEYS
        .iter()
        .filter_map(|key| as_str(attrs.get(key)))
        .find(|model| !PLACEHOLDER_MODELS.contains(&model.as_str()));
    step.input_tokens = match as_int(attrs.get("gen_ai.usage.input_tokens")) {
        0 => {
            let prompt = attrs.get("gen_ai.usage.prompt_tokens");
            as_int(if truthy(prompt) {
                prompt
            } else {
                attrs.get("llm.token_count.prompt")
            })
        }
        n => n,
    };
    let out_key = OUTPUT_TOKEN_KEYS
        .into_iter()
        .find(|k| attrs.contains(k))
        .unwrap_or(OUTPUT_TOKEN_KEYS[0]);
    step.output_tokens = as_int(attrs.get(out_key));
    step.empty = attrs.contains(out_key) && step.output_tokens == 0 && step.error.is_none();
    step.finish_reason = finish_reason(attrs);
    if CONTENT_KEYS.iter().any(|k| attrs.contains(k)) {
        step.tool_definitions = tool_definition_names(attrs);
        step.requested_tools = requested_tool_names(attrs);
        step.input_chars = user_input_chars(attrs);
    }
    if let Some(cost) = as_float(attrs.get("gen_ai.usage.cost")) {
        if cost > 0.0 {
            step.cost_usd = cost;
        }
    }
}

/// GenAI `gen_ai.usage.cost.amount` in `.currency` (an operation's own cost; an agent span's
/// would total its operations', so it is not read there).
fn cost_fields(step: &mut Step, attrs: &Attributes) {
    if let Some(amount) = as_float(attrs.get("gen_ai.usage.cost.amount")) {
        if amount > 0.0 {
            step.cost_amount = amount;
            step.cost_currency = as_str(attrs.get("gen_ai.usage.cost.currency"));
        }
    }
}

fn tool_fields(step: &mut Step, attrs: &Attributes, tool: Option<&str>) {
    step.decision = as_str(attrs.get("gen_ai.tool.call.decision"));
    step.call_id = as_str(attrs.get("gen_ai.tool.call.id"));
    step.empty = step.error.is_none() && is_empty_result(attrs);
    // a skill load (or a read of one of its resources, a run of its script): the GenAI
    // `execute_tool` refinements name the skill; the call stays a tool call (docs/semantics.md#skills)
    if let Some(Value::Str(name)) = attrs.get("gen_ai.skill.name") {
        step.skill = skill_name(name);
        step.skill_resource = step.skill.is_some() && attrs.contains("gen_ai.skill.resource.name");
    }
    if let Some(target) = tool.and_then(handoff) {
        step.handoff_tool = true;
        step.handoff_hint = target.map(str::to_owned);
    }
}

/// Make a step an agent run named `agent` (what build_step does for an agent span beyond the
/// other kinds), for code that decides the kind only after the entry's step.
pub fn as_agent(step: &mut Step, attrs: &Attributes, agent: Option<String>) {
    step.kind = Kind::Agent;
    step.agent = agent;
    // unreleased GenAI: a remote invoke_agent names its caller; a budget can run out
    if let Some(caller) = as_str(attrs.get("gen_ai.caller.name")) {
        let caller_is_agent = match attrs.get("gen_ai.caller.type") {
            None => true,
            Some(Value::Str(t)) => t == "agent",
            Some(_) => false,
        };
        if caller_is_agent {
            step.handoff_from = Some(caller);
        }
    }
    if step.limit.is_none() && budget_exhausted(attrs) {
        step.limit = Some(Limit::MaxSteps);
    }
    step.turn_count = as_int(attrs.get("gen_ai.agent.turn.count"));
    step.skill_definitions = skill_definition_names(attrs);
}
