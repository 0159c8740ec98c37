//! The MOPP encoder: a bounding-volume tree over quantized primitive boxes, written as
//! code.
//!
//! Splits follow the surface area heuristic, so that a ray rarely has to visit both sides
//! and empty space between parts falls in the gap between a split's two planes. A node
//! then spends instructions only where they pay for the queries that reach it:
//! - it narrows the window (a rescale) once its box spans few cells, so the planes below
//!   stay precise;
//! - it clips an axis only where that cuts the box its ancestors already confine a query
//!   to by a good fraction, since each clip costs every query that reaches it a step;
//! - a leaf clips only where that at least halves that box, and otherwise leaves its
//!   primitive to the narrow phase.

use super::{QBox, FULL, START_SHIFT};

/// An inner node clips an axis when the clip keeps at most this fraction of the known box.
const INNER_CLIP_KEEP: f64 = 0.75;
/// The same for a leaf, which the narrow phase would settle anyway.
const LEAF_CLIP_KEEP: f64 = 0.5;
/// A node narrows the window when its box spans fewer cells than this on every axis.
const RESCALE_BELOW_CELLS: i64 = 32;
/// Bins per axis when pricing splits.
const SAH_BINS: usize = 16;
/// From this depth on, splits fall back to the median, which bounds the depth of any tree
/// (and of the encoder's recursion) by this plus log2 of the primitive count.
const SAH_MAX_DEPTH: usize = 48;

/// The window a node's bytes are compared in: `(q - offset) >> shift`.
#[derive(Debug, Clone, Copy)]
struct Window {
    shift: u32,
    offset: [i64; 3],
}

impl Window {
    fn cell(&self, axis: usize, q: i64) -> i64 {
        (q - self.offset[axis]) >> self.shift
    }

    /// The first quantized value of `cell` on `axis`.
    fn start(&self, axis: usize, cell: i64) -> i64 {
        self.offset[axis] + (cell << self.shift)
    }
}

pub(super) fn encode(boxes: &[QBox]) -> Vec<u8> {
    let everything = ([0; 3], [i64::from(FULL); 3]);
    let window = Window {
        shift: START_SHIFT,
        offset: [0; 3],
    };
    let prims: Vec<usize> = (0..boxes.len()).collect();
    let bounds = bounds(boxes, &prims);
    node(boxes, prims, bounds, window, everything, 0)
}

/// Code for the subtree over `prims`, whose boxes span `(lo, hi)`. `known` is the box
/// (half-open, quantized) that the clips and split sides above already confine a query to.
fn node(
    boxes: &[QBox],
    prims: Vec<usize>,
    (lo, hi): QBox,
    window: Window,
    mut known: QBox,
    depth: usize,
) -> Vec<u8> {
    let leaf = prims.len() == 1;
    let mut window = window;
    let mut code = Vec::new();
    let widest = (0..3)
        .map(|a| window.cell(a, hi[a]) - window.cell(a, lo[a]))
        .max()
        .unwrap_or(0);
    if leaf || widest < RESCALE_BELOW_CELLS {
        if let Some((rescale, narrower)) = narrow(window, lo, hi) {
            code.extend(rescale);
            window = narrower;
        }
    }
    let keep = if leaf {
        LEAF_CLIP_KEEP
    } else {
        INNER_CLIP_KEEP
    };
    let mut clipped = false;
    for a in 0..3 {
        let (c_lo, c_hi) = (
            window.cell(a, lo[a]).clamp(0, 255),
            window.cell(a, hi[a]).clamp(0, 255),
        );
        let from = known.0[a].max(window.start(a, c_lo));
        let to = known.1[a].min(window.start(a, c_hi + 1));
        if (to - from) as f64 <= keep * (known.1[a] - known.0[a]) as f64 {
            code.extend([0x26 + a as u8, c_lo as u8, c_hi as u8]);
            known.0[a] = from;
            known.1[a] = to;
            clipped = true;
        }
    }
    if leaf {
        // A bare terminal needs no window: the rescale only served the clips.
        if !clipped {
            code.clear();
        }
        code.extend(terminal(prims[0]));
        return code;
    }
    let (axis, left, right) = if depth < SAH_MAX_DEPTH {
        sah_split(boxes, prims)
    } else {
        median_split(boxes, prims)
    };
    let (left_box, right_box) = (bounds(boxes, &left), bounds(boxes, &right));
    let left_max = window.cell(axis, left_box.1[axis]).clamp(0, 255);
    let right_min = window.cell(axis, right_box.0[axis]).clamp(0, 255);
    let mut left_known = known;
    left_known.1[axis] = known.1[axis].min(window.start(axis, left_max + 1));
    let mut right_known = known;
    right_known.0[axis] = known.0[axis].max(window.start(axis, right_min));
    let lc = node(boxes, left, left_box, window, left_known, depth + 1);
    let rc = node(boxes, right, right_box, window, right_known, depth + 1);
    let (l, r) = (left_max as u8, right_min as u8);
    if lc.len() <= 0xFF {
        code.extend([0x10 + axis as u8, l, r, lc.len() as u8]);
    } else if lc.len() <= 0xFFFF {
        let j = (lc.len() as u16).to_be_bytes();
        code.extend([0x23 + axis as u8, l, r, 0, 0, j[0], j[1]]);
    } else {
        // Right child first through a 24-bit jump over the left subtree.
        let j = (lc.len() as u32).to_be_bytes();
        code.extend([0x23 + axis as u8, l, r, 0, 4, 0, 0, 0x07, j[1], j[2], j[3]]);
    }
    code.extend(lc);
    code.extend(rc);
    code
}

fn bounds(boxes: &[QBox], prims: &[usize]) -> QBox {
    let mut out = ([i64::MAX; 3], [i64::MIN; 3]);
    for &p in prims {
        grow(&mut out, &boxes[p]);
    }
    out
}

fn grow(b: &mut QBox, by: &QBox) {
    for a in 0..3 {
        b.0[a] = b.0[a].min(by.0[a]);
        b.1[a] = b.1[a].max(by.1[a]);
    }
}

/// The rescale that fits the window to `lo..=hi` with the most bits gained (up to four),
/// and the window after it.
fn narrow(window: Window, lo: [i64; 3], hi: [i64; 3]) -> Option<([u8; 4], Window)> {
    let base = [0, 1, 2].map(|a| window.cell(a, lo[a]));
    let offset = [0, 1, 2].map(|a| window.start(a, base[a]));
    let k = (1..=4u32.min(window.shift))
        .rev()
        .find(|&k| (0..3).all(|a| (hi[a] - offset[a]) >> (window.shift - k) <= 255))?;
    Some((
        [k as u8, base[0] as u8, base[1] as u8, base[2] as u8],
        Window {
            shift: window.shift - k,
            offset,
        },
    ))
}

/// Twice a primitive's centre on `axis` (integers, so the arithmetic is exact).
fn centre(boxes: &[QBox], p: usize, axis: usize) -> i64 {
    boxes[p].0[axis] + boxes[p].1[axis]
}

fn area(b: &QBox) -> f64 {
    let d = [0, 1, 2].map(|a| (b.1[a] - b.0[a]).max(0) as f64);
    d[0] * d[1] + d[1] * d[2] + d[2] * d[0]
}

/// Splits where `area(left)·count(left) + area(right)·count(right)` is least, over the
/// boundaries of up to `SAH_BINS` bins of primitive centres on each axis; both sides keep their
/// primitives in the given order. Falls back to the median when all centres coincide.
fn sah_split(boxes: &[QBox], prims: Vec<usize>) -> (usize, Vec<usize>, Vec<usize>) {
    let empty: QBox = ([i64::MAX; 3], [i64::MIN; 3]);
    // One pass for the centres' range on every axis, one to bin on every axis.
    let mut range = [(i64::MAX, i64::MIN); 3];
    for &p in &prims {
        for (axis, (min, max)) in range.iter_mut().enumerate() {
            let c = centre(boxes, p, axis);
            *min = (*min).min(c);
            *max = (*max).max(c);
        }
    }
    // A small node needs no more bins than primitives, and pricing empty ones is most of
    // the encoder's time.
    let bins = SAH_BINS.min(prims.len());
    let mut bin_box = [[empty; SAH_BINS]; 3];
    let mut bin_count = [[0usize; SAH_BINS]; 3];
    for &p in &prims {
        for axis in 0..3 {
            let b = bin(centre(boxes, p, axis), range[axis], bins);
            grow(&mut bin_box[axis][b], &boxes[p]);
            bin_count[axis][b] += 1;
        }
    }
    // (cost, axis, last bin on the left)
    let mut best: Option<(f64, usize, usize)> = None;
    for axis in 0..3 {
        if range[axis].0 == range[axis].1 {
            continue;
        }
        let (bin_box, bin_count) = (&bin_box[axis], &bin_count[axis]);
        // Right-hand sides: everything from bin `i` up.
        let mut right = [(0.0, 0usize); SAH_BINS];
        let (mut acc, mut n) = (empty, 0);
        for i in (1..bins).rev() {
            grow(&mut acc, &bin_box[i]);
            n += bin_count[i];
            if n > 0 {
                right[i] = (area(&acc), n);
            }
        }
        let (mut acc, mut n) = (empty, 0);
        for i in 0..bins - 1 {
            grow(&mut acc, &bin_box[i]);
            n += bin_count[i];
            let (right_area, right_n) = right[i + 1];
            if n == 0 || right_n == 0 {
                continue;
            }
            let cost = area(&acc) * n as f64 + right_area * right_n as f64;
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, axis, i));
            }
        }
    }
    match best {
        Some((_, axis, last)) => {
            let (left, right) = prims
                .iter()
                .partition(|&&p| bin(centre(boxes, p, axis), range[axis], bins) <= last);
            (axis, left, right)
        }
        None => median_split(boxes, prims),
    }
}

fn bin(centre: i64, (min, max): (i64, i64), bins: usize) -> usize {
    // Centres are below 2^26, so the product cannot overflow.
    let b = (centre - min) * bins as i64 / (max - min + 1);
    (b as usize).min(bins - 1)
}

/// Halves the primitives at the median centre along the axis where centres spread most.
fn median_split(boxes: &[QBox], mut prims: Vec<usize>) -> (usize, Vec<usize>, Vec<usize>) {
    let spread = |a: usize| {
        let (mn, mx) = prims.iter().fold((i64::MAX, i64::MIN), |(mn, mx), &p| {
            (mn.min(centre(boxes, p, a)), mx.max(centre(boxes, p, a)))
        });
        mx - mn
    };
    let axis = (0..3).max_by_key(|&a| spread(a)).unwrap_or(0);
    prims.sort_by_key(|&p| (centre(boxes, p, axis), p));
    let right = prims.split_off(prims.len() / 2);
    (axis, prims, right)
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
