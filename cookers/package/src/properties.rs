//! Tagged properties as a versioned UE 5.8 package serializes them (property tags with
//! complete type names, file version UE5 1012 and later): a list of tags ended by the
//! name `None`, each carrying its value's bytes. Values stay bytes; a caller that edits
//! one decodes it (a name, a number, a nested struct's own tag list).
//!
//! A tag: FName name; the type as a pre-order list of (FName, int32 inner count) nodes,
//! read until every node's inner types are read; int32 size; u8 flags (0x01 array index
//! follows, 0x02 a 16-byte property guid follows, 0x04 an extension byte follows, 0x10
//! the value of a BoolProperty); then `size` value bytes.

use forge_bytes::{Reader, Writer};

use crate::error::{PackageError, Result};
use crate::names::MappedName;

pub const FLAG_ARRAY_INDEX: u8 = 0x01;
pub const FLAG_GUID: u8 = 0x02;
pub const FLAG_EXTENSION: u8 = 0x04;
pub const FLAG_BOOL_TRUE: u8 = 0x10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub name: MappedName,
    /// The complete type, pre-order: `StructProperty(BoxSphereBounds(/Script/CoreUObject))`
    /// is three nodes with inner counts 1, 1 and 0.
    pub type_name: Vec<(MappedName, i32)>,
    pub flags: u8,
    pub array_index: i32,
    pub guid: [u8; 16],
    /// The extension byte and, when its bit 0x02 is set, the override operation byte.
    pub extension: Vec<u8>,
    pub value: Vec<u8>,
}

/// A tag list: the tags and the `None` that ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagList {
    pub tags: Vec<Tag>,
    pub end: MappedName,
}

/// An object's tagged properties: the class serialization control byte(s), then a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectProperties {
    pub control: Vec<u8>,
    pub list: TagList,
}

fn e(error: forge_bytes::ReadError) -> PackageError {
    PackageError::read("tagged properties", error)
}

impl TagList {
    /// Reads tags until the one named `none` (the name map's index of `None`).
    pub fn read(r: &mut Reader, none: usize) -> Result<TagList> {
        let mut tags = Vec::new();
        loop {
            let name = MappedName::read(r).map_err(e)?;
            if name.slot() == none {
                return Ok(TagList { tags, end: name });
            }
            if tags.len() > 1 << 16 {
                return Err(PackageError::new(
                    "package_properties",
                    "more than 65536 properties in one list",
                ));
            }
            tags.push(read_tag(r, name)?);
        }
    }

    pub fn write(&self, w: &mut Writer) {
        for tag in &self.tags {
            write_tag(w, tag);
        }
        self.end.write(w);
    }

    pub fn find(&self, name: MappedName) -> Option<&Tag> {
        self.tags.iter().find(|t| t.name == name)
    }

    pub fn find_mut(&mut self, name: MappedName) -> Option<&mut Tag> {
        self.tags.iter_mut().find(|t| t.name == name)
    }

    /// Removes the tags with these names (a property left out takes its default).
    pub fn remove(&mut self, names: &[MappedName]) {
        self.tags.retain(|t| !names.contains(&t.name));
    }
}

impl Tag {
    /// A tag with no array index, guid or extension.
    pub fn new(name: MappedName, type_name: Vec<(MappedName, i32)>, value: Vec<u8>) -> Tag {
        Tag {
            name,
            type_name,
            flags: 0,
            array_index: 0,
            guid: [0; 16],
            extension: Vec::new(),
            value,
        }
    }

    /// The tag list a non-binary struct value holds.
    pub fn nested(&self, none: usize) -> Result<TagList> {
        let mut r = Reader::new(&self.value);
        let list = TagList::read(&mut r, none)?;
        r.finish().map_err(e)?;
        Ok(list)
    }

    pub fn set_nested(&mut self, list: &TagList) {
        let mut w = Writer::default();
        list.write(&mut w);
        self.value = w.bytes;
    }
}

/// Three doubles: an FVector serialized as a binary struct.
pub fn vector_bytes(v: [f64; 3]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl ObjectProperties {
    pub fn read(r: &mut Reader, none: usize) -> Result<ObjectProperties> {
        let first = r.u8().map_err(e)?;
        let mut control = vec![first];
        if first & 0x02 != 0 {
            control.push(r.u8().map_err(e)?);
        }
        Ok(ObjectProperties {
            control,
            list: TagList::read(r, none)?,
        })
    }

    pub fn write(&self, w: &mut Writer) {
        w.raw(&self.control);
        self.list.write(w);
    }
}

fn read_tag(r: &mut Reader, name: MappedName) -> Result<Tag> {
    let mut type_name = Vec::new();
    let mut pending = 1i64;
    while pending > 0 {
        let node = MappedName::read(r).map_err(e)?;
        let inner = r.u32().map_err(e)? as i32;
        if !(0..=64).contains(&inner) || type_name.len() > 64 {
            return Err(PackageError::new(
                "package_properties",
                format!("a property type node claims {inner} inner types"),
            ));
        }
        type_name.push((node, inner));
        pending += i64::from(inner) - 1;
    }
    let size = r.u32().map_err(e)?;
    let flags = r.u8().map_err(e)?;
    let array_index = if flags & FLAG_ARRAY_INDEX != 0 {
        r.u32().map_err(e)? as i32
    } else {
        0
    };
    let guid = if flags & FLAG_GUID != 0 {
        r.take(16).map_err(e)?.try_into().expect("16 bytes")
    } else {
        [0; 16]
    };
    let mut extension = Vec::new();
    if flags & FLAG_EXTENSION != 0 {
        let byte = r.u8().map_err(e)?;
        extension.push(byte);
        if byte & 0x02 != 0 {
            extension.push(r.u8().map_err(e)?);
        }
    }
    let value = r.take(size as usize).map_err(e)?.to_vec();
    Ok(Tag {
        name,
        type_name,
        flags,
        array_index,
        guid,
        extension,
        value,
    })
}

fn write_tag(w: &mut Writer, tag: &Tag) {
    tag.name.write(w);
    for (node, inner) in &tag.type_name {
        node.write(w);
        w.u32(*inner as u32);
    }
    w.u32(tag.value.len() as u32);
    w.u8(tag.flags);
    if tag.flags & FLAG_ARRAY_INDEX != 0 {
        w.u32(tag.array_index as u32);
    }
    if tag.flags & FLAG_GUID != 0 {
        w.raw(&tag.guid);
    }
    w.raw(&tag.extension);
    w.raw(&tag.value);
}
