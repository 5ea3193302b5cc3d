//! The destructive attacks of issue #10 (items 1–5), each made through the real binary on files
//! and loop devices backed by /dev/shm, each one that succeeded before the checks moved onto the
//! descriptor drivelab writes through. Every test checks the victim's bytes afterwards, not only
//! the exit code: a refusal that still wrote would pass an exit-code test.

use crate::common;

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// A drivelab started in the background (killed on drop if still running).
struct Background(Child);

impl Background {
    fn start(args: &[&str]) -> Background {
        let child = crate::common::bin()
            .current_dir(scratch_cwd())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start drivelab");
        Background(child)
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    /// Ctrl-C it (SIGINT) and wait: its exit code and standard error.
    fn interrupt(self) -> (i32, String) {
        // SAFETY: kill has no memory-safety preconditions; the pid is our live child's.
        unsafe { libc::kill(self.pid() as i32, libc::SIGINT) };
        self.wait()
    }
    fn wait(mut self) -> (i32, String) {
        let out = std::mem::replace(&mut self.0, Command::new("true").spawn().unwrap()).wait_with_output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        crate::common::kill_tree(&mut self.0);
    }
}

/// Wait until `cond` holds (at most `secs`).
fn wait_for(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

/// Someone holds `dev` exclusively (an O_EXCL open of it fails with EBUSY).
fn held_exclusively(dev: &str) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let e = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL).open(dev).err();
    e.and_then(|e| e.raw_os_error()) == Some(libc::EBUSY)
}

/// Someone holds a lock on `path` (per /proc/locks).
fn locked(path: &str) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(m) = std::fs::metadata(path) else { return false };
    let want = format!("{:02x}:{:02x}:{}", libc::major(m.dev()), libc::minor(m.dev()), m.ino());
    std::fs::read_to_string("/proc/locks").unwrap_or_default().lines().any(|l| l.contains(&want))
}

fn blkid_type(dev: &str) -> String {
    String::from_utf8_lossy(&sh(&format!("blkid -p -o value -s TYPE {dev}")).stdout).trim().to_string()
}

/// A loop device over `backing` (a file or a device) from byte `offset`; detached on drop.
struct LoopOver(String);
impl LoopOver {
    fn new(backing: &str, offset: u64) -> LoopOver {
        let o = sh(&format!("losetup --find --show --offset {offset} {backing}"));
        assert!(o.status.success(), "losetup: {}", String::from_utf8_lossy(&o.stderr));
        LoopOver(String::from_utf8_lossy(&o.stdout).trim().to_string())
    }
}
impl Drop for LoopOver {
    fn drop(&mut self) {
        let _ = sh(&format!("losetup -d {}", self.0));
    }
}

// ---- 1. checks on a path, writes on a re-open ----------------------------------------------

/// Start a write run on `[new, link]`, stop it while it fills `new` (before it opens `link`),
/// point `link` at `victim`, let it go on. Retries if the fill was over before the stop landed.
fn swap_during_fill(s: &Scratch, link: &str, first: &str, victim: &str, extra: &[&str]) -> (i32, String) {
    for attempt in 0..5 {
        let _ = std::fs::remove_file(link);
        std::os::unix::fs::symlink(first, link).unwrap();
        let new = s.path(&format!("new{attempt}"));
        let mut args = vec!["run", &new, link, "--rw", "write", "--size", "256m", "--time", "300ms", "-q"];
        args.extend_from_slice(extra);
        let bg = Background::start(&args);
        assert!(wait_for(10, || Path::new(&new).exists()), "drivelab never created {new}");
        // Every process of it: a SIGSTOP is not passed on.
        crate::common::signal_tree(bg.pid(), libc::SIGSTOP);
        let filling = std::fs::metadata(&new).map_or(0, |m| m.len()) < 256 << 20;
        if filling {
            std::fs::remove_file(link).unwrap();
            std::os::unix::fs::symlink(victim, link).unwrap();
        }
        crate::common::signal_tree(bg.pid(), libc::SIGCONT);
        let out = bg.wait();
        let _ = std::fs::remove_file(&new);
        if filling {
            return out;
        }
    }
    panic!("the fill always finished before it could be stopped");
}

#[test]
fn a_symlink_swapped_to_a_users_file_after_the_checks_is_refused_and_the_file_untouched() {
    let s = Scratch::new("attack-swap-file");
    let (ours, victim, link) = (s.path("ours"), s.path("victim"), s.path("link"));
    let made = drivelab(&["run", &ours, "--size", "4m", "--time", "100ms", "-q"]);
    assert!(made.status.success(), "{}", stderr(&made));
    std::fs::write(&victim, vec![0x5A; 4 << 20]).unwrap();
    let before = digest(&victim);
    let (code, err) = swap_during_fill(&s, &link, &ours, &victim, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("changed between its checks and its opening"), "{err}");
    assert_eq!(digest(&victim), before, "the user's file was written");
}

#[test]
fn a_symlink_swapped_to_an_ext4_device_after_the_checks_is_refused_and_the_device_untouched() {
    need_loop!();
    if !tool("mkfs.ext4") {
        return skip("mkfs.ext4 is not installed");
    }
    let s = Scratch::new("attack-swap-dev");
    let clean = LoopDev::new(&s.0.join("clean.img"), 32 << 20, None);
    let ext4 = LoopDev::new(&s.0.join("ext4.img"), 32 << 20, None);
    must(&format!("mkfs.ext4 -q {}", ext4.dev));
    let before = digest(&ext4.dev);
    let link = s.path("disk");
    let (code, err) = swap_during_fill(&s, &link, &clean.dev, &ext4.dev, &["--destroy", &link]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("changed between its checks and its opening"), "{err}");
    assert_eq!(digest(&ext4.dev), before, "the ext4 device was written");
    assert_eq!(blkid_type(&ext4.dev), "ext4");
}

// ---- 2. nobody else may open it while drivelab writes ---------------------------------------

#[test]
fn while_drivelab_writes_a_device_a_second_writer_mkfs_and_mount_are_all_refused() {
    need_loop!();
    let s = Scratch::new("attack-excl");
    let lo = LoopDev::new(&s.0.join("d.img"), 32 << 20, None);
    // The first writer runs until this test stops it, so however long the checks below take on a
    // busy machine, it is still writing while they run.
    let bg = Background::start(&["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "10m", "-q"]);
    assert!(wait_for(10, || held_exclusively(&lo.dev) && locked(&lo.dev)), "drivelab never held {}", lo.dev);

    let second = drivelab(&["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "300ms", "-q"]);
    if second.status.code() != Some(2) {
        // Say whether the first writer was still there (a second writer let in while the first
        // writes is the bug; a first writer that stopped early is another one).
        let alive = std::path::Path::new(&format!("/proc/{}", bg.pid())).exists();
        let first = if alive { "still running".to_string() } else { format!("stopped: {:?}", bg.wait()) };
        panic!(
            "a second writer ran (exit {:?}) while the first was {first}: {}",
            second.status.code(),
            stderr(&second)
        );
    }
    let err = stderr(&second);
    assert!(err.contains(&format!("locked by pid {} (drivelab run", crate::common::job_pid(bg.pid()))), "{err}");
    // --force does not make two writers share it either.
    let forced = drivelab(&["run", &lo.dev, "--destroy", &lo.dev, "--force", "--rw", "write", "--time", "300ms", "-q"]);
    assert_eq!(forced.status.code(), Some(2), "{}", stderr(&forced));
    assert!(
        stderr(&forced).contains(&format!("pid {} (drivelab run", crate::common::job_pid(bg.pid()))),
        "{}",
        stderr(&forced)
    );

    if tool("mkfs.ext4") {
        assert!(!sh(&format!("mkfs.ext4 -q {}", lo.dev)).status.success(), "mkfs ran on a device drivelab writes");
    } else {
        skip_part("mkfs during the run", "mkfs.ext4 is not installed");
    }
    std::fs::create_dir_all(s.path("m")).unwrap();
    let mount = sh(&format!("mount -t ext2 {} {}", lo.dev, s.path("m")));
    if mount.status.success() {
        let _ = sh(&format!("umount {}", s.path("m")));
        panic!("a mount succeeded on a device drivelab writes");
    }
    let (code, err) = bg.interrupt();
    assert_eq!(code, 130, "the first writer, stopped by Ctrl-C: {err}");
}

#[test]
fn while_drivelab_writes_a_file_a_second_drivelab_is_refused_by_name() {
    let s = Scratch::new("attack-flock");
    let f = s.path("f");
    let made = drivelab(&["run", &f, "--size", "8m", "--time", "100ms", "-q"]);
    assert!(made.status.success(), "{}", stderr(&made));
    // Writing until this test stops it: still writing however long the second one's checks take.
    let bg = Background::start(&["run", &f, "--rw", "randwrite", "--time", "10m", "-q"]);
    assert!(wait_for(10, || locked(&f)), "drivelab never locked {f}");
    let second = drivelab(&["run", &f, "--rw", "randwrite", "--time", "300ms", "-q"]);
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains(&format!("locked by pid {} (drivelab run", crate::common::job_pid(bg.pid()))),
        "{}",
        stderr(&second)
    );
    let (code, err) = bg.interrupt();
    assert_eq!(code, 130, "the first writer, stopped by Ctrl-C: {err}");
}

#[test]
fn a_results_directory_being_written_cannot_be_resumed_by_another_drivelab() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("attack-resume");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\ntime = \"1500ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let results = s.path("results");
    let bg = Background::start(&["plan", &plan, "null", "--results", &results, "-q"]);
    let dir = || std::fs::read_dir(&results).ok()?.flatten().next().map(|e| e.path());
    assert!(wait_for(10, || dir().is_some_and(|d| locked(d.to_str().unwrap()))), "no locked results directory");
    let d = dir().unwrap();
    let resume = drivelab(&["plan", "--resume", d.to_str().unwrap(), "-q"]);
    assert_eq!(resume.status.code(), Some(2), "{}", stderr(&resume));
    assert!(
        stderr(&resume).contains(&format!("locked by pid {}", crate::common::job_pid(bg.pid()))),
        "{}",
        stderr(&resume)
    );
    let (code, err) = bg.wait();
    assert_eq!(code, 0, "the first run: {err}");
    assert_eq!(Saved::load(&d).points.len(), 2, "the first run's points were disturbed");
}

// ---- 3. the "created by drivelab" mark ------------------------------------------------------

#[test]
fn a_file_drivelab_made_then_turned_into_a_loop_mounted_ext4_image_is_refused() {
    need_loop!();
    if !tool("mkfs.ext4") {
        return skip("mkfs.ext4 is not installed");
    }
    let s = Scratch::new("attack-mark");
    let f = s.path("scratch");
    let made = drivelab(&["run", &f, "--size", "32m", "--time", "100ms", "-q"]);
    assert!(made.status.success(), "{}", stderr(&made));
    // mkfs keeps the file's inode, size and extended attributes: the mark still matches.
    must(&format!("mkfs.ext4 -q -F {f}"));
    let lo = LoopOver::new(&f, 0);
    let _m = Mounted::new(&lo.0, &s.path("m"));
    std::fs::write(s.path("m/precious"), b"data").unwrap();
    must("sync");
    let before = digest(&f);
    for extra in [&[][..], &["--overwrite"][..]] {
        let mut args = vec!["run", f.as_str(), "--rw", "randwrite", "--time", "300ms", "-q"];
        args.extend_from_slice(extra);
        let o = drivelab(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("backs {}", lo.0)) && err.contains("which is mounted on"), "{err}");
        assert!(err.contains("holds an ext4 filesystem"), "{err}");
    }
    assert_eq!(digest(&f), before, "the image was written");
}

#[test]
fn a_copied_file_and_a_half_filled_one_are_not_taken_for_drivelabs_own() {
    let s = Scratch::new("attack-mark2");
    let f = s.path("f");
    let made = drivelab(&["run", &f, "--size", "4m", "--time", "100ms", "-q"]);
    assert!(made.status.success(), "{}", stderr(&made));
    let copy = s.path("copy");
    must(&format!("cp --preserve=xattr {f} {copy}"));
    let o = drivelab(&["run", &copy, "--rw", "write", "--time", "100ms", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no longer the file drivelab made"), "{}", stderr(&o));

    // Killed while filling: the file stays, marked as never finished.
    let half = s.path("half");
    let bg = Background::start(&["run", &half, "--size", "2g", "--time", "100ms", "-q"]);
    assert!(wait_for(10, || std::fs::metadata(&half).is_ok_and(|m| m.len() > 0)), "never began filling");
    // Killed, every process of it, and waited for.
    drop(bg);
    let len = std::fs::metadata(&half).unwrap().len();
    assert!(len < 2 << 30, "the fill finished before the kill");
    let o = drivelab(&["run", &half, "--rw", "write", "--time", "100ms", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("began to create it and never finished"), "{}", stderr(&o));
    let o = drivelab(&["run", &half, "--rw", "read", "--time", "100ms", "-q"]);
    assert!(o.status.success(), "reading it is harmless: {}", stderr(&o));
}

// ---- 4. without blkid -----------------------------------------------------------------------

#[test]
fn without_blkid_the_builtin_scan_still_finds_what_mkfs_made() {
    need_loop!();
    let s = Scratch::new("attack-noblkid");
    let lo = LoopDev::new(&s.0.join("d.img"), 320 << 20, None); // mkfs.xfs needs 300 MiB
    let cases: [(&str, &str, &str); 7] = [
        ("mkfs.vfat", "mkfs.vfat", "vfat"),
        ("mkfs.ntfs", "mkfs.ntfs -Q -F", "ntfs"),
        ("mkfs.exfat", "mkfs.exfat", "exfat"),
        ("mkfs.xfs", "mkfs.xfs -f -q", "xfs"),
        ("mkfs.btrfs", "mkfs.btrfs -f -q", "btrfs"),
        ("mkfs.ext4", "mkfs.ext4 -q -F", "ext4"),
        ("mkswap", "mkswap", "swap"),
    ];
    for (program, cmd, name) in cases {
        if !tool(program) {
            skip_part(name, &format!("{program} is not installed"));
            continue;
        }
        must(&format!("wipefs -qa {0} && dd if=/dev/zero of={0} bs=1M count=2 status=none", lo.dev));
        must(&format!("{cmd} {} >/dev/null 2>&1", lo.dev));
        let before = digest(&lo.dev);
        let args = ["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "200ms", "-q"];
        let o = drivelab_without_blkid(scratch_cwd(), &args).expect("a mount namespace to hide blkid in");
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(name), "{name}: {}", stderr(&o));
        assert_eq!(digest(&lo.dev), before, "{name}: the device was written");
    }
}

// ---- 5. hidden users of a device ------------------------------------------------------------

#[test]
fn a_filesystem_mounted_through_a_loop_device_at_an_offset_is_a_user_of_the_device() {
    need_loop!();
    if !tool("mkfs.ext4") {
        return skip("mkfs.ext4 is not installed");
    }
    let s = Scratch::new("attack-offset");
    let lo = LoopDev::new(&s.0.join("d.img"), 64 << 20, None);
    let inner = LoopOver::new(&lo.dev, 1 << 20);
    must(&format!("mkfs.ext4 -q {}", inner.0));
    let m = Mounted::new(&inner.0, &s.path("m"));
    let o = drivelab(&["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "200ms", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("backs {} (from byte 1048576), which is mounted on", inner.0)), "{err}");

    // Unmounted and detached, the filesystem is still there at 1 MiB, as after a wiped table.
    drop(m);
    drop(inner);
    let before = digest(&lo.dev);
    let o = drivelab(&["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "200ms", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("holds an ext4 filesystem at offset 1 MiB"), "{}", stderr(&o));
    assert_eq!(digest(&lo.dev), before, "the device was written");
}

#[test]
fn a_disk_with_only_its_backup_gpt_is_refused() {
    need_loop!();
    let s = Scratch::new("attack-gpt");
    let lo = LoopDev::new(&s.0.join("d.img"), 32 << 20, None);
    if tool("sfdisk") {
        let o = sh(&format!("echo 'label: gpt' | sfdisk -q {} >/dev/null 2>&1", lo.dev));
        let _ = o; // sfdisk's re-read of the table may fail on a loop device; the table is written
    } else {
        // The backup header alone, as a partitioner leaves it at the last sector.
        let f = std::fs::OpenOptions::new().write(true).open(&lo.dev).unwrap();
        f.write_all_at(b"EFI PART", (32 << 20) - 512).unwrap();
    }
    // Wipe the protective MBR and the primary table: only the backup at the end is left.
    must(&format!("dd if=/dev/zero of={} bs=512 count=34 conv=notrunc status=none", lo.dev));
    let before = digest(&lo.dev);
    let o = drivelab(&["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "200ms", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("backup header at the end"), "{}", stderr(&o));
    assert_eq!(digest(&lo.dev), before, "the device was written");
}

#[test]
fn of_two_writers_started_at_once_on_one_device_exactly_one_writes() {
    need_loop!();
    let s = Scratch::new("attack-race");
    let lo = LoopDev::new(&s.0.join("d.img"), 16 << 20, None);
    // Each sees the other open the device for its checks. The one that holds it (O_EXCL and its
    // lock) gives the other a moment to see the lock and leave; the other is refused by name.
    // Neither stops both (each refusing the other), and both never write.
    for round in 0..3 {
        let args = ["run", &lo.dev, "--destroy", &lo.dev, "--rw", "randwrite", "--time", "300ms", "-q"];
        let (a, b) = (Background::start(&args), Background::start(&args));
        let (ca, ea) = a.wait();
        let (cb, eb) = b.wait();
        let mut codes = [ca, cb];
        codes.sort_unstable();
        assert_eq!(codes, [0, 2], "round {round}: exits {ca} ({ea}) and {cb} ({eb})");
        let refused = if ca == 2 { &ea } else { &eb };
        // Refused by the holder's lock (named: the pid of the process the holder forked to run
        // its jobs, gone by now), or, where it took the lock first, by the holder's exclusive
        // open (which the kernel does not name).
        assert!(
            refused.contains(" (drivelab run") || refused.contains("holds it open exclusively"),
            "round {round}: {refused}"
        );
    }
}
