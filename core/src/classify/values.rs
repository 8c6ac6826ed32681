//! How the field rules read one attribute value (semconv/common.py `as_str`, `as_int`,
//! `as_float`, Python truthiness): wrong types are ignored, not trusted, exactly as there.

use crate::pystr;
use crate::span::{Span, Value};

pub use crate::pystr::clip;

/// Agent names that name no agent (`common.PLACEHOLDER_AGENT_NAMES`).
pub const PLACEHOLDER_AGENT_NAMES: [&str; 3] = ["OpenAI Agent", "Agent", ""];
/// Model names that name no model: Traceloop with models that report none, Spring AI's failed
/// call ("none") (`common.PLACEHOLDER_MODELS`).
pub const PLACEHOLDER_MODELS: [&str; 5] = ["unknown", "", "none", "None", "null"];
/// OpenAI Agents' span of parallel tool calls: no tool of its own (`common.PLACEHOLDER_TOOLS`).
pub const PLACEHOLDER_TOOLS: [&str; 1] = ["(merged tools)"];
/// What an SDK names a service it was not told the name of (`unknown_service:node`).
const UNKNOWN_SERVICE: &str = "unknown_service";

/// An agent name that only repeats the name of the library that traced the span (its scope:
/// Gemini CLI's `gemini-cli`, Qwen Code's `qwen-code` on every span) where the span's service
/// has a name of its own: it names the tool the agent runs in, not the agent, which is the
/// service's (docs/semantics.md#detection-rules).
pub fn names_its_library(name: &str, span: &Span) -> bool {
    name == &*span.scope_name
        && match span.resource_attributes.get("service.name") {
            Some(Value::Str(service)) => {
                !service.is_empty() && service != name && !service.starts_with(UNKNOWN_SERVICE)
            }
            _ => false,
        }
}

/// Token counts are int64 on the wire (`common.MAX_COUNT`).
pub const MAX_COUNT: i64 = i64::MAX;

/// `as_str`: a non-empty string, clipped.
pub fn as_str(value: Option<&Value>) -> Option<String> {
    match value {
        Some(Value::Str(s)) if !s.is_empty() => Some(clip(s)),
        _ => None,
    }
}

/// `as_int`: a count from an int, a finite float or a short digit string; anything else is 0.
pub fn as_int(value: Option<&Value>) -> i64 {
    match value {
        Some(Value::Int(i)) => (*i).max(0),
        Some(Value::BigInt(digits)) if !digits.starts_with('-') => MAX_COUNT,
        Some(Value::Double(f)) if f.is_finite() => (*f as i64).max(0), // `as` truncates, saturates
        Some(Value::Str(s)) => digits(s),
        _ => 0,
    }
}

/// The `str` case of `as_int`: at most 18 ASCII digits (no sign, no blanks), else 0.
pub fn digits(s: &str) -> i64 {
    if s.len() <= 18 && pystr::is_ascii_digits(s) {
        s.parse().unwrap_or(0)
    } else {
        0
    }
}

/// `as_float`: a finite number (an int within MAX_COUNT or a float, not a bool), else None.
pub fn as_float(value: Option<&Value>) -> Option<f64> {
    match value {
        Some(Value::Int(i)) if *i != i64::MIN => Some(*i as f64),
        Some(Value::Double(f)) if f.is_finite() => Some(*f),
        _ => None,
    }
}

/// `bool(value)` for an attribute value (absent is None: false).
pub fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::None) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Int(i)) => *i != 0,
        Some(Value::Double(f)) => *f != 0.0, // NaN is true
        Some(Value::BigInt(_)) => true,      // never 0
        Some(Value::Str(s)) => !s.is_empty(),
        Some(Value::Bytes(b)) => !b.is_empty(),
        Some(Value::Array(items) | Value::List(items)) => !items.is_empty(),
        Some(Value::KvList(kv)) => !kv.0.is_empty(),
        Some(Value::Object(object)) => object.truthy,
    }
}

/// `value == text` in Python: only a str equals a str.
pub fn is_text(value: Option<&Value>, text: &str) -> bool {
    matches!(value, Some(Value::Str(s)) if s == text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_python() {
        assert_eq!(as_int(Some(&Value::Double(1e300))), MAX_COUNT);
        assert_eq!(as_int(Some(&Value::Double(-2.5))), 0);
        assert_eq!(as_int(Some(&Value::Double(f64::NAN))), 0);
        assert_eq!(as_int(Some(&Value::Bool(true))), 0);
        assert_eq!(as_int(Some(&Value::Str("0012".into()))), 12);
        assert_eq!(as_int(Some(&Value::Str("1".repeat(19).into()))), 0);
        assert_eq!(as_float(Some(&Value::Int(i64::MIN))), None);
        assert_eq!(
            as_float(Some(&Value::Int(-MAX_COUNT))),
            Some(-MAX_COUNT as f64)
        );
    }
}
