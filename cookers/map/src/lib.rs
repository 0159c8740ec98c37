//! Maps that use Forge packs (`docs/maps.md`).
//!
//! A map's level document ([`Level`]) carries the `blam.forge_packs` fragment (`docs/maps.md`): which
//! packs, at which versions, and which of their blocks the map's palette offers, in order.
//! [`bake`] is the palette stage of a standalone bake: it refuses what the engine or the
//! launcher cannot take (a canvas override, more than 63 packs, more than 200 custom
//! references, a palette past 255 entries, a block that is not in its pack's catalog, a
//! crate that is not in the input Paks) and writes the [`Palette`]: flat indices, the
//! crates to preload and the `^version` dependency on each pack. [`check_layout`] checks a
//! map's placed objects against its palette, bounds and object budget.
//!
//! Nothing here reads files: the pipeline passes the documents' text, the catalogs, and
//! the crate packages it found in the Paks.

mod bake;
pub mod circuit;
pub mod expect;
pub mod layout;
mod level;
pub mod overview;

pub use bake::{bake, crate_package, level_checks, PackRelease, Palette, PaletteEntry};
pub use layout::{check_layout, Layout, Placed};
pub use level::{parse_level, Level, LevelPack};

/// The engine's palette: 255 entries, standard objects included.
pub const MAX_PALETTE: usize = 255;
/// At most this many packs in one map's palette.
pub const MAX_PACKS: usize = 63;
/// At most this many custom (pack) references in one map's palette.
pub const MAX_CUSTOM: usize = 200;
