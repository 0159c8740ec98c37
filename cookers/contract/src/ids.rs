//! Identifier rules of the contract: pack ids (Hub slugs), entry ids, categories, names
//! and the tag path every entry must carry.

/// A pack id or Hub slug: 2-64 of `a-z 0-9 -`, starting with a letter or digit.
pub fn is_pack_id(s: &str) -> bool {
    (2..=64).contains(&s.len())
        && starts_alphanumeric(s)
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// An entry id or category: 1-64 of `a-z 0-9 - _`, starting with a letter or digit.
pub fn is_entry_id(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && starts_alphanumeric(s)
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// A display name: 1-80 characters, not all whitespace.
pub fn is_name(s: &str) -> bool {
    (1..=80).contains(&s.chars().count()) && !s.trim().is_empty()
}

fn starts_alphanumeric(s: &str) -> bool {
    s.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// The one tag path an entry may have: `objects\mjolnir\forge\<pack-id>\<entry-id>`.
pub fn entry_tag(pack_id: &str, entry_id: &str) -> String {
    format!("objects\\mjolnir\\forge\\{pack_id}\\{entry_id}")
}

/// The folder of the pack's Unreal assets: `/Game/MJOLNIR/Forge/<pack-id>/`.
/// Where every pack's Unreal packages live, each pack in its own folder below.
pub const UNREAL_PACKS_ROOT: &str = "/Game/MJOLNIR/Forge/";

pub fn unreal_root(pack_id: &str) -> String {
    format!("{UNREAL_PACKS_ROOT}{pack_id}/")
}

pub const PACK_ID_RULE: &str =
    "2-64 lowercase letters, digits or hyphens, beginning with a letter or digit";
pub const ENTRY_ID_RULE: &str =
    "1-64 lowercase letters, digits, hyphens or underscores, beginning with a letter or digit";
pub const NAME_RULE: &str = "1-80 characters, not blank";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_ids() {
        for ok in ["ab", "foundry", "foundry-wide", "9x", &"a".repeat(64)] {
            assert!(is_pack_id(ok), "{ok}");
        }
        for bad in [
            "a",
            "-ab",
            "Foundry",
            "foundry_wide",
            "a b",
            "",
            &"a".repeat(65),
            "é1",
        ] {
            assert!(!is_pack_id(bad), "{bad}");
        }
    }

    #[test]
    fn entry_ids() {
        for ok in ["a", "floor_2x2", "0", "a-b_c", &"z".repeat(64)] {
            assert!(is_entry_id(ok), "{ok}");
        }
        for bad in ["", "_a", "-a", "A", "a.b", "..", "a\\b", &"z".repeat(65)] {
            assert!(!is_entry_id(bad), "{bad}");
        }
    }

    #[test]
    fn names() {
        assert!(is_name("F"));
        assert!(is_name(&"é".repeat(80)));
        assert!(!is_name(&"é".repeat(81)));
        assert!(!is_name(""));
        assert!(!is_name("   "));
    }
}
