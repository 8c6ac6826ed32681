//! `otel_agentcov._core.Classifier`: the convention tables, parsed once, classifying Python
//! SpanRecords into Python Steps (what `semconv.Classifier` calls; docs/core.md).

use std::collections::HashSet;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

use super::entry::Raw;
use super::errors::{error_type, exception_error, limit_signal, OTHER_ERROR};
use super::fields::{build_step, handoff, library_named};
use super::keys;
use super::root::local_root;
use super::rule::Rule;
use super::step::{Kind, Step};
use super::step_py::step_to_py;
use super::table::Table;
use super::testspans::as_test_span;
use crate::door::door;
use crate::otlp_py::decode_spans;
use crate::otlp_records::Builder;
use crate::records_py::{span_from_record, span_reading, Reads};
use crate::span::{Span, Value};

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
    /// The Python `Step` class its steps are built as, handed in by its maker (semconv).
    step_class: Py<PyType>,
    /// The agents a spec declares: names of theirs a library's own name never hides
    /// (`fields::library_named`).
    declared: Arc<HashSet<String>>,
}

/// One decoded span as `CoverageEngine.to_step` (engine.py) reads it: a drop reason, or its
/// Step, whether it starts a local subtree, and whether an entry matched.
#[allow(clippy::large_enum_variant)] // nearly every span is classified: boxing costs more
pub(crate) enum Outcome {
    Dropped(&'static str),
    Classified(Step, bool, bool),
}

impl Classifier {
    pub(crate) fn outcome(&self, span: &Span, state_attributes: &[String]) -> Outcome {
        if span.trace_id == 0 || span.span_id == 0 {
            return Outcome::Dropped("invalid_ids");
        }
        if span.end_ns < span.start_ns {
            return Outcome::Dropped("end_before_start");
        }
        let (step, matched) = self.step(span, state_attributes);
        let has_parent = span.parent_id.is_some();
        let root = local_root(has_parent, span.parent_remote, span.kind.into(), step.kind);
        Outcome::Classified(step, root, matched)
    }

    /// `step` as a Python Step, of the class this classifier was handed.
    pub(crate) fn step_to_py<'py>(
        &self,
        py: Python<'py>,
        step: &Step,
    ) -> PyResult<Bound<'py, PyAny>> {
        step_to_py(self.step_class.bind(py), step)
    }

    /// The span's Step (an `other` step when no entry matches) and whether an entry matched.
    pub fn step(&self, span: &Span, state_attributes: &[String]) -> (Step, bool) {
        let (step, matched) = match self.table.classify(span, state_attributes) {
            Some(step) => (step, true),
            None => (
                build_step(span, Kind::Other, state_attributes, None, None),
                false,
            ),
        };
        let mut step = as_test_span(span, step, state_attributes);
        library_named(&mut step, span, &self.declared);
        (step, matched)
    }
}

#[pymethods]
impl Classifier {
    /// `entries`: validated entries (`ENTRY_SCHEMA`); `builtin`: the built-in tables' (their
    /// patterns are `re`'s and they may name `code`), else a spec's (RE2 patterns, no code);
    /// `step`: the class of the steps it gives (`semconv.step.Step`).
    #[new]
    fn new(entries: &Bound<'_, PyAny>, builtin: bool, step: Bound<'_, PyType>) -> PyResult<Self> {
        door(|| {
            let rules: Arc<[Arc<Rule>]> = rules(entries, !builtin)?.into();
            Ok(Classifier {
                table: Table::new(rules),
                step_class: step.unbind(),
                declared: Arc::default(),
            })
        })
    }

    /// A classifier trying a spec's `conventions:` entries first, then this one's rules (shared,
    /// not parsed again).
    fn before(&self, conventions: &Bound<'_, PyAny>) -> PyResult<Classifier> {
        door(|| {
            let mut rules = self::rules(conventions, true)?;
            rules.extend(self.table.rules.iter().cloned());
            Ok(Classifier {
                table: Table::new(rules.into()),
                step_class: self.step_class.clone_ref(conventions.py()),
                declared: self.declared.clone(),
            })
        })
    }

    /// The Step a convention entry of `kind` gives a SpanRecord, the fields every entry shares
    /// read (`agent`, `tool`: the names it found), a library's own name left out unless this
    /// classifier's spec declares it: what inference builds for a span it read a kind of
    /// (`semconv.inference.inferred_step`), by the same rules as a table's.
    #[pyo3(signature = (record, kind, state_attributes, agent=None, tool=None))]
    fn build<'py>(
        &self,
        record: &Bound<'py, PyAny>,
        kind: &str,
        state_attributes: Vec<String>,
        agent: Option<String>,
        tool: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        door(|| {
            let span = span_of(record, &state_attributes)?;
            let mut step = build_step(&span, kind_of(kind)?, &state_attributes, agent, tool);
            library_named(&mut step, &span, &self.declared);
            self.step_to_py(record.py(), &step)
        })
    }

    /// This classifier for a spec declaring the agents `names` (its rules shared, not parsed
    /// again): a library's own name that is one of them names that agent.
    fn declaring(&self, py: Python<'_>, names: Vec<String>) -> PyResult<Classifier> {
        door(|| {
            Ok(Classifier {
                table: Table::new(self.table.rules.clone()),
                step_class: self.step_class.clone_ref(py),
                declared: Arc::new(names.into_iter().collect()),
            })
        })
    }

    /// `(step, matched)` for a SpanRecord, whatever values it holds (records_py).
    fn classify<'py>(
        &self,
        record: &Bound<'py, PyAny>,
        state_attributes: Vec<String>,
    ) -> PyResult<(Bound<'py, PyAny>, bool)> {
        door(|| {
            let span = span_from_record(record)?;
            let (step, matched) = self.step(&span, &state_attributes);
            Ok((self.step_to_py(record.py(), &step)?, matched))
        })
    }

    /// OTLP protobuf bytes (a whole request or one ResourceSpans) decoded and classified in
    /// one call, decoding and classifying with the GIL released: per kept span, in the end
    /// order the readers ingest in (`readers.otlp.in_end_order`), what `CoverageEngine.to_step`
    /// gives for its SpanRecord (a drop reason, or `(step, local_root)`), and with `shapes`,
    /// `(step, local_root, record)` for a span no entry matched (the shape counter reads the
    /// record). SpanRecords are built only for those. `keep`, `caps` and the errors are
    /// `otlp_spans`'s.
    #[pyo3(signature = (
        data, level="request", *, offset=0, resource_index=0, keep=None, caps=None,
        state_attributes=Vec::new(), shapes=false,
    ))]
    #[allow(clippy::too_many_arguments)] // one keyword-only entry, as `otlp_spans`
    fn otlp_steps<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        level: &str,
        offset: usize,
        resource_index: usize,
        keep: Option<Bound<'py, PyAny>>,
        caps: Option<(u64, u64)>,
        state_attributes: Vec<String>,
        shapes: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        door(|| {
            if !matches!(level, "request" | "resource_spans") {
                let why = format!("otlp_steps reads whole resources, not a {level:?} message");
                return Err(PyValueError::new_err(why));
            }
            let decoded = decode_spans(py, data, level, offset, (resource_index, 0), 0, caps)?;
            let mut builder = Builder::new(py, keep, None, None)?;
            let mut spans = Vec::with_capacity(decoded.len());
            for item in decoded {
                if builder.keeps(&item)? {
                    spans.push(item.span);
                }
            }
            spans.sort_by_key(|s| (s.parent_id.is_none() || s.parent_remote, s.end_ns));
            let outcomes: Vec<Outcome> = py.detach(|| {
                spans
                    .iter()
                    .map(|s| self.outcome(s, &state_attributes))
                    .collect()
            });
            let list = PyList::empty(py);
            for (span, outcome) in spans.iter().zip(outcomes) {
                let item = match outcome {
                    Outcome::Dropped(reason) => reason.into_bound_py_any(py)?,
                    Outcome::Classified(step, root, matched) => {
                        let step = self.step_to_py(py, &step)?;
                        if shapes && !matched {
                            (step, root, builder.build(span)?).into_bound_py_any(py)?
                        } else {
                            (step, root).into_bound_py_any(py)?
                        }
                    }
                };
                list.append(item)?;
            }
            Ok(list)
        })
    }
}

/// The span with only the attributes the field rules and `state_attributes` read, so the tests
/// of `build_step` (tests/test_core_fields.py) also check that `keys` names every key they read.
pub(crate) fn span_of(record: &Bound<'_, PyAny>, state_attributes: &[String]) -> PyResult<Span> {
    let span_key = |key: &str| keys::span_key(key) || state_attributes.iter().any(|s| s == key);
    let reads = Reads {
        span: &span_key,
        resource: &keys::resource_key,
        event: &keys::event_key,
    };
    span_reading(record, reads)
}

fn kind_of(kind: &str) -> PyResult<Kind> {
    Kind::parse(kind).ok_or_else(|| PyValueError::new_err(format!("not a step kind: {kind:?}")))
}

/// Whether a tool's call hands control over (`transfer_to_X`, `transfer_to_agent`, also as a
/// plugin's function) and to whom where its name says: `(False, None)` for any other tool. The
/// one reading of hand-off tools: inference's re-kinded steps, trials and recommendations ask it.
#[pyfunction(name = "handoff")]
pub fn handoff_py(name: &str) -> (bool, Option<String>) {
    match handoff(name) {
        Some(target) => (true, target.map(str::to_owned)),
        None => (false, None),
    }
}

/// The failure inference reads of a span no entry matched (`semconv.inference.outcome`): `flag`,
/// the error a failure flag inference found says, else what an `exception` event says, whatever
/// the status (`exception_error`: `_OTHER` where it names no type); the limit that failure
/// signals; and whether the status or `error.type` said the span failed already (`error_type`),
/// so an entry pinning it knows when an event alone did (its `{exception: true}`).
#[pyfunction(name = "outcome")]
#[pyo3(signature = (record, flag=None))]
pub fn outcome_py(
    record: &Bound<'_, PyAny>,
    flag: Option<String>,
) -> PyResult<(Option<String>, Option<&'static str>, bool)> {
    door(|| {
        let span = span_of(record, &[])?;
        let error = flag.or_else(|| {
            exception_error(&span).map(|thrown| match thrown {
                Value::Str(name) => name.to_string(),
                _ => OTHER_ERROR.to_owned(),
            })
        });
        let limit = limit_signal(&span, error.as_deref()).map(|limit| limit.as_str());
        Ok((error, limit, error_type(&span).is_some()))
    })
}
