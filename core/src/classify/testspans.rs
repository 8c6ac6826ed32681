//! Test spans (the oracle's reading: tests/_hooks/testspans.py): a span standing for a test
//! case is never an agent, tool or model call, whatever its name looks like, unless it also
//! carries GenAI attributes.

use super::fields::build_step;
use super::step::{Kind, Step};
use crate::span::Span;

const GENAI_KEYS: [&str; 3] = [
    "gen_ai.operation.name",
    "openinference.span.kind",
    "traceloop.span.kind",
];

/// `step`, or an `other` step when a name pattern took a test case's span for a GenAI span.
pub fn as_test_span(span: &Span, step: Step, state_attributes: &[String]) -> Step {
    if step.context.is_none()
        || step.kind == Kind::Other
        || GENAI_KEYS.iter().any(|k| span.attributes.contains(k))
    {
        return step;
    }
    build_step(span, Kind::Other, state_attributes, None, None)
}
