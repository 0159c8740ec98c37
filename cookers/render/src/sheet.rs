//! The contact sheet: every block's render in a grid, labelled with its name and size in
//! an embedded 8×8 bitmap font.

use image::{imageops, Rgba, RgbaImage};

use crate::font::text;

const LABEL_HEIGHT: u32 = 24;
const PAD: u32 = 6;

/// Lays `tiles` (label lines and a render) out in a grid of `tile` pixel cells.
pub fn contact_sheet(tiles: &[(Vec<String>, RgbaImage)], tile: u32) -> RgbaImage {
    let n = tiles.len().max(1) as u32;
    let columns = (f64::from(n).sqrt().ceil() as u32).max(1);
    let rows = n.div_ceil(columns);
    let (cw, ch) = (tile + PAD, tile + LABEL_HEIGHT + PAD);
    let mut sheet = RgbaImage::from_pixel(
        columns * cw + PAD,
        rows * ch + PAD,
        Rgba([250, 250, 250, 255]),
    );
    for (i, (label, render)) in tiles.iter().enumerate() {
        let (cx, cy) = (
            PAD + (i as u32 % columns) * cw,
            PAD + (i as u32 / columns) * ch,
        );
        let thumb = imageops::resize(render, tile, tile, imageops::FilterType::Triangle);
        imageops::overlay(&mut sheet, &thumb, i64::from(cx), i64::from(cy));
        let max_chars = (tile / 8) as usize;
        for (line, s) in label.iter().take(2).enumerate() {
            let clipped: String = s.chars().take(max_chars).collect();
            text(
                &mut sheet,
                cx,
                cy + tile + 3 + line as u32 * 10,
                &clipped,
                Rgba([30, 30, 34, 255]),
            );
        }
    }
    sheet
}
