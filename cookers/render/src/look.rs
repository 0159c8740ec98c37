//! What a surface looks like: a material slot's base colour and, optionally, its
//! base-colour texture, sampled the way glTF defines it.

use std::sync::OnceLock;

use crate::colour::{linear_to_srgb, srgb_to_linear};

/// A material's look: `base_colour` in linear light, multiplied by the texture's texel
/// where the slot has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    pub base_colour: [f32; 4],
    pub texture: Option<Texture>,
    /// Seen from behind too. A single-sided surface facing away is not drawn, as in the
    /// game (and as glTF defines it).
    pub double_sided: bool,
    /// Laid over what is behind it by `base_colour`'s alpha, rather than hiding it.
    pub translucent: bool,
}

/// A decoded base-colour texture with its mipmaps: each level half the one before, down
/// to one texel. A triangle samples the level whose texels are about pixel-sized on
/// screen, which keeps a distant texture from shimmering and its reads close together.
///
/// Texels stay sRGB-encoded bytes, as a GPU keeps an sRGB texture, and are decoded to
/// linear light as they are read: a quarter of the memory of linear floats, so a 512²
/// texture's reads stay in a core's cache.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    levels: Vec<Level>,
    /// How U and V outside 0..1 fold back in.
    pub wrap: [Wrap; 2],
    /// Every sRGB byte in linear light, looked up once rather than at every texel.
    linear: &'static [f32; 256],
}

/// One mip level: `width` × `height` RGBA texels (colour sRGB-encoded, alpha linear),
/// rows top first (glTF's UV origin is the image's top-left corner).
#[derive(Debug, Clone, PartialEq)]
struct Level {
    width: u32,
    height: u32,
    texels: Vec<[u8; 4]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
}

impl Wrap {
    /// `t` folded into 0..=1 (a whole number of periods taken off), so the texels it
    /// lands between are the same.
    fn reduce(self, t: f64) -> f64 {
        if (0.0..=1.0).contains(&t) || !t.is_finite() {
            return t;
        }
        match self {
            Wrap::Repeat => t - floor(t),
            Wrap::MirroredRepeat => t - 2.0 * floor(t / 2.0),
            Wrap::ClampToEdge => t.clamp(0.0, 1.0),
        }
    }

    /// A texel index for `i`, which may be outside `0..n`.
    fn fold(self, i: i64, n: i64) -> usize {
        let folded = match self {
            Wrap::Repeat => i.rem_euclid(n),
            Wrap::ClampToEdge => i.clamp(0, n - 1),
            Wrap::MirroredRepeat => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
        };
        folded as usize
    }
}

impl Texture {
    /// A texture of `width` × `height` RGBA8 texels as an image stores them (colour
    /// sRGB-encoded, rows top first); `None` when the byte count does not match.
    pub fn from_srgb8(width: u32, height: u32, rgba8: &[u8], wrap: [Wrap; 2]) -> Option<Texture> {
        if width == 0 || height == 0 || rgba8.len() != width as usize * height as usize * 4 {
            return None;
        }
        let texels = rgba8
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        let mut levels = vec![Level {
            width,
            height,
            texels,
        }];
        while let Some(smaller) = levels.last().and_then(Level::halved) {
            levels.push(smaller);
        }
        Some(Texture {
            levels,
            wrap,
            linear: srgb_bytes(),
        })
    }

    pub fn width(&self) -> u32 {
        self.levels[0].width
    }

    pub fn height(&self) -> u32 {
        self.levels[0].height
    }

    /// The level to sample where one pixel covers `texels_per_pixel` texels of the full
    /// image (along each axis).
    pub fn level_for(&self, texels_per_pixel: f64) -> usize {
        // Magnified (or unknown, NaN): the full image.
        if texels_per_pixel.is_nan() || texels_per_pixel <= 1.0 {
            return 0;
        }
        (texels_per_pixel.log2().floor() as usize).min(self.levels.len() - 1)
    }

    /// Bilinear sample of `level` at texture coordinate `uv`, colour only (the preview
    /// does not blend alpha).
    pub fn sample_rgb(&self, uv: [f64; 2], level: usize) -> [f32; 3] {
        let (texels, [fx, fy]) = self.taps(uv, level);
        let lin = self.linear;
        std::array::from_fn(|k| {
            let [a, b, c, d] = texels.map(|t| lin[usize::from(t[k])]);
            let upper = a + (b - a) * fx;
            let lower = c + (d - c) * fx;
            upper + (lower - upper) * fy
        })
    }

    /// Bilinear sample of `level` at texture coordinate `uv`.
    pub fn sample(&self, uv: [f64; 2], level: usize) -> [f32; 4] {
        let (texels, [fx, fy]) = self.taps(uv, level);
        let [a, b, c, d] = texels.map(|t| decode(t, self.linear));
        std::array::from_fn(|k| {
            let upper = a[k] + (b[k] - a[k]) * fx;
            let lower = c[k] + (d[k] - c[k]) * fx;
            upper + (lower - upper) * fy
        })
    }

    /// The four texels a bilinear sample at `uv` blends (top left, top right, bottom
    /// left, bottom right) and its weights across and down.
    fn taps(&self, uv: [f64; 2], level: usize) -> ([[u8; 4]; 4], [f32; 2]) {
        let l = &self.levels[level.min(self.levels.len() - 1)];
        let (w, h) = (i64::from(l.width), i64::from(l.height));
        // Folded into one period first, so only the texels at the image's edges need
        // folding (an integer division each) rather than every texel of a tiled surface.
        let x = self.wrap[0].reduce(uv[0]) * w as f64 - 0.5;
        let y = self.wrap[1].reduce(uv[1]) * h as f64 - 0.5;
        let (x0, y0) = (floor(x), floor(y));
        let fold = |wrap: Wrap, i: i64, n: i64| {
            // Inside the image (nearly always) nothing folds.
            if (0..n - 1).contains(&i) {
                (i as usize, i as usize + 1)
            } else {
                (wrap.fold(i, n), wrap.fold(i + 1, n))
            }
        };
        let (tx0, tx1) = fold(self.wrap[0], x0 as i64, w);
        let (ty0, ty1) = fold(self.wrap[1], y0 as i64, h);
        let row = |ty: usize| &l.texels[ty * w as usize..][..w as usize];
        let (top, bottom) = (row(ty0), row(ty1));
        let texels = [top[tx0], top[tx1], bottom[tx0], bottom[tx1]];
        (texels, [(x - x0) as f32, (y - y0) as f32])
    }
}

/// `f64::floor` without the library call it becomes on targets without SSE4.1; the
/// texture coordinates it sees are well within `i64`.
fn floor(v: f64) -> f64 {
    let t = v as i64 as f64;
    if t > v {
        t - 1.0
    } else {
        t
    }
}

impl Level {
    /// The next mip level: each texel the mean, in linear light, of up to 2×2 below it,
    /// or `None` at 1×1.
    fn halved(&self) -> Option<Level> {
        if self.width == 1 && self.height == 1 {
            return None;
        }
        let (w, h) = (self.width.div_ceil(2), self.height.div_ceil(2));
        let linear = srgb_bytes();
        let texel = |x: u32, y: u32| decode(self.texels[(y * self.width + x) as usize], linear);
        let mut texels = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let xs = [2 * x, (2 * x + 1).min(self.width - 1)];
                let ys = [2 * y, (2 * y + 1).min(self.height - 1)];
                let mut sum = [0.0f32; 4];
                for &ty in &ys {
                    for &tx in &xs {
                        let t = texel(tx, ty);
                        for k in 0..4 {
                            sum[k] += t[k] / 4.0;
                        }
                    }
                }
                texels.push(encode(sum));
            }
        }
        Some(Level {
            width: w,
            height: h,
            texels,
        })
    }
}

/// A texel in linear light.
fn decode(t: [u8; 4], linear: &[f32; 256]) -> [f32; 4] {
    [
        linear[t[0] as usize],
        linear[t[1] as usize],
        linear[t[2] as usize],
        f32::from(t[3]) * (1.0 / 255.0),
    ]
}

/// A linear texel as stored, each channel rounded to the nearest byte.
fn encode(t: [f32; 4]) -> [u8; 4] {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [
        byte(linear_to_srgb(t[0])),
        byte(linear_to_srgb(t[1])),
        byte(linear_to_srgb(t[2])),
        byte(t[3]),
    ]
}

/// Every sRGB byte in linear light.
fn srgb_bytes() -> &'static [f32; 256] {
    static TABLE: OnceLock<[f32; 256]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| srgb_to_linear(i as f32 / 255.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker() -> Texture {
        let texels = [255, 0, 0, 255, 0, 0, 255, 255];
        Texture::from_srgb8(2, 1, &texels, [Wrap::Repeat, Wrap::ClampToEdge]).unwrap()
    }

    #[test]
    fn texel_centres_give_their_texel_and_wrapping_folds_back() {
        let t = checker();
        assert_eq!(t.sample([0.25, 0.5], 0), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sample([0.75, 0.5], 0), [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(t.sample([1.25, 0.5], 0), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sample([0.5, 0.5], 0), [0.5, 0.0, 0.5, 1.0]);
        // The next level averages the two in linear light, stored as the nearest byte.
        let half = srgb_bytes()[188];
        assert_eq!(t.sample([0.3, 0.5], 1), [half, 0.0, half, 1.0]);
        assert!((half - 0.5).abs() < 0.005, "{half}");
        assert_eq!(t.level_for(0.5), 0);
        assert_eq!(t.level_for(2.5), 1);
        assert_eq!(t.level_for(100.0), 1);
        assert_eq!(Wrap::MirroredRepeat.fold(-1, 4), 0);
        assert_eq!(Wrap::MirroredRepeat.fold(5, 4), 2);
        assert_eq!(Wrap::ClampToEdge.fold(9, 4), 3);
    }
}
