//! fio job files (issue #14): the corpus in `tests/fio-jobs/` (written to match fio's own
//! examples) runs through `drivelab run JOB.fio`, each group of jobs a point; what drivelab does
//! not do is refused by FILE:LINE with nothing created; `--var` sweeps a job file; a job file
//! runs on a loop device named on the command line. Where fio is installed, each job's I/O
//! pattern (share of reads, mean transfer size, bytes moved by a size-bound job) is measured
//! from both tools' saved results and held against what the job asks for.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab_in, json, need_loop, results_dir, saved_points, stderr, stdout, LoopDev, Scratch};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fio-jobs");

fn corpus(name: &str) -> String {
    format!("{CORPUS}/{name}")
}

/// What one group of jobs did, as either tool saved it.
#[derive(Debug)]
struct Group {
    jobs: Vec<String>,
    read_ops: u64,
    ops: u64,
    bytes: u64,
}

fn drivelab_groups(dir: &Path) -> Vec<(Group, serde_json::Value)> {
    saved_points(dir)
        .into_iter()
        .map(|p| {
            let r = &p["result"];
            let g = Group {
                jobs: p["point"]["label"].as_str().unwrap().split(" + ").map(str::to_string).collect(),
                read_ops: r["read"]["ops"].as_u64().unwrap(),
                ops: r["total"]["ops"].as_u64().unwrap(),
                bytes: r["total"]["bytes"].as_u64().unwrap(),
            };
            (g, p)
        })
        .collect()
}

fn fio_groups(out: &serde_json::Value) -> Vec<Group> {
    let mut groups: Vec<(u64, Group)> = Vec::new();
    for j in out["jobs"].as_array().unwrap() {
        let id = j["groupid"].as_u64().unwrap();
        let ios = |d: &str| j[d]["total_ios"].as_u64().unwrap();
        let bytes = |d: &str| j[d]["io_bytes"].as_u64().unwrap();
        let name = j["jobname"].as_str().unwrap().to_string();
        if groups.last().is_none_or(|(g, _)| *g != id) {
            groups.push((id, Group { jobs: Vec::new(), read_ops: 0, ops: 0, bytes: 0 }));
        }
        let g = &mut groups.last_mut().unwrap().1;
        if !g.jobs.contains(&name) {
            g.jobs.push(name);
        }
        g.read_ops += ios("read");
        g.ops += ios("read") + ios("write");
        g.bytes += bytes("read") + bytes("write");
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Run `drivelab run FILE` in a fresh directory `cwd`; its results directory.
fn run_drivelab(cwd: &Path, file: &str, extra: &[&str]) -> PathBuf {
    let base = cwd.join("results");
    let mut args = vec!["run", file, "--results", base.to_str().unwrap(), "-q"];
    args.extend_from_slice(extra);
    let o = drivelab_in(cwd, &args);
    assert!(o.status.success(), "{file}: {}", stderr(&o));
    results_dir(&base)
}

/// Groups of jobs in a job file: a job with `stonewall` starts the next.
fn expected_groups(file: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    let sections: Vec<&str> = text.split("\n[").skip(1).filter(|s| !s.starts_with("global]")).collect();
    1 + sections.iter().skip(1).filter(|s| s.lines().any(|l| l.trim() == "stonewall")).count()
}

const RUNNABLE: &[&str] = &[
    "fio-rand-RW.fio",
    "fio-seq-read.fio",
    "fio-seq-write.fio",
    "ssd-test.fio",
    "iometer-file-access-server.fio",
    "rand-zones.fio",
    "zipf.fio",
    "null.fio",
    "aio-read.fio",
    "poisson-rate-submission.fio",
    "fixed-rate-submission.fio",
    "tiobench-example.fio",
    "basic-verify.fio",
    "backwards-read.fio",
    "disk-zone-profile.fio",
];

#[test]
fn every_job_file_of_the_corpus_runs_as_one_point_per_group() {
    if !crate::common::full_tier() {
        return;
    }
    for name in RUNNABLE {
        let s = Scratch::new(&format!("fiojob-{}", name.trim_end_matches(".fio")));
        let dir = run_drivelab(&s.0, &corpus(name), &[]);
        let points = saved_points(&dir);
        assert_eq!(points.len(), expected_groups(&corpus(name)), "{name}");
        for p in &points {
            let r = &p["result"];
            assert!(r["total"]["ops"].as_u64().unwrap() > 0, "{name}: {}", p["point"]["label"]);
            assert!(r["errors"].as_array().unwrap().is_empty(), "{name}: {}", r["errors"]);
        }
        let run = json(&dir.join("run.json"));
        assert_eq!(run["kind"], "plan", "{name}");
    }
}

#[test]
fn a_group_of_jobs_runs_together_and_its_result_is_every_jobs_io() {
    let s = Scratch::new("fiojob-group");
    let dir = run_drivelab(&s.0, &corpus("aio-read.fio"), &[]);
    let points = saved_points(&dir);
    assert_eq!(points.len(), 1);
    let p = &points[0];
    assert_eq!(p["point"]["label"], "file1 + file2 + file3 + file4");
    let depths: Vec<u64> = std::iter::once(p["point"]["spec"]["qd"].as_u64().unwrap())
        .chain(p["point"]["concurrent"].as_array().unwrap().iter().map(|c| c["spec"]["qd"].as_u64().unwrap()))
        .collect();
    assert_eq!(depths, [4, 32, 8, 16]);
    let r = &p["result"];
    let per_target: Vec<&serde_json::Value> = r["per_target"].as_array().unwrap().iter().collect();
    assert_eq!(per_target.len(), 4, "one entry per job's file");
    let sum: u64 = per_target.iter().map(|t| t["total"]["ops"].as_u64().unwrap()).sum();
    assert_eq!(sum, r["total"]["ops"].as_u64().unwrap());
    // Size-bound: each job reads its 16 MiB once, in 128 KiB reads.
    assert_eq!(r["total"]["bytes"].as_u64().unwrap(), (4 * 16) << 20);
    let hist: u64 =
        r["total"]["lat_ns"]["histogram"]["buckets"].as_array().unwrap().iter().map(|b| b[1].as_u64().unwrap()).sum();
    assert_eq!(hist, sum, "the merged histogram holds every job's I/Os");
    assert!(
        r["notices"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with("4 jobs ran together")),
        "{}",
        r["notices"]
    );
    for f in ["file1.0.0", "file2.0.0", "file3.0.0", "file4.0.0"] {
        assert_eq!(std::fs::metadata(s.0.join(f)).unwrap().len(), 16 << 20, "fio's default file name {f}");
    }
}

#[test]
fn what_drivelab_does_not_do_is_refused_by_file_and_line_with_nothing_created() {
    {
        let (name, line, says) = ("zbd.fio", 2, "it needs zonesize");
        let s = Scratch::new("fiojob-refused");
        let o = drivelab_in(&s.0, &["run", &corpus(name), "--results", "res"]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("{name}:{line}: ")) && e.contains(says), "{name}: {e}");
        let left: Vec<_> = std::fs::read_dir(&s.0).unwrap().collect();
        assert!(left.is_empty(), "{name}: nothing is created: {left:?}");
    }
    // latency_target is taken now: the job runs, its search's depth in the result.
    let s = Scratch::new("fiojob-latency");
    let o = drivelab_in(&s.0, &["run", &corpus("latency-profile.fio"), "--results", "res", "-q"]);
    assert!(o.status.success(), "latency-profile.fio: {}", stderr(&o));
    let p = &common::saved_points(&common::results_dir(&s.0.join("res")))[0];
    assert!(p["result"]["latency_depth"].as_u64().is_some_and(|d| (1..=128).contains(&d)), "{}", p["result"]);
    let s = Scratch::new("fiojob-flags");
    let o = drivelab_in(&s.0, &["run", &corpus("null.fio"), "--qd", "8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--qd with the job file"), "{}", stderr(&o));
    let o = drivelab_in(&s.0, &["plan", &corpus("null.fio"), "--var", "BS"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--var BS"), "{}", stderr(&o));
}

#[test]
fn a_variable_given_a_list_sweeps_the_job_file() {
    let s = Scratch::new("fiojob-vars");
    let job = s.0.join("sweep.fio");
    std::fs::write(&job, "[seq]\nioengine=null\nrw=read\nbs=${BS}\nsize=${SIZE}\nthinktime=0\n").unwrap();
    let file = job.to_str().unwrap();
    let o = drivelab_in(&s.0, &["plan", file, "--var", "BS=4k,64k", "--var", "SIZE=1m..4m x2", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("plan sweep: 6 points"), "{out}");
    assert!(out.contains("seq BS=64k SIZE=4m") && out.contains("bs=64k"), "{out}");
    let o = drivelab_in(&s.0, &["plan", file, "--var", "BS=4k,64k", "--var", "SIZE=1m,2m", "--results", "res", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let points = saved_points(&results_dir(&s.0.join("res")));
    let got: Vec<(String, u64, u64)> = points
        .iter()
        .map(|p| {
            let r = &p["result"];
            (
                p["point"]["label"].as_str().unwrap().to_string(),
                r["total"]["bytes"].as_u64().unwrap(),
                r["total"]["bytes"].as_u64().unwrap() / r["total"]["ops"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("seq BS=4k SIZE=1m".to_string(), 1 << 20, 4096),
            ("seq BS=4k SIZE=2m".to_string(), 2 << 20, 4096),
            ("seq BS=64k SIZE=1m".to_string(), 1 << 20, 65536),
            ("seq BS=64k SIZE=2m".to_string(), 2 << 20, 65536),
        ]
    );
    // Unset, the variable is refused with its line (fio would put nothing there).
    let o = drivelab_in(&s.0, &["plan", file, "--dry-run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("sweep.fio:4: ") && stderr(&o).contains("--var BS=VALUE"), "{}", stderr(&o));
}

#[test]
fn a_job_file_runs_on_a_block_device_named_for_destruction_and_only_then() {
    need_loop!();
    let s = Scratch::new("fiojob-loop");
    let dev = LoopDev::new(&s.0.join("backing"), 64 << 20, None);
    let job = corpus("ssd-test.fio");
    let o = drivelab_in(&s.0, &["run", &job, &dev.dev, "--results", "res", "-q"]);
    assert_eq!(o.status.code(), Some(2), "writes need --destroy: {}", stderr(&o));
    assert!(stderr(&o).contains("--destroy"), "{}", stderr(&o));
    assert!(std::fs::read(s.0.join("backing")).unwrap().iter().all(|&b| b == 0), "nothing was written");
    let dir = run_drivelab(&s.0, &job, &[&dev.dev, "--destroy", &dev.dev]);
    let points = saved_points(&dir);
    assert_eq!(points.len(), 4);
    for p in &points {
        assert_eq!(p["point"]["targets"][0], dev.dev.as_str());
        assert!(p["result"]["total"]["ops"].as_u64().unwrap() > 0);
    }
    assert!(std::fs::read(s.0.join("backing")).unwrap().iter().any(|&b| b != 0), "the writes reached the device");
}

/// `fio` if it is installed.
fn fio() -> Option<String> {
    std::process::Command::new("fio")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "fio".into())
}

/// The job file with `norandommap` in every job: random offsets drawn independently, by both
/// (without it both visit each block once per pass and shorten large transfers to fit the gaps,
/// which makes the transfer sizes of a bssplit depend on the order blocks were drawn in).
fn with_norandommap(file: &str, to: &Path) -> PathBuf {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if line.starts_with('[') && !line.starts_with("[global]") {
            out.push_str("norandommap\n");
        }
    }
    let path = to.join(Path::new(file).file_name().unwrap());
    std::fs::write(&path, out).unwrap();
    path
}

/// The share of reads and the mean transfer size a group's first job asks for, and their
/// standard deviations per I/O.
fn asked(point: &serde_json::Value) -> (f64, f64, f64) {
    let spec = &point["point"]["spec"];
    let read = spec["read_pct"].as_f64().unwrap() / 100.0;
    let sizes: Vec<(f64, f64)> = spec["bs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["bytes"].as_f64().unwrap(), b["pct"].as_f64().unwrap() / 100.0))
        .collect();
    let mean: f64 = sizes.iter().map(|(b, p)| b * p).sum();
    let var: f64 = sizes.iter().map(|(b, p)| p * (b - mean).powi(2)).sum();
    (read, mean, var.sqrt())
}

#[test]
fn each_job_makes_the_io_pattern_fio_makes() {
    if !crate::common::full_tier() {
        return;
    }
    let Some(fio) = fio() else {
        common::skip("fio is not installed (apt-get install fio)");
        return;
    };
    for name in
        ["fio-rand-RW.fio", "iometer-file-access-server.fio", "tiobench-example.fio", "aio-read.fio", "ssd-test.fio"]
    {
        let s = Scratch::new(&format!("fiojob-vs-{}", name.trim_end_matches(".fio")));
        let mine = s.0.join("drivelab");
        let theirs = s.0.join("fio");
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::create_dir_all(&theirs).unwrap();
        let job = with_norandommap(&corpus(name), &theirs);
        let dir = run_drivelab(&mine, with_norandommap(&corpus(name), &mine).to_str().unwrap(), &[]);
        let o = std::process::Command::new(&fio)
            .current_dir(&theirs)
            .args(["--output-format=json", job.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "fio {name}: {}", stderr(&o));
        let out: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fio's JSON");
        let ours = drivelab_groups(&dir);
        let fios = fio_groups(&out);
        assert_eq!(ours.len(), fios.len(), "{name}: groups");
        for ((g, point), f) in ours.iter().zip(&fios) {
            assert_eq!(g.jobs, f.jobs, "{name}: the group's jobs");
            let (read, mean, sd) = asked(point);
            for (who, x) in [("drivelab", g), ("fio", f)] {
                let n = x.ops as f64;
                let share = x.read_ops as f64 / n;
                let room = 4.0 * (read * (1.0 - read) / n).sqrt() + 1e-9;
                assert!((share - read).abs() <= room, "{name} {who}: read share {share} against {read} ± {room}");
                let bs = x.bytes as f64 / n;
                let room = 4.0 * sd / n.sqrt() + 1e-9;
                assert!((bs - mean).abs() <= room, "{name} {who}: mean transfer {bs} against {mean} ± {room}");
            }
            let timed = point["point"]["spec"]["time_ns"].is_u64();
            if !timed {
                // Each job ends with the transfer that reaches its size: at most one largest
                // transfer past it per job thread, in either tool.
                let spec = &point["point"]["spec"];
                let max_bs = spec["bs"].as_array().unwrap().iter().map(|b| b["bytes"].as_u64().unwrap()).max().unwrap();
                let threads = f.jobs.len() as u64 * spec["jobs"].as_u64().unwrap();
                assert!(
                    g.bytes.abs_diff(f.bytes) <= max_bs * threads,
                    "{name}: a size-bound group moves the same bytes in both tools: {} against {}",
                    g.bytes,
                    f.bytes
                );
            }
        }
    }
}

/// fio's random map as fio keeps it: a size-bound bssplit job (Iometer's file server pattern)
/// without `norandommap` visits each block once and cuts a large transfer short where it reaches
/// a visited block, so both tools move the job's size in the same number of I/Os (3,506 in fio,
/// 3,561 here when measured: the offsets come from different generators) and the same mean
/// transfer (4,785 and 4,711 bytes, where the bssplit asks 11,346).
#[test]
fn fios_random_map_cuts_transfers_as_fio_does() {
    let Some(fio) = fio() else {
        common::skip("fio is not installed (apt-get install fio)");
        return;
    };
    let name = "iometer-file-access-server.fio";
    let s = Scratch::new("fiojob-randommap");
    let (mine, theirs) = (s.0.join("drivelab"), s.0.join("fio"));
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::create_dir_all(&theirs).unwrap();
    let dir = run_drivelab(&mine, &corpus(name), &[]);
    let o = std::process::Command::new(&fio)
        .current_dir(&theirs)
        .args(["--output-format=json", &corpus(name)])
        .output()
        .unwrap();
    assert!(o.status.success(), "fio {name}: {}", stderr(&o));
    let out: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fio's JSON");
    let (ours, fios) = (&drivelab_groups(&dir)[0].0, &fio_groups(&out)[0]);
    assert_eq!(ours.bytes, fios.bytes, "16 MiB each");
    let (a, b) = (ours.ops as f64, fios.ops as f64);
    assert!((a - b).abs() / b < 0.06, "I/Os: drivelab {a}, fio {b}");
    // Without the map's cuts the mean would be near the asked 11,346 bytes: 1,450 I/Os.
    assert!(a > 2.0 * 1450.0, "drivelab's transfers were cut at visited blocks: {a} I/Os");
}

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fio-jobs-real");

/// `; ENV K=V ...` lines of a real job file: the environment its source's wrapper sets.
fn job_env(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("; ENV "))
        .flat_map(|l| l.split_whitespace())
        .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect()
}

/// Per fio job entry: its name and whether it read and wrote.
fn entries(doc: &serde_json::Value) -> Vec<(String, bool, bool)> {
    let ios = |j: &serde_json::Value, d: &str| j[d]["total_ios"].as_u64().unwrap_or(0);
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["jobname"].as_str().unwrap().to_string(), ios(j, "read") > 0, ios(j, "write") > 0))
        .collect()
}

/// Files a run left in its working directory (drivelab's data directory aside).
fn left(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "xdg")
        .collect();
    names.sort();
    names
}

/// Real job files from public sources (`tests/fio-jobs-real/`, each with its source and what was
/// scaled down in its first lines) run unchanged as `drivelab fio FILE`: exit 0, nothing on
/// stderr, every job did I/O; where fio is installed, fio runs the same file in a directory of
/// its own and both list the same jobs doing the same directions and leave the same files.
#[test]
fn every_real_job_file_runs_as_fio_runs_it() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(REAL)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.push(Path::new(REAL).join("longhorn-kbench/iops.fio"));
    files.sort();
    assert!(files.len() >= 8, "{} real job files", files.len());
    let fio = std::process::Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.lines().next().unwrap().starts_with("; SOURCE https://"), "{} names its source", f.display());
        let env = job_env(&text);
        let run = |tool: Option<&str>| -> (serde_json::Value, Vec<String>, String) {
            let s = Scratch::new(&format!("fio-real-{}-{}", f.file_stem().unwrap().to_string_lossy(), tool.is_some()));
            let mut c = match tool {
                Some(t) => std::process::Command::new(t),
                None => {
                    let mut c = common::bin();
                    c.arg("fio").env("XDG_DATA_HOME", s.0.join("xdg"));
                    c
                }
            };
            let o = c.current_dir(&s.0).envs(env.iter().cloned()).arg(f).arg("--output-format=json").output().unwrap();
            let who = tool.unwrap_or("drivelab");
            assert!(o.status.success(), "{who} {}: {:?}\n{}", f.display(), o.status, stderr(&o));
            assert_eq!(crate::common::fio_stderr(&o), "", "{who} {}: fio's contract, nothing on stderr", f.display());
            // fio writes its own words ("fio: verification read phase will never start ...") to
            // stdout before the document, and so does drivelab.
            let out = stdout(&o);
            let at = if out.starts_with('{') { 0 } else { out.find("\n{").map_or(0, |at| at + 1) };
            let doc: serde_json::Value =
                serde_json::from_str(&out[at..]).unwrap_or_else(|e| panic!("{who} {}: {e}\n{out}", f.display()));
            (doc, left(&s.0), out[..at].to_string())
        };
        let (ours, our_files, our_words) = run(None);
        let ours = entries(&ours);
        assert!(!ours.is_empty() && ours.iter().all(|(_, r, w)| *r || *w), "{}: {ours:?}", f.display());
        if fio {
            let (theirs, their_files, their_words) = run(Some("fio"));
            assert_eq!(our_words, their_words, "{}: fio's words before the document", f.display());
            // fio's verify read phase of a time_based writer runs or not by its timing (the
            // bronze job of sarum90's file read back in most runs, not in one under load):
            // there, only the jobs and their writes are compared.
            let timed_verify = std::fs::read_to_string(f).unwrap().contains("verify=");
            let strip = |e: Vec<(String, bool, bool)>| -> Vec<(String, bool, bool)> {
                e.into_iter().map(|(n, r, w)| (n, r && !timed_verify, w)).collect()
            };
            assert_eq!(strip(ours.clone()), strip(entries(&theirs)), "{}: jobs and their directions", f.display());
            // Every file fio leaves, its verify state files (verify_state_save) included.
            assert_eq!(our_files, their_files, "{}: the files each left", f.display());
        }
    }
}
