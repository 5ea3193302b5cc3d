//! Whether a device or file is in use right now: mounted, active swap, or held open exclusively.

use std::fs::{self, Metadata};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
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
    active_swaps("file")
        .iter()
        .any(|name| fs::metadata(name).is_ok_and(|s| s.is_file() && s.dev() == meta.dev() && s.ino() == meta.ino()))
}

/// The kernel refuses an exclusive open of a device someone holds (a mount, md, dm, or a
/// program that opened it with O_EXCL): a last catch-all for users the other checks miss.
pub(super) fn busy_concern(path: &str) -> Option<String> {
    let err = fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL).open(path).err()?;
    (err.raw_os_error() == Some(libc::EBUSY)).then(|| {
        format!("{path} is busy: something holds it open exclusively (a mount, RAID, LVM, or another program)")
    })
}
