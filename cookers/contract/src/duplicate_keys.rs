//! Keys that repeat within one JSON object. JSON readers disagree on which copy wins
//! (serde keeps the last, others the first), so a document with one means different
//! things to the pipeline, the Hub and the game; the contract refuses it.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The JSON pointer of every member whose key an earlier member of its object already
/// used. Text that is not JSON gives none (the syntax error is reported elsewhere).
pub fn duplicate_keys(text: &str) -> Vec<String> {
    let found = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Walk {
        pointer: String::new(),
        found: &found,
    }
    .deserialize(&mut de);
    found.into_inner()
}

struct Walk<'a> {
    pointer: String,
    found: &'a RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let pointer = format!(
                "{}/{}",
                self.pointer,
                key.replace('~', "~0").replace('/', "~1")
            );
            if !seen.insert(key) {
                self.found.borrow_mut().push(pointer.clone());
            }
            map.next_value_seed(Walk {
                pointer,
                found: self.found,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(Walk {
                pointer: format!("{}/{index}", self.pointer),
                found: self.found,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_found_where_they_are() {
        assert!(duplicate_keys(r#"{"a": 1, "b": [{"c": 1}]}"#).is_empty());
        assert_eq!(
            duplicate_keys(r#"{"a": 1, "b": [{"c": 1}, {"c": 2, "c": 3}], "a": 2}"#),
            ["/b/1/c", "/a"]
        );
    }
}
