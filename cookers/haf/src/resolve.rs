//! Steps 2 to 8 of the seed's resolution, and the load report.

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
}

/// Resolves `packs` (in discovery order) against the game's module list, if it was read.
pub fn resolve(packs: Vec<Pack>, modules: Option<&[Module]>) -> Resolution {
    let mut r = Resolution::default();
    let packs = unique(packs, &mut r.notes);
    let packs = with_dependencies(packs, &mut r.notes);
    let placed = module_order(packs, modules);
    r.order = constrained(placed, &mut r.notes);
    for p in &r.order {
        if p.pack.schema_version.is_none() {
            r.notes
                .push(format!("{}: unversioned (no schemaVersion)", p.pack.mod_id));
        }
    }
    merge(&mut r);
    r
}

/// Step 2: the first file keeps a modId; later ones are skipped.
fn unique(packs: Vec<Pack>, notes: &mut Vec<String>) -> Vec<Pack> {
    let mut kept: Vec<Pack> = Vec::new();
    for p in packs {
        match kept.iter().find(|k| k.mod_id == p.mod_id) {
            Some(first) => notes.push(format!(
                "skipped {} ({}): duplicate modId, {} keeps it",
                p.mod_id, p.file, first.file
            )),
            None => kept.push(p),
        }
    }
    kept
}

/// Step 3: a pack whose dependency is not loaded is skipped, until nothing changes.
fn with_dependencies(mut packs: Vec<Pack>, notes: &mut Vec<String>) -> Vec<Pack> {
    loop {
        let missing = packs.iter().enumerate().find_map(|(i, p)| {
            let gone = p
                .depends_on
                .iter()
                .find(|d| !packs.iter().any(|q| &q.mod_id == *d))?;
            Some((i, gone.clone()))
        });
        let Some((i, gone)) = missing else {
            return packs;
        };
        let p = packs.remove(i);
        notes.push(format!(
            "skipped {} ({}): it depends on {gone}, which is not loaded",
            p.mod_id, p.file
        ));
    }
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
    let index_of = |id: &str| placed.iter().position(|p| p.pack.mod_id == id);
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

/// Steps 6 to 8: the models merged by pawn, in load order.
fn merge(r: &mut Resolution) {
    for placed in &r.order {
        let pack = &placed.pack;
        for model in &pack.models {
            let Some(pawn) = model.get("pawnDescription").and_then(Value::as_str) else {
                continue;
            };
            let owner = r.models.get(pawn).map(|(o, _)| o.clone());
            let declared =
                |owner: &str| pack.overrides.iter().any(|(m, p)| m == owner && p == pawn);
            if model.get("disabled") == Some(&Value::Bool(true)) {
                if let Some(owner) = owner.filter(|o| declared(o)) {
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
                Some(owner) if declared(&owner) => r
                    .overrides
                    .push(format!("pawn={pawn} '{}' replaces '{owner}'", pack.mod_id)),
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
    /// `haf_load_report.txt`, in the seed's layout.
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
        for note in &self.notes {
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
        out
    }
}
