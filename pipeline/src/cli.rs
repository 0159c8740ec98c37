//! The command line. Exit codes: 0 success, 1 the inputs have errors (findings were
//! printed), 2 the command could not run (bad usage, locked build folder, I/O failure).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use forge_contract::compat::{self, Release};
use forge_contract::{parse_geometry, parse_manifest, Diagnostic, GeometrySource, Manifest};
use serde_json::json;

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
        #[arg(long)]
        write: bool,
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
    /// Keep running independent steps after a failure.
    #[arg(long)]
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
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mjolnir: {e:#}");
            2
        }
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
                let (dirs, files) = watched(&args.config, &overrides_of(&args))?;
                return crate::watch::watch(&dirs, &files, || cook_once(&args));
            }
            cook_once(&args)
        }
        Forge::Validate { packs, slug, json } => validate(&packs, slug.as_deref(), json),
        Forge::New { id, style, dir } => crate::scaffold::new_pack(&id, style, &dir),
        Forge::Suggest { pack, block, write } => crate::suggest::suggest(&pack, &block, write),
        Forge::Compat { old, new, json } => compare(&old, &new, json),
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
    let Launcher::Sync {
        hub,
        profile,
        json,
        update,
        deadline,
    } = launcher;
    let args = mjolnir_launcher::SyncArgs {
        hub,
        profile,
        json,
        update,
        deadline: std::time::Duration::from_secs(deadline),
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
    }
}

pub(crate) fn print_findings(findings: &[Diagnostic], as_json: bool) {
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({"findings": findings})).expect("serializes")
        );
    } else {
        for d in findings {
            eprintln!("{d}");
        }
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
        keep_going: args.keep_going,
        explain: args.explain,
        json: args.json,
        verbose: args.verbose,
        check: args.check,
    };
    Ok(match cook::cook(&options)? {
        Ending::Cooked => 0,
        Ending::Failed | Ending::Stale => 1,
    })
}

/// What `--watch` watches: every configured pack's and map's folder, and the file itself.
pub(crate) fn watched(
    config: &Path,
    overrides: &Overrides,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let loaded = Config::load(config, overrides)?;
    let dirs = loaded
        .packs
        .iter()
        .chain(&loaded.maps)
        .map(|p| p.dir.clone())
        .collect();
    Ok((dirs, vec![config.to_path_buf()]))
}

fn exit_code(findings: &[Diagnostic]) -> i32 {
    if findings.iter().any(Diagnostic::is_error) {
        1
    } else {
        0
    }
}

/// Reads a pack for checking: its manifest, and its geometry when present.
pub(crate) struct LoadedPack {
    pub label: String,
    pub manifest: Option<Manifest>,
    geometry: Option<GeometrySource>,
    pub findings: Vec<Diagnostic>,
}

fn load_pack_dir(dir: &Path) -> Result<LoadedPack> {
    let manifest_path = dir.join("mjolnir.json");
    let label = manifest_path.display().to_string();
    let text =
        std::fs::read_to_string(&manifest_path).with_context(|| format!("cannot read {label}"))?;
    let mut pack = load_manifest_text(&label, &text);
    let geometry_path = dir.join("source/geometry.json");
    if let (Some(catalog), true) = (
        pack.manifest.as_ref().and_then(Manifest::catalog),
        geometry_path.is_file(),
    ) {
        let file = geometry_path.display().to_string();
        let text = std::fs::read_to_string(&geometry_path)
            .with_context(|| format!("cannot read {file}"))?;
        match parse_geometry(&file, &text, catalog) {
            Ok((g, warnings)) => {
                pack.geometry = Some(g);
                pack.findings.extend(warnings);
            }
            Err(findings) => pack.findings.extend(findings),
        }
    }
    Ok(pack)
}

fn load_manifest_text(label: &str, text: &str) -> LoadedPack {
    match parse_manifest(label, text) {
        Ok((m, warnings)) => LoadedPack {
            label: label.to_string(),
            manifest: Some(m),
            geometry: None,
            findings: warnings,
        },
        Err(findings) => LoadedPack {
            label: label.to_string(),
            manifest: None,
            geometry: None,
            findings,
        },
    }
}

/// A pack folder, a manifest file, or a `.mjolnir` archive (its `mjolnir.json`).
pub(crate) fn load_release(path: &Path) -> Result<LoadedPack> {
    if path.is_dir() {
        return load_pack_dir(path);
    }
    let label = path.display().to_string();
    let bytes = mjolnir_files::bounded::read(path, 512 << 20)
        .with_context(|| format!("cannot read {label}"))?;
    if bytes.starts_with(b"PK") {
        let manifest = forge_release::archive::read_member(&bytes, "mjolnir.json", 16 << 20)
            .with_context(|| format!("{label} is not a readable archive"))?
            .with_context(|| format!("{label} has no mjolnir.json"))?;
        let text = String::from_utf8(manifest)
            .with_context(|| format!("{label}: mjolnir.json is not UTF-8 text"))?;
        return Ok(load_manifest_text(&format!("{label}!mjolnir.json"), &text));
    }
    let text = String::from_utf8(bytes).with_context(|| format!("{label} is not UTF-8 text"))?;
    Ok(load_manifest_text(&label, &text))
}

fn validate(dirs: &[PathBuf], slug: Option<&str>, as_json: bool) -> Result<i32> {
    let mut findings = Vec::new();
    for dir in dirs {
        let pack = load_pack_dir(dir)?;
        findings.extend(pack.findings);
        if let (Some(slug), Some(catalog)) =
            (slug, pack.manifest.as_ref().and_then(Manifest::catalog))
        {
            if catalog.id != slug {
                findings.push(crate::steps::finding(
                    "pack_id_not_slug",
                    &pack.label,
                    format!(
                        "the pack id {:?} must equal the Hub slug {slug:?}",
                        catalog.id
                    ),
                ));
            }
        }
        if let Some(catalog) = pack.manifest.as_ref().and_then(Manifest::catalog) {
            findings.extend(model_findings(dir, catalog));
        }
        if pack
            .manifest
            .as_ref()
            .is_some_and(|m| m.catalog().is_some())
            && pack.geometry.is_none()
            && !dir.join("source/geometry.json").is_file()
        {
            findings.push(crate::steps::finding(
                "missing_geometry",
                &pack.label,
                "source/geometry.json is missing; every block needs collision hulls",
            ));
        }
    }
    print_findings(&findings, as_json);
    let code = exit_code(&findings);
    if !as_json && code == 0 {
        println!(
            "{} pack{} valid",
            dirs.len(),
            if dirs.len() == 1 { "" } else { "s" }
        );
    }
    Ok(code)
}

/// Every block has a model (`source/models/<block>.gltf` or `.glb`), and every buffer a
/// `.gltf` names is there.
fn model_findings(dir: &Path, catalog: &forge_contract::Catalog) -> Vec<Diagnostic> {
    let models = dir.join("source/models");
    let mut findings = Vec::new();
    for block in &catalog.blocks {
        let gltf = models.join(format!("{}.gltf", block.id));
        let glb = models.join(format!("{}.glb", block.id));
        if glb.is_file() && !gltf.is_file() {
            findings.extend(
                std::fs::read(&glb)
                    .ok()
                    .and_then(|b| dropped_textures(&glb, &b)),
            );
            continue;
        }
        let Ok(bytes) = std::fs::read(&gltf) else {
            findings.push(crate::steps::finding(
                "missing_model",
                &gltf.display().to_string(),
                format!("block {:?} has no model: export source/models/{0}.gltf (with its .bin) or {0}.glb", block.id),
            ));
            continue;
        };
        let rel = format!("source/models/{}.gltf", block.id);
        findings.extend(dropped_textures(&gltf, &bytes));
        for uri in forge_gltf::external_uris(&rel, &bytes).unwrap_or_default() {
            let buffer = models.join(&uri);
            if !buffer.is_file() {
                findings.push(crate::steps::finding(
                    "missing_buffer",
                    &buffer.display().to_string(),
                    format!("{} names it as a buffer, and it is missing: export the .bin beside it, or export a .glb", gltf.display()),
                ));
            }
        }
    }
    findings
}

/// A warning for a model's textures: the cook keeps geometry, normals, UVs and material
/// slot names, and the game draws the donor's materials, so textures are not carried.
fn dropped_textures(model: &Path, bytes: &[u8]) -> Option<Diagnostic> {
    // A .glb's JSON is its first chunk: 12 bytes of header, then length, type, data.
    let json = if bytes.starts_with(b"glTF") {
        let length = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
        bytes.get(20..20usize.checked_add(length)?)?
    } else {
        bytes
    };
    let value: serde_json::Value = serde_json::from_slice(json).ok()?;
    let images = value["images"].as_array().map_or(0, Vec::len);
    let textured: Vec<&str> = value["materials"]
        .as_array()?
        .iter()
        .filter(|m| {
            m["pbrMetallicRoughness"]["baseColorTexture"].is_object()
                || m["normalTexture"].is_object()
        })
        .filter_map(|m| m["name"].as_str())
        .collect();
    if images == 0 && textured.is_empty() {
        return None;
    }
    let mut warning = crate::steps::finding(
        "texture_dropped",
        &model.display().to_string(),
        format!(
            "{images} image(s) and textured materials {textured:?}: the cook keeps the geometry, normals, UVs and material slot names; the game draws the donor's materials, so these textures are not carried (docs/donors.md)"
        ),
    );
    warning.severity = forge_contract::Severity::Warning;
    Some(warning)
}

fn compare(old: &Path, new: &Path, as_json: bool) -> Result<i32> {
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
