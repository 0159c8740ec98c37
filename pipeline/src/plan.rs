//! Lays out a cook's graph from the step-kind registry, and says which outputs each set
//! folder gets.
//!
//! The graph grows in two stages. The first plans every pack's pack-scope kinds (the
//! contract's validation), so contract errors arrive before any cooking starts; their
//! outputs name the blocks. The second plans, for each set, every per-block kind for
//! each block and then every set kind, each in registry order.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::execute::{Finished, Output};
use crate::graph::{Graph, Step, StepId};
use crate::layout;
use crate::steps::{Lands, Scope, StepKind};
use crate::wiring::{shipped, PackSources, PlanOptions, Planned, SetSpec, Wiring};

/// One set of one pack, planned.
pub struct SetPlan {
    /// The pack's index in the configuration.
    pub pack: usize,
    pub spec: SetSpec,
    pub planned: Planned,
}

/// `--only` named blocks that no selected pack has.
#[derive(Debug)]
pub struct UnknownBlocks(pub Vec<String>);

pub struct Planner<'a> {
    pub registry: &'a [&'static StepKind],
    pub sources: &'a [PackSources<'a>],
    pub options: &'a PlanOptions,
}

impl Planner<'_> {
    /// Stage one: each pack's pack-scope steps.
    pub fn plan_packs(&self, graph: &mut Graph) -> Vec<Planned> {
        self.sources
            .iter()
            .map(|sources| {
                let mut planned = Planned::default();
                for kind in self.kinds(Scope::Pack) {
                    let id = format!("{}/{}", sources.pack.id, kind.name);
                    let w = self.wiring(sources, None, None, &planned);
                    if let Some(step) = add(graph, kind, &w, id) {
                        planned.pack.insert(kind.name, step);
                    }
                }
                planned
            })
            .collect()
    }

    /// Stage two: each pack's set, from its catalog's blocks (`catalogs`, by pack), cut
    /// down to `only` when it is given.
    pub fn plan_sets(
        &self,
        graph: &mut Graph,
        packs: &[Planned],
        catalogs: &[Vec<String>],
        only: &[String],
    ) -> Result<Vec<SetPlan>, UnknownBlocks> {
        let mut sets = Vec::new();
        let mut unmatched: Vec<&String> = only.iter().collect();
        for (pack, (sources, catalog)) in self.sources.iter().zip(catalogs).enumerate() {
            let blocks: Vec<String> = catalog
                .iter()
                .filter(|b| only.is_empty() || only.contains(b))
                .cloned()
                .collect();
            unmatched.retain(|o| !blocks.contains(o));
            if blocks.is_empty() {
                continue;
            }
            let spec = SetSpec {
                name: layout::set_name(only),
                blocks,
                diagnostic: !only.is_empty(),
            };
            let planned = self.plan_set(graph, sources, &spec, packs[pack].clone());
            sets.push(SetPlan {
                pack,
                spec,
                planned,
            });
        }
        if unmatched.is_empty() {
            Ok(sets)
        } else {
            Err(UnknownBlocks(unmatched.into_iter().cloned().collect()))
        }
    }

    fn plan_set(
        &self,
        graph: &mut Graph,
        sources: &PackSources,
        set: &SetSpec,
        mut planned: Planned,
    ) -> Planned {
        let pack = &sources.pack.id;
        for block in &set.blocks {
            planned.blocks.insert(block.clone(), BTreeMap::new());
            for kind in self.kinds(Scope::Block) {
                let id = format!("{pack}/{}/{block}", kind.name);
                let w = self.wiring(sources, Some(set), Some(block), &planned);
                if let Some(step) = add(graph, kind, &w, id) {
                    planned.blocks.get_mut(block).expect("inserted").insert(kind.name, step);
                }
            }
        }
        for kind in self.kinds(Scope::Set) {
            let id = format!("{pack}/{}/{}", kind.name, set.name);
            let w = self.wiring(sources, Some(set), None, &planned);
            if let Some(step) = add(graph, kind, &w, id) {
                planned.set.insert(kind.name, step);
            }
        }
        planned
    }

    fn kinds(&self, scope: Scope) -> impl Iterator<Item = &'static StepKind> + '_ {
        self.registry.iter().copied().filter(move |k| k.scope == scope)
    }

    fn wiring<'w>(
        &'w self,
        sources: &'w PackSources<'w>,
        set: Option<&'w SetSpec>,
        block: Option<&'w str>,
        planned: &'w Planned,
    ) -> Wiring<'w> {
        Wiring {
            sources,
            options: self.options,
            registry: self.registry,
            set,
            block,
            planned,
        }
    }
}

fn add(graph: &mut Graph, kind: &'static StepKind, w: &Wiring, id: String) -> Option<StepId> {
    let wired = (kind.wire)(w)?;
    Some(graph.add(Step {
        id,
        pack: w.pack_id().to_string(),
        kind,
        block: w.block.map(str::to_string),
        params: wired.params,
        inputs: wired.inputs,
    }))
}

/// A folder to materialize: its path, and each file's path in it with its output.
pub type Folder = (PathBuf, BTreeMap<String, Arc<Output>>);

impl SetPlan {
    /// The set folder and, when previews were rendered, the set's render folder.
    pub fn folders(
        &self,
        registry: &[&'static StepKind],
        results: &[Finished],
        out: &std::path::Path,
        pack: &str,
    ) -> Vec<Folder> {
        let outputs = |step: StepId| results[step].outputs.iter();
        let mut set = BTreeMap::new();
        for s in shipped(registry, &self.planned, &self.spec.blocks) {
            if let Some(o) = outputs(s.step).find(|o| o.name == s.output) {
                set.insert(layout::cooked_file(&s.block, &s.file), o.clone());
            }
        }
        let mut renders = BTreeMap::new();
        for kind in registry {
            let folder = match kind.lands {
                Lands::SetRoot => &mut set,
                Lands::Renders => &mut renders,
                Lands::Nowhere | Lands::PerBlock(_) | Lands::Cooked(_) => continue,
            };
            let steps: Vec<StepId> = match kind.scope {
                Scope::Set => self.planned.set.get(kind.name).copied().into_iter().collect(),
                Scope::Block => self
                    .planned
                    .blocks
                    .values()
                    .filter_map(|b| b.get(kind.name).copied())
                    .collect(),
                Scope::Pack => Vec::new(),
            };
            for o in steps.into_iter().flat_map(outputs) {
                folder.insert(o.name.clone(), o.clone());
            }
        }
        let mut folders = vec![(layout::set_dir(out, pack, &self.spec.name), set)];
        if !renders.is_empty() {
            folders.push((layout::render_dir(out, pack, &self.spec.name), renders));
        }
        folders
    }
}
