//! Inference's reading of a span name (semconv/inference.py: `name_affix`, `span_affix`,
//! `_client_call`, `lifecycle_stem`, `go_function`, `_tool_prefixed`, `agent_name_ok`, `_last_crumb`,
//! `_code_path`): the kind word a name carries as prefix or suffix, and the name without it,
//! with the (glob, regex) that pins the span by name. The glob and the regex are written into
//! conventions files and compiled by Python's `re`: they are byte for byte what `glob_literal` and
//! `re.escape` (Python 3.11) write.
//!
//! The patterns were RE2's (`_linear` in inference.py: `\s` Python's, `\w` and `\d` ASCII,
//! `.` any character) or Python `re`'s (`\w`, `\d` Unicode, `$` also before a final newline).
//! RE2's run on the `regex` crate with those classes written out; `re`'s are written by hand
//! where a Unicode class is repeated a counted number of times (the crate's automaton would
//! hold a copy of the class per count), and where `re` case-folds as the crate does not.

use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::PyString;
use regex::{Captures, Regex, RegexBuilder};

use crate::door::door;
use crate::inference::{
    affix_kind, call_owner, in_ranges, is_word, norm, text, vocabulary, words, Vocabulary,
};
use crate::pyclass_table::{ID_CONTINUE, ID_START, WORD};
use crate::pystr;

/// (kind, the name without its affix, (glob, regex with the name as `(.+)`)).
pub type Affix = (String, String, (String, String));

/// `str.isidentifier()`.
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| {
        c.is_ascii_alphabetic() || c == '_' || (!c.is_ascii() && in_ranges(c, ID_START))
    }) && chars.all(|c| {
        if c.is_ascii() {
            c.is_ascii_alphanumeric() || c == '_'
        } else {
            in_ranges(c, ID_CONTINUE)
        }
    })
}

/// `glob_literal`: a glob matching exactly `text` (its `*`, `?` and `[` escaped).
pub fn glob_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | '?' | '*') {
            out.push('[');
            out.push(c);
            out.push(']');
        } else {
            out.push(c);
        }
    }
    out
}

/// `re.escape` of Python 3.11: a backslash before each of its special characters.
pub fn re_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn pinned(head: &str, tail: &str) -> (String, String) {
    (
        glob_literal(head) + "*" + &glob_literal(tail),
        re_escape(head) + "(.+)" + &re_escape(tail),
    )
}

fn exactly(name: &str) -> (String, String) {
    (glob_literal(name), re_escape(name))
}

/// Python's `\s` as a class's contents (`str.isspace`).
const SPACE: &str = r"\t-\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}";

fn class(ranges: &[(char, char)]) -> String {
    ranges
        .iter()
        .map(|&(a, b)| format!("\\x{{{:x}}}-\\x{{{:x}}}", a as u32, b as u32))
        .collect()
}

/// A pattern with `{S}` (Python's `\s`), `{NS}` (`\S`) and `{W}` (Python's `\w`, a class's
/// contents) written out.
fn compile(pattern: &str) -> Regex {
    let pattern = pattern
        .replace("{NS}", &format!("[^{SPACE}]"))
        .replace("{S}", &format!("[{SPACE}]"))
        .replace("{W}", &class(WORD));
    RegexBuilder::new(&pattern)
        .size_limit(1 << 26)
        .build()
        .unwrap_or_else(|error| panic!("inference's pattern does not compile: {error}"))
}

macro_rules! pattern {
    ($name:ident, $text:expr) => {
        fn $name() -> &'static Regex {
            static COMPILED: OnceLock<Regex> = OnceLock::new();
            COMPILED.get_or_init(|| compile($text))
        }
    };
}

// an affix's separator: `.`, `:`, a space, or a path's `::`; `Calling tool x`: a verb and its kind
pattern!(
    prefix,
    r"(?s)^{S}*([A-Za-z][A-Za-z_ -]{0,30}?){S}*(?:::|[.:]){S}*(.+?){S}*$|^{S}*({NS}+(?:{S}+(?i:agent|tool))?){S}+(.+?){S}*$"
);
pattern!(
    suffix,
    r"(?s)^{S}*(.+?){S}*(?:::|[.: ]){S}*([A-Za-z_]{2,30}){S}*$|^{S}*(.+?)[_-](agent|tool){S}*$"
);
// a name in quotes, then at most a word of what was done (`'weather' generate`)
pattern!(
    quoted,
    r#"(?s)^(')([^']{1,64})'(?:{S}+[A-Za-z_][0-9A-Za-z_]{0,30})?$|^(")([^"]{1,64})"(?:{S}+[A-Za-z_][0-9A-Za-z_]{0,30})?$"#
);
// a kind word, then a name in brackets (`Agent[weather]`), or a name, then its kind word in
// brackets (`weather (agent)`)
pattern!(
    bracketed,
    r#"(?s)^{S}*([A-Za-z][0-9A-Za-z_ -]{0,30}?){S}*[\[(<]{S}*([^\[\](){}<>'"]{1,64}?){S}*[\])>]{S}*$"#
);
pattern!(
    kind_bracketed,
    r#"(?s)^{S}*([^\[\](){}<>'"]{1,64}?){S}*[\[(<]{S}*([A-Za-z][0-9A-Za-z_ -]{0,30}?){S}*[\])>]{S}*$"#
);
// an event of a call's lifecycle recorded as a span: the call's dotted stem, a phase word
pattern!(
    phase,
    r"(?s)^{S}*((?:[A-Za-z_][0-9A-Za-z_]{0,63}\.){1,8}[A-Za-z_][0-9A-Za-z_]{0,63}?)(?:\.run)?\.(?i:(?:on_?)?(?:start(?:ed)?|begin|finish(?:ed)?|success|succeeded|error|fail(?:ed|ure)?|end(?:ed)?|complete(?:d)?|new_?token|chunk))(?:\.custom)?(?:[-_][0-9]{1,6})?{S}*$"
);
// a class's name, then one of its methods, by `.` or `::`; what qualifies the class first
pattern!(
    class_method,
    r"^{S}*((?:[{W}/-]+(?:\.|::))*)(?:\(\*?([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\)|([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*))(?:\.|::)[A-Za-z_][{W}]*{S}*\n?\z"
);

/// Group `at`'s text, "" where it took no part (Python's `found.group(at)` is then None).
fn group<'t>(found: &Captures<'t>, at: usize) -> &'t str {
    found.get(at).map_or("", |m| m.as_str())
}

fn count_at_most(text: &str, most: usize) -> bool {
    text.chars().nth(most).is_none()
}

/// `[A-Za-z_]\w{0,n}` (Python's `\w`) for the whole of `text`.
fn identifier(text: &str, most: usize) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && count_at_most(chars.as_str(), most)
        && chars.all(is_word)
}

/// `_GO_FUNCTION.match(name)`: (group 1, group 2), the import path (a host, then its path, up
/// to its last `/`) and the package's function or method: `^\s*((?:[a-z0-9-]{1,63}\.){1,8}
/// [a-z]{2,63}(?:/[\w.~-]{1,100}){0,16}/)([A-Za-z_]\w{0,63}\.[\w.()*]{1,100})\s*$`.
pub fn go_function_parts(name: &str) -> Option<(&str, &str)> {
    let name = pystr::strip(name);
    let slash = name.rfind('/')?;
    let (head, function) = (&name[..=slash], &name[slash + 1..]);
    let (host, path) = head.split_once('/')?;
    let labels: Vec<&str> = host.split('.').collect();
    let (last, dotted) = labels.split_last()?;
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    if !(1..=8).contains(&dotted.len())
        || !dotted.iter().all(|l| label(l))
        || !(2..=63).contains(&last.len())
        || !last.bytes().all(|b| b.is_ascii_lowercase())
    {
        return None;
    }
    // the path's segments between the host and the last `/`
    let segments: Vec<&str> = path.split('/').collect();
    let segments = &segments[..segments.len() - 1];
    if segments.len() > 16
        || !segments.iter().all(|s| {
            !s.is_empty()
                && count_at_most(s, 100)
                && s.chars()
                    .all(|c| is_word(c) || matches!(c, '.' | '~' | '-'))
        })
    {
        return None;
    }
    let (package, member) = function.split_once('.')?;
    let ok = identifier(package, 63)
        && !member.is_empty()
        && count_at_most(member, 100)
        && member
            .chars()
            .all(|c| is_word(c) || matches!(c, '.' | '(' | ')' | '*'));
    ok.then_some((head, function))
}

/// `_GO_METHOD.match(function)`: (the type, the method) of a method of one of the package's
/// types (`agent.(*Agent).Run`, `tool.Tool.Call`):
/// `^[A-Za-z_]\w*\.(?:\(\*?([A-Za-z_]\w*)\)|([A-Z]\w*))\.(.+)$`.
fn go_method(function: &str) -> Option<(&str, &str)> {
    let (package, rest) = function.split_once('.')?;
    if !identifier(package, usize::MAX) {
        return None;
    }
    let (receiver, method) = if let Some(inner) = rest.strip_prefix('(') {
        let (inside, after) = inner.split_once(')')?;
        let typ = inside.strip_prefix('*').unwrap_or(inside);
        (
            identifier(typ, usize::MAX).then_some(typ)?,
            after.strip_prefix('.')?,
        )
    } else {
        let (typ, after) = rest.split_once('.')?;
        let upper = typ.starts_with(|c: char| c.is_ascii_uppercase()) && typ.chars().all(is_word);
        (upper.then_some(typ)?, after)
    };
    (!method.is_empty()).then_some((receiver, method))
}

/// `_HTTP.search(name)`: an HTTP method first (`POST /chat`), or a `/` anywhere.
fn http(name: &str) -> bool {
    if name.contains('/') {
        return true;
    }
    let name = name.trim_start_matches(pystr::is_space);
    [
        "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE",
    ]
    .iter()
    .any(|method| {
        name.strip_prefix(method)
            .is_some_and(|after| !after.starts_with(is_word))
    })
}

/// `_UNSET_PART.match(rest).end()`: a leading part that is a missing value formatted into the
/// name (`null-weather`), `(?i:null|none|undefined|nil)[-.:/_]` as `re` folds case (`İ` and
/// `ı` are an `i` there).
fn unset_end(rest: &str) -> Option<usize> {
    let same = |c: char, letter: char| {
        c.to_ascii_lowercase() == letter || (letter == 'i' && matches!(c, '\u{130}' | '\u{131}'))
    };
    ["null", "none", "undefined", "nil"]
        .iter()
        .find_map(|word| {
            let mut chars = rest.char_indices();
            for letter in word.chars() {
                chars.next().filter(|&(_, c)| same(c, letter))?;
            }
            let (at, c) = chars.next()?;
            "-.:/_".contains(c).then_some(at + c.len_utf8())
        })
}

/// `_METHOD.match(rest)`: (instance, `.method`, method) after a class's kind word
/// (`Agent.weather.attach_llm`): `^([A-Za-z_]\w{0,63})(\.([a-z_][a-z0-9_]{1,40}))$`.
fn instance_method(rest: &str) -> Option<(&str, &str, &str)> {
    let body = rest.strip_suffix('\n').unwrap_or(rest);
    let dot = body.find('.')?;
    let (instance, tail) = (&body[..dot], &body[dot..]);
    let method = &tail[1..];
    let ok = identifier(instance, 63)
        && (2..=41).contains(&method.len())
        && method.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && method
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    ok.then_some((instance, tail, method))
}

/// `text.rstrip()`.
fn rstrip(text: &str) -> &str {
    text.trim_end_matches(pystr::is_space)
}

fn affix(kind: &str, name: &str, pin: (String, String)) -> Option<Affix> {
    Some((kind.to_owned(), name.to_owned(), pin))
}

/// `_bracketed`: a name in brackets after an agent's or tool's kind word (`Agent[weather]`),
/// or before its kind word in brackets (`weather (agent)`).
fn bracketed_affix(v: &Vocabulary, name: &str) -> Option<Affix> {
    for (pattern, word_at, name_at) in [(bracketed(), 1, 2), (kind_bracketed(), 2, 1)] {
        let Some(found) = pattern.captures(name) else {
            continue;
        };
        let kind = affix_kind(v, group(&found, word_at));
        if kind == Some(v.agent.as_str()) || kind == Some(v.tool.as_str()) {
            let at = found.get(name_at)?;
            return affix(
                kind.unwrap_or_default(),
                &pystr::clip(at.as_str()),
                pinned(&name[..at.start()], &name[at.end()..]),
            );
        }
    }
    None
}

/// `name_affix`: the kind word a span name carries as prefix or suffix (semconv/inference.py).
pub fn name_affix(v: &Vocabulary, name: &str) -> Option<Affix> {
    if let Some((head, function)) = go_function_parts(name) {
        if let Some((typ, method)) = go_method(function) {
            // the type and its method say what ran, as a class's would
            let found = name_affix(v, &format!("{typ}.{method}"))?;
            if found.0.is_empty() {
                return None; // the package's word alone says nothing of it
            }
            return affix(&found.0, "", exactly(pystr::strip(name)));
        }
        let (kind, bare, (glob, regex)) = name_affix(v, function)?;
        // the import path names the library, never the operation
        return Some((
            kind,
            bare,
            (glob_literal(head) + &glob, re_escape(head) + &regex),
        ));
    }
    if let Some((operation, ran)) = pystr::strip(name).split_once('/') {
        // `run/call_model`: a task queue's operation, then what it ran, read as that is
        if is_identifier(operation)
            && is_identifier(ran)
            && words(operation)
                .first()
                .is_some_and(|w| v.operation_verbs.contains(w.as_str()))
        {
            let (kind, bare, (glob, regex)) = name_affix(v, ran)?;
            let head = format!("{operation}/");
            return Some((
                kind,
                bare,
                (glob_literal(&head) + &glob, re_escape(&head) + &regex),
            ));
        }
    }
    if http(name) {
        return None;
    }
    if let Some(owner) = call_owner(name) {
        // `Agent.run()`: a method by qualified name; the class may say the kind
        let exact = pystr::strip(name);
        let tail = &exact[owner.len()..];
        let of = v.kinds.get(&norm(owner)).map(String::as_str).or_else(|| {
            words(owner)
                .iter()
                .any(|w| v.llm_owner.contains(w.as_str()))
                .then_some(v.llm.as_str())
        });
        return match of {
            Some(of) => affix(of, "", exactly(exact)),
            None => affix("", &pystr::clip(owner), pinned("", tail)),
        };
    }
    if let Some(whole) = v
        .kinds
        .get(&norm(name))
        .map(String::as_str)
        .or_else(|| affix_kind(v, name))
    {
        // `invoke_agent`, `call_model`: a kind word, or one after a verb that ran it, no name
        return affix(whole, "", exactly(name));
    }
    if let Some(found) = bracketed_affix(v, name) {
        return Some(found);
    }
    if let Some(found) = prefix().captures(name) {
        let first_form = found.get(1).is_some();
        let (word, mut rest) = if first_form {
            (group(&found, 1), group(&found, 2))
        } else {
            (group(&found, 3), group(&found, 4))
        };
        let kind = affix_kind(v, word);
        let start = name.find(word)?;
        if let Some(kind) = kind {
            if v.run_words.contains(&norm(rest)) {
                return affix(kind, "", exactly(name)); // `agent.query`: it ran
            }
            if first_form && is_identifier(rest) {
                // a class's method: its own kind word says the kind, one saying only that it
                // ran, or a class's starting with its own kind word (`Chat.generateText`; not a
                // package's function, `llm.generate_with_tools`), says none: no name either way
                let said = affix_kind(v, rest);
                let first = norm(rest);
                let head = first.split('_').next().unwrap_or_default();
                let lower = word.bytes().any(|b| b.is_ascii_lowercase())
                    && !word.bytes().any(|b| b.is_ascii_uppercase());
                if said.is_some_and(|s| s != kind)
                    || rest.starts_with('_')
                    || v.run_words.contains(head)
                    || !lower && v.kinds.get(head).is_some_and(|k| k == kind)
                {
                    return affix(said.unwrap_or(kind), "", exactly(name));
                }
                if kind == v.llm
                    && lower
                    && v.everyday.contains(&norm(word))
                    && !words(rest).iter().any(|w| {
                        v.calls.contains(w.as_str())
                            || v.kinds.get(w.strip_suffix('s').unwrap_or(w)) == Some(&v.llm)
                    })
                {
                    return None; // `chat.send_message`: a chat's method that calls no model
                }
            }
            let stripped = pystr::strip(rest.trim_start_matches(&v.leads[..]));
            if !stripped.is_empty() {
                rest = stripped;
            }
            if let Some(ran) = suffix().captures(rest) {
                let named = group(&ran, 1);
                let after = pystr::suffix_from(rest, pystr::len(named));
                if !named.is_empty()
                    && v.run_words.contains(group(&ran, 2))
                    && !after.trim_start_matches(pystr::is_space).starts_with('.')
                {
                    rest = named; // `agent:weather:run`: the run word after it says nothing
                }
            }
            if rest.ends_with("()") && pystr::len(rest) > 2 {
                rest = rest[..rest.len() - 2].trim_end_matches(pystr::is_space);
            }
            if let Some(end) = unset_end(rest) {
                if rest.len() > end {
                    rest = &rest[end..];
                }
            }
            let at = start + word.len() + name[start + word.len()..].find(rest)?;
            let head = &name[start..at];
            let end = rstrip(name).get(at + rest.len()..).unwrap_or("");
            if first_form {
                if let Some((instance, tail, method)) = instance_method(rest) {
                    let said = affix_kind(v, method).unwrap_or(kind);
                    return affix(said, &pystr::clip(instance), pinned(head, tail));
                }
            }
            if let Some(quote) = quoted().captures(rest) {
                // `Agent: 'weather' generate`: the quoted part names it
                let (mark, named) = if quote.get(1).is_some() {
                    (group(&quote, 1), group(&quote, 2))
                } else {
                    (group(&quote, 3), group(&quote, 4))
                };
                let opened = format!("{head}{mark}");
                return affix(
                    kind,
                    &pystr::clip(named),
                    (
                        glob_literal(&opened) + "*",
                        re_escape(&opened) + &format!("([^{mark}]+)") + &re_escape(mark) + ".*",
                    ),
                );
            }
            return affix(kind, &pystr::clip(rest), pinned(head, end));
        }
    }
    if let Some(found) = suffix().captures(name) {
        let (rest, word) = if found.get(1).is_some() {
            (group(&found, 1), group(&found, 2))
        } else {
            (group(&found, 3), group(&found, 4))
        };
        let norm = norm(word);
        let mut kind = affix_kind(v, word);
        if kind.is_none()
            && (v
                .run_words
                .contains(norm.split('_').next().unwrap_or_default())
                || word.starts_with('_'))
        {
            kind = Some(""); // `weather.run`: a run of it, no kind
        }
        if let Some(kind) = kind.filter(|_| !rest.is_empty()) {
            let tail = rstrip(name)
                .get(name.find(rest)? + rest.len()..)
                .unwrap_or("");
            return affix(kind, &pystr::clip(rest), pinned("", tail));
        }
    }
    None
}

/// `_class_verb`: a class's method named by an everyday verb that is also a kind word, the class
/// none of that kind's (`ReportGenerator.generate`): the app's own work.
fn class_verb(v: &Vocabulary, name: &str, kind: &str) -> bool {
    let Some(owners) = v.verb_owners.get(kind) else {
        return false;
    };
    let Some(found) = class_method().captures(name) else {
        return false;
    };
    let (path, owner) = (group(&found, 1), found.get(2).or(found.get(3)));
    let owner = owner.map_or("", |m| m.as_str());
    if words(path).iter().any(|w| affix_kind(v, w).is_some()) {
        return false; // `tool.Bank.transfer`: the path's kind word reads it as a kind's
    }
    let said = words(&format!("{path} {owner}"));
    affix_kind(v, owner).is_none()
        && !said.iter().any(|w| owners.contains(w.as_str()))
        && !joined(&said).any(|w| owners.contains(&w))
}

/// Every run of one to three of `said`'s words joined (`open`, `router`: `openrouter`), as
/// `{"".join(said[i:j]) for i in range(len(said)) for j in range(i + 2, i + 4)}` (the last
/// word alone too: `said[i:j]` stops at the end).
fn joined(said: &[String]) -> impl Iterator<Item = String> + '_ {
    let n = said.len();
    (0..n).flat_map(move |i| (i + 2..i + 4).map(move |j| said[i..j.min(n)].concat()))
}

/// `_client_call`: a model client's class (it or its package names a provider or a model
/// server: `OpenAIClient`; `ChatService` is not enough) and a method of it whose words only say
/// it calls (`request_async`, `create`): a model call traced by its code path.
fn client_call(v: &Vocabulary, name: &str) -> bool {
    let Some(found) = class_method().captures(name) else {
        return false;
    };
    let owner = found.get(2).or(found.get(3)).map_or("", |m| m.as_str());
    let said = words(&format!("{} {owner}", group(&found, 1)));
    if !said.iter().any(|w| v.client_owners.contains(w.as_str()))
        && !joined(&said).any(|w| v.client_owners.contains(&w))
    {
        return false;
    }
    let last = pystr::strip(name).rsplit('.').next().unwrap_or_default();
    let verb = words(last.rsplit("::").next().unwrap_or_default());
    verb.iter().any(|w| v.client_calls.contains(w.as_str()))
        && verb.iter().all(|w| {
            v.client_calls.contains(w.as_str())
                || v.call_qualifiers.contains(w.as_str())
                || v.provider_words.contains(w.as_str())
        })
}

/// `_step_of`: the kind of a step named by a call's phrase of two or more words and a word
/// saying it ran (`_model_call_step`: a durable engine's step wrapping that call); not one kind
/// word and a run word (`agent_step` is a step of an agent's).
fn step_of<'v>(v: &'v Vocabulary, name: &str) -> Option<&'v String> {
    let norm = norm(name);
    let parts: Vec<&str> = norm.split('_').collect();
    let (last, phrase) = parts.split_last()?;
    if parts.len() < 3 || !(v.run_words.contains(*last) || v.ran.contains(*last)) {
        return None;
    }
    v.kinds
        .get(&phrase.join("_"))
        .filter(|kind| **kind == v.llm || **kind == v.tool)
}

/// `span_affix` of a span named `name`, `http` whether it carries an HTTP request's key.
pub fn span_affix(v: &Vocabulary, name: &str, http: bool) -> Option<Affix> {
    if http && go_function_parts(name).is_some() {
        return None;
    }
    let found = name_affix(v, name);
    if found.is_none() {
        let said = if client_call(v, name) {
            Some(&v.llm)
        } else {
            step_of(v, name)
        };
        if let Some(kind) = said {
            return affix(kind, "", exactly(pystr::strip(name)));
        }
    }
    found.filter(|found| !class_verb(v, name, &found.0))
}

/// `lifecycle_stem`: the call a lifecycle event recorded as a span belongs to.
pub fn lifecycle_stem(v: &Vocabulary, name: &str) -> Option<String> {
    let found = phase().captures(name)?;
    let stem = group(&found, 1);
    let stem = stem.strip_suffix(".run").unwrap_or(stem);
    let kind = name_affix(v, stem)?.0;
    (!stem.is_empty() && (kind == v.llm || kind == v.tool)).then(|| stem.to_owned())
}

/// `_tool_prefixed`: the name after a tool's kind word (`tool:lookup`).
pub fn tool_prefixed(v: &Vocabulary, name: &str) -> Option<String> {
    let found = prefix().captures(name)?;
    let (word, rest) = if found.get(1).is_some() {
        (group(&found, 1), group(&found, 2))
    } else {
        (group(&found, 3), group(&found, 4))
    };
    let rest = pystr::strip(rest.trim_start_matches(&v.leads[..]));
    (!rest.is_empty() && affix_kind(v, word) == Some(v.tool.as_str())).then(|| pystr::clip(rest))
}

/// `agent_name_ok`: a name an agent can have.
pub fn agent_name_ok(v: &Vocabulary, name: &str) -> bool {
    !name.is_empty()
        && !v.placeholder_agents.contains(name)
        && !v.kinds.contains_key(&norm(name))
        && name_affix(v, name).is_none_or(|found| !found.1.is_empty())
}

/// `_last_crumb`: the last of a path of breadcrumbs (`AxGen > weather`).
pub fn last_crumb(name: &str) -> &str {
    let last = pystr::strip(name.rsplit(" > ").next().unwrap_or(name));
    if last.is_empty() {
        name
    } else {
        last
    }
}

/// `_code_path`: a span named by the code it traces (`__main__._Agent.run`).
pub fn code_path(name: &str) -> bool {
    let name = pystr::strip(name);
    name.starts_with('_') || (name.split('.').count() > 2 && name.split('.').all(is_identifier))
}

/// `name_affix(name)`.
#[pyfunction(name = "name_affix")]
fn name_affix_py(name: &Bound<'_, PyString>) -> PyResult<Option<Affix>> {
    door(|| Ok(name_affix(&*vocabulary()?, &text(name)?)))
}

/// `span_affix` of a span by its name and whether it carries an HTTP request's key.
#[pyfunction(name = "span_affix")]
#[pyo3(signature = (name, http=false))]
fn span_affix_py(name: &Bound<'_, PyString>, http: bool) -> PyResult<Option<Affix>> {
    door(|| Ok(span_affix(&*vocabulary()?, &text(name)?, http)))
}

/// `lifecycle_stem(name)`.
#[pyfunction(name = "lifecycle_stem")]
fn lifecycle_stem_py(name: &Bound<'_, PyString>) -> PyResult<Option<String>> {
    door(|| Ok(lifecycle_stem(&*vocabulary()?, &text(name)?)))
}

/// `go_function(name)`.
#[pyfunction(name = "go_function")]
fn go_function_py(name: &Bound<'_, PyString>) -> PyResult<Option<String>> {
    door(|| Ok(go_function_parts(&text(name)?).map(|(_, function)| function.to_owned())))
}

/// `_tool_prefixed(name)`.
#[pyfunction(name = "tool_prefixed")]
fn tool_prefixed_py(name: &Bound<'_, PyString>) -> PyResult<Option<String>> {
    door(|| Ok(tool_prefixed(&*vocabulary()?, &text(name)?)))
}

/// `agent_name_ok(name)`: False for None.
#[pyfunction(name = "agent_name_ok")]
fn agent_name_ok_py(name: Option<&Bound<'_, PyString>>) -> PyResult<bool> {
    door(|| match name {
        Some(name) => Ok(agent_name_ok(&*vocabulary()?, &text(name)?)),
        None => Ok(false),
    })
}

/// `_last_crumb(name)` of a clipped (encodable) name.
#[pyfunction(name = "last_crumb")]
fn last_crumb_py(name: &Bound<'_, PyString>) -> PyResult<String> {
    door(|| Ok(last_crumb(&text(name)?).to_owned()))
}

/// `_code_path(name)`.
#[pyfunction(name = "code_path")]
fn code_path_py(name: &Bound<'_, PyString>) -> PyResult<bool> {
    door(|| Ok(code_path(&text(name)?)))
}

/// `glob_literal(text)`, of any `str`: a lone surrogate is kept (the text's other characters are
/// escaped around it, as `re.sub` does), not read as `?`.
#[pyfunction(name = "glob_literal")]
fn glob_literal_py<'py>(text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
    door(|| {
        let py = text.py();
        if let Ok(plain) = text.to_str() {
            return Ok(PyString::new(py, &glob_literal(plain)).into_any());
        }
        // surrogatepass writes a surrogate as three bytes above 0x7f: the ASCII `[`, `?`, `*`
        // are found as bytes
        let bytes: Vec<u8> = text
            .call_method1("encode", ("utf-8", "surrogatepass"))?
            .extract()?;
        let mut out = Vec::with_capacity(bytes.len());
        for b in bytes {
            if matches!(b, b'[' | b'?' | b'*') {
                out.extend([b'[', b, b']']);
            } else {
                out.push(b);
            }
        }
        pyo3::types::PyBytes::new(py, &out).call_method1("decode", ("utf-8", "surrogatepass"))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(name_affix_py, m)?)?;
    m.add_function(wrap_pyfunction!(span_affix_py, m)?)?;
    m.add_function(wrap_pyfunction!(lifecycle_stem_py, m)?)?;
    m.add_function(wrap_pyfunction!(go_function_py, m)?)?;
    m.add_function(wrap_pyfunction!(tool_prefixed_py, m)?)?;
    m.add_function(wrap_pyfunction!(agent_name_ok_py, m)?)?;
    m.add_function(wrap_pyfunction!(last_crumb_py, m)?)?;
    m.add_function(wrap_pyfunction!(code_path_py, m)?)?;
    m.add_function(wrap_pyfunction!(glob_literal_py, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_python() {
        assert_eq!(re_escape("a.b (x)-~#&"), r"a\.b\ \(x\)\-\~\#\&");
        assert_eq!(glob_literal("a*[b]?"), "a[*][[]b][?]");
    }

    #[test]
    fn go_functions() {
        assert_eq!(
            go_function_parts(" github.com/acme/kit/agent.Run "),
            Some(("github.com/acme/kit/", "agent.Run"))
        );
        assert_eq!(go_method("agent.(*Agent).Run"), Some(("Agent", "Run")));
        assert_eq!(go_method("tool.Tool.Call"), Some(("Tool", "Call")));
        assert_eq!(go_function_parts("POST /chat"), None);
    }

    #[test]
    fn unset_parts_fold_as_re() {
        assert_eq!(unset_end("null-weather"), Some(5));
        assert_eq!(unset_end("nİl.x"), Some(5));
        assert_eq!(unset_end("nulls"), None);
    }

    #[test]
    fn identifiers_are_pythons() {
        assert!(is_identifier("_run") && is_identifier("été") && !is_identifier("1a"));
    }
}
