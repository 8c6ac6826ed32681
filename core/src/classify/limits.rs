//! Whether a failure says an agent ran out of steps: one rule over its error type, status text
//! and exception message (semconv/limits.py, docs/semantics.md#detection-rules). A word of
//! maximum meeting a word of steps, or a word of steps meeting a word of limit; LangGraph's
//! `GraphRecursionError` and pydantic-ai's `UsageLimitExceeded` by name, the latter unless a text
//! names a limit of tokens. Texts are read here only, never kept.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::pystr;

const B: &str = "(?:^|[^a-z0-9])";
const E: &str = "(?:[^a-z0-9]|$)";
const S: &str = "[^a-z0-9]{1,4}";

fn steps() -> String {
    format!("(?:turns?|steps?|iterations?|iter|rounds?|cycles?|(?:llm|model|tool){S}calls?)")
}

fn max() -> String {
    format!("(?:max|maximum|maximal){S}(?:number{S}of{S}|allowed{S})?")
}

static STRONG: LazyLock<Regex> = LazyLock::new(|| {
    let (steps, max) = (steps(), max());
    let over = "(?:exceeded|exceeds|exceed|reached|hit|exhausted|limit|budget)";
    let parts = [
        format!("{B}{max}{steps}[^a-z0-9](?:[^.;!?\\n]{{0,40}}?[^a-z0-9])?{over}{E}"),
        format!("{B}(?:reached|exceeded|hit|exhausted){S}(?:the{S})?{max}{steps}{E}"),
        format!("{B}exceeded{S}(?:the{S})?[0-9]+{S}{steps}{E}"),
        format!("{B}(?:{steps}|recursion){S}(?:limit|budget){E}"),
        format!("{B}requests?_limit{E}"),
        format!("{B}graph{S}recursion{E}"),
    ];
    Regex::new(&parts.join("|")).expect("the steps pattern compiles")
});
static USAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!("{B}usage{S}limit{S}exceeded{E}")).expect("the usage pattern compiles")
});
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    let max = max();
    Regex::new(&format!(
        "{B}tokens?{S}(?:limit|budget){E}|{B}{max}(?:[a-z]+{S})?tokens?{E}"
    ))
    .expect("the tokens pattern compiles")
});

/// The text as the rule reads it: a blank at each camelCase or acronym boundary (`MaxTurns`,
/// `LLMCalls`), then Python's lower case.
fn words(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut split = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            let before = chars[i - 1];
            let after = chars.get(i + 1).copied();
            if before.is_ascii_lowercase()
                || before.is_ascii_digit()
                || (before.is_ascii_uppercase() && after.is_some_and(|a| a.is_ascii_lowercase()))
            {
                split.push(' ');
            }
        }
        split.push(c);
    }
    match pystr::lower(&split) {
        Cow::Borrowed(_) => split,
        Cow::Owned(lowered) => lowered,
    }
}

/// Whether one of `candidates` says the run ran out of steps; `texts`, every text of the
/// failure, may say instead that a usage limit was one of tokens.
pub fn says_max_steps(candidates: &[Option<&str>], texts: &[Option<&str>]) -> bool {
    let read: Vec<String> = candidates
        .iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .map(|t| words(t))
        .collect();
    if read.iter().any(|t| STRONG.is_match(t)) {
        return true;
    }
    read.iter().any(|t| USAGE.is_match(t))
        && !texts
            .iter()
            .flatten()
            .filter(|t| !t.is_empty())
            .any(|t| TOKENS.is_match(&words(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_read_as_words() {
        assert_eq!(
            words("LLMCallsLimitExceededError"),
            "llm calls limit exceeded error"
        );
        assert_eq!(words("MaxTurnsExceeded"), "max turns exceeded");
        assert_eq!(words("MAX_STEPS"), "max_steps");
    }

    #[test]
    fn a_usage_limit_of_tokens_is_no_step_limit() {
        let tokens = Some("Exceeded the total_tokens_limit of 100");
        assert!(says_max_steps(&[Some("UsageLimitExceeded")], &[None]));
        assert!(!says_max_steps(&[Some("UsageLimitExceeded")], &[tokens]));
    }
}
