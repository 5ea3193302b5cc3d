//! Issue #24, items 2, 11 and 12 (outputs): every file drivelab writes, attacked through the
//! binary. A symlink planted at a temporary name (the old one was `.NAME.tmp<PID>`, and a shell's
//! `$$` is the PID drivelab gets after `exec`), at `.report.html.tmp`, at the output name itself
//! or in place of a results directory's `points`; names that cannot be files; names too long to
//! be files. Each test checks the victim's bytes (or that nothing was run or written), not only
//! the exit code.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

const VICTIM: &[u8] = b"someone else's file\n";

/// Run `drivelab ARGS` in `dir` through `sh`, which first plants a symlink to `victim` at each
/// of `plant` (`$$` in a name is the PID drivelab will have: `exec` keeps it).
fn raced(dir: &Path, plant: &[&str], victim: &Path, args: &[&str]) -> Output {
    let mut script = String::new();
    for p in plant {
        script += &format!("ln -s '{}' {p} || exit 99; ", victim.display());
    }
    script += "exec \"$0\" \"$@\"";
    Command::new("sh")
        .env("XDG_DATA_HOME", crate::common::data_home())
        .env("DRIVELAB_STATE_DIR", crate::common::state_home())
        .current_dir(dir)
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_drivelab"))
        .args(args)
        .output()
        .expect("run sh")
}

fn victim(s: &Scratch, name: &str) -> PathBuf {
    let v = s.0.join(name);
    std::fs::write(&v, VICTIM).unwrap();
    v
}

fn untouched(v: &Path) {
    assert_eq!(std::fs::read(v).unwrap(), VICTIM, "{} was written", v.display());
}

fn dirs(base: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(base).map(|r| r.filter_map(|e| Some(e.ok()?.path())).collect()).unwrap_or_default();
    v.sort();
    v
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn ok(o: &Output) {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), stderr(o));
}

fn refused(o: &Output, says: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(stderr(o).contains(says), "wanted {says:?}: {}", stderr(o));
}

/// A finished results directory of one short run on the null target.
fn one_run(s: &Scratch) -> PathBuf {
    let results = s.0.join("saved");
    ok(&drivelab_in(&s.0, &["run", "null", "--time", "100ms", "--results", results.to_str().unwrap(), "-q"]));
    dirs(&results).pop().unwrap()
}

#[test]
fn a_symlink_at_the_pid_temp_name_of_json_is_not_followed() {
    let s = Scratch::new("out-json-race");
    let v = victim(&s, "victim");
    let o = raced(&s.0, &[".o.json.tmp$$"], &v, &["run", "null", "--time", "100ms", "--json", "o.json", "-q"]);
    ok(&o);
    untouched(&v);
    assert_eq!(json(&s.0.join("o.json"))["schema"], 2, "the result was saved under its name");
    assert!(!names(&s.0).iter().any(|n| n.starts_with(".drivelab-")), "no temporary file left: {:?}", names(&s.0));
}

#[test]
fn report_o_compare_o_and_act_log_do_not_follow_a_symlink_at_their_temp_name() {
    let s = Scratch::new("out-o-race");
    let dir = one_run(&s);
    let d = dir.to_str().unwrap();
    let v = victim(&s, "victim");
    ok(&raced(&s.0, &[".r.html.tmp$$"], &v, &["report", d, "-o", "r.html"]));
    ok(&raced(&s.0, &[".c.html.tmp$$"], &v, &["compare", d, d, "-o", "c.html"]));
    let results = s.path("act-results");
    let o = raced(
        &s.0,
        &[".a.log.tmp$$"],
        &v,
        &["act", "null", "--time", "1s", "--act-log", "a.log", "--results", &results, "-q"],
    );
    assert!(o.status.code() == Some(0) || o.status.code() == Some(3), "{}", stderr(&o));
    untouched(&v);
    assert!(std::fs::read_to_string(s.0.join("r.html")).unwrap().contains("<html"));
    assert!(std::fs::read_to_string(s.0.join("c.html")).unwrap().contains("<html"));
    assert!(std::fs::read_to_string(s.0.join("a.log")).unwrap().contains("ACT version"));
}

#[test]
fn a_resume_does_not_write_through_symlinks_planted_in_the_results_directory() {
    let s = Scratch::new("out-resume");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let results = s.path("results");
    ok(&drivelab_in(&s.0, &["plan", &plan, "null", "--results", &results, "-q"]));
    let dir = dirs(Path::new(&results)).pop().unwrap();
    std::fs::remove_file(dir.join("points/0002-qd2.json")).unwrap();
    std::fs::remove_file(dir.join("report.html")).unwrap();
    let (v1, v2, v3) = (victim(&s, "v1"), victim(&s, "v2"), victim(&s, "v3"));
    // The point file's and the report's old temporary names, and report.html itself.
    std::os::unix::fs::symlink(&v2, dir.join(".report.html.tmp")).unwrap();
    std::os::unix::fs::symlink(&v3, dir.join("report.html")).unwrap();
    let o =
        raced(&dir.join("points"), &[".0002-qd2.json.tmp$$"], &v1, &["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    ok(&o);
    untouched(&v1);
    untouched(&v2);
    untouched(&v3);
    assert_eq!(json(&dir.join("points/0002-qd2.json"))["point"]["index"], 2, "the point was saved");
    let report = std::fs::symlink_metadata(dir.join("report.html")).unwrap();
    assert!(report.is_file(), "report.html is drivelab's own file again, the symlink replaced");
}

#[test]
fn a_symlink_in_place_of_points_is_refused_before_a_resume_runs() {
    let s = Scratch::new("out-points-link");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let results = s.path("results");
    ok(&drivelab_in(&s.0, &["plan", &plan, "null", "--results", &results, "-q"]));
    let dir = dirs(Path::new(&results)).pop().unwrap();
    let elsewhere = s.0.join("elsewhere");
    std::fs::rename(dir.join("points"), &elsewhere).unwrap();
    std::fs::remove_file(elsewhere.join("0002-qd2.json")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("points")).unwrap();
    let o = drivelab_in(&s.0, &["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    refused(&o, "points is not the directory drivelab made");
    assert_eq!(names(&elsewhere), ["0001-qd1.json"], "nothing was written through the symlink");
}

#[test]
fn any_existing_name_at_an_output_is_refused_before_the_run() {
    let s = Scratch::new("out-exists");
    let v = victim(&s, "victim");
    std::os::unix::fs::symlink(s.0.join("nowhere"), s.0.join("dangling")).unwrap();
    std::os::unix::fs::symlink(&v, s.0.join("to-victim")).unwrap();
    std::fs::create_dir(s.0.join("a-dir")).unwrap();
    assert!(Command::new("mkfifo").arg(s.0.join("fifo")).status().unwrap().success());
    let dir = one_run(&s);
    let d = dir.to_str().unwrap();
    let results = s.path("results");
    for (name, says) in [
        ("dangling", "is a symlink"),
        ("to-victim", "is a symlink"),
        ("a-dir", "is a directory"),
        ("fifo", "exists (a FIFO"),
    ] {
        let run = ["run", "null", "--time", "100ms", "--results", &results, "-q", "--json", name];
        refused(&drivelab_in(&s.0, &run), &format!("--json {name} {says}"));
        let act = ["act", "null", "--time", "1s", "--results", &results, "-q", "--act-log", name];
        refused(&drivelab_in(&s.0, &act), &format!("--act-log {name} {says}"));
        refused(&drivelab_in(&s.0, &["report", d, "-o", name]), &format!("-o {name} {says}"));
        refused(&drivelab_in(&s.0, &["compare", d, d, "-o", name]), &format!("-o {name} {says}"));
        let verify = ["run", "j.dat", "--size", "1m", "--time", "100ms", "--rw", "write", "--verify"];
        let o = drivelab_in(&s.0, &[&verify[..], &["--results", &results, "--journal", name]].concat());
        assert_eq!(o.status.code(), Some(2), "--journal {name}: {}", stderr(&o));
    }
    untouched(&v);
    assert!(!s.0.join("nowhere").exists(), "the dangling symlink's target was not created");
    assert!(!s.0.join("j.dat").exists() && !Path::new(&results).exists(), "nothing was run");
}

#[test]
fn names_that_cannot_be_files_are_refused_before_the_run() {
    let s = Scratch::new("out-names");
    std::fs::write(s.0.join("a-file"), b"x").unwrap();
    let dir = one_run(&s);
    let d = dir.to_str().unwrap();
    let results = s.path("results");
    let long = format!("{}.json", "x".repeat(300));
    let cases = [
        ("", "a value is required"),
        ("sub/", "names a directory"),
        ("..", "names a directory"),
        ("missing/o.json", "the directory missing does not exist"),
        ("a-file/o.json", "a-file is not a directory"),
        (long.as_str(), "at most 255"),
    ];
    for (name, says) in cases {
        let run = ["run", "null", "--time", "100ms", "--results", &results, "-q", "--json", name];
        refused(&drivelab_in(&s.0, &run), says);
        let act = ["act", "null", "--time", "1s", "--results", &results, "-q", "--act-log", name];
        refused(&drivelab_in(&s.0, &act), says);
        refused(&drivelab_in(&s.0, &["report", d, "-o", name]), says);
        refused(&drivelab_in(&s.0, &["compare", d, d, "-o", name]), says);
    }
    refused(&drivelab_in(&s.0, &["report", d, "--png", ""]), "a value is required for '--png");
    assert!(!Path::new(&results).exists(), "nothing was run");
    assert_eq!(names(&s.0), ["a-file", "saved"], "nothing was written");
}

#[test]
fn chart_pngs_are_all_checked_before_the_first_is_written() {
    let s = Scratch::new("out-png");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let results = s.path("results");
    ok(&drivelab_in(&s.0, &["plan", &plan, "null", "--results", &results, "-q"]));
    let dir = dirs(Path::new(&results)).pop().unwrap();
    let d = dir.to_str().unwrap();
    ok(&drivelab_in(&s.0, &["report", d, "--png", "first"]));
    let charts = names(&s.0.join("first"));
    assert!(charts.len() >= 2, "{charts:?}");
    let second = s.0.join("second");
    std::fs::create_dir(&second).unwrap();
    let last = charts.last().unwrap();
    std::os::unix::fs::symlink(s.0.join("nowhere"), second.join(last)).unwrap();
    refused(&drivelab_in(&s.0, &["report", d, "--png", "second"]), "already exists");
    assert_eq!(names(&second), std::slice::from_ref(last), "no chart was written");
    assert!(!s.0.join("nowhere").exists());
}

#[test]
fn very_long_plan_and_job_names_run_save_and_report() {
    let s = Scratch::new("out-long");
    let plan = s.path("p.toml");
    let name = "n".repeat(5000);
    std::fs::write(&plan, format!("name = \"{name}\"\n[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n")).unwrap();
    let results = s.path("results");
    ok(&drivelab_in(&s.0, &["plan", &plan, "null", "--results", &results, "-q"]));
    let dir = dirs(Path::new(&results)).pop().unwrap();
    assert!(dir.file_name().unwrap().len() <= 130, "{}", dir.display());
    let o = drivelab_in(&s.0, &["report", dir.to_str().unwrap()]);
    ok(&o);

    // Two 10,000-character sections that differ only at their ends: two points, two names.
    let section = "a".repeat(10_000);
    let job = s.path("j.fio");
    let body = "ioengine=null\nrw=read\nbs=4k\nsize=1m\nstonewall\n";
    std::fs::write(&job, format!("[{section}1]\n{body}\n[{section}2]\n{body}")).unwrap();
    let results = s.path("fio-results");
    ok(&drivelab_in(&s.0, &["plan", &job, "--results", &results, "-q"]));
    let dir = dirs(Path::new(&results)).pop().unwrap();
    let points = names(&dir.join("points"));
    assert_eq!(points.len(), 2, "{points:?}");
    assert!(points.iter().all(|p| p.len() <= 130), "{points:?}");
    let o = drivelab_in(&s.0, &["report", dir.to_str().unwrap(), "--format", "json"]);
    ok(&o);
    assert!(stdout(&o).contains(&format!("{section}2")), "the label is kept whole in the record");
}

#[test]
fn results_given_as_a_symlink_to_a_directory_is_followed() {
    let s = Scratch::new("out-results-link");
    let real = s.0.join("real");
    std::fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, s.0.join("link")).unwrap();
    ok(&drivelab_in(&s.0, &["run", "null", "--time", "100ms", "--results", "link", "-q"]));
    let saved = dirs(&real);
    assert_eq!(saved.len(), 1, "the user's symlink is the user's choice");
    assert!(saved[0].join("points").is_dir() && saved[0].join("report.html").is_file());
}

#[test]
fn results_and_journal_paths_that_cannot_be_made_are_refused_before_anything_is_created() {
    let s = Scratch::new("out-results-names");
    std::fs::write(s.0.join("a-file"), b"x").unwrap();
    std::os::unix::fs::symlink(s.0.join("nowhere"), s.0.join("dangling")).unwrap();
    std::os::unix::fs::symlink(s.0.join("loop2"), s.0.join("loop1")).unwrap();
    std::os::unix::fs::symlink(s.0.join("loop1"), s.0.join("loop2")).unwrap();
    let long = "r".repeat(300);
    let deep = vec!["d".repeat(250); 16].join("/");
    let results = [
        ("", "a value is required for '--results"),
        ("dangling", "dangling is a symlink that leads nowhere"),
        ("dangling/sub", "dangling is a symlink that leads nowhere"),
        ("loop1", "loop1 is a symlink that leads nowhere"),
        (long.as_str(), "at most 255"),
        (deep.as_str(), "at most 3500"),
    ];
    for (r, says) in results {
        refused(&drivelab_in(&s.0, &["run", "null", "--time", "100ms", "-q", "--results", r]), says);
    }
    let journals = [
        ("", "a value is required for '--journal"),
        ("jd/", "names a directory"),
        ("missing/j", "the directory missing does not exist"),
        ("a-file/j", "a-file is not a directory"),
        (long.as_str(), "at most 255"),
    ];
    for (j, says) in journals {
        let run =
            ["run", "t.dat", "--size", "1m", "--time", "100ms", "--rw", "write", "--verify", "-q", "--journal", j];
        refused(&drivelab_in(&s.0, &run), says);
    }
    assert!(!s.0.join("nowhere").exists() && !s.0.join("t.dat").exists(), "nothing was created");
    assert_eq!(names(&s.0), ["a-file", "dangling", "loop1", "loop2"], "nothing was written");
}

#[test]
fn a_symlink_planted_at_the_json_name_during_the_run_is_not_followed() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("out-json-late");
    let v = victim(&s, "victim");
    let results = s.0.join("results");
    let child = crate::common::bin()
        .current_dir(&s.0)
        .args(["run", "null", "--time", "2s", "--json", "o.json", "--results", "results", "-q"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // After the checks (the results directory exists only then), while it measures.
    while dirs(&results).is_empty() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::os::unix::fs::symlink(&v, s.0.join("o.json")).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("the name exists"), "{}", stderr(&o));
    untouched(&v);
    assert!(stdout(&o).contains("\"schema\": 2"), "the result follows on standard output: {}", stdout(&o));
}

/// Start drivelab in `dir` with `args` (a plan, not quiet), send it SIGINT as soon as it says
/// point `k` started (its `[k/N]` line: the event, no time guessed), and wait.
fn interrupted_at(dir: &Path, args: &[&str], k: usize) -> Output {
    use std::io::{BufRead, Read};
    let mut child = crate::common::bin()
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).unwrap();
        v
    });
    let mut out = Vec::new();
    let mut sent = false;
    for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok) {
        if !sent && line.starts_with(&format!("[{k}/")) {
            // SAFETY: sending a signal to our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            sent = true;
        }
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    assert!(sent, "point {k} never started");
    let status = child.wait().unwrap();
    Output { status, stdout: out, stderr: stderr.join().unwrap() }
}

#[test]
fn a_point_interrupted_again_after_a_resume_keeps_both_records() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("out-twice");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randread\"\ntime = \"4s\"\n[matrix]\nqd = [1, 2]\n").unwrap();
    let o = interrupted_at(&s.0, &["plan", &plan, "null", "--results", "results"], 1);
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let dir = dirs(&s.0.join("results")).pop().unwrap();
    let first = std::fs::read(dir.join("points/0001-qd1.interrupted.json")).unwrap();
    let o = interrupted_at(&s.0, &["plan", "--resume", dir.to_str().unwrap()], 1);
    assert_eq!(o.status.code(), Some(130), "a second stop is a stop, not an error: {}", stderr(&o));
    assert_eq!(names(&dir.join("points")), ["0001-qd1.2.interrupted.json", "0001-qd1.interrupted.json"]);
    assert_eq!(std::fs::read(dir.join("points/0001-qd1.interrupted.json")).unwrap(), first, "kept as it was");
    let o = drivelab_in(&s.0, &["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    ok(&o);
    assert!(stdout(&o).contains("2 points: 2 finished"), "{}", stdout(&o));
}
