//! The build folder's layout: where sets, their cooked blocks and their previews go. Cook,
//! probe and the HTML report all find files through here.
//!
//! ```text
//! <out>/game/<pack>/<set>/                 the set: manifest, inventory, checks, content/
//! <out>/game/<pack>/<set>/cooked/<block>/  each block's shipped outputs
//! <out>/render/<pack>/<set>/               previews and the contact sheet
//! ```

use std::path::{Path, PathBuf};

/// The full set's name.
pub const FULL_SET: &str = "all";

/// The longest set name written out in full; file systems refuse names past 255 bytes.
const MAX_SET_NAME: usize = 64;

/// The name of a set folder: `all`, or the `--only` blocks joined by `+`, or for a long
/// list `only-<n>-blocks-<hash>`.
pub fn set_name(only: &[String]) -> String {
    if only.is_empty() {
        return FULL_SET.into();
    }
    let name = only.join("+");
    // A block may be called `all`; its reduced set must not land in the full set's folder.
    if name == FULL_SET {
        "only-all".into()
    } else if name.len() > MAX_SET_NAME {
        let hash = blake3::hash(name.as_bytes()).to_hex();
        format!("only-{}-blocks-{}", only.len(), &hash[..12])
    } else {
        name
    }
}

/// Where a set is materialized: `<out>/game/<pack>/<set>/`.
pub fn set_dir(out: &Path, pack: &str, set: &str) -> PathBuf {
    out.join("game").join(pack).join(set)
}

/// A set's previews: `<out>/render/<pack>/<set>/`.
pub fn render_dir(out: &Path, pack: &str, set: &str) -> PathBuf {
    out.join("render").join(pack).join(set)
}

/// A block's shipped file, relative to its set folder.
pub fn cooked_file(block: &str, file: &str) -> String {
    format!("cooked/{block}/{file}")
}

/// A block's folder of shipped files.
pub fn cooked_dir(out: &Path, pack: &str, set: &str, block: &str) -> PathBuf {
    set_dir(out, pack, set).join("cooked").join(block)
}

/// A map's folder: `<out>/maps/<map>/`.
pub fn map_dir(out: &Path, map: &str) -> PathBuf {
    out.join("maps").join(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_names_stay_short_and_distinct() {
        let few = ["floor_2x2".to_string(), "wall_4".to_string()];
        assert_eq!(set_name(&few), "floor_2x2+wall_4");
        assert_eq!(set_name(&["all".to_string()]), "only-all");
        let many: Vec<String> = (0..40).map(|i| format!("block_number_{i}")).collect();
        let name = set_name(&many);
        assert!(
            name.starts_with("only-40-blocks-") && name.len() < MAX_SET_NAME,
            "{name}"
        );
        assert_ne!(name, set_name(&many[1..]));
    }
}
