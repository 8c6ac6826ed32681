//! Inference's readers of one string (semconv/inference.py, docs/conventions.md#inference): a
//! span name's, an attribute key's or one attribute value's words, and the kind they say. The
//! rules that weigh a span's evidence stay in Python; what they ask of one string is answered
//! here, with Python's semantics (Unicode `\d`, `\w`, `str.isspace`; lengths in code points; a
//! lone surrogate read as `?`, as `str.encode("utf-8", "replace")` gives it). The vocabulary is
//! the package's, handed in once at import (`bind_inference_words`): no word list is written
//! twice. The Python twin is the tests' oracle (tests/_inference_oracle.py).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::{Arc, RwLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::door::door;
use crate::pyclass_table::{DIGIT, WORD};
use crate::pystr;

/// The words inference reads by, as semconv/inference.py defines them.
#[derive(Debug, Default)]
pub struct Vocabulary {
    /// KIND_WORDS: a kind word -> its kind.
    pub kinds: HashMap<String, String>,
    /// _WEAK_WORDS: kind words any traced function carries.
    pub weak: HashSet<String>,
    /// _KIND_KEY_ENDS: the last word of a key holding a kind.
    pub kind_key_ends: HashSet<String>,
    /// _RAN_WORDS: a word after a kind word saying only that one ran.
    pub ran: HashSet<String>,
    /// _RECORD_WORDS: words after a kind word naming the record (`AgentSpanData`).
    pub record_words: Vec<Vec<String>>,
    /// _TAG_KEY_ENDS: the last word of a key holding a list of tags.
    pub tag_key_ends: HashSet<String>,
    /// _MAX_TAGS: a longer list of tags names no kind.
    pub max_tags: usize,
    /// _KIND_QUALIFIERS: a word after the kind word saying whose kind it is.
    pub qualifiers: HashSet<String>,
    /// _NOT_KIND_KEYS: keys so worded hold something else's type.
    pub not_kind_keys: HashSet<String>,
    /// _RUNNING: a verb's -ing form before `agent` or `tool`.
    pub running: HashSet<String>,
    /// OPERATION_VERBS: the first word of an operation before what it ran (`run/x`).
    pub operation_verbs: HashSet<String>,
    /// RUN_WORDS: words after a name that only say "a run of it".
    pub run_words: HashSet<String>,
    /// _PROVIDER_WORDS: the words of model providers' names.
    pub provider_words: HashSet<String>,
    /// _TOKEN_SIDES: the words of a token count's side.
    pub token_sides: HashSet<String>,
    /// _VERB_OWNERS: per kind an everyday verb names, the words of a class whose method of
    /// that name is of the kind.
    pub verb_owners: HashMap<String, HashSet<String>>,
    /// _LLM_OWNER: a class of these words calls a model (`ChatOpenAI`).
    pub llm_owner: HashSet<String>,
    /// _EVERYDAY: model-call kind words an app's own objects are named by.
    pub everyday: HashSet<String>,
    /// _CALLS: a method's words saying it calls a model.
    pub calls: HashSet<String>,
    /// _LEADS: separators before a name (`Agent - weather`).
    pub leads: Vec<char>,
    /// _CLIENT_CALLS: the words of a model client's method that makes a call.
    pub client_calls: HashSet<String>,
    /// _CALL_QUALIFIERS: words such a method may add (`request_async`).
    pub call_qualifiers: HashSet<String>,
    /// _CLIENT_OWNERS: the words of a model client's class.
    pub client_owners: HashSet<String>,
    /// common.PLACEHOLDER_AGENT_NAMES: names that name no agent.
    pub placeholder_agents: HashSet<String>,
    /// _ERROR_WORDS: a key's words saying it flags a failure.
    pub error_words: HashSet<String>,
    /// _FALSE_VALUES: a flag's values saying nothing failed (lowered).
    pub false_values: HashSet<String>,
    /// _ERROR_LEVELS: a log level on the span saying it failed (lowered).
    pub error_levels: HashSet<String>,
    /// _HANDOFF_WORDS: a key's words saying it holds a hand-off's end.
    pub handoff_words: HashSet<String>,
    /// _CAME_FROM: a key's words naming the agent that handed over.
    pub came_from: HashSet<String>,
    /// _REQUEST_SIDES: the words of a model's output side (a tool call it asked for).
    pub request_sides: HashSet<String>,
    /// _MODEL_KEYS: the last words of a key naming a model, in the order they are read.
    pub model_keys: Vec<Vec<String>>,
    /// MODEL_IN_NAME: the key `model_source` gives a model read from the span name.
    pub model_in_name: String,
    /// MODEL_MEMBER: the member of a call's parameters naming the model.
    pub model_member: String,
    /// _MAX_PARAMETERS: longer parameters are not parsed for the model.
    pub max_parameters: usize,
    /// _OTHERS: words saying a name key names someone else (a user, the calling agent).
    pub others: HashSet<String>,
    /// _TOOL_NAMES: the last words of a key holding a tool's name.
    pub tool_names: Vec<Vec<String>>,
    /// The kinds, as semconv/step.py spells them.
    pub agent: String,
    pub tool: String,
    pub llm: String,
    pub workflow: String,
    pub handoff: String,
    pub other: String,
    /// How inference found a kind (`Inferred.evidence`): BY_ATTRIBUTE, BY_FUNCTION, BY_NAME,
    /// BY_GENAI, CANDIDATE, LIFECYCLE.
    pub by_attribute: String,
    pub by_function: String,
    pub by_name: String,
    pub by_genai: String,
    pub candidate: String,
    pub lifecycle: String,
    /// _PROVIDERS: the providers of `<provider>/<model>` span names.
    pub providers: HashSet<String>,
    /// GENAI_OPERATION and _GENAI_OPERATIONS: the operation key, and the kinds of operations
    /// the kind words do not name.
    pub genai_operation: String,
    pub genai_operations: HashMap<String, String>,
    /// _GENAI_TOOL, _GENAI_AGENT, _GENAI_LLM: GenAI keys saying a tool, an agent, a model call.
    pub genai_tool_keys: Vec<String>,
    pub genai_agent_keys: Vec<String>,
    pub genai_llm: Vec<String>,
    /// _LLM_EVENTS: span events of a model call.
    pub llm_events: HashSet<String>,
    /// _HTTP_KEYS: an HTTP request's keys.
    pub http_keys: Vec<String>,
    /// _AGENT_NAMES, _APP_NAMES: the last words of a key holding an agent's, an app's name.
    pub agent_names: Vec<Vec<String>>,
    pub app_names: Vec<Vec<String>>,
    /// common.PLACEHOLDER_TOOLS: names that name no tool.
    pub placeholder_tools: HashSet<String>,
    /// _LABEL_GROUP: the pattern of an agent's label, written into a name's regex.
    pub label_group: String,
    /// MANAGE_VERBS: the verbs of an agents API's operations.
    pub manage_verbs: Vec<String>,
    /// ENDPOINT_SCHEME, ENDPOINT_PATH, ENDPOINT_QUERY, ENDPOINT_TOOL_OPTION, ENDPOINT_SENDS: an
    /// endpoint's keys, the URI option naming its tool and the mark of its sending side.
    pub endpoint_scheme: String,
    pub endpoint_path: String,
    pub endpoint_query: String,
    pub endpoint_tool_option: String,
    pub endpoint_sends: (String, String),
    /// What `infer` read of keys and span names that repeat (core/src/inference_infer.rs).
    pub readings: crate::inference_infer::Readings,
}

/// The vocabulary bound last (a re-import binds it again).
static VOCABULARY: RwLock<Option<Arc<Vocabulary>>> = RwLock::new(None);

pub fn vocabulary() -> PyResult<Arc<Vocabulary>> {
    VOCABULARY
        .read()
        .ok()
        .and_then(|bound| bound.clone())
        .ok_or_else(|| PyValueError::new_err("inference's vocabulary is not bound"))
}

pub fn in_ranges(c: char, ranges: &[(char, char)]) -> bool {
    ranges
        .binary_search_by(|&(low, high)| {
            if c < low {
                Ordering::Greater
            } else if c > high {
                Ordering::Less
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// Python's `\d` of a `str` pattern: a Unicode decimal digit.
pub fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && in_ranges(c, DIGIT))
}

/// Python's `\w` of a `str` pattern: `c.isalnum()` or `_`.
pub fn is_word(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        in_ranges(c, WORD)
    }
}

/// `_WORD.findall(text)`, lowered: `[A-Z]?[a-z][a-z0-9]*|[A-Z][A-Z0-9]*(?![a-z])|\d+[a-z0-9]*`,
/// written out (the `regex` crate has no look-ahead). Digits glued to letters stay in their word
/// (`ag2`, `k8s`); `HTTPServer` is `http`, `server`.
pub fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let (n, lower, upper) = (
        chars.len(),
        |c: char| c.is_ascii_lowercase(),
        |c: char| c.is_ascii_uppercase(),
    );
    let tail = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut found = Vec::new();
    let mut at = 0;
    while at < n {
        let c = chars[at];
        let next_lower = at + 1 < n && lower(chars[at + 1]);
        let end = if lower(c) || (upper(c) && next_lower) {
            let mut end = at + if lower(c) { 1 } else { 2 };
            while end < n && tail(chars[end]) {
                end += 1;
            }
            Some(end)
        } else if upper(c) {
            let mut end = at + 1;
            while end < n && (upper(chars[end]) || chars[end].is_ascii_digit()) {
                end += 1;
            }
            // `(?![a-z])`: back off one, which is no letter after it (never to `at`: then the
            // first alternative had matched)
            if end < n && lower(chars[end]) {
                end -= 1;
            }
            Some(end)
        } else if is_digit(c) {
            let mut end = at + 1;
            while end < n && is_digit(chars[end]) {
                end += 1;
            }
            while end < n && tail(chars[end]) {
                end += 1;
            }
            Some(end)
        } else {
            None
        };
        match end {
            Some(end) => {
                found.push(
                    chars[at..end]
                        .iter()
                        .map(char::to_ascii_lowercase)
                        .collect(),
                );
                at = end;
            }
            None => at += 1,
        }
    }
    found
}

/// `w.isdigit()` of one of `words`' words: a word holds ASCII letters and decimal digits only.
pub fn is_number(word: &str) -> bool {
    !word.bytes().any(|b| b.is_ascii_alphabetic())
}

/// `_norm`: `"CHAT_MODEL"` -> `chat_model`; `Tool Call` -> `tool_call`; `chatModel` ->
/// `chat_model`.
pub fn norm(text: &str) -> String {
    words(pystr::strip(text).trim_matches('"')).join("_")
}

fn first_entry(v: &Vocabulary, found: &[String]) -> bool {
    let n = found.len();
    n >= 3
        && (found[n - 2] == "0" || found[n - 2] == "1")
        && !found[..n - 2].iter().any(|w| is_number(w))
        && !found[n - 3].ends_with('s')
        && !found.iter().any(|w| v.not_kind_keys.contains(w.as_str()))
        && !found.iter().any(|w| w == "call")
}

/// `_kind_key`: a kind-like key's words before its kind word (its vendor prefix), else None.
pub fn kind_key(v: &Vocabulary, key: &str) -> Option<Vec<String>> {
    let mut found = words(key);
    let n = found.len();
    if n >= 2
        && v.kind_key_ends.contains(found[n - 2].as_str())
        && v.qualifiers.contains(found[n - 1].as_str())
    {
        found.pop(); // `ag.type.node`: the node's type
    }
    if !found
        .last()
        .is_some_and(|w| v.kind_key_ends.contains(w.as_str()))
    {
        return None;
    }
    if found.iter().any(|w| is_number(w)) && !first_entry(v, &found) {
        return None;
    }
    found.pop();
    if found.iter().any(|w| v.not_kind_keys.contains(w.as_str())) || key.contains("gen_ai") {
        return None;
    }
    if found.last().is_some_and(|w| w == "span") {
        found.pop();
    }
    Some(found)
}

/// `tag_key`: a key holding a list of tags (`logfire.tags`, `tags`): its vendor prefix.
pub fn tag_key(v: &Vocabulary, key: &str) -> Option<Vec<String>> {
    let mut found = words(key);
    let last = found.pop()?;
    v.tag_key_ends.contains(&last).then_some(found)
}

/// `_kind_word` of a string: the kind a kind-like attribute's value names.
pub fn kind_word<'v>(v: &'v Vocabulary, value: &str) -> Option<&'v str> {
    if pystr::len(value) > 40 {
        return None;
    }
    let norm = norm(value);
    let mut kind = v.kinds.get(&norm);
    if kind.is_none() && value.contains('.') {
        // a kind, then its provider (`agent.openai_agents`)
        kind = v
            .kinds
            .get(&self::norm(value.split('.').next().unwrap_or_default()));
    }
    if kind.is_some() || !norm.contains('_') {
        return kind.map(String::as_str);
    }
    let mut parts: Vec<&str> = norm.split('_').collect();
    for record in &v.record_words {
        // `AgentSpan`, `ToolSpanData`: the span's class names it
        if parts.len() > record.len() && parts[parts.len() - record.len()..] == record[..] {
            parts.truncate(parts.len() - record.len());
            break;
        }
    }
    let joined = parts.join("_");
    if parts.len() == 1 || v.kinds.contains_key(&joined) {
        return v.kinds.get(&joined).map(String::as_str);
    }
    let kinds: Vec<Option<&String>> = parts.iter().map(|p| v.kinds.get(*p)).collect();
    if parts.len() == 2 && kinds[0].is_some() && v.ran.contains(parts[1]) {
        return kinds[0].map(String::as_str);
    }
    let last = kinds[kinds.len() - 1];
    if parts.len() <= 3
        && matches!(parts[parts.len() - 1], "agent" | "tool")
        && last.is_some()
        && kinds.iter().flatten().all(|k| Some(*k) == last)
    {
        return last.map(String::as_str);
    }
    None
}

/// `_CALL.match(text)`'s group 1 (`^\s*([A-Za-z_]\w{0,80})\.([A-Za-z_]\w{0,80})\(\)\s*$`): the
/// class of a method called by name (`Tool.run()`).
pub fn call_owner(text: &str) -> Option<&str> {
    let identifier = |part: &str| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.clone().count() <= 80
            && chars.all(is_word)
    };
    let (owner, method) = pystr::strip(text).strip_suffix("()")?.split_once('.')?;
    (identifier(owner) && identifier(method)).then_some(owner)
}

/// `_affix_kind`: the kind a span name's affix says: a kind word, or `agent` or `tool` beside a
/// verb saying only that it ran (`run_agent`, `call_tool`, `Running tool`), `workflow` beside
/// one that it ran or started (`RunWorkflow`, `StartChildWorkflow`: a durable engine's).
pub fn affix_kind<'v>(v: &'v Vocabulary, word: &str) -> Option<&'v str> {
    let norm = norm(word);
    if let Some(kind) = v.kinds.get(&norm) {
        return Some(kind);
    }
    let (first, second) = norm.split_once('_')?;
    if let Some(("child", "workflow")) = second.split_once('_') {
        // `StartChildWorkflow`: a workflow started from another (a durable engine's child)
        let started = first == "start" || v.run_words.contains(first);
        return v
            .kinds
            .get("workflow")
            .filter(|_| started)
            .map(String::as_str);
    }
    if second.contains('_') {
        return None;
    }
    if (v.ran.contains(first) || v.run_words.contains(first) || v.running.contains(first))
        && matches!(second, "agent" | "tool" | "llm" | "model")
        || (first == "start" || v.run_words.contains(first)) && second == "workflow"
    {
        v.kinds.get(second).map(String::as_str)
    } else if v.weak.contains(first) && v.ran.contains(second) {
        Some(&v.tool)
    } else {
        None
    }
}

/// `_usage_key`: a token count of a model call under any vendor's key, not an agent's.
pub fn usage_key(v: &Vocabulary, key: &str) -> bool {
    let found = words(key);
    let has = |w: &str| found.iter().any(|f| f == w);
    (has("token") || has("tokens"))
        && found.iter().any(|w| v.token_sides.contains(w.as_str()))
        && !found.iter().any(|w| is_number(w))
        && !has("agent")
}

/// `_provider` of a string: a model provider's name (`openai`, `aws.bedrock`).
pub fn provider(v: &Vocabulary, value: &str) -> bool {
    v.provider_words.contains(&norm(value))
        || words(&pystr::lower(value))
            .iter()
            .any(|w| v.provider_words.contains(w.as_str()))
}

/// A `str`'s text as inference reads it: a lone surrogate (any SDK string can hold one) as the
/// `?` that `encode("utf-8", "replace")` makes of it.
pub fn text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    match s.to_str() {
        Ok(text) => Ok(Cow::Borrowed(text)),
        Err(_) => {
            let bytes: Vec<u8> = s
                .call_method1(pyo3::intern!(s.py(), "encode"), ("utf-8", "replace"))?
                .extract()?;
            Ok(Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()))
        }
    }
}

fn tuple<'py>(py: Python<'py>, found: &[String]) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, found)
}

fn set<S: std::hash::BuildHasher + Default>(
    vocabulary: &Bound<'_, PyDict>,
    name: &str,
) -> PyResult<std::collections::HashSet<String, S>> {
    vocabulary
        .get_item(name)?
        .ok_or_else(|| PyValueError::new_err(format!("the vocabulary has no {name:?}")))?
        .extract()
}

/// Binds the package's vocabulary (semconv/inference.py hands it in at import): one source of
/// truth for the words, read by the package's modules and the core alike.
#[pyfunction]
fn bind_inference_words(vocabulary: &Bound<'_, PyDict>) -> PyResult<()> {
    door(|| {
        let item = |name: &str| {
            vocabulary
                .get_item(name)?
                .ok_or_else(|| PyValueError::new_err(format!("the vocabulary has no {name:?}")))
        };
        let bound = Vocabulary {
            kinds: item("kind_words")?.extract()?,
            weak: set(vocabulary, "weak")?,
            kind_key_ends: set(vocabulary, "kind_key_ends")?,
            ran: set(vocabulary, "ran")?,
            record_words: item("record_words")?.extract()?,
            tag_key_ends: set(vocabulary, "tag_key_ends")?,
            max_tags: item("max_tags")?.extract()?,
            qualifiers: set(vocabulary, "qualifiers")?,
            not_kind_keys: set(vocabulary, "not_kind_keys")?,
            running: set(vocabulary, "running")?,
            operation_verbs: set(vocabulary, "operation_verbs")?,
            run_words: set(vocabulary, "run_words")?,
            provider_words: set(vocabulary, "provider_words")?,
            token_sides: set(vocabulary, "token_sides")?,
            verb_owners: item("verb_owners")?.extract()?,
            llm_owner: set(vocabulary, "llm_owner")?,
            everyday: set(vocabulary, "everyday")?,
            calls: set(vocabulary, "calls")?,
            leads: item("leads")?.extract::<String>()?.chars().collect(),
            client_calls: set(vocabulary, "client_calls")?,
            call_qualifiers: set(vocabulary, "call_qualifiers")?,
            client_owners: set(vocabulary, "client_owners")?,
            placeholder_agents: set(vocabulary, "placeholder_agents")?,
            error_words: set(vocabulary, "error_words")?,
            false_values: set(vocabulary, "false_values")?,
            error_levels: set(vocabulary, "error_levels")?,
            handoff_words: set(vocabulary, "handoff_words")?,
            came_from: set(vocabulary, "came_from")?,
            request_sides: set(vocabulary, "request_sides")?,
            model_keys: item("model_keys")?.extract()?,
            model_in_name: item("model_in_name")?.extract()?,
            model_member: item("model_member")?.extract()?,
            max_parameters: item("max_parameters")?.extract()?,
            others: set(vocabulary, "others")?,
            tool_names: item("tool_names")?.extract()?,
            agent: item("agent")?.extract()?,
            tool: item("tool")?.extract()?,
            llm: item("llm")?.extract()?,
            workflow: item("workflow")?.extract()?,
            handoff: item("handoff")?.extract()?,
            other: item("other")?.extract()?,
            by_attribute: item("by_attribute")?.extract()?,
            by_function: item("by_function")?.extract()?,
            by_name: item("by_name")?.extract()?,
            by_genai: item("by_genai")?.extract()?,
            candidate: item("candidate")?.extract()?,
            lifecycle: item("lifecycle")?.extract()?,
            providers: set(vocabulary, "providers")?,
            genai_operation: item("genai_operation")?.extract()?,
            genai_operations: item("genai_operations")?.extract()?,
            genai_tool_keys: item("genai_tool_keys")?.extract()?,
            genai_agent_keys: item("genai_agent_keys")?.extract()?,
            genai_llm: item("genai_llm")?.extract()?,
            llm_events: set(vocabulary, "llm_events")?,
            http_keys: item("http_keys")?.extract()?,
            agent_names: item("agent_names")?.extract()?,
            app_names: item("app_names")?.extract()?,
            placeholder_tools: set(vocabulary, "placeholder_tools")?,
            label_group: item("label_group")?.extract()?,
            manage_verbs: item("manage_verbs")?.extract()?,
            endpoint_scheme: item("endpoint_scheme")?.extract()?,
            endpoint_path: item("endpoint_path")?.extract()?,
            endpoint_query: item("endpoint_query")?.extract()?,
            endpoint_tool_option: item("endpoint_tool_option")?.extract()?,
            endpoint_sends: item("endpoint_sends")?.extract()?,
            readings: Default::default(),
        };
        let mut slot = VOCABULARY
            .write()
            .map_err(|_| PyValueError::new_err("inference's vocabulary is poisoned"))?;
        *slot = Some(Arc::new(bound));
        Ok(())
    })
}

/// `words(text)`: the text's words, lowered (`mlflow.spanType` -> (mlflow, span, type)).
#[pyfunction(name = "words")]
fn words_py<'py>(text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyTuple>> {
    door(|| tuple(text.py(), &words(&self::text(text)?)))
}

/// `_norm(text)`.
#[pyfunction(name = "norm")]
fn norm_py(text: &Bound<'_, PyString>) -> PyResult<String> {
    door(|| Ok(norm(&self::text(text)?)))
}

/// `_kind_key(key)`.
#[pyfunction(name = "kind_key")]
fn kind_key_py<'py>(key: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyTuple>>> {
    door(|| {
        let v = vocabulary()?;
        kind_key(&v, &text(key)?)
            .map(|found| tuple(key.py(), &found))
            .transpose()
    })
}

/// `tag_key(key)`.
#[pyfunction(name = "tag_key")]
fn tag_key_py<'py>(key: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyTuple>>> {
    door(|| {
        let v = vocabulary()?;
        tag_key(&v, &text(key)?)
            .map(|found| tuple(key.py(), &found))
            .transpose()
    })
}

/// `_kind_word(value)`: None for a value that is no string.
#[pyfunction(name = "kind_word")]
fn kind_word_py(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    door(|| {
        let Ok(value) = value.cast::<PyString>() else {
            return Ok(None);
        };
        let v = vocabulary()?;
        Ok(kind_word(&v, &text(value)?).map(str::to_owned))
    })
}

/// `_tag_kind(value)`: (kind, the tag) when a list of tags names one kind: a tag that is a kind
/// word (`LLM`), or a method of a kind word's class (`Tool.run()`); the tag is the value's own.
pub fn tag_kind<'py, 'v>(
    v: &'v Vocabulary,
    value: &Bound<'py, PyAny>,
) -> PyResult<Option<(&'v str, Bound<'py, PyAny>)>> {
    let tags: Vec<Bound<'py, PyAny>> = if let Ok(list) = value.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(items) = value.cast::<PyTuple>() {
        items.iter().collect()
    } else {
        return Ok(None);
    };
    if tags.len() > v.max_tags {
        return Ok(None);
    }
    let mut found: Vec<(&str, Bound<'py, PyAny>)> = Vec::new();
    for tag in tags {
        let Ok(tag_str) = tag.cast::<PyString>() else {
            continue;
        };
        let tag_text = text(tag_str)?;
        let read = call_owner(&tag_text).unwrap_or(&tag_text);
        if let Some(kind) = kind_word(v, read) {
            if !found.iter().any(|(k, _)| *k == kind) {
                found.push((kind, tag.clone()));
            }
        }
    }
    Ok(match found.pop() {
        Some((kind, tag)) if found.is_empty() => Some((kind, tag)),
        _ => None,
    })
}

/// `_tag_kind(value)`.
#[pyfunction(name = "tag_kind")]
fn tag_kind_py<'py>(value: &Bound<'py, PyAny>) -> PyResult<Option<(String, Bound<'py, PyAny>)>> {
    door(|| {
        let v = vocabulary()?;
        Ok(tag_kind(&v, value)?.map(|(kind, tag)| (kind.to_owned(), tag)))
    })
}

/// `_affix_kind(word)`.
#[pyfunction(name = "affix_kind")]
fn affix_kind_py(word: &Bound<'_, PyString>) -> PyResult<Option<String>> {
    door(|| {
        let v = vocabulary()?;
        Ok(affix_kind(&v, &text(word)?).map(str::to_owned))
    })
}

/// `_usage_key(key)`.
#[pyfunction(name = "usage_key")]
fn usage_key_py(key: &Bound<'_, PyString>) -> PyResult<bool> {
    door(|| Ok(usage_key(&*vocabulary()?, &text(key)?)))
}

/// `_provider(value)`: False for a value that is no string.
#[pyfunction(name = "provider")]
fn provider_py(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    door(|| match value.cast::<PyString>() {
        Ok(value) => Ok(provider(&*vocabulary()?, &text(value)?)),
        Err(_) => Ok(false),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bind_inference_words, m)?)?;
    m.add_function(wrap_pyfunction!(words_py, m)?)?;
    m.add_function(wrap_pyfunction!(norm_py, m)?)?;
    m.add_function(wrap_pyfunction!(kind_key_py, m)?)?;
    m.add_function(wrap_pyfunction!(tag_key_py, m)?)?;
    m.add_function(wrap_pyfunction!(kind_word_py, m)?)?;
    m.add_function(wrap_pyfunction!(tag_kind_py, m)?)?;
    m.add_function(wrap_pyfunction!(affix_kind_py, m)?)?;
    m.add_function(wrap_pyfunction!(usage_key_py, m)?)?;
    m.add_function(wrap_pyfunction!(provider_py, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_pythons() {
        assert_eq!(words("mlflow.spanType"), ["mlflow", "span", "type"]);
        assert_eq!(
            words("HTTPServer k8s ag2"),
            ["http", "server", "k8s", "ag2"]
        );
        assert_eq!(words("x.entity.1.type"), ["x", "entity", "1", "type"]);
        assert_eq!(words("AB1c ١٢ab"), ["ab", "1c", "١٢ab"]);
        assert_eq!(norm(" \u{1c}\"Tool Call\""), "tool_call");
    }

    #[test]
    fn call_owner_reads_a_named_method() {
        assert_eq!(call_owner(" Tool.run() \n"), Some("Tool"));
        assert_eq!(call_owner("Tool.run ()"), None);
        assert_eq!(call_owner("a.b.c()"), None);
    }
}
