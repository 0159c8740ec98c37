//! How commands print findings: each on stderr as `error[code]: file:line:col at /pointer:
//! message`, or all of them as JSON on stdout with `--json`; and the exit code they make.

use forge_contract::Diagnostic;
use serde_json::json;

pub fn print_findings(findings: &[Diagnostic], as_json: bool) {
    if as_json {
        print!("{}", json_out::pretty_text(&json!({"findings": findings})));
    } else {
        for d in findings {
            eprintln!("{d}");
        }
    }
}

/// 1 when any finding is an error, else 0.
pub fn exit_code(findings: &[Diagnostic]) -> i32 {
    if findings.iter().any(Diagnostic::is_error) {
        1
    } else {
        0
    }
}
