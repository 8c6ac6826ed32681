//! Inference's precedence (semconv/inference.py `infer`, docs/conventions.md#inference): the kind
//! one span's own evidence gives, weighed in the package's order: a lifecycle event's span, an
//! endpoint's, kind words (attributes, then the span name's affix), GenAI keys, then the name
//! (a name key, a template's placeholder, the subject an operation ran for, the span's own key,
//! the span name) and the closing guards (a merged tool, a library's own class, an agent built,
//! managed or switched, no name of its own). Also what reads the same evidence for others: the
//! kind words of a mapping (`kind_words`), the tool names a span gives (`tool_readings`), the span
//! name without its affix (`bare_name`).
//!
//! Python's semantics throughout: the record's mapping walked in its order (keys that are no
//! `str` skipped, as the core's other readers skip them); texts read as the other readers read
//! them (a lone surrogate as `?`), but compared exactly where a surrogate could make two texts
//! equal that are not; keys, kind words and the subject an operation ran for returned as the
//! mapping's own objects; the conflict message formatted by Python's own `str.format`. The
//! name patterns (`_PLACEHOLDER`, `_LABEL`, `_SUBJECT`, `_SETS_UP`, `_MANAGES`, `_INDEXED`) are
//! written out as Python's `re` (RE2 for `_LABEL`) reads them: Unicode `\w` and `\d`, `$` also
//! before a final newline, `(?i:)` folding `İ`, `ı`, `K` (Kelvin) and `ſ` into ASCII letters.
//! The vocabulary is the package's (`bind_inference_words`); the Python twin is the tests'
//! oracle (tests/_inference_oracle.py).

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyString, PyTuple};

use crate::classify::values::PLACEHOLDER_MODELS;
use crate::door::door;
use crate::inference::{
    affix_kind, call_owner, is_digit, is_number, is_word, kind_key, kind_word, norm, provider,
    tag_kind, text, usage_key, vocabulary, words, Vocabulary,
};
use crate::inference_attrs::{caller_source, model_in_name, pairs, str_value, tool_names};
use crate::name_affix::{
    agent_name_ok, code_path, go_function_parts, last_crumb, lifecycle_stem, span_affix,
    tool_prefixed, Affix,
};
use crate::pystr::{self, clip, is_space};
use rustc_hash::FxHashMap as HashMap;

/// Keys and span names repeat from span to span: what `infer` reads of one is kept, as the
/// package's LRU kept it (`_short_cached`): at most `CACHED` of each, none longer than
/// `CACHED_BYTES` (a longer one is read each time, never kept), all dropped when full. Kept per
/// vocabulary, so a rebinding starts afresh.
const CACHED: usize = 4096;
const CACHED_BYTES: usize = 512;

#[derive(Debug, Default)]
pub struct Readings {
    keys: Mutex<HashMap<String, Arc<KeyReading>>>,
    names: Mutex<HashMap<String, Arc<NameReading>>>,
}

/// What `infer` reads of one attribute key (its text as inference reads it).
#[derive(Debug)]
struct KeyReading {
    text: String,
    words: Vec<String>,
    /// `_kind_key`, `tag_key`: the vendor prefix of a key holding a kind, a list of tags.
    kind_key: Option<Vec<String>>,
    tag_key: Option<Vec<String>>,
    /// `_usage_key`, `_INDEXED`: a model call's token count, an indexed prompt or completion.
    usage: bool,
    indexed: bool,
}

/// What `infer` reads of one span name: a lifecycle event's stem, its kind affix (with whether
/// it is a Go function's name, which a request's span has none of), its `tool:` prefix.
#[derive(Debug)]
struct NameReading {
    stem: Option<String>,
    affix: Option<Affix>,
    go_function: bool,
    prefixed: Option<String>,
}

fn cached<T>(
    kept: &Mutex<HashMap<String, Arc<T>>>,
    text: &str,
    read: impl FnOnce() -> T,
) -> Arc<T> {
    if text.len() > CACHED_BYTES {
        return Arc::new(read());
    }
    if let Some(found) = kept.lock().ok().and_then(|kept| kept.get(text).cloned()) {
        return found;
    }
    let found = Arc::new(read());
    if let Ok(mut kept) = kept.lock() {
        if kept.len() >= CACHED {
            kept.clear();
        }
        kept.insert(text.to_owned(), found.clone());
    }
    found
}

fn key_reading(v: &Vocabulary, text: &str) -> Arc<KeyReading> {
    cached(&v.readings.keys, text, || {
        let words = words(text);
        let tag_key = words
            .split_last()
            .filter(|(last, _)| v.tag_key_ends.contains(*last))
            .map(|(_, head)| head.to_vec());
        KeyReading {
            kind_key: kind_key(v, text),
            tag_key,
            usage: usage_key(v, text),
            indexed: indexed(text),
            words,
            text: text.to_owned(),
        }
    })
}

fn name_reading(v: &Vocabulary, name: &str) -> Arc<NameReading> {
    cached(&v.readings.names, name, || NameReading {
        stem: lifecycle_stem(v, name),
        affix: span_affix(v, name, false),
        go_function: go_function_parts(name).is_some(),
        prefixed: tool_prefixed(v, name),
    })
}

/// One attribute of the record's mapping, in its order: the key, whether it held a lone
/// surrogate, the value, and what inference reads of the key.
struct Attr<'py> {
    key: Bound<'py, PyString>,
    lossy: bool,
    value: Bound<'py, PyAny>,
    read: Arc<KeyReading>,
}

impl Attr<'_> {
    /// The key's text (a lone surrogate as `?`).
    fn text(&self) -> &str {
        &self.read.text
    }
}

/// A `str`'s text as inference reads it, and whether it held a lone surrogate.
fn read(s: &Bound<'_, PyString>) -> PyResult<(String, bool)> {
    let found = text(s)?;
    let lossy = matches!(found, Cow::Owned(_));
    Ok((found.into_owned(), lossy))
}

fn attrs_of<'py>(v: &Vocabulary, mapping: &Bound<'py, PyAny>) -> PyResult<Vec<Attr<'py>>> {
    pairs(mapping)?
        .into_iter()
        .map(|(key, value)| {
            let text = text(&key)?;
            let lossy = matches!(text, Cow::Owned(_));
            let read = key_reading(v, &text);
            Ok(Attr {
                key,
                lossy,
                value,
                read,
            })
        })
        .collect()
}

/// `attrs.get(key)` of a key with no lone surrogate.
fn get<'a, 'py>(attrs: &'a [Attr<'py>], key: &str) -> Option<&'a Bound<'py, PyAny>> {
    attrs
        .iter()
        .find(|a| !a.lossy && a.text() == key)
        .map(|a| &a.value)
}

/// The span as `infer` reads it.
struct Span<'py> {
    record: Bound<'py, PyAny>,
    mapping: Bound<'py, PyAny>,
    attrs: Vec<Attr<'py>>,
    name: Bound<'py, PyString>,
    name_text: String,
    name_lossy: bool,
    scope: String,
    read: Arc<NameReading>,
}

impl<'py> Span<'py> {
    fn read(v: &Vocabulary, record: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = record.py();
        let mapping = record.getattr(pyo3::intern!(py, "attributes"))?;
        let name = record
            .getattr(pyo3::intern!(py, "name"))?
            .cast_into::<PyString>()
            .map_err(PyErr::from)?;
        let (name_text, name_lossy) = read(&name)?;
        let scope = record.getattr(pyo3::intern!(py, "scope_name"))?;
        let scope = read(scope.cast::<PyString>().map_err(PyErr::from)?)?.0;
        Ok(Span {
            record: record.clone(),
            read: name_reading(v, &name_text),
            attrs: attrs_of(v, &mapping)?,
            mapping,
            name,
            name_text,
            name_lossy,
            scope,
        })
    }

    fn get(&self, key: &str) -> Option<&Bound<'py, PyAny>> {
        get(&self.attrs, key)
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// `attrs.get(key)` of any `str` key: one holding a lone surrogate compared exactly.
    fn get_exact(&self, key: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Ok(plain) = key.to_str() {
            return Ok(self.get(plain).cloned());
        }
        for a in &self.attrs {
            if a.lossy && PyAnyMethods::eq(a.key.as_any(), key)? {
                return Ok(Some(a.value.clone()));
            }
        }
        Ok(None)
    }

    /// `record.name.strip()` as a `str` of its own (its lone surrogates kept).
    fn stripped_name(&self) -> PyResult<Bound<'py, PyString>> {
        if self.name_lossy {
            return self
                .name
                .call_method0(pyo3::intern!(self.name.py(), "strip"))?
                .cast_into::<PyString>()
                .map_err(PyErr::from);
        }
        Ok(PyString::new(self.name.py(), pystr::strip(&self.name_text)))
    }

    /// `bare or record.name`.
    fn bare_or_name<'a>(&'a self, bare: Option<&'a str>) -> &'a str {
        bare.filter(|b| !b.is_empty()).unwrap_or(&self.name_text)
    }

    /// `span_affix(record)`: none for a request's span named as a Go function is.
    fn affix(&self, v: &Vocabulary) -> Option<Affix> {
        if self.read.go_function && v.http_keys.iter().any(|key| self.has(key)) {
            return None;
        }
        self.read.affix.clone()
    }
}

/// What `infer` found (`Inferred`'s fields); a name as its object and its text.
struct Found<'py> {
    kind: String,
    evidence: Option<String>,
    key: Option<Bound<'py, PyAny>>,
    value: Option<Bound<'py, PyAny>>,
    affix: Option<(String, String)>,
    name: Option<(Bound<'py, PyAny>, String)>,
    name_key: Option<Bound<'py, PyAny>>,
    conflict: Option<Bound<'py, PyAny>>,
}

impl<'py> Found<'py> {
    fn new(kind: &str, evidence: Option<&str>) -> Self {
        Found {
            kind: kind.to_owned(),
            evidence: evidence.map(str::to_owned),
            key: None,
            value: None,
            affix: None,
            name: None,
            name_key: None,
            conflict: None,
        }
    }

    fn name_text(&self) -> Option<&str> {
        self.name.as_ref().map(|(_, text)| text.as_str())
    }

    /// `Inferred`'s fields; the kind and the evidence interned, so each is the very constant
    /// semconv/step.py and semconv/inference.py name it by (an identifier's literal is interned).
    fn into_tuple(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        (
            PyString::intern(py, &self.kind),
            self.evidence
                .map(|evidence| PyString::intern(py, &evidence)),
            self.key,
            self.value,
            self.affix,
            self.name.map(|(name, _)| name),
            self.name_key,
            self.conflict,
        )
            .into_pyobject(py)
    }
}

fn text_name(py: Python<'_>, name: String) -> (Bound<'_, PyAny>, String) {
    (PyString::new(py, &name).into_any(), name)
}

/// A name found in the attributes: (the key, the name).
type Named<'py> = (Bound<'py, PyAny>, (Bound<'py, PyAny>, String));

fn named_text<'py>(py: Python<'py>, key: Bound<'py, PyAny>, name: String) -> Named<'py> {
    (key, text_name(py, name))
}

/// One kind attribute naming a kind: the kind, the attribute's place, the kind word (the
/// value, or the tag of a list naming it).
struct Said<'py> {
    kind: String,
    at: usize,
    value: Bound<'py, PyAny>,
}

/// `_said(attrs)`: each kind attribute naming a kind, and the first one's vendor prefix.
fn said<'py>(
    v: &Vocabulary,
    attrs: &[Attr<'py>],
) -> PyResult<(Vec<Said<'py>>, Option<Vec<String>>)> {
    let mut found = Vec::new();
    let mut prefix = None;
    for (at, a) in attrs.iter().enumerate() {
        let mut vendor = a.read.kind_key.as_ref();
        let mut kind = None;
        let mut value = a.value.clone();
        if vendor.is_some() {
            if let Ok(word) = a.value.cast::<PyString>() {
                kind = kind_word(v, &text(word)?).map(str::to_owned);
            }
        } else if a.value.is_instance_of::<PyTuple>() || a.value.is_instance_of::<PyList>() {
            vendor = a.read.tag_key.as_ref();
            if vendor.is_some() {
                if let Some((tagged, tag)) = tag_kind(v, &a.value)? {
                    kind = Some(tagged.to_owned());
                    value = tag;
                }
            }
        }
        if let Some(kind) = kind {
            found.push(Said { kind, at, value });
            if prefix.is_none() {
                prefix = vendor.cloned();
            }
        }
    }
    Ok((found, prefix))
}

/// `_INDEXED.match(key)`: `gen_ai\.(?:prompt|completion)\.\d+\.`.
fn indexed(key: &str) -> bool {
    let Some(rest) = key
        .strip_prefix("gen_ai.prompt.")
        .or_else(|| key.strip_prefix("gen_ai.completion."))
    else {
        return false;
    };
    let digits = rest.chars().take_while(|&c| is_digit(c)).count();
    digits > 0 && rest.chars().nth(digits) == Some('.')
}

/// `_genai_kind(record)`: GenAI evidence without a table, (kind, the key that says so).
fn genai_kind<'py>(
    v: &Vocabulary,
    span: &Span<'py>,
) -> PyResult<Option<(String, Option<Bound<'py, PyAny>>)>> {
    let py = span.name.py();
    let fixed = |key: &str| Some(PyString::new(py, key).into_any());
    if let Some(operation) = span.get(&v.genai_operation) {
        if let Ok(operation) = operation.cast::<PyString>() {
            let operation = text(operation)?;
            if pystr::len(&operation) <= 40 {
                let kind = v
                    .genai_operations
                    .get(&*operation)
                    .map(String::as_str)
                    .or_else(|| affix_kind(v, &operation));
                // an operation the conventions do not define says the span is none of theirs
                return Ok(Some(match kind {
                    Some(kind) => (kind.to_owned(), fixed(&v.genai_operation)),
                    None => (v.other.clone(), None),
                }));
            }
        }
    }
    if let Some(key) = v.genai_tool_keys.iter().find(|key| span.has(key)) {
        return Ok(Some((v.tool.clone(), fixed(key))));
    }
    if let Some(key) = v.genai_llm.iter().take(2).find(|key| span.has(key)) {
        return Ok(Some((v.llm.clone(), fixed(key))));
    }
    if span.attrs.iter().any(|a| a.read.indexed) || llm_event(v, &span.record)? {
        return Ok(Some((v.llm.clone(), None)));
    }
    if let Some(key) = v.genai_agent_keys.iter().find(|key| span.has(key)) {
        return Ok(Some((v.agent.clone(), fixed(key))));
    }
    let providers = &v.genai_llm[v.genai_llm.len().saturating_sub(2)..];
    for key in v.genai_llm.iter().skip(2) {
        let Some(value) = span.get(key) else {
            continue;
        };
        let named = match value.cast::<PyString>() {
            Ok(value) => provider(v, &text(value)?),
            Err(_) => false,
        };
        if !providers.contains(key) || named {
            return Ok(Some((v.llm.clone(), fixed(key))));
        }
    }
    if let Some(a) = span.attrs.iter().find(|a| a.read.usage) {
        return Ok(Some((v.llm.clone(), Some(a.key.clone().into_any()))));
    }
    if model_in_name(&span.name_text).is_some_and(|(found, _)| v.providers.contains(found)) {
        return Ok(Some((v.llm.clone(), None)));
    }
    Ok(None)
}

/// Whether one of the record's span events is a model call's.
fn llm_event(v: &Vocabulary, record: &Bound<'_, PyAny>) -> PyResult<bool> {
    let events = record.getattr(pyo3::intern!(record.py(), "events"))?;
    for event in events.try_iter()? {
        let name = event?.get_item(0)?;
        if let Ok(name) = name.cast::<PyString>() {
            if v.llm_events.contains(&*text(name)?) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// `_SUBJECT.match(text)`: `^[\w.-]{1,64}$` (`$` also before a final newline).
fn subject_ok(text: &str) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    (1..=64).contains(&pystr::len(body)) && body.chars().all(|c| is_word(c) || c == '.' || c == '-')
}

/// `_PLACEHOLDER.match(text)`'s key, of a stripped text:
/// `^\{([A-Za-z_][\w.]{0,80})(?:![rsa])?(?::[^{}]*)?\}$`.
fn placeholder_key(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    let end = inner
        .find(|c: char| !(is_word(c) || c == '.'))
        .unwrap_or(inner.len());
    let (key, mut rest) = inner.split_at(end);
    if !key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') || pystr::len(key) > 81 {
        return None;
    }
    if let Some(conversion) = rest.strip_prefix('!') {
        rest = conversion.strip_prefix(['r', 's', 'a'])?;
    }
    (rest.is_empty()
        || rest
            .strip_prefix(':')
            .is_some_and(|spec| !spec.contains(['{', '}'])))
    .then_some(key)
}

/// `_LABEL.match(name).group(1)` (RE2: ASCII `\w`, Python's `\s`, `.` any character):
/// `^([A-Za-z_][\w -]{0,63}?)\s*[.:].*\s.*$`.
fn label(name: &str) -> Option<&str> {
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    let last_space = chars.iter().rposition(|&(_, c)| is_space(c))?;
    for end in 1..=chars.len().min(64) {
        let c = chars[end - 1].1;
        let fits = if end == 1 {
            c.is_ascii_alphabetic() || c == '_'
        } else {
            c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | '-')
        };
        if !fits {
            return None;
        }
        let mut at = end;
        while at < chars.len() && is_space(chars[at].1) {
            at += 1;
        }
        if at < chars.len() && matches!(chars[at].1, '.' | ':') && at < last_space {
            return Some(&name[..chars.get(end).map_or(name.len(), |&(i, _)| i)]);
        }
    }
    None
}

/// One character as `re`'s `(?i:)` matches it against a lowercase ASCII letter (or `_`).
fn folds(c: char, letter: char) -> bool {
    c.to_ascii_lowercase() == letter
        || match letter {
            'i' => matches!(c, '\u{130}' | '\u{131}'),
            'k' => c == '\u{212a}',
            's' => c == '\u{17f}',
            _ => false,
        }
}

/// The text after `word` when the text starts with it, case folded as `re` folds.
fn fold_prefix<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let mut chars = text.chars();
    for letter in word.chars() {
        if !chars.next().is_some_and(|c| folds(c, letter)) {
            return None;
        }
    }
    Some(chars.as_str())
}

fn fold_eq(text: &str, word: &str) -> bool {
    fold_prefix(text, word).is_some_and(str::is_empty)
}

/// Words of a class's own method building or tearing its object down (`_SETS_UP`).
const SETS_UP: [&str; 15] = [
    "initialize",
    "initialise",
    "setup",
    "set_up",
    "configure",
    "build",
    "create",
    "close",
    "shutdown",
    "cleanup",
    "teardown",
    "reset",
    "load",
    "register",
    "new",
];

/// `_SETS_UP.match(name)`: `^\s*[A-Za-z_]\w{0,80}\.(?i:_*init_*|initiali[sz]e|setup|...)\s*$`.
fn sets_up(name: &str) -> bool {
    let rest = name.trim_start_matches(is_space);
    let end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
    let (class, after) = rest.split_at(end);
    if !class.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') || pystr::len(class) > 81 {
        return false;
    }
    let Some(method) = after.strip_prefix('.') else {
        return false;
    };
    let method = method.trim_end_matches(is_space);
    fold_eq(method.trim_matches('_'), "init") || SETS_UP.iter().any(|w| fold_eq(method, w))
}

/// `_MANAGES.match(name)`: a verb and `agent(s)`, or `agent(s)` and a verb, the whole name.
fn manages(v: &Vocabulary, name: &str) -> bool {
    let name = pystr::strip(name);
    let agents = |text: &str| fold_eq(text, "agent") || fold_eq(text, "agents");
    let verb = |text: &str| v.manage_verbs.iter().any(|w| fold_eq(text, w));
    let verb_first = v.manage_verbs.iter().any(|w| {
        fold_prefix(name, w).is_some_and(|rest| {
            let mut chars = rest.chars();
            agents(rest)
                || (chars
                    .next()
                    .is_some_and(|c| is_space(c) || matches!(c, '_' | '.' | ':' | '-'))
                    && agents(chars.as_str()))
        })
    });
    verb_first
        || ["agents", "agent"].iter().any(|head| {
            fold_prefix(name, head).is_some_and(|rest| {
                ["::", ".", ":"]
                    .iter()
                    .any(|sep| rest.strip_prefix(sep).is_some_and(&verb))
            })
        })
}

/// `unquote_to_bytes` of an ASCII text: `%XX` (hex digits) as its byte.
fn unquote_to_bytes(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |i: usize| bytes.get(i).and_then(|b| (*b as char).to_digit(16));
        match (bytes[at], hex(at + 1), hex(at + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    out
}

/// `urllib.parse.unquote_plus`: `+` a space; each run of ASCII decoded as UTF-8 with
/// `errors="replace"`, other characters kept.
fn unquote_plus(text: &str) -> String {
    let text = text.replace('+', " ");
    if !text.contains('%') {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let ascii = rest.find(|c: char| !c.is_ascii()).unwrap_or(rest.len());
        out.push_str(&String::from_utf8_lossy(&unquote_to_bytes(&rest[..ascii])));
        let tail = &rest[ascii..];
        let other = tail.find(|c: char| c.is_ascii()).unwrap_or(tail.len());
        out.push_str(&tail[..other]);
        rest = &tail[other..];
    }
    out
}

/// `_query_option(query, option)`: the first value of `option` in a URI's query, decoded.
fn query_option(query: &str, option: &str) -> Option<String> {
    let prefix = format!("{option}=");
    query
        .split('&')
        .find_map(|part| part.strip_prefix(prefix.as_str()))
        .map(unquote_plus)
}

/// `_endpoint(record)`: a span named by the scheme of the URI it calls, an agent's or a tool's.
fn endpoint<'py>(v: &Vocabulary, span: &Span<'py>) -> PyResult<Option<Found<'py>>> {
    let py = span.name.py();
    let (Some(scheme), Some(path)) = (span.get(&v.endpoint_scheme), span.get(&v.endpoint_path))
    else {
        return Ok(None);
    };
    let (Ok(scheme_str), Some((path_text, _))) = (scheme.cast::<PyString>(), str_value(path)?)
    else {
        return Ok(None);
    };
    let (scheme_text, scheme_lossy) = read(scheme_str)?;
    let same = if span.name_lossy || scheme_lossy {
        PyAnyMethods::eq(span.stripped_name()?.as_any(), scheme_str)?
    } else {
        pystr::strip(&span.name_text) == scheme_text
    };
    if !same || !subject_ok(&path_text) {
        return Ok(None);
    }
    let singular = scheme_text
        .strip_suffix('s')
        .map_or(String::new(), str::to_owned);
    let Some(kind) = kind_word(v, &scheme_text).or_else(|| kind_word(v, &singular)) else {
        return Ok(None);
    };
    if kind != v.agent && kind != v.tool {
        return Ok(None);
    }
    let tool = kind == v.tool;
    if tool {
        let sent = match span.get(&v.endpoint_sends.0).map(|s| s.cast::<PyString>()) {
            Some(Ok(sent)) => sent.to_str().is_ok_and(|s| s == v.endpoint_sends.1),
            _ => false,
        };
        if sent {
            return Ok(Some(Found::new(&v.other, None)));
        }
    }
    let named = match span.get(&v.endpoint_query).map(|q| q.cast::<PyString>()) {
        Some(Ok(query)) if tool => query_option(&text(query)?, &v.endpoint_tool_option),
        _ => None,
    };
    let name = named
        .filter(|n| subject_ok(n))
        .unwrap_or_else(|| path_text.into_owned());
    Ok(Some(Found {
        key: Some(PyString::new(py, &v.endpoint_scheme).into_any()),
        value: Some(scheme.clone()),
        name: Some(text_name(py, clip(&name))),
        name_key: Some(PyString::new(py, &v.endpoint_path).into_any()),
        ..Found::new(kind, Some(&*v.by_attribute))
    }))
}

/// `_name_key(key, tails)` of an attribute's key, by its words read once.
fn names(v: &Vocabulary, a: &Attr<'_>, tails: &[Vec<String>]) -> bool {
    let found = &a.read.words;
    tails.iter().any(|tail| found.ends_with(tail))
        && !found.iter().any(|w| is_number(w) || v.others.contains(w))
        && !a.text().starts_with("code.")
}

/// `_named(attrs, tails, prefix)`: (key, name) of the first attribute whose words end in one of
/// `tails`, else the kind key's own `name`, else its own `path`.
fn named<'py>(
    v: &Vocabulary,
    span: &Span<'py>,
    tails: &[Vec<String>],
    prefix: Option<&[String]>,
) -> PyResult<Option<Named<'py>>> {
    let py = span.name.py();
    let mut fallback = None;
    let mut path = None;
    for a in &span.attrs {
        let Some((value, _)) = str_value(&a.value)? else {
            continue;
        };
        if pystr::len(&value) > pystr::MAX_NAME_CHARS {
            continue;
        }
        let name = pystr::strip(&value).trim_matches('"');
        if name.is_empty() || PLACEHOLDER_MODELS.contains(&name) {
            continue;
        }
        if names(v, a, tails) {
            return Ok(Some(named_text(py, a.key.clone().into_any(), clip(name))));
        }
        let Some(prefix) = prefix else {
            continue;
        };
        let Some((last, head)) = a.read.words.split_last() else {
            continue;
        };
        let own = head == prefix
            || head
                .split_last()
                .is_some_and(|(span_word, head)| span_word == "span" && head == prefix);
        if fallback.is_none() && own && last == "name" {
            fallback = Some(named_text(py, a.key.clone().into_any(), clip(name)));
        } else if path.is_none() && own && last == "path" {
            path = Some(named_text(py, a.key.clone().into_any(), clip(name)));
        }
    }
    Ok(fallback.or(path))
}

/// `_name(record, kind, bare, prefix)`: (key, name) from the attributes, or None where the span
/// name is the name.
fn name<'py>(
    v: &Vocabulary,
    span: &Span<'py>,
    kind: &str,
    bare: Option<&str>,
    prefix: Option<&[String]>,
) -> PyResult<Option<Named<'py>>> {
    let own = norm(span.bare_or_name(bare));
    let generic = own.is_empty()
        || v.kinds.contains_key(&own)
        || v.run_words
            .contains(own.split('_').next().unwrap_or_default())
        || own == norm(span.scope.split('.').next().unwrap_or_default());
    if kind == v.agent || ((kind == v.workflow || kind == v.other) && generic) {
        let found = named(v, span, &v.agent_names, prefix)?;
        if found.is_none() && kind == v.other {
            return named(v, span, &v.tool_names, prefix);
        }
        return Ok(found);
    }
    if kind == v.other || kind == v.llm {
        return named(v, span, &v.agent_names[..1.min(v.agent_names.len())], None);
    }
    if kind == v.tool {
        return named(v, span, &v.tool_names, prefix);
    }
    Ok(None)
}

/// `_placeholder(record, bare)`: (key, name) when the name is a template placeholder naming a
/// string attribute.
fn placeholder<'py>(span: &Span<'py>, bare: Option<&str>) -> PyResult<Option<Named<'py>>> {
    let py = span.name.py();
    let Some(key) = placeholder_key(pystr::strip(span.bare_or_name(bare))) else {
        return Ok(None);
    };
    let Some(value) = span.get(key) else {
        return Ok(None);
    };
    let Some((value, _)) = str_value(value)? else {
        return Ok(None);
    };
    let stripped = pystr::strip(&value);
    if stripped.is_empty() || pystr::len(&value) > pystr::MAX_NAME_CHARS {
        return Ok(None);
    }
    let name = clip(stripped.trim_matches('"'));
    Ok(Some(named_text(
        py,
        PyString::new(py, key).into_any(),
        name,
    )))
}

/// `_subject(record)`: (key, name) when one attribute says `<span name> <subject>` and another
/// holds that subject alone.
fn subject<'py>(span: &Span<'py>) -> PyResult<Option<Named<'py>>> {
    let head = format!("{} ", pystr::strip(&span.name_text));
    let head_chars = pystr::len(&head);
    let mut exact_head: Option<Bound<'py, PyAny>> = None;
    let mut subjects: Vec<String> = Vec::new();
    for a in &span.attrs {
        let Some((value, lossy)) = str_value(&a.value)? else {
            continue;
        };
        let chars = pystr::len(&value);
        if chars > head_chars + 64 {
            continue;
        }
        let starts = if span.name_lossy || lossy {
            let head = match &exact_head {
                Some(head) => head.clone(),
                None => {
                    let head = span.stripped_name()?.add(" ")?;
                    exact_head = Some(head.clone());
                    head
                }
            };
            a.value
                .call_method1(pyo3::intern!(a.value.py(), "startswith"), (head,))?
                .is_truthy()?
        } else {
            value.starts_with(&head)
        };
        if starts {
            subjects.push(pystr::strip(pystr::suffix_from(&value, head_chars)).to_owned());
        }
    }
    if subjects.is_empty() {
        return Ok(None);
    }
    for a in &span.attrs {
        let Some((value, lossy)) = str_value(&a.value)? else {
            continue;
        };
        if !lossy && subjects.iter().any(|s| *s == *value) && subject_ok(&value) {
            let text = value.into_owned();
            return Ok(Some((a.key.clone().into_any(), (a.value.clone(), text))));
        }
    }
    Ok(None)
}

/// `_own_key(record)`: (key, name) of the attribute naming what the span name says it is
/// (`guard.name` on a span named `guard`).
fn own_key<'py>(span: &Span<'py>) -> PyResult<Option<Named<'py>>> {
    let py = span.name.py();
    let key = if span.name_lossy {
        span.stripped_name()?
            .add(".name")?
            .cast_into::<PyString>()
            .map_err(PyErr::from)?
    } else {
        PyString::new(py, &format!("{}.name", pystr::strip(&span.name_text)))
    };
    let Some(value) = span.get_exact(&key)? else {
        return Ok(None);
    };
    let Some((value, _)) = str_value(&value)? else {
        return Ok(None);
    };
    let stripped = pystr::strip(&value);
    if !subject_ok(stripped) {
        return Ok(None);
    }
    Ok(Some(named_text(py, key.into_any(), clip(stripped))))
}

/// `_library_class(name, scope)`: a name that is the tracing library's own name and a kind word
/// (`LettaAgent` from the scope `letta.otel.tracing`).
fn library_class(v: &Vocabulary, name: Option<&str>, scope: &str) -> bool {
    let said = words(name.unwrap_or_default());
    let own: Vec<&String> = said.iter().filter(|w| !v.kinds.contains_key(*w)).collect();
    !own.is_empty()
        && own.len() < said.len()
        && own
            .iter()
            .copied()
            .eq(words(scope.split('.').next().unwrap_or_default()).iter())
}

/// The distinct kinds of `said`, and the affix's.
fn kinds_of(said: &[Said<'_>], affix: Option<&str>) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for kind in said.iter().map(|s| s.kind.as_str()).chain(affix) {
        if !kinds.iter().any(|k| k == kind) {
            kinds.push(kind.to_owned());
        }
    }
    kinds
}

/// `t[1][: -len("subtype")] + "type" in record.attributes`: the type key beside a subtype key.
fn type_beside<'py>(span: &Span<'py>, a: &Attr<'py>) -> PyResult<bool> {
    if !a.lossy {
        let chars = pystr::len(a.text());
        let key = format!("{}type", pystr::prefix(a.text(), chars.saturating_sub(7)));
        return Ok(span.has(&key));
    }
    let py = a.key.py();
    let chars = a.key.len()?;
    let head = a
        .key
        .get_item(PySlice::new(py, 0, chars.saturating_sub(7) as isize, 1))?;
    let key = head
        .add("type")?
        .cast_into::<PyString>()
        .map_err(PyErr::from)?;
    Ok(span.get_exact(&key)?.is_some())
}

/// The conflict message, formatted by Python: each kind attribute and its word (40 characters
/// of it), and the span name (60 characters, quoted) where its affix says a kind too.
fn conflict<'py>(
    span: &Span<'py>,
    said: &[Said<'py>],
    by_name: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = span.name.py();
    let each = PyString::new(py, "{}={!s:.40}");
    let mut parts = Vec::with_capacity(said.len());
    for s in said {
        parts.push(each.call_method1(
            pyo3::intern!(py, "format"),
            (&span.attrs[s.at].key, &s.value),
        )?);
    }
    let what = PyString::new(py, ", ").call_method1(pyo3::intern!(py, "join"), (parts,))?;
    let place = if by_name {
        let head = span.name.get_item(PySlice::new(py, 0, 60, 1))?;
        PyString::new(py, "span name {!r}").call_method1(pyo3::intern!(py, "format"), (head,))?
    } else {
        PyString::new(py, "").into_any()
    };
    PyString::new(py, "kind words disagree: {} {}")
        .call_method1(pyo3::intern!(py, "format"), (what, place))?
        .call_method0(pyo3::intern!(py, "strip"))
}

/// `infer(record)`: the kind the span's own evidence gives.
fn infer<'py>(v: &Vocabulary, span: &Span<'py>) -> PyResult<Found<'py>> {
    let py = span.name.py();
    if let Some(stem) = &span.read.stem {
        return Ok(Found {
            name: Some(text_name(py, stem.clone())),
            ..Found::new(&v.other, Some(&*v.lifecycle))
        });
    }
    if let Some(found) = endpoint(v, span)? {
        return Ok(found);
    }
    let (mut said, prefix) = said(v, &span.attrs)?;
    let mut affix = span.affix(v);
    let mut genai: Option<Option<(String, Option<Bound<'py, PyAny>>)>> = None;
    if let Some(found) = &affix {
        if !found.0.is_empty() && found.1.is_empty() {
            let read = genai_kind(v, span)?;
            // a bare kind word (`completion`) says what GenAI keys say, and less
            let same = read.as_ref().is_some_and(|(kind, _)| *kind == found.0);
            genai = Some(read);
            if same {
                affix = None;
            }
        }
    }
    let affix_kind = affix
        .as_ref()
        .map(|a| a.0.clone())
        .filter(|kind| !kind.is_empty());
    let mut kinds = kinds_of(&said, affix_kind.as_deref());
    if kinds.len() > 1 {
        // a type over its own subtype (`span.subtype: tool_call`: the output's)
        let mut kept = Vec::new();
        for s in &said {
            let a = &span.attrs[s.at];
            if a.read.words.last().map(String::as_str) != Some("subtype") || !type_beside(span, a)?
            {
                kept.push(Said {
                    kind: s.kind.clone(),
                    at: s.at,
                    value: s.value.clone(),
                });
            }
        }
        if !kept.is_empty() {
            said = kept;
        }
        kinds = kinds_of(&said, affix_kind.as_deref());
    }
    if kinds.len() > 1 {
        // the span's own type over a type its context carries (`entity.type`)
        let own: Vec<Said<'py>> = said
            .iter()
            .filter(|s| span.attrs[s.at].read.words.iter().any(|w| w == "span"))
            .map(|s| Said {
                kind: s.kind.clone(),
                at: s.at,
                value: s.value.clone(),
            })
            .collect();
        if !own.is_empty() && kinds_of(&own, affix_kind.as_deref()).len() == 1 {
            kinds = vec![own[0].kind.clone()];
            said = own;
        }
    }
    if kinds.len() == 2 && kinds.contains(&v.tool) && kinds.contains(&v.handoff) {
        // a hand-off is a tool call that transfers: the narrower word
        said.retain(|s| s.kind == v.handoff);
        kinds = vec![v.handoff.clone()];
    }
    let pattern = affix.as_ref().map(|a| a.2.clone());
    if kinds.len() > 1 {
        return Ok(Found {
            conflict: Some(conflict(span, &said, affix_kind.is_some())?),
            affix: pattern,
            ..Found::new(&v.other, None)
        });
    }
    let mut key = None;
    let mut value = None;
    let (kind, evidence) = if let Some(first) = said.first() {
        key = Some(span.attrs[first.at].key.clone().into_any());
        value = Some(first.value.clone());
        let mut weak = affix_kind.is_none();
        for s in &said {
            let word = match s.value.cast::<PyString>() {
                Ok(word) => norm(&text(word)?),
                Err(_) => String::new(),
            };
            weak = weak && v.weak.contains(&word);
        }
        let evidence = if weak {
            &v.by_function
        } else {
            &v.by_attribute
        };
        (first.kind.clone(), evidence)
    } else if let (Some(kind), Some(found)) = (&affix_kind, &affix) {
        // a function that ran (`function_invocation x`): agent or tool alike
        let ran = words(&found.2 .0);
        let weak = ran.len() >= 2 && v.weak.contains(&ran[0]) && v.ran.contains(&ran[1]);
        let evidence = if weak { &v.by_function } else { &v.by_name };
        (kind.clone(), evidence)
    } else {
        let read = match genai {
            Some(read) => read,
            None => genai_kind(v, span)?,
        };
        match read {
            // an operation that runs nothing (`create_agent`)
            Some((kind, _)) if kind == v.other => return Ok(Found::new(&v.other, None)),
            Some((kind, found)) => {
                // its value told the kind: pinned by value, as a kind word is
                let operation = found
                    .as_ref()
                    .and_then(|k| k.cast::<PyString>().ok())
                    .is_some_and(|k| k.to_str().is_ok_and(|k| k == v.genai_operation));
                if operation {
                    value = span.get(&v.genai_operation).cloned();
                }
                key = found;
                (kind, &v.by_genai)
            }
            None => (v.other.clone(), &v.candidate),
        }
    };
    let bare = affix.as_ref().map(|a| a.1.as_str());
    let bare_name = bare.filter(|b| !b.is_empty());
    let mut found_name = name(v, span, &kind, bare, prefix.as_deref())?;
    if found_name.is_none() {
        found_name = placeholder(span, bare)?;
    }
    if found_name.is_none() && kind != v.tool {
        found_name = subject(span)?;
    }
    if found_name.is_none() {
        found_name = own_key(span)?;
    }
    let found = Found {
        key,
        value,
        ..Found::new(&kind, Some(evidence.as_str()))
    };
    let found = if let Some((name_key, name)) = found_name {
        Found {
            affix: pattern,
            name: Some(name),
            name_key: Some(name_key),
            ..found
        }
    } else if kind == v.llm {
        return Ok(Found {
            affix: pattern,
            ..found
        });
    } else if bare == Some("") && call_owner(&span.name_text).is_some() {
        // `Agent.before_run()`: the class, no name
        return Ok(if kind == v.agent {
            Found::new(&v.other, Some(&*v.candidate))
        } else {
            Found::new(&v.other, None)
        });
    } else {
        let app = if (kind == v.other || kind == v.agent) && code_path(span.bare_or_name(bare)) {
            named(v, span, &v.app_names, None)?
        } else {
            None
        };
        if let Some((name_key, app)) = app {
            Found {
                affix: pattern,
                name: Some(app),
                name_key: Some(name_key),
                ..found
            }
        } else {
            let mut name = match bare_name {
                Some(bare) => bare.to_owned(),
                None => last_crumb(&clip(pystr::strip(&span.name_text))).to_owned(),
            };
            let mut pattern = pattern;
            if kind == v.agent {
                if let (Some(label), Some(pin)) = (label(&name), pattern.as_mut()) {
                    // `weather.<the task's words>`
                    pin.1 = pin.1.replacen("(.+)", &v.label_group, 1);
                    name = label.to_owned();
                }
            }
            Found {
                affix: if bare_name.is_some() { pattern } else { None },
                name: Some(text_name(py, name)),
                ..found
            }
        }
    };
    guards(v, span, found, bare)
}

/// `infer`'s closing guards: what its reading found that names no run or call of a user's.
fn guards<'py>(
    v: &Vocabulary,
    span: &Span<'py>,
    found: Found<'py>,
    bare: Option<&str>,
) -> PyResult<Found<'py>> {
    let kind = found.kind.as_str();
    let name = found.name_text();
    if kind == v.tool && name.is_some_and(|n| v.placeholder_tools.contains(n)) {
        return Ok(Found::new(&v.other, None)); // parallel calls merged: no tool
    }
    if found.name_key.is_none()
        && (kind == v.other || kind == v.agent)
        && library_class(v, name, &span.scope)
    {
        // `LettaAgent.step` traced by `letta.otel`: the library's own agent class
        return Ok(Found::new(&v.other, Some(&*v.candidate)));
    }
    if kind != v.agent {
        return Ok(found);
    }
    if sets_up(&span.name_text) || manages(v, &span.name_text) {
        // `Agent.init`, `create_agent`: an agent object built or torn down, or created through
        // an API: no run of it
        return Ok(Found::new(&v.other, None));
    }
    if found.evidence.as_deref() == Some(v.by_name.as_str())
        && found.name_key.is_some()
        && caller_source(v, &span.mapping)?.is_some()
    {
        // only its span name says agent (`update_agent`), its keys the agent before and the
        // one after: the switch between two runs
        return Ok(Found::new(&v.other, None));
    }
    if !name.is_some_and(|n| agent_name_ok(v, n))
        || (found.name_key.is_none() && (bare == Some("") || code_path(span.bare_or_name(bare))))
    {
        // a framework's node, its code path, or a kind word and a run word: no name of its own
        return Ok(Found {
            name: found.name,
            name_key: found.name_key,
            ..Found::new(&v.other, Some(&*v.candidate))
        });
    }
    Ok(found)
}

/// `tool_readings(record)`: (name, evidence) of every name the span gives a tool call, when
/// any of its evidence says tool, whether or not other evidence disagrees.
fn tool_readings(v: &Vocabulary, span: &Span<'_>) -> PyResult<Vec<(String, String)>> {
    let affix = span.affix(v).filter(|a| a.0 == v.tool);
    let prefixed = span.read.prefixed.clone();
    if affix.is_none()
        && prefixed.is_none()
        && !v.genai_tool_keys.iter().any(|key| span.has(key))
        && !said(v, &span.attrs)?.0.iter().any(|s| s.kind == v.tool)
    {
        return Ok(Vec::new());
    }
    let mut found: Vec<(String, String)> = affix
        .map(|a| (a.1, v.by_name.clone()))
        .into_iter()
        .chain(prefixed.map(|p| (p, v.by_name.clone())))
        .collect();
    found.extend(
        tool_names(v, &span.mapping)?
            .into_iter()
            .map(|name| (name, v.by_attribute.clone())),
    );
    Ok(found)
}

/// `infer(record)`: (kind, evidence, key, value, affix, name, name_key, conflict), the fields
/// of `Inferred` (compiled.py makes it one).
#[pyfunction(name = "infer")]
fn infer_py<'py>(record: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    door(|| {
        let v = vocabulary()?;
        infer(&v, &Span::read(&v, record)?)?.into_tuple(record.py())
    })
}

/// `kind_words(attrs)`: (key, kind word) of each attribute naming a kind.
#[pyfunction(name = "kind_words")]
fn kind_words_py<'py>(
    attrs: &Bound<'py, PyAny>,
) -> PyResult<Vec<(Bound<'py, PyString>, Bound<'py, PyAny>)>> {
    door(|| {
        let v = vocabulary()?;
        let attrs = attrs_of(&v, attrs)?;
        Ok(said(&v, &attrs)?
            .0
            .into_iter()
            .map(|s| (attrs[s.at].key.clone(), s.value))
            .collect())
    })
}

/// `tool_readings(record)`.
#[pyfunction(name = "tool_readings")]
fn tool_readings_py(record: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    door(|| {
        let v = vocabulary()?;
        tool_readings(&v, &Span::read(&v, record)?)
    })
}

/// The span name without its kind affix (`weather.chat` -> `weather`), None where it has no
/// affix or nothing is left.
#[pyfunction(name = "bare_name")]
fn bare_name_py(record: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    door(|| {
        let v = vocabulary()?;
        Ok(Span::read(&v, record)?
            .affix(&v)
            .map(|a| a.1)
            .filter(|bare| !bare.is_empty()))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(infer_py, m)?)?;
    m.add_function(wrap_pyfunction!(kind_words_py, m)?)?;
    m.add_function(wrap_pyfunction!(tool_readings_py, m)?)?;
    m.add_function(wrap_pyfunction!(bare_name_py, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_patterns_read_as_re() {
        assert!(subject_ok("weather\n") && !subject_ok("weather\n\n") && !subject_ok(""));
        assert!(!subject_ok(&"x".repeat(65)) && subject_ok("a.b-c_١"));
        assert_eq!(placeholder_key("{name!r:>10}"), Some("name"));
        assert_eq!(placeholder_key("{x.y}"), Some("x.y"));
        assert_eq!(placeholder_key("{1x}"), None);
        assert_eq!(placeholder_key("{x!q}"), None);
        assert_eq!(label("weather agent: do x"), Some("weather agent"));
        assert_eq!(label("weather:do"), None);
        assert!(sets_up(" Agent.__init__ ") && sets_up("Agent.INİTIALİZE"));
        assert!(!sets_up("Agent.billing.initialize"));
        assert_eq!(unquote_plus("a+b%20c%zz%4"), "a b c%zz%4");
        assert_eq!(unquote_plus("%C3%A9é%41"), "ééA");
        assert!(indexed("gen_ai.prompt.١.content") && !indexed("gen_ai.prompt.x."));
    }
}
