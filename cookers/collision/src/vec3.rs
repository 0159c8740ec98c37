//! The few f64 vector operations the cookers need, on plain arrays.

pub type V3 = [f64; 3];

pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn scale(a: V3, k: f64) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub fn length(a: V3) -> f64 {
    dot(a, a).sqrt()
}
pub fn normalize(a: V3) -> V3 {
    scale(a, 1.0 / length(a))
}
/// The smallest box holding every box (`(MAX, MIN)` for none).
pub fn union(boxes: impl IntoIterator<Item = (V3, V3)>) -> (V3, V3) {
    let mut lo = [f64::MAX; 3];
    let mut hi = [f64::MIN; 3];
    for (l, h) in boxes {
        for a in 0..3 {
            lo[a] = lo[a].min(l[a]);
            hi[a] = hi[a].max(h[a]);
        }
    }
    (lo, hi)
}
/// The smallest box holding every point.
pub fn bounds(points: impl IntoIterator<Item = V3>) -> (V3, V3) {
    union(points.into_iter().map(|p| (p, p)))
}

/// `min` as one instruction, for the ray walks' hot loops: with a NaN operand it returns
/// the second, where `f64::min` spends instructions on returning the other.
#[inline(always)]
pub fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// `max` as one instruction; see [`min`].
#[inline(always)]
pub fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}
