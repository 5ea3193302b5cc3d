//! Reading a file the user names as input — a trace, a plan, a fio job file, fio's JSON output,
//! a results directory's JSON, a generation map, a crash journal — the one way: only a regular
//! file, of a size known before a byte is read.
//!
//! A path that names a FIFO would block the open (and then the read) forever, `/dev/zero` or a
//! character device never ends, and a huge file would be read whole into memory. So an input is
//! opened with `O_NONBLOCK` (a FIFO's open returns at once) and `O_CLOEXEC`, `fstat`ed, and
//! refused unless it is a regular file within the limit for its kind; it is then read through a
//! `take` of the size the limit allows, so a file that grows while it is read cannot grow the
//! buffer past the limit either. Every refusal is an [`Error::Invalid`] (exit code 2) naming
//! the path, what it is, and the fix, typed ([`InputError`], so a caller can tell a missing file
//! from a hostile one); a failing read of a regular file is an [`Error::Io`].

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::error::Error;

/// Why an input file was refused, by kind, with the path as shown and what the file was to be
/// (`what`: "trace", "plan file"...). Every one is the user's to fix (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: no such file; expected the path of a {what}{such}")]
    Missing { path: String, what: &'static str, such: String },
    #[error("{path}: a part of the path is not a directory; give the path of the {what}")]
    NotDirectory { path: String, what: &'static str },
    #[error("{path}: too many levels of symbolic links (a symlink loop); give the path of the {what} itself")]
    SymlinkLoop { path: String, what: &'static str },
    #[error("{path}: permission denied; give a {what} this user may read")]
    Denied { path: String, what: &'static str },
    #[error("{path}: the path is too long; give a shorter one")]
    PathTooLong { path: String },
    #[error(
        "{path} is {kind}: a {what} is read only from a regular file; give the path of one (copy a stream to a file \
         first)"
    )]
    NotRegular { path: String, kind: &'static str, what: &'static str },
    #[error("{path}: {size}, over the {limit} limit for a {what}; give a smaller one{hint}")]
    TooLarge { path: String, size: String, limit: String, what: &'static str, hint: &'static str },
    #[error("{path}: byte {at} is not UTF-8; a {what} is text")]
    NotUtf8 { path: String, at: usize, what: &'static str },
}

/// A kind of input file: what it is called in messages and the most it may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Input {
    /// "trace", "plan file", "fio job file"...
    pub what: &'static str,
    /// The most bytes it may hold.
    pub limit: u64,
    /// What one is called, for "no such file" (`job.fio`), or "".
    pub example: &'static str,
}

impl Input {
    /// A trace to replay (fio iolog, blkparse's text).
    pub const TRACE: Input = Input { what: "trace", limit: 1 << 30, example: "" };
    /// A TOML plan file.
    pub const PLAN: Input = Input { what: "plan file", limit: 64 << 20, example: "sweep.toml" };
    /// A fio job file.
    pub const JOB: Input = Input { what: "fio job file", limit: 64 << 20, example: "job.fio" };
    /// A JSON file: fio's output, a results directory's `run.json` and point files.
    pub const JSON: Input = Input { what: "JSON file", limit: 64 << 20, example: "" };
    /// A results directory's generation maps: bounded by the targets they map (a byte per
    /// unit), checked by their reader against the file's size and the targets' sizes.
    pub const MAP: Input = Input { what: "generation map", limit: u64::MAX, example: "" };
    /// fio's verify state file (`verify_state_load`): a header and one job's list, fio's
    /// at most a few KiB; every field checked by its reader.
    pub const VERIFY_STATE: Input = Input { what: "verify state file", limit: 16 << 20, example: "" };
    /// A crash journal: read as a stream, every frame checked against the bytes left.
    pub const JOURNAL: Input = Input { what: "journal", limit: u64::MAX, example: "" };

    /// Open `path` as this kind of input: the file and its size. Refused: anything but a
    /// regular file (a FIFO, a socket, a device, a directory), a file over the limit.
    pub fn open(self, path: &Path) -> Result<(File, u64), Error> {
        let shown = path.display().to_string();
        let what = self.what;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENOENT) => {
                    let such =
                        if self.example.is_empty() { String::new() } else { format!(" such as {}", self.example) };
                    InputError::Missing { path: shown.clone(), what, such }.into()
                }
                Some(libc::ENOTDIR) => InputError::NotDirectory { path: shown.clone(), what }.into(),
                Some(libc::ELOOP) => InputError::SymlinkLoop { path: shown.clone(), what }.into(),
                Some(libc::EACCES | libc::EPERM) => InputError::Denied { path: shown.clone(), what }.into(),
                Some(libc::ENAMETOOLONG) => InputError::PathTooLong { path: shown.clone() }.into(),
                _ => Error::io(format!("opening the {what} {shown}"), e),
            })?;
        let meta = file.metadata().map_err(|e| Error::io(format!("examining the {what} {shown}"), e))?;
        let ft = meta.file_type();
        let kind = if ft.is_file() {
            None
        } else if ft.is_dir() {
            Some("a directory")
        } else if ft.is_fifo() {
            Some("a FIFO (a named pipe)")
        } else if ft.is_char_device() {
            Some("a character device")
        } else if ft.is_block_device() {
            Some("a block device")
        } else if ft.is_socket() {
            Some("a socket")
        } else {
            Some("not a regular file")
        };
        if let Some(kind) = kind {
            return Err(InputError::NotRegular { path: shown, kind, what }.into());
        }
        let size = meta.len();
        if size > self.limit {
            return Err(self.too_large(path, &format!("{size} bytes")));
        }
        Ok((file, size))
    }

    fn too_large(self, path: &Path, size: &str) -> Error {
        InputError::TooLarge {
            path: path.display().to_string(),
            size: size.to_string(),
            limit: limit_text(self.limit),
            what: self.what,
            hint: if self == Input::TRACE { " (replay a part of the trace)" } else { "" },
        }
        .into()
    }

    /// The whole of `path`, checked as [`Input::open`] checks it.
    pub fn read(self, path: &Path) -> Result<Vec<u8>, Error> {
        let (file, size) = self.open(path)?;
        let mut bytes = Vec::with_capacity(size.min(64 << 20) as usize);
        // One byte past the limit tells a file that grew while it was read.
        file.take(self.limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(format!("reading the {} {}", self.what, path.display()), e))?;
        if bytes.len() as u64 > self.limit {
            return Err(self.too_large(path, "more bytes (it grew while read)"));
        }
        Ok(bytes)
    }

    /// The whole of `path` as UTF-8 text.
    pub fn read_string(self, path: &Path) -> Result<String, Error> {
        String::from_utf8(self.read(path)?).map_err(|e| {
            InputError::NotUtf8 { path: path.display().to_string(), at: e.utf8_error().valid_up_to(), what: self.what }
                .into()
        })
    }
}

/// A limit as people say it: `1 GiB`, `64 MiB`, else bytes.
fn limit_text(b: u64) -> String {
    match crate::units::fmt_size_words(b) {
        w if w.ends_with(" bytes") => format!("{b}-byte"),
        w => w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<Vec<u8>, Error>) -> String {
        let e = r.unwrap_err();
        assert!(e.is_invalid(), "{e}");
        e.to_string()
    }

    #[test]
    fn only_regular_files_of_a_bounded_size_are_read() {
        let dir = std::env::temp_dir().join(format!("drivelab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.txt");
        std::fs::write(&f, b"hello").unwrap();
        assert_eq!(Input::PLAN.read(&f).unwrap(), b"hello");
        let small = Input { what: "thing", limit: 4, example: "" };
        assert!(msg(small.read(&f)).contains("5 bytes, over the 4-byte limit for a thing"));
        assert_eq!((limit_text(Input::TRACE.limit), limit_text(Input::JSON.limit)), ("1 GiB".into(), "64 MiB".into()));
        assert!(msg(Input::PLAN.read(&dir)).contains("is a directory"));
        assert!(msg(Input::TRACE.read(Path::new("/dev/zero"))).contains("character device"));
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(msg(Input::TRACE.read(&fifo)).contains("FIFO"), "refused without blocking");
        let l = dir.join("loop");
        std::os::unix::fs::symlink(&l, &l).unwrap();
        assert!(msg(Input::JSON.read(&l)).contains("symlink loop"));
        assert!(msg(Input::JSON.read(&dir.join("none"))).contains("no such file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
