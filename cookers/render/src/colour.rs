//! Colour spaces. The canvas shades in linear light; glTF base colour factors are linear,
//! textures and the PNGs written are sRGB, and this crate's named colours are sRGB values
//! as a designer picks them.

/// One sRGB-encoded channel (0..1) to linear light.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// One linear channel (0..1) to sRGB encoding.
pub fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// An sRGB colour with straight alpha, as linear light (alpha is already linear).
pub fn linear(c: [f32; 4]) -> [f32; 4] {
    [
        srgb_to_linear(c[0]),
        srgb_to_linear(c[1]),
        srgb_to_linear(c[2]),
        c[3],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_encodings_undo_each_other() {
        for i in 0..=255u8 {
            let c = f32::from(i) / 255.0;
            let back = (linear_to_srgb(srgb_to_linear(c)) * 255.0).round() as u8;
            assert_eq!(back, i);
        }
        assert!((srgb_to_linear(0.5) - 0.2140).abs() < 1e-3);
    }
}
