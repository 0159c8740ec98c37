//! `mjolnir forge render`: previews of every block, failing ones drawn with what failed,
//! on the cook's graph and cache with rendering on.

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::config::{Config, Overrides};
use crate::cook::{self, Ending};
use crate::steps::render::RenderParams;
use crate::wiring::PlanOptions;

#[derive(clap::Args)]
pub struct RenderArgs {
    /// Only this pack.
    pub pack: Option<String>,
    #[arg(long = "only", value_name = "BLOCK")]
    pub only: Vec<String>,
    #[arg(long, default_value_t = 512)]
    pub size: u32,
    /// `collision` (hull wireframes) or `checks` (aperture and support rays); repeatable.
    #[arg(long = "overlay", value_parser = ["collision", "checks"])]
    pub overlays: Vec<String>,
    /// Also render this many evenly spaced angles.
    #[arg(long, default_value_t = 0)]
    pub turntable: u32,
    /// A transparent background instead of the neutral one.
    #[arg(long)]
    pub transparent: bool,
    /// Leave out the dark outlines on silhouettes and folds.
    #[arg(long)]
    pub no_outline: bool,
    /// The contact sheet's thumbnail size in pixels (64 to 1024).
    #[arg(long, default_value_t = crate::config::DEFAULT_SHEET_SIZE)]
    pub sheet_size: u32,
    #[arg(long, default_value = "pipeline.toml")]
    pub config: PathBuf,
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Render again whenever a source or the configuration is saved (Ctrl-C stops).
    #[arg(long)]
    pub watch: bool,
}

pub fn render(args: RenderArgs) -> Result<i32> {
    let RenderArgs {
        pack,
        only,
        size,
        overlays,
        turntable,
        transparent,
        no_outline,
        sheet_size,
        config,
        jobs,
        watch,
    } = args;
    if !crate::config::SHEET_SIZES.contains(&sheet_size) {
        bail!("--sheet-size must be within 64..=1024 pixels");
    }
    if !crate::config::RENDER_SIZES.contains(&size) {
        bail!("--size must be within 16..=4096 pixels");
    }
    if turntable > crate::config::MAX_TURNTABLE {
        bail!(
            "--turntable is at most {} views",
            crate::config::MAX_TURNTABLE
        );
    }
    let overrides = Overrides {
        packs: pack.into_iter().collect(),
        jobs,
        ..Overrides::default()
    };
    let render = || -> Result<i32> {
        let options = cook::Options {
            plan: PlanOptions {
                render: Some(RenderParams {
                    size,
                    overlays: overlays.clone(),
                    turntable,
                    transparent,
                    outline: !no_outline,
                    sheet_tile: sheet_size,
                }),
                archive: false,
                donors: None,
            },
            config: Config::load(&config, &overrides)?,
            only: only.clone(),
            use_cache: true,
            // An artist wants every piece drawn, the broken ones too.
            explain: false,
            json: false,
            verbose: false,
            check: false,
            ends_process: !watch,
        };
        Ok(match cook::cook(&options)? {
            Ending::Cooked => 0,
            Ending::Failed | Ending::Stale => 1,
        })
    };
    if watch {
        let (dirs, files) = crate::watch::watched(&config, &overrides)?;
        return crate::watch::watch(&dirs, &files, render);
    }
    render()
}
