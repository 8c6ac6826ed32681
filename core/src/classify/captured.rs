//! What captured GenAI content says about a model call, without keeping the content
//! (semconv/common.py `tool_definition_names`, `requested_tool_names`, `user_input_chars`):
//! names of offered and requested tools, and the length of the user's input.
//!
//! Only a string attribute is parsed (`parse_json`); any other value is taken as Python would
//! find it: a tuple is no list and a dict value holds tuples, never lists, so neither yields a
//! name.

use super::values::clip;
use crate::pyjson::{self, Json};
use crate::pystr;
use crate::span::{Attributes, Value};

/// `parse_json` of a string attribute; None for a non-string or a document json.loads refuses.
fn parsed(value: Option<&Value>) -> Option<Json> {
    match value {
        Some(Value::Str(s)) => pyjson::parse(s),
        _ => None,
    }
}

/// A non-empty string member, clipped (a lone surrogate reads as `?`, as `clip` makes it).
fn name_of(value: Option<&Json>) -> Option<String> {
    match value.and_then(Json::text) {
        Some(s) if !s.text.is_empty() => Some(clip(&s.text)),
        _ => None,
    }
}

/// Names of the tools offered to the model (`gen_ai.tool.definitions`, else Pydantic AI's
/// `model_request_parameters`).
pub fn tool_definition_names(attrs: &Attributes) -> Vec<String> {
    let raw = attrs.get("gen_ai.tool.definitions");
    let defs: Vec<Json> = match raw {
        // `parse_json(None)` and a refused document are None: the parameters are read instead
        None | Some(Value::None) | Some(Value::Str(_)) => match parsed(raw) {
            Some(Json::Null) | None => match parsed(attrs.get("model_request_parameters")) {
                Some(params) if params.is_object() => {
                    let mut tools = params
                        .get("function_tools")
                        .map_or(&[][..], Json::items)
                        .to_vec();
                    tools
                        .extend_from_slice(params.get("output_tools").map_or(&[][..], Json::items));
                    tools
                }
                _ => Vec::new(),
            },
            Some(Json::Array(items)) => items,
            Some(_) => Vec::new(),
        },
        Some(_) => Vec::new(), // another type: not None, not a list
    };
    defs.iter()
        .filter(|item| item.is_object())
        .filter_map(|item| match item.get("function") {
            Some(function) if function.is_object() => name_of(function.get("name")),
            _ => name_of(item.get("name")),
        })
        .collect()
}

/// Skill names kept per agent span: past this many a definitions list is cut (state caps the
/// rest, `semconv.common.MAX_SKILL_DEFINITIONS`).
pub const MAX_SKILL_DEFINITIONS: usize = 256;
/// The longest skill name the Agent Skills specification allows (`MAX_SKILL_CHARS`).
const MAX_SKILL_CHARS: usize = 64;

/// A skill's name when it is a bounded name (1 to 64 ASCII letters, digits, `-_.:`), else None:
/// free text (a description put where a name goes) is never kept (`common.skill_name`).
pub fn skill_name(text: &str) -> Option<String> {
    let ok = !text.is_empty()
        && text.len() <= MAX_SKILL_CHARS
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    ok.then(|| text.to_owned())
}

/// Names of the skills `gen_ai.skill.definitions` offers an agent (a JSON string of
/// `{name, description, ...}` objects): names only, never a description
/// (`common.skill_definition_names`).
pub fn skill_definition_names(attrs: &Attributes) -> Vec<String> {
    let Some(Json::Array(items)) = parsed(attrs.get("gen_ai.skill.definitions")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for item in items.iter().filter(|item| item.is_object()) {
        let name = item.get("name").and_then(Json::text);
        if let Some(name) = name.and_then(|n| skill_name(&n.text)) {
            if !names.contains(&name) {
                names.push(name);
                if names.len() == MAX_SKILL_DEFINITIONS {
                    break;
                }
            }
        }
    }
    names
}

/// The dicts of a captured message list.
fn messages(value: Option<&Value>) -> Vec<Json> {
    match parsed(value) {
        Some(Json::Array(items)) => items.into_iter().filter(Json::is_object).collect(),
        _ => Vec::new(),
    }
}

fn has_type(part: &Json, kind: &str) -> bool {
    part.get("type")
        .and_then(Json::text)
        .is_some_and(|t| t.is(kind))
}

/// Tool calls the model asked for in its captured output (to see requests that never ran).
pub fn requested_tool_names(attrs: &Attributes) -> Vec<String> {
    let mut names = Vec::new();
    for message in messages(attrs.get("gen_ai.output.messages")) {
        let parts = message.get("parts").map_or(&[][..], Json::items);
        for part in parts
            .iter()
            .filter(|p| p.is_object() && has_type(p, "tool_call"))
        {
            names.extend(name_of(part.get("name")));
        }
    }
    names
}

/// Length in code points of the first captured user message, or None when no content was
/// captured, or none it can read as text.
pub fn user_input_chars(attrs: &Attributes) -> Option<i64> {
    let raw = attrs.get("gen_ai.input.messages");
    if matches!(raw, None | Some(Value::None)) {
        return None;
    }
    let user = messages(raw).into_iter().find(|m| {
        m.get("role")
            .and_then(Json::text)
            .is_some_and(|r| r.is("user"))
    })?;
    if let Some(content) = user.get("content").and_then(Json::text) {
        // the chat-completions shape: the message's text as one string
        return i64::try_from(pystr::len(pystr::strip(&content.text))).ok();
    }
    let parts = user.get("parts").map_or(&[][..], Json::items);
    let texts: Vec<Option<usize>> = parts.iter().filter_map(text_part).collect();
    if texts.is_empty() && !parts.is_empty() {
        return None; // parts, none of them text it can read (an image, a shape of its own)
    }
    let total: usize = texts.into_iter().flatten().sum();
    i64::try_from(total).ok()
}

/// A text part's length in code points (`Some(None)`: a text part with no text): the GenAI
/// shape (`{"type": "text", "content": …}`) or Gemini's own (`{"text": …}`, no type).
fn text_part(part: &Json) -> Option<Option<usize>> {
    if !part.is_object() {
        return None;
    }
    let key = if has_type(part, "text") {
        "content"
    } else if part.get("type").is_none() && part.get("text").and_then(Json::text).is_some() {
        "text"
    } else {
        return None;
    };
    Some(
        part.get(key)
            .and_then(Json::text)
            .map(|t| pystr::len(pystr::strip(&t.text))),
    )
}
