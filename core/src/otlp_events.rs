//! The events `semconv.events` reads (tool-call decisions, state changes, guardrail results:
//! docs/semantics.md#decisions), out of OTLP protobuf: the span events of trace payloads, for
//! the readers whose spans the core classifies without their events (`Classifier.otlp_steps`:
//! files and `serve`), decoded by the span decoder itself (`otlp_pb`), so a payload has one
//! protobuf decoder, with its errors; and the log records of logs payloads (`otlp_logs`). The
//! Python side turns what is returned into events.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;

use crate::door::{door, TooLarge, TraceFormatError};
use crate::otlp_logs::{self, Read};
use crate::otlp_py::decode_spans;
use crate::otlp_records::dict;
use crate::span::{Attributes, Event};

/// Whether `data` holds any of `names` at all: a payload that holds none is not decoded (the
/// common case: most spans carry no event of ours). A SIMD substring search (`memmem`): a
/// byte-by-byte window compare of every payload cost more than classifying its spans.
fn mentions(data: &[u8], names: &[String]) -> bool {
    names
        .iter()
        .any(|name| !name.is_empty() && memchr::memmem::find(data, name.as_bytes()).is_some())
}

/// Only the attributes `keys` names: nothing else of an event is handed to Python (content).
fn read(attributes: &Attributes, keys: &[String]) -> Attributes {
    Attributes(
        attributes
            .0
            .iter()
            .filter(|(k, _)| keys.contains(k))
            .cloned()
            .collect(),
    )
}

/// Per span of OTLP protobuf bytes (`level` "request" or "resource_spans", placed by `offset`
/// for error messages) that carries an event named in `names`: `(trace_id, span_id, end_ns,
/// resource, [(name, attributes), ...])`, its resource reduced to `service.name` and each
/// event's attributes to `keys`, in payload order. A span whose ids have lengths OTLP does not
/// allow gives none (its events could join no span). Bad bytes raise TraceFormatError, as
/// `otlp_spans` words it; no caps (the spans' decoder of the same bytes had them).
#[pyfunction]
#[pyo3(signature = (data, names, keys, level="request", *, offset=0, resource_index=0))]
fn otlp_span_events<'py>(
    py: Python<'py>,
    data: &[u8],
    names: Vec<String>,
    keys: Vec<String>,
    level: &str,
    offset: usize,
    resource_index: usize,
) -> PyResult<Bound<'py, PyList>> {
    door(|| {
        let out = PyList::empty(py);
        if !mentions(data, &names) {
            return Ok(out);
        }
        let service = ["service.name".to_owned()];
        for decoded in decode_spans(py, data, level, offset, (resource_index, 0), 0, None)? {
            let span = &decoded.span;
            let ours: Vec<&Event> = span
                .events
                .iter()
                .filter(|e| names.contains(&e.name))
                .collect();
            if ours.is_empty() || decoded.bad_ids.is_some() {
                continue;
            }
            let events = PyList::empty(py);
            for event in ours {
                events.append((&event.name, dict(py, &read(&event.attributes, &keys))?))?;
            }
            let resource = dict(py, &read(&span.resource_attributes, &service))?;
            out.append((span.trace_id, span.span_id, span.end_ns, resource, events))?;
        }
        Ok(out)
    })
}

/// The log records of OTLP logs protobuf bytes (an ExportLogsServiceRequest or LogsData) that
/// hold an event named in `names` (by their `event_name`, else their `name_key` attribute), as
/// `(event_name or None, {key: value}, trace_id, span_id, time_ns, service.name or None)`, in
/// payload order, read on the wire (`otlp_logs`): of a record's attributes only `keys` cross,
/// a string, `count_key` as an integer, `keys_key` as a list of at most `max_keys` strings (None
/// past that or when one is no string). Bad bytes raise TraceFormatError, a request past `caps`
/// (records, attributes) TooLarge.
#[pyfunction]
#[pyo3(signature = (
    data, names, keys, *, name_key, count_key, keys_key, max_keys, caps=None,
))]
#[allow(clippy::too_many_arguments)] // one keyword-only entry: what to read, named
fn otlp_log_events<'py>(
    py: Python<'py>,
    data: &[u8],
    names: Vec<String>,
    keys: Vec<String>,
    name_key: &str,
    count_key: &str,
    keys_key: &str,
    max_keys: usize,
    caps: Option<(u64, u64)>,
) -> PyResult<Bound<'py, PyList>> {
    door(|| {
        let ask = otlp_logs::Ask {
            names: &names,
            keys: &keys,
            name_key,
            count_key,
            keys_key,
            max_keys,
            caps,
        };
        let records =
            py.detach(|| otlp_logs::records(data, &ask))
                .map_err(|error| match error {
                    otlp_logs::Error::NotLogs(_) => TraceFormatError::new_err(error.to_string()),
                    otlp_logs::Error::TooLarge(_) => TooLarge::new_err(error.to_string()),
                })?;
        let out = PyList::empty(py);
        for record in records {
            let attributes = PyDict::new(py);
            for (key, value) in record.attributes {
                let value = match value {
                    Read::Str(s) => s.into_bound_py_any(py)?,
                    Read::Count(n) => n.into_bound_py_any(py)?,
                    Read::Keys(keys) => keys.into_bound_py_any(py)?,
                };
                attributes.set_item(key, value)?;
            }
            out.append((
                record.name,
                attributes,
                record.trace_id,
                record.span_id,
                record.time_ns,
                record.service,
            ))?;
        }
        Ok(out)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(otlp_span_events, m)?)?;
    m.add_function(wrap_pyfunction!(otlp_log_events, m)?)
}
