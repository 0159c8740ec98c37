//! Release versions and dependency ranges, with the launcher's reading of a bare version.

use semver::{Comparator, Op, Version, VersionReq};

pub const MAX_VERSION_BYTES: usize = 96;

#[derive(Debug, PartialEq, Eq)]
pub enum VersionProblem {
    TooLong(usize),
    NotSemver(String),
}

/// Parses an exact SemVer release version of at most 96 bytes.
pub fn parse_version(text: &str) -> Result<Version, VersionProblem> {
    if text.len() > MAX_VERSION_BYTES {
        return Err(VersionProblem::TooLong(text.len()));
    }
    Version::parse(text).map_err(|e| VersionProblem::NotSemver(e.to_string()))
}

/// Why a dependency range does not parse.
#[derive(Debug, thiserror::Error)]
pub enum RangeError {
    #[error("a range cannot be empty")]
    Empty,
    #[error("{0}")]
    Invalid(#[from] semver::Error),
}

/// Parses a dependency range the way the launcher does: Rust SemVer requirements, except
/// that a bare complete version (`1.2.3`) is an exact pin, where the semver crate would
/// read it as `^1.2.3`.
pub fn parse_range(text: &str) -> Result<VersionReq, RangeError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(RangeError::Empty);
    }
    if let Ok(exact) = Version::parse(trimmed) {
        return Ok(VersionReq {
            comparators: vec![Comparator {
                op: Op::Exact,
                major: exact.major,
                minor: Some(exact.minor),
                patch: Some(exact.patch),
                pre: exact.pre,
            }],
        });
    }
    Ok(VersionReq::parse(trimmed)?)
}

/// The caret line a release belongs to: maps and layouts built with `v` accept any later
/// release that `^v` matches.
pub fn caret_line(v: &Version) -> VersionReq {
    VersionReq {
        comparators: vec![Comparator {
            op: Op::Caret,
            major: v.major,
            minor: Some(v.minor),
            patch: Some(v.patch),
            pre: v.pre.clone(),
        }],
    }
}

/// True when `new` is in the caret line of `old` (and not older than it).
pub fn same_line(old: &Version, new: &Version) -> bool {
    new >= old && caret_line(old).matches(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_version_is_an_exact_pin() {
        let req = parse_range("1.2.3").unwrap();
        assert!(req.matches(&Version::new(1, 2, 3)));
        assert!(!req.matches(&Version::new(1, 2, 4)));
        let caret = parse_range("^1.2.3").unwrap();
        assert!(caret.matches(&Version::new(1, 9, 0)));
    }

    #[test]
    fn launcher_forms() {
        for ok in ["~1.2.3", ">=1.2.3, <2.0.0", "^0.2", "=0.2.0", "*"] {
            assert!(parse_range(ok).is_ok(), "{ok}");
        }
        for bad in ["", "latest", "1.2.3.4", ">>1"] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn version_bounds() {
        assert!(parse_version("0.2.0").is_ok());
        assert!(parse_version("v0.2.0").is_err());
        assert!(parse_version("0.2").is_err());
        let long = format!("1.0.0-{}", "a".repeat(90));
        assert_eq!(long.len(), 96);
        assert!(parse_version(&long).is_ok());
        let longer = format!("{long}b");
        assert_eq!(parse_version(&longer), Err(VersionProblem::TooLong(97)));
    }

    #[test]
    fn caret_lines() {
        let v = |s| Version::parse(s).unwrap();
        assert!(same_line(&v("0.2.0"), &v("0.2.5")));
        assert!(!same_line(&v("0.2.0"), &v("0.3.0")));
        assert!(same_line(&v("1.2.0"), &v("1.9.0")));
        assert!(!same_line(&v("1.2.0"), &v("2.0.0")));
        assert!(!same_line(&v("0.2.1"), &v("0.2.0")));
    }
}
