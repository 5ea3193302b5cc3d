//! `drivelab info`: what drivelab knows about a target without writing it — what it is, the
//! drive behind it (the same facts a results directory records, plus its temperature where the
//! kernel reports one), and whether drivelab would write it and which flags that would take.
//!
//! Read-only: the verdict is [`safety::check_write`] (which only looks) asked with more and more
//! permission, the flags of the first permission it accepts being the answer.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use drivelab_engine::sysfs;
use drivelab_engine::target::{self, TargetInfo, TargetKind};
use drivelab_engine::Error;
use serde::Serialize;

use crate::safety::{self, Permission};
use crate::sysinfo::{self, DeviceFacts, FileFacts};

/// Everything `info` says about one target.
#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    /// As given.
    pub path: String,
    /// What the engine's probe saw (kind, whether it exists, size, block sizes, O_DIRECT
    /// alignment, the disk behind it), as every result records it.
    pub target: TargetInfo,
    /// For a partition, its kernel name (`device` is then the whole disk's).
    pub partition: Option<String>,
    /// The whole disk behind the target (for a file, the disk under its filesystem).
    pub device: Option<DeviceFacts>,
    /// For a file: its filesystem and mount.
    pub file: Option<FileFacts>,
    /// The disk's temperature, where the kernel reports one (hwmon: NVMe, SATA with drivetemp).
    pub temperature_c: Option<f64>,
    /// Would drivelab write it, and with which flags.
    pub write: WriteVerdict,
}

/// Whether drivelab would write a target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WriteVerdict {
    pub verdict: Verdict,
    /// The flags that allow writing it (empty unless `NeedsFlags`).
    pub flags: Vec<String>,
    /// Why it is not written without those flags, or why it is refused, in the order met.
    pub reasons: Vec<String>,
    /// What writing it would do first (a file that does not exist is created and filled).
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Written as it is named.
    Allowed,
    /// Written with `flags`.
    NeedsFlags,
    /// Not written whatever the flags (another drivelab holds it, this user cannot open it...).
    Refused,
}

/// Look at `path` without writing anything.
pub fn report(path: &str) -> Result<TargetReport, Error> {
    let info = target::probe(path)?;
    let facts = crate::results::TargetFacts::of(path);
    let partition = match info.kind {
        TargetKind::Block => std::fs::metadata(path).ok().filter(|m| m.file_type().is_block_device()).and_then(|m| {
            sysfs::partition_of_devno(Path::new(sysfs::SYS), libc::major(m.rdev()), libc::minor(m.rdev()))
        }),
        _ => None,
    };
    let temperature_c =
        info.disk.as_deref().and_then(|d| sysfs::temperature_mc(Path::new(sysfs::SYS), d)).map(|mc| mc as f64 / 1000.0);
    let device = facts.device.or_else(|| info.disk.as_deref().and_then(sysinfo::device));
    let write = write_verdict(&info);
    Ok(TargetReport { path: path.to_string(), partition, device, file: facts.file, temperature_c, write, target: info })
}

/// Would drivelab write `info`, and with which flags: [`safety::check_write`] asked with no
/// permission, then with each set of flags that could allow it, fewest first.
pub fn write_verdict(info: &TargetInfo) -> WriteVerdict {
    let path = info.path.as_str();
    let note = match info.kind {
        TargetKind::Null => Some("null is virtual: nothing is written anywhere".to_string()),
        TargetKind::File if !info.exists => Some(format!(
            "{path} does not exist: drivelab would create it at --size (default 1 GiB) and fill it with \
             incompressible data before measuring"
        )),
        _ => None,
    };
    let destroy = [path.to_string()];
    let candidates: Vec<Vec<&str>> = match info.kind {
        TargetKind::Null => vec![vec![]],
        TargetKind::File => vec![vec![], vec!["--overwrite"], vec!["--force"], vec!["--overwrite", "--force"]],
        TargetKind::Block => vec![vec![], vec!["--destroy"], vec!["--destroy", "--force"]],
    };
    let mut reasons: Vec<String> = Vec::new();
    for flags in candidates {
        let perm = Permission {
            destroy: if flags.contains(&"--destroy") { &destroy } else { &[] },
            force: flags.contains(&"--force"),
            overwrite: flags.contains(&"--overwrite"),
            shared: false,
        };
        match safety::check_write(info, &perm) {
            Ok(()) => {
                let verdict = if flags.is_empty() { Verdict::Allowed } else { Verdict::NeedsFlags };
                let flags = flags
                    .iter()
                    .flat_map(|f| {
                        if *f == "--destroy" {
                            vec![f.to_string(), path.to_string()]
                        } else {
                            vec![f.to_string()]
                        }
                    })
                    .collect();
                return WriteVerdict { verdict, flags, reasons, note };
            }
            Err(e) => {
                let why = e.to_string();
                if !reasons.contains(&why) {
                    reasons.push(why);
                }
                if !e.is_invalid() {
                    break; // the system failed to look: more permission would not help
                }
            }
        }
    }
    WriteVerdict { verdict: Verdict::Refused, flags: Vec::new(), reasons, note }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_and_a_new_file_are_written_as_named() {
        let v = write_verdict(&TargetInfo::null());
        assert_eq!((v.verdict, v.flags.len()), (Verdict::Allowed, 0));
        let dir = std::env::temp_dir().join(format!("drivelab-info-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let new = dir.join("new.dat").to_string_lossy().into_owned();
        let r = report(&new).unwrap();
        assert_eq!((r.write.verdict, r.target.exists), (Verdict::Allowed, false));
        assert!(r.write.note.as_deref().is_some_and(|n| n.contains("would create it")), "{:?}", r.write);
        assert!(!Path::new(&new).exists(), "info created it");
        // An existing file drivelab did not make needs --overwrite, and says why.
        let old = dir.join("old.dat");
        std::fs::write(&old, b"someone's data").unwrap();
        let r = report(&old.to_string_lossy()).unwrap();
        assert_eq!((r.write.verdict, r.write.flags.clone()), (Verdict::NeedsFlags, vec!["--overwrite".to_string()]));
        assert!(r.write.reasons[0].contains("drivelab did not create it"), "{:?}", r.write);
        assert_eq!(std::fs::read(&old).unwrap(), b"someone's data");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
