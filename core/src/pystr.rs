//! Python's `str` semantics where Rust's differ, so the core's answers equal the Python
//! classifier's (semconv/common.py): whitespace (`str.isspace` also counts U+001C..U+001F, which
//! Rust's `char::is_whitespace` does not), lengths and slices in code points, and `str.lower`.
//!
//! `lower` of non-ASCII text asks Python itself: its case tables follow the interpreter's Unicode
//! version, which Rust's standard library need not share, and such text is rare in the fields
//! lowered here (error names, status text, finish reasons).

use pyo3::prelude::*;
use pyo3::types::PyString;
use std::borrow::Cow;

/// Names become state keys and metric labels: bounded at the source (common.MAX_NAME_CHARS).
pub const MAX_NAME_CHARS: usize = 256;

/// `c.isspace()` for one character, as CPython defines it (bidirectional class WS, B or S, or
/// category Zs).
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `s.strip()` with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `any(c.isspace() for c in s)`.
pub fn has_space(s: &str) -> bool {
    s.chars().any(is_space)
}

/// `len(s)`: code points, not bytes.
pub fn len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// `s[:n]` in code points.
pub fn prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}

/// `s[n:]` in code points.
pub fn suffix_from(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((at, _)) => &s[at..],
        None => "",
    }
}

/// common.clip: a name cut to MAX_NAME_CHARS code points (a Rust string is already encodable).
pub fn clip(s: &str) -> String {
    prefix(s, MAX_NAME_CHARS).to_owned()
}

/// `s.isascii() and s.isdigit()`: one or more ASCII digits.
pub fn is_ascii_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `s.lower()`.
pub fn lower(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(s.to_ascii_lowercase())
        } else {
            Cow::Borrowed(s)
        }
    } else {
        Cow::Owned(python_lower(s))
    }
}

/// Python's own `str.lower`; Rust's `to_lowercase` only if Python cannot answer (it always can:
/// the text is valid UTF-8 and `lower` does not fail).
fn python_lower(s: &str) -> String {
    Python::attach(|py| {
        PyString::new(py, s)
            .call_method0(pyo3::intern!(py, "lower"))
            .and_then(|lowered| lowered.extract::<String>())
            .unwrap_or_else(|_| s.to_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_pythons() {
        assert!(is_space('\u{1c}') && !'\u{1c}'.is_whitespace());
        assert!(!is_space('\u{200b}'));
        assert_eq!(strip("\u{1f} a\u{3000}"), "a");
    }

    #[test]
    fn slices_count_code_points() {
        assert_eq!(prefix("äbc", 2), "äb");
        assert_eq!(suffix_from("äbc", 1), "bc");
        assert_eq!(suffix_from("ä", 3), "");
        assert_eq!(len("äb"), 2);
        assert_eq!(clip(&"é".repeat(300)).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn digits_are_ascii_only() {
        assert!(is_ascii_digits("0123"));
        assert!(!is_ascii_digits("") && !is_ascii_digits("١٢") && !is_ascii_digits("1 "));
    }
}
