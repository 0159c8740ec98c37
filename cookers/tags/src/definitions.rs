//! The group definitions: struct layouts of the four groups a Forge piece needs, generated
//! from the shipped game's tags (`definitions/forge-groups.json`, kept in the crate so it
//! builds anywhere; `docs/formats/tags.md` says where it comes from).

use std::sync::OnceLock;

use serde_json::Value;

const SOURCE: &str = include_str!("../definitions/forge-groups.json");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    Struct(usize),
    Block,
    Data,
    TagReference,
    Plain,
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub kind: FieldKind,
    pub offset: usize,
    pub size: usize,
}

#[derive(Debug, Clone)]
pub struct StructDef {
    pub name: String,
    pub guid: [u8; 16],
    pub size: usize,
    pub fields: Vec<FieldDef>,
}

#[derive(Debug, Clone)]
pub struct GroupDef {
    pub key: String,
    /// The four-CC, e.g. `bloc`.
    pub tag: [u8; 4],
    pub version: u32,
    pub structs: Vec<StructDef>,
}

impl GroupDef {
    pub fn struct_index(&self, name: &str) -> Option<usize> {
        self.structs.iter().position(|s| s.name == name)
    }

    /// The absolute offset of a field reached through inline structs, e.g.
    /// `["object", "model"]` in the crate's root.
    pub fn offset_of(&self, root: usize, path: &[&str]) -> Option<(usize, &FieldDef)> {
        let mut def = &self.structs[root];
        let mut base = 0;
        for (i, name) in path.iter().enumerate() {
            let f = def.fields.iter().find(|f| f.name == *name)?;
            if i + 1 == path.len() {
                return Some((base + f.offset, f));
            }
            let FieldKind::Struct(s) = f.kind else {
                return None;
            };
            base += f.offset;
            def = &self.structs[s];
        }
        None
    }

    /// Fields that own data outside the struct's fixed bytes (blocks, data, tag
    /// references), with absolute offsets, through inline structs, in offset order.
    pub fn child_fields(&self, def: usize) -> Vec<(usize, FieldKind)> {
        let mut out = Vec::new();
        self.collect(def, 0, &mut out, 0);
        out.sort_by_key(|(o, _)| *o);
        out
    }

    fn collect(&self, def: usize, base: usize, out: &mut Vec<(usize, FieldKind)>, depth: usize) {
        if depth > 16 {
            return;
        }
        for f in &self.structs[def].fields {
            match f.kind {
                FieldKind::Struct(s) if s < self.structs.len() => {
                    self.collect(s, base + f.offset, out, depth + 1)
                }
                FieldKind::Block | FieldKind::Data | FieldKind::TagReference => {
                    out.push((base + f.offset, f.kind))
                }
                _ => {}
            }
        }
    }
}

fn guid(hex: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = hex
            .get(2 * i..2 * i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0);
    }
    out
}

fn parse() -> Vec<GroupDef> {
    let v: Value = serde_json::from_str(SOURCE).expect("the bundled definitions are JSON");
    let mut groups = Vec::new();
    for (key, g) in v["groups"].as_object().expect("groups") {
        let tag: [u8; 4] = g["group"]
            .as_str()
            .unwrap_or("????")
            .as_bytes()
            .try_into()
            .unwrap_or(*b"????");
        let structs = g["structs"]
            .as_array()
            .expect("structs")
            .iter()
            .map(|s| StructDef {
                name: s["name"].as_str().unwrap_or_default().to_string(),
                guid: guid(s["guid"].as_str().unwrap_or_default()),
                size: s["size"].as_u64().unwrap_or(0) as usize,
                fields: s["fields"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| FieldDef {
                        name: f["name"].as_str().unwrap_or_default().to_string(),
                        kind: match f["type"].as_str().unwrap_or_default() {
                            "struct" => FieldKind::Struct(
                                f["struct_index"].as_u64().unwrap_or(u64::MAX) as usize,
                            ),
                            "block" => FieldKind::Block,
                            "data" => FieldKind::Data,
                            "tag reference" => FieldKind::TagReference,
                            _ => FieldKind::Plain,
                        },
                        offset: f["offset"].as_u64().unwrap_or(0) as usize,
                        size: f["size"].as_u64().unwrap_or(0) as usize,
                    })
                    .collect(),
            })
            .collect();
        groups.push(GroupDef {
            key: key.clone(),
            tag,
            version: g["version"].as_u64().unwrap_or(0) as u32,
            structs,
        });
    }
    groups
}

pub fn groups() -> &'static [GroupDef] {
    static GROUPS: OnceLock<Vec<GroupDef>> = OnceLock::new();
    GROUPS.get_or_init(parse)
}

pub fn group(tag: &[u8; 4]) -> Option<&'static GroupDef> {
    groups().iter().find(|g| &g.tag == tag)
}
