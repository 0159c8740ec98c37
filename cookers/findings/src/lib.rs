//! A coded finding with a location: what every reader, cooker and the build engine report.
//! It names no game concept, so the build engine can report findings without knowing the
//! Forge contract, which re-exports it.

use std::fmt;

/// How bad a finding is. Errors stop a cook or a publish; warnings are reported and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding. `code` is stable: tools and tests match on it, so a code is never reused
/// for a different rule.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    /// The file the finding is about, as the user named it.
    pub file: String,
    /// RFC 6901 JSON pointer into `file`; empty for the whole document.
    pub pointer: String,
    /// 1-based line and column of the value at `pointer`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    pub message: String,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}[{}]: {}", self.code, self.file)?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, ":{line}:{column}")?;
        }
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A finding that is not about a JSON document (a model, a missing file).
pub fn finding(code: &'static str, file: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        code,
        severity: Severity::Error,
        file: file.to_string(),
        pointer: String::new(),
        line: None,
        column: None,
        message: message.into(),
    }
}
