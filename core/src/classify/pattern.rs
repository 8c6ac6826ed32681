//! Span-name patterns (`{span_name: REGEX}`): the whole name matched, group 1 captured.
//!
//! Both kinds run on the `regex` crate, which matches in linear time like RE2. The built-in
//! tables' patterns are Python `re` patterns compiled with `re.S`; they use only syntax both
//! engines read alike (tests/test_core_classifier.py checks each on the fixture corpus). A
//! spec's patterns are RE2's (semconv/convention.py compiles them with `user_regex`), whose
//! `\d`, `\w`, `\s` and `\b` are ASCII where this crate's are Unicode, and whose classes have
//! no set operators (`[a-z--_]` is a range from `-` to `_` in RE2, a difference here):
//! `re2_to_regex` writes a pattern as RE2 reads it, so a spec matches the same names in the
//! core as in Python.

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

/// One character as this crate reads it whatever surrounds it.
fn literal(out: &mut String, code: u32) {
    out.push_str(&format!("\\x{{{code:x}}}"));
}

/// Where the `{...}` starting at `at` ends, if it is whole (`\\x{41}`, `\\p{Greek}`).
fn braced(chars: &[char], at: usize) -> Option<usize> {
    if chars.get(at) != Some(&'{') {
        return None;
    }
    (at..chars.len()).find(|&i| chars[i] == '}').map(|i| i + 1)
}

/// Where an RE2 counted repetition `{n}`, `{n,}` or `{n,m}` starting at `at` ends; RE2 reads
/// any other `{` as itself (`{,3}` too, which this crate would read as a repetition).
fn repetition(chars: &[char], at: usize) -> Option<usize> {
    let digits = |from: usize| (from..chars.len()).find(|&i| !chars[i].is_ascii_digit());
    let after = digits(at + 1)?;
    if after == at + 1 {
        return None;
    }
    let end = match chars.get(after) {
        Some(',') => digits(after + 1)?,
        _ => after,
    };
    (chars.get(end) == Some(&'}')).then_some(end + 1)
}

/// The character an escape inside a class stands for (`\\n`, `\\x41`, `\\x{41}`, `\\101`,
/// `\\-`) and where it ends; None for a class escape (`\\d`, `\\pL`), handled by the caller.
fn class_escape(chars: &[char], at: usize) -> Option<(u32, usize)> {
    let e = *chars.get(at + 1)?;
    if let Some((code, taken)) = octal(e, chars.get(at + 2..).unwrap_or_default()) {
        return Some((code, at + 2 + taken));
    }
    let simple = match e {
        'a' => Some(7),
        'f' => Some(12),
        't' => Some(9),
        'n' => Some(10),
        'r' => Some(13),
        'v' => Some(11),
        _ if e.is_ascii_punctuation() => Some(e as u32),
        _ => None,
    };
    if let Some(code) = simple {
        return Some((code, at + 2));
    }
    if e != 'x' {
        return None;
    }
    if let Some(end) = braced(chars, at + 2) {
        let hex: String = chars[at + 3..end - 1].iter().collect();
        return u32::from_str_radix(&hex, 16).ok().map(|code| (code, end));
    }
    let hex: String = chars.get(at + 2..at + 4)?.iter().collect();
    u32::from_str_radix(&hex, 16)
        .ok()
        .map(|code| (code, at + 4))
}

/// One member of a class at `at` as RE2 reads it: a character (escaped or not) and where it
/// ends, None for a class escape.
fn class_char(chars: &[char], at: usize) -> Option<(u32, usize)> {
    match chars.get(at)? {
        '\\' => class_escape(chars, at),
        &c => Some((c as u32, at + 1)),
    }
}

/// A Perl class `\\d`, `\\w`, `\\s` (or negated) as RE2's ASCII members, inside a class or not.
fn perl_class(e: char, in_class: bool, out: &mut String) -> bool {
    let members = match e {
        'd' | 'D' => DIGIT,
        'w' | 'W' => WORD,
        's' | 'S' => SPACE,
        _ => return false,
    };
    let negate = e.is_ascii_uppercase();
    match (in_class, negate) {
        (true, false) => out.push_str(members),
        _ => out.push_str(&format!("[{}{members}]", if negate { "^" } else { "" })),
    }
    true
}

/// The class opening at `at` (`[`), read member by member as RE2's parser reads it (a `]`
/// first is a member, `-` makes a range after a character unless a `]` follows, `[:name:]`
/// is a POSIX class), each character written as `\\x{..}`: this crate's class operators
/// (`--`, `&&`, `~~`, a nested `[`) can then never arise. Returns where it ends.
fn class(chars: &[char], mut at: usize, out: &mut String) -> usize {
    out.push('[');
    at += 1;
    if chars.get(at) == Some(&'^') {
        out.push('^');
        at += 1;
    }
    let mut first = true;
    while let Some(&c) = chars.get(at) {
        if c == ']' && !first {
            out.push(']');
            return at + 1;
        }
        first = false;
        if c == '[' && chars.get(at + 1) == Some(&':') {
            let close = (at + 2..chars.len().saturating_sub(1))
                .find(|&i| chars[i] == ':' && chars[i + 1] == ']');
            if let Some(close) = close {
                out.extend(&chars[at..close + 2]); // both engines read these names as ASCII
                at = close + 2;
                continue;
            }
        }
        if c == '\\' {
            let e = chars.get(at + 1).copied().unwrap_or('\\');
            if perl_class(e, true, out) {
                at += 2;
                continue;
            }
            if matches!(e, 'p' | 'P') {
                let end = braced(chars, at + 2).unwrap_or(at + 3).min(chars.len());
                out.extend(&chars[at..end]);
                at = end;
                continue;
            }
        }
        let Some((low, next)) = class_char(chars, at) else {
            // an escape RE2 refuses: the spec refused it before the core sees it
            out.extend(chars.get(at..at + 2).unwrap_or_default());
            at += 2;
            continue;
        };
        at = next;
        literal(out, low);
        if chars.get(at) == Some(&'-') && chars.get(at + 1).is_some_and(|&n| n != ']') {
            if let Some((high, next)) = class_char(chars, at + 1) {
                out.push('-');
                literal(out, high);
                at = next;
            }
        }
    }
    at
}

/// An RE2 pattern in the `regex` crate's syntax, read as RE2 reads it: Perl classes made
/// ASCII, `\\b` ASCII, `\\Q...\\E` and octal and punctuation escapes as the characters they
/// stand for, a `{` that starts no repetition as itself, classes member by member ([`class`]).
/// Any other syntax is copied, and the crate refuses (at spec load) what it does not know.
pub fn re2_to_regex(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '[' => i = class(&chars, i, &mut out),
            '{' => match repetition(&chars, i) {
                Some(end) => {
                    out.extend(&chars[i..end]);
                    i = end;
                }
                None => {
                    out.push_str("\\{");
                    i += 1;
                }
            },
            '\\' if i + 1 < chars.len() => i = escape(&chars, i, &mut out),
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The escape at `at`, outside a class; returns where it ends.
fn escape(chars: &[char], at: usize, out: &mut String) -> usize {
    let e = chars[at + 1];
    if e == 'Q' {
        // literal text up to `\E` or the end, as RE2 reads it
        let mut i = at + 2;
        while let Some(&c) = chars.get(i) {
            if c == '\\' && chars.get(i + 1) == Some(&'E') {
                return i + 2;
            }
            literal(out, c as u32);
            i += 1;
        }
        return i;
    }
    if let Some((code, taken)) = octal(e, chars.get(at + 2..).unwrap_or_default()) {
        // RE2 reads `\0`, `\012`, `\101` as octal codes; this crate has no octal
        literal(out, code);
        return at + 2 + taken;
    }
    if e.is_ascii_punctuation() {
        // itself in RE2 (`\<` too, which this crate reads as a word start)
        literal(out, e as u32);
        return at + 2;
    }
    if perl_class(e, false, out) {
        return at + 2;
    }
    if e == 'b' || e == 'B' {
        out.push_str(&format!("(?-u:\\{e})"));
        return at + 2;
    }
    // `\pL`, `\p{Greek}`, `\x{41}`, `\z`, `\A`, `\n`...: the same in both, braces included
    let end = match e {
        'p' | 'P' | 'x' => braced(chars, at + 2).unwrap_or(at + 2),
        _ => at + 2,
    };
    out.extend(&chars[at..end]);
    end
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

    #[test]
    fn user_patterns_read_classes_and_escapes_as_re2() {
        // a range from `-` to `_` in RE2 (digits, capitals...), not a set difference
        let p = NamePattern::user("execute_tool ([a-z--_]+)").expect("compiles");
        assert_eq!(p.capture("execute_tool delete_repo"), Some("delete_repo"));
        assert_eq!(p.capture("execute_tool A=9"), Some("A=9"));
        let p = NamePattern::user("([a&&b~~c-]+)").expect("compiles");
        assert_eq!(p.capture("a&b~c-"), Some("a&b~c-"));
        assert_eq!(p.capture("d"), None);
        let p = NamePattern::user("(\\pL+)\\z").expect("compiles");
        assert_eq!(p.capture("héllo"), Some("héllo"));
        let p = NamePattern::user("\\Q[a].*\\E(\\p{Greek}+)").expect("compiles");
        assert_eq!(p.capture("[a].*αβ"), Some("αβ"));
        assert_eq!(p.capture("[a]xxαβ"), None);
        let p = NamePattern::user("(a{,2})").expect("compiles"); // RE2: the text `{,2}`
        assert_eq!(p.capture("a{,2}"), Some("a{,2}"));
        assert_eq!(p.capture("aa"), None);
        let p = NamePattern::user("(a{2}[\\x{41}-\\x43\\-]+)").expect("compiles");
        assert_eq!(p.capture("aaAC-"), Some("aaAC-"));
    }
}
