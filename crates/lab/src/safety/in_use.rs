//! Whether a device or file is in use right now: mounted, active swap, or held open exclusively.

use std::fs::{self, Metadata};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use super::device::{devno, Device};
use crate::mounts::{self, DevNo};

/// The device number behind a mount's `/dev/...` source. Needed where field 3 is an anonymous
/// number (btrfs). Only `/dev` paths are looked at, so a hung network mount cannot block us.
pub(super) fn source_devno(source: impl AsRef<Path>) -> Option<DevNo> {
    let source = source.as_ref();
    if !source.starts_with("/dev") {
        return None;
    }
    let meta = fs::metadata(source).ok()?;
    meta.file_type().is_block_device().then(|| devno(meta.rdev()))
}

pub(super) fn mount_concerns(dev: &Device) -> Vec<String> {
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
pub(super) fn parse_swaps(text: &str) -> Vec<(String, String)> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((mounts::unescape_lossy(f.next()?.as_bytes()), f.next()?.to_string()))
        })
        .collect()
}

pub(super) fn active_swaps(kind: &str) -> Vec<String> {
    let text = fs::read_to_string("/proc/swaps").unwrap_or_default();
    parse_swaps(&text).into_iter().filter(|(_, k)| k == kind).map(|(n, _)| n).collect()
}

pub(super) fn swap_concerns(dev: &Device) -> Vec<String> {
    let swaps: Vec<DevNo> = active_swaps("partition").iter().filter_map(source_devno).collect();
    dev.members()
        .into_iter()
        .filter(|m| m.devno.is_some_and(|d| swaps.contains(&d)))
        .map(|m| format!("{} is active swap (listed in /proc/swaps)", m.subject))
        .collect()
}

pub(super) fn is_active_swap_file(meta: &Metadata) -> bool {
    is_active_swap_inode(meta.dev(), meta.ino())
}

/// Is the file (`dev`, `ino`) an active swap file?
pub(super) fn is_active_swap_inode(dev: u64, ino: u64) -> bool {
    active_swaps("file")
        .iter()
        .any(|name| fs::metadata(name).is_ok_and(|s| s.is_file() && s.dev() == dev && s.ino() == ino))
}

/// The kernel refuses an exclusive open of a device someone holds (a mount, md, dm, or a
/// program that opened it with O_EXCL): a last catch-all for users the other checks miss.
/// Asked of the very device `file` is (through `/proc/self/fd`), and names who has it open.
pub(super) fn busy_concern(file: &fs::File, subject: &str) -> Option<String> {
    let err = drivelab_engine::target::reopen(file, false, libc::O_EXCL).err()?;
    (err.raw_os_error() == Some(libc::EBUSY)).then(|| busy_message(file, subject))
}

/// Why an exclusive open of `file`'s device failed, naming the processes that have it open.
pub(super) fn busy_message(file: &fs::File, subject: &str) -> String {
    let rdev = file.metadata().map(|m| m.rdev()).unwrap_or(0);
    let users: Vec<String> =
        super::locks::processes_with_device(rdev).into_iter().map(super::locks::describe_process).collect();
    let who = if users.is_empty() { String::new() } else { format!("; open in {}", users.join(", ")) };
    format!("{subject} is busy: something holds it open exclusively (a mount, RAID, LVM, or another program){who}")
}

/// What a loop device is backed by, as the kernel reports it (`LOOP_GET_STATUS64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LoopUse {
    /// `loop5`.
    pub(super) name: String,
    pub(super) devno: Option<DevNo>,
    /// The backing file's filesystem device and inode, and its device number when the backing
    /// file is itself a block device.
    pub(super) backing_dev: u64,
    pub(super) backing_ino: u64,
    pub(super) backing_rdev: u64,
    /// Where its bytes start in the backing file or device, and how many it shows (its size:
    /// what `lo_sizelimit` leaves, or the rest of the backing object).
    pub(super) offset: u64,
    pub(super) size: u64,
}

impl LoopUse {
    /// The bytes of its backing object it covers, `[offset, offset + size)`.
    pub(super) fn span(&self) -> Span {
        Span::new(self.offset, self.size)
    }
}

/// Bytes `[start, end)` of a file or device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) start: u64,
    pub(super) end: u64,
}

impl Span {
    pub(super) fn new(start: u64, len: u64) -> Span {
        Span { start, end: start.saturating_add(len) }
    }

    /// Do the two share a byte? (An empty span shares none.)
    pub(super) fn overlaps(&self, other: &Span) -> bool {
        self.start < self.end && other.start < other.end && self.start < other.end && other.start < self.end
    }

    /// The same bytes seen `by` bytes further on (a partition's or a loop's start).
    pub(super) fn shift(self, by: u64) -> Span {
        Span { start: self.start.saturating_add(by), end: self.end.saturating_add(by) }
    }

    /// The same bytes seen from something that starts `by` bytes in (clipped at 0).
    pub(super) fn unshift(self, by: u64) -> Span {
        Span { start: self.start.saturating_sub(by), end: self.end.saturating_sub(by) }
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bytes {}-{}", self.start, self.end)
    }
}

/// The kernel's `struct loop_info64` (linux/loop.h).
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;

/// Every bound loop device and what backs it. A loop device sysfs lists but whose node cannot
/// be asked is described from sysfs's `backing_file` (stat'ed) instead.
pub(super) fn loop_devices() -> Vec<LoopUse> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir("/sys/block") else { return out };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let loopdir = e.path().join("loop");
        if !name.starts_with("loop") || !loopdir.is_dir() {
            continue;
        }
        out.extend(loop_in(&e.path(), name));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The loop device whose sysfs directory is `sysdir` (`/sys/block/loop5`), if it is bound.
pub(super) fn loop_in(sysdir: &Path, name: String) -> Option<LoopUse> {
    let loopdir = sysdir.join("loop");
    let devno = super::device::read_devno(&sysdir.join("dev"));
    let number = |f: &str| -> Option<u64> { fs::read_to_string(sysdir.join(f)).ok()?.trim().parse().ok() };
    // A size that cannot be read is taken as "to the end": a user of unknown extent overlaps.
    let size = number("size").map_or(u64::MAX, |s| s.saturating_mul(512));
    if let Some(mut u) = loop_status(&format!("/dev/{name}")) {
        u.name = name;
        u.devno = devno;
        u.size = size;
        return Some(u);
    }
    let backing = fs::read_to_string(loopdir.join("backing_file")).ok()?;
    let offset = number("loop/offset").unwrap_or(0);
    let m = fs::metadata(backing.trim()).ok()?;
    let rdev = if m.file_type().is_block_device() { m.rdev() } else { 0 };
    Some(LoopUse { name, devno, backing_dev: m.dev(), backing_ino: m.ino(), backing_rdev: rdev, offset, size })
}

fn loop_status(node: &str) -> Option<LoopUse> {
    let file = fs::File::open(node).ok()?;
    // SAFETY: an all-zero loop_info64 is a valid value of this plain-data struct.
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    use std::os::fd::AsRawFd;
    // SAFETY: LOOP_GET_STATUS64 writes one loop_info64 into `info`, which is valid and large
    // enough; the ioctl only reads the device's state.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), LOOP_GET_STATUS64 as _, &mut info as *mut LoopInfo64) };
    (r == 0).then(|| LoopUse {
        name: String::new(),
        devno: None,
        backing_dev: huge_decode(info.lo_device),
        backing_ino: info.lo_inode,
        backing_rdev: huge_decode(info.lo_rdevice),
        offset: info.lo_offset,
        size: 0,
    })
}

/// The kernel's name of the block device numbered `rdev` (`loop2p1`), from sysfs.
fn block_name(rdev: u64) -> Option<String> {
    let link = fs::read_link(format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev))).ok()?;
    link.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// The kernel's 64-bit device encoding, as a `dev_t` of this system (libc's `makedev`).
fn huge_decode(v: u64) -> u64 {
    let major = ((v & 0xfff00) >> 8) as u32;
    let minor = ((v & 0xff) | ((v >> 12) & 0xfff00)) as u32;
    libc::makedev(major, minor)
}

/// A sentence for each loop device backed by `subject`, saying where it starts and who uses it
/// (its mounts, its holders): a filesystem mounted through a loop device with an offset is a
/// user of the target that neither its mounts nor its signatures show.
pub(super) fn loop_concerns(subject: &str, loops: &[LoopUse]) -> Vec<String> {
    let mounts = mounts::read();
    loops
        .iter()
        .map(|u| {
            // The whole disk's partition may be what backs it: named, or the disk was said to.
            let part = (u.backing_rdev != 0)
                .then(|| block_name(u.backing_rdev))
                .flatten()
                .filter(|n| !subject.ends_with(&format!("/{n}")));
            let mut s = match part {
                Some(p) => format!("{subject}'s partition /dev/{p} backs /dev/{}", u.name),
                None => format!("{subject} backs /dev/{}", u.name),
            };
            if u.offset > 0 {
                s += &format!(" (from byte {})", u.offset);
            }
            let points: Vec<String> = mounts
                .iter()
                .filter(|m| {
                    Some(m.devno) == u.devno
                        || (source_devno(&m.source).is_some() && source_devno(&m.source) == u.devno)
                })
                .map(|m| m.mount_point.to_string_lossy().into_owned())
                .collect();
            if !points.is_empty() {
                s += &format!(", which is mounted on {}", points.join(", "));
            }
            s
        })
        .collect()
}

/// Loop devices backed by the block device `rdev` (or by one of `members`, its partitions).
pub(super) fn loops_over_devices(members: &[DevNo]) -> Vec<LoopUse> {
    loop_devices().into_iter().filter(|u| u.backing_rdev != 0 && members.contains(&devno(u.backing_rdev))).collect()
}

/// Loop devices backed by the regular file `meta` describes.
pub(super) fn loops_over_file(meta: &Metadata) -> Vec<LoopUse> {
    loop_devices()
        .into_iter()
        .filter(|u| u.backing_rdev == 0 && u.backing_dev == meta.dev() && u.backing_ino == meta.ino())
        .collect()
}

/// Mounts whose source is the regular file `meta` describes (FUSE images such as fuse2fs, or
/// any filesystem that mounts a file directly). Only an absolute source can be looked up: a
/// FUSE daemon given a relative path is found as a process with the file open instead
/// (`locks::processes_with_inode`).
pub(super) fn file_mount_concerns(subject: &str, meta: &Metadata) -> Vec<String> {
    inode_mount_concerns(subject, meta.dev(), meta.ino())
}

/// [`file_mount_concerns`] of the inode (`dev`, `ino`), and its bind mounts: a file bound onto
/// another path (`mount --bind FILE PATH`) is a live user of it as a mount of an image is —
/// writing either name writes what the other shows (a container's config, a VM's disk).
pub(super) fn inode_mount_concerns(subject: &str, dev: u64, ino: u64) -> Vec<String> {
    let all = mounts::read();
    let points: Vec<String> = all
        .iter()
        .filter(|m| Path::new(&m.source).is_absolute())
        .filter(|m| fs::metadata(&m.source).is_ok_and(|s| s.is_file() && s.dev() == dev && s.ino() == ino))
        .map(|m| m.mount_point.to_string_lossy().into_owned())
        .collect();
    // A bind mount of a file: its filesystem's device, a root below `/`, and at its mount point
    // the very inode (looked at only for such mounts: no stat of every mount point).
    let here = super::device::devno(dev);
    let bind_mounts: Vec<_> = all
        .iter()
        .filter(|m| m.devno == here && m.root != Path::new("/"))
        .filter(|m| fs::metadata(&m.mount_point).is_ok_and(|s| s.is_file() && s.dev() == dev && s.ino() == ino))
        .collect();
    // Named by its mount point, the target is the bind mount itself: say what it shows (it
    // said "X is bind-mounted at X").
    let subject_path = fs::canonicalize(subject).ok();
    let (own, bound): (Vec<_>, Vec<_>) =
        bind_mounts.into_iter().partition(|m| subject_path.as_deref() == Some(m.mount_point.as_path()));
    let bound: Vec<String> = bound.iter().map(|m| m.mount_point.to_string_lossy().into_owned()).collect();
    let mut out = Vec::new();
    if !points.is_empty() {
        out.push(format!("{subject} is mounted on {}", points.join(", ")));
    }
    if !bound.is_empty() {
        out.push(format!("{subject} is bind-mounted at {}", bound.join(", ")));
    }
    for m in own {
        out.push(format!(
            "{subject} is a bind mount showing {} of the filesystem on {}",
            m.root.display(),
            m.source.to_string_lossy()
        ));
    }
    out
}
