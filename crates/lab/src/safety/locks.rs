//! Who else is using a target: `flock` locks (what drivelab takes on everything it writes, so a
//! second drivelab is refused by name), and for a device held exclusively, the processes that
//! have it open. Used to name the other program in a refusal, never to decide alone.

use std::fs::{self, File};
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use rustix::fs::{flock, FlockOperation};

/// How long a lock held by someone else is waited for before refusing: udev takes a shared
/// lock on a block device for a moment while it probes one (systemd's "Locking Block Device
/// Access"), which must not make drivelab fail.
const LOCK_PATIENCE: Duration = Duration::from_millis(1500);

/// What a refusal says of a target someone else writes.
pub(crate) const TARGET_IN_USE: &str = "two programs writing one target destroy each other's data and measurements; \
     wait for it to finish or stop it (--force does not share a target)";

/// Lock `file` exclusively for as long as it stays open. `Err` names who holds it and says
/// `consequence`.
pub(crate) fn lock_exclusive(file: &File, subject: &str, consequence: &str) -> Result<(), String> {
    lock(file, FlockOperation::NonBlockingLockExclusive, subject, consequence)
}

/// Lock `file` shared (a target shared by the ranks of one MPI run): converts this process's
/// exclusive lock, and is refused while another program holds an exclusive one.
pub(crate) fn lock_shared(file: &File, subject: &str, consequence: &str) -> Result<(), String> {
    lock(file, FlockOperation::NonBlockingLockShared, subject, consequence)
}

/// Take the non-blocking lock `op`, waiting up to [`LOCK_PATIENCE`] for a holder to let go.
fn lock(file: &File, op: FlockOperation, subject: &str, consequence: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match flock(file, op) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK && started.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => return Err(held_message(file, subject, consequence)),
            // A filesystem without flock support: nothing to share it with through a lock.
            Err(_) => return Ok(()),
        }
    }
}

/// A lock someone else holds on the object `file` is (looked up in /proc/locks), as a concern.
pub(super) fn lock_concern(file: &File, subject: &str) -> Option<String> {
    let meta = file.metadata().ok()?;
    let holders = lock_holders(&fs::read_to_string("/proc/locks").unwrap_or_default(), meta.dev(), meta.ino());
    (!holders.is_empty()).then(|| held_message(file, subject, TARGET_IN_USE))
}

fn held_message(file: &File, subject: &str, consequence: &str) -> String {
    let holders = file
        .metadata()
        .map(|m| lock_holders(&fs::read_to_string("/proc/locks").unwrap_or_default(), m.dev(), m.ino()))
        .unwrap_or_default();
    let who = if holders.is_empty() {
        "another program".to_string()
    } else {
        holders.iter().map(|&p| describe_process(p)).collect::<Vec<_>>().join(", ")
    };
    format!("{subject} is locked by {who}, which is using it: {consequence}")
}

/// Processes other than this one holding a lock on the inode (`dev`, `ino`), from /proc/locks
/// (`1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`; `->` lines are waiters, not holders).
pub(super) fn lock_holders(locks: &str, dev: u64, ino: u64) -> Vec<u32> {
    let me = std::process::id();
    let want = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    let mut pids: Vec<u32> = locks
        .lines()
        .filter(|l| !l.contains("->"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let at = f.iter().position(|w| w.matches(':').count() == 2 && w.split(':').count() == 3)?;
            let pid = f.get(at.checked_sub(1)?)?.parse::<u32>().ok()?;
            (f[at].eq_ignore_ascii_case(&want) && pid != me).then_some(pid)
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Processes other than this one with the block device `rdev` open (any descriptor).
pub(super) fn processes_with_device(rdev: u64) -> Vec<u32> {
    use std::os::unix::fs::FileTypeExt;
    let me = std::process::id();
    let Ok(procs) = fs::read_dir("/proc") else { return Vec::new() };
    let mut out = Vec::new();
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        let Ok(fds) = fs::read_dir(p.path().join("fd")) else { continue };
        let has = fds
            .flatten()
            .any(|fd| fs::metadata(fd.path()).is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev));
        if has {
            out.push(pid);
        }
    }
    out
}

/// `pid 1234 (drivelab run --write …)`: the process as a reader recognises it.
pub(super) fn describe_process(pid: u32) -> String {
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let mut words: Vec<String> =
        cmdline.split(|&b| b == 0).filter(|w| !w.is_empty()).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
    if let Some(first) = words.first_mut() {
        if let Some(base) = first.rsplit('/').next() {
            *first = base.to_string();
        }
    }
    let mut text = words.join(" ");
    if text.chars().count() > 80 {
        text = text.chars().take(79).collect::<String>() + "…";
    }
    if text.is_empty() {
        format!("pid {pid}")
    } else {
        format!("pid {pid} ({text})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_holders_are_read_from_proc_locks() {
        let dev = libc::makedev(8, 1);
        let text = "1: FLOCK  ADVISORY  WRITE 4242 08:01:5678 0 EOF\n\
                    1: -> FLOCK  ADVISORY  WRITE 4343 08:01:5678 0 EOF\n\
                    2: POSIX  ADVISORY  READ 77 00:1a:5678 0 EOF\n\
                    3: FLOCK  ADVISORY  WRITE 99 08:01:1 0 EOF\n";
        assert_eq!(lock_holders(text, dev, 5678), vec![4242]);
        assert_eq!(lock_holders(text, libc::makedev(0, 0x1a), 5678), vec![77]);
        assert!(lock_holders("", dev, 5678).is_empty());
    }

    #[test]
    fn a_second_lock_on_the_same_file_is_refused_naming_this_process() {
        let path = std::env::temp_dir().join(format!("drivelab-lock-{}", std::process::id()));
        std::fs::write(&path, b"x").unwrap();
        let a = File::open(&path).unwrap();
        let b = File::open(&path).unwrap();
        lock_exclusive(&a, "f", TARGET_IN_USE).unwrap();
        // /proc/locks hides our own pid from the holders, so the message says "another program";
        // the refusal itself is what matters here.
        let e = lock_exclusive(&b, "f", TARGET_IN_USE).unwrap_err();
        assert!(e.contains("is locked by"), "{e}");
        drop(a);
        lock_exclusive(&b, "f", TARGET_IN_USE).unwrap();
        std::fs::remove_file(&path).unwrap();
    }
}
