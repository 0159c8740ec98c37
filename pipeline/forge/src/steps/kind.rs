//! How the Forge layer plans a kind: how often its steps appear, and where their outputs
//! land in a set folder.

/// How often a kind's step appears in a cook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Once per pack, before any block is known: the contract's validation.
    Pack,
    /// Once per block of a set.
    Block,
    /// Once per group of a large set's blocks, after them and before the set's own steps
    /// (`plan::groups`): a set's steps read every block's small files a group at a time.
    Group,
    /// Once per set, after its blocks.
    Set,
    /// Once per configured map, after every pack's set (full cooks only).
    Map,
}

/// Where a kind's outputs land when a set is materialized.
#[derive(Clone, Copy)]
pub enum Lands {
    /// Nowhere: an intermediate, kept in the cache only.
    Nowhere,
    /// A pack step's per-block output, copied into each block's `cooked/<block>/`:
    /// `(output name, file name)` for a block.
    PerBlock(fn(&str) -> (String, &'static str)),
    /// Under the set folder's `cooked/<block>/`. With [`Names::Fixed`] outputs the set's
    /// assembly takes them as inputs before the step runs; [`Names::Dynamic`] outputs land
    /// as they come, and an assembly that reads them wires them itself.
    Cooked,
    /// Like [`Lands::Cooked`], and each output is also an Unreal package of the pack's
    /// IoStore container: the set's assembly puts every such output in it, in registry
    /// order per block, without knowing the kind.
    Package,
    /// Every output, at the set folder's root.
    SetRoot,
    /// Every output, in the set's render folder: previews are not part of the set.
    Renders,
    /// Every output, in the map's folder, `<out>/maps/<map>/`.
    Map,
}

impl Lands {
    /// Whether the outputs land under the set folder's `cooked/<block>/`.
    pub fn in_cooked(self) -> bool {
        matches!(self, Lands::Cooked | Lands::Package)
    }
}
