//! What a device or file holds: the signatures blkid reports, merged with drivelab's own
//! built-in scan ([`builtin`]: filesystems, RAID, LVM, LUKS, swap, ZFS, partition tables at the
//! start, where partitions start and at the ends), so a missing or old blkid still finds them,
//! and what blkid never looks at (it probes the start only) is found too.
//! Both look through the descriptor drivelab will write through, never through the path.

mod builtin;

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Stdio};

pub(super) use builtin::Regions;
#[cfg(test)]
pub(super) use builtin::{
    fixed_starts, offset_words, scan, scan_signatures, GRID_WINDOW, HEAD_BYTES, MAX_PARTITIONS, TAIL_BYTES, WINDOW,
};

/// Something found on a device. `family` deduplicates blkid's and our own findings; a `weak`
/// finding (a bare MBR signature) is dropped when anything else was found.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Signature {
    pub(super) family: String,
    pub(super) what: String,
    pub(super) weak: bool,
}

pub(super) fn sig(family: &str, what: impl Into<String>) -> Signature {
    Signature { family: family.to_string(), what: what.into(), weak: false }
}

pub(super) fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'x') => "an",
        _ => "a",
    }
}

/// Every signature found through `file` (a target of `size` bytes, named `subject` in sentences):
/// the built-in scan of its start, where partitions start and its ends, merged with blkid's look at
/// the same open file (`/proc/<pid>/fd/<n>`, so the path is never resolved again). A target that
/// cannot be read is a concern itself: nothing is written that could not be examined.
pub(super) fn signature_concerns(file: &File, size: u64, subject: &str) -> Vec<String> {
    let mut out = Vec::new();
    let builtin = match read_regions(file, size) {
        Ok(r) => builtin::scan(&r),
        Err(e) => {
            out.push(format!(
                "cannot read {subject} to look for signatures ({e}), so it cannot be known to hold no data"
            ));
            Vec::new()
        }
    };
    let sigs = merge(blkid_signatures(&fd_path(file)), builtin);
    out.extend(sigs.iter().map(|s| format!("{subject} holds {}", s.what)));
    out
}

/// The path through which another program opens the very file `file` is (not whatever its
/// name points at now).
pub(super) fn fd_path(file: &File) -> String {
    format!("/proc/{}/fd/{}", std::process::id(), file.as_raw_fd())
}

/// The regions the built-in scan looks at, read through `file` (what and how much:
/// [`Regions::gather`]).
pub(super) fn read_regions(file: &File, size: u64) -> io::Result<Regions> {
    Regions::gather(size, |off, len| read_at(file, off, len))
}

/// `len` bytes at `off` (fewer only at the end of the file).
fn read_at(file: &File, off: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len as usize];
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], off + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

/// blkid's findings first, then ours that blkid did not already report.
pub(super) fn merge(blkid: Vec<Signature>, builtin: Vec<Signature>) -> Vec<Signature> {
    let mut out = blkid;
    for s in builtin {
        let known = out.iter().any(|o| o.family == s.family);
        let drowned = s.weak && !out.is_empty();
        if !known && !drowned {
            out.push(s);
        }
    }
    out
}

/// `blkid -p -o export`: exit 0 found something, 2 nothing, 8 more than one signature. Empty
/// when blkid is missing or fails otherwise (the built-in scan still runs).
pub(super) fn blkid_signatures(path: &str) -> Vec<Signature> {
    let Some(program) = blkid_program() else { return Vec::new() };
    let run =
        Command::new(program).args(["-p", "-o", "export", path]).stdin(Stdio::null()).stderr(Stdio::null()).output();
    let Ok(out) = run else { return Vec::new() };
    match out.status.code() {
        Some(0) => parse_blkid_export(&String::from_utf8_lossy(&out.stdout)),
        Some(8) => vec![sig("ambivalent", "more than one signature (blkid: ambivalent result; see wipefs)")],
        _ => Vec::new(),
    }
}

/// blkid lives in /sbin, which a user's PATH may lack. (The tests prove the built-in scan alone
/// by hiding blkid in a mount namespace of their own, not through a switch here.)
pub(super) fn blkid_program() -> Option<String> {
    let found =
        ["/usr/sbin/blkid", "/sbin/blkid", "/usr/bin/blkid", "/bin/blkid"].into_iter().find(|p| Path::new(p).exists());
    Some(found.unwrap_or("blkid").to_string())
}

pub(super) fn parse_blkid_export(text: &str) -> Vec<Signature> {
    let get =
        |key: &str| text.lines().find_map(|l| l.split_once('=').filter(|(k, _)| *k == key).map(|(_, v)| v.trim()));
    let mut out = Vec::new();
    if let Some(ty) = get("TYPE").filter(|t| !t.is_empty()) {
        out.push(blkid_type(ty, get("USAGE").unwrap_or("")));
    }
    if let Some(pt) = get("PTTYPE").filter(|t| !t.is_empty()) {
        out.push(sig("pt", format!("a partition table ({pt})")));
    }
    out
}

/// The family a blkid TYPE belongs to, matching [`scan_signatures`]'s names.
pub(super) fn family_of(ty: &str) -> String {
    match ty {
        "ext2" | "ext3" | "ext4" | "ext4dev" | "jbd" => "ext".to_string(),
        _ => ty.to_ascii_lowercase(),
    }
}

pub(super) fn blkid_type(ty: &str, usage: &str) -> Signature {
    let a = article(ty);
    let what = match (usage, ty) {
        (_, "LVM2_member") => lvm_what(),
        (_, "swap") => "a swap signature".to_string(),
        ("filesystem", _) => format!("{a} {ty} filesystem"),
        ("raid", _) => format!("{a} {ty} RAID signature"),
        ("crypto", _) => format!("{a} {ty} encrypted volume"),
        _ => format!("{a} {ty} signature"),
    };
    sig(&family_of(ty), what)
}

pub(super) fn lvm_what() -> String {
    "an LVM2_member signature (an LVM physical volume)".to_string()
}

#[cfg(test)]
mod read_tests {
    use super::*;

    /// A target whose bytes cannot be read has not been examined, and that is a concern of
    /// its own: nothing is written that could not be looked at (here a directory, which no
    /// read succeeds on; on a drive, a read error at its start or end).
    #[test]
    fn a_target_that_cannot_be_read_is_a_concern_not_a_clean_bill() {
        let dir = File::open(std::env::temp_dir()).unwrap();
        let concerns = signature_concerns(&dir, 1 << 20, "the target");
        assert!(
            concerns
                .iter()
                .any(|c| c.contains("cannot read the target") && c.contains("cannot be known to hold no data")),
            "{concerns:?}"
        );
    }

    /// blkid is asked about the open file through /proc, not through a path that could change.
    #[test]
    fn blkid_looks_at_the_open_file_through_proc() {
        let f = File::open("/proc/self/status").unwrap();
        let p = fd_path(&f);
        assert!(p.starts_with(&format!("/proc/{}/fd/", std::process::id())), "{p}");
        assert!(std::fs::metadata(&p).is_ok(), "{p} names the open file");
    }
}
