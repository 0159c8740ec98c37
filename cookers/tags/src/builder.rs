//! Building a tag instance by field names: offsets come from the bundled definitions, so
//! a typo in a field name fails every test at once rather than writing a wrong offset.

use crate::definitions;
use crate::tag::{Child, Instance, TagRef};

pub(crate) struct Builder {
    pub(crate) group: &'static definitions::GroupDef,
}

impl Builder {
    pub(crate) fn new(tag: &[u8; 4]) -> Builder {
        Builder {
            group: definitions::group(tag).expect("the four groups are bundled"),
        }
    }

    pub(crate) fn def(&self, name: &str) -> usize {
        self.group
            .struct_index(name)
            .unwrap_or_else(|| panic!("struct {name} is in the bundled definitions"))
    }

    pub(crate) fn instance(&self, name: &str) -> Instance {
        Instance::new(self.group, self.def(name))
    }

    pub(crate) fn offset(&self, inst: &Instance, path: &[&str]) -> usize {
        self.group
            .offset_of(inst.def, path)
            .unwrap_or_else(|| panic!("field {path:?} is in the bundled definitions"))
            .0
    }

    pub(crate) fn reference(&self, inst: &mut Instance, path: &[&str], group: [u8; 4], tag: &str) {
        let at = self.offset(inst, path);
        inst.children.insert(
            at,
            Child::Ref(Some(TagRef {
                group,
                path: tag.to_string(),
            })),
        );
    }

    pub(crate) fn block(
        &self,
        inst: &mut Instance,
        path: &[&str],
        element: &str,
        items: Vec<Instance>,
    ) {
        if !items.is_empty() {
            let at = self.offset(inst, path);
            inst.children.insert(
                at,
                Child::Block {
                    element: self.def(element),
                    items,
                },
            );
        }
    }

    /// Elements of `element` from a table of fixed-size records.
    pub(crate) fn rows(&self, element: &str, table: &[u8]) -> Vec<Instance> {
        let def = self.def(element);
        let size = self.group.structs[def].size;
        table
            .chunks_exact(size)
            .map(|row| Instance {
                def,
                bytes: row.to_vec(),
                children: Default::default(),
            })
            .collect()
    }
}

impl Builder {
    /// Writes `bytes` at the field `path`.
    pub(crate) fn set(&self, inst: &mut Instance, path: &[&str], bytes: &[u8]) {
        let at = self.offset(inst, path);
        inst.put(at, bytes);
    }

    pub(crate) fn set_f32s(&self, inst: &mut Instance, path: &[&str], values: &[f32]) {
        let at = self.offset(inst, path);
        inst.put_f32s(at, values);
    }

    /// The `N` bytes at the field `path`.
    pub(crate) fn get<const N: usize>(&self, inst: &Instance, path: &[&str]) -> [u8; N] {
        let at = self.offset(inst, path);
        inst.bytes[at..at + N].try_into().expect("N bytes")
    }

    /// The elements of the block field `path` (none when the block is empty).
    pub(crate) fn items<'i>(&self, inst: &'i Instance, path: &[&str]) -> &'i [Instance] {
        match inst.children.get(&self.offset(inst, path)) {
            Some(Child::Block { items, .. }) => items,
            _ => &[],
        }
    }
}
