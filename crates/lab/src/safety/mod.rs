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
//! - writing to a target someone uses right now — mounted, active swap, held by LVM/md/dm-crypt,
//!   under a loop device, locked (flock, POSIX, OFD, lease) or open by another process, busy for
//!   an exclusive open — or whose storage further down is used so: the stack under a loop device
//!   or partition is walked to the bottom and every other user of the bytes it covers counts
//!   (`stack`). A live user is never overridden (`concern::Kind::Live`);
//! - writing to a named device that holds data that may be stale — a partition or partitioned,
//!   carrying a filesystem, RAID, LVM, LUKS, swap or partition-table signature — unless `--force`
//!   is given as well (`concern::Kind::Stale`).
//!
//! Every check is made on the descriptor drivelab will write through, never on a path that
//! could be made to name something else in between: [`Claims::claim`] opens a target once
//! (read-only; a block device `O_EXCL`, so no mount, mkfs or second writer can take it while
//! drivelab runs), locks it (`flock`, so a second drivelab is refused by name), checks that it
//! is still what was probed, and examines it through that descriptor (its device number, its
//! mark, its bytes, blkid on `/proc/<pid>/fd/<n>`, loop devices backed by it). The I/O is then
//! opened through the same descriptor, and the claim is held until the lab ends. Nothing here
//! writes.

#[cfg(test)]
mod builtin_tests;
pub mod concern;
mod device;
mod in_use;
pub(crate) mod locks;
#[cfg(test)]
mod mkfs_tests;
mod signatures;
mod stack;
#[cfg(test)]
mod tests;

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};

use drivelab_engine::target::{self, Identity, Mark, TargetInfo, TargetKind};
use drivelab_engine::Error;

use concern::{Concern, Kind};
use device::{holder_concerns, layout_concerns, Device};
use in_use::{
    busy_concern, busy_message, file_mount_concerns, is_active_swap_file, loop_concerns, loops_over_devices,
    loops_over_file, mount_concerns, swap_concerns,
};
use locks::Others;
use signatures::signature_concerns;
use stack::{open_concern, stack_concerns};

/// Why drivelab will not write (or look at) a target: the words defined once, each kind with
/// its path, so a caller can match (or downcast from [`Error::Refused`]) the kind instead of
/// reading a message. Exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum SafetyError {
    #[error("{path} cannot be opened ({error}): give a target this user may use")]
    NoPermission { path: String, error: io::Error },
    #[error("{path} is neither a regular file nor a block device: give a file, a /dev block device, or null")]
    NeitherFileNorDevice { path: String },
    /// What was found using the target (live, or stale without `--force`): the concerns' own
    /// words, with the flag that would allow it where one would.
    #[error("{message}")]
    Concerns { path: String, message: String },
    /// An existing file whose mark does not vouch for it, without `--overwrite`.
    #[error("{}", not_ours_message(.path, *.mark))]
    NotOurs { path: String, mark: Mark },
    #[error("{path} is not a block device")]
    NotABlockDevice { path: String },
    /// Another process holds the target's lock: the lock's own words (who holds it, what to do).
    #[error("{0}")]
    Locked(String),
}

impl From<SafetyError> for Error {
    fn from(e: SafetyError) -> Error {
        Error::refused(e)
    }
}

/// What the user allowed on the command line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Permission<'a> {
    /// Block devices named with `--destroy` (matched by device number).
    pub destroy: &'a [String],
    /// `--force`: write a named device (or a file) even when it holds data that may be stale (a
    /// signature, a partition table, being a partition). Never overrides a live user
    /// ([`concern::Kind::Live`]): mounted, swap, a holder, a lock, open elsewhere, busy.
    pub force: bool,
    /// `--overwrite`: write an existing file drivelab did not create.
    pub overwrite: bool,
    /// Under MPI with `--share split|whole`: the targets are shared with this run's other ranks,
    /// so they are held with a shared lock (which any other program's exclusive lock still
    /// refuses) and a device is not opened `O_EXCL` (its siblings open it too); whether something
    /// else holds a device exclusively is still asked of the kernel.
    pub shared: bool,
}

/// Targets drivelab has opened, checked and holds for writing, for as long as the lab runs.
#[derive(Default)]
pub struct Claims {
    held: Vec<Held>,
}

struct Held {
    file: File,
    identity: Identity,
    /// The descriptor holding the `flock`, when `file` is another (a device's `O_EXCL` open
    /// made through it): a lock lasts as long as the open file it was taken on.
    _lock: Option<File>,
}

/// How a descriptor being examined is held.
#[derive(Clone, Copy, PartialEq)]
enum Hold {
    /// Opened only to look (a dry check): ask the kernel whether someone holds the device and
    /// /proc/locks whether someone locks it.
    Looking,
    /// Held by this drivelab: exclusively (`exclusive`), or not, because someone else had it.
    Claimed { exclusive: bool },
    /// Held with a shared lock, beside this run's other ranks (`Permission::shared`): their
    /// locks are no concern, an exclusive holder of a device still is.
    Shared,
}

impl Claims {
    pub fn new() -> Claims {
        Claims::default()
    }

    /// May drivelab write `info`? Looks only (nothing is held afterwards): every refusal
    /// [`Claims::claim`] would make, found before anything is created.
    pub fn check_write(&self, info: &TargetInfo, perm: &Permission) -> Result<(), Error> {
        if info.kind == TargetKind::Null || !info.exists {
            return Ok(());
        }
        if let Some(h) = self.find(info) {
            return examine(&h.file, &info.path, perm, Hold::Claimed { exclusive: true }).map(drop);
        }
        let file = open_to_look(info, false)?;
        examine(&file, &info.path, perm, Hold::Looking).map(drop)
    }

    /// Open `info` once, hold it (block devices `O_EXCL`, everything `flock`ed) and check it
    /// through that descriptor; the descriptor to open the I/O through. A target already held
    /// is checked again through what is held. `notices` gets the stale concerns `--force` let
    /// through (a live user is always refused).
    pub fn claim(&mut self, info: &TargetInfo, perm: &Permission, notices: &mut Vec<String>) -> Result<&File, Error> {
        if let Some(i) = self.held.iter().position(|h| Some(h.identity) == info.identity) {
            examine(&self.held[i].file, &info.path, perm, Hold::Claimed { exclusive: true })?;
            return Ok(&self.held[i].file);
        }
        if perm.shared {
            let file = open_to_look(info, false)?;
            locks::lock_shared(&file, &info.path, locks::TARGET_IN_USE).map_err(SafetyError::Locked)?;
            forced_notice(&info.path, examine(&file, &info.path, perm, Hold::Shared)?, notices);
            let identity =
                Identity::of(&file.metadata().map_err(|e| Error::io(format!("cannot look at {}", info.path), e))?);
            self.held.push(Held { file, identity, _lock: None });
            return Ok(&self.held.last().expect("just pushed").file);
        }
        // The lock first, then (a device) the exclusive open through the locked descriptor: two
        // drivelab writers started at once meet at the lock, where one is refused at once,
        // naming the other. (Opened O_EXCL first, one could hold the device and the other the
        // lock, and each refuse for the other.)
        let lock = open_to_look(info, false)?;
        locks::lock_exclusive(&lock, &info.path, locks::TARGET_IN_USE).map_err(SafetyError::Locked)?;
        let (file, lock, exclusive) = if info.kind == TargetKind::Block {
            match target::reopen(&lock, false, libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_EXCL) {
                Ok(f) => (f, Some(lock), true),
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => (lock, None, false),
                Err(e) => return Err(Error::io(format!("cannot open {} exclusively", info.path), e)),
            }
        } else {
            (lock, None, true)
        };
        // A device someone else holds exclusively is a live user: examine refuses it.
        forced_notice(&info.path, examine(&file, &info.path, perm, Hold::Claimed { exclusive })?, notices);
        let identity =
            Identity::of(&file.metadata().map_err(|e| Error::io(format!("cannot look at {}", info.path), e))?);
        self.held.push(Held { file, identity, _lock: lock });
        Ok(&self.held.last().expect("just pushed").file)
    }

    /// Hold a file this run has just created and filled (it is drivelab's, locked since its
    /// creation): the descriptor to open the I/O through.
    pub fn adopt(&mut self, file: File, perm: &Permission) -> Result<&File, Error> {
        if perm.shared {
            // Made by this rank; its siblings hold it too.
            locks::lock_shared(&file, "a new file", locks::TARGET_IN_USE).map_err(SafetyError::Locked)?;
        }
        let identity = Identity::of(&file.metadata().map_err(|e| Error::io("cannot look at a new file", e))?);
        self.held.push(Held { file, identity, _lock: None });
        Ok(&self.held.last().expect("just pushed").file)
    }

    /// The held descriptor of the file created at `path` (to remove it again, only if the path
    /// still names it).
    pub fn held_file(&self, path: &str) -> Option<&File> {
        let meta = fs::symlink_metadata(path).ok()?;
        self.held.iter().find(|h| h.identity == Identity::of(&meta)).map(|h| &h.file)
    }

    fn find(&self, info: &TargetInfo) -> Option<&Held> {
        self.held.iter().find(|h| Some(h.identity) == info.identity)
    }
}

/// What `--force` let through, said once the target is claimed.
fn forced_notice(path: &str, overridden: Vec<String>, notices: &mut Vec<String>) {
    if !overridden.is_empty() {
        notices.push(format!("{path}: {}; written anyway (--force)", overridden.join("; ")));
    }
}

/// May drivelab write `target`? `Ok(())`, or a refusal ([`SafetyError`]) naming the reason and the
/// flag that would allow it. Looks only.
pub fn check_write(target: &TargetInfo, perm: &Permission) -> Result<(), Error> {
    Claims::new().check_write(target, perm)
}

/// Every reason writing to the block device at `path` would be dangerous (empty: none found).
/// Looks only; the device is opened read-only.
pub fn block_concerns(path: &str) -> Vec<String> {
    block_concerns_of_kind(path).into_iter().map(|c| c.text).collect()
}

/// [`block_concerns`] with their kinds: which of them `--force` would override.
pub fn block_concerns_of_kind(path: &str) -> Vec<Concern> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return vec![Concern::live(format!("cannot examine {path}: {e}"))],
    };
    match file.metadata() {
        Ok(m) if m.file_type().is_block_device() => {
            device_concerns(&file, m.rdev(), path, Hold::Looking, Others::All, false)
        }
        Ok(_) => vec![Concern::live(format!("{path} is not a block device"))],
        Err(e) => vec![Concern::live(format!("cannot examine {path}: {e}"))],
    }
}

// ---- opening to look ------------------------------------------------------------------------

/// Open `info`'s path read-only (exclusively if `exclusive`), once, and refuse it if it no
/// longer names what was probed.
fn open_to_look(info: &TargetInfo, exclusive: bool) -> Result<File, Error> {
    let flags = libc::O_CLOEXEC | libc::O_NONBLOCK | if exclusive { libc::O_EXCL } else { 0 };
    let file = OpenOptions::new().read(true).custom_flags(flags).open(&info.path).map_err(|e| {
        if e.raw_os_error() == Some(libc::EBUSY) {
            Error::io(format!("{} is busy", info.path), e)
        } else if matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM)) {
            SafetyError::NoPermission { path: info.path.clone(), error: e }.into()
        } else if e.kind() == io::ErrorKind::NotFound {
            target::changed(&info.path)
        } else {
            Error::io(format!("cannot open {} to examine it", info.path), e)
        }
    })?;
    let meta = file.metadata().map_err(|e| Error::io(format!("cannot look at {}", info.path), e))?;
    if info.identity.is_some_and(|id| id != Identity::of(&meta)) {
        return Err(target::changed(&info.path));
    }
    Ok(file)
}

// ---- the decision ---------------------------------------------------------------------------

/// Every check, made on `file` (what will be written through): what it is, whether the user
/// allowed writing it, and what it holds or who uses it. `Ok` holds the stale concerns
/// `--force` overrode.
fn examine(file: &File, path: &str, perm: &Permission, hold: Hold) -> Result<Vec<String>, Error> {
    let meta = file.metadata().map_err(|e| Error::io(format!("cannot look at {path}"), e))?;
    // Under MPI with a shared target the other ranks lock it (flock) and hold it open too.
    let shared = perm.shared || hold == Hold::Shared;
    let others = if shared { Others::NotFlock } else { Others::All };
    if meta.file_type().is_block_device() {
        examine_block(file, meta.rdev(), path, perm, hold, others)
    } else if meta.is_file() {
        examine_file(file, &meta, path, perm, others, shared, hold)
    } else {
        Err(SafetyError::NeitherFileNorDevice { path: path.to_string() }.into())
    }
}

/// Refuse for `concerns` (live always, stale unless `--force`); otherwise the stale ones
/// `--force` let through.
fn decide(path: &str, concerns: &[Concern], force: bool) -> Result<Vec<String>, Error> {
    match concern::refusal(path, concerns, force) {
        Some(message) => Err(SafetyError::Concerns { path: path.to_string(), message }.into()),
        None => Ok(concern::texts(concerns, Kind::Stale)),
    }
}

fn examine_file(
    file: &File,
    meta: &fs::Metadata,
    path: &str,
    perm: &Permission,
    others: Others,
    shared: bool,
    hold: Hold,
) -> Result<Vec<String>, Error> {
    let lock = locks::lock_concern(file, path, others);
    let mark = Mark::of_file(file);
    if !mark.vouches_for(meta) && !perm.overwrite {
        // Someone else's lock refuses whatever the flags: say that first.
        if let Some(l) = lock {
            let message = concern::live_message(path, &[l]);
            return Err(SafetyError::Concerns { path: path.to_string(), message }.into());
        }
        return Err(SafetyError::NotOurs { path: path.to_string(), mark }.into());
    }
    let mut concerns: Vec<Concern> = lock.into_iter().map(Concern::live).collect();
    if is_active_swap_file(meta) {
        concerns.push(Concern::live(format!("{path} is an active swap file (listed in /proc/swaps)")));
    }
    concerns.extend(loop_concerns(path, &loops_over_file(meta)).into_iter().map(Concern::live));
    concerns.extend(file_mount_concerns(path, meta).into_iter().map(Concern::live));
    if !shared {
        concerns.extend(open_concern(
            path,
            locks::users_before_writing(!matches!(hold, Hold::Looking), || {
                locks::processes_with_inode(meta.dev(), meta.ino())
            }),
        ));
    }
    if meta.len() > 0 {
        concerns.extend(signature_concerns(file, meta.len(), path).into_iter().map(Concern::stale));
    }
    decide(path, &concerns, perm.force)
}

/// Why an existing file may not be written without `--overwrite`, according to its mark.
fn not_ours_message(path: &str, mark: Mark) -> String {
    let why = match mark {
        Mark::Filling => "drivelab began to create it and never finished (interrupted, or another drivelab is creating it now)",
        Mark::Unverifiable => "it carries an older drivelab mark that does not record the file's size and inode, so it cannot prove the file is still drivelab's",
        Mark::Filled { .. } => "it carries drivelab's mark, but it is no longer the file drivelab made (copied, grown or cut since)",
        Mark::None => "drivelab did not create it",
    };
    format!(
        "{path} exists and {why}; writing would overwrite its data: delete it, or add --overwrite if that is what you want"
    )
}

fn examine_block(
    file: &File,
    rdev: u64,
    path: &str,
    perm: &Permission,
    hold: Hold,
    others: Others,
) -> Result<Vec<String>, Error> {
    let named = perm.destroy.iter().any(|d| block_rdev(d).ok() == Some(rdev));
    if !named {
        return Err(not_named(path, perm.destroy));
    }
    decide(path, &device_concerns(file, rdev, path, hold, others, true), perm.force)
}

/// Every reason writing the block device `file` (device number `rdev`) would be dangerous:
/// who uses it or the storage under it right now (live), what it holds or is (stale).
fn device_concerns(file: &File, rdev: u64, path: &str, hold: Hold, others: Others, writing: bool) -> Vec<Concern> {
    let dev = Device::find(path, rdev);
    let live = |v: Vec<String>| v.into_iter().map(Concern::live);
    let mut out: Vec<Concern> = locks::lock_concern(file, path, others).into_iter().map(Concern::live).collect();
    out.extend(live(mount_concerns(&dev)));
    out.extend(live(swap_concerns(&dev)));
    out.extend(live(holder_concerns(&dev)));
    let members: Vec<_> = dev.members().iter().filter_map(|m| m.devno).collect();
    out.extend(live(loop_concerns(path, &loops_over_devices(&members))));
    // Another program with the device itself open is a live user, as it is of a file: a VM's
    // raw disk, a database, a `dd` — none of them asks for O_EXCL. udev's probes are not users
    // (`users_of_device`), nor are this run's other MPI ranks on a shared target.
    // About to write (`writing`), another drivelab checking it at the same moment is left to
    // the lock, and once held, whoever has it open is given a moment to close it
    // (`locks::users_before_writing`): two writers starting at once must not refuse each other.
    match (hold, writing) {
        (Hold::Shared, _) => {}
        (_, false) => out.extend(open_concern(path, locks::users_of_device(rdev))),
        (hold, true) => out.extend(open_concern(
            path,
            locks::users_before_writing(matches!(hold, Hold::Claimed { .. }), || locks::users_of_device(rdev)),
        )),
    }
    let len = block_len(file);
    out.extend(stack_concerns(path, rdev, len));
    if !out.iter().any(|c| c.kind == Kind::Live) {
        match hold {
            Hold::Looking | Hold::Shared => out.extend(busy_concern(file, path).map(Concern::live)),
            Hold::Claimed { exclusive: false } => out.push(Concern::live(busy_message(file, path))),
            Hold::Claimed { exclusive: true } => {}
        }
    }
    out.extend(layout_concerns(&dev).into_iter().map(Concern::stale));
    out.extend(signature_concerns(file, len, path).into_iter().map(Concern::stale));
    out
}

/// The refusal for a device not named with `--destroy`, saying what each name given was.
fn not_named(path: &str, destroy: &[String]) -> Error {
    let notes = destroy
        .iter()
        .map(|d| match block_rdev(d) {
            Ok(_) => format!("--destroy {d} is a different device"),
            Err(e) => format!("--destroy {d}: {e}"),
        })
        .collect();
    Error::NeedsDestroy { devices: vec![path.to_string()], notes }
}

/// The first few concerns, then the way out (`--force`: these are all stale).
#[cfg(test)]
fn concern_message(concerns: &[String]) -> String {
    concern::stale_message(concerns)
}

fn block_len(f: &File) -> u64 {
    use std::io::Seek;
    let mut f = f;
    f.seek(io::SeekFrom::End(0)).unwrap_or(0)
}

/// The device number of the block device `path` names (following symlinks): how the names
/// given to `--destroy` are compared with the device being examined.
fn block_rdev(path: &str) -> Result<u64, Error> {
    let meta = fs::metadata(path).map_err(|e| Error::io(format!("cannot look at {path}"), e))?;
    if meta.file_type().is_block_device() {
        Ok(meta.rdev())
    } else {
        Err(SafetyError::NotABlockDevice { path: path.to_string() }.into())
    }
}
