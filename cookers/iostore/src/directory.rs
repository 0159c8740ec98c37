//! The directory index: a mount point, a tree of directories and files whose names live in
//! a string table, and each file's TOC entry index.

use crate::error::{IoStoreError, Result};

pub const NONE: u32 = u32::MAX;

/// An FString as stored: an i32 length including the NUL, negative for UTF-16.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FString {
    pub text: String,
    pub utf16: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectoryEntry {
    pub name: u32,
    pub first_child: u32,
    pub next_sibling: u32,
    pub first_file: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileEntry {
    pub name: u32,
    pub next_file: u32,
    /// The TOC entry index of the file's chunk.
    pub user_data: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryIndex {
    pub mount_point: FString,
    pub directories: Vec<DirectoryEntry>,
    pub files: Vec<FileEntry>,
    pub strings: Vec<FString>,
}

/// The directory index reader: `forge_bytes`' bounds-checked reader, with the index's
/// error codes.
struct Reader<'a> {
    reader: forge_bytes::Reader<'a>,
}

impl<'a> Reader<'a> {
    fn u32(&mut self) -> Result<u32> {
        self.reader
            .u32()
            .map_err(|_| IoStoreError::new("utoc_directory", "the directory index is truncated"))
    }

    fn count(&mut self, size: usize) -> Result<usize> {
        let n = self.u32()?;
        self.reader.fits(u64::from(n), size as u64).map_err(|_| {
            IoStoreError::new(
                "utoc_count_overflow",
                format!("the directory index claims {n} records, more than it holds"),
            )
        })
    }

    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        self.reader.take(n).ok()
    }

    /// Reads an FString in the one form `write_fstring` gives back: length 0 for empty,
    /// otherwise the text and exactly one NUL, valid UTF-8 or UTF-16 without inner NULs.
    fn fstring(&mut self) -> Result<FString> {
        let len = self.u32()? as i32;
        let bad = |why: &str| {
            IoStoreError::new(
                "utoc_directory_string",
                format!("a directory index string {why}"),
            )
        };
        let (text, utf16) = if len >= 0 {
            let s = self
                .bytes(len as usize)
                .ok_or_else(|| bad("runs past its end"))?;
            if s.is_empty() {
                return Ok(FString {
                    text: String::new(),
                    utf16: false,
                });
            }
            let text = s
                .strip_suffix(&[0])
                .ok_or_else(|| bad("has no terminating NUL"))?;
            let text = std::str::from_utf8(text).map_err(|_| bad("is not UTF-8"))?;
            (text.to_string(), false)
        } else {
            let units = (len as i64).unsigned_abs() as usize;
            let s = self
                .bytes(units * 2)
                .ok_or_else(|| bad("runs past its end"))?;
            let chars: Vec<u16> = s
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            let chars = chars
                .strip_suffix(&[0])
                .ok_or_else(|| bad("has no terminating NUL"))?;
            (
                String::from_utf16(chars).map_err(|_| bad("is not UTF-16"))?,
                true,
            )
        };
        if text.contains('\0') || (text.is_empty() && !utf16) {
            return Err(bad("holds a NUL of its own"));
        }
        Ok(FString { text, utf16 })
    }
}

fn write_fstring(out: &mut Vec<u8>, s: &FString) {
    if s.utf16 {
        let units: Vec<u16> = s.text.encode_utf16().chain([0]).collect();
        out.extend_from_slice(&(-(units.len() as i32)).to_le_bytes());
        for u in units {
            out.extend_from_slice(&u.to_le_bytes());
        }
    } else if s.text.is_empty() {
        out.extend_from_slice(&0i32.to_le_bytes());
    } else {
        out.extend_from_slice(&((s.text.len() + 1) as i32).to_le_bytes());
        out.extend_from_slice(s.text.as_bytes());
        out.push(0);
    }
}

impl DirectoryIndex {
    pub fn parse(bytes: &[u8]) -> Result<DirectoryIndex> {
        let mut r = Reader {
            reader: forge_bytes::Reader::new(bytes),
        };
        let mount_point = r.fstring()?;
        let n = r.count(16)?;
        let mut directories = Vec::with_capacity(n);
        for _ in 0..n {
            directories.push(DirectoryEntry {
                name: r.u32()?,
                first_child: r.u32()?,
                next_sibling: r.u32()?,
                first_file: r.u32()?,
            });
        }
        let n = r.count(12)?;
        let mut files = Vec::with_capacity(n);
        for _ in 0..n {
            files.push(FileEntry {
                name: r.u32()?,
                next_file: r.u32()?,
                user_data: r.u32()?,
            });
        }
        let n = r.count(4)?;
        let mut strings = Vec::with_capacity(n);
        for _ in 0..n {
            strings.push(r.fstring()?);
        }
        if r.reader.remaining() != 0 {
            return Err(IoStoreError::new(
                "utoc_directory",
                "bytes follow the directory index's string table",
            ));
        }
        Ok(DirectoryIndex {
            mount_point,
            directories,
            files,
            strings,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_fstring(&mut out, &self.mount_point);
        out.extend_from_slice(&(self.directories.len() as u32).to_le_bytes());
        for d in &self.directories {
            for v in [d.name, d.first_child, d.next_sibling, d.first_file] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.files.len() as u32).to_le_bytes());
        for f in &self.files {
            for v in [f.name, f.next_file, f.user_data] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.strings.len() as u32).to_le_bytes());
        for s in &self.strings {
            write_fstring(&mut out, s);
        }
        out
    }

    fn name(&self, index: u32) -> Result<&str> {
        self.strings
            .get(index as usize)
            .map(|s| s.text.as_str())
            .ok_or_else(|| {
                IoStoreError::new(
                    "utoc_directory_string",
                    format!(
                        "a name refers to string {index}, past the {} in the table",
                        self.strings.len()
                    ),
                )
            })
    }

    /// Every file as `(full path including the mount point, TOC entry index)`, walking the
    /// tree from entry 0. Cycles and out-of-range references are errors.
    pub fn files(&self) -> Result<Vec<(String, u32)>> {
        let mut out = Vec::new();
        self.walk(|path, entry| out.push((path.to_string(), entry)))?;
        Ok(out)
    }

    /// Hands `visit` every file's full path (including the mount point) and TOC entry
    /// index, walking the tree from entry 0, with the path in one reused buffer: a
    /// container's namespace check visits every file. Each folder is queued at most once,
    /// so a cycle is found and a hostile index is walked in time linear in its entries.
    pub fn walk(&self, mut visit: impl FnMut(&str, u32)) -> Result<()> {
        if self.directories.is_empty() {
            return Ok(());
        }
        let mut queued = vec![false; self.directories.len()];
        let mut seen_files = vec![false; self.files.len()];
        let mut path = String::new();
        queued[0] = true;
        let mut stack = vec![(0u32, self.mount_point.text.clone())];
        while let Some((d, parent)) = stack.pop() {
            let dir = *self.directories.get(d as usize).ok_or_else(|| {
                IoStoreError::new("utoc_directory", format!("directory {d} does not exist"))
            })?;
            let here = if d == 0 || dir.name == NONE {
                parent
            } else {
                format!("{parent}{}/", self.name(dir.name)?)
            };
            let mut f = dir.first_file;
            while f != NONE {
                let file = *self.files.get(f as usize).ok_or_else(|| {
                    IoStoreError::new("utoc_directory", format!("file {f} does not exist"))
                })?;
                if std::mem::replace(&mut seen_files[f as usize], true) {
                    return Err(IoStoreError::new(
                        "utoc_directory_cycle",
                        format!("file {f} is reached twice: the index has a cycle"),
                    ));
                }
                path.clear();
                path.push_str(&here);
                path.push_str(self.name(file.name)?);
                visit(&path, file.user_data);
                f = file.next_file;
            }
            let mut child = dir.first_child;
            while child != NONE {
                let c = *self.directories.get(child as usize).ok_or_else(|| {
                    IoStoreError::new(
                        "utoc_directory",
                        format!("directory {child} does not exist"),
                    )
                })?;
                if std::mem::replace(&mut queued[child as usize], true) {
                    return Err(IoStoreError::new(
                        "utoc_directory_cycle",
                        format!("directory {child} is reached twice: the index has a cycle"),
                    ));
                }
                stack.push((child, here.clone()));
                child = c.next_sibling;
            }
        }
        Ok(())
    }

    /// Builds an index for `files` (paths relative to `mount_point`, `/`-separated, with their
    /// TOC entry indices). Paths are sorted, so the same set gives the same bytes. Linear in
    /// the files: names, children and each folder's last file and child are looked up, not
    /// searched for (a pack of 256 blocks has 256 folders side by side).
    pub fn build(mount_point: &str, files: &[(String, u32)]) -> DirectoryIndex {
        let mut sorted: Vec<&(String, u32)> = files.iter().collect();
        sorted.sort();
        let mut index = DirectoryIndex {
            mount_point: FString {
                text: mount_point.to_string(),
                utf16: false,
            },
            directories: vec![DirectoryEntry {
                name: NONE,
                first_child: NONE,
                next_sibling: NONE,
                first_file: NONE,
            }],
            files: Vec::new(),
            strings: Vec::new(),
        };
        let mut builder = Builder::default();
        // The folders of the path before, with their entries: sorted paths share most of
        // theirs, which are then not looked up again.
        let mut previous: Vec<(&str, u32)> = Vec::new();
        for (path, entry) in sorted {
            let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            let Some((file, dirs)) = parts.split_last() else {
                continue;
            };
            let shared = previous
                .iter()
                .zip(dirs)
                .take_while(|((known, _), name)| known == *name)
                .count();
            previous.truncate(shared);
            let mut d = previous.last().map_or(0, |&(_, d)| d);
            for name in &dirs[shared..] {
                let name_id = builder.string(&mut index.strings, name);
                d = builder.child(&mut index.directories, d, name_id);
                previous.push((name, d));
            }
            let name_id = builder.string(&mut index.strings, file);
            index.files.push(FileEntry {
                name: name_id,
                next_file: NONE,
                user_data: *entry,
            });
            let new = (index.files.len() - 1) as u32;
            match builder.last_file.insert(d, new) {
                None => index.directories[d as usize].first_file = new,
                Some(last) => index.files[last as usize].next_file = new,
            }
        }
        index
    }
}

/// What `DirectoryIndex::build` has made so far, by what it is looked up by.
#[derive(Default)]
struct Builder<'a> {
    strings: std::collections::HashMap<&'a str, u32>,
    children: std::collections::HashMap<(u32, u32), u32>,
    last_child: std::collections::HashMap<u32, u32>,
    last_file: std::collections::HashMap<u32, u32>,
}

impl<'a> Builder<'a> {
    /// The index of string `s`, added at the end if new.
    fn string(&mut self, strings: &mut Vec<FString>, s: &'a str) -> u32 {
        if let Some(&i) = self.strings.get(s) {
            return i;
        }
        strings.push(FString {
            text: s.to_string(),
            utf16: !s.is_ascii(),
        });
        let i = (strings.len() - 1) as u32;
        self.strings.insert(s, i);
        i
    }

    /// The child of folder `parent` named `name`, added as its last child if new.
    fn child(&mut self, directories: &mut Vec<DirectoryEntry>, parent: u32, name: u32) -> u32 {
        if let Some(&child) = self.children.get(&(parent, name)) {
            return child;
        }
        directories.push(DirectoryEntry {
            name,
            first_child: NONE,
            next_sibling: NONE,
            first_file: NONE,
        });
        let child = (directories.len() - 1) as u32;
        match self.last_child.insert(parent, child) {
            None => directories[parent as usize].first_child = child,
            Some(last) => directories[last as usize].next_sibling = child,
        }
        self.children.insert((parent, name), child);
        child
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_many_folders_is_walked_once_each() {
        // A hundred thousand folders side by side: checking each against every folder
        // still queued (as the walk once did) would take billions of comparisons.
        let files: Vec<(String, u32)> = (0..100_000u32)
            .map(|i| (format!("Game/Content/d{i}/f.uasset"), i))
            .collect();
        let index = DirectoryIndex::build("../../../", &files);
        let walked = index.files().unwrap();
        assert_eq!(walked.len(), files.len());
        assert!(walked.contains(&("../../../Game/Content/d99999/f.uasset".to_string(), 99_999)));
    }

    #[test]
    fn a_folder_listed_under_two_parents_is_a_cycle() {
        let files = [("a/x/f".to_string(), 0), ("b/g".to_string(), 1)];
        let mut index = DirectoryIndex::build("/", &files);
        // Folder `b` (the root's second child) also lists `a`'s first child as its own.
        let a = index.directories[0].first_child as usize;
        let b = index.directories[a].next_sibling as usize;
        index.directories[b].first_child = index.directories[a].first_child;
        let err = index.files().unwrap_err();
        assert_eq!(err.code, "utoc_directory_cycle");
    }
}
