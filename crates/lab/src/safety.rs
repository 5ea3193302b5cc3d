//! Whether drivelab may write to a target, and if not, why not.
//!
//! A storage benchmark that writes is a disk wiper with a stopwatch: pointed at the wrong path
//! it silently destroys a filesystem, a RAID member, an LVM volume or swap in use. This module
//! is the one gate every write passes through, and it protects against:
//!
//! - overwriting a file drivelab did not create (that needs `--overwrite`), or an active swap
//!   file;
//! - writing to any block device the user did not name with `--destroy` (compared by device
//!   number, so `/dev/disk/by-id/...` and `/dev/sdb` are the same device and a typo is not);
//! - writing to a named device that is visibly in use or holds data — mounted, a partition or
//!   partitioned, held by LVM/md/dm-crypt, active swap, or carrying a filesystem, RAID, LVM,
//!   LUKS, swap or partition-table signature — unless `--force` is given as well.
//!
//! Everything here only looks: devices are opened read-only and never written.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use drivelab_engine::target::{self, TargetInfo, TargetKind};
use drivelab_engine::Error;

use crate::mounts::{self, parse_devno, DevNo};

/// What the user allowed on the command line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Permission<'a> {
    /// Block devices named with `--destroy` (matched by device number).
    pub destroy: &'a [String],
    /// `--force`: write a named device even when it looks in use or holds data.
    pub force: bool,
    /// `--overwrite`: write an existing file drivelab did not create.
    pub overwrite: bool,
}

/// May drivelab write to `target`? `Ok(())`, or `Err(Error::Invalid)` naming the reason and the
/// flag that would allow it.
pub fn check_write(target: &TargetInfo, perm: &Permission) -> Result<(), Error> {
    match target.kind {
        TargetKind::Null => Ok(()),
        TargetKind::File => check_file(target, perm),
        TargetKind::Block => check_block(&target.path, perm),
    }
}

/// Every reason writing to the block device at `path` would be dangerous (empty: none found).
/// Looks only; the device is opened read-only.
pub fn block_concerns(path: &str) -> Vec<String> {
    let rdev = match block_rdev(path) {
        Ok(rdev) => rdev,
        Err(e) => return vec![format!("cannot examine {path}: {e}")],
    };
    let dev = Device::find(path, rdev);
    let mut out = Vec::new();
    out.extend(mount_concerns(&dev));
    out.extend(swap_concerns(&dev));
    out.extend(holder_concerns(&dev));
    out.extend(layout_concerns(&dev));
    if out.is_empty() {
        out.extend(busy_concern(path));
    }
    out.extend(signature_concerns(path));
    out
}

// ---- the decision ---------------------------------------------------------------------------

fn check_file(t: &TargetInfo, perm: &Permission) -> Result<(), Error> {
    let path = &t.path;
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()), // drivelab creates it
        Err(e) => return Err(Error::io(format!("cannot look at {path}"), e)),
    };
    if meta.file_type().is_block_device() {
        return check_block(path, perm);
    }
    if !meta.is_file() {
        return Err(Error::invalid(format!(
            "{path} is neither a regular file nor a block device: give a file, a /dev block device, or null"
        )));
    }
    if !t.created_by_drivelab && !perm.overwrite {
        return Err(Error::invalid(format!(
            "{path} exists and drivelab did not create it; writing would overwrite its data: \
             add --overwrite if that is what you want"
        )));
    }
    if !perm.force && is_active_swap_file(&meta) {
        return Err(Error::invalid(format!(
            "{path} is an active swap file (listed in /proc/swaps); refusing to write \
             (swapoff it first, or add --force to write anyway)"
        )));
    }
    Ok(())
}

fn check_block(path: &str, perm: &Permission) -> Result<(), Error> {
    let rdev = block_rdev(path)?;
    let named = perm.destroy.iter().any(|d| block_rdev(d).ok() == Some(rdev));
    if !named {
        return Err(Error::invalid(not_named_message(path, perm.destroy)));
    }
    if perm.force {
        return Ok(());
    }
    let concerns = block_concerns(path);
    if concerns.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid(concern_message(&concerns)))
    }
}

fn not_named_message(path: &str, destroy: &[String]) -> String {
    let mut msg =
        format!("{path} is a block device: writing destroys its data; name it with --destroy {path} to allow that");
    let notes: Vec<String> = destroy
        .iter()
        .map(|d| match block_rdev(d) {
            Ok(_) => format!("--destroy {d} is a different device"),
            Err(e) => format!("--destroy {d}: {e}"),
        })
        .collect();
    if !notes.is_empty() {
        msg += &format!(" ({})", notes.join("; "));
    }
    msg
}

/// The first few concerns, then the way out.
fn concern_message(concerns: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut msg = concerns.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if concerns.len() > SHOWN {
        msg += &format!(" (and {} more)", concerns.len() - SHOWN);
    }
    msg + "; refusing to write (add --force as well to write anyway)"
}

/// The device number of the block device `path` names (following symlinks).
fn block_rdev(path: &str) -> Result<u64, Error> {
    let canon = target::canonical(path);
    let meta = fs::metadata(&canon).map_err(|e| Error::io(format!("cannot look at {path}"), e))?;
    if meta.file_type().is_block_device() {
        Ok(meta.rdev())
    } else {
        Err(Error::invalid(format!("{path} is not a block device")))
    }
}

// ---- the device and its partitions, from sysfs ---------------------------------------------

fn devno(rdev: u64) -> DevNo {
    (libc::major(rdev), libc::minor(rdev))
}

/// The device, or one of its partitions, as a sentence names it.
struct Member {
    subject: String,
    devno: Option<DevNo>,
    sysdir: Option<PathBuf>,
}

struct Device {
    path: String,
    devno: DevNo,
    /// `/sys/devices/.../block/<name>`, when sysfs knows the device.
    sysdir: Option<PathBuf>,
    /// Partitions as (kernel name, sysfs dir).
    parts: Vec<(String, PathBuf)>,
}

impl Device {
    fn find(path: &str, rdev: u64) -> Device {
        let devno = devno(rdev);
        let sysdir = fs::canonicalize(format!("/sys/dev/block/{}:{}", devno.0, devno.1)).ok();
        let parts = sysdir.as_deref().map(partitions_in).unwrap_or_default();
        Device { path: path.to_string(), devno, sysdir, parts }
    }

    /// The device itself, then each partition.
    fn members(&self) -> Vec<Member> {
        let mut out = vec![Member { subject: self.path.clone(), devno: Some(self.devno), sysdir: self.sysdir.clone() }];
        for (name, dir) in &self.parts {
            out.push(Member {
                subject: format!("partition {name} of {}", self.path),
                devno: read_devno(&dir.join("dev")),
                sysdir: Some(dir.clone()),
            });
        }
        out
    }
}

fn dir_name(dir: &Path) -> Option<String> {
    dir.file_name()?.to_str().map(str::to_string)
}

/// Child directories of a disk's sysfs directory that are partitions, sorted by name.
fn partitions_in(sysdir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(sysdir) else {
        return Vec::new();
    };
    let mut parts: Vec<(String, PathBuf)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("partition").is_file())
        .filter_map(|p| Some((dir_name(&p)?, p)))
        .collect();
    parts.sort();
    parts
}

/// A sysfs `dev` attribute (`"259:1"`).
fn read_devno(path: &Path) -> Option<DevNo> {
    parse_devno(fs::read_to_string(path).ok()?.trim())
}

fn sorted_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
    names.sort();
    names
}

/// Is a partition; has partitions; unknown to sysfs (so neither can be checked).
fn layout_concerns(dev: &Device) -> Vec<String> {
    let path = &dev.path;
    let Some(sysdir) = &dev.sysdir else {
        let (major, minor) = dev.devno;
        return vec![format!(
            "{path} is not in sysfs (/sys/dev/block/{major}:{minor}), so its partitions and holders cannot be checked"
        )];
    };
    let mut out = Vec::new();
    if sysdir.join("partition").exists() {
        match sysdir.parent().and_then(dir_name) {
            Some(disk) => out.push(format!("{path} is a partition of {disk}")),
            None => out.push(format!("{path} is a partition")),
        }
    }
    if !dev.parts.is_empty() {
        let names: Vec<&str> = dev.parts.iter().map(|(n, _)| n.as_str()).collect();
        out.push(format!("{path} has partitions ({}); writing the whole device destroys them", names.join(", ")));
    }
    out
}

/// LVM, md, dm-crypt and the like list themselves in `holders`.
fn holder_concerns(dev: &Device) -> Vec<String> {
    let mut out = Vec::new();
    for m in dev.members() {
        let Some(dir) = &m.sysdir else { continue };
        let holders = sorted_names(&dir.join("holders"));
        if !holders.is_empty() {
            out.push(format!("{} is in use by {} (holders)", m.subject, holders.join(", ")));
        }
    }
    out
}

// ---- mounts and swap ----------------------------------------------------------------------

/// The device number behind a mount's `/dev/...` source. Needed where field 3 is an anonymous
/// number (btrfs). Only `/dev` paths are looked at, so a hung network mount cannot block us.
fn source_devno(source: impl AsRef<Path>) -> Option<DevNo> {
    let source = source.as_ref();
    if !source.starts_with("/dev") {
        return None;
    }
    let meta = fs::metadata(source).ok()?;
    meta.file_type().is_block_device().then(|| devno(meta.rdev()))
}

fn mount_concerns(dev: &Device) -> Vec<String> {
    let mounts = mounts::read();
    let sources: Vec<Option<DevNo>> = mounts.iter().map(|m| source_devno(&m.source)).collect();
    let mut out = Vec::new();
    for member in dev.members() {
        let Some(d) = member.devno else { continue };
        let mut points: Vec<String> = mounts
            .iter()
            .zip(&sources)
            .filter(|(m, s)| m.devno == d || **s == Some(d))
            .map(|(m, _)| m.mount_point.to_string_lossy().into_owned())
            .collect();
        points.dedup();
        if !points.is_empty() {
            out.push(format!("{} is mounted on {}", member.subject, points.join(", ")));
        }
    }
    out
}

/// Active swap areas from /proc/swaps as (name, type), type being `partition` or `file`.
fn parse_swaps(text: &str) -> Vec<(String, String)> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((mounts::unescape_lossy(f.next()?.as_bytes()), f.next()?.to_string()))
        })
        .collect()
}

fn active_swaps(kind: &str) -> Vec<String> {
    let text = fs::read_to_string("/proc/swaps").unwrap_or_default();
    parse_swaps(&text).into_iter().filter(|(_, k)| k == kind).map(|(n, _)| n).collect()
}

fn swap_concerns(dev: &Device) -> Vec<String> {
    let swaps: Vec<DevNo> = active_swaps("partition").iter().filter_map(source_devno).collect();
    dev.members()
        .into_iter()
        .filter(|m| m.devno.is_some_and(|d| swaps.contains(&d)))
        .map(|m| format!("{} is active swap (listed in /proc/swaps)", m.subject))
        .collect()
}

fn is_active_swap_file(meta: &Metadata) -> bool {
    active_swaps("file")
        .iter()
        .any(|name| fs::metadata(name).is_ok_and(|s| s.is_file() && s.dev() == meta.dev() && s.ino() == meta.ino()))
}

/// The kernel refuses an exclusive open of a device someone holds (a mount, md, dm, or a
/// program that opened it with O_EXCL): a last catch-all for users the other checks miss.
fn busy_concern(path: &str) -> Option<String> {
    let err = fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL).open(path).err()?;
    (err.raw_os_error() == Some(libc::EBUSY)).then(|| {
        format!("{path} is busy: something holds it open exclusively (a mount, RAID, LVM, or another program)")
    })
}

// ---- signatures ---------------------------------------------------------------------------

/// Bytes read from the start of a device: enough for btrfs's superblock at 64 KiB.
const HEAD_BYTES: u64 = 68 * 1024;

/// Something found on a device. `family` deduplicates blkid's and our own findings; a `weak`
/// finding (a bare MBR signature) is dropped when anything else was found.
#[derive(Clone, Debug, PartialEq)]
struct Signature {
    family: String,
    what: String,
    weak: bool,
}

fn sig(family: &str, what: impl Into<String>) -> Signature {
    Signature { family: family.to_string(), what: what.into(), weak: false }
}

fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'x') => "an",
        _ => "a",
    }
}

fn signature_concerns(path: &str) -> Vec<String> {
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
fn read_head(path: &str) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(HEAD_BYTES as usize);
    File::open(path)?.take(HEAD_BYTES).read_to_end(&mut buf)?;
    Ok(buf)
}

/// blkid's findings first, then ours that blkid did not already report.
fn merge(blkid: Vec<Signature>, builtin: Vec<Signature>) -> Vec<Signature> {
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
fn blkid_signatures(path: &str) -> Vec<Signature> {
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
fn blkid_program() -> &'static str {
    ["/usr/sbin/blkid", "/sbin/blkid", "/usr/bin/blkid", "/bin/blkid"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("blkid")
}

fn parse_blkid_export(text: &str) -> Vec<Signature> {
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
fn family_of(ty: &str) -> String {
    match ty {
        "ext2" | "ext3" | "ext4" | "ext4dev" | "jbd" => "ext".to_string(),
        _ => ty.to_ascii_lowercase(),
    }
}

fn blkid_type(ty: &str, usage: &str) -> Signature {
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

fn lvm_what() -> String {
    "an LVM2_member signature (an LVM physical volume)".to_string()
}

fn bytes_at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    buf.get(off..off + magic.len()) == Some(magic)
}

fn u32_le(buf: &[u8], off: usize) -> u32 {
    buf.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Our own look at the first bytes of a device, independent of blkid.
fn scan_signatures(buf: &[u8]) -> Vec<Signature> {
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
fn partition_table(buf: &[u8]) -> Option<Signature> {
    if bytes_at(buf, 512, b"EFI PART") {
        return Some(sig("pt", "a partition table (gpt)"));
    }
    let used = [450, 466, 482, 498].iter().any(|&o| buf.get(o).is_some_and(|&t| t != 0));
    (bytes_at(buf, 510, &[0x55, 0xAA]) && used)
        .then(|| Signature { weak: true, ..sig("pt", "a partition table (dos)") })
}

/// ext2, ext3 or ext4, from the superblock's feature flags (superblock at 1024).
fn ext_version(buf: &[u8]) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn zeros() -> Vec<u8> {
        vec![0u8; HEAD_BYTES as usize]
    }

    fn put(buf: &mut [u8], off: usize, bytes: &[u8]) {
        buf[off..off + bytes.len()].copy_from_slice(bytes);
    }

    fn families(buf: &[u8]) -> Vec<String> {
        scan_signatures(buf).into_iter().map(|s| s.family).collect()
    }

    #[test]
    fn zeros_hold_nothing() {
        assert!(scan_signatures(&zeros()).is_empty());
    }

    #[test]
    fn short_and_empty_buffers_do_not_panic() {
        assert!(scan_signatures(&[]).is_empty());
        assert!(scan_signatures(&[0xff; 100]).is_empty());
        let mut buf = vec![0u8; 1082];
        put(&mut buf, 1080, &[0x53, 0xEF]);
        assert_eq!(families(&buf), ["ext"]); // feature flags past the end read as zero
    }

    #[test]
    fn ext_magic_and_version() {
        let mut buf = zeros();
        put(&mut buf, 1080, &[0x53, 0xEF]);
        assert_eq!(scan_signatures(&buf)[0].what, "an ext2 filesystem");
        put(&mut buf, 1024 + 0x5C, &4u32.to_le_bytes());
        assert_eq!(scan_signatures(&buf)[0].what, "an ext3 filesystem");
        put(&mut buf, 1024 + 0x60, &0x40u32.to_le_bytes()); // extents
        assert_eq!(scan_signatures(&buf), vec![sig("ext", "an ext4 filesystem")]);
    }

    #[test]
    fn ext_magic_big_endian_is_not_ext() {
        let mut buf = zeros();
        put(&mut buf, 1080, &[0xEF, 0x53]);
        assert!(scan_signatures(&buf).is_empty());
    }

    #[test]
    fn each_builtin_magic() {
        let md = 0xa92b_4efc_u32.to_le_bytes();
        let cases: [(usize, &[u8], &str); 9] = [
            (0, b"XFSB", "xfs"),
            (65600, b"_BHRfS_M", "btrfs"),
            (512, b"LABELONE", "lvm2_member"),
            (4096, &md, "linux_raid_member"),
            (0, &md, "linux_raid_member"),
            (4086, b"SWAPSPACE2", "swap"),
            (0, b"LUKS\xba\xbe", "crypto_luks"),
            (512, b"EFI PART", "pt"),
            (1080, &[0x53, 0xEF], "ext"),
        ];
        for (off, magic, family) in cases {
            let mut buf = zeros();
            put(&mut buf, off, magic);
            assert_eq!(families(&buf), [family], "magic {magic:?} at {off}");
        }
    }

    #[test]
    fn btrfs_needs_the_whole_head() {
        let mut buf = zeros();
        put(&mut buf, 65600, b"_BHRfS_M");
        assert!(scan_signatures(&buf[..65604]).is_empty());
    }

    #[test]
    fn mbr_needs_a_used_entry() {
        let mut buf = zeros();
        put(&mut buf, 510, &[0x55, 0xAA]);
        assert!(scan_signatures(&buf).is_empty());
        buf[450] = 0x83;
        let found = scan_signatures(&buf);
        assert_eq!(found.len(), 1);
        assert!(found[0].weak);
        assert_eq!(found[0].what, "a partition table (dos)");
    }

    #[test]
    fn gpt_hides_its_protective_mbr() {
        let mut buf = zeros();
        put(&mut buf, 510, &[0x55, 0xAA]);
        buf[450] = 0xEE;
        put(&mut buf, 512, b"EFI PART");
        assert_eq!(scan_signatures(&buf), vec![sig("pt", "a partition table (gpt)")]);
    }

    #[test]
    fn blkid_export_is_parsed() {
        let ext4 = "DEVNAME=/dev/loop3\nUUID=abc\nVERSION=1.0\nTYPE=ext4\nUSAGE=filesystem\n";
        assert_eq!(parse_blkid_export(ext4), vec![sig("ext", "an ext4 filesystem")]);
        let raid = "TYPE=linux_raid_member\nUSAGE=raid\n";
        assert_eq!(parse_blkid_export(raid)[0].what, "a linux_raid_member RAID signature");
        let lvm = "TYPE=LVM2_member\nUSAGE=raid\n";
        assert!(parse_blkid_export(lvm)[0].what.starts_with("an LVM2_member signature"));
        let gpt = "DEVNAME=/dev/loop3\nPTUUID=x\nPTTYPE=gpt\n";
        assert_eq!(parse_blkid_export(gpt), vec![sig("pt", "a partition table (gpt)")]);
        let luks = "TYPE=crypto_LUKS\nUSAGE=crypto\n";
        assert_eq!(parse_blkid_export(luks)[0].family, "crypto_luks");
        assert!(parse_blkid_export("DEVNAME=/dev/loop3\n").is_empty());
        assert!(parse_blkid_export("garbage without equals\n=\nTYPE=\n").is_empty());
    }

    #[test]
    fn merge_reports_each_family_once() {
        let mut buf = zeros();
        put(&mut buf, 1080, &[0x53, 0xEF]);
        put(&mut buf, 1024 + 0x60, &0x40u32.to_le_bytes());
        let blkid = parse_blkid_export("TYPE=ext4\nUSAGE=filesystem\n");
        assert_eq!(merge(blkid.clone(), scan_signatures(&buf)), blkid);
        // blkid missing: our own finding stands.
        assert_eq!(merge(Vec::new(), scan_signatures(&buf)).len(), 1);
    }

    #[test]
    fn weak_mbr_dropped_when_something_else_found() {
        let mut buf = zeros();
        put(&mut buf, 510, &[0x55, 0xAA]);
        buf[450] = 0x07;
        let blkid = parse_blkid_export("TYPE=ntfs\nUSAGE=filesystem\n");
        assert_eq!(merge(blkid.clone(), scan_signatures(&buf)), blkid);
        assert_eq!(merge(Vec::new(), scan_signatures(&buf)).len(), 1);
    }

    #[test]
    fn swaps_lines() {
        let text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                    /dev/vda2                               partition\t8388604\t\t0\t\t-2\n\
                    /swap\\040file                          file\t\t1048572\t\t0\t\t-3\n";
        let swaps = parse_swaps(text);
        assert_eq!(swaps, [("/dev/vda2".to_string(), "partition".to_string()), ("/swap file".into(), "file".into())]);
    }

    #[test]
    fn concern_message_shows_three_and_the_way_out() {
        let c: Vec<String> = (1..=5).map(|i| format!("concern {i}")).collect();
        let msg = concern_message(&c);
        assert_eq!(
            msg,
            "concern 1; concern 2; concern 3 (and 2 more); refusing to write (add --force as well to write anyway)"
        );
    }

    #[test]
    fn not_named_message_explains_each_destroy() {
        let destroy = vec!["/nonexistent/drivelab-dev".to_string()];
        let msg = not_named_message("/dev/loop3", &destroy);
        assert!(msg.starts_with(
            "/dev/loop3 is a block device: writing destroys its data; name it with --destroy /dev/loop3 to allow that"
        ));
        assert!(msg.contains("--destroy /nonexistent/drivelab-dev: cannot look at /nonexistent/drivelab-dev"), "{msg}");
        assert!(!not_named_message("/dev/loop3", &[]).contains('('));
    }

    #[test]
    fn null_is_always_allowed() {
        let perm = Permission::default();
        assert!(check_write(&TargetInfo::null(), &perm).is_ok());
    }
}
