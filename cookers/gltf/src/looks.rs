//! What a model's materials look like, for previews: each material's base colour factor
//! and base-colour texture (glTF's metallic-roughness `baseColor`). The cook itself drops
//! textures (the game's pieces take the donor's materials); only previews read these.

use std::collections::BTreeMap;

use base64::Engine as _;

use crate::{load_buffers, parse, ImportError};

pub use gltf::texture::WrappingMode;

/// Textures wider or taller than this are scaled down: a preview never shows more.
pub const MAX_TEXTURE: u32 = 1024;

/// One material's look, under the slot name the importer gives its sections.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialLook {
    pub slot: String,
    /// Linear RGBA, as glTF stores the factor.
    pub base_colour: [f32; 4],
    pub texture: Option<BaseColourTexture>,
    /// Why a texture the material names is not used (unreadable, missing, or on a UV set
    /// other than the first), for the preview's notes.
    pub texture_problem: Option<String>,
    pub double_sided: bool,
    /// glTF's `alphaMode` `BLEND`: the surface is laid over what is behind it by its
    /// base colour's alpha (glass, a portal's sheet).
    pub blend: bool,
}

/// A decoded base-colour texture, sRGB-encoded as the image stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseColourTexture {
    pub width: u32,
    pub height: u32,
    /// Row-major RGBA8, top row first.
    pub rgba8: Vec<u8>,
    pub wrap: [WrappingMode; 2],
}

/// The relative URIs of the external images the document names (data URIs excluded),
/// sorted: what a preview of the model reads beside it.
pub fn image_uris(file: &str, bytes: &[u8]) -> Result<Vec<String>, ImportError> {
    let doc = crate::read_unvalidated(file, bytes)?;
    let mut uris: Vec<String> = doc
        .document
        .images()
        .filter_map(|i| match i.source() {
            gltf::image::Source::Uri { uri, .. } if !uri.starts_with("data:") => {
                Some(uri.to_string())
            }
            _ => None,
        })
        .collect();
    uris.sort();
    uris.dedup();
    Ok(uris)
}

/// Every material's look, by slot name. `external` holds the buffers and the images the
/// document names, by URI; a missing or unreadable image leaves that material untextured
/// and says why in [`MaterialLook::texture_problem`].
pub fn looks(
    file: &str,
    bytes: &[u8],
    external: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<MaterialLook>, ImportError> {
    let doc = parse(file, bytes)?;
    let buffers = load_buffers(file, &doc, external)?;
    let mut out = Vec::new();
    for (i, material) in doc.document.materials().enumerate() {
        let slot = material
            .name()
            .map_or_else(|| format!("material_{i}"), str::to_string);
        let pbr = material.pbr_metallic_roughness();
        let (texture, texture_problem) = match pbr.base_color_texture() {
            None => (None, None),
            Some(info) if info.tex_coord() != 0 => (
                None,
                Some(format!(
                    "its base-colour texture uses TEXCOORD_{}; previews read TEXCOORD_0",
                    info.tex_coord()
                )),
            ),
            Some(info) => match texture(&info.texture(), &buffers, external) {
                Ok(t) => (Some(t), None),
                Err(why) => (None, Some(why.0)),
            },
        };
        out.push(MaterialLook {
            slot,
            base_colour: pbr.base_color_factor(),
            texture,
            texture_problem,
            double_sided: material.double_sided(),
            blend: material.alpha_mode() == gltf::material::AlphaMode::Blend,
        });
    }
    Ok(out)
}

/// Why a material's texture is not used, for the preview's notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureProblem(pub String);

impl From<String> for TextureProblem {
    fn from(why: String) -> Self {
        TextureProblem(why)
    }
}

/// The most pixels a texture may have to be decoded (8192 x 8192); its header is read
/// first, so a larger one is refused before any memory is spent on it.
pub const MAX_DECODED_PIXELS: u64 = 1 << 26;

fn decode(encoded: &[u8]) -> Result<image::RgbaImage, TextureProblem> {
    let problem = |e: &dyn std::fmt::Display| TextureProblem(e.to_string());
    let reader = || {
        image::ImageReader::new(std::io::Cursor::new(encoded))
            .with_guessed_format()
            .map_err(|e| problem(&e))
    };
    let (w, h) = reader()?.into_dimensions().map_err(|e| problem(&e))?;
    if u64::from(w) * u64::from(h) > MAX_DECODED_PIXELS {
        return Err(TextureProblem(format!(
            "it is {w}x{h}, more than the {MAX_DECODED_PIXELS} pixels a preview decodes"
        )));
    }
    Ok(reader()?.decode().map_err(|e| problem(&e))?.to_rgba8())
}

fn texture(
    texture: &gltf::Texture,
    buffers: &[Vec<u8>],
    external: &BTreeMap<String, Vec<u8>>,
) -> Result<BaseColourTexture, TextureProblem> {
    let image = texture.source();
    let encoded: Vec<u8> = match image.source() {
        gltf::image::Source::View { view, .. } => {
            let buffer = &buffers[view.buffer().index()];
            let range = view.offset()..view.offset().saturating_add(view.length());
            buffer
                .get(range)
                .ok_or_else(|| format!("image {} lies outside its buffer", image.index()))?
                .to_vec()
        }
        gltf::image::Source::Uri { uri, .. } => match uri.strip_prefix("data:") {
            Some(payload) => {
                let (_, b64) = payload.split_once(";base64,").ok_or_else(|| {
                    format!("image {} has a data URI that is not base64", image.index())
                })?;
                base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .map_err(|e| format!("image {} has a corrupt data URI: {e}", image.index()))?
            }
            None => external
                .get(uri)
                .cloned()
                .ok_or_else(|| format!("image {uri:?} is missing"))?,
        },
    };
    let decoded =
        decode(&encoded).map_err(|e| format!("image {} cannot be read: {}", image.index(), e.0))?;
    let decoded = if decoded.width() > MAX_TEXTURE || decoded.height() > MAX_TEXTURE {
        let scale = f64::from(MAX_TEXTURE) / f64::from(decoded.width().max(decoded.height()));
        let (w, h) = (
            ((f64::from(decoded.width()) * scale).round() as u32).max(1),
            ((f64::from(decoded.height()) * scale).round() as u32).max(1),
        );
        image::imageops::resize(&decoded, w, h, image::imageops::FilterType::Triangle)
    } else {
        decoded
    };
    let sampler = texture.sampler();
    Ok(BaseColourTexture {
        width: decoded.width(),
        height: decoded.height(),
        rgba8: decoded.into_raw(),
        wrap: [sampler.wrap_s(), sampler.wrap_t()],
    })
}
