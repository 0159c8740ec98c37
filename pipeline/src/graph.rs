//! The build graph: steps, what each one reads, and which steps it waits for.
//!
//! Steps are stored densely and named by index ([`StepId`]); a step's dependencies always
//! have smaller indices, so the list is already in topological order.

use std::path::PathBuf;

pub type StepId = usize;

/// What a step does. Each kind is one pure cooker with an id and a version (see `steps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Validate `mjolnir.json`; split the catalog into one entry per block.
    Catalog,
    /// Validate `geometry.json` against the catalog; split it per block.
    Geometry,
    /// Import a block's glTF model into pack space.
    Import,
    /// Cook a block's static mesh: Unreal units, re-centred, namespaced.
    Mesh,
    /// Cook a block's actor: mesh placement, light and utilities.
    Actor,
    /// Cook a block's collision model: one BSP per hull.
    Collision,
    /// Cook MOPP code over a block's collision surfaces.
    Mopp,
    /// Cook a block's Havok convex polyhedra.
    Polyhedra,
    /// Ray-check a block's cooked collision and mesh against what it declares.
    Checks,
    /// Write a block's crate, model, physics_model and collision_model tags.
    Tags,
    /// Render a block's preview.
    Render,
    /// Lay a set's previews out on a contact sheet.
    Sheet,
    /// Pack a set into an unsigned release archive, with the catalog the Hub would publish.
    Archive,
    /// Assemble a set (the full pack, or an `--only` subset): its manifest and inventory.
    Assemble,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Catalog => "catalog",
            Kind::Geometry => "geometry",
            Kind::Import => "import",
            Kind::Mesh => "mesh",
            Kind::Actor => "actor",
            Kind::Collision => "collision",
            Kind::Mopp => "mopp",
            Kind::Polyhedra => "polyhedra",
            Kind::Checks => "checks",
            Kind::Tags => "tags",
            Kind::Render => "render",
            Kind::Sheet => "sheet",
            Kind::Assemble => "assemble",
            Kind::Archive => "archive",
        }
    }
}

#[derive(Debug, Clone)]
pub enum Input {
    /// A source file. `name` is its path relative to the pack folder: stable across
    /// checkouts, and what the key and `--explain` use.
    Source { name: String, path: PathBuf },
    /// One output of an earlier step.
    Upstream {
        name: String,
        step: StepId,
        output: String,
    },
}

#[derive(Debug, Clone)]
pub struct Step {
    /// Unique and stable, e.g. `foundry/import/floor_2x2`.
    pub id: String,
    pub pack: String,
    pub kind: Kind,
    /// The block this step is about, for per-block steps.
    pub block: Option<String>,
    /// Canonical parameter text, part of the key.
    pub params: String,
    pub inputs: Vec<Input>,
}

impl Step {
    /// Everything besides inputs that the step's cooker may see: the pack, the block and
    /// the parameters. All of it goes into the key, since a cooker that used an unhashed
    /// value could return another block's cached output (two packs with an identical
    /// floor would share one mesh asset path).
    pub fn key_params(&self) -> String {
        format!(
            "pack={}\nblock={}\n{}",
            self.pack,
            self.block.as_deref().unwrap_or(""),
            self.params
        )
    }

    pub fn deps(&self) -> impl Iterator<Item = StepId> + '_ {
        self.inputs.iter().filter_map(|i| match i {
            Input::Upstream { step, .. } => Some(*step),
            Input::Source { .. } => None,
        })
    }
}

#[derive(Debug, Default)]
pub struct Graph {
    pub steps: Vec<Step>,
}

impl Graph {
    pub fn add(&mut self, step: Step) -> StepId {
        debug_assert!(
            step.deps().all(|d| d < self.steps.len()),
            "dependencies come first"
        );
        self.steps.push(step);
        self.steps.len() - 1
    }
}
