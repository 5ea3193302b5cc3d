//! Every file drivelab writes is made here, relative to an opened directory, so that nothing
//! planted in that directory can redirect a write: not a symlink, a hard link or a FIFO at the
//! temporary name (it is random and opened `O_CREAT | O_EXCL | O_NOFOLLOW`, so any existing
//! name is refused and another is drawn), nor any of those at the final name (`linkat` never
//! follows and refuses an existing name, dangling symlinks included). A directory the user names
//! is opened as named (its symlinks are the user's choice); a directory drivelab made itself
//! (`points`, `probes`) is opened with `O_NOFOLLOW`, so a symlink put in its place is refused.
//!
//! A file is written whole to the temporary name, synced, and then linked (a new file) or
//! renamed (`report.html`, a view that is refreshed) to its name, and the directory synced: a
//! crash or Ctrl-C leaves the complete file or nothing under that name.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use drivelab_engine::Error;

use super::StoreError;

/// What writes a file's content into it ([`Dir::write_new_with`], [`Dir::replace_with`]).
pub type Fill<'a> = &'a mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

/// How many random temporary names are tried before giving up (each one taken means someone
/// else made that name: it is never reused).
const TEMP_TRIES: usize = 16;

/// A directory opened for writing files into.
pub struct Dir {
    file: File,
    path: PathBuf,
}

impl Dir {
    /// Open the directory at `path` as the user named it (symlinks in `path` are followed: the
    /// user chose where results go).
    pub fn open(path: &Path) -> Result<Dir, Error> {
        let shown = if path.as_os_str().is_empty() { Path::new(".") } else { path };
        let fd = rustix::fs::open(shown, dir_flags(), Mode::empty())
            .map_err(|e| Error::io(format!("opening the directory {}", shown.display()), e.into()))?;
        Ok(Dir { file: File::from(fd), path: path.to_path_buf() })
    }

    /// The subdirectory `name` drivelab made itself: opened without following a symlink, so a
    /// symlink planted in its place is refused.
    pub fn open_own(&self, name: &str) -> Result<Dir, Error> {
        let name = one_name(name)?;
        let path = self.path.join(name);
        match rustix::fs::openat(&self.file, name, dir_flags() | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => Ok(Dir { file: File::from(fd), path }),
            Err(e) if e == Errno::LOOP || e == Errno::NOTDIR => Err(StoreError::NotOurDir { path }.into()),
            Err(e) => Err(Error::io(format!("opening the directory {}", path.display()), e.into())),
        }
    }

    /// Make the new subdirectory `name` (an existing name, of any kind, is an error of kind
    /// `AlreadyExists`) and open it.
    pub fn make_dir(&self, name: &str) -> Result<Dir, std::io::Error> {
        let name = one_name(name).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        rustix::fs::mkdirat(&self.file, name, Mode::from_raw_mode(0o777))?;
        let fd = rustix::fs::openat(&self.file, name, dir_flags() | OFlags::NOFOLLOW, Mode::empty())?;
        Ok(Dir { file: File::from(fd), path: self.path.join(name) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The opened directory itself (to lock it).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Does `name` exist here, as anything (a dangling symlink included)?
    pub fn has(&self, name: impl AsRef<OsStr>) -> bool {
        let Ok(name) = one_name(name.as_ref()) else { return false };
        rustix::fs::statat(&self.file, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    /// Write `bytes` to the new file `name` (refused if the name exists, as anything).
    pub fn write_new(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), Error> {
        self.write_new_with(name, &mut |w| w.write_all(bytes))
    }

    /// [`Dir::write_new`] of what `fill` writes, streamed into the file (a report of many
    /// thousand points is never held whole in memory); a failure of `fill` leaves nothing.
    pub fn write_new_with(&self, name: impl AsRef<OsStr>, fill: Fill) -> Result<(), Error> {
        let name = one_name(name.as_ref())?;
        let tmp = self.write_temp_with(0o666, fill)?;
        let linked = rustix::fs::linkat(&self.file, &tmp, &self.file, name, AtFlags::empty());
        let _ = rustix::fs::unlinkat(&self.file, &tmp, AtFlags::empty());
        let shown = self.path.join(name);
        match linked {
            Ok(()) => self.sync(),
            // The names given are checked before anything runs: this one appeared since (exit 1,
            // not a refusal of the input).
            Err(Errno::EXIST) => Err(Error::io(
                format!(
                    "saving {}: the name exists (drivelab never overwrites a file nor writes through a symlink)",
                    shown.display()
                ),
                std::io::Error::from(std::io::ErrorKind::AlreadyExists),
            )),
            Err(e) => Err(Error::io(format!("saving {}", shown.display()), e.into())),
        }
    }

    /// Write `bytes` to `name`, replacing whatever has that name here (the name itself: a symlink
    /// is replaced, never followed). For views drivelab derives and refreshes (`report.html`).
    pub fn replace(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), Error> {
        self.replace_with_mode(name, bytes, 0o666)
    }

    /// [`Dir::replace`] with what `fill` writes, streamed (see [`Dir::write_new_with`]).
    pub fn replace_with(&self, name: impl AsRef<OsStr>, fill: Fill) -> Result<(), Error> {
        let name = one_name(name.as_ref())?;
        let tmp = self.write_temp_with(0o666, fill)?;
        self.rename_into(&tmp, name)
    }

    /// [`Dir::replace`], the file readable and writable by this user only (drivelab's own state:
    /// whatever the umask, no one else may read or change it).
    pub fn replace_private(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), Error> {
        self.replace_with_mode(name, bytes, 0o600)
    }

    fn replace_with_mode(&self, name: impl AsRef<OsStr>, bytes: &[u8], mode: u32) -> Result<(), Error> {
        let name = one_name(name.as_ref())?;
        let tmp = self.write_temp_with(mode, &mut |w| w.write_all(bytes))?;
        self.rename_into(&tmp, name)
    }

    /// The temporary file `tmp` takes `name` (whatever had it is replaced), made durable.
    fn rename_into(&self, tmp: &str, name: &OsStr) -> Result<(), Error> {
        if let Err(e) = rustix::fs::renameat(&self.file, tmp, &self.file, name) {
            let _ = rustix::fs::unlinkat(&self.file, tmp, AtFlags::empty());
            return Err(Error::io(format!("saving {}", self.path.join(name).display()), e.into()));
        }
        self.sync()
    }

    /// Can a file be made here? (Permissions, read-only mounts and filesystems that take no
    /// files all show.) Makes a temporary file and removes it.
    pub fn probe(&self) -> Result<(), std::io::Error> {
        let (_, tmp) = self.create_temp()?;
        rustix::fs::unlinkat(&self.file, &tmp, AtFlags::empty())?;
        Ok(())
    }

    /// A new temporary file made with `mode` (less the umask) holding what `fill` wrote
    /// (through a buffer), synced; its name. Removed again when anything fails.
    fn write_temp_with(&self, mode: u32, fill: Fill) -> Result<String, Error> {
        let (fd, tmp) = self
            .create_temp_mode(mode)
            .map_err(|e| Error::io(format!("creating a file in {}", self.path.display()), e))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, File::from(fd));
        let written = fill(&mut w).and_then(|_| w.flush());
        if let Err(e) = written.and_then(|_| w.get_ref().sync_all()) {
            let _ = rustix::fs::unlinkat(&self.file, &tmp, AtFlags::empty());
            return Err(Error::io(format!("writing a file in {}", self.path.display()), e));
        }
        Ok(tmp)
    }

    /// Create a new file under a random name (`.drivelab-<16 hex>.tmp`, the same length whatever
    /// the final name), never over anything that exists.
    fn create_temp(&self) -> Result<(OwnedFd, String), std::io::Error> {
        self.create_temp_mode(0o666)
    }

    fn create_temp_mode(&self, mode: u32) -> Result<(OwnedFd, String), std::io::Error> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..TEMP_TRIES {
            let tmp = format!(".drivelab-{:016x}.tmp", fastrand::u64(..));
            match rustix::fs::openat(&self.file, &tmp, flags, Mode::from_raw_mode(mode)) {
                Ok(fd) => return Ok((fd, tmp)),
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(std::io::Error::other(format!("{TEMP_TRIES} random temporary names were all taken")))
    }

    /// Make the new name durable.
    fn sync(&self) -> Result<(), Error> {
        match rustix::fs::fsync(&self.file) {
            // Some filesystems cannot sync a directory; the file itself is synced.
            Ok(()) | Err(Errno::INVAL) | Err(Errno::NOTSUP) => Ok(()),
            Err(e) => Err(Error::io(format!("syncing {}", self.path.display()), e.into())),
        }
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// `name` as one entry of a directory: a path with a `/` would be resolved through whatever its
/// components are (symlinks included), and `.`/`..` are not files.
fn one_name<N: AsRef<OsStr> + ?Sized>(name: &N) -> Result<&OsStr, Error> {
    let n = name.as_ref();
    let b = n.as_bytes();
    if b.is_empty() || b == b"." || b == b".." || b.contains(&b'/') {
        return Err(StoreError::NotOneName { name: n.to_string_lossy().into_owned() }.into());
    }
    Ok(n)
}
