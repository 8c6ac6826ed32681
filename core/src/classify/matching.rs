//! Which spans an entry matches: its attribute conditions, scope and span-name tests, and the
//! exception `unless` makes (semconv/convention.py `Condition` and `Match`).

use std::collections::HashSet;
use std::sync::Arc;

use regex::Regex;

use super::casefold::casefold;
use super::entry::{Parsed, Raw};
use super::glob;
use super::pattern;
use crate::pyjson::{self, JsonStr};
use crate::span::{Attributes, Span, Value};

/// A value as `norm` leaves it for `in`: strings case-folded, numbers by Python's equality
/// (`True == 1 == 1.0`, so a bool and an integral float key as the integer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Str(String),
    Int(i64),
    /// an integer outside i64 (an entry's, or an integral float's), in decimal
    Big(String),
    /// a float that is no integer, by its bits
    Float(u64),
}

impl Key {
    fn float(f: f64) -> Option<Key> {
        if f.is_nan() {
            return None; // NaN equals nothing
        }
        if f.fract() == 0.0 {
            if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
                return Some(Key::Int(f as i64));
            }
            return Some(Key::Big(format!("{f:.0}")));
        }
        Some(Key::Float(f.to_bits()))
    }

    /// An entry's value (a condition's, or a fixed one).
    pub fn of_raw(raw: &Raw) -> Parsed<Key> {
        Ok(match raw {
            Raw::Str(s) => Key::Str(casefold(s).into_owned()),
            Raw::Bool(b) => Key::Int(i64::from(*b)),
            Raw::Int(i) => Key::Int(*i),
            Raw::BigInt(s) => Key::Big(s.clone()),
            Raw::Float(f) => match Key::float(*f) {
                Some(key) => key,
                None => Key::Float(f.to_bits()), // NaN: no attribute value ever equals it
            },
            other => return Err(format!("expected a scalar, got {other:?}")),
        })
    }

    /// An attribute's value; None when it equals no scalar (a list, a map, bytes, None, NaN).
    pub fn of_value(value: &Value) -> Option<Key> {
        match value {
            // a str with a lone surrogate equals no entry's text (an entry holds none)
            Value::Str(s) if s.is_lossy() => None,
            Value::Str(s) => Some(Key::Str(casefold(s).into_owned())),
            Value::Bool(b) => Some(Key::Int(i64::from(*b))),
            Value::Int(i) => Some(Key::Int(*i)),
            Value::BigInt(digits) => Some(Key::Big(digits.to_string())),
            Value::Double(f) => Key::float(*f),
            _ => None,
        }
    }

    /// A JSON-unquoted string: one that held a lone surrogate equals no entry's text.
    fn of_unquoted(text: &JsonStr) -> Option<Key> {
        (!text.lossy).then(|| Key::Str(casefold(&text.text).into_owned()))
    }
}

/// The value a condition reads: the attribute's, or its JSON-unquoted text (`decode: json`).
enum Seen<'a> {
    Value(&'a Value),
    Unquoted(JsonStr),
}

fn seen(value: &Value, decode: bool) -> Seen<'_> {
    if decode {
        if let Value::Str(s) = value {
            if let Some(mut text) = pyjson::unquote(s) {
                text.lossy |= s.is_lossy(); // the unquoted text holds its lone surrogates
                return Seen::Unquoted(text);
            }
        }
    }
    Seen::Value(value)
}

#[derive(Debug)]
pub enum Test {
    Present,
    Absent,
    OneOf(HashSet<Key>),
    /// globs over the case-folded value (a string's only)
    Glob(Regex),
    /// an array holding one of these values (a list of tags)
    Contains(HashSet<Key>),
}

/// One attribute test.
#[derive(Debug)]
pub struct Condition {
    pub key: String,
    pub test: Test,
}

impl Condition {
    pub fn parse(key: &str, raw: &Raw) -> Parsed<Condition> {
        let key = key.to_owned();
        let mut values = raw;
        if let Raw::Map(_) = raw {
            if raw.get("present").is_some_and(Raw::truthy) {
                return Ok(Condition {
                    key,
                    test: Test::Present,
                });
            }
            if raw.get("absent").is_some_and(Raw::truthy) {
                return Ok(Condition {
                    key,
                    test: Test::Absent,
                });
            }
            if let Some(globs) = raw.get("glob") {
                let folded: Vec<String> = globs
                    .texts()?
                    .iter()
                    .map(|g| casefold(g).into_owned())
                    .collect();
                let pattern = glob::compile(&folded).map_err(|e| pattern::one_line(&e))?;
                return Ok(Condition {
                    key,
                    test: Test::Glob(pattern),
                });
            }
            if let Some(held) = raw.get("contains") {
                let keys = held
                    .listed()
                    .iter()
                    .map(Key::of_raw)
                    .collect::<Parsed<_>>()?;
                return Ok(Condition {
                    key,
                    test: Test::Contains(keys),
                });
            }
            values = match (raw.get("one_of"), raw.get("equals")) {
                (Some(list), _) => list,
                (None, Some(one)) => one,
                (None, None) => return Err(format!("{key}: an empty condition")),
            };
        }
        let keys = values
            .listed()
            .iter()
            .map(Key::of_raw)
            .collect::<Parsed<_>>()?;
        Ok(Condition {
            key,
            test: Test::OneOf(keys),
        })
    }

    /// The values this condition lets through, when it is one of some values.
    pub fn values(&self) -> Option<&HashSet<Key>> {
        match &self.test {
            Test::OneOf(values) => Some(values),
            _ => None,
        }
    }

    pub fn holds(&self, attrs: &Attributes, decode: bool) -> bool {
        let value = attrs.get(&self.key);
        let value = match (&self.test, value) {
            (Test::Absent, found) => return found.is_none(),
            (_, None) => return false,
            (Test::Present, Some(_)) => return true,
            (Test::Contains(values), Some(Value::Array(items) | Value::List(items))) => {
                return items
                    .iter()
                    .any(|item| Key::of_value(item).is_some_and(|key| values.contains(&key)));
            }
            (Test::Contains(_), Some(_)) => return false,
            (_, Some(value)) => value,
        };
        let seen = seen(value, decode);
        match &self.test {
            Test::Glob(pattern) => match &seen {
                Seen::Value(Value::Str(s)) => pattern.is_match(&casefold(s)),
                // a lone surrogate reads as `?` here: only a glob set naming `?` itself
                // (`[?]`) could tell, where Python's text would not match
                Seen::Unquoted(text) => pattern.is_match(&casefold(&text.text)),
                Seen::Value(_) => false,
            },
            Test::OneOf(values) => {
                let key = match &seen {
                    Seen::Value(value) => Key::of_value(value),
                    Seen::Unquoted(text) => Key::of_unquoted(text),
                };
                key.is_some_and(|key| values.contains(&key))
            }
            Test::Present | Test::Absent | Test::Contains(_) => false, // decided above
        }
    }
}

/// The scope, span-name and attribute tests of an entry, and the exception `unless` makes.
#[derive(Clone, Debug)]
pub struct Match {
    pub scopes: Option<Arc<HashSet<String>>>,
    pub prefixes: Option<Arc<Vec<String>>>,
    pub name: Option<Arc<Regex>>,
    pub conditions: Vec<Arc<Condition>>,
    pub unless: Option<Box<Match>>,
}

fn optional_texts(raw: &Raw, key: &str) -> Parsed<Vec<String>> {
    raw.get(key).map_or(Ok(Vec::new()), Raw::texts)
}

impl Match {
    /// `match` (with the entry's `unless` when given), or an `unless` with its own.
    pub fn parse(raw: &Raw, unless: Option<&Raw>) -> Parsed<Match> {
        let scopes = optional_texts(raw, "scope")?;
        let prefixes = optional_texts(raw, "scope_prefix")?;
        let globs = optional_texts(raw, "name")?;
        let mut conditions = Vec::new();
        if let Some(attributes) = raw.get("attributes") {
            for (key, condition) in attributes.pairs()? {
                conditions.push(Arc::new(Condition::parse(key, condition)?));
            }
        }
        let name = if globs.is_empty() {
            None
        } else {
            Some(Arc::new(
                glob::compile(&globs).map_err(|e| pattern::one_line(&e))?,
            ))
        };
        let unless = match unless.or_else(|| raw.get("unless")) {
            Some(exception) => Some(Box::new(Match::parse(exception, None)?)),
            None => None,
        };
        Ok(Match {
            scopes: (!scopes.is_empty()).then(|| Arc::new(scopes.into_iter().collect())),
            prefixes: (!prefixes.is_empty()).then(|| Arc::new(prefixes)),
            name,
            conditions,
            unless,
        })
    }

    fn scope_holds(&self, scope: &str) -> bool {
        if let Some(scopes) = &self.scopes {
            if !scopes.contains(scope) {
                return false;
            }
        }
        self.prefixes
            .as_ref()
            .is_none_or(|prefixes| prefixes.iter().any(|p| scope.starts_with(p.as_str())))
    }

    /// This match with every scope test decided for spans of `scope` (its own and its
    /// exceptions'), or None when it holds for no span there.
    pub fn for_scope(&self, scope: &str) -> Option<Match> {
        if !self.scope_holds(scope) {
            return None;
        }
        let unless = self.unless.as_ref().and_then(|u| u.for_scope(scope));
        if let Some(exception) = &unless {
            if exception.conditions.is_empty()
                && exception.name.is_none()
                && exception.unless.is_none()
            {
                return None; // the exception holds for every span of the scope
            }
        }
        Some(Match {
            scopes: None,
            prefixes: None,
            name: self.name.clone(),
            conditions: self.conditions.clone(),
            unless: unless.map(Box::new),
        })
    }

    /// Holds for every span its scope tests let through.
    pub fn trivial(&self) -> bool {
        self.conditions.is_empty() && self.name.is_none() && self.unless.is_none()
    }

    /// This match less one condition (that a table has already tested).
    pub fn without(&self, condition: &Arc<Condition>) -> Match {
        let mut rest = self.clone();
        rest.conditions.retain(|c| !Arc::ptr_eq(c, condition));
        rest
    }

    /// Every test but the scopes' (`for_scope` has decided those).
    pub fn span_holds(&self, span: &Span, decode: bool) -> bool {
        if !self
            .conditions
            .iter()
            .all(|c| c.holds(&span.attributes, decode))
        {
            return false;
        }
        if let Some(name) = &self.name {
            if !name.is_match(&span.name) {
                return false;
            }
        }
        self.unless
            .as_ref()
            .is_none_or(|u| !u.span_holds(span, decode))
    }
}

#[cfg(test)]
mod tests {
    use super::Key;
    use crate::classify::entry::Raw;
    use crate::span::Value;

    #[test]
    fn numbers_key_as_python_compares_them() {
        let one = Key::of_raw(&Raw::Int(1)).ok();
        assert_eq!(Key::of_value(&Value::Bool(true)), one);
        assert_eq!(Key::of_value(&Value::Double(1.0)), one);
        assert_ne!(Key::of_value(&Value::Double(1.5)), one);
        assert_eq!(Key::of_value(&Value::Double(f64::NAN)), None);
        let big = Key::of_raw(&Raw::BigInt("100000000000000000000".into())).ok();
        assert_eq!(Key::of_value(&Value::Double(1e20)), big);
        assert_eq!(Key::of_value(&Value::Array(vec![])), None);
        assert_eq!(
            Key::of_value(&Value::Str("STRASSE".into())),
            Key::of_raw(&Raw::Str("Straße".into())).ok()
        );
    }
}
