//! The collision BSP: the game's packed tables, built from one convex hull, and the
//! point and ray queries that run over those tables alone.
//!
//! Layout (`docs/formats/collision.md`, little-endian, world units):
//!
//! | table | bytes | layout |
//! |---|---|---|
//! | bsp3d nodes | 8 | u16 plane, u24 back child, u24 front child; 0xFFFFFF none, bit 23 = leaf |
//! | planes | 16 | f32 i, j, k, d |
//! | leaves | 8 | u8 flags, pad, u16 bsp2d reference count, u32 first bsp2d reference |
//! | bsp2d references | 4 | i16 plane, i16 bsp2d node; bit 15 = surface |
//! | bsp2d nodes | 16 | f32 i, j, d (a 2D line), i16 left, i16 right; bit 15 = surface |
//! | surfaces | 14 | u16 plane, u16 first edge, i16 material, i16 breakable set, i16 breakable, u16 flags, u8 best-plane vertex, pad |
//! | edges | 12 | u16 start vertex, end vertex, forward edge, reverse edge, left surface, right surface |
//! | vertices | 16 | f32 x, y, z, u16 first edge, i16 sink |
//!
//! A child of 0xFFFFFF ("none") is solid space; a leaf is empty space, and lists the
//! surfaces that bound it through bsp2d references, one per plane. Planes point out of the
//! solid: `i·x + j·y + k·z = d`, front (outside) where the left side exceeds `d`.
//!
//! A small convex hull's BSP is a chain: one node per face, whose front is the empty leaf
//! that face bounds and whose back continues to the next face; behind the last face is
//! solid. A hull with more than eight faces (`CHAIN_FACES`) gets a tree of axis-aligned
//! splits of its bounding box: each cell keeps only the faces whose polygons touch it, is
//! solid or empty if none does, and ends in a short chain of the faces it kept. A ray then
//! tests a dozen planes instead of every face.
//!
//! Each empty leaf meets the solid across at most one surface, so its bsp2d reference names
//! the surface directly and the bsp2d node table stays empty for convex hulls. The tables,
//! the reader and the queries handle bsp2d trees in general.

use crate::hull::ConvexHull;
use crate::inline_stack::InlineStack;
use crate::vec3::{dot, V3};
use crate::CollisionError;

pub const NONE: u32 = 0xFF_FFFF;
/// Hulls with more faces than this get a tree of axis-aligned cells over their face chains.
const CHAIN_FACES: usize = 8;
const MAX_SPLIT_DEPTH: u32 = 12;
/// How far cell boxes reach past their planes (world units, about 3 µm).
const BOX_PAD_WU: f64 = 1e-6;
/// A face touches a box when its polygon comes this close (world units, about 30 µm): far
/// more than the f32 rounding of planes and vertices, so no face that matters is missed.
const TOUCH_PAD_WU: f64 = 1e-5;
pub const LEAF: u32 = 0x80_0000;
pub const SURFACE_FLAG: u16 = 0x8000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    pub plane: u16,
    pub back: u32,
    pub front: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneRow {
    pub ijk: [f32; 3],
    pub d: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    pub flags: u8,
    pub reference_count: u16,
    pub first_reference: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bsp2dReference {
    pub plane: i16,
    /// A bsp2d node, or a surface with bit 15 set.
    pub node: u16,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bsp2dNode {
    pub line: [f32; 3],
    pub left: u16,
    pub right: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surface {
    pub plane: u16,
    pub first_edge: u16,
    pub material: i16,
    pub breakable_set: i16,
    pub breakable: i16,
    pub flags: u16,
    pub best_plane_vertex: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub start_vertex: u16,
    pub end_vertex: u16,
    pub forward_edge: u16,
    pub reverse_edge: u16,
    pub left_surface: u16,
    pub right_surface: u16,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub point: [f32; 3],
    pub first_edge: u16,
    pub sink: i16,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CollisionBsp {
    pub nodes: Vec<Node>,
    pub planes: Vec<PlaneRow>,
    pub leaves: Vec<Leaf>,
    pub references: Vec<Bsp2dReference>,
    pub bsp2d_nodes: Vec<Bsp2dNode>,
    pub surfaces: Vec<Surface>,
    pub edges: Vec<Edge>,
    pub vertices: Vec<Vertex>,
}

/// The first solid surface a ray meets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BspHit {
    /// Ray parameter: distance along the ray's direction, in the ray's units.
    pub t: f64,
    pub surface: u16,
    pub plane: u16,
}

#[derive(Clone, Copy)]
struct Span {
    node: u32,
    t0: f64,
    t1: f64,
    /// The plane between this span's first region and the region before it.
    entered: Option<u16>,
}

fn to_wu(p: V3) -> [f32; 3] {
    forge_units::pack_to_blam(p).map(|c| c as f32)
}

/// A hull with more edges than the BSP's 16-bit edge indices address.
struct TooManyEdges;

impl CollisionBsp {
    /// Builds the BSP of one hull, in world units, with `material` as every surface's.
    pub fn build(hull: &ConvexHull, material: i16) -> Result<CollisionBsp, CollisionError> {
        let err =
            |msg: &str| CollisionError::new("bsp_too_large", Some(&hull.name), msg.to_string());
        if hull.faces.len() >= 0x7FFF || hull.vertices.len() >= 0xFFFF {
            return Err(err(
                "the hull has too many faces or vertices for the BSP tables",
            ));
        }
        let mut bsp = CollisionBsp::default();
        for v in &hull.vertices {
            bsp.vertices.push(Vertex {
                point: to_wu(*v),
                first_edge: u16::MAX,
                sink: -1,
            });
        }
        let wu = forge_units::METRES_PER_WORLD_UNIT;
        for (f, face) in hull.faces.iter().enumerate() {
            bsp.planes.push(PlaneRow {
                ijk: face.plane.normal.map(|c| c as f32),
                d: (face.plane.offset / wu) as f32,
            });
            bsp.surfaces.push(Surface {
                plane: f as u16,
                first_edge: u16::MAX,
                material,
                breakable_set: -1,
                breakable: -1,
                flags: 0,
                best_plane_vertex: 0,
            });
        }
        bsp.winged_edges(hull)
            .map_err(|_| err("the hull has too many edges for the BSP tables"))?;
        if let Some(e) = bsp.edges.iter().position(|e| e.right_surface == u16::MAX) {
            return Err(CollisionError::new(
                "hull_not_closed",
                Some(&hull.name),
                format!("edge {e} has only one face; the hull surface is not closed"),
            ));
        }
        // Each face's surface, as the one bsp2d reference of the empty leaves it bounds.
        for f in 0..hull.faces.len() {
            bsp.references.push(Bsp2dReference {
                plane: f as i16,
                node: SURFACE_FLAG | f as u16,
            });
        }
        let faces: Vec<u16> = (0..hull.faces.len() as u16).collect();
        if faces.len() <= CHAIN_FACES {
            bsp.chain(&faces);
        } else {
            let (lo, hi) = bsp.bounds_wu();
            let pad = BOX_PAD_WU;
            let polygons: Vec<&[usize]> = hull.faces.iter().map(|f| f.polygon.as_slice()).collect();
            bsp.cells(
                (
                    lo.map(|c| f64::from(c) - pad),
                    hi.map(|c| f64::from(c) + pad),
                ),
                &faces,
                &polygons,
            );
        }
        if bsp.nodes.len() >= NONE as usize || bsp.planes.len() >= 0x7FFF {
            return Err(err("the hull's BSP has too many nodes for the tables"));
        }
        Ok(bsp)
    }

    /// Winged edges: each polygon side is a half-edge; the face that walks it from start
    /// to end is its left surface, the neighbour walking it backwards its right surface.
    /// Links each edge to the next around its faces, and each vertex to its first edge.
    fn winged_edges(&mut self, hull: &ConvexHull) -> Result<(), TooManyEdges> {
        let mut half_edges: Vec<Vec<u16>> = Vec::new();
        let mut by_ends: std::collections::BTreeMap<(usize, usize), usize> = Default::default();
        for (f, face) in hull.faces.iter().enumerate() {
            let k = face.polygon.len();
            let mut ids = Vec::with_capacity(k);
            for i in 0..k {
                let (a, b) = (face.polygon[i], face.polygon[(i + 1) % k]);
                let found = by_ends.get(&(b, a)).copied();
                let id = match found {
                    Some(e) => {
                        self.edges[e].right_surface = f as u16;
                        e
                    }
                    None => {
                        self.edges.push(Edge {
                            start_vertex: a as u16,
                            end_vertex: b as u16,
                            forward_edge: u16::MAX,
                            reverse_edge: u16::MAX,
                            left_surface: f as u16,
                            right_surface: u16::MAX,
                        });
                        by_ends.insert((a, b), self.edges.len() - 1);
                        self.edges.len() - 1
                    }
                };
                if id >= u16::MAX as usize {
                    return Err(TooManyEdges);
                }
                ids.push(id as u16);
            }
            half_edges.push(ids);
        }
        for (f, ids) in half_edges.iter().enumerate() {
            let k = ids.len();
            self.surfaces[f].first_edge = ids[0];
            for i in 0..k {
                let (this, next) = (ids[i] as usize, ids[(i + 1) % k]);
                if self.edges[this].left_surface as usize == f {
                    self.edges[this].forward_edge = next;
                } else {
                    self.edges[this].reverse_edge = next;
                }
            }
        }
        for (e, edge) in self.edges.iter().enumerate() {
            for v in [edge.start_vertex, edge.end_vertex] {
                if self.vertices[v as usize].first_edge == u16::MAX {
                    self.vertices[v as usize].first_edge = e as u16;
                }
            }
        }
        Ok(())
    }

    fn placeholder(&mut self) -> u32 {
        self.nodes.push(Node {
            plane: 0,
            back: NONE,
            front: NONE,
        });
        (self.nodes.len() - 1) as u32
    }

    /// An empty leaf bounded by `faces`' surfaces (one bsp2d reference each; face `f`'s
    /// reference is row `f`, so they are shared, not repeated).
    fn empty_leaf(&mut self, face: Option<u16>) -> u32 {
        self.leaves.push(Leaf {
            flags: 0,
            reference_count: u16::from(face.is_some()),
            first_reference: face.map_or(0, u32::from),
        });
        LEAF | (self.leaves.len() - 1) as u32
    }

    /// The chain of `faces`: one node per face, whose front is the empty leaf that face
    /// bounds and whose back continues to the next face; behind the last is solid.
    fn chain(&mut self, faces: &[u16]) -> u32 {
        if faces.is_empty() {
            return NONE;
        }
        let start = self.nodes.len() as u32;
        for (i, &f) in faces.iter().enumerate() {
            let node = self.placeholder();
            let front = self.empty_leaf(Some(f));
            self.nodes[node as usize] = Node {
                plane: f,
                back: if i + 1 < faces.len() { node + 1 } else { NONE },
                front,
            };
        }
        start
    }

    fn add_plane(&mut self, axis: usize, sign: f32, d: f64) -> u16 {
        let mut ijk = [0.0f32; 3];
        ijk[axis] = sign;
        self.planes.push(PlaneRow { ijk, d: d as f32 });
        (self.planes.len() - 1) as u16
    }

    /// The tree of cells over the hull's box `lo..hi` (world units). The outer cells reach
    /// past the box to infinity; only the faces' polygons, all inside the box, decide what
    /// a cell keeps, so the box itself needs no nodes.
    fn cells(&mut self, (lo, hi): (V3, V3), faces: &[u16], polygons: &[&[usize]]) -> u32 {
        let polygons: Vec<Polygon> = polygons
            .iter()
            .map(|p| {
                Polygon::new(
                    p.iter()
                        .map(|&v| self.vertices[v].point.map(f64::from))
                        .collect(),
                )
            })
            .collect();
        let touched = touching(&polygons, (lo, hi), faces);
        self.cell(&polygons, (lo, hi), touched, 0)
    }

    /// The subtree for a cell, a convex region whose part in the hull's box is `lo..hi`,
    /// given the faces whose polygons touch it. Within a cell, the hull is the cell behind
    /// those faces alone: a point of the cell outside the hull is in front of a face through
    /// the hull's point nearest to it, and that face touches the cell. A cell no face
    /// touches is all solid or all empty. A cell touched by many faces splits at the middle
    /// of the axis that best separates them, while splitting still pays; otherwise it ends
    /// in a chain.
    fn cell(
        &mut self,
        polygons: &[Polygon],
        (lo, hi): (V3, V3),
        faces: Vec<u16>,
        depth: u32,
    ) -> u32 {
        if faces.is_empty() {
            let centre = [0, 1, 2].map(|a| (lo[a] + hi[a]) / 2.0);
            let inside = (0..polygons.len()).all(|f| self.plane_distance(f as u16, centre) < 0.0);
            return if inside { NONE } else { self.empty_leaf(None) };
        }
        if faces.len() <= CHAIN_FACES || depth >= MAX_SPLIT_DEPTH {
            return self.chain(&faces);
        }
        // Candidate splits are compared by polygon boxes; only the chosen one is tested
        // exactly.
        let split = |axis: usize| {
            // The split plane is stored as f32; the halves use what the table will say.
            let mid = f64::from(((lo[axis] + hi[axis]) / 2.0) as f32);
            let (mut back_hi, mut front_lo) = (hi, lo);
            back_hi[axis] = mid;
            front_lo[axis] = mid;
            (mid, back_hi, front_lo)
        };
        let axis = (0..3)
            .min_by_key(|&axis| {
                let (_, back_hi, front_lo) = split(axis);
                let cost = boxes_meeting(polygons, (lo, back_hi), &faces)
                    + boxes_meeting(polygons, (front_lo, hi), &faces);
                (cost, axis)
            })
            .expect("three axes");
        let (mid, back_hi, front_lo) = split(axis);
        let back = touching(polygons, (lo, back_hi), &faces);
        let front = touching(polygons, (front_lo, hi), &faces);
        let cost = back.len() + front.len();
        // A split whose halves still share most faces only adds nodes.
        if cost * 2 > faces.len() * 3 {
            return self.chain(&faces);
        }
        let node = self.placeholder();
        let plane = self.add_plane(axis, 1.0, mid);
        let back = self.cell(polygons, (lo, back_hi), back, depth + 1);
        let front = self.cell(polygons, (front_lo, hi), front, depth + 1);
        self.nodes[node as usize] = Node { plane, back, front };
        node
    }

    fn plane_distance(&self, plane: u16, p: V3) -> f64 {
        let row = self.planes[plane as usize];
        dot(row.ijk.map(f64::from), p) - f64::from(row.d)
    }

    /// Whether `p` (world units) is in solid space, by walking the bsp3d nodes.
    pub fn contains(&self, p: V3) -> bool {
        let mut node = if self.nodes.is_empty() { NONE } else { 0 };
        let mut steps = 0;
        loop {
            if node == NONE {
                return true;
            }
            if node & LEAF != 0 || steps > self.nodes.len() {
                return false;
            }
            let n = self.nodes[node as usize];
            node = if self.plane_distance(n.plane, p) >= 0.0 {
                n.front
            } else {
                n.back
            };
            steps += 1;
        }
    }

    /// The first solid surface along `origin + t·dir` for `0 <= t <= max_t` (world units).
    /// A ray that starts inside solid does not hit the solid it starts in.
    ///
    /// The walk visits the regions the ray crosses in order, near side first, with an
    /// explicit stack (no recursion, no allocation unless the tree is unusually deep). The
    /// first solid region entered from an empty one is the hit; the plane between them is
    /// the one hit.
    pub fn ray(&self, origin: V3, dir: V3, max_t: f64) -> Option<BspHit> {
        self.ray_between(origin, dir, 0.0, max_t)
    }

    /// [`CollisionBsp::ray`] over the part `t_from..=t_to` of the ray only, as if it started
    /// at `t_from`: for a caller that already knows where the ray enters the BSP's box.
    pub fn ray_between(&self, origin: V3, dir: V3, t_from: f64, t_to: f64) -> Option<BspHit> {
        // Also refuses a NaN bound.
        if self.nodes.is_empty() || t_from.partial_cmp(&t_to).is_none_or(|o| o.is_gt()) {
            return None;
        }
        let mut stack = InlineStack::<Span, 8>::new();
        stack.push(Span {
            node: 0,
            t0: t_from,
            t1: t_to,
            entered: None,
        });
        // The empty leaf the ray was last in; `None` at the start and while in solid.
        let mut empty_leaf: Option<u32> = None;
        // Malformed (cyclic) tables end instead of spinning.
        let mut budget = 4 * self.nodes.len() + 64;
        while let Some(Span {
            mut node,
            t0,
            mut t1,
            entered,
        }) = stack.pop()
        {
            loop {
                budget = budget.checked_sub(1)?;
                if node == NONE {
                    if let (Some(leaf), Some(plane)) = (empty_leaf, entered) {
                        return Some(self.hit(leaf, plane, origin, dir, t0));
                    }
                    empty_leaf = None;
                    break;
                }
                if node & LEAF != 0 {
                    empty_leaf = Some(node & !LEAF);
                    break;
                }
                let n = *self.nodes.get(node as usize)?;
                let row = *self.planes.get(n.plane as usize)?;
                let normal = row.ijk.map(f64::from);
                let at_origin = dot(normal, origin) - f64::from(row.d);
                let along = dot(normal, dir);
                let (d0, d1) = (at_origin + along * t0, at_origin + along * t1);
                if d0 >= 0.0 && d1 >= 0.0 {
                    node = n.front;
                } else if d0 < 0.0 && d1 < 0.0 {
                    node = n.back;
                } else {
                    let tm = t0 + (t1 - t0) * d0 / (d0 - d1);
                    let (near, far) = if d0 >= 0.0 {
                        (n.front, n.back)
                    } else {
                        (n.back, n.front)
                    };
                    stack.push(Span {
                        node: far,
                        t0: tm,
                        t1,
                        entered: Some(n.plane),
                    });
                    // The near side keeps the plane this span was entered by.
                    node = near;
                    t1 = tm;
                }
            }
        }
        None
    }

    fn hit(&self, leaf: u32, plane: u16, origin: V3, dir: V3, t: f64) -> BspHit {
        let at = [
            origin[0] + dir[0] * t,
            origin[1] + dir[1] * t,
            origin[2] + dir[2] * t,
        ];
        let surface = self
            .surface_in_leaf(leaf, plane, at)
            .or_else(|| self.nearest_surface(at))
            .unwrap_or(u16::MAX);
        BspHit { t, surface, plane }
    }

    /// The surface whose plane passes closest to `at`: for the rare hit where rounding
    /// lets the ray enter solid across a split plane rather than a face.
    fn nearest_surface(&self, at: V3) -> Option<u16> {
        (0..self.surfaces.len())
            .filter_map(|s| {
                let plane = self.surfaces[s].plane;
                self.planes
                    .get(plane as usize)
                    .map(|_| (s as u16, self.plane_distance(plane, at).abs()))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(s, _)| s)
    }

    /// The surface on `plane` bounding `leaf` that contains `at`, through its bsp2d tree.
    fn surface_in_leaf(&self, leaf: u32, plane: u16, at: V3) -> Option<u16> {
        let l = self.leaves.get(leaf as usize)?;
        let refs = self.references.get(
            l.first_reference as usize..l.first_reference as usize + l.reference_count as usize,
        )?;
        let r = refs.iter().find(|r| r.plane as u16 == plane)?;
        let row = self.planes.get(plane as usize)?;
        let axis = dominant_axis(row.ijk);
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let mut node = r.node;
        for _ in 0..=self.bsp2d_nodes.len() {
            if node & SURFACE_FLAG != 0 {
                return Some(node & !SURFACE_FLAG);
            }
            let n = self.bsp2d_nodes.get(node as usize)?;
            let side =
                f64::from(n.line[0]) * at[u] + f64::from(n.line[1]) * at[v] - f64::from(n.line[2]);
            node = if side >= 0.0 { n.right } else { n.left };
        }
        None
    }

    /// The surface's polygon, by walking its winged edges (vertex indices); empty when
    /// its edges do not close a loop.
    pub fn surface_polygon(&self, surface: u16) -> Vec<u16> {
        let mut polygon = Vec::new();
        self.surface_polygon_into(surface, &mut polygon);
        polygon
    }

    /// [`surface_polygon`](Self::surface_polygon) into a buffer the caller reuses.
    pub fn surface_polygon_into(&self, surface: u16, polygon: &mut Vec<u16>) {
        polygon.clear();
        let Some(s) = self.surfaces.get(surface as usize) else {
            return;
        };
        let mut e = s.first_edge;
        for _ in 0..=self.edges.len() {
            let Some(edge) = self.edges.get(e as usize) else {
                break;
            };
            if edge.left_surface == surface {
                polygon.push(edge.start_vertex);
                e = edge.forward_edge;
            } else {
                polygon.push(edge.end_vertex);
                e = edge.reverse_edge;
            }
            if e == s.first_edge {
                return;
            }
        }
        polygon.clear();
    }

    pub fn bounds_wu(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        for v in &self.vertices {
            for i in 0..3 {
                lo[i] = lo[i].min(v.point[i]);
                hi[i] = hi[i].max(v.point[i]);
            }
        }
        (lo, hi)
    }
}

/// A face's polygon (world units) with what the box tests need, computed once per hull.
struct Polygon {
    points: Vec<V3>,
    lo: V3,
    hi: V3,
    normal: V3,
}

impl Polygon {
    fn new(points: Vec<V3>) -> Polygon {
        let (lo, hi) = crate::vec3::bounds(points.iter().copied());
        let k = points.len();
        let normal = crate::vec3::cross(
            crate::vec3::sub(points[1], points[0]),
            crate::vec3::sub(points[k - 1], points[0]),
        );
        Polygon {
            points,
            lo,
            hi,
            normal,
        }
    }

    /// Whether the polygon's box meets the (already padded) box `lo..hi`.
    fn box_meets(&self, lo: V3, hi: V3) -> bool {
        (0..3).all(|a| self.lo[a] <= hi[a] && self.hi[a] >= lo[a])
    }
}

fn padded((lo, hi): (V3, V3)) -> (V3, V3) {
    (lo.map(|c| c - TOUCH_PAD_WU), hi.map(|c| c + TOUCH_PAD_WU))
}

/// How many of `faces` have polygon boxes meeting the box: an upper bound on `touching`,
/// cheap enough to compare candidate splits with.
fn boxes_meeting(polygons: &[Polygon], bounds: (V3, V3), faces: &[u16]) -> usize {
    let (lo, hi) = padded(bounds);
    faces
        .iter()
        .filter(|&&f| polygons[f as usize].box_meets(lo, hi))
        .count()
}

/// The faces among `faces` whose polygons come within [`TOUCH_PAD_WU`] of the box `lo..hi`
/// (a separating-axis test: the box axes, the polygon's normal, and each edge crossed with
/// each box axis).
fn touching(polygons: &[Polygon], bounds: (V3, V3), faces: &[u16]) -> Vec<u16> {
    let (lo, hi) = padded(bounds);
    let centre = [0, 1, 2].map(|a| (lo[a] + hi[a]) / 2.0);
    let half = [0, 1, 2].map(|a| (hi[a] - lo[a]) / 2.0);
    let separates = |axis: V3, polygon: &[V3]| {
        let reach = axis[0].abs() * half[0] + axis[1].abs() * half[1] + axis[2].abs() * half[2];
        let c = dot(axis, centre);
        let (mut min, mut max) = (f64::MAX, f64::MIN);
        for p in polygon {
            let x = dot(axis, *p);
            min = min.min(x);
            max = max.max(x);
        }
        min > c + reach || max < c - reach
    };
    faces
        .iter()
        .copied()
        .filter(|&f| {
            let polygon = &polygons[f as usize];
            if !polygon.box_meets(lo, hi) {
                return false;
            }
            // A polygon whose box lies inside the box touches it; most do, in large cells.
            if (0..3).all(|a| polygon.lo[a] >= lo[a] && polygon.hi[a] <= hi[a]) {
                return true;
            }
            if separates(polygon.normal, &polygon.points) {
                return false;
            }
            // The edge axes are needed: a face whose plane cuts a cell outside the hull but
            // whose polygon misses it would make the cell's chain wrongly solid.
            let points = &polygon.points;
            let k = points.len();
            !(0..k).any(|i| {
                let e = crate::vec3::sub(points[(i + 1) % k], points[i]);
                // The edge crossed with the x, y and z axes.
                [[0.0, e[2], -e[1]], [-e[2], 0.0, e[0]], [e[1], -e[0], 0.0]]
                    .into_iter()
                    .any(|axis| separates(axis, points))
            })
        })
        .collect()
}

/// The axis a plane is projected along for its 2D trees: its normal's largest component.
pub fn dominant_axis(n: [f32; 3]) -> usize {
    (0..3)
        .max_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
        .unwrap_or(2)
}

mod codec {
    use super::*;
    use forge_bytes::{Reader, Writer};

    impl CollisionBsp {
        pub fn write(&self, w: &mut Writer) {
            for n in [
                self.nodes.len(),
                self.planes.len(),
                self.leaves.len(),
                self.references.len(),
                self.bsp2d_nodes.len(),
                self.surfaces.len(),
                self.edges.len(),
                self.vertices.len(),
            ] {
                w.u32(n as u32);
            }
            for table in self.tables() {
                w.raw(&table);
            }
        }

        /// The eight tables' bytes in the game's element layouts, in table order: bsp3d
        /// nodes, planes, leaves, bsp2d references, bsp2d nodes, surfaces, edges, vertices.
        pub fn tables(&self) -> [Vec<u8>; 8] {
            fn table<T>(rows: &[T], write: impl Fn(&mut Writer, &T)) -> Vec<u8> {
                let w = &mut Writer::default();
                for row in rows {
                    write(w, row);
                }
                std::mem::take(&mut w.bytes)
            }
            [
                table(&self.nodes, |w, n| {
                    w.u16(n.plane);
                    w.u24(n.back);
                    w.u24(n.front);
                }),
                table(&self.planes, |w, p| {
                    w.f32s(&p.ijk);
                    w.f32(p.d);
                }),
                table(&self.leaves, |w, l| {
                    w.u8(l.flags);
                    w.u8(0);
                    w.u16(l.reference_count);
                    w.u32(l.first_reference);
                }),
                table(&self.references, |w, r| {
                    w.u16(r.plane as u16);
                    w.u16(r.node);
                }),
                table(&self.bsp2d_nodes, |w, n| {
                    w.f32s(&n.line);
                    w.u16(n.left);
                    w.u16(n.right);
                }),
                table(&self.surfaces, |w, s| {
                    w.u16(s.plane);
                    w.u16(s.first_edge);
                    w.u16(s.material as u16);
                    w.u16(s.breakable_set as u16);
                    w.u16(s.breakable as u16);
                    w.u16(s.flags);
                    w.u8(s.best_plane_vertex);
                    w.u8(0);
                }),
                table(&self.edges, |w, e| {
                    for x in [
                        e.start_vertex,
                        e.end_vertex,
                        e.forward_edge,
                        e.reverse_edge,
                        e.left_surface,
                        e.right_surface,
                    ] {
                        w.u16(x);
                    }
                }),
                table(&self.vertices, |w, v| {
                    w.f32s(&v.point);
                    w.u16(v.first_edge);
                    w.u16(v.sink as u16);
                }),
            ]
        }

        /// Reads the tables and checks every cross-reference, so queries cannot index out of
        /// range.
        pub fn read(r: &mut Reader) -> Result<CollisionBsp, forge_bytes::ReadError> {
            let counts: Vec<usize> = (0..8)
                .map(|_| r.u32().map(|n| n as usize))
                .collect::<Result<_, _>>()?;
            let sizes = [8, 16, 8, 4, 16, 14, 12, 16];
            let need = counts.iter().zip(sizes).try_fold(0usize, |acc, (c, s)| {
                c.checked_mul(s).and_then(|b| acc.checked_add(b))
            });
            if need.is_none_or(|n| n > r.remaining()) {
                return Err("BSP table counts exceed the data".into());
            }
            let bsp = CollisionBsp {
                nodes: rows(r, counts[0], Node::read)?,
                planes: rows(r, counts[1], PlaneRow::read)?,
                leaves: rows(r, counts[2], Leaf::read)?,
                references: rows(r, counts[3], Bsp2dReference::read)?,
                bsp2d_nodes: rows(r, counts[4], Bsp2dNode::read)?,
                surfaces: rows(r, counts[5], Surface::read)?,
                edges: rows(r, counts[6], Edge::read)?,
                vertices: rows(r, counts[7], Vertex::read)?,
            };
            bsp.check()?;
            Ok(bsp)
        }

        fn check(&self) -> Result<(), forge_bytes::ReadError> {
            let child_ok = |c: u32| {
                c == NONE
                    || (c & LEAF != 0 && ((c & !LEAF) as usize) < self.leaves.len())
                    || (c & LEAF == 0 && (c as usize) < self.nodes.len())
            };
            for (i, n) in self.nodes.iter().enumerate() {
                if n.plane as usize >= self.planes.len() || !child_ok(n.back) || !child_ok(n.front)
                {
                    return Err(format!("bsp3d node {i} refers outside the tables").into());
                }
            }
            for (i, l) in self.leaves.iter().enumerate() {
                if l.first_reference as usize + l.reference_count as usize > self.references.len() {
                    return Err(format!("leaf {i} refers outside the bsp2d references").into());
                }
            }
            let node2d_ok = |x: u16| {
                if x & SURFACE_FLAG != 0 {
                    ((x & !SURFACE_FLAG) as usize) < self.surfaces.len()
                } else {
                    (x as usize) < self.bsp2d_nodes.len()
                }
            };
            for (i, r) in self.references.iter().enumerate() {
                if r.plane < 0 || r.plane as usize >= self.planes.len() || !node2d_ok(r.node) {
                    return Err(format!("bsp2d reference {i} refers outside the tables").into());
                }
            }
            for (i, n) in self.bsp2d_nodes.iter().enumerate() {
                if !node2d_ok(n.left) || !node2d_ok(n.right) {
                    return Err(format!("bsp2d node {i} refers outside the tables").into());
                }
            }
            for (i, s) in self.surfaces.iter().enumerate() {
                if s.plane as usize >= self.planes.len()
                    || s.first_edge as usize >= self.edges.len()
                {
                    return Err(format!("surface {i} refers outside the tables").into());
                }
            }
            for (i, e) in self.edges.iter().enumerate() {
                let v = self.vertices.len();
                let (ne, ns) = (self.edges.len(), self.surfaces.len());
                if e.start_vertex as usize >= v
                    || e.end_vertex as usize >= v
                    || e.forward_edge as usize >= ne
                    || e.reverse_edge as usize >= ne
                    || e.left_surface as usize >= ns
                    || e.right_surface as usize >= ns
                {
                    return Err(format!("edge {i} refers outside the tables").into());
                }
            }
            for (i, v) in self.vertices.iter().enumerate() {
                if v.first_edge as usize >= self.edges.len() {
                    return Err(format!("vertex {i} refers outside the edges").into());
                }
            }
            Ok(())
        }
    }

    type Read<T> = Result<T, forge_bytes::ReadError>;

    fn rows<T>(r: &mut Reader, n: usize, one: fn(&mut Reader) -> Read<T>) -> Read<Vec<T>> {
        (0..n).map(|_| one(r)).collect()
    }

    /// Padding must be zero: the writer writes zeros, and a model must write back to the bytes
    /// it was read from.
    fn padding(r: &mut Reader, table: &str) -> Read<()> {
        match r.u8()? {
            0 => Ok(()),
            _ => Err(forge_bytes::ReadError::Invalid(format!(
                "a BSP {table} has a padding byte that is not zero"
            ))),
        }
    }

    impl Node {
        fn read(r: &mut Reader) -> Read<Node> {
            Ok(Node {
                plane: r.u16()?,
                back: r.u24()?,
                front: r.u24()?,
            })
        }
    }

    impl PlaneRow {
        fn read(r: &mut Reader) -> Read<PlaneRow> {
            Ok(PlaneRow {
                ijk: [r.f32()?, r.f32()?, r.f32()?],
                d: r.f32()?,
            })
        }
    }

    impl Leaf {
        fn read(r: &mut Reader) -> Read<Leaf> {
            let flags = r.u8()?;
            padding(r, "leaf")?;
            Ok(Leaf {
                flags,
                reference_count: r.u16()?,
                first_reference: r.u32()?,
            })
        }
    }

    impl Bsp2dReference {
        fn read(r: &mut Reader) -> Read<Bsp2dReference> {
            Ok(Bsp2dReference {
                plane: r.u16()? as i16,
                node: r.u16()?,
            })
        }
    }

    impl Bsp2dNode {
        fn read(r: &mut Reader) -> Read<Bsp2dNode> {
            Ok(Bsp2dNode {
                line: [r.f32()?, r.f32()?, r.f32()?],
                left: r.u16()?,
                right: r.u16()?,
            })
        }
    }

    impl Surface {
        fn read(r: &mut Reader) -> Read<Surface> {
            let s = Surface {
                plane: r.u16()?,
                first_edge: r.u16()?,
                material: r.u16()? as i16,
                breakable_set: r.u16()? as i16,
                breakable: r.u16()? as i16,
                flags: r.u16()?,
                best_plane_vertex: r.u8()?,
            };
            padding(r, "surface")?;
            Ok(s)
        }
    }

    impl Edge {
        fn read(r: &mut Reader) -> Read<Edge> {
            Ok(Edge {
                start_vertex: r.u16()?,
                end_vertex: r.u16()?,
                forward_edge: r.u16()?,
                reverse_edge: r.u16()?,
                left_surface: r.u16()?,
                right_surface: r.u16()?,
            })
        }
    }

    impl Vertex {
        fn read(r: &mut Reader) -> Read<Vertex> {
            Ok(Vertex {
                point: [r.f32()?, r.f32()?, r.f32()?],
                first_edge: r.u16()?,
                sink: r.u16()? as i16,
            })
        }
    }
}
