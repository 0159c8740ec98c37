//! `build/report.html`: one self-contained page (inline CSS, images referenced relative to
//! the build folder) with each pack's contact sheet, every block's preview and checks, and
//! the cook's timings and cache hit rate.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::execute::{Finished, Outcome};
use crate::graph::Graph;
use crate::layout;
use crate::steps::{documents, map, render, sheet, view, Lands};

/// The largest set checks report the page reads: a catalog-sized set's is under a
/// megabyte, and a larger file (not this cook's) is left off the page.
const MAX_CHECKS_BYTES: u64 = 64 << 20;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}h1{font-size:20px}h2{font-size:17px;margin-top:32px}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 8px;vertical-align:top;text-align:left}th{background:#f0f0f0}\
.pass{color:#1a7f37}.fail{color:#c62828;font-weight:600}.waived{color:#9a6700}img.preview{width:160px;height:160px;background:#eee}\
img.sheet{max-width:100%;border:1px solid #ddd}.grid{display:flex;flex-wrap:wrap;gap:12px}.card{background:#fff;border:1px solid #ddd;padding:8px;width:180px}\
.summary{font-size:16px}code{background:#eee;padding:0 3px}#viewer{position:fixed;inset:24px;background:#fff;border:1px solid #bbb;box-shadow:0 4px 24px #0004;display:flex;flex-direction:column;z-index:10}#viewer .viewer-bar{padding:6px 10px;display:flex;flex-wrap:wrap;gap:10px;align-items:center;border-bottom:1px solid #ddd}#viewer .viewer-checks a{margin-right:8px}#viewer .viewer-canvas{flex:1;min-height:0}#viewer canvas{display:block}#viewer.shot{inset:0;border:0;box-shadow:none}#viewer.shot .viewer-bar{display:none}#viewer.map .block-only{display:none}";

/// Writes the report page into `out` (the build folder) for the sets cooked this time.
pub fn write(
    out: &Path,
    sets: &[(String, String)],
    maps: &[String],
    summary: &Value,
    graph: &Graph,
    results: &[Finished],
) -> std::io::Result<()> {
    let mut h = String::new();
    let _ = write!(h, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Forge pack cook report</title><style>{STYLE}</style></head><body>");
    let _ = write!(
        h,
        "<h1>Forge pack cook report</h1><p class=\"summary\">{}</p>",
        escape(summary["line"].as_str().unwrap_or(""))
    );
    let rate = summary["hit_rate"].as_f64().unwrap_or(0.0) * 100.0;
    let _ = write!(
        h,
        "<p>Cache hit rate: <b>{rate:.1}%</b> ({} of {} steps cached, {} run, {} failed).</p>",
        summary["cached"], summary["steps"], summary["run"], summary["failed"]
    );
    write_phases(&mut h, &summary["phases_ms"]);
    let failures = failures(graph, results);
    write_failures(&mut h, &failures);
    let cooked = failures.is_empty();
    let mut views = false;
    for (pack, set) in sets {
        views |= write_set(&mut h, out, pack, set, cooked, graph, results);
    }
    if cooked {
        write_maps(&mut h, maps, views);
    }
    write_slowest(&mut h, graph, results);
    let _ = writeln!(
        h,
        "</table><p>Every step that did not come from the cache is in <code>report.json</code>.</p>"
    );
    if views {
        write_viewer(out)?;
        let _ = write!(h, "<script src=\"{VIEWER_FILE}\"></script>");
    }
    let _ = writeln!(h, "</body></html>");
    crate::atomic::write(&out.join("report.html"), h.as_bytes())
}

/// The 3D viewer: three.js and the page's viewer code in one classic script (a page opened
/// from disk cannot load modules), built from `pipeline/viewer/` (its README says how).
const VIEWER: &str = include_str!("../viewer/dist/viewer.js");
const VIEWER_FILE: &str = "viewer.js";

/// Writes the viewer beside the page unless it is already there: a cook that changed one
/// block does not rewrite 600 KB.
fn write_viewer(out: &Path) -> std::io::Result<()> {
    let path = out.join(VIEWER_FILE);
    let same = mjolnir_files::bounded::read(&path, VIEWER.len() as u64)
        .is_ok_and(|bytes| bytes == VIEWER.as_bytes());
    if same {
        return Ok(());
    }
    crate::atomic::write(&path, VIEWER.as_bytes())
}

type Failure<'a> = (&'a str, &'a forge_contract::Diagnostic);

fn failures<'a>(graph: &'a Graph, results: &'a [Finished]) -> Vec<Failure<'a>> {
    graph
        .steps
        .iter()
        .zip(results)
        .flat_map(|(step, r)| match &r.outcome {
            crate::execute::Outcome::Failed(found) => {
                found.iter().map(|d| (step.id.as_str(), d)).collect()
            }
            _ => Vec::new(),
        })
        .collect()
}

fn write_failures(h: &mut String, failures: &[Failure]) {
    if failures.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<h2 class=\"fail\">Errors</h2><table><tr><th>step</th><th>finding</th></tr>"
    );
    for (id, d) in failures {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"fail\">{}</td></tr>",
            escape(id),
            escape(&d.to_string())
        );
    }
    let _ = write!(h, "</table>");
}

/// Each map's overview and documents; with the blocks' 3D views on the page, a 3D view of
/// the map's placed pieces too.
fn write_maps(h: &mut String, maps: &[String], views: bool) {
    if !maps.is_empty() {
        let _ = write!(h, "<h2>Maps</h2><div class=\"grid\">");
        for map in maps {
            let view = if views {
                format!(
                    "<br><a class=\"view3d\" href=\"#map={0}\" data-map=\"{0}\" data-src=\"maps/{0}/{1}\">3D view</a>",
                    escape(map),
                    map::VIEW_SCRIPT
                )
            } else {
                String::new()
            };
            let _ = write!(
            h,
            "<div class=\"card\"><img class=\"preview\" alt=\"{0} from above\" src=\"maps/{0}/overview.png\"><br>{0}: <a href=\"maps/{0}/checks.json\">checks</a>, <a href=\"maps/{0}/palette.json\">palette</a>{view}</div>",
            escape(map)
        );
        }
        let _ = write!(h, "</div>");
    }
}

/// Where the cook's time went, phase by phase (`summary.phases_ms`).
fn write_phases(h: &mut String, phases: &Value) {
    let Some(phases) = phases.as_object().filter(|p| !p.is_empty()) else {
        return;
    };
    let spent: Vec<String> = phases
        .iter()
        .map(|(phase, ms)| format!("{} {:.1} ms", escape(phase), ms.as_f64().unwrap_or(0.0)))
        .collect();
    let _ = write!(h, "<p>Time by phase: {}.</p>", spent.join(", "));
}

/// The 25 slowest steps, each with how it ended.
fn write_slowest(h: &mut String, graph: &Graph, results: &[Finished]) {
    let mut timed: Vec<(&str, &str, f64)> = graph
        .steps
        .iter()
        .zip(results)
        .map(|(s, r)| {
            (
                s.id.as_str(),
                match r.outcome {
                    crate::execute::Outcome::Hit => "cached",
                    crate::execute::Outcome::Ran(_) => "run",
                    crate::execute::Outcome::Failed(_) => "failed",
                    crate::execute::Outcome::Skipped => "skipped",
                    crate::execute::Outcome::Stale(_) => "stale",
                },
                r.duration.as_secs_f64() * 1000.0,
            )
        })
        .collect();
    // The 25 first in order, found without ordering the pack's thousands of hits.
    let slowest =
        |a: &(&str, &str, f64), b: &(&str, &str, f64)| b.2.total_cmp(&a.2).then(a.0.cmp(b.0));
    if timed.len() > 25 {
        timed.select_nth_unstable_by(24, slowest);
        timed.truncate(25);
    }
    timed.sort_by(slowest);
    let _ = write!(
        h,
        "<h2>Slowest steps</h2><table><tr><th>step</th><th>status</th><th>ms</th></tr>"
    );
    for (id, status, ms) in timed.iter().take(25) {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{status}</td><td>{ms:.2}</td></tr>",
            escape(id)
        );
    }
}

/// What this cook finished for a pack: the blocks whose preview it rendered (or found
/// cached), whether it made the contact sheet, and each block's failed findings.
struct Fresh<'a> {
    previews: BTreeSet<&'a str>,
    /// Blocks whose 3D view data this cook made (or found cached).
    views: BTreeSet<&'a str>,
    sheet: bool,
    blocks: BTreeSet<&'a str>,
    /// Blocks a step of which ran, failed or was skipped.
    changed: BTreeSet<&'a str>,
    failed: BTreeMap<&'a str, Vec<&'a forge_contract::Diagnostic>>,
}

impl<'a> Fresh<'a> {
    fn of(pack: &str, graph: &'a Graph, results: &'a [Finished]) -> Fresh<'a> {
        let mut fresh = Fresh {
            previews: BTreeSet::new(),
            views: BTreeSet::new(),
            sheet: false,
            blocks: BTreeSet::new(),
            changed: BTreeSet::new(),
            failed: BTreeMap::new(),
        };
        for (step, r) in graph.steps.iter().zip(results) {
            if *step.pack != *pack {
                continue;
            }
            let done = matches!(r.outcome, Outcome::Hit | Outcome::Ran(_));
            let block = step.block.as_deref();
            // Previews are what lands in the render folder: a block's own, or the set's
            // contact sheet.
            let previews = done
                && crate::steps::REGISTRY
                    .iter()
                    .any(|k| k.name == step.kind.name && matches!(k.lands, Lands::Renders));
            match block {
                Some(b) => {
                    fresh.blocks.insert(b);
                    if !matches!(r.outcome, Outcome::Hit) {
                        fresh.changed.insert(b);
                    }
                    match step.kind.name {
                        _ if !previews => {}
                        name if name == view::KIND.cooker.name => {
                            fresh.views.insert(b);
                        }
                        _ => {
                            fresh.previews.insert(b);
                        }
                    }
                }
                None => fresh.sheet |= previews,
            }
            if let (Some(b), Outcome::Failed(found)) = (block, &r.outcome) {
                fresh.failed.entry(b).or_default().extend(found);
            }
        }
        fresh
    }

    /// The blocks the page draws a card for: those the cook changed, and those with a
    /// preview or 3D view (which a render asked for, cached or not).
    fn cards(&self) -> BTreeSet<&'a str> {
        let shown = self.previews.iter().chain(&self.views);
        self.changed.iter().chain(shown).copied().collect()
    }
}

/// One pack's section: its contact sheet, a card for each block this cook ran a step of
/// or made a preview for (its preview, opening the full-size image, turntable, 3D view
/// and checks), and a line for the blocks that came from the cache. The page costs what
/// the cook did: an edit of one block of a catalog-sized set draws one card, not hundreds,
/// and reads no block's files but that one's. Only what this cook made is shown; a preview
/// left from an earlier cook is not.
fn write_set(
    h: &mut String,
    out: &Path,
    pack: &str,
    set: &str,
    cooked: bool,
    graph: &Graph,
    results: &[Finished],
) -> bool {
    let _ = write!(
        h,
        "<h2>{} <small>({})</small></h2>",
        escape(pack),
        escape(set)
    );
    let fresh = Fresh::of(pack, graph, results);
    // Relative to the page, which sits in `out`.
    let render = layout::render_dir(Path::new(""), pack, set)
        .to_string_lossy()
        .into_owned();
    if fresh.sheet {
        let _ = write!(
            h,
            "<p><a href=\"{1}/{2}\"><img class=\"sheet\" alt=\"contact sheet of {0}\" src=\"{1}/{2}\"></a></p>",
            escape(pack),
            escape(&render),
            sheet::OUTPUT
        );
    }
    // The set's checks are this cook's only when it finished; otherwise the folder holds
    // an earlier cook's.
    let cards = fresh.cards();
    let report = match cooked && !cards.is_empty() {
        true => mjolnir_files::bounded::read_text(
            &layout::set_dir(out, pack, set).join(documents::CHECKS),
            MAX_CHECKS_BYTES,
        )
        .unwrap_or_default(),
        false => String::new(),
    };
    let checks = checks_of(&report, &cards);
    let _ = write!(h, "<div class=\"grid\">");
    for id in &cards {
        write_card(h, out, (pack, set, &render), id, &fresh, checks.get(id));
    }
    let _ = write!(h, "</div>");
    let unchanged = fresh.blocks.len() - cards.len();
    if unchanged > 0 {
        let checks = layout::set_dir(Path::new(""), pack, set).join(documents::CHECKS);
        let _ = write!(
            h,
            "<p>{unchanged} {} came from the cache as an earlier cook made {}; every block's checks are in <a href=\"{2}\"><code>{2}</code></a>.</p>",
            if unchanged == 1 { "block" } else { "blocks" },
            if unchanged == 1 { "it" } else { "them" },
            escape(&checks.to_string_lossy()),
        );
    }
    !fresh.views.is_empty()
}

/// One block's card: its preview, 3D view, what failed and its checks.
fn write_card(
    h: &mut String,
    out: &Path,
    (pack, set, render): (&str, &str, &str),
    id: &str,
    fresh: &Fresh,
    checks: Option<&Value>,
) {
    let _ = write!(h, "<div class=\"card\"><b>{}</b><br>", escape(id));
    if fresh.previews.contains(id) {
        write_preview(h, out, render, id);
    }
    let view = fresh
        .views
        .contains(id)
        .then(|| format!("{pack}/{set}/{id}"));
    if let Some(key) = &view {
        let _ = write!(
            h,
            "<a class=\"view3d\" href=\"#view={0}\" data-view=\"{0}\" data-src=\"{1}/{2}\">3D view</a><br>",
            escape(key),
            escape(render),
            escape(&view::script_output(id))
        );
    }
    for d in fresh.failed.get(id).into_iter().flatten() {
        // A check's finding opens the view framed on the check that failed with it.
        let code = match &view {
            Some(key) => format!(
                "<a href=\"#view={}&amp;frame={1}\"><code>{1}</code></a>",
                escape(key),
                escape(d.code)
            ),
            None => format!("<code>{}</code>", escape(d.code)),
        };
        let _ = write!(
            h,
            "<span class=\"fail\">FAIL</span> {code} {}<br>",
            escape(&d.message)
        );
    }
    for c in checks.and_then(Value::as_array).into_iter().flatten() {
        write_check(h, c, view.as_deref());
    }
    let _ = write!(h, "</div>");
}

/// The set's checks report (`checks.json`) as its blocks' entries, each block's checks
/// left unparsed unless its card needs them: a catalog-sized set's report is hundreds of
/// blocks, and the page draws a card for those the cook changed.
#[derive(serde::Deserialize)]
struct ChecksReport<'a> {
    #[serde(borrow, default)]
    blocks: Vec<BlockChecks<'a>>,
}

#[derive(serde::Deserialize)]
struct BlockChecks<'a> {
    #[serde(borrow)]
    block: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    checks: &'a serde_json::value::RawValue,
}

/// Each of `blocks`' checks in the report `text` (empty, or not a report: none), the
/// first entry of a block as a search would find.
fn checks_of<'b>(text: &str, blocks: &BTreeSet<&'b str>) -> BTreeMap<&'b str, Value> {
    let mut found = BTreeMap::new();
    let Ok(report) = serde_json::from_str::<ChecksReport>(text) else {
        return found;
    };
    for entry in report.blocks {
        let Some(&block) = blocks.get(entry.block.as_ref()) else {
            continue;
        };
        if found.contains_key(block) {
            continue;
        }
        if let Ok(checks) = serde_json::from_str(entry.checks.get()) {
            found.insert(block, checks);
        }
    }
    found
}

/// A block's preview, opening the full-size image, and its turntable when there is one.
fn write_preview(h: &mut String, out: &Path, render_dir: &str, id: &str) {
    let main = render::main_output(id);
    let _ = write!(
        h,
        "<a href=\"{1}/{2}\"><img class=\"preview\" alt=\"{0}\" src=\"{1}/{2}\"></a><br>",
        escape(id),
        escape(render_dir),
        escape(&main)
    );
    if let Some(caption) = caption(&out.join(render_dir).join(format!("{id}.json"))) {
        let _ = write!(h, "<small>{}</small><br>", escape(&caption));
    }
    let turntable = render::turntable_output(id);
    if out.join(render_dir).join(&turntable).is_file() {
        let _ = write!(
            h,
            "<a href=\"{1}/{2}\"><img class=\"preview\" alt=\"{0} turning\" src=\"{1}/{2}\"></a><br>",
            escape(id),
            escape(render_dir),
            escape(&turntable)
        );
    }
}

/// A preview's caption, from its sidecar (the render step's, at most 1 MiB).
fn caption(sidecar: &Path) -> Option<String> {
    let text = mjolnir_files::bounded::read_text(sidecar, 1 << 20).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value["caption"].as_str().map(str::to_string)
}

/// One check's line: passed, failed, or waived with its reason and reviewer. With a 3D
/// view, the check's name opens it framed on the check's rays.
fn write_check(h: &mut String, c: &Value, view: Option<&str>) {
    let waiver = c["waiver"].is_object().then(|| {
        format!(
            " &mdash; waived: {} (reviewed by {})",
            escape(c["waiver"]["reason"].as_str().unwrap_or("")),
            escape(c["waiver"]["reviewed_by"].as_str().unwrap_or(""))
        )
    });
    let (class, word) = match (c["passed"].as_bool(), &waiver) {
        (Some(true), _) => ("pass", "pass"),
        (_, Some(_)) => ("waived", "waived"),
        _ => ("fail", "FAIL"),
    };
    let (check, name) = (
        c["check"].as_str().unwrap_or(""),
        c["name"].as_str().unwrap_or(""),
    );
    let name = match view {
        Some(key) if c["rays"].as_u64().is_some_and(|n| n > 0) => format!(
            "<a href=\"#view={}&amp;frame={}\"><code>{}</code></a>",
            escape(key),
            escape(&format!("{check}/{name}")),
            escape(name)
        ),
        _ => format!("<code>{}</code>", escape(name)),
    };
    let _ = write!(
        h,
        "<span class=\"{class}\">{word}</span> {} {name} ({} rays){}<br>",
        escape(check),
        c["rays"],
        waiver.unwrap_or_default()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_asked_blocks_checks_are_parsed_and_a_blocks_first_entry_wins() {
        let report = r#"{"format":"mjolnir-forge-checks","pack":"p","set":"all","blocks":[
            {"block":"wall","checks":[{"check":"size","passed":true}]},
            {"block":"ramp","checks":[{"check":"size","passed":false}]},
            {"block":"wall","checks":[]},
            {"block":"gate\u0020a","checks":[{"check":"aperture","passed":true}]}]}"#;
        let asked = BTreeSet::from(["wall", "gate a", "absent"]);
        let found = checks_of(report, &asked);
        assert_eq!(found.keys().collect::<Vec<_>>(), [&"gate a", &"wall"]);
        assert_eq!(found["wall"][0]["check"], "size");
        assert_eq!(found["gate a"][0]["check"], "aperture");
        // Not a report, or no report: no checks, no panic.
        for text in ["", "[]", "{\"blocks\":7}", "{\"blocks\":[{\"block\":1}]}"] {
            assert!(checks_of(text, &asked).is_empty(), "{text}");
        }
    }
}
