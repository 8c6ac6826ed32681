//! The Python entries of the OTLP protobuf decoder (docs/core.md#decoding-otlp-protobuf):
//! bytes -> `list[SpanRecord]`, parsed with the GIL released, plus the two pieces the file
//! reader's walk of a huge message decodes on their own (a resource, a scope).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::door::{door, TooLarge, TraceFormatError};
use crate::otlp_pb::{self, Decoded, Path};
use crate::{otlp_caps, otlp_records, wire};

/// Why bytes gave no spans: not protobuf of the expected type, or past a cap.
enum Failure {
    Malformed(wire::Error),
    TooLarge(otlp_caps::TooLarge),
}

/// Decode without the GIL: the bytes are immutable and nothing here touches Python. With
/// `caps`, the decoder charges every element it decodes and stops at the first past a cap.
fn decode(
    data: &[u8],
    level: &str,
    offset: usize,
    path: Path,
    span_index: usize,
    mut budget: otlp_caps::Budget,
) -> Result<Vec<Decoded>, Failure> {
    let mut out = Vec::new();
    let b = &mut budget;
    match level {
        "resource_spans" => otlp_pb::resource_spans_message(data, offset, path, &mut out, b),
        "scope_spans" => otlp_pb::scope_spans_message(data, offset, path, &mut out, b),
        "span" => otlp_pb::span_message(data, offset, path, span_index, b).map(|d| out.push(d)),
        _ => otlp_pb::request(data, offset, &mut out, b),
    }
    .map_err(|error| match budget.passed() {
        Some(too_large) => Failure::TooLarge(too_large),
        None => Failure::Malformed(error),
    })?;
    Ok(out)
}

fn message_name(level: &str) -> &'static str {
    match level {
        "request" => "ExportTraceServiceRequest",
        "resource_spans" => "ResourceSpans",
        "scope_spans" => "ScopeSpans",
        "span" => "Span",
        "resource" => "Resource",
        _ => "InstrumentationScope",
    }
}

fn malformed(error: &wire::Error, level: &str) -> PyErr {
    TraceFormatError::new_err(otlp_pb::describe(error, message_name(level)))
}

/// The spans of OTLP protobuf bytes holding a `level` message, parsed with the GIL released;
/// bad bytes raise TraceFormatError, a request past `caps` (max spans, max attributes) TooLarge.
pub(crate) fn decode_spans(
    py: Python<'_>,
    data: &[u8],
    level: &str,
    offset: usize,
    (resource, scope): (usize, usize),
    span_index: usize,
    caps: Option<(u64, u64)>,
) -> PyResult<Vec<Decoded>> {
    if !matches!(level, "request" | "resource_spans" | "scope_spans" | "span") {
        return Err(PyValueError::new_err(format!(
            "unknown OTLP level {level:?}"
        )));
    }
    let path = Path { resource, scope };
    py.detach(|| decode(data, level, offset, path, span_index, budget(caps)))
        .map_err(|failure| match failure {
            Failure::Malformed(error) => malformed(&error, level),
            Failure::TooLarge(too_large) => TooLarge::new_err(too_large.to_string()),
        })
}

/// OTLP trace protobuf bytes -> `list[SpanRecord]`, in payload order.
///
/// `level` is the message `data` holds: `"request"` (an ExportTraceServiceRequest or
/// TracesData), or one part of one, `"resource_spans"`, `"scope_spans"` or `"span"`, which the
/// file reader decodes one at a time to bound its memory; the indices and `offset` (where
/// `data` starts in the file) place it for error messages. A ScopeSpans or Span decoded on its
/// own takes its `resource` (and a Span its `scope_name`) from the caller. `keep` is the
/// `--jobs` trace-id filter; `caps` = (max spans, max attributes) refuses a request with
/// `TooLarge` as soon as the decoder meets the first element past one. Bad bytes raise
/// `TraceFormatError`.
#[pyfunction]
#[pyo3(signature = (
    data, level="request", *, offset=0, resource_index=0, scope_index=0, span_index=0,
    keep=None, caps=None, resource=None, scope_name=None,
))]
#[allow(clippy::too_many_arguments)] // one keyword-only entry, not a family of near-copies
fn otlp_spans<'py>(
    py: Python<'py>,
    data: &[u8],
    level: &str,
    offset: usize,
    resource_index: usize,
    scope_index: usize,
    span_index: usize,
    keep: Option<Bound<'py, PyAny>>,
    caps: Option<(u64, u64)>,
    resource: Option<Bound<'py, PyDict>>,
    scope_name: Option<Bound<'py, PyString>>,
) -> PyResult<Bound<'py, PyList>> {
    door(|| {
        let decoded = decode_spans(
            py,
            data,
            level,
            offset,
            (resource_index, scope_index),
            span_index,
            caps,
        )?;
        let mut builder = otlp_records::Builder::new(
            py,
            keep,
            resource.map(Bound::into_any),
            scope_name.map(Bound::into_any),
        )?;
        builder.records(decoded)
    })
}

/// Caps as Python passes them, (max spans, max attributes).
fn budget(caps: Option<(u64, u64)>) -> otlp_caps::Budget {
    otlp_caps::Budget::new(caps.map(|(max_spans, max_attributes)| otlp_caps::Caps {
        max_spans,
        max_attributes,
    }))
}

/// A decode of a part on its own failed: past a cap (TooLarge) or malformed.
fn part_failed(budget: &otlp_caps::Budget, error: &wire::Error, level: &str) -> PyErr {
    match budget.passed() {
        Some(too_large) => TooLarge::new_err(too_large.to_string()),
        None => malformed(error, level),
    }
}

/// The attributes of an OTLP `Resource` message, as the dict its spans share; `caps` as
/// `otlp_spans`'s.
#[pyfunction]
#[pyo3(signature = (data, *, offset=0, caps=None))]
fn otlp_resource<'py>(
    py: Python<'py>,
    data: &[u8],
    offset: usize,
    caps: Option<(u64, u64)>,
) -> PyResult<Bound<'py, PyDict>> {
    door(|| {
        let mut budget = budget(caps);
        let attributes = py
            .detach(|| otlp_pb::resource_message(data, offset, &mut budget))
            .map_err(|e| part_failed(&budget, &e, "resource"))?;
        otlp_records::dict(py, &attributes)
    })
}

/// The name of an OTLP `InstrumentationScope` message; `caps` as `otlp_spans`'s.
#[pyfunction]
#[pyo3(signature = (data, *, offset=0, caps=None))]
fn otlp_scope_name(data: &[u8], offset: usize, caps: Option<(u64, u64)>) -> PyResult<String> {
    door(|| {
        let mut budget = budget(caps);
        otlp_pb::scope_message(data, offset, &mut budget)
            .map_err(|e| part_failed(&budget, &e, "scope"))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(otlp_spans, m)?)?;
    m.add_function(wrap_pyfunction!(otlp_resource, m)?)?;
    m.add_function(wrap_pyfunction!(otlp_scope_name, m)?)?;
    Ok(())
}
