//! The Forge layer: what the build engine runs for a Forge pack.
//!
//! The engine (`engine`) knows steps, keys and a store. This crate knows packs and blocks:
//! each step kind in `steps/` (its cooker, scope, where it lands and how it is wired), the
//! plan that turns a pack's catalog into a graph (`plan`, `wiring`), the set layout the
//! game reads (`layout`), and the donors taken from the game's containers (`donors`,
//! `paks`). The `mjolnir` binary drives it; nothing here prints or parses arguments.

pub mod blender;
pub mod donors;
pub mod layout;
pub mod paks;
pub mod plan;
pub mod steps;
pub mod suggest;
pub mod wiring;

// One implementation of atomic writes serves the cook and the launcher.
use mjolnir_files::atomic;
// The engine's modules, under the names the Forge layer has always used.
use engine::{execute, graph, stat_cache};
