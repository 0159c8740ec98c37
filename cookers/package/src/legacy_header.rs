//! `CookedHeaderSize`: the size of the package's legacy (`.uasset`) header, which the zen
//! header replaces. It cannot be computed from a zen header alone (the legacy header holds
//! the script imports' names and other data the zen form drops), but what a rewrite
//! changes in it can: the names. So a header keeps the part of the value its names do not
//! account for, and the writer adds back what its names take now.
//!
//! The fixtures bear this out: any two fixture packages of one build with the same classes
//! and table sizes differ in `CookedHeaderSize` by exactly what [`ZenHeader::legacy_name_bytes`]
//! says (docs/formats/zen-package.md, "Headers as Unreal writes them").

use std::collections::BTreeSet;

use crate::header::ZenHeader;

/// What a name takes in a legacy name map: an FString (an i32 length, the characters and
/// a terminator) and two u16 hashes.
fn name_entry_size(name: &str) -> i64 {
    4 + string_bytes(name) + 4
}

/// An FString's characters and terminator: one byte each when ASCII, else two.
fn string_bytes(text: &str) -> i64 {
    if text.is_ascii() {
        text.len() as i64 + 1
    } else {
        2 * (text.encode_utf16().count() as i64 + 1)
    }
}

impl ZenHeader {
    /// The bytes of the legacy header that follow from the names: one name map entry per
    /// distinct name (the zen name map's and the imported packages'), and the package's
    /// name, which the legacy summary also spells out.
    pub fn legacy_name_bytes(&self) -> i64 {
        let distinct: BTreeSet<&str> = self
            .names
            .iter()
            .chain(&self.imported_packages)
            .map(String::as_str)
            .collect();
        let entries: i64 = distinct.into_iter().map(name_entry_size).sum();
        entries + string_bytes(&self.package_name().unwrap_or_default())
    }

    /// `CookedHeaderSize` for the header as it is now.
    pub fn cooked_header_size(&self) -> u32 {
        (self.legacy_header_rest + self.legacy_name_bytes()).clamp(0, u32::MAX as i64) as u32
    }
}
