//! Data verification end to end: every fault of the faulty drive (a FUSE file under a loop
//! device, `drivelab-faultdev`) is detected by `drivelab run --verify`, `--verify-after` or
//! `drivelab verify DIR`, named by kind, at the offset where it was put; and healthy targets
//! give no false alarm.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{drivelab, json, need_loop, stderr, stdout, LoopDev, Scratch};
use drivelab_faultdev::{Fault, Rig};

/// The unit every fault is put on: unit 10 of the 1 MiB region the runs use.
const X: u64 = 10 * 4096;

fn rig(name: &str) -> Option<Rig> {
    Rig::new(4 << 20, name)
}

/// `drivelab run DEV ...` with --destroy DEV and --json into `scratch`: exit code and result.
fn run(scratch: &Scratch, dev: &str, args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = scratch.path(&format!("r{}.json", fastrand_suffix()));
    let mut a = vec!["run", dev, "--destroy", dev, "--span", "1m", "--bs", "4k", "--json", &out, "--quiet"];
    a.extend_from_slice(args);
    let o = drivelab(&a);
    let code = o.status.code().unwrap_or(-1);
    assert!(Path::new(&out).exists(), "no result: {}", stderr(&o));
    (code, json(Path::new(&out)), format!("{}{}", stdout(&o), stderr(&o)))
}

fn fastrand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The kind and offset of the first mismatch in `checks` (`verify.inline` or `verify.after`).
fn first(checks: &serde_json::Value) -> (String, u64) {
    let m = &checks["first"][0];
    (m["kind"].as_str().unwrap_or("none").to_string(), m["offset_bytes"].as_u64().unwrap_or(u64::MAX))
}

#[test]
fn a_flipped_bit_is_caught_inline_named_and_stops_the_run() {
    need_loop!();
    let Some(rig) = rig("flip") else { return };
    let s = Scratch::new("verify-flip");
    rig.drive().add(Fault::FlipOnRead { range: X + 200..X + 201, mask: 0b100 });
    // A read workload: the region is written (stamped) first, then every read is checked.
    let (code, v, text) = run(&s, &rig.loop_dev, &["--rw", "randread", "--qd", "4", "--time", "5s", "--verify"]);
    assert_eq!(code, 1, "wrong data is exit 1: {text}");
    let inline = &v["verify"]["inline"];
    assert_eq!(first(inline), ("bit_flip".into(), X), "{inline}");
    assert_eq!(inline["first"][0]["bits"], 1);
    assert_eq!(inline["first"][0]["differs_at_byte"], 200);
    assert_eq!(inline["by_kind"]["bit_flip"], inline["mismatches"]);
    assert!(v["stopped_by_error"].as_bool().unwrap(), "the first wrong unit stops the run");
    assert!(v["runtime_ns"].as_u64().unwrap() < 4_000_000_000, "it stopped at once");
    assert!(text.contains("WRONG DATA"), "{text}");
}

#[test]
fn with_continue_on_error_every_wrong_read_is_counted_and_the_exit_is_still_1() {
    need_loop!();
    let Some(rig) = rig("flipcont") else { return };
    let s = Scratch::new("verify-flipcont");
    rig.drive().add(Fault::FlipOnRead { range: X..X + 4096, mask: 0xff });
    let (code, v, text) =
        run(&s, &rig.loop_dev, &["--rw", "randread", "--qd", "4", "--time", "1s", "--verify", "--continue-on-error"]);
    assert_eq!(code, 1, "{text}");
    let inline = &v["verify"]["inline"];
    let n = inline["mismatches"].as_u64().unwrap();
    let checked = inline["checked_units"].as_u64().unwrap();
    // Unit 10 is one of 256: about 1 read in 256 lands on it.
    assert!(n > 0 && n < checked / 50, "{n} of {checked}");
    assert!(!v["stopped_by_error"].as_bool().unwrap());
    assert!(inline["first"].as_array().unwrap().iter().all(|m| m["offset_bytes"] == X), "{inline}");
    assert_eq!(inline["by_kind"]["foreign"], n, "every byte inverted: no header, not zeros");
}

/// A fault case: its name, the fault, the run's extra flags, and the (kind, offset) expected.
type Case<'a> = (&'a str, Fault, &'a [&'a str], &'a [(&'a str, u64)]);

#[test]
fn lost_misdirected_and_torn_writes_are_found_by_the_reread_at_the_end() {
    need_loop!();
    let cases: [Case; 4] = [
        ("lost", Fault::LoseWrites { range: X..X + 4096, after: 0 }, &["--io-size", "1m"], &[("never_written", X)]),
        // The first write of unit 10 lands, the second (the next pass) is lost.
        ("stale", Fault::LoseWrites { range: X..X + 4096, after: 1 }, &["--io-size", "2m"], &[("stale", X)]),
        // Unit 10's write lands on unit 8 (written just before): unit 8 holds a unit for offset
        // 40960, unit 10 holds nothing.
        (
            "misdirected",
            Fault::Misdirect { range: X..X + 4096, by: -8192 },
            &["--io-size", "1m"],
            &[("misdirected", X - 8192), ("never_written", X)],
        ),
        ("torn", Fault::Tear { range: X..X + 4096, keep: 512 }, &["--io-size", "1m"], &[("torn", X)]),
    ];
    for (name, fault, extra, want) in cases {
        let Some(rig) = rig(name) else { return };
        let s = Scratch::new(&format!("verify-{name}"));
        rig.drive().add(fault.clone());
        let mut args = vec!["--rw", "write", "--qd", "4", "--verify-after"];
        args.extend_from_slice(extra);
        let (code, v, text) = run(&s, &rig.loop_dev, &args);
        assert_eq!(code, 1, "{name}: {text}");
        let after = &v["verify"]["after"];
        assert_eq!(after["checked_units"], 256, "{name}: {after}");
        let found: Vec<(String, u64)> = after["first"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["kind"].as_str().unwrap().to_string(), m["offset_bytes"].as_u64().unwrap()))
            .collect();
        let want: Vec<(String, u64)> = want.iter().map(|(k, o)| (k.to_string(), *o)).collect();
        assert_eq!(found, want, "{name}: {fault:?}: {after}");
        assert_eq!(v["verify"]["inline"]["mismatches"], 0, "{name}: a write-only run checks nothing inline");
    }
}

#[test]
fn drivelab_verify_rechecks_a_saved_run_and_names_unreadable_and_flipped_units() {
    need_loop!();
    let Some(rig) = rig("recheck") else { return };
    let s = Scratch::new("verify-recheck");
    let base = s.path("results");
    let (code, v, text) =
        run(&s, &rig.loop_dev, &["--rw", "write", "--qd", "4", "--io-size", "1m", "--verify", "--results", &base]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(v["verify"]["written_units"], 256);
    let dir = std::fs::read_dir(&base).unwrap().next().unwrap().unwrap().path().to_string_lossy().into_owned();
    assert!(Path::new(&dir).join("points/0001-write-4k-qd4-x1.genmap").is_file(), "the map is saved beside the point");
    let o = drivelab(&["verify", &dir]);
    assert_eq!(o.status.code(), Some(0), "a healthy device: {}", stderr(&o));
    assert!(stdout(&o).contains("256 units checked, 0 wrong"), "{}", stdout(&o));

    rig.drive().add(Fault::FlipOnRead { range: X + 4095..X + 4096, mask: 0x80 });
    rig.drive().add(Fault::Eio { range: 3 * X..3 * X + 4096 });
    let o = drivelab(&["verify", &dir, "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let c = &v[0]["checks"];
    assert_eq!(c["checked_units"], 255, "{c}");
    assert_eq!(
        (c["unreadable_units"].as_u64(), c["first_unreadable_offsets_bytes"][0].as_u64()),
        (Some(1), Some(3 * X))
    );
    assert_eq!(first(c), ("bit_flip".into(), X));
    assert_eq!(c["first"][0]["differs_at_byte"], 4095);
}

#[test]
fn a_write_error_is_an_io_error_at_its_offset_and_its_unit_is_not_checked_after() {
    need_loop!();
    let Some(rig) = rig("eio") else { return };
    let s = Scratch::new("verify-eio");
    // Where drivelab's signature scan does not read before writing (it reads the first and last
    // MiB whole and 280 KiB from each MiB boundary, and refuses a drive it cannot read there): the
    // region is the second MiB, the fault 600 KiB into it.
    let e = (1 << 20) + 600 * 1024;
    rig.drive().add(Fault::Eio { range: e..e + 4096 });
    let (code, v, text) = run(
        &s,
        &rig.loop_dev,
        &["--rw", "write", "--qd", "1", "--io-size", "1m", "--offset", "1m", "--verify-after", "--continue-on-error"],
    );
    assert_eq!(code, 1, "{text}");
    assert_eq!(v["errors"][0]["first_offset_bytes"], e, "{}", v["errors"]);
    assert_eq!(v["verify"]["after"]["checked_units"], 255, "the failed unit's content is unknown: not checked");
    assert_eq!(v["verify"]["after"]["mismatches"], 0);
}

#[test]
fn healthy_targets_give_no_false_alarm_under_mixed_verified_load() {
    need_loop!();
    let s = Scratch::new("verify-healthy");
    let lo = LoopDev::new(&PathBuf::from(s.path("lo.img")), 16 << 20, None);
    let file = s.path("t.dat");
    let cases: [(&str, &[&str]); 2] = [
        (&lo.dev, &["--destroy", &lo.dev, "--rw", "randrw", "--bs", "4k:50,64k:40,8k:10", "--qd", "16", "--jobs", "2"]),
        (
            &file,
            &["--size", "16m", "--rw", "randrw", "--random", "50", "--bs", "4k:70,16k:30", "--qd", "8", "--buffered"],
        ),
    ];
    for (target, extra) in cases {
        let out = s.path("h.json");
        let _ = std::fs::remove_file(&out);
        let mut a = vec!["run", target, "--time", "3s", "--verify-after", "--json", &out, "--quiet"];
        a.extend_from_slice(extra);
        let o = drivelab(&a);
        assert_eq!(o.status.code(), Some(0), "{target}: {}{}", stdout(&o), stderr(&o));
        let v = json(Path::new(&out));
        let vf = &v["verify"];
        assert_eq!(vf["inline"]["mismatches"], 0, "{target}: {vf}");
        assert_eq!(vf["after"]["mismatches"], 0, "{target}: {vf}");
        assert!(vf["inline"]["checked_units"].as_u64().unwrap() > 1000, "{target}: {vf}");
        assert!(vf["written_units"].as_u64().unwrap() > 1000, "{target}: {vf}");
        assert!(vf["after"]["checked_units"].as_u64().unwrap() > 0);
    }
}

#[test]
fn a_plan_that_changes_compressibility_or_targets_between_points_gives_no_false_alarm() {
    if !crate::common::full_tier() {
        return;
    }
    // Units made with another compressibility read as foreign: the lab starts such a target
    // over (written first) instead. Each path keeps one id in its headers, whatever the point's
    // target list; and the whole plan is journaled.
    let s = Scratch::new("verify-plan");
    let plan = s.path("plan.toml");
    let body = "together = true\n[defaults]\nrw = \"randrw\"\ntime = \"1s\"\nqd = 4\nverify_after = true\n\
                [matrix]\ndata = [\"random\", \"compress:50\", \"compress:25\"]\n";
    std::fs::write(&plan, body).unwrap();
    let (a, b) = (s.path("a.dat"), s.path("b.dat"));
    let (results, journal) = (s.path("results"), s.path("journal"));
    let o = drivelab(&["plan", &plan, &a, &b, "--size", "4m", "--results", &results, "--journal", &journal, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let saved = common::Saved::load(&dir);
    assert_eq!(saved.points.len(), 3);
    for p in &saved.points {
        let v = &p["result"]["verify"];
        assert_eq!(v["inline"]["mismatches"], 0, "{v}");
        assert_eq!(v["after"]["mismatches"], 0, "{v}");
        assert!(v["inline"]["checked_units"].as_u64().unwrap() > 100, "{v}");
        assert_eq!(v["target_ids"], serde_json::json!([0, 1]), "{v}");
    }
    let o = drivelab(&["verify", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = drivelab(&["verify", "--journal", &journal]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("every write acknowledged as durable survived"), "{}", stdout(&o));
}

#[test]
fn an_unverified_write_between_verified_points_makes_the_target_unknown_not_wrong() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("verify-unverified");
    let plan = s.path("plan.toml");
    let body = "[defaults]\ntime = \"1s\"\nqd = 4\n\
                [[step]]\nname = \"stamped\"\nrw = \"randwrite\"\nverify = true\n\
                [[step]]\nname = \"plain\"\nrw = \"randwrite\"\n\
                [[step]]\nname = \"checked\"\nrw = \"randread\"\nverify = true\n";
    std::fs::write(&plan, body).unwrap();
    let (t, results) = (s.path("t.dat"), s.path("results"));
    let o = drivelab(&["plan", &plan, &t, "--size", "4m", "--results", &results]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{text}");
    // The plain writes overwrote stamped units: the last step writes its region again first.
    assert!(text.contains("nothing is known to be written in the region"), "{text}");
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let last = &common::Saved::load(&dir).points[2]["result"]["verify"]["inline"];
    assert_eq!(last["mismatches"], 0, "{last}");
    assert!(last["checked_units"].as_u64().unwrap() > 100, "{last}");
}

#[test]
fn a_suite_verifies_every_point_it_can() {
    if !crate::common::full_tier() {
        return;
    }
    let s = Scratch::new("verify-suite");
    let (t, results) = (s.path("t.dat"), s.path("results"));
    let o =
        drivelab(&["suite", "quick", &t, "--size", "8m", "--time", "300ms", "--verify", "--results", &results, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let dir = std::fs::read_dir(&results).unwrap().next().unwrap().unwrap().path();
    let saved = common::Saved::load(&dir);
    assert!(saved.points.len() >= 4, "{}", saved.points.len());
    let mut checked = 0;
    for p in &saved.points {
        let v = &p["result"]["verify"];
        assert_eq!(v["inline"]["mismatches"], 0, "{v}");
        checked += v["inline"]["checked_units"].as_u64().unwrap();
    }
    assert!(checked > 1000, "reads were checked: {checked}");
}
