//! Runs a graph: one coordinator owns the step states, workers on a rayon pool run steps.
//!
//! The coordinator probes every step whose dependencies are done against the cache (all
//! of them at once, on the pool), starts the misses, up to `jobs` at once, and reacts to
//! each finished step by releasing its dependents. Workers compute the key,
//! look it up, and on a miss run the cooker and store its outputs; they report back over a
//! channel and never touch the states. Step order never reaches an output: cookers see only
//! their inputs, so bytes are the same for any job count.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use findings::{finding, Diagnostic};
use rayon::prelude::*;

use crate::cooker::{Cooked, Inputs, Outputs};
use crate::fingerprint::{Dirty, Fingerprint};
use crate::graph::{Graph, Input, Step, StepId};
use crate::remote::{Fetched, HitOutput, RemoteCache};
use crate::stat_cache::StatCache;
use crate::store::{ActionRecord, OutputRef, Store};

/// One output of a step. Outputs of a cache hit are not read until something needs their
/// bytes (a step that runs, or a set file that changed), and are verified when they are.
/// Those of a remote hit that the store lacks are downloaded then, and only then.
pub struct Output {
    pub name: String,
    pub hash: String,
    pub size: u64,
    /// The bytes, while they are held: those a step just made until it has stored them,
    /// and small outputs until every step that reads them is done. A large output read
    /// from the store is not kept, so a cook's memory does not grow with what it has made.
    loaded: Mutex<Option<Arc<Vec<u8>>>>,
    /// The store's blob is known to hold these bytes (written or verified this cook):
    /// reading it again skips the hash.
    trusted: AtomicBool,
    /// Boxed, as the spliced part: a catalog's cook holds thousands of outputs, and
    /// nearly none is a remote hit's or spliced.
    remote: Option<Box<RemoteBlob>>,
    spliced: Option<Box<Spliced>>,
}

/// Outputs smaller than this stay in memory once read, until the steps that read them are
/// done; larger ones are read from the store each time they are needed.
const KEPT_MAX: u64 = 64 << 10;

/// A spliced output's (`splice`): its blob is its recipe, and these are what it copies from.
struct Spliced {
    recipe_size: u64,
    /// The recipe, once read (or as the step made it).
    recipe: OnceLock<Arc<Vec<u8>>>,
    sources: Arc<Sources>,
}

/// The outputs a step's spliced outputs copy from, by the input names it knows them by.
pub type Sources = Vec<(String, Arc<Output>)>;

/// The inputs of `step` that its spliced outputs copy from, out of its inputs' outputs.
fn sources_of<'o>(
    step: &Step,
    inputs: impl IntoIterator<Item = (&'o str, &'o Arc<Output>)>,
) -> Arc<Sources> {
    let mut sources: Sources = inputs
        .into_iter()
        .filter(|(name, _)| step.kind.splices_from(name))
        .map(|(name, o)| (name.to_string(), o.clone()))
        .collect();
    sources.sort_by(|a, b| a.0.cmp(&b.0));
    Arc::new(sources)
}

/// Where a remote hit's output can be fetched from, when something reads it.
struct RemoteBlob {
    listed: HitOutput,
    cache: Arc<RemoteCache>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("name", &self.name)
            .field("hash", &self.hash)
            .field("size", &self.size)
            .field("remote", &self.remote.is_some())
            .field("spliced", &self.spliced.is_some())
            .finish()
    }
}

/// A cached output failed its hash check when read. The blob is gone; the cook is retried
/// with every hit verified, which rebuilds whatever needed it.
/// The code of a finding that means "a cached output was damaged", which makes the cook
/// retry with verified hits.
pub const CACHE_CORRUPT: &str = "cache_corrupt";

#[derive(Debug, Clone)]
pub struct CorruptOutput {
    pub detail: String,
}

impl Output {
    fn fresh(name: String, hash: String, bytes: Vec<u8>) -> Arc<Output> {
        let size = bytes.len() as u64;
        Arc::new(Output {
            name,
            hash,
            size,
            loaded: Mutex::new(Some(Arc::new(bytes))),
            trusted: AtomicBool::new(false),
            remote: None,
            spliced: None,
        })
    }

    /// A spliced output a step just made: `size` is what its recipe was checked to make.
    fn fresh_spliced(
        name: String,
        hash: String,
        recipe: Vec<u8>,
        size: u64,
        sources: Arc<Sources>,
    ) -> Arc<Output> {
        Arc::new(Output {
            name,
            hash,
            size,
            loaded: Mutex::new(None),
            trusted: AtomicBool::new(false),
            remote: None,
            spliced: Some(Box::new(Spliced {
                recipe_size: recipe.len() as u64,
                recipe: OnceLock::from(Arc::new(recipe)),
                sources,
            })),
        })
    }

    /// A recorded output; a spliced one copies from `sources`. Its name and hash are
    /// taken, not copied: a cook makes one for each of thousands of cached outputs.
    fn cached(o: OutputRef, sources: &Arc<Sources>) -> Arc<Output> {
        Arc::new(Output {
            name: o.name,
            hash: o.hash,
            size: o.size,
            loaded: Mutex::new(None),
            trusted: AtomicBool::new(false),
            remote: None,
            spliced: o.recipe.map(|recipe_size| {
                Box::new(Spliced {
                    recipe_size,
                    recipe: OnceLock::new(),
                    sources: sources.clone(),
                })
            }),
        })
    }

    fn in_remote(
        listed: HitOutput,
        cache: &Arc<RemoteCache>,
        sources: &Arc<Sources>,
    ) -> Arc<Output> {
        Arc::new(Output {
            name: listed.name.clone(),
            hash: listed.blake3.clone(),
            size: listed.spliced.unwrap_or(listed.size),
            loaded: Mutex::new(None),
            trusted: AtomicBool::new(false),
            spliced: listed.spliced.map(|_| {
                Box::new(Spliced {
                    recipe_size: listed.size,
                    recipe: OnceLock::new(),
                    sources: sources.clone(),
                })
            }),
            remote: Some(Box::new(RemoteBlob {
                listed,
                cache: cache.clone(),
            })),
        })
    }

    /// What a remote cache is given for it: its bytes, or a spliced output's recipe.
    fn upload(&self) -> Option<crate::remote::Upload> {
        let (blob, spliced) = match &self.spliced {
            Some(s) => (s.recipe.get()?.clone(), Some(self.size)),
            None => (self.held()?, None),
        };
        Some(crate::remote::Upload {
            name: self.name.clone(),
            blob,
            spliced,
        })
    }

    /// How it is recorded in the action log.
    fn to_ref(&self) -> OutputRef {
        OutputRef {
            name: self.name.clone(),
            hash: self.hash.clone(),
            size: self.size,
            recipe: self.spliced.as_ref().map(|s| s.recipe_size),
        }
    }

    /// The size of the blob `hash` names: the bytes, or a spliced output's recipe.
    fn blob_size(&self) -> u64 {
        self.spliced.as_ref().map_or(self.size, |s| s.recipe_size)
    }

    pub fn is_spliced(&self) -> bool {
        self.spliced.is_some()
    }

    /// The outputs a spliced output copies from; none for any other.
    pub fn spliced_sources(&self) -> impl Iterator<Item = &Arc<Output>> {
        self.spliced
            .iter()
            .flat_map(|s| s.sources.iter().map(|(_, o)| o))
    }

    /// Takes the store's blob as sound without hashing it when it is read: the caller
    /// knows the blob's file, by its stamp, as one read and found sound before.
    pub fn vouch_for_blob(&self) {
        self.trusted.store(true, Ordering::Relaxed);
    }

    /// The bytes when they are already in memory (a step that ran), reading nothing.
    pub fn loaded_bytes(&self) -> Option<Arc<Vec<u8>>> {
        self.held()
    }

    fn held(&self) -> Option<Arc<Vec<u8>>> {
        self.loaded.lock().expect("output lock").clone()
    }

    /// Lets go of a large output's bytes once the store holds them: they are read (and
    /// verified, the first time) from there when needed. A blob already in the store was
    /// not rewritten, so it is not trusted on this step's word.
    fn release(&self) {
        if self.size > KEPT_MAX {
            self.let_go();
        }
    }

    /// Lets go of the bytes whatever their size: nothing in this run reads them from
    /// memory again, and a later reader finds them in the store.
    fn let_go(&self) {
        *self.loaded.lock().expect("output lock") = None;
    }

    /// The bytes, read from the store (downloaded into it first, for a remote hit's output
    /// it lacks) and verified on first use.
    pub fn bytes(&self, store: &Store) -> Result<Arc<Vec<u8>>, CorruptOutput> {
        if let Some(b) = self.held() {
            return Ok(b);
        }
        let bytes = self.bytes_unkept(store)?;
        if self.size <= KEPT_MAX {
            *self.loaded.lock().expect("output lock") = Some(bytes.clone());
        }
        Ok(bytes)
    }

    /// The bytes, as [`bytes`](Output::bytes), without keeping them: a folder's file, or
    /// a spliced output's source, read once.
    pub fn bytes_unkept(&self, store: &Store) -> Result<Arc<Vec<u8>>, CorruptOutput> {
        if let Some(b) = self.held() {
            return Ok(b);
        }
        let Some(spliced) = &self.spliced else {
            return self.blob(store).map(Arc::new);
        };
        let recipe = self.recipe(spliced, store)?;
        let bytes = recipe
            .assemble(|name| self.source(spliced, name)?.bytes_unkept(store))
            .map_err(spliced_error)?;
        self.check_size(bytes.len() as u64)?;
        Ok(Arc::new(bytes))
    }

    /// Writes the bytes to `file`; a spliced output's sources are read one at a time.
    /// Returns a spliced output's leaves when they were taken on the way.
    pub fn write_to(
        &self,
        file: &mut std::fs::File,
        store: &Store,
    ) -> Result<Option<crate::leaves::Leaves>, WriteError> {
        use std::io::Write;
        let Some(spliced) = self.spliced.as_ref().filter(|_| self.held().is_none()) else {
            let bytes = self.bytes_unkept(store)?;
            file.write_all(&bytes).map_err(WriteError::Io)?;
            return Ok(None);
        };
        let recipe = self.recipe(spliced, store)?;
        let leaves = recipe
            .write(file, |name| self.source(spliced, name)?.bytes_unkept(store))
            .map_err(spliced_write_error)?;
        let written = file.metadata().map_err(WriteError::Io)?.len();
        self.check_size(written)?;
        Ok(leaves)
    }

    /// A spliced output's recipe, checked against its sources.
    pub fn recipe_of(&self, store: &Store) -> Result<crate::splice::Recipe, CorruptOutput> {
        let spliced = self.spliced.as_ref().ok_or_else(|| CorruptOutput {
            detail: format!("{} is not spliced", self.name),
        })?;
        self.recipe(spliced, store)
    }

    /// `length` bytes from `offset` of the source a spliced output's recipe calls `name`.
    pub fn source_bytes_at(
        &self,
        name: &str,
        offset: u64,
        length: u64,
        store: &Store,
    ) -> Result<Vec<u8>, CorruptOutput> {
        let spliced = self.spliced.as_ref().ok_or_else(|| CorruptOutput {
            detail: format!("{} is not spliced", self.name),
        })?;
        self.source(spliced, name)?.bytes_at(offset, length, store)
    }

    /// `length` bytes from `offset`: read just there from a blob already found sound (by
    /// its file's stamp, or read whole in this cook), and from the whole blob, verified,
    /// otherwise.
    fn bytes_at(&self, offset: u64, length: u64, store: &Store) -> Result<Vec<u8>, CorruptOutput> {
        let sound = self.trusted.load(Ordering::Relaxed) && self.remote.is_none();
        if sound && self.held().is_none() && self.spliced.is_none() {
            return store
                .read_blob_at(&self.hash, self.size, offset, length)
                .map_err(|e| CorruptOutput {
                    detail: e.to_string(),
                });
        }
        let bytes = self.bytes_unkept(store)?;
        let range = usize::try_from(offset).ok().zip(
            offset
                .checked_add(length)
                .and_then(|end| usize::try_from(end).ok()),
        );
        range
            .and_then(|(from, to)| bytes.get(from..to))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| CorruptOutput {
                detail: format!("{} is shorter than a recipe copies from it", self.name),
            })
    }

    /// The blob `hash` names, downloaded first when it is still remote, and verified.
    fn blob(&self, store: &Store) -> Result<Vec<u8>, CorruptOutput> {
        self.download(store)?;
        let trusted = self.trusted.load(Ordering::Relaxed);
        let bytes = store
            .get_blob_checked(&self.hash, !trusted)
            .map_err(|e| CorruptOutput {
                detail: e.to_string(),
            })?;
        self.trusted.store(true, Ordering::Relaxed);
        Ok(bytes)
    }

    fn recipe(
        &self,
        spliced: &Spliced,
        store: &Store,
    ) -> Result<crate::splice::Recipe, CorruptOutput> {
        let bytes = match spliced.recipe.get() {
            Some(bytes) => bytes.clone(),
            None => {
                let bytes = Arc::new(self.blob(store)?);
                spliced.recipe.get_or_init(|| bytes).clone()
            }
        };
        let recipe =
            crate::splice::Recipe::from_bytes(&bytes).map_err(|detail| CorruptOutput { detail })?;
        // Checked before anything is allocated for it: the pieces fit the sources, and
        // make the size the record says.
        let made = recipe
            .check(|name| {
                let source = self.source(spliced, name).ok()?;
                Some((source.size, source.hash.clone()))
            })
            .map_err(|why| CorruptOutput {
                detail: format!("{}'s recipe does not fit its sources: {why}", self.name),
            })?;
        self.check_size(made)?;
        Ok(recipe)
    }

    fn source<'s>(
        &self,
        spliced: &'s Spliced,
        name: &str,
    ) -> Result<&'s Arc<Output>, CorruptOutput> {
        spliced
            .sources
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .map(|i| &spliced.sources[i].1)
            .map_err(|_| CorruptOutput {
                detail: format!(
                    "{}'s recipe copies from {name:?}, which the step does not splice from",
                    self.name
                ),
            })
    }

    fn check_size(&self, made: u64) -> Result<(), CorruptOutput> {
        if made == self.size {
            return Ok(());
        }
        Err(CorruptOutput {
            detail: format!(
                "{}'s recipe made {made} bytes, not {}",
                self.name, self.size
            ),
        })
    }

    /// Whether the bytes are still to be downloaded from the remote cache.
    pub fn is_remote_only(&self, store: &Store) -> bool {
        self.remote.is_some()
            && self.held().is_none()
            && !store.has_blob(&self.hash, self.blob_size())
    }

    /// Whether this is a remote hit's output this cook never downloaded: nothing read it,
    /// and no set file needed it.
    pub fn stayed_remote(&self) -> bool {
        self.remote
            .as_ref()
            .is_some_and(|r| !r.cache.has_downloaded(&self.hash))
    }

    /// Puts a remote hit's output in the store, when it is not there yet.
    fn download(&self, store: &Store) -> Result<(), CorruptOutput> {
        let Some(blob) = &self.remote else {
            return Ok(());
        };
        blob.cache
            .download(&blob.listed, store)
            .map_err(|detail| CorruptOutput { detail })
    }
}

/// Why an output could not be written out: its cached bytes (or a source's) are damaged,
/// or the file could not take them (a full disk, say), which is not the cache's fault.
#[derive(Debug)]
pub enum WriteError {
    Corrupt(CorruptOutput),
    Io(std::io::Error),
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> WriteError {
        WriteError::Io(e)
    }
}

impl From<CorruptOutput> for WriteError {
    fn from(e: CorruptOutput) -> WriteError {
        WriteError::Corrupt(e)
    }
}

/// A spliced output's write failed: the disk's failure, or a damaged source.
pub(crate) fn spliced_write_error(e: crate::splice::Spliced<CorruptOutput>) -> WriteError {
    match e {
        crate::splice::Spliced::Io(e) => WriteError::Io(e),
        e => WriteError::Corrupt(spliced_error(e)),
    }
}

fn spliced_error(e: crate::splice::Spliced<CorruptOutput>) -> CorruptOutput {
    match e {
        crate::splice::Spliced::Source(e) => e,
        crate::splice::Spliced::OutOfRange => CorruptOutput {
            detail: "a source is shorter than its recipe says".into(),
        },
        crate::splice::Spliced::Io(e) => CorruptOutput {
            detail: format!("cannot write it: {e}"),
        },
    }
}

/// Downloads the outputs of remote hits that `outputs` names and the store lacks, many at
/// once (as many as the remote cache has connections), before they are read one by one.
pub fn prefetch<'o>(outputs: impl IntoIterator<Item = &'o Arc<Output>>, store: &Store) {
    // A spliced output is written from its sources: they are fetched too.
    let pending: Vec<&Arc<Output>> = outputs
        .into_iter()
        .flat_map(|o| {
            let sources = o
                .spliced
                .iter()
                .flat_map(|s| s.sources.iter().map(|(_, o)| o));
            std::iter::once(o).chain(sources)
        })
        .filter(|o| o.is_remote_only(store))
        .collect();
    let Some(connections) = pending
        .iter()
        .find_map(|o| o.remote.as_ref())
        .map(|r| r.cache.connections())
    else {
        return;
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..connections.min(pending.len()) {
            s.spawn(|| {
                while let Some(o) = pending.get(next.fetch_add(1, Ordering::Relaxed)) {
                    // A failure is met again, and reported, when the output is read.
                    let _ = o.download(store);
                }
            });
        }
    });
}

/// What one input of a step was, in the order of the step's inputs, where its name is:
/// a catalog's cold cook keeps a record of every input of every step for its report,
/// and a copy of each name was a fifth of them.
#[derive(Debug, Clone)]
pub struct InputRecord {
    known: Known,
}

/// An input's hash and size: a source's, or the upstream output itself, shared rather
/// than copied (a catalog's cold cook keeps a record of every input of every step for its
/// report, thousands of hashes).
#[derive(Debug, Clone)]
enum Known {
    Source { hash: String, size: u64 },
    Output(Arc<Output>),
}

impl InputRecord {
    pub fn hash(&self) -> &str {
        match &self.known {
            Known::Source { hash, .. } => hash,
            Known::Output(o) => &o.hash,
        }
    }

    pub fn size(&self) -> u64 {
        match &self.known {
            Known::Source { size, .. } => *size,
            Known::Output(o) => o.size,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Outcome {
    Hit,
    Ran(Dirty),
    Failed(Vec<Diagnostic>),
    /// Not run: a dependency failed (or, under `check`, is stale), or the run stopped at
    /// the first failure.
    Skipped,
    /// Under `check`: not cached, so a cook would run it, for this reason.
    Stale(Dirty),
}

#[derive(Debug, Clone)]
pub struct Finished {
    pub key: Option<String>,
    pub outcome: Outcome,
    pub duration: Duration,
    /// What a step that ran (or failed, or went stale) read, for its report, in the order
    /// of its inputs (a failed one's up to the input it could not read); empty for a hit,
    /// whose inputs are those of the cook that ran it.
    pub inputs: Vec<InputRecord>,
    pub outputs: Vec<Arc<Output>>,
}

/// The output named `name`. A pack's steps make an output per block (its catalog entries),
/// which every block's steps look up: searched from the start, that was quadratic in the
/// blocks. Outputs are usually in name order, so a binary search finds it; when they are
/// not, a search from the start still does.
fn output_named<'o>(outputs: &'o [Arc<Output>], name: &str) -> Option<&'o Arc<Output>> {
    match outputs.binary_search_by(|o| o.name.as_str().cmp(name)) {
        Ok(i) => Some(&outputs[i]),
        Err(_) => outputs.iter().find(|o| o.name == name),
    }
}

impl Finished {
    fn skipped() -> Finished {
        Finished {
            key: None,
            outcome: Outcome::Skipped,
            duration: Duration::ZERO,
            inputs: vec![],
            outputs: vec![],
        }
    }
}

/// A step's life. Every change goes through [`Run::transition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for this many dependencies.
    Waiting(usize),
    /// All dependencies are done; queued to start.
    Ready,
    Running,
    Done,
}

pub struct Settings<'a> {
    pub store: &'a Store,
    pub stat_cache: &'a StatCache,
    pub use_cache: bool,
    pub jobs: usize,
    /// Read and verify every output of every hit. Used when a cook is retried after a
    /// corrupt output was found; normally outputs are verified only when read.
    pub verify_hits: bool,
    pub pool: &'a rayon::ThreadPool,
    /// Set (by Ctrl-C) to stop starting steps; those running finish and are recorded.
    pub cancel: &'a AtomicBool,
    /// The shared cache, asked on a local miss and given what is cooked.
    pub remote: Option<&'a Arc<RemoteCache>>,
    /// `--check`: a step the caches miss is not cooked but reported [`Outcome::Stale`];
    /// only kinds that run under check (what the planner needs to lay out the rest) run,
    /// and what they make is not stored.
    pub check: bool,
}

impl<'a> Settings<'a> {
    /// A plain local run: the cache used and written, as many steps at once as the pool
    /// has threads, no remote, nothing verified twice.
    pub fn local(
        store: &'a Store,
        stat_cache: &'a StatCache,
        pool: &'a rayon::ThreadPool,
        cancel: &'a AtomicBool,
    ) -> Settings<'a> {
        Settings {
            store,
            stat_cache,
            use_cache: true,
            jobs: pool.current_num_threads(),
            verify_hits: false,
            pool,
            cancel,
            remote: None,
            check: false,
        }
    }
}

/// Receives each finished step, for progress display.
pub trait Observer: Sync {
    fn finished(&self, graph: &Graph, step: StepId, result: &Finished);
}

struct Run {
    states: Vec<State>,
    deps: Edges,
    dependents: Edges,
    /// For each step, how many of its dependents are not done yet. At zero no step of this
    /// run reads its outputs again, so their bytes are let go: a cook's memory then holds
    /// the outputs of the steps in flight and of those waiting on them, not of the pack.
    unfinished_dependents: Vec<usize>,
    results: Vec<Option<Finished>>,
    ready: VecDeque<StepId>,
    /// While set, a step that becomes ready goes to the front of `ready`: the dependents
    /// of a step that ran, which an edit waits on, are probed before the hits queued ahead.
    ready_first: bool,
    /// How many steps at the front of `ready` were queued with `ready_first`.
    urgent: usize,
    /// The steps downstream of an edit's changed sources (empty: none marked): they too
    /// go to the front when they become ready, including after a hit. An edit whose
    /// first step makes what it made before (a model's hulls, say) has its chain go on
    /// through hits, and the steps after them would otherwise wait behind the pack's.
    edited: Vec<bool>,
}

/// Each step's neighbours (what it reads, or what reads it), in one list: a catalog's
/// 3,333 steps as thousands of small lists were a tenth of the run's bookkeeping.
struct Edges {
    /// Step `id`'s neighbours are `list[starts[id]..starts[id + 1]]`, in id order.
    starts: Vec<usize>,
    list: Vec<StepId>,
}

impl Edges {
    fn of_each(lists: impl Iterator<Item = Vec<StepId>>) -> Edges {
        let mut edges = Edges {
            starts: vec![0],
            list: Vec::new(),
        };
        for list in lists {
            edges.list.extend(list);
            edges.starts.push(edges.list.len());
        }
        edges
    }

    fn span(&self, id: StepId) -> std::ops::Range<usize> {
        self.starts[id]..self.starts[id + 1]
    }

    fn of(&self, id: StepId) -> &[StepId] {
        &self.list[self.span(id)]
    }

    /// The same edges the other way round: what reads each step, in id order.
    fn reversed(&self) -> Edges {
        let n = self.starts.len() - 1;
        let mut counts = vec![0; n + 1];
        for &to in &self.list {
            counts[to + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut next = counts.clone();
        let mut list = vec![0; self.list.len()];
        for from in 0..n {
            for &to in self.of(from) {
                list[next[to]] = from;
                next[to] += 1;
            }
        }
        Edges {
            starts: counts,
            list,
        }
    }
}

impl Run {
    fn new(graph: &Graph, prior: Vec<Finished>) -> Self {
        let n = graph.steps.len();
        let done = prior.len();
        let deps = Edges::of_each(graph.steps.iter().map(|step| {
            let mut deps: Vec<StepId> = step.deps().collect();
            deps.sort_unstable();
            deps.dedup();
            deps
        }));
        let dependents = deps.reversed();
        let states = (0..n).map(|id| State::Waiting(deps.of(id).len())).collect();
        let mut results: Vec<Option<Finished>> = prior.into_iter().map(Some).collect();
        results.resize(n, None);
        let mut run = Run {
            states,
            unfinished_dependents: (0..n).map(|id| dependents.of(id).len()).collect(),
            deps,
            dependents,
            results,
            ready: VecDeque::new(),
            ready_first: false,
            urgent: 0,
            edited: Vec::new(),
        };
        for id in 0..done {
            run.states[id] = State::Waiting(0);
            run.transition(id, State::Done);
        }
        run.ready.retain(|&r| r >= done);
        for id in done..n {
            if run.states[id] == State::Waiting(0) {
                run.transition(id, State::Ready);
            }
        }
        run
    }

    /// The one place a step changes state. Preconditions: Waiting(0) -> Ready,
    /// Ready -> Running, Running -> Ready (put back unprobed from a probing wave, at the
    /// front), Running or Ready or Waiting -> Done (with a result stored).
    fn transition(&mut self, id: StepId, to: State) {
        let from = self.states[id];
        debug_assert!(
            matches!(
                (from, to),
                (State::Waiting(0), State::Ready)
                    | (State::Ready, State::Running)
                    | (State::Running, State::Ready)
                    | (_, State::Done)
                    | (State::Waiting(_), State::Waiting(_))
            ),
            "step {id}: {from:?} -> {to:?}"
        );
        self.states[id] = to;
        match to {
            State::Ready if from == State::Running => self.ready.push_front(id),
            State::Ready if self.ready_first || self.edited.get(id) == Some(&true) => {
                self.ready.push_front(id);
                self.urgent += 1;
            }
            State::Ready => self.ready.push_back(id),
            State::Done if self.results[id].is_some() => {
                self.let_go_of_what_is_read(id);
                let failed = !matches!(
                    self.results[id].as_ref().map(|r| &r.outcome),
                    Some(Outcome::Hit | Outcome::Ran(_))
                );
                for at in self.dependents.span(id) {
                    let d = self.dependents.list[at];
                    if failed {
                        self.skip(d);
                    } else if let State::Waiting(n) = self.states[d] {
                        self.transition(d, State::Waiting(n - 1));
                        if n == 1 {
                            self.transition(d, State::Ready);
                        }
                    }
                }
                self.let_go_unless_read_next(id);
            }
            _ => {}
        }
    }

    /// `id` is done, so it reads its dependencies no more: those that no other step still
    /// waits to read let go of their outputs' bytes.
    fn let_go_of_what_is_read(&mut self, id: StepId) {
        for at in self.deps.span(id) {
            let d = self.deps.list[at];
            self.unfinished_dependents[d] -= 1;
            if self.unfinished_dependents[d] == 0 {
                self.let_go_of(d);
            }
        }
    }

    /// A done step's outputs stay in memory only while every step that reads them is
    /// ready to start. One still waiting on other steps may be far off (a set's step waits
    /// for every block), and reads them from the store, rather than the cook holding every
    /// block's outputs until then.
    fn let_go_unless_read_next(&self, id: StepId) {
        let later = |&d: &StepId| matches!(self.states[d], State::Waiting(_));
        let dependents = self.dependents.of(id);
        if dependents.is_empty() || dependents.iter().any(later) {
            self.let_go_of(id);
        }
    }

    fn let_go_of(&self, id: StepId) {
        for output in self.results[id].iter().flat_map(|r| &r.outputs) {
            output.let_go();
        }
    }

    /// Marks `changed` and every step downstream of them as [`edited`](Run::edited): one
    /// pass over the graph's edges.
    fn mark_edited(&mut self, changed: impl Iterator<Item = StepId>) {
        let mut edited = vec![false; self.states.len()];
        let mut queue: Vec<StepId> = changed.collect();
        while let Some(id) = queue.pop() {
            if !std::mem::replace(&mut edited[id], true) {
                queue.extend(self.dependents.of(id).iter().copied());
            }
        }
        self.edited = edited;
    }

    /// Steps of a probing wave that were not probed (a worker finished meanwhile) go back
    /// to the front of the queue, in their order.
    fn requeue(&mut self, ids: Vec<StepId>) {
        for &id in ids.iter().rev() {
            self.transition(id, State::Ready);
        }
    }

    fn skip(&mut self, id: StepId) {
        if self.states[id] == State::Done || self.states[id] == State::Running {
            return;
        }
        self.ready.retain(|&r| r != id);
        self.results[id] = Some(Finished::skipped());
        self.transition(id, State::Done);
    }
}

/// Runs the steps of `graph` after the first `prior.len()`, whose results are given (a
/// graph can grow once earlier steps tell what comes next). Returns one result per step.
///
/// With a remote cache, what is cooked is uploaded in the background while the cook goes
/// on; the results are returned once the last upload is done.
pub fn run(
    graph: &Graph,
    prior: Vec<Finished>,
    settings: &Settings,
    observer: &dyn Observer,
    cook: &CookFn<'_>,
) -> Vec<Finished> {
    let Some(remote) = settings.remote else {
        return schedule(graph, prior, settings, observer, cook);
    };
    remote.open_jobs();
    /// Lets the workers finish however the schedule ends, a panic included, so the scope
    /// that joins them never waits forever.
    struct CloseJobs<'r>(&'r RemoteCache);
    impl Drop for CloseJobs<'_> {
        fn drop(&mut self) {
            self.0.close_jobs();
        }
    }
    if settings.use_cache {
        take_cook_bundle(graph, &prior, settings, remote);
    }
    std::thread::scope(|workers| {
        // As many workers as requests may be in flight: an upload is a few round trips
        // (a HEAD and a PUT a blob, then the entry), nearly all waiting.
        for _ in 0..remote.background_workers() {
            workers.spawn(|| remote.run_jobs(settings.store));
        }
        let _close = CloseJobs(remote);
        schedule(graph, prior, settings, observer, cook)
    })
}

/// Asks for the cook's bundle of entries (`remote::bundle`) before its first stage, under
/// that stage's key. A cook's later stages are laid out from what the first one made, so
/// one bundle serves them all: a fresh clone asks for it once. A writer files it at the
/// end of the cook ([`RemoteCache::send_bundle`]).
fn take_cook_bundle(graph: &Graph, prior: &[Finished], settings: &Settings, remote: &RemoteCache) {
    let prior_output = |step: StepId, output: &str| {
        let found = output_named(&prior[step].outputs, output)?;
        Some(found.hash.clone())
    };
    let (key, first) = remote.bundle_key(|| {
        crate::stage_key::of(
            graph,
            prior.len(),
            &prior_output,
            settings.stat_cache,
            settings.pool,
        )
    });
    if first {
        remote.take_bundle(&key);
    }
}

fn schedule(
    graph: &Graph,
    prior: Vec<Finished>,
    settings: &Settings,
    observer: &dyn Observer,
    cook: &CookFn<'_>,
) -> Vec<Finished> {
    let (tx, rx) = mpsc::channel::<(StepId, Finished)>();
    let mut s = Scheduler {
        graph,
        settings,
        observer,
        run: Run::new(graph, prior),
        runnable: BinaryHeap::new(),
        in_flight: 0,
        stopping: false,
        tx,
        rx,
        reported: Arc::new(AtomicBool::new(false)),
    };
    s.changed_sources_first();
    // With a remote cache a step that must ask the server waits on the network more than
    // on the cores: once one does, steps run on an I/O pool with a thread per request that
    // may be in flight, and each cook inside one is handed back to the cooker pool, so no
    // more cooks run at once than its threads. Until then (a cook whose bundle holds every
    // entry, or a remote that is down) steps run on the cooker pool itself.
    let mut io_pool: Option<rayon::ThreadPool> = None;
    while s.drive(io_pool.as_ref(), cook) {
        let connections = settings.remote.map_or(1, |r| r.connections());
        io_pool = Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(connections)
                .thread_name(|i| format!("mjolnir-io-{i}"))
                .build()
                .expect("the I/O pool's threads start"),
        );
    }
    // After a stop, queued steps never started: they are skipped, as are their dependents.
    s.run
        .results
        .into_iter()
        .map(|r| r.unwrap_or_else(Finished::skipped))
        .collect()
}

/// The coordinator's state while it runs a graph.
struct Scheduler<'a, 's> {
    graph: &'a Graph,
    settings: &'a Settings<'s>,
    observer: &'a dyn Observer,
    run: Run,
    /// Ready steps are first probed against the cache (`probe`: inputs known without
    /// reading a file): a hit costs a few stat calls, far less than a hand-off to a
    /// worker. Only the misses become runnable, and the lowest step id runs first: a
    /// block's steps are numbered together, so a cold cook finishes the blocks it started
    /// before it starts others, and holds the small outputs of a few blocks at a time, not
    /// of the pack.
    runnable: BinaryHeap<Reverse<StepId>>,
    in_flight: usize,
    stopping: bool,
    tx: mpsc::Sender<(StepId, Finished)>,
    rx: mpsc::Receiver<(StepId, Finished)>,
    /// Set by a worker once it has sent its result: a probing wave under way stops, so
    /// the steps waiting on that result are probed next rather than after the wave.
    reported: Arc<AtomicBool>,
}

/// What a probing wave found of a step.
enum Probed {
    Hit(Finished),
    /// A worker must run it.
    Miss,
    /// Not probed: a worker reported first, and what it made ready goes ahead.
    Later,
}

/// The most steps a probing wave holds per thread: enough that a wave's parallel start
/// costs little next to its probes, few enough that a finished step is seen soon.
const WAVE: usize = 32;

impl Scheduler<'_, '_> {
    /// Runs steps until the graph is done or stopped (`false`), or until a step must ask
    /// the remote cache and there is no I/O pool yet (`true`: make one and call again).
    fn drive(&mut self, io_pool: Option<&rayon::ThreadPool>, cook: &CookFn<'_>) -> bool {
        let settings = self.settings;
        let most_in_flight = match (settings.remote, io_pool) {
            (Some(r), Some(_)) => r.connections().max(settings.jobs.max(1)),
            _ => settings.jobs.max(1),
        };
        let remote_up = settings.remote.is_some_and(|r| !r.is_down());
        io_pool
            .unwrap_or(settings.pool)
            .in_place_scope(|scope| loop {
                self.stopping |= settings.cancel.load(Ordering::Relaxed);
                self.probe_ready(most_in_flight);
                if remote_up && io_pool.is_none() && !self.runnable.is_empty() && !self.stopping {
                    return true;
                }
                while self.in_flight < most_in_flight && !self.stopping {
                    let Some(Reverse(id)) = self.runnable.pop() else {
                        break;
                    };
                    let graph = self.graph;
                    // Only the outputs go to the worker: a set's step has every block
                    // upstream, and their input records would be copied for nothing.
                    let upstream: Vec<Option<Vec<Arc<Output>>>> = graph.steps[id]
                        .deps()
                        .map(|d| self.run.results[d].as_ref().map(|r| r.outputs.clone()))
                        .collect();
                    let tx = self.tx.clone();
                    let reported = self.reported.clone();
                    self.in_flight += 1;
                    scope.spawn(move |_| {
                        let result = run_step(graph, id, &upstream, settings, cook);
                        // Before sending: once its result is taken, no worker sets it.
                        reported.store(true, Ordering::Relaxed);
                        let _ = tx.send((id, result));
                    });
                }
                let idle = self.run.ready.is_empty() && self.runnable.is_empty();
                if self.in_flight == 0 && (self.stopping || idle) {
                    return false;
                }
                if self.in_flight == 0 {
                    continue;
                }
                // Steps are left to probe: take what the workers have finished, and probe
                // on rather than wait for them.
                self.reported.store(false, Ordering::Relaxed);
                if !self.run.ready.is_empty() && !self.stopping {
                    while let Ok((id, result)) = self.rx.try_recv() {
                        self.finish_ran(id, result);
                    }
                    continue;
                }
                let (id, result) = self.rx.recv().expect("a worker always reports");
                self.finish_ran(id, result);
            })
    }

    /// Probes the ready steps in waves, each on the pool: in a no-op cook the graph is all
    /// hits, and probing it in parallel halves the coordinator's work. A wave holds at
    /// most [`WAVE`] steps per thread, and probing stops once it found a step to run while
    /// a worker is free, or while a worker runs (its result may make more steps ready):
    /// an edit's steps start while the rest of the graph is probed, not after it.
    fn probe_ready(&mut self, most_in_flight: usize) {
        let (graph, settings) = (self.graph, self.settings);
        while !self.stopping && !self.run.ready.is_empty() {
            // A worker's dependents are probed even then: they are a few steps, and in a
            // cold cook their block's next step goes ahead of the blocks not yet started.
            if self.run.urgent == 0 && !self.runnable.is_empty() && self.in_flight < most_in_flight
            {
                return;
            }
            if self.in_flight == 0 {
                self.reported.store(false, Ordering::Relaxed);
            }
            // The dependents of a step that ran make a wave of their own.
            let most = match self.run.urgent {
                0 => WAVE * settings.jobs.max(1),
                urgent => urgent,
            };
            let size = self.run.ready.len().min(most);
            self.run.urgent = self.run.urgent.saturating_sub(size);
            let wave: Vec<StepId> = self.run.ready.drain(..size).collect();
            for &id in &wave {
                self.run.transition(id, State::Running);
            }
            let results = &self.run.results;
            let reported = &*self.reported;
            let probed: Vec<Probed> = settings.pool.install(|| {
                wave.par_iter()
                    .map(|&id| {
                        if reported.load(Ordering::Relaxed) {
                            return Probed::Later;
                        }
                        let upstream: Vec<&Finished> = graph.steps[id]
                            .deps()
                            .map(|d| results[d].as_ref().expect("dependencies are done"))
                            .collect();
                        match probe(graph, id, &upstream, settings) {
                            Some(hit) => Probed::Hit(hit),
                            None => Probed::Miss,
                        }
                    })
                    .collect()
            });
            let mut unprobed = Vec::new();
            for (id, probed) in wave.into_iter().zip(probed) {
                match probed {
                    Probed::Hit(hit) => self.finish(id, hit),
                    Probed::Miss => self.runnable.push(Reverse(id)),
                    Probed::Later => unprobed.push(id),
                }
            }
            self.run.requeue(unprobed);
            if self.in_flight > 0 {
                return;
            }
        }
    }

    /// Puts the ready steps that read a source whose stamp the stat cache does not know
    /// (an edited model) at the front, in a wave of their own: they are the steps that
    /// will run, and an edit waits on their chains, not on the hundreds of hits queued
    /// ahead of them in plan order. The stats are the ones their probes would make, made
    /// once per cook (the stat cache's memo), on the pool.
    fn changed_sources_first(&mut self) {
        let (graph, settings) = (self.graph, self.settings);
        if !settings.use_cache || settings.verify_hits || self.run.ready.is_empty() {
            return;
        }
        let ready: Vec<StepId> = self.run.ready.drain(..).collect();
        let changed: Vec<bool> = settings.pool.install(|| {
            ready
                .par_iter()
                .map(|&id| reads_changed_source(&graph.steps[id], settings.stat_cache))
                .collect()
        });
        let (first, rest): (Vec<_>, Vec<_>) = ready
            .into_iter()
            .zip(changed)
            .partition(|&(_, changed)| changed);
        // No larger than a wave: in a cold cook every source is new, and every step is
        // downstream of one.
        let wave = WAVE * settings.jobs.max(1);
        self.run.urgent = first.len().min(wave);
        if first.len() <= wave {
            self.run.mark_edited(first.iter().map(|&(id, _)| id));
        }
        self.run.ready = first.into_iter().chain(rest).map(|(id, _)| id).collect();
    }

    /// A worker's result: what it makes ready is probed first.
    fn finish_ran(&mut self, id: StepId, result: Finished) {
        self.in_flight -= 1;
        self.run.ready_first = true;
        self.finish(id, result);
        self.run.ready_first = false;
    }

    fn finish(&mut self, id: StepId, result: Finished) {
        self.observer.finished(self.graph, id, &result);
        // A failure stops only what depends on it: every other step still runs, so a
        // failing cook reports every failure and draws every preview, on any thread count.
        self.run.results[id] = Some(result);
        self.run.transition(id, State::Done);
    }
}

/// Cookers name files relative to the step's folder, which is not in their key; the
/// folder is joined here, as a finding leaves the cook.
fn located(step: &Step, mut findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
    for d in &mut findings {
        if !d.file.is_empty() && Path::new(&d.file).is_relative() {
            d.file = source_path(step, &d.file);
        }
    }
    findings
}

/// A source file's real path, under the step's folder as configured
/// (`forge-packs/foundry/source/geometry.json`).
fn source_path(step: &Step, rel: &str) -> String {
    let path = step.source_dir.join(rel);
    let path = path.strip_prefix(".").unwrap_or(&path);
    path.display().to_string()
}

fn failed(
    key: Option<String>,
    started: Instant,
    inputs: Vec<InputRecord>,
    diagnostics: Vec<Diagnostic>,
) -> Finished {
    Finished {
        key,
        outcome: Outcome::Failed(diagnostics),
        duration: started.elapsed(),
        inputs,
        outputs: vec![],
    }
}

/// The outputs `record` names, if they are ones the step's kind may make; with `verify`,
/// each is read and checked now.
fn cached_outputs(
    step: &Step,
    store: &Store,
    record: ActionRecord,
    sources: &Arc<Sources>,
    verify: bool,
) -> Result<Vec<Arc<Output>>, CorruptOutput> {
    step.kind
        .check_outputs(
            step.block_name(),
            record.outputs.iter().map(|o| o.name.as_str()),
        )
        .map_err(|why| CorruptOutput {
            detail: format!("the cached record is damaged: {why}"),
        })?;
    if let Some(o) = record
        .outputs
        .iter()
        .find(|o| o.recipe.is_some() != step.kind.splices_output(&o.name))
    {
        return Err(CorruptOutput {
            detail: format!(
                "the cached record is damaged: {} is not spliced as recorded",
                o.name
            ),
        });
    }
    let outputs: Vec<Arc<Output>> = record
        .outputs
        .into_iter()
        .map(|o| Output::cached(o, sources))
        .collect();
    if verify {
        for o in &outputs {
            o.bytes(store)?;
        }
    }
    Ok(outputs)
}

/// The step's cached result, if every input is known without reading a file and its key
/// is in the action cache. `None` means a worker must run the step (which may still find
/// it cached once its sources are hashed).
fn probe(
    graph: &Graph,
    id: StepId,
    upstream: &[&Finished],
    settings: &Settings,
) -> Option<Finished> {
    if !settings.use_cache || settings.verify_hits {
        return None;
    }
    let started = Instant::now();
    let step = &graph.steps[id];
    // A hit keeps no input records (only a step that runs reports its inputs), so the
    // key is made from borrowed names and hashes: a cook probes thousands of hits.
    let mut source_hashes = Vec::new();
    for input in &step.inputs {
        if let Input::Source { name, path } = input {
            if linked_folder(settings.stat_cache, name, path).is_some() {
                return None;
            }
            source_hashes.push(settings.stat_cache.lookup(path)?.0);
        }
    }
    let mut inputs = Vec::with_capacity(step.inputs.len());
    let mut spliced_from = Vec::new();
    let (mut deps, mut hashes) = (upstream.iter(), source_hashes.iter());
    for input in &step.inputs {
        match input {
            Input::Source { name, .. } => inputs.push((name.as_str(), hashes.next()?.as_str())),
            Input::Upstream { name, output, .. } => {
                let out = output_named(&deps.next()?.outputs, output)?;
                if step.kind.splices.is_some() {
                    spliced_from.push((name.as_str(), out));
                }
                inputs.push((name.as_str(), out.hash.as_str()));
            }
        }
    }
    let key = crate::fingerprint::key_of(
        step.kind.name,
        step.kind.version,
        &step.key_params_parts(),
        inputs.into_iter(),
    );
    let sources = sources_of(step, spliced_from);
    let outputs = match settings.store.get_action(&key) {
        Some(record) => cached_outputs(step, settings.store, record, &sources, false).ok()?,
        // A stage bundle's entry is looked up here too: it asks nothing of the server.
        None => {
            let remote = settings.remote.filter(|r| r.has_bundled(&key))?;
            fetch(step, &key, remote, &sources, settings)?
        }
    };
    Some(Finished {
        key: Some(key),
        outcome: Outcome::Hit,
        duration: started.elapsed(),
        inputs: Vec::new(),
        outputs,
    })
}

/// Whether `step` reads a source file the stat cache cannot vouch for as it is now.
fn reads_changed_source(step: &Step, stat_cache: &StatCache) -> bool {
    step.inputs.iter().any(|input| match input {
        Input::Source { path, .. } => stat_cache.changed_this_cook(path),
        Input::Upstream { .. } => false,
    })
}

/// A step's cooker: what `run` calls for each step that is not cached. A cook passes
/// `steps::cook`; tests pass fakes.
pub type CookFn<'a> = dyn Fn(&Step, &Inputs) -> Cooked + Sync + 'a;

/// A step's inputs, hashed; the bytes of those already read, and what is still to read.
struct Gathered {
    records: Vec<InputRecord>,
    loaded: Inputs,
    /// Name, path, hash and size of each source known by its stamp.
    unread_sources: Vec<(String, PathBuf, String, u64)>,
    unread_upstream: Vec<(String, Arc<Output>)>,
}

fn run_step(
    graph: &Graph,
    id: StepId,
    upstream: &[Option<Vec<Arc<Output>>>],
    settings: &Settings,
    cook: &CookFn<'_>,
) -> Finished {
    let started = Instant::now();
    let step = &graph.steps[id];
    let gathered = match gather(step, upstream, settings) {
        Ok(g) => g,
        Err((records, diagnostics)) => return failed(None, started, records, diagnostics),
    };
    let fingerprint = fingerprint_of(step, &gathered.records);
    let key = fingerprint.key();
    let sources = sources_of(
        step,
        gathered
            .unread_upstream
            .iter()
            .map(|(n, o)| (n.as_str(), o)),
    );
    let miss = match lookup(step, &key, &sources, settings) {
        Ok(outputs) => {
            return Finished {
                key: Some(key),
                outcome: Outcome::Hit,
                duration: started.elapsed(),
                inputs: gathered.records,
                outputs,
            }
        }
        Err(miss) => miss,
    };
    if settings.check && !step.kind.runs_under_check {
        return Finished {
            key: Some(key),
            outcome: Outcome::Stale(miss.explain(step, &fingerprint, settings.store)),
            duration: started.elapsed(),
            inputs: gathered.records,
            outputs: vec![],
        };
    }
    let records = gathered.records.clone();
    // Why it runs is told after the cook, against the fingerprint log: a cook's first miss
    // loads that log (megabytes at a catalog's size) on another thread while it cooks,
    // rather than ahead of the cook on the edit's chain.
    let cooked = load(step, gathered, settings).and_then(|inputs| {
        // `join` runs its first half here and now, and leaves the second to a thread
        // with nothing else to do (or to this one, after the cook).
        let (cooked, _) = settings.pool.install(|| {
            rayon::join(
                || cook_caught(step, &inputs, cook),
                || matches!(miss, Miss::NotRecorded).then(|| settings.store.load_fingerprints()),
            )
        });
        cooked.map_err(|d| located(step, d))
    });
    let dirty = miss.explain(step, &fingerprint, settings.store);
    let result = cooked
        .and_then(|outputs| declared(step, outputs))
        .and_then(|outputs| match settings.check {
            true => unstored(step, outputs, &sources),
            false => store(step, &key, &fingerprint, outputs, &sources, settings),
        });
    match result {
        Ok(outputs) => Finished {
            key: Some(key),
            outcome: Outcome::Ran(dirty),
            duration: started.elapsed(),
            inputs: records,
            outputs,
        },
        Err(diagnostics) => failed(Some(key), started, records, diagnostics),
    }
}

/// Hashes every input: sources through the stat cache (reading those whose stamp changed),
/// upstream outputs by their recorded hash.
fn gather(
    step: &Step,
    upstream: &[Option<Vec<Arc<Output>>>],
    settings: &Settings,
) -> Result<Gathered, (Vec<InputRecord>, Vec<Diagnostic>)> {
    let mut g = Gathered {
        records: Vec::new(),
        loaded: Inputs::new(),
        unread_sources: Vec::new(),
        unread_upstream: Vec::new(),
    };
    let mut deps = upstream.iter();
    for input in &step.inputs {
        let known = match input {
            Input::Source { name, path } => match linked_folder(settings.stat_cache, name, path)
                .map_or_else(|| settings.stat_cache.hash(path), Err)
            {
                Ok(h) => {
                    match h.bytes {
                        Some(bytes) => {
                            g.loaded.insert(name.clone(), Arc::new(bytes));
                        }
                        None => g.unread_sources.push((
                            name.clone(),
                            path.clone(),
                            h.hash.clone(),
                            h.size,
                        )),
                    }
                    Known::Source {
                        hash: h.hash,
                        size: h.size,
                    }
                }
                Err(e) => return Err((g.records, vec![unreadable_source(step, name, e)])),
            },
            Input::Upstream { name, output, .. } => {
                let dep = deps
                    .next()
                    .and_then(Option::as_ref)
                    .expect("dependencies are done");
                let Some(out) = output_named(dep, output) else {
                    let message = format!("the upstream step made no {output}");
                    return Err((g.records, vec![finding("missing_input", &step.id, message)]));
                };
                g.unread_upstream.push((name.clone(), out.clone()));
                Known::Output(out.clone())
            }
        };
        g.records.push(InputRecord { known });
    }
    Ok(g)
}

/// A folder between the pack folder and a source that is a symbolic link: like a linked
/// file, it would let a pack read from anywhere.
fn linked_folder(
    stat_cache: &StatCache,
    name: &str,
    path: &std::path::Path,
) -> Option<std::io::Error> {
    let folders = name.matches('/').count();
    path.ancestors()
        .skip(1)
        .take(folders)
        .find(|folder| stat_cache.is_link(folder))
        .map(|folder| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("its folder {} is a symlink", folder.display()),
            )
        })
}

fn unreadable_source(step: &Step, name: &str, e: std::io::Error) -> Diagnostic {
    let file = source_path(step, name);
    if e.kind() == std::io::ErrorKind::InvalidInput {
        let message = format!("sources must be regular files inside the pack folder ({e})");
        return finding("symlinked_source", &file, message);
    }
    // A buffer is read because a .gltf names it: say which, and how to fix the export. A
    // step may read several models; the one named like the buffer is the one that names
    // it, else the step's only one. With neither, no model is blamed.
    let models: Vec<&String> = step
        .inputs
        .iter()
        .filter_map(|i| match i {
            Input::Source { name: n, .. } if n.ends_with(".gltf") && n != name => Some(n),
            _ => None,
        })
        .collect();
    let stem = |n: &str| n.rsplit_once('.').map_or(n, |(stem, _)| stem).to_string();
    let named_by = models
        .iter()
        .find(|m| stem(m) == stem(name))
        .or(models.first().filter(|_| models.len() == 1));
    let message = match named_by {
        Some(gltf) => format!(
            "cannot read it ({e}); {} names it as a buffer: export the .bin beside it, or export a .glb",
            source_path(step, gltf)
        ),
        None => format!("cannot read it: {e}"),
    };
    finding("missing_source", &file, message)
}

/// Why a step is not cached: known at once, or (for a key no cache holds) to be told
/// from the fingerprint it last built with.
enum Miss {
    Known(Dirty),
    NotRecorded,
}

impl Miss {
    /// Why the step runs. An unrecorded key is explained against the fingerprint log,
    /// which the cook's first miss loads.
    fn explain(self, step: &Step, fingerprint: &Fingerprint, store: &Store) -> Dirty {
        match self {
            Miss::Known(dirty) => dirty,
            Miss::NotRecorded => {
                Dirty::between(store.last_fingerprint(&step.id).as_ref(), fingerprint).unwrap_or(
                    Dirty::CacheEntryBad {
                        detail: "no outputs are recorded for this key".into(),
                    },
                )
            }
        }
    }
}

/// The cached outputs of `key`, or why the step must run.
fn lookup(
    step: &Step,
    key: &str,
    sources: &Arc<Sources>,
    settings: &Settings,
) -> Result<Vec<Arc<Output>>, Miss> {
    let store = settings.store;
    if !settings.use_cache {
        return Err(Miss::Known(Dirty::CacheDisabled));
    }
    match store.get_action(key) {
        Some(record) => {
            cached_outputs(step, store, record, sources, settings.verify_hits).map_err(|e| {
                store.discard_action(key);
                Miss::Known(Dirty::CacheEntryBad { detail: e.detail })
            })
        }
        None => settings
            .remote
            .and_then(|r| fetch(step, key, r, sources, settings))
            .ok_or(Miss::NotRecorded),
    }
}

/// The step's outputs from the remote cache; `None` on a miss or when the entry names
/// outputs the step's kind does not make. Outputs the entry carries go into the store; the
/// others are only listed, and downloaded when something reads them (a step that must
/// cook, or a set file), as Bazel's "minimal" downloads. The local cache records the step
/// only once it holds every output.
fn fetch(
    step: &Step,
    key: &str,
    remote: &Arc<RemoteCache>,
    sources: &Arc<Sources>,
    settings: &Settings,
) -> Option<Vec<Arc<Output>>> {
    let expected = |names: &[&str]| {
        step.kind
            .check_outputs(step.block_name(), names.iter().copied())
    };
    let Fetched::Hit(listed) = remote.fetch(key, &expected) else {
        return None;
    };
    if let Some(o) = listed
        .iter()
        .find(|o| o.spliced.is_some() != step.kind.splices_output(&o.name))
    {
        remote.refuse(
            key,
            &format!(
                "it records {} as spliced where the step does not, or not where it does",
                o.name
            ),
        );
        return None;
    }
    let store = settings.store;
    let mut outputs = Vec::with_capacity(listed.len());
    for mut o in listed {
        let recorded = OutputRef {
            name: o.name.clone(),
            hash: o.blake3.clone(),
            size: o.spliced.unwrap_or(o.size),
            recipe: o.spliced.map(|_| o.size),
        };
        outputs.push(match o.bytes.take() {
            Some(bytes) => {
                // Checked against its signed BLAKE3 as it was taken.
                store.put_blob_hashed(&o.blake3, &bytes).ok()?;
                if o.spliced.is_some() {
                    Output::cached(recorded, sources)
                } else {
                    Output::fresh(o.name, o.blake3, bytes)
                }
            }
            None if store.has_blob(&o.blake3, o.size) => Output::cached(recorded, sources),
            None => {
                remote.download_in_background(&o);
                Output::in_remote(o, remote, sources)
            }
        });
    }
    // A retry after a damaged output takes nothing unread.
    if settings.verify_hits && outputs.iter().any(|o| o.bytes(store).is_err()) {
        return None;
    }
    if outputs.iter().all(|o| !o.is_remote_only(store)) {
        store.put_action(&record_of(key, &outputs)).ok()?;
    }
    Some(outputs)
}

fn record_of(key: &str, outputs: &[Arc<Output>]) -> ActionRecord {
    ActionRecord {
        key: key.to_string(),
        outputs: outputs.iter().map(|o| o.to_ref()).collect(),
    }
}

/// Reads the inputs not read while hashing, checking each against its hash.
fn load(step: &Step, g: Gathered, settings: &Settings) -> Result<Inputs, Vec<Diagnostic>> {
    let mut loaded = g.loaded;
    for (name, path, hash, size) in g.unread_sources {
        // No further than the size it was hashed at, and never a FIFO swapped in since.
        match mjolnir_files::bounded::read(&path, size) {
            Ok(bytes) if blake3::hash(&bytes).to_hex().as_str() == hash => {
                loaded.insert(name, Arc::new(bytes));
            }
            _ => {
                settings.stat_cache.forget(&path);
                return Err(vec![finding(
                    "source_changed",
                    &format!("{}/{name}", step.pack),
                    "the file changed during the cook; run it again",
                )]);
            }
        }
    }
    // What the step's spliced outputs copy from is not its cooker's to read. A set's step
    // reads a few small files per block: on the pool's threads, not one after another.
    let upstream: Vec<(String, Arc<Output>)> = g
        .unread_upstream
        .into_iter()
        .filter(|(name, _)| !step.kind.splices_from(name))
        .collect();
    let read = |(name, out): &(String, Arc<Output>)| {
        out.bytes(settings.store).map_err(|e| {
            vec![finding(
                CACHE_CORRUPT,
                &step.id,
                format!("the cached {name} was damaged: {}", e.detail),
            )]
        })
    };
    let bytes: Vec<Arc<Vec<u8>>> = settings
        .pool
        .install(|| upstream.par_iter().map(read).collect::<Result<_, _>>())?;
    loaded.extend(upstream.into_iter().map(|(name, _)| name).zip(bytes));
    Ok(loaded)
}

/// Runs the cooker; a panic becomes the step's failure instead of a worker that never
/// reports, so the cook ends.
fn cook_caught(step: &Step, inputs: &Inputs, cook: &CookFn<'_>) -> Cooked {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cook(step, inputs))).unwrap_or_else(
        |panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            Err(vec![finding(
                "cooker_panicked",
                &step.id,
                format!("the {} cooker crashed ({what}); this is a bug in the pipeline, please report it with the inputs", step.kind.name),
            )])
        },
    )
}

/// A cooker's outputs, if they are the ones its kind declares.
fn declared(step: &Step, outputs: Outputs) -> Result<Outputs, Vec<Diagnostic>> {
    match step.kind.check_outputs(
        step.block_name(),
        outputs.iter().map(|(name, _)| name.as_str()),
    ) {
        Ok(()) => Ok(outputs),
        Err(why) => Err(vec![finding(
            "bad_output_name",
            &step.id,
            format!(
                "the {} cooker made {why}; this is a bug in the pipeline",
                step.kind.name
            ),
        )]),
    }
}

/// Outputs kept in memory only, for `check`.
fn unstored(
    step: &Step,
    outputs: Outputs,
    sources: &Arc<Sources>,
) -> Result<Vec<Arc<Output>>, Vec<Diagnostic>> {
    outputs
        .into_iter()
        .map(|(name, bytes)| {
            let (bytes, spliced) = kept(step, &name, bytes, sources)?;
            let hash = blake3::hash(&bytes).to_hex().to_string();
            Ok(made(name, hash, bytes, spliced, sources))
        })
        .collect()
}

/// An output as the store keeps it: a spliced one's recipe bound to the bytes of the
/// sources it copies from and checked against them, with the size it makes; any other as
/// the step made it.
fn kept(
    step: &Step,
    name: &str,
    bytes: Vec<u8>,
    sources: &Arc<Sources>,
) -> Result<(Vec<u8>, Option<u64>), Vec<Diagnostic>> {
    if !step.kind.splices_output(name) {
        return Ok((bytes, None));
    }
    let source = |input: &str| {
        sources
            .binary_search_by(|(n, _)| n.as_str().cmp(input))
            .ok()
            .map(|i| &sources[i].1)
    };
    crate::splice::Recipe::from_bytes(&bytes)
        .and_then(|mut recipe| {
            recipe.bind(|input| source(input).map(|o| o.hash.clone()))?;
            let size = recipe.check(|input| source(input).map(|o| (o.size, o.hash.clone())))?;
            Ok((recipe.to_bytes(), Some(size)))
        })
        .map_err(|why| {
            let message = format!(
                "the {} cooker made a recipe for {name} that cannot be used ({why}); this is a bug in the pipeline",
                step.kind.name
            );
            vec![finding("bad_splice", &step.id, message)]
        })
}

/// An output a step just made, as [`kept`], under its hash.
fn made(
    name: String,
    hash: String,
    bytes: Vec<u8>,
    spliced: Option<u64>,
    sources: &Arc<Sources>,
) -> Arc<Output> {
    match spliced {
        None => Output::fresh(name, hash, bytes),
        Some(size) => Output::fresh_spliced(name, hash, bytes, size, sources.clone()),
    }
}

/// Puts every output in the blob store, then records the action: blobs always come first.
fn store(
    step: &Step,
    key: &str,
    fingerprint: &Fingerprint,
    outputs: Outputs,
    sources: &Arc<Sources>,
    settings: &Settings,
) -> Result<Vec<Arc<Output>>, Vec<Diagnostic>> {
    let store = settings.store;
    let cache_write = |what: &str, e: std::io::Error| {
        vec![finding(
            "cache_write",
            &step.id,
            format!("cannot {what}: {e}"),
        )]
    };
    let mut stored = Vec::with_capacity(outputs.len());
    for (name, bytes) in outputs {
        let (bytes, spliced) = kept(step, &name, bytes, sources)?;
        let hash = store
            .put_blob(&bytes)
            .map_err(|e| cache_write("store an output", e))?;
        stored.push(made(name, hash, bytes, spliced, sources));
    }
    if settings.use_cache {
        store
            .put_action(&record_of(key, &stored))
            .and_then(|_| store.record_fingerprint(&step.id, fingerprint))
            .map_err(|e| cache_write("record the step", e))?;
        if let Some(remote) = settings.remote {
            let files = stored.iter().filter_map(|o| o.upload()).collect();
            remote.upload_in_background(key, files);
        }
    }
    for output in &stored {
        output.release();
    }
    Ok(stored)
}

/// A step's fingerprint from its recorded inputs: the one definition the cache probe and
/// the run share, so a hit and a fresh run can never key the same step differently.
fn fingerprint_of(step: &Step, records: &[InputRecord]) -> Fingerprint {
    Fingerprint::new(
        step.kind.name,
        step.kind.version,
        step.key_params(),
        step.inputs
            .iter()
            .zip(records)
            .map(|(input, r)| (input.name().to_string(), r.hash().to_string()))
            .collect(),
    )
}

#[cfg(test)]
mod tests;
