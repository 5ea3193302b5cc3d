//! fio's output formats written by drivelab (`drivelab report DIR --fio-format ...`) against
//! fio 3.33's own, for six workloads run by both on one loop device over /dev/shm (one with
//! per-I/O priorities: each direction's `prios`, fio's `clat prio` lines): the JSON
//! documents (json and json+) have the same keys with the same JSON types apart from the
//! documented list below, the terse lines fio's field count, the normal output fio's line
//! shapes. And drivelab reads its fio-format JSON back as it reads fio's, saying who wrote it.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{drivelab_in, need_loop, shape, stderr, stdout, LoopDev, Scratch};

/// Keys drivelab's document has and fio's has not, or the other way round, and why
/// (docs/guide/fio.md, "fio's output formats", lists the same).
const DIFFERENCES: &[(&str, &str)] = &[
    ("/drivelab version", "drivelab's own: who wrote the document"),
    ("/drivelab not measured", "drivelab's own: the figures it does not measure and how they are filled"),
    ("/drivelab not measured/[]", "its entries"),
];

/// The workloads: (name, the job file's text with DEV for the device).
const WORKLOADS: &[(&str, &str)] = &[
    ("randread-qd1", "[global]\nfilename=DEV\ndirect=1\nruntime=1\ntime_based\nsize=32m\n[rr1]\nrw=randread\nbs=4k\nioengine=psync\niodepth=1\n"),
    (
        "randread-qd32-numjobs2",
        "[global]\nfilename=DEV\ndirect=1\nruntime=1\ntime_based\nsize=32m\n[rr32]\nrw=randread\nbs=4k\nioengine=io_uring\niodepth=32\nnumjobs=2\n",
    ),
    ("seqwrite-128k", "[global]\nfilename=DEV\ndirect=1\nruntime=1\ntime_based\nsize=32m\n[sw]\nrw=write\nbs=128k\nioengine=io_uring\niodepth=4\n"),
    (
        "randrw-70-30",
        "[global]\nfilename=DEV\ndirect=1\nruntime=1\ntime_based\nsize=32m\n[rw]\nrw=randrw\nrwmixread=70\nbs=4k\nioengine=io_uring\niodepth=8\n",
    ),
    (
        "two-job-group",
        "[global]\nfilename=DEV\ndirect=1\nruntime=1\ntime_based\nsize=32m\nbs=4k\nioengine=psync\n[reader]\nrw=randread\n[writer]\nrw=randwrite\n",
    ),
    (
        "cmdprio-30",
        "[global]\nfilename=DEV\ndirect=1\nruntime=1\ntime_based\nsize=32m\n[cp]\nrw=randrw\nbs=4k\nioengine=io_uring\niodepth=8\ncmdprio_percentage=30\ncmdprio_class=1\ncmdprio=0\n",
    ),
];

fn fio_installed() -> bool {
    Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn keys(doc: &serde_json::Value, plus: bool) -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    shape(doc, "", &mut s);
    s.into_iter()
        .filter(|k| plus || !k.contains("/bins"))
        .filter(|k| {
            !DIFFERENCES
                .iter()
                .any(|(d, _)| k == d || k.starts_with(&format!("{d} ")) || k.starts_with(&format!("{d}/")))
        })
        .collect()
}

/// fio's output with `--output-format=terse,json+,normal`, taken apart: (terse lines, the
/// json+ document, the normal text).
fn split_fio(text: &str) -> (Vec<String>, serde_json::Value, String) {
    let lines: Vec<&str> = text.lines().collect();
    let terse = lines.iter().filter(|l| l.starts_with("3;")).map(|l| l.to_string()).collect();
    let open = lines.iter().position(|l| *l == "{").expect("fio's JSON document");
    let close = open + lines[open..].iter().position(|l| *l == "}").expect("its end");
    let doc = serde_json::from_str(&lines[open..=close].join("\n")).expect("fio's JSON");
    (terse, doc, lines[close + 1..].join("\n"))
}

/// A normal-output line's shape: digits and numbers folded, spaces squeezed, the time unit
/// folded, cut at the first `=`; a job's header line named JOB.
fn line_shape(l: &str) -> Option<String> {
    if l.trim().is_empty() {
        return None;
    }
    if let Some((_, rest)) = l.split_once(": (groupid=") {
        let _ = rest;
        return Some("JOB: (groupid".to_string());
    }
    // The unit follows the figures by fio's rule (a faster run says nsec where fio said usec).
    let head = l
        .split('=')
        .next()
        .unwrap()
        .replace("(nsec)", "(UNIT)")
        .replace("(usec)", "(UNIT)")
        .replace("(msec)", "(UNIT)");
    let mut out = String::new();
    for c in head.chars() {
        let c = if c.is_ascii_digit() || c == '.' { '#' } else { c };
        if (c == '#' && out.ends_with('#')) || (c == ' ' && out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    Some(out)
}

fn results_dir(base: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(base).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs.pop().expect("a results directory")
}

fn report(cwd: &Path, dir: &Path, format: &str) -> String {
    let o = drivelab_in(cwd, &["report", dir.to_str().unwrap(), "--fio-format", format]);
    assert!(o.status.success(), "--fio-format {format}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn drivelabs_fio_output_has_fios_shape_for_six_workloads() {
    need_loop!();
    if !fio_installed() {
        common::skip("fio is not installed (.ci/run installs it)");
        return;
    }
    let s = Scratch::new("fioout");
    let dev = LoopDev::new(&s.0.join("backing"), 48 << 20, None);
    let (mut fio_shapes, mut dl_shapes) = (BTreeSet::new(), BTreeSet::new());
    for (name, text) in WORKLOADS {
        let job = s.0.join(format!("{name}.fio"));
        std::fs::write(&job, text.replace("DEV", &dev.dev)).unwrap();
        let o =
            Command::new("fio").arg("--output-format=terse,json+,normal").arg(&job).current_dir(&s.0).output().unwrap();
        assert!(o.status.success(), "fio {name}: {}", String::from_utf8_lossy(&o.stderr));
        let (fio_terse, fio_doc, fio_normal) = split_fio(&String::from_utf8_lossy(&o.stdout));

        let base = s.0.join(format!("res-{name}"));
        let o = drivelab_in(
            &s.0,
            &["run", job.to_str().unwrap(), "--destroy", &dev.dev, "--results", base.to_str().unwrap(), "-q"],
        );
        assert!(o.status.success(), "drivelab run {name}: {}", stderr(&o));
        let dir = results_dir(&base);

        for (format, plus) in [("json", false), ("json+", true)] {
            let text = report(&s.0, &dir, format);
            let doc: serde_json::Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} {format}: {e}\n{text}"));
            let (ours, theirs) = (keys(&doc, plus), keys(&fio_doc, plus));
            let only_ours: Vec<_> = ours.difference(&theirs).collect();
            let only_fio: Vec<_> = theirs.difference(&ours).collect();
            assert!(
                only_ours.is_empty() && only_fio.is_empty(),
                "{name} {format}: only drivelab's {only_ours:#?}\nonly fio's {only_fio:#?}"
            );
            assert!(doc.get("drivelab version").is_some() && fio_doc.get("drivelab version").is_none());
            let entries = |d: &serde_json::Value| d["jobs"].as_array().unwrap().len();
            if *name == "two-job-group" {
                assert_eq!((entries(&doc), entries(&fio_doc)), (2, 2), "one entry per job of the group, as fio");
            }
            if *name == "cmdprio-30" {
                let prios = |d: &serde_json::Value| d["jobs"][0]["read"]["prios"].as_array().map_or(0, |p| p.len());
                assert_eq!((prios(&doc), prios(&fio_doc)), (2, 2), "the reads at each priority, as fio");
            }
            if *name == "randread-qd32-numjobs2" {
                assert_eq!((entries(&doc), entries(&fio_doc)), (2, 2), "one entry per numjobs clone, as fio");
                let ops = |k: usize| doc["jobs"][k]["read"]["total_ios"].as_u64().unwrap();
                assert!(ops(0) > 0 && ops(1) > 0, "each clone's own I/O");
            }
        }

        let terse = report(&s.0, &dir, "terse");
        let fields = |l: &str| l.split(';').count();
        // fio appends 9 fields per disk it sampled (the loop device), as drivelab does.
        let disks = |d: &serde_json::Value| d["disk_util"].as_array().map_or(0, |d| d.len());
        let ours = serde_json::from_str::<serde_json::Value>(&report(&s.0, &dir, "json")).unwrap();
        assert_eq!(disks(&ours), 1, "{name}: the loop device's disk_util");
        let fio_fields = fields(&fio_terse[0]) - 9 * disks(&fio_doc) + 9 * disks(&ours);
        for l in terse.lines() {
            assert_eq!(fields(l), fio_fields, "{name}: terse\n{l}\n{}", fio_terse[0]);
        }

        let normal = report(&s.0, &dir, "normal");
        fio_shapes.extend(fio_normal.lines().filter_map(line_shape));
        for line in
            ["x: (groupid=0", "Run status group 0 (all jobs):", "  cpu          : usr=", "     issued rwts: total="]
        {
            let must = line_shape(line).unwrap();
            assert!(normal.lines().filter_map(line_shape).any(|s| s == must), "{name}: no {must:?} in\n{normal}");
        }
        dl_shapes.extend(normal.lines().filter_map(line_shape));
    }
    let foreign: Vec<_> = dl_shapes.difference(&fio_shapes).collect();
    assert!(foreign.is_empty(), "normal-output lines fio never writes: {foreign:#?}\nfio's: {fio_shapes:#?}");
}

#[test]
fn drivelabs_fio_json_reads_back_saying_drivelab_wrote_it() {
    let s = Scratch::new("fioout-back");
    let job = s.0.join("null.fio");
    std::fs::write(&job, "[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1g\nruntime=1\ntime_based\n").unwrap();
    let base = s.0.join("res");
    let o = drivelab_in(&s.0, &["run", job.to_str().unwrap(), "--results", base.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = results_dir(&base);
    let text = report(&s.0, &dir, "json+");
    let file = s.0.join("out.json");
    std::fs::write(&file, &text).unwrap();
    let o = drivelab_in(&s.0, &["report", file.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let back = stdout(&o);
    assert!(back.contains("written by drivelab"), "{back}");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let bins = doc["jobs"][0]["read"]["clat_ns"]["bins"].as_object().expect("json+ has bins");
    let ios = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert_eq!(bins.values().map(|c| c.as_u64().unwrap()).sum::<u64>(), ios, "the bins count every I/O");
    // fio's own tool reads the bins and checks its CSV against the document.
    let tool = Path::new("/usr/bin/fio_jsonplus_clat2csv");
    if !tool.is_file() {
        common::skip_part("fio_jsonplus_clat2csv", "fio's tools are not installed (.ci/run installs fio)");
        return;
    }
    for extra in [None, Some("--validate")] {
        // Debian's python3 (with python3-six, .ci/run), whatever python3 is first on PATH.
        let o = Command::new("/usr/bin/python3")
            .arg(tool)
            .arg(&file)
            .arg(s.0.join("clat"))
            .args(extra)
            .current_dir(&s.0)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let csv = std::fs::read_to_string(s.0.join("clat_job0")).unwrap();
    let rows: u64 = csv.lines().skip(1).map(|l| l.split(',').nth(4).unwrap().trim().parse::<u64>().unwrap_or(0)).sum();
    assert_eq!(rows, ios, "fio's tool found every I/O in the bins");
}

#[test]
fn fio_format_is_refused_with_the_fix() {
    let s = Scratch::new("fioout-bad");
    let o = drivelab_in(&s.0, &["report", "/nonexistent", "--fio-format", "xml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("json+"), "{}", stderr(&o));
    let o = drivelab_in(&s.0, &["report", "/a", "/b", "--fio-format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("exactly one DIR"), "{}", stderr(&o));
}

/// A job file's group of two jobs on the null engine, exported in fio's JSON.
fn group_json(s: &Scratch, tag: &str, group_reporting: bool) -> serde_json::Value {
    let job = s.0.join(format!("{tag}.fio"));
    let flag = if group_reporting { "group_reporting\n" } else { "" };
    let text = format!("[global]\nioengine=null\nbs=4k\nsize=1g\nruntime=1\ntime_based\n{flag}[reader]\nrw=randread\n[writer]\nrw=randwrite\n");
    std::fs::write(&job, text).unwrap();
    let base = s.0.join(format!("res-{tag}"));
    let o = drivelab_in(&s.0, &["run", job.to_str().unwrap(), "--results", base.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&report(&s.0, &results_dir(&base), "json")).unwrap()
}

#[test]
fn a_group_writes_one_entry_per_job_or_one_with_group_reporting() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fioout-group");
    let each = group_json(&s, "each", false);
    let jobs = each["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["jobname"].as_str().unwrap()).collect();
    assert_eq!(names, ["reader", "writer"]);
    assert_eq!(jobs[0]["job options"], serde_json::json!({"rw": "randread"}));
    assert_eq!(jobs[1]["job options"], serde_json::json!({"rw": "randwrite"}));
    assert_eq!(each["global options"]["bs"], "4k");
    assert!(each["global options"].get("time_based").is_none(), "flags are left out, as fio does");
    assert!(jobs[0]["read"]["total_ios"].as_u64().unwrap() > 0 && jobs[0]["write"]["total_ios"] == 0);
    assert!(jobs[1]["write"]["total_ios"].as_u64().unwrap() > 0 && jobs[1]["read"]["total_ios"] == 0);
    assert_eq!(jobs[0]["groupid"], jobs[1]["groupid"]);

    let summed = group_json(&s, "summed", true);
    let jobs = summed["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["jobname"], "reader", "fio names a summed group after its first job");
    assert!(jobs[0]["read"]["total_ios"].as_u64().unwrap() > 0 && jobs[0]["write"]["total_ios"].as_u64().unwrap() > 0);
}
