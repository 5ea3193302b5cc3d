//! A file name the user gives drivelab to create (`--json`, `-o`, `--act-log`), checked before
//! anything is run or written: a run that cannot save its result must not run at all. Any
//! existing name is refused — a symlink too, dangling or not (`symlink_metadata`, never
//! `exists()`, which follows it and says a dangling one is free) — and so are a name that is not
//! a file name (empty, ending in `/`), one longer than a file name may be, a directory that is
//! missing or is not a directory, and a directory this user cannot create files in.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
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
    /// fio's `--output` names something that is neither a file to replace nor a stream.
    #[error("{flag} {given} {} (nothing was run)", .why)]
    NotAnOutput { flag: String, given: String, why: &'static str },
    #[error("{flag} {given} is a pipe no process reads: start its reader first (nothing was run)")]
    NoReader { flag: String, given: String },
}

/// How fio's `--output FILE` is written (fio writes over what is there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFile {
    /// A new name: made as [`super::write_new`] makes one.
    New,
    /// An existing regular file (the name itself, not a symlink): replaced whole, by a new file
    /// renamed over it, so it is never left half-written.
    Replace,
    /// A pipe, a socket or a character device (`/dev/null`, a terminal, `/dev/stdout`, a
    /// process substitution's `/dev/fd/63`): written as a stream; nothing there can be lost.
    Stream,
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

/// How fio's `--output` `given` can be written (see [`OutputFile`]), checked before the run: a
/// symlink to a file, a directory and a block device are refused (drivelab never writes through
/// a symlink to a file, nor over a device), and so is a pipe nobody reads (writing it would wait
/// forever).
pub fn check_output_file(flag: &str, given: &str) -> Result<OutputFile, Error> {
    let refuse = |why| GivenError::NotAnOutput { flag: flag.to_string(), given: given.to_string(), why };
    let path = Path::new(given);
    let own = match std::fs::symlink_metadata(path) {
        Ok(m) => m.file_type(),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            check_new_file(flag, given)?;
            return Ok(OutputFile::New);
        }
        Err(e) => return Err(GivenError::NotWritable { flag: flag.into(), given: given.into(), error: e }.into()),
    };
    if own.is_file() {
        let Some((dir, _)) = split(path) else {
            return Err(GivenError::NamesADir { flag: flag.into(), given: given.into() }.into());
        };
        let opened = Dir::open(dir).map_err(|e| match e {
            Error::Io { source, .. } => unusable(flag, given, dir, source).into(),
            other => other,
        })?;
        opened.probe().map_err(|error| GivenError::NotWritable { flag: flag.into(), given: given.into(), error })?;
        return Ok(OutputFile::Replace);
    }
    if own.is_dir() {
        return Err(refuse("is a directory: give a file name").into());
    }
    // A symlink is written through only to a stream (`/dev/stdout`, `/dev/fd/N`).
    let target = std::fs::metadata(path)
        .map_err(|error| GivenError::NotWritable { flag: flag.into(), given: given.into(), error })?
        .file_type();
    if target.is_fifo() {
        // Opened without waiting: with no reader, open(2) says ENXIO instead of blocking.
        return match open_stream(path) {
            Ok(_) => Ok(OutputFile::Stream),
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                Err(GivenError::NoReader { flag: flag.into(), given: given.into() }.into())
            }
            Err(error) => Err(GivenError::NotWritable { flag: flag.into(), given: given.into(), error }.into()),
        };
    }
    if target.is_char_device() || target.is_socket() {
        return Ok(OutputFile::Stream);
    }
    Err(refuse(match () {
        _ if target.is_file() => "is a symlink to a file: drivelab never writes through one; give the file itself",
        _ if target.is_dir() => "is a symlink to a directory: give a file name",
        _ if target.is_block_device() => "is a block device: fio's output never goes over a drive; give a file name",
        _ => "is not a file, a pipe or a terminal: give a file name",
    })
    .into())
}

/// `path` (a pipe, socket or character device) opened for writing without waiting for a reader,
/// then made blocking again (a writer waits for a slow reader rather than failing).
fn open_stream(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    let fd = rustix::fs::fcntl_getfl(&f)?;
    rustix::fs::fcntl_setfl(&f, fd - rustix::fs::OFlags::NONBLOCK)?;
    Ok(f)
}

/// Write fio's output `bytes` to `given` as [`check_output_file`] found it: a new file made
/// whole, an existing file replaced whole, a stream written.
pub fn write_output(given: &str, how: OutputFile, bytes: &[u8]) -> Result<(), Error> {
    let path = Path::new(given);
    match how {
        OutputFile::New => super::write_new(path, bytes),
        OutputFile::Replace => {
            let Some((dir, name)) = split(path) else {
                return Err(GivenError::NamesADir { flag: "--output".into(), given: given.into() }.into());
            };
            Dir::open(dir)?.replace(name, bytes)
        }
        OutputFile::Stream => {
            use std::io::Write;
            let mut f = open_stream(path).map_err(|e| Error::io(format!("opening {given}"), e))?;
            f.write_all(bytes).map_err(|e| Error::io(format!("writing {given}"), e))
        }
    }
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
