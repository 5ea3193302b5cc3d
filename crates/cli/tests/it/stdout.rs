//! Standard output as a script meets it: a full disk behind it is an error (exit 1, said on
//! stderr), a reader that stops reading (`| head -1`) ends drivelab quietly without stopping a
//! run, and `-q` leaves only the answer on stdout, with warnings and errors on stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{drivelab, stderr, stdout, Scratch};

fn bin() -> Command {
    crate::common::bin()
}

/// drivelab with its standard output on /dev/full (every write fails with ENOSPC).
fn into_full_disk(dir: &Path, args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    bin().current_dir(dir).args(args).stdout(Stdio::from(full)).output().expect("run drivelab")
}

fn only_dir(results: &str) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(results).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

#[test]
fn a_full_disk_behind_stdout_is_an_error_for_every_command() {
    let s = Scratch::new("stdout-full");
    let (a, b) = (s.path("a"), s.path("b"));
    for results in [&a, &b] {
        let o = drivelab(&["run", "null", "--time", "100ms", "--results", results, "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (da, db) = (only_dir(&a), only_dir(&b));
    let (da, db) = (da.to_str().unwrap(), db.to_str().unwrap());
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\ntime = \"1s\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let out = s.path("out");
    let commands: Vec<Vec<&str>> = vec![
        vec!["--help"],
        vec!["--version"],
        vec!["suite"],
        vec!["suite", "quick", "null", "--dry-run"],
        vec!["plan", &plan, "null", "--dry-run"],
        vec!["report", da],
        vec!["report", da, "--format", "json"],
        vec!["compare", da, db],
        vec!["run", "null", "--time", "100ms", "--results", &out],
        vec!["run", "null", "--time", "100ms", "--results", &out, "-q"],
        vec!["suite", "hdparm", "null", "--time", "100ms", "--results", &out, "-q"],
    ];
    for args in &commands {
        let o = into_full_disk(&s.0, args);
        assert_eq!(o.status.code(), Some(1), "drivelab {args:?} > /dev/full: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(
            err.matches("writing to standard output: No space left on device").count(),
            1,
            "said once, on stderr: {args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The measurement is not lost with the output: its results directory is whole.
    for d in std::fs::read_dir(&out).unwrap() {
        assert!(d.unwrap().path().join("report.html").is_file());
    }
}

#[test]
fn a_reader_that_stops_reading_ends_drivelab_quietly_and_the_run_goes_on() {
    let s = Scratch::new("stdout-pipe");
    let results = s.path("results");
    for args in [vec!["--help"], vec!["suite", "hdparm", "null", "--time", "200ms", "--results", results.as_str()]] {
        let mut child =
            bin().current_dir(&s.0).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take()); // `| head -0`: the pipe is closed before drivelab writes
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).is_empty(), "a closed pipe is not an error: {args:?}: {}", stderr(&o));
    }
    let dir = only_dir(&results);
    let points = std::fs::read_dir(dir.join("points")).unwrap().count();
    assert_eq!(points, 3, "the suite ran to its end");
    assert!(dir.join("report.html").is_file());
}

/// `-q`: only the answer on stdout; the lines that tell how a run goes are gone.
#[test]
fn quiet_leaves_only_the_answer_on_stdout_for_every_command() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("quiet");
    let results = s.path("results");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\ntime = \"200ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let f = s.path("f.dat");
    let r = results.as_str();
    // The answer each command ends with, and a line that only tells how it goes.
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (vec!["run", "null", "--time", "200ms", "--results", r], "IOPS", "results: "),
        (vec!["plan", &plan, "null", "--results", r], "2 points: 2 finished", "[1/2]"),
        (vec!["suite", "hdparm", "null", "--time", "100ms", "--results", r], "cached reads", "[1/3]"),
        (
            vec![
                "qos",
                "null",
                // Whatever else the machine runs: the outputs are tested here, not a busy probe.
                "--judge-busy",
                "--by",
                "qd",
                "--max-qd",
                "2",
                "--objective",
                "p99<10s",
                "--time",
                "100ms",
                "--results",
                r,
            ],
            "qos: highest queue depth meeting",
            "probe",
        ),
        (
            vec!["act", &f, "--size", "16m", "--time", "1s", "--slice", "1s", "--no-prep", "--results", r],
            "act: ",
            "reads %>(ms)",
        ),
    ];
    // act may fail its certification (a verdict, not an error of drivelab's).
    let ended = |o: &Output| matches!(o.status.code(), Some(c) if c != 1 && c != 2 && c != 130);
    for (args, answer, progress) in cases {
        let loud = drivelab(&args);
        assert!(ended(&loud), "{args:?}: {}", stderr(&loud));
        assert!(stdout(&loud).contains(progress), "without -q: {args:?}:\n{}", stdout(&loud));
        let mut q = args.clone();
        q.push("-q");
        let quiet = drivelab(&q);
        assert!(ended(&quiet), "{q:?}: {}", stderr(&quiet));
        let out = stdout(&quiet);
        assert!(out.contains(answer), "-q keeps the answer: {q:?}:\n{out}");
        assert!(!out.contains(progress), "-q drops {progress:?}: {q:?}:\n{out}");
        assert!(!out.contains("results: "), "-q drops the opening line: {q:?}:\n{out}");
        assert!(out.contains("report.html"), "-q still says where the results are: {q:?}:\n{out}");
    }
}
