//! Span-name patterns (`{span_name: REGEX}`): the whole name matched, group 1 captured.
//!
//! Both kinds run on the `regex` crate, which matches in linear time like RE2. The built-in
//! tables' patterns are Python `re` patterns compiled with `re.S`; they use only syntax both
//! engines read alike (tests/test_core_classifier.py checks each on the fixture corpus). A
//! spec's patterns are RE2's (semconv/convention.py compiles them with `user_regex`), whose
//! `\d`, `\w`, `\s` and `\b` are ASCII where this crate's are Unicode: `re2_to_regex` spells
//! those out, so a spec matches the same names in the core as in Python.

use regex::Regex;

/// A compile error in one line (the crate's own message spans several, with a caret): what a
/// spec's error line says.
pub fn one_line(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    last.trim().trim_start_matches("error: ").to_owned()
}

/// A compiled span-name pattern: group 1 of a whole-name match.
#[derive(Debug)]
pub struct NamePattern(Regex);

impl NamePattern {
    /// A built-in table's pattern (Python `re`, `re.S`, `fullmatch`).
    pub fn builtin(pattern: &str) -> Result<Self, regex::Error> {
        Regex::new(&format!("(?s)\\A(?:{pattern})\\z")).map(Self)
    }

    /// A spec's pattern (RE2, wrapped as `_UserPattern` wraps it).
    pub fn user(pattern: &str) -> Result<Self, regex::Error> {
        let pattern = re2_to_regex(pattern);
        Regex::new(&format!("(?s)\\A(?:{pattern})\\z")).map(Self)
    }

    /// Group 1 of a whole-name match: None when the name does not match; an empty string when
    /// the group took no part (Python reads that as no value too).
    pub fn capture<'t>(&self, name: &'t str) -> Option<&'t str> {
        let found = self.0.captures(name)?;
        Some(found.get(1).map_or("", |m| m.as_str()))
    }
}

// RE2's ASCII Perl classes, as this crate spells them (RE2's `\s` has no vertical tab).
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
const SPACE: &str = "\\t\\n\\x0C\\r ";

/// The code of an RE2 octal escape `\\<first><rest...>` and how many of `rest` it takes: `\\0`
/// and up to two more octal digits, or a digit 1-7 followed by one or two more (a lone `\\1` is
/// a backreference, which RE2 refuses: the spec never holds one).
fn octal(first: char, rest: &[char]) -> Option<(u32, usize)> {
    let digit = |c: Option<&char>| c.and_then(|c| c.to_digit(8));
    let mut code = first.to_digit(8)?;
    if first != '0' && digit(rest.first()).is_none() {
        return None;
    }
    let mut taken = 0;
    while taken < 2 {
        let Some(d) = digit(rest.get(taken)) else {
            break;
        };
        code = code * 8 + d;
        taken += 1;
    }
    Some((code, taken))
}

/// An RE2 pattern in the `regex` crate's syntax: Perl classes made ASCII, and inside a class
/// the characters this crate reads as nesting or set operators (`[`, `&&`, `~~`) escaped.
pub fn re2_to_regex(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = false; // just after `[` or `[^`: a `]` here is a member
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let e = chars[i + 1];
            i += 2;
            if let Some(code) = octal(e, &chars[i..]) {
                // RE2 reads `\0`, `\012`, `\101` as octal codes; this crate has no octal
                i += code.1;
                out.push_str(&format!("\\x{{{:x}}}", code.0));
                class_start = false;
                continue;
            }
            if e.is_ascii_punctuation() {
                // an escaped punctuation mark is itself in RE2 (`\<` too, which this crate
                // reads as a word start)
                out.push_str(&format!("\\x{{{:x}}}", e as u32));
                class_start = false;
                continue;
            }
            let class = match e {
                'd' | 'D' => Some(DIGIT),
                'w' | 'W' => Some(WORD),
                's' | 'S' => Some(SPACE),
                _ => None,
            };
            match (class, in_class) {
                (Some(members), false) => {
                    let negate = if e.is_ascii_uppercase() { "^" } else { "" };
                    out.push_str(&format!("[{negate}{members}]"));
                }
                (Some(members), true) if e.is_ascii_lowercase() => out.push_str(members),
                (Some(members), true) => out.push_str(&format!("[^{members}]")),
                (None, false) if e == 'b' || e == 'B' => out.push_str(&format!("(?-u:\\{e})")),
                (None, _) => {
                    out.push('\\');
                    out.push(e);
                }
            }
            class_start = false;
            continue;
        }
        i += 1;
        if !in_class {
            if c == '[' {
                in_class = true;
                class_start = true;
                out.push('[');
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                continue;
            }
            out.push(c);
            continue;
        }
        match c {
            ']' if !class_start => {
                in_class = false;
                out.push(']');
            }
            '[' if chars.get(i) == Some(&':') => {
                // a POSIX class `[:alpha:]`: copied whole (both engines read it as ASCII)
                let end = (i..chars.len().saturating_sub(1))
                    .find(|&at| chars[at] == ':' && chars[at + 1] == ']');
                match end {
                    Some(at) => {
                        out.extend(&chars[i - 1..at + 2]);
                        i = at + 2;
                    }
                    None => out.push_str("\\["),
                }
            }
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        class_start = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::NamePattern;

    #[test]
    fn captures_group_one_of_the_whole_name() {
        let p = NamePattern::builtin("(.+?)(?:\\.run)?").expect("compiles");
        assert_eq!(p.capture("agent.run"), Some("agent"));
        assert_eq!(p.capture("a\nb"), Some("a\nb"));
        let p = NamePattern::builtin("execute_tool (.+)").expect("compiles");
        assert_eq!(p.capture("xexecute_tool a"), None);
    }

    #[test]
    fn user_patterns_read_perl_classes_as_re2() {
        let p = NamePattern::user("(\\d+)").expect("compiles");
        assert_eq!(p.capture("123"), Some("123"));
        assert_eq!(p.capture("١٢"), None); // Arabic-Indic digits: not RE2's \d
        let p = NamePattern::user("a\\s(\\w+)").expect("compiles");
        assert_eq!(p.capture("a\u{b}x"), None); // RE2's \s has no vertical tab
        assert_eq!(p.capture("a bé"), None);
        let p = NamePattern::user("([[a&&b]+)").expect("compiles");
        assert_eq!(p.capture("[&ab"), Some("[&ab"));
        let p = NamePattern::user("([]x[:digit:]]+)").expect("compiles");
        assert_eq!(p.capture("]x1"), Some("]x1"));
        let p = NamePattern::user("(x)?y").expect("compiles");
        assert_eq!(p.capture("y"), Some(""));
        let p = NamePattern::user("a\\101\\0(\\<.*)").expect("compiles");
        assert_eq!(p.capture("aA\0<b"), Some("<b"));
        let p = NamePattern::user("([\\101-\\103]+)").expect("compiles");
        assert_eq!(p.capture("ABC"), Some("ABC"));
    }
}
