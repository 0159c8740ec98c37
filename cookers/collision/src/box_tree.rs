//! A bounding-box tree over a model's regions, built when a model is built or read (it is
//! derived from the regions' vertices, not stored), so a ray visits the few regions along
//! its path, nearest first, instead of testing every region's box.

use crate::inline_stack::InlineStack;
use crate::vec3::V3;

/// Boxes are padded by this (world units, 0.3 mm): more than the f32 rounding by which a
/// hull's planes can reach past its vertices, so a ray never enters solid before its box.
const PAD_WU: f64 = 1e-4;

/// An inner node holds both children's boxes, side by side per axis, so one pass tests
/// the ray against both (and the compiler can do the two lanes at once).
#[derive(Debug, Clone, PartialEq)]
struct Node {
    lo: [[f64; 2]; 3],
    hi: [[f64; 2]; 3],
    /// Per lane: an item (a leaf) or the index of an inner node.
    child: [Child; 2],
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Child {
    Item(usize),
    Node(usize),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoxTree {
    /// The whole tree's box, and what it holds: one item, or node 0.
    root: Option<(V3, V3, Child)>,
    nodes: Vec<Node>,
}

/// A ray with its reciprocal direction, for slab tests.
pub struct Ray {
    origin: V3,
    inverse: V3,
    /// Axes the ray does not move along; their slabs are a plain inside test (a slab test
    /// would compute 0·inf for a ray lying on the slab's edge).
    parallel: [bool; 3],
    /// Axes the ray moves down along, whose slabs it enters at the high side.
    negative: [bool; 3],
}

impl Ray {
    pub fn new(origin: V3, dir: V3) -> Ray {
        Ray {
            origin,
            inverse: dir.map(|c| 1.0 / c),
            parallel: dir.map(|c| c == 0.0),
            negative: dir.map(|c| c < 0.0),
        }
    }

    /// Where the ray enters and leaves each of two boxes within `0..=max_t`, if it meets
    /// them.
    fn spans(&self, lo: &[[f64; 2]; 3], hi: &[[f64; 2]; 3], max_t: f64) -> [Option<(f64, f64)>; 2] {
        let mut t0 = [0.0f64; 2];
        let mut t1 = [max_t; 2];
        for a in 0..3 {
            if self.parallel[a] {
                for l in 0..2 {
                    if self.origin[a] < lo[a][l] || self.origin[a] > hi[a][l] {
                        t0[l] = f64::INFINITY;
                    }
                }
                continue;
            }
            let (enter, leave) = if self.negative[a] {
                (&hi[a], &lo[a])
            } else {
                (&lo[a], &hi[a])
            };
            for l in 0..2 {
                let near = (enter[l] - self.origin[a]) * self.inverse[a];
                let far = (leave[l] - self.origin[a]) * self.inverse[a];
                // Plain comparisons, not f64::max/min, which cost several instructions each.
                t0[l] = if near > t0[l] { near } else { t0[l] };
                t1[l] = if far < t1[l] { far } else { t1[l] };
            }
        }
        [0, 1].map(|l| (t0[l] <= t1[l]).then_some((t0[l], t1[l])))
    }
}

fn bounds(boxes: &[(V3, V3)], items: &[usize]) -> (V3, V3) {
    let mut lo = [f64::MAX; 3];
    let mut hi = [f64::MIN; 3];
    for &i in items {
        for a in 0..3 {
            lo[a] = lo[a].min(boxes[i].0[a] - PAD_WU);
            hi[a] = hi[a].max(boxes[i].1[a] + PAD_WU);
        }
    }
    (lo, hi)
}

impl BoxTree {
    pub fn build(boxes: &[(V3, V3)]) -> BoxTree {
        let mut tree = BoxTree::default();
        let mut items: Vec<usize> = (0..boxes.len()).collect();
        if !items.is_empty() {
            let (lo, hi) = bounds(boxes, &items);
            let root = tree.subtree(boxes, &mut items);
            tree.root = Some((lo, hi, root));
        }
        tree
    }

    /// Splits `items` at the median of their centres along their widest axis.
    fn subtree(&mut self, boxes: &[(V3, V3)], items: &mut [usize]) -> Child {
        if let [only] = items {
            return Child::Item(*only);
        }
        let (lo, hi) = bounds(boxes, items);
        let axis = (0..3)
            .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
            .unwrap_or(0);
        let centre = |i: usize| boxes[i].0[axis] + boxes[i].1[axis];
        items.sort_by(|&a, &b| centre(a).total_cmp(&centre(b)).then(a.cmp(&b)));
        let at = self.nodes.len();
        self.nodes.push(Node {
            lo: [[0.0; 2]; 3],
            hi: [[0.0; 2]; 3],
            child: [Child::Item(0); 2],
        });
        let (left, right) = items.split_at_mut(items.len() / 2);
        for (lane, part) in [left, right].into_iter().enumerate() {
            let (lo, hi) = bounds(boxes, part);
            for a in 0..3 {
                self.nodes[at].lo[a][lane] = lo[a];
                self.nodes[at].hi[a][lane] = hi[a];
            }
            self.nodes[at].child[lane] = self.subtree(boxes, part);
        }
        Child::Node(at)
    }

    /// Calls `visit(item, (entry, exit), limit)` for each item whose box the ray enters
    /// (between `entry` and `exit`) before `limit`, nearest box first; `visit` returns the
    /// new limit (a hit shortens the ray).
    pub fn walk_ray(
        &self,
        ray: &Ray,
        mut limit: f64,
        mut visit: impl FnMut(usize, (f64, f64), f64) -> f64,
    ) {
        let Some((lo, hi, root)) = self.root else {
            return;
        };
        let whole = ray.spans(&lo.map(|c| [c; 2]), &hi.map(|c| [c; 2]), limit)[0];
        let Some(span) = whole else {
            return;
        };
        let mut stack = InlineStack::<(Child, (f64, f64)), 16>::new((Child::Item(0), (0.0, 0.0)));
        stack.push((root, span));
        while let Some((child, span)) = stack.pop() {
            if span.0 > limit {
                continue;
            }
            let at = match child {
                Child::Item(item) => {
                    limit = visit(item, span, limit);
                    continue;
                }
                Child::Node(at) => at,
            };
            let node = &self.nodes[at];
            let [ta, tb] = ray.spans(&node.lo, &node.hi, limit);
            // Push the farther child first, so the nearer is walked first.
            let mut pair = [(node.child[0], ta), (node.child[1], tb)];
            if ta.map_or(f64::MAX, |t| t.0) < tb.map_or(f64::MAX, |t| t.0) {
                pair.swap(0, 1);
            }
            for (child, t) in pair {
                if let Some(t) = t {
                    stack.push((child, t));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ray_visits_exactly_the_boxes_it_meets_nearest_first() {
        let boxes: Vec<(V3, V3)> = (0..20)
            .map(|i| {
                let x = i as f64 * 2.0;
                ([x, 0.0, 0.0], [x + 1.0, 1.0, 1.0])
            })
            .collect();
        let tree = BoxTree::build(&boxes);
        let mut seen = Vec::new();
        tree.walk_ray(
            &Ray::new([-5.0, 0.5, 0.5], [1.0, 0.0, 0.0]),
            100.0,
            |i, _, limit| {
                seen.push(i);
                limit
            },
        );
        assert_eq!(seen, (0..20).collect::<Vec<_>>());
        let mut seen = Vec::new();
        tree.walk_ray(
            &Ray::new([-5.0, 0.5, 0.5], [1.0, 0.0, 0.0]),
            100.0,
            |i, _, limit| {
                seen.push(i);
                if i == 3 {
                    3.0 * 2.0 + 5.5
                } else {
                    limit
                }
            },
        );
        assert_eq!(seen, [0, 1, 2, 3], "a hit ends the walk at boxes beyond it");
        let mut seen = Vec::new();
        tree.walk_ray(
            &Ray::new([-5.0, 3.0, 0.5], [1.0, 0.0, 0.0]),
            100.0,
            |i, _, l| {
                seen.push(i);
                l
            },
        );
        assert!(seen.is_empty());
        // Parallel to two axes and lying on a box's face: it still meets the box.
        let mut seen = Vec::new();
        tree.walk_ray(
            &Ray::new([4.0, 1.0 + PAD_WU, -3.0], [0.0, 0.0, 1.0]),
            100.0,
            |i, _, l| {
                seen.push(i);
                l
            },
        );
        assert_eq!(seen, [2]);
    }
}
