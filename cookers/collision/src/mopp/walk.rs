//! The query interpreters: each runs the code itself, a box query in the code's own
//! integers and a ray query in ray parameters. Malformed code is an error, never a panic;
//! code that reaches an instruction by several paths would make a query revisit it, which
//! is why every reader checks with `Mopp::stats` that the code is a tree.

use super::{
    decode, decode_frequent, decode_rest, window, Fault, Instruction, Mopp, FULL, START_SHIFT,
};
use crate::inline_stack::InlineStack;
use crate::vec3::{max, min};

/// A box query's branch: where its code starts and its window.
#[derive(Debug, Clone, Copy)]
struct BoxFrame {
    pc: usize,
    shift: u32,
    offset: [i64; 3],
    base: u32,
}

/// A ray query's branch: where its code starts, its window, and the part of the ray it
/// still covers. `rel` is the ray parameter where the ray crosses the window's low face on
/// each axis.
#[derive(Debug, Clone, Copy)]
struct RayFrame {
    pc: usize,
    shift: u32,
    base: u32,
    rel: [f64; 3],
    t0: f64,
    t1: f64,
}

impl Mopp {
    /// Primitives whose boxes may overlap the box `lo..hi` (world units): a superset of the
    /// true overlaps, sorted.
    pub fn query_box(&self, lo: [f64; 3], hi: [f64; 3]) -> Result<Vec<u32>, String> {
        if !self.cube_overlaps(lo, hi) {
            return Ok(Vec::new());
        }
        let (qlo, qhi) = self.quantize(lo, hi);
        let code = self.code.as_slice();
        let mut out = Vec::new();
        let mut stack = vec![BoxFrame {
            pc: 0,
            shift: START_SHIFT,
            offset: [0; 3],
            base: 0,
        }];
        while let Some(mut f) = stack.pop() {
            let cell = |f: &BoxFrame, a: usize, q: i64| (q - f.offset[a]) >> f.shift;
            loop {
                let (instruction, len) = decode(code, f.pc)?;
                let next = f.pc + len;
                match instruction {
                    Instruction::Clip { axis, lo, hi } => {
                        if cell(&f, axis, qhi[axis]) < i64::from(lo)
                            || cell(&f, axis, qlo[axis]) > i64::from(hi)
                        {
                            break;
                        }
                        f.pc = next;
                    }
                    Instruction::Split {
                        axis,
                        left_max,
                        right_min,
                        left,
                        right,
                    } => {
                        let go_left = cell(&f, axis, qlo[axis]) <= i64::from(left_max);
                        let go_right = cell(&f, axis, qhi[axis]) >= i64::from(right_min);
                        if go_right {
                            stack.push(BoxFrame {
                                pc: next + right,
                                ..f
                            });
                        }
                        if !go_left {
                            break;
                        }
                        f.pc = next + left;
                    }
                    Instruction::Rescale { shift, base } => {
                        for (offset, b) in f.offset.iter_mut().zip(base) {
                            *offset += i64::from(b) << f.shift;
                        }
                        f.shift = f.shift.checked_sub(shift).ok_or(Fault::BelowFinestScale)?;
                        f.pc = next;
                    }
                    Instruction::Terminal(index) => {
                        out.push(f.base.wrapping_add(index));
                        break;
                    }
                    Instruction::Return => break,
                    Instruction::Jump(distance) => f.pc = next + distance,
                    Instruction::AddBase(add) => {
                        f.base = f.base.wrapping_add(add);
                        f.pc = next;
                    }
                }
            }
        }
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
        // The walk tracks where the ray crosses the code's planes as ray parameters (the
        // same `t` as in world units). Per axis, `unit` is the `t` it takes to move one
        // quantized unit, the padding that keeps a query from missing. A direction
        // component too small to invert is bent to a tiny one: that moves the ray far
        // less than the padding, and keeps every `t` finite or infinite, never NaN.
        const TINY: f64 = 1e-200;
        let scale = f64::from(self.scale);
        let from: [f64; 3] =
            std::array::from_fn(|a| (origin[a] - f64::from(self.origin[a])) * scale);
        if from.iter().chain(&dir).any(|c| !c.is_finite()) || max_t.is_nan() || max_t < 0.0 {
            return Ok(());
        }
        let unit: [f64; 3] = std::array::from_fn(|a| {
            let step = dir[a] * scale;
            1.0 / if step.abs() < TINY {
                TINY.copysign(step)
            } else {
                step
            }
        });
        // The `t` across one cell of a window, per axis.
        let cells = |shift: u32| {
            let size = f64::from_bits(u64::from(1023 + shift) << 52);
            unit.map(|u| u * size)
        };
        let rel: [f64; 3] = std::array::from_fn(|a| -from[a] * unit[a]);
        // Inside the fitted cube, with one unit of padding.
        let (mut t0, mut t1) = (0.0, max_t);
        for a in 0..3 {
            let low = rel[a] - unit[a];
            let high = rel[a] + f64::from(FULL) * unit[a] + unit[a];
            t0 = max(t0, min(low, high));
            t1 = min(t1, max(low, high));
        }
        if t0.is_nan() || t0 > t1 {
            return Ok(());
        }
        let code = self.code.as_slice();
        let mut limit = max_t;
        let first = RayFrame {
            pc: 0,
            shift: START_SHIFT,
            base: 0,
            rel,
            t0,
            t1,
        };
        // Few rays keep more than a handful of branches waiting; every inline slot is
        // written when the stack is made, so more of them cost every ray.
        let mut stack = InlineStack::<RayFrame, 8>::new(first);
        stack.push(first);
        while let Some(mut f) = stack.pop() {
            if f.t0 > limit {
                continue;
            }
            let mut cell = cells(f.shift);
            loop {
                let w = window(code, f.pc)?;
                let (instruction, len) = match decode_frequent(w) {
                    Some(decoded) => decoded,
                    None => decode_rest(w).ok_or(Fault::Unknown(w[0], f.pc))?,
                };
                let next = f.pc + len;
                match instruction {
                    Instruction::Clip { axis, lo, hi } => {
                        let (lo, hi) = (f64::from(lo), f64::from(hi) + 1.0);
                        let inside = on_axis(axis, |a| {
                            let low = f.rel[a] + lo * cell[a] - unit[a];
                            let high = f.rel[a] + hi * cell[a] + unit[a];
                            f.t0 = max(f.t0, min(low, high));
                            f.t1 = min(f.t1, max(low, high));
                            f.t0 <= f.t1 && f.t0 <= limit
                        });
                        if !inside {
                            break;
                        }
                        f.pc = next;
                    }
                    Instruction::Split {
                        axis,
                        left_max,
                        right_min,
                        left,
                        right,
                    } => {
                        let (upper, lower) = (f64::from(left_max) + 1.0, f64::from(right_min));
                        let (left, right) = (next + left, next + right);
                        // The left child keeps `q <= upper`, the right `q >= lower`; the
                        // child nearer along the ray is walked first.
                        let (near_pc, near_end, far_pc, far_start) = on_axis(axis, |a| {
                            let upper = f.rel[a] + upper * cell[a] + unit[a];
                            let lower = f.rel[a] + lower * cell[a] - unit[a];
                            if unit[a] > 0.0 {
                                (left, upper, right, lower)
                            } else {
                                (right, lower, left, upper)
                            }
                        });
                        let far_t0 = max(f.t0, far_start);
                        let far = far_t0 <= f.t1 && far_t0 <= limit;
                        let near_t1 = min(f.t1, near_end);
                        if f.t0 <= near_t1 {
                            if far {
                                stack.push(RayFrame {
                                    pc: far_pc,
                                    t0: far_t0,
                                    ..f
                                });
                            }
                            (f.pc, f.t1) = (near_pc, near_t1);
                        } else if far {
                            // Only the far side: walk it now, without a trip through the stack.
                            (f.pc, f.t0) = (far_pc, far_t0);
                        } else {
                            break;
                        }
                    }
                    Instruction::Rescale { shift, base } => {
                        for a in 0..3 {
                            f.rel[a] += f64::from(base[a]) * cell[a];
                        }
                        f.shift = f.shift.checked_sub(shift).ok_or(Fault::BelowFinestScale)?;
                        cell = cells(f.shift);
                        f.pc = next;
                    }
                    Instruction::Terminal(index) => {
                        limit = visit(f.base.wrapping_add(index), limit)?;
                        break;
                    }
                    Instruction::Return => break,
                    Instruction::Jump(distance) => f.pc = next + distance,
                    Instruction::AddBase(add) => {
                        f.base = f.base.wrapping_add(add);
                        f.pc = next;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Runs `body` with the axis as a constant, so each axis gets its own copy of the code
/// with fixed indices; indexing by a variable axis made the ray walk over half as slow
/// again.
#[inline(always)]
fn on_axis<R>(axis: usize, mut body: impl FnMut(usize) -> R) -> R {
    match axis {
        0 => body(0),
        1 => body(1),
        _ => body(2),
    }
}
