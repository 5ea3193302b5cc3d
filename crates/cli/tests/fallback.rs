//! Where io_uring is unavailable, drivelab says so in one line and runs the workload with psync.
//!
//! This test switches io_uring off for the whole machine (`kernel.io_uring_disabled = 2`), so it
//! lives alone in its own test binary: cargo runs test binaries one after another, so no other
//! test sees the setting, and a guard restores it even if the test fails.

mod common;

use std::path::Path;

use common::{drivelab, json, stderr, Scratch};

const KNOB: &str = "/proc/sys/kernel/io_uring_disabled";

struct Restore(String);
impl Drop for Restore {
    fn drop(&mut self) {
        let _ = std::fs::write(KNOB, &self.0);
    }
}

#[test]
fn without_io_uring_the_run_falls_back_to_psync_with_a_notice() {
    let Ok(old) = std::fs::read_to_string(KNOB) else {
        common::skip(&format!("this kernel has no {KNOB}"));
        return;
    };
    if std::fs::write(KNOB, "2").is_err() {
        common::skip(&format!("cannot write {KNOB} (needs root)"));
        return;
    }
    let _restore = Restore(old.trim().to_string());
    let s = Scratch::new("fallback");
    let f = s.path("t");
    let out = s.path("r.json");
    let o = drivelab(&["run", &f, "--size", "8m", "--qd", "4", "--time", "300ms", "--json", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().filter(|l| l.contains("falling back to psync")).count(), 1, "one notice: {err}");
    let v = json(Path::new(&out));
    assert_eq!(v["engine"]["backend"], "psync");
    assert_eq!(v["spec"]["qd"], 1);
    assert_eq!(v["spec"]["jobs"], 4, "qd 4 runs as 4 psync jobs");
    assert!(v["read"]["ops"].as_u64().unwrap() > 0);
    assert!(v["notices"][0].as_str().unwrap().contains("psync"));
}
