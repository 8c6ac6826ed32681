//! A Python `records.SpanRecord` or SDK `ReadableSpan` as a `span::Span`: how the in-process
//! front door and the tests feed the core.
//!
//! Every value a span can carry is taken (docs/core.md#values): `None`, `bool`, an `int` of any
//! size, `float`, a `str` (one with lone surrogates kept exactly: `span::Text`), `bytes`,
//! `tuple`, `list`, `dict`; a subclass of `str`, `int`, `float` or `bytes` is read as its value,
//! as the rules' `isinstance` tests read it; any other object (a dict with keys that are no str,
//! a container nested past `MAX_NESTING`) is kept as the Python object, which its truth and its
//! `str()` are asked of. Names, keys and status texts are text: a lone surrogate in one is read as
//! `?`, as `clip` writes it. An id that is no id (not an int, or past its OTLP width) is kept as
//! 0, which the caller drops as `invalid_ids`.

use crate::span::{Attributes, Event, Foreign, Span, Text, Value};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use std::sync::{Arc, Mutex};

/// Deeper attribute values are kept as Python objects (no input may exhaust the stack here).
const MAX_NESTING: usize = 32;

/// Which attribute keys the reader of a span reads: only those are converted; the others are
/// left out of the Span, as if absent.
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

/// The Span of a SpanRecord, every attribute read.
pub fn span_from_record(record: &Bound<'_, PyAny>) -> PyResult<Span> {
    span_reading(record, Reads::ALL)
}

/// The Span of a SpanRecord with only the attributes `reads` names. An error only where the
/// record is no SpanRecord (a field missing, a name that is no str).
pub fn span_reading<'py>(record: &Bound<'py, PyAny>, reads: Reads<'_>) -> PyResult<Span> {
    let py = record.py();
    let get = |name: &Bound<'py, PyString>| record.getattr(name);
    let parent = get(pyo3::intern!(py, "parent_id"))?;
    let mut ids = Ids::default();
    let span = Span {
        trace_id: ids.id(&get(pyo3::intern!(py, "trace_id"))?),
        span_id: ids.id(&get(pyo3::intern!(py, "span_id"))?),
        parent_id: ids.parent(&parent),
        name: text(&get(pyo3::intern!(py, "name"))?)?,
        kind: code(&get(pyo3::intern!(py, "kind"))?)?,
        start_ns: get(pyo3::intern!(py, "start_ns"))?.extract()?,
        end_ns: get(pyo3::intern!(py, "end_ns"))?.extract()?,
        status_code: code(&get(pyo3::intern!(py, "status_code"))?)?,
        status_description: optional_text(&get(pyo3::intern!(py, "status_description"))?)?,
        attributes: mapping(&get(pyo3::intern!(py, "attributes"))?, 0, reads.span)?,
        events: event_list(&get(pyo3::intern!(py, "events"))?, reads.event)?,
        scope_name: Arc::from(text(&get(pyo3::intern!(py, "scope_name"))?)?),
        resource_attributes: Arc::new(mapping(
            &get(pyo3::intern!(py, "resource_attributes"))?,
            0,
            reads.resource,
        )?),
        parent_remote: get(pyo3::intern!(py, "parent_remote"))?.is_truthy()?,
    };
    Ok(ids.checked(span))
}

/// One attribute value.
pub fn value_from_py(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    value(object, 0)
}

/// Ids as `records.valid_id` reads them: one that is not an int within its OTLP width makes the
/// span's trace id 0, so the span is dropped as `invalid_ids`, as the engine drops its record.
#[derive(Default)]
struct Ids {
    invalid: bool,
}

impl Ids {
    fn id<'py, T: FromPyObjectOwned<'py> + Default>(&mut self, value: &Bound<'py, PyAny>) -> T {
        match value
            .cast_exact::<PyInt>()
            .ok()
            .and_then(|i| i.extract().ok())
        {
            Some(id) => id,
            None => {
                self.invalid = true;
                T::default()
            }
        }
    }

    fn parent(&mut self, value: &Bound<'_, PyAny>) -> Option<u64> {
        (!value.is_none()).then(|| self.id(value))
    }

    fn checked(self, mut span: Span) -> Span {
        if self.invalid {
            span.trace_id = 0;
        }
        span
    }
}

/// A kind or status code: only compared with the named codes, so one past i32 reads as i32::MAX.
fn code(value: &Bound<'_, PyAny>) -> PyResult<i32> {
    let wide: i128 = match value.extract() {
        Ok(wide) => wide,
        Err(_) => value
            .gt(0)
            .map(|positive| if positive { i128::MAX } else { i128::MIN })?,
    };
    Ok(wide.clamp(i32::MIN.into(), i32::MAX.into()) as i32)
}

/// The names an SDK span's fields are read by: its own fields (without the properties' per-call
/// copies) or, for a subclass (which may override them) or another SDK layout, its properties,
/// as `records.from_readable_span` reads them.
struct Layout {
    context: &'static str,
    parent: &'static str,
    name: &'static str,
    kind: &'static str,
    start: &'static str,
    end: &'static str,
    status: &'static str,
    scope: &'static str,
    resource: &'static str,
    attributes: &'static str,
    events: &'static str,
}

const FIELDS: Layout = Layout {
    context: "_context",
    parent: "_parent",
    name: "_name",
    kind: "_kind",
    start: "_start_time",
    end: "_end_time",
    status: "_status",
    scope: "_instrumentation_scope",
    resource: "_resource",
    attributes: "_attributes",
    events: "_events",
};

const PROPERTIES: Layout = Layout {
    context: "context",
    parent: "parent",
    name: "name",
    kind: "kind",
    start: "start_time",
    end: "end_time",
    status: "status",
    scope: "instrumentation_scope",
    resource: "resource",
    attributes: "attributes",
    events: "events",
};

/// The Span of an SDK `ReadableSpan`, field for field what `records.from_readable_span` gives.
pub fn span_from_readable<'py>(span: &Bound<'py, PyAny>, reads: Reads<'_>) -> PyResult<Span> {
    let py = span.py();
    if span.get_type().is(readable_span_type(py)?) {
        match readable(span, &FIELDS, reads) {
            Err(error) if error.is_instance_of::<pyo3::exceptions::PyAttributeError>(py) => {}
            read => return read,
        }
    }
    readable(span, &PROPERTIES, reads)
}

fn readable<'py>(span: &Bound<'py, PyAny>, layout: &Layout, reads: Reads<'_>) -> PyResult<Span> {
    let get = |object: &Bound<'py, PyAny>, name: &str| object.getattr(name);
    let mut ids = Ids::default();
    let context = get(span, layout.context)?;
    let (trace_id, span_id) = if context.is_none() {
        (0, 0)
    } else {
        (
            ids.id(&get(&context, "trace_id")?),
            ids.id(&get(&context, "span_id")?),
        )
    };
    let parent = get(span, layout.parent)?;
    let (parent_id, parent_remote) = if parent.is_none() {
        (None, false)
    } else {
        let remote = get(&parent, "is_remote")?.is_truthy()?;
        (ids.parent(&get(&parent, "span_id")?), remote)
    };
    let or_zero = |name: &str| -> PyResult<i128> {
        let value = get(span, name)?;
        if value.is_truthy()? {
            value.extract()
        } else {
            Ok(0)
        }
    };
    let status = get(span, layout.status)?;
    let scope = get(span, layout.scope)?;
    let name = get(span, layout.name)?;
    let read = Span {
        trace_id,
        span_id,
        parent_id,
        name: if name.is_truthy()? {
            text(&name)?
        } else {
            String::new()
        },
        kind: code(&get(&get(span, layout.kind)?, "value")?)?,
        start_ns: or_zero(layout.start)?,
        end_ns: or_zero(layout.end)?,
        status_code: code(&get(&get(&status, "status_code")?, "value")?)?,
        status_description: optional_text(&get(&status, "description")?)?,
        attributes: sdk_attributes(&get(span, layout.attributes)?, reads.span)?,
        events: sdk_events(&get(span, layout.events)?, reads.event)?,
        scope_name: Arc::from(if scope.is_none() {
            String::new()
        } else {
            text(&get(&scope, "name")?)?
        }),
        resource_attributes: sdk_resource(&get(span, layout.resource)?)?,
        parent_remote,
    };
    Ok(ids.checked(read))
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
fn sdk_resource(resource: &Bound<'_, PyAny>) -> PyResult<Arc<Attributes>> {
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
fn sdk_attributes(raw: &Bound<'_, PyAny>, keep: &dyn Fn(&str) -> bool) -> PyResult<Attributes> {
    if raw.is_none() {
        return Ok(Attributes::default());
    }
    match raw.getattr(pyo3::intern!(raw.py(), "_dict")) {
        Ok(inner) if inner.cast_exact::<PyDict>().is_ok() => mapping(&inner, 0, keep),
        _ => mapping(raw, 0, keep),
    }
}

/// `(e.name, e.attributes or {})` of each SDK event.
fn sdk_events(events: &Bound<'_, PyAny>, keep: &dyn Fn(&str) -> bool) -> PyResult<Vec<Event>> {
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

/// A name, a key or a status text: its text, with `?` for a lone surrogate.
fn text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = Text::from_py(value.cast::<PyString>()?)?;
    Ok(text.as_str().to_owned())
}

fn optional_text(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if value.is_none() {
        Ok(None)
    } else {
        text(value).map(Some)
    }
}

fn value(object: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if object.is_none() {
        return Ok(Value::None);
    }
    if let Ok(s) = object.cast::<PyString>() {
        return Ok(Value::Str(Text::from_py(s)?));
    }
    if let Ok(b) = object.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = object.cast::<PyInt>() {
        return Ok(match i.extract::<i64>() {
            Ok(i) => Value::Int(i),
            // `int(...)`: a subclass may print otherwise
            Err(_) => {
                let exact = object.py().get_type::<PyInt>().call1((object,))?;
                Value::BigInt(exact.str()?.to_str()?.into())
            }
        });
    }
    if let Ok(f) = object.cast::<PyFloat>() {
        return Ok(Value::Double(f.value()));
    }
    if let Ok(b) = object.cast::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if depth < MAX_NESTING {
        if let Ok(items) = object.cast_exact::<PyTuple>() {
            let items = items.iter().map(|item| value(&item, depth + 1));
            return Ok(Value::Array(items.collect::<PyResult<_>>()?));
        }
        if let Ok(items) = object.cast_exact::<PyList>() {
            let items = items.iter().map(|item| value(&item, depth + 1));
            return Ok(Value::List(items.collect::<PyResult<_>>()?));
        }
        if let Ok(dict) = object.cast_exact::<PyDict>() {
            if dict
                .keys()
                .iter()
                .all(|key| key.is_instance_of::<PyString>())
            {
                return mapping(object, depth + 1, &every).map(Value::KvList);
            }
        }
    }
    Ok(Value::Object(Arc::new(Foreign {
        truthy: object.is_truthy().unwrap_or(true),
        object: object.clone().unbind(),
    })))
}

/// A Mapping (the attributes, a resource's, an event's, or a dict value), with the values of
/// the str keys `keep` takes (no rule reads a key that is no str).
fn mapping(
    object: &Bound<'_, PyAny>,
    depth: usize,
    keep: &dyn Fn(&str) -> bool,
) -> PyResult<Attributes> {
    let mut pairs = Vec::new();
    let mut add = |key: Bound<'_, PyAny>, item: Bound<'_, PyAny>| -> PyResult<()> {
        if let Ok(key) = key.cast::<PyString>() {
            let key = Text::from_py(key)?;
            if keep(&key) {
                pairs.push((key.as_str().to_owned(), value(&item, depth)?));
            }
        }
        Ok(())
    };
    if let Ok(dict) = object.cast_exact::<PyDict>() {
        for (key, item) in dict.iter() {
            add(key, item)?;
        }
    } else {
        let py = object.py();
        for pair in object
            .call_method0(pyo3::intern!(py, "items"))?
            .try_iter()?
        {
            let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair?.extract()?;
            add(key, item)?;
        }
    }
    Ok(Attributes(pairs))
}

fn event_list(events: &Bound<'_, PyAny>, keep: &dyn Fn(&str) -> bool) -> PyResult<Vec<Event>> {
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
