//! The import checked against fio's own figures in the same files: real fio 3.33 outputs under
//! `tests/data/fio/` (README.md there gives the command of each). No figure is written here:
//! each is read from the fixture as fio wrote it.

use std::path::{Path, PathBuf};

use drivelab_engine::hist::{Pct, PERCENTILES};
use drivelab_engine::result::DirStats;
use drivelab_engine::spec::SyncMode;
use serde_json::Value;

use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio").join(name)
}

/// The fixture's last document as fio wrote it (after any line fio printed before it).
fn fio(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let json = &text[text.find("\n{").map_or(0, |i| i + 1)..];
    let docs: Vec<Value> = serde_json::Deserializer::from_str(json).into_iter().map(Result::unwrap).collect();
    docs.last().unwrap().clone()
}

fn imported(name: &str) -> Results {
    load(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a whole number: {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// fio's percentile list of `stat` as (drivelab's name, ns).
fn fio_percentiles(stat: &Value) -> Vec<(String, u64)> {
    stat["percentile"].as_object().unwrap().iter().map(|(k, v)| (lat::percentile_name(k).unwrap(), u(v))).collect()
}

/// Every statistic of fio's `stat` that drivelab keeps exactly: min, max, mean, deviation.
fn assert_exact(ours: &drivelab_engine::hist::LatSummary, stat: &Value, what: &str) {
    assert_eq!((ours.min, ours.max), (u(&stat["min"]), u(&stat["max"])), "{what}");
    assert_eq!((ours.mean, ours.stdev), (f(&stat["mean"]), f(&stat["stddev"])), "{what}");
}

/// A direction's counts and rates are fio's own.
fn assert_counts(ours: &DirStats, dir: &Value, what: &str) {
    assert_eq!((ours.ops, ours.bytes), (u(&dir["total_ios"]), u(&dir["io_bytes"])), "{what}");
    assert_eq!((ours.iops, ours.bw_bytes_per_s), (f(&dir["iops"]), f(&dir["bw_bytes"])), "{what}");
}

/// `ours` is fio's `theirs` within drivelab's bucket error, or fio's exact extreme (where
/// drivelab clamps and fio does not).
fn within_bound(ours: u64, theirs: u64, min: u64, max: u64) -> bool {
    (ours as f64 - theirs as f64).abs() <= theirs as f64 * DRIVELAB_BUCKET || ours == min || ours == max
}

#[test]
fn plain_json_keeps_fios_figures_and_percentiles_and_says_the_histogram_is_missing() {
    let name = "uring-randrw.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    assert_eq!(r.manifest.kind, Kind::Run, "one job, one point");
    assert_eq!(r.manifest.tool.name, "fio");
    assert_eq!(format!("fio-{}", r.manifest.tool.version), fio(name)["fio version"].as_str().unwrap());
    let p = &r.points[0];
    assert_eq!(p.point.label, job["jobname"].as_str().unwrap());
    assert_eq!(p.point.targets, [job["job options"]["filename"].as_str().unwrap()]);
    let res = &p.result;
    for (ours, dir) in [(&res.read, "read"), (&res.write, "write")] {
        assert_counts(ours, &job[dir], dir);
        assert_exact(&ours.lat_ns, &job[dir]["lat_ns"], dir);
        let clat = ours.clat_ns.as_ref().expect("clat");
        assert_exact(clat, &job[dir]["clat_ns"], dir);
        for (pct, ns) in fio_percentiles(&job[dir]["clat_ns"]) {
            assert_eq!(clat.percentiles.get(&pct), Some(&ns), "{dir} clat {pct}: fio's own figure");
        }
        assert!(clat.histogram.buckets.is_empty(), "no histogram without json+");
        assert_eq!(ours.lat_ns.get(Pct::P99), None, "fio gave no lat percentiles: none made up");
    }
    assert_eq!(res.total.ops, u(&job["read"]["total_ios"]) + u(&job["write"]["total_ios"]));
    assert_eq!(res.total.lat_ns.get(Pct::P50), None, "two directions' percentiles do not add up");
    let said = res.notices.join("\n");
    for words in ["json, not json+", "--lat_percentiles=1", "percentiles do not add up", "fio 3.33"] {
        assert!(said.contains(words), "{words}: {said}");
    }
    // The spec is the job's options, translated.
    let s = &res.spec;
    assert_eq!((s.read_pct, s.random_pct, s.qd, s.direct), (50, 100, 8, true));
    assert_eq!(res.engine.backend, job["job options"]["ioengine"].as_str().unwrap());
    let usr = f(&job["usr_cpu"]) * f(&job["job_runtime"])
        / u(&job["read"]["runtime"]).max(u(&job["write"]["runtime"])) as f64;
    assert!((res.cpu.usr_pct - usr).abs() < 1e-9, "{} {usr}", res.cpu.usr_pct);
}

#[test]
fn json_plus_bins_become_a_histogram_that_agrees_with_fios_percentiles() {
    let name = "uring-randrw.plus.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let res = &r.points[0].result;
    let mut all_bins = 0;
    for (ours, dir) in [(&res.read, "read"), (&res.write, "write")] {
        let theirs = &job[dir]["clat_ns"];
        let clat = ours.clat_ns.as_ref().unwrap();
        let bins: u64 = theirs["bins"].as_object().unwrap().values().map(u).sum();
        assert_eq!(bins, u(&job[dir]["total_ios"]), "{dir}: fio's bins hold every I/O");
        let buckets: u64 = clat.histogram.buckets.iter().map(|b| b[1]).sum();
        assert_eq!(buckets, bins, "{dir}: every bin's count is in drivelab's histogram");
        all_bins += bins;
        let (min, max) = (u(&theirs["min"]), u(&theirs["max"]));
        let mut checked = 0;
        for (pct, ns) in fio_percentiles(theirs) {
            if let Some(&mine) = clat.percentiles.get(&pct) {
                assert!(within_bound(mine, ns, min, max), "{dir} {pct}: {mine} against fio's {ns}");
                checked += 1;
            }
        }
        assert!(checked >= 9, "p1 ... p99.99 are both fio's and drivelab's: {checked}");
        for (_, name) in PERCENTILES {
            assert!(clat.percentiles.contains_key(name), "{dir} {name}: every drivelab percentile, from the histogram");
        }
        for (pct, _) in fio_percentiles(theirs) {
            assert!(
                clat.percentiles.contains_key(&pct),
                "{dir} {pct}: every percentile fio listed, from the histogram"
            );
        }
        assert_eq!(clat.histogram.max_relative_error, IMPORTED);
    }
    let total = res.total.clat_ns.as_ref().unwrap();
    assert_eq!(total.histogram.buckets.iter().map(|b| b[1]).sum::<u64>(), all_bins, "reads and writes merged");
    assert!(total.get(Pct::P99).is_some(), "the total's percentiles, from the merged bins");
    assert!(res.notices.join("\n").contains(&notes::binned()), "{:?}", res.notices);
    assert!(
        notes::binned().contains("1/128") && notes::binned().contains("1/256") && notes::binned().contains("1.17%")
    );
}

#[test]
fn lat_percentiles_come_from_lats_bins_and_a_sync_engines_from_clats() {
    let name = "uring-lat-percentiles.plus.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let read = &r.points[0].result.read;
    let theirs = &job["read"]["lat_ns"];
    assert_eq!(read.lat_ns.histogram.buckets.iter().map(|b| b[1]).sum::<u64>(), u(&job["read"]["total_ios"]));
    for q in [Pct::P50, Pct::P99] {
        let fios = fio_percentiles(theirs).into_iter().find(|(n, _)| n == q.name()).unwrap().1;
        let mine = read.lat_ns.get(q).unwrap();
        assert!(within_bound(mine, fios, u(&theirs["min"]), u(&theirs["max"])), "lat {}: {mine} vs {fios}", q.name());
    }
    assert!(r.points[0].result.slat_ns.is_some(), "io_uring: fio's slat kept");

    // psync: fio records no slat, so lat's percentiles are clat's (said, with fio's gap).
    let name = "psync-read.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let res = &r.points[0].result;
    for (pct, ns) in fio_percentiles(&job["read"]["clat_ns"]) {
        assert_eq!(res.read.lat_ns.percentiles.get(&pct), Some(&ns), "{pct}");
    }
    assert_exact(&res.read.lat_ns, &job["read"]["lat_ns"], "lat's own extremes and mean");
    assert!(res.slat_ns.is_none());
    assert!(res.notices.iter().any(|n| n.contains("no slat for a synchronous engine")), "{:?}", res.notices);
    assert_eq!(res.spec.engine, drivelab_engine::spec::EngineKind::Psync);
}

#[test]
fn a_stonewall_group_is_one_point_labelled_like_drivelabs() {
    let name = "null-groups.plus.json";
    let (r, doc) = (imported(name), fio(name));
    let jobs = doc["jobs"].as_array().unwrap();
    let labels: Vec<&str> = r.points.iter().map(|p| p.point.label.as_str()).collect();
    assert_eq!(labels, ["seqread", "randwrite", "mix + randread"], "clones named once, a group's jobs joined");
    assert_eq!(r.manifest.kind, Kind::Plan);
    assert!(r.points.iter().all(|p| p.point.targets == ["null"] && p.result.per_target[0].path == "null"));

    // Two clones of randwrite: their I/Os and bytes added over the longer window.
    let clones: Vec<&Value> = jobs.iter().filter(|j| j["jobname"] == "randwrite").collect();
    let w = &r.points[1].result;
    let ops: u64 = clones.iter().map(|j| u(&j["write"]["total_ios"])).sum();
    let window_ms = clones.iter().map(|j| u(&j["write"]["runtime"])).max().unwrap();
    assert_eq!(w.write.ops, ops);
    assert_eq!(w.runtime_ns, window_ms * 1_000_000);
    assert!((w.write.iops - ops as f64 / (window_ms as f64 / 1e3)).abs() < 1e-6);
    assert_eq!(w.spec.jobs, 2, "numjobs");
    let bins: u64 = w.write.clat_ns.as_ref().unwrap().histogram.buckets.iter().map(|b| b[1]).sum();
    assert_eq!(bins, ops, "both clones' bins merged");
    assert!(w.notices.iter().any(|n| n.contains("2 fio jobs of reporting group 1")), "{:?}", w.notices);

    // A group of two different jobs: the spec is the first's, and that is said.
    let mix = &r.points[2].result;
    assert_eq!((mix.spec.read_pct, mix.spec.bs[0].bytes), (70, 8192), "mix's rwmixread and bs");
    assert!(mix.notices.iter().any(|n| n.contains("spec is mix's")), "{:?}", mix.notices);
    let reads: u64 = jobs.iter().filter(|j| j["groupid"] == 2).map(|j| u(&j["read"]["total_ios"])).sum();
    assert_eq!(mix.read.ops, reads);
    let fields: Vec<&str> = r.points[0].point.fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(fields, ["bs", "runtime", "rw", "iodepth"], "global then job options that are fields");

    // group_reporting: fio's entries are the groups already, named by their first job.
    let name = "null-groups.grouped.json";
    let (r, doc) = (imported(name), fio(name));
    for (p, g) in r.points.iter().zip(doc["jobs"].as_array().unwrap()) {
        assert_eq!(p.point.label, g["jobname"].as_str().unwrap());
        for dir in ["read", "write"] {
            let ours = if dir == "read" { &p.result.read } else { &p.result.write };
            if u(&g[dir]["total_ios"]) > 0 {
                assert_counts(ours, &g[dir], dir);
            }
        }
    }
}

#[test]
fn status_interval_documents_become_the_points_seconds() {
    let name = "status-interval.plus.json";
    let r = imported(name);
    let res = &r.points[0].result;
    let job = &fio(name)["jobs"][0];
    assert!(res.series.len() >= 3, "{}", res.series.len());
    assert_eq!(res.series.iter().map(|s| s.ops).sum::<u64>(), u(&job["read"]["total_ios"]));
    assert!(res.series.windows(2).all(|w| w[0].t_s < w[1].t_s));
    assert_eq!(res.series.last().unwrap().t_s, u(&job["read"]["runtime"]) as f64 / 1e3);
    assert!(res.series.iter().all(|s| s.lat_p99_ns > 0 && s.iops > 0.0));
    assert!(res.notices.iter().any(|n| n.contains("--status-interval")));
}

#[test]
fn fsyncs_and_unified_reporting_land_where_drivelab_keeps_them() {
    let name = "psync-fsync.plus.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let res = &r.points[0].result;
    assert_eq!(res.spec.sync, SyncMode::Fsync { every: 4 });
    let sync = res.sync.as_ref().expect("fio's fsyncs");
    assert_eq!(sync.ops, u(&job["sync"]["total_ios"]));
    assert_exact(&sync.lat_ns, &job["sync"]["lat_ns"], "fsync");

    let name = "null-unified.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let res = &r.points[0].result;
    assert_counts(&res.total, &job["mixed"], "mixed");
    assert_eq!((res.read.ops, res.write.ops), (0, 0));
    assert!(res.notices.iter().any(|n| n.contains("unified_rw_reporting")));
}

#[test]
fn an_imported_result_is_what_a_results_directory_would_hold() {
    for name in ["uring-randrw.json", "null-groups.plus.json", "status-interval.plus.json"] {
        let r = imported(name);
        for p in &r.points {
            let saved = serde_json::to_value(p).unwrap();
            let back: PointResult = serde_json::from_value(saved.clone()).unwrap();
            assert_eq!(serde_json::to_value(&back).unwrap(), saved, "{name}: a point saves and loads as drivelab's");
        }
        let saved = serde_json::to_value(&r.manifest).unwrap();
        let m: Manifest = serde_json::from_value(saved.clone()).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap(), saved);
        assert!(r.manifest.host.is_unknown(), "fio records no host");
    }
}

fn error_of(bytes: &[u8]) -> String {
    from_bytes(bytes, Path::new("x.json")).expect_err("refused")
}

#[test]
fn bad_input_is_an_error_saying_what_is_wrong_never_a_panic() {
    let good = std::fs::read(fixture("uring-randrw.plus.json")).unwrap();
    for cut in [good.len() / 3, good.len() - 5] {
        assert!(error_of(&good[..cut]).contains("cut short"), "{}", error_of(&good[..cut]));
    }
    assert!(error_of(b"hello\n").contains("no JSON document"));
    assert!(error_of(b"{\"a\": 1}\n").contains("not fio's JSON output"));
    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    doc["jobs"][0].as_object_mut().unwrap().remove("jobname");
    assert!(error_of(doc.to_string().as_bytes()).contains("jobname"));
    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    doc["jobs"] = Value::Array(Vec::new());
    assert!(error_of(doc.to_string().as_bytes()).contains("no jobs"));
    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    doc["jobs"][0]["read"]["clat_ns"]["bins"]["many"] = 3.into();
    let e = error_of(doc.to_string().as_bytes());
    assert!(e.contains("bin 'many'") && e.contains("read"), "{e}");
    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    doc["jobs"][0]["read"]["clat_ns"]["percentile"]["lots"] = 3.into();
    doc["jobs"][0]["read"]["clat_ns"].as_object_mut().unwrap().remove("bins");
    assert!(error_of(doc.to_string().as_bytes()).contains("percentile 'lots'"));
    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    for d in ["read", "write", "trim"] {
        doc["jobs"][0].as_object_mut().unwrap().remove(d);
    }
    assert!(error_of(doc.to_string().as_bytes()).contains("no read, write or mixed"));
    let old = br#"{"fio version": "fio-2.2.10", "jobs": [{"jobname": "a", "groupid": 0, "read": {"clat": {}}}]}"#;
    assert!(error_of(old).contains("fio before 3.0"), "{}", error_of(old));
    let mut twice = good.clone();
    twice.extend_from_slice(b"\nfio: terminating\n");
    assert!(error_of(&twice).contains("after document 1"), "{}", error_of(&twice));
    let e = load(Path::new("/nonexistent/fio.json")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/fio.json"), "{e}");
}

#[test]
fn fio_output_is_known_by_its_content_and_text_before_it_is_passed_over() {
    assert!(doc::looks_like_fio(&std::fs::read(fixture("psync-read.json")).unwrap()));
    assert!(!doc::looks_like_fio(br#"{"schema": 2, "tool": {"name": "drivelab"}}"#));
    assert!(!doc::looks_like_fio(b"\x7fELF\x02\x01"));
    let mut noted = b"note: both iodepth >= 1 and synchronous I/O engine are selected\n".to_vec();
    noted.extend(std::fs::read(fixture("psync-read.json")).unwrap());
    assert!(doc::looks_like_fio(&noted));
    let r = from_bytes(&noted, Path::new("noted.json")).unwrap();
    assert!(r.points[0].result.notices.iter().any(|n| n.contains("note: both iodepth")));
}

#[test]
fn trims_are_a_direction_of_their_own_and_fios_error_an_io_error() {
    let name = "falloc-trimwrite.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let res = &r.points[0].result;
    let trim = res.trim.as_ref().expect("fio's trims");
    assert_counts(trim, &job["trim"], "trim");
    assert_eq!(res.total.ops, u(&job["write"]["total_ios"]) + u(&job["trim"]["total_ios"]), "in the total");
    assert!(res.notices.iter().any(|n| n.contains("ioengine=falloc")), "{:?}", res.notices);

    // fio could not trim this way: its error, and the line it printed before its JSON.
    let name = "psync-trim-error.json";
    let (r, job) = (imported(name), fio(name)["jobs"][0].clone());
    let res = &r.points[0].result;
    assert_eq!(res.errors.len(), 1);
    assert_eq!(i64::from(res.errors[0].errno), job["error"].as_i64().unwrap());
    assert!(res.stopped_by_error && res.errored());
    assert!(res.notices.iter().any(|n| n.starts_with("text before fio's JSON passed over: fio: pid=")));
}
