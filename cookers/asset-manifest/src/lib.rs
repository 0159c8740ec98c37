//! The `myrlin.asset-manifest/1` format (contract minor 1.5): an asset job's manifest, its
//! vocabulary, the rights its inputs declare, and a lint that reports every problem at
//! once, each with a stable code and a `where` (`docs/asset-manifest.md`).
//!
//! A review (`review`) records a person's verdict on each delivered file.
//!
//! Pure: text in, issues out. Reading the inputs ZIP is the caller's.

pub mod derive;
mod lint;
pub mod review;
pub mod rights;
pub mod vocabulary;

pub use lint::{lint, seed_where, Issue};
pub use rights::Inputs;

use serde_json::Value;

/// The items of `value[key]`, none when it is not an array.
fn list<'v>(value: &'v Value, key: &str) -> &'v [Value] {
    value[key].as_array().map_or(&[], Vec::as_slice)
}

/// Every file of a manifest with its JSON pointer, in the manifest's order.
pub fn manifest_files(manifest: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for (a, asset) in list(manifest, "assets").iter().enumerate() {
        for (r, rep) in list(asset, "representations").iter().enumerate() {
            for (f, file) in list(rep, "files").iter().enumerate() {
                out.push((format!("/assets/{a}/representations/{r}/files/{f}"), file));
            }
        }
    }
    out
}
