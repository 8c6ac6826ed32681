//! Test entries of the per-span field rules, called with the Python classifier's own inputs so
//! the tests compare the two span for span (tests/test_core_fields.py). Not public API: the
//! names start with `_`.

use crate::classify::fields::build_step;
use crate::classify::hooks::hook;
use crate::classify::keys;
use crate::classify::step::Kind;
use crate::classify::step_py::{step_from_py, step_to_py};
use crate::classify::testspans::as_test_span;
use crate::door::door;
use crate::pyjson::{self, Json};
use crate::pyrepr::{py_str, to_python};
use crate::records_py::{span_from_readable, span_from_record, span_reading, value_from_py, Reads};
use crate::span::Span;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use pyo3::IntoPyObjectExt;

/// The span with only the attributes the field rules and `state_attributes` read (what a
/// classifier converts), so the tests also check `keys` names every key the rules read.
fn span_of(record: &Bound<'_, PyAny>, state_attributes: &[String]) -> PyResult<Span> {
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

/// `semconv.common.build_step`, in the core, as a `step_class` instance.
#[pyfunction]
#[pyo3(signature = (step_class, record, kind, state_attributes, agent=None, tool=None))]
fn _build_step<'py>(
    step_class: &Bound<'py, PyType>,
    record: &Bound<'py, PyAny>,
    kind: &str,
    state_attributes: Vec<String>,
    agent: Option<String>,
    tool: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    door(|| {
        let span = span_of(record, &state_attributes)?;
        let step = build_step(&span, kind_of(kind)?, &state_attributes, agent, tool);
        step_to_py(step_class, &step)
    })
}

/// The oracle's `HOOKS[name](record, step, state_attributes)` (`tests/_hooks/`), in the core.
#[pyfunction]
fn _hook<'py>(
    name: &str,
    record: &Bound<'py, PyAny>,
    step: &Bound<'py, PyAny>,
    state_attributes: Vec<String>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    door(|| {
        let code = hook(name).ok_or_else(|| PyValueError::new_err(format!("no hook {name:?}")))?;
        let span = span_of(record, &state_attributes)?;
        code(&span, step_from_py(step)?, &state_attributes)
            .map(|out| step_to_py(&step.get_type(), &out))
            .transpose()
    })
}

/// The oracle's `testspans.as_test_span`, in the core.
#[pyfunction]
fn _as_test_span<'py>(
    record: &Bound<'py, PyAny>,
    step: &Bound<'py, PyAny>,
    state_attributes: Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    door(|| {
        let span = span_of(record, &state_attributes)?;
        let out = as_test_span(&span, step_from_py(step)?, &state_attributes);
        step_to_py(&step.get_type(), &out)
    })
}

/// Whether the core reads an SDK span in place as it reads the span's SpanRecord.
#[pyfunction]
fn _reads_readable_as(span: &Bound<'_, PyAny>, record: &Bound<'_, PyAny>) -> PyResult<bool> {
    door(|| {
        let in_place = span_from_readable(span, Reads::ALL)?;
        let converted = span_from_record(record)?;
        // Debug text: a NaN attribute equals itself there, as the same Python float does
        Ok(format!("{converted:?}") == format!("{in_place:?}"))
    })
}

/// `str(value)` as the core prints it.
#[pyfunction]
fn _py_str<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    door(|| py_str(&value_from_py(value)?).to_py(value.py()))
}

/// The core's `json.loads(text)`: None where Python raises, else `(value,)` with lossy strings
/// as `(text, True)` and containers past the kept depth as `...`.
#[pyfunction]
fn _json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Option<(Bound<'py, PyAny>,)>> {
    door(|| {
        pyjson::parse(text)
            .map(|json| json_to_py(py, &json).map(|value| (value,)))
            .transpose()
    })
}

fn json_to_py<'py>(py: Python<'py>, json: &Json) -> PyResult<Bound<'py, PyAny>> {
    let text = |s: &pyjson::JsonStr| -> PyResult<Bound<'py, PyAny>> {
        if s.lossy {
            (s.text.as_str(), true).into_bound_py_any(py)
        } else {
            s.text.as_str().into_bound_py_any(py)
        }
    };
    Ok(match json {
        Json::Null => py.None().into_bound(py),
        Json::Bool(b) => b.into_bound_py_any(py)?,
        Json::Int(i) => i.into_bound_py_any(py)?,
        Json::BigInt(digits) => py.get_type::<pyo3::types::PyInt>().call1((digits,))?,
        Json::Float(f) => f.into_bound_py_any(py)?,
        Json::Str(s) => text(s)?,
        Json::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Json::Object(pairs) => {
            let dict = PyDict::new(py);
            for (key, item) in pairs {
                dict.set_item(text(key)?, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
        Json::Deep => py.Ellipsis().into_bound(py),
    })
}

/// Python's `str(value)` of a Value, for the test of `_py_str`'s Python path.
#[pyfunction]
fn _python_str<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    door(|| to_python(value.py(), &value_from_py(value)?)?.str())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_build_step, m)?)?;
    m.add_function(wrap_pyfunction!(_hook, m)?)?;
    m.add_function(wrap_pyfunction!(_as_test_span, m)?)?;
    m.add_function(wrap_pyfunction!(_reads_readable_as, m)?)?;
    m.add_function(wrap_pyfunction!(_py_str, m)?)?;
    m.add_function(wrap_pyfunction!(_python_str, m)?)?;
    m.add_function(wrap_pyfunction!(_json_loads, m)?)?;
    Ok(())
}
