//! The command line. Exit codes: 0 success, 1 the inputs have errors (findings were
//! printed), 2 the command could not run (bad usage, locked build folder, I/O failure).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::{Config, Overrides};
use crate::cook::{self, Ending};
use crate::steps::render::RenderParams;
use crate::wiring::PlanOptions;
use forge_release::scan::ScanOptions;

#[derive(Parser)]
#[command(
    name = "mjolnir",
    version,
    about = "Builds MJOLNIR Forge packs from sources to releases"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Forge pack commands.
    #[command(subcommand)]
    Forge(Forge),
    /// The author signing key.
    #[command(subcommand)]
    Key(Key),
    /// Maps that use Forge packs.
    #[command(subcommand)]
    Map(Map),
    /// A Hub of published releases, for any static web server.
    #[command(subcommand)]
    Hub(Hub),
    /// The launcher's side: which releases a profile enables, installed from a Hub.
    #[command(subcommand)]
    Launcher(Launcher),
    /// Saved layouts.
    #[command(subcommand)]
    Layout(Layout),
    /// The local cache: what it holds, and trimming it.
    #[command(subcommand)]
    Cache(Cache),
    /// Asset job manifests (myrlin.asset-manifest/1).
    #[command(subcommand)]
    Manifest(AssetManifest),
    /// The HAF multi-pack loader.
    #[command(subcommand)]
    Haf(Haf),
    /// Every error and warning code, and what it means (docs/errors.md).
    Errors(crate::errors::ErrorsArgs),
}

#[derive(Subcommand)]
enum Haf {
    /// Resolve a HAF config folder's packs as the loader would, and write
    /// haf_load_report.txt and haf_registry.json.
    Resolve(crate::haf_loader::ResolveArgs),
}

#[derive(Subcommand)]
enum AssetManifest {
    /// Every problem of a manifest, each with a code and where; exit 1 on an error.
    Lint {
        manifest: PathBuf,
        /// The inputs ZIP, with `_inputs.json` declaring their rights.
        #[arg(long, value_name = "ZIP")]
        inputs: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Make a manifest's emit, copy and derive files on the cook's graph and cache, and
    /// zip them into the delivery; generate files are listed as waiting, with their lane.
    Build(crate::asset_build::BuildArgs),
    /// Start a review of a delivery (`--start`), or check a filled-in one (`--check`)
    /// against the manifest and the delivery's bytes; exit 1 on an error.
    Review(crate::asset_review::ReviewArgs),
    /// The accepted format ids, limits and lanes, as data (always JSON).
    Capabilities {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum Cache {
    /// Sizes, counts, and the hit rates of recent cooks.
    Stats {
        #[arg(long, default_value = "pipeline.toml")]
        config: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Evict least recently used entries until the cache takes at most SIZE (500M, 2G);
    /// what the last cook used is always kept.
    Gc {
        #[arg(long, value_name = "SIZE", value_parser = crate::housekeeping::parse_size)]
        max_size: u64,
        #[arg(long, default_value = "pipeline.toml")]
        config: PathBuf,
    },
    /// Make a writer key for the shared cache: the seed goes to FILE (readable by you
    /// only), and the public key to list in other machines' [cache] trusted_writers is
    /// printed.
    #[command(subcommand)]
    Key(CacheKey),
}

#[derive(Subcommand)]
enum CacheKey {
    New {
        /// Where the seed goes; the file must not exist.
        #[arg(long, default_value = "cache-writer.key")]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum Hub {
    /// Publish the .mjolnir releases in DIR under --out as the Hub's read API, with the
    /// Hub's publish rules; what --out published before stays published.
    Index {
        dir: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Publish unsigned archives too: for local tests only, never a public Hub.
        #[arg(long)]
        allow_unsigned: bool,
    },
}

#[derive(Subcommand)]
enum Launcher {
    /// Resolve a profile's maps and layouts against a Hub, install what they need (verified),
    /// and write the installed catalogs and launcher_report.txt.
    Sync {
        #[arg(long)]
        hub: String,
        #[arg(long)]
        profile: PathBuf,
        #[arg(long)]
        json: bool,
        /// Move each needed pack to the newest release that serves what needs it.
        #[arg(long)]
        update: bool,
        /// The whole sync's deadline, in seconds.
        #[arg(long, default_value_t = 600)]
        deadline: u64,
        /// A lower bound on enabled catalog blocks than the game's 4,096 (for tests).
        #[arg(long, hide = true, default_value_t = mjolnir_launcher::MAX_BLOCKS)]
        max_blocks: usize,
    },
    /// Verify a map release and put it into a profile's maps/ (in place of an earlier
    /// release of the same map); the next sync installs what it needs.
    AddMap {
        map: PathBuf,
        #[arg(long)]
        profile: PathBuf,
    },
}

#[derive(Subcommand)]
enum Layout {
    /// The native checks a saved layout must pass before its objects are recreated.
    Check {
        layout: PathBuf,
        #[arg(long)]
        profile: PathBuf,
    },
}

#[derive(Subcommand)]
enum Map {
    /// The palette stage of a standalone bake: check the level's packs and blocks against
    /// their catalogs and the Paks, and write palette.json.
    Bake(crate::map::BakeArgs),
    /// Pack a baked map into a .mjolnir release with a ^version dependency on each pack.
    Pack(crate::map::PackArgs),
}

#[derive(Subcommand)]
enum Key {
    /// Create the local author device key (readable by you only).
    New {
        /// Replace an existing key.
        #[arg(long)]
        force: bool,
    },
    /// Print the public key and its fingerprint.
    Show,
}

#[derive(Subcommand)]
enum Forge {
    /// Cook the configured packs: validate, import and assemble, with caching.
    Cook(CookArgs),
    /// Print (or --write) a block's geometry entry from its model's UCX_ hulls.
    Suggest {
        pack: PathBuf,
        block: String,
        /// Write it into source/geometry.json, and add the block to the catalog if new.
        /// Fields the block's entry already has are kept; only missing ones are added.
        #[arg(long)]
        write: bool,
        /// With --write, overwrite this field of the block's entry with the suggestion
        /// (hulls, supports, joins, apertures, connectors, origin). Repeatable.
        #[arg(long = "replace", value_name = "FIELD", requires = "write")]
        replace: Vec<String>,
    },
    /// Start a new pack that cooks the first time, and add it to pipeline.toml.
    New {
        id: String,
        #[arg(long, value_enum, default_value = "foundry")]
        style: crate::scaffold::Style,
        /// Where the pack folder and pipeline.toml go.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
    },
    /// Check pack folders against the Forge pack contract without cooking anything.
    Validate {
        /// Pack folders (holding mjolnir.json and source/geometry.json).
        #[arg(default_value = ".")]
        packs: Vec<PathBuf>,
        /// The Hub slug the pack id must equal (defaults to the manifest's `slug`).
        #[arg(long)]
        slug: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Check that NEW may follow OLD under the "Updating a pack" rules.
    Compat {
        /// A pack folder, a mjolnir.json or a .mjolnir archive.
        old: PathBuf,
        new: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Ask a block's collision whether a ray hits or a point is inside (pack-space metres).
    Probe(crate::probe::ProbeArgs),
    /// Pack a release archive (.mjolnir) after checking everything the Hub checks.
    Pack(crate::release::PackArgs),
    /// Run the Hub scanner's checks on an archive.
    Verify {
        archive: PathBuf,
        /// The author key the signature must be by (hex, base64 or fingerprint).
        #[arg(long)]
        expect_key: Option<String>,
        /// The release version the manifest must declare.
        #[arg(long)]
        release_version: Option<String>,
        /// Accept an unsigned archive (an offline check before signing; the Hub refuses it).
        #[arg(long)]
        allow_unsigned: bool,
        #[arg(long)]
        json: bool,
    },
    /// Render previews (and the contact sheet) of the configured packs, cooking as needed.
    Render(crate::previews::RenderArgs),
    /// Print what a cooked file holds.
    Inspect {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// A global container (`global.utoc`, `.ucas` beside it) to name every script
        /// class a package imports; without it, only the classes Forge packages use.
        #[arg(long, value_name = "UTOC")]
        global: Option<PathBuf>,
    },
}

#[derive(Args)]
struct CookArgs {
    #[arg(long, default_value = "pipeline.toml")]
    config: PathBuf,
    /// Build only this pack (repeatable).
    #[arg(long = "pack", value_name = "ID")]
    packs: Vec<String>,
    /// Build a reduced diagnostic set of these blocks (repeatable).
    #[arg(long = "only", value_name = "BLOCK")]
    only: Vec<String>,
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the summary and errors as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Ignore the cache: run every step.
    #[arg(long)]
    no_cache: bool,
    /// Accepted for scripts written before every cook did this: a failure stops only
    /// the steps that depend on it.
    #[arg(long, hide = true)]
    keep_going: bool,
    /// For each step that ran, print which input changed.
    #[arg(long)]
    explain: bool,
    /// Pack each set into an unsigned release archive (`<set>/release/`) as the last step.
    #[arg(long)]
    archive: bool,
    /// The game's Paks folder, where the donors are read from (overrides `[donors] paks`).
    #[arg(long, value_name = "DIR")]
    paks: Option<PathBuf>,
    /// The donor static mesh's package path (overrides `[donors] static_mesh`).
    #[arg(long, value_name = "PACKAGE")]
    donor_mesh: Option<String>,
    /// The donor actor Blueprint's package path (overrides `[donors] actor`).
    #[arg(long, value_name = "PACKAGE")]
    donor_actor: Option<String>,
    /// The donor material instance of glass surfaces (overrides `[donors] glass_material`).
    #[arg(long, value_name = "PACKAGE")]
    donor_glass: Option<String>,
    /// The donor material instance of portal surfaces (overrides `[donors] portal_material`).
    #[arg(long, value_name = "PACKAGE")]
    donor_portal: Option<String>,
    /// Off a terminal, a line per finished stage (step kind and pack) as well.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Cook again whenever a source or the configuration is saved (Ctrl-C stops).
    #[arg(long)]
    watch: bool,
    /// A shared cache on the Bazel HTTP protocol, `http://host:port/prefix` (overrides
    /// `[cache] remote`); credentials come from MJOLNIR_REMOTE_CACHE_TOKEN or netrc.
    #[arg(long, value_name = "URL")]
    remote_cache: Option<String>,
    /// Read the remote cache but never write it (for pull requests).
    #[arg(long)]
    remote_cache_readonly: bool,
    /// Cook nothing: list the steps a cook would run and why, and exit 1 if there are any
    /// (0 when everything is fresh).
    #[arg(long, conflicts_with_all = ["watch", "no_cache", "archive"])]
    check: bool,
}

/// Runs the command line; returns the process exit code.
pub fn run() -> i32 {
    let matches = Cli::command().get_matches();
    let json = asks_for_json(&matches);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mjolnir: {e:#}");
            if json {
                print!("{}", crate::errors::json_error(&e));
            }
            2
        }
    }
}

/// Whether the command given (the innermost subcommand) has `--json` set.
fn asks_for_json(matches: &clap::ArgMatches) -> bool {
    match matches.subcommand() {
        Some((_, sub)) => asks_for_json(sub),
        None => matches!(matches.try_get_one::<bool>("json"), Ok(Some(true))),
    }
}

/// The command table: each group's commands are run by their own function.
fn dispatch(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Forge(forge) => forge_command(forge),
        Command::Key(Key::New { force }) => crate::release::key_new(force),
        Command::Key(Key::Show) => crate::release::key_show(),
        Command::Hub(hub) => hub_command(hub),
        Command::Manifest(manifest) => manifest_command(manifest),
        Command::Haf(Haf::Resolve(args)) => crate::haf_loader::run(&args),
        Command::Errors(args) => crate::errors::run(&args),
        Command::Cache(cache) => cache_command(cache),
        Command::Launcher(launcher) => launcher_command(launcher),
        Command::Layout(Layout::Check { layout, profile }) => {
            mjolnir_launcher::check_layout(&layout, &profile).map_err(|f| anyhow::anyhow!("{f}"))
        }
        Command::Map(Map::Bake(args)) => crate::map::bake(&args),
        Command::Map(Map::Pack(args)) => crate::map::pack(&args),
    }
}

fn forge_command(forge: Forge) -> Result<i32> {
    match forge {
        Forge::Cook(args) => {
            if args.watch {
                let (dirs, files) = crate::watch::watched(&args.config, &overrides_of(&args))?;
                return crate::watch::watch(&dirs, &files, || cook_once(&args));
            }
            cook_once(&args)
        }
        Forge::Validate { packs, slug, json } => {
            crate::validate::validate(&packs, slug.as_deref(), json)
        }
        Forge::New { id, style, dir } => crate::scaffold::new_pack(&id, style, &dir),
        Forge::Suggest {
            pack,
            block,
            write,
            replace,
        } => crate::suggest::suggest(&pack, &block, write.then_some(replace.as_slice())),
        Forge::Compat { old, new, json } => crate::compat::compare(&old, &new, json),
        Forge::Inspect { file, json, global } => {
            crate::inspect::inspect(&file, json, global.as_deref())
        }
        Forge::Render(args) => crate::previews::render(args),
        Forge::Pack(args) => crate::release::pack(&args),
        Forge::Verify {
            archive,
            expect_key,
            release_version,
            allow_unsigned,
            json,
        } => crate::release::verify(
            &archive,
            &ScanOptions {
                expect_key: expect_key.as_deref(),
                release_version: release_version.as_deref(),
                allow_unsigned,
            },
            json,
        ),
        Forge::Probe(args) => crate::probe::command(args),
    }
}

fn hub_command(hub: Hub) -> Result<i32> {
    let Hub::Index {
        dir,
        out,
        allow_unsigned,
    } = hub;
    let args = mjolnir_launcher::IndexArgs {
        dir,
        out,
        allow_unsigned,
    };
    mjolnir_launcher::index(&args).map_err(|f| anyhow::anyhow!("{f}"))
}

fn launcher_command(launcher: Launcher) -> Result<i32> {
    let (hub, profile, json, update, deadline, max_blocks) = match launcher {
        Launcher::AddMap { map, profile } => {
            return mjolnir_launcher::add_map(&map, &profile).map_err(|f| anyhow::anyhow!("{f}"))
        }
        Launcher::Sync {
            hub,
            profile,
            json,
            update,
            deadline,
            max_blocks,
        } => (hub, profile, json, update, deadline, max_blocks),
    };
    let args = mjolnir_launcher::SyncArgs {
        hub,
        profile,
        json,
        update,
        deadline: std::time::Duration::from_secs(deadline),
        max_blocks,
    };
    mjolnir_launcher::sync(&args).map_err(|f| anyhow::anyhow!("{f}"))
}

fn manifest_command(manifest: AssetManifest) -> Result<i32> {
    match manifest {
        AssetManifest::Lint {
            manifest,
            inputs,
            json,
        } => crate::asset_lint::lint_command(&manifest, inputs.as_deref(), json),
        AssetManifest::Build(args) => crate::asset_build::build(&args),
        AssetManifest::Review(args) => crate::asset_review::review_command(&args),
        AssetManifest::Capabilities { .. } => crate::asset_lint::capabilities(),
    }
}

fn cache_command(cache: Cache) -> Result<i32> {
    match cache {
        Cache::Stats { config, json } => {
            let config = Config::load(&config, &Overrides::default())?;
            crate::housekeeping::stats(&config, json)
        }
        Cache::Gc { max_size, config } => {
            let config = Config::load(&config, &Overrides::default())?;
            crate::housekeeping::gc(&config, max_size)
        }
        Cache::Key(CacheKey::New { out }) => crate::release::cache_key_new(&out),
    }
}

fn overrides_of(args: &CookArgs) -> Overrides {
    Overrides {
        packs: args.packs.clone(),
        jobs: args.jobs,
        out: args.out.clone(),
        paks: args.paks.clone(),
        donor_mesh: args.donor_mesh.clone(),
        donor_actor: args.donor_actor.clone(),
        donor_glass: args.donor_glass.clone(),
        donor_portal: args.donor_portal.clone(),
        remote_cache: args.remote_cache.clone(),
        remote_cache_readonly: args.remote_cache_readonly,
    }
}

/// One cook, with the configuration read afresh (so `--watch` sees it edited).
fn cook_once(args: &CookArgs) -> Result<i32> {
    let config = Config::load(&args.config, &overrides_of(args))?;
    let options = cook::Options {
        plan: PlanOptions {
            render: config.render.enabled.then(|| RenderParams {
                size: config.render.size.unwrap_or(512),
                overlays: config.render.overlays.clone(),
                turntable: config.render.turntable,
                transparent: config.render.transparent,
                outline: config.render.outline.unwrap_or(true),
                sheet_tile: config
                    .render
                    .sheet_size
                    .unwrap_or(crate::config::DEFAULT_SHEET_SIZE),
            }),
            archive: args.archive,
            donors: None,
        },
        config,
        only: args.only.clone(),
        use_cache: !args.no_cache,
        explain: args.explain,
        json: args.json,
        verbose: args.verbose,
        check: args.check,
        ends_process: !args.watch,
    };
    Ok(match cook::cook(&options)? {
        Ending::Cooked => 0,
        Ending::Failed | Ending::Stale => 1,
    })
}
