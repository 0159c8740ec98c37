//! An action log line read in the one shape the log writes (`json_shape`): a catalog's
//! cook probes thousands of cached steps, and parsing their lines through serde was more
//! than half of each probe.
//!
//! The line is `{"key":"…","value":{"outputs":[{"name":"…","hash":"…","size":N},…],
//! "seal":"…"}}`, where an output may end `,"recipe":N` after its size. The caller parses
//! any other line as JSON.

use super::{OutputRef, Sealed};
use crate::json_shape::Cursor;

/// The line's value, when the line has the log's own shape.
pub(super) fn sealed(line: &[u8]) -> Option<Sealed> {
    let mut at = Cursor::new(line);
    at.literal(b"{\"key\":")?;
    at.string()?;
    at.literal(b",\"value\":{\"outputs\":[")?;
    let outputs = at.items(output)?;
    at.literal(b",\"seal\":")?;
    let seal = at.string()?.to_string();
    at.literal(b"}}")?;
    at.rest.is_empty().then_some(Sealed { outputs, seal })
}

fn output(at: &mut Cursor) -> Option<OutputRef> {
    at.literal(b"{\"name\":")?;
    let name = at.string()?.to_string();
    at.literal(b",\"hash\":")?;
    let hash = at.string()?.to_string();
    at.literal(b",\"size\":")?;
    let size = at.number()?;
    let recipe = match at.take(b'}') {
        true => None,
        false => {
            at.literal(b",\"recipe\":")?;
            let recipe = at.number()?;
            at.literal(b"}")?;
            Some(recipe)
        }
    };
    Some(OutputRef {
        name,
        hash,
        size,
        recipe,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The line the action log itself writes for `k`.
    fn line(outputs: &[OutputRef], seal: &str) -> Vec<u8> {
        let value = Sealed {
            outputs: outputs.to_vec(),
            seal: seal.to_string(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("actions.log");
        crate::keyed_log::KeyedLog::append_all(&path, [("k", value)]).unwrap();
        let mut written = std::fs::read(&path).unwrap();
        assert_eq!(written.pop(), Some(b'\n'));
        written
    }

    fn through_serde(line: &[u8]) -> Option<Sealed> {
        #[derive(serde::Deserialize)]
        struct Line {
            #[allow(dead_code)]
            key: String,
            value: Option<Sealed>,
        }
        serde_json::from_slice::<Line>(line).ok()?.value
    }

    fn output() -> impl Strategy<Value = OutputRef> {
        (
            prop_oneof![any::<String>(), "[a-z_/.0-9]{1,24}"],
            "[0-9a-f]{0,64}",
            any::<u64>(),
            any::<Option<u64>>(),
        )
            .prop_map(|(name, hash, size, recipe)| OutputRef {
                name,
                hash,
                size,
                recipe,
            })
    }

    #[test]
    fn reads_the_lines_the_log_writes() {
        let outputs = [
            OutputRef {
                name: "mesh.bin".into(),
                hash: "ab".repeat(32),
                size: 0,
                recipe: None,
            },
            OutputRef {
                name: "content/p.ucas".into(),
                hash: "cd".repeat(32),
                size: u64::MAX,
                recipe: Some(1234),
            },
        ];
        let written = line(&outputs, "seal");
        let read = sealed(&written).expect("the log's own shape");
        assert_eq!(read.outputs, outputs);
        assert_eq!(read.seal, "seal");
        assert_eq!(sealed(&line(&[], "s")).map(|s| s.outputs.len()), Some(0));
    }

    #[test]
    fn leaves_other_shapes_to_serde() {
        for other in [
            &br#"{"key":"k","value":{"outputs":[],"seal":"s"}} "#[..],
            br#"{"key":"k","value":{"seal":"s","outputs":[]}}"#,
            br#"{"key":"k","value":{"outputs":[{"name":"a\"b","hash":"h","size":1}],"seal":"s"}}"#,
            br#"{"key":"k","value":{"outputs":[{"name":"a","hash":"h","size":01}],"seal":"s"}}"#,
            br#"{"key":"k","value":{"outputs":[{"name":"a","hash":"h","size":1.0}],"seal":"s"}}"#,
            br#"{"key":"k","value":{"outputs":[{"name":"a","hash":"h","size":18446744073709551616}],"seal":"s"}}"#,
            br#"{"key":"k","value":{"outputs":[{"name":"a","hash":"h","size":1},],"seal":"s"}}"#,
            br#"{"key":"k","value":null}"#,
        ] {
            assert!(sealed(other).is_none(), "{}", String::from_utf8_lossy(other));
        }
        // Serde still reads the escaped name the shape left to it.
        let escaped = line(
            &[OutputRef {
                name: "a\"b\n".into(),
                hash: "h".into(),
                size: 1,
                recipe: None,
            }],
            "s",
        );
        assert!(sealed(&escaped).is_none());
        assert_eq!(through_serde(&escaped).unwrap().outputs[0].name, "a\"b\n");
    }

    proptest! {
        /// Whatever serde writes, this reads as serde does, or leaves to serde.
        #[test]
        fn agrees_with_serde(outputs in proptest::collection::vec(output(), 0..4), seal in any::<String>()) {
            let written = line(&outputs, &seal);
            let read = through_serde(&written).unwrap();
            match sealed(&written) {
                Some(fast) => {
                    prop_assert_eq!(fast.outputs, read.outputs);
                    prop_assert_eq!(fast.seal, read.seal);
                }
                // Only an escape is left to serde of what the log writes.
                None => prop_assert!(written.contains(&b'\\')),
            }
        }

        /// A damaged line is never read as something serde would not read it as.
        #[test]
        fn never_reads_a_damaged_line_otherwise(outputs in proptest::collection::vec(output(), 1..3), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut written = line(&outputs, "seal");
            let at = at.index(written.len());
            written[at] = byte;
            if let Some(fast) = sealed(&written) {
                let read = through_serde(&written);
                prop_assert!(read.is_some(), "read a line serde refuses: {}", String::from_utf8_lossy(&written));
                let read = read.unwrap();
                prop_assert_eq!(fast.outputs, read.outputs);
                prop_assert_eq!(fast.seal, read.seal);
            }
        }
    }
}
