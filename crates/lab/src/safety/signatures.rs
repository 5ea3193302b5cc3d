//! What a device holds: the signatures blkid reports, merged with drivelab's own built-in scan
//! of the first bytes (filesystems, RAID, LVM, LUKS, swap, partition tables), so a missing or
//! old blkid still finds the common ones.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};

/// Bytes read from the start of a device: enough for btrfs's superblock at 64 KiB.
pub(super) const HEAD_BYTES: u64 = 68 * 1024;

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

pub(super) fn signature_concerns(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let builtin = match read_head(path) {
        Ok(buf) => scan_signatures(&buf),
        Err(e) => {
            out.push(format!("cannot read {path} to look for signatures: {e}"));
            Vec::new()
        }
    };
    let sigs = merge(blkid_signatures(path), builtin);
    out.extend(sigs.iter().map(|s| format!("{path} holds {}", s.what)));
    out
}

/// The first [`HEAD_BYTES`] of a device (fewer if it is smaller), opened read-only.
pub(super) fn read_head(path: &str) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(HEAD_BYTES as usize);
    File::open(path)?.take(HEAD_BYTES).read_to_end(&mut buf)?;
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
    let run = Command::new(blkid_program())
        .args(["-p", "-o", "export", path])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(out) = run else { return Vec::new() };
    match out.status.code() {
        Some(0) => parse_blkid_export(&String::from_utf8_lossy(&out.stdout)),
        Some(8) => vec![sig("ambivalent", "more than one signature (blkid: ambivalent result; see wipefs)")],
        _ => Vec::new(),
    }
}

/// blkid lives in /sbin, which a user's PATH may lack.
pub(super) fn blkid_program() -> &'static str {
    ["/usr/sbin/blkid", "/sbin/blkid", "/usr/bin/blkid", "/bin/blkid"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("blkid")
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

pub(super) fn bytes_at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    buf.get(off..off + magic.len()) == Some(magic)
}

pub(super) fn u32_le(buf: &[u8], off: usize) -> u32 {
    buf.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Our own look at the first bytes of a device, independent of blkid.
pub(super) fn scan_signatures(buf: &[u8]) -> Vec<Signature> {
    const MD_MAGIC: [u8; 4] = 0xa92b_4efc_u32.to_le_bytes();
    let mut out = Vec::new();
    if bytes_at(buf, 1080, &[0x53, 0xEF]) {
        out.push(sig("ext", format!("an {} filesystem", ext_version(buf))));
    }
    if bytes_at(buf, 0, b"XFSB") {
        out.push(sig("xfs", "an xfs filesystem"));
    }
    if bytes_at(buf, 65600, b"_BHRfS_M") {
        out.push(sig("btrfs", "a btrfs filesystem"));
    }
    if (0..4).any(|s| bytes_at(buf, s * 512, b"LABELONE")) {
        out.push(sig("lvm2_member", lvm_what()));
    }
    if bytes_at(buf, 4096, &MD_MAGIC) || bytes_at(buf, 0, &MD_MAGIC) {
        out.push(sig("linux_raid_member", "a linux_raid_member RAID signature"));
    }
    if [4086, 65526].iter().any(|&o| bytes_at(buf, o, b"SWAPSPACE2") || bytes_at(buf, o, b"SWAP-SPACE")) {
        out.push(sig("swap", "a swap signature"));
    }
    if bytes_at(buf, 0, b"LUKS\xba\xbe") {
        out.push(sig("crypto_luks", "a crypto_LUKS encrypted volume"));
    }
    out.extend(partition_table(buf));
    out
}

/// GPT, else an MBR with at least one used entry (weak: a boot sector looks much the same).
pub(super) fn partition_table(buf: &[u8]) -> Option<Signature> {
    if bytes_at(buf, 512, b"EFI PART") {
        return Some(sig("pt", "a partition table (gpt)"));
    }
    let used = [450, 466, 482, 498].iter().any(|&o| buf.get(o).is_some_and(|&t| t != 0));
    (bytes_at(buf, 510, &[0x55, 0xAA]) && used)
        .then(|| Signature { weak: true, ..sig("pt", "a partition table (dos)") })
}

/// ext2, ext3 or ext4, from the superblock's feature flags (superblock at 1024).
pub(super) fn ext_version(buf: &[u8]) -> &'static str {
    const HAS_JOURNAL: u32 = 0x4;
    const EXT3_INCOMPAT: u32 = 0x2 | 0x4 | 0x8 | 0x10;
    const EXT3_RO_COMPAT: u32 = 0x1 | 0x2 | 0x4;
    let compat = u32_le(buf, 1024 + 0x5C);
    let incompat = u32_le(buf, 1024 + 0x60);
    let ro_compat = u32_le(buf, 1024 + 0x64);
    if incompat & !EXT3_INCOMPAT != 0 || ro_compat & !EXT3_RO_COMPAT != 0 {
        "ext4"
    } else if compat & HAS_JOURNAL != 0 {
        "ext3"
    } else {
        "ext2"
    }
}
