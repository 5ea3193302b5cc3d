//! `drivelab plan` end to end: dry runs, bad plans, results directories, resume after Ctrl-C.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, need_loop, stderr, stdout, LoopDev, Scratch};

const PLAN: &str = r#"
name = "sweep"
pause = "100ms"

[defaults]
rw = "randread"
time = "300ms"

[matrix]
qd = "1..4 x2"
bs = ["4k", "8k"]
"#;

fn write_plan(s: &Scratch, text: &str) -> String {
    let p = s.path("plan.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// Four 1-second points on the null target.
fn four_second_plan(s: &Scratch) -> String {
    write_plan(s, "[defaults]\ntime = \"1s\"\n[matrix]\nqd = [1, 2, 4, 8]\n")
}

/// Start drivelab with `args` (a plan, not quiet), send it `signal` as soon as it says point
/// `k` started (its `[k/N]` line), and wait for it to end.
fn signal_at(args: &[&str], k: usize, signal: i32) -> std::process::ExitStatus {
    signals_at(args, k, &[signal])
}

/// Start drivelab with `args`, send it each of `signals` at once when point `k` starts (no time
/// guessed: the event itself), and wait.
fn signals_at(args: &[&str], k: usize, signals: &[i32]) -> std::process::ExitStatus {
    use std::io::BufRead;
    let mut child = crate::common::bin().args(args).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut sent = false;
    for line in out.lines().map_while(Result::ok) {
        if !sent && line.starts_with(&format!("[{k}/")) {
            for &signal in signals {
                // SAFETY: sending a signal to our own child.
                unsafe { libc::kill(child.id() as i32, signal) };
            }
            sent = true;
        }
    }
    assert!(sent, "point {k} never started");
    child.wait().unwrap()
}

fn result_dirs(base: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(base).map(|r| r.filter_map(|e| Some(e.ok()?.path())).collect()).unwrap_or_default();
    v.sort();
    v
}

fn point_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    v.sort();
    v
}

#[test]
fn dry_run_lists_every_point_in_order_and_runs_nothing() {
    let s = Scratch::new("plan-dry");
    let plan = write_plan(&s, PLAN);
    let target = s.path("t");
    let results = s.path("results");
    let o = drivelab(&["plan", &plan, &target, "--dry-run", "--results", &results]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect();
    assert_eq!(lines.len(), 6, "3 qd x 2 bs:\n{out}");
    assert!(lines[0].contains("qd=1") && lines[0].contains("bs=4k"), "{}", lines[0]);
    assert!(lines[5].contains("qd=4") && lines[5].contains("bs=8k"), "{}", lines[5]);
    assert!(out.contains("estimated total: 2.3s"), "6 x 300ms + 5 x 100ms pauses:\n{out}");
    assert!(!Path::new(&target).exists() && !Path::new(&results).exists(), "a dry run creates nothing");
    // Without any target named, a dry run still lists the points.
    let o = drivelab(&["plan", &plan, "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("TARGET"), "{}", stdout(&o));
    let o = drivelab(&["plan", &plan, "--results", &results]);
    assert_eq!(o.status.code(), Some(2), "a real run still needs targets");
}

#[test]
fn a_bad_plan_names_file_line_and_column_and_nothing_runs() {
    let s = Scratch::new("plan-bad");
    let plan = write_plan(&s, "[defaults]\nqd = 0\n");
    let o = drivelab(&["plan", &plan, "null", "--results", &s.path("results")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("plan.toml:2:6"), "{}", stderr(&o));
    assert!(!Path::new(&s.path("results")).exists());
}

#[test]
fn a_point_its_target_cannot_take_is_refused_before_anything_runs() {
    let s = Scratch::new("plan-check");
    let plan = write_plan(&s, "[defaults]\ntime = \"200ms\"\n[matrix]\nbs = [\"4k\", \"1000\"]\n");
    let o = drivelab(&["plan", &plan, &s.path("t"), "--size", "4m", "--results", &s.path("results")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A plan's errors name the plan's keys (`bs`), not run's flags.
    assert!(stderr(&o).contains("point 2") && stderr(&o).contains("bs 1000"), "{}", stderr(&o));
    assert!(!Path::new(&s.path("results")).exists() && !Path::new(&s.path("t")).exists());
}

#[test]
fn a_plan_run_saves_run_facts_and_one_file_per_point() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("plan-run");
    let plan = write_plan(&s, PLAN);
    let target = s.path("t");
    let results = s.path("results");
    let o = drivelab(&["plan", &plan, &target, "--size", "16m", "--results", &results, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dirs = result_dirs(Path::new(&results));
    assert_eq!(dirs.len(), 1);
    let dir = &dirs[0];
    let run = json(&dir.join("run.json"));
    assert_eq!(run["schema"], 2);
    assert_eq!(run["kind"], "plan");
    assert!(run["host"]["kernel"].as_str().unwrap().len() > 1);
    assert!(run["host"]["cores_online"].as_u64().unwrap() >= 1);
    assert_eq!(run["targets"][0]["path"], target.as_str());
    assert_eq!(run["targets"][0]["file"]["filesystem"], "tmpfs");
    assert_eq!(run["setup"]["plan"]["points"].as_array().unwrap().len(), 6);
    assert!(run["command_line"].as_array().unwrap().iter().any(|a| a == "plan"));
    let files = point_files(dir);
    assert_eq!(files.len(), 6, "{files:?}");
    for (i, f) in files.iter().enumerate() {
        assert!(f.starts_with(&format!("{:04}-", i + 1)), "{f}");
        let v = json(&dir.join("points").join(f));
        assert_eq!(v["point"]["index"], i + 1);
        let qd = v["result"]["spec"]["qd"].as_u64().unwrap();
        assert_eq!(qd, [1, 1, 2, 2, 4, 4][i], "{f}");
        assert!(v["result"]["read"]["ops"].as_u64().unwrap() > 0);
    }
}

#[test]
fn an_interrupted_plan_resumes_without_running_a_point_twice() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("plan-resume");
    let (plan, results) = (four_second_plan(&s), s.path("results"));
    assert_eq!(signal_at(&["plan", &plan, "null", "--results", &results], 2, libc::SIGINT).code(), Some(130));
    let dir = result_dirs(Path::new(&results)).pop().unwrap();
    let before = point_files(&dir);
    assert_eq!(before.len(), 2, "point 1 done, point 2 kept as interrupted: {before:?}");
    assert!(before[1].ends_with(".interrupted.json"));
    let first = std::fs::read(dir.join("points").join(&before[0])).unwrap();

    let o = drivelab(&["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 points: 3 finished, 1 done earlier"), "{}", stdout(&o));
    let after: Vec<String> = point_files(&dir).into_iter().filter(|f| !f.ends_with(".interrupted.json")).collect();
    assert_eq!(after.len(), 4, "{after:?}");
    assert_eq!(std::fs::read(dir.join("points").join(&before[0])).unwrap(), first, "point 1 was not run again");
    for (i, f) in after.iter().enumerate() {
        let v = json(&dir.join("points").join(f));
        assert_eq!(v["result"]["spec"]["qd"].as_u64().unwrap(), [1, 2, 4, 8][i]);
        assert_eq!(v["result"]["interrupted"], false);
    }
}

#[test]
fn sigterm_stops_a_plan_like_ctrl_c_and_keeps_finished_points_and_the_report() {
    let s = Scratch::new("plan-term");
    let (plan, results) = (four_second_plan(&s), s.path("results"));
    let status = signal_at(&["plan", &plan, "null", "--results", &results], 2, libc::SIGTERM);
    assert_eq!(status.code(), Some(130), "a stop, not a kill: {status:?}");
    let dir = &result_dirs(Path::new(&results))[0];
    let files = point_files(dir);
    let done: Vec<_> = files.iter().filter(|f| !f.ends_with(".interrupted.json")).collect();
    assert_eq!(done.len(), 1, "the first point finished and was kept: {files:?}");
    let cut: Vec<_> = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".interrupted.json"))
        .collect();
    assert_eq!(cut.len(), 1, "the point in progress is kept as interrupted");
    assert!(dir.join("report.html").is_file(), "the report is written for what finished");
}

#[test]
fn a_point_whose_io_fails_stops_the_plan_unless_told_to_go_on() {
    need_loop!();
    let s = Scratch::new("plan-eio");
    // A loop device over a sparse 64 MiB file on a 1 MiB tmpfs: writes past 1 MiB fail for real.
    let Some(fs) = common::TinyTmpfs::new(&s.0.join("tiny"), "1m") else {
        common::skip("cannot mount a tmpfs");
        return;
    };
    let lo = LoopDev::new(&fs.0.join("sparse"), 64 << 20, None);
    let plan = write_plan(&s, "[defaults]\nrw = \"write\"\nbs = \"64k\"\ntime = \"1s\"\n[matrix]\nqd = [1, 2, 4]\n");
    let results = s.path("results");
    // --no-prep: the fill a device gets first would fail past 1 MiB before any point ran.
    let o = drivelab(&["plan", &plan, &lo.dev, "--destroy", &lo.dev, "--no-prep", "--results", &results, "-q"]);
    assert_eq!(o.status.code(), Some(1), "an I/O error is never a success: {}", stderr(&o));
    assert!(stdout(&o).contains("stopped at the point"), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("point 1 (") && err.contains("I/O error on"), "-q never hides an I/O error: {err}");
    let dir = &result_dirs(Path::new(&results))[0];
    assert_eq!(point_files(dir).len(), 1, "the plan stopped at the first errored point");
    let v = json(&dir.join("points").join(&point_files(dir)[0]));
    assert!(v["result"]["errors"][0]["count"].as_u64().unwrap() >= 1, "the errored point is saved with its errors");

    std::fs::remove_dir_all(&results).unwrap();
    let o = drivelab(&[
        "plan",
        &plan,
        &lo.dev,
        "--destroy",
        &lo.dev,
        "--no-prep",
        "--results",
        &results,
        "-q",
        "--continue-on-error",
    ]);
    assert_eq!(o.status.code(), Some(1), "going on does not make it a success: {}", stderr(&o));
    let dir = &result_dirs(Path::new(&results))[0];
    assert_eq!(point_files(dir).len(), 3, "every point ran");
    assert!(stdout(&o).contains("3 with I/O errors"), "{}", stdout(&o));
    drop(lo);
    drop(fs);
}

#[test]
fn a_resume_runs_on_the_same_targets_from_anywhere_and_refuses_a_target_that_is_gone() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("plan-resume-where");
    let plan = write_plan(&s, "[defaults]\nrw = \"randread\"\ntime = \"1s\"\n[matrix]\nqd = [1, 2, 4]\n");
    let here = s.0.join("here");
    std::fs::create_dir(&here).unwrap();
    let results = s.path("results");
    // Started from `here` with a relative target, interrupted after the first point.
    let mut child = crate::common::bin()
        .current_dir(&here)
        .args(["plan", &plan, "t.dat", "--size", "8m", "--results", &results, "-q"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dir = loop {
        std::thread::sleep(std::time::Duration::from_millis(100));
        if let Some(d) = result_dirs(Path::new(&results)).first() {
            if point_files(d).iter().any(|f| f.starts_with("0001-")) {
                break d.clone();
            }
        }
    };
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let run = json(&dir.join("run.json"));
    let target = here.join("t.dat").to_string_lossy().into_owned();
    assert_eq!(run["setup"]["plan"]["targets"][0], target.as_str(), "saved as an absolute path");
    // Resumed from elsewhere: the same file, not a new one in the current directory.
    let elsewhere = s.0.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let o = common::drivelab_in(&elsewhere, &["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!elsewhere.join("t.dat").exists(), "no new target where the resume was started");
    let done: Vec<_> = point_files(&dir).into_iter().filter(|f| !f.ends_with(".interrupted.json")).collect();
    assert_eq!(done.len(), 3, "{done:?}");
    // A target that is gone is refused: a new file would be measured as if it were the same.
    std::fs::remove_file(&target).unwrap();
    std::fs::remove_file(dir.join("points").join(&done[2])).unwrap();
    let o = drivelab(&["plan", "--resume", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no longer exists"), "{}", stderr(&o));
    assert!(!Path::new(&target).exists(), "nothing was created");
}

#[test]
fn a_stop_signal_delivered_twice_at_once_still_keeps_the_interrupted_point_and_the_report() {
    let s = Scratch::new("plan-int-twice");
    let (plan, results) = (four_second_plan(&s), s.path("results"));
    let status = signals_at(&["plan", &plan, "null", "--results", &results], 2, &[libc::SIGINT, libc::SIGINT]);
    assert_eq!(status.code(), Some(130));
    let dir = &result_dirs(Path::new(&results))[0];
    let files = point_files(dir);
    assert!(files.iter().any(|f| f.ends_with(".interrupted.json")), "the point in progress was kept: {files:?}");
    assert!(dir.join("report.html").is_file(), "and the report written");
}

/// Issue #11, item 13: a suite resumed with `plan --resume` ends as the suite does, with its
/// tables.
#[test]
fn a_resumed_suite_ends_with_the_suites_tables() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("suite-resume");
    let results = s.path("results");
    let args = ["suite", "sync", "null", "--time", "1s", "--results", &results];
    assert_eq!(signal_at(&args, 2, libc::SIGINT).code(), Some(130));
    let dir = result_dirs(Path::new(&results)).pop().unwrap();
    let o = drivelab(&["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("4K writes at QD1 (IOPS)") && out.contains("fsync each write"), "{out}");
}

/// `--repeat N --pick best|median` (CrystalDiskMark's best of 5): each point runs N times, the
/// kept run is a real run chosen as asked, and every run's figures are saved with the point.
#[test]
fn repeated_points_keep_the_best_or_the_median_run_and_save_every_run() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("repeat");
    for (pick, runs) in [("best", 3usize), ("median", 4)] {
        let results = s.path(&format!("results-{pick}"));
        let n = runs.to_string();
        let o = drivelab(&[
            "suite",
            "sync",
            "null",
            "--time",
            "100ms",
            "--repeat",
            &n,
            "--pick",
            pick,
            "--results",
            &results,
            "-q",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let dir = result_dirs(Path::new(&results)).pop().unwrap();
        for f in point_files(&dir) {
            let v = json(&dir.join("points").join(&f));
            let r = &v["repeats"];
            let iops: Vec<f64> = r["runs_iops"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            assert_eq!((r["pick"].as_str(), iops.len()), (Some(pick), runs), "{f}: {r}");
            let kept = r["kept"].as_u64().unwrap() as usize;
            assert_eq!(v["result"]["total"]["iops"].as_f64().unwrap(), iops[kept], "the kept run is the result");
            let mut sorted = iops.clone();
            sorted.sort_by(f64::total_cmp);
            let want = if pick == "best" { sorted[runs - 1] } else { sorted[(runs - 1) / 2] };
            assert_eq!(iops[kept], want, "{pick} of {iops:?}");
        }
    }
    let o = drivelab(&["suite", "sync", "null", "--repeat", "3", "--steady"]);
    assert_eq!(o.status.code(), Some(2), "--repeat with --steady: {}", stderr(&o));
    let o = drivelab(&["suite", "sync", "null", "--repeat", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--repeat 0 runs: give 1..100"), "{}", stderr(&o));
}

/// The closing line's counts: `N points: F finished, I interrupted, R not run`.
fn closing_counts(out: &str) -> (usize, Vec<(usize, String)>) {
    let line = out.lines().find(|l| l.contains(" points: ")).unwrap_or_else(|| panic!("no closing line:\n{out}"));
    let (total, rest) = line.split_once(" points: ").unwrap();
    let counts = rest.split(';').next().unwrap();
    let counts = counts
        .split(", ")
        .map(|c| {
            let (n, what) = c.split_once(' ').unwrap();
            (n.parse().unwrap(), what.to_string())
        })
        .collect();
    (total.parse().unwrap(), counts)
}

fn count_of(counts: &[(usize, String)], what: &str) -> usize {
    counts.iter().find(|(_, w)| w == what).map_or(0, |(n, _)| *n)
}

#[test]
fn after_ctrl_c_the_closing_line_counts_finished_interrupted_and_unrun_points_apart() {
    let s = Scratch::new("plan-count");
    let (plan, results) = (four_second_plan(&s), s.path("results"));
    let child = crate::common::bin()
        .args(["plan", &plan, "null", "--results", &results])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1600));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let dir = &result_dirs(Path::new(&results))[0];
    let files = point_files(dir);
    let cut = files.iter().filter(|f| f.ends_with(".interrupted.json")).count();
    let (total, counts) = closing_counts(&stdout(&o));
    assert_eq!(total, 4, "{counts:?}");
    assert_eq!(count_of(&counts, "finished"), files.len() - cut, "{counts:?} vs {files:?}");
    assert_eq!(count_of(&counts, "interrupted"), cut, "{counts:?} vs {files:?}");
    assert_eq!(count_of(&counts, "not run"), 4 - files.len(), "{counts:?} vs {files:?}");
    assert!(cut == 1 && files.len() < 4, "the point in progress was cut: {files:?}");
}

/// Ctrl-C while a later point's new target is being written: the plan still ends with its
/// closing line and report, the point counted as interrupted (nothing of it saved), the partial
/// file removed.
#[test]
fn ctrl_c_while_a_later_points_file_is_created_still_counts_every_point() {
    let s = Scratch::new("plan-count-fill");
    let (results, new) = (s.path("results"), s.path("second.dat"));
    // jbod on null and a new 1 GiB file: points 1-4 run on null alone, point 5 creates the file.
    let args = ["suite", "jbod", "null", &new, "--size", "1g", "--time", "100ms", "--results", &results];
    let child = crate::common::bin()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !Path::new(&new).exists() {
        assert!(start.elapsed().as_secs() < 60, "the file was never created");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let dir = &result_dirs(Path::new(&results))[0];
    let files = point_files(dir);
    let (total, counts) = closing_counts(&stdout(&o));
    assert_eq!(total, 8, "{}", stdout(&o));
    let (finished, cut, unrun) =
        (count_of(&counts, "finished"), count_of(&counts, "interrupted"), count_of(&counts, "not run"));
    assert_eq!(finished, files.iter().filter(|f| !f.ends_with(".interrupted.json")).count(), "{counts:?} {files:?}");
    assert_eq!(finished + cut + unrun, 8, "every point counted once: {counts:?}");
    assert_eq!((finished, cut), (4, 1), "the four points on null finished, the fifth was cut: {counts:?}");
    assert!(dir.join("report.html").is_file(), "the report is written for what finished");
    assert!(!Path::new(&new).exists(), "the half-written file was removed");
}

/// SNIA PTS reports the steady window's average: the point's result is its last window's
/// rounds as one run (their I/Os over their windows), not the last round alone.
#[test]
fn a_steady_points_result_is_its_windows_rounds_as_one_run() {
    let s = Scratch::new("plan-steady-window");
    let plan = write_plan(&s, "[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n");
    let results = s.path("results");
    // Three rounds and a window of three: steady or not (a busy machine decides), the result is
    // those three rounds as one run, and the exit code says which.
    let o = drivelab(&[
        "plan",
        &plan,
        "null",
        "--steady",
        "--steady-window",
        "3",
        "--steady-rounds",
        "3",
        "--results",
        &results,
        "-q",
    ]);
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let point = std::fs::read_dir(dir.join("points")).unwrap().next().unwrap().unwrap().path();
    let p = json(&point);
    let st = &p["steady"];
    assert_eq!(st["result_rounds"].as_u64(), Some(3), "{st}");
    let want = if st["steady"] == true { 0 } else { 4 };
    assert_eq!(o.status.code(), Some(want), "{st}: {}", stderr(&o));
    let rounds: Vec<f64> = st["rounds_iops"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let window = &rounds[rounds.len() - 3..];
    // The merge of three rounds is their I/Os over their time: a mean weighted by each round's
    // time, so within the rounds' range (a busy machine stretches one round: 7.83M arithmetic
    // mean against 7.39M merged), and its measured time is the three rounds' (below).
    let (lo, hi) = window.iter().fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
    let r = &p["result"];
    let iops = r["total"]["iops"].as_f64().unwrap();
    assert!(iops >= lo * 0.999 && iops <= hi * 1.001, "the window's rounds {window:?} merged, not one round: {iops}");
    let runtime_s = r["runtime_ns"].as_f64().unwrap() / 1e9;
    assert!(runtime_s >= 0.29, "three rounds' measured time: {runtime_s} s");
    let ops = r["total"]["ops"].as_f64().unwrap();
    assert!((ops / runtime_s - iops).abs() <= iops * 1e-6, "IOPS is every I/O of the window over its time");
}

#[test]
fn labels_name_the_targets_everywhere_and_bad_ones_are_refused() {
    let s = Scratch::new("plan-labels");
    let (a, b) = (s.path("a.dat"), s.path("b.dat"));
    let plan = write_plan(&s, "[defaults]\nrw = \"randread\"\ntime = \"100ms\"\n[matrix]\nqd = [1, 2]\n");
    let results = s.path("results");
    let la = format!("{a}=Drive A");
    let lb = format!("{b}=Drive B");
    let o = drivelab(&["plan", &plan, &a, &b, "--size", "8m", "--label", &la, "--label", &lb, "--results", &results]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("qd=1 on Drive A (") && out.contains("qd=2 on Drive B ("), "point lines by name: {out}");
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let text = stdout(&drivelab(&["report", dir.to_str().unwrap()]));
    assert!(text.contains("Drive A") && text.contains("Drive B"), "{text}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("target Drive A (") && html.contains("Drive B"), "the facts and charts name them");
    // Refused before anything runs, naming the value, exit 2.
    for (label, says) in [
        ("nothing", "expected TARGET=NAME"),
        ("/dev/zzz=x", "no target of this command"),
        (&format!("{a}=\u{1b}]0;x\u{7}") as &str, "control character"),
        (&format!("{a}={b}"), "is another target"),
    ] {
        let o = drivelab(&["plan", &plan, &a, &b, "--label", label, "--dry-run"]);
        assert_eq!(o.status.code(), Some(2), "--label {label:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "--label {label:?}: {}", stderr(&o));
    }
    let o = drivelab(&["plan", &plan, &a, &b, "--label", &format!("{a}=X"), "--label", &format!("{b}=X")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("both named \"X\""), "{}", stderr(&o));
    let o = drivelab(&["run", "null", "--time", "10ms", "--label", "nul=x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // fio mode takes it as drivelab's own option: fio's output and its empty stderr unchanged.
    let fio_results = s.path("fio-results");
    let la = format!("{a}=Drive A");
    let o = drivelab(&[
        "fio",
        "--name=x",
        &format!("--filename={a}"),
        "--rw=read",
        "--size=1m",
        "--label",
        &la,
        "--results",
        &fio_results,
        "--output-format=terse",
    ]);
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let dir = std::fs::read_dir(&fio_results).unwrap().next().unwrap().unwrap().path();
    assert!(stdout(&drivelab(&["report", dir.to_str().unwrap()])).contains("Drive A"));
    let o = drivelab(&["fio", "--name=x", &format!("--filename={a}"), "--rw=read", "--label", "x=y"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty(), "refused before fio's output starts: {}", stdout(&o));
}
