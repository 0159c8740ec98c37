//! `block_group`: a large set's blocks' small files, a group at a time (`plan::groups`):
//! each block's chunk index (`block_chunks`) in one file, and each block's facts
//! (`block_facts`) in another (`FGRP`, `forge_release::group`). The set's `assemble` and
//! `documents` read every block's; at 256 blocks each read back from the store one by one,
//! 1.6 ms of the set's steps on an edit's path. Indexes and facts are apart so that an
//! edit that changes only a block's facts (a material's name) leaves the container's
//! inputs as they were.

use serde::Deserialize;
use serde_json::json;

use super::coded::diagnostic;
use super::common::{input, params, source_file};
use super::kind::{Lands, Scope};
use super::{block_chunks, block_facts, catalog};
use crate::wiring::{group_input, StepKind, Wired, Wiring};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use forge_contract::Diagnostic;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "block_group",
        version: 1,
        outputs: Names::Fixed(|_| vec![INDEXES.to_string(), FACTS.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Group,
    lands: Lands::Nowhere,
    wire,
};

/// The group's blocks' chunk indexes (`index.fblk`), by block.
pub const INDEXES: &str = "indexes.fgrp";
/// The group's blocks' facts (`facts.json`), by block.
pub const FACTS: &str = "facts.fgrp";

#[derive(Deserialize)]
struct Params {
    blocks: Vec<String>,
}

fn wire(w: &Wiring) -> Option<Wired> {
    let blocks = w.group();
    let inputs = blocks
        .iter()
        .flat_map(|block| {
            [
                block_chunks::index_of_block(w, block),
                block_facts::of_block(w, block),
            ]
        })
        .collect();
    Some(Wired {
        params: json!({ "blocks": blocks }).to_string(),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let params: Params = params(step, &file)?;
    let group = |name: fn(&str) -> String| -> Result<Vec<u8>, Vec<Diagnostic>> {
        let entries = params
            .blocks
            .iter()
            .map(|block| Ok((block.as_str(), input(inputs, &name(block), &file)?)))
            .collect::<Result<Vec<_>, Vec<Diagnostic>>>()?;
        Ok(forge_release::group::to_bytes(&entries))
    };
    Ok(vec![
        (INDEXES.to_string(), group(block_chunks::index_input)?),
        (FACTS.to_string(), group(block_facts::input_name)?),
    ])
}

/// Each of `blocks`' file among a set step's `inputs`, in their order: from the set's
/// group files of `output` when the set is grouped (`plan::groups`), each holding exactly
/// its group's blocks in order; else the block's own input, named by `own`.
pub fn per_block<'a>(
    inputs: &'a Inputs,
    blocks: &[String],
    (output, own): (&str, fn(&str) -> String),
    file: &str,
) -> Result<Vec<&'a [u8]>, Vec<Diagnostic>> {
    if crate::plan::groups(blocks).next().is_none() {
        return blocks
            .iter()
            .map(|block| input(inputs, &own(block), file))
            .collect();
    }
    let mut files = Vec::with_capacity(blocks.len());
    for (n, members) in crate::plan::groups(blocks).enumerate() {
        let bytes = input(inputs, &group_input(n, output), file)?;
        let entries = forge_release::group::from_bytes(bytes).map_err(|e| diagnostic(file, &e))?;
        let names = entries.iter().map(|(name, _)| *name);
        if !names.eq(members.iter().map(String::as_str)) {
            return Err(vec![findings::finding(
                "block_group",
                file,
                format!(
                    "group {n}'s {output} does not hold its blocks ({}…) in order",
                    members[0]
                ),
            )]);
        }
        files.extend(entries.into_iter().map(|(_, bytes)| bytes));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{groups, GROUP, GROUPED_ABOVE};
    use std::sync::Arc;

    fn blocks(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("b{i:03}")).collect()
    }

    /// Each block's index as its own input, and as the groups `block_group` makes of them.
    fn inputs(blocks: &[String]) -> (Inputs, Inputs) {
        let index = |block: &str| format!("FBLK {block}").into_bytes();
        let own = blocks
            .iter()
            .map(|b| (block_chunks::index_input(b), Arc::new(index(b))))
            .collect();
        let grouped = groups(blocks)
            .enumerate()
            .map(|(n, members)| {
                let files: Vec<Vec<u8>> = members.iter().map(|b| index(b)).collect();
                let entries: Vec<(&str, &[u8])> = members
                    .iter()
                    .zip(&files)
                    .map(|(b, f)| (b.as_str(), f.as_slice()))
                    .collect();
                let bytes = forge_release::group::to_bytes(&entries);
                (group_input(n, INDEXES), Arc::new(bytes))
            })
            .collect();
        (own, grouped)
    }

    #[test]
    fn only_a_set_of_more_than_64_blocks_is_grouped_in_runs_of_16() {
        assert_eq!(groups(&blocks(GROUPED_ABOVE)).count(), 0);
        let sizes: Vec<usize> = groups(&blocks(GROUPED_ABOVE + 1)).map(<[_]>::len).collect();
        assert_eq!(sizes, [GROUP, GROUP, GROUP, GROUP, 1]);
        assert_eq!(groups(&blocks(256)).count(), 16);
    }

    #[test]
    fn a_set_step_reads_each_blocks_file_alike_from_its_group_or_its_own_input() {
        let read = |inputs: &Inputs, blocks: &[String]| {
            per_block(
                inputs,
                blocks,
                (INDEXES, block_chunks::index_input),
                "m.json",
            )
            .map(|files| files.iter().map(|f| f.to_vec()).collect::<Vec<_>>())
        };
        for n in [3, GROUPED_ABOVE, 70, 256] {
            let set = blocks(n);
            let (own, grouped) = inputs(&set);
            let expected: Vec<Vec<u8>> = set
                .iter()
                .map(|b| format!("FBLK {b}").into_bytes())
                .collect();
            let from = if n > GROUPED_ABOVE { &grouped } else { &own };
            assert_eq!(read(from, &set).unwrap(), expected, "{n} blocks");
        }
        // A grouped set does not fall back on blocks' own inputs.
        let set = blocks(70);
        let (own, _) = inputs(&set);
        assert_eq!(read(&own, &set).unwrap_err()[0].code, "missing_input");
    }

    #[test]
    fn a_group_that_does_not_hold_its_blocks_in_order_is_refused() {
        let set = blocks(70);
        let mut swapped = set.clone();
        swapped.swap(0, 1);
        let first = group_input(0, INDEXES);
        let damaged = [
            ("two blocks swapped", inputs(&swapped).1[&first].clone()),
            ("no entries", Arc::new(b"FGRP".to_vec())),
        ];
        for (why, group) in damaged {
            let mut grouped = inputs(&set).1;
            grouped.insert(first.clone(), group);
            let read = per_block(
                &grouped,
                &set,
                (INDEXES, block_chunks::index_input),
                "m.json",
            );
            assert_eq!(read.unwrap_err()[0].code, "block_group", "{why}");
        }
    }
}
