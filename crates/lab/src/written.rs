//! What drivelab has seen written on block devices, so a device is measured as the methodology
//! expects: written before it is read. Blocks never written since a device appeared (a loop
//! device over a sparse file, a thin volume, a trimmed SSD) are not read from the medium at all,
//! and read many times faster than written ones (a fresh loop device over /dev/shm: 9.7 GB/s,
//! filled: 3.4 GB/s). Files are filled when drivelab creates them; devices are filled by a plan
//! or suite that writes them (`runner`'s prep step), and a run that only reads a device drivelab
//! has not seen written says so (a notice, and [`DevicePrep`] in the point's result).
//!
//! "Seen written" is a record in this host's state directory ([`state_dir`]: `/run/drivelab` as
//! root, cleared at boot), one per device, keyed by its device number, the kernel's disk
//! sequence number (`diskseq`: new each time a loop device is attached or a disk appears) and its
//! size: a device drivelab filled, or a measured run wrote, is recognized until it is detached,
//! resized or the machine restarts. Anything else — another tool's writes, a write before the
//! restart — is not known, and is said as unknown: the record only ever errs towards "not seen
//! written". A trim (discard) of a device removes its record: its blocks may read as unwritten
//! again.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use drivelab_engine::target::{TargetInfo, TargetKind};
use drivelab_engine::Error;

/// The records' file name in the state directory.
pub const FILE: &str = "written-devices.json";

/// How much of a device drivelab has seen written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceState {
    /// Written whole, start to end (a plan's prep fill, `--precondition`).
    Filled,
    /// A measured run wrote to it, not necessarily all of it.
    PartlyWritten,
    /// No record of drivelab writing it: its blocks may never have been written.
    Unwritten,
}

/// What wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrittenBy {
    /// The fill a plan or suite that writes the device gets first.
    Prep,
    /// `--precondition N` passes (or ACT's prep).
    Precondition,
    /// A measured point that writes.
    WriteRun,
}

/// A device as the record knows it again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceKey {
    pub rdev: u64,
    pub diskseq: Option<u64>,
    pub size_bytes: u64,
}

impl DeviceKey {
    /// The key of a probed block device (None for files, null, or a device without a number).
    pub fn of(info: &TargetInfo) -> Option<DeviceKey> {
        if info.kind != TargetKind::Block {
            return None;
        }
        let rdev = info.identity.as_ref()?.rdev;
        let diskseq = current_diskseq(rdev);
        Some(DeviceKey { rdev, diskseq, size_bytes: info.size_bytes })
    }
}

/// One device's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub key: DeviceKey,
    /// The path it was written through (for people reading the file).
    pub path: String,
    pub state: DeviceState,
    pub by: WrittenBy,
    pub at_unix_ms: u64,
}

/// What a point's result says of one block device it used: drivelab's knowledge of its written
/// state when the point started (saved as `prep` in the point; see docs/RESULTS.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DevicePrep {
    pub device: String,
    pub state: DeviceState,
    /// What last wrote it (None when `unwritten`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<WrittenBy>,
    /// When, Unix epoch ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_unix_ms: Option<u64>,
    /// The plan writes this device and `--no-prep` skipped the fill it gets first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_prep: bool,
    /// The point only reads this device and drivelab has not seen it written: what it measured
    /// may be unwritten blocks, which read faster than written ones.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unwritten_read: bool,
}

impl DevicePrep {
    /// The notice a point that reads an unwritten device prints and keeps.
    pub fn notice(&self) -> Option<String> {
        self.unwritten_read.then(|| {
            format!(
                "{}: drivelab has not seen this device written (no fill or write run of it recorded since it \
                 appeared), so this run may read blocks that were never written, which read much faster than \
                 written ones; fill it first (a plan or suite that writes it with --destroy does)",
                self.device
            )
        })
    }
}

/// Where the records are kept: `DRIVELAB_STATE_DIR` if set, else `/run/drivelab` as root, else
/// `$XDG_RUNTIME_DIR/drivelab`. Both are cleared at boot, as the keys are (a disk's `diskseq`
/// starts again), and never outlive what they describe; tests point it at a scratch directory.
pub fn state_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(STATE_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return Some(PathBuf::from("/run/drivelab"));
    }
    std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()).map(|d| PathBuf::from(d).join("drivelab"))
}

/// The variable naming the directory of the records (see [`state_dir`]).
pub const STATE_ENV: &str = "DRIVELAB_STATE_DIR";

/// The device records of this host (see [`state_dir`]). Every change is made under an
/// exclusive lock on the records, re-read first, so drivelabs running at once lose none.
pub struct Ledger {
    /// The state directory; None: nothing is known or kept (no such directory can be made).
    dir: Option<PathBuf>,
    /// Record changes (false: an MPI rank other than the writer only reads).
    save: bool,
}

impl Ledger {
    /// The records in `dir` (made if missing; None, or a directory that cannot be made: no
    /// records, so every device is "not seen written"). `save`: record what is written.
    pub fn at(dir: Option<PathBuf>, save: bool) -> Ledger {
        let dir = dir.filter(|d| std::fs::create_dir_all(d).is_ok());
        Ledger { dir, save }
    }

    /// The records of this host ([`state_dir`]).
    pub fn open(save: bool) -> Ledger {
        Ledger::at(state_dir(), save)
    }

    fn records(&self) -> Vec<Record> {
        let Some(dir) = &self.dir else { return Vec::new() };
        std::fs::read(dir.join(FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Vec<Record>>(&b).ok())
            .unwrap_or_default()
    }

    /// The record of `info`'s device, if any.
    pub fn get(&self, info: &TargetInfo) -> Option<Record> {
        let key = DeviceKey::of(info)?;
        self.records().into_iter().find(|r| r.key == key)
    }

    /// What a point's result says of `info` (None for anything but a block device).
    pub fn prep_of(&self, info: &TargetInfo, writes: bool, no_prep: bool) -> Option<DevicePrep> {
        DeviceKey::of(info)?;
        let rec = self.get(info);
        let state = rec.as_ref().map_or(DeviceState::Unwritten, |r| r.state);
        Some(DevicePrep {
            device: info.path.clone(),
            state,
            by: rec.as_ref().map(|r| r.by),
            at_unix_ms: rec.as_ref().map(|r| r.at_unix_ms),
            no_prep: no_prep && writes,
            unwritten_read: !writes && state == DeviceState::Unwritten,
        })
    }

    /// Record that `by` wrote `info`'s device (whole: `Filled`; a write run never lowers a fill
    /// to `PartlyWritten`). Saved at once.
    pub fn wrote(&mut self, info: &TargetInfo, by: WrittenBy) -> Result<(), Error> {
        let Some(key) = DeviceKey::of(info) else { return Ok(()) };
        let state = if by == WrittenBy::WriteRun { DeviceState::PartlyWritten } else { DeviceState::Filled };
        let now = crate::store::now_unix_ms();
        let path = info.path.clone();
        self.change(|records| match records.iter_mut().find(|r| r.key == key) {
            Some(r) if r.state == DeviceState::Filled && state == DeviceState::PartlyWritten => r.at_unix_ms = now,
            Some(r) => *r = Record { key, path, state, by, at_unix_ms: now },
            None => records.push(Record { key, path, state, by, at_unix_ms: now }),
        })
    }

    /// Forget `info`'s device (it was trimmed: its blocks may read as unwritten again).
    pub fn trimmed(&mut self, info: &TargetInfo) -> Result<(), Error> {
        let Some(key) = DeviceKey::of(info) else { return Ok(()) };
        self.change(|records| records.retain(|r| r.key != key))
    }

    /// Re-read, change and save the records under an exclusive lock; records of devices that
    /// are gone (no such device number with that `diskseq` now) are dropped on the way.
    fn change(&self, f: impl FnOnce(&mut Vec<Record>)) -> Result<(), Error> {
        let Some(dir) = self.dir.as_ref().filter(|_| self.save) else { return Ok(()) };
        let what = || format!("recording written devices in {}", dir.display());
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(".lock"))
            .map_err(|e| Error::io(what(), e))?;
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).map_err(|e| Error::io(what(), e.into()))?;
        let mut records = self.records();
        records.retain(|r| r.key.diskseq.is_none_or(|seq| current_diskseq(r.key.rdev) == Some(seq)));
        f(&mut records);
        let bytes = crate::store::json_bytes(&records)?;
        crate::store::Dir::open(dir)?.replace(FILE, &bytes)
        // The lock goes with `lock`.
    }
}

/// The `diskseq` the device numbered `rdev` has now (None: no such device, or no diskseq).
fn current_diskseq(rdev: u64) -> Option<u64> {
    let sys = PathBuf::from(format!("/sys/dev/block/{}:{}", rustix::fs::major(rdev), rustix::fs::minor(rdev)));
    drivelab_engine::sysfs::attr_num(sys.join("diskseq"))
        .or_else(|| drivelab_engine::sysfs::attr_num(sys.join("../diskseq")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(rdev: u64, size: u64) -> TargetInfo {
        TargetInfo {
            path: "/dev/test".into(),
            kind: TargetKind::Block,
            exists: true,
            size_bytes: size,
            identity: Some(drivelab_engine::target::Identity { dev: 5, ino: 7, rdev }),
            ..TargetInfo::null()
        }
    }

    #[test]
    fn a_device_is_unwritten_until_written_and_a_fill_outranks_a_write_run() {
        let dir = std::env::temp_dir().join(format!("drivelab-written-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = device(0xfe_0000_0042, 1 << 20);
        let mut l = Ledger::at(Some(dir.clone()), true);
        let p = l.prep_of(&d, false, false).unwrap();
        assert_eq!((p.state, p.unwritten_read), (DeviceState::Unwritten, true));
        assert!(p.notice().is_some());
        // Written by a run: no longer unwritten, but not filled.
        l.wrote(&d, WrittenBy::WriteRun).unwrap();
        assert_eq!(Ledger::at(Some(dir.clone()), false).get(&d).map(|r| r.state), Some(DeviceState::PartlyWritten));
        l.wrote(&d, WrittenBy::Prep).unwrap();
        l.wrote(&d, WrittenBy::WriteRun).unwrap();
        let again = Ledger::at(Some(dir.clone()), false);
        assert_eq!(again.get(&d).map(|r| (r.state, r.by)), Some((DeviceState::Filled, WrittenBy::Prep)));
        assert!(!again.prep_of(&d, false, false).unwrap().unwritten_read);
        // Another size (or another device number) is another device.
        assert!(again.get(&device(0xfe_0000_0042, 2 << 20)).is_none());
        // A file is never in the ledger.
        assert!(again.prep_of(&TargetInfo::null(), false, false).is_none());
        l.trimmed(&d).unwrap();
        assert!(Ledger::at(Some(dir.clone()), false).get(&d).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
