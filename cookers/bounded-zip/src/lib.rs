//! The one reader of ZIPs that other people write: release archives (the packer, the
//! Hub's scan, the launcher), asset job inputs and deliveries. [`read`] refuses an archive
//! at its first fault; [`walk`] hands each member to a caller that reports every fault,
//! as the Hub's scan does.
//!
//! Nothing the archive declares is trusted: the member count is bounded before anything
//! is inflated, each member is read to at most its limit whatever its header says, all
//! members together to at most the total, and [`read`] refuses the whole archive for a
//! name that would leave its folder, a link, or a name given twice (as the central
//! directory lists them, also equal but for case). A member past a limit is an error,
//! never cut short.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

/// How much an archive may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub members: usize,
    pub member_bytes: u64,
    pub total_bytes: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ZipError {
    #[error("not a readable zip archive: {0}")]
    NotZip(String),
    #[error("the archive lists {0} members; at most {1} are read")]
    TooManyMembers(usize, usize),
    #[error("{name} inflates to more than {limit} bytes, the most one member may be")]
    MemberTooLarge { name: String, limit: u64 },
    #[error("the archive inflates to more than {0} bytes in all")]
    TotalTooLarge(u64),
    #[error("{0} is in the archive twice (names equal but for case count as one)")]
    Duplicate(String),
    #[error("{name:?} cannot be a member's name: {why}")]
    BadName { name: String, why: &'static str },
    #[error("{0} is a link; an archive holds files only")]
    Link(String),
    #[error("{name} cannot be read: {why}")]
    Unreadable { name: String, why: String },
}

impl ZipError {
    /// The stable code each is reported with.
    pub fn code(&self) -> &'static str {
        match self {
            ZipError::NotZip(_) => "bad_zip",
            ZipError::TooManyMembers(..) => "zip_too_many_members",
            ZipError::MemberTooLarge { .. } => "zip_member_too_large",
            ZipError::TotalTooLarge(_) => "zip_too_large",
            ZipError::Duplicate(_) => "duplicate_member",
            ZipError::BadName { .. } => "bad_member_name",
            ZipError::Link(_) => "symlink_member",
            ZipError::Unreadable { .. } => "bad_zip",
        }
    }
}

/// Why a member's name would not stay inside the folder it is unpacked into.
pub fn unsafe_name(name: &str) -> Option<&'static str> {
    plain_path::why_not(name)
}

/// Every name the central directory lists, duplicates included (the zip reader keeps one
/// entry per name, so they are found here); `None` when it cannot be walked.
pub fn central_directory_names(bytes: &[u8]) -> Option<Vec<String>> {
    const END: [u8; 4] = 0x0605_4b50u32.to_le_bytes();
    const ENTRY: [u8; 4] = 0x0201_4b50u32.to_le_bytes();
    let end = bytes.len().checked_sub(22)?;
    let start = end.saturating_sub(u16::MAX as usize);
    let eocd = (start..=end).rev().find(|&i| bytes[i..i + 4] == END)?;
    let mut r = forge_bytes::Reader::new(&bytes[eocd + 10..]);
    let count = r.u16().ok()?;
    let _size = r.u32().ok()?;
    let offset = r.u32().ok()? as usize;
    let mut r = forge_bytes::Reader::new(bytes.get(offset..)?);
    let mut names = Vec::new();
    for _ in 0..count {
        if r.take(4).ok()? != ENTRY {
            return None;
        }
        r.take(24).ok()?;
        let (name_len, extra_len, comment_len) = (r.u16().ok()?, r.u16().ok()?, r.u16().ok()?);
        r.take(12).ok()?;
        let name = r.take(name_len.into()).ok()?;
        names.push(String::from_utf8_lossy(name).into_owned());
        r.take(usize::from(extra_len) + usize::from(comment_len))
            .ok()?;
    }
    Some(names)
}

/// The first name listed twice, exactly or but for case.
pub fn duplicate(names: &[String]) -> Option<String> {
    let mut seen = std::collections::BTreeSet::new();
    names
        .iter()
        .map(|n| n.trim_end_matches('/'))
        .find(|n| !seen.insert(n.to_lowercase()))
        .map(str::to_string)
}

/// One member of an archive, named and typed before any of its bytes are read.
pub struct Member<'a> {
    pub index: usize,
    pub name: String,
    pub is_link: bool,
    pub is_dir: bool,
    /// What its header declares: never trusted, only compared with a budget.
    pub declared_size: u64,
    bytes: &'a mut dyn Read,
}

impl Member<'_> {
    /// Its bytes, read to one past `limit` whatever its header says: `Ok(None)` when it
    /// holds more than `limit`, so a member past a limit is seen, never cut short.
    pub fn read_within(&mut self, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
        let mut data = Vec::with_capacity(self.declared_size.min(limit) as usize);
        (&mut self.bytes).take(limit + 1).read_to_end(&mut data)?;
        Ok((data.len() as u64 <= limit).then_some(data))
    }
}

/// Whether a walk goes on to the next member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    Next,
    Stop,
}

/// Walks the members in the archive's order, after checking that it lists at most
/// `max_members` (counted in the central directory itself, duplicates included). `visit`
/// decides what to do with each; a member the reader cannot open comes as an error.
/// Every reader of other people's ZIPs goes through here: [`read`] for those that refuse
/// an archive at its first fault, and the Hub's scan, which reports each member's.
pub fn walk(
    bytes: &[u8],
    max_members: usize,
    visit: impl FnMut(Result<Member, ZipError>) -> Walk,
) -> Result<(), ZipError> {
    let (zip, _) = open(bytes, max_members)?;
    walk_opened(zip, visit);
    Ok(())
}

type Archive<'b> = zip::ZipArchive<Cursor<&'b [u8]>>;

/// The archive, opened, with every name its central directory lists, once its member
/// count is within `max_members`.
fn open(bytes: &[u8], max_members: usize) -> Result<(Archive<'_>, Vec<String>), ZipError> {
    let zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| ZipError::NotZip(e.to_string()))?;
    // The zip reader opened it, so its central directory can be walked.
    let names = central_directory_names(bytes).unwrap_or_default();
    let count = names.len().max(zip.len());
    if count > max_members {
        return Err(ZipError::TooManyMembers(count, max_members));
    }
    Ok((zip, names))
}

fn walk_opened(mut zip: Archive, mut visit: impl FnMut(Result<Member, ZipError>) -> Walk) {
    for index in 0..zip.len() {
        let unreadable = |e: zip::result::ZipError| ZipError::Unreadable {
            name: format!("member {index}"),
            why: e.to_string(),
        };
        let mut entry = match zip.by_index(index) {
            Ok(entry) => entry,
            Err(e) => match visit(Err(unreadable(e))) {
                Walk::Next => continue,
                Walk::Stop => break,
            },
        };
        let name = match entry.name() {
            Ok(name) => name.into_owned(),
            Err(e) => match visit(Err(unreadable(e))) {
                Walk::Next => continue,
                Walk::Stop => break,
            },
        };
        let is_link = entry
            .unix_mode()
            .is_some_and(|mode| mode & 0o170000 == 0o120000);
        let (is_dir, declared_size) = (entry.is_dir(), entry.size());
        let member = Member {
            index,
            name,
            is_link,
            is_dir,
            declared_size,
            bytes: &mut entry,
        };
        if visit(Ok(member)) == Walk::Stop {
            break;
        }
    }
}

/// The files of the archive whose names `keep` accepts, by name, within `limits`. Folders
/// are skipped; every listed name is checked, kept or not. The first fault refuses the
/// whole archive.
pub fn read(
    bytes: &[u8],
    limits: Limits,
    keep: impl Fn(&str) -> bool,
) -> Result<BTreeMap<String, Vec<u8>>, ZipError> {
    let (zip, names) = open(bytes, limits.members)?;
    if let Some(name) = duplicate(&names) {
        return Err(ZipError::Duplicate(name));
    }
    let mut out = BTreeMap::new();
    let mut left = limits.total_bytes;
    let mut fault = None;
    walk_opened(zip, |member| {
        match take(member, limits, &mut left, &keep) {
            Ok(Some((name, data))) => {
                out.insert(name, data);
            }
            Ok(None) => {}
            Err(e) => {
                fault = Some(e);
                return Walk::Stop;
            }
        }
        Walk::Next
    });
    match fault {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// One member for [`read`]: its name and bytes, `None` for a folder or one not kept.
fn take(
    member: Result<Member, ZipError>,
    limits: Limits,
    left: &mut u64,
    keep: &impl Fn(&str) -> bool,
) -> Result<Option<(String, Vec<u8>)>, ZipError> {
    let mut member = member?;
    let name = member.name.clone();
    if let Some(why) = unsafe_name(name.trim_end_matches('/')) {
        return Err(ZipError::BadName { name, why });
    }
    if member.is_link {
        return Err(ZipError::Link(name));
    }
    if member.is_dir || !keep(&name) {
        return Ok(None);
    }
    let data = member
        .read_within(limits.member_bytes.min(*left))
        .map_err(|e| ZipError::Unreadable {
            name: name.clone(),
            why: e.to_string(),
        })?;
    let Some(data) = data else {
        // Past the smaller of the two limits: say which one it broke.
        return Err(if *left >= limits.member_bytes {
            ZipError::MemberTooLarge {
                name,
                limit: limits.member_bytes,
            }
        } else {
            ZipError::TotalTooLarge(limits.total_bytes)
        });
    };
    *left -= data.len() as u64;
    Ok(Some((name, data)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in members {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(bytes).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    const ROOMY: Limits = Limits {
        members: 10,
        member_bytes: 100,
        total_bytes: 150,
    };

    #[test]
    fn what_fits_is_read_whole() {
        let bytes = zip_of(&[("a.txt", b"hello".to_vec()), ("dir/b.bin", vec![1; 100])]);
        let files = read(&bytes, ROOMY, |_| true).unwrap();
        assert_eq!(files["a.txt"], b"hello");
        assert_eq!(files["dir/b.bin"].len(), 100);
        let only = read(&bytes, ROOMY, |n| n == "a.txt").unwrap();
        assert_eq!(only.len(), 1);
    }

    #[test]
    fn every_limit_refuses_rather_than_cuts() {
        let one_over = zip_of(&[("big", vec![0; 101])]);
        assert_eq!(
            read(&one_over, ROOMY, |_| true).unwrap_err().code(),
            "zip_member_too_large"
        );
        let total = zip_of(&[("a", vec![0; 100]), ("b", vec![0; 51])]);
        assert_eq!(
            read(&total, ROOMY, |_| true).unwrap_err(),
            ZipError::TotalTooLarge(150)
        );
        let many: Vec<(String, Vec<u8>)> = (0..11).map(|i| (format!("f{i}"), Vec::new())).collect();
        let many: Vec<(&str, Vec<u8>)> =
            many.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        assert_eq!(
            read(&zip_of(&many), ROOMY, |_| true).unwrap_err().code(),
            "zip_too_many_members"
        );
        // A bomb: a megabyte of zeros deflates to a kilobyte, and is stopped at the limit.
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file("bomb", deflated).unwrap();
        w.write_all(&vec![0; 1 << 20]).unwrap();
        let bomb = w.finish().unwrap().into_inner();
        assert!(bomb.len() < 8 << 10);
        assert_eq!(
            read(&bomb, ROOMY, |_| true).unwrap_err().code(),
            "zip_member_too_large"
        );
    }

    #[test]
    fn names_stay_inside_and_are_given_once() {
        for bad in ["../x", "/etc/passwd", "a\\b", "C:/x", "a/../../b", "a\nb"] {
            let bytes = zip_of(&[(bad, b"x".to_vec())]);
            assert_eq!(
                read(&bytes, ROOMY, |_| true).unwrap_err().code(),
                "bad_member_name",
                "{bad:?}"
            );
        }
        let twice = zip_of(&[("Readme.md", b"1".to_vec()), ("README.md", b"2".to_vec())]);
        assert_eq!(
            read(&twice, ROOMY, |_| true).unwrap_err(),
            ZipError::Duplicate("README.md".into())
        );
        assert_eq!(
            read(b"not a zip", ROOMY, |_| true).unwrap_err().code(),
            "bad_zip"
        );
    }
}
