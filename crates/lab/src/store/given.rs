//! A file name the user gives drivelab to create (`--json`, `-o`, `--act-log`), checked before
//! anything is run or written: a run that cannot save its result must not run at all. Any
//! existing name is refused — a symlink too, dangling or not (`symlink_metadata`, never
//! `exists()`, which follows it and says a dangling one is free) — and so are a name that is not
//! a file name (empty, ending in `/`), one longer than a file name may be, a directory that is
//! missing or is not a directory, and a directory this user cannot create files in.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use drivelab_engine::Error;

use super::dir::Dir;

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
    if given.is_empty() {
        return Err(Error::invalid(format!("{flag} needs a file name: {flag} FILE")));
    }
    let path = Path::new(given);
    let Some((dir, name)) = split(path) else {
        return Err(Error::invalid(format!("{flag} {given} names a directory: give a file name ({flag} DIR/FILE)")));
    };
    if name.len() > NAME_MAX {
        return Err(Error::invalid(format!(
            "{flag} {given}: the file name is {} bytes long and a file name can be at most {NAME_MAX}: choose a \
             shorter name (nothing was run)",
            name.len()
        )));
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) => {
            let t = m.file_type();
            let why = if t.is_symlink() {
                "is a symlink: drivelab never writes through one (nor over a name that exists)"
            } else if t.is_dir() {
                "is a directory: give a file name"
            } else if t.is_file() {
                "exists: drivelab never overwrites files"
            } else {
                "exists (a FIFO, socket or device): drivelab only ever creates a new file"
            };
            return Err(Error::invalid(format!(
                "{flag} {given} {why}; remove it or choose another name (nothing was run)"
            )));
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(unusable(flag, given, dir, e)),
    }
    let opened = Dir::open(dir).map_err(|e| match e {
        Error::Io { source, .. } => unusable(flag, given, dir, source),
        other => other,
    })?;
    opened.probe().map_err(|e| {
        Error::invalid(format!(
            "{flag} {given} cannot be written ({e}): choose a place you can write to (nothing was run)"
        ))
    })
}

/// Why `given`'s directory `dir` cannot take it.
fn unusable(flag: &str, given: &str, dir: &Path, e: std::io::Error) -> Error {
    let dir = dir.display();
    Error::invalid(match e.kind() {
        ErrorKind::NotFound => format!("{flag} {given}: the directory {dir} does not exist; create it first"),
        ErrorKind::NotADirectory => {
            format!("{flag} {given}: {dir} is not a directory (a file is in the way): choose another path")
        }
        _ if e.raw_os_error() == Some(libc::ENAMETOOLONG) => {
            format!("{flag} {given}: the path is too long ({e}): choose a shorter one")
        }
        _ => format!("{flag} {given} cannot be written ({e}): choose a place you can write to (nothing was run)"),
    })
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
