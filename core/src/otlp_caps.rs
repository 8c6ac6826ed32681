//! How many spans and attributes an OTLP request would decode into, counted on the wire before
//! anything is allocated (the service's per-request caps, `RequestLimits`).
//!
//! Decoding allocates per element, not per byte: 2 bytes of protobuf (an empty span) become a
//! span of ~200 bytes, so a small gzip body of empty spans could otherwise grow the service by
//! gigabytes. The walk stops as soon as a cap is passed, so refusing a hostile payload costs no
//! more than accepting a legal one. It counts exactly what the earlier Python pre-scan
//! (`readers/otlp_size.py`) counted, and is as lenient on framing: a malformed payload is left
//! for the decoder to refuse, with its own message.

/// Caps on one request: spans, and attributes (every key-value anywhere, array entry, event and
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

/// The message types whose fields decode into objects.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Message {
    Request,
    ResourceSpans,
    Resource,
    ScopeSpans,
    Scope,
    Span,
    Event,
    Link,
    KeyValue,
    AnyValue,
    Array,
    KvList,
}

/// The child message type of a length-delimited field, if the field holds one.
fn child(message: Message, field: u64) -> Option<Message> {
    use Message::*;
    Some(match (message, field) {
        (Request, 1) => ResourceSpans,
        (ResourceSpans, 1) => Resource,
        (ResourceSpans, 2) => ScopeSpans,
        (Resource, 1) => KeyValue,
        (ScopeSpans, 1) => Scope,
        (ScopeSpans, 2) => Span,
        (Scope, 3) => KeyValue,
        (Span, 9) => KeyValue,
        (Span, 11) => Event,
        (Span, 13) => Link,
        (Event, 3) => KeyValue,
        (Link, 4) => KeyValue,
        (KeyValue, 2) => AnyValue,
        (AnyValue, 5) => Array,
        (AnyValue, 6) => KvList,
        (Array, 1) => AnyValue,
        (KvList, 1) => KeyValue,
        _ => return None,
    })
}

/// A varint at `pos`; a truncated or overlong one reads as a length that ends the message.
fn varint(data: &[u8], mut pos: usize, end: usize) -> (u64, usize) {
    let mut result = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = match data.get(pos) {
            Some(&b) if pos < end && shift <= 63 => b,
            _ => return (end as u64, end),
        };
        pos += 1;
        result |= u64::from(byte & 0x7F) << shift;
        if byte < 0x80 {
            return (result, pos);
        }
        shift += 7;
    }
}

/// Err if the request holds more spans or attributes than `caps` allow. Every field takes at
/// least 2 bytes, so a payload of up to twice a cap cannot pass it: spans are walked past
/// 2 x max_spans bytes (one step per span), their insides only past 2 x max_attributes.
pub fn check(data: &[u8], caps: Caps) -> Result<(), TooLarge> {
    let size = data.len() as u64;
    let deep = size > caps.max_attributes.saturating_mul(2);
    if !deep && size <= caps.max_spans.saturating_mul(2) {
        return Ok(());
    }
    let (mut spans, mut attributes) = (0u64, 0u64);
    // nesting is bounded by the payload (each level takes 2 bytes), and so is this stack
    let mut stack = vec![(Message::Request, 0usize, data.len())];
    while let Some((message, mut pos, end)) = stack.pop() {
        let counted = message == Message::Array;
        while pos < end {
            let (key, next) = varint(data, pos, end);
            pos = next;
            match key & 7 {
                2 => {
                    let (length, next) = varint(data, pos, end);
                    pos = next;
                    let length = usize::try_from(length).unwrap_or(usize::MAX);
                    if let Some(kind) = child(message, key >> 3) {
                        if kind == Message::Span {
                            spans += 1;
                            if spans > caps.max_spans {
                                return Err(TooLarge::Spans(caps.max_spans));
                            }
                            if !deep {
                                pos = pos.saturating_add(length);
                                continue;
                            }
                        } else if counted
                            || matches!(kind, Message::KeyValue | Message::Event | Message::Link)
                        {
                            attributes += 1;
                            if attributes > caps.max_attributes {
                                return Err(TooLarge::Attributes(caps.max_attributes));
                            }
                        }
                        stack.push((kind, pos, pos.saturating_add(length).min(end)));
                    }
                    pos = pos.saturating_add(length);
                }
                0 => {
                    while data.get(pos).is_some_and(|&b| pos < end && b >= 0x80) {
                        pos += 1;
                    }
                    pos += 1;
                }
                1 => pos += 8,
                5 => pos += 4,
                _ => break, // groups and bad wire types: the decoder says what is wrong
            }
        }
    }
    Ok(())
}
