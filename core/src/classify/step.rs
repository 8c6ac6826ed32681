//! `Step`: one classified span, the Rust twin of `semconv.step.Step` (same fields, same
//! defaults, same order), so the core's answer converts to the Python object field for field.
//!
//! The optional `content` of the Python Step is not here: it is read by the Python classifier
//! only when a declared check asks for it, after the step is built.

use crate::span::{Span, Text};

/// The span kinds (`semconv.step.KINDS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Llm,
    Tool,
    Agent,
    Handoff,
    Workflow,
    Other,
    Plan,
    Guardrail,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Llm,
        Kind::Tool,
        Kind::Agent,
        Kind::Handoff,
        Kind::Workflow,
        Kind::Other,
        Kind::Plan,
        Kind::Guardrail,
    ];

    /// The Python constant (`"llm"`, `"tool"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Llm => "llm",
            Kind::Tool => "tool",
            Kind::Agent => "agent",
            Kind::Handoff => "handoff",
            Kind::Workflow => "workflow",
            Kind::Other => "other",
            Kind::Plan => "plan",
            Kind::Guardrail => "guardrail",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// Which boundary a failure signals (`semconv.step.MAX_STEPS`, `TIMEOUT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    MaxSteps,
    Timeout,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::MaxSteps => "max_steps",
            Limit::Timeout => "timeout",
        }
    }

    pub fn parse(text: &str) -> Option<Limit> {
        [Limit::MaxSteps, Limit::Timeout]
            .into_iter()
            .find(|l| l.as_str() == text)
    }
}

/// Field for field `semconv.step.Step` (without `content`); counts are Python ints that the
/// field rules keep within i64 (`common.MAX_COUNT`).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub trace_id: u128,
    pub span_id: u64,
    pub parent_id: Option<u64>,
    pub kind: Kind,
    pub start_ns: i128,
    pub end_ns: i128,
    pub fallback_agent: String,
    pub agent: Option<String>,
    pub tool: Option<String>,
    pub model: Option<String>,
    pub error: Option<String>,
    pub limit: Option<Limit>,
    pub finish_reason: String,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cost_usd: f64,
    pub empty: bool,
    pub handoff_from: Option<String>,
    pub handoff_to: Option<String>,
    pub handoff_tool: bool,
    pub handoff_hint: Option<String>,
    pub graph_candidate: bool,
    pub decision: Option<String>,
    pub tool_definitions: Vec<String>,
    pub requested_tools: Vec<String>,
    pub input_chars: Option<i64>,
    pub scores: Vec<f64>,
    /// `str()` of each state attribute's value: a lone surrogate kept
    pub state_extra: Vec<Text>,
    pub context: Option<String>,
    pub resource_context: Option<String>,
    pub step_limit: i64,
    pub turn: bool,
    pub version: Option<String>,
    pub call_id: Option<String>,
    pub cost_amount: f64,
    pub cost_currency: Option<String>,
    pub turn_count: i64,
    pub fault: Option<String>,
    pub skill_definitions: Vec<String>,
    pub skill: Option<String>,
    pub skill_resource: bool,
    /// Its status is OK: it handled what failed under it (a run's span, not a call's).
    pub settled: bool,
}

impl Step {
    /// A step of `span` with every optional field at its Python default.
    pub fn new(span: &Span, kind: Kind, fallback_agent: String) -> Step {
        Step {
            trace_id: span.trace_id,
            span_id: span.span_id,
            parent_id: span.parent_id,
            kind,
            start_ns: span.start_ns,
            end_ns: span.end_ns,
            fallback_agent,
            agent: None,
            tool: None,
            model: None,
            error: None,
            limit: None,
            finish_reason: String::new(),
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: 0.0,
            empty: false,
            handoff_from: None,
            handoff_to: None,
            handoff_tool: false,
            handoff_hint: None,
            graph_candidate: false,
            decision: None,
            tool_definitions: Vec::new(),
            requested_tools: Vec::new(),
            input_chars: None,
            scores: Vec::new(),
            state_extra: Vec::new(),
            context: None,
            resource_context: None,
            step_limit: 0,
            turn: false,
            version: None,
            call_id: None,
            cost_amount: 0.0,
            cost_currency: None,
            turn_count: 0,
            fault: None,
            skill_definitions: Vec::new(),
            skill: None,
            skill_resource: false,
            settled: false,
        }
    }
}
