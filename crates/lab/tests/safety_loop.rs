//! The safety gate against real block devices: loop devices backed by 64 MiB files in /dev/shm
//! (and, for active swap, never placed on tmpfs, a 16 MiB file in /var/tmp).
//!
//! These need root and losetup (and mkfs.ext4, sfdisk, mkswap, dmsetup for some); a test that
//! lacks them says why with [`skip`] and returns, and `scripts/test` counts it as skipped. Every device, mount, swap area
//! and backing file a test makes is undone by a guard's `Drop`, so a failing assertion cleans up
//! too. Loop tests take a lock so only one of them attaches and detaches at a time. No device
//! other than the test's own loop devices is ever written.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use drivelab_engine::target::{probe, TargetInfo, TargetKind};
use drivelab_lab::safety::{block_concerns, check_write, Permission};

const BACKING_BYTES: u64 = 64 << 20;

// ---- helpers ------------------------------------------------------------------------------

static LOOP_LOCK: Mutex<()> = Mutex::new(());

/// One loop test at a time; a panicking test must not stop the others.
fn loop_lock() -> MutexGuard<'static, ()> {
    LOOP_LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A tool by name, also in the sbin directories a non-login PATH may lack.
fn tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}

fn is_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Says why `test` skips (see `drivelab_testkit`); the caller then returns.
pub fn skip(test: &str, why: &str) {
    drivelab_testkit::log(test, None, why)
}

/// Says why one part of `test` skips while the rest ran.
pub fn skip_part(test: &str, part: &str, why: &str) {
    drivelab_testkit::log(test, Some(part), why)
}

/// Paths of `tools` when running as root with all of them; otherwise says why and gives None.
fn needs<const N: usize>(test: &str, tools: [&str; N]) -> Option<[PathBuf; N]> {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| tool(t).is_none()).collect();
    let why = if drivelab_testkit::fast_tier() {
        drivelab_testkit::FAST_TIER.to_string()
    } else if !is_root() {
        "not running as root".to_string()
    } else if !missing.is_empty() {
        format!("missing {}", missing.join(", "))
    } else {
        return Some(tools.map(|t| tool(t).expect("found above")));
    };
    skip(test, &format!("needs root and {} ({why})", tools.join(", ")));
    None
}

/// Run a tool; its trimmed stdout, or its stderr as the error.
fn run(prog: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", prog.display()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(format!("{} {} failed ({}): {}", prog.display(), args.join(" "), out.status, err.trim()))
    }
}

fn must(prog: &Path, args: &[&str]) -> String {
    run(prog, args).unwrap_or_else(|e| panic!("{e}"))
}

/// A fresh path in /dev/shm that nothing else uses.
fn unique_path(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    PathBuf::from(format!("/dev/shm/drivelab-safety-{}-{tag}-{n}-{nanos}", std::process::id()))
}

/// Removes a file when dropped.
struct RemoveFile(PathBuf);
impl Drop for RemoveFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// A 64 MiB zeroed file in /dev/shm, with `head` written at offset 0.
fn backing_file(head: &[u8]) -> RemoveFile {
    let guard = RemoveFile(unique_path("img"));
    let f = fs::OpenOptions::new().write(true).create_new(true).open(&guard.0).expect("create backing file");
    f.set_len(BACKING_BYTES).expect("size backing file");
    f.write_all_at(head, 0).expect("write backing file");
    guard
}

/// A loop device on a backing file; detached (partitions first) and the file removed on drop.
struct LoopDev {
    dev: String,
    losetup: PathBuf,
    partx: Option<PathBuf>,
    _backing: RemoveFile,
}

impl LoopDev {
    /// Attach `backing` to a free loop device (`partscan`: let the kernel read partitions).
    /// Err (with losetup's complaint) when this machine cannot; the caller skips.
    fn attach(losetup: &Path, backing: RemoveFile, partscan: bool) -> Result<LoopDev, String> {
        let file = backing.0.to_str().expect("utf-8 path");
        let args: &[&str] = if partscan { &["--find", "--show", "-P", file] } else { &["--find", "--show", file] };
        let dev = run(losetup, args)?;
        let lo = LoopDev { dev, losetup: losetup.to_path_buf(), partx: None, _backing: backing };
        lo.assert_ours();
        Ok(lo)
    }

    fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }

    /// The kernel agrees this loop device is backed by our file.
    fn assert_ours(&self) {
        let backing = fs::read_to_string(format!("/sys/block/{}/loop/backing_file", self.name())).unwrap_or_default();
        assert_eq!(Path::new(backing.trim()), self._backing.0, "losetup gave {} for another file", self.dev);
    }

    fn path_list(&self) -> Vec<String> {
        vec![self.dev.clone()]
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if let Some(partx) = &self.partx {
            let _ = run(partx, &["-d", &self.dev]);
        }
        if let Err(e) = run(&self.losetup, &["-d", &self.dev]) {
            eprintln!("warning: {e}");
        }
    }
}

/// Skip the test (return) when the loop device cannot be attached.
macro_rules! attach_or_skip {
    ($test:expr, $losetup:expr, $backing:expr, $partscan:expr) => {
        match LoopDev::attach($losetup, $backing, $partscan) {
            Ok(lo) => lo,
            Err(e) => {
                skip($test, &format!("cannot attach a loop device: {e}"));
                return;
            }
        }
    };
}

/// A mount of `dev` on a fresh directory in /dev/shm; unmounted and removed on drop.
struct Mounted {
    dir: PathBuf,
}

impl Mounted {
    fn new(dev: &str) -> Mounted {
        let dir = unique_path("mnt");
        fs::create_dir(&dir).expect("create mount point");
        let mount = tool("mount").expect("mount");
        if let Err(e) = run(&mount, &[dev, dir.to_str().expect("utf-8")]) {
            let _ = fs::remove_dir(&dir);
            panic!("{e}");
        }
        Mounted { dir }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let umount = tool("umount").expect("umount");
        let dir = self.dir.to_str().expect("utf-8");
        if run(&umount, &[dir]).is_err() {
            let _ = run(&umount, &["-l", dir]);
        }
        let _ = fs::remove_dir(&self.dir);
    }
}

/// An active swap area; swapped off on drop.
struct SwapOn(String);
impl Drop for SwapOn {
    fn drop(&mut self) {
        if let Err(e) = run(&tool("swapoff").expect("swapoff"), &[&self.0]) {
            eprintln!("warning: {e}");
        }
    }
}

fn block_target(dev: &str) -> TargetInfo {
    let t = probe(dev).expect("probe loop device");
    assert_eq!(t.kind, TargetKind::Block);
    t
}

fn refusal(t: &TargetInfo, perm: &Permission) -> String {
    match check_write(t, perm) {
        Ok(()) => panic!("writing {} was allowed with {perm:?}", t.path),
        Err(e) => {
            assert!(e.is_invalid(), "a refusal is an Invalid error: {e}");
            eprintln!("refused: {e}");
            e.to_string()
        }
    }
}

fn allowed(t: &TargetInfo, perm: &Permission) {
    if let Err(e) = check_write(t, perm) {
        panic!("writing {} was refused with {perm:?}: {e}", t.path);
    }
}

fn any_contains(concerns: &[String], needle: &str) -> bool {
    eprintln!("looking for {needle:?} in {concerns:?}");
    concerns.iter().any(|c| c.contains(needle))
}

/// Wait (briefly) for the kernel to show partitions of `name` in sysfs.
fn wait_for_partitions(name: &str) -> bool {
    let first = format!("/sys/class/block/{name}/{name}p1");
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if Path::new(&first).exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Partitions on `lo` (from the kernel's own scan, else from `partx -a`); true when present.
fn add_partitions(lo: &mut LoopDev) -> bool {
    if let Some(partx) = tool("partx") {
        lo.partx = Some(partx.clone()); // partx -d on drop, before detaching
        if !wait_for_partitions(lo.name()) {
            let _ = run(&partx, &["-a", &lo.dev]);
        }
    }
    wait_for_partitions(lo.name())
}

/// A partitioned device is refused whole, and (when the kernel shows them) its partitions are
/// named, and a partition is refused as a partition.
fn check_partitioned(lo: &mut LoopDev, pttype: &str) {
    let has_parts = add_partitions(lo);
    let t = block_target(&lo.dev);
    let concerns = block_concerns(&lo.dev);
    assert!(any_contains(&concerns, &format!("partition table ({pttype})")), "{concerns:?}");
    if has_parts {
        assert!(any_contains(&concerns, "has partitions"), "{concerns:?}");
    } else {
        eprintln!("note: the kernel shows no partitions of {}; checked the table only", lo.dev);
    }
    let msg = refusal(&t, &Permission { destroy: &lo.path_list(), ..Permission::default() });
    assert!(msg.contains("partition") && msg.contains("--force"), "{msg}");

    let part = format!("{}p1", lo.dev);
    if has_parts && Path::new(&part).exists() {
        let concerns = block_concerns(&part);
        assert!(any_contains(&concerns, &format!("{part} is a partition of {}", lo.name())), "{concerns:?}");
        let named = vec![part.clone()];
        let msg = refusal(&block_target(&part), &Permission { destroy: &named, ..Permission::default() });
        assert!(msg.contains("is a partition of"), "{msg}");
    }
}

// ---- block devices ------------------------------------------------------------------------

#[test]
fn fresh_loop_needs_destroy_and_nothing_else() {
    let test = "fresh_loop_needs_destroy_and_nothing_else";
    let Some([losetup]) = needs(test, ["losetup"]) else {
        return;
    };
    let _lock = loop_lock();
    let lo = attach_or_skip!(test, &losetup, backing_file(&[]), false);
    let other = attach_or_skip!(test, &losetup, backing_file(&[]), false);
    let t = block_target(&lo.dev);

    let msg = refusal(&t, &Permission::default());
    assert!(msg.contains(&format!("--destroy {}", lo.dev)), "{msg}");

    allowed(&t, &Permission { destroy: &lo.path_list(), ..Permission::default() });

    let msg = refusal(&t, &Permission { destroy: &other.path_list(), ..Permission::default() });
    assert!(msg.contains("--destroy"), "{msg}");
    let missing = vec!["/dev/shm/drivelab-no-such-device".to_string()];
    refusal(&t, &Permission { destroy: &missing, force: true, overwrite: true, shared: false });

    // Named through a symlink: the same device number, so the same device.
    let link = RemoveFile(unique_path("link"));
    std::os::unix::fs::symlink(&lo.dev, &link.0).expect("symlink");
    let via_link = vec![link.0.to_str().expect("utf-8").to_string()];
    allowed(&t, &Permission { destroy: &via_link, ..Permission::default() });

    assert_eq!(block_concerns(&lo.dev), Vec::<String>::new());
}

#[test]
fn ext4_loop_needs_force() {
    let test = "ext4_loop_needs_force";
    let Some([losetup, mkfs]) = needs(test, ["losetup", "mkfs.ext4"]) else {
        return;
    };
    let _lock = loop_lock();
    let lo = attach_or_skip!(test, &losetup, backing_file(&[]), false);
    must(&mkfs, &["-q", "-F", &lo.dev]);
    let t = block_target(&lo.dev);

    let concerns = block_concerns(&lo.dev);
    assert_eq!(concerns.iter().filter(|c| c.contains("ext4")).count(), 1, "reported once: {concerns:?}");
    assert!(any_contains(&concerns, &format!("{} holds an ext4 filesystem", lo.dev)), "{concerns:?}");

    let named = lo.path_list();
    let msg = refusal(&t, &Permission { destroy: &named, ..Permission::default() });
    assert!(msg.contains("ext4") && msg.contains("--force"), "{msg}");
    allowed(&t, &Permission { destroy: &named, force: true, overwrite: false, shared: false });
    // --force alone is not --destroy.
    refusal(&t, &Permission { destroy: &[], force: true, overwrite: true, shared: false });
}

#[test]
fn mounted_loop_is_refused() {
    let test = "mounted_loop_is_refused";
    let Some([losetup, mkfs, _mount, _umount]) = needs(test, ["losetup", "mkfs.ext4", "mount", "umount"]) else {
        return;
    };
    let _lock = loop_lock();
    let lo = attach_or_skip!(test, &losetup, backing_file(&[]), false);
    must(&mkfs, &["-q", "-F", &lo.dev]);
    let mnt = Mounted::new(&lo.dev);
    let t = block_target(&lo.dev);

    let concerns = block_concerns(&lo.dev);
    let expect = format!("{} is mounted on {}", lo.dev, mnt.dir.display());
    assert!(any_contains(&concerns, &expect), "{concerns:?}");

    let msg = refusal(&t, &Permission { destroy: &lo.path_list(), ..Permission::default() });
    assert!(msg.contains("mounted") && msg.contains("--force"), "{msg}");
}

#[test]
fn sfdisk_partitioned_loop_is_refused() {
    let test = "sfdisk_partitioned_loop_is_refused";
    let Some([losetup, sfdisk]) = needs(test, ["losetup", "sfdisk"]) else {
        return;
    };
    let _lock = loop_lock();
    let mut lo = attach_or_skip!(test, &losetup, backing_file(&[]), true);
    let mut child = Command::new(&sfdisk)
        .args(["-q", &lo.dev])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("run sfdisk");
    child.stdin.take().expect("stdin").write_all(b"label: dos\n,16M\n").expect("feed sfdisk");
    assert!(child.wait().expect("wait for sfdisk").success(), "sfdisk failed");
    check_partitioned(&mut lo, "dos");
}

/// An MBR with one Linux partition (2048 + 32768 sectors), written into the backing file, so
/// the partition path is tested without sfdisk.
fn handmade_mbr() -> Vec<u8> {
    let mut mbr = vec![0u8; 512];
    mbr[446 + 4] = 0x83;
    mbr[446 + 8..446 + 12].copy_from_slice(&2048u32.to_le_bytes());
    mbr[446 + 12..446 + 16].copy_from_slice(&32768u32.to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    mbr
}

#[test]
fn handmade_mbr_loop_is_refused() {
    let test = "handmade_mbr_loop_is_refused";
    let Some([losetup]) = needs(test, ["losetup"]) else {
        return;
    };
    let _lock = loop_lock();
    let mut lo = attach_or_skip!(test, &losetup, backing_file(&handmade_mbr()), true);
    check_partitioned(&mut lo, "dos");

    // A mounted partition makes the whole device "mounted" too.
    let part = format!("{}p1", lo.dev);
    let Some(mkfs) = tool("mkfs.ext4").filter(|_| Path::new(&part).exists()) else {
        skip_part(test, "mounted partition", &format!("no mkfs.ext4 or no {part}"));
        return;
    };
    must(&mkfs, &["-q", "-F", &part]);
    let mnt = Mounted::new(&part);
    let concerns = block_concerns(&lo.dev);
    let expect = format!("partition {} of {} is mounted on {}", &part[5..], lo.dev, mnt.dir.display());
    assert!(any_contains(&concerns, &expect), "{concerns:?}");
}

#[test]
fn swap_loop_is_refused() {
    let test = "swap_loop_is_refused";
    let Some([losetup, mkswap, swapon, _swapoff]) = needs(test, ["losetup", "mkswap", "swapon", "swapoff"]) else {
        return;
    };
    let _lock = loop_lock();
    // The signature alone, on a loop over /dev/shm: never swapped on (swap over tmpfs can
    // deadlock the machine under memory pressure).
    let lo = attach_or_skip!(test, &losetup, backing_file(&[]), false);
    must(&mkswap, &[&lo.dev]);
    let concerns = block_concerns(&lo.dev);
    assert!(any_contains(&concerns, &format!("{} holds a swap signature", lo.dev)), "{concerns:?}");
    drop(lo);

    // Active swap: a loop over a file on the disk (/var/tmp), swapped off before it is detached.
    if !drivelab_testkit::system_changes_allowed() {
        return skip_part(test, "active swap", drivelab_testkit::SYSTEM_CHANGES);
    }
    let lo = attach_or_skip!(test, &losetup, disk_backing_file(), false);
    must(&mkswap, &[&lo.dev]);
    let named = lo.path_list();
    let t = block_target(&lo.dev);
    if let Err(e) = run(&swapon, &[&lo.dev]) {
        skip_part(test, "active swap", &e.to_string());
        return;
    }
    let _swap = SwapOn(lo.dev.clone());
    let concerns = block_concerns(&lo.dev);
    assert!(any_contains(&concerns, &format!("{} is active swap", lo.dev)), "{concerns:?}");
    let msg = refusal(&t, &Permission { destroy: &named, ..Permission::default() });
    assert!(msg.contains("swap"), "{msg}");
}

/// A 16 MiB sparse file on the disk (/var/tmp), for what must not live on tmpfs (active swap).
fn disk_backing_file() -> RemoveFile {
    let name = unique_path("swap").file_name().expect("a name").to_owned();
    let guard = RemoveFile(Path::new("/var/tmp").join(name));
    let f = fs::OpenOptions::new().write(true).create_new(true).open(&guard.0).expect("create backing file");
    f.set_len(16 << 20).expect("size backing file");
    guard
}

// Holders (device-mapper, md) cannot be made on this kernel (neither is built in), so the holder
// check is tested on a sysfs tree made by the test: safety/tests.rs,
// `holders_of_a_disk_or_its_partitions_are_concerns`.

// ---- files and null -----------------------------------------------------------------------

#[test]
fn files_need_overwrite_unless_new_or_ours() {
    let existing = RemoveFile(unique_path("file"));
    fs::write(&existing.0, b"someone's data").expect("write file");
    let path = existing.0.to_str().expect("utf-8");
    let t = probe(path).expect("probe file");
    assert_eq!((t.kind, t.exists, t.created_by_drivelab), (TargetKind::File, true, false));

    let msg = refusal(&t, &Permission::default());
    assert!(msg.contains("drivelab did not create it") && msg.contains("--overwrite"), "{msg}");
    refusal(&t, &Permission { destroy: &[path.to_string()], force: true, overwrite: false, shared: false });
    allowed(&t, &Permission { overwrite: true, ..Permission::default() });
    // The mark is read from the file itself: claiming it in the probed facts proves nothing.
    refusal(&TargetInfo { created_by_drivelab: true, ..t }, &Permission::default());

    // A file drivelab made is its own, until it is no longer that file.
    let made = RemoveFile(unique_path("made"));
    let made_path = made.0.to_str().expect("utf-8").to_string();
    let stop = std::sync::atomic::AtomicBool::new(false);
    drop(drivelab_engine::target::create_file(&made_path, 1 << 20, false, &stop, &mut |_| {}).expect("create"));
    let t = probe(&made_path).expect("probe made file");
    assert!(t.created_by_drivelab);
    allowed(&t, &Permission::default());
    fs::OpenOptions::new().append(true).open(&made.0).expect("open").write_all(b"grown").expect("grow");
    let msg = refusal(&probe(&made_path).expect("probe grown file"), &Permission::default());
    assert!(msg.contains("no longer the file drivelab made"), "{msg}");

    let new = unique_path("new");
    let t = probe(new.to_str().expect("utf-8")).expect("probe new file");
    assert_eq!((t.kind, t.exists), (TargetKind::File, false));
    allowed(&t, &Permission::default());

    allowed(&probe("null").expect("probe null"), &Permission::default());
}
