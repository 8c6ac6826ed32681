//! The trace ids in one OTLP `ResourceSpans` message, read without decoding its spans.
//!
//! `agentcov coverage --jobs N` gives each worker a share of a file's bytes; each first scans its
//! share with this, so a trace whose spans sit in several shares is read by one worker only
//! (docs/cli.md). Scanning skips everything but each span's `trace_id`, so it costs a small part
//! of a decode. The answer is a superset of the ids a decoder gives: every `trace_id` value a
//! span holds (a decoder keeps the last), and 0 for a span without one. Anything this walk cannot
//! vouch for (truncation, a group, an id longer than 16 bytes) is an error: the caller then reads
//! the file another way, and the decoder names the problem.

use std::collections::HashSet;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFrozenSet};

const VARINT: u64 = 0;
const I64: u64 = 1;
const LEN: u64 = 2;
const I32: u64 = 5;

/// Where the scan stopped and why, relative to the start of the message.
#[derive(Debug, PartialEq)]
pub struct Malformed(pub usize);

/// A field's number, and its bytes when it is length-delimited.
type Field<'a> = (u64, Option<&'a [u8]>);

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn varint(&mut self) -> Result<u64, Malformed> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.data.get(self.pos).ok_or(Malformed(self.pos))?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(Malformed(self.pos))
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], Malformed> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n))
            .filter(|&end| end <= self.data.len())
            .ok_or(Malformed(self.pos))?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// The next field's number and wire type, with its bytes for a length-delimited one
    /// (other values are skipped); None at the end of the message.
    fn field(&mut self) -> Result<Option<Field<'a>>, Malformed> {
        if self.pos == self.data.len() {
            return Ok(None);
        }
        let at = self.pos;
        let tag = self.varint()?;
        let value = match tag & 7 {
            VARINT => self.varint().map(|_| None)?,
            I64 => self.take(8).map(|_| None)?,
            LEN => {
                let n = self.varint()?;
                Some(self.take(n)?)
            }
            I32 => self.take(4).map(|_| None)?,
            _ => return Err(Malformed(at)), // groups, or not protobuf
        };
        Ok(Some((tag >> 3, value)))
    }
}

/// Each length-delimited field `number` of a message, in order.
fn each<'a>(
    data: &'a [u8],
    number: u64,
    mut visit: impl FnMut(&'a [u8]) -> Result<(), Malformed>,
) -> Result<(), Malformed> {
    let mut c = Cursor { data, pos: 0 };
    while let Some((field, value)) = c.field()? {
        if let (true, Some(bytes)) = (field == number, value) {
            let start = c.pos - bytes.len();
            visit(bytes).map_err(|Malformed(at)| Malformed(start + at))?;
        }
    }
    Ok(())
}

/// The ids of the spans of one `ResourceSpans` (field 2: ScopeSpans; their field 2: Span; its
/// field 1: trace_id), as big-endian integers like `int.from_bytes(id, "big")`.
pub fn resource_spans(data: &[u8], ids: &mut HashSet<u128>) -> Result<(), Malformed> {
    each(data, 2, |scope_spans| {
        each(scope_spans, 2, |span| {
            let mut found = false;
            each(span, 1, |id| {
                if id.len() > 16 {
                    return Err(Malformed(0));
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
    let data = resource_spans.as_bytes();
    let mut ids = HashSet::new();
    py.detach(|| self::resource_spans(data, &mut ids))
        .map_err(|Malformed(at)| {
            PyValueError::new_err(format!("cannot scan the trace ids: byte {at}"))
        })?;
    PyFrozenSet::new(py, ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len_field(number: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![(number << 3) | 2, u8::try_from(body.len()).unwrap()];
        out.extend_from_slice(body);
        out
    }

    fn scan(data: &[u8]) -> Result<Vec<u128>, Malformed> {
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
        assert!(scan(&[0x13]).is_err()); // a group's start
        assert!(
            scan(&[0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
                .is_err()
        );
        assert_eq!(scan(&[]), Ok(vec![]));
    }
}
