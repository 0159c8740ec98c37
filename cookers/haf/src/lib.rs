//! The HAF multi-pack loader (`docs/haf.md`): pack files are parsed, resolved into one load
//! order and merged into one model registry, and the load report says how. Pure: the
//! caller discovers the files and reads the game's module list.
//!
//! Built: duplicate ids, iterated `dependsOn`, the game's module order, `dependsOn` and
//! `loadAfter` layered on it, the merge by pawn, declared overrides, undeclared conflicts,
//! `disabled`, the tuning tables, the schema-version rules, and file assets (`assets`).

pub mod assets;
mod pack;
mod resolve;

pub use pack::{parse, Pack, ParseError};
pub use resolve::{resolve, Module, Placed, Resolution};

/// The schema version this loader implements.
pub const SCHEMA_VERSION: u64 = 1;
/// The oldest schema version it reads without asking for a re-bake.
pub const READS_FROM: u64 = 1;
