//! How a test that cannot run here says so, for the tests of every crate (see `scripts/test`).
//! Not part of the engine's API for measuring: it lives here because every test crate already
//! depends on the engine, so there is one copy.

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
