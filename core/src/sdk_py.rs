//! The in-process front door in the core: an SDK `ReadableSpan` read in place and classified,
//! what `CoverageEngine.to_step` gives for its SpanRecord (engine.py), without building the
//! SpanRecord in Python (docs/processor.md).

use crate::classify::keys;
use crate::classify::py::{Classifier, Outcome};
use crate::door::door;
use crate::otlp_records::Builder;
use crate::records_py::{span_from_readable, Reads};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

/// `CoverageEngine.to_step` for an SDK span (of any layout, holding any value): a drop reason,
/// or `(step, local_root)`. Content and unmatched shapes need the SpanRecord: the caller asks
/// for neither here. With `unmatched`, a span no entry matched comes as
/// `(step, local_root, record)`, its SpanRecord built here: inference reads it, as it reads
/// the fused OTLP reader's (`Classifier.otlp_steps`).
#[pyfunction]
#[pyo3(signature = (classifier, span, state_attributes, unmatched=false))]
pub fn sdk_step<'py>(
    classifier: &Classifier,
    span: &Bound<'py, PyAny>,
    state_attributes: Vec<String>,
    unmatched: bool,
) -> PyResult<Bound<'py, PyAny>> {
    door(|| {
        let py = span.py();
        // the tables read span attributes only; events are read by the field rules alone (a
        // resource is converted whole, once: records_py::sdk_resource)
        let reads = Reads {
            event: &keys::event_key,
            ..Reads::ALL
        };
        let span = span_from_readable(span, reads)?;
        match classifier.outcome(&span, &state_attributes) {
            Outcome::Dropped(reason) => reason.into_bound_py_any(py),
            Outcome::Classified(step, local_root, false) if unmatched => {
                let record = Builder::new(py, None, None, None)?.build(&span)?;
                (classifier.step_to_py(py, &step)?, local_root, record).into_bound_py_any(py)
            }
            Outcome::Classified(step, local_root, _) => {
                (classifier.step_to_py(py, &step)?, local_root).into_bound_py_any(py)
            }
        }
    })
}
