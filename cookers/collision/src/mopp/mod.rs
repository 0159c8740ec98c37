//! MOPP code: Havok's byte-coded bounding-volume tree, over the collision surfaces.
//!
//! Coordinates are quantized to 24-bit integers in a cube fitted around the primitives
//! (`scale = 2^24 / side`). Nodes compare the top 8 bits of the current window. A rescale
//! opcode moves the window to a sub-cube and narrows it, so deep nodes compare finer bits.
//! The encoder floors minima and ceils maxima when it quantizes, so a split plane can only
//! move outward: a query may get extra candidates, but never misses one.
//!
//! Opcodes (`docs/formats/collision.md`; multi-byte immediates are big-endian):
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
//! Jumps are measured from the end of their instruction and only go forward, and a valid
//! code reaches each instruction by one path only (it is a tree), so a query ends after
//! at most one visit of each byte.
//!
//! `encode` builds the code, `walk` runs it for box and ray queries; this module holds the
//! frame, the instruction decoder both use, and the statistics.

mod encode;
mod walk;

use crate::CollisionError;

pub const FULL: u32 = 1 << 24;
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

/// A box in quantized units: minima and maxima, both inclusive.
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
        mopp.code = encode::encode(&quantized);
        Ok(mopp)
    }

    /// Size, depth and leaf statistics, read from the code itself. This is also the check
    /// that the code is sound: every instruction whole and known, every rescale within the
    /// finest scale, and no instruction reached by two paths.
    pub fn stats(&self) -> Result<MoppStats, forge_bytes::ReadError> {
        let code = self.code.as_slice();
        let mut stats = MoppStats {
            code_bytes: code.len(),
            ..MoppStats::default()
        };
        let mut depth_sum = 0usize;
        let mut reached = vec![false; code.len()];
        let mut stack = vec![(0usize, 0usize, START_SHIFT)];
        while let Some((mut pc, depth, mut shift)) = stack.pop() {
            loop {
                if std::mem::replace(reached.get_mut(pc).ok_or(Fault::PastEnd)?, true) {
                    return Err(format!(
                        "byte {pc} is reached by two paths: the code is not a tree"
                    )
                    .into());
                }
                let (instruction, len) = decode(code, pc)?;
                let next = pc + len;
                match instruction {
                    Instruction::Return => break,
                    Instruction::Rescale { shift: by, .. } => {
                        shift = shift.checked_sub(by).ok_or(Fault::BelowFinestScale)?;
                        pc = next;
                    }
                    Instruction::Jump(distance) => pc = next + distance,
                    Instruction::AddBase(_) | Instruction::Clip { .. } => pc = next,
                    Instruction::Split(Split { left, right, .. }) => {
                        stack.push((next + right, depth + 1, shift));
                        stack.push((next + left, depth + 1, shift));
                        break;
                    }
                    Instruction::Terminal(_) => {
                        stats.leaves += 1;
                        stats.terminals += 1;
                        stats.max_depth = stats.max_depth.max(depth);
                        depth_sum += depth;
                        break;
                    }
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

/// One instruction. Jump and split distances are measured from the end of the instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Instruction {
    Return,
    Rescale { shift: u32, base: [u8; 3] },
    Jump(usize),
    AddBase(u32),
    Split(Split),
    Clip { axis: usize, lo: u8, hi: u8 },
    Terminal(u32),
}

/// What makes code unrunnable.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    PastEnd,
    Truncated(usize),
    Unknown(u8, usize),
    BelowFinestScale,
}

impl From<Fault> for forge_bytes::ReadError {
    fn from(fault: Fault) -> forge_bytes::ReadError {
        forge_bytes::ReadError::Invalid(match fault {
            Fault::PastEnd => "the code runs past its end".into(),
            Fault::Truncated(pc) => format!("the instruction at byte {pc} runs past the end"),
            Fault::Unknown(op, pc) => format!("unknown opcode 0x{op:02x} at byte {pc}"),
            Fault::BelowFinestScale => "a rescale goes below the finest scale".into(),
        })
    }
}

/// The instruction at `pc` and its length.
#[inline(always)]
fn decode(code: &[u8], pc: usize) -> Result<(Instruction, usize), Fault> {
    let w = window(code, pc)?;
    decode_window(w).ok_or(Fault::Unknown(w[0], pc))
}

/// The eight bytes from `pc`, read with a single bounds check, which the query walks
/// depend on for their speed. Near the end, zeros pad an instruction that fits.
#[inline(always)]
fn window(code: &[u8], pc: usize) -> Result<[u8; 8], Fault> {
    match code.get(pc..pc + 8) {
        Some(bytes) => {
            let mut w = [0; 8];
            w.copy_from_slice(bytes);
            Ok(w)
        }
        None => window_near_end(code, pc),
    }
}

#[cold]
fn window_near_end(code: &[u8], pc: usize) -> Result<[u8; 8], Fault> {
    let tail = code
        .get(pc..)
        .filter(|t| !t.is_empty())
        .ok_or(Fault::PastEnd)?;
    let mut w = [0; 8];
    w[..tail.len()].copy_from_slice(tail);
    match decode_window(w) {
        Some((_, len)) if len > tail.len() => Err(Fault::Truncated(pc)),
        _ => Ok(w),
    }
}

/// Decodes the instruction at the start of `w`; `None` for an unknown opcode.
#[inline(always)]
fn decode_window(w: [u8; 8]) -> Option<(Instruction, usize)> {
    if let Some((axis, lo, hi)) = decode_clip(w) {
        return Some((Instruction::Clip { axis, lo, hi }, CLIP_LEN));
    }
    if let Some(split) = decode_split(w) {
        return Some((Instruction::Split(split), split.len));
    }
    decode_rest(w)
}

const CLIP_LEN: usize = 3;

/// A clip: its axis and slab. Clips and splits are most of the steps a query takes; the
/// ray walk decodes them with these two functions straight from the bytes, because
/// building an `Instruction` and dispatching on it again made it several times slower.
#[inline(always)]
fn decode_clip(w: [u8; 8]) -> Option<(usize, u8, u8)> {
    match w[0] {
        op @ 0x26..=0x28 => Some((usize::from(op - 0x26), w[1], w[2])),
        _ => None,
    }
}

/// A split in any of its three forms. `left` and `right` count from its end, `len` on.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Split {
    axis: usize,
    left_max: u8,
    right_min: u8,
    left: usize,
    right: usize,
    len: usize,
}

#[inline(always)]
fn decode_split(w: [u8; 8]) -> Option<Split> {
    let b = |i: usize| usize::from(w[i]);
    Some(match w[0] {
        op @ 0x10..=0x12 => Split {
            axis: usize::from(op - 0x10),
            left_max: w[1],
            right_min: w[2],
            left: 0,
            right: b(3),
            len: 4,
        },
        op @ 0x23..=0x25 => Split {
            axis: usize::from(op - 0x23),
            left_max: w[1],
            right_min: w[2],
            left: usize::from(u16::from_be_bytes([w[3], w[4]])),
            right: usize::from(u16::from_be_bytes([w[5], w[6]])),
            len: 7,
        },
        op @ 0x20..=0x22 => Split {
            axis: usize::from(op - 0x20),
            left_max: w[1],
            right_min: w[1],
            left: 0,
            right: b(2),
            len: 3,
        },
        _ => return None,
    })
}

/// Every instruction but clips and splits.
#[inline(always)]
fn decode_rest(w: [u8; 8]) -> Option<(Instruction, usize)> {
    let b = |i: usize| usize::from(w[i]);
    let op = w[0];
    Some(match op {
        0x00 => (Instruction::Return, 1),
        0x01..=0x04 => (
            Instruction::Rescale {
                shift: u32::from(op),
                base: [w[1], w[2], w[3]],
            },
            4,
        ),
        0x05 => (Instruction::Jump(b(1)), 2),
        0x06 => (Instruction::Jump(b(1) << 8 | b(2)), 3),
        0x07 => (Instruction::Jump(b(1) << 16 | b(2) << 8 | b(3)), 4),
        0x09 => (Instruction::AddBase(u32::from(w[1])), 2),
        0x0a => (
            Instruction::AddBase(u32::from_be_bytes([0, 0, w[1], w[2]])),
            3,
        ),
        0x0b => (
            Instruction::AddBase(u32::from_be_bytes([w[1], w[2], w[3], w[4]])),
            5,
        ),
        0x30..=0x4f => (Instruction::Terminal(u32::from(op - 0x30)), 1),
        0x50 => (Instruction::Terminal(u32::from(w[1])), 2),
        0x51 => (
            Instruction::Terminal(u32::from_be_bytes([0, 0, w[1], w[2]])),
            3,
        ),
        0x52 => (
            Instruction::Terminal(u32::from_be_bytes([0, w[1], w[2], w[3]])),
            4,
        ),
        0x53 => (
            Instruction::Terminal(u32::from_be_bytes([w[1], w[2], w[3], w[4]])),
            5,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
