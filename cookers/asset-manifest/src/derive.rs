//! The derive rules: a delivered file made from input files (`docs/asset-manifest.md`
//! defines each). Pure: the inputs' bytes and the rule's parameters in, the file out.

use image::{ImageFormat, RgbaImage};
use serde_json::Value;

/// The rules this build implements; any other rule in a manifest is refused before
/// building (`derive_rule_not_implemented`), never skipped.
pub const IMPLEMENTED: &[&str] = &[
    "frame0_crop",
    "palette_swap",
    "recolour_ramp",
    "greyscale_for_tint",
    "strip_assemble",
    "mask_bucket",
    "model_resize",
    "file_restore",
];

/// Applies `rule` with `params` to `inputs` (the `from` files' bytes, in order).
pub fn apply(rule: &str, params: &Value, inputs: &[&[u8]]) -> Result<Vec<u8>, DeriveError> {
    match rule {
        "frame0_crop" => frame0_crop(params, one(inputs)?),
        "greyscale_for_tint" => greyscale_for_tint(one(inputs)?),
        "palette_swap" => palette_swap(params, one(inputs)?),
        "recolour_ramp" => recolour_ramp(params, one(inputs)?),
        "strip_assemble" => strip_assemble(inputs),
        "mask_bucket" => mask_bucket(params, inputs),
        "model_resize" => model_resize(params, one(inputs)?),
        "file_restore" => Ok(one(inputs)?.to_vec()),
        _ => Err(format!("the derive rule {rule:?} is not implemented").into()),
    }
}

fn one<'a>(inputs: &[&'a [u8]]) -> Result<&'a [u8], DeriveError> {
    match inputs {
        [only] => Ok(only),
        _ => Err(format!("this rule reads one input, not {}", inputs.len()).into()),
    }
}

/// The most pixels a derive rule decodes into one image or makes (8192 x 8192, 256 MiB
/// of RGBA): a larger input is refused before it is decoded.
pub const MAX_PIXELS: u64 = 1 << 26;

/// Why a derive rule could not make its file, as the author sees it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DeriveError {
    /// `derive_failed`, or `derive_too_large` past [`MAX_PIXELS`].
    pub code: &'static str,
    pub message: String,
}

impl From<String> for DeriveError {
    fn from(message: String) -> Self {
        DeriveError {
            code: "derive_failed",
            message,
        }
    }
}

impl From<&str> for DeriveError {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

fn too_large(what: &str, pixels: u64) -> DeriveError {
    DeriveError {
        code: "derive_too_large",
        message: format!(
            "{what} would be {pixels} pixels; a derive rule makes at most {MAX_PIXELS}"
        ),
    }
}

fn png(bytes: &[u8]) -> image::ImageReader<std::io::Cursor<&[u8]>> {
    image::ImageReader::with_format(std::io::Cursor::new(bytes), ImageFormat::Png)
}

/// An input's width and height, from its header alone.
fn dimensions(bytes: &[u8]) -> Result<(u32, u32), DeriveError> {
    png(bytes)
        .into_dimensions()
        .map_err(|e| format!("the input is not a PNG: {e}").into())
}

fn decode(bytes: &[u8]) -> Result<RgbaImage, DeriveError> {
    let (w, h) = dimensions(bytes)?;
    let pixels = u64::from(w) * u64::from(h);
    if pixels > MAX_PIXELS {
        return Err(too_large(&format!("a {w}x{h} input"), pixels));
    }
    png(bytes)
        .decode()
        .map(|i| i.to_rgba8())
        .map_err(|e| format!("the input is not a PNG: {e}").into())
}

fn encode(image: &RgbaImage) -> Result<Vec<u8>, DeriveError> {
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, ImageFormat::Png)
        .map_err(|e| format!("cannot write the PNG: {e}"))?;
    Ok(out.into_inner())
}

/// The first frame of an animation strip: frames are stacked top to bottom, each
/// `frameHeight` pixels (default: the strip's width, square frames).
fn frame0_crop(params: &Value, bytes: &[u8]) -> Result<Vec<u8>, DeriveError> {
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
        )
        .into());
    }
    let frame = image::imageops::crop_imm(&strip, 0, 0, strip.width(), height).to_image();
    encode(&frame)
}

/// Rec. 709 luma of sRGB values, rounded.
fn luma([r, g, b, _]: [u8; 4]) -> u8 {
    let l = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b);
    l.round().clamp(0.0, 255.0) as u8
}

/// A texture the game tints: each pixel's luma in all three channels, alpha kept.
fn greyscale_for_tint(bytes: &[u8]) -> Result<Vec<u8>, DeriveError> {
    let mut image = decode(bytes)?;
    for p in image.pixels_mut() {
        let l = luma(p.0);
        p.0 = [l, l, l, p.0[3]];
    }
    encode(&image)
}

/// `#rrggbb` as bytes.
fn colour(value: &Value, what: &str) -> Result<[u8; 3], DeriveError> {
    let text = value.as_str().unwrap_or_default();
    // ASCII first: slicing "#aébcd" by bytes would split the é.
    let hex = text
        .strip_prefix('#')
        .filter(|h| h.len() == 6 && h.is_ascii());
    let channel = |i: usize| hex.and_then(|h| u8::from_str_radix(&h[i..i + 2], 16).ok());
    match (channel(0), channel(2), channel(4)) {
        (Some(r), Some(g), Some(b)) => Ok([r, g, b]),
        _ => Err(format!("{what} {value} is not a colour like #a0b1c2").into()),
    }
}

/// `params.map` (`{"#from": "#to"}`): every pixel whose colour is exactly a key takes its
/// value; alpha and every other pixel are kept.
fn palette_swap(params: &Value, bytes: &[u8]) -> Result<Vec<u8>, DeriveError> {
    let map = params
        .get("map")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .ok_or("palette_swap needs params.map: {\"#from\": \"#to\", ...}")?;
    let swaps: Vec<([u8; 3], [u8; 3])> = map
        .iter()
        .map(|(from, to)| {
            Ok((
                colour(&Value::from(from.as_str()), "a key")?,
                colour(to, "a value")?,
            ))
        })
        .collect::<Result<_, DeriveError>>()?;
    let mut image = decode(bytes)?;
    for p in image.pixels_mut() {
        let [r, g, b, a] = p.0;
        if let Some((_, to)) = swaps.iter().find(|(from, _)| *from == [r, g, b]) {
            p.0 = [to[0], to[1], to[2], a];
        }
    }
    encode(&image)
}

/// `params.ramp` (two or more colours): each pixel's luma picks a colour along the ramp,
/// its stops spread evenly over 0..=255 and blended linearly between (rounded); alpha kept.
fn recolour_ramp(params: &Value, bytes: &[u8]) -> Result<Vec<u8>, DeriveError> {
    let ramp: Vec<[u8; 3]> = params
        .get("ramp")
        .and_then(Value::as_array)
        .filter(|r| r.len() >= 2)
        .ok_or("recolour_ramp needs params.ramp: two or more colours, dark to light")?
        .iter()
        .map(|c| colour(c, "a ramp stop"))
        .collect::<Result<_, _>>()?;
    let segments = (ramp.len() - 1) as f64;
    let mut image = decode(bytes)?;
    for p in image.pixels_mut() {
        let t = f64::from(luma(p.0)) / 255.0 * segments;
        let i = (t.floor() as usize).min(ramp.len() - 2);
        let f = t - i as f64;
        let mix = |k: usize| {
            let (a, b) = (f64::from(ramp[i][k]), f64::from(ramp[i + 1][k]));
            (a + (b - a) * f).round() as u8
        };
        p.0 = [mix(0), mix(1), mix(2), p.0[3]];
    }
    encode(&image)
}

/// The inputs stacked top to bottom in `from` order: an animation strip. Every frame has
/// the first one's size. The sizes are read from the headers first, so a strip past the
/// pixel budget is refused before anything is decoded, and then one frame at a time is
/// decoded into it.
fn strip_assemble(inputs: &[&[u8]]) -> Result<Vec<u8>, DeriveError> {
    let first = inputs
        .first()
        .ok_or("strip_assemble needs at least one frame")?;
    let (w, h) = dimensions(first)?;
    for (i, frame) in inputs.iter().enumerate() {
        if dimensions(frame)? != (w, h) {
            return Err(format!("frame {i} is not {w}x{h} like the first").into());
        }
    }
    let rows = u64::from(h) * inputs.len() as u64;
    let pixels = u64::from(w) * rows;
    if pixels > MAX_PIXELS {
        return Err(too_large(
            &format!("a strip of {} {w}x{h} frames", inputs.len()),
            pixels,
        ));
    }
    let mut strip = RgbaImage::new(w, rows as u32);
    for (i, frame) in inputs.iter().enumerate() {
        image::imageops::replace(&mut strip, &decode(frame)?, 0, i64::from(h) * i as i64);
    }
    encode(&strip)
}

/// Two inputs, an image and a mask of its size: where the mask is light (luma 128 or
/// more, and not transparent) the image's colour becomes `params.colour`, its alpha kept.
fn mask_bucket(params: &Value, inputs: &[&[u8]]) -> Result<Vec<u8>, DeriveError> {
    let [image, mask] = inputs else {
        return Err(format!(
            "mask_bucket reads an image and a mask, not {} inputs",
            inputs.len()
        )
        .into());
    };
    let fill = colour(
        params.get("colour").unwrap_or(&Value::Null),
        "params.colour",
    )?;
    let (mut image, mask) = (decode(image)?, decode(mask)?);
    if image.dimensions() != mask.dimensions() {
        return Err("the mask is not the image's size".into());
    }
    for (p, m) in image.pixels_mut().zip(mask.pixels()) {
        if m.0[3] > 0 && luma(m.0) >= 128 {
            p.0 = [fill[0], fill[1], fill[2], p.0[3]];
        }
    }
    encode(&image)
}

/// A model scaled by `params.scale` about its origin: a glTF document's scene roots (their
/// translation and scale, or their matrix), or a Blockbench model's element corners and
/// pivots. Written back as pretty JSON.
fn model_resize(params: &Value, bytes: &[u8]) -> Result<Vec<u8>, DeriveError> {
    let factor = params
        .get("scale")
        .and_then(Value::as_f64)
        .filter(|f| f.is_finite() && *f > 0.0)
        .ok_or("model_resize needs params.scale, a number above 0")?;
    let mut model: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the model is not JSON: {e}"))?;
    if model.pointer("/asset/version").is_some() {
        resize_gltf(&mut model, factor)?;
    } else if model.get("elements").is_some() {
        resize_bbmodel(&mut model, factor);
    } else {
        return Err("the model is neither glTF JSON nor a Blockbench .bbmodel".into());
    }
    let out = json_out::pretty(&model);
    Ok(out)
}

fn scale_numbers(value: Option<&mut Value>, indices: std::ops::Range<usize>, factor: f64) {
    if let Some(list) = value.and_then(Value::as_array_mut) {
        for v in list.iter_mut().take(indices.end).skip(indices.start) {
            if let Some(n) = v.as_f64() {
                *v = Value::from(n * factor);
            }
        }
    }
}

fn resize_gltf(model: &mut Value, factor: f64) -> Result<(), DeriveError> {
    let scenes = model
        .get("scenes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut roots: Vec<usize> = scenes
        .iter()
        .flat_map(|s| s["nodes"].as_array().cloned().unwrap_or_default())
        .filter_map(|n| n.as_u64().map(|n| n as usize))
        .collect();
    roots.sort_unstable();
    roots.dedup();
    let nodes = model
        .get_mut("nodes")
        .and_then(Value::as_array_mut)
        .ok_or("the glTF has no nodes")?;
    for root in roots {
        let node = nodes
            .get_mut(root)
            .ok_or("a scene names a node that is not there")?;
        if node.get("matrix").is_some() {
            // Column-major: the three basis columns and the translation.
            for column in [0..3, 4..7, 8..11, 12..15] {
                scale_numbers(node.get_mut("matrix"), column, factor);
            }
            continue;
        }
        let scale = node
            .get("scale")
            .cloned()
            .unwrap_or(serde_json::json!([1.0, 1.0, 1.0]));
        node["scale"] = scale;
        scale_numbers(node.get_mut("scale"), 0..3, factor);
        scale_numbers(node.get_mut("translation"), 0..3, factor);
    }
    Ok(())
}

fn resize_bbmodel(model: &mut Value, factor: f64) {
    if let Some(elements) = model.get_mut("elements").and_then(Value::as_array_mut) {
        for e in elements {
            for key in ["from", "to", "origin"] {
                scale_numbers(e.get_mut(key), 0..3, factor);
            }
        }
    }
    fn groups(list: Option<&mut Value>, factor: f64) {
        for g in list.and_then(Value::as_array_mut).into_iter().flatten() {
            if g.is_object() {
                scale_numbers(g.get_mut("origin"), 0..3, factor);
                groups(g.get_mut("children"), factor);
            }
        }
    }
    groups(model.get_mut("outliner"), factor);
}

#[cfg(test)]
mod colour_tests {
    #[test]
    fn a_colour_with_a_multibyte_character_is_refused_not_a_panic() {
        let bad = serde_json::json!("#aébcd");
        assert!(super::colour(&bad, "from").is_err());
        assert_eq!(
            super::colour(&serde_json::json!("#a0b1c2"), "to").unwrap(),
            [0xa0, 0xb1, 0xc2]
        );
    }
}
