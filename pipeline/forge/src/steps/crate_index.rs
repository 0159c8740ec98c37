//! `crate_index`: which chunks a set's container holds, by id, sorted: what a map's palette
//! bake looks its crates up in. The container changes with any block's edit; the list
//! changes only when a block (and so a chunk) comes or goes, so a map step that reads it
//! instead of the container re-runs only when its palette could have changed.

use forge_iostore::ids::ChunkId;

use super::assemble;
use super::common::{input, source_file};
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "crate_index",
        version: 1,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::Nowhere,
    wire,
};

pub const OUTPUT: &str = "chunks.json";
const CONTAINER: &str = "container.utoc";

fn wire(w: &Wiring) -> Option<Wired> {
    let utoc = forge_release::container::container_files(w.pack_id())[0].clone();
    Wired::inputs(vec![w.upstream(CONTAINER, &assemble::KIND, utoc)])
}

fn cook(_step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(CONTAINER);
    let mut ids = forge_iostore::Toc::chunk_ids(input(inputs, CONTAINER, &file)?)
        .map_err(|e| vec![finding(e.code, &file, e.message)])?;
    // By their bytes, which is the order of their hex.
    ids.sort_unstable_by_key(|id| id.0);
    Ok(vec![(OUTPUT.to_string(), listed(&ids))])
}

/// The ids as a compact JSON array of their hex, written out directly: the step waits on
/// the set's container, and a catalog's 3,600 ids formatted a byte at a time into strings,
/// then into a tree, were most of its 0.7 ms on a one-block edit's path.
fn listed(ids: &[ChunkId]) -> Vec<u8> {
    let mut list = Vec::with_capacity(2 + ids.len() * 27);
    list.push(b'[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            list.push(b',');
        }
        list.push(b'"');
        push_hex(&mut list, id);
        list.push(b'"');
    }
    list.push(b']');
    list
}

/// A chunk id as the list holds it: its twelve bytes in hex.
pub fn hex(id: &ChunkId) -> String {
    let mut text = Vec::with_capacity(24);
    push_hex(&mut text, id);
    String::from_utf8(text).expect("hex digits are ASCII")
}

fn push_hex(out: &mut Vec<u8>, id: &ChunkId) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in id.0 {
        out.extend([DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::compact;
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_list_is_the_sorted_hex_of_every_id_as_compact_json() {
        let ids: Vec<ChunkId> = [[0xff; 12], [0x00; 12], [0x0a; 12], [0xa0; 12], [0x0a; 12]]
            .into_iter()
            .map(ChunkId)
            .collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable_by_key(|id| id.0);
        let mut expected: Vec<String> = ids
            .iter()
            .map(|id| id.0.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        expected.sort();
        assert_eq!(listed(&sorted), compact(&Value::from(expected)));
        assert_eq!(hex(&ids[2]), "0a".repeat(12));
        assert_eq!(listed(&[]), b"[]");
    }
}
