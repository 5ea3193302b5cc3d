//! Loads that were not delivered are never a pass, and every ACT and qos table shows what was
//! done beside what was scheduled; qos says at run time when a probe was CPU-bound, and its
//! `--by qd` answer states its IOPS and latency. Loads here are far beyond what the machine can
//! carry (4M reads/s at ACT's 2000x) or closed loop on null, so nothing depends on timing.

use crate::common;

use std::path::PathBuf;

use crate::common::{drivelab, stderr, stdout, Saved, Scratch};

fn only_dir(results: &str) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(results).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

#[test]
fn act_fails_a_load_the_file_did_not_deliver_and_shows_done_beside_scheduled() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("undelivered");
    let f = s.path("act.dat");
    let results = s.path("results");
    // 2000x: 4M reads/s of the 1536-byte records, which no file on this machine carries. ACT's
    // max-lag (10 s) never trips in a 2 s load: it passed before.
    let o = drivelab(&["act", &f, "--size", "64m", "--scale", "2000", "--time", "2s", "--results", &results]);
    assert_eq!(o.status.code(), Some(3), "a load that did not pass: {}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("act: no passing load") && out.contains("not delivered"), "{out}");
    // The live slice table: reads done beside reads scheduled.
    assert!(out.contains("reads/s  scheduled") && out.contains("4.00M"), "{out}");
    let dir = only_dir(&results);
    let saved = Saved::load(&dir);
    let p = &saved.probes[0];
    assert_eq!(p["pass"], false);
    assert!(p["why"].as_str().unwrap().contains("not delivered"), "{p}");
    let run = &p["data"]["act"];
    assert_eq!(run["response"]["passed"], false, "by response time neither");
    let sl = &run["slices"][0];
    let d = &sl["delivery"];
    assert_eq!(d["scheduled_iops"].as_f64(), Some(4_000_000.0), "{sl}");
    let done = sl["rate_per_s"].as_f64().unwrap();
    assert!(done < 0.99 * 4e6, "{done} reads/s done");
    assert_eq!(saved.outcome["best"], serde_json::Value::Null);
    // The report: scheduled and done in the slice table and in "Loads run".
    let o = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv", "--tables"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    assert!(csv.contains("scheduled reads/s") && csv.contains("delivered"), "{csv}");
    let head = csv.lines().find(|l| l.starts_with("table,probe,role,N,")).unwrap_or_default();
    assert!(head.contains("reads/s scheduled") && head.contains("reads/s done"), "{csv}");
    // The tidy CSV: each slice with its scheduled reads/s, as saved, beside those done.
    let o = drivelab(&["report", dir.to_str().unwrap(), "--format", "csv"]);
    let tidy = stdout(&o);
    let header: Vec<&str> = tidy.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap_or_else(|| panic!("no {name}: {tidy}"));
    let first: Vec<&str> = tidy.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(first[col("scheduled_reads_per_s")].parse::<f64>().ok(), Some(4_000_000.0), "{tidy}");
    assert_eq!(first[col("reads_per_s")].parse::<f64>().ok(), Some(done), "{tidy}");
}

#[test]
fn qos_by_queue_depth_says_what_it_searches_answers_with_iops_and_latency_and_warns_of_cpu_bound_probes() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("qosqd");
    let results = s.path("results");
    let o = drivelab(&[
        "qos",
        "null",
        "--by",
        "qd",
        "--max-qd",
        "2",
        "--time",
        "1s",
        "--objective",
        "p99<10s",
        "--results",
        &results,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    // The header names the queue depths searched, not the spec's own qd1.
    assert!(out.contains("queue depth 1-2 (searched)") && !out.contains(" qd1 "), "{out}");
    // The answer: the depth, and what it carried and its latency.
    let answer = out.lines().skip_while(|l| !l.starts_with("qos: highest queue depth")).collect::<Vec<_>>().join(" ");
    assert!(answer.contains("qd 2") && answer.contains("IOPS done") && answer.contains("p99"), "{out}");
    // null in closed loop keeps its one job thread running: CPU-bound, said as each probe ends
    // (before the answer), not only by `report` later.
    let err = stderr(&o);
    assert!(err.contains("probe 1 is CPU-bound") && err.contains("not the target"), "{err}");
    let dir = only_dir(&results);
    let text = stdout(&drivelab(&["report", dir.to_str().unwrap()]));
    assert!(text.contains("latency at the answer") && text.contains("queue depth"), "{text}");
    let js = stdout(&drivelab(&["report", dir.to_str().unwrap(), "--format", "json"]));
    assert!(js.contains("queue depth 1-2 (searched)"), "{js}");
}

#[test]
fn a_fixed_rate_the_file_did_not_deliver_is_never_a_steady_state() {
    let s = Scratch::new("steadyrate");
    let f = s.path("s.dat");
    let plan = s.path("p.toml");
    // 5M random reads/s at qd 4: no file on this machine carries that; its rounds would settle at
    // the file's own limit and be called steady.
    std::fs::write(
        &plan,
        "name = \"r\"\n[defaults]\nrw = \"randread\"\nqd = \"4\"\nrate = \"5000k\"\ntime = \"300ms\"\n",
    )
    .unwrap();
    let results = s.path("results");
    let o = drivelab(&["plan", &plan, &f, "--size", "32m", "--steady", "--steady-rounds", "5", "--results", &results]);
    assert_eq!(
        o.status.code(),
        Some(4),
        "a steady state not reached is its own exit code: {}{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(stdout(&o).contains("not steady") && stdout(&o).contains("not delivered"), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 finished, 1 of them not steady"), "{}", stdout(&o));
    let dir = only_dir(&results);
    let point = std::fs::read_dir(dir.join("points")).unwrap().next().unwrap().unwrap().path();
    let st = &common::json(&point)["steady"];
    assert_eq!(st["steady"], false, "{st}");
    assert_eq!(st["not_delivered"]["scheduled_iops"].as_f64(), Some(5e6), "{st}");
    assert_eq!(st["rounds_iops"].as_array().map(Vec::len), Some(0), "the rounds stop at the first: {st}");
    // Marked in every table and CSV, never a plain figure.
    let d = dir.to_str().unwrap();
    let text = stdout(&drivelab(&["report", d]));
    assert!(text.contains("!unsteady") && text.contains("never reached steady state"), "{text}");
    assert!(!text.lines().any(|l| l.contains("MB/s") && l.ends_with(|c: char| c.is_ascii_digit())), "{text}");
    let tables = stdout(&drivelab(&["report", d, "--format", "csv", "--tables"]));
    assert!(tables.lines().next().unwrap().ends_with(",not_steady"), "{tables}");
    let tidy = stdout(&drivelab(&["report", d, "--format", "csv"]));
    let (head, row) = (tidy.lines().next().unwrap(), tidy.lines().nth(1).unwrap());
    let at = head.split(',').position(|c| c == "steady").expect("a steady column");
    assert_eq!(row.split(',').nth(at), Some("false"), "{tidy}");
    let md = stdout(&drivelab(&["report", d, "--format", "md"]));
    assert!(md.contains("!unsteady"), "{md}");
    // The user accepts it: still marked, exit 0.
    let o = drivelab(&[
        "plan",
        &plan,
        &f,
        "--steady",
        "--steady-rounds",
        "5",
        "--steady-unreached-ok",
        "--results",
        &results,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
