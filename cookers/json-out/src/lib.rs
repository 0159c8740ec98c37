//! JSON as every file of this project is written: pretty (two spaces), keys in the order
//! they were inserted, and a final newline, so the same value is always the same bytes and
//! a text editor or `git diff` shows whole lines.

use serde::Serialize;

/// `value` as a file's bytes.
pub fn pretty(value: &impl Serialize) -> Vec<u8> {
    try_pretty(value).expect("the project's JSON values serialize")
}

/// `value` as a file's bytes, or why it does not serialize: a value that copies JSON text
/// it did not parse (a set's documents copy their blocks' facts) can meet what no JSON
/// value holds, such as a number out of range.
pub fn try_pretty(value: &impl Serialize) -> Result<Vec<u8>, serde_json::Error> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `value` as a file's text.
pub fn pretty_text(value: &impl Serialize) -> String {
    String::from_utf8(pretty(value)).expect("JSON is UTF-8")
}

#[cfg(test)]
mod tests {
    #[test]
    fn pretty_with_a_final_newline_in_insertion_order() {
        let value = serde_json::json!({"b": 1, "a": [true]});
        assert_eq!(
            super::pretty_text(&value),
            "{\n  \"b\": 1,\n  \"a\": [\n    true\n  ]\n}\n"
        );
    }
}
