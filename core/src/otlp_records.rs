//! Decoded spans -> Python `records.SpanRecord` objects, shaped as the Python reader shaped them.
//!
//! An OTLP array is a tuple, a key-value list a dict, an empty AnyValue None, an event a
//! `(name, attributes)` tuple; the spans of one resource share one resource dict, and the spans
//! of one trace one trace-id int (a 128-bit int is several calls to build in the stable ABI).
//! The `keep` filter (`--jobs`) is asked before a span is converted, so a span another worker
//! reads costs only its id here.

use std::sync::Arc;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple, PyType};

use crate::door::TraceFormatError;
use crate::otlp_pb::Decoded;
use crate::pyrepr::to_python;
use crate::span::{Attributes, Span};

static SPAN_RECORD: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INT_FROM_BYTES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `bind_record_type(SpanRecord)`: the type the decoder builds, handed in once by the package's
/// door to the core (`otel_agentcov.compiled`), so the core imports nothing from the package.
#[pyfunction]
fn bind_record_type(py: Python<'_>, record: Bound<'_, PyType>) -> PyResult<()> {
    let bound = SPAN_RECORD.get_or_init(py, || record.clone().unbind());
    if bound.bind(py).is(&record) {
        Ok(())
    } else {
        Err(PyValueError::new_err(
            "another SpanRecord type is bound already",
        ))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bind_record_type, m)?)
}

/// What the spans of one call share: the record type, the filter, and, for spans decoded on
/// their own, the resource and scope the caller already holds.
pub struct Builder<'py> {
    py: Python<'py>,
    record: Bound<'py, PyAny>,
    keep: Option<Bound<'py, PyAny>>,
    resource: Option<Bound<'py, PyAny>>,
    scope_name: Option<Bound<'py, PyAny>>,
    last_resource: Option<(*const Attributes, Bound<'py, PyAny>)>,
    last_scope: Option<(*const u8, Bound<'py, PyAny>)>,
    last_trace: Option<(u128, Bound<'py, PyAny>)>,
}

impl<'py> Builder<'py> {
    pub fn new(
        py: Python<'py>,
        keep: Option<Bound<'py, PyAny>>,
        resource: Option<Bound<'py, PyAny>>,
        scope_name: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        let record = SPAN_RECORD
            .get(py)
            .ok_or_else(|| {
                PyRuntimeError::new_err("no SpanRecord type bound: import otel_agentcov.compiled")
            })?
            .bind(py)
            .clone()
            .into_any();
        Ok(Builder {
            py,
            record,
            keep,
            resource,
            scope_name,
            last_resource: None,
            last_scope: None,
            last_trace: None,
        })
    }

    /// The SpanRecords of the spans `keep` keeps, in order; the first kept span with a bad id
    /// raises its TraceFormatError.
    pub fn records(&mut self, decoded: Vec<Decoded>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(self.py);
        for item in decoded {
            if let Some(record) = self.record(item)? {
                list.append(record)?;
            }
        }
        Ok(list)
    }

    fn record(&mut self, item: Decoded) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !self.keeps(&item)? {
            return Ok(None);
        }
        self.build(&item.span).map(Some)
    }

    /// Whether `keep` keeps this span; a kept span with a bad id raises its TraceFormatError.
    pub fn keeps(&mut self, item: &Decoded) -> PyResult<bool> {
        let py = self.py;
        if let Some(bad) = &item.bad_ids {
            // the id's own bytes, whatever their length, as `int.from_bytes` reads them
            if let Some(keep) = &self.keep {
                let from_bytes = INT_FROM_BYTES.get_or_try_init(py, || {
                    py.get_type::<PyInt>()
                        .getattr("from_bytes")
                        .map(Bound::unbind)
                })?;
                let id = from_bytes
                    .bind(py)
                    .call1((PyBytes::new(py, &bad.trace_id), "big"))?;
                if !keep.call1((id,))?.is_truthy()? {
                    return Ok(false);
                }
            }
            return Err(TraceFormatError::new_err(bad.message.clone()));
        }
        // asked for every span, as the Python readers did: `--jobs` counts its progress in it
        match &self.keep {
            Some(keep) => {
                let keep = keep.clone();
                keep.call1((self.trace(item.span.trace_id)?,))?.is_truthy()
            }
            None => Ok(true),
        }
    }

    /// The trace id's Python int: one object for a run of spans of one trace.
    fn trace(&mut self, trace_id: u128) -> PyResult<Bound<'py, PyAny>> {
        if let Some((id, obj)) = &self.last_trace {
            if *id == trace_id {
                return Ok(obj.clone());
            }
        }
        let obj = trace_id.into_pyobject(self.py)?.into_any();
        self.last_trace = Some((trace_id, obj.clone()));
        Ok(obj)
    }

    /// The SpanRecord of a kept span.
    pub fn build(&mut self, span: &Span) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let trace_id = self.trace(span.trace_id)?;
        let resource = self.resource_of(&span.resource_attributes)?;
        let scope_name = self.scope_of(&span.scope_name);
        let attributes = dict(py, &span.attributes)?;
        let events = PyTuple::new(
            py,
            span.events
                .iter()
                .map(|e| {
                    let name = PyString::new(py, &e.name).into_any();
                    PyTuple::new(py, [name, dict(py, &e.attributes)?.into_any()])
                })
                .collect::<PyResult<Vec<_>>>()?,
        )?;
        let args = PyTuple::new(
            py,
            [
                trace_id,
                span.span_id.into_pyobject(py)?.into_any(),
                span.parent_id.into_pyobject(py)?.into_any(),
                PyString::new(py, &span.name).into_any(),
                span.kind.into_pyobject(py)?.into_any(),
                span.start_ns.into_pyobject(py)?.into_any(),
                span.end_ns.into_pyobject(py)?.into_any(),
                span.status_code.into_pyobject(py)?.into_any(),
                span.status_description
                    .as_deref()
                    .into_pyobject(py)?
                    .into_any(),
                attributes.into_any(),
                events.into_any(),
                scope_name,
                resource,
                PyBool::new(py, span.parent_remote).to_owned().into_any(),
            ],
        )?;
        self.record.call1(args)
    }

    fn resource_of(&mut self, attributes: &Arc<Attributes>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(given) = &self.resource {
            return Ok(given.clone());
        }
        let ptr = Arc::as_ptr(attributes);
        if let Some((last, obj)) = &self.last_resource {
            if *last == ptr {
                return Ok(obj.clone());
            }
        }
        let obj = dict(self.py, attributes)?.into_any();
        self.last_resource = Some((ptr, obj.clone()));
        Ok(obj)
    }

    fn scope_of(&mut self, name: &Arc<str>) -> Bound<'py, PyAny> {
        if let Some(given) = &self.scope_name {
            return given.clone();
        }
        let ptr = name.as_ptr();
        if let Some((last, obj)) = &self.last_scope {
            if *last == ptr {
                return obj.clone();
            }
        }
        let obj = PyString::new(self.py, name).into_any();
        self.last_scope = Some((ptr, obj.clone()));
        obj
    }
}

/// Attributes as a dict: a key given twice keeps its first place and its last value.
pub fn dict<'py>(py: Python<'py>, attributes: &Attributes) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (key, value) in &attributes.0 {
        out.set_item(PyString::new(py, key), to_python(py, value)?)?;
    }
    Ok(out)
}
