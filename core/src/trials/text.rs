//! Python's string rules the trial conversion depends on, so names and error types come out as
//! `semconv/common.py` makes them: `str.strip`/`str.isspace`, `clip`, `short_error_name`,
//! `error_limit`.

/// The longest name kept (`common.MAX_NAME_CHARS`), in characters.
pub const MAX_NAME_CHARS: usize = 256;

/// `str.isspace`: Unicode White_Space plus the four ASCII separators U+001C..U+001F.
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// `common.clip`: at most MAX_NAME_CHARS characters (a Rust string is already encodable).
pub fn clip(s: &str) -> &str {
    match s.char_indices().nth(MAX_NAME_CHARS) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

/// The first `n` characters of `s`.
fn chars_prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

/// The class name of `<class 'NAME'>` (the closing `'>` may be clipped off), as the regex
/// `<class '([^'\s]+)(?:'>|$)` matched in full.
fn class_repr(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<class '")?;
    let end = rest
        .char_indices()
        .find(|&(_, c)| c == '\'' || py_isspace(c))
        .map_or(rest.len(), |(i, _)| i);
    if end == 0 {
        return None;
    }
    match &rest[end..] {
        "" | "'>" => Some(&rest[..end]),
        _ => None,
    }
}

/// `common.short_error_name`.
pub fn short_error_name(raw: &str) -> &str {
    let mut text = py_strip(raw);
    if let Some(name) = class_repr(chars_prefix(text, 4 * MAX_NAME_CHARS)) {
        text = name;
    }
    if text.chars().any(py_isspace) {
        return "_OTHER";
    }
    let last = text.rsplit('.').next().unwrap_or("");
    clip(if last.is_empty() { "_OTHER" } else { last })
}

/// Which boundary an error name signals (`common.error_limit` without status text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    MaxSteps,
    Timeout,
}

const MAX_STEPS_ERRORS: [&str; 3] = [
    "UsageLimitExceeded",
    "MaxTurnsExceeded",
    "GraphRecursionError",
];

/// `common.error_limit(error, None)`. Only ASCII letters can spell "timeout": Python's
/// `lower()` maps no other character to one of them (U+0130 becomes "i" plus a combining dot),
/// so lowering ASCII alone gives the same answer.
pub fn error_limit(error: &str) -> Option<Limit> {
    if MAX_STEPS_ERRORS.contains(&error) {
        return Some(Limit::MaxSteps);
    }
    if error.to_ascii_lowercase().contains("timeout") || error == "DeadlineExceeded" {
        return Some(Limit::Timeout);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names() {
        assert_eq!(
            short_error_name("<class 'openai.RateLimitError'>"),
            "RateLimitError"
        );
        assert_eq!(short_error_name("<class 'a.B"), "B");
        assert_eq!(short_error_name("  x.y.Z\u{1c}"), "Z");
        assert_eq!(short_error_name("a message with spaces"), "_OTHER");
        assert_eq!(short_error_name("pkg."), "_OTHER");
        assert_eq!(short_error_name("<class ''>"), "_OTHER");
    }

    #[test]
    fn limits() {
        assert_eq!(error_limit("ReadTimeoutError"), Some(Limit::Timeout));
        assert_eq!(error_limit("MaxTurnsExceeded"), Some(Limit::MaxSteps));
        assert_eq!(error_limit("ValueError"), None);
    }

    #[test]
    fn clip_counts_characters() {
        let long = "é".repeat(300);
        assert_eq!(clip(&long).chars().count(), MAX_NAME_CHARS);
    }
}
