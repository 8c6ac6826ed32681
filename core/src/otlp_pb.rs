//! OTLP trace protobuf (`ExportTraceServiceRequest`, `TracesData`) -> [`Span`]s, hand-written.
//!
//! A walk over the wire format ([`crate::wire`]) that keeps only what `records.SpanRecord`
//! holds, with the outcome of upb (the `protobuf` package, which the Python reader used before)
//! on every input: every field of the schema (opentelemetry-proto 1.x) is read with its type,
//! so a string field that is not UTF-8 is refused even where nothing reads it (trace state,
//! schema URLs, links, scope attributes); a known field sent with another wire type is an
//! unknown field, skipped; a singular message given twice is merged (a resource, a scope, a
//! status, an attribute's value, an array or key-value list in a row); a oneof keeps its last
//! member. Spans are returned in payload order; their resource and scope are those of the whole
//! enclosing message, as upb gives them once it has parsed it all.
//!
//! No parse check is left for later, but one: a span id of the wrong length is reported only
//! if its span is kept (`--jobs` filters by trace id first), so it travels with the span.

use std::sync::Arc;

use crate::otlp_caps::Budget;
use crate::span::{Attributes, Event, Span, Value};
use crate::wire::{nested, Cursor, Error, Result, I32, I64, LEN, VARINT};

/// Where a message sits in its payload, for error places: `resourceSpans[r].scopeSpans[s]`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Path {
    pub resource: usize,
    pub scope: usize,
}

impl Path {
    fn resource_spans(self) -> String {
        format!("resourceSpans[{}]", self.resource)
    }

    fn scope_spans(self) -> String {
        format!("{}.scopeSpans[{}]", self.resource_spans(), self.scope)
    }
}

/// The raw trace id and the message for a span whose ids have lengths OTLP does not allow
/// (16 and 8 bytes, or empty); the Python reader raises it only for a span it keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct BadIds {
    pub trace_id: Vec<u8>,
    pub message: String,
}

/// One span as decoded, with its id problem if it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub span: Span,
    pub bad_ids: Option<Box<BadIds>>,
}

// SpanFlags: bit 8 says whether bit 9 (parent is remote) is known
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// Every span of an `ExportTraceServiceRequest` (or `TracesData`: the same field 1).
pub fn request(data: &[u8], base: usize, out: &mut Vec<Decoded>, b: &mut Budget) -> Result<()> {
    let mut c = Cursor::new(data, base);
    let mut r = 0;
    while !c.is_done() {
        let (field, wire) = c.tag()?;
        if field == 1 && wire == LEN {
            let path = Path {
                resource: r,
                scope: 0,
            };
            let body = c.len_delimited()?;
            resource_spans(body, 1, path, out, b).map_err(|e| e.within(path.resource_spans()))?;
            r += 1;
        } else {
            c.skip(field, wire, 0)?;
        }
    }
    Ok(())
}

/// Every span of one `ResourceSpans` message: `path.resource` is its index in the request.
pub fn resource_spans_message(
    data: &[u8],
    base: usize,
    path: Path,
    out: &mut Vec<Decoded>,
    b: &mut Budget,
) -> Result<()> {
    resource_spans(Cursor::new(data, base), 0, path, out, b)
        .map_err(|e| e.within(path.resource_spans()))
}

fn resource_spans(
    mut c: Cursor,
    depth: u32,
    path: Path,
    out: &mut Vec<Decoded>,
    b: &mut Budget,
) -> Result<()> {
    let first = out.len();
    let mut resource = Attributes::default();
    let mut s = 0;
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => {
                let depth = nested(depth, at)?;
                resource_into(c.len_delimited()?, depth, &mut resource, b)
                    .map_err(|e| e.within("resource"))?;
            }
            (2, LEN) => {
                let path = Path { scope: s, ..path };
                let body = c.len_delimited()?;
                scope_spans(body, nested(depth, at)?, path, out, b)
                    .map_err(|e| e.within(format!("scopeSpans[{s}]")))?;
                s += 1;
            }
            (3, LEN) => drop(c.string()?), // schema_url
            _ => c.skip(field, wire, depth)?,
        }
    }
    let resource = Arc::new(resource);
    for decoded in out.get_mut(first..).unwrap_or_default() {
        decoded.span.resource_attributes = Arc::clone(&resource);
    }
    Ok(())
}

/// The attributes of a `Resource` message (read on its own by the file reader's walk).
pub fn resource_message(data: &[u8], base: usize, b: &mut Budget) -> Result<Attributes> {
    let mut attributes = Attributes::default();
    resource_into(Cursor::new(data, base), 0, &mut attributes, b)
        .map_err(|e| e.within("resource"))?;
    Ok(attributes)
}

fn resource_into(
    mut c: Cursor,
    depth: u32,
    attributes: &mut Attributes,
    b: &mut Budget,
) -> Result<()> {
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => key_value_into(c.len_delimited()?, nested(depth, at)?, attributes, b)
                .map_err(|e| e.within(format!("attributes[{}]", attributes.0.len())))?,
            (2, VARINT) => drop(c.varint()?), // dropped_attributes_count
            (3, LEN) => entity_ref(c.len_delimited()?, nested(depth, at)?)
                .map_err(|e| e.within("entityRefs"))?,
            _ => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

/// An `EntityRef`: nothing is kept, but its strings must be UTF-8 for the payload to parse.
fn entity_ref(mut c: Cursor, depth: u32) -> Result<()> {
    while !c.is_done() {
        match c.tag()? {
            (1..=4, LEN) => drop(c.string()?),
            (field, wire) => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

/// Every span of one `ScopeSpans` message; its resource is set by the caller.
pub fn scope_spans_message(
    data: &[u8],
    base: usize,
    path: Path,
    out: &mut Vec<Decoded>,
    b: &mut Budget,
) -> Result<()> {
    scope_spans(Cursor::new(data, base), 0, path, out, b).map_err(|e| e.within(path.scope_spans()))
}

fn scope_spans(
    mut c: Cursor,
    depth: u32,
    path: Path,
    out: &mut Vec<Decoded>,
    b: &mut Budget,
) -> Result<()> {
    let first = out.len();
    let mut scope_name = String::new();
    let mut i = 0;
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => scope_into(c.len_delimited()?, nested(depth, at)?, &mut scope_name, b)
                .map_err(|e| e.within("scope"))?,
            (2, LEN) => {
                let body = c.len_delimited()?;
                out.push(
                    span(body, nested(depth, at)?, path, i, b)
                        .map_err(|e| e.within(format!("spans[{i}]")))?,
                );
                i += 1;
            }
            (3, LEN) => drop(c.string()?), // schema_url
            _ => c.skip(field, wire, depth)?,
        }
    }
    let scope_name: Arc<str> = Arc::from(scope_name);
    for decoded in out.get_mut(first..).unwrap_or_default() {
        decoded.span.scope_name = Arc::clone(&scope_name);
    }
    Ok(())
}

/// The name of an `InstrumentationScope` message (read on its own by the file reader's walk).
pub fn scope_message(data: &[u8], base: usize, b: &mut Budget) -> Result<String> {
    let mut name = String::new();
    scope_into(Cursor::new(data, base), 0, &mut name, b).map_err(|e| e.within("scope"))?;
    Ok(name)
}

fn scope_into(mut c: Cursor, depth: u32, name: &mut String, b: &mut Budget) -> Result<()> {
    let mut ignored = Attributes::default();
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => c.string()?.clone_into(name),
            (2, LEN) => drop(c.string()?), // version
            (3, LEN) => key_value_into(c.len_delimited()?, nested(depth, at)?, &mut ignored, b)
                .map_err(|e| e.within("attributes"))?,
            (4, VARINT) => drop(c.varint()?),
            _ => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

/// One `Span` message on its own (the file reader's walk of a huge ScopeSpans); `index` is its
/// place in the ScopeSpans. Its scope and resource are set by the caller.
pub fn span_message(
    data: &[u8],
    base: usize,
    path: Path,
    index: usize,
    b: &mut Budget,
) -> Result<Decoded> {
    span(Cursor::new(data, base), 0, path, index, b)
        .map_err(|e| e.within(format!("{}.spans[{index}]", path.scope_spans())))
}

fn span(mut c: Cursor, depth: u32, path: Path, index: usize, b: &mut Budget) -> Result<Decoded> {
    b.span(c.at())?;
    let (mut trace_id, mut span_id, mut parent_id): (&[u8], &[u8], &[u8]) = (&[], &[], &[]);
    let mut name = String::new();
    let (mut kind, mut start_ns, mut end_ns, mut flags) = (0i32, 0u64, 0u64, 0u32);
    let (mut status_code, mut status_message) = (0i32, String::new());
    let mut attributes = Attributes::default();
    let mut events = Vec::new();
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => trace_id = c.bytes()?,
            (2, LEN) => span_id = c.bytes()?,
            (3, LEN) => drop(c.string()?), // trace_state
            (4, LEN) => parent_id = c.bytes()?,
            (5, LEN) => c.string()?.clone_into(&mut name),
            (6, VARINT) => kind = c.varint()? as i32, // an int32 enum: upb keeps the low 32 bits
            (7, I64) => start_ns = c.fixed64()?,
            (8, I64) => end_ns = c.fixed64()?,
            (9, LEN) => key_value_into(c.len_delimited()?, nested(depth, at)?, &mut attributes, b)
                .map_err(|e| e.within(format!("attributes[{}]", attributes.0.len())))?,
            (11, LEN) => {
                let n = events.len();
                events.push(
                    event(c.len_delimited()?, nested(depth, at)?, b)
                        .map_err(|e| e.within(format!("events[{n}]")))?,
                );
            }
            (13, LEN) => {
                link(c.len_delimited()?, nested(depth, at)?, b).map_err(|e| e.within("links"))?
            }
            (15, LEN) => status_into(
                c.len_delimited()?,
                nested(depth, at)?,
                &mut status_code,
                &mut status_message,
            )
            .map_err(|e| e.within("status"))?,
            (16, I32) => flags = c.fixed32()?,
            (10 | 12 | 14, VARINT) => drop(c.varint()?), // dropped counts
            _ => c.skip(field, wire, depth)?,
        }
    }
    let bad_ids = id_problem(trace_id, span_id, parent_id, path, index);
    let parent = id64(parent_id);
    Ok(Decoded {
        span: Span {
            trace_id: id128(trace_id),
            span_id: id64(span_id),
            parent_id: (parent != 0).then_some(parent),
            name,
            // OTLP counts UNSPECIFIED as 0; the SDK (and so SpanRecord) counts INTERNAL as 0
            kind: kind.saturating_sub(1).max(0),
            start_ns: start_ns.into(),
            end_ns: end_ns.into(),
            status_code,
            status_description: (!status_message.is_empty()).then_some(status_message),
            attributes,
            events,
            scope_name: Arc::from(""),
            resource_attributes: Arc::default(),
            parent_remote: flags & HAS_IS_REMOTE != 0 && flags & IS_REMOTE != 0,
        },
        bad_ids,
    })
}

/// The reader's message for the first id of a length OTLP does not allow, in its order.
fn id_problem(
    trace_id: &[u8],
    span_id: &[u8],
    parent_id: &[u8],
    path: Path,
    index: usize,
) -> Option<Box<BadIds>> {
    let wrong = [
        ("traceId", trace_id, 16),
        ("spanId", span_id, 8),
        ("parentSpanId", parent_id, 8),
    ]
    .into_iter()
    .find(|(_, id, size)| !id.is_empty() && id.len() != *size)?;
    let (field, id, size) = wrong;
    Some(Box::new(BadIds {
        trace_id: trace_id.to_vec(),
        message: format!(
            "{}.spans[{index}].{field}: expected a {size}-byte id, got {} bytes",
            path.scope_spans(),
            id.len()
        ),
    }))
}

/// A big-endian id of at most 16 bytes (a longer one is a [`BadIds`]: its value is unused).
fn id128(id: &[u8]) -> u128 {
    id.iter().take(16).fold(0, |n, &b| (n << 8) | u128::from(b))
}

fn id64(id: &[u8]) -> u64 {
    id.iter().take(8).fold(0, |n, &b| (n << 8) | u64::from(b))
}

fn event(mut c: Cursor, depth: u32, b: &mut Budget) -> Result<Event> {
    b.attribute(c.at())?;
    let mut name = String::new();
    let mut attributes = Attributes::default();
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, I64) => drop(c.fixed64()?), // time_unix_nano
            (2, LEN) => c.string()?.clone_into(&mut name),
            (3, LEN) => key_value_into(c.len_delimited()?, nested(depth, at)?, &mut attributes, b)
                .map_err(|e| e.within(format!("attributes[{}]", attributes.0.len())))?,
            (4, VARINT) => drop(c.varint()?),
            _ => c.skip(field, wire, depth)?,
        }
    }
    Ok(Event { name, attributes })
}

/// A `Link`: nothing is kept, but it must parse (UTF-8 trace state, well-formed attributes).
fn link(mut c: Cursor, depth: u32, b: &mut Budget) -> Result<()> {
    b.attribute(c.at())?;
    let mut ignored = Attributes::default();
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1 | 2, LEN) => drop(c.bytes()?),
            (3, LEN) => drop(c.string()?),
            (4, LEN) => key_value_into(c.len_delimited()?, nested(depth, at)?, &mut ignored, b)
                .map_err(|e| e.within("attributes"))?,
            (5, VARINT) => drop(c.varint()?),
            (6, I32) => drop(c.fixed32()?),
            _ => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

fn status_into(mut c: Cursor, depth: u32, code: &mut i32, message: &mut String) -> Result<()> {
    while !c.is_done() {
        match c.tag()? {
            (2, LEN) => c.string()?.clone_into(message),
            (3, VARINT) => *code = c.varint()? as i32,
            (field, wire) => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

/// One `KeyValue`, appended: a key given twice is kept twice and reads as its last value
/// ([`Attributes::get`]), as the dict the Python reader builds does.
fn key_value_into(
    mut c: Cursor,
    depth: u32,
    attributes: &mut Attributes,
    b: &mut Budget,
) -> Result<()> {
    b.attribute(c.at())?;
    let mut key = String::new();
    let mut value = Value::None;
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => c.string()?.clone_into(&mut key),
            (2, LEN) => any_value_into(c.len_delimited()?, nested(depth, at)?, &mut value, b)
                .map_err(|e| e.within("value"))?,
            (3, VARINT) => drop(c.varint()?), // key_strindex (profiles' string table)
            _ => c.skip(field, wire, depth)?,
        }
    }
    attributes.0.push((key, value));
    Ok(())
}

/// An `AnyValue`, merged into `value`: the oneof's last member wins, and an array or key-value
/// list following one of its own kind extends it, as protobuf merges a repeated message field.
fn any_value_into(mut c: Cursor, depth: u32, value: &mut Value, b: &mut Budget) -> Result<()> {
    while !c.is_done() {
        let at = c.at();
        let (field, wire) = c.tag()?;
        match (field, wire) {
            (1, LEN) => *value = Value::Str(c.string()?.into()),
            (2, VARINT) => *value = Value::Bool(c.varint()? != 0),
            (3, VARINT) => *value = Value::Int(c.varint()? as i64),
            (4, I64) => *value = Value::Double(f64::from_bits(c.fixed64()?)),
            (5, LEN) => {
                if !matches!(value, Value::Array(_)) {
                    *value = Value::Array(Vec::new());
                }
                if let Value::Array(items) = value {
                    array_into(c.len_delimited()?, nested(depth, at)?, items, b)
                        .map_err(|e| e.within("arrayValue"))?;
                }
            }
            (6, LEN) => {
                if !matches!(value, Value::KvList(_)) {
                    *value = Value::KvList(Attributes::default());
                }
                if let Value::KvList(entries) = value {
                    kv_list_into(c.len_delimited()?, nested(depth, at)?, entries, b)
                        .map_err(|e| e.within("kvlistValue"))?;
                }
            }
            (7, LEN) => *value = Value::Bytes(c.bytes()?.to_vec()),
            // string_value_strindex: an int32 index into a profile's string table; the Python
            // reader gave it as the integer it is
            (8, VARINT) => *value = Value::Int(i64::from(c.varint()? as i32)),
            _ => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

fn array_into(mut c: Cursor, depth: u32, items: &mut Vec<Value>, b: &mut Budget) -> Result<()> {
    while !c.is_done() {
        let at = c.at();
        match c.tag()? {
            (1, LEN) => {
                let mut item = Value::None;
                let body = c.len_delimited()?;
                b.attribute(body.at())?;
                any_value_into(body, nested(depth, at)?, &mut item, b)
                    .map_err(|e| e.within(format!("values[{}]", items.len())))?;
                items.push(item);
            }
            (field, wire) => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

fn kv_list_into(mut c: Cursor, depth: u32, entries: &mut Attributes, b: &mut Budget) -> Result<()> {
    while !c.is_done() {
        let at = c.at();
        match c.tag()? {
            (1, LEN) => key_value_into(c.len_delimited()?, nested(depth, at)?, entries, b)
                .map_err(|e| e.within(format!("values[{}]", entries.0.len())))?,
            (field, wire) => c.skip(field, wire, depth)?,
        }
    }
    Ok(())
}

/// Errors as the Python reader words them: what is wrong, at which byte, in which element.
pub fn describe(error: &Error, message: &str) -> String {
    format!("not an OTLP {message} ({error})")
}
