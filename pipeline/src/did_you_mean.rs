//! "Did you mean": the known name closest to one that was mistyped, when one is close
//! enough to be the likely intent (`--only wal_door` → `wall_door`).

/// The candidate nearest to `typed` by edit distance (a swap of two letters counts once),
/// if it is within a third of the name's length (at least 2 edits). Ties go to the first.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let most = (typed.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(typed, c), c))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `"; did you mean X?"`, or nothing when no name is close.
pub fn hint<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, candidates)
        .map(|c| format!("; did you mean {c}?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_the_name_and_a_stranger_finds_none() {
        let names = ["wall_door", "floor_2x2", "ramp_1x2"];
        assert_eq!(closest("wal_door", names), Some("wall_door"));
        assert_eq!(closest("flor_2x2", names), Some("floor_2x2"));
        assert_eq!(closest("rmap_1x2", names), Some("ramp_1x2"));
        assert_eq!(closest("catwalk", names), None);
        assert_eq!(hint("catwalk", names), "");
    }
}
