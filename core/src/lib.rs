//! `otel_agentcov._core`: the per-span work of otel_agentcov, compiled (docs/core.md).
//!
//! Python keeps what is per run (judge, state, snapshot, reports, exporters, service, CLI); this
//! crate does what is per span, on bytes, with the GIL released where it can be.

use pyo3::prelude::*;

pub mod classify;
mod fields_py;
pub mod otlp_caps;
pub mod otlp_pb;
mod otlp_py;
mod otlp_records;
pub mod pyjson;
pub mod pyrepr;
pub mod pystr;
pub mod records_py;
mod sdk_py;
pub mod span;
pub mod stable_hash;
pub mod trace_scan;
pub mod trials;
pub mod wire;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // a panic reaches Python as this BaseException, past `except Exception`: exported so every
    // caller can name it and treat it as the bad input it met (docs/core.md)
    m.add(
        "PanicException",
        m.py().get_type::<pyo3::panic::PanicException>(),
    )?;
    m.add_class::<classify::py::Classifier>()?;
    fields_py::register(m)?;
    m.add_function(wrap_pyfunction!(sdk_py::sdk_step, m)?)?;
    otlp_py::register(m)?;
    trials::register(m)?;
    m.add_function(wrap_pyfunction!(trace_scan::trace_ids, m)?)?;
    Ok(())
}
