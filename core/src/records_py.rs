//! A Python `records.SpanRecord` as a `span::Span`: how the in-process front door and the tests
//! feed the core.
//!
//! Values are taken only where `Value` holds them exactly, so that the core's answer is the
//! Python classifier's: exactly `None`, `bool`, `int` within i64, `float`, `str` (valid UTF-8:
//! no lone surrogates), `bytes`, `tuple` and `dict` with `str` keys, nested at most
//! `MAX_NESTING` deep. Anything else (a big int, a list, which prints unlike a tuple, a subclass
//! with its own `__str__` or `__eq__`, an id out of range) makes the whole record `None`: the
//! caller classifies that span with the Python classifier instead.

use crate::span::{Attributes, Event, Span, Value};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString, PyTuple, PyType};
use std::sync::{Arc, Mutex};

/// Deeper attribute values are left to Python (no input may exhaust the stack here).
const MAX_NESTING: usize = 32;

/// The record holds something `Value` cannot hold exactly.
struct Unfit;

impl From<PyErr> for Unfit {
    fn from(_: PyErr) -> Unfit {
        Unfit
    }
}

/// Which attribute keys the reader of a span reads: only those are converted (and must fit);
/// the others are left out of the Span, as if absent.
#[derive(Clone, Copy)]
pub struct Reads<'a> {
    pub span: &'a dyn Fn(&str) -> bool,
    pub resource: &'a dyn Fn(&str) -> bool,
    pub event: &'a dyn Fn(&str) -> bool,
}

fn every(_: &str) -> bool {
    true
}

impl Reads<'static> {
    /// Every attribute.
    pub const ALL: Reads<'static> = Reads {
        span: &every,
        resource: &every,
        event: &every,
    };
}

/// The Span of a SpanRecord, or None when it must be classified in Python (see the module doc).
pub fn span_from_record(record: &Bound<'_, PyAny>) -> PyResult<Option<Span>> {
    span_reading(record, Reads::ALL)
}

/// The Span of a SpanRecord with only the attributes `reads` names, or None when one of those
/// must be classified in Python.
pub fn span_reading<'py>(record: &Bound<'py, PyAny>, reads: Reads<'_>) -> PyResult<Option<Span>> {
    let py = record.py();
    let get = |name: &Bound<'py, PyString>| record.getattr(name);
    let attributes = get(pyo3::intern!(py, "attributes"))?;
    let events = get(pyo3::intern!(py, "events"))?;
    let resource = get(pyo3::intern!(py, "resource_attributes"))?;
    let converted = (|| -> Result<Span, Unfit> {
        let parent = get(pyo3::intern!(py, "parent_id"))?;
        Ok(Span {
            trace_id: int(&get(pyo3::intern!(py, "trace_id"))?)?,
            span_id: int(&get(pyo3::intern!(py, "span_id"))?)?,
            parent_id: if parent.is_none() {
                None
            } else {
                Some(int(&parent)?)
            },
            name: text(&get(pyo3::intern!(py, "name"))?)?,
            kind: int(&get(pyo3::intern!(py, "kind"))?)?,
            start_ns: int(&get(pyo3::intern!(py, "start_ns"))?)?,
            end_ns: int(&get(pyo3::intern!(py, "end_ns"))?)?,
            status_code: int(&get(pyo3::intern!(py, "status_code"))?)?,
            status_description: optional_text(&get(pyo3::intern!(py, "status_description"))?)?,
            attributes: mapping(&attributes, 0, reads.span)?,
            events: event_list(&events, reads.event)?,
            scope_name: Arc::from(text(&get(pyo3::intern!(py, "scope_name"))?)?),
            resource_attributes: Arc::new(mapping(&resource, 0, reads.resource)?),
            parent_remote: exact_bool(&get(pyo3::intern!(py, "parent_remote"))?)?,
        })
    })();
    Ok(converted.ok())
}

/// One attribute value, or None when `Value` cannot hold it exactly.
pub fn value_from_py(object: &Bound<'_, PyAny>) -> Option<Value> {
    value(object, 0).ok()
}

/// The Span of an SDK `ReadableSpan` read in place, field for field what
/// `records.from_readable_span` gives (its `_from_sdk_fields`), or None when it must take the
/// Python path: a subclass (which may override the properties), another SDK layout, or a value
/// the core cannot hold exactly.
pub fn span_from_readable<'py>(
    span: &Bound<'py, PyAny>,
    reads: Reads<'_>,
) -> PyResult<Option<Span>> {
    let py = span.py();
    if !span.get_type().is(readable_span_type(py)?) {
        return Ok(None);
    }
    let get = |object: &Bound<'py, PyAny>, name: &Bound<'py, PyString>| object.getattr(name);
    let converted = (|| -> Result<Span, Unfit> {
        let context = get(span, pyo3::intern!(py, "_context"))?;
        let (trace_id, span_id) = if context.is_none() {
            (0, 0)
        } else {
            (
                int(&get(&context, pyo3::intern!(py, "trace_id"))?)?,
                int(&get(&context, pyo3::intern!(py, "span_id"))?)?,
            )
        };
        let parent = get(span, pyo3::intern!(py, "_parent"))?;
        let (parent_id, parent_remote) = if parent.is_none() {
            (None, false)
        } else {
            let remote = get(&parent, pyo3::intern!(py, "is_remote"))?.is_truthy()?;
            (
                Some(int(&get(&parent, pyo3::intern!(py, "span_id"))?)?),
                remote,
            )
        };
        let or_zero = |name: &Bound<'py, PyString>| -> Result<u64, Unfit> {
            let value = get(span, name)?;
            if value.is_truthy()? {
                int(&value)
            } else {
                Ok(0)
            }
        };
        let status = get(span, pyo3::intern!(py, "_status"))?;
        let code = get(&status, pyo3::intern!(py, "status_code"))?;
        let scope = get(span, pyo3::intern!(py, "_instrumentation_scope"))?;
        let resource = get(span, pyo3::intern!(py, "_resource"))?;
        let name = get(span, pyo3::intern!(py, "_name"))?;
        Ok(Span {
            trace_id,
            span_id,
            parent_id,
            name: if name.is_truthy()? {
                text(&name)?
            } else {
                String::new()
            },
            kind: int(&get(
                &get(span, pyo3::intern!(py, "_kind"))?,
                pyo3::intern!(py, "value"),
            )?)?,
            start_ns: or_zero(pyo3::intern!(py, "_start_time"))?,
            end_ns: or_zero(pyo3::intern!(py, "_end_time"))?,
            status_code: int(&get(&code, pyo3::intern!(py, "value"))?)?,
            status_description: optional_text(&get(&status, pyo3::intern!(py, "description"))?)?,
            attributes: sdk_attributes(&get(span, pyo3::intern!(py, "_attributes"))?, reads.span)?,
            events: sdk_events(&get(span, pyo3::intern!(py, "_events"))?, reads.event)?,
            scope_name: Arc::from(if scope.is_none() {
                String::new()
            } else {
                text(&get(&scope, pyo3::intern!(py, "name"))?)?
            }),
            resource_attributes: sdk_resource(&resource)?,
            parent_remote,
        })
    })();
    Ok(converted.ok())
}

static READABLE_SPAN: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn readable_span_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    READABLE_SPAN.import(py, "opentelemetry.sdk.trace", "ReadableSpan")
}

/// The last SDK Resource read and its attributes: a provider's spans share one Resource,
/// immutable once made, so it is converted once (whole: `Reads::resource` does not apply), not
/// per span. The strong reference keeps the object, and so its identity, from being reused.
static LAST_RESOURCE: Mutex<Option<(Py<PyAny>, Arc<Attributes>)>> = Mutex::new(None);

/// A span's `resource.attributes` (none without a resource), converted once per Resource.
fn sdk_resource(resource: &Bound<'_, PyAny>) -> Result<Arc<Attributes>, Unfit> {
    if resource.is_none() {
        return Ok(Arc::new(Attributes::default()));
    }
    if let Ok(last) = LAST_RESOURCE.lock() {
        if let Some((object, attributes)) = last.as_ref() {
            if object.bind(resource.py()).is(resource) {
                return Ok(Arc::clone(attributes));
            }
        }
    }
    let raw = resource.getattr(pyo3::intern!(resource.py(), "attributes"))?;
    let attributes = Arc::new(sdk_attributes(&raw, &every)?);
    if let Ok(mut last) = LAST_RESOURCE.lock() {
        *last = Some((resource.clone().unbind(), Arc::clone(&attributes)));
    }
    Ok(attributes)
}

/// The SDK's BoundedAttributes (or None: no attributes), read through the dict it wraps: its
/// Mapping methods cost a Python call per item.
fn sdk_attributes(
    raw: &Bound<'_, PyAny>,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Attributes, Unfit> {
    if raw.is_none() {
        return Ok(Attributes::default());
    }
    match raw.getattr(pyo3::intern!(raw.py(), "_dict")) {
        Ok(inner) if inner.cast_exact::<PyDict>().is_ok() => mapping(&inner, 0, keep),
        _ => mapping(raw, 0, keep),
    }
}

/// `(e.name, e.attributes or {})` of each SDK event.
fn sdk_events(events: &Bound<'_, PyAny>, keep: &dyn Fn(&str) -> bool) -> Result<Vec<Event>, Unfit> {
    let py = events.py();
    let mut out = Vec::new();
    if !events.is_truthy()? {
        return Ok(out);
    }
    for event in events.try_iter()? {
        let event = event?;
        let attributes = event.getattr(pyo3::intern!(py, "attributes"))?;
        out.push(Event {
            name: text(&event.getattr(pyo3::intern!(py, "name"))?)?,
            attributes: sdk_attributes(&attributes, keep)?,
        });
    }
    Ok(out)
}

/// An exact int (not a bool, not a subclass) that fits `T`.
fn int<'py, T: FromPyObjectOwned<'py>>(value: &Bound<'py, PyAny>) -> Result<T, Unfit> {
    value.cast_exact::<PyInt>().map_err(|_| Unfit)?;
    value.extract().map_err(|_| Unfit)
}

fn exact_bool(value: &Bound<'_, PyAny>) -> Result<bool, Unfit> {
    Ok(value.cast_exact::<PyBool>().map_err(|_| Unfit)?.is_true())
}

fn text(value: &Bound<'_, PyAny>) -> Result<String, Unfit> {
    exact_str(value).map(str::to_owned)
}

/// The text of an exact str (not a subclass, which may compare unlike its text).
fn exact_str<'a>(value: &'a Bound<'_, PyAny>) -> Result<&'a str, Unfit> {
    Ok(value
        .cast_exact::<PyString>()
        .map_err(|_| Unfit)?
        .to_str()?)
}

fn optional_text(value: &Bound<'_, PyAny>) -> Result<Option<String>, Unfit> {
    if value.is_none() {
        Ok(None)
    } else {
        text(value).map(Some)
    }
}

fn value(object: &Bound<'_, PyAny>, depth: usize) -> Result<Value, Unfit> {
    if object.is_none() {
        return Ok(Value::None);
    }
    if let Ok(s) = object.cast_exact::<PyString>() {
        return Ok(Value::Str(s.to_str()?.to_owned()));
    }
    if let Ok(b) = object.cast_exact::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if object.cast_exact::<PyInt>().is_ok() {
        return Ok(Value::Int(object.extract()?));
    }
    if let Ok(f) = object.cast_exact::<PyFloat>() {
        return Ok(Value::Double(f.value()));
    }
    if let Ok(b) = object.cast_exact::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if depth >= MAX_NESTING {
        return Err(Unfit);
    }
    if let Ok(items) = object.cast_exact::<PyTuple>() {
        return items
            .iter()
            .map(|item| value(&item, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if object.cast_exact::<PyDict>().is_ok() {
        return mapping(object, depth + 1, &every).map(Value::KvList);
    }
    Err(Unfit)
}

/// A Mapping of str keys (the attributes, a resource's, an event's, or a dict value), with the
/// values of the keys `keep` takes.
fn mapping(
    object: &Bound<'_, PyAny>,
    depth: usize,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Attributes, Unfit> {
    let mut pairs = Vec::new();
    if let Ok(dict) = object.cast_exact::<PyDict>() {
        pairs.reserve(dict.len());
        for (key, item) in dict.iter() {
            let key = exact_str(&key)?;
            if keep(key) {
                pairs.push((key.to_owned(), value(&item, depth)?));
            }
        }
    } else {
        let py = object.py();
        for pair in object
            .call_method0(pyo3::intern!(py, "items"))?
            .try_iter()?
        {
            let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?.extract()?;
            let key = exact_str(&key)?;
            if keep(key) {
                pairs.push((key.to_owned(), value(&item, depth)?));
            }
        }
    }
    Ok(Attributes(pairs))
}

fn event_list(events: &Bound<'_, PyAny>, keep: &dyn Fn(&str) -> bool) -> Result<Vec<Event>, Unfit> {
    let mut out = Vec::new();
    for event in events.try_iter()? {
        let (name, attributes): (Bound<'_, PyAny>, Bound<'_, PyAny>) = event?.extract()?;
        out.push(Event {
            name: text(&name)?,
            attributes: mapping(&attributes, 0, keep)?,
        });
    }
    Ok(out)
}
