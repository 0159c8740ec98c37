//! The engine from outside, on kinds it has never heard of: a graph of two fake cookers
//! (no Forge crate is linked) is built, run, cached and re-run.

use std::sync::atomic::AtomicBool;

use engine::execute::{self, Finished, Observer, Outcome, Settings};
use engine::graph::{Graph, Input, Step, StepId};
use engine::stat_cache::StatCache;
use engine::store::Store;
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

fn upper(_: &CookCtx, inputs: &Inputs) -> Cooked {
    let text = inputs["text"].to_ascii_uppercase();
    Ok(vec![("upper.txt".into(), text)])
}

fn count(ctx: &CookCtx, inputs: &Inputs) -> Cooked {
    let n = inputs["upper"].len();
    Ok(vec![(
        "count.txt".into(),
        format!("{} {n}", ctx.params).into_bytes(),
    )])
}

static UPPER: Cooker = Cooker {
    name: "upper",
    version: 1,
    outputs: Names::Fixed(|_| vec!["upper.txt".into()]),
    runs_under_check: false,
    splices: None,
    cook: upper,
};

static COUNT: Cooker = Cooker {
    name: "count",
    version: 1,
    outputs: Names::Fixed(|_| vec!["count.txt".into()]),
    runs_under_check: false,
    splices: None,
    cook: count,
};

struct Quiet;

impl Observer for Quiet {
    fn finished(&self, _: &Graph, _: StepId, _: &Finished) {}
}

fn graph(source: &std::path::Path) -> Graph {
    let mut graph = Graph::default();
    let step = |id: &str, kind, params: &str, inputs| Step {
        id: id.into(),
        pack: "any".into(),
        kind,
        block: None,
        params: params.into(),
        inputs,
        source_dir: source.parent().unwrap().into(),
    };
    let text = Input::Source {
        name: "text".into(),
        path: source.to_path_buf(),
    };
    let a = graph.add(step("upper", &UPPER, "", vec![text]));
    let from_a = Input::Upstream {
        name: "upper".into(),
        step: a,
        output: "upper.txt".into(),
    };
    graph.add(step("count", &COUNT, "letters", vec![from_a]));
    graph
}

#[test]
fn a_graph_of_unknown_kinds_runs_and_is_cached() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("in.txt");
    std::fs::write(&source, "hello").unwrap();
    let store = Store::open(&dir.path().join("cache")).unwrap();
    let stat_cache = StatCache::open(dir.path().join("stat-cache.json"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let cancel = AtomicBool::new(false);
    let settings = Settings::local(&store, &stat_cache, &pool, &cancel);
    let graph = graph(&source);
    let run = || execute::run(&graph, Vec::new(), &settings, &Quiet, &engine::graph::cook);
    let first = run();
    assert!(first.iter().all(|f| matches!(f.outcome, Outcome::Ran(_))));
    let count = first[1].outputs[0].clone();
    assert_eq!(count.name, "count.txt");
    let second = run();
    assert!(second.iter().all(|f| matches!(f.outcome, Outcome::Hit)));
    assert_eq!(second[1].key, first[1].key);
}
