//! A file name the user gives drivelab to create (`--json`, `-o`, `--act-log`), checked before
//! anything is run or written: a run that cannot save its result must not run at all. Any
//! existing name is refused — a symlink too, dangling or not (`symlink_metadata`, never
//! `exists()`, which follows it and says a dangling one is free) — and so are a name that is not
//! a file name (empty, ending in `/`), one longer than a file name may be, a directory that is
//! missing or is not a directory, and a directory this user cannot create files in.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use drivelab_engine::Error;

use super::dir::Dir;

/// Why a file name given for a new file (`--json`, `-o`, `--act-log`) is refused: the words
/// defined once, each kind with the flag and the name given, so a caller can match (or
/// downcast from [`Error::Refused`]) the kind. Exit code 2; nothing was run.
#[derive(Debug, thiserror::Error)]
pub enum GivenError {
    #[error("{flag} needs a file name: {flag} FILE")]
    Empty { flag: String },
    #[error("{flag} {given} names a directory: give a file name ({flag} DIR/FILE)")]
    NamesADir { flag: String, given: String },
    #[error(
        "{flag} {given}: the file name is {len} bytes long and a file name can be at most {NAME_MAX}: choose a \
             shorter name (nothing was run)"
    )]
    NameTooLong { flag: String, given: String, len: usize },
    /// The name exists already; `why` says as what.
    #[error("{flag} {given} {}; remove it or choose another name (nothing was run)", .why.words())]
    Exists { flag: String, given: String, why: Existing },
    #[error("{flag} {given}: the directory {} does not exist; create it first", .dir.display())]
    NoDir { flag: String, given: String, dir: PathBuf },
    #[error("{flag} {given}: {} is not a directory (a file is in the way): choose another path", .dir.display())]
    DirNotADir { flag: String, given: String, dir: PathBuf },
    #[error("{flag} {given}: the path is too long ({error}): choose a shorter one")]
    PathTooLong { flag: String, given: String, error: std::io::Error },
    #[error("{flag} {given} cannot be written ({error}): choose a place you can write to (nothing was run)")]
    NotWritable { flag: String, given: String, error: std::io::Error },
}

/// What a name given for a new file already is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    Symlink,
    Dir,
    File,
    Other,
}

impl Existing {
    fn words(self) -> &'static str {
        match self {
            Existing::Symlink => "is a symlink: drivelab never writes through one (nor over a name that exists)",
            Existing::Dir => "is a directory: give a file name",
            Existing::File => "exists: drivelab never overwrites files",
            Existing::Other => "exists (a FIFO, socket or device): drivelab only ever creates a new file",
        }
    }
}

impl From<GivenError> for Error {
    fn from(e: GivenError) -> Error {
        Error::refused(e)
    }
}

/// The longest file name Linux filesystems take (NAME_MAX), in bytes.
pub const NAME_MAX: usize = 255;

/// `path` as its directory (`.` when none is given) and its last name; None when it names no
/// file: empty, or ending in `/`, `.` or `..`.
pub fn split(path: &Path) -> Option<(&Path, &OsStr)> {
    let bytes = path.as_os_str().as_bytes();
    let cut = bytes.iter().rposition(|&b| b == b'/');
    let name = OsStr::from_bytes(&bytes[cut.map_or(0, |i| i + 1)..]);
    if name.is_empty() || name == "." || name == ".." {
        return None;
    }
    let dir = match cut {
        None => Path::new("."),
        Some(0) => Path::new("/"),
        Some(i) => Path::new(OsStr::from_bytes(&bytes[..i])),
    };
    Some((dir, name))
}

/// Refuse `given` for `flag` unless drivelab can create it as a new file (see the module doc).
/// Every refusal names the value and the fix; nothing is created (but a probe file, removed).
pub fn check_new_file(flag: &str, given: &str) -> Result<(), Error> {
    let (flag, given) = (flag.to_string(), given.to_string());
    if given.is_empty() {
        return Err(GivenError::Empty { flag }.into());
    }
    let path = Path::new(&given);
    let Some((dir, name)) = split(path) else {
        return Err(GivenError::NamesADir { flag, given }.into());
    };
    if name.len() > NAME_MAX {
        return Err(GivenError::NameTooLong { len: name.len(), flag, given }.into());
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) => {
            let t = m.file_type();
            let why = if t.is_symlink() {
                Existing::Symlink
            } else if t.is_dir() {
                Existing::Dir
            } else if t.is_file() {
                Existing::File
            } else {
                Existing::Other
            };
            return Err(GivenError::Exists { flag, given, why }.into());
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(unusable(&flag, &given, dir, e).into()),
    }
    let opened = Dir::open(dir).map_err(|e| match e {
        Error::Io { source, .. } => unusable(&flag, &given, dir, source).into(),
        other => other,
    })?;
    opened.probe().map_err(|error| GivenError::NotWritable { flag, given, error }.into())
}

/// Why `given`'s directory `dir` cannot take it.
fn unusable(flag: &str, given: &str, dir: &Path, error: std::io::Error) -> GivenError {
    let (flag, given, dir) = (flag.to_string(), given.to_string(), dir.to_path_buf());
    match error.kind() {
        ErrorKind::NotFound => GivenError::NoDir { flag, given, dir },
        ErrorKind::NotADirectory => GivenError::DirNotADir { flag, given, dir },
        _ if error.raw_os_error() == Some(libc::ENAMETOOLONG) => GivenError::PathTooLong { flag, given, error },
        _ => GivenError::NotWritable { flag, given, error },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_names_the_last_entry_or_nothing() {
        let s = |p: &str| {
            split(Path::new(p)).map(|(d, n)| (d.to_str().unwrap().to_string(), n.to_str().unwrap().to_string()))
        };
        assert_eq!(s("o.json"), Some((".".into(), "o.json".into())));
        assert_eq!(s("a/b/o.json"), Some(("a/b".into(), "o.json".into())));
        assert_eq!(s("/o.json"), Some(("/".into(), "o.json".into())));
        assert_eq!(s("a//o"), Some(("a/".into(), "o".into())));
        for none in ["", "a/", "/", ".", "..", "a/.", "a/.."] {
            assert_eq!(s(none), None, "{none}");
        }
    }
}
