//! The scheduler on fake step kinds: no real cooker runs, so each test says exactly what
//! each step makes and counts what ran.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::*;
use crate::cooker::{Cooker, Names};
use crate::graph::Step;

/// A kind whose cooker the test passes to `run`; its own is never called.
static FAKE: Cooker = Cooker {
    name: "fake",
    version: 1,
    outputs: Names::Fixed(|_| vec!["out".to_string()]),
    runs_under_check: true,
    splices: None,
    cook: |_, _| unreachable!("the test's cooker runs instead"),
};

struct Quiet;

impl Observer for Quiet {
    fn finished(&self, _: &Graph, _: StepId, _: &Finished) {}
}

struct Bench {
    dir: tempfile::TempDir,
    store: Store,
    stat_cache: StatCache,
    pool: rayon::ThreadPool,
    cancel: AtomicBool,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().unwrap();
        Bench {
            store: Store::open(&dir.path().join("cache")).unwrap(),
            stat_cache: StatCache::open(dir.path().join("stat-cache.json")),
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap(),
            cancel: AtomicBool::new(false),
            dir,
        }
    }

    fn settings(&self) -> Settings<'_> {
        Settings::local(&self.store, &self.stat_cache, &self.pool, &self.cancel)
    }

    fn run(&self, graph: &Graph, cook: &CookFn<'_>) -> Vec<Finished> {
        self.stat_cache.new_cook();
        run(graph, Vec::new(), &self.settings(), &Quiet, cook)
    }

    /// Makes the folder `set/` hold the splicer's output (the third step's) as `joined.out`.
    fn write_joined(
        &self,
        results: &[Finished],
    ) -> Result<crate::materialize::Changes, crate::materialize::Error> {
        let files = BTreeMap::from([("joined.out".to_string(), results[2].outputs[0].clone())]);
        crate::materialize::set_folder(
            self.dir.path(),
            &self.dir.path().join("set"),
            &files,
            &self.store,
            &self.stat_cache,
        )
    }

    fn source(&self, name: &str, text: &str) -> Input {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        Input::Source {
            name: name.into(),
            path,
        }
    }
}

fn step(id: &str, inputs: Vec<Input>) -> Step {
    Step {
        id: id.into(),
        pack: "p".into(),
        kind: &FAKE,
        block: None,
        // The key holds the parameters, not the id: the fake cookers write the id, so it
        // must be a parameter too.
        params: id.into(),
        inputs,
        source_dir: std::path::Path::new("p").into(),
    }
}

fn from(step: StepId) -> Input {
    Input::Upstream {
        name: format!("in{step}"),
        step,
        output: "out".into(),
    }
}

/// A cooker that records which steps ran and makes `out`: the step's id and its inputs,
/// or only the inputs' length for ids in `lengths_only`. Ids in `failing` fail.
struct Recorder {
    ran: Mutex<Vec<String>>,
    failing: Vec<&'static str>,
    lengths_only: Vec<&'static str>,
}

impl Recorder {
    fn new() -> Recorder {
        Recorder {
            ran: Mutex::new(Vec::new()),
            failing: Vec::new(),
            lengths_only: Vec::new(),
        }
    }

    fn cook(&self, step: &Step, inputs: &Inputs) -> Cooked {
        self.ran.lock().unwrap().push(step.id.clone());
        let id = step.params.as_str();
        if self.failing.contains(&id) {
            return Err(vec![finding("fake_failure", &step.id, "told to fail")]);
        }
        let joined: Vec<u8> = inputs.values().flat_map(|b| b.iter().copied()).collect();
        let out = if self.lengths_only.contains(&id) {
            joined.len().to_string().into_bytes()
        } else {
            [id.as_bytes(), b"(", &joined, b")"].concat()
        };
        Ok(vec![("out".into(), out)])
    }

    fn ran(&self) -> Vec<String> {
        let mut ran = self.ran.lock().unwrap().clone();
        ran.sort();
        ran
    }
}

/// a -> b, a -> c, (b, c) -> d.
fn diamond(bench: &Bench, source: &str) -> Graph {
    let mut g = Graph::default();
    let a = g.add(step("a", vec![bench.source("a.txt", source)]));
    let b = g.add(step("b", vec![from(a)]));
    let c = g.add(step("c", vec![from(a)]));
    g.add(step("d", vec![from(b), from(c)]));
    g
}

fn outcome_names(results: &[Finished]) -> Vec<&'static str> {
    results
        .iter()
        .map(|r| match r.outcome {
            Outcome::Hit => "hit",
            Outcome::Ran(_) => "ran",
            Outcome::Failed(_) => "failed",
            Outcome::Skipped => "skipped",
            Outcome::Stale(_) => "stale",
        })
        .collect()
}

fn output_text(bench: &Bench, result: &Finished) -> String {
    String::from_utf8(result.outputs[0].bytes(&bench.store).unwrap().to_vec()).unwrap()
}

#[test]
fn a_diamond_runs_each_step_once_after_its_dependencies_then_hits() {
    let bench = Bench::new();
    let graph = diamond(&bench, "x");
    let cooker = Recorder::new();
    let results = bench.run(&graph, &|s, i| cooker.cook(s, i));
    assert_eq!(outcome_names(&results), ["ran"; 4]);
    assert_eq!(cooker.ran(), ["a", "b", "c", "d"]);
    // d saw both branches, each of which saw a: the inputs arrived by name, in key order.
    assert_eq!(output_text(&bench, &results[3]), "d(b(a(x))c(a(x)))");

    let again = Recorder::new();
    let results = bench.run(&graph, &|s, i| again.cook(s, i));
    assert_eq!(outcome_names(&results), ["hit"; 4]);
    assert!(again.ran().is_empty());
}

#[test]
fn a_failure_stops_the_cook_and_skips_its_dependents() {
    let bench = Bench::new();
    let graph = diamond(&bench, "x");
    let mut cooker = Recorder::new();
    cooker.failing = vec!["a"];
    let results = bench.run(&graph, &|s, i| cooker.cook(s, i));
    assert_eq!(
        outcome_names(&results),
        ["failed", "skipped", "skipped", "skipped"]
    );
    assert_eq!(cooker.ran(), ["a"]);
}

#[test]
fn a_failure_skips_only_its_dependents_and_every_other_step_runs() {
    // On one thread and on two, c (which does not read b) runs after b fails; d does not.
    for threads in [1, 2] {
        let mut bench = Bench::new();
        bench.pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let graph = diamond(&bench, "x");
        let mut cooker = Recorder::new();
        cooker.failing = vec!["b"];
        let results = bench.run(&graph, &|s, i| cooker.cook(s, i));
        assert_eq!(outcome_names(&results), ["ran", "failed", "ran", "skipped"]);
        assert_eq!(cooker.ran(), ["a", "b", "c"]);
    }
}

#[test]
fn a_cancelled_cook_starts_nothing_more_and_records_what_finished() {
    let bench = Bench::new();
    let graph = diamond(&bench, "x");
    let cooker = Recorder::new();
    // Cancelled while a runs: a finishes and is recorded, nothing after it starts.
    let cancel_after_a = |s: &Step, i: &Inputs| {
        bench.cancel.store(true, Ordering::Relaxed);
        cooker.cook(s, i)
    };
    let results = bench.run(&graph, &cancel_after_a);
    assert_eq!(
        outcome_names(&results),
        ["ran", "skipped", "skipped", "skipped"]
    );
    assert_eq!(cooker.ran(), ["a"]);

    bench.cancel.store(false, Ordering::Relaxed);
    let resumed = Recorder::new();
    let results = bench.run(&graph, &|s, i| resumed.cook(s, i));
    assert_eq!(outcome_names(&results), ["hit", "ran", "ran", "ran"]);
    assert_eq!(resumed.ran(), ["b", "c", "d"]);
}

#[test]
fn an_unchanged_output_stops_the_rebuild_early() {
    let bench = Bench::new();
    let mut cooker = Recorder::new();
    cooker.lengths_only = vec!["a"];
    let graph = diamond(&bench, "x");
    bench.run(&graph, &|s, i| cooker.cook(s, i));

    // A new source of the same length: a runs again, makes the same bytes, and nothing
    // downstream of it runs.
    let graph = diamond(&bench, "y");
    let again = Recorder {
        lengths_only: vec!["a"],
        ..Recorder::new()
    };
    let results = bench.run(&graph, &|s, i| again.cook(s, i));
    assert_eq!(outcome_names(&results), ["ran", "hit", "hit", "hit"]);
    assert_eq!(again.ran(), ["a"]);
}

#[test]
fn a_panicking_cooker_fails_its_step_and_the_cook_ends() {
    let bench = Bench::new();
    let graph = diamond(&bench, "x");
    let panics_on_b = |s: &Step, i: &Inputs| {
        if s.id == "b" {
            panic!("size must not be zero");
        }
        Recorder::new().cook(s, i)
    };
    let results = bench.run(&graph, &panics_on_b);
    assert_eq!(outcome_names(&results), ["ran", "failed", "ran", "skipped"]);
    let Outcome::Failed(findings) = &results[1].outcome else {
        unreachable!()
    };
    assert_eq!(findings[0].code, "cooker_panicked");
    assert!(findings[0].message.contains("size must not be zero"));
}

/// `joined` is spliced from the inputs named `part/...`.
static SPLICES_PARTS: crate::Splicing = crate::Splicing {
    output: |name| name == "joined",
    source: |name| name.starts_with("part/"),
};

static SPLICER: Cooker = Cooker {
    name: "splicer",
    version: 1,
    outputs: Names::Fixed(|_| vec!["joined".to_string()]),
    runs_under_check: true,
    splices: Some(&SPLICES_PARTS),
    cook: |_, _| unreachable!("the test's cooker runs instead"),
};

/// Two fake steps that make "hello" and "world", and a splicer joining them.
fn splice_graph(bench: &Bench) -> Graph {
    let mut g = Graph::default();
    let a = g.add(step("a", vec![bench.source("a.txt", "hello")]));
    let b = g.add(step("b", vec![bench.source("b.txt", "world")]));
    let part = |name: &str, step| Input::Upstream {
        name: format!("part/{name}"),
        step,
        output: "out".into(),
    };
    let mut splicer = step("s", vec![part("a", a), part("b", b)]);
    splicer.kind = &SPLICER;
    g.add(splicer);
    g
}

/// The fake steps make their source's bytes; the splicer copies `length` bytes of each
/// part and puts a space between them, and checks that it never sees the parts.
fn splice_cook(length: u64) -> impl Fn(&Step, &Inputs) -> Cooked + Sync {
    move |step, inputs| {
        if step.id != "s" {
            return Ok(vec![(
                "out".into(),
                inputs.values().next().unwrap().to_vec(),
            )]);
        }
        assert!(inputs.keys().all(|k| !k.starts_with("part/")), "{inputs:?}");
        let mut recipe = crate::Recipe::default();
        recipe.copy("part/a", 0, length);
        recipe.literal(b" ");
        recipe.copy("part/b", 0, 5);
        Ok(vec![("joined".into(), recipe.to_bytes())])
    }
}

#[test]
fn a_spliced_output_is_stored_as_its_recipe_and_reads_as_its_pieces() {
    let bench = Bench::new();
    let graph = splice_graph(&bench);
    let results = bench.run(&graph, &splice_cook(5));
    assert_eq!(outcome_names(&results), ["ran"; 3]);
    let joined = &results[2].outputs[0];
    assert!(joined.is_spliced());
    assert_eq!(output_text(&bench, &results[2]), "hello world");
    assert_eq!(joined.size, 11);
    assert_eq!(joined.to_ref().recipe, Some(joined.blob_size()));

    let results = bench.run(&graph, &splice_cook(5));
    assert_eq!(outcome_names(&results), ["hit"; 3]);
    assert_eq!(output_text(&bench, &results[2]), "hello world");
    let path = bench.dir.path().join("joined.out");
    let mut file = std::fs::File::create(&path).unwrap();
    results[2].outputs[0]
        .write_to(&mut file, &bench.store)
        .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"hello world");
    // A file that cannot take the bytes is the disk's failure, not a damaged cache.
    let mut read_only = std::fs::File::open(&path).unwrap();
    let failed = results[2].outputs[0].write_to(&mut read_only, &bench.store);
    assert!(matches!(failed, Err(WriteError::Io(_))), "{failed:?}");
}

#[test]
fn a_source_edited_into_bytes_of_the_same_size_makes_another_spliced_output() {
    let bench = Bench::new();
    let first = bench.run(&splice_graph(&bench), &splice_cook(5));
    let dir = bench.dir.path().join("set");
    let write = |results: &[Finished]| bench.write_joined(results).unwrap();
    write(&first);
    assert_eq!(
        std::fs::read(dir.join("joined.out")).unwrap(),
        b"hello world"
    );

    // Every piece of the recipe stays where it was; only the bytes of a part change. The
    // set's file must follow them: a container whose TOC names the new bytes over a
    // `.ucas` still holding the old ones would not load.
    let edited = {
        let mut g = splice_graph(&bench);
        g.steps[0].inputs = vec![bench.source("a.txt", "HELLO")];
        g
    };
    bench.stat_cache.new_cook();
    let second = bench.run(&edited, &splice_cook(5));
    assert_eq!(outcome_names(&second), ["ran", "hit", "ran"]);
    assert_ne!(second[2].outputs[0].hash, first[2].outputs[0].hash);
    // The new file is written while the folder is swept: the sweep still removes what is
    // not the set's (a stray, another cook's temporary file), and not the file itself.
    std::fs::write(dir.join("stray.txt"), b"stray").unwrap();
    let debris = format!("{}1-0", mjolnir_files::atomic::TEMP_PREFIX);
    std::fs::write(dir.join(&debris), b"debris").unwrap();
    let changes = write(&second);
    assert_eq!((changes.written, changes.removed), (1, 2));
    assert_eq!(
        std::fs::read(dir.join("joined.out")).unwrap(),
        b"HELLO world"
    );
    assert!(!dir.join("stray.txt").exists() && !dir.join(&debris).exists());
    // And what it replaced is the spare the next one is written into.
    let spares: Vec<_> = std::fs::read_dir(bench.dir.path().join(crate::spare::SPARES))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none())
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert_eq!(spares, [b"hello world".to_vec()]);

    // A link in place of the file is neither written early nor followed: it is replaced.
    #[cfg(unix)]
    {
        let outside = bench.dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep me").unwrap();
        std::fs::remove_file(dir.join("joined.out")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("joined.out")).unwrap();
        let third = {
            let mut g = splice_graph(&bench);
            g.steps[0].inputs = vec![bench.source("a.txt", "HeLLo")];
            g
        };
        bench.stat_cache.new_cook();
        let third = bench.run(&third, &splice_cook(5));
        assert_eq!(write(&third).written, 1);
        let joined = std::fs::symlink_metadata(dir.join("joined.out")).unwrap();
        assert!(joined.is_file());
        assert_eq!(
            std::fs::read(dir.join("joined.out")).unwrap(),
            b"HeLLo world"
        );
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
    }
}

/// A splicer whose pieces interleave its parts: `hel` of a, `wor` of b, then `lo` and `ld`.
/// Copies all of part `a`, then all of part `b`.
/// Copies all of part `a`, then all of part `b`, then the splicer's parameter after its
/// id (a tail, which the key covers).
fn concatenating_cook(step: &Step, inputs: &Inputs) -> Cooked {
    if step.id != "s" {
        return splice_cook(5)(step, inputs);
    }
    let mut recipe = crate::Recipe::default();
    recipe.copy("part/a", 0, A_BYTES as u64);
    recipe.copy("part/b", 0, B_BYTES as u64);
    recipe.literal(step.params.strip_prefix("s").unwrap_or_default().as_bytes());
    Ok(vec![("joined".into(), recipe.to_bytes())])
}

/// What the container of `container_graph(mark)` holds, with `tail` after it.
fn container_bytes(mark: char, tail: &[u8]) -> Vec<u8> {
    let mut a = "ab".repeat(A_BYTES / 2).into_bytes();
    a[70_000] = mark as u8;
    [a, "xyz-".repeat(B_BYTES / 4).into_bytes(), tail.to_vec()].concat()
}

#[test]
fn a_container_grown_or_cut_at_its_end_is_written_over_its_spare_only_there() {
    let bench = Bench::new();
    let dir = bench.dir.path().join("set");
    let file = dir.join("joined.out");
    const TAIL: &[u8] = b"and a tail";
    let cook = |mark: char, tail: &'static [u8]| {
        let mut graph = container_graph(&bench, mark);
        graph.steps[2].params = format!("s{}", std::str::from_utf8(tail).unwrap());
        bench.stat_cache.new_cook();
        bench.run(&graph, &concatenating_cook)
    };
    let write = |results: &[Finished]| bench.write_joined(results);
    // Written only where it changed, `a`'s leaves are kept: without `a`'s blob a whole
    // write would fail.
    let without_a = |results: &[Finished]| {
        let blob = bench.store.blob_file(&results[0].outputs[0].hash).unwrap();
        let bytes = std::fs::read(&blob).unwrap();
        std::fs::remove_file(&blob).unwrap();
        write(results).unwrap();
        std::fs::write(&blob, bytes).unwrap();
    };
    write(&cook('C', b"")).unwrap();
    write(&cook('D', b"")).unwrap();
    // The spare holds `C`; the new container is `C` and a tail: it grows in its last leaf.
    without_a(&cook('C', TAIL));
    holds(&file, &container_bytes('C', TAIL));
    write(&cook('D', b"")).unwrap();
    holds(&file, &container_bytes('D', b""));
    // The spare holds `C` and the tail; the new container is `C`: cut in its last leaf.
    without_a(&cook('C', b""));
    holds(&file, &container_bytes('C', b""));
}

/// Whether `file` holds `bytes`, without printing either when not.
fn holds(file: &std::path::Path, bytes: &[u8]) {
    let found = std::fs::read(file).unwrap();
    let first = found.iter().zip(bytes).position(|(a, b)| a != b);
    assert!(
        found == bytes,
        "{} bytes, {} expected; first difference at {first:?}",
        found.len(),
        bytes.len()
    );
}

/// Three leaves, then four (the last one short).
const A_BYTES: usize = 3 * crate::leaves::LEAF as usize;
const B_BYTES: usize = 3 * crate::leaves::LEAF as usize + 1000;

/// Part `a` with `mark` at one place, and part `b`, as the splice graph's sources.
fn container_graph(bench: &Bench, mark: char) -> Graph {
    let mut a: Vec<char> = "ab".repeat(A_BYTES / 2).chars().collect();
    a[70_000] = mark;
    let mut g = splice_graph(bench);
    g.steps[0].inputs = vec![bench.source("a.txt", &a.into_iter().collect::<String>())];
    g.steps[1].inputs = vec![bench.source("b.txt", &"xyz-".repeat(B_BYTES / 4))];
    g
}

#[test]
fn a_container_is_written_into_its_spare_only_where_it_changed_and_trusts_it_unread_only_as_stamped(
) {
    let bench = Bench::new();
    let dir = bench.dir.path().join("set");
    let file = dir.join("joined.out");
    let spare_folder = bench.dir.path().join(crate::spare::SPARES);
    let cook = |mark: char| {
        bench.stat_cache.new_cook();
        bench.run(&container_graph(&bench, mark), &concatenating_cook)
    };
    let write = |results: &[Finished]| bench.write_joined(results);
    let expected = |mark: char| container_bytes(mark, b"");
    // The first write makes the file, the second its spare (the first file); neither
    // knows what a spare holds yet.
    write(&cook('1')).unwrap();
    let second = cook('2');
    write(&second).unwrap();
    holds(&file, &expected('2'));
    // What the file holds is known from its ledger while it stays as stamped; the same
    // container again is then found in place without being read, and nothing is written.
    let vouched = || {
        let meta = std::fs::symlink_metadata(&file).unwrap();
        crate::spare::vouched(bench.dir.path(), &file, &meta).map(|v| v.recipe)
    };
    assert_eq!(
        vouched().as_deref(),
        Some(second[2].outputs[0].hash.as_str())
    );
    let again = cook('2');
    assert_eq!(write(&again).unwrap().written, 0);
    holds(&file, &expected('2'));
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[10] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(
        vouched(),
        None,
        "changed at once, in the tick that stamped it"
    );
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(vouched(), None, "its modification time put back");
    // So the damaged file is found out and written again.
    assert_eq!(write(&again).unwrap().written, 1);
    holds(&file, &expected('2'));

    // The third goes into the spare, which holds the first: only `a`'s leaves differ, so
    // `b`'s blob is never read. Without it, a whole write would fail.
    let third = cook('3');
    let b_blob = bench.store.blob_file(&third[1].outputs[0].hash).unwrap();
    let b_bytes = std::fs::read(&b_blob).unwrap();
    std::fs::remove_file(&b_blob).unwrap();
    write(&third).unwrap();
    holds(&file, &expected('3'));
    std::fs::write(&b_blob, &b_bytes).unwrap();

    // The spare, the file the second write made, is as that write stamped it: the next
    // write keeps its leaves unread.
    let spare = std::fs::read_dir(&spare_folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_none())
        .unwrap();
    let ledger = spare_folder.join(format!(
        "{}.ledger",
        spare.file_name().unwrap().to_str().unwrap()
    ));
    let as_stamped = || {
        let bytes = std::fs::read(&ledger).unwrap();
        crate::spare::inspect_ledger(&ledger, &bytes).unwrap().0["spare"]["as_stamped"].clone()
    };
    assert_eq!(as_stamped(), true);

    // A spare changed behind the ledger's back, its size and ledger kept, is found out:
    // the leaf that no longer holds what the ledger says is written too. Changed at once
    // (within the clock tick that stamped it), its modification time still moves past
    // the one the write set; with that time put back, its ctime has moved.
    let damage = |restore_time: bool| {
        let modified = std::fs::metadata(&spare).unwrap().modified().unwrap();
        let mut damaged = std::fs::read(&spare).unwrap();
        damaged[A_BYTES + 100_000] ^= 0xff;
        std::fs::write(&spare, &damaged).unwrap();
        if restore_time {
            let file = std::fs::File::options().write(true).open(&spare).unwrap();
            file.set_modified(modified).unwrap();
        }
        assert_eq!(as_stamped(), false);
    };
    damage(false);
    write(&cook('4')).unwrap();
    holds(&file, &expected('4'));
    write(&cook('3')).unwrap();
    assert_eq!(as_stamped(), true);
    damage(true);
    write(&cook('4')).unwrap();
    holds(&file, &expected('4'));

    // A ledger that does not read, is too large, or is no regular file, is no ledger: the
    // container is written whole, right.
    let hostile: [&dyn Fn(&std::path::Path); 3] = [
        &|l| std::fs::write(l, b"{\"format\":1,\"spare\":{\"recipe\":\"../../x\"").unwrap(),
        &|l| std::fs::write(l, vec![b' '; 17 << 20]).unwrap(),
        &|l| {
            std::fs::remove_file(l).unwrap();
            #[cfg(unix)]
            crate::test_support::make_fifo(l);
        },
    ];
    for (mark, spoil) in ['5', '6', '7'].into_iter().zip(hostile) {
        let results = cook(mark);
        spoil(&ledger);
        write(&results).unwrap();
        holds(&file, &expected(mark));
    }
    // A ledger naming a recipe the store no longer holds: written whole, right.
    write(&cook('8')).unwrap();
    let results = cook('9');
    let text = std::fs::read_to_string(&ledger).unwrap();
    let spare_recipe = text.split('"').nth(7).unwrap().to_string();
    std::fs::remove_file(bench.store.blob_file(&spare_recipe).unwrap()).unwrap();
    write(&results).unwrap();
    holds(&file, &expected('9'));

    // A ledger whose recipe is no blob's name reaches nothing outside the store: the file
    // it would name, read and found not to match its name, would be deleted.
    let blob = bench.store.blob_file(&results[1].outputs[0].hash).unwrap();
    let store_root = blob.ancestors().nth(3).unwrap();
    let victim = store_root.parent().unwrap().join("victim.txt");
    std::fs::write(&victim, b"keep me").unwrap();
    let results = cook('A');
    let hostile = r#"{"format":1,"spare":{"recipe":"../victim.txt","leaves":""},"file":null}"#;
    std::fs::write(&ledger, hostile).unwrap();
    write(&results).unwrap();
    holds(&file, &expected('A'));
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
}

fn interleaved_cook(step: &Step, inputs: &Inputs) -> Cooked {
    if step.id != "s" {
        return splice_cook(5)(step, inputs);
    }
    let mut recipe = crate::Recipe::default();
    recipe.copy("part/a", 0, 3);
    recipe.copy("part/b", 0, 3);
    recipe.copy("part/a", 3, 2);
    recipe.literal(b"+");
    recipe.copy("part/b", 3, 2);
    Ok(vec![("joined".into(), recipe.to_bytes())])
}

#[test]
fn an_interleaved_spliced_output_is_written_source_by_source_and_refuses_a_damaged_one() {
    let bench = Bench::new();
    let graph = splice_graph(&bench);
    bench.run(&graph, &interleaved_cook);
    let cached = bench.run(&graph, &interleaved_cook);
    assert_eq!(outcome_names(&cached), ["hit"; 3]);
    let joined = &cached[2].outputs[0];
    let path = bench.dir.path().join("joined.out");
    let content = joined
        .write_to(&mut std::fs::File::create(&path).unwrap(), &bench.store)
        .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"helworlo+ld");
    // Written source by source, its hash is not known on the way.
    assert_eq!(content, None);

    // A source's blob damaged in place, its length kept: it is checked whole when read,
    // before any piece of it is written.
    let cached = bench.run(&graph, &interleaved_cook);
    let world = cached[1].outputs[0].hash.clone();
    let blob = bench.store.blob_file(&world).unwrap();
    std::fs::write(&blob, b"WORLD").unwrap();
    let failed =
        cached[2].outputs[0].write_to(&mut std::fs::File::create(&path).unwrap(), &bench.store);
    assert!(matches!(failed, Err(WriteError::Corrupt(_))), "{failed:?}");
}

#[test]
fn a_recipe_that_reaches_past_its_sources_fails_the_step() {
    let bench = Bench::new();
    let graph = splice_graph(&bench);
    let results = bench.run(&graph, &splice_cook(6));
    assert_eq!(outcome_names(&results), ["ran", "ran", "failed"]);
    let Outcome::Failed(findings) = &results[2].outcome else {
        unreachable!()
    };
    assert_eq!(findings[0].code, "bad_splice");
    assert_eq!(bench.store.actions().len(), 2, "nothing is stored for s");
}

#[test]
fn a_spliced_output_whose_source_is_damaged_is_corrupt_not_wrong() {
    let bench = Bench::new();
    let graph = splice_graph(&bench);
    let results = bench.run(&graph, &splice_cook(5));
    let hello = results[0].outputs[0].to_ref().hash;
    let blob = bench
        .store
        .blobs()
        .unwrap()
        .into_iter()
        .find(|(h, _)| *h == hello)
        .unwrap();
    assert_eq!(blob.1, 5);
    let cached = bench.run(&graph, &splice_cook(5));
    // The source's blob goes bad after the hit: reading the spliced output says so.
    bench.store.remove_blob(&hello).unwrap();
    let err = cached[2].outputs[0].bytes(&bench.store).unwrap_err();
    assert!(!err.detail.is_empty());
    // The cook then retries with every hit verified, which runs the step that made it.
    let mut settings = bench.settings();
    settings.verify_hits = true;
    let again = run(&graph, Vec::new(), &settings, &Quiet, &splice_cook(5));
    assert_eq!(outcome_names(&again), ["ran", "hit", "hit"]);
    assert_eq!(output_text(&bench, &again[2]), "hello world");
}

#[test]
fn a_large_output_is_let_go_once_stored_and_read_back_whole() {
    let bench = Bench::new();
    let big = "x".repeat(100_000);
    let graph = diamond(&bench, &big);
    let cooker = Recorder::new();
    let results = bench.run(&graph, &|s, i| cooker.cook(s, i));
    assert_eq!(outcome_names(&results), ["ran"; 4]);
    // a's output went to b and c from the store; d's is held by nobody either.
    for r in &results {
        assert!(r.outputs[0].loaded_bytes().is_none(), "{:?}", r.outputs[0]);
    }
    assert_eq!(output_text(&bench, &results[0]), format!("a({big})"));
    assert_eq!(
        output_text(&bench, &results[3]),
        format!("d(b(a({big}))c(a({big})))")
    );
}

#[test]
fn a_small_output_is_let_go_once_every_step_that_reads_it_is_done() {
    let bench = Bench::new();
    let graph = diamond(&bench, "x");
    let cooker = Recorder::new();
    let results = bench.run(&graph, &|s, i| cooker.cook(s, i));
    assert_eq!(outcome_names(&results), ["ran"; 4]);
    // b and c read a's output from memory, d read theirs; nothing is held after the run,
    // and every output reads back whole from the store.
    for r in &results {
        assert!(r.outputs[0].loaded_bytes().is_none(), "{:?}", r.outputs[0]);
    }
    assert_eq!(output_text(&bench, &results[0]), "a(x)");
    assert_eq!(output_text(&bench, &results[3]), "d(b(a(x))c(a(x)))");
}

#[test]
fn an_output_is_found_by_name_in_any_order() {
    let made = |names: &[&str]| -> Vec<Arc<Output>> {
        let made = |n: &&str| Output::fresh(n.to_string(), format!("hash of {n}"), vec![]);
        names.iter().map(made).collect()
    };
    let sorted: Vec<String> = (0..300).map(|i| format!("entry/b{i:03}.json")).collect();
    let sorted: Vec<&str> = sorted.iter().map(String::as_str).collect();
    let outputs = made(&sorted);
    assert_eq!(
        output_named(&outputs, "entry/b123.json").unwrap().name,
        "entry/b123.json"
    );
    assert!(output_named(&outputs, "entry/b300.json").is_none());
    // A step's own order, not sorted: still found.
    let outputs = made(&[
        "mjolnir.json",
        "entry/b001.json",
        "block.json",
        "entry/b000.json",
    ]);
    for name in [
        "mjolnir.json",
        "entry/b000.json",
        "block.json",
        "entry/b001.json",
    ] {
        assert_eq!(output_named(&outputs, name).unwrap().name, name);
    }
    assert!(output_named(&outputs, "entry/b002.json").is_none());
}

/// Counts the steps the cook has finished.
struct Counting(std::sync::atomic::AtomicUsize);

impl Observer for Counting {
    fn finished(&self, _: &Graph, _: StepId, _: &Finished) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn an_edited_source_starts_its_step_before_the_hits_queued_ahead_of_it_are_probed() {
    let bench = Bench::new();
    let steps = 8 * WAVE + 1;
    let mut graph = Graph::default();
    for i in 0..steps {
        graph.add(step(
            &format!("s{i}"),
            vec![bench.source(&format!("s{i}.txt"), "same")],
        ));
    }
    bench.run(&graph, &|s, i| Recorder::new().cook(s, i));

    // The last step's source changes (to another length, so its stamp does too): its
    // step is the one a cook waits on, and it starts before the waves of hits ahead of it.
    bench.source(&format!("s{}.txt", steps - 1), "after the edit");
    let finished = Counting(Default::default());
    let seen_at_start = Mutex::new(None);
    let cooker = Recorder::new();
    bench.stat_cache.new_cook();
    let results = run(&graph, Vec::new(), &bench.settings(), &finished, &|s, i| {
        *seen_at_start.lock().unwrap() = Some(finished.0.load(Ordering::SeqCst));
        cooker.cook(s, i)
    });
    assert_eq!(cooker.ran(), [format!("s{}", steps - 1)]);
    assert!(matches!(results[steps - 1].outcome, Outcome::Ran(_)));
    let seen = seen_at_start.lock().unwrap().expect("the edited step ran");
    // In plan order it would start only after every wave ahead of it: all the hits.
    assert!(
        seen < steps - 1 - WAVE,
        "it started after {seen} of the {} hits ahead of it",
        steps - 1
    );
}

#[test]
fn the_steps_after_an_edit_s_cut_off_go_ahead_of_the_hits_queued_before_them() {
    let bench = Bench::new();
    let hits = 8 * WAVE;
    let mut graph = Graph::default();
    for i in 0..hits {
        graph.add(step(
            &format!("s{i}"),
            vec![bench.source(&format!("s{i}.txt"), "same")],
        ));
    }
    // `cut` makes what it made before (its input's length), so `mid` is a hit, and
    // `last`, which reads the edited source too, runs once `mid` is probed.
    let edited = bench.source("edited.txt", "before");
    let cut = graph.add(step("cut", vec![edited.clone()]));
    let mid = graph.add(step("mid", vec![from(cut)]));
    let last = graph.add(step("last", vec![from(mid), edited]));
    let lengths = Recorder {
        lengths_only: vec!["cut"],
        ..Recorder::new()
    };
    bench.run(&graph, &|s, i| lengths.cook(s, i));

    bench.source("edited.txt", "after!");
    let finished = Counting(Default::default());
    let seen_at_start = Mutex::new(None);
    let cooker = Recorder {
        lengths_only: vec!["cut"],
        ..Recorder::new()
    };
    bench.stat_cache.new_cook();
    let results = run(&graph, Vec::new(), &bench.settings(), &finished, &|s, i| {
        if s.id == "last" {
            *seen_at_start.lock().unwrap() = Some(finished.0.load(Ordering::SeqCst));
        }
        cooker.cook(s, i)
    });
    assert_eq!(cooker.ran(), ["cut", "last"]);
    assert!(matches!(results[mid].outcome, Outcome::Hit));
    assert!(matches!(results[last].outcome, Outcome::Ran(_)));
    let seen = seen_at_start.lock().unwrap().expect("the last step ran");
    // Queued behind the hits once `mid` was probed, it would start after nearly all.
    assert!(
        seen < hits - WAVE,
        "it started after {seen} of the {hits} hits queued before it"
    );
}

#[test]
fn a_cold_cook_finishes_the_chains_it_started_before_it_starts_others() {
    let bench = Bench::new();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    // Three blocks of three steps each, numbered block by block as the planner does.
    let mut graph = Graph::default();
    for block in ["a", "b", "c"] {
        let first = graph.add(step(
            &format!("{block}1"),
            vec![bench.source(&format!("{block}.txt"), block)],
        ));
        let second = graph.add(step(&format!("{block}2"), vec![from(first)]));
        graph.add(step(&format!("{block}3"), vec![from(second)]));
    }
    let cooker = Recorder::new();
    bench.stat_cache.new_cook();
    let settings = Settings::local(&bench.store, &bench.stat_cache, &one_thread, &bench.cancel);
    run(&graph, Vec::new(), &settings, &Quiet, &|s, i| {
        cooker.cook(s, i)
    });
    // Breadth first (every block's first step, then every second one) would hold every
    // block's outputs at once; a catalog-sized pack's small outputs are megabytes.
    let order = cooker.ran.lock().unwrap().clone();
    assert_eq!(
        order,
        ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]
    );
}

#[test]
fn edges_reversed_list_what_reads_each_step_in_id_order() {
    let reads = Edges::of_each([vec![], vec![0], vec![0, 1], vec![1]].into_iter());
    assert_eq!(reads.of(2), [0, 1]);
    let read_by = reads.reversed();
    assert_eq!(read_by.of(0), [1, 2]);
    assert_eq!(read_by.of(1), [2, 3]);
    assert!(read_by.of(2).is_empty() && read_by.of(3).is_empty());
}
