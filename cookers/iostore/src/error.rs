//! The IoStore error: a stable code and a message.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoStoreError {
    pub code: &'static str,
    pub message: String,
}

impl IoStoreError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        IoStoreError {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for IoStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)
    }
}

impl std::error::Error for IoStoreError {}

pub type Result<T> = std::result::Result<T, IoStoreError>;
