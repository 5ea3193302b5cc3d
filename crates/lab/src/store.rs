//! Results on disk: written whole or not at all, never over an existing file and never through
//! a symlink or any other name planted in the way ([`Dir`]: every file drivelab writes is made
//! there). Names given for new files are checked before the run ([`check_new_file`]); names made
//! from text (results directories, point files, chart PNGs) come from the one [`slug`] rule,
//! bounded in length.

mod dir;
mod given;

use std::path::{Path, PathBuf};

use drivelab_engine::Error;

/// Why a result file or a results directory is refused: the words defined once, each kind with
/// its paths and limits, so a caller can match (or downcast from [`Error::Refused`]) the kind
/// instead of reading a message. Exit code 2, as every refusal.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{} names a directory, not a file: give a file name", .path.display())]
    NotAFileName { path: PathBuf },
    #[error("{} is not a drivelab result: {error}", .path.display())]
    NotAResult { path: PathBuf, error: serde_json::Error },
    #[error("--results needs a directory: --results DIR")]
    NoResultsDir,
    #[error("--results {}: a name in it is {len} bytes long and a file name can be at most {NAME_MAX}: choose a \
             shorter one", .base.display())]
    NameTooLong { base: PathBuf, len: usize },
    #[error("--results {}: the path is {len} bytes long; at most {RESULTS_BASE_MAX}, so that the files in its \
             results directory stay within the system's 4096-byte path limit: choose a shorter one", .base.display())]
    PathTooLong { base: PathBuf, len: usize },
    #[error("--results {}: {} is not a directory: give --results a directory", .base.display(), .at.display())]
    NotADir { base: PathBuf, at: PathBuf },
    #[error("--results {}: {} is a symlink that leads nowhere ({error}): fix it or give --results another \
             directory", .base.display(), .at.display())]
    DanglingSymlink { base: PathBuf, at: PathBuf, error: std::io::Error },
    #[error("--results {}: a path cannot hold a NUL byte", .base.display())]
    NulByte { base: PathBuf },
    #[error("cannot make the results directory under {}: {} is not writable ({error}): \
             give --results DIR somewhere writable", .base.display(), .dir.display())]
    NotWritable { base: PathBuf, dir: PathBuf, error: std::io::Error },
    #[error("too many results directories named {stem} in {}", .base.display())]
    TooManyDirs { stem: String, base: PathBuf },
    /// A directory drivelab made (or was to make) has a symlink or a file in its place.
    #[error("{} is not the directory drivelab made (a symlink or a file is in its place): drivelab does not \
             write through it; remove it and run again", .path.display())]
    NotOurDir { path: PathBuf },
    /// A name meant as one entry of a directory is not one: drivelab's own mistake.
    #[error("internal: {name} is not a file name")]
    NotOneName { name: String },
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        Error::refused(e)
    }
}

pub use dir::{Dir, Fill};
pub use given::{check_new_file, check_output_file, split, write_output, Existing, GivenError, OutputFile, NAME_MAX};

/// Write `bytes` to `path`, which must not exist (as anything: a dangling symlink included).
/// The directory part of `path` is opened as given; the file is made inside it ([`Dir::write_new`]).
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let Some((dir, name)) = split(path) else {
        return Err(StoreError::NotAFileName { path: path.to_path_buf() }.into());
    };
    Dir::open(dir)?.write_new(name, bytes)
}

/// [`write_new`] of what `fill` writes, streamed into the file.
pub fn write_new_with(path: &Path, fill: Fill) -> Result<(), Error> {
    let Some((dir, name)) = split(path) else {
        return Err(StoreError::NotAFileName { path: path.to_path_buf() }.into());
    };
    Dir::open(dir)?.write_new_with(name, fill)
}

/// `value` as pretty JSON, via `write_new`.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    write_new(path, &json_bytes(value)?)
}

/// `value` as pretty JSON and a newline: what [`write_json`] writes.
pub fn json_bytes<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    let mut text = serde_json::to_vec_pretty(value).map_err(|e| Error::io("encoding JSON", e.into()))?;
    text.push(b'\n');
    Ok(text)
}

/// Read a JSON file written by `write_json`.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = drivelab_engine::input::Input::JSON.read(path)?;
    serde_json::from_slice(&text).map_err(|error| StoreError::NotAResult { path: path.to_path_buf(), error }.into())
}

/// Wall-clock time, Unix epoch ms (0 if the clock is before 1970).
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// `YYYYMMDD-HHMMSS` (UTC) for a Unix time: results directories sort by date.
pub fn utc_stamp(unix_s: u64) -> String {
    let days = (unix_s / 86400) as i64;
    let secs = unix_s % 86400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}{m:02}{d:02}-{:02}{:02}{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The longest `--results` path, in bytes: a results directory's name and `points/<file>` take
/// at most about 260 more, and a path must stay under PATH_MAX (4096).
pub const RESULTS_BASE_MAX: usize = 3500;

/// Can a results directory be made under `base`? Checked before anything is measured or
/// created: `base` names a directory (not empty, no name longer than [`NAME_MAX`]), its nearest
/// existing ancestor is a directory this user may write, and no missing part of it is a symlink
/// that leads nowhere (dangling, or a loop: the directory could never be made through it).
pub fn check_results_base(base: &Path) -> Result<(), Error> {
    let shown = || base.to_path_buf();
    if base.as_os_str().is_empty() {
        return Err(StoreError::NoResultsDir.into());
    }
    if let Some(long) = base.iter().find(|c| c.len() > NAME_MAX) {
        return Err(StoreError::NameTooLong { base: shown(), len: long.len() }.into());
    }
    if base.as_os_str().len() > RESULTS_BASE_MAX {
        return Err(StoreError::PathTooLong { base: shown(), len: base.as_os_str().len() }.into());
    }
    let mut at = base;
    let existing = loop {
        match std::fs::metadata(if at.as_os_str().is_empty() { Path::new(".") } else { at }) {
            Ok(m) if m.is_dir() => break at,
            Ok(_) => return Err(StoreError::NotADir { base: shown(), at: at.to_path_buf() }.into()),
            Err(error) if std::fs::symlink_metadata(at).is_ok_and(|m| m.is_symlink()) => {
                return Err(StoreError::DanglingSymlink { base: shown(), at: at.to_path_buf(), error }.into())
            }
            Err(_) => match at.parent() {
                Some(p) => at = p,
                None => break at,
            },
        }
    };
    let dir = if existing.as_os_str().is_empty() { Path::new(".") } else { existing };
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return Err(StoreError::NulByte { base: shown() }.into());
    };
    // SAFETY: access(2) reads the NUL-terminated path only.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        let error = std::io::Error::last_os_error();
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        return Err(StoreError::NotWritable { base: shown(), dir, error }.into());
    }
    Ok(())
}

/// A new, empty directory `base/<slug of name>-<stamp>` (with `-2`, `-3`... if that exists;
/// `results` when the name has nothing a slug keeps), opened. `base` is the user's choice and
/// opened as named; the new directory is made and opened inside it, never through a symlink.
pub fn new_dir(base: &Path, name: &str, unix_s: u64) -> Result<Dir, Error> {
    std::fs::create_dir_all(base).map_err(|e| Error::io(format!("creating {}", base.display()), e))?;
    let parent = Dir::open(base)?;
    let name = slug(name);
    let name = if name.is_empty() { "results" } else { name.as_str() };
    let stem = format!("{name}-{}", utc_stamp(unix_s));
    for n in 1..1000 {
        let entry = if n == 1 { stem.clone() } else { format!("{stem}-{n}") };
        match parent.make_dir(&entry) {
            Ok(d) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(format!("creating {}", base.join(&entry).display()), e)),
        }
    }
    Err(StoreError::TooManyDirs { stem, base: base.to_path_buf() }.into())
}

/// The longest slug, in bytes: with a point's number and suffix (`0001-<slug>.interrupted.genmap`)
/// or a directory's date, a name stays far below what a filesystem takes ([`NAME_MAX`]).
pub const SLUG_MAX: usize = 100;

/// The one slug rule, for every name drivelab makes from text (point files, results
/// directories, chart PNGs): lower case, ASCII letters, digits and `.` kept, `=` dropped
/// (`qd=4` -> `qd4`), any other run of characters one `-`, no `-` or `.` at either end.
/// Empty when nothing is left: the caller names its own fallback. A slug longer than
/// [`SLUG_MAX`] is cut, and ends with a hash of the whole text instead, so two long names that
/// differ only past the cut still get two names.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * SLUG_MAX));
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            'a'..='z' | '0'..='9' | '.' => out.push(c),
            '=' => {}
            _ => {
                if !out.ends_with('-') {
                    out.push('-');
                }
            }
        }
    }
    let out = out.trim_matches(['-', '.']);
    if out.len() <= SLUG_MAX {
        return out.to_string();
    }
    // The slug is ASCII: any byte index is a character boundary.
    let hash = format!("{:08x}", fnv1a(text.as_bytes()) as u32);
    let head = out[..SLUG_MAX - hash.len() - 1].trim_end_matches(['-', '.']);
    format!("{head}-{hash}")
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust versions and platforms (names
/// made from it are found again by a later drivelab).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// [`slug`] cut to at most `max` characters (still without a `-` or `.` at the end).
pub fn short_slug(text: &str, max: usize) -> String {
    let s: String = slug(text).chars().take(max).collect();
    s.trim_end_matches(['-', '.']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_file_name_safe() {
        assert_eq!(slug("random read qd=4 read=70"), "random-read-qd4-read70");
        assert_eq!(slug("Mixed 4k:70,64k:30 #2"), "mixed-4k-70-64k-30-2");
        assert_eq!(slug("randread 4k qd1 x1 on /mnt/b/t.dat"), "randread-4k-qd1-x1-on-mnt-b-t.dat");
        assert_eq!(slug("../etc"), "etc");
        assert_eq!(slug("  --Latency (µs) p99.9 -- "), "latency-s-p99.9");
        assert_eq!(slug("NVMe qd sweep"), "nvme-qd-sweep");
        assert_eq!(slug("%%"), "");
        assert_eq!(slug("///"), "");
        assert_eq!(short_slug("ab cd ef", 3), "ab");
        assert_eq!(short_slug(&"a ".repeat(100), 60).len(), 59);
        assert!(short_slug("x.y", 2) == "x");
    }

    #[test]
    fn a_streamed_file_is_whole_or_not_there() {
        let dir = std::env::temp_dir().join(format!("drivelab-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.html");
        // Written in pieces, it is the pieces in order.
        write_new_with(&path, &mut |w| (0..1000).try_for_each(|i| write!(w, "{i},"))).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("0,1,2,") && text.ends_with("998,999,"));
        // A fill that fails midway leaves neither the name nor a temporary file.
        let failed = write_new_with(&dir.join("f.html"), &mut |w| {
            w.write_all(&[b'x'; 100_000])?;
            Err(std::io::Error::other("the page could not be made"))
        });
        assert!(failed.unwrap_err().to_string().contains("the page could not be made"));
        let mut left: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, ["r.html"]);
        // Replacing streams too; an existing name is never written by write_new_with.
        Dir::open(&dir).unwrap().replace_with("r.html", &mut |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(write_new_with(&path, &mut |w| w.write_all(b"again")).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn long_slugs_are_cut_and_stay_distinct() {
        let a = slug(&format!("{} a", "name ".repeat(1000)));
        let b = slug(&format!("{} b", "name ".repeat(1000)));
        assert!(a.len() <= SLUG_MAX && b.len() <= SLUG_MAX, "{a}");
        assert_ne!(a, b);
        assert!(a.starts_with("name-name-"), "{a}");
        assert_eq!(slug(&a), a, "a slug is its own slug");
        assert_eq!(a, slug(&format!("{} a", "name ".repeat(1000))), "the same name, the same slug");
        let short = "x".repeat(SLUG_MAX);
        assert_eq!(slug(&short), short);
    }

    #[test]
    fn refusals_keep_their_words_and_their_kind() {
        let long = format!("/tmp/{}", "n".repeat(NAME_MAX + 1));
        let e = check_results_base(Path::new(&long)).unwrap_err();
        assert!(e.is_invalid());
        let want = format!(
            "--results {long}: a name in it is 256 bytes long and a file name can be at most 255: choose a \
             shorter one"
        );
        assert_eq!(e.cli_message(), want);
        assert!(matches!(e.refusal::<StoreError>(), Some(StoreError::NameTooLong { len: 256, .. })));
        let e = check_results_base(Path::new("")).unwrap_err();
        assert_eq!(e.to_string(), "--results needs a directory: --results DIR");
        let e = check_new_file("--json", "").unwrap_err().context("checking");
        assert_eq!(e.to_string(), "checking: --json needs a file name: --json FILE");
        assert!(matches!(e.refusal::<GivenError>(), Some(GivenError::Empty { .. })) && e.is_invalid());
        let e = check_new_file("-o", "/").unwrap_err();
        assert_eq!(e.to_string(), "-o / names a directory: give a file name (-o DIR/FILE)");
        let e = check_new_file("-o", "/no-such-drivelab-dir/x.json").unwrap_err();
        let want = "-o /no-such-drivelab-dir/x.json: the directory /no-such-drivelab-dir does not exist; create it \
                    first";
        assert_eq!(e.to_string(), want);
        assert!(matches!(e.refusal::<GivenError>(), Some(GivenError::NoDir { .. })));
        let e = write_new(Path::new("a/"), b"").unwrap_err();
        assert_eq!(e.to_string(), "a/ names a directory, not a file: give a file name");
    }

    #[test]
    fn stamps_are_utc_calendar_dates() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(utc_stamp(951_782_400), "20000229-000000"); // leap day
        assert_eq!(utc_stamp(1_795_000_000), "20261118-110640");
    }

    #[test]
    fn files_are_never_overwritten() {
        let dir = std::env::temp_dir().join(format!("drivelab-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.json");
        write_json(&p, &vec![1, 2]).unwrap();
        assert_eq!(read_json::<Vec<i32>>(&p).unwrap(), vec![1, 2]);
        let a = new_dir(&dir, "plan", 0).unwrap();
        let b = new_dir(&dir, "plan", 0).unwrap();
        assert_ne!(a.path(), b.path());
        assert!(b.path().ends_with("plan-19700101-000000-2"));
        // Names in the way are refused, never followed: a dangling symlink, a symlink to a file.
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling.json")).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("link.json")).unwrap();
        for name in ["dangling.json", "link.json", "r.json"] {
            let e = write_json(&dir.join(name), &1).unwrap_err().to_string();
            assert!(e.contains("the name exists"), "{e}");
        }
        assert!(!dir.join("nowhere").exists());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        // A refreshed view replaces the symlink itself, not what it points to.
        Dir::open(&dir).unwrap().replace("link.json", b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(dir.join("link.json")).unwrap(), b"new");
        // No temporary file is left behind.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
