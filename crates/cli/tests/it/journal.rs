//! Crash consistency end to end: `drivelab run --verify --journal` on the faulty drive (a FUSE
//! file under a loop device, `drivelab-faultdev`) with a write cache, killed with SIGKILL in the
//! middle of its writes, then a "power cut" of the drive; `drivelab verify --journal` must report
//! the writes a lying drive acknowledged as durable and lost, none on an honest drive, and never
//! call a write that was in flight lost.

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{drivelab, need_loop, stderr, stdout, Scratch};
use drivelab_faultdev::{Cache, Rig};

/// Start `drivelab run DEV --verify --journal J ...` writing at random, wait until its journal
/// holds `records` frames' worth of bytes, SIGKILL it, and cut the drive's power.
fn crash(rig: &Rig, journal: &str, args: &[&str]) {
    let dev = rig.loop_dev.as_str();
    let mut a = vec!["run", dev, "--destroy", dev, "--span", "1m", "--rw", "randwrite", "--bs", "4k", "--qd", "8"];
    a.extend_from_slice(&["--time", "60s", "--verify", "--journal", journal, "--quiet", "--json", "-"]);
    a.extend_from_slice(args);
    let dir = Scratch::new("journal-run");
    let mut child = crate::common::bin()
        .current_dir(&dir.0)
        .args(&a)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start drivelab");
    let t0 = Instant::now();
    // Enough writes to have some of every kind: 20 KB of journal is ~400 records.
    while std::fs::metadata(journal).map_or(0, |m| m.len()) < 20_000 {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            panic!("drivelab ended before the crash ({status}): {}", stderr(&out));
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "the journal did not grow");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The last close of a block device writes its cache back (the kernel syncs it on release):
    // held open here, the crash leaves the drive's cache as the kill found it. Opened only now,
    // while drivelab writes: a device another program has open is refused before a run starts.
    let _held = std::fs::File::open(dev).unwrap();
    // Every process of it (the one it forked to run in a session of its own too), waited for
    // until each has ended.
    crate::common::kill_tree(&mut child);
    // What the kernel had under way when the process died (its ring is torn down after it is
    // reaped; an fsync already issued still reaches the drive) settles before the power goes:
    // the device's own count of requests in flight reaches 0.
    let inflight = format!("/sys/block/{}/inflight", dev.trim_start_matches("/dev/"));
    let busy = || std::fs::read_to_string(&inflight).is_ok_and(|t| t.split_whitespace().any(|n| n != "0"));
    while busy() {
        std::thread::yield_now();
    }
    rig.drive().power_cut();
}

/// `drivelab verify --journal J DEV --json`: exit code and report.
fn verify(journal: &str, dev: &str) -> (i32, serde_json::Value, String) {
    let o = drivelab(&["verify", "--journal", journal, dev, "--json"]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {text}"));
    let t = &v["targets"][0];
    eprintln!(
        "durable {} checked, {} lost; not durable {}",
        t["durable"]["checked_units"], t["durable"]["mismatches"], t["not_durable"]
    );
    (o.status.code().unwrap_or(-1), v, text)
}

#[test]
fn a_lying_drive_loses_writes_it_acknowledged_as_durable_and_the_journal_names_them() {
    need_loop!();
    let Some(rig) = Rig::new(4 << 20, "lying") else { return };
    let s = Scratch::new("journal-lying");
    let j = s.path("journal");
    rig.drive().set_cache(Cache::Lying);
    crash(&rig, &j, &["--sync", "dsync"]);
    let (code, v, text) = verify(&j, &rig.loop_dev);
    assert_eq!(code, 1, "durable writes lost is exit 1: {text}");
    let t = &v["targets"][0];
    let lost = t["durable"]["mismatches"].as_u64().unwrap();
    let checked = t["durable"]["checked_units"].as_u64().unwrap();
    // Every write since the cache was turned on is gone, each one acknowledged with O_DSYNC.
    assert!(lost > 50 && lost == checked, "{lost} lost of {checked}: {t}");
    assert_eq!(t["durable"]["by_kind"]["never_written"], lost, "the media was all zeros: {t}");
    assert!(v["records"].as_u64().unwrap() > 300, "{v}");
    // The human report says so.
    let o = drivelab(&["verify", "--journal", &j, &rig.loop_dev]);
    assert!(stdout(&o).contains("LOST: the drive acknowledged these writes as durable"), "{}", stdout(&o));
}

#[test]
fn an_honest_drive_with_o_dsync_loses_nothing_and_in_flight_writes_are_never_called_lost() {
    need_loop!();
    let Some(rig) = Rig::new(4 << 20, "honest") else { return };
    let s = Scratch::new("journal-honest");
    let j = s.path("journal");
    rig.drive().set_cache(Cache::Volatile);
    crash(&rig, &j, &["--sync", "dsync"]);
    let (code, v, text) = verify(&j, &rig.loop_dev);
    assert_eq!(code, 0, "{text}");
    let t = &v["targets"][0];
    assert_eq!(t["durable"]["mismatches"], 0, "{t}");
    assert!(t["durable"]["checked_units"].as_u64().unwrap() > 50, "{t}");
    // With O_DSYNC, an acknowledged write is durable: only writes in flight may be missing.
    assert_eq!(t["not_durable"]["acked_lost_units"], 0, "{t}");
}

#[test]
fn without_o_dsync_writes_since_the_last_fsync_may_be_lost_and_are_reported_apart() {
    need_loop!();
    let Some(rig) = Rig::new(4 << 20, "fsync") else { return };
    let s = Scratch::new("journal-fsync");
    let j = s.path("journal");
    rig.drive().set_cache(Cache::Volatile);
    crash(&rig, &j, &["--sync", "fsync:64"]);
    let (code, v, text) = verify(&j, &rig.loop_dev);
    assert_eq!(code, 0, "what an fsync covered survived: {text}");
    let t = &v["targets"][0];
    assert_eq!(t["durable"]["mismatches"], 0, "{t}");
    assert!(t["durable"]["checked_units"].as_u64().unwrap() > 0, "{t}");
    // Written after the last fsync the journal recorded: reported apart, as information — lost
    // from the volatile cache by the power cut, or landed when the kill caught an fsync under
    // way (it still reached the drive, but its barrier never reached the journal).
    let n = &t["not_durable"];
    let apart: u64 =
        ["landed_units", "acked_lost_units", "in_flight_not_landed_units"].iter().map(|k| n[k].as_u64().unwrap()).sum();
    assert!(apart > 0, "{t}");
}

#[test]
fn a_journal_needs_verify_a_new_file_and_the_journals_own_targets() {
    let s = Scratch::new("journal-input");
    let f = s.path("f.dat");
    let j = s.path("j");
    // Without --verify: refused, nothing created.
    let o = drivelab(&["run", &f, "--size", "1m", "--rw", "randwrite", "--time", "1s", "--journal", &j, "--quiet"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("add --verify"), "{}", stderr(&o));
    assert!(!Path::new(&j).exists());
    // A verifying run journals; a second run refuses to touch the journal.
    let run = |extra: &[&str]| {
        let mut a = vec!["run", &f, "--size", "1m", "--rw", "randwrite", "--time", "1s", "--verify", "--journal", &j];
        a.extend_from_slice(extra);
        a.push("--quiet");
        drivelab(&a)
    };
    let o = run(&["--sync", "dsync"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let len = std::fs::metadata(&j).unwrap().len();
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("never appended to or overwritten"), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(&j).unwrap().len(), len, "the journal is untouched");
    // A clean end: every durable write is there.
    let o = drivelab(&["verify", "--journal", &j]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("every write acknowledged as durable survived"), "{}", stdout(&o));
    // More targets than the journal has, and a target too small: exit 2, named.
    let o = drivelab(&["verify", "--journal", &j, &f, &f]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let small = s.path("small");
    std::fs::write(&small, [0u8; 4096]).unwrap();
    let o = drivelab(&["verify", "--journal", &j, &small]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("give the target it journaled"), "{}", stderr(&o));
    let o = drivelab(&["verify", "--journal", &f]);
    assert_eq!(o.status.code(), Some(2), "not a journal: {}", stderr(&o));
}

#[test]
fn act_refuses_a_journal_it_could_not_keep() {
    let s = Scratch::new("journal-act");
    let j = s.path("j");
    let o = drivelab(&["act", "null", "--journal", &j, "--time", "1s"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("act's streams do not verify"), "{}", stderr(&o));
    assert!(!Path::new(&j).exists());
}

#[test]
fn preconditioning_a_verified_plan_is_stamped_known_and_journaled() {
    // Both kinds of preconditioning write the target whole; with verify they stamp it as the
    // points do, so the plan's first verifying read needs no write of its own and the journal
    // holds every write (it refuses runs that do not verify).
    let s = Scratch::new("journal-precondition");
    let plan = s.path("plan.toml");
    let body = "[defaults]\ntime = \"500ms\"\nqd = 4\nverify = true\n\
                [precondition]\nrw = \"write\"\nbs = \"64k\"\nio_size = \"4m\"\n\
                [matrix]\nrw = [\"randread\", \"randwrite\"]\n";
    std::fs::write(&plan, body).unwrap();
    let (t, results, j) = (s.path("t.dat"), s.path("results"), s.path("journal"));
    let o =
        drivelab(&["plan", &plan, &t, "--size", "4m", "--precondition", "1", "--results", &results, "--journal", &j]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(!text.contains("nothing is known to be written"), "the precondition's data is known: {text}");
    let o = drivelab(&["verify", "--journal", &j, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["segments"], 4, "the plan's [precondition], one --precondition pass, two points: {v}");
    assert!(v["targets"][0]["durable"]["checked_units"].as_u64().unwrap() == 0, "no sync: nothing durable: {v}");
    assert!(v["targets"][0]["not_durable"]["landed_units"].as_u64().unwrap() >= 1024, "{v}");
}
