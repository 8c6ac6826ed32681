//! Where one field of a step comes from (semconv/convention.py `Source`): attribute keys (the
//! first present), a member of a JSON object attribute, a span-name capture, a fixed value, or
//! (an error) an exception event.

use std::borrow::Cow;

use super::entry::{Parsed, Raw};
use super::errors::exception_error;
use super::pattern::{self, NamePattern};
use crate::pyjson::{self, Json, Member};
use crate::pystr;
use crate::span::{Span, Value};

#[derive(Debug)]
pub enum Source {
    Attribute {
        keys: Vec<String>,
        json_key: Option<String>,
    },
    SpanName(NamePattern),
    /// a fixed value, and its `str()` (what a name field reads of it)
    Fixed {
        value: Value,
        text: Value,
        big: Option<String>,
    },
    /// `{exception: true}` (an `error` source): an exception event on a span not OK
    Exception,
}

/// What a source yields: the value, and for an integer past 64 bits (which `value` holds
/// saturated: a count clips it to the same bound either way) its decimal text, which is what
/// Python's `str()` of it gives (an `error` source names it).
pub struct Got<'a> {
    pub value: Cow<'a, Value>,
    pub big: Option<String>,
}

impl<'a> Got<'a> {
    fn of(value: Cow<'a, Value>) -> Got<'a> {
        Got { value, big: None }
    }
}

/// An integer past i64, saturated.
fn saturated(literal: &str) -> Value {
    Value::Int(if literal.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// A JSON member as the attribute value it stands for; a container is a value that yields but
/// is neither a name nor a count, as in Python.
fn from_json(json: Json) -> Got<'static> {
    let value = match json {
        Json::BigInt(literal) => {
            return Got {
                value: Cow::Owned(saturated(&literal)),
                big: Some(literal),
            };
        }
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(b),
        Json::Int(i) => Value::Int(i),
        Json::Float(f) => Value::Double(f),
        Json::Str(s) => Value::Str(s.text.into()),
        Json::Array(_) | Json::Object(_) | Json::Deep => Value::KvList(Default::default()),
    };
    Got::of(Cow::Owned(value))
}

impl Source {
    /// `user`: a spec's entry, whose span-name pattern is RE2's; the built-in tables' are `re`'s.
    pub fn parse(raw: &Raw, user: bool) -> Parsed<Source> {
        if let Raw::Str(key) = raw {
            return Ok(Source::Attribute {
                keys: vec![key.clone()],
                json_key: None,
            });
        }
        if let Some(keys) = raw.get("attribute") {
            let json_key = raw.get("json_key").and_then(Raw::as_str).map(str::to_owned);
            return Ok(Source::Attribute {
                keys: keys.texts()?,
                json_key,
            });
        }
        if let Some(pattern) = raw.get("span_name") {
            let pattern = pattern.as_str().ok_or("span_name: expected a string")?;
            let compiled = if user {
                NamePattern::user(pattern)
            } else {
                NamePattern::builtin(pattern)
            };
            return compiled
                .map(Source::SpanName)
                .map_err(|e| format!("span_name: {}", pattern::one_line(&e)));
        }
        if raw.get("exception").is_some() {
            return Ok(Source::Exception);
        }
        let (value, text, big) = match raw.get("value") {
            Some(Raw::Str(s)) => (
                Value::Str(s.as_str().into()),
                Value::Str(s.as_str().into()),
                None,
            ),
            Some(Raw::Int(i)) => (Value::Int(*i), Value::Str(i.to_string().into()), None),
            Some(Raw::BigInt(s)) => (saturated(s), Value::Str(s.as_str().into()), Some(s.clone())),
            other => return Err(format!("expected a field source, got {other:?}")),
        };
        Ok(Source::Fixed { value, text, big })
    }

    /// The value, or None when this source yields nothing; with `text`, only a non-empty
    /// string yields (a fixed number as its decimal text), a span-name capture stripped.
    pub fn read<'a>(&'a self, span: &'a Span, decode: bool, text: bool) -> Option<Got<'a>> {
        match self {
            Source::Exception => exception_error(span).map(|v| Got::of(Cow::Owned(v))),
            Source::SpanName(pattern) => {
                let found = pystr::strip(pattern.capture(&span.name)?);
                (!found.is_empty()).then(|| Got::of(Cow::Owned(Value::Str(found.into()))))
            }
            Source::Fixed {
                value,
                text: as_text,
                big,
            } => {
                if !text {
                    let value = Cow::Borrowed(value);
                    return Some(Got {
                        value,
                        big: big.clone(),
                    });
                }
                match as_text {
                    Value::Str(s) if s.is_empty() => None,
                    _ => Some(Got::of(Cow::Borrowed(as_text))),
                }
            }
            Source::Attribute { keys, json_key } => {
                for key in keys {
                    let Some(found) = span.attributes.get(key) else {
                        continue;
                    };
                    if *found == Value::None {
                        continue;
                    }
                    let got = match json_key {
                        Some(member) => match pyjson::member(found, member) {
                            Some(Member::Json(json)) => from_json(json),
                            Some(Member::Value(value)) => Got::of(Cow::Borrowed(value)),
                            None => continue,
                        },
                        None => Got::of(match found {
                            Value::Str(s) if decode => match pyjson::unquote(s) {
                                Some(unquoted) => Cow::Owned(Value::Str(unquoted.text.into())),
                                None => Cow::Borrowed(found),
                            },
                            _ => Cow::Borrowed(found),
                        }),
                    };
                    let yields = match &*got.value {
                        Value::Str(s) => !s.is_empty(),
                        Value::None => false,
                        _ => !text,
                    };
                    if yields {
                        return Some(got);
                    }
                }
                None
            }
        }
    }
}
