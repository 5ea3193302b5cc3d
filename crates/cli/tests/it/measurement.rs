//! A saved point keeps its raw measurement (issue #25): the figures beside it derive from it
//! again, a fio group at a rate merges every job's open loop (it was the first job's alone), a
//! damaged or forged measurement is refused naming what is wrong (exit 2, no panic), and a result
//! saved without one still reads.

use crate::common;

use crate::common::{drivelab_in, json, Scratch};
use drivelab_engine::measurement::{summarize, Figures};
use drivelab_engine::result::RunResult;

fn point_file(dir: &std::path::Path) -> std::path::PathBuf {
    let runs: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let points: Vec<_> = std::fs::read_dir(runs[0].join("points")).unwrap().map(|e| e.unwrap().path()).collect();
    points.into_iter().find(|p| p.extension().is_some_and(|e| e == "json")).expect("a point saved")
}

#[test]
fn a_fio_group_at_a_rate_merges_every_jobs_open_loop_and_its_figures_derive_from_what_it_saved() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("measurement-fio");
    let job = format!(
        "[global]\nfilename={}\nsize=8m\nbs=4k\nrw=randread\nioengine=psync\nruntime=2\ntime_based\nrate_iops=1000\n\n\
         [a]\n\n[b]\n",
        s.path("f.dat")
    );
    std::fs::write(s.0.join("two.fio"), job).unwrap();
    let o = drivelab_in(&s.0, &["run", &s.path("two.fio"), "--results", "r", "-q"]);
    assert!(o.status.success(), "{}{}", common::stdout(&o), common::stderr(&o));
    let file = point_file(&s.0.join("r"));
    let saved = json(&file);
    let r: RunResult = serde_json::from_value(saved["result"].clone()).expect("a result");
    let m = r.measurement.as_ref().expect("the raw measurement is saved");
    assert_eq!(m.jobs, 2);
    // Every job's schedule: 1000/s each, 2000/s together; achieved is both jobs' I/Os.
    let o = r.open_loop.as_ref().unwrap();
    assert!((o.target_iops - 2000.0).abs() < 1e-6, "target {}", o.target_iops);
    // Achieved is every I/O of both jobs over the window (the old merge kept the first job's).
    let all = r.total.ops as f64 / (r.runtime_ns as f64 / 1e9);
    assert!((o.achieved_iops - all).abs() <= 1e-6 * all, "achieved {}: both jobs' {all}", o.achieved_iops);
    let lagged: u64 = o.lag_ns.histogram.buckets.iter().map(|b| b[1]).sum();
    assert_eq!(lagged, r.total.ops, "lateness over every job's I/Os");
    // The figures derive again from the measurement (floats compared as saved, to the last digit
    // JSON keeps).
    let again = summarize(m, &r.spec);
    let saved_figures = Figures::of(&r);
    assert_eq!(again.total.ops, saved_figures.total.ops);
    assert_eq!(again.total.lat_ns.percentiles, saved_figures.total.lat_ns.percentiles);
    assert_eq!(again.total.lat_ns.histogram, saved_figures.total.lat_ns.histogram);
    assert_eq!(again.open_loop.as_ref().unwrap().lag_ns.histogram, o.lag_ns.histogram);
    let p99s = |f: &Figures| f.series.iter().map(|p| (p.lat_p99_ns, p.resp_p99_ns, p.ops)).collect::<Vec<_>>();
    assert_eq!(p99s(&again), p99s(&saved_figures));
    let rel = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(1.0);
    assert!(rel(again.total.iops, saved_figures.total.iops) && rel(again.cpu.usr_pct, saved_figures.cpu.usr_pct));

    // Forged: refused, naming the file and what is wrong, exit 2.
    let mut forged = saved.clone();
    forged["result"]["measurement"]["series"] = "AAAA".into();
    std::fs::write(&file, serde_json::to_string_pretty(&forged).unwrap()).unwrap();
    let out = drivelab_in(&s.0, &["report", file.parent().unwrap().parent().unwrap().to_str().unwrap()]);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("damaged or forged") && err.contains("series"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Saved before measurements were kept: still read.
    let mut old = saved.clone();
    old["result"].as_object_mut().unwrap().remove("measurement");
    std::fs::write(&file, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    let out = drivelab_in(&s.0, &["report", file.parent().unwrap().parent().unwrap().to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
}
