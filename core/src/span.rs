//! One decoded span: the Rust twin of `records.SpanRecord` (otel_agentcov/records.py).
//!
//! Attribute values keep the shapes the Python readers give them (readers/otlp.py): an OTLP
//! array is a tuple, a key-value list a dict, an empty AnyValue None. Attributes are a list, not
//! a map: spans carry a few dozen at most, and a key given twice reads as its last value, as a
//! Python dict built from the same list would.

use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Str(String),
    Bool(bool),
    Int(i64),
    Double(f64),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    KvList(Attributes),
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
    pub start_ns: u64,
    pub end_ns: u64,
    pub status_code: i32,
    pub status_description: Option<String>,
    pub attributes: Attributes,
    pub events: Vec<Event>,
    /// shared by every span of one scope / resource in a payload
    pub scope_name: Arc<str>,
    pub resource_attributes: Arc<Attributes>,
    pub parent_remote: bool,
}
