//! The player's side of Forge packs. The Hub's read API has one typed model ([`api`]),
//! written by `hub index` ([`publish`], which applies the Hub's publish rules) and read by
//! `launcher sync` ([`sync`]). The launcher trusts only what it verified: every name from
//! the Hub is checked before it names a file, every answer is bounded by its type, and an
//! archive is installed only once its SHA-256, its signature and its own manifest agree
//! with what resolution chose. `docs/launcher.md` states the trust model.

mod add_map;
pub mod api;
mod catalogs;
mod client;
mod detail_page;
pub mod finding;
mod install;
mod layout_check;
mod paks;
mod profile;
pub mod publish;
pub mod report;
pub mod sync;

pub use add_map::add_map;
pub use finding::Finding;
pub use layout_check::check_layout;
pub use publish::{index, IndexArgs};
pub use sync::{sync, SyncArgs};

/// The native inventory reader's bound, across a profile.
pub const MAX_BLOCKS: usize = 4096;
