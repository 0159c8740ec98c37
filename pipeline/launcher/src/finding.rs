//! One problem the launcher or the Hub found: a stable code, what it is about (a file, or
//! a release on the Hub), and a message a player or an author can act on.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    /// The file or the Hub release it is about.
    pub subject: String,
    pub message: String,
}

impl Finding {
    pub fn new(code: &'static str, subject: impl Into<String>, message: impl Into<String>) -> Self {
        Finding {
            code,
            subject: subject.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "error[{}]: {}: {}",
            self.code, self.subject, self.message
        )
    }
}
