//! Bounds-checked accessor reads. Every count and offset in a glTF file is untrusted, so
//! each read checks the range against the buffer before touching it.

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

fn component_count(d: Dimensions) -> usize {
    match d {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 | Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

/// Reads every element's components as f64, applying `normalized` integer scaling.
/// Why an accessor did not read; the importer places it at the primitive and attribute.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct AccessorError(String);

impl From<&str> for AccessorError {
    fn from(why: &str) -> Self {
        AccessorError(why.to_string())
    }
}

impl From<String> for AccessorError {
    fn from(why: String) -> Self {
        AccessorError(why)
    }
}

fn read(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
    want: Dimensions,
) -> Result<Vec<Vec<f64>>, AccessorError> {
    if accessor.sparse().is_some() {
        return Err("sparse accessors are not supported; apply them before export".into());
    }
    if accessor.dimensions() != want {
        return Err(format!("expected {want:?}, found {:?}", accessor.dimensions()).into());
    }
    let view = accessor.view().ok_or("the accessor has no buffer view")?;
    let buffer = buffers
        .get(view.buffer().index())
        .ok_or("the buffer view names a missing buffer")?;
    let size = component_size(accessor.data_type());
    let comps = component_count(want);
    let elem = size * comps;
    let stride = view.stride().unwrap_or(elem);
    if stride < elem {
        return Err(
            format!("byte stride {stride} is smaller than an element ({elem} bytes)").into(),
        );
    }
    let count = accessor.count();
    let view_end = view
        .offset()
        .checked_add(view.length())
        .ok_or("the buffer view overflows")?;
    if view_end > buffer.len() {
        return Err(format!(
            "the buffer view ends at byte {view_end} but the buffer has {}",
            buffer.len()
        )
        .into());
    }
    if count > 0 {
        let last = accessor
            .offset()
            .checked_add(
                (count - 1)
                    .checked_mul(stride)
                    .ok_or("the accessor overflows")?,
            )
            .and_then(|x| x.checked_add(elem))
            .ok_or("the accessor overflows")?;
        if last > view.length() {
            return Err(format!(
                "the accessor reads {last} bytes of a {}-byte buffer view",
                view.length()
            )
            .into());
        }
    }
    let data = &buffer[view.offset()..view_end];
    let normalized = accessor.normalized();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let start = accessor.offset() + i * stride;
        let mut element = Vec::with_capacity(comps);
        for c in 0..comps {
            let b = &data[start + c * size..start + (c + 1) * size];
            let v = match accessor.data_type() {
                DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                DataType::U16 => {
                    let v = u16::from_le_bytes([b[0], b[1]]) as f64;
                    if normalized {
                        v / 65535.0
                    } else {
                        v
                    }
                }
                DataType::I16 => {
                    let v = i16::from_le_bytes([b[0], b[1]]) as f64;
                    if normalized {
                        (v / 32767.0).max(-1.0)
                    } else {
                        v
                    }
                }
                DataType::U8 => {
                    let v = b[0] as f64;
                    if normalized {
                        v / 255.0
                    } else {
                        v
                    }
                }
                DataType::I8 => {
                    let v = b[0] as i8 as f64;
                    if normalized {
                        (v / 127.0).max(-1.0)
                    } else {
                        v
                    }
                }
            };
            element.push(v);
        }
        out.push(element);
    }
    Ok(out)
}

pub fn read_vec3(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
) -> Result<Vec<[f64; 3]>, AccessorError> {
    Ok(read(accessor, buffers, Dimensions::Vec3)?
        .into_iter()
        .map(|v| [v[0], v[1], v[2]])
        .collect())
}

pub fn read_vec2(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
) -> Result<Vec<[f64; 2]>, AccessorError> {
    Ok(read(accessor, buffers, Dimensions::Vec2)?
        .into_iter()
        .map(|v| [v[0], v[1]])
        .collect())
}

pub fn read_indices(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
) -> Result<Vec<u32>, AccessorError> {
    if !matches!(
        accessor.data_type(),
        DataType::U8 | DataType::U16 | DataType::U32
    ) {
        return Err(format!(
            "indices must be unsigned integers, found {:?}",
            accessor.data_type()
        )
        .into());
    }
    Ok(read(accessor, buffers, Dimensions::Scalar)?
        .into_iter()
        .map(|v| v[0] as u32)
        .collect())
}

/// Turns an index list of the given mode into triangles, keeping strip and fan winding.
pub fn triangulate(mode: Mode, indices: &[u32]) -> Vec<[u32; 3]> {
    match mode {
        Mode::Triangles => indices
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect(),
        Mode::TriangleStrip => (0..indices.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [indices[i], indices[i + 1], indices[i + 2]]
                } else {
                    [indices[i + 1], indices[i], indices[i + 2]]
                }
            })
            .collect(),
        Mode::TriangleFan => (1..indices.len().saturating_sub(1))
            .map(|i| [indices[0], indices[i], indices[i + 1]])
            .collect(),
        _ => Vec::new(),
    }
}
