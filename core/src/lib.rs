//! `otel_agentcov._core`: the per-span work of otel_agentcov, compiled (docs/core.md).
//!
//! Python keeps what is per run (judge, state, snapshot, reports, exporters, service, CLI); this
//! crate does what is per span, on bytes, with the GIL released where it can be.

use pyo3::prelude::*;

pub mod classify;
pub mod door;
mod fields_py;
pub mod inference;
pub mod inference_attrs;
pub mod inference_infer;
pub mod name_affix;
pub mod otlp_caps;
mod otlp_events;
pub mod otlp_logs;
pub mod otlp_pb;
mod otlp_py;
mod otlp_records;
pub mod pyclass_table;
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
    door::register(m)?;
    otlp_records::register(m)?;
    m.add_class::<classify::py::Classifier>()?;
    m.add_function(wrap_pyfunction!(classify::root::local_root_py, m)?)?;
    m.add_function(wrap_pyfunction!(classify::py::handoff_py, m)?)?;
    m.add_function(wrap_pyfunction!(classify::py::outcome_py, m)?)?;
    fields_py::register(m)?;
    inference::register(m)?;
    inference_attrs::register(m)?;
    inference_infer::register(m)?;
    name_affix::register(m)?;
    m.add_function(wrap_pyfunction!(sdk_py::sdk_step, m)?)?;
    otlp_py::register(m)?;
    otlp_events::register(m)?;
    trials::register(m)?;
    m.add_function(wrap_pyfunction!(trace_scan::trace_ids, m)?)?;
    Ok(())
}
