//! The IoStore error: a stable code and a message.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error[{code}]: {message}")]
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

pub type Result<T> = std::result::Result<T, IoStoreError>;
