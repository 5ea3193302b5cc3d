//! The attacks of issue #24 items 1, 3, 4 and 7, through the binary: a target whose storage
//! further down the stack is in use (a second loop over a mounted image, a loop over a mounted
//! loop, a loop over a partitioned loop with a mounted partition, a loop over an active swap
//! file), a target another process locks (OFD, as QEMU does) or holds open (a FUSE daemon), and
//! `--force`, which must not override any of these. Each one destroyed or wrote a victim before;
//! every test checks the victim's bytes afterwards, not only the exit code.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::common::*;

/// A helper process, killed on drop.
struct Helper(Child);
impl Helper {
    /// `python3 -c CODE ARGS...`, once it has printed its first line (it is ready).
    fn python(code: &str, args: &[&str]) -> Helper {
        use std::io::BufRead;
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(code)
            .args(args)
            .stdout(Stdio::piped())
            .stdin(Stdio::piped())
            .spawn()
            .expect("start python3");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready", "the helper did not start");
        Helper(child)
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
}
impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Holds an OFD write lock on argv[1] (as QEMU locks its disk images) until killed.
const OFD_LOCK: &str = "import fcntl, os, struct, sys, time\n\
fd = os.open(sys.argv[1], os.O_RDWR)\n\
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0))\n\
print('ready', flush=True)\n\
sys.stdin.read()\n";

/// Holds argv[1] open (as a FUSE daemon holds its image) until killed.
const HOLD_OPEN: &str = "import os, sys\n\
fd = os.open(sys.argv[1], os.O_RDONLY)\n\
print('ready', flush=True)\n\
sys.stdin.read()\n";

fn write_run(target: &str, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["run", target, "--rw", "write", "--bs", "64k", "--time", "300ms", "-q"];
    args.extend_from_slice(extra);
    let o = drivelab_past_scans(&args);
    (o.status.code(), stderr(&o))
}

/// drivelab, run again (up to 5 times) while its refusal names a `losetup` as the device's
/// opener: another test's `losetup --find` opens every loop device for a moment while it looks
/// for a free one, and drivelab rightly refuses a device open elsewhere. That opener is the
/// suite's, not the scenario a test here builds.
fn drivelab_past_scans(args: &[&str]) -> std::process::Output {
    let mut o = drivelab(args);
    for _ in 0..4 {
        if !(o.status.code() == Some(2) && stderr(&o).contains("(losetup ")) {
            break;
        }
        o = drivelab(args);
    }
    o
}

/// Refused as a live user (exit 2), with `--force` as well.
fn refused_live(target: &str, extra: &[&str], expect: &str) -> String {
    let (code, err) = write_run(target, extra);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("in use right now") && err.contains("--force does not override"), "{err}");
    assert!(err.contains(expect), "wanted {expect:?} in {err}");
    let mut forced = extra.to_vec();
    forced.push("--force");
    let (code, err) = write_run(target, &forced);
    assert_eq!(code, Some(2), "--force wrote a live user: {err}");
    assert!(err.contains("--force does not override a live user"), "{err}");
    err
}

/// `drivelab info TARGET`: refused whatever the flags, naming `expect`.
fn info_refuses(target: &str, expect: &str) {
    let o = drivelab(&["info", "--json", target]);
    let list: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("info --json");
    let w = &list[0]["write"];
    assert_eq!(w["verdict"], "refused", "{w}");
    let reasons = w["reasons"].to_string();
    assert!(reasons.contains(expect) && reasons.contains("in use right now"), "{expect}: {reasons}");
    let text = stdout(&drivelab(&["info", target]));
    assert!(text.contains("write        no, whatever the flags"), "{text}");
}

fn need_ext4() -> bool {
    if tool("mkfs.ext4") && tool("e2fsck") {
        return true;
    }
    skip("mkfs.ext4 or e2fsck is not installed");
    false
}

/// A mounted ext4 on a loop over `img` (the victim), with the filesystem checked clean on drop.
struct MountedExt4 {
    _mount: Option<Mounted>,
    dev: Loop,
}
impl MountedExt4 {
    fn new(img: &str, dir: &str) -> MountedExt4 {
        std::fs::File::create(img).unwrap().set_len(32 << 20).unwrap();
        let dev = Loop::new(img);
        must(&format!("mkfs.ext4 -q {}", dev.0));
        MountedExt4 { _mount: Some(Mounted::new(&dev.0, dir)), dev }
    }
    /// Unmount, and `e2fsck -n` must find it clean.
    fn check_clean(&mut self) {
        self._mount = None;
        let o = sh(&format!("e2fsck -n -f {}", self.dev.0));
        assert!(o.status.success(), "e2fsck: {}", String::from_utf8_lossy(&o.stdout));
    }
}

// ---- item 1: the storage under a loop device ------------------------------------------------

#[test]
fn a_second_loop_over_the_image_of_a_mounted_loop_is_refused() {
    need_loop!();
    if !need_ext4() {
        return;
    }
    let s = Scratch::new("stack-view");
    let img = s.path("a.img");
    let mut fs = MountedExt4::new(&img, &s.path("m"));
    let b = Loop::new(&format!("-o 4096 {img}"));
    let before = digest(&img);
    refused_live(&b.0, &["--destroy", &b.0], &format!("(bytes 4096-33554432) backs {}, which is mounted on", fs.dev.0));
    info_refuses(&b.0, "mounted on");
    assert_eq!(digest(&img), before, "the mounted image was written");
    drop(b);
    fs.check_clean();
}

#[test]
fn a_loop_over_a_mounted_loop_is_refused() {
    need_loop!();
    if !need_ext4() {
        return;
    }
    let s = Scratch::new("stack-over");
    let img = s.path("a.img");
    let mut fs = MountedExt4::new(&img, &s.path("m"));
    let x = Loop::new(&format!("-o 4096 {}", fs.dev.0));
    let before = digest(&img);
    refused_live(&x.0, &["--destroy", &x.0], &format!("{} under {x} (bytes 4096-", fs.dev.0, x = x.0));
    info_refuses(&x.0, "is mounted on");
    assert_eq!(digest(&img), before, "the mounted image was written");
    drop(x);
    fs.check_clean();
}

/// The partitions of a loop device, removed (`partx -d`) on drop, before it is detached.
struct Partitions(String);
impl Drop for Partitions {
    fn drop(&mut self) {
        let _ = sh(&format!("partx -d {}", self.0));
    }
}

#[test]
fn a_loop_over_a_disk_whose_partition_is_mounted_is_refused() {
    need_loop!();
    if !need_ext4() {
        return;
    }
    if !tool("sfdisk") {
        return skip("sfdisk is not installed");
    }
    let s = Scratch::new("stack-part");
    let img = s.path("disk.img");
    std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    must(&format!("printf 'label: dos\\nstart=2048, size=65536\\n' | sfdisk -q {img}"));
    let p = Loop::new(&format!("-P {img}"));
    let _parts = Partitions(p.0.clone());
    let part = format!("{}p1", p.0);
    let appeared = (0..200).any(|i| {
        if i == 100 {
            // The kernel's own scan did not show it (yet): add it as partx does.
            let _ = sh(&format!("partx -a {}", p.0));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        Path::new(&part).exists()
    });
    if !appeared {
        return skip(&format!("the kernel made no {part}"));
    }
    must(&format!("mkfs.ext4 -q {part}"));
    let m = Mounted::new(&part, &s.path("m"));
    let x = Loop::new(&format!("-o 512 {}", p.0));
    let before = digest(&img);
    let err = refused_live(&x.0, &["--destroy", &x.0], "is mounted on");
    assert!(err.contains(&format!("partition {}p1", &p.0[5..])), "{err}");
    info_refuses(&x.0, "is mounted on");
    assert_eq!(digest(&img), before, "the disk under a mounted partition was written");
    drop(x);
    drop(m);
    // A loop over the partition: the disk's refusal names the partition that backs it (it said
    // the whole disk backs the loop).
    let y = Loop::new(&part);
    let want = format!("{}'s partition /dev/{}p1 backs {}", p.0, &p.0[5..], y.0);
    refused_live(&p.0, &["--destroy", &p.0], &want);
    drop(y);
    assert!(sh(&format!("e2fsck -n -f {part}")).status.success(), "the partition's ext4 is damaged");
}

#[test]
fn a_loop_over_bytes_no_one_else_uses_is_written() {
    need_loop!();
    if !need_ext4() {
        return;
    }
    let s = Scratch::new("stack-apart");
    let img = s.path("a.img");
    std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    // [0, 32M) holds a mounted ext4; [32M, 64M) is a second loop no one else uses.
    let low = Loop::new(&format!("--sizelimit {} {img}", 32 << 20));
    must(&format!("mkfs.ext4 -q {}", low.0));
    let m = Mounted::new(&low.0, &s.path("m"));
    let high = Loop::new(&format!("-o {} {img}", 32 << 20));
    let low_before = must(&format!("head -c {} {img} | cksum", 32 << 20));
    let (code, err) = write_run(&high.0, &["--destroy", &high.0]);
    assert_eq!(code, Some(0), "a loop over bytes no one else uses was refused: {err}");
    assert_eq!(must(&format!("head -c {} {img} | cksum", 32 << 20)), low_before, "the mounted half was written");
    // One byte of overlap, and it is refused.
    let over = Loop::new(&format!("-o {} {img}", (32 << 20) - 512));
    refused_live(&over.0, &["--destroy", &over.0], "is mounted on");
    assert_eq!(must(&format!("head -c {} {img} | cksum", 32 << 20)), low_before, "the mounted half was written");
    drop(over);
    drop(m);
    assert!(sh(&format!("e2fsck -n -f {}", low.0)).status.success(), "the ext4 is damaged");
}

/// A swap file on a real disk (swap on tmpfs is refused by the kernel), swapped off and
/// removed on drop.
struct SwapFile(String);
impl Drop for SwapFile {
    fn drop(&mut self) {
        let _ = sh(&format!("swapoff {}", self.0));
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_loop_over_an_active_swap_file_is_in_use() {
    need_loop!();
    if !drivelab_testkit::system_changes_allowed() {
        return skip(drivelab_testkit::SYSTEM_CHANGES);
    }
    if !tool("mkswap") || !tool("swapon") {
        return skip("mkswap or swapon is not installed");
    }
    let path = format!("/var/tmp/drivelab-test-swap-{}", std::process::id());
    let swap = SwapFile(path.clone());
    must(&format!("dd if=/dev/zero of={path} bs=1M count=16 status=none && chmod 600 {path} && mkswap -q {path}"));
    let on = sh(&format!("swapon {path}"));
    if !on.status.success() {
        return skip(&format!("swapon failed here: {}", String::from_utf8_lossy(&on.stderr).trim()));
    }
    let l = sh(&format!("losetup --find --show -o 4096 {path}"));
    if !l.status.success() {
        return skip(&format!("losetup over an active swap file: {}", String::from_utf8_lossy(&l.stderr).trim()));
    }
    let x = Loop(String::from_utf8_lossy(&l.stdout).trim().to_string());
    let before = digest(&path);
    refused_live(&x.0, &["--destroy", &x.0], "is an active swap file");
    info_refuses(&x.0, "active swap file");
    assert_eq!(digest(&path), before, "the active swap file was written");
    drop(x);
    drop(swap);
}

// ---- item 3: locks of any kind -------------------------------------------------------------

#[test]
fn a_file_with_an_ofd_lock_is_refused_and_so_is_a_loop_over_it() {
    if !tool("python3") {
        return skip("python3 is not installed");
    }
    let s = Scratch::new("stack-ofd");
    let img = s.path("vm.img");
    std::fs::write(&img, vec![0x5a; 8 << 20]).unwrap();
    let before = digest(&img);
    let vm = Helper::python(OFD_LOCK, &[&img]);
    let err = refused_live(&img, &["--overwrite"], "open file description lock, as QEMU takes");
    assert!(err.contains(&format!("pid {} (python3", vm.pid())), "the holder is not named: {err}");
    info_refuses(&img, "open file description lock");
    assert_eq!(digest(&img), before, "a locked image was written");
    if loop_unavailable().is_none() {
        let x = Loop::new(&img);
        refused_live(&x.0, &["--destroy", &x.0], "open file description lock, as QEMU takes");
        assert_eq!(digest(&img), before, "a locked image was written through a loop");
    }
    // Let go, and the file is the user's to overwrite again.
    drop(vm);
    let (code, err) = write_run(&img, &["--overwrite"]);
    assert_eq!(code, Some(0), "{err}");
}

// ---- item 4: open by another process (a FUSE daemon's image) ---------------------------------

#[test]
fn a_file_another_process_holds_open_is_refused_and_so_is_a_loop_over_it() {
    if !tool("python3") {
        return skip("python3 is not installed");
    }
    let s = Scratch::new("stack-open");
    let img = s.path("image.ext4");
    std::fs::write(&img, vec![0xa5; 8 << 20]).unwrap();
    let before = digest(&img);
    let daemon = Helper::python(HOLD_OPEN, &[&img]);
    let err = refused_live(&img, &["--overwrite"], &format!("is open in pid {} (python3", daemon.pid()));
    assert!(err.contains(&img), "{err}");
    info_refuses(&img, "is open in pid");
    assert_eq!(digest(&img), before, "an image held open was written");
    if loop_unavailable().is_none() {
        let x = Loop::new(&img);
        refused_live(&x.0, &["--destroy", &x.0], "is open in pid");
        assert_eq!(digest(&img), before, "an image held open was written through a loop");
    }
    drop(daemon);
    let (code, err) = write_run(&img, &["--overwrite"]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_device_another_process_holds_open_is_refused_even_with_force() {
    need_loop!();
    if !tool("python3") {
        return skip("python3 is not installed");
    }
    // A VM's raw disk, a database, a `dd`: none of them opens a device O_EXCL or locks it.
    let s = Scratch::new("stack-open-dev");
    let img = s.path("disk.img");
    std::fs::write(&img, vec![0x3c; 8 << 20]).unwrap();
    let x = Loop::new(&img);
    let before = digest(&img);
    let user = Helper::python(HOLD_OPEN, &[&x.0]);
    refused_live(&x.0, &["--destroy", &x.0], &format!("is open in pid {} (python3", user.pid()));
    info_refuses(&x.0, "is open in pid");
    assert_eq!(digest(&img), before, "a device held open was written");
    drop(user);
    let (code, err) = write_run(&x.0, &["--destroy", &x.0]);
    assert_eq!(code, Some(0), "with its user gone it is written: {err}");
}

/// A real FUSE image mounted from a relative path, where fuse2fs is installed.
#[test]
fn an_image_fuse2fs_mounts_from_a_relative_path_is_refused() {
    need_loop!(); // root, to mount
    if !tool("fuse2fs") || !tool("mkfs.ext4") || !Path::new("/dev/fuse").exists() {
        return skip("fuse2fs, mkfs.ext4 or /dev/fuse is missing");
    }
    let s = Scratch::new("stack-fuse");
    must(&format!("cd {} && truncate -s 16M img && mkfs.ext4 -q -F img && mkdir m", s.0.display()));
    let o = sh(&format!("cd {} && fuse2fs img m", s.0.display()));
    if !o.status.success() {
        return skip(&format!("fuse2fs failed here: {}", String::from_utf8_lossy(&o.stderr).trim()));
    }
    let m = Mounted(s.path("m"));
    let img = s.path("img");
    refused_live(&img, &["--overwrite"], "is open in pid");
    info_refuses(&img, "is open in pid");
    // fuse2fs itself writes the image while it is mounted, so the proof is the filesystem: clean
    // after unmounting (300 ms of drivelab's writes would have left nothing of it).
    drop(m);
    let o = sh(&format!("e2fsck -n -f {img}"));
    assert!(o.status.success(), "the mounted image was written: {}", String::from_utf8_lossy(&o.stdout));
}

// ---- item 7: --force overrides stale signatures only ----------------------------------------

#[test]
fn force_writes_a_stale_filesystem_but_never_a_mounted_one() {
    need_loop!();
    if !need_ext4() {
        return;
    }
    let s = Scratch::new("stack-force");
    let img = s.path("a.img");
    let mut fs = MountedExt4::new(&img, &s.path("m"));
    let before = digest(&img);
    let err = refused_live(&fs.dev.0, &["--destroy", &fs.dev.0], "is mounted on");
    assert!(!err.contains("add --force"), "{err}");
    // Named through a symbolic link (as /dev/disk/by-id/… names are), the sentence names the
    // device it leads to (it said "LINK is mounted on …").
    let link = s.path("by-id");
    std::os::unix::fs::symlink(&fs.dev.0, &link).unwrap();
    refused_live(&link, &["--destroy", &link], &format!("{link} ({}) is mounted on", fs.dev.0));
    assert_eq!(digest(&img), before, "--force wrote a mounted filesystem");
    let dev = fs.dev.0.clone();
    fs.check_clean();
    let before = digest(&img); // unmounting wrote the superblock
                               // Unmounted, the ext4 is stale data: refused saying --force, written with it.
    let (code, err) = write_run(&dev, &["--destroy", &dev]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("ext4") && err.contains("add --force"), "{err}");
    assert_eq!(digest(&img), before);
    let o = drivelab_past_scans(&["run", &dev, "--destroy", &dev, "--force", "--rw", "write", "--time", "200ms"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("written anyway (--force)") || stdout(&o).contains("written anyway (--force)"),
        "{}",
        stderr(&o)
    );
    assert_ne!(digest(&img), before, "--force did not write the stale filesystem");
}

// ---- issue #39 item 10: a file bind-mounted onto another path --------------------------------

/// A file bound onto another path, unbound on drop.
struct BoundFile(String);
impl Drop for BoundFile {
    fn drop(&mut self) {
        common::unmount(Path::new(&self.0));
    }
}

#[test]
fn a_bind_mounted_file_is_a_live_user_under_either_name() {
    need_loop!();
    let s = Scratch::new("stack-bind");
    let (src, dst) = (s.path("config.img"), s.path("bound"));
    std::fs::write(&src, vec![0x5a; 1 << 20]).unwrap();
    std::fs::write(&dst, b"").unwrap();
    must(&format!("mount --bind {src} {dst}"));
    let _bound = BoundFile(dst.clone());
    let before = digest(&src);
    // Written with --overwrite without a word before: a container's or VM's file bound in.
    refused_live(&src, &["--overwrite"], &format!("is bind-mounted at {dst}"));
    // Named by its mount point, the refusal says what it shows ("X is bind-mounted at X" before).
    refused_live(&dst, &["--overwrite"], &format!("{dst} is a bind mount showing "));
    info_refuses(&src, "bind-mounted at");
    assert_eq!(digest(&src), before, "the bound file was written");
}
