//! The Forge pack contract, in one place.
//!
//! Every other crate uses these types: the catalog in `mjolnir.json` ([`Manifest`],
//! [`Catalog`], [`Entry`]), the collision source in `geometry.json` ([`GeometrySource`]),
//! and the rules for updating a pack ([`compat`]). The rules are those the Hub, the packer
//! and the launcher all enforce (the release contract, entry kinds, required features and
//! new fields, and updating a pack), documented in `docs/pack-contract.md`.
//!
//! Validation never stops at the first problem: each reader walks the whole document and
//! returns every [`Diagnostic`] with a stable code, the file, a JSON pointer and a line.
//! Nothing here touches the file system; callers pass text in.
//!
//! ```
//! let text = r#"{"schema_version": 1, "name": "Demo", "version": "0.1.0", "type": "content",
//!   "forge_pack": {"schema_version": 1, "id": "demo", "blocks": [{"id": "floor",
//!   "name": "Floor", "tag": "objects\\mjolnir\\forge\\demo\\floor", "category": "floors",
//!   "dimensions_m": [4, 4, 0.5]}]}}"#;
//! let (manifest, warnings) = forge_contract::parse_manifest("mjolnir.json", text).unwrap();
//! assert_eq!(manifest.catalog().unwrap().blocks[0].id, "floor");
//! assert!(warnings.is_empty());
//! ```

pub mod compat;
pub mod derive;
mod diagnostic;
pub mod document;
mod duplicate_keys;
mod fields;
pub mod geometry;
pub mod ids;
pub mod json_position;
pub mod manifest;
pub mod openings;
pub mod version;

pub use diagnostic::{child, syntax_error, Diagnostic, Findings, Severity};
pub use fields::Range;
pub use geometry::{
    parse_geometry, parse_geometry_entries, parse_geometry_lacking, BlockGeometry, GeometrySource,
    Origin,
};
pub use manifest::{parse_entry, parse_manifest, Catalog, Entry, Manifest};

/// Characters that make text display in another order than it is stored (bidirectional
/// overrides, isolates and marks): refused in names and archive paths alike.
pub use plain_path::is_bidi_control;
