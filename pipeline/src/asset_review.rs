//! `mjolnir manifest review`: start a review of a delivery (every output path pending,
//! with the delivered bytes' SHA-256), or check a filled-in one against the manifest and
//! the delivery it judges (`asset_manifest::review`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use asset_manifest::review::{self, Delivery};
use serde_json::Value;

/// `mjolnir manifest review`'s arguments.
#[derive(clap::Args)]
pub struct ReviewArgs {
    pub manifest: PathBuf,
    /// The delivery ZIP that `manifest build` wrote.
    #[arg(long, value_name = "DELIVERY.zip")]
    pub delivery: PathBuf,
    /// Write a review with every output path pending.
    #[arg(long, value_name = "REVIEW.json", required_unless_present = "check")]
    pub start: Option<PathBuf>,
    /// Who reviews, for `--start`.
    #[arg(long, default_value = "")]
    pub reviewer: String,
    /// Check a review: its shape, its paths, its digests against the delivery.
    #[arg(long, value_name = "REVIEW.json")]
    pub check: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

pub fn review_command(args: &ReviewArgs) -> Result<i32> {
    let text = crate::asset_lint::read_document(&args.manifest)?;
    let issues = asset_manifest::lint(&args.manifest.display().to_string(), &text, None);
    if issues.iter().any(asset_manifest::Issue::is_error) {
        return Ok(crate::asset_lint::report(
            &args.manifest,
            &issues,
            args.json,
        ));
    }
    let manifest: Value = serde_json::from_str(&text)?;
    let digests = delivered_digests(&args.delivery)?;
    let delivery = Delivery {
        manifest: &manifest,
        sha256: &digests,
    };
    if let Some(out) = &args.start {
        let skeleton = review::skeleton(&delivery, &args.reviewer);
        let bytes = json_out::pretty(&skeleton);
        crate::atomic::write(out, &bytes)
            .with_context(|| format!("cannot write {}", out.display()))?;
        eprintln!("started {}: every file pending", out.display());
    }
    let Some(path) = &args.check else {
        return Ok(0);
    };
    let review_text = crate::asset_lint::read_document(path)?;
    let issues = review::check(&path.display().to_string(), &review_text, &delivery);
    Ok(crate::asset_lint::report(path, &issues, args.json))
}

/// Each file of the delivery ZIP with its SHA-256, lower-case hex.
fn delivered_digests(zip: &Path) -> Result<BTreeMap<String, String>> {
    Ok(crate::asset_lint::read_zip(zip)?
        .into_iter()
        .map(|(path, bytes)| (path, forge_release::signature::sha256_hex(&bytes)))
        .collect())
}
