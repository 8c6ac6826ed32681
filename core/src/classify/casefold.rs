//! Python's `str.casefold()`, which the conventions use to compare strings without regard to
//! case (`AGENT` and `agent` are one span kind, docs/conventions.md).
//!
//! Rust's `to_lowercase` is not the same mapping (`ß` folds to `ss`, `ς` to `σ`), so the fold
//! is Python's own, written out as a table by `core/tools/casefold_table.py`.

use std::borrow::Cow;

use super::casefold_table::FOLDS;

/// `text.casefold()`, borrowing when nothing changes (the common, ASCII-lowercase case).
pub fn casefold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            return Cow::Owned(text.to_ascii_lowercase());
        }
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            match FOLDS.binary_search_by_key(&(c as u32), |&(code, _)| code) {
                Ok(i) => out.push_str(FOLDS[i].1),
                Err(_) => out.push(c),
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::casefold;

    #[test]
    fn folds_as_python() {
        assert_eq!(casefold("AGENT"), "agent");
        assert_eq!(casefold("Straße"), "strasse");
        assert_eq!(casefold("ΣΑΣ ς"), "σασ σ");
        assert_eq!(casefold("ﬁ"), "fi");
    }
}
