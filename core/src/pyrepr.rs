//! `str(value)` of an attribute value as Python prints it, for `Step.state_extra`
//! (semconv/common.py: `str(attrs.get(name, ""))`), whose strings are hashed into path states:
//! a different spelling would be a different state.
//!
//! Printed here: None, bools, ints of any size, floats (Python's shortest `repr`, which switches to an
//! exponent outside 1e-4..1e16), bytes, and tuples / dicts of those with ASCII strings. The
//! `repr` of a non-ASCII string depends on `str.isprintable` in the interpreter's Unicode
//! version, so a container holding one is printed by Python itself (rare: state attributes
//! are names and counts).

use crate::span::{Text, Value};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyTuple};

/// `str(value)`.
pub fn py_str(value: &Value) -> Text {
    match value {
        Value::Str(s) => s.clone(),
        other => {
            let mut out = String::new();
            if write_repr(&mut out, other) {
                Text::from(out)
            } else {
                python_str(other)
            }
        }
    }
}

/// Appends `repr(value)`; false when it holds a non-ASCII string (Python must print it).
fn write_repr(out: &mut String, value: &Value) -> bool {
    match value {
        Value::None => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::BigInt(digits) => out.push_str(digits),
        Value::Double(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => {
            if !s.is_ascii() || s.is_lossy() {
                return false;
            }
            quote(out, s.bytes(), "");
        }
        Value::Object(_) => return false,
        Value::List(items) => return write_items(out, items, "[", "]"),
        Value::Bytes(b) => quote(out, b.iter().copied(), "b"),
        // a tuple of one is `(x,)`
        Value::Array(items) => {
            return write_items(out, items, "(", if items.len() == 1 { ",)" } else { ")" })
        }
        Value::KvList(kv) => {
            out.push('{');
            // a dict built from the list: a repeated key keeps its first place, its last value
            let mut first = true;
            for (i, (key, _)) in kv.0.iter().enumerate() {
                if kv.0[..i].iter().any(|(k, _)| k == key) {
                    continue;
                }
                if !first {
                    out.push_str(", ");
                }
                first = false;
                let last = kv.get(key).unwrap_or(&Value::None);
                if !write_repr(out, &Value::Str(key.as_str().into())) {
                    return false;
                }
                out.push_str(": ");
                if !write_repr(out, last) {
                    return false;
                }
            }
            out.push('}');
        }
    }
    true
}

/// The items of a list or tuple between `open` and `close`; false as `write_repr`.
fn write_items(out: &mut String, items: &[Value], open: &str, close: &str) -> bool {
    out.push_str(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if !write_repr(out, item) {
            return false;
        }
    }
    out.push_str(close);
    true
}

/// `repr` of an ASCII str or of bytes: single quotes unless the text holds `'` and no `"`.
fn quote(out: &mut String, bytes: impl Iterator<Item = u8> + Clone, prefix: &str) {
    let (single, double) = bytes.clone().fold((false, false), |(s, d), b| {
        (s || b == b'\'', d || b == b'"')
    });
    let q = if single && !double { b'"' } else { b'\'' };
    out.push_str(prefix);
    out.push(q as char);
    for b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if b == q => {
                out.push('\\');
                out.push(q as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(q as char);
}

/// `repr(float)`: the shortest digits that round-trip (what Rust's `{:e}` gives), laid out as
/// Python's `float_repr_style = 'short'` does.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let sci = format!("{f:e}"); // e.g. "-1.2345e-7", "1e16"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if !(-4..16).contains(&exp) {
        let (head, tail) = digits.split_at(1);
        let dot = if tail.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{head}{dot}{tail}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        let zeros = "0".repeat(point.unsigned_abs() as usize);
        format!("{sign}0.{zeros}{digits}")
    } else {
        let point = point as usize;
        if digits.len() <= point {
            format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{sign}{}.{}", &digits[..point], &digits[point..])
        }
    }
}

/// Python's own `str()` of the value rebuilt as the Python object readers make of it.
fn python_str(value: &Value) -> Text {
    Python::attach(|py| {
        to_python(py, value)
            .and_then(|object| Text::from_py(&object.str()?))
            .unwrap_or_default()
    })
}

/// The Python object a reader gives for the value: an array is a tuple, a key-value list a dict.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::None => py.None().into_bound(py),
        Value::Str(s) => s.to_py(py)?.into_any(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::BigInt(digits) => py.get_type::<PyInt>().call1((&**digits,))?,
        Value::Object(foreign) => foreign.object.bind(py).clone(),
        Value::List(items) => PyList::new(py, objects(py, items)?)?.into_any(),
        Value::Double(f) => f.into_pyobject(py)?.into_any(),
        Value::Bytes(b) => PyBytes::new(py, b).into_any(),
        Value::Array(items) => PyTuple::new(py, objects(py, items)?)?.into_any(),
        Value::KvList(kv) => {
            let dict = PyDict::new(py);
            for (key, item) in &kv.0 {
                dict.set_item(key, to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn objects<'py>(py: Python<'py>, items: &[Value]) -> PyResult<Vec<Bound<'py, PyAny>>> {
    items.iter().map(|item| to_python(py, item)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_does() {
        for (f, text) in [
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
            (1.5, "1.5"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (2.5e-7, "2.5e-07"),
            (1.5e300, "1.5e+300"),
        ] {
            assert_eq!(float_repr(f), text);
        }
    }

    #[test]
    fn bytes_pick_their_quote() {
        let mut out = String::new();
        quote(&mut out, b"a'\"\x00\x7f\\".iter().copied(), "b");
        assert_eq!(out, r#"b'a\'"\x00\x7f\\'"#);
        out.clear();
        quote(&mut out, b"'".iter().copied(), "b");
        assert_eq!(out, r#"b"'""#);
    }
}
