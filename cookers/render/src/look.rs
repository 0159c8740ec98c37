//! What a surface looks like: a material slot's base colour and, optionally, its
//! base-colour texture, sampled the way glTF defines it.

/// A material's look: `base_colour` in linear light, multiplied by the texture's texel
/// where the slot has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    pub base_colour: [f32; 4],
    pub texture: Option<Texture>,
    /// Seen from behind too. A single-sided surface facing away is not drawn, as in the
    /// game (and as glTF defines it).
    pub double_sided: bool,
}

/// A decoded base-colour texture in linear light, with its mipmaps: each level half the
/// one before, down to one texel. A triangle samples the level whose texels are about
/// pixel-sized on screen, which keeps a distant texture from shimmering and its reads
/// close together.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    levels: Vec<Level>,
    /// How U and V outside 0..1 fold back in.
    pub wrap: [Wrap; 2],
}

/// One mip level: `width` × `height` texels, rows top first (glTF's UV origin is the
/// image's top-left corner).
#[derive(Debug, Clone, PartialEq)]
struct Level {
    width: u32,
    height: u32,
    texels: Vec<[f32; 4]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
}

impl Wrap {
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
    /// A texture of `width` × `height` linear texels (rows top first); `None` when the
    /// texel count does not match.
    pub fn new(width: u32, height: u32, texels: Vec<[f32; 4]>, wrap: [Wrap; 2]) -> Option<Texture> {
        if width == 0 || height == 0 || texels.len() != width as usize * height as usize {
            return None;
        }
        let mut levels = vec![Level {
            width,
            height,
            texels,
        }];
        while let Some(smaller) = levels.last().and_then(Level::halved) {
            levels.push(smaller);
        }
        Some(Texture { levels, wrap })
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

    /// Bilinear sample of `level` at texture coordinate `uv`.
    pub fn sample(&self, uv: [f64; 2], level: usize) -> [f32; 4] {
        let l = &self.levels[level.min(self.levels.len() - 1)];
        let (w, h) = (i64::from(l.width), i64::from(l.height));
        let x = uv[0] * w as f64 - 0.5;
        let y = uv[1] * h as f64 - 0.5;
        let (x0, y0) = (floor(x), floor(y));
        let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
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
        let (a, b, c, d) = (top[tx0], top[tx1], bottom[tx0], bottom[tx1]);
        std::array::from_fn(|k| {
            let upper = a[k] + (b[k] - a[k]) * fx;
            let lower = c[k] + (d[k] - c[k]) * fx;
            upper + (lower - upper) * fy
        })
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
    /// The next mip level: each texel the mean of up to 2×2 below it, or `None` at 1×1.
    fn halved(&self) -> Option<Level> {
        if self.width == 1 && self.height == 1 {
            return None;
        }
        let (w, h) = (self.width.div_ceil(2), self.height.div_ceil(2));
        let texel = |x: u32, y: u32| self.texels[(y * self.width + x) as usize];
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
                texels.push(sum);
            }
        }
        Some(Level {
            width: w,
            height: h,
            texels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker() -> Texture {
        let texels = vec![[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
        Texture::new(2, 1, texels, [Wrap::Repeat, Wrap::ClampToEdge]).unwrap()
    }

    #[test]
    fn texel_centres_give_their_texel_and_wrapping_folds_back() {
        let t = checker();
        assert_eq!(t.sample([0.25, 0.5], 0), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sample([0.75, 0.5], 0), [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(t.sample([1.25, 0.5], 0), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sample([0.5, 0.5], 0), [0.5, 0.0, 0.5, 1.0]);
        // The next level averages the two.
        assert_eq!(t.sample([0.3, 0.5], 1), [0.5, 0.0, 0.5, 1.0]);
        assert_eq!(t.level_for(0.5), 0);
        assert_eq!(t.level_for(2.5), 1);
        assert_eq!(t.level_for(100.0), 1);
        assert_eq!(Wrap::MirroredRepeat.fold(-1, 4), 0);
        assert_eq!(Wrap::MirroredRepeat.fold(5, 4), 2);
        assert_eq!(Wrap::ClampToEdge.fold(9, 4), 3);
    }
}
