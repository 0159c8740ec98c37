//! Adding a package import to a package: what a rewritten donor needs to point at a
//! package of the pack (a static mesh slot at the pack's own material instance, say).

use crate::object_index::{public_export_hash, ObjectIndex};
use crate::package::Package;

impl Package {
    /// Imports the public export `export_path` of `package`, and returns its
    /// FPackageIndex (`-(import + 1)`). An import already there is reused.
    pub fn add_package_import(&mut self, package: &str, export_path: &str) -> i32 {
        let header = &mut self.header;
        let p = match header.imported_packages.iter().position(|x| x == package) {
            Some(p) => p,
            None => {
                header.imported_packages.push(package.to_string());
                header.imported_packages.len() - 1
            }
        };
        let hash = public_export_hash(&export_path.to_lowercase());
        let h = match header
            .imported_public_export_hashes
            .iter()
            .position(|&x| x == hash)
        {
            Some(h) => h,
            None => {
                header.imported_public_export_hashes.push(hash);
                header.imported_public_export_hashes.len() - 1
            }
        };
        let import = ObjectIndex::PackageImport {
            package: p as u32,
            export_hash: h as u32,
        };
        let at = match header.imports.iter().position(|&x| x == import) {
            Some(at) => at,
            None => {
                header.imports.push(import);
                header.imports.len() - 1
            }
        };
        -(at as i32) - 1
    }

    /// Makes every export that depends on `existing` (a FPackageIndex) depend on `added`
    /// the same way, so the loader orders the new import as it ordered the old one.
    pub fn depend_like(&mut self, existing: i32, added: i32) {
        let header = &mut self.header;
        let mut inserted = 0;
        for dep in &mut header.dependency_headers {
            dep.first_entry += inserted;
            let mut at = dep.first_entry.max(0) as usize;
            for count in &mut dep.counts {
                let range = at..at + *count as usize;
                let entries = header.dependency_entries.get(range.clone()).unwrap_or(&[]);
                if entries.contains(&existing) && !entries.contains(&added) {
                    header.dependency_entries.insert(range.end, added);
                    *count += 1;
                    inserted += 1;
                }
                at += *count as usize;
            }
        }
    }
}
