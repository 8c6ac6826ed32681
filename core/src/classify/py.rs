//! `otel_agentcov._core.Classifier`: the convention tables, parsed once, classifying Python
//! SpanRecords into Python Steps (what `semconv.Classifier` calls; docs/core.md).

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use super::entry::Raw;
use super::fields::build_step;
use super::rule::Rule;
use super::step::{Kind, Step};
use super::step_py::step_to_py;
use super::table::Table;
use super::testspans::as_test_span;
use crate::records_py::span_from_record;
use crate::span::Span;

/// Entries are plain data; nesting deeper than this is no entry (and no input recurses far).
const MAX_ENTRY_DEPTH: usize = 16;

/// A Python value of an entry (what `json.load` or the spec's YAML gives) as `Raw`.
fn raw(value: &Bound<'_, PyAny>, depth: usize) -> PyResult<Raw> {
    if depth > MAX_ENTRY_DEPTH {
        return Err(PyValueError::new_err("a convention entry nested too deep"));
    }
    if value.is_none() {
        return Ok(Raw::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Raw::Bool(b.is_true()));
    }
    if let Ok(i) = value.cast::<PyInt>() {
        return Ok(match i.extract::<i64>() {
            Ok(i) => Raw::Int(i),
            Err(_) => Raw::BigInt(i.str()?.to_string()),
        });
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(Raw::Float(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Raw::Str(s.to_str()?.to_owned()));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>()?.to_str()?.to_owned();
            pairs.push((key, raw(&v, depth + 1)?));
        }
        return Ok(Raw::Map(pairs));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value.try_iter()?.map(|item| raw(&item?, depth + 1));
        return Ok(Raw::List(items.collect::<PyResult<_>>()?));
    }
    Err(PyValueError::new_err(format!(
        "not convention data: {}",
        value.get_type().name()?
    )))
}

fn rules(entries: &Bound<'_, PyAny>, user: bool) -> PyResult<Vec<Arc<Rule>>> {
    let mut rules = Vec::new();
    for (i, entry) in entries.try_iter()?.enumerate() {
        let parsed = Rule::parse(&raw(&entry?, 0)?, user);
        let rule =
            parsed.map_err(|why| PyValueError::new_err(format!("conventions[{i}]: {why}")))?;
        rules.push(Arc::new(rule));
    }
    Ok(rules)
}

/// A table of convention entries; `classify` is `semconv.Classifier.classify` without content
/// capture (which reads the record in Python, only when a check needs it).
#[pyclass(frozen, module = "otel_agentcov._core")]
pub struct Classifier {
    table: Table,
}

impl Classifier {
    /// The span's Step (an `other` step when no entry matches) and whether an entry matched.
    pub fn step(&self, span: &Span, state_attributes: &[String]) -> (Step, bool) {
        let (step, matched) = match self.table.classify(span, state_attributes) {
            Some(step) => (step, true),
            None => (
                build_step(span, Kind::Other, state_attributes, None, None),
                false,
            ),
        };
        (as_test_span(span, step, state_attributes), matched)
    }
}

#[pymethods]
impl Classifier {
    /// `entries`: validated entries (`ENTRY_SCHEMA`); `builtin`: the built-in tables' (their
    /// patterns are `re`'s and they may name `code`), else a spec's (RE2 patterns, no code).
    #[new]
    fn new(entries: &Bound<'_, PyAny>, builtin: bool) -> PyResult<Self> {
        let rules: Arc<[Arc<Rule>]> = rules(entries, !builtin)?.into();
        Ok(Classifier {
            table: Table::new(rules),
        })
    }

    /// A classifier trying a spec's `conventions:` entries first, then this one's rules (shared,
    /// not parsed again).
    fn before(&self, conventions: &Bound<'_, PyAny>) -> PyResult<Classifier> {
        let mut rules = self::rules(conventions, true)?;
        rules.extend(self.table.rules.iter().cloned());
        Ok(Classifier {
            table: Table::new(rules.into()),
        })
    }

    /// `(step, matched)` for a SpanRecord, or None when the record holds a value the core
    /// cannot read exactly (records_py): the caller classifies it in Python.
    fn classify<'py>(
        &self,
        record: &Bound<'py, PyAny>,
        state_attributes: Vec<String>,
    ) -> PyResult<Option<(Bound<'py, PyAny>, bool)>> {
        let Some(span) = span_from_record(record)? else {
            return Ok(None);
        };
        let (step, matched) = self.step(&span, &state_attributes);
        Ok(Some((step_to_py(record.py(), &step)?, matched)))
    }
}
