//! The build graph: steps, what each one reads, and which steps it waits for.
//!
//! Steps are stored densely and named by index ([`StepId`]); a step's dependencies always
//! have smaller indices, so the list is already in topological order.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cooker::{CookCtx, Cooked, Cooker, Inputs};

pub type StepId = usize;

/// What a step does: its kind's cooker.
pub type Kind = &'static Cooker;

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

impl Input {
    /// The name the step's cooker knows this input by.
    pub fn name(&self) -> &str {
        match self {
            Input::Source { name, .. } | Input::Upstream { name, .. } => name,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Step {
    /// Unique and stable, e.g. `foundry/import/floor_2x2`.
    pub id: String,
    /// Shared by the pack's steps, as `block` by the block's and `source_dir` by the
    /// pack's: a catalog's cook has thousands of steps.
    pub pack: Arc<str>,
    pub kind: Kind,
    /// The block this step is about, for per-block steps.
    pub block: Option<Arc<str>>,
    /// Canonical parameter text, part of the key.
    pub params: String,
    pub inputs: Vec<Input>,
    /// The pack's (or map's) folder as configured, for findings to name real paths. Not
    /// part of the key: a key never holds a path of this machine's.
    pub source_dir: Arc<Path>,
}

impl Step {
    /// Everything besides inputs that the step's cooker may see: the pack, the block and
    /// the parameters. All of it goes into the key, since a cooker that used an unhashed
    /// value could return another block's cached output (two packs with an identical
    /// floor would share one mesh asset path).
    pub fn key_params(&self) -> String {
        self.key_params_parts().concat()
    }

    /// [`key_params`](Step::key_params) in its parts, for hashing without joining them.
    pub fn key_params_parts(&self) -> [&str; 6] {
        let block = self.block.as_deref().unwrap_or("");
        ["pack=", &self.pack, "\nblock=", block, "\n", &self.params]
    }

    /// What the step's cooker may see: nothing that is not in its key.
    pub fn ctx(&self) -> CookCtx<'_> {
        CookCtx {
            id: &self.id,
            pack: &self.pack,
            block: self.block.as_deref(),
            params: &self.params,
        }
    }

    /// The block a step is about, `""` for none.
    pub fn block_name(&self) -> &str {
        self.block.as_deref().unwrap_or_default()
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

/// Runs a step's cooker on what it may see: what a build passes to `execute::run`.
pub fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    (step.kind.cook)(&step.ctx(), inputs)
}
