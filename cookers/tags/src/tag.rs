//! A tag as a tree of struct instances, and its file form.
//!
//! File: a 0x4C-byte header, then two sections (`docs/formats/tags.md`), each
//! `{four-CC stored reversed, u32 version, u32 content size}`:
//! - `blay`: the layout, i.e. the structs this file uses (name, GUID, size), in first-use
//!   order. A shipped tag carries the game's own self-describing layout here; this is the
//!   part a game-ready tag takes from a donor (see `docs/formats/tags.md`).
//! - `bdat`: the root instance, then its children. An instance is its struct's fixed bytes
//!   followed by the data of its block, data and tag-reference fields in offset order: a
//!   block's elements (fixed bytes, all of them) and then each element's children; a data
//!   field's bytes; a tag reference's path.
//!
//! In the fixed bytes a block field is `{u32 count, u32 layout index of its element struct,
//! u32 0}`, a data field `{u32 size, 0, 0, 0, 0}` and a tag reference `{group four-CC,
//! u32 0, u32 path length, u32 0xFFFFFFFF}`.

use std::collections::BTreeMap;

use forge_bytes::Reader;

use crate::definitions::{self, FieldKind, GroupDef};

pub const HEADER_SIZE: usize = 0x4C;
const SECTION_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagRef {
    pub group: [u8; 4],
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Child {
    Block {
        element: usize,
        items: Vec<Instance>,
    },
    Data(Vec<u8>),
    Ref(Option<TagRef>),
}

/// A struct's fixed bytes and the children of its block, data and reference fields, by
/// absolute offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    pub def: usize,
    pub bytes: Vec<u8>,
    pub children: BTreeMap<usize, Child>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub group: [u8; 4],
    pub root: Instance,
}

impl Instance {
    pub fn new(group: &GroupDef, def: usize) -> Instance {
        Instance {
            def,
            bytes: vec![0; group.structs[def].size],
            children: BTreeMap::new(),
        }
    }

    pub fn put(&mut self, offset: usize, bytes: &[u8]) {
        self.bytes[offset..offset + bytes.len()].copy_from_slice(bytes);
    }

    pub fn put_f32s(&mut self, offset: usize, values: &[f32]) {
        for (i, v) in values.iter().enumerate() {
            self.put(offset + 4 * i, &v.to_le_bytes());
        }
    }
}

fn reversed(tag: &[u8; 4]) -> [u8; 4] {
    [tag[3], tag[2], tag[1], tag[0]]
}

/// Why a tag did not read, or could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    #[error("no definition for group {0:?}")]
    UnknownGroup(String),
    #[error(transparent)]
    Read(#[from] forge_bytes::ReadError),
    /// The tag's data does not fit its group's layout; the message says where.
    #[error("{0}")]
    Layout(String),
}

impl From<&str> for TagError {
    fn from(why: &str) -> Self {
        TagError::Layout(why.to_string())
    }
}

impl From<String> for TagError {
    fn from(why: String) -> Self {
        TagError::Layout(why)
    }
}

impl Tag {
    pub fn group_def(&self) -> Result<&'static GroupDef, TagError> {
        definitions::group(&self.group)
            .ok_or_else(|| TagError::UnknownGroup(String::from_utf8_lossy(&self.group).into()))
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, TagError> {
        let g = self.group_def()?;
        let mut layout: Vec<usize> = Vec::new();
        let mut data = Vec::new();
        encode(g, &self.root, &mut layout, &mut data, true)?;
        let mut blay = Vec::new();
        blay.extend_from_slice(&(layout.len() as u32).to_le_bytes());
        for &s in &layout {
            let def = &g.structs[s];
            blay.extend_from_slice(&(def.name.len() as u16).to_le_bytes());
            blay.extend_from_slice(def.name.as_bytes());
            blay.extend_from_slice(&def.guid);
            blay.extend_from_slice(&(def.size as u32).to_le_bytes());
        }
        let mut out = vec![0u8; HEADER_SIZE];
        out[..4].copy_from_slice(&reversed(&self.group));
        out[4..8].copy_from_slice(&g.version.to_le_bytes());
        out[8..12].copy_from_slice(&blake3::hash(&blay).as_bytes()[..4]);
        for (four_cc, body) in [(b"blay", &blay), (b"bdat", &data)] {
            out.extend_from_slice(&reversed(four_cc));
            out.extend_from_slice(&SECTION_VERSION.to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(body);
        }
        Ok(out)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Tag, TagError> {
        if bytes.len() < HEADER_SIZE + 24 {
            return Err("a tag file is at least a header and two sections".into());
        }
        let group = reversed(&bytes[..4].try_into().expect("four bytes"));
        let g = definitions::group(&group)
            .ok_or_else(|| format!("unknown group {:?}", String::from_utf8_lossy(&group)))?;
        let mut at = HEADER_SIZE;
        let mut section = |name: &[u8; 4]| -> Result<&[u8], TagError> {
            let head = bytes
                .get(at..at + 12)
                .ok_or("a section header is truncated")?;
            if head[..4] != reversed(name) {
                return Err(format!("expected section {:?}", String::from_utf8_lossy(name)).into());
            }
            let size = u32::from_le_bytes(head[8..12].try_into().expect("four bytes")) as usize;
            let body = bytes
                .get(at + 12..at + 12 + size)
                .ok_or("a section runs past the end")?;
            at += 12 + size;
            Ok(body)
        };
        let blay = section(b"blay")?;
        let bdat = section(b"bdat")?;
        if at != bytes.len() {
            return Err("bytes follow the sections".into());
        }
        let mut layout = Vec::new();
        let mut r = Reader::new(blay);
        let n = r.u32()? as usize;
        if n > blay.len() {
            return Err("the layout count exceeds the section".into());
        }
        for _ in 0..n {
            let len = u16::from_le_bytes(r.take(2)?.try_into().expect("two bytes")) as usize;
            let name = String::from_utf8_lossy(r.take(len)?).into_owned();
            r.take(16)?;
            let size = r.u32()? as usize;
            let idx = g
                .struct_index(&name)
                .ok_or_else(|| format!("the layout names an unknown struct {name:?}"))?;
            if g.structs[idx].size != size {
                return Err(format!(
                    "struct {name:?} is {size} bytes in the file but {} in the definition",
                    g.structs[idx].size
                )
                .into());
            }
            layout.push(idx);
        }
        let root_def = *layout.first().ok_or("the layout is empty")?;
        let mut c = Reader::new(bdat);
        let mut root = decode_fixed(g, root_def, &mut c)?;
        decode_children(g, &mut root, &layout, &mut c, 0)?;
        if c.remaining() != 0 {
            return Err("bytes follow the tag data".into());
        }
        Ok(Tag { group, root })
    }
}

fn layout_index(layout: &mut Vec<usize>, def: usize) -> u32 {
    match layout.iter().position(|&d| d == def) {
        Some(i) => i as u32,
        None => {
            layout.push(def);
            (layout.len() - 1) as u32
        }
    }
}

fn encode(
    g: &GroupDef,
    inst: &Instance,
    layout: &mut Vec<usize>,
    out: &mut Vec<u8>,
    fixed_too: bool,
) -> Result<(), TagError> {
    if fixed_too {
        layout_index(layout, inst.def);
        out.extend_from_slice(&fixed_bytes(g, inst, layout)?);
    }
    for (offset, kind) in g.child_fields(inst.def) {
        match (kind, inst.children.get(&offset)) {
            (FieldKind::Block, Some(Child::Block { items, .. })) => {
                for item in items {
                    out.extend_from_slice(&fixed_bytes(g, item, layout)?);
                }
                for item in items {
                    encode(g, item, layout, out, false)?;
                }
            }
            (FieldKind::Data, Some(Child::Data(d))) => out.extend_from_slice(d),
            (FieldKind::TagReference, Some(Child::Ref(Some(r)))) => {
                out.extend_from_slice(r.path.as_bytes())
            }
            _ => {}
        }
    }
    Ok(())
}

/// The instance's bytes with its child fields' headers filled in.
fn fixed_bytes(
    g: &GroupDef,
    inst: &Instance,
    layout: &mut Vec<usize>,
) -> Result<Vec<u8>, TagError> {
    let mut b = inst.bytes.clone();
    if b.len() != g.structs[inst.def].size {
        return Err(format!(
            "{} is {} bytes, not {}",
            g.structs[inst.def].name,
            b.len(),
            g.structs[inst.def].size
        )
        .into());
    }
    for (offset, kind) in g.child_fields(inst.def) {
        let slot = &mut b[offset..];
        match (kind, inst.children.get(&offset)) {
            (FieldKind::Block, Some(Child::Block { element, items })) if !items.is_empty() => {
                let idx = layout_index(layout, *element);
                slot[..4].copy_from_slice(&(items.len() as u32).to_le_bytes());
                slot[4..8].copy_from_slice(&idx.to_le_bytes());
                slot[8..12].fill(0);
            }
            (FieldKind::Data, Some(Child::Data(d))) if !d.is_empty() => {
                slot[..4].copy_from_slice(&(d.len() as u32).to_le_bytes());
                slot[4..20].fill(0);
            }
            (FieldKind::TagReference, Some(Child::Ref(Some(r)))) => {
                slot[..4].copy_from_slice(&reversed(&r.group));
                slot[4..8].fill(0);
                slot[8..12].copy_from_slice(&(r.path.len() as u32).to_le_bytes());
                slot[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
            }
            (kind, _) => clear_header(kind, slot),
        }
    }
    Ok(b)
}

/// Writes an empty child field's header. The reader clears every header it has read too:
/// counts, layout indices and sizes are derived from the children, so two tags with the
/// same content compare equal however their headers were laid out.
fn clear_header(kind: FieldKind, slot: &mut [u8]) {
    match kind {
        FieldKind::Block => slot[..12].fill(0),
        FieldKind::Data => slot[..20].fill(0),
        FieldKind::TagReference => {
            slot[..12].fill(0);
            slot[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        }
        _ => {}
    }
}

fn decode_fixed(g: &GroupDef, def: usize, c: &mut Reader) -> Result<Instance, TagError> {
    let size = g
        .structs
        .get(def)
        .ok_or("a struct index is out of range")?
        .size;
    Ok(Instance {
        def,
        bytes: c.take(size)?.to_vec(),
        children: BTreeMap::new(),
    })
}

fn decode_children(
    g: &GroupDef,
    inst: &mut Instance,
    layout: &[usize],
    c: &mut Reader,
    depth: usize,
) -> Result<(), TagError> {
    if depth > 32 {
        return Err("tag blocks nest too deeply".into());
    }
    for (offset, kind) in g.child_fields(inst.def) {
        let slot = &inst.bytes[offset..];
        let u = |i: usize| u32::from_le_bytes(slot[i..i + 4].try_into().expect("four bytes"));
        match kind {
            FieldKind::Block => {
                let count = u(0) as usize;
                if count == 0 {
                    clear_header(kind, &mut inst.bytes[offset..]);
                    continue;
                }
                let element = *layout
                    .get(u(4) as usize)
                    .ok_or("a block names a struct outside the layout")?;
                let size = g.structs[element].size.max(1);
                if count > c.remaining() / size {
                    return Err("a block's count exceeds the tag data".into());
                }
                let mut items = (0..count)
                    .map(|_| decode_fixed(g, element, c))
                    .collect::<Result<Vec<_>, _>>()?;
                for item in &mut items {
                    decode_children(g, item, layout, c, depth + 1)?;
                }
                inst.children
                    .insert(offset, Child::Block { element, items });
            }
            FieldKind::Data => {
                let n = u(0) as usize;
                if n > 0 {
                    inst.children
                        .insert(offset, Child::Data(c.take(n)?.to_vec()));
                }
            }
            FieldKind::TagReference => {
                let n = u(8) as usize;
                if u(0) != 0 {
                    let group = reversed(&slot[..4].try_into().expect("four bytes"));
                    let path = String::from_utf8(c.take(n)?.to_vec())
                        .map_err(|_| "a tag path is not UTF-8")?;
                    inst.children
                        .insert(offset, Child::Ref(Some(TagRef { group, path })));
                }
            }
            _ => {}
        }
        clear_header(kind, &mut inst.bytes[offset..]);
    }
    Ok(())
}
