//! The derive rules: a delivered file made from input files (`docs/asset-manifest.md`
//! defines each). Pure: the inputs' bytes and the rule's parameters in, the file out.

use image::{ImageFormat, RgbaImage};
use serde_json::Value;

/// The rules this build implements; any other rule in a manifest is refused before
/// building (`derive_rule_not_implemented`), never skipped.
pub const IMPLEMENTED: &[&str] = &["frame0_crop", "greyscale_for_tint", "file_restore"];

/// Applies `rule` with `params` to `inputs` (the `from` files' bytes, in order).
pub fn apply(rule: &str, params: &Value, inputs: &[&[u8]]) -> Result<Vec<u8>, String> {
    match rule {
        "frame0_crop" => frame0_crop(params, one(inputs)?),
        "greyscale_for_tint" => greyscale_for_tint(one(inputs)?),
        "file_restore" => Ok(one(inputs)?.to_vec()),
        _ => Err(format!("the derive rule {rule:?} is not implemented")),
    }
}

fn one<'a>(inputs: &[&'a [u8]]) -> Result<&'a [u8], String> {
    match inputs {
        [only] => Ok(only),
        _ => Err(format!("this rule reads one input, not {}", inputs.len())),
    }
}

fn decode(bytes: &[u8]) -> Result<RgbaImage, String> {
    image::load_from_memory_with_format(bytes, ImageFormat::Png)
        .map(|i| i.to_rgba8())
        .map_err(|e| format!("the input is not a PNG: {e}"))
}

fn encode(image: &RgbaImage) -> Result<Vec<u8>, String> {
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, ImageFormat::Png)
        .map_err(|e| format!("cannot write the PNG: {e}"))?;
    Ok(out.into_inner())
}

/// The first frame of an animation strip: frames are stacked top to bottom, each
/// `frameHeight` pixels (default: the strip's width, square frames).
fn frame0_crop(params: &Value, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let strip = decode(bytes)?;
    let height = match params.get("frameHeight") {
        None => strip.width(),
        Some(v) => v
            .as_u64()
            .and_then(|h| u32::try_from(h).ok())
            .filter(|h| *h > 0)
            .ok_or("frameHeight is a whole number of pixels from 1")?,
    };
    if height > strip.height() {
        return Err(format!(
            "a {height}-pixel frame does not fit a {}-pixel strip",
            strip.height()
        ));
    }
    let frame = image::imageops::crop_imm(&strip, 0, 0, strip.width(), height).to_image();
    encode(&frame)
}

/// A texture the game tints: each pixel's Rec. 709 luma of its sRGB values (rounded),
/// in all three channels, alpha kept.
fn greyscale_for_tint(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut image = decode(bytes)?;
    for p in image.pixels_mut() {
        let [r, g, b, a] = p.0;
        let luma = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b);
        let l = luma.round().clamp(0.0, 255.0) as u8;
        p.0 = [l, l, l, a];
    }
    encode(&image)
}
