//! One trace's fields -> its Trial: readers/trial_runs.py `trace_to_runs` for the plain shapes,
//! giving up (the Python reader then reads the file) wherever it would take another route or
//! raise.

use serde::de;

use super::parse::{note_unknown, Config, Kind, Parsed, Step, Trial};
use super::raw::{clip, give_up, RawTrace, Scalar, Steps, MAX_NS};
use crate::classify::errors::{error_limit, short_error_name};
use crate::classify::fields::is_handoff_tool;
use crate::classify::step::Limit;
use crate::classify::values::{PLACEHOLDER_AGENT_NAMES, PLACEHOLDER_MODELS, PLACEHOLDER_TOOLS};
use crate::pystr;
use crate::stable_hash::stable_hash;

/// readers/trial_runs.py's action words.
const LLM_ACTIONS: [&str; 5] = ["llm_response", "llm_call", "llm", "generation", "chat"];
const TOOL_ACTIONS: [&str; 3] = ["tool_call", "tool", "tool_use"];
const DEFAULT_AGENT: &str = "agent";

fn lower_action(action: &Scalar<'_>) -> Option<String> {
    // `str(action).strip().lower() if action else ""`; only ASCII can spell an action word
    Some(match action.truthy_str()? {
        Some(a) => pystr::strip(a).to_ascii_lowercase(),
        None => String::new(),
    })
}

/// readers/trial_runs.py's `trace_to_runs` for one trace, or give up where it would take
/// another route or raise.
pub(super) fn convert<E: de::Error>(
    parsed: &mut Parsed,
    config: &Config<'_>,
    trace: &RawTrace<'_>,
    trial_agent: Option<&str>,
    where_: &dyn Fn() -> String,
) -> Result<Trial, E> {
    let Some(Steps(Some(raw_steps))) = &trace.steps else {
        return Err(give_up());
    };
    // the agent: the trial's, else the trace metadata's `agent`, `agent_name`, else "agent"
    let name = match trial_agent {
        Some(name) => name,
        None => match trace.meta.agent.truthy_str().ok_or_else(give_up)? {
            Some(name) => name,
            None => trace
                .meta
                .agent_name
                .truthy_str()
                .ok_or_else(give_up)?
                .unwrap_or(DEFAULT_AGENT),
        },
    };
    if raw_steps.len() >= config.max_spans {
        return Err(give_up());
    }
    let agent = clip(name);
    if PLACEHOLDER_AGENT_NAMES.contains(&agent) {
        return Err(give_up());
    }
    let mut clock: i64 = 1;
    let mut steps = Vec::with_capacity(raw_steps.len());
    let (mut max_steps, mut timeout) = (false, false);
    for (i, raw) in raw_steps.iter().enumerate() {
        let Some(raw) = raw else {
            return Err(give_up());
        };
        for key in &raw.unknown {
            note_unknown(parsed, "step", key, &|| {
                format!("{}.trace.steps[{i}]", where_())
            });
        }
        let action = lower_action(&raw.action).ok_or_else(give_up)?;
        let duration = raw.duration.duration_ns().ok_or_else(give_up)?;
        let error = raw.error.truthy_str().ok_or_else(give_up)?;
        let tool = raw.tool.opt_str().ok_or_else(give_up)?;
        let model = raw.model.opt_str().ok_or_else(give_up)?;
        if duration < 0 {
            return Err(give_up()); // the span route's checks decide
        }
        let end = clock
            .checked_add(duration)
            .filter(|&t| t < MAX_NS)
            .ok_or_else(give_up)?;
        let tool_given = tool.is_some_and(|t| !t.is_empty());
        let llm_action = LLM_ACTIONS.contains(&action.as_str());
        let (kind, subject) =
            if TOOL_ACTIONS.contains(&action.as_str()) || (tool_given && !llm_action) {
                let tool = clip(tool.filter(|t| !t.is_empty()).ok_or_else(give_up)?);
                if PLACEHOLDER_TOOLS.contains(&tool) || is_handoff_tool(tool) {
                    return Err(give_up()); // no tool of its own, or a hand-off: the span route
                }
                (Kind::Tool, Some(tool))
            } else if llm_action || model.is_some_and(|m| !m.is_empty()) {
                let model = model.map(clip).filter(|m| !PLACEHOLDER_MODELS.contains(m));
                (Kind::Llm, model)
            } else {
                let other = (
                    raw.action.truthy_str().flatten().map(str::to_owned),
                    error.map(str::to_owned),
                );
                if parsed.others_seen.insert(other.clone()) {
                    parsed.others.push(other);
                }
                parsed.kinds.other += 1;
                clock = end + 1;
                continue;
            };
        let err = error.map(short_error_name);
        match err.as_deref().and_then(|e| error_limit(e, &[])) {
            Some(Limit::MaxSteps) => max_steps = true,
            Some(Limit::Timeout) => timeout = true,
            None => {}
        }
        let subject_id = subject.map(|s| parsed.names.id(s));
        if kind == Kind::Tool {
            parsed.kinds.tool += 1;
            if let Some(id) = subject_id {
                if parsed.tools_seen.insert(id) {
                    parsed.tools.push(id);
                }
            }
        } else {
            parsed.kinds.llm += 1;
        }
        let state_hash = state_hash(parsed, config, kind, subject, subject_id, error);
        steps.push(Step {
            kind,
            subject: subject_id,
            failed: err.is_some(),
            state_hash,
        });
        clock = end + 1;
    }
    let trace_error = trace.error.opt_str().ok_or_else(give_up)?;
    let errored = trace_error.is_some_and(|e| !e.is_empty()) || trace.success_false;
    if errored {
        // error.type is the trace's `error` string, else "TrialFailed"; blank reads as _OTHER
        let error_type = trace_error.unwrap_or("TrialFailed");
        let err = if error_type.is_empty() {
            "_OTHER".to_owned()
        } else {
            short_error_name(error_type)
        };
        match error_limit(&err, &[]) {
            Some(Limit::MaxSteps) => max_steps = true,
            Some(Limit::Timeout) => timeout = true,
            None => {}
        }
    }
    let total = trace.total.duration_ns().ok_or_else(give_up)?;
    if matches!(trace.cost, Scalar::Num(c) if !c.is_finite()) {
        return Err(give_up()); // Python's float() of an integer this big raises
    }
    let version = match trace.meta.version.truthy_str().ok_or_else(give_up)? {
        Some(v) => Some(v),
        None => trace.meta.agent_version.truthy_str().ok_or_else(give_up)?,
    };
    let agent = parsed.names.id(agent);
    let version = version.map(|v| parsed.names.id(v));
    let model = match &trace.model {
        Scalar::Str(m) if !m.is_empty() && !PLACEHOLDER_MODELS.contains(&clip(m)) => {
            let id = parsed.names.id(clip(m));
            let named = steps
                .iter()
                .any(|s| s.kind == Kind::Llm && s.subject == Some(id));
            (!named).then_some(id)
        }
        _ => None,
    };
    parsed.kinds.agent += 1;
    Ok(Trial {
        agent,
        version,
        model,
        end_ns: total.max(clock),
        errored,
        max_steps,
        timeout,
        steps,
    })
}

/// `stable_hash` of the step's state key (state/facts.py `_state_key`): kind, subject, outcome,
/// finish reason (none for trials) and the spec's state attributes of the step's span.
fn state_hash(
    parsed: &mut Parsed,
    config: &Config<'_>,
    kind: Kind,
    subject: Option<&str>,
    subject_id: Option<u32>,
    error: Option<&str>,
) -> u64 {
    let kind_token = if kind == Kind::Tool { "tool" } else { "llm" };
    let outcome = if error.is_some() { "error" } else { "ok" };
    if config.state_attributes.is_empty() {
        let key = (kind, subject_id, error.is_some());
        if let Some(&hash) = parsed.state_hashes.get(&key) {
            return hash;
        }
        let hash = stable_hash([kind_token, subject.unwrap_or(""), outcome, ""]);
        parsed.state_hashes.insert(key, hash);
        return hash;
    }
    // the step span's attributes (trial_runs.py `_step_span`), as str(attrs.get(a, ""))
    let extra = config
        .state_attributes
        .iter()
        .map(|attribute| match attribute.as_str() {
            "gen_ai.operation.name" => {
                if kind == Kind::Tool {
                    "execute_tool"
                } else {
                    "chat"
                }
            }
            "gen_ai.tool.name" if kind == Kind::Tool => subject.unwrap_or(""),
            "gen_ai.request.model" if kind == Kind::Llm => subject.unwrap_or(""),
            "error.type" => error.unwrap_or(""),
            _ => "",
        });
    stable_hash(
        [kind_token, subject.unwrap_or(""), outcome, ""]
            .into_iter()
            .chain(extra),
    )
}
