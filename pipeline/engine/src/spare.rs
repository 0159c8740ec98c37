//! Where a spliced file (a set's container) is written: into its spare, the file it
//! replaced the time before, kept outside the set folder in the build folder's `spare/`.
//! The write reuses the spare's blocks and pages rather than making a new file and freeing
//! the old one, and changes only what it must: the spare's ledger says which recipe the
//! spare was written from and the BLAKE3 of each of its leaves (`leaves`), so only the
//! leaves where the new recipe's pieces differ from that one's are written. The leaves
//! kept are read and checked against the ledger first, since anything may have written the
//! spare since; one that does not match is written too. A catalog-sized container is 28 MB,
//! and an edit of one block changes a few KiB of it.
//!
//! The ledger (`<spare>.ledger`, JSON, docs/formats/splice.md) also says what the
//! set file was written from, which is what the spare holds after the next swap.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::execute::{Output, WriteError};
use crate::leaves::{self, Leaves};
use crate::splice::Recipe;
use crate::stat_cache::{stamp, stamp_of, Stamp};
use crate::store::Store;

/// The ledger's name, after its spare's.
const LEDGER: &str = ".ledger";
const LEDGER_FORMAT: u32 = 1;
/// A ledger is a few lines per MiB of its container; one larger than this is not read.
const LEDGER_LIMIT: u64 = 16 << 20;

/// Writes the spliced `output` to `path` through its spare, or through a temporary file
/// when there is no folder for spares, and returns the file's leaves.
pub(crate) fn write(
    out: &Path,
    path: &Path,
    output: &Output,
    store: &Store,
) -> Result<Leaves, WriteError> {
    let Ok(folder) = spares(out) else {
        let mut written = None;
        let replaced = atomic::write_with(path, |file| {
            keep(&mut written, output.write_to(file, store))
        });
        return finish(replaced, written, path, output);
    };
    let spare = folder.join(spare_name(path));
    let ledger_file = ledger_of(&spare);
    let ledger = Ledger::read(&ledger_file);
    let mut written = None;
    // The stamps to carry over the swap: the new file's once written, and the set file's
    // when it is still as the ledger last stamped it.
    let (mut marked, mut held) = (None, None);
    let replaced = atomic::replace_reusing(path, &spare, output.size, |file, found| {
        // What the spare held matters only when it is the file written into.
        let before = found.and_then(|found| ledger.spare.as_ref()?.prior(found, store));
        let result = match &before {
            Some(before) => write_over(file, output, before, store),
            None => output.write_to(file, store),
        };
        keep(&mut written, result)?;
        marked = mark_written(file);
        held = ledger
            .file
            .as_ref()
            .and_then(|w| w.stamp)
            .filter(|s| stamp_of(path) == Some(*s));
        // The spare is then at the end of what was written, as `replace_reusing` checks.
        std::io::Seek::seek(file, std::io::SeekFrom::Start(output.size)).map(drop)
    });
    let leaves = finish(replaced, written, path, output)?;
    // What the set file held is the spare now. A ledger that cannot be written is no
    // failure: the next write checks every leaf it keeps against the ledger it finds.
    let _ = Ledger {
        format: LEDGER_FORMAT,
        spare: ledger.file.map(|w| w.stamped(restamp(&spare, held))),
        file: Some(Written::of(output, &leaves).stamped(restamp(path, marked))),
    }
    .write(&ledger_file);
    Ok(leaves)
}

/// Sets the file's modification time a nanosecond before its own, and returns its stamp
/// then. A write after this one, even within the same tick of the coarse clock that stamps
/// files, leaves a later time, so that stamp vouches for what was written: the next cook
/// keeps the file's leaves unread while its stamp stays as recorded (`prior`). `None`
/// when the time cannot be set, or off Unix, where a stamp has no ctime to catch a
/// modification time put back.
fn mark_written(file: &File) -> Option<Stamp> {
    if cfg!(not(unix)) {
        return None;
    }
    let modified = file.metadata().and_then(|m| m.modified()).ok()?;
    let before = modified.checked_sub(std::time::Duration::from_nanos(1))?;
    file.set_modified(before).ok()?;
    file.metadata().ok().map(|m| stamp(&m))
}

/// `path`'s stamp now, when it is the file stamped `before` (the same inode, size and
/// modification time) and only renamed or linked since, which changes its ctime alone.
fn restamp(path: &Path, before: Option<Stamp>) -> Option<Stamp> {
    let before = before?;
    stamp_of(path).filter(|now| {
        (now.inode, now.size, now.mtime_ns) == (before.inode, before.size, before.mtime_ns)
    })
}

/// What the spliced file at `path`, found as `meta`, holds by its spare's ledger, when it
/// is exactly as the ledger stamped it once written ([`mark_written`]): known then without
/// reading it. `None` without a ledger, a stamp, or a match.
pub(crate) fn vouched(out: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<Vouched> {
    let spare = out.join(SPARES).join(spare_name(path));
    let file = Ledger::read(&ledger_of(&spare)).file?;
    if file.stamp? != stamp(meta) {
        return None;
    }
    Some(Vouched {
        root: Leaves::from_hex(&file.leaves)?.root(),
        recipe: file.recipe,
    })
}

/// A spliced file's content as its ledger vouches for it.
pub(crate) struct Vouched {
    /// The hash of the recipe it was written from.
    pub recipe: String,
    /// Its leaves' root, the content hash the stat cache keeps for it.
    pub root: String,
}

/// The file's leaves once it is in place: taken while writing, or else read back.
fn finish(
    replaced: std::io::Result<()>,
    written: Option<Result<Option<Leaves>, WriteError>>,
    path: &Path,
    output: &Output,
) -> Result<Leaves, WriteError> {
    // A source's failure is what to report, not the write it stopped.
    let leaves = match (written, replaced) {
        (Some(Err(e)), _) => return Err(e),
        (_, Err(e)) => return Err(WriteError::Io(e)),
        (written, Ok(())) => written.and_then(Result::ok).flatten(),
    };
    match leaves {
        Some(leaves) => Ok(leaves),
        None => Ok(Leaves::of_path(path, output.size)?),
    }
}

/// Keeps a write's outcome in `slot` for [`finish`], and fails the file it went to when
/// it failed, so that file is never put in place.
fn keep(
    slot: &mut Option<Result<Option<Leaves>, WriteError>>,
    result: Result<Option<Leaves>, WriteError>,
) -> std::io::Result<()> {
    let failed = result.is_err();
    *slot = Some(result);
    match failed {
        true => Err(std::io::Error::other("the spliced output was not written")),
        false => Ok(()),
    }
}

/// Writes `output` into `file`, which its ledger says holds `before`'s output: only the
/// leaves where the two recipes differ, and those of the rest that `file` does not hold as
/// the ledger says (read and checked, unless the spare is as last stamped). When that is
/// most of them, the whole output is written.
fn write_over(
    file: &mut File,
    output: &Output,
    before: &Prior,
    store: &Store,
) -> Result<Option<Leaves>, WriteError> {
    let recipe = output.recipe_of(store)?;
    let size = output.size;
    let mut changed = recipe.changed_leaves(&before.recipe);
    if before.leaves.len() != Leaves::count(before.recipe.len()) {
        changed.fill(true);
    }
    let kept = match before.intact {
        true => (0..changed.len())
            .map(|i| before.leaves.get(i).copied().filter(|_| !changed[i]))
            .collect(),
        false => leaves::read(file, size, |i| !changed[i])?,
    };
    for (i, leaf) in kept.iter().enumerate() {
        if leaf.is_some_and(|l| before.leaves.get(i) != Some(&l)) {
            changed[i] = true;
        }
    }
    if changed.iter().filter(|&&c| c).count() * 2 > changed.len() {
        return output.write_to(file, store);
    }
    let written = recipe
        .write_leaves(file, &changed, |name, offset, length| {
            output.source_bytes_at(name, offset, length, store)
        })
        .map_err(crate::execute::spliced_write_error)?;
    let mut all: Vec<[u8; 32]> = (0..changed.len())
        .map(|i| match changed[i] {
            true => [0; 32],
            false => kept[i].expect("read where kept"),
        })
        .collect();
    for (i, leaf) in written {
        all[i] = leaf;
    }
    Ok(Some(Leaves::new(all)))
}

/// What a spare held, as its ledger says.
struct Prior {
    recipe: Recipe,
    leaves: Leaves,
    /// Whether the spare is as it was stamped when it held `leaves`: they are then kept
    /// unread.
    intact: bool,
}

/// What a file was written from: the recipe's hash (a blob in the store) and its leaves,
/// and the file's stamp when the pipeline last left it holding them, if it could vouch for
/// that (see [`mark_written`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Written {
    recipe: String,
    leaves: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stamp: Option<Stamp>,
}

impl Written {
    fn of(output: &Output, leaves: &Leaves) -> Written {
        Written {
            recipe: output.hash.clone(),
            leaves: leaves.to_hex(),
            stamp: None,
        }
    }

    fn stamped(self, stamp: Option<Stamp>) -> Written {
        Written { stamp, ..self }
    }

    /// What the spare, found as `found`, holds by this record, if the store still holds
    /// the recipe.
    fn prior(&self, found: &std::fs::Metadata, store: &Store) -> Option<Prior> {
        let bytes = store.get_blob(&self.recipe).ok()?;
        Some(Prior {
            recipe: Recipe::from_bytes(&bytes).ok()?,
            leaves: Leaves::from_hex(&self.leaves)?,
            intact: self.stamp == Some(stamp(found)),
        })
    }
}

/// What a spare and its set file were last written from.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Ledger {
    format: u32,
    spare: Option<Written>,
    file: Option<Written>,
}

impl Ledger {
    /// The ledger at `path`; an empty one when it is missing, too large, not a regular
    /// file, or does not read.
    fn read(path: &Path) -> Ledger {
        mjolnir_files::bounded::read(path, LEDGER_LIMIT)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Ledger>(&bytes).ok())
            .filter(|l| l.format == LEDGER_FORMAT)
            .unwrap_or_default()
    }

    fn write(&self, path: &Path) -> std::io::Result<()> {
        atomic::write(
            path,
            &serde_json::to_vec(self).expect("a ledger serializes"),
        )
    }
}

/// What a spare's ledger says, and how many of the spare's leaves it holds as the ledger
/// says, for `mjolnir forge inspect`: a summary and its text. `None` when `bytes` are no
/// ledger (a JSON object of exactly `format` 1, `spare` and `file`).
pub fn inspect_ledger(path: &Path, bytes: &[u8]) -> Option<(serde_json::Value, String)> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let mut keys: Vec<&str> = value.as_object()?.keys().map(String::as_str).collect();
    keys.sort_unstable();
    if keys != ["file", "format", "spare"] {
        return None;
    }
    let ledger = serde_json::from_value::<Ledger>(value)
        .ok()
        .filter(|l| l.format == LEDGER_FORMAT)?;
    let spare = path.to_str()?.strip_suffix(LEDGER).map(PathBuf::from)?;
    let record = |written: &Written| {
        let leaves = Leaves::from_hex(&written.leaves).map_or(0, |l| l.len());
        serde_json::json!({"recipe": written.recipe, "leaves": leaves})
    };
    let mut held_spare = ledger.spare.as_ref().map(record);
    if let Some((held, written)) = held_spare.as_mut().zip(ledger.spare.as_ref()) {
        held["held"] = serde_json::json!(spare_holds(&spare, written));
        held["as_stamped"] =
            serde_json::json!(written.stamp.is_some() && stamp_of(&spare) == written.stamp);
    }
    let summary = serde_json::json!({
        "format": ledger.format,
        "spare": held_spare,
        "file": ledger.file.as_ref().map(record),
    });
    let line = |role: &str, r: &serde_json::Value| match r.is_null() {
        true => format!("  {role:<6} nothing recorded\n"),
        false => format!(
            "  {role:<6} recipe {:.12}, {} leaves{}\n",
            r["recipe"].as_str().unwrap_or_default(),
            r["leaves"],
            match (role, &r["held"]) {
                ("spare", serde_json::Value::Null) => "; no spare file holds them".to_string(),
                ("spare", n) => format!(
                    "; the spare holds {n} of them as recorded{}",
                    match r["as_stamped"] == true {
                        true => ", and is as stamped (kept unread)",
                        false => "",
                    }
                ),
                _ => String::new(),
            }
        ),
    };
    let text = format!(
        "the ledger of the spare {}\n{}{}",
        spare.display(),
        line("spare", &summary["spare"]),
        line("file", &summary["file"])
    );
    Some((summary, text))
}

/// How many of the leaves `written` records the regular file at `spare` holds, in place.
fn spare_holds(spare: &Path, written: &Written) -> Option<usize> {
    let recorded = Leaves::from_hex(&written.leaves)?;
    let meta = std::fs::symlink_metadata(spare)
        .ok()
        .filter(|m| m.is_file())?;
    let found = Leaves::of_path(spare, meta.len()).ok()?;
    Some(
        (0..recorded.len())
            .filter(|&i| recorded.get(i) == found.get(i))
            .count(),
    )
}

fn ledger_of(spare: &Path) -> PathBuf {
    let mut name = spare.as_os_str().to_owned();
    name.push(LEDGER);
    PathBuf::from(name)
}

/// Where the file a spliced output replaces is kept, to be written over the next time: in
/// the build folder's `spare/`, outside every set folder, named for the file it stands in
/// for. One spare per spliced file (a set's container): the disk holds each container
/// twice, and an edit writes its new container into the old one's blocks rather than
/// freeing them.
pub(crate) fn spare_name(path: &Path) -> String {
    let name = blake3::hash(path.as_os_str().as_encoded_bytes()).to_hex();
    name.as_str()[..32].to_string()
}

/// The build folder's folder of spares, a folder of its own: a link (or anything else) in
/// its place is removed, never followed, since spares are written into and pruned there.
pub(crate) fn spares(out: &Path) -> std::io::Result<PathBuf> {
    let dir = out.join(SPARES);
    if !own_folder(&dir)? {
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            other => other?,
        }
    }
    Ok(dir)
}

/// Whether `dir` is a folder (not a link to one); anything else at its name is removed.
fn own_folder(dir: &Path) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => std::fs::remove_file(dir).map(|()| false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// The build folder's folder of spares.
pub const SPARES: &str = "spare";

/// Removes every spare in `out` but those of `kept`, the spliced files this cook's
/// folders hold: a set no longer built leaves no container's worth of disk behind.
pub fn prune_spares<'p>(
    out: &Path,
    kept: impl IntoIterator<Item = &'p Path>,
) -> std::io::Result<()> {
    let dir = out.join(SPARES);
    if !own_folder(&dir)? {
        return Ok(());
    }
    let kept: std::collections::HashSet<std::ffi::OsString> = kept
        .into_iter()
        .flat_map(|p| [spare_name(p), format!("{}{LEDGER}", spare_name(p))])
        .map(Into::into)
        .collect();
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let path = entry.path();
        if !kept.contains(&entry.file_name()) {
            // A spare is a file of ours; anything else there is removed the same way,
            // never followed.
            match std::fs::symlink_metadata(&path)?.is_dir() {
                true => std::fs::remove_dir_all(&path)?,
                false => std::fs::remove_file(&path)?,
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspecting_a_ledger_says_how_much_of_it_the_spare_holds() {
        let dir = tempfile::tempdir().unwrap();
        let spare = dir.path().join("0123456789abcdef0123456789abcdef");
        let bytes: Vec<u8> = (0..3 * leaves::LEAF as usize)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&spare, &bytes).unwrap();
        let leaves = Leaves::of_path(&spare, bytes.len() as u64).unwrap();
        let recipe = "ab".repeat(32);
        let ledger = Ledger {
            format: LEDGER_FORMAT,
            spare: Some(Written {
                recipe: recipe.clone(),
                leaves: leaves.to_hex(),
                stamp: None,
            }),
            file: None,
        };
        let path = ledger_of(&spare);
        let text = serde_json::to_vec(&ledger).unwrap();
        let (summary, said) = inspect_ledger(&path, &text).unwrap();
        assert_eq!(summary["spare"]["held"], 3);
        assert_eq!(summary["spare"]["recipe"], recipe.as_str());
        assert!(said.contains("the spare holds 3 of them"), "{said}");
        // A leaf changed behind the ledger's back is counted out.
        let mut damaged = bytes.clone();
        damaged[leaves::LEAF as usize + 5] ^= 1;
        std::fs::write(&spare, &damaged).unwrap();
        assert_eq!(inspect_ledger(&path, &text).unwrap().0["spare"]["held"], 2);
        // Other JSON with a format of 1 is no ledger.
        for other in [
            &br#"{"format":1}"#[..],
            br#"{"format":1,"spare":null,"file":null,"x":1}"#,
            b"[]",
        ] {
            assert!(inspect_ledger(&path, other).is_none());
        }
    }

    #[cfg(unix)]
    #[test]
    fn pruning_keeps_the_spares_asked_for_and_removes_anything_else_without_following_it() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("build");
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep.txt"), b"keep me").unwrap();
        std::fs::create_dir(&out).unwrap();
        let kept = out.join("game/p/all/content/p_P.ucas");
        let folder = spares(&out).unwrap();
        std::fs::write(folder.join(spare_name(&kept)), b"spare").unwrap();
        std::fs::write(folder.join("0123456789abcdef0123456789abcdef"), b"old set").unwrap();
        crate::test_support::make_fifo(&folder.join("fifo"));
        std::os::unix::fs::symlink(&outside, folder.join("link")).unwrap();
        std::fs::create_dir(folder.join("folder")).unwrap();
        std::os::unix::fs::symlink(&outside, folder.join("folder/inner-link")).unwrap();

        prune_spares(&out, [kept.as_path()]).unwrap();
        let left: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from(spare_name(&kept))]);
        assert_eq!(std::fs::read(outside.join("keep.txt")).unwrap(), b"keep me");

        // A link in place of the folder itself is removed, and what it points at kept.
        std::fs::remove_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(&outside, &folder).unwrap();
        prune_spares(&out, [kept.as_path()]).unwrap();
        assert!(!folder.exists());
        assert_eq!(std::fs::read(outside.join("keep.txt")).unwrap(), b"keep me");
        // And a spare is then written into a folder of its own.
        let made = spares(&out).unwrap();
        assert!(std::fs::symlink_metadata(made).unwrap().is_dir());
    }
}
