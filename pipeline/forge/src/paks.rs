//! A Paks folder: the `.utoc`/`.ucas` containers the game mounts, as the donor extraction
//! and the map bake read them.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use forge_iostore::Toc;

/// Every `.utoc` in the folder, parsed, in name order.
pub fn read_tocs(paks: &Path) -> Result<Vec<(PathBuf, Toc)>> {
    let listing = std::fs::read_dir(paks).map_err(|e| {
        anyhow!(
            "error[paks_missing]: cannot read the Paks folder {}: {e}",
            paks.display()
        )
    })?;
    let mut paths: Vec<PathBuf> = listing
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "utoc"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        bail!(
            "error[paks_missing]: {} holds no .utoc containers",
            paks.display()
        );
    }
    paths
        .into_iter()
        .map(|p| {
            let bytes =
                std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
            let toc = Toc::parse(&bytes).map_err(|e| anyhow!("{}: {e}", p.display()))?;
            Ok((p, toc))
        })
        .collect()
}
