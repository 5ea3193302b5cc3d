//! Where results and lines go: `--json` files (written whole or not at all through `lab::store`,
//! never over an existing file, checked before the run so nothing is measured in vain), and
//! standard output, where a closed pipe (`| head`) silences drivelab instead of killing it or
//! stopping a run (the reader chose to stop reading: exit 0), while any other failure (a full
//! disk, an I/O error) is said once on stderr and makes the process exit 1 ([`stdout_failed`]):
//! output that was lost is never a success. The run itself goes on either way, so its results
//! directory is complete.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use drivelab_engine::result::RunResult;
use drivelab_engine::Error;

/// Standard output stopped accepting lines (closed pipe or a write error already reported).
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
/// What would go to standard output goes to stderr (`drivelab fio`: stdout is fio's output).
static DIVERTED: AtomicBool = AtomicBool::new(false);
/// Writing standard output failed for a reason other than a closed pipe.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// True when some output was lost for a reason other than a closed pipe (the exit code says so).
pub fn stdout_failed() -> bool {
    STDOUT_FAILED.load(Ordering::Relaxed)
}

/// Note how a write to standard output failed: a closed pipe quietly, anything else on stderr
/// and in the exit code.
pub fn stdout_error(e: &std::io::Error) {
    STDOUT_GONE.store(true, Ordering::Relaxed);
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        STDOUT_FAILED.store(true, Ordering::Relaxed);
        // Not eprintln!: with stderr full as well, saying so must not panic.
        let _ = writeln!(std::io::stderr(), "drivelab: writing to standard output: {e}");
    }
}

/// Write `text` to standard output as it is. A closed pipe makes every later write a no-op (the
/// run goes on and its results are saved); any other failure is reported once on stderr and
/// ends the process with exit code 1.
pub fn stdout_text(text: &str) {
    // Nothing a terminal obeys leaves drivelab (saved labels, job names... may be anyone's).
    let text = drivelab_engine::printable::printable(text);
    if DIVERTED.load(Ordering::Relaxed) {
        let _ = std::io::stderr().write_all(text.as_bytes());
        return;
    }
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        stdout_error(&e);
    }
}

/// Standard output as [`stdout_stream`] writes it: a failed write is kept (the caller learns it
/// failed; the failure is reported as [`stdout_text`]'s are).
struct Watched<W: Write> {
    inner: W,
    failed: Option<std::io::Error>,
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| self.note(e))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|e| self.note(e))
    }
}

impl<W: Write> Watched<W> {
    fn note(&mut self, e: &std::io::Error) {
        if self.failed.is_none() {
            self.failed = Some(std::io::Error::new(e.kind(), e.to_string()));
        }
    }
}

/// Write what `f` writes to standard output as [`stdout_text`] would print it (escaped, buffered,
/// silenced by a closed pipe, any other failure reported and in the exit code): a document
/// written out as it is made, never held whole. `f`'s own error is returned; one that only
/// says standard output failed is reported here instead, as `stdout_text` reports it.
pub fn stdout_stream<E>(f: impl FnOnce(&mut dyn Write) -> Result<(), E>) -> Result<(), E> {
    if STDOUT_GONE.load(Ordering::Relaxed) && !DIVERTED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let sink: Box<dyn Write> = if DIVERTED.load(Ordering::Relaxed) {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    };
    let mut out = Watched { inner: std::io::BufWriter::with_capacity(1 << 16, sink), failed: None };
    let mut text = drivelab_engine::printable::PrintableWriter::new(&mut out);
    let written = f(&mut text);
    // Whatever the escaper held (an unfinished character) goes out too; a failure shows in `out`.
    let _ = text.into_inner();
    let _ = out.flush();
    match (written, out.failed.take()) {
        (_, Some(e)) if !DIVERTED.load(Ordering::Relaxed) => {
            stdout_error(&e);
            Ok(())
        }
        (w, _) => w,
    }
}

/// Send what [`stdout_text`] is given to stderr instead (`on`), or to stdout again: `drivelab
/// fio` keeps standard output for fio's output while its plan runs.
pub fn divert_to_stderr(on: bool) {
    DIVERTED.store(on, Ordering::Relaxed);
}

/// fio's `--status-interval` reports held for its `--output` file (None: they go to stdout).
static FIO_STATUS_HELD: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// A report of `drivelab fio --status-interval`: on stdout as fio writes it (whatever
/// [`divert_to_stderr`] says: stdout is fio's), or held for the `--output` file
/// ([`hold_fio_status`]).
pub fn fio_status_text(text: &str) {
    if let Some(held) = FIO_STATUS_HELD.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        held.push_str(text);
        return;
    }
    let was = DIVERTED.swap(false, Ordering::Relaxed);
    stdout_text(text);
    DIVERTED.store(was, Ordering::Relaxed);
}

/// fio's opening lines (its job lines, `Starting N processes`, `Laying out IO file`) waiting for
/// the plan's checks to pass ([`release_fio_opening`]): a job refused before any I/O says only
/// why, as a refusal of drivelab's says it, with nothing of fio's run on stdout.
static FIO_OPENING: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Hold `text`, fio's opening lines, until the run is checked and starts.
pub fn hold_fio_opening(text: String) {
    *FIO_OPENING.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
}

/// Write the held opening lines on stdout (whatever [`divert_to_stderr`] says: stdout is fio's),
/// once; nothing if none are held. Called when the results directory is made: every check passed.
pub fn release_fio_opening() {
    let held = FIO_OPENING.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(text) = held {
        let was = DIVERTED.swap(false, Ordering::Relaxed);
        stdout_text(&text);
        DIVERTED.store(was, Ordering::Relaxed);
    }
}

/// Hold the status reports for the `--output` file from now; the ones held so far are taken.
pub fn hold_fio_status() -> String {
    FIO_STATUS_HELD.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(String::new).split_off(0)
}

/// `line` and a newline on standard error, its unsafe characters escaped
/// ([`drivelab_engine::printable`]). Never panics (a full or closed stderr loses the line).
pub fn stderr_line(line: &str) {
    let mut text = shorten_long_words(&drivelab_engine::printable::printable(line)).into_owned();
    text.push('\n');
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// The longest word a line on stderr shows whole (a path of PATH_MAX fits).
const LONGEST_WORD: usize = 4096;

/// `text` with every word (a run without whitespace) longer than [`LONGEST_WORD`] characters cut
/// to its first 200 and its length: an error names a hostile 100,000-character value without
/// echoing it whole.
fn shorten_long_words(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= LONGEST_WORD || !text.split_whitespace().any(|w| w.chars().count() > LONGEST_WORD) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(LONGEST_WORD * 2);
    let mut rest = text;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(word_end);
        let chars = word.chars().count();
        if chars > LONGEST_WORD {
            out.extend(word.chars().take(200));
            out.push_str(&format!("…({chars} characters)"));
        } else {
            out.push_str(word);
        }
        let space_end = tail.find(|c: char| !c.is_whitespace()).unwrap_or(tail.len());
        out.push_str(&tail[..space_end]);
        rest = &tail[space_end..];
    }
    std::borrow::Cow::Owned(out)
}

/// `line` and a newline on standard output (see [`stdout_text`]).
pub fn stdout_line(line: &str) {
    stdout_text(&format!("{line}\n"));
}

/// Refuse a `--json` path drivelab cannot create as a new file (checked before the run, so
/// nothing is measured in vain; see `store::check_new_file`). `-` is standard output.
pub fn check_json_path(path: &str) -> Result<(), Error> {
    if path == "-" {
        return Ok(());
    }
    drivelab_lab::store::check_new_file("--json", path)
}

/// Write `result` to `path` (whole or not at all, never over a file; `-`: standard output).
pub fn write_json(path: &str, result: &RunResult) -> Result<(), Error> {
    if path == "-" {
        let text = serde_json::to_string_pretty(result).map_err(|e| Error::io("encoding JSON", e.into()))?;
        stdout_line(&text);
        return Ok(());
    }
    drivelab_lab::store::write_json(Path::new(path), result)
}

/// An MPI rank other than 0: rank 0 prints for every rank (their refusals and errors are agreed
/// and said there), so this one's standard output and error go to /dev/null. `DRIVELAB_RANK_LOG`
/// keeps its standard error, to debug a rank.
pub fn silence() {
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else { return };
    let keep_stderr = std::env::var_os("DRIVELAB_RANK_LOG").is_some();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&null);
    // SAFETY: dup2 onto the standard descriptors replaces what they refer to; no Rust object owns
    // fds 1 and 2, and `null` stays open until dup2 has copied it.
    unsafe {
        libc::dup2(fd, 1);
        if !keep_stderr {
            libc::dup2(fd, 2);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_word_past_the_longest_is_cut_to_its_start_and_its_length() {
        let long = "9".repeat(100_000);
        let line = format!("drivelab: --bs '{long}' is not a size:\tgive 4k");
        let short = super::shorten_long_words(&line);
        assert!(short.len() < 300, "{short}");
        assert!(short.starts_with("drivelab: --bs '999"), "{short}");
        assert!(short.ends_with("…(100002 characters) is not a size:\tgive 4k"), "{short}");
        let path = format!("/{}", "a".repeat(4094));
        let fine = format!("cannot open {path}: no such file");
        assert_eq!(super::shorten_long_words(&fine), fine.as_str());
    }
}
