//! Coded findings with a location, shared by every check of the contract.

pub use findings::{Diagnostic, Severity};

/// Collects findings for one file, filling in line and column from the source text.
pub struct Findings<'a> {
    file: String,
    text: &'a str,
    pub(crate) list: Vec<Diagnostic>,
    /// Where each value of the text is: made at the first finding, then shared by all.
    positions: Option<crate::json_position::Positions<'a>>,
}

impl<'a> Findings<'a> {
    pub fn new(file: impl Into<String>, text: &'a str) -> Self {
        Findings {
            file: file.into(),
            text,
            list: Vec::new(),
            positions: None,
        }
    }

    /// A finding for every key that repeats within its object.
    pub fn refuse_duplicate_keys(&mut self, text: &str) {
        for pointer in crate::duplicate_keys::duplicate_keys(text) {
            let key = pointer.rsplit('/').next().unwrap_or_default().to_string();
            self.error(
                "duplicate_key",
                &pointer,
                format!("the key {key:?} appears twice in one object; readers disagree on which copy counts, so keep one"),
            );
        }
    }

    pub fn error(&mut self, code: &'static str, pointer: &str, message: impl Into<String>) {
        self.push(code, Severity::Error, pointer, message.into());
    }

    pub fn warning(&mut self, code: &'static str, pointer: &str, message: impl Into<String>) {
        self.push(code, Severity::Warning, pointer, message.into());
    }

    fn push(&mut self, code: &'static str, severity: Severity, pointer: &str, message: String) {
        let text = self.text;
        let positions = self
            .positions
            .get_or_insert_with(|| crate::json_position::Positions::new(text));
        let position = positions.locate(pointer);
        self.list.push(Diagnostic {
            code,
            severity,
            file: self.file.clone(),
            pointer: pointer.to_string(),
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
            message,
        });
    }

    /// How many findings so far.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }
}

/// The finding for text that is not JSON at all, with serde_json's line and column.
pub fn syntax_error(file: &str, error: &serde_json::Error) -> Diagnostic {
    Diagnostic {
        code: "not_json",
        severity: Severity::Error,
        file: file.to_string(),
        pointer: String::new(),
        line: Some(error.line()),
        column: Some(error.column()),
        message: format!("this is not valid JSON: {error}"),
    }
}

pub use crate::json_position::child;
