//! A span's error type and the boundary its failure signals (semconv/common.py `error_type`,
//! `exception_error`, `short_error_name`, `limit_signal`, `error_limit`). Error names become
//! state keys, so a sentence is never one; status text and exception messages are read only to
//! see a limit.

use super::limits::says_max_steps;
use super::step::Limit;
use super::values::{clip, is_text};
use crate::pystr;
use crate::span::{Span, Value, STATUS_ERROR};

pub const OTHER_ERROR: &str = "_OTHER";

/// `"<class 'openai.RateLimitError'>"` and `openai.RateLimitError` become `RateLimitError`; a
/// text with a blank is no type (`_OTHER`); clipped.
pub fn short_error_name(raw: &str) -> String {
    let stripped = pystr::strip(raw);
    let text = class_repr(pystr::prefix(stripped, 4 * pystr::MAX_NAME_CHARS)).unwrap_or(stripped);
    if pystr::has_space(text) {
        return OTHER_ERROR.to_owned();
    }
    match text.rsplit_once('.').map_or(text, |(_, last)| last) {
        "" => OTHER_ERROR.to_owned(),
        last => clip(last),
    }
}

/// The class name in `<class 'NAME'>` (the `'>` may be past a clipped end): what the
/// fullmatch of `<class '([^'\s]+)(?:'>|$)` captures.
fn class_repr(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<class '")?;
    let end = rest
        .find(|c: char| c == '\'' || pystr::is_space(c))
        .unwrap_or(rest.len());
    let (name, tail) = rest.split_at(end);
    (!name.is_empty() && (tail.is_empty() || tail == "'>")).then_some(name)
}

/// `error.type`, else the first exception event's type, else `_OTHER` for an ERROR status; an
/// error.type that names no type (a message, `unknown`) defers to the event.
pub fn error_type(span: &Span) -> Option<String> {
    let attrs = &span.attributes;
    if let Some(Value::Str(raw)) = attrs.get("error.type") {
        if !raw.is_empty() {
            let name = short_error_name(raw);
            if name != OTHER_ERROR && pystr::lower(&name) != "unknown" {
                return Some(name);
            }
            return Some(exception_type(span).unwrap_or_else(|| OTHER_ERROR.to_owned()));
        }
    }
    let failed =
        span.status_code == STATUS_ERROR || is_text(attrs.get("gen_ai.tool.status"), "error");
    failed.then(|| exception_type(span).unwrap_or_else(|| OTHER_ERROR.to_owned()))
}

fn exception_type(span: &Span) -> Option<String> {
    span.events
        .iter()
        .filter(|e| e.name == "exception")
        .find_map(|e| match e.attributes.get("exception.type") {
            Some(Value::Str(t)) if !t.is_empty() => Some(short_error_name(t)),
            _ => None,
        })
}

/// What an `exception` event says a span failed with (an entry's `{exception: true}` source),
/// whatever its status (an instrumentation records only an exception left unhandled, and one
/// that marks its spans OK says nothing: docs/semantics.md#detection-rules): its error type as
/// `error_type` reads it, else `true`; None without such an event.
pub fn exception_error(span: &Span) -> Option<Value> {
    if !span.events.iter().any(|e| e.name == "exception") {
        return None;
    }
    Some(
        error_type(span)
            .or_else(|| exception_type(span))
            .map_or(Value::Bool(true), |t| Value::Str(t.into())),
    )
}

/// Which boundary a failure signals, from its name, the status text and the first exception
/// event's message.
pub fn limit_signal(span: &Span, error: Option<&str>) -> Option<Limit> {
    let error = error?;
    error_limit(
        error,
        &[span.status_description.as_deref(), exception_message(span)],
    )
}

fn exception_message(span: &Span) -> Option<&str> {
    let event = span.events.iter().find(|e| e.name == "exception")?;
    match event.attributes.get("exception.message") {
        Some(Value::Str(m)) => Some(m),
        _ => None,
    }
}

/// `limit_signal` from the error name and the failure's texts alone: the name first, then a
/// timeout by name, then the texts (limits.rs).
pub fn error_limit(error: &str, texts: &[Option<&str>]) -> Option<Limit> {
    let mut all = vec![Some(error)];
    all.extend_from_slice(texts);
    if says_max_steps(&[Some(error)], &all) {
        return Some(Limit::MaxSteps);
    }
    if pystr::lower(error).contains("timeout") || error == "DeadlineExceeded" {
        return Some(Limit::Timeout);
    }
    says_max_steps(texts, &all).then_some(Limit::MaxSteps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_names_are_short() {
        assert_eq!(
            short_error_name(" <class 'openai.RateLimitError'> "),
            "RateLimitError"
        );
        assert_eq!(short_error_name("<class 'a.B"), "B");
        assert_eq!(short_error_name("<class 'a.B'>x"), OTHER_ERROR);
        assert_eq!(short_error_name("openai."), OTHER_ERROR);
        assert_eq!(short_error_name("bad\u{1c}thing"), OTHER_ERROR);
    }
}
