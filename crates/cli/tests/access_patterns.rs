//! Skewed random access from the command line: `--distribution` (fio's `random_distribution`)
//! on null, a file and a loop device; the result says which was run; bad values exit 2, named.
//! (The shares of I/O each distribution puts on its hottest blocks are tested against theory in
//! the engine: `crates/engine/src/gen/skew_tests.rs`.)

mod common;

use std::path::{Path, PathBuf};

use common::{drivelab, json, need_loop, stderr, LoopDev, Scratch};

#[test]
fn every_distribution_runs_on_null_a_file_and_a_block_device_and_is_recorded() {
    need_loop!();
    let s = Scratch::new("skew");
    let lo = LoopDev::new(&PathBuf::from(s.path("lo.img")), 16 << 20, None);
    let file = s.path("f.dat");
    let targets: [(&str, &[&str]); 3] =
        [("null", &[]), (&file, &["--size", "16m"]), (&lo.dev, &["--destroy", &lo.dev])];
    for d in ["zipf:1.2", "pareto:0.2", "normal:10", "zoned:60/10:30/20:10/70", "zoned_abs:50/1m:50/8m", "zipf:0.9:0.5"]
    {
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
