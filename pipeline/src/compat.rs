//! `mjolnir forge compat OLD NEW`: may NEW follow OLD under the update rules?

use std::path::Path;

use anyhow::{bail, Result};
use forge_contract::compat::{self, Release};

use crate::loaded_pack::load_release;
use crate::print::{exit_code, print_findings};

pub fn compare(old: &Path, new: &Path, as_json: bool) -> Result<i32> {
    let old_pack = load_release(old)?;
    let new_pack = load_release(new)?;
    for p in [&old_pack, &new_pack] {
        if p.manifest.is_none() {
            print_findings(&p.findings, as_json);
            bail!(
                "{} is not a valid release; fix it before comparing",
                p.label
            );
        }
    }
    let (Some(om), Some(nm)) = (&old_pack.manifest, &new_pack.manifest) else {
        unreachable!("checked above")
    };
    let findings = compat::compare(
        &Release {
            label: &old_pack.label,
            manifest: om,
            geometry: old_pack.geometry.as_ref(),
        },
        &Release {
            label: &new_pack.label,
            manifest: nm,
            geometry: new_pack.geometry.as_ref(),
        },
    );
    print_findings(&findings, as_json);
    let code = exit_code(&findings);
    if !as_json && code == 0 {
        println!("{} {} may follow {}", nm.name, nm.version, om.version);
    }
    Ok(code)
}
