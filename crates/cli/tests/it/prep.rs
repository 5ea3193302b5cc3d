//! Drives measured as the methodology expects (issue #25, items 0 and 3): a plan that writes a
//! block device fills it whole first (`--no-prep` skips it, and the results say so), a run that
//! only reads a device drivelab never saw written says so (a notice and `prep` in the point),
//! and every round of `--repeat` draws new offsets, so rounds of randwrite reach the whole region.

use crate::common;

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, need_loop, scratch_cwd, stderr, stdout, LoopDev, Scratch};

/// The loop-device tests here one at a time: `losetup --find` of one test holds the free loop
/// device the other is writing open for a moment, and drivelab refuses a device in use.
static LOOPS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// drivelab with its record of written devices in `state` (never this host's own).
fn dl(state: &Scratch, args: &[&str]) -> std::process::Output {
    crate::common::bin()
        .current_dir(scratch_cwd())
        .env("DRIVELAB_STATE_DIR", state.path("state"))
        .args(args)
        .output()
        .expect("run drivelab")
}

/// The results directories under `base`, oldest first.
fn result_dirs(base: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(base).unwrap().flatten().map(|e| e.path()).collect();
    dirs.retain(|d| d.is_dir());
    dirs.sort();
    dirs
}

/// Every point of the newest results directory under `base`, in run order.
fn points(base: &Path) -> Vec<serde_json::Value> {
    let dir = result_dirs(base).pop().expect("a results directory");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("points")).unwrap().flatten().map(|e| e.path()).collect();
    files.retain(|f| f.extension().is_some_and(|e| e == "json"));
    files.sort();
    files.iter().map(|f| json(f)).collect()
}

/// Whether the 4 KiB block at `offset` of `path` holds any non-zero byte.
fn written_at(path: &str, offset: u64) -> bool {
    let f = std::fs::File::open(path).unwrap();
    let mut b = vec![0u8; 4096];
    f.read_exact_at(&mut b, offset).unwrap();
    b.iter().any(|&x| x != 0)
}

/// A plan that reads the device first (as iometer's and most suites' first points do) and
/// then writes only its first MiB.
const READ_THEN_WRITE: &str =
    "[defaults]\ntime = \"300ms\"\nqd = 1\n\n[[step]]\nname = \"read\"\nrw = \"randread\"\n\n\
     [[step]]\nname = \"write\"\nrw = \"write\"\nbs = \"64k\"\nspan = \"1m\"\n";

#[test]
fn a_plan_that_writes_a_device_fills_it_first_and_records_it() {
    need_loop!();
    let _one = LOOPS.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("prep-fill");
    let lo = LoopDev::new(&PathBuf::from(s.path("d.img")), 16 << 20, None);
    let plan = s.path("p.toml");
    std::fs::write(&plan, READ_THEN_WRITE).unwrap();
    let results = s.path("results");
    let o = dl(&s, &["plan", &plan, &lo.dev, "--destroy", &lo.dev, "--results", &results]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(said.contains(&format!("prep: {} is filled first", lo.dev)), "the fill is announced:\n{said}");
    // The plan's own writes cover the first MiB only: what is written beyond it is the fill's.
    for off in [2u64 << 20, 7 << 20, 11 << 20, (16 << 20) - 4096] {
        assert!(written_at(&lo.dev, off), "{} is still unwritten at {off}", lo.dev);
    }
    let pts = points(Path::new(&results));
    let read = &pts[0]["prep"][0];
    assert_eq!((read["device"].as_str(), read["state"].as_str()), (Some(lo.dev.as_str()), Some("filled")), "{read}");
    assert_eq!(read["by"], "prep", "{read}");
    assert!(read.get("unwritten_read").is_none(), "a filled device is no unwritten read: {read}");

    // The fill is recorded for the device: a later read-only run of it, into another results
    // directory, knows it.
    let other = s.path("other");
    let o = dl(&s, &["run", &lo.dev, "--rw", "randread", "--time", "200ms", "--results", &other]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!format!("{}{}", stdout(&o), stderr(&o)).contains("has not seen this device written"));
    let pts = points(Path::new(&other));
    assert_eq!(pts[0]["prep"][0]["state"], "filled", "{}", pts[0]["prep"]);
}

#[test]
fn no_prep_leaves_the_device_and_an_unwritten_read_says_so() {
    need_loop!();
    let _one = LOOPS.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("prep-none");
    let lo = LoopDev::new(&PathBuf::from(s.path("d.img")), 16 << 20, None);
    let plan = s.path("p.toml");
    std::fs::write(&plan, READ_THEN_WRITE).unwrap();
    let results = s.path("results");
    let o = dl(&s, &["plan", &plan, &lo.dev, "--destroy", &lo.dev, "--no-prep", "--results", &results]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(!said.contains("is filled first"), "{said}");
    assert!(said.contains(&format!("--no-prep: {} is not filled", lo.dev)), "{said}");
    assert!(said.contains(&format!("{}: drivelab has not seen this device written", lo.dev)), "{said}");
    for off in [2u64 << 20, 7 << 20, 11 << 20, (16 << 20) - 4096] {
        assert!(!written_at(&lo.dev, off), "--no-prep wrote {} at {off}", lo.dev);
    }
    let pts = points(Path::new(&results));
    let (read, write) = (&pts[0]["prep"][0], &pts[1]["prep"][0]);
    assert_eq!((read["state"].as_str(), read["unwritten_read"].as_bool()), (Some("unwritten"), Some(true)), "{read}");
    assert_eq!(write["no_prep"], true, "the writing point records --no-prep: {write}");
    // The write point wrote the device: a later read knows it was (partly) written.
    let o = dl(&s, &["run", &lo.dev, "--rw", "randread", "--time", "200ms", "--results", &results]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(points(Path::new(&results))[0]["prep"][0]["state"], "partly_written");

    // A read-only run of a fresh device: the notice, the field, and `report` shows it.
    let fresh = LoopDev::new(&PathBuf::from(s.path("e.img")), 16 << 20, None);
    let o = dl(&s, &["run", &fresh.dev, "--rw", "read", "--time", "200ms", "--results", &results]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(format!("{}{}", stdout(&o), stderr(&o)).contains("has not seen this device written"));
    let p = &points(Path::new(&results))[0]["prep"][0];
    assert_eq!((p["state"].as_str(), p["unwritten_read"].as_bool()), (Some("unwritten"), Some(true)), "{p}");
    let dir = result_dirs(Path::new(&results)).pop().unwrap();
    let o = dl(&s, &["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("has not seen this device written"), "report shows it:\n{}", stdout(&o));
}

/// The share of the 4 KiB blocks of `file` that hold a non-zero byte.
fn written_share(file: &str) -> f64 {
    let f = std::fs::File::open(file).unwrap();
    let mut b = vec![0u8; 4096];
    let blocks = f.metadata().unwrap().len() / 4096;
    let written = (0..blocks)
        .filter(|i| {
            f.read_exact_at(&mut b, i * 4096).unwrap();
            b.iter().any(|&x| x != 0)
        })
        .count();
    written as f64 / blocks as f64
}

/// Rounds of 4k randwrite on a 64 MiB file that write 5x its size in all cover >= 99% of its
/// 4 KiB blocks (1 - e^-5 = 99.3%): each round draws new offsets. Before, every round replayed
/// the first round's offsets and five 1x rounds covered what one does (1 - e^-1 = 63%), with
/// `--repeat` and `--steady` alike.
#[test]
fn rounds_of_randwrite_draw_new_offsets_and_cover_the_region() {
    let s = Scratch::new("prep-rounds");
    let plan = s.path("p.toml");
    std::fs::write(&plan, "[defaults]\nrw = \"randwrite\"\nbs = \"4k\"\nqd = 8\nio_size = \"64m\"\ntime = \"600s\"\n")
        .unwrap();
    // Five rounds exactly: --steady's window and round limit both 5.
    let ways: [(&str, &[&str], &str); 2] = [
        ("repeat", &["--repeat", "5"], "/repeats/runs_offset_seed"),
        (
            "steady",
            &["--steady", "--steady-window", "5", "--steady-rounds", "5", "--steady-unreached-ok"],
            "/steady/rounds_offset_seed",
        ),
    ];
    for (name, flags, seeds_at) in ways {
        let file = s.path(&format!("{name}.dat"));
        // Zeros, made here (not drivelab's fill, which writes every block).
        std::fs::write(&file, vec![0u8; 64 << 20]).unwrap();
        let results = s.path(&format!("results-{name}"));
        let mut args = vec!["plan", &plan, &file, "--overwrite", "--results", &results, "-q"];
        args.extend_from_slice(flags);
        let o = drivelab(&args);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let share = written_share(&file);
        assert!(share >= 0.99, "{name}: 5 rounds of 64 MiB of randwrite covered {:.1}% of the file", share * 100.0);
        // Each round's offset seed is recorded, and no two are alike.
        let p = &points(Path::new(&results))[0];
        let seeds: Vec<u64> = p
            .pointer(seeds_at)
            .and_then(|v| v.as_array())
            .unwrap_or_else(|| panic!("{name}: {p}"))
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let mut distinct = seeds.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!((seeds.len(), distinct.len()), (5, 5), "{name}: {seeds:?}");
    }
}

/// A resumed plan dropped the `--no-prep` it was started with and filled the whole device
/// before its remaining points: points of one run measured on differently prepared drives.
#[test]
fn a_resumed_plan_keeps_no_prep_and_refuses_other_point_options() {
    use std::io::BufRead;
    need_loop!();
    let _one = LOOPS.lock().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("prep-resume");
    let lo = LoopDev::new(&PathBuf::from(s.path("d.img")), 16 << 20, None);
    let plan = s.path("p.toml");
    std::fs::write(&plan, READ_THEN_WRITE).unwrap();
    let results = s.path("results");
    // Interrupted as its second point (the write) starts: the event, not a guessed time.
    let mut child = crate::common::bin()
        .current_dir(scratch_cwd())
        .env("DRIVELAB_STATE_DIR", s.path("state"))
        .args(["plan", &plan, &lo.dev, "--destroy", &lo.dev, "--no-prep", "--results", &results])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut sent = false;
    for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok) {
        if !sent && line.starts_with("[2/") {
            // SAFETY: a signal to our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            sent = true;
        }
    }
    assert!(sent && child.wait().unwrap().code() == Some(130), "interrupted at point 2");
    let dir = result_dirs(Path::new(&results)).pop().unwrap();
    let dir = dir.to_str().unwrap();
    // Other point options than the run's are refused, naming its command line.
    let o = dl(&s, &["plan", "--resume", dir, "--destroy", &lo.dev, "--precondition", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("point options it was started with"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--no-prep"), "{}", stderr(&o));
    // Resumed without repeating --no-prep: still not filled.
    let o = dl(&s, &["plan", "--resume", dir, "--destroy", &lo.dev]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!format!("{}{}", stdout(&o), stderr(&o)).contains("is filled first"), "{}", stdout(&o));
    for off in [2u64 << 20, 7 << 20, (16 << 20) - 4096] {
        assert!(!written_at(&lo.dev, off), "the resume filled {} (at {off})", lo.dev);
    }
    let pts = points(Path::new(&results));
    assert_eq!(pts[1]["prep"][0]["no_prep"], true, "{}", pts[1]["prep"]);
}
