//! fio 3.33's own examples (issue #27, item 5): every file of `examples/` in fio's source
//! either runs through `drivelab run FILE TARGET`, shortened by `--cap-time`/`--cap-size` (the
//! file is never edited; its files and devices are replaced by a scratch file), or is refused
//! by FILE:LINE with the words the table gives. The test fails when any outcome changes, and
//! prints the counts: files, files whose engines drivelab runs or maps, running, refused.

mod common;

use std::path::{Path, PathBuf};

use common::{drivelab_in, json, skip, stderr, Scratch};

#[derive(Debug)]
enum Outcome {
    /// Runs, shortened: every point moves I/O without errors.
    Runs,
    /// Refused at this line; the message holds each `|`-separated phrase.
    Refused(usize, &'static str),
}
use Outcome::*;

/// Every example, in name order, with its outcome today. Files refused for an option another
/// helper of issue #27 adds are marked; the coordinator moves them to `Runs` at merge.
const EXAMPLES: &[(&str, Outcome)] = &[
TABLE];

/// Engines drivelab runs or maps (a file naming no engine runs fio's default, psync).
const STORAGE_ENGINES: &[&str] =
    &["sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "io_uring_cmd", "posixaio", "null"];

fn examples_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio-src/fio-3.33/examples");
    d.is_dir().then_some(d)
}

/// The engines a job file names (`ioengine=` lines, comments aside).
fn engines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with(';') && !l.starts_with('#'))
        .filter_map(|l| l.split_once('=').filter(|(k, _)| k.trim() == "ioengine").map(|(_, v)| v.trim().to_string()))
        .collect()
}

/// Whether every engine the file names is one drivelab runs or maps.
fn storage(text: &str) -> bool {
    engines(text).iter().all(|e| STORAGE_ENGINES.contains(&e.as_str()))
}

/// What went differently from `expect` for example `name` (None: as the table says).
fn check(dir: &Path, work: &Path, name: &str, expect: &Outcome) -> Option<String> {
    let file = dir.join(name);
    let target = work.join("target.dat");
    std::fs::write(&target, vec![0u8; 4 << 20]).unwrap();
    let args = [
        "run",
        file.to_str().unwrap(),
        target.to_str().unwrap(),
        "--overwrite",
        "--cap-time",
        "100ms",
        "--cap-size",
        "1m",
        "--results",
        "res",
        "-q",
    ];
    let o = drivelab_in(work, &args);
    let err = stderr(&o);
    match expect {
        Runs => {
            if !o.status.success() {
                return Some(format!("{name}: expected to run, got {:?}: {err}", o.status.code()));
            }
            let res: Vec<PathBuf> = std::fs::read_dir(work.join("res")).unwrap().map(|e| e.unwrap().path()).collect();
            let run = std::fs::read_to_string(res[0].join("run.json")).unwrap();
            if !run.contains("--cap-time 100ms --cap-size 1048576: shortened run") {
                return Some(format!("{name}: the saved run does not say it was shortened"));
            }
            let mut points: Vec<PathBuf> =
                std::fs::read_dir(res[0].join("points")).unwrap().map(|e| e.unwrap().path()).collect();
            points.retain(|p| p.extension().is_some_and(|e| e == "json"));
            for p in &points {
                let p = json(p);
                let (spec, r) = (&p["point"]["spec"], &p["result"]);
                if spec["time_ns"].as_u64().is_none_or(|t| t > 100_000_000) || spec["span_bytes"].as_u64() > Some(1 << 20)
                {
                    return Some(format!("{name}: a point ran beyond the cap: {spec}"));
                }
                if r["total"]["ops"].as_u64() == Some(0) || !r["errors"].as_array().unwrap().is_empty() {
                    return Some(format!("{name}: {} moved nothing or failed: {}", p["point"]["label"], r["errors"]));
                }
            }
            (points.is_empty()).then(|| format!("{name}: no point saved"))
        }
        Refused(line, words) => {
            let at = format!("{name}:{line}: ");
            if o.status.code() != Some(2) || !err.contains(&at) || words.split('|').any(|w| !err.contains(w)) {
                return Some(format!("{name}: expected a refusal at {at}with '{words}', got {:?}: {err}", o.status.code()));
            }
            work.join("res").exists().then(|| format!("{name}: a refused file left a results directory"))
        }
    }
}

#[test]
fn every_example_of_fio_runs_shortened_or_is_refused_as_the_table_says() {
    let Some(dir) = examples_dir() else {
        skip("fio 3.33's source is not downloaded: run scripts/fio-src");
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".fio"))
        .collect();
    files.sort();
    let listed: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
    assert_eq!(files, listed, "the table lists every example of fio 3.33, in name order");
    let s = Scratch::new("fio-examples");
    let mut changed = Vec::new();
    let (mut storage_files, mut running, mut storage_running) = (0, 0, 0);
    for (name, expect) in EXAMPLES {
        let work = s.0.join(name.trim_end_matches(".fio"));
        std::fs::create_dir_all(&work).unwrap();
        changed.extend(check(&dir, &work, name, expect));
        let is_storage = storage(&std::fs::read_to_string(dir.join(name)).unwrap());
        let runs = matches!(expect, Runs);
        storage_files += usize::from(is_storage);
        running += usize::from(runs);
        storage_running += usize::from(runs && is_storage);
        let _ = std::fs::remove_dir_all(&work);
    }
    eprintln!(
        "fio 3.33 examples: {} files, {storage_files} with engines drivelab runs or maps, {running} running \
         ({storage_running} of those {storage_files}), {} refused",
        EXAMPLES.len(),
        EXAMPLES.len() - running
    );
    assert!(changed.is_empty(), "outcomes changed:\n{}", changed.join("\n"));
}

#[test]
fn engines_are_read_from_ioengine_lines_outside_comments() {
    let text = "; --ioengine=xnvme\n[global]\nioengine=libaio\n[j]\n# ioengine=rbd\nioengine = io_uring\n";
    assert_eq!(engines(text), ["libaio", "io_uring"]);
    assert!(storage(text) && storage("[j]\nrw=read\n"));
    assert!(!storage("[j]\nioengine=rbd\n"));
}
