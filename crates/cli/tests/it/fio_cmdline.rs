//! `drivelab fio ARGS…`: fio's command line, proven three ways. A corpus of real fio command
//! lines from public documentation and scripts (tests/fio-cmdlines/corpus.txt, each with its
//! source and the only arguments changed, and why) runs unchanged apart from those, and each
//! saved point's spec is what its options ask. Argument forms are held against fio itself: the
//! same argv accepted or refused by `fio --parse-only` and `drivelab fio --parse-only`, and
//! `--showcmd` printing what fio's prints. fio's own options (`--output`, `--readonly`,
//! `--section`, `--version`, ...) and drivelab's safety rules are checked through the binary.

use crate::common;

use crate::common::{drivelab_in, json, need_loop, results_dir, saved_points, stderr, stdout, LoopDev, Scratch};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fio-cmdlines/corpus.txt");

/// One entry of the corpus.
#[derive(Debug, Default)]
struct Entry {
    source: String,
    cmd: Vec<String>,
    set: Vec<(String, String)>,
    add: Vec<String>,
    expect: Vec<(String, Vec<(String, String)>)>,
}

fn corpus() -> Vec<Entry> {
    let text = std::fs::read_to_string(CORPUS).unwrap();
    let mut out = Vec::new();
    let mut e = Entry::default();
    for line in text.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if !e.cmd.is_empty() {
                out.push(std::mem::take(&mut e));
            }
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let pairs = |s: &str| -> Vec<(String, String)> {
            s.split_whitespace()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("{kv}: expected KEY=VALUE"));
                    (k.to_string(), v.to_string())
                })
                .collect()
        };
        match word {
            "SOURCE" => e.source = rest.to_string(),
            "CMD" => e.cmd = rest.split_whitespace().map(String::from).collect(),
            "SET" => e.set = pairs(rest),
            "ADD" => e.add = rest.split_whitespace().map(String::from).collect(),
            "WHY" => {}
            "EXPECT" => {
                let (label, fields) = rest.split_once(": ").expect("EXPECT LABEL: FIELDS");
                e.expect.push((label.to_string(), pairs(fields)));
            }
            _ => panic!("corpus: unknown line {line}"),
        }
    }
    out
}

/// `cmd` (after `fio`) with each SET applied to an option it already has, and ADD appended.
fn args_of(e: &Entry, places: &[(&str, &str)]) -> Vec<String> {
    let fill = |v: &str| places.iter().fold(v.to_string(), |v, (k, p)| v.replace(k, p));
    assert_eq!(e.cmd[0], "fio", "{}", e.source);
    let mut args: Vec<String> = e.cmd[1..].to_vec();
    for (key, value) in &e.set {
        let joined = args.iter().position(|a| a.trim_start_matches('-').split_once('=').is_some_and(|(k, _)| k == key));
        let apart = args.iter().position(|a| a.trim_start_matches('-') == key && a.starts_with('-'));
        match (joined, apart) {
            (Some(i), _) => {
                let dashes = &args[i][..args[i].len() - args[i].trim_start_matches('-').len()];
                args[i] = format!("{dashes}{key}={}", fill(value));
            }
            (None, Some(i)) => args[i + 1] = fill(value),
            _ => panic!("{}: SET {key} changes no option the command line has", e.source),
        }
    }
    args.extend(e.add.iter().map(|a| fill(a)));
    args
}

/// A point's spec field as the corpus names it.
fn field(point: &serde_json::Value, name: &str) -> String {
    let spec = &point["point"]["spec"];
    match name {
        "bs" => spec["bs"][0]["bytes"].to_string(),
        "targets" => point["point"]["targets"].as_array().unwrap().len().to_string(),
        _ => spec[name].to_string(),
    }
}

#[test]
fn every_command_line_of_the_corpus_runs_with_the_spec_it_asks_for() {
    need_loop!();
    let entries = corpus();
    assert!(entries.len() >= 40, "the corpus has {} command lines", entries.len());
    let shm = Scratch::new("fio-cmdline-dev");
    let dev = LoopDev::new(&shm.0.join("backing"), 8 << 20, Some(0x5a));
    for (n, e) in entries.iter().enumerate() {
        assert!(e.source.starts_with("https://"), "entry {n} names its source: {}", e.source);
        let s = Scratch::new(&format!("fio-cmdline-{n}"));
        let file = s.path("fio.dat");
        let dir = s.path("dir");
        std::fs::create_dir_all(&dir).unwrap();
        let args = args_of(e, &[("{DEV}", &dev.dev), ("{FILE}", &file), ("{DIR}", &dir)]);
        let mut argv = vec!["fio"];
        argv.extend(args.iter().map(String::as_str));
        let o = common::bin().env("XDG_DATA_HOME", s.0.join("data")).current_dir(&s.0).args(&argv).output().unwrap();
        let results = s.0.join("data/drivelab/results");
        assert!(results.is_dir(), "{} ({args:?}) saved no results: {}", e.source, stderr(&o));
        let dir = results_dir(&results);
        let ok = o.status.success();
        assert!(ok, "{} ({args:?}): {:?}\n{}", e.source, o.status, stderr(&o));
        // fio's contract: nothing on stderr for a clean run, nothing left in the working directory
        // but the job's files.
        assert_eq!(crate::common::fio_stderr(&o), "", "{} ({args:?})", e.source);
        assert!(!s.0.join("results").exists(), "{}", e.source);
        // fio itself takes the same command line (drivelab's own --destroy aside).
        if let Some(fio) = fio() {
            let elsewhere = Scratch::new(&format!("fio-cmdline-{n}-fio"));
            let theirs: Vec<&String> = args.iter().take(args.len() - e.add.len()).collect();
            let f = std::process::Command::new(fio).args(theirs).arg("--parse-only").current_dir(&elsewhere.0).output();
            let f = f.unwrap();
            assert!(f.status.success(), "fio refuses {}: {}", e.source, String::from_utf8_lossy(&f.stderr));
        }
        let points = saved_points(&dir);
        for (label, fields) in &e.expect {
            let p = points
                .iter()
                .find(|p| p["point"]["label"] == label.as_str())
                .unwrap_or_else(|| panic!("{}: no point {label}", e.source));
            assert!(p["result"]["total"]["ops"].as_u64().unwrap() > 0, "{}: {label} did I/O", e.source);
            for (k, v) in fields {
                assert_eq!(&field(p, k), v, "{}: {label} {k}", e.source);
            }
        }
    }
}

#[test]
fn run_with_fios_name_first_is_fios_command_line() {
    let s = Scratch::new("fio-cmdline-run");
    // Its own data directory, where `drivelab fio` keeps its results (not the working directory).
    let o = common::bin()
        .env("XDG_DATA_HOME", s.0.join("data"))
        .current_dir(&s.0)
        .args([
            "run",
            "--name=randread",
            "--ioengine=io_uring",
            "--bs=8k",
            "--iodepth=4",
            "--size=1m",
            "--rw=randread",
            "--filename=r.dat",
        ])
        .output()
        .unwrap();
    assert!(!s.0.join("results").exists(), "nothing in the working directory but the job's file");
    let points = saved_points(&results_dir(&s.0.join("data/drivelab/results")));
    assert_eq!(points.len(), 1, "{}", stderr(&o));
    assert_eq!((field(&points[0], "bs"), field(&points[0], "qd")), ("8192".into(), "4".into()));
    // fio's contract: stdout is fio's output alone, stderr empty for a clean run.
    assert!(stdout(&o).contains("randread: (groupid=0"), "{}", stdout(&o));
    assert_eq!(crate::common::fio_stderr(&o), "");
}

/// `fio` if it is installed.
fn fio() -> Option<&'static str> {
    let ok = std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    ok.then_some("fio")
}

#[test]
fn argument_forms_are_accepted_and_refused_as_fio_accepts_and_refuses_them() {
    if !crate::common::full_tier() {
        return;
    }
    let Some(fio) = fio() else {
        common::skip("fio is not installed");
        return;
    };
    let s = Scratch::new("fio-cmdline-forms");
    let file = s.path("f.dat");
    let cases: &[(&str, bool)] = &[
        ("--name=a --rw=randread --bs=4k", true),
        ("-name=a -rw=randread -bs 4k", true),
        ("--name a --iodepth 8 --time_based --runtime=1", true),
        ("--name=a --runti=1", true),
        ("--rw=randread --name=a --name=b", true),
        ("--name=a --group_reporting --norandommap --time_based=1 --runtime=1", true),
        ("--name=a --iodep=4", false),
        ("--name=a --direct --bs=4k", false),
        ("--name=a --time_based 1 --runtime=1", false),
        ("--name=a --frobnicate=1", false),
        ("--name", false),
        ("--name=a --bs", false),
        ("--name=a --eta-newline", false),
        ("--name=a --eta=sometimes", true),
        ("--section=global --name=a", false),
        ("--name=a --status-interval=2", true),
        ("--name=a --status-interval=100us", false),
        ("--name=a --eta-newline=2", true),
        ("--name=a -o", false),
    ];
    for (args, accepted) in cases {
        // fio's own option and the global target first: a case's last argument stays last.
        let mut argv: Vec<String> = vec!["--parse-only".into(), format!("--filename={file}"), "--size=1m".into()];
        argv.extend(args.split_whitespace().map(String::from));
        let theirs = std::process::Command::new(fio).args(&argv).current_dir(&s.0).output().unwrap();
        let mut ours = vec!["fio"];
        ours.extend(argv.iter().map(String::as_str));
        let o = drivelab_in(&s.0, &ours);
        assert_eq!(theirs.status.success(), *accepted, "fio {args}: {}", String::from_utf8_lossy(&theirs.stderr));
        assert_eq!(o.status.success(), *accepted, "drivelab fio {args}: {}", stderr(&o));
        if !accepted {
            assert_eq!(o.status.code(), Some(2), "drivelab fio {args}: bad input is exit 2");
            assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        }
    }
}

#[test]
fn showcmd_prints_what_fios_prints() {
    let Some(fio) = fio() else {
        common::skip("fio is not installed");
        return;
    };
    let s = Scratch::new("fio-cmdline-showcmd");
    let job = s.path("j.fio");
    std::fs::write(&job, "[global]\nbs=4k\nsize=1m ; comment\n[a]\nrw=read\n[b]\nrw=randread\niodepth=4\ntime_based\n")
        .unwrap();
    for extra in [&[][..], &["--section=b"][..]] {
        let mut args = vec!["--showcmd"];
        args.extend_from_slice(extra);
        args.push(&job);
        let theirs = std::process::Command::new(fio).args(&args).output().unwrap();
        let mut ours = vec!["fio"];
        ours.extend_from_slice(&args);
        let o = drivelab_in(&s.0, &ours);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o), String::from_utf8_lossy(&theirs.stdout), "{args:?}");
    }
}

#[test]
fn fios_own_options() {
    let s = Scratch::new("fio-cmdline-own");
    let run = |args: &[&str]| {
        let mut argv = vec!["fio"];
        argv.extend_from_slice(args);
        drivelab_in(&s.0, &argv)
    };
    // --version: a line that scripts checking `fio --version` for fio-3 read, with drivelab's.
    let o = run(&["--version"]);
    assert!(o.status.success());
    let line = stdout(&o);
    assert!(line.starts_with("fio-3.33-drivelab-") && line.lines().count() == 1, "{line}");
    // --help lists fio's options; exit 0.
    let o = run(&["--help"]);
    assert!(o.status.success() && stdout(&o).contains("--output-format"), "{}", stdout(&o));
    // --output: an existing file is replaced whole, as fio replaces it; stderr stays empty and
    // nothing is left in the working directory (the results go to the data directory).
    std::fs::write(s.0.join("taken.txt"), "mine").unwrap();
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--output=taken.txt"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!((stdout(&o).as_str(), stderr(&o).as_str()), ("", ""));
    let text = std::fs::read_to_string(s.0.join("taken.txt")).unwrap();
    // fio's job line, version and start first, as fio writes them into its --output file.
    assert!(text.starts_with("a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1\nfio-3.33\nStarting 1 process\n\na: (groupid=0"), "{text}");
    assert!(!s.0.join("results").exists(), "no results directory in the working directory");
    // ... but never through a symlink to a file, not even a dangling one's future file.
    std::os::unix::fs::symlink("taken.txt", s.0.join("link.txt")).unwrap();
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--output", "link.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("link.txt is a symlink to a file"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(s.0.join("taken.txt")).unwrap(), text, "untouched");
    std::os::unix::fs::symlink(s.0.join("elsewhere.txt"), s.0.join("dangling.txt")).unwrap();
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--output", "dangling.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("dangling.txt"), "{}", stderr(&o));
    assert!(!s.0.join("elsewhere.txt").exists());
    // A stream is written as one (/dev/null, a pipe); a pipe nobody reads is refused, not waited on.
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--output=/dev/null"]);
    assert!(o.status.success() && stdout(&o).is_empty(), "{}", stderr(&o));
    assert!(std::process::Command::new("mkfifo").arg(s.0.join("fifo")).status().unwrap().success());
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--output=fifo"]);
    assert!(o.status.code() == Some(2) && stderr(&o).contains("no process reads"), "{}", stderr(&o));
    // --output-format: fio's names only.
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--output-format=xml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'xml' is not one of fio's formats"), "{}", stderr(&o));
    // --parse-only runs nothing and, as fio's, says nothing of jobs that parse; with
    // --drivelab-notices it lists the jobs as drivelab runs them.
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--bs=64k", "--parse-only"]);
    assert!(o.status.success() && o.stdout.is_empty() && common::fio_stderr(&o).is_empty(), "{}", stdout(&o));
    let o = run(&["--name=a", "--ioengine=null", "--size=1m", "--bs=64k", "--parse-only", "--drivelab-notices"]);
    assert!(o.status.success() && stdout(&o).contains("bs=64k"), "{}", stdout(&o));
    assert!(!s.0.join("results").exists());
    // --readonly refuses a job that writes, naming it, before anything is made.
    let o = run(&["--name=w", "--rw=randwrite", "--size=1m", "--filename=ro.dat", "--readonly"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--readonly: job w writes"), "{}", stderr(&o));
    assert!(!s.0.join("ro.dat").exists() && !s.0.join("results").exists());
    // --warnings-fatal: an option that runs differently (iodepth on a synchronous engine, at
    // depth 1) refuses the jobs.
    let o = run(&["--name=a", "--ioengine=psync", "--iodepth=8", "--size=1m", "--warnings-fatal", "--parse-only"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--warnings-fatal") && stderr(&o).contains("iodepth=8"), "{}", stderr(&o));
    // Refused clearly: --debug, --client; a value refused names the argument as written.
    let o = run(&["--debug=io", "--name=a"]);
    assert!(o.status.code() == Some(2) && stderr(&o).contains("--debug=io:"), "{}", stderr(&o));
    let o = run(&["--client=host1", "job.fio"]);
    assert!(o.status.code() == Some(2) && stderr(&o).contains("mpirun"), "{}", stderr(&o));
    let o = run(&["--name=a", "--size=1m", "--bs=4q"]);
    assert!(o.status.code() == Some(2) && stderr(&o).contains("--bs=4q:"), "{}", stderr(&o));
    let o = run(&["--name=a", "missing.fio"]);
    assert!(o.status.code() == Some(2) && stderr(&o).contains("missing.fio"), "{}", stderr(&o));
}

/// The targets a test runs on: the file `file` in `s` and, where loop devices work, a loop device
/// of `bytes` over a file in `s` (with the `--destroy` it needs) — (what, target, extra
/// arguments) each — and the loop device, attached while it is kept.
fn file_and_loop(s: &Scratch, file: &str, bytes: u64) -> (Vec<(&'static str, String, Vec<String>)>, Option<LoopDev>) {
    let mut targets = vec![("file", s.path(file), Vec::new())];
    let lo = common::loop_unavailable().is_none().then(|| LoopDev::new(&s.0.join("backing"), bytes, Some(0)));
    match &lo {
        Some(lo) => targets.push(("loop", lo.dev.clone(), vec!["--destroy".to_string(), lo.dev.clone()])),
        None => common::skip_part("a loop device", &common::loop_unavailable().unwrap_or_default()),
    }
    (targets, lo)
}

#[test]
fn ioengine_libaio_runs_native_aio_and_fios_json_names_it() {
    let s = Scratch::new("fio-cmdline-libaio");
    // On a file and (where loop devices work) a block device: fio's JSON echoes the engine in the
    // job's options, and the saved point ran libaio at the depth asked.
    let (targets, _lo) = file_and_loop(&s, "aio.dat", 16 << 20);
    for (what, target, extra) in &targets {
        let results = format!("results-{what}");
        let mut argv = vec!["fio", "--name=aio", "--ioengine=libaio", "--direct=1", "--rw=randrw", "--bs=4k"];
        argv.extend(["--iodepth=32", "--size=16m", "--runtime=300ms", "--time_based", "--output-format=json"]);
        let fname = format!("--filename={target}");
        argv.extend([fname.as_str(), "--results", &results]);
        argv.extend(extra.iter().map(String::as_str));
        let o = drivelab_in(&s.0, &argv);
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains(r#""ioengine" : "libaio""#), "{what}: {out}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let job = &doc["jobs"][0];
        assert_eq!(job["job options"]["ioengine"], "libaio", "{what}");
        assert!(job["read"]["io_bytes"].as_u64().unwrap() > 0 && job["write"]["io_bytes"].as_u64().unwrap() > 0);
        let points = saved_points(&results_dir(&s.0.join(&results)));
        let result = &points[0]["result"];
        assert_eq!((&result["engine"]["backend"], &result["spec"]["engine"]), (&"libaio".into(), &"libaio".into()));
        assert_eq!(result["spec"]["qd"], 32, "{what}");
        assert!(!stderr(&o).contains("io_uring"), "{what}: libaio runs libaio: {}", stderr(&o));
    }
}

#[test]
fn section_runs_only_the_named_jobs_of_a_job_file() {
    let s = Scratch::new("fio-cmdline-section");
    let job = s.path("j.fio");
    std::fs::write(&job, "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\n[b]\nrw=randread\nbs=16k\n").unwrap();
    let o = drivelab_in(&s.0, &["fio", "--section=b", &job, "--results", "results"]);
    let points = saved_points(&results_dir(&s.0.join("results")));
    let labels: Vec<&str> = points.iter().map(|p| p["point"]["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["b"], "{}", stderr(&o));
    assert_eq!(field(&points[0], "bs"), "16384");
}

#[test]
fn writing_a_block_device_needs_destroy_naming_job_and_device() {
    need_loop!();
    let s = Scratch::new("fio-cmdline-destroy");
    let dev = LoopDev::new(&s.0.join("backing"), 4 << 20, Some(0x11));
    let args = ["fio", "--name=wr", "--rw=write", "--bs=64k", "--size=1m", "--filename", dev.dev.as_str()];
    let o = drivelab_in(&s.0, &args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(&dev.dev) && e.contains("--destroy") && e.contains("wr"), "{e}");
    assert!(std::fs::read(s.0.join("backing")).unwrap().iter().all(|&b| b == 0x11), "nothing was written");
    let mut with = args.to_vec();
    with.extend(["--destroy", dev.dev.as_str(), "--results", "after"]);
    let o = drivelab_in(&s.0, &with);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(results_dir(&s.0.join("after")).join("run.json").is_file(), "the run was saved");
    assert!(std::fs::read(s.0.join("backing")).unwrap().iter().any(|&b| b != 0x11), "the writes reached the device");
}

#[test]
fn under_mpirun_every_rank_runs_the_jobs_and_rank_0_saves_them_merged() {
    if !cfg!(feature = "mpi") || std::process::Command::new("mpirun").arg("--version").output().is_err() {
        common::skip("needs mpirun and a build with --features drivelab/mpi");
        return;
    }
    let s = Scratch::new("fio-cmdline-mpi");
    let o = std::process::Command::new("mpirun")
        .env("XDG_DATA_HOME", crate::common::data_home())
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .args(["--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n", "2"])
        .arg(env!("CARGO_BIN_EXE_drivelab"))
        .args(["fio", "--name=a", "--ioengine=null", "--size=4m", "--bs=8k", "--results", "results"])
        .current_dir(&s.0)
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .output()
        .unwrap();
    let dir = results_dir(&s.0.join("results"));
    assert!(o.status.success(), "{}", stderr(&o));
    let run = json(&dir.join("run.json"));
    assert_eq!(run["ranks"]["size"], 2, "{run}");
    let points = saved_points(&dir);
    assert_eq!(points[0]["ranks"].as_array().map(Vec::len), Some(2), "each rank's part saved");
    assert_eq!(field(&points[0], "bs"), "8192");
}

/// fio's random map: a size-bound random write visits every block exactly once (fio's t0020),
/// on a file and on a block device, and verify checks them all; `norandommap` draws each offset
/// independently, so some blocks come twice and others never. Offsets counted from fio's own
/// per-I/O log (`write_lat_log` with `log_offset=1`).
#[test]
fn a_size_bound_random_write_visits_every_block_once_unless_norandommap() {
    let s = Scratch::new("fio-cmdline-randommap");
    let (targets, _lo) = file_and_loop(&s, "map.dat", 8 << 20);
    for (what, target, extra) in &targets {
        for (map, expect_all) in [("", true), ("--norandommap", false)] {
            let log = format!("{what}{}", map.trim_start_matches('-'));
            let mut argv = vec!["fio", "--name=m", "--rw=randwrite", "--bs=4k", "--size=8m", "--verify=crc32c"];
            let (fname, lat) = (format!("--filename={target}"), format!("--write_lat_log={log}"));
            argv.extend([fname.as_str(), lat.as_str(), "--log_offset=1", "--output-format=json"]);
            argv.extend(extra.iter().map(String::as_str));
            if !map.is_empty() {
                argv.push(map);
            }
            let o = drivelab_in(&s.0, &argv);
            assert!(o.status.success(), "{what} {map}: {}", stderr(&o));
            assert_eq!(crate::common::fio_stderr(&o), "", "{what} {map}: a clean run says nothing on stderr");
            let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
            assert_eq!(doc["jobs"][0]["error"], 0, "{what} {map}: verify passed");
            let text = std::fs::read_to_string(s.0.join(format!("{log}_clat.1.log"))).unwrap();
            let writes: Vec<u64> = text
                .lines()
                .filter(|l| l.split(',').nth(2).map(str::trim) == Some("1"))
                .map(|l| l.split(',').nth(4).unwrap().trim().parse().unwrap())
                .collect();
            assert_eq!(writes.len(), 2048, "{what} {map}: 8 MiB in 4 KiB writes");
            let distinct: std::collections::BTreeSet<u64> = writes.iter().copied().collect();
            if expect_all {
                assert_eq!(distinct.len(), 2048, "{what}: every block once");
            } else {
                assert!(distinct.len() < 1500, "{what} {map}: independent draws repeat blocks: {}", distinct.len());
            }
        }
        if *what == "file" {
            std::fs::remove_file(target).unwrap();
        }
    }
}

/// `ioengine=posixaio` runs glibc's POSIX AIO at the job's depth, as fio's posixaio does (fio's
/// t0017: a clean stderr, every I/O done); `serialize_overlap` runs where nothing of a job can
/// overlap (depth 1, or with verify) and is refused, with the fix, where drivelab would not
/// serialize (fio's t0013).
#[test]
fn posixaio_runs_glibcs_posix_aio_and_serialize_overlap_where_it_holds() {
    let s = Scratch::new("fio-cmdline-posixaio");
    let argv = ["fio", "--name=test", "--ioengine=posixaio", "--size=1M", "--iodepth=16", "--output-format=json"];
    let o = common::bin().env("XDG_DATA_HOME", s.0.join("data")).current_dir(&s.0).args(argv).output().unwrap();
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["jobs"][0]["job options"]["ioengine"], "posixaio");
    assert_eq!((doc["jobs"][0]["read"]["total_ios"].as_u64(), doc["jobs"][0]["error"].as_u64()), (Some(256), Some(0)));
    // fio's t0015-t0017: slat per I/O (the I/Os of a call share its time), so the means add up
    // as each I/O's do, whatever the calls carried.
    let lat = |k: &str| doc["jobs"][0]["read"][k]["mean"].as_f64().unwrap();
    assert_eq!(doc["jobs"][0]["read"]["slat_ns"]["N"], 256);
    let off = lat("slat_ns") + lat("clat_ns") - lat("lat_ns");
    assert!(off.abs() <= 1.0, "mean slat + mean clat is mean lat: {off} ns off");
    let points = saved_points(&results_dir(&s.0.join("data/drivelab/results")));
    assert_eq!((field(&points[0], "engine"), field(&points[0], "qd")), ("\"posixaio\"".into(), "16".into()));
    // Written and read back through glibc's threads, checked block by block.
    let verify = ["fio", "--name=v", "--ioengine=posixaio", "--iodepth=8", "--rw=randwrite", "--size=1m"];
    let o =
        drivelab_in(&s.0, &[&verify[..], &["--verify=crc32c", "--filename=v.dat", "--output-format=json"]].concat());
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["jobs"][0]["write"]["total_ios"], 256);
    assert_eq!(doc["jobs"][0]["read"]["io_kbytes"], 1024, "every block read back and checked");

    let base = ["fio", "--name=s", "--ioengine=null", "--size=4k", "--bs=4k", "--serialize_overlap=1", "--runtime=1"];
    let o = drivelab_in(&s.0, &[&base[..], &["--iodepth=1", "--numjobs=8", "--output=/dev/null"]].concat());
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let o = drivelab_in(&s.0, &[&base[..], &["--ioengine=libaio", "--iodepth=8", "--filename=s.dat"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("serialize_overlap=1") && stderr(&o).contains("iodepth=1"), "{}", stderr(&o));
    assert!(!s.0.join("s.dat").exists());
}

/// etcd's disk check (etcd.io's "Hardware recommendations" and every Kubernetes guide after it):
/// `fdatasync=1` on a small sequential write; its answer is the fdatasync p99. drivelab calls
/// fdatasync (not fsync) and writes fio's `sync` block: JSON's `sync.lat_ns.percentile` and the
/// normal output's "fsync/fdatasync/sync_file_range" section, as fio does.
#[test]
fn the_etcd_fdatasync_recipe_gets_its_p99() {
    let s = Scratch::new("fio-cmdline-etcd");
    std::fs::create_dir_all(s.0.join("test-data")).unwrap();
    let base = ["fio", "--rw=write", "--ioengine=sync", "--fdatasync=1", "--directory=test-data", "--size=1m"];
    let json_args = ["--bs=2300", "--name=mytest", "--output-format=json", "--results", "res"];
    let o = drivelab_in(&s.0, &[&base[..], &json_args].concat());
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let points = saved_points(&results_dir(&s.0.join("res")));
    assert_eq!(points[0]["point"]["spec"]["sync"], serde_json::json!({"mode": "fdatasync", "every": 1}));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let sync = &doc["jobs"][0]["sync"]["lat_ns"];
    let writes = doc["jobs"][0]["write"]["total_ios"].as_u64().unwrap();
    assert_eq!(sync["N"].as_u64(), Some(writes), "one fdatasync per write: {sync}");
    let p99 = sync["percentile"]["99.000000"].as_u64().unwrap();
    assert!(p99 >= sync["min"].as_u64().unwrap() && p99 > 0, "{sync}");
    let o = drivelab_in(&s.0, &[&base[..], &["--bs=2300", "--name=normal"]].concat());
    let text = stdout(&o);
    let block = text.split("  fsync/fdatasync/sync_file_range:\n").nth(1).expect("fio's sync section");
    assert!(block.starts_with("    sync (") && block.lines().next().unwrap().contains("): min="), "{block}");
    assert!(block.contains("    sync percentiles (") && block.contains("99.00th=["), "{block}");
}

/// fio's `bsrange`: each I/O's size drawn from MIN up to MAX as fio 3.33 draws it (MIN plus a
/// uniform share of MAX, rounded down to a multiple of MIN), so 1k-4k gives 1, 2, 3 and 4 KiB a
/// quarter each; fio's `MIN:MAX` spelling too (fio's t0001 and t0002). Sizes read from the
/// per-I/O log.
#[test]
fn bsrange_draws_sizes_as_fio_does() {
    let s = Scratch::new("fio-cmdline-bsrange");
    for (range, log) in [("--bsrange=1k-4k", "dash"), ("--bsrange=1k:4k", "colon")] {
        let lat = format!("--write_lat_log={log}");
        // norandommap: the map would cut sizes at visited blocks (as fio's does).
        let mut argv = vec!["fio", "--name=r", "--rw=randread", "--size=4m", "--filename=r.dat", "--norandommap"];
        argv.extend([range, lat.as_str(), "--output=/dev/null"]);
        let o = drivelab_in(&s.0, &argv);
        assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{range}: {}", stderr(&o));
        let text = std::fs::read_to_string(s.0.join(format!("{log}_clat.1.log"))).unwrap();
        let sizes: Vec<u64> = text.lines().map(|l| l.split(',').nth(3).unwrap().trim().parse().unwrap()).collect();
        let n = sizes.len() as f64;
        assert!(n > 1000.0, "{range}: {n} I/Os");
        for k in 1..=4u64 {
            let share = sizes.iter().filter(|&&b| b == k * 1024).count() as f64 / n;
            assert!((share - 0.25).abs() < 0.05, "{range}: {k} KiB in {share} of the I/Os");
        }
        assert!(sizes.iter().all(|b| b % 1024 == 0 && (1024..=4096).contains(b)), "{range}");
    }
    let o = drivelab_in(&s.0, &["fio", "--name=r", "--size=1m", "--filename=r.dat", "--bsrange=8k-4k"]);
    assert!(o.status.code() == Some(2) && stderr(&o).contains("MIN-MAX"), "{}", stderr(&o));
}

/// A new file is laid out as fio lays it out: to the end of the job's region (offset + size, and
/// the last clone's offset_increment), so a job at an offset past `size` runs (fio's t0003,
/// dbench's sequential job) instead of being refused.
#[test]
fn a_new_file_reaches_the_end_of_the_jobs_region() {
    let s = Scratch::new("fio-cmdline-layout");
    let o = drivelab_in(&s.0, &["fio", "--name=o", "--rw=write", "--offset=8m", "--size=1m", "--filename=o.dat"]);
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(s.0.join("o.dat")).unwrap().len(), 9 << 20, "offset + size, as fio");
    let args = ["--name=c", "--rw=read", "--size=1m", "--numjobs=3", "--offset_increment=2m", "--filename=c.dat"];
    let o = drivelab_in(&s.0, &[&["fio"][..], &args].concat());
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(s.0.join("c.dat")).unwrap().len(), 5 << 20, "the last clone at 4m, plus 1m");
}

/// fio's random map covers at most 2^31 blocks per job; a larger region (a sparse 9 TiB file)
/// runs with independent draws, and the result's notices say so — never silently.
#[test]
fn a_region_too_large_for_the_random_map_says_so() {
    let s = Scratch::new("fio-cmdline-bigmap");
    let f = s.0.join("big.img");
    std::fs::File::create(&f).unwrap().set_len(9 << 40).unwrap();
    let args = ["run", f.to_str().unwrap(), "--rw", "randread", "--random-map", "--time", "100ms", "--buffered"];
    let o = drivelab_in(&s.0, &[&args[..], &["--engine", "psync", "--json", "-", "-q"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let notices: Vec<&str> = r["notices"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(notices.iter().any(|n| n.starts_with("random map:") && n.contains("independently")), "{notices:?}");
}

/// fio's percentile options choose which latencies list percentiles in fio's JSON: clat's by
/// default; `lat_percentiles=1` adds lat's (scripts read `lat_ns.percentile`), `slat_percentiles`
/// slat's, `clat_percentiles=0` takes clat's away, as fio 3.33 writes them.
#[test]
fn percentile_options_choose_the_latencies_fios_json_lists() {
    let s = Scratch::new("fio-cmdline-percentiles");
    let base = ["fio", "--name=p", "--ioengine=libaio", "--iodepth=4", "--size=1m", "--filename=p.dat"];
    let listed = |extra: &[&str]| -> Vec<bool> {
        let o = drivelab_in(&s.0, &[&base[..], extra, &["--output-format=json"]].concat());
        assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
        let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let read = &doc["jobs"][0]["read"];
        ["slat_ns", "clat_ns", "lat_ns"].iter().map(|k| read[k]["percentile"]["99.000000"].is_u64()).collect()
    };
    assert_eq!(listed(&[]), [false, true, false], "fio's default: clat's");
    assert_eq!(listed(&["--lat_percentiles=1"]), [false, true, true]);
    assert_eq!(listed(&["--lat_percentiles=1", "--clat_percentiles=0", "--slat_percentiles=1"]), [true, false, true]);
}

/// `percentile_list` chooses the percentiles every fio format lists (sorted, as fio sorts them;
/// normal output with the digits they were given with), and a list fio refuses is refused.
#[test]
fn a_percentile_list_is_what_every_fio_format_lists() {
    let s = Scratch::new("fio-cmdline-percentile-list");
    let base = ["fio", "--name=p", "--rw=randread", "--size=1m", "--filename=p.dat", "--percentile_list=99.9:50:99"];
    let run = |extra: &[&str]| -> String {
        let o = drivelab_in(&s.0, &[&base[..], extra].concat());
        assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
        stdout(&o)
    };
    let doc: serde_json::Value = serde_json::from_str(&run(&["--output-format=json"])).unwrap();
    let keys: Vec<&String> = doc["jobs"][0]["read"]["clat_ns"]["percentile"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["50.000000", "99.000000", "99.900000"]);
    let normal = run(&["--lat_percentiles=1"]);
    for name in ["clat", "lat"] {
        let block = normal.split(&format!("    {name} percentiles (")).nth(1).unwrap_or_else(|| panic!("{normal}"));
        let line = block.lines().nth(1).unwrap();
        assert!(
            line.starts_with("     | 50.0th=[") && line.contains(", 99.0th=[") && line.contains(", 99.9th=["),
            "{line}"
        );
    }
    let terse = run(&["--minimal"]);
    let f: Vec<&str> = terse.trim().split(';').collect();
    assert!(f[17].starts_with("50.000000%=") && f[19].starts_with("99.900000%=") && f[20] == "0%=0", "{terse}");
    for bad in ["--percentile_list=50:101", "--percentile_list=p99"] {
        let o = drivelab_in(&s.0, &["fio", "--name=p", "--size=1m", "--filename=p.dat", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("percentile_list"), "{}", stderr(&o));
    }
}

/// `unified_rw_reporting`: fio's `mixed` object in place of the directions (and no sync block),
/// or after them with `both`; its figures are the directions' summed; normal and terse follow.
#[test]
fn unified_rw_reporting_writes_fios_mixed_direction() {
    let s = Scratch::new("fio-cmdline-unified");
    let base = ["fio", "--name=u", "--rw=randrw", "--size=1m", "--filename=u.dat"];
    let run = |extra: &[&str]| -> String {
        let o = drivelab_in(&s.0, &[&base[..], extra].concat());
        assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
        stdout(&o)
    };
    let json = |mode: &str| -> serde_json::Value {
        let doc: serde_json::Value =
            serde_json::from_str(&run(&[&format!("--unified_rw_reporting={mode}"), "--output-format=json"])).unwrap();
        doc["jobs"][0].clone()
    };
    let mixed = json("mixed");
    assert!(mixed["read"].is_null() && mixed["write"].is_null() && mixed["sync"].is_null(), "{mixed}");
    assert_eq!(mixed["mixed"]["io_bytes"], 1 << 20);
    assert_eq!(mixed["mixed"]["total_ios"], 256);
    assert_eq!(mixed["mixed"]["clat_ns"]["N"], 256);
    let both = json("both");
    let (r, w, m) = (&both["read"], &both["write"], &both["mixed"]);
    assert_eq!(r["total_ios"].as_u64().unwrap() + w["total_ios"].as_u64().unwrap(), m["total_ios"].as_u64().unwrap());
    assert!(both["sync"].is_object());
    let none = json("none");
    assert!(none["mixed"].is_null() && none["read"].is_object());
    let normal = run(&["--unified_rw_reporting=1"]);
    assert!(normal.contains("\n  mixed: IOPS=") && !normal.contains("\n  read: "), "{normal}");
    assert!(normal.contains("\n  MIXED: bw=") && !normal.contains("   READ: bw="), "{normal}");
    let fields = |mode: &str| run(&[&format!("--unified_rw_reporting={mode}"), "--minimal"]).trim().split(';').count();
    // fio 3.33's terse v3: read and write (41 fields each) or mixed alone, or all three.
    assert_eq!((fields("none") - fields("mixed"), fields("both") - fields("none")), (41, 41));
    let o = drivelab_in(&s.0, &["fio", "--name=u", "--size=1m", "--filename=u.dat", "--unified_rw_reporting=yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `ioscheduler=NAME`: a disk already on NAME runs as fio's would; on another, drivelab runs
/// without switching the whole device's scheduler and says so on stderr (its figures may not be
/// fio's), naming both and the command that switches it; the device's scheduler is untouched.
#[test]
fn ioscheduler_is_never_switched_and_a_different_one_is_said() {
    need_loop!();
    let shm = Scratch::new("fio-cmdline-iosched");
    let dev = LoopDev::new(&shm.0.join("backing"), 4 << 20, Some(0x5a));
    let disk = dev.dev.trim_start_matches("/dev/").to_string();
    let sched_file = format!("/sys/block/{disk}/queue/scheduler");
    let before = std::fs::read_to_string(&sched_file).unwrap();
    let now = before.split('[').nth(1).and_then(|s| s.split(']').next()).unwrap_or("none").to_string();
    let run = |want: &str| {
        let o = drivelab_in(
            &shm.0,
            &[
                "fio",
                "--name=s",
                "--rw=read",
                "--size=1m",
                &format!("--filename={}", dev.dev),
                &format!("--ioscheduler={want}"),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        crate::common::fio_stderr(&o)
    };
    assert_eq!(run(&now), "", "the scheduler it already has");
    let other = if now == "mq-deadline" { "kyber" } else { "mq-deadline" };
    let said = run(other);
    assert!(
        said.contains(&format!("ioscheduler={other}")) && said.contains(&now) && said.contains(&sched_file),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&sched_file).unwrap(), before, "the device's scheduler is as it was");
}

/// fio's normal output announces its jobs before they run: each job's line (`...` for its
/// clones), fio's version, `Starting N processes`, and a line per file it lays out, then an
/// empty line before the report. drivelab's lines are fio's, to the byte.
#[test]
fn the_normal_output_announces_the_jobs_as_fio_does() {
    let args = [
        "--name=a",
        "--size=64k",
        "--numjobs=2",
        "--bsrange=4k-16k",
        "--name=b",
        "--rw=randwrite",
        "--bs=8k,16k",
        "--ioengine=libaio",
        "--iodepth=4",
        "--size=64k",
        "--stonewall",
    ];
    let head = |text: &str| text.split("\n\n").next().unwrap_or("").to_string();
    let s = Scratch::new("fio-cmdline-preamble");
    let mut ours = vec!["fio"];
    ours.extend(args);
    let o = drivelab_in(&s.0, &ours);
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let mine = head(&stdout(&o));
    assert!(
        mine.starts_with("a: (g=0): rw=read, bs=(R) 4096B-16.0KiB,")
            && mine.contains("\n...\nb: (g=1): rw=randwrite, bs=(R) 8192B-8192B, (W) 16.0KiB-16.0KiB"),
        "{mine}"
    );
    assert!(mine.contains("\nStarting 3 processes\na: Laying out IO file (1 file / 0MiB)\n"), "{mine}");
    // fio's own words on stdout, in every format: a synchronous engine asked for a queue (each
    // clone, as it starts) and a time_based verifying writer whose read phase never comes.
    let o =
        drivelab_in(&s.0, &["fio", "--name=q", "--size=64k", "--iodepth=8", "--numjobs=2", "--output-format=terse"]);
    let note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n";
    assert!(stdout(&o).starts_with(&note.repeat(2)) && stdout(&o).contains("\n3;fio-3.33;q;"), "{}", stdout(&o));
    let o = drivelab_in(
        &s.0,
        &[
            "fio",
            "--name=v",
            "--size=64k",
            "--rw=write",
            "--verify=crc32c",
            "--time_based",
            "--runtime=200ms",
            "--output-format=json",
        ],
    );
    let out = stdout(&o);
    assert!(
        out.starts_with("fio: verification read phase will never start because write phase uses all of runtime\n{"),
        "{out}"
    );
    if let Some(fio) = fio() {
        let f = Scratch::new("fio-cmdline-preamble-fio");
        let o = std::process::Command::new(fio).args(args).current_dir(&f.0).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(mine, head(&stdout(&o)));
    }
}

/// `--bandwidth-log`: fio's three aggregate logs in the working directory, in fio's log format
/// (each whole second's KiB/s per direction); a symlink in one's place is refused before the run.
#[test]
fn bandwidth_log_writes_fios_aggregate_logs() {
    let s = Scratch::new("fio-cmdline-agg");
    let args = [
        "fio",
        "--name=a",
        "--ioengine=null",
        "--size=1g",
        "--rw=randrw",
        "--time_based",
        "--runtime=1200ms",
        "--bandwidth-log",
    ];
    let o = drivelab_in(&s.0, &args);
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    for (name, dir) in [("agg-read_bw.log", "0"), ("agg-write_bw.log", "1")] {
        let text = std::fs::read_to_string(s.0.join(name)).unwrap();
        let line = text.lines().next().unwrap_or_else(|| panic!("{name} is empty"));
        let cols: Vec<&str> = line.split(", ").collect();
        assert_eq!((cols.len(), cols[2], cols[3]), (5, dir, "0"), "{line}");
        assert!(cols[1].parse::<u64>().unwrap() > 0, "{line}");
    }
    assert_eq!(std::fs::read_to_string(s.0.join("agg-trim_bw.log")).unwrap(), "", "no trims");
    std::fs::remove_file(s.0.join("agg-read_bw.log")).unwrap();
    std::os::unix::fs::symlink("elsewhere", s.0.join("agg-read_bw.log")).unwrap();
    let o = drivelab_in(&s.0, &args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!s.0.join("elsewhere").exists());
}

/// A verifying writer's verify phase is in its reads as fio counts it: the bytes re-read, and
/// the re-read's own runtime, bandwidth and IOPS (they were 0 before the sweep was timed).
#[test]
fn a_verifying_writers_reads_have_the_verify_phases_time() {
    let s = Scratch::new("fio-cmdline-verify-phase");
    let o = drivelab_in(
        &s.0,
        &["fio", "--name=v", "--size=4m", "--rw=write", "--verify=crc32c", "--filename=v.dat", "--output-format=json"],
    );
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let r = &doc["jobs"][0]["read"];
    assert_eq!((r["io_bytes"].as_u64(), r["total_ios"].as_u64()), (Some(4 << 20), Some(1024)), "{r}");
    assert!(r["runtime"].as_u64() > Some(0) && r["bw"].as_u64() > Some(0) && r["iops"].as_f64() > Some(0.0), "{r}");
}
