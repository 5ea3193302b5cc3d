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
     wait for it to finish or stop it";

/// Lock `file` exclusively for as long as it stays open. `Err` names who holds it and says
/// `consequence`.
pub(crate) fn lock_exclusive(file: &File, subject: &str, consequence: &str) -> Result<(), String> {
    lock_within(file, FlockOperation::NonBlockingLockExclusive, subject, consequence, LOCK_PATIENCE)
}

/// Lock `file` shared (a target shared by the ranks of one MPI run): converts this process's
/// exclusive lock, and is refused while another program holds an exclusive one.
pub(crate) fn lock_shared(file: &File, subject: &str, consequence: &str) -> Result<(), String> {
    lock_within(file, FlockOperation::NonBlockingLockShared, subject, consequence, LOCK_PATIENCE)
}

/// Take the non-blocking lock `op`, waiting up to `patience` ([`LOCK_PATIENCE`]) for a holder to let go —
/// but never for another drivelab wanting it exclusively: it holds the target for a whole run,
/// and a second writer that waited out a short one would then write it too (of two started at
/// once, exactly one writes; the other is refused at once, naming it).
fn lock_within(
    file: &File,
    op: FlockOperation,
    subject: &str,
    consequence: &str,
    patience: Duration,
) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match flock(file, op) {
            Ok(()) => return Ok(()),
            Err(e)
                if e == rustix::io::Errno::WOULDBLOCK
                    && op == FlockOperation::NonBlockingLockExclusive
                    && held_by_drivelab(file) =>
            {
                return Err(held_message(file, subject, consequence))
            }
            Err(e) if e == rustix::io::Errno::WOULDBLOCK && started.elapsed() < patience => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => return Err(held_message(file, subject, consequence)),
            // A filesystem without flock support: nothing to share it with through a lock.
            Err(_) => return Ok(()),
        }
    }
}

/// Which locks count as someone else's.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Others {
    /// Every lock but this process's own `flock` (drivelab only ever takes `flock`, so a POSIX
    /// or OFD lock, whose pid /proc/locks may not even show, is never its own).
    All,
    /// As `All`, but no `flock` at all: under MPI with a shared target, the other ranks hold it
    /// with shared `flock`s of their own.
    NotFlock,
}

/// Locks someone else holds on the object `file` is (looked up in /proc/locks), as a live
/// concern naming them.
pub(super) fn lock_concern(file: &File, subject: &str, others: Others) -> Option<String> {
    let meta = file.metadata().ok()?;
    inode_lock_concern(meta.dev(), meta.ino(), subject, others)
}

/// Locks someone else holds on the inode (`dev`, `ino`): a target, or a file or device node
/// further down its stack.
pub(super) fn inode_lock_concern(dev: u64, ino: u64, subject: &str, others: Others) -> Option<String> {
    let locks = locks_on(&fs::read_to_string("/proc/locks").unwrap_or_default(), dev, ino, others);
    if locks.is_empty() {
        return None;
    }
    Some(format!("{subject} is locked by {}, which is using it: {TARGET_IN_USE}", lock_owners(&locks, dev, ino)))
}

/// Whether another drivelab holds a lock on the object `file` is.
fn held_by_drivelab(file: &File) -> bool {
    let Ok(m) = file.metadata() else { return false };
    let locks = locks_on(&fs::read_to_string("/proc/locks").unwrap_or_default(), m.dev(), m.ino(), Others::All);
    locks.iter().filter_map(|l| l.pid).any(runs_our_executable)
}

fn held_message(file: &File, subject: &str, consequence: &str) -> String {
    let who = file
        .metadata()
        .ok()
        .and_then(|m| {
            let locks = locks_on(&fs::read_to_string("/proc/locks").unwrap_or_default(), m.dev(), m.ino(), Others::All);
            (!locks.is_empty()).then(|| lock_owners(&locks, m.dev(), m.ino()))
        })
        .unwrap_or_else(|| "another program".to_string());
    format!("{subject} is locked by {who}, which is using it: {consequence} (--force does not share a target)")
}

/// The holders of `locks` by name: a pid where /proc/locks gives one, otherwise (OFD locks
/// belong to an open file, not a process) the processes that have the inode open.
fn lock_owners(locks: &[Lock], dev: u64, ino: u64) -> String {
    // A flock belongs to the open file: the pid /proc/locks shows is the process that took it,
    // which may have exited while a child that inherited the descriptor holds it on.
    let alive = |p: &u32| std::path::Path::new(&format!("/proc/{p}")).exists();
    let mut pids: Vec<u32> = locks.iter().filter_map(|l| l.pid).filter(alive).collect();
    let mut kinds: Vec<&str> = locks.iter().map(|l| l.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    if locks.iter().any(|l| !l.pid.is_some_and(|p| alive(&p))) {
        pids.extend(processes_with_inode(dev, ino));
    }
    pids.sort_unstable();
    pids.dedup();
    let who = if pids.is_empty() {
        "another program".to_string()
    } else {
        pids.iter().map(|&p| describe_process(p)).collect::<Vec<_>>().join(", ")
    };
    let kinds: Vec<&str> = kinds.into_iter().map(lock_kind_words).collect();
    format!("{who} (a {})", kinds.join(", a "))
}

/// What /proc/locks calls a kind of lock, in words (`OFDLCK`: "an open file description lock").
fn lock_kind_words(kind: &str) -> &str {
    match kind {
        "FLOCK" => "flock",
        "POSIX" => "POSIX record lock",
        "OFDLCK" => "open file description lock, as QEMU takes",
        "LEASE" => "lease",
        "DELEG" => "NFS delegation",
        other => other,
    }
}

/// One lock of /proc/locks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Lock {
    /// `FLOCK`, `POSIX`, `OFDLCK`, `LEASE`, `DELEG`...
    pub(super) kind: String,
    /// The holder, when the kernel says (an OFD lock shows `-1`: it belongs to an open file).
    pub(super) pid: Option<u32>,
}

/// The locks held on the inode (`dev`, `ino`) that are someone else's by `others`, from
/// /proc/locks (`1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`, `2: OFDLCK ADVISORY READ -1
/// 00:1a:42 0 EOF`; `->` lines are waiters, not holders).
pub(super) fn locks_on(text: &str, dev: u64, ino: u64, others: Others) -> Vec<Lock> {
    let me = std::process::id();
    let want = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    text.lines()
        .filter(|l| !l.contains("->"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let at = f.iter().position(|w| w.matches(':').count() == 2 && w.split(':').count() == 3)?;
            if !f[at].eq_ignore_ascii_case(&want) {
                return None;
            }
            let kind = f.get(1)?.to_string();
            let pid = f.get(at.checked_sub(1)?)?.parse::<i64>().ok()?;
            let pid = u32::try_from(pid).ok().filter(|&p| p > 0);
            let flock = kind == "FLOCK";
            let ours = flock && pid == Some(me);
            let skip = ours || (flock && others == Others::NotFlock);
            (!skip).then_some(Lock { kind, pid })
        })
        .collect()
}

/// Processes other than this one holding a lock on the inode (`dev`, `ino`), where /proc/locks
/// names them.
#[cfg(test)]
pub(super) fn lock_holders(locks: &str, dev: u64, ino: u64) -> Vec<u32> {
    let mut pids: Vec<u32> = locks_on(locks, dev, ino, Others::All).into_iter().filter_map(|l| l.pid).collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Processes other than this one with the inode (`dev`, `ino`) open through any descriptor:
/// a FUSE daemon serving an image, a VM, an editor — users whatever the mount table says.
/// Each descriptor is looked at with `statx(AT_STATX_DONT_SYNC)`, so a file on a FUSE or
/// network filesystem is answered from the cache, never by asking a daemon that may hang.
pub(super) fn processes_with_inode(dev: u64, ino: u64) -> Vec<u32> {
    processes_where(|fd| fd_inode(fd).is_some_and(|(d, i, _)| d == dev && i == ino))
}

/// The pids (other than this one) that have a descriptor for which `wanted` holds.
fn processes_where(mut wanted: impl FnMut(&std::path::Path) -> bool) -> Vec<u32> {
    let me = std::process::id();
    let Ok(procs) = fs::read_dir("/proc") else { return Vec::new() };
    let mut out = Vec::new();
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        let Ok(fds) = fs::read_dir(p.path().join("fd")) else { continue };
        // Asked only of a process that has it open: the scan is the window in which another
        // drivelab's checks and this one's can see each other, so it stays short.
        if fds.flatten().any(|fd| wanted(&fd.path())) && !is_own_fork(pid, me) {
            out.push(pid);
        }
    }
    out.sort_unstable();
    out
}

/// Whether `pid` is a child of this process still running this very executable: a fork not yet
/// exec'd (a `Command` another thread is starting). Between fork and exec it holds copies of all
/// of this process's descriptors, which close at exec (Rust opens every file close-on-exec); it
/// is this process, not a user of the target.
fn is_own_fork(pid: u32, me: u32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // The fields after the command name (which may hold spaces and parentheses): state, ppid.
    let Some(ppid) = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)) else { return false };
    if ppid.parse::<u32>().ok() != Some(me) {
        return false;
    }
    runs_our_executable(pid)
}

/// Whether `pid` runs this very executable (another drivelab, or a fork of this one).
pub(super) fn runs_our_executable(pid: u32) -> bool {
    match (fs::metadata(format!("/proc/{pid}/exe")), fs::metadata("/proc/self/exe")) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Who has a target open, as a writer about to take it asks: before it holds the target
/// (`claimed` false), other drivelab processes are left to the lock (each takes it before
/// writing, so one of two checking at once is refused by the other's lock, where refusing each
/// other's open descriptors would stop both); once it holds the target, everyone still there
/// after [`USER_PATIENCE`] ([`lasting`]) — a drivelab that keeps it open to read it included.
pub(super) fn users_before_writing(claimed: bool, scan: impl FnMut() -> Vec<u32>) -> Vec<u32> {
    if claimed {
        lasting(USER_PATIENCE, scan)
    } else {
        let mut scan = scan;
        scan().into_iter().filter(|&p| !runs_our_executable(p)).collect()
    }
}

/// (device, inode, and for a block device its number) of what the descriptor link `fd`
/// (`/proc/PID/fd/N`) refers to, for files and devices only (sockets, pipes and anonymous inodes are skipped unlooked).
fn fd_inode(fd: &std::path::Path) -> Option<(u64, u64, Option<u64>)> {
    use std::os::unix::ffi::OsStrExt;
    let target = fs::read_link(fd).ok()?;
    if !target.as_os_str().as_bytes().starts_with(b"/") {
        return None;
    }
    let c = std::ffi::CString::new(fd.as_os_str().as_bytes()).ok()?;
    // SAFETY: an all-zero statx is a valid value of this plain-data struct.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a valid statx the call fills; nothing else is
    // touched.
    let r = unsafe {
        libc::statx(libc::AT_FDCWD, c.as_ptr(), libc::AT_STATX_DONT_SYNC, libc::STATX_TYPE | libc::STATX_INO, &mut st)
    };
    if r != 0 {
        return None;
    }
    let dev = libc::makedev(st.stx_dev_major, st.stx_dev_minor);
    let block = u32::from(st.stx_mode) & libc::S_IFMT == libc::S_IFBLK;
    let rdev = block.then(|| libc::makedev(st.stx_rdev_major, st.stx_rdev_minor));
    Some((dev, st.stx_ino, rdev))
}

/// Processes other than this one with the block device `rdev` open (any descriptor).
pub(super) fn processes_with_device(rdev: u64) -> Vec<u32> {
    processes_where(|fd| fd_inode(fd).is_some_and(|(_, _, r)| r == Some(rdev)))
}

/// How long a process that has a target open is given to close it, when this drivelab already
/// holds the target (O_EXCL and its lock): longer than [`LOCK_PATIENCE`], so that another
/// drivelab which opened the target to check it, and then waits for the lock, has given up and
/// closed it. A user that is still there after this is a live user.
pub(super) const USER_PATIENCE: Duration = Duration::from_millis(2500);

/// The pids `scan` finds, and still finds on each look for up to `patience`: a process that
/// opens a target for a moment (another drivelab checking it before our lock refuses it, a
/// `blkid`) is gone by then; a live user (a VM, a database, `dd`) is not. Empty as soon as a look
/// finds nobody left.
pub(super) fn lasting(patience: Duration, mut scan: impl FnMut() -> Vec<u32>) -> Vec<u32> {
    let started = Instant::now();
    let mut left = scan();
    while !left.is_empty() && started.elapsed() < patience {
        std::thread::sleep(Duration::from_millis(50));
        let now = scan();
        left.retain(|p| now.contains(p));
    }
    left
}

/// Processes other than this one and udev with the block device `rdev` open: udev's workers
/// open a device for a moment to probe it after every change, which is no use of its data.
pub(super) fn users_of_device(rdev: u64) -> Vec<u32> {
    processes_with_device(rdev)
        .into_iter()
        .filter(|p| {
            let comm = fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
            !matches!(comm.trim(), "systemd-udevd" | "(udev-worker)" | "udevd")
        })
        .collect()
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
    if !text.is_empty() {
        return format!("pid {pid} ({text})");
    }
    // No command line: a kernel thread, a process that is exiting (a zombie keeps only its
    // name), or one gone since it was seen.
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    match (stat.find('('), stat.rfind(')')) {
        (Some(a), Some(b)) if a < b => {
            let name = &stat[a + 1..b];
            if stat[b + 1..].trim_start().starts_with(['Z', 'X']) {
                format!("pid {pid} ({name}, exiting)")
            } else {
                format!("pid {pid} ([{name}])")
            }
        }
        _ => format!("pid {pid} (which has exited since)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_without_a_command_line_is_still_described() {
        // A kernel thread by its name in brackets, as ps shows it (pid 2 is kthreadd outside a
        // pid namespace).
        if fs::read_to_string("/proc/2/stat").is_ok_and(|s| s.starts_with("2 (kthreadd)")) {
            assert_eq!(describe_process(2), "pid 2 ([kthreadd])");
        }
        // A child that has exited and is not yet waited for: a zombie, named and said exiting.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let stat = format!("/proc/{pid}/stat");
        // The event, not a sleep: its state turns Z when it has exited.
        while !fs::read_to_string(&stat).unwrap_or_default().contains(") Z") {
            std::thread::yield_now();
        }
        assert_eq!(describe_process(pid), format!("pid {pid} (true, exiting)"));
        child.wait().unwrap();
        // Waited for, it is gone (its pid not yet reused: pids go up before they wrap).
        assert_eq!(describe_process(pid), format!("pid {pid} (which has exited since)"));
    }

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
    fn ofd_posix_and_lease_locks_count_and_only_our_own_flock_does_not() {
        let dev = libc::makedev(8, 1);
        let me = std::process::id();
        let text = format!(
            "1: OFDLCK ADVISORY  WRITE -1 08:01:5678 0 EOF\n\
             2: POSIX  ADVISORY  WRITE {me} 08:01:5678 0 EOF\n\
             3: FLOCK  ADVISORY  WRITE {me} 08:01:5678 0 EOF\n\
             4: LEASE  ACTIVE    READ 31 08:01:5678 0 EOF\n\
             5: FLOCK  ADVISORY  READ 32 08:01:5678 0 EOF\n"
        );
        let kinds = |o| locks_on(&text, dev, 5678, o).into_iter().map(|l| (l.kind, l.pid)).collect::<Vec<_>>();
        let ofd = ("OFDLCK".to_string(), None);
        let posix = ("POSIX".to_string(), Some(me));
        let lease = ("LEASE".to_string(), Some(31));
        assert_eq!(kinds(Others::All), [ofd.clone(), posix.clone(), lease.clone(), ("FLOCK".into(), Some(32))]);
        assert_eq!(kinds(Others::NotFlock), [ofd, posix, lease]);
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

    /// A second writer waited up to 1.5 s for a drivelab's lock, and so wrote the target too
    /// once a short run had ended. Another drivelab's lock is refused at once: waited for an
    /// hour here, the old behaviour would hang this test.
    #[test]
    fn another_drivelabs_lock_is_refused_at_once_not_waited_for() {
        let path = std::env::temp_dir().join(format!("drivelab-lock-other-{}", std::process::id()));
        std::fs::write(&path, b"x").unwrap();
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let mut pipe = [0i32; 2];
        // SAFETY: a valid two-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(pipe.as_mut_ptr()) }, 0);
        // SAFETY: the child only calls async-signal-safe functions (open, flock, write, pause,
        // _exit) and is killed and reaped by the parent below.
        let child = unsafe { libc::fork() };
        if child == 0 {
            // SAFETY: async-signal-safe calls in the forked child; `c_path` was made before fork.
            unsafe {
                let fd = libc::open(c_path.as_ptr(), libc::O_RDONLY);
                let ok = fd >= 0 && libc::flock(fd, libc::LOCK_EX) == 0;
                libc::write(pipe[1], [ok as u8].as_ptr().cast(), 1);
                libc::pause();
                libc::_exit(0);
            }
        }
        assert!(child > 0, "fork failed");
        let mut got = [0u8; 1];
        // SAFETY: reading one byte into a one-byte buffer from our pipe's read end.
        let n = unsafe { libc::read(pipe[0], got.as_mut_ptr().cast(), 1) };
        let mine = File::open(&path).unwrap();
        let r =
            lock_within(&mine, FlockOperation::NonBlockingLockExclusive, "f", TARGET_IN_USE, Duration::from_secs(3600));
        // SAFETY: killing and reaping our own child; closing our pipe's descriptors.
        unsafe {
            libc::kill(child, libc::SIGKILL);
            libc::waitpid(child, std::ptr::null_mut(), 0);
            libc::close(pipe[0]);
            libc::close(pipe[1]);
        }
        std::fs::remove_file(&path).unwrap();
        assert_eq!((n, got[0]), (1, 1), "the child took its lock");
        let e = r.unwrap_err();
        assert!(e.contains(&format!("is locked by pid {child}")), "{e}");
        assert!(e.contains("(a flock)"), "{e}");
    }

    #[test]
    fn our_own_fork_before_exec_is_not_a_user_and_another_program_is() {
        use std::os::unix::fs::MetadataExt;
        let path = std::env::temp_dir().join(format!("drivelab-fork-{}", std::process::id()));
        std::fs::write(&path, b"x").unwrap();
        let held = File::open(&path).unwrap();
        let meta = held.metadata().unwrap();
        // SAFETY: the child only calls async-signal-safe functions (pause, _exit) and is killed
        // by the parent below; the parent waits for it so no zombie is left.
        let child = unsafe { libc::fork() };
        if child == 0 {
            // SAFETY: async-signal-safe calls in the forked child.
            unsafe {
                libc::pause();
                libc::_exit(0);
            }
        }
        assert!(child > 0, "fork failed");
        let child = child as u32;
        // The fork is a child of ours running our executable: it holds `held` by inheritance only.
        let seen = processes_with_inode(meta.dev(), meta.ino());
        let own_fork = is_own_fork(child, std::process::id());
        // Another program with the file open is a user: a shell holding it on fd 3.
        let mut other = std::process::Command::new("sh")
            .arg("-c")
            .arg("exec 3<\"$0\"; echo ready; exec sleep 30")
            .arg(&path)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut ready = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(other.stdout.take().unwrap()), &mut ready).unwrap();
        let with_other = processes_with_inode(meta.dev(), meta.ino());
        let _ = other.kill();
        let _ = other.wait();
        // SAFETY: killing and reaping our own child.
        unsafe {
            libc::kill(child as i32, libc::SIGKILL);
            libc::waitpid(child as i32, std::ptr::null_mut(), 0);
        }
        std::fs::remove_file(&path).unwrap();
        assert!(own_fork, "the fork before exec is recognised as ours");
        assert!(!seen.contains(&child), "a fork of ours before exec is not a user: {seen:?}");
        assert!(with_other.contains(&other.id()), "a program with the file open is a user: {with_other:?}");
    }

    #[test]
    fn a_passing_opener_is_not_a_user_and_a_lasting_one_is() {
        // Another drivelab checking the target (pid 7) closes it once our lock refuses it; a
        // database (pid 9) keeps it open.
        let mut looks = 0;
        let users = lasting(Duration::from_millis(200), || {
            looks += 1;
            if looks < 3 {
                vec![7, 9]
            } else {
                vec![9]
            }
        });
        assert_eq!(users, [9]);
        let mut looks = 0;
        let users = lasting(Duration::from_secs(30), || {
            looks += 1;
            if looks < 3 {
                vec![7]
            } else {
                Vec::new()
            }
        });
        assert!(users.is_empty(), "nobody left: no waiting out the patience");
        assert_eq!(looks, 3, "it stops looking once nobody is left");
        assert_eq!(lasting(Duration::from_secs(30), Vec::new), Vec::<u32>::new());
    }
}
