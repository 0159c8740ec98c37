//! Through-openings of a piece, found by casting rays through its visual mesh and its
//! hulls: what `derive` suggests as apertures. Rays run along X and along Y over a grid
//! across the piece's bounds; a ray that meets neither the mesh nor a hull is open. Open
//! cells the flood from the top and the sides cannot reach are holes: a doorway when the
//! hole reaches the floor, a window when it is framed all round. Each hole's edges are
//! then found to the millimetre by bisection, so the checks' frame rays (5 cm outside the
//! opening) hit and its inner rays (5 cm inside) pass.

use serde_json::{json, Value};

/// Openings narrower or lower than this are not a way through for a player.
pub const MIN_OPENING_M: f64 = 0.4;
/// A hole is taken as a rectangle when its cells fill this much of their bounding box.
const MIN_FILL: f64 = 0.85;
/// The grid has at most this many cells along a side.
const MAX_CELLS: usize = 160;
const MIN_STEP_M: f64 = 0.05;

/// The grid of rays across the plane: `n` cells of `step` from `origin`, each axis.
#[derive(Clone, Copy)]
struct Grid {
    origin: [f64; 2],
    step: f64,
    n: [usize; 2],
}

impl Grid {
    fn centre(&self, i: usize, j: usize) -> [f64; 2] {
        [
            self.origin[0] + (i as f64 + 0.5) * self.step,
            self.origin[1] + (j as f64 + 0.5) * self.step,
        ]
    }

    /// The cell holding `p`, clamped into the grid.
    fn cell(&self, p: [f64; 2]) -> usize {
        let index = |k: usize| {
            let x = ((p[k] - self.origin[k]) / self.step).floor();
            (x.max(0.0) as usize).min(self.n[k] - 1)
        };
        index(0) + index(1) * self.n[0]
    }
}

/// What a ray along one axis can meet, projected onto the plane across it; triangles are
/// bucketed by grid cell so each ray tests only those near it.
struct Blockers {
    polygons: Vec<Vec<[f64; 2]>>,
    triangles: Vec<[[f64; 2]; 3]>,
    grid: Grid,
    buckets: Vec<Vec<u32>>,
}

impl Blockers {
    fn new(
        hulls: &[&[[f64; 3]]],
        triangles: &[[[f64; 3]; 3]],
        (u, v): (usize, usize),
        grid: Grid,
    ) -> Self {
        let polygons = hulls
            .iter()
            .map(|points| convex_hull(points.iter().map(|p| [p[u], p[v]]).collect()))
            .filter(|p| p.len() >= 3)
            .collect();
        let triangles: Vec<[[f64; 2]; 3]> = triangles
            .iter()
            .map(|t| t.map(|p| [p[u], p[v]]))
            // A triangle seen edge-on is parallel to the rays, which slide past it.
            .filter(|t| cross(t[0], t[1], t[2]).abs() > 1e-9)
            .collect();
        let mut buckets = vec![Vec::new(); grid.n[0] * grid.n[1]];
        for (index, t) in triangles.iter().enumerate() {
            let lo = grid.cell([0, 1].map(|k| t.iter().map(|p| p[k]).fold(f64::MAX, f64::min)));
            let hi = grid.cell([0, 1].map(|k| t.iter().map(|p| p[k]).fold(f64::MIN, f64::max)));
            let (n, [i0, j0], [i1, j1]) = (
                grid.n[0],
                [lo % grid.n[0], lo / grid.n[0]],
                [hi % grid.n[0], hi / grid.n[0]],
            );
            for j in j0..=j1 {
                for i in i0..=i1 {
                    buckets[i + j * n].push(index as u32);
                }
            }
        }
        Blockers {
            polygons,
            triangles,
            grid,
            buckets,
        }
    }

    fn blocks(&self, p: [f64; 2]) -> bool {
        self.polygons.iter().any(|poly| in_convex(poly, p))
            || self.buckets[self.grid.cell(p)]
                .iter()
                .any(|&t| in_triangle(&self.triangles[t as usize], p))
    }
}

/// The apertures of a piece with these hulls (points) and visual triangles, within
/// `bounds`, as geometry entries.
pub fn apertures(
    hulls: &[&[[f64; 3]]],
    triangles: &[[[f64; 3]; 3]],
    bounds: [[f64; 3]; 2],
) -> Vec<Value> {
    let mut out = Vec::new();
    // Rays along Y see a wall in the XZ plane; rays along X see one in YZ.
    for (axis, across) in [("y", 0), ("x", 1)] {
        let (u0, u1) = (bounds[0][across], bounds[1][across]);
        let (v0, v1) = (bounds[0][2], bounds[1][2]);
        let step = ((u1 - u0).max(v1 - v0) / MAX_CELLS as f64).max(MIN_STEP_M);
        let grid = Grid {
            origin: [u0, v0],
            step,
            n: [(u1 - u0) / step, (v1 - v0) / step].map(|n| n.ceil().max(1.0) as usize),
        };
        let blockers = Blockers::new(hulls, triangles, (across, 2), grid);
        let along = 1 - across;
        for hole in holes(&blockers, v0) {
            let n = out.len() + 1;
            let (kind, name) = if hole.reaches_floor {
                ("door", "doorway")
            } else {
                ("window", "window")
            };
            let name = if n == 1 {
                name.to_string()
            } else {
                format!("{name}_{n}")
            };
            let mut centre = [0.0; 3];
            centre[across] = mm((hole.lo[0] + hole.hi[0]) / 2.0);
            centre[along] = mm((bounds[0][along] + bounds[1][along]) / 2.0);
            centre[2] = mm((hole.lo[1] + hole.hi[1]) / 2.0);
            out.push(
                json!({"name": name, "kind": kind, "centre_m": centre, "axis": axis,
                "width_m": mm(hole.hi[0] - hole.lo[0]), "height_m": mm(hole.hi[1] - hole.lo[1])}),
            );
        }
    }
    out
}

/// A hole through the piece, in the plane across the rays: (u, z) corners.
struct Hole {
    lo: [f64; 2],
    hi: [f64; 2],
    reaches_floor: bool,
}

fn holes(blockers: &Blockers, floor: f64) -> Vec<Hole> {
    let grid = blockers.grid;
    let [nu, nv] = grid.n;
    let step = grid.step;
    let at = |i: usize, j: usize| grid.centre(i, j);
    let open: Vec<bool> = (0..nu * nv)
        .map(|k| !blockers.blocks(at(k % nu, k / nu)))
        .collect();
    // Open cells reached from the top row or either side are outside the piece.
    let mut seen = vec![false; nu * nv];
    let edge_cells = (0..nu)
        .map(|i| i + (nv - 1) * nu)
        .chain((0..nv).flat_map(|j| [j * nu, j * nu + nu - 1]));
    flood(&open, &mut seen, (nu, nv), edge_cells.collect());
    let mut out = Vec::new();
    for start in 0..nu * nv {
        if !open[start] || seen[start] {
            continue;
        }
        let cells = flood(&open, &mut seen, (nu, nv), vec![start]);
        let (mut lo, mut hi) = ([usize::MAX; 2], [0; 2]);
        for &k in &cells {
            let (i, j) = (k % nu, k / nu);
            lo = [lo[0].min(i), lo[1].min(j)];
            hi = [hi[0].max(i), hi[1].max(j)];
        }
        let boxed = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
        if (cells.len() as f64) < MIN_FILL * boxed as f64 {
            continue;
        }
        let mid = at((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2);
        let open_at = |p: [f64; 2]| !blockers.blocks(p);
        let left = edge(|u| open_at([u, mid[1]]), at(lo[0], 0)[0] - step, mid[0]);
        let right = edge(|u| open_at([u, mid[1]]), at(hi[0], 0)[0] + step, mid[0]);
        let top = edge(|v| open_at([mid[0], v]), at(0, hi[1])[1] + step, mid[1]);
        let reaches_floor = lo[1] == 0;
        let bottom = if reaches_floor {
            floor
        } else {
            edge(|v| open_at([mid[0], v]), at(0, lo[1])[1] - step, mid[1])
        };
        let hole = Hole {
            lo: [left, bottom],
            hi: [right, top],
            reaches_floor,
        };
        if hole.hi[0] - hole.lo[0] >= MIN_OPENING_M && hole.hi[1] - hole.lo[1] >= MIN_OPENING_M {
            out.push(hole);
        }
    }
    out
}

/// The open cells connected to `starts` (those open among them), marked in `seen`.
fn flood(
    open: &[bool],
    seen: &mut [bool],
    (nu, nv): (usize, usize),
    starts: Vec<usize>,
) -> Vec<usize> {
    let mut stack: Vec<usize> = starts
        .into_iter()
        .filter(|&k| open[k] && !seen[k])
        .collect();
    stack.iter().for_each(|&k| seen[k] = true);
    let mut cells = Vec::new();
    while let Some(k) = stack.pop() {
        cells.push(k);
        let (i, j) = (k % nu, k / nu);
        let neighbours = [
            (i > 0).then(|| k - 1),
            (i + 1 < nu).then(|| k + 1),
            (j > 0).then(|| k - nu),
            (j + 1 < nv).then(|| k + nu),
        ];
        for n in neighbours.into_iter().flatten() {
            if open[n] && !seen[n] {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    cells
}

/// Where `open` turns from false (at `blocked`) to true (at `inside`), to 0.1 mm.
fn edge(open: impl Fn(f64) -> bool, mut blocked: f64, mut inside: f64) -> f64 {
    for _ in 0..40 {
        if (blocked - inside).abs() < 1e-4 {
            break;
        }
        let mid = (blocked + inside) / 2.0;
        if open(mid) {
            inside = mid;
        } else {
            blocked = mid;
        }
    }
    (blocked + inside) / 2.0
}

fn mm(x: f64) -> f64 {
    let r = (x * 1000.0).round() / 1000.0;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// The convex hull of points, counter-clockwise (Andrew's monotone chain).
fn convex_hull(mut points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(points.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let run: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in run {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Strictly inside a counter-clockwise convex polygon: a ray grazing a hull's face is
/// not blocked by it.
fn in_convex(poly: &[[f64; 2]], p: [f64; 2]) -> bool {
    (0..poly.len()).all(|i| cross(poly[i], poly[(i + 1) % poly.len()], p) > 1e-9)
}

fn in_triangle(t: &[[f64; 2]; 3], p: [f64; 2]) -> bool {
    let d = [
        cross(t[0], t[1], p),
        cross(t[1], t[2], p),
        cross(t[2], t[0], p),
    ];
    d.iter().all(|&x| x > 1e-9) || d.iter().all(|&x| x < -1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuboid(lo: [f64; 3], hi: [f64; 3]) -> Vec<[f64; 3]> {
        (0..8)
            .map(|k| {
                [
                    if k & 1 == 0 { lo[0] } else { hi[0] },
                    if k & 2 == 0 { lo[1] } else { hi[1] },
                    if k & 4 == 0 { lo[2] } else { hi[2] },
                ]
            })
            .collect()
    }

    #[test]
    fn a_doorway_between_two_posts_and_a_lintel_is_found_to_the_millimetre() {
        let left = cuboid([-2.0, -0.25, 0.0], [-0.6, 0.25, 3.0]);
        let right = cuboid([0.6, -0.25, 0.0], [2.0, 0.25, 3.0]);
        let lintel = cuboid([-0.6, -0.25, 2.2], [0.6, 0.25, 3.0]);
        let hulls = [left.as_slice(), right.as_slice(), lintel.as_slice()];
        let found = apertures(&hulls, &[], [[-2.0, -0.25, 0.0], [2.0, 0.25, 3.0]]);
        assert_eq!(found.len(), 1, "{found:?}");
        let door = &found[0];
        assert_eq!(door["kind"], "door");
        assert_eq!(door["axis"], "y");
        assert_eq!(door["width_m"], 1.2);
        assert_eq!(door["height_m"], 2.2);
        assert_eq!(door["centre_m"], json!([0.0, 0.0, 1.1]));
    }

    #[test]
    fn a_plugged_doorway_and_a_notch_open_to_the_top_are_not_apertures() {
        let wall = cuboid([-2.0, -0.25, 0.0], [2.0, 0.25, 3.0]);
        let bounds = [[-2.0, -0.25, 0.0], [2.0, 0.25, 3.0]];
        assert!(apertures(&[wall.as_slice()], &[], bounds).is_empty());
        let left = cuboid([-2.0, -0.25, 0.0], [-0.6, 0.25, 3.0]);
        let right = cuboid([0.6, -0.25, 0.0], [2.0, 0.25, 3.0]);
        assert!(apertures(&[left.as_slice(), right.as_slice()], &[], bounds).is_empty());
    }

    #[test]
    fn a_hole_framed_all_round_is_a_window() {
        let bounds = [[-2.0, -0.25, 0.0], [2.0, 0.25, 3.0]];
        let parts = [
            cuboid([-2.0, -0.25, 0.0], [-0.5, 0.25, 3.0]),
            cuboid([0.5, -0.25, 0.0], [2.0, 0.25, 3.0]),
            cuboid([-0.5, -0.25, 0.0], [0.5, 0.25, 1.0]),
            cuboid([-0.5, -0.25, 2.0], [0.5, 0.25, 3.0]),
        ];
        let hulls: Vec<&[[f64; 3]]> = parts.iter().map(Vec::as_slice).collect();
        let found = apertures(&hulls, &[], bounds);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["kind"], "window");
        assert_eq!(found[0]["height_m"], 1.0);
        assert_eq!(found[0]["centre_m"], json!([0.0, 0.0, 1.5]));
    }
}
