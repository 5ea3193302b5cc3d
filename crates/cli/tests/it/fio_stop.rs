//! fio's options that end a job early (issue #27, round 2), through the binary on the null
//! target: `steadystate` ends a job that attains (the result says `ended: steady`, not
//! interrupted) and lets one that cannot run to its time (attained false), and fio's JSON
//! `steadystate` block has fio 3.33's keys; `rate_iops_min` fails a job slower than it
//! (non-zero exit, `ended: rate_min`); `exitall` ends a group's other jobs when its first ends.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{drivelab_in, shape, skip, stderr, stdout, Scratch};

const S: u64 = 1_000_000_000;

fn points(base: &Path) -> Vec<serde_json::Value> {
    let dir: PathBuf = std::fs::read_dir(base).unwrap().next().unwrap().unwrap().path();
    common::saved_points(&dir)
}

/// Run `text` as a job file in `s`; (exit code, the saved points, the results dir).
fn run(s: &Scratch, text: &str) -> (Option<i32>, Vec<serde_json::Value>, PathBuf, String) {
    let job = s.0.join("job.fio");
    std::fs::write(&job, text).unwrap();
    let o = drivelab_in(&s.0, &["run", job.to_str().unwrap(), "--results", "res"]);
    let res = s.0.join("res");
    let dir = std::fs::read_dir(&res).unwrap().next().unwrap().unwrap().path();
    (o.status.code(), points(&res), dir, format!("{}{}", stdout(&o), stderr(&o)))
}

const STEADY: &str = "[global]\nioengine=null\nsize=1g\nrw=read\nbs=4k\ntime_based\n[steady]\nruntime=30\n\
                      rate_iops=2000\nss=iops:20%\nss_dur=2\n";

#[test]
fn a_job_that_attains_steady_state_ends_early_and_writes_fios_block() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fio-stop-steady");
    let (code, points, dir, out) = run(&s, STEADY);
    assert_eq!(code, Some(0), "{out}");
    let r = &points[0]["result"];
    assert_eq!(r["ended"], "steady", "{out}");
    assert_eq!(r["interrupted"], false);
    let ran = r["runtime_ns"].as_u64().unwrap();
    assert!(ran > 0 && ran < 30 * S / 2, "ended well before its 30 s: {ran} ns");
    let ss = &r["steadystate"];
    assert_eq!((ss["attained"].as_bool(), ss["duration_s"].as_u64()), (Some(true), Some(2)), "{ss}");
    assert_eq!(ss["ss"], "iops:20.000000%");
    assert_eq!(ss["iops"].as_array().unwrap().len(), 2);

    // fio's JSON: the block's keys and types are fio 3.33's, for the same job.
    let o = drivelab_in(&s.0, &["report", dir.to_str().unwrap(), "--fio-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ours = &doc["jobs"][0]["steadystate"];
    assert_eq!(ours["attained"], 1, "{ours}");
    let mut our_keys = BTreeSet::new();
    shape(ours, "", &mut our_keys);
    if Command::new("fio").arg("--version").output().is_err() {
        return skip("fio is not installed: the steadystate block is not compared with fio's");
    }
    let text = STEADY.replace("runtime=30", "runtime=4");
    std::fs::write(s.0.join("fio.fio"), text).unwrap();
    let o = Command::new("fio").args(["--output-format=json", "fio.fio"]).current_dir(&s.0).output().unwrap();
    let t = String::from_utf8_lossy(&o.stdout).to_string();
    let fio: serde_json::Value = serde_json::from_str(&t[t.find('{').unwrap()..]).unwrap();
    let mut fio_keys = BTreeSet::new();
    shape(&fio["jobs"][0]["steadystate"], "", &mut fio_keys);
    assert_eq!(our_keys, fio_keys, "the steadystate block as fio writes it");
    let last = |d: &serde_json::Value| d["jobs"][0].as_object().unwrap().keys().next_back().cloned();
    assert_eq!(last(&doc), last(&fio), "fio writes the block last in the job's entry");
}

#[test]
fn a_job_that_cannot_attain_runs_to_its_time_and_says_so() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fio-stop-never");
    // A deviation strictly below 0% is never met.
    let (code, points, _, out) =
        run(&s, "[never]\nioengine=null\nsize=1g\nrw=read\nbs=4k\ntime_based\nruntime=2\nss=iops:0%\nss_dur=1\n");
    assert_eq!(code, Some(0), "{out}");
    let r = &points[0]["result"];
    assert!(r.get("ended").is_none(), "ran to its end: {}", r["ended"]);
    assert_eq!(r["steadystate"]["attained"], false);
    assert!(r["runtime_ns"].as_u64().unwrap() >= 2 * S * 9 / 10, "its whole time");
}

#[test]
fn a_job_below_its_minimum_rate_fails() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fio-stop-ratemin");
    // 10 ms of think time per I/O: about 100 IOPS, below the 1000 asked.
    let (code, points, _, out) = run(
        &s,
        "[slow]\nioengine=null\nsize=1g\nrw=read\nbs=4k\ntime_based\nruntime=30\nthinktime=10ms\nrate_iops_min=1000\n",
    );
    assert_ne!(code, Some(0), "a failed minimum is never a pass: {out}");
    assert!(out.contains("MINIMUM RATE NOT MET"), "{out}");
    let r = &points[0]["result"];
    assert_eq!(r["ended"], "rate_min");
    assert!(r["notices"].to_string().contains("rate_iops_min=1000 not met, got "), "{}", r["notices"]);
    assert!(r["runtime_ns"].as_u64().unwrap() < 30 * S / 2, "ended early");
}

#[test]
fn exitall_ends_the_groups_other_jobs_when_the_first_ends() {
    let s = Scratch::new("fio-stop-exitall");
    let (code, points, _, out) = run(
        &s,
        "[global]\nioengine=null\nsize=1g\nrw=read\nbs=4k\ntime_based\nexitall\n[short]\nruntime=1\n[long]\nruntime=30\n",
    );
    assert_eq!(code, Some(0), "{out}");
    let p = &points[0];
    let jobs = p["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{p}");
    assert!(jobs[0].get("ended").is_none(), "the short job ran to its end");
    assert_eq!(jobs[1]["ended"], "exitall");
    assert_eq!(p["result"]["ended"], "exitall");
    assert!(jobs[1]["runtime_ns"].as_u64().unwrap() < 30 * S / 2, "the long job ended with the short one");
}

/// fio 3.39's `ss=lat:P%`: the window holds each second's mean completion latency, and the job
/// ends when those settle, whatever the IOPS do.
const STEADY_LAT: &str = "[global]\nioengine=null\nsize=1g\nrw=read\nbs=4k\ntime_based\n[steady]\nruntime=30\n\
                          rate_iops=2000\nss=lat:50%\nss_dur=2\n";

#[test]
fn a_latency_criterion_judges_each_seconds_mean_completion_latency() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fio-stop-steady-lat");
    let (code, points, dir, out) = run(&s, STEADY_LAT);
    assert_eq!(code, Some(0), "{out}");
    let r = &points[0]["result"];
    assert_eq!(r["ended"], "steady", "{out}");
    let ss = &r["steadystate"];
    assert_eq!((ss["ss"].as_str(), ss["attained"].as_bool()), (Some("lat:50.000000%"), Some(true)), "{ss}");
    let lat: Vec<u64> = ss["lat_ns"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(lat.len(), 2, "{ss}");
    let o = drivelab_in(&s.0, &["report", dir.to_str().unwrap(), "--fio-format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let data = &doc["jobs"][0]["steadystate"]["data"];
    assert_eq!(data["lat_ns"].as_array().map(Vec::len), Some(2), "{data}");
    assert_eq!(data["lat_mean"].as_u64(), Some(lat.iter().sum::<u64>() / 2), "fio's whole-number mean");
    // fio 3.39's order, in the text (the parsed map sorts its keys).
    let text = stdout(&o);
    let text = &text[text.find("\"steadystate\"").unwrap()..];
    let at = |k: &str| text.find(&format!("\"{k}\" :")).unwrap_or_else(|| panic!("{k}: {text}"));
    let order = ["bw_mean", "iops_mean", "lat_mean", "lat_ns", "iops", "bw"].map(at);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
}
