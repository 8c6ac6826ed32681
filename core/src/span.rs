//! One decoded span: the Rust twin of `records.SpanRecord` (otel_agentcov/records.py).
//!
//! Attribute values keep the shapes the Python readers give them (readers/otlp.py): an OTLP
//! array is a tuple, a key-value list a dict, an empty AnyValue None. Attributes are a list, not
//! a map: spans carry a few dozen at most, and a key given twice reads as its last value, as a
//! Python dict built from the same list would.
//!
//! A value holds whatever a span can carry (docs/core.md#values): an int of any size, a list as
//! a list, a str with lone surrogates, and an object of any other class.

use std::ops::Deref;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Str(Text),
    Bool(bool),
    Int(i64),
    /// an int outside i64, as its decimal text (`str(value)`)
    BigInt(Box<str>),
    Double(f64),
    Bytes(Vec<u8>),
    /// a tuple (an OTLP array)
    Array(Vec<Value>),
    /// a Python list (it prints unlike a tuple)
    List(Vec<Value>),
    KvList(Attributes),
    /// an object of another class: a subclass, a dict with keys that are no str, a container
    /// nested deeper than the core nests (records_py)
    Object(Arc<Foreign>),
}

/// A Python object the rules read as Python would: no str, number, array or map to them, so it
/// equals no entry's value; its truth and its `str()` are Python's own.
#[derive(Debug)]
pub struct Foreign {
    pub truthy: bool,
    pub object: Py<PyAny>,
}

impl PartialEq for Foreign {
    fn eq(&self, other: &Foreign) -> bool {
        self.object.as_ptr() == other.object.as_ptr()
    }
}

/// A Python str. UTF-8 cannot hold a lone surrogate, so a str holding one keeps its exact code
/// points as Python's `surrogatepass` UTF-8 beside its text, which has `?` for each, as
/// `str.encode("utf-8", "replace")` (what `clip` makes of a name) gives. Such a str equals no
/// other str but one with the same code points, as in Python.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Text {
    text: String,
    exact: Option<Box<[u8]>>,
}

impl Text {
    /// The str of `surrogatepass` UTF-8 bytes (valid UTF-8 but for surrogates).
    pub fn from_wtf8(bytes: &[u8]) -> Text {
        match std::str::from_utf8(bytes) {
            Ok(text) => Text::from(text),
            Err(_) => Text {
                text: lossy(bytes),
                exact: Some(bytes.into()),
            },
        }
    }

    /// A str (or a subclass's text) exactly, lone surrogates too.
    pub fn from_py(s: &Bound<'_, PyString>) -> PyResult<Text> {
        match s.to_str() {
            Ok(text) => Ok(Text::from(text)),
            Err(_) => {
                let py = s.py();
                let how = ("utf-8", "surrogatepass");
                let encoded = s.call_method1(pyo3::intern!(py, "encode"), how)?;
                Ok(Text::from_wtf8(encoded.cast::<PyBytes>()?.as_bytes()))
            }
        }
    }

    /// The Python str, lone surrogates too.
    pub fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        match &self.exact {
            None => Ok(PyString::new(py, &self.text)),
            Some(bytes) => PyString::from_encoded_object(
                PyBytes::new(py, bytes).as_any(),
                Some(c"utf-8"),
                Some(c"surrogatepass"),
            ),
        }
    }

    /// Whether it holds a lone surrogate (its text then has `?` for each).
    pub fn is_lossy(&self) -> bool {
        self.exact.is_some()
    }

    /// Its exact code points as `surrogatepass` UTF-8.
    pub fn wtf8(&self) -> &[u8] {
        self.exact.as_deref().unwrap_or(self.text.as_bytes())
    }

    /// The text, with `?` for each lone surrogate.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// `surrogatepass` UTF-8 with `?` for each surrogate (`ED A0..BF xx`: `ED` is never a
/// continuation byte, and the bytes are otherwise UTF-8).
fn lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == 0xED && bytes.get(i + 1).is_some_and(|b| *b >= 0xA0) {
            out.push_str(std::str::from_utf8(&bytes[start..i]).unwrap_or_default());
            out.push('?');
            i += 3;
            start = i.min(bytes.len());
        } else {
            i += 1;
        }
    }
    out.push_str(std::str::from_utf8(&bytes[start..]).unwrap_or_default());
    out
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text { text, exact: None }
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::from(text.to_owned())
    }
}

/// A str holding a lone surrogate equals no valid text.
impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.exact.is_none() && self.text == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attributes(pub Vec<(String, Value)>);

impl Attributes {
    /// The value of `key` (its last occurrence), like `dict.get`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

pub const STATUS_UNSET: i32 = 0;
pub const STATUS_OK: i32 = 1;
pub const STATUS_ERROR: i32 = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub name: String,
    pub attributes: Attributes,
}

/// What classification needs of one span; field for field `records.SpanRecord`.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub trace_id: u128,
    pub span_id: u64,
    pub parent_id: Option<u64>,
    pub name: String,
    pub kind: i32,
    /// an OTLP time is a u64; a record's or an SDK span's may be any int (within i128)
    pub start_ns: i128,
    pub end_ns: i128,
    pub status_code: i32,
    pub status_description: Option<String>,
    pub attributes: Attributes,
    pub events: Vec<Event>,
    /// shared by every span of one scope / resource in a payload
    pub scope_name: Arc<str>,
    pub resource_attributes: Arc<Attributes>,
    pub parent_remote: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_surrogate_reads_as_a_question_mark_and_equals_only_itself() {
        // "a\udc80b" and "\ud800" as Python's `surrogatepass` UTF-8
        let lone = Text::from_wtf8(b"a\xed\xb2\x80b");
        assert_eq!((lone.as_str(), lone.is_lossy()), ("a?b", true));
        assert_ne!(lone, Text::from("a?b"));
        assert!(lone != "a?b");
        assert_eq!(lone, Text::from_wtf8(b"a\xed\xb2\x80b"));
        assert_ne!(lone, Text::from_wtf8(b"a\xed\xb2\x81b"));
        assert_eq!(Text::from_wtf8(b"\xed\xa0\x80").as_str(), "?");
        let plain = Text::from_wtf8("é".as_bytes());
        assert!(!plain.is_lossy() && plain == "é");
    }
}
