//! Classification in the core: a span to a `Step`, equal to the Python classifier
//! (otel_agentcov/semconv/) span for span.

pub mod captured;
pub mod errors;
pub mod fields;
pub mod hooks;
pub mod keys;
pub mod step;
pub mod step_py;
pub mod testspans;
pub mod values;
