//! fio_out as a whole, on made-up saved points (the binary against fio itself:
//! crates/cli/tests/it/fio_output.rs).

use drivelab_engine::hist::Histogram;
use drivelab_lab::plan::{ConcurrentJob, FioOptions};

use super::*;
use crate::test_support::{point, results};

fn with_latencies(mut p: drivelab_lab::results::PointResult, ns: &[u64]) -> drivelab_lab::results::PointResult {
    let mut h = Histogram::new();
    for &v in ns {
        h.record(v);
    }
    p.result.read.lat_ns = h.summary();
    p.result.read.ops = ns.len() as u64;
    p.result.read.bytes = 4096 * ns.len() as u64;
    p
}

fn two_jobs(group_reporting: bool) -> drivelab_lab::results::Results {
    let mut p = with_latencies(point("a + b", "a", &[], &[("/t", 1.0)]), &[1000, 2000]);
    p.point.concurrent.push(ConcurrentJob {
        name: "b".into(),
        targets: vec!["/t".into()],
        fields: Vec::new(),
        spec: Default::default(),
    });
    let flag = if group_reporting { vec![("group_reporting".to_string(), String::new())] } else { Vec::new() };
    p.point.fio = Some(FioOptions {
        global: [vec![("bs".to_string(), "4k".to_string())], flag].concat(),
        jobs: vec![vec![("rw".into(), "randread".into())], vec![("rw".into(), "randwrite".into())]],
        verify_states: Vec::new(),
        unlink: Vec::new(),
    });
    let a = with_latencies(point("a", "a", &[], &[("/t", 1.0)]), &[1000]).result;
    let b = with_latencies(point("b", "b", &[], &[("/t", 1.0)]), &[2000]).result;
    p.jobs = vec![a, b];
    results("plan", vec![p])
}

fn json(r: &drivelab_lab::results::Results, f: FioFormat) -> serde_json::Value {
    serde_json::from_str(&render(r, f).unwrap()).unwrap()
}

#[test]
fn one_entry_per_job_unless_group_reporting() {
    let each = json(&two_jobs(false), FioFormat::Json);
    let jobs = each["jobs"].as_array().unwrap();
    assert_eq!(jobs.iter().map(|j| j["jobname"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(jobs[1]["job options"]["rw"], "randwrite");
    assert_eq!(jobs[0]["groupid"], jobs[1]["groupid"]);
    assert_eq!(jobs[0]["read"]["total_ios"], 1);
    assert_eq!(each["global options"], serde_json::json!({"bs": "4k"}), "flags are not listed, as fio");
    let summed = json(&two_jobs(true), FioFormat::Json);
    let jobs = summed["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!((jobs[0]["jobname"].as_str(), jobs[0]["read"]["total_ios"].as_u64()), (Some("a"), Some(2)));
}

#[test]
fn json_plus_adds_bins_that_count_every_io() {
    let r = two_jobs(true);
    let plain = json(&r, FioFormat::Json);
    assert!(plain["jobs"][0]["read"]["clat_ns"].get("bins").is_none());
    let plus = json(&r, FioFormat::JsonPlus);
    let clat = &plus["jobs"][0]["read"]["clat_ns"];
    let bins = clat["bins"].as_object().unwrap();
    assert_eq!(bins.values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 2);
    assert_eq!(clat["percentile"]["99.900000"], 2000);
    assert_eq!(plus["fio version"], "fio-3.33");
    assert!(plus["drivelab version"].is_string());
    assert!(plus["jobs"][0]["latency_us"]["2"].as_f64().unwrap() > 0.0, "1000 ns counts in fio's [1, 2) us range");
}

#[test]
fn terse_has_fios_field_count_per_entry() {
    let text = render(&two_jobs(false), FioFormat::Terse).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    for l in lines {
        assert_eq!(l.split(';').count(), terse::FIELDS, "{l}");
        assert!(l.starts_with("3;fio-3.33;"));
    }
}

#[test]
fn normal_has_a_block_per_entry_and_a_group_line() {
    let text = render(&two_jobs(false), FioFormat::Normal).unwrap();
    assert!(text.starts_with("\na: (groupid=0, jobs=1): err= 0: pid=0: "), "fio's empty line first: {text}");
    assert!(text.contains("\nb: (groupid=0, jobs=1)"));
    assert!(text.contains("\nRun status group 0 (all jobs):\n   READ: bw="));
    assert!(text.contains("    clat percentiles (nsec):\n     |  1.00th=["), "{text}");
}

#[test]
fn nothing_finished_is_refused() {
    let e = render(&results("plan", Vec::new()), FioFormat::Json).unwrap_err();
    assert!(e.to_string().contains("no finished point"), "{e}");
}

#[test]
fn a_runs_last_milliseconds_are_not_a_bandwidth_sample() {
    let mut r = two_jobs(true);
    let mut series = crate::test_support::series(2, |_| 100.0, |_| 1000);
    let mut tail = series[1].clone();
    (tail.dur_ns, tail.read_iops, tail.iops) = (10_000_000, 5000.0, 5000.0);
    series.push(tail);
    r.points[0].result.series = series;
    let doc = json(&r, FioFormat::Json);
    let read = &doc["jobs"][0]["read"];
    assert_eq!((read["iops_samples"].as_u64(), read["iops_max"].as_u64()), (Some(2), Some(100)));
}

/// One job's reads at two priorities (best-effort 4 its own, real-time 0 a third of them), as a
/// job with fio's cmdprio leaves them.
fn two_priorities(own: u16) -> drivelab_lab::results::Results {
    use drivelab_engine::measurement::kinds::prio::{PrioLat, PrioLats};
    let mut p = with_latencies(point("p", "p", &[], &[("/t", 1.0)]), &[1000, 2000, 30_000]);
    let lat = |ns: &[u64]| {
        let mut h = Histogram::new();
        ns.iter().for_each(|&v| h.record(v));
        h.summary()
    };
    p.result.spec.prio = Some(drivelab_engine::spec::prio::IoPrio { job: own, cmd: Default::default() });
    p.result.kinds.clat_prio = Some(PrioLats {
        read: vec![
            PrioLat { prioclass: 1, prio: 0, clat_ns: lat(&[1000]) },
            PrioLat { prioclass: 2, prio: 4, clat_ns: lat(&[2000, 30_000]) },
        ],
        write: Vec::new(),
    });
    results("plan", vec![p])
}

#[test]
fn per_priority_latencies_are_fios_prios_own_priority_first() {
    let doc = json(&two_priorities(0x4004), FioFormat::Json);
    let read = doc["jobs"][0]["read"].as_object().unwrap();
    let keys: Vec<&str> = read.keys().map(String::as_str).collect();
    let at = |k: &str| keys.iter().position(|x| *x == k).unwrap();
    assert_eq!(at("prios"), at("lat_ns") + 1, "after lat_ns, as fio: {keys:?}");
    let prios = read["prios"].as_array().unwrap();
    let order: Vec<(u64, u64)> =
        prios.iter().map(|p| (p["prioclass"].as_u64().unwrap(), p["prio"].as_u64().unwrap())).collect();
    assert_eq!(order, [(2, 4), (1, 0)], "the job's own priority first, as fio lists it");
    assert_eq!(prios[0]["clat_ns"]["N"], 2);
    assert_eq!(prios[0]["clat_ns"]["percentile"]["99.000000"], 30_000);
    assert!(prios[0]["clat_ns"].get("bins").is_none());
    assert!(doc["jobs"][0]["write"].get("prios").is_none(), "no writes: no entry");
    let plus = json(&two_priorities(0x4004), FioFormat::JsonPlus);
    assert!(plus["jobs"][0]["read"]["prios"][1]["clat_ns"]["bins"].is_object(), "json+: each priority's bins");

    let text = render(&two_priorities(0x4004), FioFormat::Normal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let first = |s: &str| lines.iter().position(|l| l.starts_with(s)).unwrap_or_else(|| panic!("no {s:?}:\n{text}"));
    assert!(first("    clat prio 2/4 (") < first("    clat prio 1/0 ("));
    assert!(
        first("     lat (") < first("    clat prio 2/4 (")
            && first("    clat prio 1/0 (") < first("    clat percentiles")
    );
    let share = lines.iter().find(|l| l.starts_with("    clat prio 1/0 (33.33% of IOs) percentiles (")).is_some();
    assert!(share, "{text}");

    // One priority alone is no split: fio writes none.
    let mut one = two_priorities(0);
    one.points[0].result.kinds.clat_prio.as_mut().unwrap().read.truncate(1);
    assert!(json(&one, FioFormat::Json)["jobs"][0]["read"].get("prios").is_none());
}

/// A job that ended on an error is never shown as a success in any of fio's formats: a failed
/// I/O saved without an errno (a short read) is fio's EIO, data read back wrong fio's EILSEQ.
#[test]
fn an_errored_job_is_never_error_0_in_any_format() {
    use drivelab_engine::result::{Checks, ErrorStat, VerifyStats};
    let short = {
        let mut p = with_latencies(point("a", "a", &[], &[("/t", 1.0)]), &[1000]);
        p.result.errors.push(ErrorStat {
            target: "/t".into(),
            op: "read".into(),
            errno: 0,
            error: "short read: 0 of 4096 bytes".into(),
            count: 1,
            first_offset_bytes: 8192,
            continued: false,
        });
        results("plan", vec![p])
    };
    let wrong = {
        let mut p = with_latencies(point("a", "a", &[], &[("/t", 1.0)]), &[1000]);
        let inline = Checks { checked_units: 4, mismatches: 1, ..Checks::default() };
        p.result.kinds.verify = Some(VerifyStats { unit_bytes: 4096, inline, ..VerifyStats::default() });
        results("plan", vec![p])
    };
    for (r, errno, what) in [(&short, 5, "Input/output error"), (&wrong, 84, "func=verify")] {
        assert_eq!(json(r, FioFormat::Json)["jobs"][0]["error"], errno);
        let text = render(r, FioFormat::Normal).unwrap();
        let head = text.lines().nth(1).unwrap();
        assert!(head.starts_with(&format!("a: (groupid=0, jobs=1): err={errno:2} (")) && head.contains(what), "{head}");
        let terse = render(r, FioFormat::Terse).unwrap();
        assert_eq!(terse.split(';').nth(4), Some(errno.to_string().as_str()), "{terse}");
    }
    let clean = with_latencies(point("a", "a", &[], &[("/t", 1.0)]), &[1000]);
    assert_eq!(json(&results("plan", vec![clean]), FioFormat::Json)["jobs"][0]["error"], 0);
}

/// fio counts its verify phase's reads as reads: a write job with verify re-reads what it wrote,
/// and fio's JSON says so in the reads' `io_kbytes` and `total_ios` (fio's t0005).
#[test]
fn a_verifying_jobs_re_read_counts_in_the_reads_as_fio_counts_it() {
    use drivelab_engine::result::{Checks, VerifyStats};
    let mut p = point("w", "w", &[], &[("/t", 1.0)]);
    (p.result.read.ops, p.result.read.bytes) = (0, 0);
    p.result.write.ops = 25600;
    p.result.write.bytes = 100 << 20;
    p.result.spec.bs = vec![drivelab_engine::spec::BlockSize { bytes: 4096, pct: 100 }];
    let after = Checks { checked_units: 25600, ..Checks::default() };
    p.result.kinds.verify = Some(VerifyStats { unit_bytes: 4096, after: Some(after), ..VerifyStats::default() });
    let doc = json(&results("plan", vec![p.clone()]), FioFormat::Json);
    let job = &doc["jobs"][0];
    assert_eq!((job["read"]["io_kbytes"].as_u64(), job["read"]["total_ios"].as_u64()), (Some(102400), Some(25600)));
    assert_eq!(job["write"]["io_kbytes"], 102400);
    // The sweep re-read a laid-out file whole; fio re-reads only the job's writes (t0008).
    (p.result.write.ops, p.result.write.bytes) = (12800, 50 << 20);
    let doc = json(&results("plan", vec![p]), FioFormat::Json);
    assert_eq!(doc["jobs"][0]["read"]["io_kbytes"], 51200);
}
