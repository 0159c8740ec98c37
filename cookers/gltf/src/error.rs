//! The import error: a stable code, the file, and a message naming mesh and primitive.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    pub code: &'static str,
    pub file: String,
    pub message: String,
}

impl ImportError {
    pub fn new(code: &'static str, file: &str, message: impl Into<String>) -> Self {
        ImportError {
            code,
            file: file.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}: {}", self.code, self.file, self.message)
    }
}

impl std::error::Error for ImportError {}
