//! Where each part of a pack document sits in its JSON. The typed readers (`manifest`,
//! `geometry`) check a document; this is for the steps and commands that keep a part in
//! its authored form (split into entries, reduced to a set, patched by `forge suggest`,
//! published as written), so that the documents' shape is known here and nowhere else.

use serde_json::{json, Value};

/// `mjolnir.json`'s catalog, as authored.
pub fn catalog(manifest: &Value) -> &Value {
    &manifest["forge_pack"]
}

/// The catalog's id, when it has one.
pub fn catalog_id(manifest: &Value) -> Option<&str> {
    catalog(manifest)["id"].as_str()
}

/// The catalog's entries, in order (none when the document has no catalog).
pub fn catalog_entries(manifest: &Value) -> &[Value] {
    catalog(manifest)["blocks"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

pub fn catalog_entries_mut(manifest: &mut Value) -> Option<&mut Vec<Value>> {
    manifest
        .get_mut("forge_pack")?
        .get_mut("blocks")?
        .as_array_mut()
}

/// Where a pointer by block id (`/blocks/wall_door/apertures/0` in `geometry.json`,
/// `/forge_pack/blocks/wall_door/dimensions_m` in `mjolnir.json`) really is: the same
/// place by the block's index. `None` when the pointer names no block of `document`.
pub fn pointer_by_index(document: &Value, pointer: &str) -> Option<String> {
    for (prefix, blocks) in [
        ("/forge_pack/blocks/", catalog_entries(document)),
        ("/blocks/", geometry_blocks(document)),
    ] {
        let Some(rest) = pointer.strip_prefix(prefix) else {
            continue;
        };
        let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
        if id.parse::<usize>().is_ok() {
            return None;
        }
        let index = blocks.iter().position(|b| b["id"] == id)?;
        let at = format!("{prefix}{index}");
        return Some(if tail.is_empty() {
            at
        } else {
            format!("{at}/{tail}")
        });
    }
    None
}

/// The catalog's blocks (id and tag) that `changes.json` has no `bloc` row for, in
/// catalog order: the Hub shows the change list, and a new block missing from it would
/// arrive unannounced.
pub fn blocks_without_change_row<'a>(
    manifest: &'a Value,
    changes: &Value,
) -> Vec<(&'a str, &'a str)> {
    let rows: Vec<&str> = changes["tags"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|row| row["group"] == "bloc")
        .filter_map(|row| row["tag"].as_str())
        .collect();
    catalog_entries(manifest)
        .iter()
        .filter_map(|b| Some((b["id"].as_str()?, b["tag"].as_str()?)))
        .filter(|(_, tag)| !rows.contains(tag))
        .collect()
}

/// The finding's text for a block `changes.json` lacks a row for, with the row to add.
pub fn change_row_message(id: &str, tag: &str) -> String {
    let row = json!({"group": "bloc", "tag": tag, "fields": []});
    format!("block {id:?} is new and changes.json has no row for its crate: add {row} to \"tags\" (`mjolnir forge suggest --write` adds it for a block it adds)")
}

/// `geometry.json`'s blocks, in order.
pub fn geometry_blocks(geometry: &Value) -> &[Value] {
    geometry["blocks"].as_array().map_or(&[], Vec::as_slice)
}

pub fn geometry_blocks_mut(geometry: &mut Value) -> Option<&mut Vec<Value>> {
    geometry.get_mut("blocks")?.as_array_mut()
}

/// The block `id` of a geometry document, with its index.
pub fn geometry_block<'a>(geometry: &'a Value, id: &str) -> Option<(usize, &'a Value)> {
    geometry_blocks(geometry)
        .iter()
        .enumerate()
        .find(|(_, b)| b["id"] == id)
}

/// The JSON pointer of a place in the geometry document's block `index`: `tail` is the
/// path inside the block (`apertures/0`), or empty for the block itself.
pub fn geometry_pointer(index: usize, tail: &str) -> String {
    if tail.is_empty() {
        format!("/blocks/{index}")
    } else {
        format!("/blocks/{index}/{tail}")
    }
}

/// Marks a reduced `--only` build of the blocks `only`, naming the full set's version, so
/// that it can never be published as the full set.
pub fn mark_diagnostic(manifest: &mut Value, only: &[String]) {
    manifest["diagnostic"] = json!({
        "reason": "reduced --only build; never publish it as the full set",
        "only": only,
        "full_set_version": manifest["version"].clone(),
    });
}

/// A reduced build's marker: the blocks it holds, and the full set's version it was cut
/// from (empty when the marker does not say).
pub fn diagnostic_marker(manifest: &Value) -> Option<(&Value, &str)> {
    let marker = manifest.get("diagnostic")?;
    Some((
        &marker["only"],
        marker["full_set_version"].as_str().unwrap_or_default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_parts_are_found_where_the_documents_put_them() {
        let manifest =
            json!({"forge_pack": {"id": "foundry", "blocks": [{"id": "a"}, {"id": "b"}]}});
        assert_eq!(catalog_id(&manifest), Some("foundry"));
        assert_eq!(catalog_entries(&manifest).len(), 2);
        assert!(catalog_entries(&json!({"type": "map"})).is_empty());
        let geometry = json!({"blocks": [{"id": "a"}, {"id": "b"}]});
        assert_eq!(geometry_block(&geometry, "b").map(|(i, _)| i), Some(1));
        assert_eq!(geometry_pointer(1, "apertures/0"), "/blocks/1/apertures/0");
        assert_eq!(geometry_pointer(1, ""), "/blocks/1");
        let mut reduced = json!({"version": "0.2.0"});
        mark_diagnostic(&mut reduced, &["a".into()]);
        assert_eq!(diagnostic_marker(&reduced), Some((&json!(["a"]), "0.2.0")));
        assert_eq!(diagnostic_marker(&manifest), None);
    }
}
