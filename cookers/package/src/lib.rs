//! UE 5.8 zen packages, the cooked `.uasset` form an IoStore container holds.

pub mod container_header;
mod error;
pub mod header;
mod imports;
mod legacy_header;
pub mod material_instance;
pub mod names;
pub mod namespace;
pub mod object_index;
mod package;
pub mod properties;
mod rename;
pub mod script_objects;
pub mod static_mesh;

pub use container_header::ContainerHeader;
pub use error::{PackageError, Result};
pub use header::ZenHeader;
pub use object_index::ObjectIndex;
pub use package::{Package, PACKAGE_TAG};
pub use script_objects::ScriptObjects;
