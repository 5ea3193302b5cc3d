//! Skewed random access from the command line: `--distribution` (fio's `random_distribution`)
//! on null, a file and a loop device; the result says which was run; bad values exit 2, named.
//! (The shares of I/O each distribution puts on its hottest blocks are tested against theory in
//! the engine: `crates/engine/src/gen/skew_tests.rs`.)

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, need_loop, stderr, LoopDev, Scratch};

#[test]
fn every_distribution_runs_on_null_a_file_and_a_block_device_and_is_recorded() {
    need_loop!();
    let s = Scratch::new("skew");
    let lo = LoopDev::new(&PathBuf::from(s.path("lo.img")), 16 << 20, None);
    let file = s.path("f.dat");
    let targets: [(&str, &[&str]); 3] =
        [("null", &[]), (&file, &["--size", "16m"]), (&lo.dev, &["--destroy", &lo.dev])];
    for d in [
        "zipf:1.2",
        "pareto:0.2",
        "normal:10",
        "zoned:60/10:30/20:10/70",
        "zoned_abs:50/1m:50/8m",
        "zipf:0.9:0.5",
        "hotband:40/60",
        "hotband:90/110",
    ] {
        for (t, extra) in &targets {
            let out = s.path("r.json");
            let _ = std::fs::remove_file(&out);
            let mut a = vec!["run", t, "--rw", "randrw", "--qd", "4", "--time", "300ms", "--distribution", d];
            a.extend_from_slice(&["--json", &out, "--quiet"]);
            a.extend_from_slice(extra);
            let o = drivelab(&a);
            assert_eq!(o.status.code(), Some(0), "{d} on {t}: {}", stderr(&o));
            let v = json(Path::new(&out));
            assert_eq!(v["spec"]["distribution"], d, "{d} on {t}");
            assert!(v["total"]["ops"].as_u64().unwrap() > 10, "{d} on {t}");
        }
    }
    // fio's spelling, and a plain uniform run records nothing.
    let out = s.path("u.json");
    let o = drivelab(&["run", "null", "--random_distribution", "zipf:1.1", "--time", "100ms", "--json", &out, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(Path::new(&out))["spec"]["distribution"], "zipf:1.1");
}

#[test]
fn a_bad_distribution_is_exit_2_naming_the_value_and_the_fix() {
    for (d, says) in
        [("zipf:0", "must be above 0"), ("zoned:60/10", "add up to 60%"), ("gamma:2", "not a distribution")]
    {
        let o = drivelab(&["run", "null", "--distribution", d, "--time", "100ms"]);
        assert_eq!(o.status.code(), Some(2), "{d}");
        assert!(stderr(&o).contains("--distribution") && stderr(&o).contains(says), "{d}: {}", stderr(&o));
    }
}

#[test]
fn absolute_zones_larger_than_the_region_are_refused() {
    let o = drivelab(&["run", "null", "--span", "1g", "--distribution", "zoned_abs:50/1g:50/1g", "--time", "100ms"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("zones cover 2147483648 bytes"), "{}", stderr(&o));
}

/// IOPS and p50 latency (ns) of `drivelab run null ... --time 1s`.
fn iops_p50(s: &Scratch, args: &[&str]) -> (f64, u64) {
    let out = s.path("t.json");
    let _ = std::fs::remove_file(&out);
    let mut a = vec!["run", "null", "--rw", "randread", "--time", "1s", "--json", &out, "-q"];
    a.extend_from_slice(args);
    let o = drivelab(&a);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let v = json(Path::new(&out));
    (v["total"]["iops"].as_f64().unwrap(), v["total"]["lat_ns"]["p50"].as_u64().unwrap())
}

#[test]
fn think_time_stalls_after_every_n_ios_as_fio_does_and_is_never_latency() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("think");
    // Only upper bounds: the think time caps the rate (null runs millions a second without it);
    // how close to the cap a run gets depends on how busy the machine is, not on drivelab.
    // 1 ms after every I/O: at most 1000 per second, whatever the queue depth (fio: "no more
    // than 1 I/O will be queued before we have to complete it and do our thinktime"; fio 3.33
    // on null here: 993 at QD1, 997 at QD8, 9955 with blocks 10, 1991 by issue of 4 at 2 ms).
    for qd in ["1", "8"] {
        let (iops, p50) = iops_p50(&s, &["--qd", qd, "--thinktime", "1ms"]);
        assert!(iops > 0.0 && iops <= 1001.0, "qd {qd}: {iops}");
        assert!(p50 < 100_000, "think time is not in the latency: p50 {p50} ns");
    }
    // After every 10, counted by completion; a bare number is microseconds (fio's unit).
    let (iops, _) = iops_p50(&s, &["--qd", "1", "--thinktime", "1000", "--thinktime-blocks", "10"]);
    assert!(iops > 0.0 && iops <= 10_010.0, "{iops}");
    // By issue, with part of it spun.
    let (iops, _) = iops_p50(
        &s,
        &[
            "--qd",
            "8",
            "--thinktime",
            "2ms",
            "--thinktime_spin",
            "500us",
            "--thinktime_blocks",
            "4",
            "--thinktime_blocks_type",
            "issue",
        ],
    );
    assert!(iops > 0.0 && iops <= 2001.0, "{iops}");
    // On a file too (a block device takes the same path through the engine).
    let f = s.path("think.dat");
    let o = drivelab(&[
        "run",
        &f,
        "--size",
        "4m",
        "--qd",
        "4",
        "--thinktime",
        "2ms",
        "--time",
        "1s",
        "--json",
        &s.path("f.json"),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let iops = json(Path::new(&s.path("f.json")))["total"]["iops"].as_f64().unwrap();
    assert!(iops > 0.0 && iops <= 501.0, "file: {iops}");
    // Shaping without the time itself does nothing, as in fio (a job file's [global] often
    // shapes a think time only some jobs have).
    let o = drivelab(&["run", "null", "--time", "100ms", "--thinktime-blocks", "4", "--json", &s.path("n.json"), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(json(Path::new(&s.path("n.json")))["spec"]["think"].is_null(), "no think time");
    // With a fixed rate: exit 2, named.
    {
        let bad = &["--thinktime", "1ms", "--rate", "1000"][..];
        let mut a = vec!["run", "null", "--time", "100ms"];
        a.extend_from_slice(bad);
        let o = drivelab(&a);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(stderr(&o).contains("--thinktime"), "{bad:?}: {}", stderr(&o));
    }
}
