//! A small z-buffered rasterizer with deferred shading. Triangles are rasterized at
//! `SUPERSAMPLE`² samples a pixel into a depth buffer and a triangle-id buffer only, and
//! lines into a palette-indexed overlay. [`Canvas::resolve`] then shades each pixel once
//! for each triangle its samples saw (at the pixel's centre), averages the samples in
//! linear light, which anti-aliases every edge, and encodes sRGB. Shading once a pixel
//! rather than once a sample is what multisampling does; it keeps a 512² preview within a
//! few milliseconds.
//!
//! A translucent triangle (glass) goes into a second depth and id buffer: the nearest
//! translucent sample in front of the opaque one. Resolve lays it over the opaque colour
//! by its alpha. One translucent layer a sample is what a pane of glass needs; a second
//! pane behind the first is hidden by it.

use std::sync::OnceLock;

use image::RgbaImage;
use rayon::prelude::*;

use crate::camera::{Camera, V3};
use crate::colour::linear_to_srgb;

pub const SUPERSAMPLE: u32 = 2;

pub struct Canvas {
    /// The sample grid's size.
    pub width: u32,
    pub height: u32,
    depth: Vec<f32>,
    /// 0 where no triangle covers the sample, else the triangle's index + 1.
    id: Vec<u32>,
    /// The nearest translucent triangle in front of the opaque one: its depth and id.
    glass_depth: Vec<f32>,
    glass_id: Vec<u32>,
    /// Each triangle's opacity: 1 for an opaque one.
    alpha: Vec<f32>,
    /// 0 where no line covers the sample, else the line colour's index in `palette` + 1.
    overlay: Vec<u8>,
    palette: Vec<[f32; 4]>,
    /// The projected corners of each triangle, by index, for shading at resolve.
    corners: Vec<[[f64; 3]; 3]>,
    /// Whether each triangle has one colour all over (so a pixel like its neighbour
    /// needs no shading of its own).
    flat: Vec<bool>,
    /// Samples on a silhouette or fold, when outlines were asked for.
    outlined: Vec<bool>,
    /// A finished canvas's outline buffer, for `outline` to overwrite.
    spare_outlined: Vec<bool>,
}

/// The sample buffers of finished canvases, kept per thread for the next one: a 512²
/// canvas is about 10 MB, and taking it fresh from the system each time cost a fifth of
/// a render in page faults.
struct Buffers {
    depth: Vec<f32>,
    id: Vec<u32>,
    glass_depth: Vec<f32>,
    glass_id: Vec<u32>,
    overlay: Vec<u8>,
    outlined: Vec<bool>,
}

/// `buffer` as `n` copies of `value`, filled in parallel when it is already that long.
fn reset<T: Copy + Send + Sync>(buffer: &mut Vec<T>, n: usize, value: T) {
    if buffer.len() == n {
        buffer.par_chunks_mut(1 << 16).for_each(|c| c.fill(value));
    } else {
        buffer.clear();
        buffer.resize(n, value);
    }
}

thread_local! {
    static SPARE: std::cell::RefCell<Option<Buffers>> = const { std::cell::RefCell::new(None) };
}

impl Canvas {
    pub fn new(width: u32, height: u32) -> Canvas {
        let n = (width * height) as usize;
        let mut b = SPARE.with(|s| s.borrow_mut().take()).unwrap_or(Buffers {
            depth: Vec::new(),
            id: Vec::new(),
            glass_depth: Vec::new(),
            glass_id: Vec::new(),
            overlay: Vec::new(),
            outlined: Vec::new(),
        });
        reset(&mut b.depth, n, f32::INFINITY);
        reset(&mut b.id, n, 0);
        reset(&mut b.glass_depth, n, f32::INFINITY);
        reset(&mut b.glass_id, n, 0);
        reset(&mut b.overlay, n, 0);
        Canvas {
            width,
            height,
            depth: b.depth,
            id: b.id,
            glass_depth: b.glass_depth,
            glass_id: b.glass_id,
            alpha: Vec::new(),
            overlay: b.overlay,
            palette: Vec::new(),
            corners: Vec::new(),
            flat: Vec::new(),
            outlined: Vec::new(),
            spare_outlined: b.outlined,
        }
    }

    /// The palette index (+ 1) of a line colour, added on first use.
    fn ink(&mut self, rgba: [f32; 4]) -> u8 {
        let found = self.palette.iter().position(|c| *c == rgba);
        let index = found.unwrap_or_else(|| {
            self.palette.push(rgba);
            self.palette.len() - 1
        });
        // More than 255 line colours cannot happen: a scene has a handful of named ones.
        u8::try_from(index + 1).unwrap_or(u8::MAX)
    }

    fn plot(&mut self, x: i64, y: i64, z: f32, ink: u8, depth_test: bool) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let i = (y as u32 * self.width + x as u32) as usize;
        if depth_test {
            if z >= self.depth[i] {
                return;
            }
            self.depth[i] = z;
        } else {
            // On top of everything, glass included, and of depth-tested lines drawn later.
            self.depth[i] = f32::NEG_INFINITY;
        }
        self.overlay[i] = ink;
    }

    /// Triangles from three projected points each (sample units, with view depth). Each
    /// takes the next index, whether or not it covers a sample, so indices follow the
    /// caller's (`None` covers nothing).
    ///
    /// Bands of rows are filled in parallel, each drawing every opaque triangle in order
    /// over its own rows and then every translucent one against the finished opaque
    /// depth: a sample sees the same triangles in the same order on any thread count.
    pub fn triangles(&mut self, triangles: &[Projected]) {
        let first = self.corners.len() as u32 + 1;
        let setups: Vec<Option<Setup>> = triangles
            .iter()
            .map(|t| t.corners.and_then(|p| Setup::new(p, self.height)))
            .collect();
        for t in triangles {
            self.corners.push(t.corners.unwrap_or([[0.0; 3]; 3]));
            self.flat.push(t.flat);
            self.alpha.push(t.alpha);
        }
        let width = self.width as usize;
        let band = BAND_ROWS * width;
        self.depth
            .par_chunks_mut(band)
            .zip(self.id.par_chunks_mut(band))
            .zip(self.glass_depth.par_chunks_mut(band))
            .zip(self.glass_id.par_chunks_mut(band))
            .enumerate()
            .for_each(|(b, (((depth, id), glass_depth), glass_id))| {
                let rows = (b * BAND_ROWS) as i64..((b + 1) * BAND_ROWS) as i64;
                let offset = rows.start as usize * width;
                let each = |translucent: bool| {
                    setups
                        .iter()
                        .zip(triangles)
                        .enumerate()
                        .filter_map(move |(k, (s, t))| {
                            let s = s.as_ref().filter(|_| (t.alpha < 1.0) == translucent)?;
                            Some((s, first + k as u32))
                        })
                };
                for (setup, index) in each(false) {
                    setup.fill(rows.clone(), self.width, depth, id, (index, offset), None);
                }
                for (setup, index) in each(true) {
                    let ids = (index, offset);
                    setup.fill(
                        rows.clone(),
                        self.width,
                        glass_depth,
                        glass_id,
                        ids,
                        Some(depth),
                    );
                }
            });
    }

    /// A line `width` samples wide. Its depth is scaled by `bias` (below 1 pulls it toward
    /// the camera, so a line drawn on a surface does not fight with it).
    pub fn line(
        &mut self,
        a: [f64; 3],
        b: [f64; 3],
        rgba: [f32; 4],
        width: i64,
        depth_test: bool,
        bias: f64,
    ) {
        let ink = self.ink(rgba);
        let steps = ((b[0] - a[0]).abs().max((b[1] - a[1]).abs()).ceil() as i64).clamp(1, 1 << 16);
        for s in 0..=steps {
            let t = s as f64 / steps as f64;
            let (x, y, z) = (
                a[0] + (b[0] - a[0]) * t,
                a[1] + (b[1] - a[1]) * t,
                a[2] + (b[2] - a[2]) * t,
            );
            for dy in 0..width {
                for dx in 0..width {
                    let (px, py) = (x as i64 + dx - width / 2, y as i64 + dy - width / 2);
                    self.plot(px, py, (z * bias) as f32, ink, depth_test);
                }
            }
        }
    }

    /// Marks the triangle samples on a silhouette or a fold: where a neighbour is empty or
    /// lies more than `step` (a fraction of the depth) farther away. Run before the grid
    /// and overlay lines, so only the piece's own depth is read.
    pub fn outline(&mut self, step: f32) {
        let (w, h) = (self.width as usize, self.height as usize);
        let (depth, ids) = (&self.depth, &self.id);
        let mut outlined = std::mem::take(&mut self.spare_outlined);
        // Every mark is written below, so a reused buffer needs no clearing.
        outlined.resize(w * h, false);
        // Rows are independent; the result does not depend on how they are shared out.
        outlined
            .par_chunks_mut(w)
            .enumerate()
            .for_each(|(y, marks)| {
                let row = y * w;
                for (x, mark) in marks.iter_mut().enumerate() {
                    let i = row + x;
                    if ids[i] == 0 {
                        *mark = false;
                        continue;
                    }
                    // Within one triangle depth runs smoothly: only a change of triangle (or
                    // to nothing) can be an outline.
                    let id = ids[i];
                    let far = depth[i] * (1.0 + step);
                    let edge = |j: usize| ids[j] != id && depth[j] > far;
                    *mark = (x + 1 < w && edge(i + 1))
                        || (x > 0 && edge(i - 1))
                        || (y + 1 < h && edge(i + w))
                        || (y > 0 && edge(i - w));
                }
            });
        self.outlined = outlined;
    }

    /// The image: each pixel's samples averaged in linear light and encoded as sRGB. A
    /// line sample shows its line; a triangle sample is `shade(index, weights)` of the
    /// triangle at the pixel's centre (perspective-correct weights of its corners), mixed
    /// with `outline` where outlined; the rest is `background`.
    pub fn resolve(
        &self,
        background: [f32; 4],
        outline: [f32; 4],
        shade: impl Fn(usize, Weights) -> [f32; 3] + Sync,
    ) -> RgbaImage {
        let s = SUPERSAMPLE as usize;
        let (w, h) = (self.width as usize / s, self.height as usize / s);
        let mut raw = vec![0u8; w * h * 4];
        let inks = Inks {
            background,
            outline,
            shade: &shade,
        };
        let srgb = srgb_table();
        // Rows are independent; the result does not depend on how they are shared out.
        raw.par_chunks_mut(w * 4).enumerate().for_each(|(y, out)| {
            // The last pixel whose samples were all alike and all of one colour, and its bytes.
            let mut last: Option<(SampleKey, [u8; 4])> = None;
            for x in 0..w {
                let samples: [usize; SAMPLES] =
                    std::array::from_fn(|k| (y * s + k / s) * self.width as usize + x * s + k % s);
                let key = self.key(samples[0]);
                let uniform = samples.iter().all(|i| self.key(*i) == key);
                let bytes = match last.filter(|(k, _)| uniform && *k == key) {
                    Some((_, bytes)) => bytes,
                    None => encode(self.pixel(&samples, [x, y], uniform, &inks), srgb),
                };
                out[x * 4..][..4].copy_from_slice(&bytes);
                last = (uniform && self.one_colour(key)).then_some((key, bytes));
            }
        });
        RgbaImage::from_raw(w as u32, h as u32, raw).expect("the buffer fits the image")
    }

    /// What decides a sample's colour: its line, its triangle, whether it is outlined,
    /// and the translucent triangle over them (none when what the sample shows, a line
    /// say, is nearer than the glass).
    fn key(&self, i: usize) -> SampleKey {
        let glass = self.glass_id[i];
        (
            self.overlay[i],
            self.id[i],
            self.outlined.get(i) == Some(&true),
            if self.glass_depth[i] < self.depth[i] {
                glass
            } else {
                0
            },
        )
    }

    /// Whether a sample of `key` has one colour wherever it falls in its pixel.
    fn one_colour(&self, key: SampleKey) -> bool {
        let flat = |id: u32| id == 0 || self.flat[id as usize - 1];
        key.0 != 0 || (flat(key.1) && flat(key.3))
    }

    /// One pixel's colour in linear light with straight alpha: its samples' average, or
    /// the first sample's colour when they are all alike.
    fn pixel<F: Fn(usize, Weights) -> [f32; 3] + Sync>(
        &self,
        samples: &[usize; SAMPLES],
        [x, y]: [usize; 2],
        uniform: bool,
        inks: &Inks<F>,
    ) -> [f32; 4] {
        let s = SUPERSAMPLE as f64;
        let centre = [x as f64 * s + s / 2.0, y as f64 * s + s / 2.0];
        // The pixel's few triangles, each shaded once.
        let mut shaded: [(u32, [f32; 3]); SAMPLES] = [(0, [0.0; 3]); SAMPLES];
        let mut shade_once = |id: u32| -> [f32; 3] {
            if let Some((_, rgb)) = shaded.iter().find(|(k, _)| *k == id) {
                return *rgb;
            }
            let index = id as usize - 1;
            let at = Weights {
                corners: &self.corners[index],
                centre,
            };
            let rgb = (inks.shade)(index, at);
            if let Some(slot) = shaded.iter_mut().find(|(k, _)| *k == 0) {
                *slot = (id, rgb);
            }
            rgb
        };
        let mut colour_of = |i: usize| -> [f32; 4] {
            let (ink, id, outlined, glass) = self.key(i);
            let glazed = |under: [f32; 4], shade_once: &mut dyn FnMut(u32) -> [f32; 3]| {
                if glass == 0 {
                    return under;
                }
                over(shade_once(glass), self.alpha[glass as usize - 1], under)
            };
            if ink != 0 {
                return glazed(self.palette[ink as usize - 1], &mut shade_once);
            }
            let under = if id == 0 {
                inks.background
            } else {
                let rgb = shade_once(id);
                let o = inks.outline;
                let mix = |k: usize| {
                    if outlined {
                        rgb[k] * (1.0 - o[3]) + o[k] * o[3]
                    } else {
                        rgb[k]
                    }
                };
                [mix(0), mix(1), mix(2), 1.0]
            };
            glazed(under, &mut shade_once)
        };
        if uniform {
            return colour_of(samples[0]);
        }
        let mut acc = [0.0f32; 4];
        for &i in samples {
            let c = colour_of(i);
            // Premultiplied, so transparent samples do not darken the edge.
            for k in 0..3 {
                acc[k] += c[k] * c[3];
            }
            acc[3] += c[3];
        }
        if acc[3] > 0.0 {
            let a = acc[3] / SAMPLES as f32;
            [acc[0] / acc[3], acc[1] / acc[3], acc[2] / acc[3], a]
        } else {
            [0.0; 4]
        }
    }
}

const SAMPLES: usize = (SUPERSAMPLE * SUPERSAMPLE) as usize;

/// A sample's line colour (0 for none), triangle (0 for none), outline flag and
/// translucent triangle (0 for none).
type SampleKey = (u8, u32, bool, u32);

/// A triangle as the canvas takes it: its projected corners (`None` covers nothing),
/// whether it has one colour all over, and its opacity (below 1 is translucent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projected {
    pub corners: Option<[[f64; 3]; 3]>,
    pub flat: bool,
    pub alpha: f32,
}

/// `rgb` at opacity `alpha` laid over `under` (straight alpha, linear light).
fn over(rgb: [f32; 3], alpha: f32, under: [f32; 4]) -> [f32; 4] {
    let a = alpha + under[3] * (1.0 - alpha);
    if a <= 0.0 {
        return [0.0; 4];
    }
    let mix = |k: usize| (rgb[k] * alpha + under[k] * under[3] * (1.0 - alpha)) / a;
    [mix(0), mix(1), mix(2), a]
}

/// The colours `resolve` paints with besides the lines'.
struct Inks<'a, F> {
    background: [f32; 4],
    outline: [f32; 4],
    shade: &'a F,
}

/// A linear colour with straight alpha as sRGB bytes.
fn encode(c: [f32; 4], srgb: &[u8]) -> [u8; 4] {
    if c[3] <= 0.0 {
        return [0; 4];
    }
    let channel = |v: f32| srgb[(v.clamp(0.0, 1.0) * SRGB_STEPS as f32) as usize];
    [
        channel(c[0]),
        channel(c[1]),
        channel(c[2]),
        (c[3].clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
    ]
}

impl Drop for Canvas {
    fn drop(&mut self) {
        let spare = Buffers {
            depth: std::mem::take(&mut self.depth),
            id: std::mem::take(&mut self.id),
            glass_depth: std::mem::take(&mut self.glass_depth),
            glass_id: std::mem::take(&mut self.glass_id),
            overlay: std::mem::take(&mut self.overlay),
            outlined: if self.outlined.is_empty() {
                std::mem::take(&mut self.spare_outlined)
            } else {
                std::mem::take(&mut self.outlined)
            },
        };
        SPARE.with(|s| *s.borrow_mut() = Some(spare));
    }
}

/// The columns of row `py` inside all three edges, within the canvas.
fn span(edges: &[[f64; 3]; 3], py: f64, width: u32) -> Option<(i64, i64)> {
    let (mut lo, mut hi): (f64, f64) = (0.5, f64::from(width) - 0.5);
    for [a, b, c] in edges {
        // a·x + (b·py + c) ≥ 0
        let rest = b * py + c;
        if *a > 0.0 {
            lo = lo.max(-rest / a);
        } else if *a < 0.0 {
            hi = hi.min(-rest / a);
        } else if rest < 0.0 {
            return None;
        }
    }
    // Sample centres sit at x + 0.5.
    let (x0, x1) = ((lo - 0.5).ceil() as i64, (hi - 0.5).floor() as i64);
    (x0 <= x1).then_some((x0, x1))
}

/// Rows a rasterizing task fills: enough work to be worth a task, few enough bands that
/// both halves of a small piece are shared out.
const BAND_ROWS: usize = 32;

/// A projected triangle made ready to fill: its edge and depth planes and its rows.
struct Setup {
    edges: [[f64; 3]; 3],
    depth: [f64; 3],
    rows: std::ops::RangeInclusive<i64>,
}

impl Setup {
    fn new(p: [[f64; 3]; 3], height: u32) -> Option<Setup> {
        let edges = edge_planes(p)?;
        // A sample is inside where all three edges are at least zero; depth is a plane too.
        let depth = blend(&edges, [p[0][2], p[1][2], p[2][2]]);
        let ys = p.map(|q| q[1]);
        let min_y = (ys.iter().copied().fold(f64::MAX, f64::min) - 0.5)
            .ceil()
            .max(0.0) as i64;
        let max_y = (ys.iter().copied().fold(f64::MIN, f64::max) - 0.5)
            .floor()
            .min(f64::from(height) - 1.0) as i64;
        Some(Setup {
            edges,
            depth,
            rows: min_y..=max_y,
        })
    }

    /// Depth-tests the triangle's samples in `rows` into a band's buffers, whose first
    /// sample is `offset` in the canvas; a sample it wins takes `id`. With `front_of`, a
    /// sample must also be nearer than that depth (a translucent layer over the opaque).
    fn fill(
        &self,
        rows: std::ops::Range<i64>,
        width: u32,
        depth: &mut [f32],
        ids: &mut [u32],
        (id, offset): (u32, usize),
        front_of: Option<&[f32]>,
    ) {
        let from = rows.start.max(*self.rows.start());
        let to = (rows.end - 1).min(*self.rows.end());
        for y in from..=to {
            let py = y as f64 + 0.5;
            let Some((x0, x1)) = span(&self.edges, py, width) else {
                continue;
            };
            let row = y as usize * width as usize - offset;
            let mut z = self.depth[0] * (x0 as f64 + 0.5) + self.depth[1] * py + self.depth[2];
            for x in x0..=x1 {
                let i = row + x as usize;
                let zf = z as f32;
                if zf < depth[i] && front_of.is_none_or(|o| zf < o[i]) {
                    depth[i] = zf;
                    ids[i] = id;
                }
                z += self.depth[0];
            }
        }
    }
}

/// A projected triangle's edge functions as planes in (x, y), normalized by its area:
/// plane `k` is corner `k`'s screen-space weight, 1 there and 0 on the opposite edge.
/// `None` for a triangle with no area.
fn edge_planes(p: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let area =
        (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
    if area.abs() < 1e-12 || !area.is_finite() {
        return None;
    }
    let inv = 1.0 / area;
    let edge = |a: [f64; 3], b: [f64; 3]| {
        [
            (a[1] - b[1]) * inv,
            (b[0] - a[0]) * inv,
            (a[0] * b[1] - a[1] * b[0]) * inv,
        ]
    };
    Some([edge(p[1], p[2]), edge(p[2], p[0]), edge(p[0], p[1])])
}

/// The plane through the corners' `values`.
fn blend(edges: &[[f64; 3]; 3], values: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| edges[0][k] * values[0] + edges[1][k] * values[1] + edges[2][k] * values[2])
}

fn on_plane(plane: [f64; 3], at: [f64; 2]) -> f64 {
    plane[0] * at[0] + plane[1] * at[1] + plane[2]
}

/// A two-valued attribute (a texture coordinate) across a projected triangle, perspective
/// correct. `value / depth` and `1 / depth` are planes on the screen, so a pixel costs
/// three planes and a division rather than the corners' weights. A pixel centre just
/// outside the triangle reads the planes a little beyond it, as a GPU does.
#[derive(Debug, Clone, Copy)]
pub struct Varying {
    inverse_depth: [f64; 3],
    over_depth: [[f64; 3]; 2],
}

impl Varying {
    /// `None` when the triangle has no area or a corner is not in front of the camera.
    pub fn new(p: [[f64; 3]; 3], values: [[f64; 2]; 3]) -> Option<Varying> {
        if !p.iter().all(|q| q[2] > 0.0) {
            return None;
        }
        let edges = edge_planes(p)?;
        let inverse = p.map(|q| 1.0 / q[2]);
        Some(Varying {
            inverse_depth: blend(&edges, inverse),
            over_depth: [0, 1].map(|j| blend(&edges, [0, 1, 2].map(|k| values[k][j] * inverse[k]))),
        })
    }

    /// The value at a point (sample units); `None` where the planes give no depth.
    pub fn at(&self, at: [f64; 2]) -> Option<[f64; 2]> {
        let q = on_plane(self.inverse_depth, at);
        if !q.is_finite() || q <= 0.0 {
            return None;
        }
        let r = 1.0 / q;
        Some(self.over_depth.map(|plane| on_plane(plane, at) * r))
    }
}

/// Where in a triangle a pixel is shaded, worked out only when a shader asks (a flat
/// surface never does).
pub struct Weights<'a> {
    corners: &'a [[f64; 3]; 3],
    centre: [f64; 2],
}

impl Weights<'_> {
    /// Perspective-correct weights of the corners at the pixel's centre.
    pub fn get(&self) -> [f64; 3] {
        weights(*self.corners, self.centre)
    }

    /// The pixel's centre, in sample units.
    pub fn centre(&self) -> [f64; 2] {
        self.centre
    }
}

/// Perspective-correct weights of a triangle's corners at a point, clamped to the
/// triangle (an edge pixel's centre can lie just outside the triangle that covers it).
fn weights(p: [[f64; 3]; 3], at: [f64; 2]) -> [f64; 3] {
    // Only the sign of the area matters: the weights are normalized at the end.
    let sign = ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1])
        - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]))
        .signum();
    let w = |a: [f64; 3], b: [f64; 3]| {
        ((a[0] - at[0]) * (b[1] - at[1]) - (a[1] - at[1]) * (b[0] - at[0])) * sign
    };
    let screen = [w(p[1], p[2]), w(p[2], p[0]), w(p[0], p[1])].map(|v| v.max(0.0));
    let q = [0, 1, 2].map(|k| screen[k] / p[k][2]);
    let sum = q[0] + q[1] + q[2];
    if sum > 0.0 && sum.is_finite() {
        let r = 1.0 / sum;
        q.map(|v| v * r)
    } else {
        [1.0 / 3.0; 3]
    }
}

/// Linear values in steps of 1/`SRGB_STEPS`, encoded as sRGB bytes: the curve's power
/// once per step rather than once per channel of every pixel.
const SRGB_STEPS: usize = 1 << 16;

fn srgb_table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=SRGB_STEPS)
            .map(|i| (linear_to_srgb(i as f32 / SRGB_STEPS as f32) * 255.0).round() as u8)
            .collect()
    })
}

/// Projects a world point with a camera scaled to the canvas.
pub fn project(camera: &Camera, p: V3) -> Option<[f64; 3]> {
    camera.project(p)
}
