//! The block device and its partitions as sysfs describes them, and the concerns read from its
//! layout (a partition, partitioned, unknown to sysfs) and its holders (LVM, md, dm-crypt).

use std::fs;
use std::path::{Path, PathBuf};

use crate::mounts::{parse_devno, DevNo};

pub(super) fn devno(rdev: u64) -> DevNo {
    (libc::major(rdev), libc::minor(rdev))
}

/// The device, or one of its partitions, as a sentence names it.
pub(super) struct Member {
    pub(super) subject: String,
    pub(super) devno: Option<DevNo>,
    pub(super) sysdir: Option<PathBuf>,
}

pub(super) struct Device {
    pub(super) path: String,
    pub(super) devno: DevNo,
    /// `/sys/devices/.../block/<name>`, when sysfs knows the device.
    pub(super) sysdir: Option<PathBuf>,
    /// Partitions as (kernel name, sysfs dir).
    pub(super) parts: Vec<(String, PathBuf)>,
}

impl Device {
    pub(super) fn find(path: &str, rdev: u64) -> Device {
        let devno = devno(rdev);
        let sysdir = fs::canonicalize(format!("/sys/dev/block/{}:{}", devno.0, devno.1)).ok();
        let parts = sysdir.as_deref().map(partitions_in).unwrap_or_default();
        Device { path: path.to_string(), devno, sysdir, parts }
    }

    /// The device itself, then each partition. Named by another path than its node (a
    /// symbolic link, /dev/disk/by-id/…), a sentence names the device too: "./disk
    /// (/dev/loop1) is mounted on /mnt".
    pub(super) fn members(&self) -> Vec<Member> {
        let subject = match self.sysdir.as_deref().and_then(dir_name) {
            Some(name) if self.path != format!("/dev/{name}") => format!("{} (/dev/{name})", self.path),
            _ => self.path.clone(),
        };
        let mut out = vec![Member { subject: subject.clone(), devno: Some(self.devno), sysdir: self.sysdir.clone() }];
        for (name, dir) in &self.parts {
            out.push(Member {
                subject: format!("partition {name} of {subject}"),
                devno: read_devno(&dir.join("dev")),
                sysdir: Some(dir.clone()),
            });
        }
        out
    }
}

pub(super) fn dir_name(dir: &Path) -> Option<String> {
    dir.file_name()?.to_str().map(str::to_string)
}

/// Child directories of a disk's sysfs directory that are partitions, sorted by name.
pub(super) fn partitions_in(sysdir: &Path) -> Vec<(String, PathBuf)> {
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
pub(super) fn read_devno(path: &Path) -> Option<DevNo> {
    parse_devno(fs::read_to_string(path).ok()?.trim())
}

pub(super) fn sorted_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
    names.sort();
    names
}

/// Is a partition; has partitions; unknown to sysfs (so neither can be checked).
pub(super) fn layout_concerns(dev: &Device) -> Vec<String> {
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
pub(super) fn holder_concerns(dev: &Device) -> Vec<String> {
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
