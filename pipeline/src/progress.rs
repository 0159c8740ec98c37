//! Progress on stderr: indicatif bars on a terminal, plain lines in CI logs.
//!
//! Bars show the whole cook and each pack: steps done of total, and cache hits. Plain
//! output stays quiet (the cook's one summary line says it all) unless asked to be
//! verbose, when it prints one line per finished stage (a step kind within a pack).

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::execute::{Finished, Observer, Outcome};
use crate::graph::{Graph, Step, StepId};

#[derive(Default, Clone, Copy)]
struct Tally {
    total: usize,
    done: usize,
    hits: usize,
    failed: usize,
}

enum Display {
    Bars {
        _multi: MultiProgress,
        overall: ProgressBar,
        packs: BTreeMap<String, ProgressBar>,
    },
    Lines {
        verbose: bool,
    },
}

pub struct Progress {
    display: Display,
    stages: Mutex<BTreeMap<(Arc<str>, &'static str), Tally>>,
    overall: Mutex<Tally>,
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template("{prefix:>14} [{bar:30}] {pos}/{len} {msg}")
        .expect("a valid template")
        .progress_chars("=> ")
}

impl Progress {
    /// Bars when stderr is a terminal; otherwise nothing, or with `verbose` a line per
    /// finished stage.
    pub fn new(graph_packs: &[String], verbose: bool) -> Progress {
        let display = if std::io::stderr().is_terminal() {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let overall = multi.add(
                ProgressBar::new(0)
                    .with_style(style())
                    .with_prefix("all packs"),
            );
            let packs = graph_packs
                .iter()
                .map(|p| {
                    (
                        p.clone(),
                        multi.add(
                            ProgressBar::new(0)
                                .with_style(style())
                                .with_prefix(p.clone()),
                        ),
                    )
                })
                .collect();
            Display::Bars {
                _multi: multi,
                overall,
                packs,
            }
        } else {
            Display::Lines { verbose }
        };
        Progress {
            display,
            stages: Mutex::new(BTreeMap::new()),
            overall: Mutex::new(Tally::default()),
        }
    }

    /// Announces a graph about to run, so totals are known.
    /// Counts `steps` (a stage of the graph) as to be done.
    pub fn start(&self, steps: &[Step]) {
        if self.silent() {
            return;
        }
        let mut stages = self.stages.lock().expect("progress lock");
        stages.clear();
        for step in steps {
            stages
                .entry((step.pack.clone(), step.kind.name))
                .or_default()
                .total += 1;
        }
        let mut overall = self.overall.lock().expect("progress lock");
        overall.total += steps.len();
        if let Display::Bars {
            overall: bar,
            packs,
            ..
        } = &self.display
        {
            bar.set_length(overall.total as u64);
            for step in steps {
                if let Some(b) = packs.get(&*step.pack) {
                    b.inc_length(1);
                }
            }
        }
    }

    /// Off a terminal and without `--verbose` nothing is shown, so nothing is counted: a
    /// catalog's cook finishes thousands of steps, each of which took two locks and a
    /// lookup by pack and kind here.
    fn silent(&self) -> bool {
        matches!(self.display, Display::Lines { verbose: false })
    }

    pub fn finish(&self) {
        if let Display::Bars { overall, packs, .. } = &self.display {
            for bar in packs.values() {
                bar.finish();
            }
            overall.finish();
        }
    }
}

impl Observer for Progress {
    fn finished(&self, graph: &Graph, id: StepId, result: &Finished) {
        if self.silent() {
            return;
        }
        let step = &graph.steps[id];
        let hit = matches!(result.outcome, Outcome::Hit);
        let failed = matches!(result.outcome, Outcome::Failed(_) | Outcome::Skipped);
        let mut overall = self.overall.lock().expect("progress lock");
        overall.done += 1;
        overall.hits += hit as usize;
        let mut stages = self.stages.lock().expect("progress lock");
        let tally = stages
            .entry((step.pack.clone(), step.kind.name))
            .or_default();
        tally.done += 1;
        tally.hits += hit as usize;
        tally.failed += failed as usize;
        match &self.display {
            Display::Bars {
                overall: bar,
                packs,
                ..
            } => {
                bar.inc(1);
                bar.set_message(format!("{} cached", overall.hits));
                if let Some(b) = packs.get(&*step.pack) {
                    b.inc(1);
                    b.set_message(format!(
                        "{} {}",
                        step.kind.name,
                        step.block.as_deref().unwrap_or("")
                    ));
                }
            }
            Display::Lines { verbose } => {
                if *verbose && tally.done == tally.total {
                    let failed = if tally.failed > 0 {
                        format!(", {} failed", tally.failed)
                    } else {
                        String::new()
                    };
                    let line = format!(
                        "{}: {} {} step{}, {} cached, {} run{failed}\n",
                        step.pack,
                        step.kind.name,
                        tally.total,
                        if tally.total == 1 { "" } else { "s" },
                        tally.hits,
                        tally.done - tally.hits - tally.failed
                    );
                    // One write per line: stderr is unbuffered, and CI logs interleave.
                    let _ = std::io::stderr().write_all(line.as_bytes());
                }
            }
        }
    }
}
