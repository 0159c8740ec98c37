//! MOPP code: Havok's byte-coded bounding-volume tree, over the collision surfaces.
//!
//! Coordinates are quantized to 24-bit integers in a cube fitted around the primitives
//! (`scale = 2^24 / side`). Nodes compare the top 8 bits of the current window. A rescale
//! opcode moves the window to a sub-cube and narrows it, so deep nodes compare finer bits.
//! The encoder floors minima and ceils maxima when it quantizes, so a split plane can only
//! move outward: a query may get extra candidates, but never misses one.
//!
//! Opcodes (`../shared/reference/formats.md` §5; multi-byte immediates are big-endian):
//!
//! | op | bytes | meaning |
//! |---|---|---|
//! | 0x00 | 1 | return |
//! | 0x01-0x04 | 4 | rescale: `offset[a] += byte[a] << shift`, then `shift -= op` |
//! | 0x05 / 0x06 / 0x07 | 2 / 3 / 4 | jump forward 8 / 16 / 24-bit distance |
//! | 0x09 / 0x0a / 0x0b | 2 / 3 / 5 | add to the terminal base (8 / 16 / 32-bit) |
//! | 0x10-0x12 | 4 | split on x/y/z: left max, right min, 8-bit jump to the right child |
//! | 0x20-0x22 | 3 | split on one plane: left if `lo <= p`, right if `hi >= p`, 8-bit jump |
//! | 0x23-0x25 | 7 | split, two planes, 16-bit jumps to both children |
//! | 0x26-0x28 | 3 | clip: the subtree only covers `[lo, hi]` on x/y/z |
//! | 0x30-0x4f | 1 | terminal 0..31 (plus the base) |
//! | 0x50 / 0x51 / 0x52 / 0x53 | 2 / 3 / 4 / 5 | terminal with an 8 / 16 / 24 / 32-bit index |
//!
//! A value compared at a node is `(q - offset) >> shift`, with the shift starting at 16.
//! Jumps are measured from the end of their instruction and only go forward, so every
//! query ends.

use crate::inline_stack::InlineStack;
use crate::CollisionError;

pub const FULL: u32 = 1 << 24;
/// An inner node clips an axis only when its primitives span at most half the window
/// there: a clip costs a step for every query that reaches the node, so it must pay.
const WIDTH_LIMIT: i64 = 128;
const START_SHIFT: u32 = 16;

/// Quantization frame and code. `origin` and `scale` are stored as f32; the encoder uses
/// exactly those values so the reader quantizes the same way.
#[derive(Debug, Clone, PartialEq)]
pub struct Mopp {
    pub origin: [f32; 3],
    /// Quantized units per world unit.
    pub scale: f32,
    pub code: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MoppStats {
    pub code_bytes: usize,
    pub leaves: usize,
    pub terminals: usize,
    pub max_depth: usize,
    pub mean_depth: f64,
    pub terminals_per_leaf: f64,
}

type QBox = ([i64; 3], [i64; 3]);

impl Mopp {
    fn quantize(&self, lo: [f64; 3], hi: [f64; 3]) -> QBox {
        let q = |x: f64, a: usize, up: bool| {
            let v = (x - f64::from(self.origin[a])) * f64::from(self.scale);
            let v = if up { v.ceil() } else { v.floor() };
            v.clamp(0.0, f64::from(FULL - 1)) as i64
        };
        (
            [0, 1, 2].map(|a| q(lo[a], a, false)),
            [0, 1, 2].map(|a| q(hi[a], a, true)),
        )
    }

    fn cube_overlaps(&self, lo: [f64; 3], hi: [f64; 3]) -> bool {
        (0..3).all(|a| {
            let o = f64::from(self.origin[a]);
            let side = f64::from(FULL) / f64::from(self.scale);
            hi[a] >= o && lo[a] <= o + side
        })
    }

    /// Builds the code over primitive bounding boxes (world units), indexed by position.
    pub fn build(boxes: &[([f64; 3], [f64; 3])]) -> Result<Mopp, CollisionError> {
        if boxes.is_empty() {
            return Err(CollisionError::new(
                "mopp_empty",
                None,
                "there are no collision surfaces to index",
            ));
        }
        let (lo, hi) = crate::vec3::union(boxes.iter().copied());
        let side = (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
        let pad = side * 1e-3 + 1e-4;
        let side = side + 2.0 * pad;
        let origin = [0, 1, 2].map(|a| (lo[a] - pad) as f32);
        // Round the scale down so the f32 origin's rounding cannot push a maximum out.
        let scale = ((f64::from(FULL) / side) * (1.0 - 1e-6)) as f32;
        let mut mopp = Mopp {
            origin,
            scale,
            code: Vec::new(),
        };
        let quantized: Vec<QBox> = boxes.iter().map(|(l, h)| mopp.quantize(*l, *h)).collect();
        let prims: Vec<usize> = (0..boxes.len()).collect();
        mopp.code = encode(&quantized, prims, START_SHIFT, [0; 3]);
        Ok(mopp)
    }

    /// Primitives whose boxes may overlap the box `lo..hi` (world units): a superset of the
    /// true overlaps, sorted.
    pub fn query_box(&self, lo: [f64; 3], hi: [f64; 3]) -> Result<Vec<u32>, String> {
        if !self.cube_overlaps(lo, hi) {
            return Ok(Vec::new());
        }
        let (qlo, qhi) = self.quantize(lo, hi);
        let mut out = Vec::new();
        self.walk(
            (0.0, 0.0),
            |state: &State, span, axis, left_max, right_min| {
                let lo_c = (qlo[axis] - state.offset[axis]) >> state.shift;
                let hi_c = (qhi[axis] - state.offset[axis]) >> state.shift;
                Children {
                    left: (lo_c <= left_max).then_some(*span),
                    right: (hi_c >= right_min).then_some(*span),
                    right_first: false,
                }
            },
            |_| true,
            |p, _| {
                out.push(p);
                Ok(())
            },
        )?;
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Runs the code for the segment `origin + t·dir`, `0 <= t <= max_t` (world units):
    /// calls `visit(primitive, limit)` for each primitive whose box the segment may cross
    /// before `limit`, nearer subtrees first, without allocating. `visit` returns the new
    /// limit, so a hit prunes every subtree the ray only reaches beyond it.
    pub fn walk_ray(
        &self,
        origin: [f64; 3],
        dir: [f64; 3],
        max_t: f64,
        mut visit: impl FnMut(u32, f64) -> Result<f64, String>,
    ) -> Result<(), String> {
        // The walk runs in quantized units, where the code's planes are integers and one
        // cell (the padding that keeps a query from missing) is 1.0: the ray there is
        // `from + t·step`, with the same `t` as in world units.
        let scale = f64::from(self.scale);
        let from: [f64; 3] =
            std::array::from_fn(|a| (origin[a] - f64::from(self.origin[a])) * scale);
        let step = dir.map(|c| c * scale);
        let inverse = step.map(|c| 1.0 / c);
        // Clips a span to `q[axis] <= bound` (below) or `q[axis] >= bound`.
        let clip = |span: (f64, f64), axis: usize, bound: f64, below: bool| {
            let (mut t0, mut t1) = span;
            if step[axis] == 0.0 {
                let inside = if below {
                    from[axis] <= bound
                } else {
                    from[axis] >= bound
                };
                return inside.then_some(span);
            }
            let t = (bound - from[axis]) * inverse[axis];
            // Moving up the axis, `q <= bound` ends the span and `q >= bound` starts it.
            if below == (step[axis] > 0.0) {
                if t < t1 {
                    t1 = t;
                }
            } else if t > t0 {
                t0 = t;
            }
            (t0 <= t1).then_some((t0, t1))
        };
        let mut start = Some((0.0, max_t));
        for a in 0..3 {
            start = start
                .and_then(|s| clip(s, a, -1.0, false))
                .and_then(|s| clip(s, a, f64::from(FULL) + 1.0, true));
        }
        let Some(start) = start else {
            return Ok(());
        };
        let limit = std::cell::Cell::new(max_t);
        self.walk(
            start,
            |state, span, axis, left_max, right_min| {
                let upper = (state.offset[axis] + ((left_max + 1) << state.shift)) as f64;
                let lower = (state.offset[axis] + (right_min << state.shift)) as f64;
                Children {
                    left: clip(*span, axis, upper + 1.0, true),
                    right: clip(*span, axis, lower - 1.0, false),
                    right_first: dir[axis] < 0.0,
                }
            },
            |span| span.0 <= limit.get(),
            |p, _| {
                limit.set(visit(p, limit.get())?);
                Ok(())
            },
        )
    }

    /// Runs the code from `first`. At each split, `decide` maps the branch's span to its
    /// children's spans (`None`: not visited) and says which to walk first; `alive` drops a
    /// branch whose span no longer matters; `terminal` receives each primitive reached.
    fn walk(
        &self,
        first: (f64, f64),
        decide: impl Fn(&State, &(f64, f64), usize, i64, i64) -> Children,
        alive: impl Fn(&(f64, f64)) -> bool,
        mut terminal: impl FnMut(u32, &(f64, f64)) -> Result<(), String>,
    ) -> Result<(), String> {
        let code = &self.code;
        let mut stack = InlineStack::<(State, (f64, f64)), 16>::new((
            State {
                pc: 0,
                shift: 0,
                offset: [0; 3],
                base: 0,
            },
            (0.0, 0.0),
        ));
        stack.push((
            State {
                pc: 0,
                shift: START_SHIFT as i64,
                offset: [0; 3],
                base: 0,
            },
            first,
        ));
        while let Some((mut s, mut span)) = stack.pop() {
            while alive(&span) {
                let op = *code.get(s.pc).ok_or("the code runs past its end")?;
                let arg = |i: usize| {
                    code.get(s.pc + i)
                        .copied()
                        .map(i64::from)
                        .ok_or("an instruction runs past the end")
                };
                match op {
                    0x00 => break,
                    0x01..=0x04 => {
                        for a in 0..3 {
                            s.offset[a] += arg(1 + a)? << s.shift;
                        }
                        s.shift -= i64::from(op);
                        if s.shift < 0 {
                            return Err("a rescale goes below the finest scale".into());
                        }
                        s.pc += 4;
                    }
                    0x05 => s.pc += 2 + arg(1)? as usize,
                    0x06 => s.pc += 3 + ((arg(1)? << 8) | arg(2)?) as usize,
                    0x07 => s.pc += 4 + ((arg(1)? << 16) | (arg(2)? << 8) | arg(3)?) as usize,
                    0x09 => {
                        s.base += arg(1)? as u32;
                        s.pc += 2;
                    }
                    0x0a => {
                        s.base += ((arg(1)? << 8) | arg(2)?) as u32;
                        s.pc += 3;
                    }
                    0x0b => {
                        s.base = s.base.wrapping_add(
                            ((arg(1)? << 24) | (arg(2)? << 16) | (arg(3)? << 8) | arg(4)?) as u32,
                        );
                        s.pc += 5;
                    }
                    0x10..=0x12 | 0x20..=0x22 | 0x23..=0x25 => {
                        let (axis, left_max, right_min, left_pc, right_pc) = match op {
                            0x10..=0x12 => (
                                (op - 0x10) as usize,
                                arg(1)?,
                                arg(2)?,
                                s.pc + 4,
                                s.pc + 4 + arg(3)? as usize,
                            ),
                            0x20..=0x22 => (
                                (op - 0x20) as usize,
                                arg(1)?,
                                arg(1)?,
                                s.pc + 3,
                                s.pc + 3 + arg(2)? as usize,
                            ),
                            _ => (
                                (op - 0x23) as usize,
                                arg(1)?,
                                arg(2)?,
                                s.pc + 7 + ((arg(3)? << 8) | arg(4)?) as usize,
                                s.pc + 7 + ((arg(5)? << 8) | arg(6)?) as usize,
                            ),
                        };
                        let children = decide(&s, &span, axis, left_max, right_min);
                        let left = children.left.map(|l| (left_pc, l));
                        let right = children.right.map(|r| (right_pc, r));
                        let (now, later) = if children.right_first {
                            (right, left)
                        } else {
                            (left, right)
                        };
                        if let Some((pc, later)) = later {
                            stack.push((State { pc, ..s }, later));
                        }
                        match now {
                            Some((pc, now)) => {
                                s.pc = pc;
                                span = now;
                            }
                            None => break,
                        }
                    }
                    0x26..=0x28 => {
                        let axis = (op - 0x26) as usize;
                        let (lo, hi) = (arg(1)?, arg(2)?);
                        // A clip keeps the branch where it is both left of `hi` and right of
                        // `lo`, which is what a split at those planes decides.
                        let children = decide(&s, &span, axis, hi, lo);
                        match (children.left, children.right) {
                            (Some(l), Some(r)) if l.0.max(r.0) <= l.1.min(r.1) => {
                                span = (l.0.max(r.0), l.1.min(r.1));
                                s.pc += 3;
                            }
                            _ => break,
                        }
                    }
                    0x30..=0x4f => {
                        terminal(s.base + u32::from(op - 0x30), &span)?;
                        break;
                    }
                    0x50..=0x53 => {
                        let n = usize::from(op - 0x50) + 1;
                        let mut v: u32 = 0;
                        for i in 0..n {
                            v = (v << 8) | arg(1 + i)? as u32;
                        }
                        terminal(s.base.wrapping_add(v), &span)?;
                        break;
                    }
                    other => return Err(format!("unknown opcode 0x{other:02x} at byte {}", s.pc)),
                }
            }
        }
        Ok(())
    }

    /// Size, depth and leaf statistics, read from the code itself.
    pub fn stats(&self) -> Result<MoppStats, String> {
        let mut stats = MoppStats {
            code_bytes: self.code.len(),
            ..MoppStats::default()
        };
        let mut depth_sum = 0usize;
        let mut stack = vec![(0usize, 0usize)];
        let code = &self.code;
        while let Some((mut pc, depth)) = stack.pop() {
            loop {
                let op = *code.get(pc).ok_or("the code runs past its end")?;
                let arg = |i: usize| {
                    code.get(pc + i)
                        .copied()
                        .map(usize::from)
                        .ok_or("an instruction runs past the end")
                };
                match op {
                    0x00 => break,
                    0x01..=0x04 => pc += 4,
                    0x05 => pc += 2 + arg(1)?,
                    0x06 => pc += 3 + ((arg(1)? << 8) | arg(2)?),
                    0x07 => pc += 4 + ((arg(1)? << 16) | (arg(2)? << 8) | arg(3)?),
                    0x09 => pc += 2,
                    0x0a => pc += 3,
                    0x0b => pc += 5,
                    0x10..=0x12 => {
                        stack.push((pc + 4 + arg(3)?, depth + 1));
                        stack.push((pc + 4, depth + 1));
                        break;
                    }
                    0x20..=0x22 => {
                        stack.push((pc + 3 + arg(2)?, depth + 1));
                        stack.push((pc + 3, depth + 1));
                        break;
                    }
                    0x23..=0x25 => {
                        stack.push((pc + 7 + ((arg(5)? << 8) | arg(6)?), depth + 1));
                        stack.push((pc + 7 + ((arg(3)? << 8) | arg(4)?), depth + 1));
                        break;
                    }
                    0x26..=0x28 => pc += 3,
                    0x30..=0x53 => {
                        stats.leaves += 1;
                        stats.terminals += 1;
                        stats.max_depth = stats.max_depth.max(depth);
                        depth_sum += depth;
                        break;
                    }
                    other => return Err(format!("unknown opcode 0x{other:02x} at byte {pc}")),
                }
            }
        }
        if stats.leaves > 0 {
            stats.mean_depth = depth_sum as f64 / stats.leaves as f64;
            stats.terminals_per_leaf = stats.terminals as f64 / stats.leaves as f64;
        }
        Ok(stats)
    }
}

/// A split's children as the walk should visit them: their spans, and the order.
struct Children {
    left: Option<(f64, f64)>,
    right: Option<(f64, f64)>,
    right_first: bool,
}

#[derive(Debug, Clone, Copy)]
struct State {
    pc: usize,
    shift: i64,
    offset: [i64; 3],
    base: u32,
}

fn terminal(index: usize) -> Vec<u8> {
    match index {
        0..=31 => vec![0x30 + index as u8],
        32..=0xFF => vec![0x50, index as u8],
        0x100..=0xFFFF => vec![0x51, (index >> 8) as u8, index as u8],
        0x1_0000..=0xFF_FFFF => vec![0x52, (index >> 16) as u8, (index >> 8) as u8, index as u8],
        _ => {
            let b = (index as u32).to_be_bytes();
            vec![0x53, b[0], b[1], b[2], b[3]]
        }
    }
}

fn encode(q: &[QBox], mut prims: Vec<usize>, shift: u32, offset: [i64; 3]) -> Vec<u8> {
    let mut lo = [i64::MAX; 3];
    let mut hi = [i64::MIN; 3];
    for &p in &prims {
        for a in 0..3 {
            lo[a] = lo[a].min(q[p].0[a]);
            hi[a] = hi[a].max(q[p].1[a]);
        }
    }
    let mut code = Vec::new();
    let (mut shift, mut offset) = (shift, offset);
    // Narrow the window to this node's box when it fits a finer one.
    if let Some(k) = (1..=4u32.min(shift)).rev().find(|&k| {
        (0..3).all(|a| {
            let base = (lo[a] - offset[a]) >> shift;
            let new_off = offset[a] + (base << shift);
            (hi[a] - new_off) >> (shift - k) <= 255
        })
    }) {
        let bases = [0, 1, 2].map(|a| (lo[a] - offset[a]) >> shift);
        code.extend([k as u8, bases[0] as u8, bases[1] as u8, bases[2] as u8]);
        for a in 0..3 {
            offset[a] += bases[a] << shift;
        }
        shift -= k;
    }
    // A node clips to its primitives' box on the axes where that box is much narrower than
    // the window, so a query that only shares the splits' slabs stops here instead of deep
    // in the subtree (a ray crossing the whole piece would otherwise walk most of the
    // tree). A leaf clips on every axis the window is wider than its primitive.
    for a in 0..3 {
        let (c_lo, c_hi) = ((lo[a] - offset[a]) >> shift, (hi[a] - offset[a]) >> shift);
        let narrow = prims.len() == 1 || c_hi - c_lo <= WIDTH_LIMIT;
        if (c_lo > 0 || c_hi < 255) && narrow {
            code.extend([
                0x26 + a as u8,
                c_lo.clamp(0, 255) as u8,
                c_hi.clamp(0, 255) as u8,
            ]);
        }
    }
    if prims.len() == 1 {
        code.extend(terminal(prims[0]));
        return code;
    }
    let centre = |p: usize, a: usize| q[p].0[a] + q[p].1[a];
    let spread = |a: usize| {
        let (mn, mx) = prims.iter().fold((i64::MAX, i64::MIN), |(mn, mx), &p| {
            (mn.min(centre(p, a)), mx.max(centre(p, a)))
        });
        mx - mn
    };
    let axis = (0..3).max_by_key(|&a| spread(a)).unwrap_or(0);
    prims.sort_by_key(|&p| (centre(p, axis), p));
    let right = prims.split_off(prims.len() / 2);
    let left = prims;
    let cell = |v: i64| (v - offset[axis]) >> shift;
    let left_max = left.iter().map(|&p| cell(q[p].1[axis])).max().unwrap_or(0);
    let right_min = right.iter().map(|&p| cell(q[p].0[axis])).min().unwrap_or(0);
    let lc = encode(q, left, shift, offset);
    let rc = encode(q, right, shift, offset);
    let (l, r) = (left_max.clamp(0, 255) as u8, right_min.clamp(0, 255) as u8);
    if lc.len() <= 0xFF {
        code.extend([0x10 + axis as u8, l, r, lc.len() as u8]);
        code.extend(lc);
    } else if lc.len() <= 0xFFFF {
        let j = (lc.len() as u16).to_be_bytes();
        code.extend([0x23 + axis as u8, l, r, 0, 0, j[0], j[1]]);
        code.extend(lc);
    } else {
        // Right child first through a 24-bit jump over the left subtree.
        let j = (lc.len() as u32).to_be_bytes();
        code.extend([0x23 + axis as u8, l, r, 0, 4, 0, 0, 0x07, j[1], j[2], j[3]]);
        code.extend(lc);
    }
    code.extend(rc);
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize) -> Vec<([f64; 3], [f64; 3])> {
        (0..n)
            .map(|i| {
                let x = (i % 7) as f64;
                let y = (i / 7) as f64 * 0.5;
                ([x, y, 0.0], [x + 0.4, y + 0.3, 0.2 + i as f64 * 0.01])
            })
            .collect()
    }

    fn truth(boxes: &[([f64; 3], [f64; 3])], lo: [f64; 3], hi: [f64; 3]) -> Vec<u32> {
        (0..boxes.len() as u32)
            .filter(|&i| {
                (0..3).all(|a| boxes[i as usize].0[a] <= hi[a] && boxes[i as usize].1[a] >= lo[a])
            })
            .collect()
    }

    #[test]
    fn box_queries_never_miss_and_stay_tight() {
        for n in [1, 2, 3, 31, 32, 33, 300, 5000] {
            let boxes = grid(n);
            let mopp = Mopp::build(&boxes).unwrap();
            let all = mopp.query_box([-1e9; 3], [1e9; 3]).unwrap();
            assert_eq!(all.len(), n, "every primitive is reachable");
            for (i, (lo, hi)) in boxes.iter().enumerate().step_by(7) {
                let got = mopp.query_box(*lo, *hi).unwrap();
                let want = truth(&boxes, *lo, *hi);
                assert!(
                    want.iter().all(|w| got.contains(w)),
                    "n={n} box {i}: missed one"
                );
                assert!(
                    got.len() <= want.len() + 8,
                    "n={n} box {i}: {} candidates for {} hits",
                    got.len(),
                    want.len()
                );
            }
            assert!(mopp.query_box([100.0; 3], [101.0; 3]).unwrap().is_empty());
            let stats = mopp.stats().unwrap();
            assert_eq!(stats.terminals, n);
            assert_eq!(stats.terminals_per_leaf, 1.0);
        }
    }

    #[test]
    fn ray_queries_never_miss() {
        let boxes = grid(200);
        let mopp = Mopp::build(&boxes).unwrap();
        let o = [-1.0, 0.15, 0.1];
        let d = [1.0, 0.0, 0.0];
        let mut got = Vec::new();
        mopp.walk_ray(o, d, 100.0, |p, limit| {
            got.push(p);
            Ok(limit)
        })
        .unwrap();
        for (i, (lo, hi)) in boxes.iter().enumerate() {
            if lo[1] <= 0.15 && hi[1] >= 0.15 && lo[2] <= 0.1 && hi[2] >= 0.1 {
                assert!(got.contains(&(i as u32)), "missed {i}");
            }
        }
        assert!(got.len() < 40, "{} candidates", got.len());
    }

    #[test]
    fn hostile_code_is_an_error_not_a_panic() {
        let mut mopp = Mopp::build(&grid(40)).unwrap();
        for cut in 0..mopp.code.len() {
            let m = Mopp {
                code: mopp.code[..cut].to_vec(),
                ..mopp.clone()
            };
            let _ = m.query_box([-1e9; 3], [1e9; 3]);
            let _ = m.stats();
        }
        mopp.code = vec![0x08];
        assert!(mopp.query_box([-1e9; 3], [1e9; 3]).is_err());
        mopp.code = vec![
            0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x04, 0, 0, 0, 0x30,
        ];
        assert!(mopp.query_box([-1e9; 3], [1e9; 3]).is_err());
    }
}
