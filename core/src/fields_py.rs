//! Test entries of the per-span field rules, called with the Python oracle's own inputs so
//! the tests compare the two span for span (tests/test_core_fields.py). Not public API: the
//! names start with `_`. (`build_step`, which inference calls, is the classifier's: py.rs.)

use crate::classify::hooks::hook;
use crate::classify::py::span_of;
use crate::classify::step_py::{step_from_py, step_to_py};
use crate::classify::testspans::as_test_span;
use crate::door::door;
use crate::pyjson::{self, Json};
use crate::pyrepr::{py_str, to_python};
use crate::records_py::{span_from_readable, span_from_record, value_from_py, Reads};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;

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
    m.add_function(wrap_pyfunction!(_hook, m)?)?;
    m.add_function(wrap_pyfunction!(_as_test_span, m)?)?;
    m.add_function(wrap_pyfunction!(_reads_readable_as, m)?)?;
    m.add_function(wrap_pyfunction!(_py_str, m)?)?;
    m.add_function(wrap_pyfunction!(_python_str, m)?)?;
    m.add_function(wrap_pyfunction!(_json_loads, m)?)?;
    Ok(())
}
