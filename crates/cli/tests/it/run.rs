//! `drivelab run` end to end: real I/O through every backend on files in /dev/shm and on loop
//! devices, writes read back to prove they landed where the generator said, results checked for
//! internal consistency, and every bad input refused with exit code 2 and nothing written.

use crate::common;

use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::common::{drivelab, json, need_loop, stderr, stdout, LoopDev, Saved, Scratch};
use drivelab_engine::gen::{Generator, Op};
use drivelab_engine::pattern::{read_stamp, WRITE_TAG};
use drivelab_engine::spec::AccessSpec;

fn uring_unavailable() -> Option<String> {
    drivelab_engine::backend::uring::available().err()
}

/// The saved result agrees with itself: ops = histogram counts, IOPS = ops / runtime,
/// percentiles ascending and inside min..max, the series adds up to about the total.
fn check_result(v: &serde_json::Value, dir: &str) {
    let d = &v[dir];
    let ops = d["ops"].as_u64().unwrap();
    assert!(ops > 0, "{dir}: no ops");
    let lat = &d["lat_ns"];
    let buckets: u64 = lat["histogram"]["buckets"].as_array().unwrap().iter().map(|b| b[1].as_u64().unwrap()).sum();
    assert_eq!(buckets, ops, "{dir}: histogram holds every op");
    let runtime = v["runtime_ns"].as_u64().unwrap() as f64 / 1e9;
    let iops = d["iops"].as_f64().unwrap();
    assert!((iops - ops as f64 / runtime).abs() < 1e-6 * iops + 1e-9, "{dir}: iops = ops / runtime");
    let bw = d["bw_bytes_per_s"].as_f64().unwrap();
    assert!((d["bytes"].as_f64().unwrap() / runtime - bw).abs() <= 1e-9 * bw, "{dir}: bw = bytes / runtime");
    assert!((d["bw_mib_per_s"].as_f64().unwrap() * 1048576.0 - bw).abs() <= 1e-6 * bw);
    let names = ["p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99", "p99.999", "p99.9999"];
    let mut prev = lat["min"].as_u64().unwrap();
    for n in names {
        let p = lat[n].as_u64().unwrap_or_else(|| panic!("{dir}: {n} missing"));
        assert!(p >= prev, "{dir}: {n} = {p} below the previous percentile {prev}");
        prev = p;
    }
    assert!(prev <= lat["max"].as_u64().unwrap());
    let series_ops: f64 = v["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["iops"].as_f64().unwrap() * p["dur_ns"].as_f64().unwrap() / 1e9)
        .sum();
    let total_ops = v["total"]["ops"].as_f64().unwrap();
    assert!((series_ops - total_ops).abs() <= 0.02 * total_ops + 2.0, "series {series_ops} vs total {total_ops}");
    for k in ["usr_pct", "sys_pct", "machine_pct", "ns_per_io"] {
        assert!(v["cpu"][k].as_f64().is_some(), "cpu.{k}");
    }
}

fn run_json(args: &[&str], out: &str) -> serde_json::Value {
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--json", out, "--quiet"]);
    let o = drivelab(&a);
    assert!(o.status.success(), "drivelab {a:?} failed: {}", stderr(&o));
    json(Path::new(out))
}

#[test]
fn random_reads_on_a_new_file_with_every_backend() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("reads");
    let f = s.path("target");
    for engine in ["psync", "uring", "libaio"] {
        if engine == "uring" {
            if let Some(why) = uring_unavailable() {
                common::skip_part("uring", &why);
                continue;
            }
        }
        let qd = match engine {
            "psync" => "1",
            "libaio" => "32",
            _ => "16",
        };
        let out = s.path(&format!("{engine}.json"));
        let v =
            run_json(&[&f, "--rw", "randread", "--size", "32m", "--qd", qd, "--engine", engine, "--time", "1s"], &out);
        check_result(&v, "read");
        assert_eq!(v["write"]["ops"], 0);
        assert_eq!(v["engine"]["backend"], engine);
        assert_eq!(v["targets"][0]["size_bytes"], 32 << 20);
        assert!(!v["series"].as_array().unwrap().is_empty());
        let qd_mean = v["qd_mean"].as_f64().unwrap();
        assert!(qd_mean > 0.0 && qd_mean <= qd.parse::<f64>().unwrap() + 0.01, "qd_mean {qd_mean}");
    }
    // The file was created whole: every byte written (no holes), and it is marked as ours.
    let meta = std::fs::metadata(&f).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!(meta.len(), 32 << 20);
    assert_eq!(meta.blocks() * 512, 32 << 20, "no holes");
}

/// Replay the generator of job 0 for `n` I/Os and check each written block carries the stamp of
/// a workload write at exactly that offset, and that no other block does.
fn verify_writes(target: &str, v: &serde_json::Value, n: usize) {
    let spec: AccessSpec = serde_json::from_value(v["spec"].clone()).unwrap();
    let size = v["targets"][0]["size_bytes"].as_u64().unwrap();
    let span = spec.span_bytes.unwrap_or(size - spec.offset_bytes);
    let mut g = Generator::new(&spec, spec.offset_bytes, span, 0);
    let f = std::fs::File::open(target).unwrap();
    let mut written = std::collections::BTreeSet::new();
    let mut buf = vec![0u8; 16];
    for _ in 0..n {
        let io = g.next_io();
        if io.op == Op::Write {
            f.read_exact_at(&mut buf, io.offset).unwrap();
            assert_eq!(
                read_stamp(&buf),
                (io.offset, WRITE_TAG),
                "block at {} not written as the generator said",
                io.offset
            );
            written.insert(io.offset);
        }
    }
    let mut tagged = 0;
    let mut off = 0;
    while off + 4096 <= size {
        f.read_exact_at(&mut buf, off).unwrap();
        if read_stamp(&buf).1 == WRITE_TAG {
            tagged += 1;
        }
        off += 4096;
    }
    assert_eq!(tagged, written.len(), "writes landed only where the generator said");
}

#[test]
fn writes_land_where_the_generator_said_on_files() {
    let s = Scratch::new("writes");
    for engine in ["psync", "uring", "libaio"] {
        if engine == "uring" && uring_unavailable().is_some() {
            continue;
        }
        let f = s.path(&format!("t-{engine}"));
        let qd = if engine == "psync" { "1" } else { "8" };
        let out = s.path(&format!("{engine}.json"));
        let v = run_json(
            &[
                &f,
                "--rw",
                "randwrite",
                "--size",
                "16m",
                "--qd",
                qd,
                "--engine",
                engine,
                "--io-size",
                "1m",
                "--seed",
                "9",
            ],
            &out,
        );
        check_result(&v, "write");
        assert_eq!(v["write"]["ops"], 256, "--io-size 1m of 4k writes is exactly 256 I/Os");
        verify_writes(&f, &v, 256);
    }
}

#[test]
fn reads_and_writes_on_a_loop_device_with_every_backend() {
    need_loop!();
    let s = Scratch::new("loopio");
    let lo = LoopDev::new(&s.0.join("backing"), 32 << 20, Some(0xA5));
    for engine in ["psync", "uring", "libaio"] {
        if engine == "uring" && uring_unavailable().is_some() {
            continue;
        }
        let qd = if engine == "psync" { "1" } else { "8" };
        let out = s.path(&format!("r-{engine}.json"));
        let v = run_json(&[&lo.dev, "--rw", "randread", "--qd", qd, "--engine", engine, "--time", "1s"], &out);
        check_result(&v, "read");
        assert_eq!(v["targets"][0]["kind"], "block");
        assert_eq!(v["targets"][0]["size_bytes"], 32 << 20);
        let out = s.path(&format!("w-{engine}.json"));
        let v = run_json(
            &[
                &lo.dev,
                "--rw",
                "randrw",
                "--read",
                "30",
                "--qd",
                qd,
                "--engine",
                engine,
                "--io-size",
                "2m",
                "--destroy",
                &lo.dev,
                "--seed",
                "3",
            ],
            &out,
        );
        check_result(&v, "write");
        check_result(&v, "read");
        let n = (v["total"]["ops"].as_u64().unwrap()) as usize;
        assert_eq!(n, 512);
        verify_writes(&lo.dev, &v, n);
        // Reset the device so the next engine's check starts clean.
        std::fs::OpenOptions::new().write(true).open(&lo.dev).unwrap().write_all_at(&vec![0xA5; 32 << 20], 0).unwrap();
    }
}

#[test]
fn several_targets_run_at_once_with_per_target_results() {
    let s = Scratch::new("multi");
    let (a, b) = (s.path("a"), s.path("b"));
    let out = s.path("r.json");
    let v = run_json(&[&a, &b, "--rw", "randread", "--size", "8m", "--qd", "4", "--time", "1s"], &out);
    let per = v["per_target"].as_array().unwrap();
    assert_eq!(per.len(), 2);
    let sum: u64 = per.iter().map(|t| t["total"]["ops"].as_u64().unwrap()).sum();
    assert_eq!(sum, v["total"]["ops"].as_u64().unwrap());
    assert!(per.iter().all(|t| t["read"]["ops"].as_u64().unwrap() > 0));
}

#[test]
fn the_null_target_measures_the_engine_and_reports_cpu() {
    let s = Scratch::new("null");
    let out = s.path("n.json");
    let v = run_json(&["null", "--rw", "randrw", "--qd", "32", "--time", "500ms"], &out);
    check_result(&v, "total");
    assert_eq!(v["engine"]["backend"], "null");
    let read_share = v["read"]["ops"].as_f64().unwrap() / v["total"]["ops"].as_f64().unwrap();
    assert!((read_share - 0.5).abs() < 0.01, "{read_share}");
    // A null target never waits for I/O: CPU-bound wherever its thread was runnable (running
    // or waiting for a CPU) 90% of the window. A machine under memory pressure can still block
    // it (reclaim is neither), so the flag is checked against its own figure, not assumed.
    let cpu = &v["cpu"];
    let runnable = cpu["runnable_less_spin_pct"].as_f64().unwrap();
    assert_eq!(cpu["cpu_bound"], runnable >= 90.0, "cpu_bound is runnable >= 90%: {cpu}");
    assert!(cpu["busiest_job_pct"].as_f64().unwrap() > 0.0 && runnable > 0.0, "{cpu}");
    assert_eq!(v["engine"]["job_cpus"], serde_json::json!([null]), "not pinned by default");
    let v = run_json(&["null", "null", "--cpus", "spread", "--time", "200ms"], &s.path("p.json"));
    let cpus = v["engine"]["job_cpus"].as_array().unwrap();
    assert_eq!(cpus.len(), 2);
    assert!(cpus.iter().all(|c| c.is_u64()), "spread pins every job: {cpus:?}");
}

/// A CPU-bound loop pinned to CPU 0 for as long as it lives.
struct Hog(std::process::Child);

impl Hog {
    /// A shell busy loop pinned to CPU 0, for as long as the `Hog` lives.
    fn on_cpu0() -> Hog {
        Hog(std::process::Command::new("taskset")
            .args(["-c", "0", "sh", "-c", "while :; do :; done"])
            .spawn()
            .expect("taskset (util-linux)"))
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_run_whose_job_thread_waited_for_a_cpu_says_so_with_the_figure_in_every_output() {
    let s = Scratch::new("starved");
    // The job thread and a busy loop share CPU 0: the thread is runnable all the time (a null
    // target never waits for I/O) and on the CPU about half of it. No clock bound: the share
    // the scheduler gives is what is asserted, not how long anything took.
    let hog = Hog::on_cpu0();
    let out = s.path("s.json");
    let results = s.path("r");
    let o = drivelab(&["run", "null", "--time", "1s", "--cpus", "0", "--json", &out, "--results", &results]);
    drop(hog);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(Path::new(&out));
    let waited = v["cpu"]["runq_wait_pct"].as_f64().unwrap();
    assert!(waited >= 20.0 && v["cpu"]["cpu_starved"] == true, "{}", v["cpu"]);
    let said = format!("waited for a CPU {waited:.0}% of the run");
    assert!(stdout(&o).contains(&said), "the summary: {}", stdout(&o));
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let dir = dir.to_str().unwrap();
    for format in ["text", "md", "json"] {
        let r = drivelab(&["report", dir, "--format", format]);
        assert!(stdout(&r).contains(&said), "report --format {format}: {}", stdout(&r));
    }
    let csv = stdout(&drivelab(&["report", dir, "--format", "csv"]));
    let (head, row) = csv.split_once('\n').unwrap();
    let at = head.split(',').position(|c| c == "cpu_starved").expect("a cpu_starved column");
    assert_eq!(row.split(',').nth(at), Some("true"), "{csv}");
    assert!(std::fs::read_to_string(format!("{dir}/report.html")).unwrap().contains(&said));
}

#[test]
fn a_qos_probe_whose_job_thread_waited_for_a_cpu_is_not_judged_unless_asked() {
    // As above: the probe's job thread shares CPU 0 with a busy loop. The objective (p99 under
    // 10 s on the null target) is met by any probe, so only the wait keeps one from passing.
    let s = Scratch::new("qos-starved");
    let hog = Hog::on_cpu0();
    let qos = |extra: &[&str]| {
        let results = s.path(&format!("r{}", extra.len()));
        let mut args = vec!["qos", "null", "--objective", "p99<10s", "--by", "qd", "--max-qd", "1", "--time", "300ms"];
        args.extend(["--cpus", "0", "--results", &results, "-q"]);
        args.extend(extra);
        let o = drivelab(&args);
        let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
        (o, Saved::load(&dir))
    };
    let (o, saved) = qos(&[]);
    let (o_busy, saved_busy) = qos(&["--judge-busy"]);
    drop(hog);
    let probes = |s: &Saved| s.probes.iter().filter(|p| p["role"] != "saturation").cloned().collect::<Vec<_>>();
    assert!(!probes(&saved).is_empty(), "a probe beside the saturation run");
    for p in probes(&saved) {
        let r = &p["data"]["qos"]["result"]["cpu"];
        assert_eq!(r["cpu_starved"], true, "the hog took the CPU: {r}");
        assert_eq!(p["pass"], false, "{p}");
        let why = p["why"].as_str().unwrap();
        assert!(why.starts_with("not judged: the machine was busy") && why.contains("--judge-busy"), "{why}");
    }
    assert_eq!(o.status.code(), Some(3), "no load passed: {}", stderr(&o));
    let reason = saved.outcome["reason"].as_str().unwrap();
    assert!(reason.contains("probes not judged: the machine was busy"), "the search's end says why: {reason}");
    assert!(o_busy.status.success(), "--judge-busy: {}", stderr(&o_busy));
    assert!(probes(&saved_busy).iter().any(|p| p["pass"] == true), "--judge-busy judges the busy probes");
}

#[test]
fn summary_names_workload_target_and_numbers() {
    let o = drivelab(&["run", "null", "--rw", "randread", "--bs", "64k", "--qd", "4", "--time", "300ms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for want in ["randread 64k qd4 x1", "target null", "IOPS", "MB/s", "p99.9", "read", "cpu"] {
        assert!(text.contains(want), "summary lacks {want:?}:\n{text}");
    }
    assert!(!text.contains("MiB/s"), "one unit family for rates, MB/s:\n{text}");
    assert!(stderr(&o).is_empty(), "no progress line when not a terminal: {}", stderr(&o));
}

#[test]
fn interrupt_stops_the_run_early_and_keeps_the_partial_result() {
    // No wall-clock bound (a loaded machine can take its time to start and to stop): the run of
    // 60 s ends far earlier on SIGINT, and what it measured lies within the time it lived.
    let s = Scratch::new("sigint");
    let out = s.path("i.json");
    let spawned = std::time::Instant::now();
    let mut child = crate::common::bin()
        .args(["run", "null", "--time", "60s", "--json", &out, "--results", &s.path("results")])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // No time guessed: signalled once its job thread runs (the run has started measuring).
    let pid = child.id();
    let running =
        || {
            crate::common::tree(pid).into_iter().any(|p| {
                std::fs::read_dir(format!("/proc/{p}/task")).into_iter().flatten().flatten().any(|t| {
                    std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.starts_with("drivelab-s0t0j0"))
                })
            })
        };
    while !running() {
        assert!(child.try_wait().unwrap().is_none(), "drivelab ended before its job started");
        std::thread::yield_now();
    }
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    // Its stdout read to the end, so a full pipe never holds it up.
    std::io::copy(&mut child.stdout.take().unwrap(), &mut std::io::sink()).unwrap();
    let status = child.wait().unwrap();
    let lived = spawned.elapsed().as_nanos() as u64;
    assert_eq!(status.code(), Some(130));
    let v = json(Path::new(&out));
    assert_eq!(v["interrupted"], true);
    let rt = v["runtime_ns"].as_u64().unwrap();
    assert!(rt > 0 && rt < lived, "measured {rt} ns of a process that lived {lived} ns");
    assert!(rt < 30_000_000_000, "the signal stopped a 60 s run: measured {rt} ns");
    // The interrupted point is kept in the results directory too, marked as such.
    let dir = std::fs::read_dir(s.path("results")).unwrap().next().unwrap().unwrap().path();
    let kept: Vec<_> = std::fs::read_dir(dir.join("points")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(kept.len() == 1 && kept[0].to_str().unwrap().ends_with(".interrupted.json"), "{kept:?}");
}

/// Issue #25, item 2: an I/O error on one target stops the jobs of every target at their next
/// loop turn, and what each measured is saved and reported with the error (exit 1).
#[test]
fn an_error_on_one_target_stops_every_target_and_keeps_what_each_measured() {
    need_loop!();
    let s = Scratch::new("eio-two");
    // A loop device over a sparse 64 MiB file on a 1 MiB tmpfs (its writes past 1 MiB fail),
    // beside a file that takes every write.
    let Some(fs) = common::TinyTmpfs::new(&s.0.join("tiny"), "1m") else {
        common::skip("cannot mount a tmpfs");
        return;
    };
    let lo = LoopDev::new(&fs.0.join("sparse"), 64 << 20, None);
    let (good, out) = (s.path("good"), s.path("e.json"));
    let args = ["run", &lo.dev, &good, "--size", "8m", "--rw", "write", "--bs", "64k", "--qd", "4", "--time", "60s"];
    let results = s.path("results");
    let o = drivelab(&[&args[..], &["--destroy", &lo.dev, "--json", &out, "--quiet", "--results", &results]].concat());
    assert_eq!(o.status.code(), Some(1), "stops with exit 1: {}", stderr(&o));
    let v = json(Path::new(&out));
    assert_eq!((v["stopped_by_error"].as_bool(), v["interrupted"].as_bool()), (Some(true), Some(false)));
    let errors = v["errors"].as_array().unwrap();
    assert!(errors.iter().all(|e| e["target"] == lo.dev.as_str()), "only the loop device failed: {errors:?}");
    // The file's job did not write on for the full minute.
    let ran = v["runtime_ns"].as_u64().unwrap();
    assert!(ran < 30_000_000_000, "ran {ran} ns of --time 60s: the file's job was not stopped");
    let ops = |i: usize| v["per_target"][i]["write"]["ops"].as_u64().unwrap();
    assert!(ops(1) > 0, "the file's writes are kept: {}", v["per_target"]);
    assert_eq!(v["write"]["ops"].as_u64().unwrap(), ops(0) + ops(1));
    let said = format!("stopped early with every job: a job on {} stopped on an error", lo.dev);
    assert!(v["notices"].as_array().unwrap().iter().any(|n| n == said.as_str()), "{}", v["notices"]);
    // Saved in the results directory too, with the error.
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let saved: Vec<_> = std::fs::read_dir(dir.join("points")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(json(&saved[0])["result"]["errors"], v["errors"], "the saved point has the error");
    drop(lo);
    drop(fs);
}

#[test]
fn io_errors_are_counted_with_their_offset() {
    need_loop!();
    let s = Scratch::new("eio");
    // A loop device over a sparse 64 MiB file on a 1 MiB tmpfs: writes past 1 MiB fail for real.
    let Some(fs) = common::TinyTmpfs::new(&s.0.join("tiny"), "1m") else {
        common::skip("cannot mount a tmpfs");
        return;
    };
    let lo = LoopDev::new(&fs.0.join("sparse"), 64 << 20, None);
    let write_run = |time: &str, out: &str, extra: &[&str]| {
        let mut a = vec!["run", &lo.dev, "--rw", "write", "--bs", "64k", "--qd", "4", "--time", time];
        a.extend_from_slice(&["--destroy", &lo.dev, "--json", out, "--quiet"]);
        a.extend_from_slice(extra);
        drivelab(&a)
    };
    let out = s.path("e.json");
    let o = write_run("3s", &out, &[]);
    assert_eq!(o.status.code(), Some(1), "stops with exit 1: {}", stderr(&o));
    assert!(stderr(&o).contains("I/O error on"), "--quiet never hides an I/O error: {}", stderr(&o));
    let v = json(Path::new(&out));
    assert_eq!(v["stopped_by_error"], true);
    let e = &v["errors"][0];
    assert!(e["count"].as_u64().unwrap() >= 1);
    assert!(e["errno"].as_i64().unwrap() > 0, "{e}");
    assert!(e["first_offset_bytes"].as_u64().unwrap() >= 512 << 10, "the first error is past the space there was: {e}");
    assert_eq!(e["target"], lo.dev.as_str());
    // With --continue-on-error the run goes on to its end and keeps counting.
    let out = s.path("e2.json");
    let o = write_run("1s", &out, &["--continue-on-error"]);
    assert_eq!(o.status.code(), Some(1), "errors are never reported as success: {}", stderr(&o));
    let v = json(Path::new(&out));
    assert_eq!(v["stopped_by_error"], false);
    assert!(v["errors"][0]["count"].as_u64().unwrap() > 10, "{}", v["errors"]);
    assert!(v["runtime_ns"].as_u64().unwrap() >= 900_000_000);
    drop(lo);
    drop(fs);
}

#[test]
fn ramp_runs_first_and_is_not_counted() {
    let s = Scratch::new("ramp");
    let out = s.path("r.json");
    let t = std::time::Instant::now();
    let v = run_json(&["null", "--ramp", "500ms", "--time", "500ms"], &out);
    assert!(t.elapsed().as_millis() >= 1000, "the ramp ran too");
    let rt = v["runtime_ns"].as_u64().unwrap();
    assert!((450_000_000..800_000_000).contains(&rt), "only the measured part counts: {rt}");
    assert_eq!(v["spec"]["ramp_ns"], 500_000_000);
}

#[test]
fn buffered_runs_are_labelled() {
    let o = drivelab(&["run", "null", "--buffered", "--time", "200ms"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("buffered"), "{}", stdout(&o));
}

#[test]
fn every_run_leaves_a_results_directory_that_report_and_compare_read() {
    let s = Scratch::new("run-results");
    let f = s.path("r.dat");
    let results = s.path("results");
    let json_out = s.path("r.json");
    let args = ["run", &f, "--size", "16m", "--rw", "randread", "--qd", "4", "--time", "300ms"];
    let mut first = args.to_vec();
    first.extend(["--results", &results, "--json", &json_out, "-q"]);
    let o = drivelab(&first);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = drivelab(&[&args[..], &["--results", &results][..]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    // The line may wrap at the terminal's width: read it as words.
    let words = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains(&format!("results: {results}/run-")), "the path is printed: {}", stdout(&o));
    let mut dirs: Vec<_> = std::fs::read_dir(&results).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    assert_eq!(dirs.len(), 2);
    let saved = Saved::load(&dirs[0]);
    assert_eq!((saved.run["schema"].as_u64(), saved.run["kind"].as_str()), (Some(2), Some("run")));
    assert_eq!(saved.points.len(), 1);
    let point = &saved.points[0];
    // The point records the flags as fields, and its result is the one --json wrote.
    assert!(point["point"]["fields"].as_array().unwrap().iter().any(|kv| kv[0] == "qd" && kv[1] == "4"));
    let from_json = json(Path::new(&json_out));
    assert_eq!(point["result"]["total"]["ops"], from_json["total"]["ops"]);
    assert!(dirs[0].join("report.html").is_file());
    // report reads it in every format; compare puts two runs side by side.
    for fmt in ["text", "md", "csv", "json"] {
        let o = drivelab(&["report", dirs[0].to_str().unwrap(), "--format", fmt]);
        assert!(o.status.success(), "{fmt}: {}", stderr(&o));
        assert!(!stdout(&o).trim().is_empty(), "{fmt}");
    }
    let o = drivelab(&["compare", dirs[0].to_str().unwrap(), dirs[1].to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Δ"), "{}", stdout(&o));
}

#[test]
fn a_power_command_that_hangs_is_refused_before_anything_runs() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("power-hang");
    let t = std::time::Instant::now();
    let o = drivelab(&["run", "null", "--time", "200ms", "--power-cmd", "sleep 60", "--results", &s.path("results")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("printed no reading within 5 s"), "{}", stderr(&o));
    assert!(t.elapsed() < std::time::Duration::from_secs(15), "gave up after {:?}", t.elapsed());
    assert!(!Path::new(&s.path("results")).exists(), "nothing was created");
}

/// Issue #11, item 12: `--size` on a file that already exists with another size is said, not
/// silently ignored; without `--size` nothing is said.
#[test]
fn size_on_an_existing_file_of_another_size_is_noticed() {
    let s = Scratch::new("size-notice");
    let f = s.path("f.dat");
    let made = drivelab(&["run", &f, "--size", "8m", "--time", "100ms", "-q"]);
    assert!(made.status.success(), "{}", stderr(&made));
    let o = drivelab(&["run", &f, "--size", "64m", "--time", "100ms", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("already exists with 8m; --size 64m applies only to files drivelab creates"), "{err}");
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 8 << 20, "the file is used as it is");
    let o = drivelab(&["run", &f, "--time", "100ms", "-q"]);
    assert!(!stderr(&o).contains("--size"), "{}", stderr(&o));
}

#[test]
fn rank_and_host_in_a_target_outside_mpirun_are_used_as_written_and_noticed() {
    let s = Scratch::new("rank-notice");
    let f = s.path("t{rank}.dat");
    let o = drivelab(&["run", &f, "--size", "4m", "--time", "100ms", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("{rank} and {host} are only filled in under mpirun; used as written here"),
        "{}",
        stderr(&o)
    );
    assert!(Path::new(&f).exists(), "drivelab alone behaves as it always has");
    let o = drivelab(&["run", &s.path("plain.dat"), "--size", "4m", "--time", "100ms", "-q"]);
    assert!(!stderr(&o).contains("mpirun"), "{}", stderr(&o));
}

/// Issue #12: latency starts just before the submit call (fio's lat); with io_uring, clat (from
/// the call's return) and slat (the call) are saved beside it and named on screen, and for every
/// I/O lat = slat + clat, so lat's mean is at least clat's.
#[test]
fn lat_clat_and_slat_are_saved_and_named() {
    if let Err(why) = drivelab_engine::backend::uring::available() {
        common::skip(&why);
        return;
    }
    let s = Scratch::new("lat-clat");
    let (f, out) = (s.path("f.dat"), s.path("r.json"));
    let o = drivelab(&["run", &f, "--size", "16m", "--rw", "randread", "--qd", "4", "--time", "500ms", "--json", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let screen = stdout(&o);
    assert!(screen.contains("latency: from just before the submit call (fio's lat)"), "{screen}");
    assert!(screen.contains("clat (after submit) p50") && screen.contains("per call"), "{screen}");
    let v = json(Path::new(&out));
    assert_eq!(v["schema"], 2);
    let lat = v["read"]["lat_ns"]["mean"].as_f64().unwrap();
    let clat = v["read"]["clat_ns"]["mean"].as_f64().unwrap();
    let slat = v["slat_ns"]["mean"].as_f64().unwrap();
    assert!(lat >= clat && slat > 0.0, "lat {lat} clat {clat} slat {slat}");
    // psync: the call is the I/O, so there is no clat or slat to save.
    let o = drivelab(&["run", &f, "--engine", "psync", "--time", "200ms", "--json", &s.path("p.json"), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = json(Path::new(&s.path("p.json")));
    assert!(p["read"].get("clat_ns").is_none() && p.get("slat_ns").is_none(), "{}", p["read"]);
}

#[test]
fn polled_and_offloaded_io_uring_as_fio_offers_them() {
    need_loop!();
    if let Some(why) = uring_unavailable() {
        common::skip(&format!("--hipri and --sqpoll need io_uring: {why}"));
        return;
    }
    let s = Scratch::new("sqpoll");
    let lo = LoopDev::new(&s.0.join("backing"), 32 << 20, Some(0xA5));
    // SQPOLL: a kernel thread submits; the writes land where they should, the ring says so, and
    // the thread's CPU is in the figures.
    let out = s.path("sq.json");
    let args = [&lo.dev, "--rw", "randrw", "--read", "30", "--qd", "8", "--sqpoll", "--io-size", "2m"];
    let v = run_json(&[&args[..], &["--destroy", &lo.dev, "--seed", "5"]].concat(), &out);
    check_result(&v, "write");
    verify_writes(&lo.dev, &v, v["total"]["ops"].as_u64().unwrap() as usize);
    let flags: Vec<&str> =
        v["engine"]["ring"]["flags"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(flags.contains(&"sqpoll"), "{flags:?}");
    assert_eq!(v["spec"]["sqpoll"], true);
    let (sq, sys) = (v["cpu"]["sqpoll_pct"].as_f64().unwrap(), v["cpu"]["sys_pct"].as_f64().unwrap());
    assert!(sq > 0.0 && sys >= sq, "SQPOLL thread {sq}% within sys {sys}%");
    // IOPOLL on a loop device, which cannot poll: interrupts, and the result says why.
    let out = s.path("hipri.json");
    let v = run_json(&[&lo.dev, "--qd", "4", "--hipri", "--time", "300ms"], &out);
    check_result(&v, "read");
    let notices = v["notices"].to_string();
    assert!(notices.contains("--hipri") && notices.contains("cannot poll"), "{notices}");
    assert_eq!(v["spec"].get("hipri"), None, "what ran: no polling");
    // Asked wrongly: exit 2, naming the fix.
    for (args, want) in [
        (vec!["--hipri", "--buffered"], "O_DIRECT"),
        (vec!["--sqpoll", "--engine", "psync"], "--engine uring"),
        (vec!["--sqpoll", "--sqpoll-cpu", "4095"], "CPU 4095"),
    ] {
        let mut a = vec!["run", lo.dev.as_str(), "--time", "100ms"];
        a.extend(args.iter().copied());
        let o = drivelab(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{a:?}: {}", stderr(&o));
    }
}

#[test]
fn a_short_queue_looks_for_completions_before_sleeping_and_the_result_says_so() {
    // How the job waits (backend/look.rs, measured in docs/PERFORMANCE.md, issue #40): at QD16 or
    // less it looks for completions before sleeping, deeper on a device it sleeps at once as
    // fio's job does, and an io_uring job on a tmpfs file always looks; libaio by the same rule.
    // The result names the way it waited; psync, which does not wait for completions, says nothing.
    need_loop!();
    if let Some(why) = uring_unavailable() {
        common::skip(&format!("the ring's waiting needs io_uring: {why}"));
        return;
    }
    let s = Scratch::new("look");
    let lo = LoopDev::new(&s.0.join("backing"), 16 << 20, Some(0x5A));
    let f = s.path("on-tmpfs.dat");
    for (target, qd, looks) in [(&lo.dev, "8", true), (&lo.dev, "16", true), (&lo.dev, "32", false), (&f, "32", true)] {
        let out = s.path(&format!("q{qd}-{looks}.json"));
        let v = run_json(&[target, "--qd", qd, "--size", "16m", "--time", "200ms"], &out);
        check_result(&v, "read");
        assert_eq!(v["engine"]["looks_before_sleep"], looks, "{target} QD{qd}: {}", v["engine"]);
    }
    for (engine, qd, looks) in [("libaio", "8", Some(true)), ("libaio", "32", Some(false)), ("psync", "1", None)] {
        let out = s.path(&format!("{engine}-q{qd}.json"));
        let v = run_json(&[&lo.dev, "--engine", engine, "--qd", qd, "--size", "16m", "--time", "200ms"], &out);
        check_result(&v, "read");
        match looks {
            Some(l) => assert_eq!(v["engine"]["looks_before_sleep"], l, "{engine} QD{qd}: {}", v["engine"]),
            None => assert!(v["engine"].get("looks_before_sleep").is_none(), "{engine}: {}", v["engine"]),
        }
    }
}

#[test]
fn libaio_runs_native_aio_verified_and_refuses_io_urings_options() {
    let s = Scratch::new("libaio");
    let f = s.path("aio.dat");
    // Writes and reads at depth 32, every read checked against what was written.
    let out = s.path("verify.json");
    let args = [&f, "--size", "16m", "--rw", "randrw", "--engine", "libaio", "--qd", "32", "--verify", "--time", "1s"];
    let v = run_json(&args, &out);
    check_result(&v, "read");
    check_result(&v, "write");
    assert_eq!((&v["engine"]["backend"], &v["spec"]["engine"]), (&"libaio".into(), &"libaio".into()));
    assert!(v["engine"]["ring"].is_null(), "no io_uring ring: {}", v["engine"]);
    let inline = &v["verify"]["inline"];
    assert!(inline["checked_units"].as_u64().unwrap() > 0 && inline["mismatches"] == 0, "{inline}");
    // io_uring's own options and the io_uring-only split: exit 2, naming the option and the fix.
    for (args, want) in [
        (vec!["--hipri"], "--hipri on: is io_uring's, and this runs libaio: use --engine uring"),
        (vec!["--sqpoll"], "--sqpoll on: is io_uring's, and this runs libaio"),
        (vec!["--latency-split"], "follows io_uring's tracepoints: use --engine uring"),
    ] {
        let mut a = vec!["run", f.as_str(), "--engine", "libaio", "--time", "100ms"];
        a.extend(args.iter().copied());
        let o = drivelab(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{a:?}: {}", stderr(&o));
    }
}
