//! Caps on how many spans and attributes one OTLP payload decodes into, charged by the decoder
//! itself as it decodes (the service's per-request caps, `RequestLimits`, and the file reader's
//! per-call caps).
//!
//! Decoding allocates per element, not per byte: 2 bytes of protobuf (an empty span) become a
//! span of ~200 bytes, so a small gzip body of empty spans could otherwise grow the process by
//! gigabytes. The decoder ([`crate::otlp_pb`]) charges each span, key-value (at any depth),
//! array entry, event and link to a [`Budget`] before decoding it, so what is counted is exactly
//! what is decoded: no second walk can read the bytes another way (a walk that stopped at a
//! group-typed field once let a 4-byte group switch the caps off). Past a cap the decode stops,
//! so refusing a hostile payload costs no more than accepting a legal one.

use crate::wire::Error;

/// Caps on one payload: spans, and attributes (every key-value anywhere, array entry, event and
/// link).
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub max_spans: u64,
    pub max_attributes: u64,
}

/// Which cap a payload passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TooLarge {
    Spans(u64),
    Attributes(u64),
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TooLarge::Spans(n) => write!(f, "more than {n} spans"),
            TooLarge::Attributes(n) => write!(f, "more than {n} attributes"),
        }
    }
}

/// What one decode may still allocate; no caps: unlimited. The decoder charges it before each
/// element, and the first charge past a cap fails the decode with an error the caller reads
/// back as [`Budget::passed`].
#[derive(Debug)]
pub struct Budget {
    caps: Option<Caps>,
    spans: u64,
    attributes: u64,
    passed: Option<TooLarge>,
}

impl Budget {
    pub fn new(caps: Option<Caps>) -> Self {
        Budget {
            caps,
            spans: 0,
            attributes: 0,
            passed: None,
        }
    }

    /// One more span, about to be decoded at byte `at`.
    pub fn span(&mut self, at: usize) -> Result<(), Error> {
        self.spans += 1;
        match self.caps {
            Some(caps) if self.spans > caps.max_spans => {
                self.fail(at, TooLarge::Spans(caps.max_spans))
            }
            _ => Ok(()),
        }
    }

    /// One more attribute (key-value, array entry, event or link), about to be decoded at `at`.
    pub fn attribute(&mut self, at: usize) -> Result<(), Error> {
        self.attributes += 1;
        match self.caps {
            Some(caps) if self.attributes > caps.max_attributes => {
                self.fail(at, TooLarge::Attributes(caps.max_attributes))
            }
            _ => Ok(()),
        }
    }

    fn fail(&mut self, at: usize, why: TooLarge) -> Result<(), Error> {
        self.passed = Some(why);
        Err(Error::new(at, "past a cap"))
    }

    /// The cap the decode passed, if it stopped at one (its error is then only the unwinding).
    pub fn passed(&self) -> Option<TooLarge> {
        self.passed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otlp_pb::{request, Decoded};

    fn len_field(number: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![(number << 3) | 2];
        let mut n = body.len();
        loop {
            let byte = (n & 0x7F) as u8;
            n >>= 7;
            out.push(if n > 0 { byte | 0x80 } else { byte });
            if n == 0 {
                break;
            }
        }
        out.extend_from_slice(body);
        out
    }

    /// A request of one ScopeSpans: `before` its spans, then `n` empty spans.
    fn request_of(before: &[u8], n: usize) -> Vec<u8> {
        let spans: Vec<u8> = (0..n).flat_map(|_| len_field(2, b"")).collect();
        len_field(1, &len_field(2, &[before, &spans].concat()))
    }

    fn decode(data: &[u8], caps: Option<Caps>) -> (Vec<Decoded>, Option<TooLarge>) {
        let mut budget = Budget::new(caps);
        let mut out = Vec::new();
        let result = request(data, 0, &mut out, &mut budget);
        assert_eq!(result.is_err(), budget.passed().is_some(), "{result:?}");
        (out, budget.passed())
    }

    const CAPS: Caps = Caps {
        max_spans: 3,
        max_attributes: 5,
    };

    #[test]
    fn a_group_the_decoder_skips_does_not_switch_the_span_cap_off() {
        // field 15 as a group holding a varint field 1, then its end: 4 bytes the decoder skips
        let group = [0x7B, 0x08, 0x01, 0x7C];
        assert_eq!(decode(&request_of(&group, 4), None).0.len(), 4);
        assert_eq!(decode(&request_of(&group, 3), Some(CAPS)).0.len(), 3);
        assert_eq!(
            decode(&request_of(&group, 4), Some(CAPS)).1,
            Some(TooLarge::Spans(3))
        );
        // the decode stops at the span past the cap: no more than the cap is ever held
        assert_eq!(decode(&request_of(&group, 100_000), Some(CAPS)).0.len(), 3);
    }

    #[test]
    fn attributes_are_counted_at_any_depth_after_a_group() {
        let kv = len_field(1, b"k");
        // one span: a group, then 2 key-values, one holding an array of 2 entries = 4 attributes
        let array = len_field(5, &[len_field(1, b""), len_field(1, b"")].concat());
        let nested = [len_field(1, b"a"), len_field(2, &array)].concat();
        let span = [vec![0x7B, 0x7C], len_field(9, &kv), len_field(9, &nested)].concat();
        let data = len_field(1, &len_field(2, &len_field(2, &span)));
        let exact = Caps {
            max_attributes: 4,
            ..CAPS
        };
        assert_eq!(decode(&data, Some(exact)).1, None);
        let tighter = Caps {
            max_attributes: 3,
            ..CAPS
        };
        assert_eq!(
            decode(&data, Some(tighter)).1,
            Some(TooLarge::Attributes(3))
        );
    }

    #[test]
    fn a_malformed_payload_is_malformed_not_too_large() {
        let mut budget = Budget::new(Some(CAPS));
        let mut out = Vec::new();
        let error = request(&[0x0A, 0x05, 0x12], 0, &mut out, &mut budget).unwrap_err();
        assert_eq!(budget.passed(), None);
        assert_eq!(error.what, "length-delimited field runs past its message");
    }
}
