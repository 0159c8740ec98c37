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
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Copy { length, .. } => *length,
                Piece::Literal(bytes) => bytes.len() as u64,
            })
            .sum()
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
    /// source's copies come in one run (as a container's blocks do), the output is written
    /// front to back and its BLAKE3 returned, so that no one need read it back; otherwise
    /// every literal goes first, then each source's pieces at their places, and the hash is
    /// `None`.
    pub fn write<W: Write + Seek, E>(
        &self,
        file: &mut W,
        bytes_of: impl FnMut(&str) -> Result<Arc<Vec<u8>>, E>,
    ) -> Result<Option<blake3::Hash>, Spliced<E>> {
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
    ) -> Result<blake3::Hash, Spliced<E>> {
        let mut hasher = blake3::Hasher::new();
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
        Ok(hasher.finalize())
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
        let hash = runs.write(&mut out, sources()).unwrap();
        assert_eq!(out.get_ref(), b"234-0bc");
        assert_eq!(hash, Some(blake3::hash(b"234-0bc")));
        // `b` comes back after `a`: written by source, with no hash on the way.
        let mut out = std::io::Cursor::new(Vec::new());
        assert_eq!(recipe().write(&mut out, sources()).unwrap(), None);
        assert_eq!(out.get_ref(), b"ef--2345a!");
    }

    #[test]
    fn a_source_shorter_than_recorded_fails_the_write() {
        let mut r = Recipe::default();
        r.copy("b", 0, 6);
        let short = |_: &str| Ok::<_, String>(Arc::new(b"abc".to_vec()));
        assert!(matches!(r.assemble(short), Err(Spliced::OutOfRange)));
    }
}
