//! Blam tag files for a Forge piece: crate (`bloc`), model (`hlmt`), physics_model
//! (`phmo`) and collision_model (`coll`), laid out by the real group definitions.
//!
//! [`block_tags`] builds the four tags of one block from what the cookers made: the
//! collision BSP tables go into the collision_model (one region per hull, one permutation
//! each); the physics_model holds the polyhedra and the fixed rigid body that reaches them
//! (`physics`); the crate refers to the model, and the model to the collision and physics
//! models. All four live at `objects\mjolnir\forge\<pack>\<block>`.
//!
//! Field offsets come from `definitions/forge-groups.json` (the shipped game's layouts).
//! The file form is in [`tag`]. What a game-ready tag still needs from an installed game
//! (its donor layout section, string ids, the render side) is listed in
//! `docs/formats/tags.md`.

mod builder;
pub mod definitions;
pub mod physics;
pub mod tag;

use forge_collision::{CollisionModel, Polyhedron};

use builder::Builder;

pub use tag::{Child, Instance, Tag, TagError, TagRef};

/// Version of this cooker; part of every tags step's key.
pub const VERSION: u32 = 2;

pub const CRATE: [u8; 4] = *b"bloc";
pub const MODEL: [u8; 4] = *b"hlmt";
pub const PHYSICS_MODEL: [u8; 4] = *b"phmo";
pub const COLLISION_MODEL: [u8; 4] = *b"coll";

/// `objects\mjolnir\forge\<pack>\<block>`.
pub fn tag_path(pack: &str, block: &str) -> String {
    format!("objects\\mjolnir\\forge\\{pack}\\{block}")
}

/// The group's file extension, as tag paths are stored on disk.
pub fn extension(group: &[u8; 4]) -> &'static str {
    match group {
        b"bloc" => "crate",
        b"hlmt" => "model",
        b"phmo" => "physics_model",
        b"coll" => "collision_model",
        _ => "tag",
    }
}

/// A tag file: its group and bytes.
pub type TagFile = ([u8; 4], Vec<u8>);

/// `(min, max)` corners in world units.
pub type BoundsWu = ([f64; 3], [f64; 3]);

/// The four tags of a block: `(group, bytes)`. `bounds_wu` is the collision's bounds in
/// world units, for the object's bounding sphere.
pub fn block_tags(
    pack: &str,
    block: &str,
    bounds_wu: BoundsWu,
    model: &CollisionModel,
    polyhedra: &[Polyhedron],
) -> Result<Vec<TagFile>, TagError> {
    let path = tag_path(pack, block);

    let b = Builder::new(&CRATE);
    let mut root = b.instance("crate_struct_definition");
    b.reference(&mut root, &["object", "model"], MODEL, &path);
    let (lo, hi) = bounds_wu;
    let centre = [0, 1, 2].map(|a| ((lo[a] + hi[a]) / 2.0) as f32);
    let radius = ((0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f64>().sqrt() / 2.0) as f32;
    let at = b.offset(&root, &["object", "bounding radius"]);
    root.put_f32s(at, &[radius]);
    let at = b.offset(&root, &["object", "bounding offset"]);
    root.put_f32s(at, &centre);
    let crate_tag = Tag { group: CRATE, root };

    let b = Builder::new(&MODEL);
    let mut root = b.instance("model_block_struct");
    b.reference(&mut root, &["collision model"], COLLISION_MODEL, &path);
    b.reference(&mut root, &["physics_model"], PHYSICS_MODEL, &path);
    let model_tag = Tag { group: MODEL, root };

    let b = Builder::new(&COLLISION_MODEL);
    let mut root = b.instance("collision_model_block_struct");
    // Materials and region names are string ids, which index the game's string table.
    let materials = model
        .materials
        .iter()
        .map(|_| b.instance("collision_model_material_block"))
        .collect();
    b.block(
        &mut root,
        &["materials"],
        "collision_model_material_block",
        materials,
    );
    let mut regions = Vec::new();
    for region in &model.regions {
        let mut bsp = b.instance("collision_model_bsp_block");
        bsp.put(0, &(-1i16).to_le_bytes());
        let tables = region.bsp.tables();
        let names = [
            ("bsp3d nodes", "bsp3d_nodes_block_struct"),
            ("planes", "planes_block"),
            ("leaves", "collision_leaf_struct"),
            ("bsp2d references", "bsp2d_references_block"),
            ("bsp2d nodes", "bsp2d_nodes_block"),
            ("surfaces", "surfaces_block_struct"),
            ("edges", "edges_block"),
            ("vertices", "vertices_block"),
        ];
        for ((field, element), table) in names.iter().zip(&tables) {
            let rows = b.rows(element, table);
            b.block(&mut bsp, &["bsp", field], element, rows);
        }
        let mut permutation = b.instance("collision_model_permutation_block");
        b.block(
            &mut permutation,
            &["bsps"],
            "collision_model_bsp_block",
            vec![bsp],
        );
        let mut r = b.instance("collision_model_region_block");
        b.block(
            &mut r,
            &["permutations"],
            "collision_model_permutation_block",
            vec![permutation],
        );
        regions.push(r);
    }
    b.block(
        &mut root,
        &["regions"],
        "collision_model_region_block",
        regions,
    );
    let collision_tag = Tag {
        group: COLLISION_MODEL,
        root,
    };

    // One polyhedron per hull, as one region per hull: each takes its region's material.
    let material_of: Vec<i8> = model
        .regions
        .iter()
        .map(|r| r.bsp.surfaces.first().map_or(0, |s| s.material as i8))
        .collect();
    let physics_tag = physics::physics_model(polyhedra, model.materials.len(), &material_of)?;

    [crate_tag, model_tag, physics_tag, collision_tag]
        .into_iter()
        .map(|t| Ok((t.group, t.to_bytes()?)))
        .collect()
}
