//! Steps 2 to 8 of the loader's resolution (`docs/haf.md`), and the load report.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::pack::Pack;

/// A module of the game's mod list: its name, GUID and load-order index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Module {
    pub name: String,
    #[serde(default)]
    pub guid: Option<String>,
    pub index: u32,
}

/// A loaded pack in its place, with the module it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub pack: Pack,
    pub module: Option<Module>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolution {
    /// The loaded packs in load order.
    pub order: Vec<Placed>,
    /// Notes of the RESOLUTION section: skipped packs, broken cycles, unversioned packs.
    pub notes: Vec<String>,
    /// The merged registry: pawn → (owning modId, model).
    pub models: BTreeMap<String, (String, Map<String, Value>)>,
    pub overrides: Vec<String>,
    pub conflicts: Vec<String>,
    pub disabled: Vec<String>,
    /// Schema-version warnings.
    pub warnings: Vec<String>,
    /// One TUNING line per table whose packs' entries meet.
    pub tuning: Vec<String>,
    /// The tuning tables as the resolved order composes them: each `unitScales` match
    /// with its product and the rules it multiplies, each `eraGrid` row with the pack it
    /// belongs to, and the `formationThresholds` table that wins.
    pub tuning_tables: Value,
}

/// Resolves `packs` (in discovery order) against the game's module list, if it was read.
pub fn resolve(packs: Vec<Pack>, modules: Option<&[Module]>) -> Resolution {
    let mut r = Resolution::default();
    let packs = unique(packs, &mut r.notes);
    let packs = with_dependencies(packs, &mut r.notes);
    let placed = module_order(packs, modules);
    r.order = constrained(placed, &mut r.notes);
    schema_versions(&mut r);
    merge(&mut r);
    r.tuning = tuning(&r.order);
    r.tuning_tables = composed_tuning(&r.order);
    r
}

/// Step 9's tables, composed: what the game reads once every pack is loaded.
fn composed_tuning(order: &[Placed]) -> Value {
    let mut scales: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    let mut rows = Map::new();
    let mut formation = Value::Null;
    for p in order {
        let id = &p.pack.mod_id;
        for (m, scale) in &p.pack.unit_scales {
            scales
                .entry(m)
                .or_default()
                .push(serde_json::json!({"modId": id, "scale": scale}));
        }
        for (era, row) in &p.pack.era_grid {
            rows.insert(era.clone(), serde_json::json!({"modId": id, "row": row}));
        }
        if let Some(table) = &p.pack.formation_thresholds {
            formation = serde_json::json!({"modId": id, "table": table});
        }
    }
    let unit_scales: Vec<Value> = scales
        .into_iter()
        .map(|(m, rules)| {
            let product: f64 = rules.iter().filter_map(|r| r["scale"].as_f64()).product();
            serde_json::json!({"match": m, "scale": (product * 1e6).round() / 1e6, "rules": rules})
        })
        .collect();
    serde_json::json!({"unitScales": unit_scales, "eraGrid": rows, "formationThresholds": formation})
}

/// The schema version is advisory: a note or a warning, never a skip.
fn schema_versions(r: &mut Resolution) {
    for p in &r.order {
        let (id, version) = (&p.pack.mod_id, p.pack.schema_version);
        match version {
            None => r
                .notes
                .push(format!("{id}: unversioned (no schemaVersion)")),
            Some(v) if v < crate::READS_FROM => r.warnings.push(format!(
                "WARNING: {id} schemaVersion={v} is older than this HAF reads ({}+); re-bake it",
                crate::READS_FROM
            )),
            Some(v) if v > crate::SCHEMA_VERSION => {
                let stripped = match p.pack.stripped.as_slice() {
                    [] => "none".to_string(),
                    keys => keys.join(", "),
                };
                r.warnings.push(format!(
                    "WARNING: {id} schemaVersion={v} is newer than this HAF ({}); keys it does not know are stripped: {stripped}",
                    crate::SCHEMA_VERSION
                ))
            }
            Some(_) => {}
        }
    }
}

/// Step 9: the tuning tables, from the resolved order only.
fn tuning(order: &[Placed]) -> Vec<String> {
    let mut lines = Vec::new();
    // unitScales: rules multiply, across packs too.
    let mut by_match: BTreeMap<&str, Vec<(&str, f64)>> = BTreeMap::new();
    for p in order {
        for (m, scale) in &p.pack.unit_scales {
            by_match
                .entry(m)
                .or_default()
                .push((&p.pack.mod_id, *scale));
        }
    }
    for (m, rules) in by_match.iter().filter(|(_, r)| r.len() > 1) {
        let factors: Vec<String> = rules.iter().map(|(id, f)| format!("{id} ×{f}")).collect();
        let product: f64 = rules.iter().map(|(_, f)| f).product();
        lines.push(format!(
            "TUNING: unitScales match={m}: {} → ×{}",
            factors.join(" × "),
            (product * 1e6).round() / 1e6
        ));
    }
    // eraGrid: each row belongs to the last pack that authors it.
    let mut rows: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in order {
        for era in p.pack.era_grid.keys() {
            rows.entry(era).or_default().push(&p.pack.mod_id);
        }
    }
    for (era, authors) in rows.iter().filter(|(_, a)| a.len() > 1) {
        let (last, earlier) = authors.split_last().expect("two or more");
        lines.push(format!(
            "TUNING: eraGrid row {era}: {last} wins over {}",
            earlier.join(", ")
        ));
    }
    // formationThresholds: the whole table belongs to the last pack that authors one.
    let authors: Vec<&str> = order
        .iter()
        .filter(|p| p.pack.formation_thresholds.is_some())
        .map(|p| p.pack.mod_id.as_str())
        .collect();
    if let Some((last, earlier)) = authors.split_last().filter(|(_, e)| !e.is_empty()) {
        lines.push(format!(
            "TUNING: formationThresholds: {last}'s table replaces {}",
            earlier.join(", ")
        ));
    }
    lines
}

/// Step 2: the first file keeps a modId; later ones are skipped.
fn unique(packs: Vec<Pack>, notes: &mut Vec<String>) -> Vec<Pack> {
    let mut first_file: BTreeMap<String, String> = BTreeMap::new();
    let mut kept: Vec<Pack> = Vec::new();
    for p in packs {
        match first_file.get(&p.mod_id) {
            Some(first) => notes.push(format!(
                "skipped {} ({}): duplicate modId, {first} keeps it",
                p.mod_id, p.file
            )),
            None => {
                first_file.insert(p.mod_id.clone(), p.file.clone());
                kept.push(p);
            }
        }
    }
    kept
}

/// Step 3: a pack whose dependency is not loaded is skipped, and so is every pack that
/// then lacks one: a skip passes along each dependency once, so this is linear.
fn with_dependencies(packs: Vec<Pack>, notes: &mut Vec<String>) -> Vec<Pack> {
    let index: BTreeMap<&str, usize> = packs
        .iter()
        .enumerate()
        .map(|(i, p)| (p.mod_id.as_str(), i))
        .collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); packs.len()];
    let mut gone: std::collections::VecDeque<(usize, String)> = Default::default();
    for (i, p) in packs.iter().enumerate() {
        if let Some(dep) = p
            .depends_on
            .iter()
            .find(|d| !index.contains_key(d.as_str()))
        {
            gone.push_back((i, dep.clone()));
        }
        for dep in &p.depends_on {
            if let Some(&d) = index.get(dep.as_str()) {
                dependents[d].push(i);
            }
        }
    }
    let mut skipped = vec![false; packs.len()];
    while let Some((i, missing)) = gone.pop_front() {
        if std::mem::replace(&mut skipped[i], true) {
            continue;
        }
        notes.push(format!(
            "skipped {} ({}): it depends on {missing}, which is not loaded",
            packs[i].mod_id, packs[i].file
        ));
        for &d in &dependents[i] {
            gone.push_back((d, packs[i].mod_id.clone()));
        }
    }
    packs
        .into_iter()
        .zip(skipped)
        .filter_map(|(p, skipped)| (!skipped).then_some(p))
        .collect()
}

/// Step 4: packs matched to a module (by GUID, else module name, else their own name) in
/// the module's load order; the rest after them, alphabetically.
fn module_order(packs: Vec<Pack>, modules: Option<&[Module]>) -> Vec<Placed> {
    let modules = modules.unwrap_or_default();
    let matched = |p: &Pack| -> Option<Module> {
        let by_guid = p
            .module_guid
            .as_ref()
            .and_then(|g| modules.iter().find(|m| m.guid.as_ref() == Some(g)));
        // A declared module name is exact; a folder or file name matches in any case.
        let by_name = match &p.module {
            Some(name) => modules.iter().find(|m| &m.name == name),
            None => modules
                .iter()
                .find(|m| m.name.eq_ignore_ascii_case(&p.name)),
        };
        by_guid.or(by_name).cloned()
    };
    let mut placed: Vec<Placed> = packs
        .into_iter()
        .map(|pack| Placed {
            module: matched(&pack),
            pack,
        })
        .collect();
    placed.sort_by(|a, b| match (&a.module, &b.module) {
        (Some(x), Some(y)) => x.index.cmp(&y.index),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.pack.mod_id.cmp(&b.pack.mod_id),
    });
    placed
}

/// Step 5: `dependsOn` and `loadAfter` layered on that order by a stable topological
/// sort; a cycle is broken loudly and its members keep the module order.
fn constrained(placed: Vec<Placed>, notes: &mut Vec<String>) -> Vec<Placed> {
    let index: BTreeMap<&str, usize> = placed
        .iter()
        .enumerate()
        .map(|(i, p)| (p.pack.mod_id.as_str(), i))
        .collect();
    let index_of = |id: &str| index.get(id).copied();
    let after: Vec<Vec<usize>> = placed
        .iter()
        .map(|p| {
            p.pack
                .depends_on
                .iter()
                .chain(&p.pack.load_after)
                .filter_map(|id| index_of(id))
                .collect()
        })
        .collect();
    let (order, cycles) = forge_resolve::order::stable_topological(&after);
    for cycle in cycles {
        let ids: Vec<&str> = cycle
            .iter()
            .map(|&i| placed[i].pack.mod_id.as_str())
            .collect();
        notes.push(format!(
            "cycle broken: {} (they keep the module order)",
            ids.join(", ")
        ));
    }
    let mut slots: Vec<Option<Placed>> = placed.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Steps 6 to 8: the models merged by pawn, in load order. A clash is an override when
/// either side declares it: the later pack replacing the owner, or the owner (loaded
/// first) having declared it replaces the later pack's entry. Otherwise the first loaded
/// keeps the pawn, as a conflict.
fn merge(r: &mut Resolution) {
    let declares = |pack: &Pack, other: &str, pawn: &str| {
        pack.overrides.iter().any(|(m, p)| m == other && p == pawn)
    };
    let packs: BTreeMap<&str, &Pack> = r
        .order
        .iter()
        .map(|p| (p.pack.mod_id.as_str(), &p.pack))
        .collect();
    for placed in &r.order {
        let pack = &placed.pack;
        for (i, model) in pack.models.iter().enumerate() {
            let Some(pawn) = model.get("pawnDescription").and_then(Value::as_str) else {
                r.notes.push(format!(
                    "{}: model {i} has no pawnDescription, so it has no pawn to ride and is not merged",
                    pack.mod_id
                ));
                continue;
            };
            let owner = r.models.get(pawn).map(|(o, _)| o.clone());
            if model.get("disabled") == Some(&Value::Bool(true)) {
                if let Some(owner) = owner.filter(|o| declares(pack, o, pawn)) {
                    r.disabled.push(format!(
                        "pawn={pawn} '{}' is disabled; '{owner}' keeps the pawn",
                        pack.mod_id
                    ));
                } else {
                    r.disabled
                        .push(format!("pawn={pawn} '{}' is disabled", pack.mod_id));
                }
                continue;
            }
            match owner {
                None => {}
                Some(owner) if declares(pack, &owner, pawn) => r
                    .overrides
                    .push(format!("pawn={pawn} '{}' replaces '{owner}'", pack.mod_id)),
                Some(owner)
                    if packs
                        .get(owner.as_str())
                        .is_some_and(|o| declares(o, &pack.mod_id, pawn)) =>
                {
                    r.overrides.push(format!(
                        "pawn={pawn} '{owner}' replaces '{}' (declared by '{owner}', which loads first)",
                        pack.mod_id
                    ));
                    continue;
                }
                Some(owner) => {
                    r.conflicts.push(format!(
                        "pawn={pawn} '{owner}' wins over '{}' (undeclared; declare it in overrides if the replacement is meant)",
                        pack.mod_id
                    ));
                    continue;
                }
            }
            r.models
                .insert(pawn.to_string(), (pack.mod_id.clone(), model.clone()));
        }
    }
}

impl Resolution {
    /// `haf_load_report.txt`, in the layout `docs/haf.md` gives.
    pub fn report(&self) -> String {
        let mut out = String::from("HAF load report  (regenerated every load)\n");
        out.push_str(&format!(
            "packs={}  models={}  conflicts={}  overrides applied={}  schema implemented={} (reads 1+)\n\n",
            self.order.len(),
            self.models.len(),
            self.conflicts.len(),
            self.overrides.len(),
            crate::SCHEMA_VERSION
        ));
        let ids: Vec<String> = self
            .order
            .iter()
            .map(|p| format!("[{}]", p.pack.mod_id))
            .collect();
        let counts: Vec<String> = self
            .order
            .iter()
            .map(|p| format!("models={}", p.pack.models.len()))
            .collect();
        let id_width = ids.iter().map(String::len).max().unwrap_or(0) + 2;
        let count_width = counts.iter().map(String::len).max().unwrap_or(0) + 2;
        for ((p, id), count) in self.order.iter().zip(&ids).zip(&counts) {
            let file = p.pack.file.rsplit('/').next().unwrap_or(&p.pack.file);
            out.push_str(&format!(
                "{id:<id_width$}schemaVersion={}  {count:<count_width$}file={file}\n",
                p.pack.schema_version.unwrap_or(0)
            ));
        }
        out.push_str("\nRESOLUTION:\n");
        let chain: Vec<String> = self
            .order
            .iter()
            .map(|p| match &p.module {
                Some(m) => format!("{} #{}→{}", p.pack.mod_id, m.index, m.name),
                None => format!("{} (no matching module — alphabetical)", p.pack.mod_id),
            })
            .collect();
        out.push_str(&format!("  HK module order: {}\n", chain.join(" → ")));
        for note in self.notes.iter().chain(&self.warnings) {
            out.push_str(&format!("  {note}\n"));
        }
        for (title, lines) in [
            ("OVERRIDES APPLIED", &self.overrides),
            ("CONFLICTS", &self.conflicts),
            ("DISABLED", &self.disabled),
        ] {
            if !lines.is_empty() {
                out.push_str(&format!("\n{title}:\n"));
                for l in lines {
                    let prefix = if title == "DISABLED" {
                        "DISABLED: "
                    } else {
                        ""
                    };
                    out.push_str(&format!("  {prefix}{l}\n"));
                }
            }
        }
        if !self.tuning.is_empty() {
            out.push('\n');
            for l in &self.tuning {
                out.push_str(&format!("{l}\n"));
            }
        }
        out
    }
}
