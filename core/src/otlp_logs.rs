//! OTLP logs protobuf (`ExportLogsServiceRequest`, `LogsData`) -> the log records that carry a
//! decision, state or guardrail event (docs/instrumentations.md#events), read on the wire.
//!
//! Only the fields `semconv/events.py` reads are decoded: a record's event name, trace and span
//! ids, times, and of its attributes those whose key is asked for, when their value has the
//! shape asked (a string; an integer for the key count; an array of strings for the key
//! names). A record's body and every other attribute value are skipped undecoded, so a prompt in
//! a log record never even becomes a string. Log records are walked, not parsed whole: a parser
//! allocates per element (8 MB of empty records once took 513 MB before the caps were counted),
//! here only our records are kept and the caps stop the walk as they pass. The walk is the one
//! the Python reader made before it moved here (tests/_logs_oracle.py, the oracle it is tested
//! equal to), with its errors.

const VARINT: u8 = 0;
const I64: u8 = 1;
const LEN: u8 = 2;
const I32: u8 = 5;

/// Why bytes are refused: not a logs request (the detail, for one line), or past a cap.
#[derive(Debug, PartialEq)]
pub enum Error {
    NotLogs(String),
    TooLarge(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotLogs(detail) => write!(f, "not an OTLP logs request ({detail})"),
            Error::TooLarge(why) => f.write_str(why),
        }
    }
}

type Result<T> = std::result::Result<T, Error>;

/// What to read: the event names kept, the attribute keys read, the two keys read as a count
/// and as key names (at most `max_keys` of them), and the caps (records, attributes).
pub struct Ask<'a> {
    pub names: &'a [String],
    pub keys: &'a [String],
    pub name_key: &'a str,
    pub count_key: &'a str,
    pub keys_key: &'a str,
    pub max_keys: usize,
    pub caps: Option<(u64, u64)>,
}

/// A read attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Read {
    Str(String),
    Count(u128),
    /// the key names, or None when one is no string or there are more than `max_keys`
    Keys(Option<Vec<String>>),
}

/// One log record holding an event of ours.
#[derive(Debug, PartialEq)]
pub struct Record {
    /// its own `event_name` field, if given (`event.name` may be among the attributes)
    pub name: Option<String>,
    /// read attributes in first-seen order, each with its last value
    pub attributes: Vec<(String, Read)>,
    pub trace_id: u128,
    pub span_id: u64,
    /// its time, else its observed time
    pub time_ns: u64,
    /// the `service.name` of its resource, when that is a string
    pub service: Option<String>,
}

/// A varint at `pos` of `data` (reading on past a message's end, as the walk always did): the
/// value and the position after it, None when the bytes run out or it passes 10 bytes.
fn varint(data: &[u8], mut pos: usize) -> (Option<u128>, usize) {
    let (mut result, mut shift) = (0u128, 0u32);
    while pos < data.len() && shift < 64 {
        let byte = data[pos];
        pos += 1;
        result |= u128::from(byte & 0x7F) << shift;
        if byte < 0x80 {
            return (Some(result), pos);
        }
        shift += 7;
    }
    (None, pos)
}

/// One field: its number, wire type, and its bytes `start..end` (a varint's value in `value`).
#[derive(Clone, Copy)]
struct Field {
    number: u128,
    wire: u8,
    start: usize,
    end: usize,
    value: u128,
}

/// The fields of the message in `data[pos..end]`, one at a time (a refusal ends the walk).
struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

fn fields(data: &[u8], pos: usize, end: usize) -> Fields<'_> {
    Fields { data, pos, end }
}

fn refused<T>(detail: String) -> Result<T> {
    Err(Error::NotLogs(detail))
}

impl Fields<'_> {
    fn field(&mut self) -> Result<Field> {
        let (tag, pos) = varint(self.data, self.pos);
        let wire = tag.map_or(u8::MAX, |t| (t & 7) as u8);
        let Some(tag) = tag.filter(|_| matches!(wire, VARINT | I64 | LEN | I32)) else {
            return refused(format!("field at byte {pos}"));
        };
        let number = tag >> 3;
        if wire == VARINT {
            let (value, after) = varint(self.data, pos);
            let Some(value) = value else {
                return refused(format!("byte {pos}"));
            };
            self.pos = after;
            return Ok(Field {
                number,
                wire,
                start: after,
                end: after,
                value,
            });
        }
        let (size, pos) = match wire {
            LEN => varint(self.data, pos),
            I64 => (Some(8), pos),
            _ => (Some(4), pos),
        };
        let end = size
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| pos.checked_add(n))
            .filter(|&end| end <= self.end);
        let Some(end) = end else {
            return refused(format!("truncated at byte {pos}"));
        };
        self.pos = end;
        Ok(Field {
            number,
            wire,
            start: pos,
            end,
            value: 0,
        })
    }
}

impl Iterator for Fields<'_> {
    type Item = Result<Field>;

    fn next(&mut self) -> Option<Result<Field>> {
        if self.pos >= self.end {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.pos = self.end;
        }
        Some(field)
    }
}

fn is(field: &Field, number: u128, wire: u8) -> bool {
    field.number == number && field.wire == wire
}

fn text(data: &[u8], start: usize, end: usize) -> Result<String> {
    match std::str::from_utf8(&data[start..end]) {
        Ok(text) => Ok(text.to_owned()),
        Err(_) => refused(format!("a string that is not UTF-8 at byte {start}")),
    }
}

/// The strings of an ArrayValue; None when one is no string or there are more than `max`.
fn strings(data: &[u8], start: usize, end: usize, max: usize) -> Result<Option<Vec<String>>> {
    let mut found = Vec::new();
    for field in fields(data, start, end) {
        let field = field?;
        if !is(&field, 1, LEN) || found.len() >= max {
            return Ok(None);
        }
        let mut string = None;
        for inner in fields(data, field.start, field.end) {
            let inner = inner?;
            string = is(&inner, 1, LEN).then_some((inner.start, inner.end));
        }
        let Some((a, b)) = string else {
            return Ok(None);
        };
        found.push(text(data, a, b)?);
    }
    Ok(Some(found))
}

/// A KeyValue whose key is asked for and whose value has the shape read; its value is walked
/// only one level (the string of an attribute not read is never decoded).
fn attribute(data: &[u8], start: usize, end: usize, ask: &Ask) -> Result<Option<(String, Read)>> {
    let mut key = None;
    let mut value: Option<Field> = None;
    for field in fields(data, start, end) {
        let field = field?;
        if is(&field, 1, LEN) {
            key = Some(text(data, field.start, field.end)?);
        } else if is(&field, 2, LEN) {
            value = None;
            for inner in fields(data, field.start, field.end) {
                let inner = inner?;
                let read = is(&inner, 1, LEN) || is(&inner, 3, VARINT) || is(&inner, 5, LEN);
                value = read.then_some(inner);
            }
        }
    }
    let (Some(key), Some(value)) = (key, value) else {
        return Ok(None);
    };
    if !ask.keys.contains(&key) {
        return Ok(None);
    }
    let read = match value.number {
        1 => Read::Str(text(data, value.start, value.end)?),
        3 if key == ask.count_key => Read::Count(value.value),
        5 if key == ask.keys_key => {
            Read::Keys(strings(data, value.start, value.end, ask.max_keys)?)
        }
        _ => return Ok(None),
    };
    Ok(Some((key, read)))
}

/// A big-endian id of exactly `size` bytes, else 0.
fn ident(data: &[u8], field: &Field, size: usize) -> u128 {
    let bytes = &data[field.start..field.end];
    if bytes.len() != size {
        return 0;
    }
    bytes.iter().fold(0, |n, &b| (n << 8) | u128::from(b))
}

fn fixed64(data: &[u8], field: &Field) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&data[field.start..field.end]);
    u64::from_le_bytes(raw)
}

/// A LogRecord, and how many attributes it has.
fn log_record(data: &[u8], start: usize, end: usize, ask: &Ask) -> Result<(Record, u64)> {
    let mut record = Record {
        name: None,
        attributes: Vec::new(),
        trace_id: 0,
        span_id: 0,
        time_ns: 0,
        service: None,
    };
    let (mut n, mut time, mut observed) = (0u64, 0u64, 0u64);
    for field in fields(data, start, end) {
        let field = field?;
        match (field.number, field.wire) {
            (6, LEN) => {
                n += 1;
                if let Some((key, value)) = attribute(data, field.start, field.end, ask)? {
                    match record.attributes.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => record.attributes.push((key, value)),
                    }
                }
            }
            (12, LEN) => record.name = Some(text(data, field.start, field.end)?),
            (9, LEN) => record.trace_id = ident(data, &field, 16),
            (10, LEN) => record.span_id = ident(data, &field, 8) as u64,
            (1, I64) => time = fixed64(data, &field),
            (11, I64) => observed = fixed64(data, &field),
            _ => {}
        }
    }
    record.time_ns = if time != 0 { time } else { observed };
    Ok((record, n))
}

/// The `service.name` of a Resource, when it is a string (the last one that is).
fn service(data: &[u8], start: usize, end: usize) -> Result<Option<String>> {
    let mut found = None;
    for field in fields(data, start, end) {
        let field = field?;
        if !is(&field, 1, LEN) {
            continue;
        }
        let mut key = None;
        for inner in fields(data, field.start, field.end) {
            let inner = inner?;
            if is(&inner, 1, LEN) {
                key = Some(text(data, inner.start, inner.end)?);
            }
        }
        if key.as_deref() != Some("service.name") {
            continue;
        }
        let mut value = None;
        for inner in fields(data, field.start, field.end) {
            let inner = inner?;
            if is(&inner, 2, LEN) {
                value = None;
                for any in fields(data, inner.start, inner.end) {
                    let any = any?;
                    value = if is(&any, 1, LEN) {
                        Some(text(data, any.start, any.end)?)
                    } else {
                        None
                    };
                }
            }
        }
        if value.is_some() {
            found = value;
        }
    }
    Ok(found)
}

/// Whether a record holds an event of ours: its name, else its `event.name` attribute.
fn ours(record: &Record, ask: &Ask) -> bool {
    let name = match &record.name {
        Some(name) if !name.is_empty() => Some(name.as_str()),
        _ => record.attributes.iter().find_map(|(k, v)| match v {
            Read::Str(s) if k == ask.name_key => Some(s.as_str()),
            _ => None,
        }),
    };
    name.is_some_and(|name| ask.names.iter().any(|n| n == name))
}

/// The records of ExportLogsServiceRequest (or LogsData) bytes that hold an event of ours, in
/// payload order; refused when the bytes do not walk, or past the caps as soon as a record
/// passes one.
pub fn records(data: &[u8], ask: &Ask) -> Result<Vec<Record>> {
    let mut found = Vec::new();
    let (mut n_records, mut n_attributes) = (0u64, 0u64);
    for resource_logs in fields(data, 0, data.len()) {
        let resource_logs = resource_logs?;
        if !is(&resource_logs, 1, LEN) {
            continue;
        }
        let mut agent = None;
        let mut scopes = Vec::new();
        for field in fields(data, resource_logs.start, resource_logs.end) {
            let field = field?;
            if is(&field, 1, LEN) {
                agent = service(data, field.start, field.end)?;
            } else if is(&field, 2, LEN) {
                scopes.push(field);
            }
        }
        for scope in scopes {
            for field in fields(data, scope.start, scope.end) {
                let field = field?;
                if !is(&field, 2, LEN) {
                    continue;
                }
                n_records += 1;
                let (mut record, n) = log_record(data, field.start, field.end, ask)?;
                n_attributes += n;
                if let Some((max_records, max_attributes)) = ask.caps {
                    if n_records > max_records || n_attributes > max_attributes {
                        return Err(Error::TooLarge(format!(
                            "more than {} log records or {} attributes: past the caps \
                             ({max_records}, {max_attributes})",
                            n_records - 1,
                            n_attributes - n
                        )));
                    }
                }
                if ours(&record, ask) {
                    record.service.clone_from(&agent);
                    found.push(record);
                }
            }
        }
    }
    Ok(found)
}
