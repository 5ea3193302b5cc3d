//! drivelab's tests' own helpers, one copy for every crate's tests (a dev-dependency, never
//! part of the program): how a test that cannot run here says so (`scripts/test` counts the
//! skips and prints why), and the fast tier (`scripts/test --fast`: no root, no devices, no long
//! runs).

/// Says why `test` (or one `part` of it) skips: on stderr, and, when `DRIVELAB_SKIP_LOG` names a
/// file, as one line appended to it: `TEST: WHY` (counted as skipped by `scripts/test`) or
/// `part of TEST (PART): WHY` (listed, not counted: the rest of the test ran). The caller then
/// returns (or goes on without that part).
pub fn log(test: &str, part: Option<&str>, why: &str) {
    let why = why.replace('\n', " ");
    let line = match part {
        None => {
            eprintln!("{test}: skipped: {why}");
            format!("{test}: {why}\n")
        }
        Some(part) => {
            eprintln!("{test}: {part} skipped: {why}");
            format!("part of {test} ({part}): {why}\n")
        }
    };
    if let Some(path) = std::env::var_os("DRIVELAB_SKIP_LOG") {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .expect("append to DRIVELAB_SKIP_LOG");
    }
}

/// [`log`] for the running test, named by its thread (libtest runs each test on a thread named
/// after it).
pub fn skip(why: &str) {
    let thread = std::thread::current();
    log(thread.name().unwrap_or("a test"), None, why)
}

/// [`log`] of a part of the running test.
pub fn skip_part(part: &str, why: &str) {
    let thread = std::thread::current();
    log(thread.name().unwrap_or("a test"), Some(part), why)
}

/// The fast tier (`scripts/test --fast` sets `DRIVELAB_TEST_TIER=fast`): a test that needs root,
/// a device or a long run skips, saying so.
pub fn fast_tier() -> bool {
    std::env::var_os("DRIVELAB_TEST_TIER").is_some_and(|t| t == "fast")
}

/// Why the fast tier skips a test.
pub const FAST_TIER: &str = "the fast tier (scripts/test --fast) runs no devices and no long runs";

/// Skips the running test in the fast tier, saying so; true when it may run.
pub fn full_tier() -> bool {
    if fast_tier() {
        skip(FAST_TIER);
        return false;
    }
    true
}

/// Whether a test may change a machine-wide setting (turn a swap file on, enable a cgroup
/// controller at the hierarchy's root): only when `DRIVELAB_TEST_SYSTEM=1` asks (`.ci/run` does,
/// on a machine of its own). Otherwise the test skips, saying why: the suite leaves a machine as
/// it found it.
pub fn system_changes_allowed() -> bool {
    std::env::var_os("DRIVELAB_TEST_SYSTEM").is_some_and(|v| v == "1")
}

/// Why a test that would change a machine-wide setting skips.
pub const SYSTEM_CHANGES: &str =
    "changes a machine-wide setting (swap, a cgroup controller at the root): set DRIVELAB_TEST_SYSTEM=1 to allow it";
