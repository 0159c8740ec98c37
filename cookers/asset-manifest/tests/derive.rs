//! Each implemented derive rule against pixels worked out by hand.

use asset_manifest::derive::apply;
use image::{ImageFormat, Rgba, RgbaImage};
use serde_json::json;

fn png(image: &RgbaImage) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::Png).unwrap();
    out.into_inner()
}

fn read(bytes: &[u8]) -> RgbaImage {
    image::load_from_memory(bytes).unwrap().to_rgba8()
}

#[test]
fn greyscale_for_tint_gives_each_pixel_its_rec709_luma_and_keeps_alpha() {
    let mut input = RgbaImage::new(2, 1);
    input.put_pixel(0, 0, Rgba([255, 0, 0, 255]));
    input.put_pixel(1, 0, Rgba([10, 200, 30, 128]));
    let out = read(&apply("greyscale_for_tint", &json!(null), &[&png(&input)]).unwrap());
    // 0.2126 * 255 = 54.2; 0.2126 * 10 + 0.7152 * 200 + 0.0722 * 30 = 147.3.
    assert_eq!(out.get_pixel(0, 0).0, [54, 54, 54, 255]);
    assert_eq!(out.get_pixel(1, 0).0, [147, 147, 147, 128]);
}

#[test]
fn frame0_crop_keeps_the_top_frame_of_a_strip() {
    // Three 2x2 frames stacked: red, green, blue.
    let mut strip = RgbaImage::new(2, 6);
    for (y, colour) in [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
        .iter()
        .enumerate()
        .flat_map(|(f, c)| (0..2).map(move |dy| (f as u32 * 2 + dy, *c)))
    {
        for x in 0..2 {
            strip.put_pixel(x, y, Rgba(colour));
        }
    }
    let out = read(&apply("frame0_crop", &json!(null), &[&png(&strip)]).unwrap());
    assert_eq!(out.dimensions(), (2, 2));
    assert!(out.pixels().all(|p| p.0 == [255, 0, 0, 255]));
    // A frame height given: two rows of the strip are red, the next two green.
    let out = read(&apply("frame0_crop", &json!({"frameHeight": 4}), &[&png(&strip)]).unwrap());
    assert_eq!(out.dimensions(), (2, 4));
    assert_eq!(out.get_pixel(0, 3).0, [0, 255, 0, 255]);
    assert!(apply("frame0_crop", &json!({"frameHeight": 7}), &[&png(&strip)]).is_err());
}

#[test]
fn file_restore_gives_the_input_back_and_other_rules_are_refused() {
    assert_eq!(
        apply("file_restore", &json!(null), &[b"bytes"]).unwrap(),
        b"bytes"
    );
    assert!(apply("hytale_export", &json!(null), &[b"x"]).is_err());
    assert!(apply("greyscale_for_tint", &json!(null), &[b"not a png"]).is_err());
}

#[test]
fn palette_swap_replaces_exact_colours_only() {
    let mut input = RgbaImage::new(3, 1);
    input.put_pixel(0, 0, Rgba([255, 0, 0, 200]));
    input.put_pixel(1, 0, Rgba([254, 0, 0, 255]));
    input.put_pixel(2, 0, Rgba([0, 0, 0, 255]));
    let params = json!({"map": {"#ff0000": "#00ff00", "#000000": "#102030"}});
    let out = read(&apply("palette_swap", &params, &[&png(&input)]).unwrap());
    assert_eq!(out.get_pixel(0, 0).0, [0, 255, 0, 200]);
    assert_eq!(out.get_pixel(1, 0).0, [254, 0, 0, 255]);
    assert_eq!(out.get_pixel(2, 0).0, [16, 32, 48, 255]);
    let bad = json!({"map": {"red": "#000000"}});
    assert!(apply("palette_swap", &bad, &[&png(&input)]).is_err());
}

#[test]
fn recolour_ramp_maps_luma_along_the_stops() {
    let mut input = RgbaImage::new(3, 1);
    input.put_pixel(0, 0, Rgba([0, 0, 0, 255]));
    input.put_pixel(1, 0, Rgba([64, 64, 64, 255]));
    input.put_pixel(2, 0, Rgba([255, 255, 255, 9]));
    let params = json!({"ramp": ["#000000", "#ff0000", "#ffffff"]});
    let out = read(&apply("recolour_ramp", &params, &[&png(&input)]).unwrap());
    assert_eq!(out.get_pixel(0, 0).0, [0, 0, 0, 255]);
    // Luma 64 is 64 / 255 * 2 = 0.502 of the way: half-way up the first segment, to red.
    assert_eq!(out.get_pixel(1, 0).0, [128, 0, 0, 255]);
    assert_eq!(out.get_pixel(2, 0).0, [255, 255, 255, 9]);
}

#[test]
fn strip_assemble_stacks_frames_in_order() {
    let frame = |c: [u8; 4]| png(&RgbaImage::from_pixel(2, 2, Rgba(c)));
    let (red, blue) = (frame([255, 0, 0, 255]), frame([0, 0, 255, 255]));
    let out = read(&apply("strip_assemble", &json!(null), &[&red, &blue]).unwrap());
    assert_eq!(out.dimensions(), (2, 4));
    assert_eq!(out.get_pixel(1, 1).0, [255, 0, 0, 255]);
    assert_eq!(out.get_pixel(0, 2).0, [0, 0, 255, 255]);
    let odd = png(&RgbaImage::new(3, 2));
    assert!(apply("strip_assemble", &json!(null), &[&red, &odd]).is_err());
}

#[test]
fn mask_bucket_fills_where_the_mask_is_light() {
    let image = RgbaImage::from_pixel(2, 1, Rgba([10, 20, 30, 77]));
    let mut mask = RgbaImage::new(2, 1);
    mask.put_pixel(0, 0, Rgba([255, 255, 255, 255]));
    mask.put_pixel(1, 0, Rgba([100, 100, 100, 255]));
    let params = json!({"colour": "#abcdef"});
    let out = read(&apply("mask_bucket", &params, &[&png(&image), &png(&mask)]).unwrap());
    assert_eq!(out.get_pixel(0, 0).0, [0xab, 0xcd, 0xef, 77]);
    assert_eq!(out.get_pixel(1, 0).0, [10, 20, 30, 77]);
}

#[test]
fn model_resize_scales_gltf_roots_and_blockbench_elements() {
    let gltf = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"translation": [1.0, 2.0, 3.0], "children": [1]}, {"translation": [5.0, 0.0, 0.0]}]
    });
    let out = apply(
        "model_resize",
        &json!({"scale": 2.0}),
        &[&serde_json::to_vec(&gltf).unwrap()],
    )
    .unwrap();
    let out: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(out["nodes"][0]["translation"], json!([2.0, 4.0, 6.0]));
    assert_eq!(out["nodes"][0]["scale"], json!([2.0, 2.0, 2.0]));
    assert_eq!(
        out["nodes"][1]["translation"],
        json!([5.0, 0.0, 0.0]),
        "children follow their root"
    );

    let bbmodel = json!({
        "meta": {"format_version": "4.5"},
        "elements": [{"from": [0, 0, 0], "to": [16, 8, 16], "origin": [8, 0, 8]}],
        "outliner": [{"origin": [8, 0, 8], "children": [{"origin": [4, 4, 4], "children": []}, "uuid"]}]
    });
    let out = apply(
        "model_resize",
        &json!({"scale": 0.5}),
        &[&serde_json::to_vec(&bbmodel).unwrap()],
    )
    .unwrap();
    let out: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(out["elements"][0]["to"], json!([8.0, 4.0, 8.0]));
    assert_eq!(
        out["outliner"][0]["children"][0]["origin"],
        json!([2.0, 2.0, 2.0])
    );
    assert!(apply("model_resize", &json!({"scale": 0}), &[b"{}"]).is_err());
}

/// A PNG whose header claims `w` x `h` pixels (its data is one pixel's): what a hostile
/// input looks like to a reader that trusts the header.
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut bytes = png(&RgbaImage::new(1, 1));
    // The IHDR chunk's data follows the signature (8), its length (4) and its type (4).
    bytes[16..20].copy_from_slice(&w.to_be_bytes());
    bytes[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

#[test]
fn a_strip_past_the_pixel_budget_is_refused_before_any_frame_is_decoded() {
    let frame = png_claiming(8000, 8000);
    let frames: Vec<&[u8]> = vec![&frame; 8];
    let err = apply("strip_assemble", &json!(null), &frames).unwrap_err();
    assert_eq!(err.code, "derive_too_large", "{err}");
    assert!(err.message.contains("8000x8000"), "{err}");
    // One such input alone is past the budget too, for every rule that decodes.
    let err = apply(
        "greyscale_for_tint",
        &json!(null),
        &[&png_claiming(9000, 9000)],
    )
    .unwrap_err();
    assert_eq!(err.code, "derive_too_large", "{err}");
}
