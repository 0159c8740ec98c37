//! A key for a whole stage of a graph, known before any of its steps' entries are.
//!
//! A step's own key needs its inputs' content hashes, and those of an upstream step's
//! outputs come from its entry, so looking a graph up step by step costs a round trip per
//! level. This key instead names each step by what it is made from: the sources' hashes,
//! and for an upstream output the name of the step that makes it, recursively. Only the
//! sources are read to compute it. The remote cache files a stage's entries under it
//! ([`crate::remote::bundle`]), so a fresh clone asks for them all at once.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use rayon::prelude::*;

use crate::fingerprint::Fingerprint;
use crate::graph::{Graph, Input, StepId};
use crate::stat_cache::StatCache;

/// The key of the steps from `first` on. `prior` gives the hash of an output of a step
/// before `first`, whose results are known.
pub fn of(
    graph: &Graph,
    first: StepId,
    prior: &dyn Fn(StepId, &str) -> Option<String>,
    stat_cache: &StatCache,
    pool: &rayon::ThreadPool,
) -> String {
    let steps = &graph.steps[first.min(graph.steps.len())..];
    let sources: BTreeSet<&Path> = steps
        .iter()
        .flat_map(|s| &s.inputs)
        .filter_map(|i| match i {
            Input::Source { path, .. } => Some(path.as_path()),
            Input::Upstream { .. } => None,
        })
        .collect();
    // An unreadable source keys as empty: the stage then misses, and the step that reads
    // it reports why.
    let hashes: HashMap<&Path, String> = pool.install(|| {
        sources
            .into_par_iter()
            .map(|path| {
                let hash = stat_cache
                    .lookup(path)
                    .map(|(hash, _)| hash)
                    .or_else(|| stat_cache.hash(path).ok().map(|h| h.hash))
                    .unwrap_or_default();
                (path, hash)
            })
            .collect()
    });
    let mut made_of: Vec<String> = Vec::with_capacity(steps.len());
    for step in steps {
        let inputs = step
            .inputs
            .iter()
            .map(|input| match input {
                Input::Source { name, path } => (name.clone(), hashes[path.as_path()].clone()),
                Input::Upstream { name, step, output } => {
                    let hash = match step.checked_sub(first) {
                        Some(i) => blake3::hash(format!("{}\0{output}", made_of[i]).as_bytes())
                            .to_hex()
                            .to_string(),
                        None => prior(*step, output).unwrap_or_default(),
                    };
                    (name.clone(), hash)
                }
            })
            .collect();
        let fingerprint =
            Fingerprint::new(step.kind.name, step.kind.version, step.key_params(), inputs);
        made_of.push(fingerprint.key());
    }
    made_of.sort_unstable();
    let mut h = blake3::Hasher::new();
    h.update(b"mjolnir-stage\0");
    for key in &made_of {
        h.update(key.as_bytes());
    }
    h.finalize().to_hex().to_string()
}
