//! `drivelab plan` end to end: dry runs, bad plans, results directories, resume after Ctrl-C.

mod common;

use std::path::{Path, PathBuf};

use common::{drivelab, json, stderr, stdout, Scratch};

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
    let s = Scratch::new("plan-resume");
    let plan = write_plan(&s, "[defaults]\ntime = \"1s\"\n[matrix]\nqd = [1, 2, 4, 8]\n");
    let results = s.path("results");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_drivelab"))
        .args(["plan", &plan, "null", "--results", &results, "-q"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1600));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let dir = result_dirs(Path::new(&results)).pop().unwrap();
    let before = point_files(&dir);
    assert_eq!(before.len(), 2, "point 1 done, point 2 kept as interrupted: {before:?}");
    assert!(before[1].ends_with(".interrupted.json"));
    let first = std::fs::read(dir.join("points").join(&before[0])).unwrap();

    let o = drivelab(&["plan", "--resume", dir.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("skipped"), "{}", stdout(&o));
    let after: Vec<String> = point_files(&dir).into_iter().filter(|f| !f.ends_with(".interrupted.json")).collect();
    assert_eq!(after.len(), 4, "{after:?}");
    assert_eq!(std::fs::read(dir.join("points").join(&before[0])).unwrap(), first, "point 1 was not run again");
    for (i, f) in after.iter().enumerate() {
        let v = json(&dir.join("points").join(f));
        assert_eq!(v["result"]["spec"]["qd"].as_u64().unwrap(), [1, 2, 4, 8][i]);
        assert_eq!(v["result"]["interrupted"], false);
    }
}
