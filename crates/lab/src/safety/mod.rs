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

mod device;
mod in_use;
mod signatures;
#[cfg(test)]
mod tests;

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use drivelab_engine::target::{self, TargetInfo, TargetKind};
use drivelab_engine::Error;

use device::{holder_concerns, layout_concerns, Device};
use in_use::{busy_concern, is_active_swap_file, mount_concerns, swap_concerns};
use signatures::signature_concerns;

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
    match fs::File::open(path) {
        Ok(f) => {
            let size = f.metadata().map(|m| m.len()).unwrap_or(0);
            let size = if size == 0 { block_len(&f) } else { size };
            out.extend(signature_concerns(&f, size, path));
        }
        Err(e) => out.push(format!("cannot read {path} to look for signatures: {e}")),
    }
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

fn block_len(f: &fs::File) -> u64 {
    use std::io::Seek;
    let mut f = f;
    f.seek(io::SeekFrom::End(0)).unwrap_or(0)
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
