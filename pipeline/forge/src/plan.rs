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

use rayon::prelude::*;

use crate::execute::{Finished, Output};
use crate::graph::{Graph, Input, Step, StepId};
use crate::layout;
use crate::steps::{Lands, Names, Scope, StepKind};
use crate::wiring::{shipped, PackSources, PlanOptions, Planned, SetSpec, Wiring};

/// One set of one pack, planned.
pub struct SetPlan {
    /// The pack's index in the configuration.
    pub pack: usize,
    pub spec: SetSpec,
    pub planned: Planned,
}

/// One map, planned.
pub struct MapPlan {
    /// The map's index in the configuration.
    pub map: usize,
    pub planned: Planned,
}

impl MapPlan {
    /// The map's folder, `<out>/maps/<map>/`, with every map kind's outputs.
    pub fn folder(
        &self,
        registry: &[&'static StepKind],
        results: &[Finished],
        out: &std::path::Path,
        map: &str,
    ) -> Folder {
        let mut files = BTreeMap::new();
        for kind in registry.iter().filter(|k| matches!(k.lands, Lands::Map)) {
            if let Some(step) = self.planned.pack.get(kind.name) {
                for o in results[*step].outputs.iter() {
                    files.insert(o.name.clone(), o.clone());
                }
            }
        }
        (layout::map_dir(out, map), files)
    }
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

    /// Stage two, after the sets: each map's steps, wired to the packs' planned sets.
    pub fn plan_maps(
        &self,
        graph: &mut Graph,
        maps: &[PackSources],
        sets: &[SetPlan],
    ) -> Vec<MapPlan> {
        let cooked: Vec<(String, Planned)> = sets
            .iter()
            .map(|s| (self.sources[s.pack].pack.id.clone(), s.planned.clone()))
            .collect();
        let mut plans = Vec::new();
        graph
            .steps
            .reserve(maps.len() * self.kinds(Scope::Map).count());
        for (map, sources) in maps.iter().enumerate() {
            let mut planned = Planned::default();
            for kind in self.kinds(Scope::Map) {
                let id = format!("{}/{}", sources.pack.id, kind.name);
                let w = Wiring {
                    cooked: &cooked,
                    ..self.wiring(sources, None, None, &planned)
                };
                if let Some(step) = add(graph, kind, &w, id) {
                    planned.pack.insert(kind.name, step);
                }
            }
            // A map none of whose steps this cook plans (a `--pack` cook of another pack)
            // is not this cook's: its folder is left as the last cook that checked it left it.
            if !planned.pack.is_empty() {
                plans.push(MapPlan { map, planned });
            }
        }
        plans
    }

    fn plan_set(
        &self,
        graph: &mut Graph,
        sources: &PackSources,
        set: &SetSpec,
        mut planned: Planned,
    ) -> Planned {
        // Each block's steps read only the pack's steps and their own, so the blocks are
        // wired on the pool's threads; their ids are given in set order afterwards, and the
        // graph is the same on any thread count.
        let wired: Vec<Vec<BlockStep>> = set
            .blocks
            .par_iter()
            .map(|block| self.wire_block(sources, set, block, &planned.pack))
            .collect();
        // Grown once, with room for the set's own steps: doubling a catalog's steps holds
        // both copies while it moves them, and keeps twice the room after.
        let set_kinds = self.kinds(Scope::Set).count();
        let group_kinds = self.kinds(Scope::Group).count() * groups(&set.blocks).count();
        graph
            .steps
            .reserve(wired.iter().map(Vec::len).sum::<usize>() + group_kinds + set_kinds);
        for (block, steps) in set.blocks.iter().zip(wired) {
            let first = graph.steps.len();
            let mut own = BTreeMap::new();
            let name: Arc<str> = block.as_str().into();
            for BlockStep {
                kind,
                id,
                mut wired,
            } in steps
            {
                for input in &mut wired.inputs {
                    if let Input::Upstream { step, .. } = input {
                        if let Some(local) = step.checked_sub(PROVISIONAL) {
                            *step = first + local;
                        }
                    }
                }
                let step = graph.add(new_step(sources, kind, Some(name.clone()), id, wired));
                own.insert(kind.name, step);
            }
            planned.blocks.insert(block.clone(), own);
        }
        let pack = &sources.pack.id;
        for (n, members) in groups(&set.blocks).enumerate() {
            let mut own = BTreeMap::new();
            for kind in self.kinds(Scope::Group) {
                let id = format!("{pack}/{}/{}.{n}", kind.name, set.name);
                let w = Wiring {
                    group: Some(members),
                    ..self.wiring(sources, Some(set), None, &planned)
                };
                if let Some(step) = add(graph, kind, &w, id) {
                    own.insert(kind.name, step);
                }
            }
            planned.groups.push(own);
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

    /// One block's steps, wired in registry order against the pack's steps; each names
    /// the block's earlier steps by `PROVISIONAL` plus its place among them.
    fn wire_block(
        &self,
        sources: &PackSources,
        set: &SetSpec,
        block: &str,
        pack_steps: &BTreeMap<&'static str, StepId>,
    ) -> Vec<BlockStep> {
        let mut local = Planned {
            pack: pack_steps.clone(),
            ..Planned::default()
        };
        local.blocks.insert(block.to_string(), BTreeMap::new());
        let mut steps = Vec::new();
        for kind in self.kinds(Scope::Block) {
            let wired = (kind.wire)(&self.wiring(sources, Some(set), Some(block), &local));
            let Some(wired) = wired else {
                continue;
            };
            let own = local.blocks.get_mut(block).expect("inserted above");
            own.insert(kind.name, PROVISIONAL + steps.len());
            steps.push(BlockStep {
                kind,
                id: format!("{}/{}/{block}", sources.pack.id, kind.name),
                wired,
            });
        }
        steps
    }

    fn kinds(&self, scope: Scope) -> impl Iterator<Item = &'static StepKind> + '_ {
        self.registry
            .iter()
            .copied()
            .filter(move |k| k.scope == scope)
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
            group: None,
            planned,
            cooked: &[],
        }
    }
}

/// How many blocks a group holds.
pub const GROUP: usize = 16;
/// The most blocks a set has without groups. Reading a group costs its set's steps one
/// file where they read [`GROUP`], but an edit then waits for its group's step too (0.35 ms
/// to run, and it waits on its group's blocks): worth it only where each set step reads
/// many files. Measured on one-block edits: 0.4 ms slower with groups at 66 blocks, 0.6 ms
/// faster at 80, 2.0–2.5 ms faster at 256 (where each set step's reading went from 1.6 ms
/// to 0.1).
pub const GROUPED_ABOVE: usize = 64;

/// A set's groups of blocks, in its order: runs of [`GROUP`], in a set of more than
/// [`GROUPED_ABOVE`] blocks; none in a smaller one.
pub fn groups(blocks: &[String]) -> impl Iterator<Item = &[String]> {
    let grouped = blocks.len() > GROUPED_ABOVE;
    blocks.chunks(GROUP).filter(move |_| grouped)
}

/// Where a block's own steps are numbered while it is wired apart from the graph: far
/// above any real step.
const PROVISIONAL: StepId = StepId::MAX / 2;

/// A block's step, wired but not yet in the graph.
struct BlockStep {
    kind: &'static StepKind,
    id: String,
    wired: crate::wiring::Wired,
}

fn add(graph: &mut Graph, kind: &'static StepKind, w: &Wiring, id: String) -> Option<StepId> {
    let wired = (kind.wire)(w)?;
    Some(graph.add(new_step(w.sources, kind, w.block.map(Arc::from), id, wired)))
}

fn new_step(
    sources: &PackSources,
    kind: &'static StepKind,
    block: Option<Arc<str>>,
    id: String,
    wired: crate::wiring::Wired,
) -> Step {
    Step {
        id,
        pack: sources.id.clone(),
        kind,
        block,
        params: wired.params,
        inputs: wired.inputs,
        source_dir: sources.dir.clone(),
    }
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
        // Block by block in parallel (on the caller's pool), then in set order: the later
        // of two files at one path wins, as when each was inserted in turn.
        let shipped_files: Vec<Vec<(String, Arc<Output>)>> = self
            .spec
            .blocks
            .par_iter()
            .map(|block| {
                let own = [block.clone()];
                shipped(registry, &self.planned, &own)
                    .into_iter()
                    .filter_map(|s| {
                        let o = outputs(s.step).find(|o| o.name == s.output)?;
                        Some((layout::cooked_file(&s.block, &s.file), o.clone()))
                    })
                    .collect()
            })
            .collect();
        let mut set: BTreeMap<String, Arc<Output>> = shipped_files.into_iter().flatten().collect();
        for kind in registry
            .iter()
            .filter(|k| k.lands.in_cooked() && matches!(k.outputs, Names::Dynamic))
        {
            for (block, steps) in &self.planned.blocks {
                for o in steps.get(kind.name).into_iter().flat_map(|&s| outputs(s)) {
                    set.insert(layout::cooked_file(block, &o.name), o.clone());
                }
            }
        }
        let mut renders = BTreeMap::new();
        for kind in registry {
            let folder = match kind.lands {
                Lands::SetRoot => &mut set,
                Lands::Renders => &mut renders,
                Lands::Nowhere
                | Lands::PerBlock(_)
                | Lands::Cooked
                | Lands::Package
                | Lands::Map => continue,
            };
            let steps: Vec<StepId> = match kind.scope {
                Scope::Set => self
                    .planned
                    .set
                    .get(kind.name)
                    .copied()
                    .into_iter()
                    .collect(),
                Scope::Block => self
                    .planned
                    .blocks
                    .values()
                    .filter_map(|b| b.get(kind.name).copied())
                    .collect(),
                Scope::Group => self
                    .planned
                    .groups
                    .iter()
                    .filter_map(|g| g.get(kind.name).copied())
                    .collect(),
                Scope::Pack | Scope::Map => Vec::new(),
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

/// Each pack's blocks, from its catalog step's output names (no blob is read).
pub fn catalogs(packs: &[Planned], results: &[Finished]) -> Vec<Vec<String>> {
    packs
        .iter()
        .map(|planned| {
            planned
                .pack
                .get(crate::steps::catalog::KIND.name)
                .map(|&step| {
                    crate::steps::catalog::blocks(
                        results[step].outputs.iter().map(|o| o.name.as_str()),
                    )
                })
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Input;
    use crate::stat_cache::StatCache;
    use crate::steps::{mesh, REGISTRY};
    use crate::wiring::PackSource;
    use crate::wiring::Wired;
    use engine::{Cooker, Names};

    /// A kind a contributor might add: a level of detail made from the static mesh. It is
    /// this one declaration plus a registry line; nothing else in the pipeline changes.
    static LOD: StepKind = StepKind {
        cooker: Cooker {
            name: "lod",
            version: 1,
            outputs: Names::Fixed(|_| vec!["lod.fmsh".to_string()]),
            runs_under_check: false,
            splices: None,
            cook: |_, inputs| {
                Ok(vec![(
                    "lod.fmsh".into(),
                    inputs["static_mesh.fmsh"].to_vec(),
                )])
            },
        },
        scope: Scope::Block,
        lands: Lands::Cooked,
        wire: |w| Wired::inputs(vec![mesh::of_block(w)]),
    };

    #[test]
    fn a_registered_kind_is_planned_per_block_and_assembled_into_the_set() {
        let mut registry = REGISTRY.to_vec();
        let after_mesh = registry.iter().position(|k| k.name == "mesh").unwrap() + 1;
        registry.insert(after_mesh, &LOD);
        let dir = tempfile::tempdir().unwrap();
        let stat_cache = StatCache::open(dir.path().join("stat-cache.json"));
        let pack = PackSource {
            id: "foundry".into(),
            dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../forge-packs/foundry"),
        };
        let sources = [PackSources::new(&pack, &stat_cache)];
        let planner = Planner {
            registry: &registry,
            sources: &sources,
            options: &PlanOptions::default(),
        };
        let mut graph = Graph::default();
        let packs = planner.plan_packs(&mut graph);
        let blocks = vec!["floor_1x1".to_string(), "wall_door".to_string()];
        let sets = planner
            .plan_sets(&mut graph, &packs, &[blocks], &[])
            .unwrap();

        let set = &sets[0].planned;
        for block in ["floor_1x1", "wall_door"] {
            let lod = &graph.steps[set.blocks[block]["lod"]];
            assert_eq!(lod.id, format!("foundry/lod/{block}"));
            assert_eq!(lod.deps().collect::<Vec<_>>(), [set.blocks[block]["mesh"]]);
        }
        // Each block's facts (which the set's documents read) hash the new file for the
        // inventory.
        let lod_inputs: Vec<&str> = ["floor_1x1", "wall_door"]
            .iter()
            .flat_map(|block| &graph.steps[set.blocks[*block]["block_facts"]].inputs)
            .filter_map(|i| match i {
                Input::Upstream { name, .. } if name.ends_with("/lod.fmsh") => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(lod_inputs, ["floor_1x1/lod.fmsh", "wall_door/lod.fmsh"]);
        let documents = &graph.steps[set.set["documents"]];
        assert!(documents
            .inputs
            .iter()
            .any(|i| i.name() == "floor_1x1/facts/facts.json"));
        // Previews and the archive were not asked for, so they are not planned.
        assert!(!set.set.contains_key("archive") && !set.set.contains_key("sheet"));
    }

    #[test]
    fn an_only_block_that_no_pack_has_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let stat_cache = StatCache::open(dir.path().join("stat-cache.json"));
        let pack = PackSource {
            id: "foundry".into(),
            dir: dir.path().to_path_buf(),
        };
        let sources = [PackSources::new(&pack, &stat_cache)];
        let planner = Planner {
            registry: REGISTRY,
            sources: &sources,
            options: &PlanOptions::default(),
        };
        let mut graph = Graph::default();
        let packs = planner.plan_packs(&mut graph);
        let only = ["floor_1x1".to_string(), "nope".to_string()];
        let Err(UnknownBlocks(names)) =
            planner.plan_sets(&mut graph, &packs, &[vec!["floor_1x1".into()]], &only)
        else {
            panic!("an unknown block must be refused");
        };
        assert_eq!(names, ["nope"]);
    }
}
