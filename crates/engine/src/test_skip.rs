//! How a unit test that cannot run here says so (see `scripts/test`).

/// Says why the running test skips: on stderr, and, when `DRIVELAB_SKIP_LOG` names a file, as one
/// line `TEST: WHY` appended to it, so `scripts/test` counts the test as skipped rather than passed.
/// The caller then returns.
pub(crate) fn skip(why: &str) {
    // libtest runs each test on a thread named after it.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let why = why.replace('\n', " ");
    eprintln!("{test}: skipped: {why}");
    if let Some(path) = std::env::var_os("DRIVELAB_SKIP_LOG") {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{test}: {why}\n").as_bytes()))
            .expect("append to DRIVELAB_SKIP_LOG");
    }
}
