//! Blam tag files for a Forge piece: crate (`bloc`), model (`hlmt`), physics_model
//! (`phmo`) and collision_model (`coll`), laid out by the real group definitions.
//!
//! [`block_tags`] builds the four tags of one block from what the cookers made: the
//! collision BSP tables go into the collision_model (one region per hull, one permutation
//! each); the polyhedra (with their four-vectors and plane equations) and the MOPP code go
//! into the physics_model; the crate refers to the model, and the model to the collision
//! and physics models. All four live at `objects\mjolnir\forge\<pack>\<block>`.
//!
//! Field offsets come from `definitions/forge-groups.json` (the shipped game's layouts).
//! The file form is in [`tag`]. What a game-ready tag still needs from an installed game
//! (its donor layout section, string ids, the render side) is listed in
//! `docs/formats/tags.md`.

pub mod definitions;
pub mod tag;

use forge_collision::{CollisionModel, MoppIndex, Polyhedron};

pub use tag::{Child, Instance, Tag, TagError, TagRef};

/// Version of this cooker; part of every tags step's key.
pub const VERSION: u32 = 1;

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

struct Builder {
    group: &'static definitions::GroupDef,
}

impl Builder {
    fn new(tag: &[u8; 4]) -> Builder {
        Builder {
            group: definitions::group(tag).expect("the four groups are bundled"),
        }
    }

    fn def(&self, name: &str) -> usize {
        self.group
            .struct_index(name)
            .unwrap_or_else(|| panic!("struct {name} is in the bundled definitions"))
    }

    fn instance(&self, name: &str) -> Instance {
        Instance::new(self.group, self.def(name))
    }

    fn offset(&self, inst: &Instance, path: &[&str]) -> usize {
        self.group
            .offset_of(inst.def, path)
            .unwrap_or_else(|| panic!("field {path:?} is in the bundled definitions"))
            .0
    }

    fn reference(&self, inst: &mut Instance, path: &[&str], group: [u8; 4], tag: &str) {
        let at = self.offset(inst, path);
        inst.children.insert(
            at,
            Child::Ref(Some(TagRef {
                group,
                path: tag.to_string(),
            })),
        );
    }

    fn block(&self, inst: &mut Instance, path: &[&str], element: &str, items: Vec<Instance>) {
        if !items.is_empty() {
            let at = self.offset(inst, path);
            inst.children.insert(
                at,
                Child::Block {
                    element: self.def(element),
                    items,
                },
            );
        }
    }

    /// Elements of `element` from a table of fixed-size records.
    fn rows(&self, element: &str, table: &[u8]) -> Vec<Instance> {
        let def = self.def(element);
        let size = self.group.structs[def].size;
        table
            .chunks_exact(size)
            .map(|row| Instance {
                def,
                bytes: row.to_vec(),
                children: Default::default(),
            })
            .collect()
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
    index: &MoppIndex,
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

    let b = Builder::new(&PHYSICS_MODEL);
    let mut root = b.instance("physics_model_block_struct");
    let mut polys = Vec::new();
    let mut four_vectors = Vec::new();
    let mut planes = Vec::new();
    for p in polyhedra {
        let mut row = b.instance("polyhedra_block");
        let at = b.offset(&row, &["aabb half extents"]);
        row.put_f32s(at, &p.aabb_half_extents);
        let at = b.offset(&row, &["aabb center"]);
        row.put_f32s(at, &p.aabb_centre);
        let at = b.offset(&row, &["polyhedron shape", "radius"]);
        row.put_f32s(at, &[p.radius]);
        for (field, value) in [
            ("four vectors size", p.four_vectors.len()),
            ("four vectors capacity", p.four_vectors.len()),
            ("num vertices", p.vertex_count as usize),
        ] {
            let at = b.offset(&row, &[field]);
            row.put(at, &(value as i32).to_le_bytes());
        }
        polys.push(row);
        for fv in &p.four_vectors {
            let mut row = b.instance("polyhedron_four_vectors_block");
            row.put_f32s(0, &fv.concat());
            four_vectors.push(row);
        }
        for plane in &p.planes {
            let mut row = b.instance("polyhedron_plane_equations_block");
            row.put_f32s(0, plane);
            planes.push(row);
        }
    }
    b.block(&mut root, &["polyhedra"], "polyhedra_block", polys);
    b.block(
        &mut root,
        &["polyhedron four vectors"],
        "polyhedron_four_vectors_block",
        four_vectors,
    );
    b.block(
        &mut root,
        &["polyhedron plane equations"],
        "polyhedron_plane_equations_block",
        planes,
    );
    let mut mopp = b.instance("mopps_block");
    let at = b.offset(&mopp, &["m_codeInfoCopy"]);
    let o = index.mopp.origin;
    mopp.put_f32s(at, &[o[0], o[1], o[2], index.mopp.scale]);
    let at = b.offset(&mopp, &["mopp data size"]);
    mopp.put(at, &(index.mopp.code.len() as i32).to_le_bytes());
    b.block(&mut root, &["mopps"], "mopps_block", vec![mopp]);
    let at = b.offset(&root, &["mopp codes"]);
    root.children
        .insert(at, Child::Data(index.mopp.code.clone()));
    let physics_tag = Tag {
        group: PHYSICS_MODEL,
        root,
    };

    [crate_tag, model_tag, physics_tag, collision_tag]
        .into_iter()
        .map(|t| Ok((t.group, t.to_bytes()?)))
        .collect()
}
