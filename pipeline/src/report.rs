//! `build/report.json` and the closing summary line.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::execute::{Finished, Outcome};
use crate::graph::Graph;

pub const FORMAT: u32 = 1;

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
            Outcome::Skipped => c.skipped += 1,
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

pub fn step_json(graph: &Graph, results: &[Finished]) -> Vec<Value> {
    graph
        .steps
        .iter()
        .zip(results)
        .map(|(step, r)| {
            let (status, reason, errors) = match &r.outcome {
                Outcome::Hit => ("cached", Value::Null, vec![]),
                Outcome::Ran(dirty) => ("run", json!(dirty), vec![]),
                Outcome::Failed(d) => ("failed", Value::Null, d.iter().map(|d| json!(d)).collect()),
                Outcome::Skipped => ("skipped", Value::Null, vec![]),
            };
            let mut v = json!({
                "id": step.id,
                "pack": step.pack,
                "kind": step.kind.name(),
                "key": r.key,
                "status": status,
                "duration_ms": (r.duration.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
                "inputs": r.inputs.iter().map(|i| json!({"name": i.name, "hash": i.hash, "size": i.size})).collect::<Vec<_>>(),
                "outputs": r.outputs.iter().map(|o| json!({"name": o.name, "hash": o.hash, "size": o.size})).collect::<Vec<_>>(),
            });
            if let Some(b) = &step.block {
                v["block"] = json!(b);
            }
            if !reason.is_null() {
                v["reason"] = reason;
            }
            if !errors.is_empty() {
                v["errors"] = json!(errors);
            }
            v
        })
        .collect()
}

pub fn write(path: &Path, report: &Value) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(report).expect("a report serializes");
    bytes.push(b'\n');
    crate::atomic::write(path, &bytes)
}
