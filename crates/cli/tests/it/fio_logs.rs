//! fio's log files (issue #27, item 3): `write_lat_log`, `write_bw_log`, `write_iops_log`,
//! `write_hist_log` and the options shaping them. The same small job runs under fio 3.33 and
//! drivelab: the same file names, the same columns, times ascending, values in the same units
//! (within a loose factor: two tools, two runs). fio's own readers then read drivelab's logs:
//! fio2gnuplot (bw, iops), fiologparser_hist.py (the histogram log), fio-plot's `-g`. A log
//! name that exists is refused before anything runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{drivelab_in, must, skip, skip_part, stderr, tool, Scratch};

const FIO_SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/fio-src/fio-3.33");

/// Every `*.log` of `dir`: name → lines.
fn logs(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".log") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.insert(name, text.lines().map(String::from).collect());
        }
    }
    out
}

fn cols(line: &str) -> Vec<&str> {
    line.split(", ").collect()
}

/// Column `k` of every line, as numbers.
fn column(lines: &[String], k: usize) -> Vec<u64> {
    lines.iter().map(|l| cols(l)[k].parse::<u64>().unwrap_or_else(|_| panic!("a number in {l}"))).collect()
}

fn median(mut v: Vec<u64>) -> f64 {
    assert!(!v.is_empty());
    v.sort_unstable();
    v[v.len() / 2] as f64
}

/// Write `job` to `dir/job.fio` and run it with fio there.
fn run_fio(dir: &Path, job: &str) {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let o = Command::new("fio").current_dir(dir).args(["job.fio", "--output=fio.out"]).output().unwrap();
    assert!(o.status.success(), "fio: {}", String::from_utf8_lossy(&o.stderr));
}

/// Write `job` to `dir/job.fio` and run it with drivelab there (results under `dir/res`).
fn run_drivelab(dir: &Path, job: &str) -> std::process::Output {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    drivelab_in(dir, &["run", "job.fio", "--results", "res"])
}

fn have_fio() -> bool {
    let ok = tool("fio") && must("fio --version").starts_with("fio-3.33");
    if !ok {
        skip("fio 3.33 is not installed");
    }
    ok
}

/// The same file names; each file's lines the same number of columns as fio's; times
/// ascending; for per-I/O logs of a size-bound job, the same number of lines.
fn same_shape(fio: &BTreeMap<String, Vec<String>>, ours: &BTreeMap<String, Vec<String>>, same_count: &[&str]) {
    let names = |m: &BTreeMap<String, Vec<String>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(ours), names(fio), "the same log files");
    for (name, lines) in ours {
        let theirs = &fio[name];
        let widths = |l: &[String]| l.iter().map(|l| cols(l).len()).collect::<std::collections::BTreeSet<_>>();
        if !theirs.is_empty() {
            assert_eq!(widths(lines), widths(theirs), "{name}: columns per line");
        }
        let t = column(lines, 0);
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "{name}: times ascend");
        if same_count.iter().any(|k| name.contains(&format!("_{k}."))) {
            assert_eq!(lines.len(), theirs.len(), "{name}: one line per I/O");
        }
    }
}

/// Within a loose factor (two tools, two runs on a shared machine).
fn near(ours: f64, fio: f64, factor: f64, what: &str) {
    assert!(ours > 0.0 && fio > 0.0, "{what}: {ours} vs fio's {fio}");
    let r = ours / fio;
    assert!(r < factor && r > 1.0 / factor, "{what}: drivelab {ours} vs fio {fio}");
}

const PER_IO: &str = "[global]
filename=data
size=2m
bs=4k
rw=randrw
thinktime=50
write_lat_log=pfx
write_bw_log=pfx
write_iops_log=pfx
write_hist_log=pfx
log_hist_msec=1
log_offset=1
[a]
numjobs=2
";

#[test]
fn per_io_logs_have_fios_names_columns_and_units() {
    if !have_fio() {
        return;
    }
    let (f, d) = (Scratch::new("fiologs-fio"), Scratch::new("fiologs-dl"));
    run_fio(&f.0, PER_IO);
    let o = run_drivelab(&d.0, PER_IO);
    assert!(o.status.success(), "{}", stderr(&o));
    let (theirs, ours) = (logs(&f.0), logs(&d.0));
    assert!(ours.contains_key("pfx_lat.2.log") && ours.contains_key("pfx_clat_hist.1.log"), "{:?}", ours.keys());
    same_shape(&theirs, &ours, &["lat", "clat", "bw", "iops"]);
    // psync: both leave the slat log empty; 512 I/Os per job, one line each.
    assert!(ours["pfx_slat.1.log"].is_empty() && theirs["pfx_slat.1.log"].is_empty());
    assert_eq!(ours["pfx_lat.1.log"].len(), 512);
    // Units: lat in ns, iops 1 per I/O, bw bytes per ms of clat; offsets in the region.
    let lat = |m: &BTreeMap<String, Vec<String>>| median(column(&m["pfx_lat.1.log"], 1));
    near(lat(&ours), lat(&theirs), 30.0, "median lat ns");
    let bw = |m: &BTreeMap<String, Vec<String>>| median(column(&m["pfx_bw.2.log"], 1));
    near(bw(&ours), bw(&theirs), 30.0, "median per-I/O bw");
    assert!(column(&ours["pfx_iops.1.log"], 1).iter().all(|&v| v == 1));
    assert!(column(&ours["pfx_lat.1.log"], 4).iter().all(|&o| o < 2 << 20 && o % 4096 == 0));
    assert!(column(&ours["pfx_lat.1.log"], 3).iter().all(|&b| b == 4096));
    // Both directions appear, as fio's ddir 0 and 1.
    let dirs: std::collections::BTreeSet<u64> = column(&ours["pfx_lat.1.log"], 2).into_iter().collect();
    assert_eq!(dirs, [0, 1].into());
    // The histogram log: fio's 1856 buckets, and its counts are I/Os of the job.
    let h = &ours["pfx_clat_hist.1.log"];
    assert!(!h.is_empty());
    let counted: u64 = h.iter().map(|l| cols(l)[3..].iter().map(|c| c.parse::<u64>().unwrap()).sum::<u64>()).sum();
    assert!(counted > 0 && counted <= 512, "{counted}");
    // A copy of each in the results directory.
    let res = std::fs::read_dir(d.0.join("res")).unwrap().next().unwrap().unwrap().path();
    assert_eq!(logs(&res.join("fio-logs")), ours);
}

const WINDOWED: &str = "[w]
filename=data
size=1m
bs=4k
rw=randrw
time_based
runtime=400ms
write_lat_log=w
write_bw_log=w
write_iops_log=w
log_avg_msec=50
log_prio=1
";

#[test]
fn averaged_logs_have_one_line_per_window_in_fios_units() {
    if !have_fio() {
        return;
    }
    let (f, d) = (Scratch::new("fiologs-wfio"), Scratch::new("fiologs-wdl"));
    run_fio(&f.0, WINDOWED);
    let o = run_drivelab(&d.0, WINDOWED);
    assert!(o.status.success(), "{}", stderr(&o));
    let (theirs, ours) = (logs(&f.0), logs(&d.0));
    same_shape(&theirs, &ours, &[]);
    for name in ["w_lat.1.log", "w_bw.1.log", "w_iops.1.log"] {
        let (a, b) = (&ours[name], &theirs[name]);
        // ~8 windows of 50 ms per direction in 400 ms (fio's first starts after its setup).
        near(a.len() as f64, b.len() as f64, 3.0, &format!("{name}: lines"));
        assert!(a.iter().all(|l| cols(l)[3] == "0" && cols(l)[4] == "0x0000"), "{name}: bs 0, prio in hex");
    }
    // KiB/s and I/Os per second over each window, as fio's: the same order of magnitude.
    let m = |x: &BTreeMap<String, Vec<String>>, n: &str| median(column(&x[n], 1));
    near(m(&ours, "w_bw.1.log"), m(&theirs, "w_bw.1.log"), 30.0, "median windowed KiB/s");
    near(m(&ours, "w_iops.1.log"), m(&theirs, "w_iops.1.log"), 30.0, "median windowed IOPS");
    near(m(&ours, "w_iops.1.log") * 4.0, m(&ours, "w_bw.1.log"), 1.5, "KiB/s = 4 KiB x IOPS");
    // A rate is sampled at each whole window's end, as fio's: the job's last, cut short by its
    // end, is no sample (as a rate over microseconds it was 30x the others: fio-plot's spike).
    for name in ["w_bw.1.log", "w_iops.1.log"] {
        let (med, top) = (median(column(&ours[name], 1)), column(&ours[name], 1).into_iter().max().unwrap_or(0) as f64);
        assert!(top < med * 5.0, "{name}: no spike: median {med}, top {top}");
    }
}

#[test]
fn fios_own_readers_read_drivelabs_logs() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fiologs-readers");
    // fio-plot finds logs by fio's naming of its own benchmarks: RW-iodepth-QD-numjobs-N_TYPE.
    let p = "randrw-iodepth-1-numjobs-1";
    let job = format!(
        "[{p}]\nfilename=data\nsize=1m\nbs=4k\nrw=randrw\nthinktime=200\nwrite_lat_log={p}\nwrite_bw_log={p}\n\
         write_iops_log={p}\nwrite_hist_log={p}\nlog_hist_msec=1\n"
    );
    let o = run_drivelab(&s.0, &job);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = s.0.to_string_lossy().into_owned();
    if tool("fio2gnuplot") {
        for (flag, kind) in [("-b", "bw"), ("-i", "iops")] {
            must(&format!("cd {dir} && rm -f gnuplot_temp_file.* && fio2gnuplot {flag}"));
            let trace = std::fs::read_to_string(s.0.join("gnuplot_temp_file.0")).unwrap();
            assert!(trace.contains(&format!("{p}_{kind}.1.log")), "{trace}");
            assert!(trace.lines().skip(1).count() > 100, "fio2gnuplot read every line of {kind}");
        }
    } else {
        skip_part("fio2gnuplot", "fio2gnuplot is not installed");
    }
    let parser = PathBuf::from(FIO_SRC).join("tools/hist/fiologparser_hist.py");
    if parser.is_file() {
        let out = must(&format!("/usr/bin/python3 {} {dir}/{p}_clat_hist.1.log", parser.display()));
        let rows: Vec<&str> = out.lines().skip(1).collect();
        assert!(!rows.is_empty(), "{out}");
        // end-time, samples, min, avg, median, 90%, 95%, 99%, max: samples counted, percentiles ordered.
        let samples: f64 = rows.iter().map(|r| r.split(", ").nth(1).unwrap().trim().parse::<f64>().unwrap()).sum();
        assert!(samples > 0.0, "{out}");
    } else {
        skip_part("fiologparser_hist.py", "fio 3.33's source is not downloaded: run scripts/fio-src");
    }
    if tool("fio-plot") {
        let png = format!("{dir}/g.png");
        must(&format!("cd {dir} && fio-plot -i {dir} -g -T t -t bw iops lat -r randrw -d 1 -n 1 -o {png}"));
        assert!(std::fs::metadata(&png).unwrap().len() > 10_000, "a real image");
    } else {
        skip_part("fio-plot", "fio-plot is not installed");
    }
}

#[test]
fn a_log_name_that_exists_is_refused_before_anything_runs() {
    let s = Scratch::new("fiologs-exists");
    std::fs::write(s.0.join("pfx_bw.2.log"), "mine\n").unwrap();
    let o = run_drivelab(&s.0, PER_IO);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("pfx_bw.2.log: a file is there") && e.contains("never writes over one"), "{e}");
    assert_eq!(std::fs::read_to_string(s.0.join("pfx_bw.2.log")).unwrap(), "mine\n");
    assert!(!s.0.join("data").exists() && !s.0.join("res").exists(), "nothing made, nothing run");
    // A dangling symlink at a name is refused too (never written through).
    std::fs::remove_file(s.0.join("pfx_bw.2.log")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/x", s.0.join("pfx_lat.1.log")).unwrap();
    let o = run_drivelab(&s.0, PER_IO);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("pfx_lat.1.log: a symbolic link is there"), "{}", stderr(&o));
    assert!(!Path::new("/nonexistent/x").exists());
    // What the file system would refuse after a full run is refused before it (fio's issue item
    // 10): a 300-character prefix, a prefix in a directory that is not there.
    let long = "p".repeat(300);
    for (prefix, says) in [(long.as_str(), "longer than 255 bytes"), ("missing/pfx", "does not exist")] {
        let job = format!("[j]\nioengine=null\nsize=1m\nwrite_bw_log={prefix}\n");
        std::fs::write(s.0.join("p.fio"), job).unwrap();
        let o = drivelab_in(&s.0, &["fio", "p.fio", "--output-format=json"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says) && o.stdout.is_empty(), "{}", stderr(&o));
    }
}

#[test]
fn compressed_logs_are_refused_by_file_and_line() {
    let s = Scratch::new("fiologs-gz");
    let o = run_drivelab(&s.0, "[j]\nsize=1m\nwrite_bw_log=x\nlog_compression=4k\n");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("job.fio:4") && e.contains("log_compression") && e.contains("plain-text"), "{e}");
}

#[test]
fn job_numbers_count_every_job_and_clone_across_groups_as_fios() {
    if !have_fio() {
        return;
    }
    // Two groups; the second runs b's two clones and c together (one point, merged): fio
    // numbers a 1, b 2 and 3, c 4; c's own prefix overrides the global one.
    let job = "[global]\nioengine=null\nsize=256k\nwrite_lat_log=n\nwrite_iops_log=n\n[a]\n[b]\nstonewall\n\
               numjobs=2\n[c]\nwrite_lat_log=other\n";
    let (f, d) = (Scratch::new("fiologs-nfio"), Scratch::new("fiologs-ndl"));
    run_fio(&f.0, job);
    let o = run_drivelab(&d.0, job);
    assert!(o.status.success(), "{}", stderr(&o));
    let (theirs, ours) = (logs(&f.0), logs(&d.0));
    assert!(ours.contains_key("other_lat.4.log") && ours.contains_key("n_iops.4.log"), "{:?}", ours.keys());
    // 64 I/Os per job, one line each; the null engine is synchronous: no slat, as fio's.
    same_shape(&theirs, &ours, &["lat", "clat", "iops", "slat"]);
}

#[test]
fn under_mpi_a_job_asking_for_logs_is_refused_before_the_run() {
    if !cfg!(feature = "mpi") || !tool("mpirun") {
        skip("needs the mpi feature and mpirun");
        return;
    }
    let s = Scratch::new("fiologs-mpi");
    std::fs::write(s.0.join("job.fio"), "[j]\nioengine=null\nsize=64k\nwrite_bw_log=m\n").unwrap();
    let o = Command::new("mpirun")
        .env("XDG_DATA_HOME", crate::common::data_home())
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .args(["--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n", "2"])
        .arg(env!("CARGO_BIN_EXE_drivelab"))
        .args(["run", "job.fio", "--results", "res"])
        .current_dir(&s.0)
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(!o.status.success(), "{all}");
    assert!(all.contains("m_bw.1.log") && all.contains("MPI"), "{all}");
    assert!(!s.0.join("m_bw.1.log").exists() && !s.0.join("res").exists(), "nothing written");
}

/// fio's t0007: `write_iolog` writes the I/Os issued in fio's iolog version 3, which fio's
/// `read_iolog` and drivelab's replay play back to the same I/Os; and a sequential read that
/// skips 512 KiB after each 1 MiB ends at the file's end, as fio's does (5 reads of an 8 MiB
/// file, every 1.5 MiB), fio's own iolog the same offsets where fio is installed.
#[test]
fn write_iolog_records_the_ios_fio_would_issue_and_replays_them() {
    let s = Scratch::new("fio-write-iolog");
    std::fs::write(s.0.join("t0007.fio"), "[foo]\nsize=8m\nrw=read:512k\nbs=1m\nnorandommap\nwrite_iolog=log\n")
        .unwrap();
    let o = drivelab_in(&s.0, &["fio", "t0007.fio", "--output-format=json"]);
    assert!(o.status.success() && crate::common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["jobs"][0]["read"]["io_kbytes"], 5 * 1024);
    let text = std::fs::read_to_string(s.0.join("log")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "fio version 3 iolog");
    // TIME FILE ACTION OFFSET LENGTH: the I/Os.
    let io_lines = |t: &str| -> Vec<(String, u64)> {
        t.lines()
            .filter_map(|l| match cols_ws(l)[..] {
                [_, _, dir, off, _] => Some((dir.to_string(), off.parse::<u64>().unwrap())),
                _ => None,
            })
            .collect()
    };
    let ios = io_lines(&text);
    let offsets: Vec<u64> = ios.iter().map(|(_, o)| *o).collect();
    assert_eq!(offsets, [0, 1536, 3072, 4608, 6144].map(|k: u64| k << 10), "{text}");
    assert!(ios.iter().all(|(d, _)| d == "read"));
    assert!(lines[1].ends_with("add") && lines[2].ends_with("open") && lines.last().unwrap().ends_with("close"));
    // drivelab's replay of it: the same five reads.
    let o = drivelab_in(&s.0, &["fio", "--name=again", "--read_iolog=log", "--output-format=json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (doc["jobs"][0]["read"]["total_ios"].as_u64(), doc["jobs"][0]["read"]["io_kbytes"].as_u64()),
        (Some(5), Some(5120))
    );
    if !tool("fio") {
        return skip_part("the comparison with fio's iolog", "fio is not installed (apt-get install fio)");
    }
    let o = Command::new("fio")
        .args(["--name=foo", "--size=8m", "--rw=read:512k", "--bs=1m", "--norandommap", "--write_iolog=fio.log"])
        .args(["--filename=foo.0.0", "--output=/dev/null"])
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs = std::fs::read_to_string(s.0.join("fio.log")).unwrap();
    assert_eq!(io_lines(&theirs), ios, "fio's iolog:\n{theirs}");
}

/// An iolog names each job's own files as the job named them (fio's `f->file_name`): a group of
/// two jobs over `a.dat` and `./b.dat` writes `a.dat` in one log and `./b.dat` in the other, as
/// fio 3.33 does, never drivelab's absolute paths nor the first job's file in the second's log.
#[test]
fn an_iolog_names_its_own_jobs_files_as_the_job_named_them() {
    let s = Scratch::new("fio-iolog-names");
    let job = "[global]\nsize=64k\nbs=16k\nrw=read\n[a]\nfilename=a.dat\nwrite_iolog=a.log\n\
               [b]\nfilename=./b.dat\nwrite_iolog=b.log\n";
    std::fs::write(s.0.join("two.fio"), job).unwrap();
    let files = |dir: &std::path::Path, log: &str| -> Vec<String> {
        let t = std::fs::read_to_string(dir.join(log)).unwrap();
        t.lines().skip(1).map(|l| cols_ws(l)[1].to_string()).collect()
    };
    let o = drivelab_in(&s.0, &["fio", "two.fio", "--output-format=json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (files(&s.0, "a.log"), files(&s.0, "b.log"));
    assert_eq!((a.len(), b.len()), (7, 7), "add, open, 4 reads, close: {a:?} {b:?}");
    assert!(a.iter().all(|f| f == "a.dat") && b.iter().all(|f| f == "./b.dat"), "{a:?} {b:?}");
    if !tool("fio") {
        return skip_part("the comparison with fio's iolog", "fio is not installed (apt-get install fio)");
    }
    let theirs = Scratch::new("fio-iolog-names-fio");
    std::fs::write(theirs.0.join("two.fio"), job).unwrap();
    let o = Command::new("fio").args(["two.fio", "--output=/dev/null"]).current_dir(&theirs.0).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!((files(&theirs.0, "a.log"), files(&theirs.0, "b.log")), (a, b), "fio's names");
}

fn cols_ws(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[test]
fn a_log_name_planted_during_the_run_fails_the_run_but_keeps_its_output() {
    let s = Scratch::new("fiolog-late");
    let victim = s.0.join("victim");
    std::fs::write(&victim, b"someone's file\n").unwrap();
    let results = s.0.join("results");
    let child = crate::common::bin()
        .current_dir(&s.0)
        .args(["fio", "--name=j", "--ioengine=null", "--size=1m", "--time_based", "--runtime=2s"])
        .args(["--write_lat_log=pfx", "--output-format=json", "--results"])
        .arg(&results)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The results directory is made after every name was checked: plant the symlink then, while
    // the point runs (the event waited for is the directory; the run lasts 2 s after it).
    let start = std::time::Instant::now();
    while !results.exists() || std::fs::read_dir(&results).unwrap().next().is_none() {
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "no results directory (a watchdog)");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::os::unix::fs::symlink(&victim, s.0.join("pfx_lat.1.log")).unwrap();
    let o = child.wait_with_output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "a missing log is no success: {err}");
    assert!(err.contains("a file was not written after its point was saved") && err.contains("pfx_lat.1.log"), "{err}");
    // What was measured is still printed (nothing was printed before).
    let v: serde_json::Value = serde_json::from_str(&out).expect("fio's JSON on stdout");
    assert!(v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap_or(0) > 0, "{out}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"someone's file\n", "written through the symlink");
}
