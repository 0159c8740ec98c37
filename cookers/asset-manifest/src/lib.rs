//! The `myrlin.asset-manifest/1` format (contract minor 1.5): an asset job's manifest, its
//! vocabulary, the rights its inputs declare, and a lint that reports every problem at
//! once, each with a stable code and a `where` (`docs/asset-manifest.md`).
//!
//! Pure: text in, issues out. Reading the inputs ZIP is the caller's.

pub mod derive;
mod lint;
pub mod rights;
pub mod vocabulary;

pub use lint::{lint, seed_where, Issue};
pub use rights::Inputs;
