//! A spliced file's identity: the BLAKE3 of each 64 KiB of it (its leaves), and the BLAKE3
//! of those (its root). A set's container is written into its spare, which held the container
//! before last; knowing that file's leaves, the write changes only the leaves where the two
//! containers differ, and takes the new identity from the leaves it kept and those it wrote.
//! A catalog-sized container is 28 MB, and a block's edit changes a few KiB of it.
//!
//! A leaf is `LEAF` bytes from its index times `LEAF`, the last one shorter. The root is
//! the BLAKE3 of `ROOT_DOMAIN` followed by every leaf's 32 bytes, in order
//! (`docs/formats/splice.md`).

use std::fs::File;

use rayon::prelude::*;

/// The bytes in a leaf.
pub const LEAF: u64 = 1 << 16;
const ROOT_DOMAIN: &[u8] = b"mjolnir leaves 1";

/// Every leaf's BLAKE3, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Leaves(Vec<[u8; 32]>);

impl Leaves {
    pub fn new(leaves: Vec<[u8; 32]>) -> Leaves {
        Leaves(leaves)
    }

    /// How many leaves a file of `size` bytes has.
    pub fn count(size: u64) -> usize {
        size.div_ceil(LEAF) as usize
    }

    /// Where leaf `i` of a file of `size` bytes starts and ends.
    pub fn span(i: usize, size: u64) -> (u64, u64) {
        let start = i as u64 * LEAF;
        (start, (start + LEAF).min(size))
    }

    pub fn get(&self, i: usize) -> Option<&[u8; 32]> {
        self.0.get(i)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The file's identity, as hex.
    pub fn root(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(ROOT_DOMAIN);
        for leaf in &self.0 {
            hasher.update(leaf);
        }
        hasher.finalize().to_hex().to_string()
    }

    pub fn to_hex(&self) -> String {
        self.0
            .iter()
            .map(|l| blake3::Hash::from(*l).to_hex().to_string())
            .collect()
    }

    /// The leaves written by [`to_hex`](Leaves::to_hex); `None` for anything else.
    pub fn from_hex(hex: &str) -> Option<Leaves> {
        if !hex.len().is_multiple_of(64) || !hex.is_ascii() {
            return None;
        }
        (0..hex.len() / 64)
            .map(|i| blake3::Hash::from_hex(&hex[i * 64..(i + 1) * 64]).ok())
            .map(|h| h.map(|h| *h.as_bytes()))
            .collect::<Option<Vec<_>>>()
            .map(Leaves)
    }

    /// The leaves of the regular file at `path`, which must be `size` bytes long.
    pub fn of_path(path: &std::path::Path, size: u64) -> std::io::Result<Leaves> {
        let (file, found) = mjolnir_files::bounded::open_regular(path, size)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        if found != size {
            let changed = format!("{} is not the size it was written at", path.display());
            return Err(std::io::Error::other(changed));
        }
        Leaves::of_file(file.get_ref(), size)
    }

    /// The leaves of `file`, which is `size` bytes long, read and hashed a leaf at a time
    /// on the pool's threads.
    pub fn of_file(file: &File, size: u64) -> std::io::Result<Leaves> {
        let read = read(file, size, |_| true)?;
        Ok(Leaves(read.into_iter().flatten().collect()))
    }
}

/// The BLAKE3 of each leaf of `file` (of `size` bytes) for which `wanted` holds, read and
/// hashed on the pool's threads; `None` for the others. A file shorter than `size` is an
/// error.
pub fn read(
    file: &File,
    size: u64,
    wanted: impl Fn(usize) -> bool + Sync,
) -> std::io::Result<Vec<Option<[u8; 32]>>> {
    (0..Leaves::count(size))
        .into_par_iter()
        .map_init(
            || vec![0u8; LEAF as usize],
            |buffer, i| {
                if !wanted(i) {
                    return Ok(None);
                }
                let (start, end) = Leaves::span(i, size);
                let bytes = &mut buffer[..(end - start) as usize];
                read_exact_at(file, bytes, start)?;
                Ok(Some(*blake3::hash(bytes).as_bytes()))
            },
        )
        .collect()
}

/// Reads `bytes.len()` bytes at `at` in `file`, leaving its position alone.
#[cfg(unix)]
pub fn read_exact_at(file: &File, bytes: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, bytes, at)
}

#[cfg(windows)]
pub fn read_exact_at(file: &File, mut bytes: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, bytes, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                bytes = &mut bytes[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

/// Writes `bytes` at `at` in `file`, leaving its position alone.
#[cfg(unix)]
pub fn write_all_at(file: &File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, at)
}

#[cfg(windows)]
pub fn write_all_at(file: &File, mut bytes: &[u8], mut at: u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_write(file, bytes, at)?;
        bytes = &bytes[n..];
        at += n as u64;
    }
    Ok(())
}

/// The leaves of bytes that come front to back.
#[derive(Default)]
pub struct LeafHasher {
    hasher: blake3::Hasher,
    filled: u64,
    leaves: Vec<[u8; 32]>,
}

impl LeafHasher {
    pub fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let room = (LEAF - self.filled) as usize;
            let (now, rest) = bytes.split_at(room.min(bytes.len()));
            self.hasher.update(now);
            self.filled += now.len() as u64;
            if self.filled == LEAF {
                self.end_leaf();
            }
            bytes = rest;
        }
    }

    fn end_leaf(&mut self) {
        self.leaves.push(*self.hasher.finalize().as_bytes());
        self.hasher.reset();
        self.filled = 0;
    }

    pub fn finish(mut self) -> Leaves {
        if self.filled > 0 {
            self.end_leaf();
        }
        Leaves(self.leaves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn leaves_taken_on_the_way_and_read_back_agree_whatever_the_pieces() {
        let data = bytes(2 * LEAF as usize + 12_345);
        let mut hasher = LeafHasher::default();
        for piece in data.chunks(300_001) {
            hasher.update(piece);
        }
        let streamed = hasher.finish();
        assert_eq!(streamed.len(), 3);
        let last = &data[2 * LEAF as usize..];
        assert_eq!(streamed.get(2), Some(blake3::hash(last).as_bytes()));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let read = Leaves::of_file(&file, data.len() as u64).unwrap();
        assert_eq!(read, streamed);
        assert_eq!(Leaves::from_hex(&read.to_hex()), Some(read.clone()));
        // The root covers every leaf and their order.
        let mut swapped = read.0.clone();
        swapped.swap(0, 1);
        assert_ne!(Leaves(swapped).root(), read.root());
        // A file shorter than it is said to be is an error.
        assert!(Leaves::of_file(&file, data.len() as u64 + 1).is_err());
    }

    #[test]
    fn damaged_hex_is_no_leaves() {
        assert_eq!(Leaves::from_hex("abc"), None);
        assert_eq!(Leaves::from_hex(&"z".repeat(64)), None);
        assert_eq!(Leaves::from_hex(&"é".repeat(32)), None);
        assert_eq!(Leaves::from_hex(""), Some(Leaves::default()));
    }
}
