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

/// A decoded base-colour texture: `width` × `height` texels in linear light, rows top
/// first (glTF's UV origin is the image's top-left corner).
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[f32; 4]>,
    /// How U and V outside 0..1 fold back in.
    pub wrap: [Wrap; 2],
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
    /// Bilinear sample at texture coordinate `uv`.
    pub fn sample(&self, uv: [f64; 2]) -> [f32; 4] {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        if w == 0 || h == 0 || self.texels.len() != (w * h) as usize {
            return [1.0; 4];
        }
        let x = uv[0] * w as f64 - 0.5;
        let y = uv[1] * h as f64 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
        let texel = |dx: i64, dy: i64| {
            let tx = self.wrap[0].fold(x0 as i64 + dx, w);
            let ty = self.wrap[1].fold(y0 as i64 + dy, h);
            self.texels[ty * w as usize + tx]
        };
        let (a, b, c, d) = (texel(0, 0), texel(1, 0), texel(0, 1), texel(1, 1));
        std::array::from_fn(|k| {
            let top = a[k] + (b[k] - a[k]) * fx;
            let bottom = c[k] + (d[k] - c[k]) * fx;
            top + (bottom - top) * fy
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker() -> Texture {
        Texture {
            width: 2,
            height: 1,
            texels: vec![[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]],
            wrap: [Wrap::Repeat, Wrap::ClampToEdge],
        }
    }

    #[test]
    fn texel_centres_give_their_texel_and_wrapping_folds_back() {
        let t = checker();
        assert_eq!(t.sample([0.25, 0.5]), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sample([0.75, 0.5]), [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(t.sample([1.25, 0.5]), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sample([0.5, 0.5]), [0.5, 0.0, 0.5, 1.0]);
        assert_eq!(Wrap::MirroredRepeat.fold(-1, 4), 0);
        assert_eq!(Wrap::MirroredRepeat.fold(5, 4), 2);
        assert_eq!(Wrap::ClampToEdge.fold(9, 4), 3);
    }
}
