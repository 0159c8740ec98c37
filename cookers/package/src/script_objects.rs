//! The global container's script objects (chunk type 5): every `/Script/...` object a
//! package can import, so an export's class can be named. Layout: a name batch, an int32
//! count, then 32 bytes per object: its name (mapped into that batch), its global index,
//! its outer's and its class default object's class index.

use std::collections::BTreeMap;

use forge_bytes::Reader;

use crate::error::{PackageError, Result};
use crate::names::{self, MappedName};
use crate::object_index::ObjectIndex;

#[derive(Debug, Clone)]
struct ScriptObject {
    name: String,
    outer: ObjectIndex,
}

#[derive(Debug, Clone, Default)]
pub struct ScriptObjects {
    objects: BTreeMap<u64, ScriptObject>,
}

impl ScriptObjects {
    pub fn read(bytes: &[u8]) -> Result<ScriptObjects> {
        let e = |error| PackageError::read("script objects", error);
        let mut r = Reader::new(bytes);
        let names = names::read_batch(&mut r, "script object names")?;
        let declared = r.u32().map_err(e)?;
        let count = r.fits(u64::from(declared), 32).map_err(e)?;
        let mut objects = BTreeMap::new();
        for _ in 0..count {
            let name = MappedName::read(&mut r).map_err(e)?;
            let global = ObjectIndex::read(&mut r).map_err(e)?;
            let outer = ObjectIndex::read(&mut r).map_err(e)?;
            let _cdo_class = r.u64().map_err(e)?;
            let base = names.get(name.slot()).ok_or_else(|| {
                PackageError::new(
                    "script_objects",
                    format!(
                        "a script object names entry {} of {}",
                        name.index,
                        names.len()
                    ),
                )
            })?;
            objects.insert(
                global.raw(),
                ScriptObject {
                    name: names::join_number(base, name.number),
                    outer,
                },
            );
        }
        Ok(ScriptObjects { objects })
    }

    /// The object path of a script import (`/Script/Engine.StaticMesh`), if it is known.
    pub fn path_of(&self, index: ObjectIndex) -> Option<String> {
        let mut parts = Vec::new();
        let mut at = index;
        while at != ObjectIndex::Null {
            let object = self.objects.get(&at.raw())?;
            parts.push(object.name.as_str());
            at = object.outer;
            if parts.len() > 64 {
                return None;
            }
        }
        parts.reverse();
        let (package, rest) = parts.split_first()?;
        Some(
            std::iter::once(package.to_string())
                .chain(rest.iter().map(|p| p.to_string()))
                .collect::<Vec<_>>()
                .join("."),
        )
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}
