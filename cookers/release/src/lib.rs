//! Releases: the `.mjolnir` archive (`docs/formats/archive.md`).
//!
//! [`archive::write`] zips the members deterministically (sorted, fixed timestamps, fixed
//! compression) and signs them when given a key. [`scan::scan`] runs the Hub scanner's
//! checks offline with its finding codes. [`signature`] holds the statement envelope and
//! Ed25519 over `"MJOLNIR-MOD-STATEMENT-V1\n" + payload`. Nothing here touches the file
//! system; the pipeline reads and writes.

pub mod archive;
pub mod container;
pub mod group;
mod prepare;
pub mod rules;
pub mod scan;
pub mod signature;

pub use prepare::{prepare, prepare_map, Prepared, LAYOUT_MEMBER, LEVEL_MEMBER};
