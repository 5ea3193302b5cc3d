//! What a block device sits on, and who else uses the bytes of it the device covers.
//!
//! Writing a loop device writes its backing file or device; writing a partition writes its
//! disk. The checks on the target itself (its mounts, holders, loops over it) see nothing of a
//! second loop device over the same file, a mounted loop device the target is stacked on, a
//! mounted partition under it, a swap file behind it or a VM holding its image open — and each
//! of those was destroyed. So the stack is walked down, level by level (a loop over a loop over
//! a partition of a loop over a file ...), carrying the byte range the target covers at each
//! level: a loop device moves it by its offset and clips it at its size limit, a partition by
//! its start. At every level, every other user of that object whose bytes overlap the range is
//! a live concern: a mount of it, active swap, a holder, another loop device over it, a lock on
//! it, a process with it open, and a partition of it (live if the partition is used, stale if
//! it only exists). Users of other bytes of the same object are no concern: a loop over
//! `[1M, 2M)` of a file may be written while another covers `[0, 1M)`.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::concern::Concern;
use super::device::{devno, dir_name, partitions_in, read_devno, sorted_names};
use super::in_use::{
    active_swaps, inode_mount_concerns, is_active_swap_inode, loop_concerns, loop_devices, loop_in, source_devno, Span,
};
use super::locks::{self, Others};
use crate::mounts::{self, DevNo};

/// How many levels down are followed (a cycle cannot be built, but a bound costs nothing).
const MAX_DEPTH: usize = 16;

/// What a level of the stack is.
enum Below {
    /// A regular file: the bottom.
    File { dev: u64, ino: u64, name: String },
    /// A block device, walked on down.
    Device { devno: DevNo, name: String },
}

/// Every user of the storage under the block device `rdev` (`len` bytes, named `path`) that
/// overlaps the bytes it covers.
pub(super) fn stack_concerns(path: &str, rdev: u64, len: u64) -> Vec<Concern> {
    let mut out = Vec::new();
    let mut via = vec![devno(rdev)];
    let mut span = Span::new(0, len);
    for _ in 0..MAX_DEPTH {
        let Some((below, lower)) = step_down(*via.last().expect("never empty"), span) else { break };
        span = lower;
        match below {
            Below::File { dev, ino, name } => {
                out.extend(file_users(&format!("{name} under {path} ({span})"), dev, ino, span, &via));
                break;
            }
            Below::Device { devno, name } => {
                if via.contains(&devno) {
                    break;
                }
                out.extend(device_users(&format!("/dev/{name} under {path} ({span})"), devno, &name, span, &via));
                via.push(devno);
            }
        }
    }
    out
}

/// The sysfs directory of the block device `d`.
fn sysdir(d: DevNo) -> Option<PathBuf> {
    fs::canonicalize(format!("/sys/dev/block/{}:{}", d.0, d.1)).ok()
}

fn read_u64(path: &Path) -> Option<u64> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// One level down from the device `d`, and where `span` (its bytes) lies there: a loop device's
/// backing file or device, a partition's disk. `None` at the bottom (a disk).
fn step_down(d: DevNo, span: Span) -> Option<(Below, Span)> {
    let dir = sysdir(d)?;
    let name = dir_name(&dir)?;
    if dir.join("loop").is_dir() {
        let u = loop_in(&dir, name)?;
        let mut lower = span.shift(u.offset);
        // What the loop device shows ends at its size (the size limit, or the backing's end).
        lower.end = lower.end.min(u.span().end.max(lower.start));
        let below = if u.backing_rdev != 0 {
            let d = devno(u.backing_rdev);
            Below::Device { devno: d, name: sysdir(d).as_deref().and_then(dir_name)? }
        } else {
            let file = fs::read_to_string(dir.join("loop/backing_file")).unwrap_or_default();
            let name = if file.trim().is_empty() {
                format!("the file behind /dev/{}", u.name)
            } else {
                file.trim().to_string()
            };
            Below::File { dev: u.backing_dev, ino: u.backing_ino, name }
        };
        return Some((below, lower));
    }
    if dir.join("partition").is_file() {
        let start = read_u64(&dir.join("start"))?.saturating_mul(512);
        let disk = dir.parent()?;
        let d = read_devno(&disk.join("dev"))?;
        return Some((Below::Device { devno: d, name: dir_name(disk)? }, span.shift(start)));
    }
    None
}

/// The loops over the object a `matches`, other than those in `via`, whose bytes overlap `span`.
fn overlapping_loops(
    matches: impl Fn(&super::in_use::LoopUse) -> bool,
    span: Span,
    via: &[DevNo],
) -> Vec<super::in_use::LoopUse> {
    loop_devices()
        .into_iter()
        .filter(|u| matches(u) && !u.devno.is_some_and(|d| via.contains(&d)) && u.span().overlaps(&span))
        .collect()
}

/// Who uses the bytes `span` of the regular file (`dev`, `ino`) besides the stack above it.
fn file_users(subject: &str, dev: u64, ino: u64, span: Span, via: &[DevNo]) -> Vec<Concern> {
    let mut out = Vec::new();
    let loops = overlapping_loops(|u| u.backing_rdev == 0 && u.backing_dev == dev && u.backing_ino == ino, span, via);
    out.extend(loop_concerns(subject, &loops).into_iter().map(Concern::live));
    if is_active_swap_inode(dev, ino) {
        out.push(Concern::live(format!("{subject} is an active swap file (listed in /proc/swaps)")));
    }
    out.extend(inode_mount_concerns(subject, dev, ino).into_iter().map(Concern::live));
    out.extend(locks::inode_lock_concern(dev, ino, subject, Others::All).map(Concern::live));
    out.extend(open_concern(subject, locks::processes_with_inode(dev, ino)));
    out
}

/// `… is open in pid N (…)`: processes using an object through a descriptor of their own.
pub(super) fn open_concern(subject: &str, pids: Vec<u32>) -> Option<Concern> {
    if pids.is_empty() {
        return None;
    }
    let who: Vec<String> = pids.into_iter().map(locks::describe_process).collect();
    Some(Concern::live(format!("{subject} is open in {}", who.join(", "))))
}

/// Who uses the bytes `span` of the block device `d` (kernel name `name`) besides the stack
/// above it (`via`): its own mounts, swap, holders, locks and openers, the loops over it and
/// its partitions that overlap.
fn device_users(subject: &str, d: DevNo, name: &str, span: Span, via: &[DevNo]) -> Vec<Concern> {
    let mut out = Vec::new();
    let Some(dir) = sysdir(d) else {
        return vec![Concern::live(format!("{subject} is not in sysfs, so who else uses it cannot be checked"))];
    };
    let via_names: Vec<String> = via.iter().filter_map(|&v| sysdir(v).as_deref().and_then(dir_name)).collect();
    out.extend(whole_users(subject, d, &dir, &via_names));
    let node = format!("/dev/{name}");
    if let Ok(m) = fs::metadata(&node) {
        out.extend(locks::inode_lock_concern(m.dev(), m.ino(), subject, Others::All).map(Concern::live));
    }
    out.extend(open_concern(subject, locks::users_of_device(libc::makedev(d.0, d.1))));
    let loops = overlapping_loops(|u| u.backing_rdev != 0 && devno(u.backing_rdev) == d, span, via);
    out.extend(loop_concerns(subject, &loops).into_iter().map(Concern::live));
    for (pname, pdir) in partitions_in(&dir) {
        let Some(pd) = read_devno(&pdir.join("dev")) else { continue };
        if via.contains(&pd) {
            continue;
        }
        let start = read_u64(&pdir.join("start")).unwrap_or(0).saturating_mul(512);
        let len = read_u64(&pdir.join("size")).unwrap_or(0).saturating_mul(512);
        let part = Span::new(start, len);
        if !part.overlaps(&span) {
            continue;
        }
        let psub = format!("partition {pname} of {subject}, which overlaps it ({part})");
        let mut users = whole_users(&psub, pd, &pdir, &via_names);
        let inner = span.unshift(start);
        let loops = overlapping_loops(|u| u.backing_rdev != 0 && devno(u.backing_rdev) == pd, inner, via);
        users.extend(loop_concerns(&psub, &loops).into_iter().map(Concern::live));
        if users.is_empty() {
            users.push(Concern::stale(format!("{subject} overlaps partition {pname} ({part}); writing destroys it")));
        }
        out.extend(users);
    }
    out
}

/// Mounts, active swap and holders of the device `d` (sysfs directory `dir`) as a whole; a
/// holder that is part of the stack above (`via_names`) is the target's own.
fn whole_users(subject: &str, d: DevNo, dir: &Path, via_names: &[String]) -> Vec<Concern> {
    let mut out = Vec::new();
    let points: Vec<String> = mounts::read()
        .into_iter()
        .filter(|m| m.devno == d || source_devno(&m.source) == Some(d))
        .map(|m| m.mount_point.to_string_lossy().into_owned())
        .collect();
    if !points.is_empty() {
        out.push(Concern::live(format!("{subject} is mounted on {}", points.join(", "))));
    }
    if active_swaps("partition").iter().filter_map(source_devno).any(|s| s == d) {
        out.push(Concern::live(format!("{subject} is active swap (listed in /proc/swaps)")));
    }
    let holders: Vec<String> =
        sorted_names(&dir.join("holders")).into_iter().filter(|h| !via_names.contains(h)).collect();
    if !holders.is_empty() {
        out.push(Concern::live(format!("{subject} is in use by {} (holders)", holders.join(", "))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_overlap_only_where_bytes_are_shared() {
        let a = Span::new(0, 1 << 20);
        assert!(!a.overlaps(&Span::new(1 << 20, 1 << 20)), "adjacent ranges share no byte");
        assert!(a.overlaps(&Span::new((1 << 20) - 1, 1)));
        assert!(Span::new(4096, 10).overlaps(&Span::new(0, u64::MAX)));
        assert!(!Span::new(5, 0).overlaps(&a), "an empty range overlaps nothing");
        assert_eq!(Span::new(u64::MAX - 1, 10).end, u64::MAX, "no wrap past the end");
        assert_eq!(Span::new(100, 50).shift(1000), Span::new(1100, 50));
        assert_eq!(Span::new(100, 50).unshift(120), Span { start: 0, end: 30 });
    }
}
