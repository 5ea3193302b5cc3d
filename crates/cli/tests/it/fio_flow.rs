//! fio's token flow through `drivelab run JOB.fio`: flow.fio shortened (a writer of weight 1 and
//! a random reader of weight 8 sharing the global flow) runs with the reader doing about 8 I/Os
//! to the writer's one — within 25% of 8, and of the ratio fio 3.33 itself gets on the same job
//! where fio is installed and itself holds 8:1; the same jobs without flow are not held to it.

use crate::common;

use std::path::Path;

use crate::common::{drivelab_in, stderr, Saved, Scratch};

fn job(dir: &Path, flow: bool) -> String {
    let (w, r) = if flow { ("flow=1\n", "flow=8\n") } else { ("", "") };
    let text = format!(
        "[global]\nnorandommap\nthread\ntime_based\nruntime=1\nioengine=psync\nsize=8m\nbs=8k\nfilename=flow.dat\n\
         flow_sleep=1000\n\n[job2]\nrw=write\n{w}\n[job1]\nrw=randread\n{r}"
    );
    let path = dir.join(if flow { "flow.fio" } else { "noflow.fio" });
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Reads of job1 over writes of job2 in drivelab's point.
fn drivelab_ratio(dir: &Path, file: &str, res: &str) -> f64 {
    let o = drivelab_in(dir, &["run", file, "--results", res, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = &saved(&dir.join(res)).points[0];
    let jobs = p["jobs"].as_array().unwrap_or_else(|| panic!("one result per job: {p}"));
    let writes = jobs[0]["write"]["ops"].as_f64().unwrap();
    let reads = jobs[1]["read"]["ops"].as_f64().unwrap();
    assert!(writes > 0.0 && reads > 0.0, "both jobs ran: {writes} writes, {reads} reads");
    reads / writes
}

#[test]
fn jobs_of_a_flow_keep_the_ratio_of_their_weights_as_fio_does() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("fio-flow");
    let with = drivelab_ratio(&s.0, &job(&s.0, true), "res-flow");
    assert!((6.0..10.0).contains(&with), "reader/writer I/Os with flow=8/flow=1: {with}");
    let without = drivelab_ratio(&s.0, &job(&s.0, false), "res-noflow");
    assert!(!(6.0..10.0).contains(&without), "without flow the jobs are not held to 8:1: {without}");

    let fio = std::process::Command::new("fio")
        .args([&job(&s.0, true), "--output-format=json", "--output=fio.json"])
        .current_dir(&s.0)
        .output();
    match fio {
        Ok(o) if o.status.success() => {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(s.0.join("fio.json")).unwrap()).unwrap();
            let jobs = v["jobs"].as_array().unwrap();
            let ios = |name: &str, dir: &str| {
                jobs.iter().find(|j| j["jobname"] == name).unwrap()[dir]["total_ios"].as_f64().unwrap()
            };
            let theirs = ios("job1", "read") / ios("job2", "write");
            if !(6.0..10.0).contains(&theirs) {
                // fio's jobs join their flow in their own threads; on a busy machine one that
                // starts late leaves the other unchecked (3.2 for 8 was seen), so fio's run is
                // no reference then. drivelab counts every job before any starts.
                return common::skip_part("the comparison with fio", "fio itself missed 8:1 on this busy machine");
            }
            let off = (with / theirs - 1.0).abs();
            assert!(off < 0.25, "drivelab {with:.2}, fio {theirs:.2}: {:.0}% apart", off * 100.0);
            eprintln!("flow 8:1 — drivelab {with:.2}, fio {theirs:.2}, drivelab without flow {without:.2}");
        }
        _ => common::skip_part("the comparison with fio", "fio is not installed (apt-get install fio)"),
    }
}

/// The results directory drivelab made under `res`, loaded.
fn saved(res: &Path) -> Saved {
    match std::fs::read_dir(res).ok().and_then(|mut d| d.next()).and_then(|e| e.ok()) {
        Some(e) => Saved::load(&e.path()),
        None => Saved { run: Default::default(), points: Vec::new(), probes: Vec::new(), outcome: Default::default() },
    }
}

/// fio's t0011: a job paced at 1,000 IOPS with weight 1 and an unpaced job of weight 8 in one
/// flow. The rate caps the first, the flow the second at 8 I/Os to the first's one (fio's test
/// wants 950..1050 IOPS and a ratio of 6..10). Bounds that hold on a busy machine: the open loop
/// never runs ahead of its rate, and the flow never lets the second job past its share.
#[test]
fn a_rate_and_a_flow_hold_a_job_back_together_as_in_fios_t0011() {
    let s = Scratch::new("fio-flow-rate");
    let text = "[global]\nbs=4k\nioengine=null\nsize=100g\nruntime=1\nflow_id=1\n\n[flow1]\nflow=1\nrate_iops=1000\n\n\
                [flow2]\nflow=8\n";
    std::fs::write(s.0.join("t0011.fio"), text).unwrap();
    let o = crate::common::bin().args(["fio", "t0011.fio", "--output-format=json"]).current_dir(&s.0).output().unwrap();
    assert!(o.status.success() && common::fio_stderr(&o).is_empty(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ios = |j: usize| v["jobs"][j]["read"]["total_ios"].as_f64().unwrap();
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!(iops > 0.0 && iops <= 1050.0, "the paced job keeps to its rate: {iops} IOPS");
    let ratio = ios(1) / ios(0);
    assert!((1.0..=8.5).contains(&ratio), "the flow holds the unpaced job to 8:1: {ratio}");
}
