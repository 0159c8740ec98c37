//! Turning a donor package into a new one: a new package name, renamed exports, and the
//! public export hashes that follow from the new names.

use crate::error::{PackageError, Result};
use crate::names::{self, MappedName};
use crate::object_index::{public_export_hash, ObjectIndex};
use crate::package::Package;

impl Package {
    /// The name map slot of `None`, which ends every tag list.
    pub fn none_slot(&self) -> Result<usize> {
        self.header
            .names
            .iter()
            .position(|n| n == "None")
            .ok_or_else(|| {
                PackageError::new(
                    "package_no_none",
                    "the name map has no None, so the package has no properties",
                )
            })
    }

    /// The mapped name of `name`, added to the name map when it is not there yet.
    pub fn intern(&mut self, name: &str) -> MappedName {
        let (base, number) = names::split_number(name);
        let slot = match self.header.names.iter().position(|n| n == base) {
            Some(slot) => slot,
            None => {
                self.header.names.push(base.to_string());
                self.header.names.len() - 1
            }
        };
        MappedName {
            index: slot as u32,
            number,
        }
    }

    /// Renames the package and, for each `(old, new)`, the export named `old`; then
    /// recomputes every public export hash from the export's path inside the package.
    /// A name is rewritten where it stands in the name map, so whatever else named the
    /// donor (a soft reference to itself, say) names the new package too.
    pub fn rename(&mut self, package_name: &str, exports: &[(String, String)]) -> Result<()> {
        self.header.name = self.rewrite_name(self.header.name, package_name);
        for (old, new) in exports {
            let index = self.export_named(old).ok_or_else(|| {
                PackageError::new(
                    "donor_export_missing",
                    format!("the donor has no export named {old}"),
                )
            })?;
            self.header.exports[index].object_name =
                self.rewrite_name(self.header.exports[index].object_name, new);
        }
        for i in 0..self.header.exports.len() {
            if self.header.exports[i].public_export_hash != 0 {
                let path = self.export_path(i).to_lowercase();
                self.header.exports[i].public_export_hash = public_export_hash(&path);
            }
        }
        Ok(())
    }

    /// Rewrites the name map entry `old` stands on to `new`, unless `new` is already in the
    /// map (names stay unique), in which case the name moves to that entry.
    fn rewrite_name(&mut self, old: MappedName, new: &str) -> MappedName {
        let (base, number) = names::split_number(new);
        match self.header.names.iter().position(|n| n == base) {
            Some(slot) => MappedName {
                index: slot as u32,
                number,
            },
            None => match self.header.names.get_mut(old.slot()) {
                Some(entry) => {
                    *entry = base.to_string();
                    MappedName {
                        index: old.index,
                        number,
                    }
                }
                None => self.intern(new),
            },
        }
    }

    /// An export's path inside its package: its outers' names and its own, joined by `/`.
    pub fn export_path(&self, index: usize) -> String {
        let mut parts = Vec::new();
        let mut at = Some(index);
        while let Some(i) = at.filter(|_| parts.len() <= self.header.exports.len()) {
            let export = &self.header.exports[i];
            parts.push(self.header.name_of(export.object_name).unwrap_or_default());
            at = match export.outer {
                ObjectIndex::Export(outer) if (outer as usize) < self.header.exports.len() => {
                    Some(outer as usize)
                }
                _ => None,
            };
        }
        parts.reverse();
        parts.join("/")
    }

    /// The export whose class is the script object at `class_path`.
    pub fn export_of_class(&self, class_path: &str) -> Option<usize> {
        let class = crate::object_index::script_import(class_path);
        self.header.exports.iter().position(|x| x.class == class)
    }

    /// Points the package import at `import` (an index into the import map) at another
    /// package's public export: `package` by name, the export by its path inside it.
    pub fn retarget_import(
        &mut self,
        import: usize,
        package: &str,
        export_path: &str,
    ) -> Result<()> {
        let Some(ObjectIndex::PackageImport {
            package: p,
            export_hash: h,
        }) = self.header.imports.get(import).copied()
        else {
            return Err(PackageError::new(
                "donor_import",
                format!("import {import} is not a package import"),
            ));
        };
        let (p, h) = (p as usize, h as usize);
        if p >= self.header.imported_packages.len()
            || h >= self.header.imported_public_export_hashes.len()
        {
            return Err(PackageError::new(
                "donor_import",
                format!("import {import} points past the imported packages"),
            ));
        }
        let old = std::mem::replace(&mut self.header.imported_packages[p], package.to_string());
        if let Some(slot) = self.header.names.iter().position(|n| *n == old) {
            self.header.names[slot] = package.to_string();
        }
        self.header.imported_public_export_hashes[h] =
            public_export_hash(&export_path.to_lowercase());
        Ok(())
    }
}
