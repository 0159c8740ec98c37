//! What the engine runs: a [`Cooker`] has a name, a version (part of every key it makes),
//! the names its outputs may have, and a pure function from a [`CookCtx`] and its inputs'
//! bytes to output bytes or findings. The engine knows nothing else of a kind: where its
//! outputs land and how it is wired belong to the layer that plans the graph.

use std::collections::BTreeMap;
use std::sync::Arc;

use findings::Diagnostic;

pub type Inputs = BTreeMap<String, Arc<Vec<u8>>>;
pub type Outputs = Vec<(String, Vec<u8>)>;
pub type Cooked = Result<Outputs, Vec<Diagnostic>>;

/// Everything a cooker may see besides its inputs, all of it in the key: no path, no
/// clock, no thread count.
#[derive(Debug, Clone, Copy)]
pub struct CookCtx<'a> {
    /// The step's id, for messages.
    pub id: &'a str,
    pub pack: &'a str,
    pub block: Option<&'a str>,
    /// Canonical parameter text.
    pub params: &'a str,
}

pub struct Cooker {
    pub name: &'static str,
    /// Bump it whenever the output for the same inputs changes; every cached output of the
    /// kind is rebuilt.
    pub version: u32,
    pub outputs: Names,
    /// Whether its steps still run under `--check` (which otherwise only looks steps up):
    /// a kind whose outputs the planner needs to lay out the rest of the graph.
    pub runs_under_check: bool,
    /// Outputs stored as recipes over some of its inputs, which its cooker never reads
    /// (`splice`); `None` for a kind whose outputs are all its own bytes.
    pub splices: Option<&'static crate::splice::Splicing>,
    /// Bytes in, bytes out.
    pub cook: fn(&CookCtx, &Inputs) -> Cooked,
}

/// The names a kind's outputs may have. Every cached record and every cooker's result is
/// checked against them, so a damaged or swapped action record cannot name a file outside
/// its folder or feed a step an output it never declared.
#[derive(Clone, Copy)]
pub enum Names {
    /// Exactly these, for a step's block (`""` for steps of no block).
    Fixed(fn(&str) -> Vec<String>),
    /// Named by what the step reads; each must still be a plain relative path.
    Dynamic,
}

/// Why a set of output names is not one a kind may make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadOutputs {
    NotPlain(String),
    NotDeclared {
        names: Vec<String>,
        declared: Vec<String>,
    },
}

impl std::fmt::Display for BadOutputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadOutputs::NotPlain(name) => write!(f, "{name:?} is not a plain relative path"),
            BadOutputs::NotDeclared { names, declared } => {
                write!(f, "{names:?} are not the declared outputs {declared:?}")
            }
        }
    }
}

impl Cooker {
    /// Whether `names` are outputs this kind may make for a step of `block` (`""` for
    /// none); `Err` says why not.
    pub fn check_outputs<'a>(
        &self,
        block: &str,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), BadOutputs> {
        let mut names: Vec<&str> = names.into_iter().collect();
        if let Some(bad) = names.iter().find(|n| !is_plain_relative(n)) {
            return Err(BadOutputs::NotPlain(bad.to_string()));
        }
        if let Names::Fixed(declared) = self.outputs {
            let mut declared = declared(block);
            declared.sort();
            names.sort_unstable();
            if names != declared {
                return Err(BadOutputs::NotDeclared {
                    names: names.iter().map(|n| n.to_string()).collect(),
                    declared,
                });
            }
        }
        Ok(())
    }

    /// The output names of a kind with fixed outputs, for a block.
    /// Whether `output` is one of its spliced outputs.
    pub fn splices_output(&self, output: &str) -> bool {
        self.splices.is_some_and(|s| (s.output)(output))
    }

    /// Whether input `name` is one its spliced outputs copy from (and its cooker never reads).
    pub fn splices_from(&self, name: &str) -> bool {
        self.splices.is_some_and(|s| (s.source)(name))
    }

    pub fn fixed_outputs(&self, block: &str) -> Vec<String> {
        match self.outputs {
            Names::Fixed(names) => names(block),
            Names::Dynamic => panic!("{}'s outputs are not fixed", self.name),
        }
    }
}

/// Kinds are named uniquely, so the name is their identity.
impl PartialEq for Cooker {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Cooker {}

impl std::fmt::Debug for Cooker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A path that stays below the folder it is joined to (the one rule, `plain_path`).
pub fn is_plain_relative(rel: &str) -> bool {
    plain_path::is_plain(rel)
}
