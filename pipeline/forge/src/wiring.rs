//! What a step kind's wiring sees while the planner lays out one pack, block or set: the
//! pack's sources, the steps planned so far, and the cook's options.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::graph::Input as GraphInput;
use crate::graph::{Input, StepId};
use crate::stat_cache::StatCache;
use crate::steps::kind::{Lands, Scope};
use crate::steps::render_params::RenderParams;
use engine::{Cooker, Names};

/// The options that decide which optional kinds a cook plans.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// Render previews, with these settings.
    pub render: Option<RenderParams>,
    /// Pack each set into an unsigned release archive.
    pub archive: bool,
    /// The extracted donors; `None` cooks without Unreal packages (not installable).
    pub donors: Option<crate::donors::DonorFiles>,
}

/// One set of a pack: the full pack, or the blocks of an `--only` build.
#[derive(Debug, Clone)]
pub struct SetSpec {
    /// Its folder name (see `layout::set_name`).
    pub name: String,
    pub blocks: Vec<String>,
    /// A reduced `--only` build, which must never be published as the full set.
    pub diagnostic: bool,
}

/// The steps planned so far for one pack and set, by kind name.
#[derive(Debug, Clone, Default)]
pub struct Planned {
    pub pack: BTreeMap<&'static str, StepId>,
    pub blocks: BTreeMap<String, BTreeMap<&'static str, StepId>>,
    /// Each group's steps, in the set's order (none in a set too small to group).
    pub groups: Vec<BTreeMap<&'static str, StepId>>,
    pub set: BTreeMap<&'static str, StepId>,
}

impl Planned {
    /// The step of `kind` for `block` (ignored unless the kind is per block).
    pub fn step(&self, kind: &StepKind, block: Option<&str>) -> Option<StepId> {
        match kind.scope {
            // A map's planned steps sit where a pack's do: they are the map's own.
            Scope::Pack | Scope::Map => self.pack.get(kind.name).copied(),
            Scope::Block => self.blocks.get(block?)?.get(kind.name).copied(),
            // A group is asked for by its place: `Wiring::groups`.
            Scope::Group => None,
            Scope::Set => self.set.get(kind.name).copied(),
        }
    }
}

/// A block output that lands in the set folder's `cooked/<block>/`.
pub struct Shipped {
    pub block: String,
    pub step: StepId,
    pub output: String,
    /// Its file name in `cooked/<block>/`.
    pub file: String,
    /// An Unreal package of the pack's container ([`Lands::Package`]).
    pub package: bool,
}

/// Every block output of a set that lands in `cooked/<block>/`, in registry order.
pub fn shipped(
    registry: &[&'static StepKind],
    planned: &Planned,
    blocks: &[String],
) -> Vec<Shipped> {
    let mut out = Vec::new();
    for block in blocks {
        // Found once per block, not once per kind: planning asks this of every block.
        let steps = planned.blocks.get(block);
        for kind in registry {
            let step = match kind.scope {
                Scope::Block => steps.and_then(|s| s.get(kind.name)).copied(),
                _ => planned.step(kind, None),
            };
            let Some(step) = step else {
                continue;
            };
            match kind.lands {
                Lands::PerBlock(place) => {
                    let (output, file) = place(block);
                    out.push(Shipped {
                        block: block.clone(),
                        step,
                        output,
                        file: file.to_string(),
                        package: false,
                    });
                }
                // Named only once cooked: the set folder takes them as they come
                // (`SetPlan::folders`), and an assembly wires the ones it reads itself.
                lands if lands.in_cooked() && matches!(kind.outputs, Names::Dynamic) => {}
                lands if lands.in_cooked() => {
                    out.extend(kind.fixed_outputs(block).into_iter().map(|o| Shipped {
                        block: block.clone(),
                        step,
                        file: o.clone(),
                        output: o,
                        package: matches!(lands, Lands::Package),
                    }))
                }
                _ => {}
            }
        }
    }
    out
}

/// The pack's source folder, listed at most once per cook.
pub struct PackSources<'a> {
    pub pack: &'a PackSource,
    /// The pack's id and folder, as every step of the pack shares them.
    pub id: std::sync::Arc<str>,
    pub dir: std::sync::Arc<std::path::Path>,
    pub stat_cache: &'a StatCache,
    models: OnceLock<HashSet<String>>,
    /// Each block's surfaces `(slot, profile)` as the manifest declares them, gathered
    /// once per cook: every block's steps ask for their own.
    surfaces: OnceLock<HashMap<String, Vec<(String, String)>>>,
}

impl<'a> PackSources<'a> {
    pub fn new(pack: &'a PackSource, stat_cache: &'a StatCache) -> Self {
        PackSources {
            pack,
            id: pack.id.as_str().into(),
            dir: pack.dir.as_path().into(),
            stat_cache,
            models: OnceLock::new(),
            surfaces: OnceLock::new(),
        }
    }

    /// The pack's surfaces by block, made by `gather` the first time they are asked for.
    pub fn surfaces(
        &self,
        gather: impl FnOnce() -> HashMap<String, Vec<(String, String)>>,
    ) -> &HashMap<String, Vec<(String, String)>> {
        self.surfaces.get_or_init(gather)
    }
}

pub struct Wiring<'a> {
    pub sources: &'a PackSources<'a>,
    pub options: &'a PlanOptions,
    pub registry: &'a [&'static StepKind],
    /// `None` while the pack's validation is planned.
    pub set: Option<&'a SetSpec>,
    /// The block, for a per-block kind.
    pub block: Option<&'a str>,
    /// The group's blocks, for a per-group kind.
    pub group: Option<&'a [String]>,
    pub planned: &'a Planned,
    /// For a map kind: every cooked pack's id and its planned set (empty otherwise).
    pub cooked: &'a [(String, Planned)],
}

impl Wiring<'_> {
    pub fn pack_id(&self) -> &str {
        &self.sources.pack.id
    }

    /// The same wiring, for `block` of the set.
    pub fn for_block<'b>(&'b self, block: &'b str) -> Wiring<'b> {
        Wiring {
            block: Some(block),
            ..*self
        }
    }

    pub fn block(&self) -> &str {
        self.block.expect("a per-block kind is wired for a block")
    }

    pub fn set(&self) -> &SetSpec {
        self.set.expect("a set kind is wired for a set")
    }

    /// The blocks of the group a per-group kind is wired for.
    pub fn group(&self) -> &[String] {
        self.group.expect("a group kind is wired for a group")
    }

    /// Each planned group's step of `kind`, as inputs `group/<n>/<output>`: `None` when
    /// the set has no groups.
    pub fn groups(&self, kind: &StepKind, output: &str) -> Option<Vec<Input>> {
        let groups = &self.planned.groups;
        (!groups.is_empty()).then(|| {
            groups
                .iter()
                .enumerate()
                .map(|(n, steps)| Input::Upstream {
                    name: group_input(n, output),
                    step: steps[kind.name],
                    output: output.to_string(),
                })
                .collect()
        })
    }

    /// A source file, by its path relative to the pack folder.
    pub fn source(&self, rel: &str) -> Input {
        Input::Source {
            name: rel.to_string(),
            path: self.sources.pack.dir.join(rel),
        }
    }

    /// Whether an optional source file is there.
    pub fn has_source(&self, rel: &str) -> bool {
        self.sources.pack.dir.join(rel).is_file()
    }

    /// The file names in `source/models/`, read once per pack rather than stat'ed per
    /// block: a no-op cook's time is mostly file-system calls.
    pub fn models(&self) -> &HashSet<String> {
        self.sources.models.get_or_init(|| {
            std::fs::read_dir(self.sources.pack.dir.join("source/models"))
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    pub fn stat_cache(&self) -> &StatCache {
        self.sources.stat_cache
    }

    /// `output` of this pack's, block's or set's step of `kind`, as input `name`.
    pub fn upstream(
        &self,
        name: impl Into<String>,
        kind: &StepKind,
        output: impl Into<String>,
    ) -> Input {
        self.upstream_of(self.block, name, kind, output)
    }

    /// `output` of a cooked pack's step of `kind` (for `block`, if per block), as input
    /// `name`; `None` when that pack is not in this cook. For map kinds.
    pub fn upstream_of_pack(
        &self,
        pack: &str,
        block: Option<&str>,
        name: impl Into<String>,
        kind: &StepKind,
        output: impl Into<String>,
    ) -> Option<Input> {
        let planned = &self.cooked.iter().find(|(id, _)| id == pack)?.1;
        Some(Input::Upstream {
            name: name.into(),
            step: planned.step(kind, block)?,
            output: output.into(),
        })
    }

    /// `output` of the step of `kind` for another block of the set, as input `name`.
    pub fn upstream_of(
        &self,
        block: Option<&str>,
        name: impl Into<String>,
        kind: &StepKind,
        output: impl Into<String>,
    ) -> Input {
        let step = self
            .planned
            .step(kind, block)
            .unwrap_or_else(|| panic!("{} is wired before {:?} was planned", kind.name, block));
        Input::Upstream {
            name: name.into(),
            step,
            output: output.into(),
        }
    }

    /// Every block output of the set that lands in `cooked/<block>/`.
    pub fn shipped(&self) -> Vec<Shipped> {
        shipped(self.registry, self.planned, &self.set().blocks)
    }
}

/// The input a group's output is known by: `group/<n>/<output>`.
pub fn group_input(n: usize, output: &str) -> String {
    format!("group/{n}/{output}")
}

/// The parameters and inputs a kind's wiring gives one of its steps.
pub struct Wired {
    /// Canonical parameter text, part of the key.
    pub params: String,
    pub inputs: Vec<GraphInput>,
}

impl Wired {
    pub fn inputs(inputs: Vec<GraphInput>) -> Option<Wired> {
        Some(Wired {
            params: String::new(),
            inputs,
        })
    }
}

/// A kind as the Forge layer plans it: the engine's cooker (name, version, outputs, the
/// cook itself), and how often its steps appear, where their outputs land and how they
/// are wired.
pub struct StepKind {
    pub cooker: Cooker,
    pub scope: Scope,
    pub lands: Lands,
    /// The step's parameters and inputs, or `None` when this cook has no such step
    /// (previews when not rendering, the archive without `--archive`).
    pub wire: fn(&Wiring) -> Option<Wired>,
}

/// A kind is its cooker to everything that runs or names it.
impl std::ops::Deref for StepKind {
    type Target = Cooker;
    fn deref(&self) -> &Cooker {
        &self.cooker
    }
}

impl std::fmt::Debug for StepKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cooker.name)
    }
}

/// A pack (or map) to build: its id and its folder.
#[derive(Debug, Clone)]
pub struct PackSource {
    pub id: String,
    pub dir: PathBuf,
}
