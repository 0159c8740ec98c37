//! `launcher_report.txt`: what a sync enabled, what it refused and why, regenerated every
//! sync.

use std::collections::BTreeMap;

use forge_resolve::{Need, Resolution};
use serde::Serialize;

use crate::finding::Finding;

/// What became of each pack resolution chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Installed,
    Downloaded,
    Refused,
}

/// One sync's result, as the report and `--json` show it.
#[derive(Serialize)]
pub struct Summary {
    pub resolution: Resolution,
    pub needs: Vec<Need>,
    pub outcomes: BTreeMap<String, Outcome>,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub blocks: usize,
    /// Installed releases nothing enabled needs: kept, not enabled.
    pub unused: Vec<String>,
    /// The bound the blocks were held to.
    pub max_blocks: usize,
}

impl Summary {
    pub fn clean(&self) -> bool {
        self.resolution.conflicts.is_empty()
            && self.resolution.missing.is_empty()
            && self.findings.is_empty()
    }
}

pub fn text(s: &Summary) -> String {
    let count = |o: Outcome| s.outcomes.values().filter(|x| **x == o).count();
    let mut out = format!(
        "MJOLNIR launcher report  (regenerated every sync)\npacks={}  downloads={}  refused={}  conflicts={}  missing={}  findings={}  blocks={} (max {})\n\n",
        s.resolution.packs.len(),
        count(Outcome::Downloaded),
        count(Outcome::Refused),
        s.resolution.conflicts.len(),
        s.resolution.missing.len(),
        s.findings.len(),
        s.blocks,
        s.max_blocks,
    );
    for (slug, chosen) in &s.resolution.packs {
        let how = match s.outcomes.get(slug) {
            Some(Outcome::Installed) | None => "installed",
            Some(Outcome::Downloaded) => "downloaded",
            Some(Outcome::Refused) => "refused",
        };
        out += &format!("[{slug}]  {}  {how}  {}\n", chosen.version, chosen.why);
    }
    out += "\nREQUIRED:\n";
    let mut by_who: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for n in &s.needs {
        by_who
            .entry(&n.who)
            .or_default()
            .push(format!("{} {}", n.slug, n.req));
    }
    for (who, list) in by_who {
        out += &format!("  {who}: {}\n", list.join(", "));
    }
    if !s.resolution.conflicts.is_empty() {
        out += "\nCONFLICTS:\n";
        for c in &s.resolution.conflicts {
            let reqs: Vec<String> = c
                .requirements
                .iter()
                .map(|(r, who)| format!("{r} ({})", who.join(", ")))
                .collect();
            out += &format!(
                "  {}: {}; left out, move aside or use compatible versions: {}\n",
                c.slug,
                reqs.join(" vs "),
                c.left_out.join(", ")
            );
        }
    }
    for (slug, why) in &s.resolution.missing {
        out += &format!("\nMISSING: {slug}: {why}\n");
    }
    for f in &s.findings {
        out += &format!("\nREFUSED: {f}\n");
    }
    for note in &s.notes {
        out += &format!("\nNOTE: {note}\n");
    }
    for path in &s.unused {
        out += &format!("\nNOT ENABLED: {path}: no enabled map or layout needs it\n");
    }
    out
}
