//! `--latency-split` proven through the binary on real kernel paths made here (issue #28, "How it
//! is proven"): the stages of each I/O add up to its lat on a loop device and on a file on the
//! disk; each stage moves when, and only when, it should (a throttling cgroup moves the kernel
//! stage, a slow drive the device stage, a slow reap the completion and reap stages — made by
//! running the engine in this process with a clock that stalls, a test seam chosen as a type —, a
//! tmpfs file's io-wq hand-off the kernel stage); the device stage agrees with bpftrace's own timing
//! of the same block requests; bad input is refused with exit code 2.
//!
//! Why one lock: every test here compares the timing of two runs and attaches BPF programs, so
//! they run one at a time (two at once would slow each other, and time each other's I/Os). Each
//! assertion compares two runs of one workload or two figures of one run (ratios, never an
//! absolute wall-clock bound). A test that cannot run here (not root, no BTF, a drivelab built
//! without the `bpf` feature, no loop devices, no bpftrace) skips, saying why.

use std::io::BufRead;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use crate::common::*;
use serde_json::Value;

const STAGES: [&str; 5] = ["tool", "kernel", "device", "completion", "reap"];

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why the split cannot run here (None: it can): loop devices, then a tiny split run's refusal
/// (exit code 2), whose message says why (not root, no BTF, built without the feature).
fn split_unavailable() -> Option<String> {
    static WHY: OnceLock<Option<String>> = OnceLock::new();
    WHY.get_or_init(|| {
        if let Some(why) = loop_unavailable() {
            return Some(why);
        }
        let dir = Scratch::new("split-probe");
        let o = drivelab(&["run", &dir.path("f"), "--size", "1m", "--time", "10ms", "--latency-split", "--json", "-"]);
        match o.status.code() {
            Some(0) => None,
            Some(2) => Some(format!("--latency-split is refused here: {}", stderr(&o).trim())),
            _ => panic!("the probe run of --latency-split failed: {}", stderr(&o)),
        }
    })
    .clone()
}

macro_rules! need_split {
    () => {
        if let Some(why) = split_unavailable() {
            skip(&why);
            return;
        }
    };
}

/// `drivelab run TARGET --latency-split ARGS --json -` (in the tests' scratch directory): the
/// result.
fn split_run(target: &str, args: &[&str]) -> Value {
    let mut cmd = crate::common::bin();
    cmd.current_dir(scratch_cwd()).args(["run", target, "--latency-split", "--json", "-", "--quiet"]).args(args);
    result_of(cmd.output().expect("run drivelab"), args)
}

fn result_of(o: std::process::Output, args: &[&str]) -> Value {
    assert!(o.status.success(), "drivelab run {args:?}: {}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("the result as JSON on stdout");
    assert!(v["latency_split"].is_object(), "no latency_split in the result of {args:?}");
    v
}

fn split(v: &Value) -> &Value {
    &v["latency_split"]
}

fn stage<'a>(v: &'a Value, name: &str) -> &'a Value {
    split(v)["stages"].as_array().unwrap().iter().find(|s| s["stage"] == name).expect(name)
}

fn p50(v: &Value, name: &str) -> f64 {
    stage(v, name)["lat_ns"]["p50"].as_f64().unwrap()
}

fn mean(v: &Value, name: &str) -> f64 {
    stage(v, name)["mean_ns"].as_f64().unwrap()
}

fn count(v: &Value, field: &str) -> u64 {
    split(v)[field].as_u64().unwrap_or_else(|| panic!("latency_split.{field}"))
}

/// The stages of the result, for failure messages.
fn stages_text(v: &Value) -> String {
    STAGES.iter().map(|s| format!("{s} p50 {} mean {:.0}", p50(v, s), mean(v, s))).collect::<Vec<_>>().join(", ")
}

/// The kernel's number of a block device (`MKDEV`: major << 20 | minor, as tracepoints print it)
/// and its `MAJ:MIN`.
fn devno(dev: &str) -> (u64, String) {
    let rdev = std::fs::metadata(dev).unwrap().rdev();
    let (maj, min) = (libc::major(rdev) as u64, libc::minor(rdev) as u64);
    ((maj << 20) | min, format!("{maj}:{min}"))
}

/// A loop device over a sparse /dev/shm file (reads of holes cost no memory).
fn loop_dev(tag: &str, size: u64) -> LoopDev {
    LoopDev::new(Path::new(&format!("/dev/shm/drivelab-test-split-{tag}-{}", std::process::id())), size, None)
}

fn within(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

/// Sums: each percentile's stages add up to its lat, the stage means to the mean lat; next to
/// nothing is unmatched or lost; the I/Os went through a device.
fn check_sums(v: &Value, what: &str) {
    let s = split(v);
    let (ios, cut) = (count(v, "ios"), count(v, "cut"));
    assert!(cut > 0 && ios > 0, "{what}: nothing cut: {s}");
    assert!((count(v, "unmatched") + count(v, "lost_events")) * 100 < ios, "{what}: unmatched or lost: {s}");
    for (p, tol) in [("p50", 0.01), ("p99", 0.03)] {
        let at = s["at"].as_array().unwrap().iter().find(|a| a["percentile"] == p).expect(p);
        let (sum, lat) = (at["sum_ns"].as_f64().unwrap(), at["lat_ns"].as_f64().unwrap());
        assert!(within(sum, lat, tol), "{what}: at {p} the stages add up to {sum} ns, lat is {lat} ns: {at}");
    }
    // The stage means are over the cut I/Os, the mean lat over all of them: with every I/O cut
    // they must agree within 1%; with some unmatched (a few tenths of a percent on the disk here
    // while other I/O ran, and slow ones), the cut I/Os' mean lat lies between what is left of
    // the total with the unmatched at the lowest lat and at the highest.
    let means: f64 = STAGES.iter().map(|n| mean(v, n)).sum();
    let total = &v["total"]["lat_ns"];
    let (lat, lo, hi) =
        (total["mean"].as_f64().unwrap(), total["min"].as_f64().unwrap(), total["max"].as_f64().unwrap());
    let (n, um) = (ios as f64, count(v, "unmatched") as f64);
    let (least, most) = ((lat * n - um * hi) / (n - um), (lat * n - um * lo) / (n - um));
    let counts =
        ["ios", "cut", "unmatched", "lost_events", "clamped"].map(|f| format!("{f} {}", count(v, f))).join(", ");
    assert!(
        means >= least * 0.99 && means <= most * 1.01,
        "{what}: stage means add up to {means:.0} ns, mean lat {lat:.0} ns (of the cut I/Os: {least:.0} to {most:.0}); {counts}"
    );
    assert!(mean(v, "device") > 0.0 && p50(v, "device") > 0.0, "{what}: no device time: {}", stages_text(v));
    assert_eq!(count(v, "without_device"), 0, "{what}: every O_DIRECT read reaches the device");
    // The programs time themselves on one I/O in 64: each of their runs for an I/O lies inside
    // that I/O's span, so their time per I/O is above 0 and below its mean lat.
    let bpf = s["bpf_ns_per_io"].as_f64().unwrap_or(0.0);
    assert!(bpf > 0.0 && bpf < lat, "{what}: the BPF programs' {bpf} ns per I/O against a mean lat of {lat:.0} ns");
    let at = |p: &str| s["at"].as_array().unwrap().iter().find(|a| a["percentile"] == p).unwrap().clone();
    eprintln!(
        "{what}: {counts}; p50 lat {} sum {}; p99 lat {} sum {}; means {means:.0} vs lat {lat:.0}; {}",
        at("p50")["lat_ns"],
        at("p50")["sum_ns"],
        at("p99")["lat_ns"],
        at("p99")["sum_ns"],
        stages_text(v)
    );
}

#[test]
fn stages_add_up_to_lat_on_a_loop_device_and_a_disk_file_at_qd1_and_qd32() {
    let _one = serial();
    need_split!();
    let dev = loop_dev("sums", 256 << 20);
    // A file on the disk: a directory beside the test binaries (target/, on the root file
    // system), not /dev/shm (tmpfs has no device).
    let disk = DiskDir::new("sums");
    let file = disk.0.join("f").to_string_lossy().into_owned();
    for qd in ["1", "32"] {
        let v = split_run(&dev.dev, &["--rw", "randread", "--bs", "4k", "--qd", qd, "--time", "500ms"]);
        check_sums(&v, &format!("loop device, QD{qd}"));
        match &disk.1 {
            None => {
                let v = split_run(
                    &file,
                    &["--size", "32m", "--rw", "randread", "--bs", "4k", "--qd", qd, "--time", "500ms"],
                );
                check_sums(&v, &format!("file on the disk, QD{qd}"));
            }
            Some(why) => skip_part("file on the disk", why),
        }
    }
}

/// Two split runs at once, in two processes, each on its own loop device: every block request
/// passes both runs' BPF programs (a request is found from its bio, in whatever task completes
/// it), so only the process id each SQE's user_data carries keeps one run from stamping the
/// other's records. Without it, each run counted thousands of the other's requests as its own
/// (lost events, and clamped I/Os whose stamps were the other run's).
#[test]
fn two_split_runs_at_once_never_stamp_each_others_ios() {
    let _one = serial();
    need_split!();
    let (a, b) = (loop_dev("two-a", 128 << 20), loop_dev("two-b", 128 << 20));
    let args = ["--rw", "randread", "--bs", "4k", "--qd", "32", "--time", "700ms"];
    let spawn = |dev: &str| {
        crate::common::bin()
            .current_dir(scratch_cwd())
            .args(["run", dev, "--latency-split", "--json", "-", "--quiet"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start drivelab")
    };
    let (pa, pb) = (spawn(&a.dev), spawn(&b.dev));
    for (v, dev) in [
        (result_of(pa.wait_with_output().unwrap(), &args), &a.dev),
        (result_of(pb.wait_with_output().unwrap(), &args), &b.dev),
    ] {
        let ios = count(&v, "ios");
        let (lost, clamped, cut) = (count(&v, "lost_events"), count(&v, "clamped"), count(&v, "cut"));
        // Nearly every I/O is cut; on a busy machine (CI beside a build) a few hundred in 50,000
        // were not (their records read after the run's end): 1% is the bound, the other run's
        // stamps are held to one in a thousand below.
        assert!(ios > 1000 && cut * 100 >= ios * 99, "{dev}: {cut} of {ios} I/Os cut");
        // A request of the other run counted here would be a lost event (its record not armed)
        // or a stamp out of order (clamped): at most one in a thousand of either, for this
        // machine's own rare reasons (a completion posted during a reap pass).
        assert!(
            lost * 1000 <= ios && clamped * 1000 <= ios,
            "{dev}: {lost} lost events, {clamped} clamped of {ios} I/Os"
        );
    }
}

/// A scratch directory beside the test binaries (CARGO_TARGET_TMPDIR), removed on drop; with why
/// it is not on a block device, if it is not.
struct DiskDir(PathBuf, Option<String>);

impl DiskDir {
    fn new(tag: &str) -> DiskDir {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("split-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let major = libc::major(std::fs::metadata(&d).unwrap().dev());
        // Device numbers with major 0 are anonymous: tmpfs, overlay, FUSE — no block device.
        let why = (major == 0).then(|| format!("{} is not on a block device", d.display()));
        DiskDir(d, why)
    }
}

impl Drop for DiskDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child cgroup that throttles reads of one device to `iops` (cgroup v2's `io.max`, or, where
/// the io controller is bound to cgroup v1 as here, v1 blkio's `throttle.read_iops_device`: the
/// same blk-throttle). Removed on drop (with the io controller turned off again in the parent if
/// this turned it on).
struct Throttle {
    dir: PathBuf,
    enabled_in: Option<PathBuf>,
}

impl Throttle {
    fn new(majmin: &str, iops: u32) -> Result<Throttle, String> {
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        let mount_of = |fstype: &str, opt: Option<&str>| {
            mounts.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).find_map(|f| {
                (f.len() > 3 && f[2] == fstype && opt.is_none_or(|o| f[3].split(',').any(|x| x == o)))
                    .then(|| PathBuf::from(f[1]))
            })
        };
        let name = format!("drivelab-test-split-{}", std::process::id());
        if let Some(root) = mount_of("cgroup2", None) {
            let controllers = std::fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default();
            if controllers.split_whitespace().any(|c| c == "io") {
                let sub = std::fs::read_to_string(root.join("cgroup.subtree_control")).unwrap_or_default();
                let enabled_in = if sub.split_whitespace().any(|c| c == "io") {
                    None
                } else if !drivelab_testkit::system_changes_allowed() {
                    return Err(drivelab_testkit::SYSTEM_CHANGES.into());
                } else {
                    std::fs::write(root.join("cgroup.subtree_control"), "+io")
                        .map_err(|e| format!("enabling the io controller in {}: {e}", root.display()))?;
                    Some(root.clone())
                };
                let t = Throttle { dir: root.join(name), enabled_in };
                std::fs::create_dir(&t.dir).map_err(|e| format!("creating {}: {e}", t.dir.display()))?;
                std::fs::write(t.dir.join("io.max"), format!("{majmin} riops={iops}"))
                    .map_err(|e| format!("writing io.max: {e}"))?;
                return Ok(t);
            }
        }
        let Some(v1) = mount_of("cgroup", Some("blkio")) else {
            return Err("no cgroup v2 io controller and no cgroup v1 blkio hierarchy".into());
        };
        let t = Throttle { dir: v1.join(name), enabled_in: None };
        std::fs::create_dir(&t.dir).map_err(|e| format!("creating {}: {e}", t.dir.display()))?;
        std::fs::write(t.dir.join("blkio.throttle.read_iops_device"), format!("{majmin} {iops}"))
            .map_err(|e| format!("writing blkio.throttle.read_iops_device (no blk-throttle?): {e}"))?;
        Ok(t)
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        // Its one process (drivelab) has exited; the cgroup empties a moment later.
        for _ in 0..200 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Some(parent) = &self.enabled_in {
            let _ = std::fs::write(parent.join("cgroup.subtree_control"), "-io");
        }
    }
}

#[test]
fn a_throttling_cgroup_moves_the_kernel_stage_and_not_the_device_stage() {
    let _one = serial();
    need_split!();
    let dev = loop_dev("throttle", 1 << 30);
    let (_, majmin) = devno(&dev.dev);
    let args = ["--rw", "randread", "--bs", "4k", "--qd", "32", "--time", "1s"];
    let free = split_run(&dev.dev, &args);
    let cg = match Throttle::new(&majmin, 2000) {
        Ok(t) => t,
        Err(why) => return skip(&format!("no read throttle for {}: {why}", dev.dev)),
    };
    // drivelab inside the cgroup from its first I/O: the shell joins it, then becomes drivelab.
    let procs = cg.dir.join("cgroup.procs");
    let line = format!(
        "echo $$ > {} && exec {} run {} --latency-split --json - --quiet {}",
        procs.display(),
        env!("CARGO_BIN_EXE_drivelab"),
        dev.dev,
        args.join(" ")
    );
    let o = Command::new("sh")
        .args(["-c", &line])
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .current_dir(scratch_cwd())
        .output()
        .unwrap();
    let throttled = result_of(o, &args);
    drop(cg);
    let what = format!("free: {}; throttled: {}", stages_text(&free), stages_text(&throttled));
    eprintln!("{what}");
    // blk-throttle lets a slice's budget through at once and holds the rest to the next slice
    // (100 ms): the I/Os held wait tens of ms, the others nothing, so the wait shows in the mean
    // and the tail (the p50 may be an I/O that was let through).
    let kernel = |v: &Value, f: &str| stage(v, "kernel")["lat_ns"][f].as_f64().unwrap();
    assert!(mean(&throttled, "kernel") > 100.0 * mean(&free, "kernel"), "kernel mean: {what}");
    assert!(kernel(&throttled, "p99") > 100.0 * kernel(&free, "p99"), "kernel p99: {what}");
    assert!(stage(&throttled, "kernel")["share_pct"].as_f64().unwrap() > 80.0, "kernel share: {what}");
    // The device stage does not take the wait: whatever it moves is a sliver of what the kernel
    // stage gained. (Not its p50 within 2x: a loop device's "device" is its worker thread on the
    // CPUs everything here shares, and the throttle's bursts hand it 32 requests at once; its p50
    // moved 1.1x and 8.3x in two runs here while the kernel stage gained 15 ms a request.)
    let gained = mean(&throttled, "kernel") - mean(&free, "kernel");
    let moved = (mean(&throttled, "device") - mean(&free, "device")).abs();
    assert!(moved < 0.05 * gained, "the device stage mean moved {moved:.0} ns, the kernel's {gained:.0}: {what}");
}

#[test]
fn a_slow_drive_moves_the_device_stage_by_its_delay_and_not_the_tool_or_kernel_stages() {
    let _one = serial();
    need_split!();
    let Some(rig) = drivelab_faultdev::Rig::new(64 << 20, "split") else { return };
    let args = ["--rw", "randread", "--bs", "4k", "--qd", "1", "--time", "500ms"];
    let fast = split_run(&rig.loop_dev, &args);
    let delay = 2_000_000.0;
    rig.drive().set_delay(Duration::from_nanos(delay as u64));
    let slow = split_run(&rig.loop_dev, &args);
    rig.drive().set_delay(Duration::ZERO);
    let what = format!("no delay: {}; 2 ms: {}", stages_text(&fast), stages_text(&slow));
    eprintln!("{what}");
    let grew = |s: &str| p50(&slow, s) - p50(&fast, s);
    assert!(grew("device") >= 0.75 * delay, "the device stage p50 grew {} ns: {what}", grew("device"));
    for s in ["tool", "kernel"] {
        assert!(grew(s) < 0.05 * grew("device"), "the {s} stage p50 grew {} ns with the device: {what}", grew(s));
    }
}

/// A clock that stalls before every answer, spinning (a sleeping thread would let the CPU go
/// idle, and waking an idle virtual CPU slows the loop device's own worker too, which would move
/// the device stage as well): the job thread is busy while its I/O completes, a slow reap made on
/// purpose. `--thinktime` cannot make one (it stalls only once nothing is in flight).
#[derive(Clone)]
struct Stalling(u64);

impl drivelab_engine::clock::Clock for Stalling {
    fn now(&self) -> u64 {
        let end = drivelab_engine::clock::now_ns() + self.0;
        while drivelab_engine::clock::now_ns() < end {
            std::hint::spin_loop();
        }
        drivelab_engine::clock::now_ns()
    }
    fn sleep_until(&self, t_ns: u64) {
        drivelab_engine::clock::sleep_until(t_ns)
    }
}

/// What `drivelab run TARGET --latency-split --rw randread --bs 4k --qd 1 --time 300ms` runs,
/// through the engine in this process (this build's BPF side registered, as the binary does),
/// every job reading the time from `clock`: the result as saved.
fn split_run_on<C: drivelab_engine::clock::Clock + Clone + Send + 'static>(target: &str, clock: C) -> Value {
    use drivelab_engine::run::{run_streams_on, EndEarly, Stream, VerifyFrom};
    use drivelab_engine::spec::AccessSpec;
    drivelab_bpf::register();
    let spec = AccessSpec { latency_split: true, time_ns: Some(300_000_000), ..Default::default() };
    let info = drivelab_engine::target::probe(target).expect("probe the target");
    let targets = [drivelab_engine::target::open(&info, &spec).expect("open the target")];
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut r = run_streams_on(
        &[Stream { spec: &spec, targets: &targets, verify: VerifyFrom::default() }],
        spec.engine,
        stop,
        std::sync::Arc::new(EndEarly::default()),
        clock,
        &mut |_| {},
    )
    .expect("the run");
    let v = serde_json::to_value(r.remove(0)).unwrap();
    assert!(v["latency_split"].is_object(), "no latency_split in the result");
    v
}

#[test]
fn a_slow_reap_moves_the_completion_and_reap_stages_and_not_the_device_stage() {
    let _one = serial();
    need_split!();
    // The slow drive of the test above, 1 ms a request: its device time is the drive's, whatever
    // drivelab's thread does. (A loop device over tmpfs would not do: its "device" is the loop
    // worker on the same CPUs, which a busy drivelab slows: 5.7 -> 23 us at QD1 here.)
    let Some(rig) = drivelab_faultdev::Rig::new(64 << 20, "split-reap") else { return };
    rig.drive().set_delay(Duration::from_millis(1));
    let prompt = split_run_on(&rig.loop_dev, drivelab_engine::clock::Monotonic);
    // 3 ms busy at every read of the clock (the one after each submit among them), with the I/O
    // in flight: it completes after 1 ms and waits for drivelab the other 2.
    let slow = split_run_on(&rig.loop_dev, Stalling(3_000_000));
    let what = format!("prompt: {}; slow reap: {}", stages_text(&prompt), stages_text(&slow));
    eprintln!("{what}");
    let after = |v: &Value| p50(v, "completion") + p50(v, "reap");
    assert!(after(&slow) - after(&prompt) >= 1_000_000.0, "completion + reap p50 did not grow: {what}");
    let d = p50(&slow, "device") / p50(&prompt, "device");
    assert!((0.5..=2.0).contains(&d), "the device stage p50 moved {d:.2}x: {what}");
    let grew = |s: &str| p50(&slow, s) - p50(&prompt, s);
    for s in ["tool", "kernel"] {
        assert!(grew(s) < 0.05 * (after(&slow) - after(&prompt)), "the {s} stage grew {} ns: {what}", grew(s));
    }
}

#[test]
fn a_tmpfs_file_has_no_device_stage_and_its_io_wq_hand_off_is_in_the_kernel_stage() {
    let _one = serial();
    need_split!();
    let dir = Scratch::new("split-tmpfs");
    // Buffered writes to tmpfs: io_uring cannot do them without blocking, so it hands each to an
    // io-wq worker (`io_uring_queue_async_work`).
    let v = split_run(
        &dir.path("f"),
        &["--size", "16m", "--rw", "randwrite", "--bs", "4k", "--qd", "8", "--buffered", "--time", "300ms"],
    );
    let counts = ["ios", "cut", "without_device", "io_wq", "unmatched"].map(|f| format!("{f} {}", count(&v, f)));
    let what = format!("{}; {}", counts.join(", "), stages_text(&v));
    eprintln!("{what}");
    let cut = count(&v, "cut");
    assert!(cut > 0, "{what}");
    assert!(count(&v, "io_wq") > 0, "no I/O was handed to io-wq: {what}");
    assert_eq!(count(&v, "without_device"), cut, "a block request for a tmpfs file: {what}");
    assert_eq!(stage(&v, "device")["lat_ns"]["max"].as_f64(), Some(0.0), "{what}");
    let share = |s: &str| stage(&v, s)["share_pct"].as_f64().unwrap();
    for s in ["tool", "device", "completion", "reap"] {
        assert!(share("kernel") > share(s), "the kernel stage is not the largest ({s}): {what}");
    }
}

/// bpftrace's own timing of one device's block requests, issue → complete: count, mean and a
/// histogram of 100 ns buckets. Its probes, attached before drivelab's, run first on each
/// tracepoint, so what they do after reading the clock delays drivelab's stamp: the issue probe
/// does the same map work after its clock read as the complete probe, so the delay is the same
/// at both ends and cancels out of the interval.
fn bpftrace_script(devno: u64) -> String {
    format!(
        "BEGIN {{ @none[0] = 0; printf(\"ready\\n\"); }}
tracepoint:block:block_rq_issue /args->dev == {devno}/ {{
  $now = nsecs; @start[args->sector] = $now; $s = @start[args->sector];
  if ($s) {{ @pad = stats($now - $s); @padh[0] = count(); delete(@none[args->sector]); }}
}}
tracepoint:block:block_rq_complete /args->dev == {devno}/ {{
  $now = nsecs; $s = @start[args->sector];
  if ($s) {{ $d = $now - $s; @s = stats($d); @h[$d / 100] = count(); delete(@start[args->sector]); }}
}}
END {{ clear(@start); clear(@none); clear(@pad); clear(@padh); }}"
    )
}

/// A percentile of bpftrace's 100 ns buckets (each bucket's middle), ranked as drivelab ranks.
fn bucket_percentile(h: &[(u64, u64)], p: f64) -> f64 {
    let n: u64 = h.iter().map(|b| b.1).sum();
    let rank = ((p / 100.0) * n as f64).ceil().max(1.0) as u64;
    let mut seen = 0;
    for &(k, c) in h {
        seen += c;
        if seen >= rank {
            return k as f64 * 100.0 + 50.0;
        }
    }
    f64::NAN
}

#[test]
fn the_device_stage_agrees_with_bpftrace_on_the_same_block_requests() {
    let _one = serial();
    need_split!();
    if !tool("bpftrace") {
        return skip("bpftrace is not installed (apt-get install bpftrace)");
    }
    let dev = loop_dev("bpftrace", 1 << 30);
    let (no, _) = devno(&dev.dev);
    // Room for every 100 ns bucket of the tail (bpftrace's default is 4,096 keys a map).
    // bpftrace finds tracepoints in tracefs: where the machine has none mounted (a container),
    // it is mounted in a mount namespace of bpftrace's own, which leaves with it (unshare and
    // sh exec, so the pid signalled below is bpftrace's).
    let mut bt = Command::new("unshare")
        .env("BPFTRACE_MAP_KEYS_MAX", "262144")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg("T=/sys/kernel/tracing; [ -e $T/events ] || mount -t tracefs nodev $T; exec bpftrace \"$@\"")
        .args(["sh", "-B", "none", "-e", &bpftrace_script(no)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bpftrace");
    let mut out = std::io::BufReader::new(bt.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            let err = bt.wait_with_output().map(|o| stderr(&o)).unwrap_or_default();
            return skip(&format!("bpftrace did not attach: {err}"));
        }
    }
    let v = split_run(&dev.dev, &["--rw", "randread", "--bs", "64k", "--qd", "32", "--time", "1s"]);
    // SAFETY: kill has no memory preconditions; the pid is our child's, not yet waited for.
    unsafe { libc::kill(bt.id() as i32, libc::SIGINT) };
    let mut text = String::new();
    std::io::Read::read_to_string(&mut out, &mut text).unwrap();
    let _ = bt.wait();
    let stats = text.lines().find_map(|l| l.strip_prefix("@s: count ")).expect("bpftrace's @s");
    let nums: Vec<f64> = stats.split(|c: char| !c.is_ascii_digit()).filter_map(|x| x.parse().ok()).collect();
    let (bt_n, bt_mean) = (nums[0], nums[1]);
    let mut h: Vec<(u64, u64)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("@h[")?.split_once("]: "))
        .map(|(k, c)| (k.parse().unwrap(), c.trim().parse().unwrap()))
        .collect();
    h.sort_unstable();
    let dl = stage(&v, "device");
    let what = format!(
        "drivelab's device stage: cut {}, mean {:.0}, p50 {}, p99 {}; bpftrace: {stats}, p50 {}, p99 {}",
        count(&v, "cut"),
        mean(&v, "device"),
        dl["lat_ns"]["p50"],
        dl["lat_ns"]["p99"],
        bucket_percentile(&h, 50.0),
        bucket_percentile(&h, 99.0)
    );
    eprintln!("{what}");
    let cut = count(&v, "cut") as f64;
    assert!(within(bt_n, cut, 0.05), "bpftrace timed {bt_n} requests, drivelab cut {cut} I/Os: {what}");
    assert!(within(mean(&v, "device"), bt_mean, 0.02), "mean: {what}");
    for (p, tol) in [(50.0, 0.02), (99.0, 0.05)] {
        let (ours, theirs) = (dl["lat_ns"][format!("p{p}")].as_f64().unwrap(), bucket_percentile(&h, p));
        assert!(within(ours, theirs, tol), "p{p}: drivelab {ours} ns, bpftrace {theirs} ns: {what}");
    }
}

#[test]
fn latency_split_with_psync_or_without_root_is_refused_with_the_reason() {
    let dir = Scratch::new("split-refused");
    let f = dir.path("f");
    let o = drivelab(&["run", &f, "--size", "1m", "--time", "100ms", "--engine", "psync", "--latency-split"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--latency-split") && err.contains("--engine uring"), "names the flag and the fix: {err}");
    // Without root: refused with that reason (a drivelab with the split, as root, to start from).
    if let Some(why) = split_unavailable() {
        return skip_part("without root", &why);
    }
    if !tool("setpriv") {
        return skip_part("without root", "setpriv is not installed");
    }
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let o = Command::new("setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", env!("CARGO_BIN_EXE_drivelab")])
        .args(["run", &f, "--time", "100ms", "--latency-split", "--json", "-"])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--latency-split") && err.contains("root"), "says it needs root: {err}");
    assert!(o.stdout.is_empty(), "no result without the split: {}", stdout(&o));
}
