//! A top-down overview of a map's layout: each placed piece's hulls seen from above, in
//! its pack's colour, brighter the higher they reach, lower ones drawn first; standard
//! objects as dots. For the cook's report, so a layout that is off can be seen at a glance.

use std::collections::BTreeMap;

use image::{Rgba, RgbaImage};

use crate::layout::Layout;
use crate::level::Level;

/// A piece from above: each hull's points in the piece's frame and its top, metres.
pub type Footprint = Vec<(Vec<[f64; 2]>, f64)>;

/// A block's footprint from its geometry: each hull seen from above, with its top.
pub fn footprint(geometry: &forge_contract::BlockGeometry) -> Footprint {
    geometry
        .hulls
        .iter()
        .map(|h| {
            let top = h.points.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
            (h.points.iter().map(|p| [p[0], p[1]]).collect(), top)
        })
        .collect()
}

/// Heights at or above this draw at full brightness.
const BRIGHT_AT_M: f64 = 9.0;

const BACKGROUND: Rgba<u8> = Rgba([24, 26, 30, 255]);
const STANDARD: Rgba<u8> = Rgba([255, 255, 255, 255]);
const PACK_COLOURS: [[u8; 3]; 4] = [
    [86, 156, 214],
    [220, 140, 60],
    [120, 190, 110],
    [200, 110, 200],
];

/// The overview as PNG bytes, `size` pixels on its longer side. `footprints` is keyed by
/// palette name (`<pack>/<block>`); the packs take colours in the level's order.
pub fn render(
    level: &Level,
    layout: &Layout,
    footprints: &BTreeMap<String, Footprint>,
    size: u32,
) -> Vec<u8> {
    let [min, max] = level.bounds_m;
    let (w, h) = (max[0] - min[0], max[1] - min[1]);
    let scale = f64::from(size) / w.max(h);
    let (pw, ph) = (
        ((w * scale).ceil() as u32).max(1),
        ((h * scale).ceil() as u32).max(1),
    );
    let mut image = RgbaImage::from_pixel(pw, ph, BACKGROUND);
    // Image rows grow downwards; the map's +Y is up.
    let to_pixel = |p: [f64; 2]| [(p[0] - min[0]) * scale, (max[1] - p[1]) * scale];
    let colour_of = |palette: &str| {
        let pack = palette.split_once('/').map_or("", |(p, _)| p);
        let i = level
            .blam
            .forge_packs
            .iter()
            .position(|p| p.slug == pack)
            .unwrap_or(0);
        let [r, g, b] = PACK_COLOURS[i % PACK_COLOURS.len()];
        Rgba([r, g, b, 255])
    };
    // Every hull to draw, with its top in the map, lowest first.
    let mut shapes: Vec<(f64, Vec<[f64; 2]>, Rgba<u8>)> = Vec::new();
    for object in &layout.objects {
        let (s, c) = object.yaw_deg.to_radians().sin_cos();
        let place = |q: &[f64; 2]| {
            to_pixel([
                object.position_m[0] + q[0] * c - q[1] * s,
                object.position_m[1] + q[0] * s + q[1] * c,
            ])
        };
        match footprints.get(&object.palette) {
            Some(hulls) => {
                for (hull, top) in hulls {
                    let top = object.position_m[2] + top;
                    let shade = 0.4 + 0.6 * (top / BRIGHT_AT_M).clamp(0.0, 1.0);
                    let Rgba([r, g, b, a]) = colour_of(&object.palette);
                    let [r, g, b] = [r, g, b].map(|v| (f64::from(v) * shade) as u8);
                    shapes.push((
                        top,
                        convex_outline(&hull.iter().map(place).collect::<Vec<_>>()),
                        Rgba([r, g, b, a]),
                    ));
                }
            }
            None => {
                let p = to_pixel([object.position_m[0], object.position_m[1]]);
                let dot = vec![
                    [p[0] - 2.0, p[1] - 2.0],
                    [p[0] + 2.0, p[1] - 2.0],
                    [p[0] + 2.0, p[1] + 2.0],
                    [p[0] - 2.0, p[1] + 2.0],
                ];
                shapes.push((f64::MAX, dot, STANDARD));
            }
        }
    }
    shapes.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, outline, colour) in &shapes {
        fill(&mut image, outline, *colour);
    }
    forge_render::png(&image)
}

/// The convex hull of points (Andrew's monotone chain), counter-clockwise in pixel space.
fn convex_outline(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::new();
    for pass in [p.clone(), p.iter().rev().copied().collect()] {
        let start = hull.len();
        for q in pass {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

/// Fills a convex polygon: every pixel whose centre is on the inner side of each edge.
fn fill(image: &mut RgbaImage, polygon: &[[f64; 2]], colour: Rgba<u8>) {
    if polygon.len() < 3 {
        return;
    }
    let (w, h) = (image.width() as f64, image.height() as f64);
    let lo = |k: usize| polygon.iter().map(|p| p[k]).fold(f64::MAX, f64::min);
    let hi = |k: usize| polygon.iter().map(|p| p[k]).fold(f64::MIN, f64::max);
    let (x0, x1) = (
        lo(0).max(0.0).floor() as u32,
        hi(0).min(w - 1.0).max(0.0).ceil() as u32,
    );
    let (y0, y1) = (
        lo(1).max(0.0).floor() as u32,
        hi(1).min(h - 1.0).max(0.0).ceil() as u32,
    );
    let sign = |a: [f64; 2], b: [f64; 2], q: [f64; 2]| {
        (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0])
    };
    for y in y0..=y1.min(image.height() - 1) {
        for x in x0..=x1.min(image.width() - 1) {
            let q = [f64::from(x) + 0.5, f64::from(y) + 0.5];
            let sides: Vec<f64> = (0..polygon.len())
                .map(|i| sign(polygon[i], polygon[(i + 1) % polygon.len()], q))
                .collect();
            if sides.iter().all(|s| *s >= 0.0) || sides.iter().all(|s| *s <= 0.0) {
                image.put_pixel(x, y, colour);
            }
        }
    }
}
