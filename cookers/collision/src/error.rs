//! The collision cookers' error: a stable code, the hull it is about, and a message.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollisionError {
    pub code: &'static str,
    /// The hull the problem is in, when it is about one.
    pub hull: Option<String>,
    pub message: String,
}

impl CollisionError {
    pub fn new(code: &'static str, hull: Option<&str>, message: impl Into<String>) -> Self {
        CollisionError {
            code,
            hull: hull.map(str::to_string),
            message: message.into(),
        }
    }
}

impl fmt::Display for CollisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.hull {
            Some(h) => write!(f, "error[{}]: hull {h:?}: {}", self.code, self.message),
            None => write!(f, "error[{}]: {}", self.code, self.message),
        }
    }
}

impl std::error::Error for CollisionError {}
