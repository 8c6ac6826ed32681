//! The built-in families' code for what their tables cannot say (its Python reading is the
//! tests' oracle, `tests/_hooks/`), keyed by the name a table entry gives as its `code`. Each gets the step the entry built and
//! returns it, changed or not, or None: the entry does not match after all.

use super::fields::{as_agent, build_step, TRANSFER_PREFIX};
use super::limits::says_max_steps;
use super::step::{Kind, Limit, Step};
use super::values::{as_int, as_str, clip, PLACEHOLDER_AGENT_NAMES};
use crate::pyjson::{self, Json};
use crate::pystr;
use crate::span::{Attributes, Span, Value};

/// `Hook` of the oracle (`tests/_rule.py`): the span, the entry's step, the spec's state attributes.
pub type Hook = fn(&Span, Step, &[String]) -> Option<Step>;

/// Every hook by its `code` name, in the oracle's `HOOKS` order.
pub const HOOKS: [(&str, Hook); 12] = [
    ("genai.agent", genai_agent),
    ("genai.guardrail", genai_guardrail),
    ("openinference.agent", openinference_agent),
    ("openinference.chain", openinference_chain),
    ("llama_index.turn", llama_index_turn),
    ("smolagents.run", smolagents_run),
    (
        "semantic_kernel.finish_reason",
        semantic_kernel_finish_reason,
    ),
    ("semantic_kernel.transfer", semantic_kernel_transfer),
    ("logfire.max_turns", logfire_max_turns),
    ("agent_framework.edge", agent_framework_edge),
    ("haystack.budget", haystack_budget),
    ("llama_index.traceloop_turn", llama_index_traceloop_turn),
];

/// The hook a table entry's `code` names.
pub fn hook(name: &str) -> Option<Hook> {
    HOOKS.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

const AGENT_NAME_KEYS: [&str; 3] = ["gen_ai.agent.name", "agent_name", "agent.name"];

/// genai.agent: a span name that only repeats the model (the AI SDK's `invoke_agent gpt-4o`)
/// names no agent.
fn genai_agent(span: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    let attrs = &span.attributes;
    let repeats_model = match (&step.agent, attrs.get("gen_ai.request.model")) {
        (Some(agent), Some(Value::Str(model))) => model == agent.as_str(),
        _ => false,
    };
    if repeats_model
        && !AGENT_NAME_KEYS
            .iter()
            .any(|k| as_str(attrs.get(k)).is_some())
    {
        step.agent = None;
    }
    Some(step)
}

/// genai.guardrail: the guardrail's overall result as it reported it, `<result.type>=<value>`
/// (provider-native, never read as allow or deny), in the step's finish reason.
fn genai_guardrail(span: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    let attrs = &span.attributes;
    if let (Some(kind), Some(value)) = (
        as_str(attrs.get("gen_ai.guardrail.result.type")),
        as_str(attrs.get("gen_ai.guardrail.result.value")),
    ) {
        step.finish_reason = format!("{kind}={value}");
    }
    Some(step)
}

/// The LangGraph run metadata OpenInference copies onto LangChain spans, or None outside
/// LangGraph.
fn langgraph(attrs: &Attributes) -> Option<Json> {
    let Some(Value::Str(raw)) = attrs.get("metadata") else {
        return None;
    };
    if !raw.contains("langgraph") {
        return None;
    }
    let meta = pyjson::parse(raw)?;
    let ours = meta
        .get("ls_integration")
        .and_then(Json::text)
        .is_some_and(|s| s.is("langgraph"));
    ours.then_some(meta)
}

/// `graph.get("langgraph_node") == span.name`.
fn is_node(graph: &Json, span: &Span) -> bool {
    graph
        .get("langgraph_node")
        .and_then(Json::text)
        .is_some_and(|node| node.is(&span.name))
}

/// openinference.agent: a LangGraph node span is no agent; `graph.node.parent_id` names the
/// agent that handed over where node ids are names (the OpenAI Agents bridge).
fn openinference_agent(span: &Span, mut step: Step, state_attributes: &[String]) -> Option<Step> {
    let attrs = &span.attributes;
    if langgraph(attrs).is_some_and(|graph| is_node(&graph, span)) {
        return Some(build_step(span, Kind::Other, state_attributes, None, None));
    }
    let parent = as_str(attrs.get("graph.node.parent_id"));
    let node = as_str(attrs.get("graph.node.id"));
    if let Some(parent) = parent {
        if Some(&parent) != step.agent.as_ref() && (node.is_none() || node == step.agent) {
            step.handoff_from = Some(parent);
        }
    }
    Some(step)
}

/// openinference.chain: a LangGraph graph run is the agent, its nodes are not; a graph run
/// inside a node is an agent only when a tool started it.
fn openinference_chain(span: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    let Some(graph) = langgraph(&span.attributes) else {
        return Some(step);
    };
    if is_node(&graph, span) {
        return Some(step);
    }
    let name = clip(&span.name);
    as_agent(
        &mut step,
        &span.attributes,
        (!name.is_empty()).then_some(name),
    );
    step.graph_candidate = graph.get("langgraph_node").is_some();
    Some(step)
}

/// The first `<opening>NAME<close>` in `text` with NAME 1..=256 code points, none of them
/// `close` or a backslash: the `search` of llama_index's `_AGENT_NAME` patterns.
fn agent_name_after<'a>(
    text: &'a str,
    opening: &str,
    close: char,
    blanks: bool,
) -> Option<&'a str> {
    for (at, found) in text.match_indices(opening) {
        let mut rest = &text[at + found.len()..];
        if blanks {
            rest = rest.trim_start_matches(pystr::is_space);
            let Some(quoted) = rest.strip_prefix('"') else {
                continue;
            };
            rest = quoted;
        }
        let end = rest.find([close, '\\']).unwrap_or(rest.len());
        let name = &rest[..end];
        let count = pystr::len(name);
        if (1..=256).contains(&count) && rest[end..].starts_with(close) {
            return Some(name);
        }
    }
    None
}

/// `step` (an `other` step) starts the turn of the agent the event text names, if it names one.
fn turn(mut step: Step, name: Option<&str>) -> Option<Step> {
    let name = name.map(clip);
    step.agent = name.filter(|n| !PLACEHOLDER_AGENT_NAMES.contains(&n.as_str()));
    step.turn = step.agent.is_some();
    Some(step)
}

/// llama_index.turn: OpenInference's `setup_agent` step, its input event's repr naming
/// `current_agent_name='...'`.
fn llama_index_turn(span: &Span, step: Step, _: &[String]) -> Option<Step> {
    let name = match span.attributes.get("input.value") {
        Some(Value::Str(raw)) => agent_name_after(raw, "current_agent_name='", '\'', false),
        _ => None,
    };
    turn(step, name)
}

/// llama_index.traceloop_turn: a Traceloop `<Class>.task` step whose JSON output names the
/// current agent.
fn llama_index_traceloop_turn(span: &Span, step: Step, _: &[String]) -> Option<Step> {
    let name = match span.attributes.get("traceloop.entity.output") {
        Some(Value::Str(raw)) => agent_name_after(raw, "\"current_agent_name\":", '"', true),
        _ => None,
    };
    turn(step, name)
}

const SMOLAGENTS_CLASS_NAMES: [&str; 3] = ["MultiStepAgent", "ToolCallingAgent", "CodeAgent"];

/// smolagents.run: a class name is no agent name; the run declares its step budget.
fn smolagents_run(span: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    if step
        .agent
        .as_deref()
        .is_some_and(|a| SMOLAGENTS_CLASS_NAMES.contains(&a))
    {
        step.agent = None;
    }
    step.step_limit = as_int(span.attributes.get("smolagents.max_steps"));
    Some(step)
}

/// semantic_kernel.finish_reason: `FinishReason.TOOL_CALLS` becomes `tool_calls`.
fn semantic_kernel_finish_reason(_: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    if let Some(reason) = step.finish_reason.strip_prefix("FinishReason.") {
        step.finish_reason = pystr::lower(reason).into_owned();
    }
    Some(step)
}

/// semantic_kernel.transfer: `Handoff-transfer_to_<agent>` is a hand-off tool.
fn semantic_kernel_transfer(_: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    if !step.handoff_tool {
        let target = step.tool.as_deref().and_then(|tool| {
            let function = tool.rsplit_once('-').map_or(tool, |(_, f)| f);
            function.strip_prefix(TRANSFER_PREFIX)
        });
        if let Some(target) = target {
            step.handoff_hint = (!target.is_empty()).then(|| target.to_owned());
            step.handoff_tool = true;
        }
    }
    Some(step)
}

/// logfire.max_turns: a failed run whose `error` message says its turns ran out.
fn logfire_max_turns(span: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    if step.error.is_some() && step.limit.is_none() {
        let hit = |message: &str| says_max_steps(&[Some(message)], &[Some(message)]);
        let max_turns = match span.attributes.get("error") {
            Some(Value::Str(raw)) => pyjson::parse(raw)
                .as_ref()
                .and_then(|failure| failure.get("message"))
                .and_then(Json::text)
                .is_some_and(|m| hit(&m.text)),
            Some(Value::KvList(failure)) => {
                matches!(failure.get("message"), Some(Value::Str(m)) if hit(m))
            }
            _ => false,
        };
        if max_turns {
            step.limit = Some(Limit::MaxSteps);
        }
    }
    Some(step)
}

/// agent_framework.edge: a message from an executor to itself is no hand-off.
fn agent_framework_edge(_: &Span, step: Step, _: &[String]) -> Option<Step> {
    (step.handoff_from != step.handoff_to).then_some(step)
}

/// haystack.budget: an agent that took every step it was allowed was stopped by its limit.
fn haystack_budget(span: &Span, mut step: Step, _: &[String]) -> Option<Step> {
    let attrs = &span.attributes;
    let limit = as_int(attrs.get("haystack.agent.max_steps"));
    if limit > 0 && as_int(attrs.get("haystack.agent.steps_taken")) >= limit {
        step.limit = Some(Limit::MaxSteps);
    }
    Some(step)
}
