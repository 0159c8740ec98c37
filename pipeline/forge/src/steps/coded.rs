//! Every cooker crate's error becomes a `Diagnostic` here: each keeps or gets its stable
//! code, and the step says which file it is about.

use forge_contract::Diagnostic;

use super::finding;

/// An error with a stable code a pack author can look up.
pub trait Coded: std::fmt::Display {
    fn code(&self) -> &'static str;
    /// The message without the code (a coded error's `Display` may include it).
    fn message(&self) -> String {
        self.to_string()
    }
}

/// The error as a finding about `file`.
pub fn diagnostic(file: &str, e: &impl Coded) -> Vec<Diagnostic> {
    vec![finding(e.code(), file, e.message())]
}

macro_rules! coded_struct {
    ($($t:ty),*) => {$(
        impl Coded for $t {
            fn code(&self) -> &'static str {
                self.code
            }
            fn message(&self) -> String {
                self.message.clone()
            }
        }
    )*};
}

coded_struct!(
    forge_iostore::IoStoreError,
    forge_mesh::MeshError,
    forge_gltf::ImportError,
    forge_collision::CollisionError,
    forge_package::PackageError
);

/// Intermediates the pipeline wrote itself: if one does not read back, the cache or a
/// cooker is wrong, not the pack.
macro_rules! bad_intermediate {
    ($($t:ty),*) => {$(
        impl Coded for $t {
            fn code(&self) -> &'static str {
                "bad_intermediate"
            }
        }
    )*};
}

bad_intermediate!(
    forge_bytes::ReadError,
    forge_tags::TagError,
    forge_actor::ActorError,
    image::ImageError,
    serde_json::Error
);

impl Coded for forge_release::archive::ArchiveError {
    fn code(&self) -> &'static str {
        "archive_write"
    }
}
