//! A build engine that knows no game. A [`graph::Graph`] of steps, each running one pure
//! [`cooker::Cooker`] over bytes; keys from the cooker's name and version, its parameters
//! and its inputs' content ([`fingerprint`]); a content-addressed [`store`] with an action
//! log; a [`stat_cache`] and a no-op [`seal`] so an unchanged build reads no source; the
//! scheduler ([`execute`]); outputs stored as recipes over their inputs ([`splice`]); folders made to hold exactly a set of outputs
//! ([`materialize`]); a build-folder [`lock`]; and a shared cache over the Bazel HTTP
//! protocol ([`remote`]). What a kind means, where its outputs land and how steps are
//! wired is the planning layer's.

pub mod cooker;
pub mod execute;
pub mod fingerprint;
pub mod graph;
mod json_shape;
pub mod keyed_log;
pub mod leaves;
pub mod lock;
pub mod materialize;
pub mod remote;
pub mod seal;
pub mod spare;
pub mod splice;
pub mod stage_key;
pub mod stat_cache;
pub mod store;
#[cfg(test)]
mod test_support;

pub use cooker::{CookCtx, Cooked, Cooker, Inputs, Names, Outputs};
use mjolnir_files::atomic;
pub use splice::{Recipe, Splicing};
