//! Helpers for the CLI's integration tests: run the binary, make scratch directories in
//! /dev/shm, and attach loop devices that are always detached again.

#![allow(dead_code, unused_imports)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod shell;
pub use shell::*;
mod guide;
pub use guide::*;

/// Run drivelab in a scratch working directory of this test process (in /dev/shm), so the
/// results directories every command leaves (`./results/...`) never land in the source tree.
pub fn drivelab(args: &[&str]) -> Output {
    drivelab_in(scratch_cwd(), args)
}

/// This test process's scratch working directory in /dev/shm (for a drivelab started some other
/// way): what it leaves (`./results/...`) goes with the directory.
pub fn scratch_cwd() -> &'static Path {
    static CWD: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CWD.get_or_init(|| {
        remove_dead_scratch_cwds();
        let d = PathBuf::from(format!("/dev/shm/drivelab-test-cwd-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("scratch working directory");
        d
    })
}

/// A test process cannot remove its working directory at exit (statics are not dropped): the
/// next one removes those of processes that are gone, so runs never pile them up in /dev/shm.
fn remove_dead_scratch_cwds() {
    let Ok(entries) = std::fs::read_dir("/dev/shm") else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("drivelab-test-cwd-").and_then(|p| p.parse::<u32>().ok()) else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// drivelab in `dir` with blkid hidden, so drivelab's own signature scan is all it has: a private
/// mount namespace (`unshare --mount`, nothing seen outside it) binds /dev/null over every blkid
/// drivelab would run. None where that cannot be done here (not root, no unshare).
pub fn drivelab_without_blkid(dir: &Path, args: &[&str]) -> Option<Output> {
    const HIDE: &str = "for b in /usr/sbin/blkid /sbin/blkid /usr/bin/blkid /bin/blkid; do \
                        if [ -e \"$b\" ]; then mount --bind /dev/null \"$b\" || exit 97; fi; done; exec \"$@\"";
    let o = Command::new("unshare")
        .env("XDG_DATA_HOME", data_home())
        .env("DRIVELAB_STATE_DIR", state_home())
        .args(["--mount", "sh", "-c", HIDE, "sh", env!("CARGO_BIN_EXE_drivelab")])
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    // unshare or mount refused (not root): the namespace was never made.
    let refused = o.status.code() == Some(97) || (o.status.code() == Some(1) && stderr(&o).starts_with("unshare:"));
    (!refused).then_some(o)
}

pub fn drivelab_in(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().expect("run drivelab")
}

/// `drivelab fio ARGS --output-format=json` in `dir` (its results in `dir/data`): the exit code,
/// stderr and fio's JSON document (null when stdout is not one).
pub fn fio_json(dir: &Path, args: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    let o = bin()
        .arg("fio")
        .args(args)
        .arg("--output-format=json")
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(dir)
        .output()
        .unwrap();
    (o.status.code(), stderr(&o), serde_json::from_slice(&o.stdout).unwrap_or_default())
}

/// The drivelab binary as every test starts it: its data directory (where `drivelab fio` keeps
/// its results) in this process's scratch directory, never the user's `~/.local/share`.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_drivelab"));
    c.env("XDG_DATA_HOME", data_home());
    c.env("DRIVELAB_STATE_DIR", state_home());
    c
}

/// The record of written devices every drivelab of the tests keeps (`DRIVELAB_STATE_DIR`; see
/// [`bin`]): never this machine's own (`/run/drivelab` as root), which the suite left records in.
pub fn state_home() -> PathBuf {
    scratch_cwd().join("state")
}

/// The `XDG_DATA_HOME` every drivelab of the tests runs with (see [`bin`]); set it on a command
/// that starts drivelab through another program (`sh -c`, `mpirun`, `unshare`).
pub fn data_home() -> PathBuf {
    scratch_cwd().join("xdg-data")
}

/// The commands `drivelab --help` lists (without `help`).
pub fn commands() -> Vec<String> {
    let text = stdout(&drivelab(&["--help"]));
    let list = text.split("Commands:").nth(1).expect("a command list").split("\n\n").next().unwrap().to_string();
    list.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|n| n != "help")
        .collect()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
/// fio mode's stderr without drivelab's busy-machine warning (its job threads waited for a
/// CPU: the suite runs on a busy machine too, where that warning is right): what fio's contract
/// wants empty for a clean run.
pub fn fio_stderr(o: &Output) -> String {
    stderr(o).lines().filter(|l| !(l.starts_with("drivelab: warning: ") && l.contains("waited for a CPU"))).collect()
}
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The one results directory under `base` (a test that made exactly one).
pub fn results_dir(base: &Path) -> std::path::PathBuf {
    let dirs: Vec<std::path::PathBuf> = std::fs::read_dir(base).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.into_iter().next().unwrap()
}

/// The saved points of results directory `dir`, in index order.
pub fn saved_points(dir: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.iter().map(|f| json(f)).collect()
}

pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("json written")).expect("valid json")
}

/// A results directory as saved: `run.json`, the probes (qos, act) in order, `outcome.json`.
#[allow(dead_code)]
pub struct Saved {
    pub run: serde_json::Value,
    pub points: Vec<serde_json::Value>,
    pub probes: Vec<serde_json::Value>,
    pub outcome: serde_json::Value,
}

#[allow(dead_code)]
impl Saved {
    pub fn load(dir: &Path) -> Saved {
        let records = |sub: &str| -> Vec<serde_json::Value> {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            files.retain(|f| f.extension().is_some_and(|e| e == "json"));
            files.sort();
            files.iter().map(|f| json(f)).collect()
        };
        let outcome = dir.join("outcome.json");
        Saved {
            run: json(&dir.join("run.json")),
            points: records("points"),
            probes: records("probes"),
            outcome: if outcome.is_file() { json(&outcome) } else { serde_json::Value::Null },
        }
    }
}

/// A fresh directory in /dev/shm (tmpfs: takes O_DIRECT, never touches a disk), removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        // One test process runs every module's tests: a tag taken again gets a number, so two
        // tests that chose the same tag stay apart (and the first keeps the short path that
        // tests of line widths count on).
        static TAKEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let mut taken = TAKEN.lock().unwrap_or_else(|p| p.into_inner());
        let mut name = tag.to_string();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            name = format!("{tag}{n}");
        }
        taken.push(name.clone());
        let p = PathBuf::from(format!("/dev/shm/drivelab-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub use drivelab_testkit::{fast_tier, full_tier};

/// Why loop-device tests cannot run here, if they cannot.
pub fn loop_unavailable() -> Option<String> {
    if fast_tier() {
        return Some(drivelab_testkit::FAST_TIER.into());
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root to attach loop devices".into());
    }
    if Command::new("losetup").arg("--version").output().is_err() {
        return Some("losetup is not installed".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("the kernel has no loop devices".into());
    }
    None
}

/// Says why the running test skips (see `drivelab_testkit`); the caller then returns.
pub fn skip(why: &str) {
    drivelab_testkit::skip(why)
}

/// Says why one part of the running test skips while the rest ran.
pub fn skip_part(part: &str, why: &str) {
    drivelab_testkit::skip_part(part, why)
}

#[allow(unused_macros)]
macro_rules! need_loop {
    () => {
        if let Some(why) = common::loop_unavailable() {
            common::skip(&why);
            return;
        }
    };
}
pub(crate) use need_loop;

/// A loop device over a backing file; detached and the file removed on drop, even on panic.
pub struct LoopDev {
    pub dev: String,
    backing: PathBuf,
}

impl LoopDev {
    /// A loop device over a new `size`-byte file at `backing` (filled with `fill` bytes if given).
    pub fn new(backing: &Path, size: u64, fill: Option<u8>) -> LoopDev {
        match fill {
            Some(b) => std::fs::write(backing, vec![b; size as usize]).unwrap(),
            None => std::fs::File::create(backing).unwrap().set_len(size).unwrap(),
        }
        let out = Command::new("losetup").args(["--find", "--show"]).arg(backing).output().unwrap();
        assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
        LoopDev { dev: String::from_utf8(out.stdout).unwrap().trim().to_string(), backing: backing.to_path_buf() }
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// A small tmpfs mounted for the test (to run a loop device out of space); unmounted on drop.
pub struct TinyTmpfs(pub PathBuf);

impl TinyTmpfs {
    pub fn new(dir: &Path, size: &str) -> Option<TinyTmpfs> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .ok()?;
        ok.success().then(|| TinyTmpfs(dir.to_path_buf()))
    }
}

impl Drop for TinyTmpfs {
    fn drop(&mut self) {
        unmount(&self.0);
    }
}

/// Unmount `dir` so no test leaves a mount behind: a loop device detached a moment ago may
/// still hold a file in it, so retry for a second, then detach the mount lazily.
pub fn unmount(dir: &Path) {
    for _ in 0..20 {
        let quiet = Command::new("umount").arg(dir).stderr(std::process::Stdio::null()).status();
        if quiet.is_ok_and(|s| s.success()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = Command::new("umount").arg("-l").arg(dir).status();
}

/// Every key's path (array elements as `[]`, json+'s bin keys as `<ns>`) with its JSON type.
pub fn shape(v: &serde_json::Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
    use serde_json::Value::*;
    let kind = match v {
        Null => "null",
        Bool(_) => "bool",
        Number(_) => "number",
        String(_) => "string",
        Array(_) => "array",
        Object(_) => "object",
    };
    out.insert(format!("{path} {kind}"));
    match v {
        Object(m) => {
            for (k, x) in m {
                let k = if path.ends_with("/bins") { "<ns>" } else { k.as_str() };
                shape(x, &format!("{path}/{k}"), out);
            }
        }
        Array(a) => {
            for x in a {
                shape(x, &format!("{path}/[]"), out);
            }
        }
        _ => {}
    }
}

/// Run `cmd` (drivelab, as the caller set it up) with stdin closed and its output kept in files
/// under `dir`: its exit code and its stderr then stdout. Still going after 60 s is a hang: it is
/// killed and the test fails naming `what` (a hang detector, not a timing bound).
pub fn run_watched(mut cmd: Command, dir: &Path, what: &str) -> (i32, String) {
    use std::time::{Duration, Instant};
    let (out, err) = (dir.join(".stdout"), dir.join(".stderr"));
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("start drivelab");
    let end = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > end {
            kill_tree(&mut child);
            panic!("drivelab {what} hung (killed after 60 s)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&err).unwrap_or_default() + &std::fs::read_to_string(&out).unwrap_or_default();
    (status.code().unwrap_or(-1), text)
}

/// The processes of the drivelab started as `pid`: itself, then the child it forked to run the
/// command in a session of its own (issue #40), and theirs. A test that stops, kills or looks
/// at "the drivelab" means all of them: a SIGKILL or SIGSTOP to the first alone is not passed on.
pub fn tree(pid: u32) -> Vec<i32> {
    let mut all = vec![pid as i32];
    let mut i = 0;
    while i < all.len() {
        let p = all[i];
        let children = std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")).unwrap_or_default();
        all.extend(children.split_whitespace().filter_map(|c| c.parse::<i32>().ok()));
        i += 1;
    }
    all
}

/// The pid of the process that runs the command of the drivelab started as `pid`: the child it
/// forked (the one that holds its locks and files), else itself (not forked: `--thread`, or not
/// yet).
pub fn job_pid(pid: u32) -> u32 {
    tree(pid).get(1).map_or(pid, |&p| p as u32)
}

/// Send `signal` to every process of the drivelab started as `pid`, the children first (a
/// parent stopped first could not be seen to have them).
pub fn signal_tree(pid: u32, signal: i32) {
    for p in tree(pid).into_iter().rev() {
        // SAFETY: kill(2) with plain values; the pids are our child's processes.
        unsafe { libc::kill(p, signal) };
    }
}

/// SIGKILL the drivelab `child` and every process it forked, and wait until all of them have
/// ended (their files closed, their locks released): a test that goes on at once (a resume, a
/// power cut of the drive under it) finds nothing of them still running.
pub fn kill_tree(child: &mut std::process::Child) -> std::process::ExitStatus {
    let pids = tree(child.id());
    // Each process's pidfd, taken before the kill: it names that process and no later one.
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor (or -1).
    let fds: Vec<i32> = pids[1..]
        .iter()
        .map(|&p| unsafe { libc::syscall(libc::SYS_pidfd_open, p, 0) } as i32)
        .filter(|&fd| fd >= 0)
        .collect();
    for &p in pids.iter().rev() {
        // SAFETY: as in signal_tree.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    let status = child.wait().expect("wait for drivelab");
    for fd in fds {
        let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // A pidfd is readable once its process has ended; a minute is a watchdog, never met.
        // SAFETY: poll reads and writes the one pollfd given; close takes our own descriptor.
        unsafe {
            libc::poll(&mut pfd, 1, 60_000);
            libc::close(fd);
        }
    }
    status
}
