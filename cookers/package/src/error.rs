//! The package error: a stable code and a message naming the part of the package.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error[{code}]: {message}")]
pub struct PackageError {
    pub code: &'static str,
    pub message: String,
}

impl PackageError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        PackageError {
            code,
            message: message.into(),
        }
    }

    /// A read failure inside `part` of the package.
    pub fn read(part: &str, error: forge_bytes::ReadError) -> Self {
        PackageError::new("package_read", format!("{part}: {error}"))
    }
}

pub type Result<T> = std::result::Result<T, PackageError>;
