//! A bounding-box tree over a model's regions, built when a model is built or read (it is
//! derived from the regions' vertices, not stored), so a ray visits the few regions along
//! its path, nearest first, instead of testing every region's box.

use crate::inline_stack::InlineStack;
use crate::vec3::{max, min, V3};

/// Boxes are padded by this (world units, 0.3 mm): more than the f32 rounding by which a
/// hull's planes can reach past its vertices, so a ray never enters solid before its box.
const PAD_WU: f64 = 1e-4;

/// An inner node holds both children's boxes, side by side per axis, so one pass tests
/// the ray against both (and the compiler can do the two lanes at once).
#[derive(Debug, Clone, PartialEq)]
struct Node {
    /// `sides[0]` the low corners, `sides[1]` the high ones: `sides[side][axis][lane]`.
    sides: [[[f64; 2]; 3]; 2],
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
///
/// A zero direction component has an infinite reciprocal: a slab the ray lies inside gives
/// -inf and +inf, one it lies outside gives +inf (a miss), and a ray exactly on the slab's
/// edge gives 0·inf = NaN, which the comparisons below skip, so it counts as inside.
pub struct Ray {
    origin: V3,
    inverse: V3,
    /// Per axis, the side (0 low, 1 high) of a slab the ray enters it by.
    enter_side: [usize; 3],
}

impl Ray {
    pub fn new(origin: V3, dir: V3) -> Ray {
        let inverse = dir.map(|c| 1.0 / c);
        Ray {
            origin,
            inverse,
            // From the reciprocal's sign, so -0.0 (reciprocal -inf) counts as moving down.
            enter_side: inverse.map(|c| usize::from(c < 0.0)),
        }
    }

    /// Where the ray enters and leaves each of two boxes within `0..=max_t`, if it meets
    /// them.
    #[inline(always)]
    fn spans(&self, sides: &[[[f64; 2]; 3]; 2], max_t: f64) -> [Option<(f64, f64)>; 2] {
        let mut t0 = [0.0f64; 2];
        let mut t1 = [max_t; 2];
        for a in 0..3 {
            let enter = &sides[self.enter_side[a]][a];
            let leave = &sides[1 - self.enter_side[a]][a];
            for l in 0..2 {
                let near = (enter[l] - self.origin[a]) * self.inverse[a];
                let far = (leave[l] - self.origin[a]) * self.inverse[a];
                t0[l] = max(near, t0[l]);
                t1[l] = min(far, t1[l]);
            }
        }
        [0, 1].map(|l| (t0[l] <= t1[l]).then_some((t0[l], t1[l])))
    }
}

fn bounds(boxes: &[(V3, V3)], items: &[usize]) -> (V3, V3) {
    let (lo, hi) = crate::vec3::union(items.iter().map(|&i| boxes[i]));
    (lo.map(|c| c - PAD_WU), hi.map(|c| c + PAD_WU))
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
            sides: [[[0.0; 2]; 3]; 2],
            child: [Child::Item(0); 2],
        });
        let (left, right) = items.split_at_mut(items.len() / 2);
        for (lane, part) in [left, right].into_iter().enumerate() {
            let (lo, hi) = bounds(boxes, part);
            for a in 0..3 {
                self.nodes[at].sides[0][a][lane] = lo[a];
                self.nodes[at].sides[1][a][lane] = hi[a];
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
        let whole = ray.spans(&[lo.map(|c| [c; 2]), hi.map(|c| [c; 2])], limit)[0];
        let Some(span) = whole else {
            return;
        };
        let mut stack = InlineStack::<(Child, (f64, f64)), 8>::new();
        let mut next = Some((root, span));
        // The nearer child is walked next without a trip through the stack; only the
        // farther one of two is pushed.
        while let Some((child, span)) = next.take().or_else(|| stack.pop()) {
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
            match ray.spans(&node.sides, limit) {
                [Some(a), Some(b)] => {
                    let (near, far) = if b.0 < a.0 {
                        ((node.child[1], b), (node.child[0], a))
                    } else {
                        ((node.child[0], a), (node.child[1], b))
                    };
                    stack.push(far);
                    next = Some(near);
                }
                [Some(a), None] => next = Some((node.child[0], a)),
                [None, Some(b)] => next = Some((node.child[1], b)),
                [None, None] => {}
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
        // The items a ray visits; a hit at `stop` (an item and its distance) shortens it.
        let visits = |origin: V3, dir: V3, stop: Option<(usize, f64)>| {
            let mut seen = Vec::new();
            tree.walk_ray(&Ray::new(origin, dir), 100.0, |i, _, limit| {
                seen.push(i);
                match stop {
                    Some((item, t)) if item == i => t,
                    _ => limit,
                }
            });
            seen
        };
        let along_x = [1.0, 0.0, 0.0];
        assert_eq!(
            visits([-5.0, 0.5, 0.5], along_x, None),
            (0..20).collect::<Vec<_>>()
        );
        assert_eq!(
            visits([-5.0, 0.5, 0.5], along_x, Some((3, 3.0 * 2.0 + 5.5))),
            [0, 1, 2, 3],
            "a hit ends the walk at boxes beyond it"
        );
        assert!(visits([-5.0, 3.0, 0.5], along_x, None).is_empty());
        // Parallel to two axes and lying on a box's face: it still meets the box.
        assert_eq!(
            visits([4.0, 1.0 + PAD_WU, -3.0], [0.0, 0.0, 1.0], None),
            [2]
        );
    }
}
