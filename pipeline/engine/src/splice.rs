//! Spliced outputs: an output a cooker describes as pieces of its inputs instead of making
//! its bytes. A large output laid out mostly from what other steps made (a container from
//! every block's packed chunks) is then stored as a small recipe: an edit stores the
//! changed pieces once, in the step that made them, and not a whole new copy of the output.
//!
//! A kind declares which of its outputs are spliced and which of its inputs they copy from
//! ([`Splicing`]). Its cooker never sees those inputs' bytes; it returns the recipe
//! ([`Recipe::to_bytes`]) as the output. The recipe names inputs by the names the step
//! knows them by, which the step's key covers, so a recipe and its key always resolve to
//! the same bytes. The engine checks every piece against the inputs' sizes before the
//! output is stored, and assembles the bytes when something reads the output or a folder
//! needs it, reading one source at a time.
//!
//! A recipe names each source by its input name and by the BLAKE3 of the bytes it copies
//! from them, which the engine binds before storing it ([`Recipe::bind`]): the recipe's
//! own hash, the output's identity, then changes whenever a source's bytes do, even when
//! every piece stays where it was (a block edited into chunks of the same sizes).
//!
//! Recipe (`MJSP` v2), little-endian: magic, u32 version, u32 source count, per source its
//! input name (u16 length, UTF-8) and its BLAKE3 (32 bytes, zero while unbound); u32 piece
//! count, per piece a u8 kind: 0 copies (u32 source index, u64 offset, u64 length), 1 is
//! literal bytes (u32 length, the bytes).

use std::io::{Seek, SeekFrom, Write};
use std::sync::Arc;

use forge_bytes::{Reader, Writer};

use crate::leaves::{LeafHasher, Leaves, LEAF};

/// Which outputs of a kind are spliced, and which inputs they may copy from.
pub struct Splicing {
    pub output: fn(&str) -> bool,
    pub source: fn(&str) -> bool,
}

const MAGIC: &[u8; 4] = b"MJSP";
const VERSION: u32 = 2;
const UNBOUND: [u8; 32] = [0; 32];
const COPY: u8 = 0;
const LITERAL: u8 = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Copy {
        source: u32,
        offset: u64,
        length: u64,
    },
    Literal(Vec<u8>),
}

impl Piece {
    fn len(&self) -> u64 {
        match self {
            Piece::Copy { length, .. } => *length,
            Piece::Literal(bytes) => bytes.len() as u64,
        }
    }
}

/// An output as pieces, in order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Recipe {
    sources: Vec<String>,
    /// The BLAKE3 of each source's bytes, as bound; [`UNBOUND`] until then.
    versions: Vec<[u8; 32]>,
    pieces: Vec<Piece>,
    /// Each source's index in `sources`: a set's container copies from every block.
    by_name: std::collections::HashMap<String, u32>,
}

impl Recipe {
    /// Appends `length` bytes of input `source` from `offset`; a copy that continues the
    /// last one extends it.
    pub fn copy(&mut self, source: &str, offset: u64, length: u64) {
        if length == 0 {
            return;
        }
        let index = match self.by_name.get(source) {
            Some(&i) => i,
            None => {
                self.sources.push(source.to_string());
                self.versions.push(UNBOUND);
                let i = self.sources.len() as u32 - 1;
                self.by_name.insert(source.to_string(), i);
                i
            }
        };
        if let Some(Piece::Copy {
            source: last,
            offset: at,
            length: n,
        }) = self.pieces.last_mut()
        {
            if *last == index && *at + *n == offset {
                *n += length;
                return;
            }
        }
        self.pieces.push(Piece::Copy {
            source: index,
            offset,
            length,
        });
    }

    /// Appends bytes of the recipe's own.
    pub fn literal(&mut self, bytes: &[u8]) {
        match self.pieces.last_mut() {
            Some(Piece::Literal(last)) => last.extend_from_slice(bytes),
            _ if bytes.is_empty() => {}
            _ => self.pieces.push(Piece::Literal(bytes.to_vec())),
        }
    }

    /// The inputs it copies from.
    pub fn sources(&self) -> &[String] {
        &self.sources
    }

    /// The BLAKE3 of the bytes each source held when the recipe was bound, in hex; `None`
    /// for one not bound.
    pub fn source_hashes(&self) -> impl Iterator<Item = Option<String>> + '_ {
        self.versions
            .iter()
            .map(|v| (*v != UNBOUND).then(|| blake3::Hash::from_bytes(*v).to_hex().to_string()))
    }

    /// Names the bytes each source holds, by `hash_of` (the source's BLAKE3 in hex), so the
    /// recipe is only ever read back against those bytes.
    pub fn bind(&mut self, hash_of: impl Fn(&str) -> Option<String>) -> Result<(), String> {
        for (name, version) in self.sources.iter().zip(&mut self.versions) {
            let hash = hash_of(name)
                .ok_or_else(|| format!("it copies from {name:?}, which is not a source"))?;
            let hash = blake3::Hash::from_hex(&hash)
                .map_err(|_| format!("{name:?} has no BLAKE3 to bind ({hash:?})"))?;
            *version = *hash.as_bytes();
        }
        Ok(())
    }

    /// How many pieces it has, after merging.
    pub fn piece_count(&self) -> usize {
        self.pieces.len()
    }

    /// The length of the output it makes.
    pub fn len(&self) -> u64 {
        // Saturating: a recipe read from the store is only checked against its sources
        // when it is written from, and one only compared with (a spare's) is not.
        self.pieces
            .iter()
            .fold(0u64, |sum, p| sum.saturating_add(p.len()))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.raw(MAGIC);
        w.u32(VERSION);
        w.u32(self.sources.len() as u32);
        for (s, version) in self.sources.iter().zip(&self.versions) {
            w.string(s);
            w.raw(version);
        }
        w.u32(self.pieces.len() as u32);
        for p in &self.pieces {
            match p {
                Piece::Copy {
                    source,
                    offset,
                    length,
                } => {
                    w.u8(COPY);
                    w.u32(*source);
                    w.raw(&offset.to_le_bytes());
                    w.raw(&length.to_le_bytes());
                }
                Piece::Literal(bytes) => {
                    w.u8(LITERAL);
                    w.u32(bytes.len() as u32);
                    w.raw(bytes);
                }
            }
        }
        w.bytes
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Recipe, String> {
        let e = |e: forge_bytes::ReadError| format!("the splice recipe does not read: {e}");
        let mut r = Reader::new(bytes);
        r.magic(MAGIC, VERSION, "splice recipe").map_err(e)?;
        let count = r.u32().map_err(e)?;
        // The smallest source is an empty name and its hash.
        let count = r.fits(u64::from(count), 2 + 32).map_err(e)?;
        let mut sources = Vec::with_capacity(count);
        let mut versions = Vec::with_capacity(count);
        for _ in 0..count {
            sources.push(r.string().map_err(e)?);
            let version: [u8; 32] = r.take(32).map_err(e)?.try_into().expect("32 bytes taken");
            versions.push(version);
        }
        let count = r.u32().map_err(e)?;
        // The smallest piece is an empty literal: a kind byte and its length.
        let count = r.fits(u64::from(count), 5).map_err(e)?;
        let mut pieces = Vec::with_capacity(count);
        for _ in 0..count {
            pieces.push(read_piece(&mut r, sources.len()).map_err(e)?);
        }
        r.finish().map_err(e)?;
        let by_name = sources
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u32))
            .collect();
        Ok(Recipe {
            sources,
            versions,
            pieces,
            by_name,
        })
    }

    /// The output's length, once every source is checked to be the bytes the recipe was
    /// bound to and every copy to lie inside its source: `source_of` gives each source's
    /// size and BLAKE3 (hex), `None` for a name that is not a source.
    pub fn check(&self, source_of: impl Fn(&str) -> Option<(u64, String)>) -> Result<u64, String> {
        let mut sizes = Vec::with_capacity(self.sources.len());
        for (name, version) in self.sources.iter().zip(&self.versions) {
            let (size, hash) = source_of(name)
                .ok_or_else(|| format!("it copies from {name:?}, which is not a source"))?;
            let bound = (*version != UNBOUND).then(|| blake3::Hash::from_bytes(*version));
            if bound.is_none_or(|b| b.to_hex().as_str() != hash) {
                return Err(format!(
                    "it was not made from the bytes {name:?} holds now (bound to {}, holds {hash})",
                    bound.map_or("nothing".to_string(), |b| b.to_hex().to_string())
                ));
            }
            sizes.push(size);
        }
        for p in &self.pieces {
            if let Piece::Copy {
                source,
                offset,
                length,
            } = p
            {
                let name = &self.sources[*source as usize];
                let size = sizes[*source as usize];
                if offset.checked_add(*length).is_none_or(|end| end > size) {
                    return Err(format!(
                        "it copies {length} bytes at {offset} from {name:?}, which holds {size}"
                    ));
                }
            }
        }
        Ok(self.len())
    }

    /// The output's bytes, each source read once through `bytes_of`.
    pub fn assemble<E>(
        &self,
        mut bytes_of: impl FnMut(&str) -> Result<Arc<Vec<u8>>, E>,
    ) -> Result<Vec<u8>, Spliced<E>> {
        let mut out = std::io::Cursor::new(vec![0; self.len() as usize]);
        self.write(&mut out, &mut bytes_of)?;
        Ok(out.into_inner())
    }

    /// Writes the output to `file` from its start, holding one source at a time. When each
    /// source's copies come in one run, the output is written front to back and its leaves
    /// returned, so that no one need read it back; otherwise (a container interleaves its
    /// blocks' chunks) every literal goes first, then each source's pieces at their places,
    /// and the leaves are `None`.
    pub fn write<W: Write + Seek, E>(
        &self,
        file: &mut W,
        bytes_of: impl FnMut(&str) -> Result<Arc<Vec<u8>>, E>,
    ) -> Result<Option<Leaves>, Spliced<E>> {
        if self.in_source_runs() {
            return self.write_in_order(file, bytes_of).map(Some);
        }
        self.write_by_source(file, bytes_of)?;
        Ok(None)
    }

    /// Whether no source's copies are interrupted by another source's.
    fn in_source_runs(&self) -> bool {
        let mut started = vec![false; self.sources.len()];
        let mut current = None;
        for p in &self.pieces {
            if let Piece::Copy { source, .. } = p {
                let s = *source as usize;
                if current != Some(s) {
                    if std::mem::replace(&mut started[s], true) {
                        return false;
                    }
                    current = Some(s);
                }
            }
        }
        true
    }

    fn write_in_order<W: Write, E>(
        &self,
        file: &mut W,
        mut bytes_of: impl FnMut(&str) -> Result<Arc<Vec<u8>>, E>,
    ) -> Result<Leaves, Spliced<E>> {
        let mut hasher = LeafHasher::default();
        let mut held: Option<(u32, Arc<Vec<u8>>)> = None;
        for p in &self.pieces {
            let piece = match p {
                Piece::Literal(bytes) => bytes.as_slice(),
                Piece::Copy {
                    source,
                    offset,
                    length,
                } => {
                    if held.as_ref().is_none_or(|(s, _)| s != source) {
                        // The source before is let go before the next is read.
                        drop(held.take());
                        let name = &self.sources[*source as usize];
                        held = Some((*source, bytes_of(name).map_err(Spliced::Source)?));
                    }
                    let (_, bytes) = held.as_ref().expect("just read");
                    slice(bytes, *offset, *length)?
                }
            };
            hasher.update(piece);
            file.write_all(piece)?;
        }
        Ok(hasher.finish())
    }

    /// Which leaves of the output may hold other bytes than `before`'s output does at the
    /// same place. A leaf is the same when every piece over it is one of `before`'s at the
    /// same place (the same bytes of a source bound to the same BLAKE3, or the same
    /// literal) and both outputs are as long, or hold the whole leaf. Linear in the pieces
    /// and leaves.
    pub fn changed_leaves(&self, before: &Recipe) -> Vec<bool> {
        let size = self.len();
        let count = Leaves::count(size);
        let bound = |r: &Recipe| r.versions.iter().all(|v| *v != UNBOUND);
        if !bound(self) || !bound(before) {
            return vec![true; count];
        }
        let mut changed = vec![false; count];
        let before_size = before.len();
        if before_size != size {
            let from = (size.min(before_size) / LEAF) as usize;
            changed[from.min(count)..].fill(true);
        }
        let mut old = before.placed().peekable();
        let mut at = 0u64;
        for piece in &self.pieces {
            let length = piece.len();
            while old.next_if(|(start, _)| *start < at).is_some() {}
            let same = old
                .peek()
                .is_some_and(|&(start, p)| start == at && self.same_piece(piece, before, p));
            if !same && length > 0 {
                let (first, last) = ((at / LEAF) as usize, ((at + length - 1) / LEAF) as usize);
                changed[first..=last].fill(true);
            }
            at += length;
        }
        changed
    }

    /// Each piece with where it starts in the output.
    fn placed(&self) -> impl Iterator<Item = (u64, &Piece)> {
        self.pieces.iter().scan(0u64, |at, p| {
            let start = *at;
            *at = at.saturating_add(p.len());
            Some((start, p))
        })
    }

    /// Whether `piece` of this recipe and `other` of `before` make the same bytes.
    fn same_piece(&self, piece: &Piece, before: &Recipe, other: &Piece) -> bool {
        match (piece, other) {
            (Piece::Literal(a), Piece::Literal(b)) => a == b,
            (
                Piece::Copy {
                    source,
                    offset,
                    length,
                },
                Piece::Copy {
                    source: s,
                    offset: o,
                    length: l,
                },
            ) => {
                self.versions[*source as usize] == before.versions[*s as usize]
                    && (offset, length) == (o, l)
            }
            _ => false,
        }
    }

    /// Writes the leaves of the output that `which` marks into `file` at their places, in
    /// one pass over the pieces, reading only the bytes of the pieces over them through
    /// `bytes_at` (a source's name, an offset in it and a length), and returns each one's
    /// index and BLAKE3.
    pub fn write_leaves<E>(
        &self,
        file: &std::fs::File,
        which: &[bool],
        mut bytes_at: impl FnMut(&str, u64, u64) -> Result<Vec<u8>, E>,
    ) -> Result<Vec<(usize, [u8; 32])>, Spliced<E>> {
        let size = self.len();
        let mut written = Vec::new();
        let mut leaf: Vec<u8> = Vec::new();
        for (start, piece) in self.placed() {
            let end = start + piece.len();
            let mut at = start;
            while at < end {
                let i = (at / LEAF) as usize;
                let (leaf_start, leaf_end) = Leaves::span(i, size);
                let until = end.min(leaf_end);
                if which.get(i).copied().unwrap_or(true) {
                    let (from, to) = ((at - start) as usize, (until - start) as usize);
                    match piece {
                        Piece::Literal(bytes) => leaf.extend_from_slice(&bytes[from..to]),
                        Piece::Copy { source, offset, .. } => {
                            let name = &self.sources[*source as usize];
                            let length = until - at;
                            let bytes = bytes_at(name, offset + from as u64, length)
                                .map_err(Spliced::Source)?;
                            if bytes.len() as u64 != length {
                                return Err(Spliced::OutOfRange);
                            }
                            leaf.extend_from_slice(&bytes);
                        }
                    }
                    if until == leaf_end {
                        crate::leaves::write_all_at(file, &leaf, leaf_start)?;
                        written.push((i, *blake3::hash(&leaf).as_bytes()));
                        leaf.clear();
                    }
                }
                at = until;
            }
        }
        Ok(written)
    }

    fn write_by_source<W: Write + Seek, E>(
        &self,
        file: &mut W,
        mut bytes_of: impl FnMut(&str) -> Result<Arc<Vec<u8>>, E>,
    ) -> Result<(), Spliced<E>> {
        let mut by_source = vec![Vec::new(); self.sources.len()];
        let mut at = 0u64;
        for p in &self.pieces {
            match p {
                Piece::Copy {
                    source,
                    offset,
                    length,
                } => {
                    by_source[*source as usize].push((at, *offset, *length));
                    at += length;
                }
                Piece::Literal(bytes) => {
                    file.seek(SeekFrom::Start(at))?;
                    file.write_all(bytes)?;
                    at += bytes.len() as u64;
                }
            }
        }
        for (name, copies) in self.sources.iter().zip(&by_source) {
            let bytes = bytes_of(name).map_err(Spliced::Source)?;
            for &(place, offset, length) in copies {
                file.seek(SeekFrom::Start(place))?;
                file.write_all(slice(&bytes, offset, length)?)?;
            }
        }
        file.seek(SeekFrom::Start(at))?;
        Ok(())
    }
}

/// `length` bytes of `bytes` from `offset`; a damaged cache's source may be shorter.
fn slice<E>(bytes: &[u8], offset: u64, length: u64) -> Result<&[u8], Spliced<E>> {
    usize::try_from(offset)
        .ok()
        .zip(
            offset
                .checked_add(length)
                .and_then(|end| usize::try_from(end).ok()),
        )
        .and_then(|(from, to)| bytes.get(from..to))
        .ok_or(Spliced::OutOfRange)
}

/// Why a spliced output could not be written.
#[derive(Debug)]
pub enum Spliced<E> {
    /// A source could not be read.
    Source(E),
    /// A source is shorter than a piece the recipe copies (it was checked when stored, so
    /// this is a damaged cache).
    OutOfRange,
    Io(std::io::Error),
}

impl<E> From<std::io::Error> for Spliced<E> {
    fn from(e: std::io::Error) -> Self {
        Spliced::Io(e)
    }
}

fn read_piece(r: &mut Reader, sources: usize) -> forge_bytes::Result<Piece> {
    match r.u8()? {
        COPY => {
            let source = r.u32()?;
            let offset = r.u64()?;
            let length = r.u64()?;
            if source as usize >= sources {
                return Err("a piece's source".into());
            }
            Ok(Piece::Copy {
                source,
                offset,
                length,
            })
        }
        LITERAL => {
            let n = r.u32()? as usize;
            Ok(Piece::Literal(r.take(n)?.to_vec()))
        }
        _ => Err("a piece's kind".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> impl Fn(&str) -> Result<Arc<Vec<u8>>, String> {
        |name| match name {
            "a" => Ok(Arc::new(b"0123456789".to_vec())),
            "b" => Ok(Arc::new(b"abcdef".to_vec())),
            other => Err(format!("no {other}")),
        }
    }

    fn recipe() -> Recipe {
        let mut r = Recipe::default();
        r.copy("b", 4, 2);
        r.literal(b"--");
        r.copy("a", 2, 3);
        r.copy("a", 5, 1);
        r.copy("b", 0, 1);
        r.literal(b"!");
        r
    }

    /// The BLAKE3 of each test source's bytes, in hex.
    fn hash_of(name: &str) -> Option<String> {
        let bytes = sources()(name).ok()?;
        Some(blake3::hash(&bytes).to_hex().to_string())
    }

    /// Each test source's size and BLAKE3.
    fn source_of(name: &str) -> Option<(u64, String)> {
        let bytes = sources()(name).ok()?;
        Some((bytes.len() as u64, hash_of(name)?))
    }

    fn bound() -> Recipe {
        let mut r = recipe();
        r.bind(hash_of).unwrap();
        r
    }

    #[test]
    fn a_recipe_reads_back_and_assembles_its_pieces_in_order() {
        let r = bound();
        assert_eq!(Recipe::from_bytes(&r.to_bytes()).unwrap(), r);
        assert_eq!(Recipe::from_bytes(&recipe().to_bytes()).unwrap(), recipe());
        assert_eq!(r.assemble(sources()).unwrap(), b"ef--2345a!");
        assert_eq!(r.len(), 10);
        // The two contiguous copies of `a` are one piece.
        assert_eq!(r.pieces.len(), 5);
    }

    #[test]
    fn a_copy_outside_its_source_or_from_no_source_is_refused() {
        assert_eq!(bound().check(source_of), Ok(10));
        let mut long = Recipe::default();
        long.copy("b", 5, 2);
        long.bind(hash_of).unwrap();
        assert!(long.check(source_of).unwrap_err().contains("holds 6"));
        let mut wrapping = Recipe::default();
        wrapping.copy("b", u64::MAX, 2);
        wrapping.bind(hash_of).unwrap();
        assert!(wrapping.check(source_of).is_err());
        let mut stranger = Recipe::default();
        stranger.copy("c", 0, 1);
        assert!(stranger.bind(hash_of).unwrap_err().contains("not a source"));
        assert!(stranger
            .check(source_of)
            .unwrap_err()
            .contains("not a source"));
    }

    #[test]
    fn a_recipe_is_only_read_against_the_bytes_it_was_bound_to() {
        // Unbound, it fits no sources at all.
        assert!(recipe()
            .check(source_of)
            .unwrap_err()
            .contains("bound to nothing"));
        // A source edited into bytes of the same size: every piece is where it was, but
        // the recipe (so the output's identity) is another, and the old one refuses it.
        let before = bound();
        let edited = |name: &str| match name {
            "a" => Some(blake3::hash(b"9876543210").to_hex().to_string()),
            other => hash_of(other),
        };
        let mut after = recipe();
        after.bind(edited).unwrap();
        assert_ne!(before.to_bytes(), after.to_bytes());
        let now = |name: &str| Some((source_of(name)?.0, edited(name)?));
        assert!(before
            .check(now)
            .unwrap_err()
            .contains("not made from the bytes \"a\""));
        assert_eq!(after.check(now), Ok(10));
        assert!(recipe().bind(|_| Some("not hex".into())).is_err());
    }

    #[test]
    fn a_damaged_recipe_is_an_error_not_a_panic() {
        let bytes = bound().to_bytes();
        for cut in 0..bytes.len() {
            assert!(Recipe::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad_source = bytes.clone();
        // The first piece's source index, after the header and the two sources (each a
        // name and a hash).
        let at = 4 + 4 + 4 + 2 * (3 + 32) + 4 + 1;
        bad_source[at] = 9;
        assert!(Recipe::from_bytes(&bad_source).is_err());
        let mut huge = Recipe::default().to_bytes();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Recipe::from_bytes(&huge).is_err());
    }

    #[test]
    fn a_recipe_in_source_runs_is_written_front_to_back_and_hashed_on_the_way() {
        let mut runs = Recipe::default();
        runs.copy("a", 2, 3);
        runs.literal(b"-");
        runs.copy("a", 0, 1);
        runs.copy("b", 1, 2);
        let mut out = std::io::Cursor::new(Vec::new());
        let leaves = runs.write(&mut out, sources()).unwrap().unwrap();
        assert_eq!(out.get_ref(), b"234-0bc");
        assert_eq!(leaves.get(0), Some(blake3::hash(b"234-0bc").as_bytes()));
        // `b` comes back after `a`: written by source, with no hash on the way.
        let mut out = std::io::Cursor::new(Vec::new());
        assert_eq!(recipe().write(&mut out, sources()).unwrap(), None);
        assert_eq!(out.get_ref(), b"ef--2345a!");
    }

    /// A recipe of a few leaves: `a` (bound to `a_hash`) over two and a half, a literal,
    /// then `b` over the rest.
    fn leafy(a_hash: &str, literal: &[u8]) -> Recipe {
        let mut r = Recipe::default();
        r.copy("a", 0, 2 * LEAF + LEAF / 2);
        r.literal(literal);
        r.copy("b", 0, LEAF);
        let b_hash = blake3::hash(b"b").to_hex().to_string();
        r.bind(|name| {
            Some(if name == "a" {
                a_hash.into()
            } else {
                b_hash.clone()
            })
        })
        .unwrap();
        r
    }

    #[test]
    fn only_the_leaves_under_a_changed_piece_are_changed() {
        let one = blake3::hash(b"one").to_hex().to_string();
        let two = blake3::hash(b"two").to_hex().to_string();
        let before = leafy(&one, b"--");
        assert_eq!(before.changed_leaves(&before), [false; 4]);
        // `a`'s bytes changed: its leaves, and the one it shares with the literal and `b`.
        assert_eq!(
            leafy(&two, b"--").changed_leaves(&before),
            [true, true, true, false]
        );
        // The literal changed: the leaf it is in.
        assert_eq!(
            leafy(&one, b"-+").changed_leaves(&before),
            [false, false, true, false]
        );
        // One byte longer: everything from the leaf where it stops being the same.
        let longer = leafy(&one, b"---");
        assert_eq!(longer.changed_leaves(&before), [false, false, true, true]);
        // An unbound recipe names no bytes: nothing can be kept.
        let mut unbound = Recipe::default();
        unbound.copy("a", 0, LEAF + 1);
        assert_eq!(unbound.changed_leaves(&unbound), [true, true]);
    }

    #[test]
    fn the_leaves_asked_for_are_written_in_place_from_the_bytes_they_copy() {
        let mut r = Recipe::default();
        r.copy("a", 0, LEAF + 10);
        r.literal(b"!");
        r.copy("b", 0, 2 * LEAF);
        let source = |name: &str| -> Vec<u8> {
            let byte = if name == "a" { b'a' } else { b'b' };
            vec![byte; 2 * LEAF as usize]
        };
        let mut asked = Vec::new();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let file = std::fs::File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        file.set_len(r.len()).unwrap();
        let written = r
            .write_leaves(
                &file,
                &[false, true, false, true],
                |name, offset, length| {
                    asked.push((name.to_string(), offset, length));
                    Ok::<_, String>(
                        source(name)[offset as usize..(offset + length) as usize].to_vec(),
                    )
                },
            )
            .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let whole = [
            vec![b'a'; LEAF as usize + 10],
            b"!".to_vec(),
            vec![b'b'; 2 * LEAF as usize],
        ]
        .concat();
        let leaf = |i: usize| &whole[i * LEAF as usize..((i + 1) * LEAF as usize).min(whole.len())];
        assert_eq!(
            written,
            [
                (1, *blake3::hash(leaf(1)).as_bytes()),
                (3, *blake3::hash(leaf(3)).as_bytes())
            ]
        );
        assert!(bytes[LEAF as usize..2 * LEAF as usize] == *leaf(1));
        assert!(bytes[3 * LEAF as usize..] == *leaf(3));
        assert!(
            bytes[..LEAF as usize].iter().all(|&b| b == 0),
            "leaf 0 was not asked for"
        );
        // Only the bytes of those leaves were read.
        let read: u64 = asked.iter().map(|(_, _, n)| n).sum::<u64>() + 1;
        assert_eq!(read, LEAF + 11);
    }

    #[test]
    fn a_source_shorter_than_recorded_fails_the_write() {
        let mut r = Recipe::default();
        r.copy("b", 0, 6);
        let short = |_: &str| Ok::<_, String>(Arc::new(b"abc".to_vec()));
        assert!(matches!(r.assemble(short), Err(Spliced::OutOfRange)));
    }
}
