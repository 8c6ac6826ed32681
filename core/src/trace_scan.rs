//! The trace ids in one OTLP `ResourceSpans` message, read without decoding its spans.
//!
//! `agentcov coverage --jobs N` gives each worker a share of a file's bytes; each first scans its
//! share with this, so a trace whose spans sit in several shares is read by one worker only
//! (docs/cli.md). Scanning skips everything but each span's `trace_id`, so it costs a small part
//! of a decode. The answer is a superset of the ids a decoder gives: every `trace_id` value a
//! span holds (a decoder keeps the last), and 0 for a span without one. It walks the bytes with
//! the decoder's [`crate::wire`] reader; anything it cannot vouch for (bad wire data, an id
//! longer than 16 bytes) is an error: the caller then reads the file in one process, and the
//! decoder names the problem.

use std::collections::HashSet;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFrozenSet};

use crate::door::door;
use crate::wire::{Cursor, Error, Result, LEN};

/// Each length-delimited field `number` of a message, in order; other fields are skipped as a
/// decoder skips them (groups included).
fn each<'a>(
    mut c: Cursor<'a>,
    number: u32,
    mut visit: impl FnMut(Cursor<'a>) -> Result<()>,
) -> Result<()> {
    while !c.is_done() {
        match c.tag()? {
            (field, LEN) if field == number => visit(c.len_delimited()?)?,
            (field, wire) => c.skip(field, wire, 1)?,
        }
    }
    Ok(())
}

/// The ids of the spans of one `ResourceSpans` (field 2: ScopeSpans; their field 2: Span; its
/// field 1: trace_id), as big-endian integers like `int.from_bytes(id, "big")`.
pub fn resource_spans(data: &[u8], ids: &mut HashSet<u128>) -> Result<()> {
    each(Cursor::new(data, 0), 2, |scope_spans| {
        each(scope_spans, 2, |span| {
            let mut found = false;
            each(span, 1, |id| {
                let at = id.at();
                let id = id.rest();
                if id.len() > 16 {
                    return Err(Error::new(at, "trace id longer than 16 bytes"));
                }
                ids.insert(id.iter().fold(0u128, |v, &b| (v << 8) | u128::from(b)));
                found = true;
                Ok(())
            })?;
            if !found {
                ids.insert(0);
            }
            Ok(())
        })
    })
}

/// `trace_ids(resource_spans: bytes) -> frozenset[int]`: the trace ids of one serialized
/// ResourceSpans (a superset of what decoding it gives); ValueError when it cannot be scanned.
#[pyfunction]
pub fn trace_ids<'py>(
    py: Python<'py>,
    resource_spans: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyFrozenSet>> {
    door(|| {
        let data = resource_spans.as_bytes();
        let mut ids = HashSet::new();
        py.detach(|| self::resource_spans(data, &mut ids))
            .map_err(|e| PyValueError::new_err(format!("cannot scan the trace ids: {e}")))?;
        PyFrozenSet::new(py, ids)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len_field(number: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![(number << 3) | 2, u8::try_from(body.len()).unwrap()];
        out.extend_from_slice(body);
        out
    }

    fn scan(data: &[u8]) -> Result<Vec<u128>> {
        let mut ids = HashSet::new();
        resource_spans(data, &mut ids)?;
        let mut out: Vec<u128> = ids.into_iter().collect();
        out.sort_unstable();
        Ok(out)
    }

    #[test]
    fn every_span_id_and_zero_for_a_span_without_one() {
        let id = [0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2];
        let span = [len_field(1, &id), vec![0x28, 0x03]].concat(); // trace_id, kind = 3
        let bare = vec![0x28, 0x01]; // no trace_id
        let scope = [
            len_field(1, b"scope"),
            len_field(2, &span),
            len_field(2, &bare),
        ]
        .concat();
        let rs = [len_field(1, b"resource"), len_field(2, &scope)].concat();
        assert_eq!(scan(&rs), Ok(vec![0, 0x0102]));
    }

    #[test]
    fn truncation_groups_and_long_ids_are_refused_not_guessed() {
        let span = len_field(1, &[7u8; 17]);
        let scope = len_field(2, &span);
        assert!(scan(&len_field(2, &scope)).is_err());
        assert!(scan(&[0x12, 0x05, 0x12]).is_err()); // a length past the end
        assert!(scan(&[0x13]).is_err()); // a group never ended
        assert!(
            scan(&[0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
                .is_err()
        );
        assert_eq!(scan(&[]), Ok(vec![]));
    }
}
