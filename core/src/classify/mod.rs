//! Classification: one span to one Step by the convention tables (docs/conventions.md).
//!
//! The tables are data (`semconv/tables/*.json` and a spec's `conventions:`), validated in
//! Python against one schema (semconv/convention.py) and interpreted here, the one engine; the
//! Python `Table` stays as the reference the tests compare this one with.

mod casefold;
mod casefold_table;
mod entry;
mod glob;
mod matching;
mod pattern;
pub mod py;
mod rule;
mod source;
mod table;
