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
//! again. The records are a cache read as hostile input ([`Ledger`]): anything drivelab would
//! not have written is ignored with a notice, and a record that cannot be saved is a notice too,
//! never the loss of a measurement.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use drivelab_engine::target::{TargetInfo, TargetKind};

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
    /// The boot it was made in (records of another boot, or none, are not used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
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
    // Set but empty is kept as given, so it is refused with a notice rather than taken for
    // unset (which would use the machine's own records).
    if let Some(d) = std::env::var_os(STATE_ENV) {
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

/// The most the records file may hold: a record is about 200 bytes, so some 20,000 devices. A
/// bigger file is not drivelab's (or is damaged) and is not read.
pub const RECORDS_LIMIT: u64 = 4 << 20;

/// How long a change waits for another drivelab's lock on the records before giving up (the
/// change is then not saved, and said: the records are a cache).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Why the records could not be used or kept. Never an error of the run: the records are a
/// cache, so each is a notice, and the run goes on as if no device had been seen written (a
/// device is filled again, a read of one is said to be maybe unwritten).
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The state directory cannot be trusted (made by another user, writable by others) or
    /// made: its records are neither read nor written.
    #[error(
        "drivelab's state directory {} {why}, so its records of written devices are not used this run (every \
         device counts as not seen written by drivelab): {fix}",
        .dir.display()
    )]
    Untrusted { dir: PathBuf, why: String, fix: String },
    /// The records file is not one drivelab would have written: ignored, and replaced at the
    /// next change (the name itself, never followed).
    #[error(
        "drivelab's record of written devices {} {why}: it is ignored (every device counts as not seen written \
         by drivelab) and written anew at the next record",
        .file.display()
    )]
    Unreadable { file: PathBuf, why: String },
    /// A change could not be saved: the measurement stands; a later plan fills the device again.
    #[error(
        "drivelab could not record in {} that it wrote {device} ({why}); the results are kept, but a later run \
         will not know it was written (a plan fills it again)",
        .file.display()
    )]
    NotSaved { file: PathBuf, device: String, why: String },
}

/// The device records of this host (see [`state_dir`]). Every change is made under an
/// exclusive lock on the state directory, the records re-read first, so drivelabs running at
/// once lose none.
///
/// The records decide whether a plan fills a device, so they are read as hostile input: the
/// directory must be this user's and writable by no one else (made 0700), the file a regular
/// file of this user's, writable by no one else, under [`RECORDS_LIMIT`], opened without
/// following a symlink and without blocking (a FIFO is refused, never waited on), and each
/// record is bound to this boot (`boot_id`: a `diskseq` starts again at boot).
pub struct Ledger {
    /// The state directory, opened and checked; None: nothing is known or kept.
    dir: Option<crate::store::Dir>,
    /// Record changes (false: an MPI rank other than the writer only reads).
    save: bool,
    /// What went wrong with the records and is not said yet ([`Ledger::take_problem`]).
    problem: Option<StateError>,
}

impl Ledger {
    /// The records in `dir` (made, private, if missing; None: no records, so every device is
    /// "not seen written"). `save`: record what is written. A directory that cannot be made
    /// or trusted gives a ledger that knows nothing and keeps nothing, and says why once.
    pub fn at(dir: Option<PathBuf>, save: bool) -> Ledger {
        let mut l = Ledger { dir: None, save, problem: None };
        let Some(dir) = dir else { return l };
        match open_state_dir(&dir) {
            Ok(d) => {
                if let Err(e) = read_records(&d) {
                    l.problem = Some(e);
                }
                l.dir = Some(d);
            }
            Err(e) => l.problem = Some(e),
        }
        l
    }

    /// The records of this host ([`state_dir`]).
    pub fn open(save: bool) -> Ledger {
        Ledger::at(state_dir(), save)
    }

    /// What went wrong with the records, once: the caller says it (a notice) when the records
    /// matter, that is when a block device is used.
    pub fn take_problem(&mut self) -> Option<StateError> {
        self.problem.take()
    }

    /// The records; any that cannot be read count as none (said once, by [`Ledger::at`]).
    fn records(&self) -> Vec<Record> {
        let Some(dir) = &self.dir else { return Vec::new() };
        let boot = boot_id();
        let mut r = read_records(dir).unwrap_or_default();
        let (since, until) = this_boots_times();
        r.retain(|r| r.boot.is_some() && r.boot == boot && (since..=until).contains(&r.at_unix_ms));
        r
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
    /// to `PartlyWritten`). Saved at once; a failure to save is a [`StateError::NotSaved`] for
    /// the caller to say, never the loss of what was measured.
    pub fn wrote(&mut self, info: &TargetInfo, by: WrittenBy) -> Result<(), StateError> {
        let Some(key) = DeviceKey::of(info) else { return Ok(()) };
        let state = if by == WrittenBy::WriteRun { DeviceState::PartlyWritten } else { DeviceState::Filled };
        let now = crate::store::now_unix_ms();
        let path = info.path.clone();
        let boot = boot_id();
        self.change(&info.path, |records| match records.iter_mut().find(|r| r.key == key) {
            Some(r) if r.state == DeviceState::Filled && state == DeviceState::PartlyWritten => r.at_unix_ms = now,
            Some(r) => *r = Record { key, path, state, by, at_unix_ms: now, boot },
            None => records.push(Record { key, path, state, by, at_unix_ms: now, boot }),
        })
    }

    /// Forget `info`'s device (it was trimmed: its blocks may read as unwritten again).
    pub fn trimmed(&mut self, info: &TargetInfo) -> Result<(), StateError> {
        let Some(key) = DeviceKey::of(info) else { return Ok(()) };
        self.change(&info.path, |records| records.retain(|r| r.key != key))
    }

    /// Re-read, change and save the records under an exclusive lock on the directory; records
    /// of devices that are gone (no such device number with that `diskseq` now) or of another
    /// boot are dropped on the way.
    fn change(&self, device: &str, f: impl FnOnce(&mut Vec<Record>)) -> Result<(), StateError> {
        let Some(dir) = self.dir.as_ref().filter(|_| self.save) else { return Ok(()) };
        let not_saved =
            |why: String| StateError::NotSaved { file: dir.path().join(FILE), device: device.to_string(), why };
        lock(dir).map_err(|e| not_saved(e.to_string()))?;
        let mut records = self.records();
        records.retain(|r| r.key.diskseq.is_none_or(|seq| current_diskseq(r.key.rdev) == Some(seq)));
        f(&mut records);
        let saved = crate::store::json_bytes(&records).and_then(|bytes| dir.replace_private(FILE, &bytes));
        // The lock goes with the directory's descriptor or here, whichever is first.
        let _ = rustix::fs::flock(dir, rustix::fs::FlockOperation::Unlock);
        saved.map_err(|e| not_saved(e.to_string()))
    }
}

/// Why the lock on the state directory was not taken.
#[derive(Debug, thiserror::Error)]
enum LockFailed {
    #[error("another process held its lock for over {} s", LOCK_WAIT.as_secs())]
    Held,
    #[error("locking it: {0}")]
    Flock(rustix::io::Errno),
}

/// Take the exclusive lock on the state directory, waiting up to [`LOCK_WAIT`] for another
/// drivelab to finish its change (a process that holds it longer is not waited on forever).
fn lock(dir: &crate::store::Dir) -> Result<(), LockFailed> {
    use rustix::fs::FlockOperation;
    let start = std::time::Instant::now();
    loop {
        match rustix::fs::flock(dir, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::WOULDBLOCK) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            Err(rustix::io::Errno::WOULDBLOCK) => return Err(LockFailed::Held),
            Err(e) => return Err(LockFailed::Flock(e)),
        }
    }
}

/// The effective user id.
fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Make `path` if missing (0700, whatever the umask) and open it, checked: a directory of this
/// user's that no one else may write.
fn open_state_dir(path: &std::path::Path) -> Result<crate::store::Dir, StateError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let untrusted = |why: String, fix: String| StateError::Untrusted { dir: path.to_path_buf(), why, fix };
    if path.as_os_str().is_empty() {
        return Err(untrusted("is set empty".into(), format!("give {STATE_ENV} a directory, or unset it")));
    }
    // The directory itself, never where a symlink in its place points: lstat now, and the
    // directory opened below must be the one lstat saw.
    let seen = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let to = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            return Err(untrusted(
                format!("is a symbolic link (to {to})"),
                format!("point {STATE_ENV} at the directory itself"),
            ));
        }
        Ok(m) => Some((m.dev(), m.ino())),
        Err(_) => None,
    };
    if let Err(e) = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path) {
        return Err(untrusted(
            format!("cannot be made ({e})"),
            format!("make it, or point {STATE_ENV} at a directory of yours"),
        ));
    }
    let dir = crate::store::Dir::open(path).map_err(|e| {
        untrusted(format!("cannot be opened ({e})"), format!("point {STATE_ENV} at a directory of yours"))
    })?;
    let st = rustix::fs::fstat(&dir)
        .map_err(|e| untrusted(format!("cannot be examined ({e})"), format!("point {STATE_ENV} elsewhere")))?;
    let opened = (st.st_dev, st.st_ino);
    let now = std::fs::symlink_metadata(path).ok().filter(|m| m.is_dir()).map(|m| (m.dev(), m.ino()));
    if seen.is_some_and(|s| s != opened) || now != Some(opened) {
        return Err(untrusted("changed while it was opened".into(), "run again".into()));
    }
    if st.st_uid != euid() {
        return Err(untrusted(
            format!("belongs to user {}, not to this user ({})", st.st_uid, euid()),
            format!("point {STATE_ENV} at a directory of yours"),
        ));
    }
    if st.st_mode & 0o022 != 0 {
        return Err(untrusted(
            format!("may be written by others (mode {:04o})", st.st_mode & 0o7777),
            format!("chmod go-w {}", path.display()),
        ));
    }
    Ok(dir)
}

/// The records in `dir`, read as hostile input (see [`Ledger`]); no file: none.
fn read_records(dir: &crate::store::Dir) -> Result<Vec<Record>, StateError> {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::io::Read;
    let file = dir.path().join(FILE);
    let unreadable = |why: String| StateError::Unreadable { file: file.clone(), why };
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = match rustix::fs::openat(dir, FILE, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(Vec::new()),
        Err(rustix::io::Errno::LOOP) => return Err(unreadable("is a symlink".into())),
        Err(e) => return Err(unreadable(format!("cannot be opened ({e})"))),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| unreadable(format!("cannot be examined ({e})")))?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => {}
        FileType::Fifo => return Err(unreadable("is a FIFO, not a file".into())),
        FileType::Directory => return Err(unreadable("is a directory, not a file".into())),
        _ => return Err(unreadable("is not a regular file".into())),
    }
    if st.st_uid != euid() {
        return Err(unreadable(format!("belongs to user {}, not to this user", st.st_uid)));
    }
    if st.st_mode & 0o022 != 0 {
        return Err(unreadable(format!("may be written by others (mode {:04o})", st.st_mode & 0o7777)));
    }
    if st.st_size as u64 > RECORDS_LIMIT {
        return Err(unreadable(format!("is {} bytes, over the {RECORDS_LIMIT}-byte limit", st.st_size)));
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd)
        .take(RECORDS_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > RECORDS_LIMIT {
        return Err(unreadable(format!("grew over the {RECORDS_LIMIT}-byte limit while read")));
    }
    serde_json::from_slice(&bytes).map_err(|e| unreadable(format!("is not drivelab's records ({e})")))
}

/// The times a record of this boot may bear (Unix ms): from this boot's start to now, a minute
/// of clock adjustment either way. A record dated after now or before the boot was not written
/// by drivelab (a forged one would otherwise put its date in the results' `prep`).
fn this_boots_times() -> (u64, u64) {
    let now = crate::store::now_unix_ms();
    let up_ms = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0, |s| (s * 1000.0) as u64);
    (now.saturating_sub(up_ms).saturating_sub(60_000), now.saturating_add(60_000))
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`): a record of another boot is of another
/// device, whatever its numbers (a `diskseq` starts again at boot).
fn boot_id() -> Option<String> {
    let id = drivelab_engine::sysfs::attr(std::path::Path::new("/proc/sys/kernel/random/boot_id"))?;
    (id.len() <= 64 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-')).then_some(id)
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

    /// A directory of this test's own (`tag`: which test), made.
    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("drivelab-written-{tag}{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_device_is_unwritten_until_written_and_a_fill_outranks_a_write_run() {
        let dir = scratch("");
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

    /// A state directory that is a symlink was followed (the records made where it pointed); an
    /// empty DRIVELAB_STATE_DIR fell back to the machine's own records without a word.
    #[test]
    fn a_symlinked_or_empty_state_directory_is_not_used_and_said() {
        let base = scratch("link-");
        let real = base.join("real");
        std::fs::create_dir_all(&real).unwrap();
        let link = base.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let d = device(0xfe_0000_0043, 1 << 20);
        let mut l = Ledger::at(Some(link.clone()), true);
        let why = l.take_problem().expect("said").to_string();
        assert!(why.contains("is a symbolic link (to ") && why.contains("at the directory itself"), "{why}");
        assert!(l.wrote(&d, WrittenBy::Prep).is_ok(), "nothing kept, nothing failed");
        assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0, "nothing written where the link points");
        let mut l = Ledger::at(Some(PathBuf::new()), true);
        assert!(l.take_problem().expect("said").to_string().contains("is set empty"));
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A forged record with the device's true numbers but dated after now, or before this boot,
    /// was believed, and its date put into the results.
    #[test]
    fn a_record_dated_outside_this_boot_is_not_believed() {
        let dir = scratch("time-");
        let d = device(0xfe_0000_0044, 1 << 20);
        let mut l = Ledger::at(Some(dir.clone()), true);
        l.wrote(&d, WrittenBy::Prep).unwrap();
        assert!(Ledger::at(Some(dir.clone()), false).get(&d).is_some(), "a true record is believed");
        let file = dir.join(FILE);
        let text = std::fs::read_to_string(&file).unwrap();
        let mut records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        for at in [u64::MAX >> 1, 1, crate::store::now_unix_ms() + 3_600_000] {
            records[0]["at_unix_ms"] = at.into();
            std::fs::write(&file, serde_json::to_vec(&records).unwrap()).unwrap();
            assert!(Ledger::at(Some(dir.clone()), false).get(&d).is_none(), "dated {at}: believed");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
