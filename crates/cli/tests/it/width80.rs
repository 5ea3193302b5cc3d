//! The 80-column promise (issue #26): with `COLUMNS=80` and no terminal, no line of stdout or
//! stderr of any command that prints to a person is wider than 80 columns (characters, not
//! bytes) — run, plan, every suite, the suite list, report (text) of every kind of results,
//! compare, qos (by rate and by queue depth), act, info and verify — on three targets whose paths
//! are 40 characters long (files in /dev/shm), and one suite on a loop device. Each command runs
//! once at a tiny size and time; its results directory is then reported and compared, so the
//! whole file stays quick.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use drivelab_lab::suites::SuiteId;

use crate::common::{loop_unavailable, LoopDev, Scratch};

const WIDTH: usize = 80;

/// Every command run so far and its lines wider than [`WIDTH`].
struct Checker {
    cwd: PathBuf,
    over: Vec<String>,
    ran: usize,
}

impl Checker {
    /// Run drivelab with `COLUMNS=80`, stdout and stderr piped; note every line too wide.
    fn run(&mut self, args: &[&str]) -> Output {
        let o = crate::common::bin()
            .current_dir(&self.cwd)
            .env("COLUMNS", WIDTH.to_string())
            .args(args)
            .output()
            .expect("run drivelab");
        self.ran += 1;
        for (stream, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            for line in String::from_utf8_lossy(bytes).lines() {
                let n = line.chars().count();
                if n > WIDTH {
                    self.over.push(format!("drivelab {} ({stream}, {n} columns):\n{line}", args.join(" ")));
                }
            }
        }
        o
    }

    /// [`Self::run`], which must succeed (or end with `code`).
    fn must(&mut self, args: &[&str], code: i32) -> Output {
        let o = self.run(args);
        assert_eq!(
            o.status.code(),
            Some(code),
            "drivelab {}:\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        o
    }
}

/// The one results directory made under `base` since `before`.
fn new_dir(base: &Path, before: &[PathBuf]) -> String {
    let mut now: Vec<PathBuf> = dirs(base).into_iter().filter(|d| !before.contains(d)).collect();
    assert_eq!(now.len(), 1, "one new results directory: {now:?}");
    now.remove(0).to_string_lossy().into_owned()
}

fn dirs(base: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(base).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default()
}

/// A path of exactly 40 characters in `dir`, told apart by `k`.
fn path40(dir: &Path, k: usize) -> String {
    let base = format!("{}/t{k}", dir.display());
    let n = 40usize.checked_sub(base.chars().count() + 4).expect("a short scratch directory");
    let p = format!("{base}{}.dat", "x".repeat(n));
    assert_eq!(p.chars().count(), 40);
    p
}

#[test]
fn every_command_fits_80_columns_on_targets_with_40_character_paths() {
    let s = Scratch::new("w");
    let results = s.path("r");
    let base = PathBuf::from(&results);
    let t: Vec<String> = (1..=3).map(|k| path40(&s.0, k)).collect();
    let mut c = Checker { cwd: s.0.clone(), over: Vec::new(), ran: 0 };
    // Runs into `results`, returning the new directory.
    let into = |c: &mut Checker, args: &[&str], code: i32| -> String {
        let before = dirs(&base);
        let mut a = args.to_vec();
        a.extend(["--results", &results]);
        c.must(&a, code);
        new_dir(&base, &before)
    };
    let size = ["--size", "8m"];
    let time = ["--time", "100ms"];

    let run =
        into(&mut c, &[&["run"], &t.iter().map(String::as_str).collect::<Vec<_>>()[..], &size, &time].concat(), 0);
    c.must(&["info", &t[0]], 0);
    std::fs::write(c.cwd.join("f.dat"), vec![0u8; 4096]).unwrap();
    let o = c.must(&["info", "f.dat"], 0);
    // Fitted by its own wrap, never cut again by the terminal's: no continuation line holds a
    // lone word ("…add --overwrite if that is" / "what" / "you want").
    let text = String::from_utf8_lossy(&o.stdout);
    for line in text.lines().filter(|l| l.starts_with("               ")) {
        assert!(line.split_whitespace().count() > 1 || line.trim().len() > 20, "a lone word in info:\n{text}");
    }
    let plan = s.path("p.toml");
    std::fs::write(
        &plan,
        "[defaults]\nrw = \"randrw\"\ntime = \"100ms\"\n[matrix]\nqd = [1, 4]\nbs = [\"4k\", \"64k\"]\n",
    )
    .unwrap();
    c.must(&["plan", &plan, &t[0], &t[1], &t[2], "--dry-run"], 0);
    c.must(&["suite", "iometer", &t[0], &t[1], &t[2], "--dql", "32", "--dry-run"], 0);
    let planned = into(&mut c, &["plan", &plan, &t[0], &t[1], &t[2], "--size", "8m"], 0);
    c.must(&["suite"], 0);
    let mut suites = Vec::new();
    for id in SuiteId::ALL {
        let mut args = vec!["suite", id.name()];
        // bsqd sweeps 192 points, each on every target at once: one target keeps it quick (its
        // tables are block size by queue depth, whatever the targets).
        let targets = if id == SuiteId::Bsqd { &t[..1] } else { &t[..] };
        args.extend(targets.iter().map(String::as_str));
        args.extend(size);
        // iometer's tables widen with --dql (a column per DQL and device): the table the issue
        // found 418 columns wide.
        args.extend(match id {
            SuiteId::Bsqd => ["--time", "10ms"],
            SuiteId::Iometer => ["--time", "20ms"],
            _ => ["--time", "50ms"],
        });
        if id == SuiteId::Iometer {
            args.extend(["--dql", "6"]);
        }
        suites.push(into(&mut c, &args, 0));
    }
    let qos_rate = into(
        &mut c,
        &["qos", &t[0], "--objective", "p99<10s", "--qd", "4", "--time", "100ms", "--tolerance", "30", "--judge-busy"],
        0,
    );
    let qos_qd = into(
        &mut c,
        &["qos", &t[1], "--by", "qd", "--max-qd", "4", "--objective", "p99<10s", "--time", "100ms", "--judge-busy"],
        0,
    );
    let act = into(&mut c, &["act", &t[2], "--scale", "0.2", "--time", "2s", "--slice", "1s"], 0);
    let verified = into(&mut c, &["run", &t[0], "--rw", "randrw", "--verify", "--time", "100ms"], 0);
    c.must(&["verify", &verified], 0);

    for d in [&run, &planned, &qos_rate, &qos_qd, &act, &verified].into_iter().chain(&suites) {
        c.must(&["report", d], 0);
    }
    c.must(&["compare", &run, &verified], 0);

    // A suite on a device: its notices (about the device) said once, and none advising deleting it.
    match loop_unavailable() {
        Some(why) => common::skip_part("the suite on a loop device", &why),
        None => {
            let dev = LoopDev::new(&s.0.join("backing"), 32 << 20, None);
            let before = dirs(&base);
            let o = c.must(
                &[
                    "suite",
                    "quick",
                    &dev.dev,
                    "--size",
                    "16m",
                    "--time",
                    "100ms",
                    "--destroy",
                    &dev.dev,
                    "--results",
                    &results,
                ],
                0,
            );
            let quick_dev = new_dir(&base, &before);
            let err = String::from_utf8_lossy(&o.stderr);
            let out = String::from_utf8_lossy(&o.stdout);
            let device_notice = format!("drivelab: {} is a block device", dev.dev);
            assert_eq!(err.lines().filter(|l| l.starts_with(&device_notice)).count(), 1, "said once: {err}");
            let said = err.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(said.contains("above was said once; it concerns points 1-8"), "{err}");
            assert!(!format!("{out}{err}").contains("delete it"), "a device is never to be deleted: {out}{err}");
            c.must(&["compare", &suites[0], &quick_dev], 0);
        }
    }
    assert!(c.ran >= 30, "every command ran: {}", c.ran);
    assert!(c.over.is_empty(), "{} line(s) wider than {WIDTH} columns:\n{}", c.over.len(), c.over.join("\n"));
}
