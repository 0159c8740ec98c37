//! `build/report.json` and the closing summary line.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::execute::{Finished, Outcome};
use crate::graph::Graph;

/// 2: the steps are those that did not come from the cache; 1 listed every step.
pub const FORMAT: u32 = 2;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub steps: usize,
    pub cached: usize,
    pub run: usize,
    pub failed: usize,
    pub skipped: usize,
}

pub fn count(results: &[Finished]) -> Counts {
    let mut c = Counts {
        steps: results.len(),
        ..Counts::default()
    };
    for r in results {
        match r.outcome {
            Outcome::Hit => c.cached += 1,
            Outcome::Ran(_) => c.run += 1,
            Outcome::Failed(_) => c.failed += 1,
            Outcome::Skipped | Outcome::Stale(_) => c.skipped += 1,
        }
    }
    c
}

pub fn summary_line(packs: usize, counts: Counts, elapsed: Duration) -> String {
    let verb = if counts.failed > 0 {
        "failed to cook"
    } else {
        "cooked"
    };
    let mut line = format!(
        "{verb} {packs} pack{}: {} steps, {} cached, {} run",
        if packs == 1 { "" } else { "s" },
        counts.steps,
        counts.cached,
        counts.run
    );
    if counts.failed > 0 {
        line.push_str(&format!(", {} failed", counts.failed));
    }
    if counts.skipped > 0 {
        line.push_str(&format!(", {} skipped", counts.skipped));
    }
    line.push_str(&format!(", {:.2} s", elapsed.as_secs_f64()));
    line
}

/// `build/report.json`: `{"format", "steps", "summary", "errors"}`. The steps are
/// written first ([`begin`]), while the cook materializes the set folders. They are the
/// steps that did not come from the cache (run, failed, skipped, stale): a one-block edit
/// of a catalog-sized pack lists its dozen, not the pack's thousands of hits, which the
/// summary counts.
pub struct Report<'a> {
    pub summary: &'a serde_json::Value,
    pub errors: &'a [&'a forge_contract::Diagnostic],
}

/// One step's record in the report. Borrowed and serialized straight to the file: a
/// no-op cook writes hundreds of these, and building JSON trees first showed in its profile.
#[derive(Serialize)]
struct StepRecord<'a> {
    id: &'a str,
    pack: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    block: Option<&'a str>,
    key: Option<&'a str>,
    status: &'static str,
    duration_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a crate::fingerprint::Dirty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    errors: Option<&'a [forge_contract::Diagnostic]>,
    inputs: Vec<FileRecord<'a>>,
    outputs: Vec<FileRecord<'a>>,
}

#[derive(Serialize)]
struct FileRecord<'a> {
    name: &'a str,
    hash: &'a str,
    size: u64,
}

fn file<'a>(name: &'a str, hash: &'a str, size: u64) -> FileRecord<'a> {
    FileRecord { name, hash, size }
}

/// The records of the steps that did not come from the cache, in plan order.
fn step_records<'a>(graph: &'a Graph, results: &'a [Finished]) -> Vec<StepRecord<'a>> {
    graph
        .steps
        .iter()
        .zip(results)
        .filter_map(|(step, r)| {
            let (status, reason, errors) = match &r.outcome {
                Outcome::Hit => return None,
                Outcome::Ran(dirty) => ("run", Some(dirty), None),
                Outcome::Failed(d) => ("failed", None, Some(d.as_slice())),
                Outcome::Skipped => ("skipped", None, None),
                Outcome::Stale(dirty) => ("stale", Some(dirty), None),
            };
            Some(StepRecord {
                id: &step.id,
                pack: &step.pack,
                kind: step.kind.name,
                block: step.block.as_deref(),
                key: r.key.as_deref(),
                status,
                duration_ms: (r.duration.as_secs_f64() * 1e6).round() / 1000.0,
                reason,
                errors,
                inputs: step
                    .inputs
                    .iter()
                    .zip(&r.inputs)
                    .map(|(input, i)| file(input.name(), i.hash(), i.size()))
                    .collect(),
                outputs: r
                    .outputs
                    .iter()
                    .map(|o| file(&o.name, &o.hash, o.size))
                    .collect(),
            })
        })
        .collect()
}

/// `build/report.json`, begun: `{"format":N,"steps":[...]` is written while the set
/// folders are materialized (the steps are most of the file), and the summary and errors
/// follow once the cook is done. The file is renamed into place whole at
/// [`finish`](Begun::finish), so a reader sees this cook's report or the one before.
pub struct Begun(crate::atomic::Pending);

pub fn begin(path: &Path, graph: &Graph, results: &[Finished]) -> std::io::Result<Begun> {
    let mut pending = crate::atomic::Pending::new(path)?;
    // Compact, and streamed: a no-op cook writes this every time, and a cold cook's
    // records would otherwise be a buffer of megabytes at the cook's fullest moment.
    let mut out = std::io::BufWriter::new(pending.file());
    write!(out, "{{\"format\":{FORMAT},\"steps\":")?;
    serde_json::to_writer(&mut out, &step_records(graph, results))?;
    out.flush()?;
    drop(out);
    Ok(Begun(pending))
}

impl Begun {
    pub fn finish(mut self, report: &Report) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(self.0.file());
        out.write_all(b",\"summary\":")?;
        serde_json::to_writer(&mut out, report.summary)?;
        out.write_all(b",\"errors\":")?;
        serde_json::to_writer(&mut out, report.errors)?;
        out.write_all(b"}\n")?;
        out.flush()?;
        drop(out);
        self.0.finish()
    }
}
