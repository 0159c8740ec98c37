//! Typed reads from a `serde_json::Value` that record a coded finding instead of failing,
//! so one pass reports every problem in a document.

use serde_json::{Map, Value};

use crate::diagnostic::{child, Findings};

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong_type(f: &mut Findings, pointer: &str, expected: &str, value: &Value) {
    f.error(
        "wrong_type",
        pointer,
        format!("expected {expected}, found {}", type_name(value)),
    );
}

pub(crate) fn object<'v>(
    f: &mut Findings,
    value: &'v Value,
    pointer: &str,
) -> Option<&'v Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        other => {
            wrong_type(f, pointer, "an object", other);
            None
        }
    }
}

pub(crate) fn array<'v>(f: &mut Findings, value: &'v Value, pointer: &str) -> Option<&'v [Value]> {
    match value {
        Value::Array(items) => Some(items),
        other => {
            wrong_type(f, pointer, "an array", other);
            None
        }
    }
}

/// A member that must be present. `null` counts as absent.
pub(crate) fn required<'v>(
    f: &mut Findings,
    map: &'v Map<String, Value>,
    pointer: &str,
    key: &str,
) -> Option<&'v Value> {
    match map.get(key) {
        Some(Value::Null) | None => {
            f.error(
                "missing_field",
                &child(pointer, key),
                format!("`{key}` is required here"),
            );
            None
        }
        Some(value) => Some(value),
    }
}

/// A member that may be absent; `null` is treated as absent.
pub(crate) fn optional<'v>(map: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    map.get(key).filter(|v| !v.is_null())
}

pub(crate) fn string<'v>(f: &mut Findings, value: &'v Value, pointer: &str) -> Option<&'v str> {
    match value {
        Value::String(s) => {
            if let Some(c) = s
                .chars()
                .find(|&c| c.is_control() || crate::is_bidi_control(c))
            {
                f.error(
                    "control_character",
                    pointer,
                    format!("{c:?} is a control or text-direction character; names show in menus and paths, so they may hold neither"),
                );
                return None;
            }
            Some(s)
        }
        other => {
            wrong_type(f, pointer, "a string", other);
            None
        }
    }
}

pub(crate) fn integer(f: &mut Findings, value: &Value, pointer: &str) -> Option<i64> {
    match value.as_i64() {
        Some(n) => Some(n),
        None => {
            wrong_type(f, pointer, "a whole number", value);
            None
        }
    }
}

/// A JSON number. JSON cannot spell NaN or infinity, but a number too large for f64 parses
/// as infinity, so finiteness is still checked by the callers' bounds.
pub(crate) fn number(f: &mut Findings, value: &Value, pointer: &str) -> Option<f64> {
    match value.as_f64() {
        Some(n) => Some(n),
        None => {
            wrong_type(f, pointer, "a number", value);
            None
        }
    }
}

/// An array of exactly `N` numbers.
pub(crate) fn numbers<const N: usize>(
    f: &mut Findings,
    value: &Value,
    pointer: &str,
) -> Option<[f64; N]> {
    let items = array(f, value, pointer)?;
    if items.len() != N {
        f.error(
            "wrong_length",
            pointer,
            format!("expected exactly {N} numbers, found {}", items.len()),
        );
        return None;
    }
    let mut out = [0.0; N];
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        match number(f, item, &child(pointer, i)) {
            Some(n) => out[i] = n,
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Reports members outside `allowed` (for objects whose unknown fields are refused).
pub(crate) fn refuse_unknown(
    f: &mut Findings,
    map: &Map<String, Value>,
    pointer: &str,
    allowed: &[&str],
) {
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) {
            f.error(
                "unknown_field",
                &child(pointer, key),
                format!(
                    "`{key}` is not a known field here; allowed: {}",
                    allowed.join(", ")
                ),
            );
        }
    }
}

/// Checks `lo <= n <= hi` (or `lo < n` when `lo_open`) and finiteness in one place so every
/// bounded field words its finding the same way.
pub(crate) fn bounded(
    f: &mut Findings,
    code: &'static str,
    pointer: &str,
    n: f64,
    range: Range,
) -> Option<f64> {
    let ok = n.is_finite()
        && if range.lo_open {
            n > range.lo
        } else {
            n >= range.lo
        }
        && n <= range.hi;
    if ok {
        Some(n)
    } else {
        f.error(
            code,
            pointer,
            format!("{n} is out of range: {}", range.describe()),
        );
        None
    }
}

#[derive(Clone, Copy)]
pub struct Range {
    pub lo: f64,
    pub lo_open: bool,
    pub hi: f64,
    pub unit: &'static str,
}

impl Range {
    pub const fn closed(lo: f64, hi: f64, unit: &'static str) -> Range {
        Range {
            lo,
            lo_open: false,
            hi,
            unit,
        }
    }

    /// `0 < n <= hi`.
    pub const fn positive_up_to(hi: f64, unit: &'static str) -> Range {
        Range {
            lo: 0.0,
            lo_open: true,
            hi,
            unit,
        }
    }

    fn describe(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        if self.lo_open && self.lo == 0.0 && self.hi == f64::MAX {
            format!("must be a finite number above 0{unit}")
        } else if self.lo_open {
            format!(
                "must be finite, above {} and at most {}{unit}",
                self.lo, self.hi
            )
        } else {
            format!("must be finite and within {}..{}{unit}", self.lo, self.hi)
        }
    }
}
