//! `mjolnir forge cook`: plans the graph for the configured packs (`plan`), runs it
//! (`execute`), materializes each set and writes the report.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use forge_contract::Diagnostic;
use rayon::prelude::*;
use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::config::Config;
use crate::execute::{self, Finished, Outcome, Settings};
use crate::graph::Graph;
use crate::layout;
use crate::lock::{BuildLock, LockError};
use crate::materialize;
use crate::phases::{self, Phases};
use crate::plan::{Folder, MapPlan, Planner, SetPlan, UnknownBlocks};
use crate::progress::Progress;
use crate::remote::RemoteCache;
use crate::report;
use crate::seal;
use crate::spare;
use crate::stat_cache::StatCache;
use crate::steps::{self, StepKind};
use crate::store::Store;
use crate::wiring::{PackSources, PlanOptions};

pub struct Options {
    pub config: Config,
    pub plan: PlanOptions,
    pub only: Vec<String>,
    pub use_cache: bool,
    pub explain: bool,
    pub json: bool,
    /// A line per finished stage off a terminal.
    pub verbose: bool,
    /// `--check`: cook nothing, list what a cook would run.
    pub check: bool,
    /// The process exits after this cook (no `--watch`): what the cook holds is left
    /// to the exit rather than freed piece by piece, which cost an edit milliseconds.
    pub ends_process: bool,
}

/// How a cook ended, for the exit code.
pub enum Ending {
    Cooked,
    /// Some step failed; its findings were printed and reported.
    Failed,
    /// `--check` found steps a cook would run; they were listed.
    Stale,
}

/// One pass over the graph. A pass that meets a damaged cached output is repeated once
/// with every hit verified.
struct Attempt {
    graph: Graph,
    results: Vec<Finished>,
    sets: Vec<SetPlan>,
    maps: Vec<MapPlan>,
    materialized: materialize::Changes,
    /// What was damaged, when a cached output failed its check.
    corrupt: Option<String>,
    /// The report, its step records written while the set folders were materialized.
    step_records: Option<report::Begun>,
    /// The folders materialized, kept when the cook may seal them: gathering a catalog's
    /// again for the seal took 0.6 ms.
    materialized_folders: Option<Vec<Folder>>,
}

impl Attempt {
    fn new(graph: Graph, results: Vec<Finished>, sets: Vec<SetPlan>) -> Attempt {
        Attempt {
            graph,
            results,
            sets,
            maps: Vec::new(),
            materialized: materialize::Changes::default(),
            corrupt: None,
            step_records: None,
            materialized_folders: None,
        }
    }

    fn corrupt(mut self, detail: String) -> Attempt {
        self.corrupt = Some(detail);
        self
    }

    /// Every set and map folder of the cook with its files: those materialized, or
    /// gathered on the cook's `pool`.
    fn folders(
        &self,
        config: &Config,
        registry: &[&'static StepKind],
        pool: &rayon::ThreadPool,
    ) -> std::borrow::Cow<'_, [Folder]> {
        match &self.materialized_folders {
            Some(folders) => std::borrow::Cow::Borrowed(folders),
            None => std::borrow::Cow::Owned(self.gather_folders(config, registry, pool)),
        }
    }

    fn gather_folders(
        &self,
        config: &Config,
        registry: &[&'static StepKind],
        pool: &rayon::ThreadPool,
    ) -> Vec<Folder> {
        let sets = self.sets.iter().flat_map(|set| {
            let pack = &config.packs[set.pack].id;
            pool.install(|| set.folders(registry, &self.results, &config.out, pack))
        });
        let maps = self
            .maps
            .iter()
            .map(|m| m.folder(registry, &self.results, &config.out, &config.maps[m.map].id));
        sets.chain(maps).collect()
    }
}

/// What every stage of an attempt shares.
struct Cook<'a> {
    options: &'a Options,
    settings: &'a Settings<'a>,
    progress: &'a Progress,
    registry: &'a [&'static StepKind],
    /// The options' plan, with the donors extracted.
    plan: &'a PlanOptions,
    phases: &'a Phases,
}

impl Cook<'_> {
    fn attempt(&self) -> Result<Attempt> {
        let sources: Vec<PackSources> = self
            .options
            .config
            .packs
            .iter()
            .map(|p| PackSources::new(p, self.settings.stat_cache))
            .collect();
        let planner = Planner {
            registry: self.registry,
            sources: &sources,
            options: self.plan,
        };
        let mut graph = Graph::default();
        let packs = planner.plan_packs(&mut graph);
        let results = self.run(&graph, Vec::new(), 0);
        self.phases.end(phases::VALIDATE);
        if !all_succeeded(&results) {
            return Ok(Attempt::new(graph, results, Vec::new()));
        }
        let catalogs = crate::plan::catalogs(&packs, &results);
        let first_cook_step = graph.steps.len();
        // On the cook's pool: the blocks are wired in parallel.
        let planned = self
            .settings
            .pool
            .install(|| planner.plan_sets(&mut graph, &packs, &catalogs, &self.options.only));
        let sets = match planned {
            Ok(sets) => sets,
            Err(UnknownBlocks(names)) => {
                let known = catalogs.iter().flatten().map(String::as_str);
                let hint = crate::did_you_mean::hint(&names[0], known);
                bail!(
                    "error[unknown_block]: --only {}: no such block in the selected packs{hint}",
                    names.join(", ")
                )
            }
        };
        // Maps check whole sets: a reduced --only build has none to check.
        let maps = if self.options.only.is_empty() {
            let sources: Vec<PackSources> = self
                .options
                .config
                .maps
                .iter()
                .map(|m| PackSources::new(m, self.settings.stat_cache))
                .collect();
            planner.plan_maps(&mut graph, &sources, &sets)
        } else {
            Vec::new()
        };
        self.phases.end(phases::PLAN);
        let results = self.run(&graph, results, first_cook_step);
        self.phases.end(phases::RUN);
        let mut attempt = Attempt::new(graph, results, sets);
        attempt.maps = maps;
        if self.options.check {
            return Ok(attempt);
        }
        if let Some(detail) = corrupt_detail(&attempt.results) {
            return Ok(attempt.corrupt(detail));
        }
        let materialized = match all_succeeded(&attempt.results) {
            true => self.materialize(attempt),
            false => self.materialize_previews(attempt),
        };
        self.phases.end(phases::MATERIALIZE);
        materialized
    }

    /// Runs the steps from `first` on, after the results of those before it.
    fn run(&self, graph: &Graph, prior: Vec<Finished>, first: usize) -> Vec<Finished> {
        self.progress.start(&graph.steps[first..]);
        execute::run(
            graph,
            prior,
            self.settings,
            self.progress,
            &engine::graph::cook,
        )
    }

    /// After a failed cook, makes each render folder hold exactly this cook's previews:
    /// a failing block is drawn with what failed, and a preview the cook did not make is
    /// taken away rather than left to pass for a current one. Set folders stay as they
    /// were, since a failed cook has no complete set to give them.
    fn materialize_previews(&self, attempt: Attempt) -> Result<Attempt> {
        let config = &self.options.config;
        if CANCELLED.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(attempt);
        }
        for set in &attempt.sets {
            let pack = &config.packs[set.pack].id;
            let renders = layout::render_dir(&config.out, pack, &set.spec.name);
            let folders = self
                .settings
                .pool
                .install(|| set.folders(self.registry, &attempt.results, &config.out, pack));
            for (dir, files) in folders.iter().filter(|(dir, _)| *dir == renders) {
                let stores = (self.settings.store, self.settings.stat_cache);
                let written = self.settings.pool.install(|| {
                    materialize::set_folder(&config.out, dir, files, stores.0, stores.1)
                });
                if let Err(e) = written {
                    return Ok(attempt.corrupt(folder_error(dir, e)?));
                }
            }
        }
        Ok(attempt)
    }

    /// Makes every set folder hold its outputs. Folders are independent; a no-op cook
    /// spends much of its time checking them, and meanwhile the report's bulk (every
    /// step's record) is serialized.
    fn materialize(&self, mut attempt: Attempt) -> Result<Attempt> {
        let config = &self.options.config;
        let folders = attempt.gather_folders(config, self.registry, self.settings.pool);
        let (store, stat_cache) = (self.settings.store, self.settings.stat_cache);
        // A fresh clone's set files whose bytes stayed on the remote are downloaded all at
        // once, not folder by folder.
        let missing = folders.iter().flat_map(|(dir, files)| {
            files
                .iter()
                .filter(|(rel, output)| output.stayed_remote() && !dir.join(rel).exists())
                .map(|(_, output)| output)
        });
        engine::execute::prefetch(missing, store);
        let (outcomes, step_records): (Vec<_>, _) = self.settings.pool.install(|| {
            rayon::join(
                || {
                    folders
                        .par_iter()
                        .map(|(dir, files)| {
                            materialize::set_folder(&config.out, dir, files, store, stat_cache)
                        })
                        .collect()
                },
                || {
                    report::begin(
                        &config.out.join("report.json"),
                        &attempt.graph,
                        &attempt.results,
                    )
                },
            )
        });
        for ((dir, _), outcome) in folders.iter().zip(outcomes) {
            match outcome {
                Ok(c) => {
                    attempt.materialized.written += c.written;
                    attempt.materialized.removed += c.removed;
                }
                Err(e) => return Ok(attempt.corrupt(folder_error(dir, e)?)),
            }
        }
        attempt.step_records = Some(step_records.with_context(|| {
            format!("cannot write {}", config.out.join("report.json").display())
        })?);
        // A cook of some sets (`--pack`, `--only`) leaves the other sets' spares alone.
        if config.every_pack && self.options.only.is_empty() {
            prune_spares(&config.out, &folders)?;
        }
        let changed = attempt.materialized.written + attempt.materialized.removed;
        if changed == 0
            && attempt
                .results
                .iter()
                .all(|r| matches!(r.outcome, Outcome::Hit))
        {
            attempt.materialized_folders = Some(folders);
        }
        Ok(attempt)
    }
}

/// Keeps the spares of the spliced files `folders` hold, and only those.
fn prune_spares(out: &std::path::Path, folders: &[Folder]) -> Result<()> {
    let spliced: Vec<std::path::PathBuf> = folders
        .iter()
        .flat_map(|(dir, files)| {
            let spliced = files.iter().filter(|(_, output)| output.is_spliced());
            spliced.map(move |(rel, _)| dir.join(rel))
        })
        .collect();
    spare::prune_spares(out, spliced.iter().map(|p| p.as_path()))
        .with_context(|| format!("cannot tidy {}", out.join(spare::SPARES).display()))
}

/// A folder that could not be materialized: a damaged blob in the store is what the
/// caller retries the cook for (its detail is returned); anything else stops the cook.
fn folder_error(dir: &std::path::Path, e: materialize::Error) -> Result<String> {
    match e {
        materialize::Error::Corrupt(e) => Ok(e.detail),
        materialize::Error::Io(e) => bail!("cannot write {}: {e}", dir.display()),
        materialize::Error::Symlinked(link) => bail!(
            "error[symlinked_output]: {} is a symbolic link; the build folder's sets are the pipeline's own, and a link would make it delete files wherever it points (remove the link; nothing was changed there)",
            link.display()
        ),
    }
}

fn all_succeeded(results: &[Finished]) -> bool {
    results
        .iter()
        .all(|r| matches!(r.outcome, Outcome::Hit | Outcome::Ran(_)))
}

/// The first damaged cached output a step met, if any.
fn corrupt_detail(results: &[Finished]) -> Option<String> {
    results.iter().find_map(|r| match &r.outcome {
        Outcome::Failed(d) => d
            .iter()
            .find(|d| d.code == execute::CACHE_CORRUPT)
            .map(|d| d.message.clone()),
        _ => None,
    })
}

/// The largest pack document read to place a finding in it.
const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// A finding about a block's declaration points at it by the block's id
/// (`/blocks/wall_door/apertures/0`, `/forge_pack/blocks/wall_door/dimensions_m`): the step
/// sees only its block. Here, with the document at hand, it becomes the declaration's
/// RFC 6901 pointer and line in `geometry.json` or `mjolnir.json`.
fn locate_declarations(results: &mut [Finished]) {
    let mut sources: BTreeMap<String, Option<(String, Value)>> = BTreeMap::new();
    for r in results.iter_mut() {
        let Outcome::Failed(diagnostics) = &mut r.outcome else {
            continue;
        };
        for d in diagnostics.iter_mut() {
            if !d.pointer.contains("blocks/") {
                continue;
            }
            let source = sources.entry(d.file.clone()).or_insert_with(|| {
                let text = mjolnir_files::bounded::read_text(
                    std::path::Path::new(&d.file),
                    MAX_DOCUMENT_BYTES,
                )
                .ok()?;
                let value = serde_json::from_str(&text).ok()?;
                Some((text, value))
            });
            let Some((text, value)) = source else {
                continue;
            };
            let Some(pointer) = forge_contract::document::pointer_by_index(value, &d.pointer)
            else {
                continue;
            };
            d.pointer = pointer;
            if let Some((line, column)) = forge_contract::json_position::locate(text, &d.pointer) {
                (d.line, d.column) = (Some(line), Some(column));
            }
        }
    }
}

/// Each failed step and its findings; a finding two steps share (a hull both collision
/// kinds refuse) is printed once, under the first.
fn print_failures(graph: &Graph, results: &[Finished]) {
    let mut printed = std::collections::BTreeSet::new();
    for (step, r) in graph.steps.iter().zip(results) {
        if let Outcome::Failed(diagnostics) = &r.outcome {
            let new: Vec<String> = diagnostics
                .iter()
                .map(ToString::to_string)
                .filter(|line| printed.insert(line.clone()))
                .collect();
            if new.is_empty() && !diagnostics.is_empty() {
                eprintln!("{} failed, as above", step.id);
                continue;
            }
            eprintln!("{} failed:", step.id);
            for line in new {
                eprintln!("  {line}");
            }
        }
    }
}

fn print_explain(store: &Store, graph: &Graph, results: &[Finished]) {
    for (step, r) in graph.steps.iter().zip(results) {
        if let Outcome::Ran(dirty) = &r.outcome {
            eprintln!("ran {}: {}", step.id, dirty.describe());
            if let Some(line) = geometry_fields_line(store, r) {
                eprintln!("  {line}");
            }
        }
    }
    for (step, r) in graph.steps.iter().zip(results) {
        let remote: Vec<String> = r
            .outputs
            .iter()
            .filter(|o| o.stayed_remote())
            .map(|o| format!("{} ({} KB)", o.name, o.size.div_ceil(1000)))
            .collect();
        if !remote.is_empty() {
            eprintln!(
                "not fetched {}: {} stayed on the remote cache; no step that cooked and no set file read it",
                step.id,
                remote.join(", ")
            );
        }
    }
}

/// With every step fresh, `--check` still asks whether the set folders hold what the cook
/// would write there: a file edited, reverted or deleted by hand is stale too.
fn check_folders(folders: &[Folder], config: &Config, stat_cache: &StatCache) -> Ending {
    let mut stale = 0;
    for (dir, files) in folders {
        match materialize::differences(&config.out, dir, files, stat_cache) {
            Ok((writes, removals)) => {
                for path in &writes {
                    println!(
                        "would write {}: it differs from what the cook makes, or is missing",
                        path.display()
                    );
                }
                for path in &removals {
                    println!("would remove {}: it is not part of the set", path.display());
                }
                stale += writes.len() + removals.len();
            }
            Err(e) => {
                println!("would rewrite {}: {e:?}", dir.display());
                stale += 1;
            }
        }
    }
    if stale == 0 {
        println!("fresh: nothing would run, and every set folder holds what the cook makes");
        Ending::Cooked
    } else {
        println!("{stale} file(s) in the set folders would change");
        Ending::Stale
    }
}

/// For a block's geometry that ran, which fields came from the model, when any did:
/// `origin from source/geometry.json; hulls, supports, joins from source/models/ramp.blend`.
fn geometry_fields_line(store: &Store, r: &Finished) -> Option<String> {
    let fields = r
        .outputs
        .iter()
        .find(|o| o.name == steps::block_geometry::FIELDS)?;
    let fields: Value = serde_json::from_slice(&fields.bytes(store).ok()?).ok()?;
    let mut by_file: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (field, file) in fields.as_object()? {
        by_file.entry(file.as_str()?).or_default().push(field);
    }
    let from_model = by_file
        .keys()
        .any(|f| !f.ends_with(steps::geometry::SOURCE));
    from_model.then(|| {
        let parts: Vec<String> = by_file
            .iter()
            .map(|(file, fields)| format!("{} from {file}", fields.join(", ")))
            .collect();
        format!("geometry: {}", parts.join("; "))
    })
}

/// `--check`'s answer: each step a cook would run, and why (as `--explain` says it).
fn print_check(graph: &Graph, results: &[Finished]) -> Ending {
    let mut stale = 0;
    for (step, r) in graph.steps.iter().zip(results) {
        let why = match &r.outcome {
            Outcome::Failed(diagnostics) => {
                eprintln!("{} failed:", step.id);
                for d in diagnostics {
                    eprintln!("  {d}");
                }
                return Ending::Failed;
            }
            Outcome::Hit => continue,
            Outcome::Ran(dirty) | Outcome::Stale(dirty) => dirty.describe(),
            // Waits on a step that would run.
            Outcome::Skipped => match step
                .deps()
                .find(|&d| !matches!(results[d].outcome, Outcome::Hit))
            {
                Some(d) => format!("after {}", graph.steps[d].id),
                None => "not reached".into(),
            },
        };
        println!("would run {}: {why}", step.id);
        stale += 1;
    }
    if stale == 0 {
        Ending::Cooked
    } else {
        println!("{stale} of {} steps would run", graph.steps.len());
        Ending::Stale
    }
}

/// Set by the Ctrl-C handler; a cook stops starting steps when it is.
pub static CANCELLED: AtomicBool = AtomicBool::new(false);

/// The build folder's lock, held for the cook.
pub fn build_lock(out: &std::path::Path) -> Result<BuildLock> {
    match BuildLock::acquire(out) {
        Ok(lock) => Ok(lock),
        Err(LockError::Busy) => bail!(
            "error[build_locked]: another cook is using {}; wait for it to finish (nothing was changed)",
            out.display()
        ),
        Err(LockError::Io(e)) => bail!("cannot lock {}: {e}", out.display()),
    }
}

/// The no-op seal's shortcut: when nothing it covers changed, says so (and records the
/// cook) without opening the pool or any cache. `true` when the cook is done.
fn sealed_shortcut(options: &Options, seal_key: &str, started: Instant) -> Result<bool> {
    let config = &options.config;
    if options.check && seal::check(&config.cache, seal_key).is_some() {
        println!("fresh: nothing would run");
        return Ok(true);
    }
    if options.use_cache && !options.json && !options.explain && !options.check {
        // Checked here, before the pool or any cache is opened: that is the shortcut.
        if let Some(sealed) = seal::check(&config.cache, seal_key) {
            let counts = report::Counts {
                steps: sealed.steps,
                cached: sealed.steps,
                ..report::Counts::default()
            };
            let seconds = started.elapsed().as_secs_f64();
            record_cook(config, counts, None, seconds, (true, 0))?;
            println!(
                "{}",
                report::summary_line(sealed.packs, counts, started.elapsed())
            );
            return Ok(true);
        }
    }
    Ok(false)
}

/// A cook's attempt, and when a cached output turned out damaged, a second one with
/// every hit verified (which rebuilds whatever needed it).
fn attempt_twice(
    options: &Options,
    settings: &mut Settings,
    progress: &Progress,
    (plan, phases): (&PlanOptions, &Phases),
) -> Result<Attempt> {
    let mut run = Cook {
        options,
        settings,
        progress,
        registry: steps::REGISTRY,
        plan,
        phases,
    }
    .attempt()?;
    if let Some(detail) = &run.corrupt {
        eprintln!(
            "warning[cache_corrupt]: {detail}; cooking again with every cached output verified"
        );
        settings.verify_hits = true;
        run = Cook {
            options,
            settings,
            progress,
            registry: steps::REGISTRY,
            plan,
            phases,
        }
        .attempt()?;
    }
    Ok(run)
}

pub fn cook(options: &Options) -> Result<Ending> {
    let started = Instant::now();
    let config = &options.config;
    let _lock = build_lock(&config.out)?;
    let seal_key = seal_key(options);
    if sealed_shortcut(options, &seal_key, started)? {
        return Ok(Ending::Cooked);
    }
    if !options.check {
        seal::clear(&config.cache);
    }
    let plan = PlanOptions {
        donors: config
            .donors
            .as_ref()
            .map(|d| crate::donors::extract(d, &config.out))
            .transpose()?,
        ..options.plan.clone()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.max(1))
        .build()?;
    // The action log and the stat cache are the two files every cook parses first.
    let (store, stat_cache) = pool.join(
        || Store::open(&config.cache),
        || StatCache::open(config.cache.join("stat-cache.json")),
    );
    let store = store?;
    let phases = Phases::new(started);
    phases.end(phases::OPEN);
    let remote = config
        .remote
        .as_ref()
        .map(|r| RemoteCache::new(r).map(std::sync::Arc::new))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut settings = Settings {
        store: &store,
        stat_cache: &stat_cache,
        use_cache: options.use_cache,
        jobs: config.jobs,
        verify_hits: false,
        pool: &pool,
        cancel: &CANCELLED,
        remote: remote.as_ref(),
        check: options.check,
    };
    let pack_ids: Vec<String> = config.packs.iter().map(|p| p.id.clone()).collect();
    let progress = Progress::new(&pack_ids, options.verbose);
    let run = attempt_twice(options, &mut settings, &progress, (&plan, &phases))?;
    if let Some(remote) = remote.as_deref().filter(|r| r.writes() && !options.check) {
        file_bundle(config, &run, remote, &pool);
    }
    progress.finish();
    if options.check {
        store.close()?;
        stat_cache.save()?;
        let ending = print_check(&run.graph, &run.results);
        if !matches!(ending, Ending::Cooked) {
            return Ok(ending);
        }
        return Ok(check_folders(
            &run.folders(config, steps::REGISTRY, &pool),
            config,
            &stat_cache,
        ));
    }
    // Only a cook that could have taken the shortcut seals; `--json` and `--explain`
    // always run in full, and sealing costs a stat of everything.
    let could_use_seal = options.use_cache && !options.json && !options.explain;
    let unchanged = could_use_seal
        .then(|| sealable(options, &run, &pool))
        .flatten();
    // The stat cache is saved while the reports are written: neither reads the other.
    let (saved, ending) = pool.join(
        || store.close().and_then(|()| stat_cache.save()),
        || finish(options, run, &settings, &pool, (started, &phases)),
    );
    saved?;
    let ending = ending?;
    if let Some(note) = plan.donors.as_ref().and_then(donor_slots_note) {
        if !options.json {
            eprintln!("{note}");
        }
    }
    if let Some((sealed, paths)) = unchanged {
        seal::write(&config.cache, &seal_key, &sealed, paths)?;
    }
    if options.ends_process {
        std::mem::forget((store, stat_cache));
    }
    Ok(ending)
}

/// The largest donor package read for its slot names.
const MAX_DONOR_BYTES: u64 = 256 << 20;

/// What the game will show: the previews wear each model's own colours, the game the
/// donor mesh's material slots.
fn donor_slots_note(donors: &forge::donors::DonorFiles) -> Option<String> {
    let mesh = donors
        .files
        .iter()
        .find(|d| d.role == forge::donors::STATIC_MESH)?;
    let bytes = mjolnir_files::bounded::read(&mesh.file, MAX_DONOR_BYTES).ok()?;
    let slots = forge_mesh::unreal::donor_slot_names(&bytes).ok()?;
    Some(format!(
        "note: the previews wear each model's own colours; in the game every piece wears the donor mesh's material slots ({}), whatever its materials are called (docs/donors.md)",
        slots.join(", ")
    ))
}

/// Files the cook's bundle on a machine that writes to the remote (`docs/ci.md`): its
/// entries, and the large outputs its set and map folders hold, which a fresh clone then
/// downloads while it looks its steps up.
fn file_bundle(config: &Config, run: &Attempt, remote: &RemoteCache, pool: &rayon::ThreadPool) {
    let keys: Vec<&str> = run
        .results
        .iter()
        .filter_map(|r| r.key.as_deref())
        .collect();
    let landing = run
        .folders(config, steps::REGISTRY, pool)
        .iter()
        .flat_map(|(_, files)| files.values())
        .filter(|o| o.size > engine::remote::action_result::INLINE_MAX)
        .map(|o| o.hash.clone())
        .collect();
    remote.send_bundle(&keys, landing);
}

/// What a seal must cover: everything this cook's options and code decide.
fn seal_key(options: &Options) -> String {
    let mut h = blake3::Hasher::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    // The binary itself, by one stat: a new build (with another report viewer embedded,
    // say) never takes an old build's seal, so what it writes is written out.
    if let Ok(meta) = std::env::current_exe().and_then(std::fs::metadata) {
        h.update(&meta.len().to_le_bytes());
        if let Ok(modified) = meta.modified() {
            h.update(format!("{modified:?}").as_bytes());
        }
    }
    for kind in steps::REGISTRY {
        h.update(kind.name.as_bytes());
        h.update(&kind.version.to_le_bytes());
    }
    let config = &options.config;
    let packs: Vec<(&str, &std::path::Path)> = config
        .packs
        .iter()
        .map(|p| (p.id.as_str(), p.dir.as_path()))
        .collect();
    let described = format!(
        "{packs:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        config.out, config.cache, options.only, options.plan, config.render, config.donors
    );
    h.update(described.as_bytes());
    h.finalize().to_hex().to_string()
}

/// A cook that ran nothing and changed no file can be sealed: its counts, and every path
/// it looked at (sources, the folders listed to find them, every set file and folder).
fn sealable(
    options: &Options,
    run: &Attempt,
    pool: &rayon::ThreadPool,
) -> Option<(seal::Sealed, Vec<std::path::PathBuf>)> {
    let counts = report::count(&run.results);
    let changed = run.materialized.written + run.materialized.removed;
    if counts.steps != counts.cached || changed > 0 || run.step_records.is_none() {
        return None;
    }
    let config = &options.config;
    let mut paths = std::collections::BTreeSet::new();
    for step in &run.graph.steps {
        for input in &step.inputs {
            if let crate::graph::Input::Source { path, .. } = input {
                // A pack's folders are listed to find its sources; the donors are found
                // in the Paks folder, and only its TOCs and containers matter.
                if config.packs.iter().any(|p| path.starts_with(&p.dir)) {
                    paths.extend(path.ancestors().skip(1).take(2).map(|p| p.to_path_buf()));
                } else if path.extension().is_some_and(|x| x == "utoc") {
                    paths.insert(path.with_extension("ucas"));
                }
                paths.insert(path.clone());
            }
        }
    }
    if let Some(donors) = &config.donors {
        paths.insert(donors.paks.clone());
    }
    for set in &run.sets {
        paths.insert(config.packs[set.pack].dir.clone());
    }
    // The action log too: a cache edited, restored or shared since is checked in full.
    let mut written = vec![config.cache.join("actions.log")];
    // Each set file, and each folder between it and the set folder once, in the files'
    // order: a catalog's 3,600 files and their folders kept sorted in a tree of paths
    // took 6.8 ms of the cook after an edit.
    let mut folders_listed = std::collections::HashSet::new();
    for (dir, files) in run.folders(config, steps::REGISTRY, pool).iter() {
        for rel in files.keys() {
            let file = dir.join(rel);
            for folder in file.ancestors().skip(1).take_while(|a| a.starts_with(dir)) {
                if !folders_listed.insert(folder.to_path_buf()) {
                    break;
                }
                written.push(folder.to_path_buf());
            }
            written.push(file);
        }
    }
    let sealed = seal::Sealed {
        packs: run.sets.len(),
        steps: counts.steps,
    };
    // What an author edits first: the check stops at the first stamp that changed, and an
    // edit after a no-op had stat'ed a catalog-sized set's 3,600 files before its model.
    Some((sealed, paths.into_iter().chain(written).collect()))
}

/// Adds the cook to `cooks.log`, for `mjolnir cache stats`; returns its number.
/// `stored` is what it added to the store.
fn record_cook(
    config: &Config,
    counts: report::Counts,
    remote: Option<&RemoteCache>,
    seconds: f64,
    (sealed, stored): (bool, u64),
) -> Result<u64> {
    let line = crate::usage::CookLine {
        number: 0,
        unix_s: 0,
        steps: counts.steps,
        cached: counts.cached,
        run: counts.run,
        failed: counts.failed,
        remote_hits: remote.map_or(0, |r| r.counts().hits),
        seconds,
        sealed,
        stored_bytes: stored,
    };
    Ok(crate::usage::record_cook(&config.cache, line)?)
}

/// What the remote cache did in this cook, in a line.
fn remote_line(c: &crate::remote::Counts) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    let mut line = format!(
        "remote cache: {} hits ({:.1} MB down), {} misses",
        c.hits,
        mb(c.bytes_down),
        c.misses
    );
    if c.refused > 0 {
        let mut why = Vec::new();
        if c.refused_unsigned > 0 {
            why.push(format!("{} unsigned", c.refused_unsigned));
        }
        if c.refused_untrusted > 0 {
            why.push(format!("{} by an untrusted writer", c.refused_untrusted));
        }
        let other = c.refused - c.refused_unsigned - c.refused_untrusted;
        if other > 0 && !why.is_empty() {
            why.push(format!("{other} damaged"));
        }
        line.push_str(&format!(", {} refused", c.refused));
        if !why.is_empty() {
            line.push_str(&format!(" ({})", why.join(", ")));
        }
    }
    if c.bundles_taken > 0 {
        line.push_str(&format!(", {} in the cook's bundle", c.bundled_entries));
    }
    if c.bundles_refused > 0 {
        line.push_str(", its bundle refused");
    }
    if c.listed_blobs > 0 {
        line.push_str(&format!(
            ", {} of {} large outputs fetched (the rest were not needed)",
            c.downloaded_blobs, c.listed_blobs
        ));
    }
    if c.uploaded_entries > 0 || c.present_blobs > 0 {
        line.push_str(&format!(
            ", {} steps uploaded ({} blobs, {:.1} MB; {} already there)",
            c.uploaded_entries,
            c.uploaded_blobs,
            mb(c.bytes_up),
            c.present_blobs
        ));
    }
    if c.bundles_uploaded > 0 {
        line.push_str(", the cook's bundle filed");
    }
    line
}

/// `report.json`'s summary of a cook.
fn summary_json(
    options: &Options,
    settings: &Settings,
    (counts, elapsed, materialized): (report::Counts, std::time::Duration, &materialize::Changes),
    (line, phases): (&str, &Phases),
) -> Value {
    let config = &options.config;
    let pack_ids: Vec<&str> = config.packs.iter().map(|p| p.id.as_str()).collect();
    json!({
        "packs": pack_ids,
        "set": layout::set_name(&options.only),
        "steps": counts.steps,
        "cached": counts.cached,
        "run": counts.run,
        "failed": counts.failed,
        "skipped": counts.skipped,
        "hit_rate": if counts.steps == 0 { 0.0 } else { counts.cached as f64 / counts.steps as f64 },
        "seconds": elapsed.as_secs_f64(),
        "phases_ms": phases.to_json(),
        "verified_hits": settings.verify_hits,
        "materialized": {"written": materialized.written, "removed": materialized.removed},
        "line": line,
        "render": config.render,
        "installable": config.donors.is_some(),
        "remote": settings.remote.map(|r| r.counts()),
    })
}

/// The cook's last words: the summary and errors as JSON, or the closing line with the
/// remote cache's warnings and a note when nothing is installable.
fn print_ending(
    options: &Options,
    settings: &Settings,
    (summary, errors, line): (&Value, &[&Diagnostic], &str),
    ok: bool,
) {
    if options.json {
        print!(
            "{}",
            json_out::pretty_text(&json!({"summary": summary, "errors": errors}))
        );
    } else {
        println!("{line}");
        let out = &options.config.out;
        let out = out.strip_prefix(".").unwrap_or(out);
        let renders = out.join("render");
        let previews = match renders.is_dir() {
            true => format!("; previews in {}", renders.display()),
            false => String::new(),
        };
        eprintln!("report: {}{previews}", out.join("report.html").display());
        if let Some(remote) = settings.remote {
            for warning in remote.warnings() {
                eprintln!("{warning}");
            }
            eprintln!("{}", remote_line(&remote.counts()));
        }
        if ok && options.config.donors.is_none() {
            eprintln!("note: cooked without donors, so no set is installable; docs/donors.md says how to add them");
        }
    }
}

/// What failed, whether Ctrl-C cut the cook short, and with `--explain` why each step ran.
fn print_outcomes(
    options: &Options,
    store: &Store,
    graph: &Graph,
    results: &[Finished],
    (counts, ok): (report::Counts, bool),
) {
    if !ok {
        print_failures(graph, results);
    }
    if CANCELLED.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!(
            "interrupted: {} steps were not run; what finished is cached, and nothing was materialized",
            counts.skipped
        );
    }
    if options.explain {
        print_explain(store, graph, results);
    }
}

/// `report.json` and `report.html`, written side by side on the pool.
fn write_reports(
    options: &Options,
    pool: &rayon::ThreadPool,
    (sets, maps): (&[SetPlan], &[MapPlan]),
    (begun, full): (report::Begun, &report::Report),
    (graph, results): (&Graph, &[Finished]),
) -> Result<()> {
    let config = &options.config;
    let cooked_maps: Vec<String> = maps.iter().map(|m| config.maps[m.map].id.clone()).collect();
    let cooked_sets: Vec<(String, String)> = sets
        .iter()
        .map(|s| (config.packs[s.pack].id.clone(), s.spec.name.clone()))
        .collect();
    let (json_written, html_written) = pool.join(
        || begun.finish(full),
        || {
            crate::html::write(
                &config.out,
                &cooked_sets,
                &cooked_maps,
                full.summary,
                graph,
                results,
            )
        },
    );
    json_written?;
    html_written?;
    Ok(())
}

/// Prints what failed, writes the reports and the closing line.
fn finish(
    options: &Options,
    run: Attempt,
    settings: &Settings,
    pool: &rayon::ThreadPool,
    (started, phases): (Instant, &Phases),
) -> Result<Ending> {
    let config = &options.config;
    let Attempt {
        graph,
        mut results,
        sets,
        maps,
        materialized,
        step_records,
        ..
    } = run;
    locate_declarations(&mut results);
    let counts = report::count(&results);
    let ok = counts.failed == 0 && counts.skipped == 0;
    print_outcomes(options, settings.store, &graph, &results, (counts, ok));
    let elapsed = started.elapsed();
    let errors: Vec<&Diagnostic> = results
        .iter()
        .flat_map(|r| match &r.outcome {
            Outcome::Failed(d) => d.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    let packs_cooked = if sets.is_empty() {
        config.packs.len()
    } else {
        sets.len()
    };
    let line = report::summary_line(packs_cooked, counts, elapsed);
    let summary = summary_json(
        options,
        settings,
        (counts, elapsed, &materialized),
        (&line, phases),
    );
    let number = record_cook(
        config,
        counts,
        settings.remote.map(|r| &**r),
        elapsed.as_secs_f64(),
        (false, settings.store.bytes_added()),
    )?;
    let used = results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Hit | Outcome::Ran(_)))
        .filter_map(|r| r.key.as_deref());
    let report_json = config.out.join("report.json");
    let begun = match step_records {
        Some(begun) => begun,
        None => report::begin(&report_json, &graph, &results)
            .with_context(|| format!("cannot write {}", report_json.display()))?,
    };
    let full = report::Report {
        summary: &summary,
        errors: &errors,
    };
    // The use log (a line per step used) is written while the reports are.
    let (recorded, reported) = pool.join(
        || crate::usage::record_uses(&config.cache, number, used),
        || {
            let reports = (begun, &full);
            write_reports(options, pool, (&sets, &maps), reports, (&graph, &results))
        },
    );
    recorded?;
    reported?;
    print_ending(options, settings, (&summary, &errors, &line), ok);
    // When the process ends next, freeing every step, output and cache entry first only
    // costs the cook time; a `--watch` loop frees them, or each cook would leak them.
    if options.ends_process {
        std::mem::forget(errors);
        std::mem::forget((graph, results));
    }
    Ok(if ok { Ending::Cooked } else { Ending::Failed })
}
