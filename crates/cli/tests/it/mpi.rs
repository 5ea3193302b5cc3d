//! drivelab under `mpirun` (built with `--features mpi`, Debian's Open MPI): three ranks on one
//! machine on three files and on three loop devices, a refusal on rank 2 that stops every rank
//! before a byte is written, an I/O error on one rank stopping all mid-point, Ctrl-C on mpirun
//! keeping a plan's finished points, and ranks on
//! three "hosts" — network namespaces joined by a private bridge, Open MPI's TCP transport
//! between them (tests/support/netns.sh). Skipped, saying why, without the feature, mpirun or root.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::common::{skip, LoopDev, Saved, Scratch};
use serde_json::Value;

/// Why these tests cannot run here, if they cannot. The fast tier runs none: each starts three
/// ranks of drivelab under mpirun, most on devices, for seconds.
fn mpi_unavailable() -> Option<String> {
    if drivelab_testkit::fast_tier() {
        return Some(drivelab_testkit::FAST_TIER.into());
    }
    if !cfg!(feature = "mpi") {
        return Some(
            "built without MPI: cargo test --features drivelab/mpi (needs libopenmpi-dev, libclang-dev)".into(),
        );
    }
    if Command::new("mpirun").arg("--version").output().is_err() {
        return Some("mpirun is not installed (Debian: openmpi-bin)".into());
    }
    None
}

/// One mpirun at a time: three ranks each on a 2-core machine is load enough, and a rank
/// descheduled by another test's ranks measures that test, not itself.
fn alone() -> MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Skips the test, saying why, where MPI is missing; else holds [`alone`] for the test.
macro_rules! need_mpi {
    () => {
        match mpi_unavailable() {
            Some(why) => {
                skip(&why);
                return;
            }
            None => alone(),
        }
    };
}

fn mpirun_cmd(n: usize, dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.env("XDG_DATA_HOME", crate::common::data_home());
    c.env("DRIVELAB_STATE_DIR", crate::common::state_home());
    c.args(["--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n", &n.to_string()])
        .arg(env!("CARGO_BIN_EXE_drivelab"))
        .args(args)
        .current_dir(dir)
        // Ranks of one 2-core machine: wait for each other asleep, not spinning.
        .env("OMPI_MCA_mpi_yield_when_idle", "1");
    c
}

fn mpirun(n: usize, dir: &Path, args: &[&str]) -> Output {
    mpirun_cmd(n, dir, args).output().expect("run mpirun")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The one results directory under `base`.
fn results_dir(base: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(base).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "one results directory: {dirs:?}");
    dirs[0].clone()
}

/// A histogram's buckets as saved (`[[low, count], ...]`), by bucket.
fn buckets(h: &Value) -> BTreeMap<u64, u64> {
    h["buckets"].as_array().unwrap().iter().map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap())).collect()
}

/// The merged result of `point` is the sum of its ranks': I/Os, bytes, and every histogram
/// bucket; returns the ranks' hosts.
fn check_merged(point: &Value, ranks: usize) -> Vec<String> {
    let parts = point["ranks"].as_array().expect("each rank's part saved");
    assert_eq!(parts.len(), ranks);
    let merged = &point["result"]["total"];
    for field in ["ops", "bytes"] {
        let sum: u64 = parts.iter().map(|p| p["results"][0]["total"][field].as_u64().unwrap()).sum();
        assert!(sum > 0);
        assert_eq!(merged[field].as_u64().unwrap(), sum, "{field}");
    }
    let mut sum: BTreeMap<u64, u64> = BTreeMap::new();
    for p in parts {
        for (b, c) in buckets(&p["results"][0]["total"]["lat_ns"]["histogram"]) {
            *sum.entry(b).or_default() += c;
        }
    }
    assert_eq!(buckets(&merged["lat_ns"]["histogram"]), sum, "the merged histogram is the ranks' added");
    // Every rank's I/Os over the longest rank's window (not the ranks' own rates added: on a busy
    // machine a rank descheduled at its end runs long, and the merged rate says so).
    let ops: u64 = parts.iter().map(|p| p["results"][0]["total"]["ops"].as_u64().unwrap()).sum();
    let window = parts.iter().map(|p| p["results"][0]["runtime_ns"].as_u64().unwrap()).max().unwrap();
    assert_eq!(point["result"]["runtime_ns"].as_u64(), Some(window));
    let merged_iops = merged["iops"].as_f64().unwrap();
    let expect = ops as f64 / (window as f64 / 1e9);
    assert!((merged_iops / expect - 1.0).abs() < 1e-9, "merged {merged_iops} IOPS against {expect}");
    parts.iter().map(|p| p["host"].as_str().unwrap().to_string()).collect()
}

#[test]
fn three_ranks_on_three_files_merge_exactly() {
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-files");
    let target = s.path("t{rank}.dat");
    let o = mpirun(
        3,
        &s.0,
        &["run", &target, "--size", "16m", "--rw", "randread", "--qd", "4", "--time", "1s", "--results", "r"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // Rank 0 alone prints: one summary, naming each rank's target.
    assert_eq!(out.matches("3 ranks ran this together").count(), 1, "{out}");
    let dir = results_dir(&s.0.join("r"));
    let saved = Saved::load(&dir);
    assert_eq!(saved.points.len(), 1);
    check_merged(&saved.points[0], 3);
    let facts = &saved.run["ranks"];
    assert_eq!(facts["size"], 3);
    let paths: Vec<&str> =
        facts["ranks"].as_array().unwrap().iter().map(|r| r["targets"][0]["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [s.path("t0.dat"), s.path("t1.dat"), s.path("t2.dat")]);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("Ranks (MPI)") && html.contains("Slowest host"), "the report shows each rank");
    // The same run on one rank, compared: the three ranks' merged row against the one target.
    let o = common::drivelab_in(
        &s.0,
        &["run", &s.path("t0.dat"), "--rw", "randread", "--qd", "4", "--time", "1s", "--results", "one", "-q"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let one = results_dir(&s.0.join("one"));
    let o = common::drivelab_in(&s.0, &["compare", one.to_str().unwrap(), dir.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", text(&o));
    let csv = String::from_utf8_lossy(&o.stdout);
    let merged_iops = saved.points[0]["result"]["total"]["iops"].as_f64().unwrap();
    let row = csv
        .lines()
        .find(|l| l.starts_with("run results compared,IOPS,"))
        .unwrap_or_else(|| panic!("no IOPS row: {csv}"));
    let cell: f64 = row.split(',').nth(5).unwrap().parse().unwrap();
    assert!((cell / merged_iops - 1.0).abs() < 1e-9, "B is every rank's I/Os merged: {row} against {merged_iops}");
    assert!(csv.contains(",B,") && csv.contains("r2@"), "each rank's target is listed: {csv}");
}

/// The merged open loop of `point` covers every rank: target rates and late I/Os summed,
/// achieved every rank's I/Os over the window, the lateness and response-time histograms every
/// rank's added and their percentiles those of the sum; and the saved merged measurement gives
/// the merged figures again.
fn check_open_loop(point: &Value, ranks: usize) {
    check_open_loop_of(&point["result"], point, ranks, 0)
}

/// [`check_open_loop`] of a `merged` result saved beside `record`'s rank parts (their stream
/// `stream`).
fn check_open_loop_of(merged: &Value, record: &Value, ranks: usize, stream: usize) {
    use drivelab_engine::hist::{Histogram, Pct};
    let parts = record["ranks"].as_array().expect("each rank's part saved");
    assert_eq!(parts.len(), ranks);
    let o = &merged["open_loop"];
    let rank = |k: usize| &parts[k]["results"][stream];
    let sum = |f: &dyn Fn(&Value) -> f64| (0..ranks).map(|k| f(rank(k))).sum::<f64>();
    let target = sum(&|r| r["open_loop"]["target_iops"].as_f64().unwrap());
    assert!(
        (o["target_iops"].as_f64().unwrap() / target - 1.0).abs() < 1e-9,
        "target {} vs {target}",
        o["target_iops"]
    );
    let ops = sum(&|r| r["total"]["ops"].as_f64().unwrap());
    let window = merged["runtime_ns"].as_f64().unwrap() / 1e9;
    let achieved = o["achieved_iops"].as_f64().unwrap();
    assert!((achieved / (ops / window) - 1.0).abs() < 1e-9, "achieved {achieved}: every rank's I/Os");
    // Over the longest rank's window, so below the ranks' own rates added when windows differ
    // (short probes on a busy machine), but well above any one rank's.
    let one = (0..ranks).map(|k| rank(k)["open_loop"]["achieved_iops"].as_f64().unwrap()).fold(0.0, f64::max);
    assert!(achieved > 1.3 * one, "achieved {achieved} is every rank's, not one rank's {one}");
    assert_eq!(o["late_ops"].as_f64().unwrap(), sum(&|r| r["open_loop"]["late_ops"].as_f64().unwrap()));
    for h in ["lag_ns", "total_resp_lat_ns", "tool_lag_ns"] {
        let mut added: BTreeMap<u64, u64> = BTreeMap::new();
        for k in 0..ranks {
            for (b, c) in buckets(&rank(k)["open_loop"][h]["histogram"]) {
                *added.entry(b).or_default() += c;
            }
        }
        assert_eq!(buckets(&o[h]["histogram"]), added, "{h}: every rank's I/Os");
        let mut all = Histogram::from_sparse(&added.iter().map(|(&b, &c)| [b, c]).collect::<Vec<_>>());
        let ext = |f: &'static str| (0..ranks).map(move |k| rank(k)["open_loop"][h][f].as_u64().unwrap());
        all.set_extremes(ext("min").min().unwrap(), ext("max").max().unwrap());
        for p in Pct::ALL {
            assert_eq!(o[h][p.name()].as_u64(), Some(all.percentile(p.value())), "{h} {}", p.name());
        }
    }
    let r: drivelab_engine::result::RunResult = serde_json::from_value(merged.clone()).unwrap();
    let f = drivelab_engine::measurement::summarize(r.measurement.as_ref().expect("saved"), &r.spec);
    let (fo, ro) = (f.open_loop.unwrap(), r.open_loop.unwrap());
    assert_eq!(
        (f.total.ops, &fo.lag_ns.percentiles, &fo.lag_ns.histogram),
        (r.total.ops, &ro.lag_ns.percentiles, &ro.lag_ns.histogram)
    );
}

#[test]
fn ranks_at_a_rate_merge_every_ranks_open_loop() {
    // `--rate` is the total: each rank schedules its share, and the merged figures are every
    // rank's (they were rank 0's alone: "fixed rate 4000 IOPS, achieved 2000 IOPS").
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-rate");
    let file = s.path("t{rank}.dat");
    for (n, target, dir) in [(2, "null", "r2"), (3, file.as_str(), "r3")] {
        let mut args = vec!["run", target, "--rw", "randread", "--rate", "3000", "--time", "2s", "--results", dir];
        if target != "null" {
            args.extend(["--size", "16m"]);
        }
        let o = mpirun(n, &s.0, &args);
        assert!(o.status.success(), "{}", text(&o));
        let saved = Saved::load(&results_dir(&s.0.join(dir)));
        check_open_loop(&saved.points[0], n);
        check_merged(&saved.points[0], n);
    }
}

#[test]
fn qos_by_rate_under_mpi_judges_every_ranks_ios() {
    // Each probe at a rate: the merged figures the verdict reads are every rank's I/Os.
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-qos");
    let args = ["qos", "null", "--by", "rate", "--objective", "p99<10s", "--time", "300ms", "--results", "r", "-q"];
    let o = mpirun(2, &s.0, &args);
    // On a busy machine a rate may not be delivered (never a pass): "no load meets" is exit 3;
    // what is checked is the merge of every probe either way.
    assert!(o.status.code() == Some(0) || o.status.code() == Some(3), "{}", text(&o));
    let saved = Saved::load(&results_dir(&s.0.join("r")));
    let probes: Vec<&Value> = saved.probes.iter().filter(|p| p["role"] != "saturation").collect();
    assert!(!probes.is_empty(), "probes at rates: {:?}", saved.probes);
    for p in probes {
        check_open_loop_of(&p["data"]["qos"]["result"], p, 2, 0);
    }
}

#[test]
fn act_under_mpi_judges_every_ranks_ios() {
    // Each of ACT's streams of each load: its merged figures (what the verdict and the max-lag
    // check read) are every rank's I/Os.
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-act");
    let o = mpirun(2, &s.0, &["act", "null", "--scale", "1", "--time", "2s", "--slice", "1s", "--results", "r", "-q"]);
    assert!(o.status.code() == Some(0) || o.status.code() == Some(3), "{}", text(&o));
    let saved = Saved::load(&results_dir(&s.0.join("r")));
    assert!(!saved.probes.is_empty());
    for p in &saved.probes {
        let streams = p["data"]["act"]["streams"].as_array().expect("ACT's streams");
        for (i, st) in streams.iter().enumerate() {
            check_open_loop_of(&st["result"], p, 2, i);
        }
    }
}

#[test]
fn three_ranks_on_three_loop_devices_merge_exactly() {
    let _alone = need_mpi!();
    common::need_loop!();
    let s = Scratch::new("mpi-loop");
    let devs: Vec<LoopDev> =
        (0..3).map(|k| LoopDev::new(Path::new(&s.path(&format!("backing{k}"))), 32 << 20, None)).collect();
    // Each rank's device by its rank: a link per rank to the device the test attached.
    for (k, d) in devs.iter().enumerate() {
        std::os::unix::fs::symlink(&d.dev, s.0.join(format!("dev{k}"))).unwrap();
    }
    let dev = s.path("dev{rank}");
    let o = mpirun(
        3,
        &s.0,
        &["run", &dev, "--destroy", &dev, "--rw", "randrw", "--qd", "4", "--time", "1s", "--results", "r"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let saved = Saved::load(&results_dir(&s.0.join("r")));
    check_merged(&saved.points[0], 3);
    // Without --destroy naming each rank's device, every rank refuses before writing.
    let o = mpirun(3, &s.0, &["run", &dev, "--rw", "randwrite", "--time", "1s", "--results", "r2"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!s.0.join("r2").exists());
}

#[test]
fn an_io_error_on_rank_1_stops_every_rank_mid_point() {
    let _alone = need_mpi!();
    common::need_loop!();
    let s = Scratch::new("mpi-eio");
    // Rank 1's device: a loop device over a sparse 64 MiB file on a 1 MiB tmpfs, so its writes
    // fail for real once the tmpfs is full; ranks 0 and 2 have devices that never fail.
    let Some(fs) = common::TinyTmpfs::new(&s.0.join("tiny"), "1m") else {
        skip("cannot mount a tmpfs");
        return;
    };
    let devs = [
        LoopDev::new(Path::new(&s.path("backing0")), 64 << 20, None),
        LoopDev::new(&fs.0.join("sparse"), 64 << 20, None),
        LoopDev::new(Path::new(&s.path("backing2")), 64 << 20, None),
    ];
    for (k, d) in devs.iter().enumerate() {
        std::os::unix::fs::symlink(&d.dev, s.0.join(format!("dev{k}"))).unwrap();
    }
    let dev = s.path("dev{rank}");
    let o = mpirun(
        3,
        &s.0,
        &[
            "run",
            &dev,
            "--destroy",
            &dev,
            "--rw",
            "write",
            "--bs",
            "64k",
            "--qd",
            "4",
            "--time",
            "20s",
            "--results",
            "r",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "an error is never a success: {}", text(&o));
    let saved = Saved::load(&results_dir(&s.0.join("r")));
    let point = &saved.points[0];
    assert_eq!(point["result"]["stopped_by_error"], true);
    assert_eq!(point["result"]["interrupted"], false, "stopped by an error, not by the user");
    let parts = point["ranks"].as_array().unwrap();
    assert_eq!(parts[1]["results"][0]["stopped_by_error"], true, "rank 1 failed");
    for k in [0, 2] {
        let r = &parts[k]["results"][0];
        let ran_s = r["runtime_ns"].as_f64().unwrap() / 1e9;
        assert!(ran_s < 10.0, "rank {k} stopped with rank 1, not after 20 s: {ran_s} s");
        assert_eq!(r["interrupted"], false);
        assert!(r["total"]["ops"].as_u64().unwrap() > 0, "rank {k} wrote before it stopped");
        let said = r["notices"].as_array().unwrap().iter().any(|n| {
            n.as_str().unwrap().contains("rank 1 (") && n.as_str().unwrap().contains("stopped on an I/O error")
        });
        assert!(said, "rank {k} says who stopped it: {}", r["notices"]);
    }
}

#[test]
fn a_refusal_on_rank_2_stops_every_rank_before_anything_is_written() {
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-refusal");
    std::fs::write(s.0.join("t2.dat"), vec![7u8; 1 << 20]).unwrap();
    let target = s.path("t{rank}.dat");
    let o = mpirun(3, &s.0, &["run", &target, "--size", "8m", "--rw", "randwrite", "--time", "1s", "--results", "r"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("rank 2 (") && err.contains("t2.dat exists and drivelab did not create it"), "{err}");
    // Said once (rank 0 speaks for all), and nothing written anywhere.
    assert_eq!(err.matches("drivelab did not create it").count(), 1, "{err}");
    assert!(!s.0.join("t0.dat").exists() && !s.0.join("t1.dat").exists());
    assert_eq!(std::fs::read(s.0.join("t2.dat")).unwrap(), vec![7u8; 1 << 20]);
    assert!(!s.0.join("r").exists());
}

#[test]
fn ctrl_c_on_mpirun_keeps_the_finished_points_and_resume_runs_the_rest() {
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-ctrlc");
    let plan = s.path("p.toml");
    std::fs::write(
        &plan,
        format!(
            "name = \"ctrlc\"\ntargets = [\"{}\"]\n[defaults]\nrw = \"randread\"\ntime = \"1s\"\n[matrix]\nqd = [1, 2, 4, 8, 16, 32]\n",
            s.path("t{rank}.dat")
        ),
    )
    .unwrap();
    let child = mpirun_cmd(3, &s.0, &["plan", &plan, "--size", "8m", "--results", "r"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until two points are saved, then Ctrl-C.
    let started = Instant::now();
    let points = || -> usize {
        std::fs::read_dir(s.0.join("r"))
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| std::fs::read_dir(e.ok()?.path().join("points")).ok())
            .map_or(0, |d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".json") && !n.ends_with(".interrupted.json"))
                    .count()
            })
    };
    while points() < 2 {
        assert!(started.elapsed() < Duration::from_secs(60), "no point finished");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success(), "interrupted: {}", text(&o));
    let saved = Saved::load(&results_dir(&s.0.join("r")));
    let finished: Vec<&Value> = saved.points.iter().filter(|p| p["result"]["interrupted"] == false).collect();
    assert!(finished.len() >= 2, "the finished points are kept");
    assert!(saved.points.len() < 6, "the plan stopped");
    let done_before = finished.len();
    for p in finished {
        check_merged(p, 3);
    }
    // Resumed only the way it was started: on 3 ranks, not alone or on 2.
    let dir = results_dir(&s.0.join("r"));
    let d = dir.to_str().unwrap();
    let o = common::drivelab_in(&s.0, &["plan", "--resume", d]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("started by mpirun on 3 ranks"), "{}", text(&o));
    let o = mpirun(2, &s.0, &["plan", "--resume", d]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = mpirun(3, &s.0, &["plan", "--resume", d]);
    assert!(o.status.success(), "{}", text(&o));
    let saved = Saved::load(&dir);
    let finished: Vec<&Value> = saved.points.iter().filter(|p| p["result"]["interrupted"] == false).collect();
    let indexes: std::collections::BTreeSet<u64> =
        finished.iter().map(|p| p["point"]["index"].as_u64().unwrap()).collect();
    assert_eq!((finished.len(), indexes.len()), (6, 6), "every point finished once: {}", text(&o));
    for p in finished {
        check_merged(p, 3);
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!(", {done_before} done earlier")), "the finished points were skipped: {out}");
    assert_eq!(out.matches("done in an earlier run, skipped").count(), done_before, "{out}");
    // The plan's tables (a row per target) give each point a first row of every rank merged.
    let o = common::drivelab_in(&s.0, &["report", d, "--format", "text"]);
    let report = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = report.lines().filter(|l| l.starts_with("all ranks") || l.starts_with("r0@")).collect();
    assert!(rows.len() >= 2 && rows[0].starts_with("all ranks"), "{report}");
}

/// Three "hosts": network namespaces on a private bridge (tests/support/netns.sh), removed after.
struct Hosts(&'static str);

impl Hosts {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/netns.sh")
    }
    fn up(prefix: &'static str, n: usize) -> Result<Hosts, String> {
        let _ = Command::new(Self::script()).args(["down", prefix, &n.to_string()]).output();
        let o =
            Command::new(Self::script()).args(["up", prefix, &n.to_string()]).output().map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).into_owned());
        }
        Ok(Hosts(prefix))
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = Command::new(Self::script()).args(["down", self.0, "3"]).output();
    }
}

#[test]
fn ranks_on_three_hosts_over_tcp_merge_into_one_result() {
    let _alone = need_mpi!();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("needs root to create network namespaces");
        return;
    }
    if Command::new("ip").arg("-V").output().is_err() {
        skip("ip (Debian: iproute2) is not installed");
        return;
    }
    let hosts = match Hosts::up("dlt", 3) {
        Ok(h) => h,
        Err(e) => panic!("creating the namespaces failed: {e}"),
    };
    let s = Scratch::new("mpi-hosts");
    let target = s.path("{host}.dat");
    let o = Command::new(Hosts::script())
        .env("XDG_DATA_HOME", crate::common::data_home())
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .args(["run", hosts.0, "3", "--"])
        .arg(env!("CARGO_BIN_EXE_drivelab"))
        .args(["run", &target, "--size", "8m", "--rw", "randread", "--time", "1s", "--results"])
        .arg(s.0.join("r"))
        .current_dir(&s.0)
        .env("NETNS_RUN_TIMEOUT", "120")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let saved = Saved::load(&results_dir(&s.0.join("r")));
    let hosts = check_merged(&saved.points[0], 3);
    assert_eq!(hosts, ["dlt0", "dlt1", "dlt2"], "each rank on its own host");
    for h in &hosts {
        assert!(s.0.join(format!("{h}.dat")).exists(), "{h}'s own target");
    }
    let facts: Vec<&str> = saved.run["ranks"]["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["host"]["hostname"].as_str().unwrap())
        .collect();
    assert_eq!(facts, ["dlt0", "dlt1", "dlt2"]);
}

/// Issue #26, item 5: Open MPI binds each of two ranks to a core (its default for two ranks), and
/// the CPU line read "(53.1% of 1 cores)" on a 2-core host: the share is of the host's cores, and
/// one core is "1 core".
#[test]
fn the_cpu_line_under_mpirun_counts_the_hosts_cores() {
    let _alone = need_mpi!();
    let s = Scratch::new("mpi-cores");
    let o = Command::new("mpirun")
        .env("XDG_DATA_HOME", crate::common::data_home())
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .args(["--allow-run-as-root", "--oversubscribe", "--bind-to", "core", "-n", "2"])
        .arg(env!("CARGO_BIN_EXE_drivelab"))
        .args(["run", "null", "--rw", "randread", "--time", "0.3s", "--results", "r"])
        .current_dir(&s.0)
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .output()
        .expect("run mpirun");
    assert!(o.status.success(), "{}", text(&o));
    let host = String::from_utf8(Command::new("getconf").arg("_NPROCESSORS_ONLN").output().unwrap().stdout).unwrap();
    let host: u32 = host.trim().parse().unwrap();
    let out = text(&o);
    let line = out.lines().find(|l| l.trim_start().starts_with("cpu ")).expect("a cpu line");
    let cores = if host == 1 { "1 core)".to_string() } else { format!("{host} cores)") };
    assert!(line.contains(&format!(" of {cores}")), "{line}");
}
