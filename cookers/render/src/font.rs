//! Text in an embedded 8×8 bitmap font: contact-sheet labels and preview captions.

use font8x8::UnicodeFonts;
use image::{Rgba, RgbaImage};

/// Writes `s` with its top-left corner at (`x`, `y`), clipped to the image.
pub fn text(img: &mut RgbaImage, x: u32, y: u32, s: &str, colour: Rgba<u8>) {
    for (i, ch) in s.chars().enumerate() {
        let glyph = font8x8::BASIC_FONTS
            .get(ch)
            .or_else(|| font8x8::BASIC_FONTS.get('?'))
            .unwrap_or([0; 8]);
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits & (1 << col) != 0 {
                    let (px, py) = (x + i as u32 * 8 + col, y + row as u32);
                    if px < img.width() && py < img.height() {
                        img.put_pixel(px, py, colour);
                    }
                }
            }
        }
    }
}

/// `lines` word-wrapped over the bottom of the image on a white band, in `colour` (sRGB).
pub fn caption(img: &mut RgbaImage, lines: &[String], colour: [f32; 4]) {
    let columns = (img.width() / 8).saturating_sub(1).max(1) as usize;
    let wrapped: Vec<String> = lines.iter().flat_map(|l| wrap(l, columns)).collect();
    let rows = wrapped.len().min((img.height() / 20) as usize) as u32;
    if rows == 0 {
        return;
    }
    let top = img.height() - rows * 10 - 4;
    for y in top..img.height() {
        for x in 0..img.width() {
            img.put_pixel(x, y, Rgba([255, 255, 255, 235]));
        }
    }
    let ink = Rgba(colour.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8));
    for (i, line) in wrapped.iter().take(rows as usize).enumerate() {
        text(img, 4, top + 2 + i as u32 * 10, line, ink);
    }
}

/// Splits `s` into lines of at most `columns` characters, at spaces where it can.
fn wrap(s: &str, columns: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in s.split(' ') {
        let fits = line.chars().count() + 1 + word.chars().count() <= columns;
        if !line.is_empty() && !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > columns {
            let rest: String = line.chars().skip(columns).collect();
            lines.push(line.chars().take(columns).collect());
            line = rest;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrapping_breaks_at_spaces_and_splits_long_words() {
        assert_eq!(
            super::wrap("aperture door blocked", 10),
            ["aperture", "door", "blocked"]
        );
        assert_eq!(super::wrap("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
    }
}
