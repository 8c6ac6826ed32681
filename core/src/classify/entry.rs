//! A convention entry as Python hands it over: plain data (the JSON a table file or a spec's
//! `conventions:` holds), already validated against `ENTRY_SCHEMA` in Python, so one schema
//! says what an entry may be. Parsing here still refuses what it cannot read, with a message,
//! rather than trusting it.

/// A JSON-like value; integers keep Python's equality (`1 == 1.0 == True`) through `Key`.
#[derive(Clone, Debug, PartialEq)]
pub enum Raw {
    Null,
    Bool(bool),
    Int(i64),
    /// an integer outside i64, as Python's `str()` of it
    BigInt(String),
    Float(f64),
    Str(String),
    List(Vec<Raw>),
    /// a mapping, in its insertion order (an entry's attribute tests keep it: the first is the
    /// gate a table indexes by)
    Map(Vec<(String, Raw)>),
}

pub type Parsed<T> = Result<T, String>;

impl Raw {
    /// `mapping.get(key)`.
    pub fn get(&self, key: &str) -> Option<&Raw> {
        match self {
            Raw::Map(pairs) => pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Raw::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn pairs(&self) -> Parsed<&[(String, Raw)]> {
        match self {
            Raw::Map(pairs) => Ok(pairs),
            other => Err(format!("expected a mapping, got {other:?}")),
        }
    }

    /// A string or a list of strings (`_texts`): a lone value is a list of one.
    pub fn texts(&self) -> Parsed<Vec<String>> {
        match self {
            Raw::Str(s) => Ok(vec![s.clone()]),
            Raw::List(items) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("expected a string, got {item:?}"))
                })
                .collect(),
            other => Err(format!(
                "expected a string or a list of strings, got {other:?}"
            )),
        }
    }

    /// A value or a list of values: a lone value is a list of one.
    pub fn listed(&self) -> &[Raw] {
        match self {
            Raw::List(items) => items,
            one => std::slice::from_ref(one),
        }
    }

    /// Python truthiness of a flag (`raw.get("present")`, `entry.get("handoff_tool")`).
    pub fn truthy(&self) -> bool {
        match self {
            Raw::Null => false,
            Raw::Bool(b) => *b,
            Raw::Int(i) => *i != 0,
            Raw::BigInt(_) => true,
            Raw::Float(f) => *f != 0.0,
            Raw::Str(s) => !s.is_empty(),
            Raw::List(items) => !items.is_empty(),
            Raw::Map(pairs) => !pairs.is_empty(),
        }
    }
}
