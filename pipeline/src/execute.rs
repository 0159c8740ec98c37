//! Runs a graph: one coordinator owns the step states, workers on a rayon pool run steps.
//!
//! The coordinator starts every step whose dependencies are done, up to `jobs` at once,
//! and reacts to each finished step by releasing its dependents. Workers compute the key,
//! look it up, and on a miss run the cooker and store its outputs; they report back over a
//! channel and never touch the states. Step order never reaches an output: cookers see only
//! their inputs, so bytes are the same for any job count.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use forge_contract::Diagnostic;

use crate::fingerprint::{Dirty, Fingerprint};
use crate::graph::{Graph, Input, StepId};
use crate::stat_cache::StatCache;
use crate::steps::{self, finding};
use crate::store::{ActionRecord, OutputRef, Store};

#[derive(Debug, Clone)]
pub struct Output {
    pub name: String,
    pub hash: String,
    pub bytes: Arc<Vec<u8>>,
}

#[derive(Debug, Clone)]
pub struct InputRecord {
    pub name: String,
    pub hash: String,
    pub size: u64,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    Hit,
    Ran(Dirty),
    Failed(Vec<Diagnostic>),
    /// Not run: a dependency failed, or the run stopped at the first failure.
    Skipped,
}

#[derive(Debug, Clone)]
pub struct Finished {
    pub key: Option<String>,
    pub outcome: Outcome,
    pub duration: Duration,
    pub inputs: Vec<InputRecord>,
    pub outputs: Vec<Output>,
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
    pub keep_going: bool,
}

/// Receives each finished step, for progress display.
pub trait Observer: Sync {
    fn finished(&self, graph: &Graph, step: StepId, result: &Finished);
}

struct Run {
    states: Vec<State>,
    dependents: Vec<Vec<StepId>>,
    results: Vec<Option<Finished>>,
    ready: VecDeque<StepId>,
}

impl Run {
    fn new(graph: &Graph, prior: Vec<Finished>) -> Self {
        let n = graph.steps.len();
        let done = prior.len();
        let mut dependents = vec![Vec::new(); n];
        let mut states = Vec::with_capacity(n);
        for (id, step) in graph.steps.iter().enumerate() {
            let mut deps: Vec<StepId> = step.deps().collect();
            deps.sort_unstable();
            deps.dedup();
            for &d in &deps {
                dependents[d].push(id);
            }
            states.push(State::Waiting(deps.len()));
        }
        let mut results: Vec<Option<Finished>> = prior.into_iter().map(Some).collect();
        results.resize(n, None);
        let mut run = Run {
            states,
            dependents,
            results,
            ready: VecDeque::new(),
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
    /// Ready -> Running, Running or Ready or Waiting -> Done (with a result stored).
    fn transition(&mut self, id: StepId, to: State) {
        let from = self.states[id];
        debug_assert!(
            matches!(
                (from, to),
                (State::Waiting(0), State::Ready)
                    | (State::Ready, State::Running)
                    | (_, State::Done)
                    | (State::Waiting(_), State::Waiting(_))
            ),
            "step {id}: {from:?} -> {to:?}"
        );
        self.states[id] = to;
        match to {
            State::Ready => self.ready.push_back(id),
            State::Done if self.results[id].is_some() => {
                let failed = !matches!(
                    self.results[id].as_ref().map(|r| &r.outcome),
                    Some(Outcome::Hit | Outcome::Ran(_))
                );
                for d in self.dependents[id].clone() {
                    if failed {
                        self.skip(d);
                    } else if let State::Waiting(n) = self.states[d] {
                        self.transition(d, State::Waiting(n - 1));
                        if n == 1 {
                            self.transition(d, State::Ready);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn skip(&mut self, id: StepId) {
        if self.states[id] == State::Done || self.states[id] == State::Running {
            return;
        }
        self.ready.retain(|&r| r != id);
        self.results[id] = Some(Finished {
            key: None,
            outcome: Outcome::Skipped,
            duration: Duration::ZERO,
            inputs: vec![],
            outputs: vec![],
        });
        self.transition(id, State::Done);
    }
}

/// Runs the steps of `graph` after the first `prior.len()`, whose results are given (a
/// graph can grow once earlier steps tell what comes next). Returns one result per step.
pub fn run(
    graph: &Graph,
    prior: Vec<Finished>,
    settings: &Settings,
    observer: &dyn Observer,
) -> Vec<Finished> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs.max(1))
        .build()
        .expect("a thread pool");
    let mut run = Run::new(graph, prior);
    let (tx, rx) = mpsc::channel::<(StepId, Finished)>();
    let mut in_flight = 0usize;
    let mut stopping = false;
    pool.in_place_scope(|scope| loop {
        while in_flight < settings.jobs.max(1) && !stopping {
            let Some(id) = run.ready.pop_front() else {
                break;
            };
            run.transition(id, State::Running);
            let upstream: Vec<Option<Finished>> = graph.steps[id]
                .deps()
                .map(|d| run.results[d].clone())
                .collect();
            let tx = tx.clone();
            in_flight += 1;
            scope.spawn(move |_| {
                let result = run_step(graph, id, &upstream, settings);
                let _ = tx.send((id, result));
            });
        }
        if in_flight == 0 {
            break;
        }
        let (id, result) = rx.recv().expect("a worker always reports");
        in_flight -= 1;
        observer.finished(graph, id, &result);
        let failed = matches!(result.outcome, Outcome::Failed(_));
        run.results[id] = Some(result);
        run.transition(id, State::Done);
        if failed && !settings.keep_going {
            stopping = true;
        }
    });
    for id in 0..graph.steps.len() {
        if run.results[id].is_none() {
            run.skip(id);
        }
    }
    run.results
        .into_iter()
        .map(|r| r.expect("every step has a result"))
        .collect()
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

/// Loads the cached outputs of `record`, verifying each against its hash.
fn load_outputs(store: &Store, record: &ActionRecord) -> Result<Vec<Output>, String> {
    record
        .outputs
        .iter()
        .map(|o| {
            store.get_blob(&o.hash).map(|bytes| Output {
                name: o.name.clone(),
                hash: o.hash.clone(),
                bytes: Arc::new(bytes),
            })
        })
        .collect()
}

fn run_step(
    graph: &Graph,
    id: StepId,
    upstream: &[Option<Finished>],
    settings: &Settings,
) -> Finished {
    let started = Instant::now();
    let step = &graph.steps[id];
    let mut records = Vec::new();
    let mut loaded: BTreeMap<String, Arc<Vec<u8>>> = BTreeMap::new();
    let mut unread: Vec<(String, std::path::PathBuf, String)> = Vec::new();
    let mut deps = upstream.iter();
    for input in &step.inputs {
        match input {
            Input::Source { name, path } => {
                let file = format!("{}/{name}", step.pack);
                match std::fs::symlink_metadata(path) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return failed(None, started, records, vec![finding("symlinked_source", &file, "sources must be regular files inside the pack folder, not symlinks")]);
                    }
                    Ok(meta) if !meta.is_file() => {
                        return failed(
                            None,
                            started,
                            records,
                            vec![finding(
                                "missing_source",
                                &file,
                                "this is not a regular file",
                            )],
                        );
                    }
                    Err(e) => {
                        return failed(
                            None,
                            started,
                            records,
                            vec![finding(
                                "missing_source",
                                &file,
                                format!("cannot read it: {e}"),
                            )],
                        )
                    }
                    Ok(_) => {}
                }
                match settings.stat_cache.hash(path) {
                    Ok(h) => {
                        records.push(InputRecord {
                            name: name.clone(),
                            hash: h.hash.clone(),
                            size: h.size,
                        });
                        match h.bytes {
                            Some(bytes) => {
                                loaded.insert(name.clone(), Arc::new(bytes));
                            }
                            None => unread.push((name.clone(), path.clone(), h.hash)),
                        }
                    }
                    Err(e) => {
                        return failed(
                            None,
                            started,
                            records,
                            vec![finding(
                                "missing_source",
                                &file,
                                format!("cannot read it: {e}"),
                            )],
                        )
                    }
                }
            }
            Input::Upstream { name, output, .. } => {
                let dep = deps
                    .next()
                    .and_then(Option::as_ref)
                    .expect("dependencies are done");
                let Some(out) = dep.outputs.iter().find(|o| &o.name == output) else {
                    return failed(
                        None,
                        started,
                        records,
                        vec![finding(
                            "missing_input",
                            &step.id,
                            format!("the upstream step made no {output}"),
                        )],
                    );
                };
                records.push(InputRecord {
                    name: name.clone(),
                    hash: out.hash.clone(),
                    size: out.bytes.len() as u64,
                });
                loaded.insert(name.clone(), out.bytes.clone());
            }
        }
    }
    let fingerprint = Fingerprint::new(
        step.kind.name(),
        steps::version(step.kind),
        step.params.clone(),
        records
            .iter()
            .map(|r| (r.name.clone(), r.hash.clone()))
            .collect(),
    );
    let key = fingerprint.key();
    let store = settings.store;
    let dirty = if !settings.use_cache {
        Dirty::CacheDisabled
    } else if let Some(record) = store.get_action(&key) {
        match load_outputs(store, &record) {
            Ok(outputs) => {
                return Finished {
                    key: Some(key),
                    outcome: Outcome::Hit,
                    duration: started.elapsed(),
                    inputs: records,
                    outputs,
                }
            }
            Err(detail) => {
                store.discard_action(&key);
                Dirty::CacheEntryBad { detail }
            }
        }
    } else {
        Dirty::between(store.last_fingerprint(&step.id).as_ref(), &fingerprint).unwrap_or(
            Dirty::CacheEntryBad {
                detail: "no outputs are recorded for this key".into(),
            },
        )
    };
    for (name, path, hash) in unread {
        match std::fs::read(&path) {
            Ok(bytes) if blake3::hash(&bytes).to_hex().as_str() == hash => {
                loaded.insert(name, Arc::new(bytes));
            }
            _ => {
                settings.stat_cache.forget(&path);
                return failed(
                    Some(key),
                    started,
                    records,
                    vec![finding(
                        "source_changed",
                        &format!("{}/{name}", step.pack),
                        "the file changed during the cook; run it again",
                    )],
                );
            }
        }
    }
    let outputs = match steps::cook(step, &loaded) {
        Ok(o) => o,
        Err(diagnostics) => return failed(Some(key), started, records, diagnostics),
    };
    let mut stored = Vec::with_capacity(outputs.len());
    for (name, bytes) in outputs {
        match store.put_blob(&bytes) {
            Ok(hash) => stored.push(Output {
                name,
                hash,
                bytes: Arc::new(bytes),
            }),
            Err(e) => {
                return failed(
                    Some(key),
                    started,
                    records,
                    vec![finding(
                        "cache_write",
                        &step.id,
                        format!("cannot store an output: {e}"),
                    )],
                )
            }
        }
    }
    let record = ActionRecord {
        key: key.clone(),
        outputs: stored
            .iter()
            .map(|o| OutputRef {
                name: o.name.clone(),
                hash: o.hash.clone(),
                size: o.bytes.len() as u64,
            })
            .collect(),
    };
    if settings.use_cache {
        if let Err(e) = store
            .put_action(&record)
            .and_then(|_| store.record_fingerprint(&step.id, &fingerprint))
        {
            return failed(
                Some(key),
                started,
                records,
                vec![finding(
                    "cache_write",
                    &step.id,
                    format!("cannot record the step: {e}"),
                )],
            );
        }
    }
    Finished {
        key: Some(key),
        outcome: Outcome::Ran(dirty),
        duration: started.elapsed(),
        inputs: records,
        outputs: stored,
    }
}
