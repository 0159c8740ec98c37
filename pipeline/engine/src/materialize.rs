//! Makes a set folder (`build/game/<pack>/<set>/`) hold exactly the set's outputs.
//!
//! The folder belongs to the pipeline: files that are not part of the set (a removed or
//! renamed block, debris from a killed write) are deleted, so no one needs to remember to
//! use a fresh output folder. Unchanged files are recognised through the stat cache and
//! left alone.
//!
//! The folder is walked once: each entry's metadata comes from its directory listing (a
//! stat relative to the open directory, not a walk of the whole path), which is most of
//! what a no-op cook spends here.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::atomic;
use crate::execute::{CorruptOutput, Output, WriteError};
use crate::leaves::Leaves;
use crate::spare::{self, spares};
use crate::stat_cache::StatCache;
use crate::store::Store;

#[derive(Debug, Default, Clone, Copy)]
pub struct Changes {
    pub written: usize,
    pub removed: usize,
}

#[derive(Debug)]
pub enum Error {
    Io(std::io::Error),
    Corrupt(CorruptOutput),
    /// The folder, or a folder between it and the build folder, is a symbolic link: the
    /// sweep would delete files wherever it points.
    Symlinked(PathBuf),
}

impl From<WriteError> for Error {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Io(e) => Error::Io(e),
            WriteError::Corrupt(e) => Error::Corrupt(e),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// `files` maps a path relative to `dir` to its output; `out` is the build folder `dir`
/// lies in. Every path stays inside `dir`, and no link is followed.
pub fn set_folder(
    out: &Path,
    dir: &Path,
    files: &BTreeMap<String, Arc<Output>>,
    store: &Store,
    stat_cache: &StatCache,
) -> Result<Changes, Error> {
    refuse_links(out, dir)?;
    let mut changes = Changes::default();
    // What is left in `stale` after the sweep must be written.
    let mut stale = targets(dir, files)?;
    // An edit's new container is written while the rest of the folder is swept: on this
    // disk each is about a third of a catalog-sized edit, and neither waits on the other.
    let early = new_containers(out, &stale, stat_cache);
    let (written, swept) = rayon::join(
        || write_stale(out, &early, store, stat_cache),
        || {
            sweep(
                (out, dir),
                &mut stale,
                &early,
                stat_cache,
                &mut changes,
                None,
            )
        },
    );
    written?;
    swept?;
    stale.retain(|path, _| !early.contains_key(path));
    write_stale(out, &stale, store, stat_cache)?;
    changes.written = early.len() + stale.len();
    Ok(changes)
}

/// The spliced files of `stale` that must be written whatever the folder holds (its
/// spare's ledger vouches that it holds another recipe, or no file was ever written from
/// theirs) and can be while it is swept: each is in place
/// now, so its folder is never left empty and removed, and it is written through its
/// spare, outside the folder, so the sweep meets no half-written file of it.
fn new_containers<'f>(out: &Path, stale: &Targets<'f>, stat_cache: &StatCache) -> Targets<'f> {
    let new: Targets<'f> = stale
        .iter()
        .filter(|(path, output)| {
            let Some(meta) = output
                .is_spliced()
                .then(|| std::fs::symlink_metadata(path).ok())
                .flatten()
                .filter(Metadata::is_file)
            else {
                return false;
            };
            // The ledger is read only for a recipe written before (an edit back to it).
            !stat_cache.knows_recipe(&output.hash)
                || spare::vouched(out, Path::new(path), &meta)
                    .is_some_and(|held| held.recipe != output.hash)
        })
        .map(|(path, output)| (path.clone(), *output))
        .collect();
    // Without a folder for spares they are written as any other file, after the sweep.
    match new.is_empty() || spares(out).is_ok() {
        true => new,
        false => Targets::new(),
    }
}

/// Writes each of `stale`'s outputs to its path and records what it wrote.
fn write_stale(
    out: &Path,
    stale: &Targets<'_>,
    store: &Store,
    stat_cache: &StatCache,
) -> Result<(), Error> {
    crate::execute::prefetch(stale.values().copied(), store);
    let pieces: Vec<&Arc<Output>> = stale.values().flat_map(|o| o.spliced_sources()).collect();
    let vouched = vouch_for_known_blobs(&pieces, store, stat_cache);
    // A cold cook writes thousands of files here; they go to the pool's threads (most sit
    // in different block folders, so they do not queue on one directory).
    stale.par_iter().try_for_each(|(path, output)| {
        let path = Path::new(path);
        if output.is_spliced() {
            // Its hash is the recipe's; the file's own is its leaves' root.
            let leaves = spare::write(out, path, output, store)?;
            stat_cache.record_spliced(path, &leaves.root(), &output.hash);
        } else {
            write(path, output, store)?;
            stat_cache.record(path, &output.hash);
        }
        Ok::<(), Error>(())
    })?;
    remember_sound_blobs(&pieces, &vouched, store, stat_cache);
    Ok(())
}

/// A spliced file copies from blobs most of which the cook before read too (a container
/// from every block's chunks, an edit changing one block): a blob the stat cache knows by
/// its stamp as one found sound is not hashed again (a catalog-sized container's blocks
/// are 28 MB of BLAKE3, about 5 ms). The same trust a source's stamp gets. Returns which
/// were.
fn vouch_for_known_blobs(
    pieces: &[&Arc<Output>],
    store: &Store,
    stat_cache: &StatCache,
) -> Vec<bool> {
    pieces
        .par_iter()
        .map(|o| {
            let known = store
                .blob_file(&o.hash)
                .and_then(|file| stat_cache.lookup(&file))
                .is_some_and(|(hash, size)| hash == o.hash && size == o.size);
            if known {
                o.vouch_for_blob();
            }
            known
        })
        .collect()
}

/// After the spliced files are written, every blob they copied from was read whole and
/// found sound: the stat cache keeps the stamps of those it did not know.
fn remember_sound_blobs(
    pieces: &[&Arc<Output>],
    vouched: &[bool],
    store: &Store,
    stat_cache: &StatCache,
) {
    for (o, _) in pieces.iter().zip(vouched).filter(|(_, &known)| !known) {
        if let Some(file) = store.blob_file(&o.hash) {
            stat_cache.record(&file, &o.hash);
        }
    }
}

/// A new file is written in place; one that exists is replaced atomically, so a reader
/// never sees it half-written. A new file cut short has no recorded stamp, so the next cook
/// reads it, finds it wrong and replaces it. (A spliced output is written by `spare`.)
fn write(path: &Path, output: &Output, store: &Store) -> Result<(), Error> {
    // Not kept: a set folder's files are read once, and keeping them would hold the pack.
    let bytes = output.bytes_unkept(store).map_err(Error::Corrupt)?;
    if !atomic::create(path, &bytes)? {
        atomic::write(path, &bytes)?;
    }
    Ok(())
}

/// Whether a file whose content hash is `content` holds `output`: its bytes' hash, or for a
/// spliced output, the recipe the file was last written from.
fn holds(stat_cache: &StatCache, content: &str, output: &Output) -> bool {
    if output.is_spliced() {
        stat_cache.spliced_recipe(content).as_deref() == Some(output.hash.as_str())
    } else {
        content == output.hash
    }
}

/// Whether the file at `path` already holds `output`. Only a regular file of the output's
/// size can; a stamp the cache does not know (a file written within its racy window, or
/// touched since) is settled by reading the file in pieces (a container is tens of
/// megabytes, and is not held whole), unless no file was ever written from the output's
/// recipe (an edit's new container), which nothing on disk can hold.
fn file_holds(
    (out, stat_cache): (&Path, &StatCache),
    path: &Path,
    meta: &Metadata,
    output: &Output,
) -> bool {
    if !meta.is_file() || meta.len() != output.size {
        return false;
    }
    if let Some(content) = stat_cache.recorded(path, meta) {
        return holds(stat_cache, &content, output);
    }
    // A spliced file its spare's ledger stamped once written is known without reading its
    // tens of megabytes, even within the stat cache's racy window (`spare::write`). The
    // stat cache learns it as a read would have taught it, so what was derived from its
    // content (the recipe it holds) is kept with it.
    if let Some(held) = output
        .is_spliced()
        .then(|| spare::vouched(out, path, meta))
        .flatten()
    {
        stat_cache.record_spliced_stamped(path, meta, &held.root, &held.recipe);
        return held.recipe == output.hash;
    }
    if output.is_spliced() && !stat_cache.knows_recipe(&output.hash) {
        return false;
    }
    // Recorded under the stamp the listing saw, before the read: a file changed while it
    // was read has another stamp by now, so the next cook reads it again.
    let content = match output.is_spliced() {
        true => Leaves::of_path(path, meta.len()).map(|l| l.root()),
        false => hash_file(path, meta.len()),
    };
    content.is_ok_and(|content| {
        stat_cache.record_stamped(path, meta, &content);
        holds(stat_cache, &content, output)
    })
}

/// How much of a file is read and hashed at once.
const HASHED_AT_ONCE: usize = 1 << 20;

/// The BLAKE3 of a set file of `size` bytes, read in pieces rather than whole; a file that
/// is no longer a regular file of that size is an error, not a wait.
fn hash_file(path: &Path, size: u64) -> std::io::Result<String> {
    let (file, found) = mjolnir_files::bounded::open_regular(path, size)
        .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
    let mut hasher = blake3::Hasher::new();
    // In large reads: BLAKE3 hashes the 1 KiB chunks of one call side by side, and splits
    // a large call between the pool's threads when one is free (a catalog-sized
    // container: 4.5 ms on one thread, 3.5 ms on two).
    let mut file = std::io::Read::take(file, size);
    // No larger than the file: the sweep reads back thousands of small ones.
    let mut buffer = vec![0; HASHED_AT_ONCE.min(size as usize + 1)];
    let mut read = 0u64;
    loop {
        let n = std::io::Read::read(&mut file, &mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update_rayon(&buffer[..n]);
        read += n as u64;
    }
    if found != size || read != size {
        return Err(std::io::Error::other(format!(
            "{} changed while it was written",
            path.display()
        )));
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// How a set folder differs from what it should hold: the files a cook would write
/// (missing, or holding other bytes) and those it would remove, sorted. Reads, and
/// changes nothing: `--check` asks it.
pub fn differences(
    out: &Path,
    dir: &Path,
    files: &BTreeMap<String, Arc<Output>>,
    stat_cache: &StatCache,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>), Error> {
    refuse_links(out, dir)?;
    let mut stale = targets(dir, files)?;
    let mut removals = Vec::new();
    sweep(
        (out, dir),
        &mut stale,
        &Targets::new(),
        stat_cache,
        &mut Changes::default(),
        Some(&mut removals),
    )?;
    let mut writes: Vec<PathBuf> = stale.into_keys().map(PathBuf::from).collect();
    writes.sort();
    removals.sort();
    Ok((writes, removals))
}

/// Each set file's path, and what it must hold. Keyed by the path's bytes: hashing a
/// `Path` walks its components, and a catalog-sized sweep looks up thousands.
type Targets<'f> = HashMap<OsString, &'f Arc<Output>>;

/// Each file's path in `dir`, refusing a name that would land outside it.
fn targets<'f>(dir: &Path, files: &'f BTreeMap<String, Arc<Output>>) -> Result<Targets<'f>, Error> {
    if let Some(rel) = files
        .keys()
        .find(|rel| !crate::cooker::is_plain_relative(rel))
    {
        return Err(Error::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{rel:?} would land outside {}", dir.display()),
        )));
    }
    Ok(files
        .iter()
        .map(|(rel, output)| (dir.join(rel).into_os_string(), output))
        .collect())
}

/// Refuses `dir` if it, or a folder between it and `out`, is a symbolic link.
fn refuse_links(out: &Path, dir: &Path) -> Result<(), Error> {
    for folder in dir.ancestors().take_while(|a| *a != out) {
        if std::fs::symlink_metadata(folder).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::Symlinked(folder.to_path_buf()));
        }
    }
    Ok(())
}

/// A folder's entries as the sweep needs them: what each file is to the set, and each
/// subfolder's own listing.
struct Listing {
    dir: PathBuf,
    files: Vec<(PathBuf, Found)>,
    folders: Vec<Listing>,
}

/// What a listed file is to the set.
enum Found {
    /// A set file that already holds its output.
    Holds,
    /// A set file that must be written.
    Stale,
    /// Not a file of the set: it is deleted.
    Stray,
    /// Written meanwhile (an edit's new container, or this process's temporary file):
    /// neither read nor deleted.
    Writing,
}

/// Whether `name` is a temporary file this process is writing.
fn ours(name: &std::ffi::OsStr) -> bool {
    // Asked of every file the sweep lists: only a temporary file's name is looked at further.
    let Some(rest) = name
        .as_encoded_bytes()
        .strip_prefix(atomic::TEMP_PREFIX.as_bytes())
    else {
        return false;
    };
    let pid = std::process::id().to_string();
    rest.strip_prefix(pid.as_bytes())
        .is_some_and(|after| after.first() == Some(&b'-'))
}

/// Lists `dir` and its subfolders, each on the pool, and settles there whether each set
/// file already holds its output: the stats, and the stat cache's lookups, are most of a
/// sweep, and a set's block folders sit side by side. A folder that cannot be read lists
/// as empty.
fn list(
    (out, dir): (&Path, &Path),
    (stale, writing): (&Targets<'_>, &Targets<'_>),
    stat_cache: &StatCache,
) -> std::io::Result<Listing> {
    let mut listing = Listing {
        dir: dir.to_path_buf(),
        files: Vec::new(),
        folders: Vec::new(),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(listing);
    };
    let mut folders = Vec::new();
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            folders.push(path);
        } else {
            let name = path.file_name().unwrap_or_default();
            let found = match stale.get(path.as_os_str()) {
                Some(output) if output.is_spliced() && writing.contains_key(path.as_os_str()) => {
                    Found::Writing
                }
                _ if ours(name) => Found::Writing,
                Some(output)
                    if file_holds((out, stat_cache), &path, &entry.metadata()?, output) =>
                {
                    Found::Holds
                }
                Some(_) => Found::Stale,
                None => Found::Stray,
            };
            listing.files.push((path, found));
        }
    }
    listing.folders = folders
        .par_iter()
        .map(|folder| list((out, folder), (stale, writing), stat_cache))
        .collect::<std::io::Result<_>>()?;
    Ok(listing)
}

/// Deletes everything under `dir` that is not a file of the set (or, given `removals`,
/// lists it there and deletes nothing), and takes out of `stale` the files that already
/// hold their output, leaving those `writing` holds alone; returns whether `dir` is left
/// empty.
fn sweep(
    (out, dir): (&Path, &Path),
    stale: &mut Targets<'_>,
    writing: &Targets<'_>,
    stat_cache: &StatCache,
    changes: &mut Changes,
    removals: Option<&mut Vec<PathBuf>>,
) -> std::io::Result<bool> {
    let listing = list((out, dir), (stale, writing), stat_cache)?;
    sweep_listed(listing, stale, stat_cache, changes, removals)
}

fn sweep_listed(
    listing: Listing,
    stale: &mut Targets<'_>,
    stat_cache: &StatCache,
    changes: &mut Changes,
    mut removals: Option<&mut Vec<PathBuf>>,
) -> std::io::Result<bool> {
    let mut empty = true;
    for folder in listing.folders {
        let path = folder.dir.clone();
        if sweep_listed(folder, stale, stat_cache, changes, removals.as_deref_mut())?
            && removals.is_none()
        {
            std::fs::remove_dir(&path)?;
        } else {
            empty = false;
        }
    }
    for (path, found) in listing.files {
        match found {
            Found::Holds => {
                empty = false;
                stale.remove(path.as_os_str());
            }
            Found::Stale | Found::Writing => empty = false,
            Found::Stray => match removals.as_deref_mut() {
                Some(list) => list.push(path),
                None => {
                    std::fs::remove_file(&path)?;
                    stat_cache.forget(&path);
                    changes.removed += 1;
                }
            },
        }
    }
    Ok(empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_process_s_temporary_files_are_its_own() {
        let mine = format!("{}{}-7", atomic::TEMP_PREFIX, std::process::id());
        assert!(ours(std::ffi::OsStr::new(&mine)));
        let other = format!("{}{}-7", atomic::TEMP_PREFIX, std::process::id() + 1);
        assert!(!ours(std::ffi::OsStr::new(&other)));
        let longer = format!("{}{}1-7", atomic::TEMP_PREFIX, std::process::id());
        assert!(!ours(std::ffi::OsStr::new(&longer)));
        assert!(!ours(std::ffi::OsStr::new("joined.out")));
    }
}
