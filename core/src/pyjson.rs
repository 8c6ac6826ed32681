//! `json.loads` with Python's outcomes, for the JSON the classifier reads out of attributes
//! (semconv/common.py `parse_json`, semconv/convention.py `unquote` and `_member`).
//!
//! A parser of its own, not serde_json, because Python's answers differ from serde's where spans
//! are odd: Python accepts `NaN` / `Infinity`, keeps integers of any size (up to its 4300-digit
//! conversion limit), reads `1e400` as `inf`, accepts lone surrogate escapes (`"\ud800"`) and
//! refuses nesting deeper than its recursion limit. Parsing is iterative (no input can exhaust
//! the stack) and keeps nothing below depth `KEPT_DEPTH` (the classifier reads four levels at
//! most); a document nested deeper asks Python whether `json.loads` accepts it, since where
//! Python stops depends on its recursion limit and the caller's stack.
//!
//! A string holding a lone surrogate cannot be a Rust `String`: its text keeps `?` in that place
//! (what `common.clip` makes of it) and it is marked `lossy`, so it equals no other text, as a
//! Python string with a surrogate equals no valid one.

use crate::span::Value;
use pyo3::prelude::*;

/// Python's default `sys.get_int_max_str_digits()`: a longer integer literal fails to parse.
const MAX_INT_DIGITS: usize = 4300;
/// Containers deeper than this are checked but not kept (`Json::Deep`).
const KEPT_DEPTH: usize = 100;

/// A JSON string; `lossy`: it held lone surrogates, each `?` in `text`.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonStr {
    pub text: String,
    pub lossy: bool,
}

impl JsonStr {
    /// `self == s` in Python: a string with a surrogate equals no valid text.
    pub fn is(&self, s: &str) -> bool {
        !self.lossy && self.text == s
    }
}

/// A parsed document: what `json.loads` returns, with objects as ordered pairs.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// an integer outside i64, as its literal (no leading zeros: JSON forbids them)
    BigInt(String),
    Float(f64),
    Str(JsonStr),
    Array(Vec<Json>),
    Object(Vec<(JsonStr, Json)>),
    /// a container nested deeper than KEPT_DEPTH: valid, not kept
    Deep,
}

impl Json {
    /// `d.get(key)` on a dict (None for a missing key, a JSON null, or no dict at all); a key
    /// given twice reads as its last value, as Python's dict keeps it.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs
                .iter()
                .rev()
                .find(|(k, _)| k.is(key))
                .map(|(_, v)| v)
                .filter(|v| **v != Json::Null),
            _ => None,
        }
    }

    /// The items when this is a list (`isinstance(x, list)`), else none.
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// The string, when this is one (`isinstance(x, str)`).
    pub fn text(&self) -> Option<&JsonStr> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// `json.loads(s)`, or None where it raises (ValueError or RecursionError).
pub fn parse(s: &str) -> Option<Json> {
    let (json, depth) = Parser { s, at: 0 }.document()?;
    if depth > KEPT_DEPTH && !python_accepts(s) {
        return None;
    }
    Some(json)
}

/// convention.unquote for a string value: the text of a JSON-quoted string (`"\"AGENT\""`), or
/// None when the value stays as it is.
pub fn unquote(s: &str) -> Option<JsonStr> {
    if !s.starts_with('"') {
        return None;
    }
    match parse(s)? {
        Json::Str(text) => Some(text),
        _ => None,
    }
}

/// What convention._member yields: a member of a parsed JSON object, or of a dict value.
#[derive(Debug, PartialEq)]
pub enum Member<'a> {
    Json(Json),
    Value(&'a Value),
}

/// convention._member: `key` of a JSON object held in a string attribute (MLflow's
/// `{"input_tokens": 10}`) or of a dict-valued one; None when absent or null.
pub fn member<'a>(value: &'a Value, key: &str) -> Option<Member<'a>> {
    match value {
        Value::Str(s) if s.starts_with('{') => match parse(s)? {
            Json::Object(mut pairs) => {
                let at = pairs.iter().rposition(|(k, _)| k.is(key))?;
                let found = pairs.swap_remove(at).1;
                (found != Json::Null).then_some(Member::Json(found))
            }
            _ => None,
        },
        Value::KvList(kv) => kv
            .get(key)
            .filter(|v| **v != Value::None)
            .map(Member::Value),
        _ => None,
    }
}

/// Python decides a document nested past KEPT_DEPTH: its recursion limit is the answer.
fn python_accepts(s: &str) -> bool {
    Python::attach(|py| {
        py.import(pyo3::intern!(py, "json"))
            .and_then(|json| json.call_method1(pyo3::intern!(py, "loads"), (s,)))
            .is_ok()
    })
}

enum Frame {
    /// `kept`: None below KEPT_DEPTH (values are checked, then dropped)
    Array { kept: Option<Vec<Json>> },
    Object {
        kept: Option<Vec<(JsonStr, Json)>>,
        key: JsonStr,
    },
}

struct Parser<'a> {
    s: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, literal: &str) -> Option<()> {
        self.s[self.at..].starts_with(literal).then(|| {
            self.at += literal.len();
        })
    }

    /// The whole document and its deepest nesting; None where json.loads raises ValueError.
    fn document(mut self) -> Option<(Json, usize)> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut deepest = 0;
        self.skip_ws();
        'value: loop {
            let mut value = match self.peek()? {
                open @ (b'[' | b'{') => {
                    self.at += 1;
                    let depth = stack.len() + 1;
                    deepest = deepest.max(depth);
                    let keep = depth <= KEPT_DEPTH;
                    self.skip_ws();
                    if open == b'[' {
                        if self.peek() == Some(b']') {
                            self.at += 1;
                            if keep {
                                Json::Array(Vec::new())
                            } else {
                                Json::Deep
                            }
                        } else {
                            stack.push(Frame::Array {
                                kept: keep.then(Vec::new),
                            });
                            continue 'value;
                        }
                    } else if self.peek() == Some(b'}') {
                        self.at += 1;
                        if keep {
                            Json::Object(Vec::new())
                        } else {
                            Json::Deep
                        }
                    } else {
                        let key = self.key()?;
                        stack.push(Frame::Object {
                            kept: keep.then(Vec::new),
                            key,
                        });
                        continue 'value;
                    }
                }
                b'"' => {
                    self.at += 1;
                    Json::Str(self.string()?)
                }
                b'n' => self.eat("null").map(|_| Json::Null)?,
                b't' => self.eat("true").map(|_| Json::Bool(true))?,
                b'f' => self.eat("false").map(|_| Json::Bool(false))?,
                b'N' => self.eat("NaN").map(|_| Json::Float(f64::NAN))?,
                b'I' => self.eat("Infinity").map(|_| Json::Float(f64::INFINITY))?,
                b'-' if self.s[self.at..].starts_with("-Infinity") => {
                    self.at += "-Infinity".len();
                    Json::Float(f64::NEG_INFINITY)
                }
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            };
            // a value is complete: hand it to its container, closing containers as they end
            loop {
                let Some(frame) = stack.last_mut() else {
                    self.skip_ws();
                    return (self.at == self.s.len()).then_some((value, deepest));
                };
                match frame {
                    Frame::Array { kept } => {
                        if let Some(items) = kept {
                            items.push(value);
                        }
                    }
                    Frame::Object { kept, key } => {
                        if let Some(pairs) = kept {
                            pairs.push((std::mem::replace(key, empty_key()), value));
                        }
                    }
                }
                self.skip_ws();
                let close = match frame {
                    Frame::Array { .. } => b']',
                    Frame::Object { .. } => b'}',
                };
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        self.skip_ws();
                        if let Frame::Object { key, .. } = frame {
                            *key = self.key()?;
                        }
                        continue 'value;
                    }
                    b if b == close => {
                        self.at += 1;
                        value = match stack.pop()? {
                            Frame::Array { kept: Some(items) } => Json::Array(items),
                            Frame::Object {
                                kept: Some(pairs), ..
                            } => Json::Object(pairs),
                            _ => Json::Deep,
                        };
                    }
                    _ => return None,
                }
            }
        }
    }

    /// `"key"` `:` with the blanks around the colon; the cursor is on the opening quote.
    fn key(&mut self) -> Option<JsonStr> {
        if self.peek() != Some(b'"') {
            return None;
        }
        self.at += 1;
        let key = self.string()?;
        self.skip_ws();
        self.eat(":")?;
        self.skip_ws();
        Some(key)
    }

    /// The rest of a string after its opening quote (CPython's scanstring, strict).
    fn string(&mut self) -> Option<JsonStr> {
        let bytes = self.s.as_bytes();
        let mut out = JsonStr {
            text: String::new(),
            lossy: false,
        };
        loop {
            let start = self.at;
            let stop = start
                + bytes[start..]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            out.text.push_str(&self.s[start..stop]);
            self.at = stop + 1;
            match bytes[stop] {
                b'"' => return Some(out),
                b'\\' => {}
                _ => return None, // a raw control character
            }
            let escaped = *bytes.get(self.at)?;
            self.at += 1;
            let plain = match escaped {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let unit = self.hex4()?;
                    match self.code_point(unit)? {
                        Some(c) => c,
                        None => {
                            out.lossy = true;
                            '?'
                        }
                    }
                }
                _ => return None,
            };
            out.text.push(plain);
        }
    }

    /// The character `\uXXXX` starts (joining a surrogate pair written as two escapes), or
    /// None for a lone surrogate.
    fn code_point(&mut self, unit: u32) -> Option<Option<char>> {
        if (0xd800..0xdc00).contains(&unit) && self.s[self.at..].starts_with("\\u") {
            let back = self.at;
            self.at += 2;
            let low = self.hex4()?;
            if (0xdc00..0xe000).contains(&low) {
                return Some(char::from_u32(
                    0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00),
                ));
            }
            self.at = back; // not a pair: the next escape is read on its own
        }
        Some(char::from_u32(unit))
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.s.get(self.at..self.at + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    /// An integer (Python int) or, with a fraction or exponent, a float.
    fn number(&mut self) -> Option<Json> {
        let bytes = self.s.as_bytes();
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        let mut float = false;
        if self.peek() == Some(b'.') && bytes.get(self.at + 1).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
            self.digits();
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let back = self.at;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                self.digits();
                float = true;
            } else {
                self.at = back; // not an exponent: the number ends before the `e`
            }
        }
        let text = &self.s[start..self.at];
        if float {
            return text.parse().ok().map(Json::Float);
        }
        match text.parse::<i64>() {
            Ok(i) => Some(Json::Int(i)),
            Err(_) if text.trim_start_matches('-').len() <= MAX_INT_DIGITS => {
                Some(Json::BigInt(text.to_owned()))
            }
            Err(_) => None,
        }
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }
}

fn empty_key() -> JsonStr {
    JsonStr {
        text: String::new(),
        lossy: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Json {
        Json::Str(JsonStr {
            text: text.to_owned(),
            lossy: false,
        })
    }

    #[test]
    fn python_extensions_are_accepted() {
        assert!(matches!(parse("NaN"), Some(Json::Float(f)) if f.is_nan()));
        assert_eq!(parse(" -Infinity "), Some(Json::Float(f64::NEG_INFINITY)));
        assert_eq!(parse("1e400"), Some(Json::Float(f64::INFINITY)));
        assert_eq!(
            parse("123456789012345678901234567890"),
            Some(Json::BigInt("123456789012345678901234567890".into()))
        );
    }

    #[test]
    fn duplicate_keys_read_last() {
        let doc = parse(r#"{"a": 1, "a": 2}"#).unwrap_or(Json::Null);
        assert_eq!(doc.get("a"), Some(&Json::Int(2)));
    }

    #[test]
    fn surrogates_pair_or_stay_lone() {
        assert_eq!(parse(r#""\ud834\udd1e""#), Some(s("\u{1d11e}")));
        let lone = parse(r#""a\ud800b""#);
        assert_eq!(
            lone,
            Some(Json::Str(JsonStr {
                text: "a?b".into(),
                lossy: true
            }))
        );
    }

    #[test]
    fn malformed_documents_fail() {
        for bad in [
            "",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "\u{feff}1",
            "\"\t\"",
            "[",
            "1.",
            "-",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
        assert_eq!(parse("1.e5"), None);
        assert_eq!(parse(&"[".repeat(100_000)), None);
    }

    #[test]
    fn deep_containers_are_checked_not_kept() {
        let depth = KEPT_DEPTH + 1;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let Some((json, deepest)) = (Parser { s: &text, at: 0 }).document() else {
            panic!("valid document refused");
        };
        assert_eq!(deepest, depth);
        let mut inner = &json;
        for _ in 1..KEPT_DEPTH {
            inner = &inner.items()[0];
        }
        assert_eq!(inner.items(), &[Json::Deep]);
    }
}
