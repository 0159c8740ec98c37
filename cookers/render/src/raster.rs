//! A small z-buffered rasterizer: shaded triangles and lines in linear light, drawn at
//! twice the resolution and averaged down (which anti-aliases every edge) to sRGB.

use image::{Rgba, RgbaImage};

use crate::camera::{Camera, V3};
use crate::colour::linear_to_srgb;

pub const SUPERSAMPLE: u32 = 2;

pub struct Canvas {
    pub width: u32,
    pub height: u32,
    colour: Vec<[f32; 4]>,
    depth: Vec<f32>,
}

impl Canvas {
    pub fn new(width: u32, height: u32, background: [f32; 4]) -> Canvas {
        let n = (width * height) as usize;
        Canvas {
            width,
            height,
            colour: vec![background; n],
            depth: vec![f32::INFINITY; n],
        }
    }

    fn plot(&mut self, x: i64, y: i64, z: f64, rgba: [f32; 4], depth_test: bool) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let i = (y as u32 * self.width + x as u32) as usize;
        let z = z as f32;
        if depth_test && z >= self.depth[i] {
            return;
        }
        if depth_test {
            self.depth[i] = z;
        }
        self.colour[i] = rgba;
    }

    /// A triangle from three projected points (pixels, with view depth). Each sample it
    /// covers is coloured by `shade`, given the sample's perspective-correct weights of the
    /// three corners.
    pub fn triangle(&mut self, p: [[f64; 3]; 3], mut shade: impl FnMut([f64; 3]) -> [f32; 4]) {
        let area =
            (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
        if area.abs() < 1e-12 {
            return;
        }
        let min_x = p
            .iter()
            .map(|q| q[0])
            .fold(f64::MAX, f64::min)
            .floor()
            .max(0.0) as i64;
        let max_x = p
            .iter()
            .map(|q| q[0])
            .fold(f64::MIN, f64::max)
            .ceil()
            .min(f64::from(self.width) - 1.0) as i64;
        let min_y = p
            .iter()
            .map(|q| q[1])
            .fold(f64::MAX, f64::min)
            .floor()
            .max(0.0) as i64;
        let max_y = p
            .iter()
            .map(|q| q[1])
            .fold(f64::MIN, f64::max)
            .ceil()
            .min(f64::from(self.height) - 1.0) as i64;
        // Edge functions as planes in (x, y), normalized by the area, stepped per pixel.
        let inv = 1.0 / area;
        let edge = |a: [f64; 3], b: [f64; 3]| {
            // w(px, py) = ((a.x - px)(b.y - py) - (a.y - py)(b.x - px)) / area
            let ka = (a[1] - b[1]) * inv;
            let kb = (b[0] - a[0]) * inv;
            let kc = (a[0] * b[1] - a[1] * b[0]) * inv;
            (ka, kb, kc)
        };
        let (a0, b0, c0) = edge(p[1], p[2]);
        let (a1, b1, c1) = edge(p[2], p[0]);
        let width = self.width as usize;
        for y in min_y..=max_y {
            let py = y as f64 + 0.5;
            let row = y as usize * width;
            let mut w0 = a0 * (min_x as f64 + 0.5) + b0 * py + c0;
            let mut w1 = a1 * (min_x as f64 + 0.5) + b1 * py + c1;
            for x in min_x..=max_x {
                let w2 = 1.0 - w0 - w1;
                if w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0 {
                    let z = (w0 * p[0][2] + w1 * p[1][2] + w2 * p[2][2]) as f32;
                    let i = row + x as usize;
                    if z < self.depth[i] {
                        let q = [w0 / p[0][2], w1 / p[1][2], w2 / p[2][2]];
                        let sum = q[0] + q[1] + q[2];
                        self.depth[i] = z;
                        self.colour[i] = shade(q.map(|c| c / sum));
                    }
                }
                w0 += a0;
                w1 += a1;
            }
        }
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
                    self.plot(
                        x as i64 + dx - width / 2,
                        y as i64 + dy - width / 2,
                        z * bias,
                        rgba,
                        depth_test,
                    );
                }
            }
        }
    }

    /// Darkens the samples on a silhouette or a fold: where a neighbour is empty or lies
    /// more than `step` (a fraction of the depth) farther away. Run before the grid and
    /// overlay lines, so only the piece's own depth is read.
    pub fn outline(&mut self, colour: [f32; 4], step: f32) {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut edges = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let z = self.depth[y * w + x];
                if !z.is_finite() {
                    continue;
                }
                let far = |nx: usize, ny: usize| self.depth[ny * w + nx] > z * (1.0 + step);
                if (x + 1 < w && far(x + 1, y))
                    || (x > 0 && far(x - 1, y))
                    || (y + 1 < h && far(x, y + 1))
                    || (y > 0 && far(x, y - 1))
                {
                    edges.push(y * w + x);
                }
            }
        }
        for i in edges {
            let c = &mut self.colour[i];
            for k in 0..3 {
                c[k] = c[k] * (1.0 - colour[3]) + colour[k] * colour[3];
            }
        }
    }

    /// Averages `factor`² samples into each pixel, in linear light, then encodes sRGB.
    pub fn downsample(&self, factor: u32) -> RgbaImage {
        let (w, h) = (self.width / factor, self.height / factor);
        let mut out = RgbaImage::new(w, h);
        let n = (factor * factor) as f32;
        for y in 0..h {
            for x in 0..w {
                let mut acc = [0.0f32; 4];
                for sy in 0..factor {
                    for sx in 0..factor {
                        let c = self.colour
                            [((y * factor + sy) * self.width + x * factor + sx) as usize];
                        // Premultiplied, so transparent samples do not darken the edge.
                        acc[0] += c[0] * c[3];
                        acc[1] += c[1] * c[3];
                        acc[2] += c[2] * c[3];
                        acc[3] += c[3];
                    }
                }
                let a = acc[3] / n;
                let px = if a > 0.0 {
                    [
                        linear_to_srgb(acc[0] / acc[3]),
                        linear_to_srgb(acc[1] / acc[3]),
                        linear_to_srgb(acc[2] / acc[3]),
                        a,
                    ]
                } else {
                    [0.0; 4]
                };
                out.put_pixel(
                    x,
                    y,
                    Rgba(px.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)),
                );
            }
        }
        out
    }
}

/// Projects a world point with a camera scaled to the canvas.
pub fn project(camera: &Camera, p: V3) -> Option<[f64; 3]> {
    camera.project(p)
}
