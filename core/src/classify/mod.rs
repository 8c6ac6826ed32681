//! Classification: one span to one Step by the convention tables (docs/conventions.md), equal
//! to the Python classifier (otel_agentcov/semconv/) span for span.
//!
//! The tables are data (`semconv/tables/*.json` and a spec's `conventions:`), validated in
//! Python against one schema (semconv/convention.py) and interpreted here, the one engine
//! (`table`, `rule`, `matching`, `source`); the field rules every entry shares and the built-in
//! families' code are `fields` and `hooks`. The Python `Table` stays as the reference the tests
//! compare this one with.

mod casefold;
mod casefold_table;
mod entry;
mod glob;
mod limits;
mod matching;
mod pattern;
pub mod py;
mod rule;
mod source;
mod table;

pub mod captured;
pub mod errors;
pub mod fields;
pub mod hooks;
pub mod keys;
pub mod root;
pub mod step;
pub mod step_py;
pub mod testspans;
pub mod values;
