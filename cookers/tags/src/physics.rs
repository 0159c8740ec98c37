//! The physics_model's Havok side for a fixed piece: the polyhedra, one list shape holding
//! every polyhedron as its own child (a composite piece keeps its hulls apart, so a door or
//! window stays open), a MOPP over the list's children, and one fixed rigid body whose
//! shape is that MOPP. One node, one region and one permutation hold the body, as every
//! physics model's bodies hang off a node and a region's permutation.
//!
//! [`bodies`] walks the written tag back from each rigid body to the polyhedra it reaches,
//! for `inspect` and the tests.

use forge_collision::mopp::Mopp;
use forge_collision::Polyhedron;

use crate::builder::Builder;
use crate::tag::{Instance, Tag, TagError};
use crate::PHYSICS_MODEL;

/// `havok_shape_reference_struct/shape type`.
pub const SHAPE_POLYHEDRON: u16 = 4;
pub const SHAPE_LIST: u16 = 14;
pub const SHAPE_MOPP: u16 = 15;
/// `rigid_bodies_block/motion type`, from `sphere` (0) to `fixed` (5).
pub const MOTION_TYPES: [&str; 6] = [
    "sphere",
    "stabilized sphere",
    "box",
    "stabilized box",
    "keyframed",
    "fixed",
];
const FIXED: u8 = 5;
/// `rigid_bodies_block/flags`.
pub const INFINITE_INERTIA: u16 = 1 << 1;
pub const CAN_USE_MOPPS: u16 = 1 << 2;
/// The list's `enabled children` bit set holds 256 children.
const MAX_LIST_CHILDREN: usize = 256;

/// The physics_model tag of a fixed piece made of `polyhedra`. `materials` counts the
/// collision materials, and `material_of` gives each polyhedron's index among them.
pub fn physics_model(
    polyhedra: &[Polyhedron],
    materials: usize,
    material_of: &[i8],
) -> Result<Tag, TagError> {
    if polyhedra.is_empty() || polyhedra.len() > MAX_LIST_CHILDREN {
        return Err(format!(
            "a piece has 1-{MAX_LIST_CHILDREN} polyhedra; found {}",
            polyhedra.len()
        )
        .into());
    }
    let b = Builder::new(&PHYSICS_MODEL);
    let mut root = b.instance("physics_model_block_struct");
    b.set_f32s(&mut root, &["mass scale"], &[1.0]);
    if material_of.len() != polyhedra.len() || material_of.iter().any(|&m| m as usize >= materials)
    {
        return Err("each polyhedron needs one of the collision materials".into());
    }
    // Names are string ids into the game's string table, so they stay 0 here.
    let rows = (0..materials)
        .map(|_| b.instance("physics_model_materials_block"))
        .collect();
    b.block(
        &mut root,
        &["materials"],
        "physics_model_materials_block",
        rows,
    );
    add_polyhedra(&b, &mut root, polyhedra, material_of);
    let (lo, hi) = bounds(polyhedra);
    b.block(
        &mut root,
        &["lists"],
        "lists_block",
        vec![list(&b, polyhedra.len(), lo, hi)],
    );
    let children = (0..polyhedra.len())
        .map(|i| shape_row(&b, SHAPE_POLYHEDRON, i))
        .collect();
    b.block(&mut root, &["list shapes"], "list_shapes_block", children);
    let boxes: Vec<_> = polyhedra.iter().map(aabb).collect();
    let mopp = Mopp::build(&boxes).map_err(|e| TagError::Layout(e.to_string()))?;
    b.block(
        &mut root,
        &["mopps"],
        "mopps_block",
        vec![mopp_row(&b, &mopp)],
    );
    let at = b.offset(&root, &["mopp codes"]);
    root.children
        .insert(at, crate::tag::Child::Data(mopp.code.clone()));
    b.block(
        &mut root,
        &["rigid bodies"],
        "rigid_bodies_block",
        vec![rigid_body(&b, lo, hi)],
    );
    add_node_and_region(&b, &mut root);
    Ok(Tag {
        group: PHYSICS_MODEL,
        root,
    })
}

fn aabb(p: &Polyhedron) -> ([f64; 3], [f64; 3]) {
    let c = p.aabb_centre.map(f64::from);
    let h = p.aabb_half_extents.map(f64::from);
    (
        [0, 1, 2].map(|k| c[k] - h[k]),
        [0, 1, 2].map(|k| c[k] + h[k]),
    )
}

/// The union of the polyhedra's boxes, in world units.
fn bounds(polyhedra: &[Polyhedron]) -> ([f64; 3], [f64; 3]) {
    polyhedra
        .iter()
        .map(aabb)
        .fold(([f64::MAX; 3], [f64::MIN; 3]), |(lo, hi), (a, b)| {
            (
                [0, 1, 2].map(|k| lo[k].min(a[k])),
                [0, 1, 2].map(|k| hi[k].max(b[k])),
            )
        })
}

fn f32s(v: [f64; 3]) -> [f32; 3] {
    v.map(|x| x as f32)
}

fn add_polyhedra(b: &Builder, root: &mut Instance, polyhedra: &[Polyhedron], material_of: &[i8]) {
    let mut polys = Vec::new();
    let mut four_vectors = Vec::new();
    let mut planes = Vec::new();
    for (p, &material) in polyhedra.iter().zip(material_of) {
        let mut row = b.instance("polyhedra_block");
        b.set(&mut row, &["base", "material"], &[material as u8]);
        b.set_f32s(&mut row, &["aabb half extents"], &p.aabb_half_extents);
        b.set_f32s(&mut row, &["aabb center"], &p.aabb_centre);
        b.set_f32s(&mut row, &["polyhedron shape", "radius"], &[p.radius]);
        for (field, value) in [
            ("four vectors size", p.four_vectors.len()),
            ("four vectors capacity", p.four_vectors.len()),
            ("num vertices", p.vertex_count as usize),
            ("plane equations size", p.planes.len()),
            ("plane equations capacity", p.planes.len()),
        ] {
            b.set(&mut row, &[field], &(value as i32).to_le_bytes());
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
    b.block(root, &["polyhedra"], "polyhedra_block", polys);
    b.block(
        root,
        &["polyhedron four vectors"],
        "polyhedron_four_vectors_block",
        four_vectors,
    );
    b.block(
        root,
        &["polyhedron plane equations"],
        "polyhedron_plane_equations_block",
        planes,
    );
}

/// A `havok_shape_reference_struct` row of the list: `type`, `index`.
fn shape_row(b: &Builder, shape_type: u16, index: usize) -> Instance {
    let mut row = b.instance("list_shapes_block");
    set_shape(b, &mut row, &["shape reference"], shape_type, index);
    row
}

fn set_shape(b: &Builder, inst: &mut Instance, at: &[&str], shape_type: u16, index: usize) {
    let path = |field| [at, &[field]].concat();
    b.set(inst, &path("shape type"), &shape_type.to_le_bytes());
    b.set(inst, &path("shape"), &(index as u16).to_le_bytes());
}

fn list(b: &Builder, children: usize, lo: [f64; 3], hi: [f64; 3]) -> Instance {
    let mut row = b.instance("lists_block");
    for field in ["child shapes size", "child shapes capacity"] {
        b.set(&mut row, &[field], &(children as i32).to_le_bytes());
    }
    let centre = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let half = [0, 1, 2].map(|k| (hi[k] - lo[k]) / 2.0);
    b.set_f32s(&mut row, &["aabb half extents"], &f32s(half));
    b.set_f32s(&mut row, &["aabb center"], &f32s(centre));
    for word in 0..MAX_LIST_CHILDREN / 32 {
        let enabled = (0..32)
            .filter(|bit| word * 32 + bit < children)
            .fold(0u32, |m, bit| m | 1 << bit);
        b.set(
            &mut row,
            &[&format!("enabled children{word}")],
            &enabled.to_le_bytes(),
        );
    }
    row
}

fn mopp_row(b: &Builder, mopp: &Mopp) -> Instance {
    let mut row = b.instance("mopps_block");
    let o = mopp.origin;
    b.set_f32s(
        &mut row,
        &["m_codeInfoCopy"],
        &[o[0], o[1], o[2], mopp.scale],
    );
    b.set(
        &mut row,
        &["mopp data size"],
        &(mopp.code.len() as i32).to_le_bytes(),
    );
    b.set(&mut row, &["list"], &0i16.to_le_bytes());
    b.set_f32s(&mut row, &["scale"], &[1.0]);
    row
}

/// A fixed body: it never moves, so it has no mass, and its inertia is infinite.
fn rigid_body(b: &Builder, lo: [f64; 3], hi: [f64; 3]) -> Instance {
    let mut row = b.instance("rigid_bodies_block");
    let centre = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let radius = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt() / 2.0;
    b.set_f32s(&mut row, &["bouding sphere offset"], &f32s(centre));
    b.set_f32s(&mut row, &["bounding sphere radius"], &[radius as f32]);
    b.set(
        &mut row,
        &["flags"],
        &(INFINITE_INERTIA | CAN_USE_MOPPS).to_le_bytes(),
    );
    b.set(&mut row, &["no phantom power alt"], &(-1i16).to_le_bytes());
    b.set(&mut row, &["motion type"], &[FIXED]);
    b.set_f32s(&mut row, &["inertia tensor scale"], &[1.0]);
    b.set_f32s(&mut row, &["center of mass"], &f32s(centre));
    b.set_f32s(&mut row, &["mass"], &[0.0]);
    set_shape(b, &mut row, &["shape reference"], SHAPE_MOPP, 0);
    row
}

fn add_node_and_region(b: &Builder, root: &mut Instance) {
    let mut node = b.instance("nodes_block");
    for field in ["parent", "sibling", "child"] {
        b.set(&mut node, &[field], &(-1i16).to_le_bytes());
    }
    b.block(root, &["nodes"], "nodes_block", vec![node]);
    let index = b.instance("rigid_body_indices_block");
    let mut permutation = b.instance("permutations_block");
    b.block(
        &mut permutation,
        &["rigid bodies"],
        "rigid_body_indices_block",
        vec![index],
    );
    let mut region = b.instance("regions_block");
    b.block(
        &mut region,
        &["permutations"],
        "permutations_block",
        vec![permutation],
    );
    b.block(root, &["regions"], "regions_block", vec![region]);
}

/// A rigid body as read back: what it is, and the polyhedra its shape reaches.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub motion_type: String,
    pub flags: u16,
    pub mass: f32,
    /// The shapes walked from the body to the polyhedra, e.g. `mopp 0`, `list 0`.
    pub path: Vec<String>,
    /// Each polyhedron index reached, in list order (a repeat means a hull is reached twice).
    pub polyhedra: Vec<usize>,
}

/// Every rigid body of a physics_model tag, walked to its polyhedra.
pub fn bodies(tag: &Tag) -> Result<Vec<Body>, TagError> {
    let b = Builder::new(&PHYSICS_MODEL);
    let root = &tag.root;
    b.items(root, &["rigid bodies"])
        .iter()
        .map(|body| {
            let [motion] = b.get::<1>(body, &["motion type"]);
            let mut walked = Body {
                motion_type: MOTION_TYPES
                    .get(motion as usize)
                    .map_or_else(|| format!("unknown ({motion})"), |m| m.to_string()),
                flags: u16::from_le_bytes(b.get(body, &["flags"])),
                mass: f32::from_le_bytes(b.get(body, &["mass"])),
                path: Vec::new(),
                polyhedra: Vec::new(),
            };
            let (kind, index) = shape_of(&b, body, &["shape reference"]);
            walk(&b, root, kind, index, &mut walked, 0)?;
            Ok(walked)
        })
        .collect()
}

fn shape_of(b: &Builder, inst: &Instance, at: &[&str]) -> (u16, usize) {
    let path = |field| [at, &[field]].concat();
    let kind = u16::from_le_bytes(b.get(inst, &path("shape type")));
    let index = u16::from_le_bytes(b.get(inst, &path("shape"))) as usize;
    (kind, index)
}

fn walk(
    b: &Builder,
    root: &Instance,
    kind: u16,
    index: usize,
    body: &mut Body,
    depth: usize,
) -> Result<(), TagError> {
    if depth > 8 {
        return Err("the shapes nest more than 8 deep".into());
    }
    let missing = |what: &str| {
        TagError::Layout(format!(
            "a shape names {what} {index}, which the tag does not have"
        ))
    };
    match kind {
        SHAPE_POLYHEDRON => {
            if index >= b.items(root, &["polyhedra"]).len() {
                return Err(missing("polyhedron"));
            }
            body.polyhedra.push(index);
        }
        SHAPE_MOPP => {
            let mopp = b
                .items(root, &["mopps"])
                .get(index)
                .ok_or_else(|| missing("mopp"))?;
            body.path.push(format!("mopp {index}"));
            let list = i16::from_le_bytes(b.get(mopp, &["list"]));
            walk(
                b,
                root,
                SHAPE_LIST,
                usize::try_from(list).map_err(|_| missing("list"))?,
                body,
                depth + 1,
            )?;
        }
        SHAPE_LIST => {
            let lists = b.items(root, &["lists"]);
            lists.get(index).ok_or_else(|| missing("list"))?;
            body.path.push(format!("list {index}"));
            // A list's children are the next `child shapes size` rows of the list shapes,
            // after those of the lists before it.
            let size =
                |l: &Instance| i32::from_le_bytes(b.get(l, &["child shapes size"])).max(0) as usize;
            let first: usize = lists[..index].iter().map(size).sum();
            let rows = b.items(root, &["list shapes"]);
            let children = rows
                .get(first..first + size(&lists[index]))
                .ok_or_else(|| missing("list"))?;
            for child in children {
                let (kind, at) = shape_of(b, child, &["shape reference"]);
                walk(b, root, kind, at, body, depth + 1)?;
            }
        }
        other => return Err(format!("shape type {other} is not one a Forge piece uses").into()),
    }
    Ok(())
}
