//! Previews of cooked pieces without a GPU or a display.
//!
//! [`render`] draws a [`Scene`] (the placed visual mesh with its materials' looks,
//! optional collision wireframes and check rays, and caption lines) from a three-quarter
//! [`Camera`] fitted to the piece. Shading is a studio setup after Blender Workbench's
//! default ([`shading`]): a key light, a fill and a sky ambient, in linear light, with
//! optional outlines. The ground grid at the pack's snap is depth-tested against the
//! piece; edges are anti-aliased by 2×2 supersampling. [`contact_sheet`] lays renders out
//! in a labelled grid, and [`turntable_gif`] makes one animated image of several views.
//! Everything is a pure function of its inputs: the same scene gives the same bytes.

pub mod camera;
mod colour;
mod font;
mod look;
mod raster;
pub mod shading;
mod sheet;
mod turntable;

use std::collections::BTreeMap;

use image::RgbaImage;

pub use camera::Camera;
pub use colour::{linear_to_srgb, srgb_to_linear};
pub use look::{Look, Texture, Wrap};
pub use sheet::contact_sheet;
pub use turntable::turntable_gif;

/// Version of this cooker; part of every render step's key.
pub const VERSION: u32 = 9; // 3: the grid never shows through the piece; 4: materials' own colours and textures, studio lighting, fitted framing, sRGB output; 5: shaded once a pixel, single-sided back faces culled; 6: textures kept as sRGB bytes, mip levels rounded to them; 7: texture coordinates from screen-space planes; 8: translucent (glTF BLEND) surfaces laid over what is behind them; 9: the glass a sample shows is part of its pixel key

pub type V3 = [f64; 3];

/// Named colours, as sRGB values.
pub const BACKGROUND: [f32; 4] = [0.92, 0.92, 0.93, 1.0];
pub const GRID: [f32; 4] = [0.76, 0.76, 0.78, 1.0];
pub const WIREFRAME: [f32; 4] = [0.1, 0.55, 1.0, 1.0];
pub const PASS: [f32; 4] = [0.15, 0.75, 0.25, 1.0];
pub const FAIL: [f32; 4] = [0.9, 0.15, 0.15, 1.0];
const OUTLINE: [f32; 4] = [0.05, 0.05, 0.06, 0.85];
/// How much farther (as a fraction of depth) a neighbour must be to draw an outline.
const OUTLINE_STEP: f32 = 0.02;

/// A triangle in pack space with its material slot, and the corners' normals and texture
/// coordinates where the mesh has them.
#[derive(Debug, Clone)]
pub struct Triangle {
    pub points: [V3; 3],
    pub material: String,
    /// Smooth-shading normals; without them the face is flat.
    pub normals: Option<[V3; 3]>,
    /// Texture coordinates (glTF's: origin at the image's top-left).
    pub uvs: Option<[[f64; 2]; 3]>,
}

impl Triangle {
    /// A flat, untextured triangle.
    pub fn flat(points: [V3; 3], material: impl Into<String>) -> Triangle {
        Triangle {
            points,
            material: material.into(),
            normals: None,
            uvs: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Line {
    pub from: V3,
    pub to: V3,
    pub colour: [f32; 4],
    /// Drawn over everything (overlays) rather than depth-tested.
    pub on_top: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Scene {
    pub triangles: Vec<Triangle>,
    pub lines: Vec<Line>,
    /// Each material slot's look; a slot without one gets [`material_colour`].
    pub looks: BTreeMap<String, Look>,
    /// Lines of text written over the bottom of the image in red: a failing check's
    /// finding, so the preview says what is wrong.
    pub caption: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub size: u32,
    pub transparent: bool,
    /// Ground grid spacing (the pack's snap), drawn on z = 0 around the piece.
    pub grid_m: Option<f64>,
    /// Dark lines on the silhouette and where one part stands in front of another.
    pub outline: bool,
}

/// A stable colour per material slot without a look of its own: known stock materials by
/// name, others by hash (sRGB).
pub fn material_colour(name: &str) -> [f32; 3] {
    match name {
        "steel" => [0.55, 0.58, 0.63],
        "steel_dark" => [0.25, 0.27, 0.3],
        "concrete" => [0.72, 0.69, 0.63],
        "asphalt" => [0.2, 0.2, 0.22],
        "paint" => [0.95, 0.82, 0.2],
        "glass" => [0.62, 0.82, 0.92],
        "portal" => [0.25, 0.55, 1.0],
        "lamp" => [1.0, 0.92, 0.7],
        other => {
            let h = other.bytes().fold(2166136261u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(16777619)
            });
            [
                0.4 + (h & 0xff) as f32 / 600.0,
                0.4 + ((h >> 8) & 0xff) as f32 / 600.0,
                0.4 + ((h >> 16) & 0xff) as f32 / 600.0,
            ]
        }
    }
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(a: V3) -> Option<V3> {
    let l = dot(a, a).sqrt();
    (l > 0.0 && l.is_finite()).then(|| a.map(|c| c / l))
}

/// Renders `scene` from `camera` (whose resolution is the output size).
pub fn render(scene: &Scene, camera: &Camera, options: &Options) -> RgbaImage {
    let s = raster::SUPERSAMPLE;
    let mut big = camera.clone();
    big.resolution = [camera.resolution[0] * s, camera.resolution[1] * s];
    let background = if options.transparent {
        [0.0; 4]
    } else {
        colour::linear(BACKGROUND)
    };
    let mut canvas = raster::Canvas::new(big.resolution[0], big.resolution[1]);
    let studio = shading::Studio::facing(camera);
    let mut surfaces: Vec<Surface> = scene
        .triangles
        .iter()
        .map(|t| Surface::new(t, scene, camera, &studio))
        .collect();
    let mut projected = Vec::with_capacity(scene.triangles.len());
    for (t, surface) in scene.triangles.iter().zip(&mut surfaces) {
        let corners = match t.points.map(|p| big.project(p)) {
            [Some(a), Some(b), Some(c)] if !surface.culled => Some([a, b, c]),
            // Behind the camera, or a single-sided back face: keeps its index, covers nothing.
            _ => None,
        };
        if let (Some(p), true) = (corners, surface.textured()) {
            surface.uv = t.uvs.and_then(|uv| raster::Varying::new(p, uv));
        }
        projected.push(raster::Projected {
            corners,
            flat: surface.flat.is_some(),
            alpha: surface.alpha(),
        });
    }
    canvas.triangles(&projected);
    if options.outline {
        canvas.outline(OUTLINE_STEP);
    }
    // On a transparent background the grid is faint, so the piece's silhouette is its alpha.
    let grid = if options.transparent {
        [GRID[0], GRID[1], GRID[2], 0.4]
    } else {
        GRID
    };
    if let Some(step) = options.grid_m.filter(|s| *s > 0.0) {
        draw_grid(&mut canvas, &big, scene, step, colour::linear(grid));
    }
    for l in &scene.lines {
        let c = colour::linear(l.colour);
        line(&mut canvas, &big, l.from, l.to, c, !l.on_top, LINE_BIAS);
    }
    let mut image = canvas.resolve(background, colour::linear(OUTLINE), |i, w| {
        surfaces[i].shaded(&studio, w)
    });
    font::caption(&mut image, &scene.caption, FAIL);
    image
}

/// How one triangle is shaded: its look (or the slot's fallback colour), its normals
/// turned toward the camera, and its colour once for all when nothing varies across it.
struct Surface<'a> {
    triangle: &'a Triangle,
    look: Option<&'a Look>,
    fallback: [f32; 4],
    face: V3,
    normals: Option<[V3; 3]>,
    /// The texture's mip level for this triangle.
    mip: usize,
    /// The light on the surface when it is the same all over (one normal).
    even_light: Option<f32>,
    flat: Option<[f32; 3]>,
    /// A single-sided surface whose own normals face away from the camera.
    culled: bool,
    /// The texture coordinate across the projected triangle, for textured surfaces.
    uv: Option<raster::Varying>,
}

impl<'a> Surface<'a> {
    fn new(t: &'a Triangle, scene: &'a Scene, camera: &Camera, studio: &shading::Studio) -> Self {
        let [a, b, c] = t.points;
        let forward = camera.forward();
        let toward_camera = |n: V3| {
            if dot(n, forward) > 0.0 {
                n.map(|x| -x)
            } else {
                n
            }
        };
        let geometric = normalize(cross(sub(b, a), sub(c, a))).unwrap_or([0.0, 0.0, 1.0]);
        let face = toward_camera(geometric);
        // The authored normals say which side is the front, whatever the winding.
        let look = scene.looks.get(&t.material);
        let culled = match (look, t.normals) {
            (Some(l), Some(ns)) if !l.double_sided => {
                let centre = [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0);
                let outward = [0, 1, 2].map(|k| ns[0][k] + ns[1][k] + ns[2][k]);
                dot(outward, sub(centre, camera.position_m)) > 0.0
            }
            _ => false,
        };
        // Smooth normals turned to the same side as the face.
        let normals = t
            .normals
            .map(|ns| ns.map(|n| if dot(n, face) < 0.0 { n.map(|x| -x) } else { n }));
        let [r, g, bl] = material_colour(&t.material);
        let mut surface = Surface {
            triangle: t,
            look,
            culled,
            fallback: colour::linear([r, g, bl, 1.0]),
            face,
            normals,
            mip: 0,
            even_light: None,
            flat: None,
            uv: None,
        };
        let textured = surface.textured();
        if let (Some(texture), Some(uv)) = (surface.look.and_then(|l| l.texture.as_ref()), t.uvs) {
            surface.mip = texture.level_for(texels_per_pixel(t.points, uv, texture, camera));
        }
        let uniform = normals.is_none_or(|ns| ns[0] == ns[1] && ns[1] == ns[2]);
        if uniform {
            let n = normals.and_then(|ns| normalize(ns[0])).unwrap_or(face);
            surface.even_light = Some(studio.light(n));
        }
        if !textured && uniform {
            surface.flat = Some(surface.shade(studio, [1.0 / 3.0; 3]));
        }
        surface
    }

    /// Its opacity: a translucent look's base-colour alpha (texture alpha is not read),
    /// else 1.
    fn alpha(&self) -> f32 {
        match self.look {
            Some(look) if look.translucent => look.base_colour[3].clamp(0.0, 1.0),
            _ => 1.0,
        }
    }

    fn textured(&self) -> bool {
        self.look.is_some_and(|l| l.texture.is_some()) && self.triangle.uvs.is_some()
    }

    /// The colour at a pixel, once for all when the surface is flat. An evenly lit
    /// textured surface needs only its texture coordinate, not the corners' weights.
    fn shaded(&self, studio: &shading::Studio, at: raster::Weights) -> [f32; 3] {
        if let Some(flat) = self.flat {
            return flat;
        }
        let even = self.even_light.zip(self.uv.and_then(|v| v.at(at.centre())));
        match (even, self.look) {
            (Some((light, uv)), Some(look)) => {
                let texel = look
                    .texture
                    .as_ref()
                    .map_or([1.0; 3], |t| t.sample_rgb(uv, self.mip));
                std::array::from_fn(|k| look.base_colour[k] * texel[k] * light)
            }
            _ => self.shade(studio, at.get()),
        }
    }

    /// The colour at weights `w` of the corners: the look's colour (times its texture)
    /// under the studio lights.
    fn shade(&self, studio: &shading::Studio, w: [f64; 3]) -> [f32; 3] {
        let light = self.even_light.unwrap_or_else(|| {
            let n = self
                .normals
                .and_then(|ns| {
                    normalize(
                        [0, 1, 2].map(|k| w[0] * ns[0][k] + w[1] * ns[1][k] + w[2] * ns[2][k]),
                    )
                })
                .unwrap_or(self.face);
            studio.light(n)
        });
        let albedo = match self.look {
            Some(look) => {
                let texel = match (&look.texture, self.triangle.uvs) {
                    (Some(texture), Some(uv)) => texture.sample(
                        [0, 1].map(|k| w[0] * uv[0][k] + w[1] * uv[1][k] + w[2] * uv[2][k]),
                        self.mip,
                    ),
                    _ => [1.0; 4],
                };
                std::array::from_fn(|k| look.base_colour[k] * texel[k])
            }
            None => self.fallback,
        };
        [albedo[0] * light, albedo[1] * light, albedo[2] * light]
    }
}

/// How many texels of the full texture one output pixel covers across a triangle (the
/// square root of the two areas' ratio): one level for the whole triangle.
fn texels_per_pixel(points: [V3; 3], uv: [[f64; 2]; 3], texture: &Texture, camera: &Camera) -> f64 {
    let area2 = |p: [[f64; 2]; 3]| {
        ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]))
            .abs()
    };
    let size = [f64::from(texture.width()), f64::from(texture.height())];
    let texels = area2(uv.map(|c| [c[0] * size[0], c[1] * size[1]]));
    let projected = points.map(|p| camera.project(p).map(|q| [q[0], q[1]]));
    let pixels = match projected {
        [Some(a), Some(b), Some(c)] => area2([a, b, c]),
        _ => return 1.0,
    };
    if pixels > 0.0 {
        (texels / pixels).sqrt()
    } else {
        1.0
    }
}

/// Lines drawn on a surface are pulled this much toward the camera, so they do not fight it.
const LINE_BIAS: f64 = 0.999;

/// The ground grid is pushed a little away from the camera, so where the piece stands on
/// the ground (the same depth) the piece wins.
const GRID_BIAS: f64 = 1.02;

/// The ground grid at `step` spacing over the scene's footprint and one step around it.
fn draw_grid(
    canvas: &mut raster::Canvas,
    camera: &Camera,
    scene: &Scene,
    step: f64,
    colour: [f32; 4],
) {
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for t in &scene.triangles {
        for p in &t.points {
            for a in 0..2 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
    }
    if lo[0] > hi[0] {
        return;
    }
    let start = [(lo[0] / step).floor() - 1.0, (lo[1] / step).floor() - 1.0];
    let end = [(hi[0] / step).ceil() + 1.0, (hi[1] / step).ceil() + 1.0];
    if ((end[0] - start[0]) + (end[1] - start[1])) as usize >= 400 {
        return;
    }
    for i in start[0] as i64..=end[0] as i64 {
        let x = i as f64 * step;
        line(
            canvas,
            camera,
            [x, start[1] * step, 0.0],
            [x, end[1] * step, 0.0],
            colour,
            true,
            GRID_BIAS,
        );
    }
    for j in start[1] as i64..=end[1] as i64 {
        let y = j as f64 * step;
        line(
            canvas,
            camera,
            [start[0] * step, y, 0.0],
            [end[0] * step, y, 0.0],
            colour,
            true,
            GRID_BIAS,
        );
    }
}

fn line(
    canvas: &mut raster::Canvas,
    camera: &Camera,
    a: V3,
    b: V3,
    colour: [f32; 4],
    depth_test: bool,
    bias: f64,
) {
    if let (Some(pa), Some(pb)) = (raster::project(camera, a), raster::project(camera, b)) {
        canvas.line(pa, pb, colour, 2, depth_test, bias);
    }
}

/// PNG bytes of an image (deterministic for the same pixels).
pub fn png(image: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgba8,
        )
        .expect("encoding to memory");
    out
}

use image::ImageEncoder;

/// Decodes a PNG this crate wrote.
pub fn decode_png(bytes: &[u8]) -> Result<RgbaImage, image::ImageError> {
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png).map(|i| i.to_rgba8())
}
