//! Inference's readers of one span's attributes (semconv/inference.py, docs/conventions.md#inference):
//! the model a call names under any vendor's key, its token counts, a failure flag, the agents a
//! hand-off leaves and reaches, the tools a model asked for. Each walks the SpanRecord's
//! attribute mapping in the order it holds them, as the Python did, with its semantics: a value is
//! read only when it is a `str` (an `int` for a count, never a bool), strings as `clip` reads them
//! (a lone surrogate as `?`, lengths in code points), keys by their `words`. The key returned is
//! the mapping's own object. The vocabulary is the package's (`bind_inference_words`); the Python
//! twin is the tests' oracle (tests/_inference_oracle.py).

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PySlice, PyString, PyTuple};
use rustc_hash::FxHashSet as HashSet;

use crate::classify::errors::{short_error_name, OTHER_ERROR};
use crate::classify::values::{MAX_COUNT, PLACEHOLDER_MODELS};
use crate::door::door;
use crate::inference::{is_number, is_word, norm, text, vocabulary, words, Vocabulary};
use crate::pyjson::{self, Json};
use crate::pystr::{self, clip};

/// A (key, value) pair of the mapping, in its order; keys that are no `str` are skipped, as the
/// core's record reader skips them (records_py `mapping`).
pub(crate) type Pair<'py> = (Bound<'py, PyString>, Bound<'py, PyAny>);

pub(crate) fn pairs<'py>(attrs: &Bound<'py, PyAny>) -> PyResult<Vec<Pair<'py>>> {
    let mut found = Vec::new();
    let mut add = |key: Bound<'py, PyAny>, value: Bound<'py, PyAny>| {
        if let Ok(key) = key.cast_into::<PyString>() {
            found.push((key, value));
        }
    };
    if let Ok(dict) = attrs.cast_exact::<PyDict>() {
        for (key, value) in dict.iter() {
            add(key, value);
        }
    } else {
        for pair in attrs
            .call_method0(pyo3::intern!(attrs.py(), "items"))?
            .try_iter()?
        {
            let (key, value): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair?.extract()?;
            add(key, value);
        }
    }
    Ok(found)
}

/// The value's text when it is a `str` (`isinstance(value, str)`), and whether it held a lone
/// surrogate (then it equals no valid text).
pub(crate) fn str_value<'a>(value: &'a Bound<'_, PyAny>) -> PyResult<Option<(Cow<'a, str>, bool)>> {
    match value.cast::<PyString>() {
        Ok(s) => {
            let read = text(s)?;
            let lossy = matches!(read, Cow::Owned(_));
            Ok(Some((read, lossy)))
        }
        Err(_) => Ok(None),
    }
}

fn key_words(key: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
    Ok(words(&text(key)?))
}

fn ends_with(found: &[String], tail: &[String]) -> bool {
    found.len() >= tail.len() && found[found.len() - tail.len()..] == *tail
}

fn meets(set: &HashSet<String>, found: &[String]) -> bool {
    found.iter().any(|w| set.contains(w))
}

fn has(found: &[String], word: &str) -> bool {
    found.iter().any(|w| w == word)
}

fn is_placeholder_model(name: &str) -> bool {
    PLACEHOLDER_MODELS.contains(&name)
}

/// `value.strip().strip('"')`.
fn unquoted(value: &str) -> &str {
    pystr::strip(value).trim_matches('"')
}

/// (provider, model) of a `<provider>/<model>` span name (`openai/gpt-4o`, LiteLLM's and
/// Genkit's): `^\s*([a-z][a-z0-9_-]{1,30})/([\w.:@-]{1,120})\s*$`, as Python's `re` reads it.
pub(crate) fn model_in_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.trim_start_matches(pystr::is_space);
    let (provider, model) = rest.split_once('/')?;
    let mut chars = provider.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let (n, tail_ok) = (
        provider.len(),
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'),
    );
    if !first_ok || !tail_ok || !(2..=31).contains(&n) {
        return None;
    }
    let end = model
        .find(|c: char| !(is_word(c) || matches!(c, '.' | ':' | '@' | '-')))
        .unwrap_or(model.len());
    let (found, after) = model.split_at(end);
    let count = pystr::len(found);
    ((1..=120).contains(&count) && after.chars().all(pystr::is_space)).then_some((provider, found))
}

/// `model_source(record)`: (key, model) of a model call's model under any vendor's key, else
/// from a numbered entity typed a model, else from its parameters, else from a
/// `<provider>/<model>` span name (key MODEL_IN_NAME).
fn model_source<'py>(
    v: &Vocabulary,
    attrs: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Option<(Bound<'py, PyAny>, String)>> {
    let all = pairs(attrs)?;
    let mut texts = Vec::new();
    for (key, value) in &all {
        if let Some((read, _)) = str_value(value)? {
            texts.push((key, key_words(key)?, read));
        }
    }
    for tail in &v.model_keys {
        for (key, found, read) in &texts {
            if ends_with(found, tail) && !found.iter().any(|w| is_number(w)) {
                let model = clip(unquoted(read));
                if !model.is_empty() && !is_placeholder_model(&model) {
                    return Ok(Some(((*key).clone().into_any(), model)));
                }
            }
        }
    }
    if let Some(typed) = model_entity(attrs, &all)? {
        return Ok(Some(typed));
    }
    if let Some(typed) = model_in_parameters(v, &all)? {
        return Ok(Some(typed));
    }
    let py = name.py();
    // not an operation and what it ran (`run/call_model`: a task queue's)
    let operation = |provider: &str| {
        words(provider)
            .first()
            .is_some_and(|w| v.operation_verbs.contains(w.as_str()))
    };
    Ok(model_in_name(&text(name)?)
        .filter(|(provider, _)| !operation(provider))
        .map(|(_, model)| (PyString::new(py, &v.model_in_name).into_any(), clip(model))))
}

/// `_model_entity(attrs)`: (key, model) from a numbered list's entity typed a model
/// (`x.entity.2.type: model.llm.gpt-4o` beside `x.entity.2.name: gpt-4o`).
fn model_entity<'py>(
    attrs: &Bound<'py, PyAny>,
    all: &[Pair<'py>],
) -> PyResult<Option<(Bound<'py, PyAny>, String)>> {
    let py = attrs.py();
    for (key, value) in all {
        let found = key_words(key)?;
        let n = found.len();
        if n < 3 || found[n - 1] != "type" || !is_number(&found[n - 2]) {
            continue;
        }
        let Some((read, _)) = str_value(value)? else {
            continue;
        };
        if norm(read.split('.').next().unwrap_or("")) != "model" {
            continue;
        }
        // `key[: -len("type")] + "name"`, on the key's own code points
        let length = key.len()?;
        let head = key.get_item(PySlice::new(py, 0, length.saturating_sub(4) as isize, 1))?;
        let name_key = head.add("name")?;
        let named = attrs.call_method1(pyo3::intern!(py, "get"), (&name_key,))?;
        if let Some((name, _)) = str_value(&named)? {
            let name = clip(&name);
            if !name.is_empty() && !is_placeholder_model(&name) {
                return Ok(Some((name_key, clip(pystr::strip(&name)))));
            }
        }
    }
    Ok(None)
}

/// `model_in_parameters(attrs)`: (key, model) from a call's parameters as a JSON object
/// (`llm.invocation_parameters`).
fn model_in_parameters<'py>(
    v: &Vocabulary,
    all: &[Pair<'py>],
) -> PyResult<Option<(Bound<'py, PyAny>, String)>> {
    for (key, value) in all {
        let Some((read, _)) = str_value(value)? else {
            continue;
        };
        if !read.starts_with('{')
            || pystr::len(&read) > v.max_parameters
            || key_words(key)?.last().map(String::as_str) != Some("parameters")
        {
            continue;
        }
        let Some(parameters) = pyjson::parse(&read) else {
            continue;
        };
        let member = match parameters.get(&v.model_member) {
            Some(Json::Str(s)) if !s.text.is_empty() => clip(&s.text),
            _ => continue,
        };
        if !is_placeholder_model(&member) {
            return Ok(Some((key.clone().into_any(), clip(pystr::strip(&member)))));
        }
    }
    Ok(None)
}

/// `model_key_rank(key)`: where `model_source` reads a model key among a span's keys.
fn model_key_rank(v: &Vocabulary, key: &str) -> usize {
    let found = words(key);
    v.model_keys
        .iter()
        .position(|tail| ends_with(&found, tail))
        .unwrap_or(v.model_keys.len())
}

/// `failure_source(attrs)`: (key, error) of a failure flag.
fn failure_source<'py>(
    v: &Vocabulary,
    attrs: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyString>, String)>> {
    for (key, value) in pairs(attrs)? {
        let found = key_words(&key)?;
        let last = found.last().map(String::as_str);
        let read = str_value(&value)?;
        if last == Some("level") {
            if let Some((level, _)) = &read {
                if v.error_levels.contains(&*pystr::lower(pystr::strip(level))) {
                    return Ok(Some((key, OTHER_ERROR.to_owned())));
                }
            }
        }
        if !meets(&v.error_words, &found) || text(&key)? == "error.type" {
            continue;
        }
        if let Ok(flag) = value.cast::<PyBool>() {
            if flag.is_true() {
                return Ok(Some((key, OTHER_ERROR.to_owned())));
            }
        }
        let Some((read, _)) = read else { continue };
        let flagged = pystr::strip(&read);
        if flagged.is_empty() || v.false_values.contains(&*pystr::lower(flagged)) {
            continue;
        }
        let last = last.unwrap_or("");
        if matches!(last, "type" | "class" | "name") {
            return Ok(Some((key, short_error_name(flagged))));
        }
        let before = found.len().checked_sub(2).map(|i| found[i].as_str());
        if pystr::len(flagged) <= 40
            || v.error_words.contains(last)
            || (last == "message" && before.is_some_and(|w| v.error_words.contains(w)))
        {
            return Ok(Some((key, OTHER_ERROR.to_owned())));
        }
    }
    Ok(None)
}

/// `tokens_source(attrs, side)`: (key, count) of a token count on one side; the count an `int`,
/// no bool, within int64.
fn tokens_source<'py>(
    attrs: &Bound<'py, PyAny>,
    side: &HashSet<String>,
) -> PyResult<Option<(Bound<'py, PyString>, Bound<'py, PyAny>)>> {
    for (key, value) in pairs(attrs)? {
        if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
            continue;
        }
        let found = key_words(&key)?;
        if !(has(&found, "token") || has(&found, "tokens")) || !meets(side, &found) {
            continue;
        }
        if value
            .extract::<i64>()
            .is_ok_and(|n| (0..=MAX_COUNT).contains(&n))
        {
            return Ok(Some((key, value)));
        }
    }
    Ok(None)
}

/// A name value as hand-off keys hold it: a `str` of 1 to 256 code points stripped, unquoted
/// and clipped.
fn agent_value(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    Ok(str_value(value)?.and_then(|(read, _)| {
        let stripped = pystr::strip(&read);
        (!stripped.is_empty() && pystr::len(stripped) <= pystr::MAX_NAME_CHARS)
            .then(|| clip(stripped.trim_matches('"')))
    }))
}

/// `handoff_source(attrs, end)`: (key, agent) of the agent a hand-off leaves or reaches.
fn handoff_source<'py>(
    v: &Vocabulary,
    attrs: &Bound<'py, PyAny>,
    end: &str,
) -> PyResult<Option<(Bound<'py, PyString>, String)>> {
    for (key, value) in pairs(attrs)? {
        let found = key_words(&key)?;
        let tail = &found[found.len().saturating_sub(2)..];
        if has(tail, end) && meets(&v.handoff_words, &found) {
            if let Some(agent) = agent_value(&value)? {
                return Ok(Some((key, agent)));
            }
        }
    }
    Ok(None)
}

/// `caller_source(attrs)`: (key, agent) an agent's span names as the agent that handed over.
pub(crate) fn caller_source<'py>(
    v: &Vocabulary,
    attrs: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyString>, String)>> {
    for (key, value) in pairs(attrs)? {
        let found = key_words(&key)?;
        let last = found.last().map(String::as_str);
        if matches!(last, Some("agent" | "name" | "label"))
            && has(&found, "agent")
            && meets(&v.came_from, &found)
        {
            if let Some(agent) = agent_value(&value)? {
                return Ok(Some((key, agent)));
            }
        }
    }
    Ok(None)
}

/// `requested_in_keys(attrs)`: tool names the model asked for, from indexed output keys, each
/// once (a value holding a lone surrogate equals no name kept: it is kept again).
fn requested_in_keys(v: &Vocabulary, attrs: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for (key, value) in pairs(attrs)? {
        let Some((read, lossy)) = str_value(&value)? else {
            continue;
        };
        if read.is_empty() || pystr::len(&read) > pystr::MAX_NAME_CHARS {
            continue;
        }
        let found = key_words(&key)?;
        if found.last().map(String::as_str) == Some("name")
            && has(&found, "tool")
            && (has(&found, "call") || has(&found, "calls"))
            && meets(&v.request_sides, &found)
            && (lossy || !names.iter().any(|n| *n == *read))
        {
            names.push(clip(&read));
        }
    }
    Ok(names)
}

/// `_name_key(key, tails)`: whether a key (its `words`) holds a name ending in one of `tails`:
/// not an indexed one, a user's, another span's (`x.from.agent`), nor OpenTelemetry's
/// `code.function.name` (the instrumented function, never the tool).
pub(crate) fn name_key(v: &Vocabulary, key: &str, tails: &[Vec<String>]) -> bool {
    let found = words(key);
    tails.iter().any(|tail| ends_with(&found, tail))
        && !found.iter().any(|w| is_number(w) || v.others.contains(w))
        && !key.starts_with("code.")
}

/// `tool_names(attrs)`: the values of the keys holding a tool's name (`_TOOL_NAMES`), each a
/// `str` of 1 to 256 code points, stripped, unquoted and clipped.
pub(crate) fn tool_names(v: &Vocabulary, attrs: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let mut names = Vec::new();
    for (key, value) in pairs(attrs)? {
        let Some((read, _)) = str_value(&value)? else {
            continue;
        };
        if !read.is_empty()
            && pystr::len(&read) <= pystr::MAX_NAME_CHARS
            && name_key(v, &text(&key)?, &v.tool_names)
        {
            names.push(clip(unquoted(&read)));
        }
    }
    Ok(names)
}

#[pyfunction(name = "name_key")]
fn name_key_py(key: &Bound<'_, PyString>, tails: Vec<Vec<String>>) -> PyResult<bool> {
    door(|| Ok(name_key(&*vocabulary()?, &text(key)?, &tails)))
}

#[pyfunction(name = "tool_names")]
fn tool_names_py(attrs: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    door(|| tool_names(&*vocabulary()?, attrs))
}

/// `<provider>/<model>` span name's (provider, model): GenAI evidence where the provider is
/// one (semconv/inference.py `_genai_kind`), the model `model_source` reads.
#[pyfunction(name = "model_in_name")]
fn model_in_name_py(name: &Bound<'_, PyString>) -> PyResult<Option<(String, String)>> {
    door(|| {
        Ok(model_in_name(&text(name)?)
            .map(|(provider, model)| (provider.to_owned(), model.to_owned())))
    })
}

#[pyfunction(name = "model_source")]
fn model_source_py<'py>(
    attrs: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Option<(Bound<'py, PyAny>, String)>> {
    door(|| model_source(&*vocabulary()?, attrs, name))
}

#[pyfunction(name = "model_in_parameters")]
fn model_in_parameters_py<'py>(
    attrs: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyAny>, String)>> {
    door(|| model_in_parameters(&*vocabulary()?, &pairs(attrs)?))
}

#[pyfunction(name = "model_key_rank")]
fn model_key_rank_py(key: &Bound<'_, PyString>) -> PyResult<usize> {
    door(|| Ok(model_key_rank(&*vocabulary()?, &text(key)?)))
}

#[pyfunction(name = "failure_source")]
fn failure_source_py<'py>(
    attrs: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyString>, String)>> {
    door(|| failure_source(&*vocabulary()?, attrs))
}

#[pyfunction(name = "tokens_source")]
fn tokens_source_py<'py>(
    attrs: &Bound<'py, PyAny>,
    side: HashSet<String>,
) -> PyResult<Option<(Bound<'py, PyString>, Bound<'py, PyAny>)>> {
    door(|| tokens_source(attrs, &side))
}

#[pyfunction(name = "handoff_source")]
fn handoff_source_py<'py>(
    attrs: &Bound<'py, PyAny>,
    end: &str,
) -> PyResult<Option<(Bound<'py, PyString>, String)>> {
    door(|| handoff_source(&*vocabulary()?, attrs, end))
}

#[pyfunction(name = "caller_source")]
fn caller_source_py<'py>(
    attrs: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyString>, String)>> {
    door(|| caller_source(&*vocabulary()?, attrs))
}

#[pyfunction(name = "requested_in_keys")]
fn requested_in_keys_py<'py>(attrs: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    door(|| PyTuple::new(attrs.py(), requested_in_keys(&*vocabulary()?, attrs)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(model_source_py, m)?)?;
    m.add_function(wrap_pyfunction!(model_in_name_py, m)?)?;
    m.add_function(wrap_pyfunction!(model_in_parameters_py, m)?)?;
    m.add_function(wrap_pyfunction!(model_key_rank_py, m)?)?;
    m.add_function(wrap_pyfunction!(failure_source_py, m)?)?;
    m.add_function(wrap_pyfunction!(tokens_source_py, m)?)?;
    m.add_function(wrap_pyfunction!(handoff_source_py, m)?)?;
    m.add_function(wrap_pyfunction!(caller_source_py, m)?)?;
    m.add_function(wrap_pyfunction!(requested_in_keys_py, m)?)?;
    m.add_function(wrap_pyfunction!(name_key_py, m)?)?;
    m.add_function(wrap_pyfunction!(tool_names_py, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_in_the_span_name() {
        assert_eq!(
            model_in_name(" openai/gpt-4o \n"),
            Some(("openai", "gpt-4o"))
        );
        assert_eq!(
            model_in_name("googleai/gemini-2.5-flash"),
            Some(("googleai", "gemini-2.5-flash"))
        );
        assert_eq!(model_in_name("a/gpt"), None);
        assert_eq!(model_in_name("openai/gpt 4o"), None);
        assert_eq!(model_in_name("Openai/gpt"), None);
        assert_eq!(model_in_name("openai/"), None);
    }
}
