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

/// Reads every element's `N` components as f64, applying `normalized` integer scaling.
/// Each element is an array, not a vector of its own: a 10,000-triangle model's indices
/// as one small vector each were 1.7 MB, the largest part of a cook's peak memory.
fn read<const N: usize>(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
    want: Dimensions,
) -> Result<Vec<[f64; N]>, AccessorError> {
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
    debug_assert_eq!(component_count(want), N);
    let elem = size * N;
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
        let mut element = [0.0; N];
        for (c, component) in element.iter_mut().enumerate() {
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
            *component = v;
        }
        out.push(element);
    }
    Ok(out)
}

pub fn read_vec3(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
) -> Result<Vec<[f64; 3]>, AccessorError> {
    read(accessor, buffers, Dimensions::Vec3)
}

pub fn read_vec2(
    accessor: &gltf::Accessor,
    buffers: &[Vec<u8>],
) -> Result<Vec<[f64; 2]>, AccessorError> {
    read(accessor, buffers, Dimensions::Vec2)
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
    Ok(read::<1>(accessor, buffers, Dimensions::Scalar)?
        .into_iter()
        .map(|[v]| v as u32)
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
