//! The query interpreters: each runs the code itself, a box query in the code's own
//! integers and a ray query in ray parameters. Malformed code is an error, never a panic;
//! code that reaches an instruction by several paths would make a query revisit it, which
//! is why every reader checks with `Mopp::stats` that the code is a tree.

use super::{
    decode, decode_clip, decode_rest, decode_split, window, Fault, Instruction, Mopp, Split,
    CLIP_LEN, START_SHIFT,
};
use crate::inline_stack::InlineStack;
use crate::vec3::{max, min};

/// Runs `body` with the axis as the constant `A`, so each axis gets its own copy of the
/// code with fixed indices; indexing by a variable axis made the ray walk over half as
/// slow again.
macro_rules! with_axis {
    ($axis:expr, $A:ident => $body:expr) => {
        match $axis {
            0 => {
                const $A: usize = 0;
                $body
            }
            1 => {
                const $A: usize = 1;
                $body
            }
            _ => {
                const $A: usize = 2;
                $body
            }
        }
    };
}

/// A box query's branch: where its code starts and its window.
#[derive(Debug, Clone, Copy)]
struct BoxFrame {
    pc: usize,
    shift: u32,
    offset: [i64; 3],
    base: u32,
}

/// A ray query's branch: where its code starts, its window in quantized units (the
/// window's low corner and the shift that gives its cell size), and the part of the ray it
/// still covers.
#[derive(Debug, Clone, Copy)]
struct RayFrame {
    pc: usize,
    shift: u32,
    base: u32,
    offset: [i32; 3],
    t0: f64,
    t1: f64,
}

/// The ray of a query, per axis: `at_zero` is the ray parameter where it crosses the
/// cube's low face, `unit` the parameter it takes to move one quantized unit. A plane at
/// quantized position `q` is crossed at `at_zero + q * unit`; positions stay integers, so
/// a window needs no float state of its own.
struct QuantizedRay {
    at_zero: [f64; 3],
    unit: [f64; 3],
}

impl QuantizedRay {
    #[inline(always)]
    fn crossing(&self, axis: usize, q: i32) -> f64 {
        self.at_zero[axis] + q as f64 * self.unit[axis]
    }

    /// Narrows `f` to the slab `[lo, hi]` (cells of its window) on `A`, padded by one unit;
    /// whether some of the ray before `limit` is left.
    #[inline(always)]
    fn clip<const A: usize>(&self, f: &mut RayFrame, lo: u8, hi: u8, limit: f64) -> bool {
        let low = self.crossing(A, f.offset[A] + (i32::from(lo) << f.shift) - 1);
        let high = self.crossing(A, f.offset[A] + ((i32::from(hi) + 1) << f.shift) + 1);
        f.t0 = max(f.t0, min(low, high));
        f.t1 = min(f.t1, max(low, high));
        f.t0 <= f.t1 && f.t0 <= limit
    }

    /// Splits `f` on `A`: the left child keeps cells up to `left_max`, the right from
    /// `right_min`. The child nearer along the ray continues in `f`; the farther waits on
    /// the stack when the ray reaches both. Whether `f` goes on.
    #[inline(always)]
    fn split<const A: usize>(
        &self,
        f: &mut RayFrame,
        split: Split,
        limit: f64,
        stack: &mut InlineStack<RayFrame, 8>,
    ) -> bool {
        let next = f.pc + split.len;
        // The left child nearly always follows the split. Testing for that, rather than
        // adding the jump read from the code, lets the processor go on to the child
        // before the read completes.
        let left = if split.left == 0 {
            next
        } else {
            jump_from(next, split.left)
        };
        let right = next + split.right;
        let upper = self.crossing(
            A,
            f.offset[A] + ((i32::from(split.left_max) + 1) << f.shift) + 1,
        );
        let lower = self.crossing(A, f.offset[A] + (i32::from(split.right_min) << f.shift) - 1);
        // A branch, not a select: the next address then needs no loaded byte when the left
        // child is nearer, and the processor runs ahead on its guess.
        if self.unit[A] > 0.0 {
            Self::enter(f, (left, upper), (right, lower), limit, stack)
        } else {
            Self::enter(f, (right, lower), (left, upper), limit, stack)
        }
    }

    /// Goes on in the near child over the part of `f` before `near_end`, pushing the far
    /// child over the part after `far_start` when the ray reaches it before `limit`.
    #[inline(always)]
    fn enter(
        f: &mut RayFrame,
        (near_pc, near_end): (usize, f64),
        (far_pc, far_start): (usize, f64),
        limit: f64,
        stack: &mut InlineStack<RayFrame, 8>,
    ) -> bool {
        let far_t0 = max(f.t0, far_start);
        let far = far_t0 <= f.t1 && far_t0 <= limit;
        let near_t1 = min(f.t1, near_end);
        if f.t0 <= near_t1 {
            if far {
                stack.push(RayFrame {
                    pc: far_pc,
                    t0: far_t0,
                    ..*f
                });
            }
            (f.pc, f.t1) = (near_pc, near_t1);
            true
        } else if far {
            // Only the far side: walk it now, without a trip through the stack.
            (f.pc, f.t0) = (far_pc, far_t0);
            true
        } else {
            false
        }
    }
}

impl Mopp {
    /// Primitives whose boxes may overlap the box `lo..hi` (world units): a superset of the
    /// true overlaps, sorted.
    pub fn query_box(
        &self,
        lo: [f64; 3],
        hi: [f64; 3],
    ) -> Result<Vec<u32>, forge_bytes::ReadError> {
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
                    Instruction::Split(Split {
                        axis,
                        left_max,
                        right_min,
                        left,
                        right,
                        ..
                    }) => {
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
    /// before `limit`, nearer subtrees first, without allocating for the usual depth.
    /// `visit` returns the new limit, so a hit prunes every subtree the ray only reaches
    /// beyond it.
    pub fn walk_ray(
        &self,
        origin: [f64; 3],
        dir: [f64; 3],
        max_t: f64,
        mut visit: impl FnMut(u32, f64) -> Result<f64, forge_bytes::ReadError>,
    ) -> Result<(), forge_bytes::ReadError> {
        // Per axis, `unit` is the `t` it takes to move one quantized unit, also the
        // padding that keeps a query from missing. A direction component too small to
        // invert is bent to a tiny one: that moves the ray far less than the padding, and
        // keeps every `t` finite or infinite, never NaN.
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
        let ray = QuantizedRay {
            at_zero: std::array::from_fn(|a| -from[a] * unit[a]),
            unit,
        };
        let mut limit = max_t;
        // The whole segment to start: the code's own clips and splits bound it, so a
        // separate test against the fitted cube would only repeat their work.
        let first = RayFrame {
            pc: 0,
            shift: START_SHIFT,
            base: 0,
            offset: [0; 3],
            t0: 0.0,
            t1: max_t,
        };
        let code = self.code.as_slice();
        let mut stack = InlineStack::<RayFrame, 8>::new();
        stack.push(first);
        while let Some(mut f) = stack.pop() {
            if f.t0 > limit {
                continue;
            }
            loop {
                let w = window(code, f.pc)?;
                let going = if let Some((axis, lo, hi)) = decode_clip(w) {
                    f.pc += CLIP_LEN;
                    with_axis!(axis, A => ray.clip::<A>(&mut f, lo, hi, limit))
                } else if let Some(split) = decode_split(w) {
                    with_axis!(split.axis, A => ray.split::<A>(&mut f, split, limit, &mut stack))
                } else {
                    let (instruction, len) = decode_rest(w).ok_or(Fault::Unknown(w[0], f.pc))?;
                    let next = f.pc + len;
                    f.pc = next;
                    match instruction {
                        Instruction::Rescale { shift, base } => {
                            for (offset, b) in f.offset.iter_mut().zip(base) {
                                *offset += i32::from(b) << f.shift;
                            }
                            f.shift = f.shift.checked_sub(shift).ok_or(Fault::BelowFinestScale)?;
                            true
                        }
                        Instruction::Terminal(index) => {
                            limit = visit(f.base.wrapping_add(index), limit)?;
                            false
                        }
                        Instruction::Return => false,
                        Instruction::Jump(distance) => {
                            f.pc = next + distance;
                            true
                        }
                        Instruction::AddBase(add) => {
                            f.base = f.base.wrapping_add(add);
                            true
                        }
                        Instruction::Clip { .. } | Instruction::Split(_) => {
                            unreachable!("decoded above")
                        }
                    }
                };
                if !going {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// `next + jump`, kept out of line so the common no-jump case stays a branch.
#[cold]
#[inline(never)]
fn jump_from(next: usize, jump: usize) -> usize {
    next + jump
}
